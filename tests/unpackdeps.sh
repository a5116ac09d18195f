#!/bin/sh
# SPDX-License-Identifier: MIT
# --maintscripts' checks before an unpack, against dpkg's on the same
# packages in twin roots: Pre-Depends (installed, unpacked, Provides,
# versions) and Breaks, refused, forced or ignored (--force-depends,
# --force-breaks, --ignore-depends) or, with --auto-deconfigure, the broken
# package deconfigured (its prerm deconfigure, half-configured, and the
# unwinding when a script fails).  Exit codes, messages, scripts'
# arguments, status-fd lines and dpkg's status compared.
. "$(dirname "$0")/lib.sh"

command -v dpkg > /dev/null || skip "no dpkg"

# Each script logs its name and arguments, and fails when a file
# fail-PKG-SCRIPT-ARG1 is in the root.
S='#!/bin/sh\n[ "$(basename $(dirname $0))" != tmp.ci ] || grep -qx "Package: $DPKG_MAINTSCRIPT_PACKAGE" "$(dirname $0)/control" || echo "no control in tmp.ci P=$DPKG_MAINTSCRIPT_PACKAGE " >> "$DPKG_ROOT/log"\necho "$(basename $0) $* P=$DPKG_MAINTSCRIPT_PACKAGE A=$DPKG_MAINTSCRIPT_ARCH N=$DPKG_MAINTSCRIPT_NAME R=$DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT AD=$DPKG_ADMINDIR RT=$DPKG_ROOT dir=$(basename $(dirname $0))" >> "$DPKG_ROOT/log"\n[ ! -e "$DPKG_ROOT/fail-$DPKG_MAINTSCRIPT_PACKAGE-$DPKG_MAINTSCRIPT_NAME-$1" ] || exit 3\nexit 0\n'
pkg() {	# NAME VERSION [FIELD VALUE]...
	pn=$1 pv=$2
	shift 2
	{
		fields_scripts "$S" "$@"
		# "./" as dpkg-deb packs it: dpkg lists it ("/.") and counts it.
		printf '%s\n' "dir ./ 0755" "dir ./usr 0755" "dir ./usr/share 0755" \
		    "file ./usr/share/$pn-$pv 0644 text:$pv"
	} | make_pkg -a all -m "T <t@example.org>" -d test "$pn" "$pv" -
}
l1=$(pkg l 1) l2=$(pkg l 2)
v1=$(pkg v 1 Provides 'virt (= 2)')
p1=$(pkg p 1 Pre-Depends 'l (>= 1)')
pv=$(pkg p 2 Pre-Depends 'virt (>= 2)')
pv3=$(pkg p 3 Pre-Depends 'virt (>= 3) | l (>= 2)')
w1=$(pkg w 1 Breaks 'l (<< 2)')
wv=$(pkg w 2 Breaks 'virt')

D=$T/dpkg U=$T/debunpack
empty_dpkg_db "$D"
empty_dpkg_db "$U"

run() {
	dpkg_opts="${opts:-} ${force:+--force-$force}"
	deb_opts="${opts:-} ${force:+--dpkg-force=$force}"
	twin_pkgs="l p v w"
	twin_run "$@"
}
configure() {
	dpkg_root "$D" --configure -a
	dpkg_root "$U" --configure -a
}
both() {	# dpkg ARG... in both roots, which must succeed
	dpkg_root "$D" "$@"
	dpkg_root "$U" "$@"
}
failed() {	# the last run failed, as dpkg's did: exit 1
	[ "$ru" = 1 ] || fail "exit $ru, not 1, after a failure"
}
went() {	# WHAT WARNING: the last run went on, with dpkg's WARNING
	[ "$ru" = 0 ] || fail "$1: exit $ru"
	grep -qxF "dpkg: warning: $2" "$T/err.deb" ||
	    fail "$1: no warning: $(cat "$T/err.deb")"
}
fails() {	# PKG SCRIPT ARG: that script fails in both roots
	touch "$D/fail-$1-$2-$3" "$U/fail-$1-$2-$3"
}
unfail() {
	rm -f "$D"/fail-* "$U"/fail-*
}
state() {	# PKG: its state in debunpack's root
	dpkg-query --admindir="$U/var/lib/dpkg" -f '${db:Status-Abbrev}' -W "$1"
}

# 1. Pre-Depends on a package not there: refused, the rest go on.
run "pre-depends on nothing" "$p1" "$v1"
failed
grep -q '^dpkg: regarding .* containing p, pre-dependency problem:$' "$T/err.deb" &&
    grep -q '^  l is not installed\.$' "$T/err.deb" ||
    fail "no pre-dependency notice: $(cat "$T/err.deb")"
grep -q '^ pre-dependency problem - not installing p$' "$T/err.deb" ||
    fail "no pre-dependency error"
configure
# --force-depends: dpkg's warning, p unpacked all the same; so with
# --ignore-depends of l (the problem is still told) or of p itself.
predep="ignoring pre-dependency problem!"
force=depends
run "pre-depends on nothing, forced" "$p1"
went "forced pre-depends" "$predep"
both --purge p
# Each group not satisfied is told and ignored, one after the other.
run "two pre-depends, forced" "$(pkg p 4 Pre-Depends 'l (>= 1), x')"
[ "$ru" = 0 ] || fail "two forced pre-depends: exit $ru"
[ "$(grep -c '^dpkg: warning: ignoring pre-dependency problem!$' "$T/err.deb")" = 2 ] ||
    fail "not two warnings: $(cat "$T/err.deb")"
force=
both --purge p
for opts in --ignore-depends=l --ignore-depends=x,p:all; do
	run "pre-depends, $opts" "$p1"
	went "pre-depends, $opts" "$predep"
	both --purge p
done
opts=
configure

# 2. On a package unpacked, never configured: refused; once configured,
# and through a versioned Provides, satisfied.
both --unpack "$l1"
run "pre-depends on an unconfigured package" "$p1"
failed
grep -q '^  l is unpacked, but has never been configured\.$' "$T/err.deb" ||
    fail "unconfigured not told: $(cat "$T/err.deb")"
configure
run "pre-depends on an installed package" "$p1"
configure
both --purge p
run "pre-depends through a versioned Provides" "$pv"
configure
both --purge p
run "pre-depends on an alternative, none enough" "$pv3"
failed
grep -q '^  l is installed, but is version 1\.$' "$T/err.deb" ||
    fail "versions not told: $(cat "$T/err.deb")"

# 3. Breaks an installed package: refused without --auto-deconfigure.
run "breaks, no --auto-deconfigure" "$w1"
failed
grep -q '^ installing w would break l, and$' "$T/err.deb" &&
    grep -q '^ deconfiguration is not permitted (--auto-deconfigure might help)$' "$T/err.deb" ||
    fail "breaks error: $(cat "$T/err.deb")"
run "breaks through a Provides" "$wv"
failed
grep -q '^  v provides virt and is present and installed\.$' "$T/err.deb" ||
    fail "provider not told: $(cat "$T/err.deb")"
# --force-breaks: dpkg's warning, W unpacked, L left as it is.
force=breaks
run "breaks, forced" "$w1"
force=
went "forced breaks" "ignoring breakage, may proceed anyway!"
both --purge w
# --ignore-depends of the breaker or of the broken package: the same.
for opts in --ignore-depends=w --ignore-depends=l; do
	run "breaks, $opts" "$w1"
	went "breaks, $opts" "ignoring breakage, may proceed anyway!"
	both --purge w
done
opts=
configure

# 4. With it: deconfigured, prerm deconfigure in-favour, half-configured.
opts=--auto-deconfigure
run "breaks, deconfigured" "$w1"
grep -q '^l\.prerm deconfigure in-favour w 1 P=l ' "$T/log.deb" ||
    fail "no prerm deconfigure: $(cat "$T/log.deb")"
grep -q '^dpkg: yes, will deconfigure l (broken by w)$' "$T/err.deb" ||
    fail "no deconfiguration notice: $(cat "$T/err.deb")"
[ "$(state l)" = "iF " ] || fail "l not half-configured: $(state l)"
both --purge w
configure

# 5. The deconfigured package's prerm fails: the package fails, the
# other's postinst abort-deconfigure runs, it is installed again.
fails l prerm deconfigure
run "prerm deconfigure fails" "$w1"
failed
grep -q '^l\.postinst abort-deconfigure in-favour w 1 P=l ' "$T/log.deb" ||
    fail "no abort-deconfigure: $(cat "$T/log.deb")"
[ "$(state l)" = "ii " ] || fail "l not installed again: $(state l)"
unfail

# 6. The breaking package's preinst fails after the deconfiguration.
fails w preinst install
run "preinst fails after a deconfiguration" "$w1"
failed
grep -q '^l\.postinst abort-deconfigure in-favour w 1 P=l ' "$T/log.deb" ||
    fail "no abort-deconfigure: $(cat "$T/log.deb")"
unfail

# 7. Upgraded in the same call before the breaking package: no longer
# broken, nothing deconfigured; after it: deconfigured, then upgraded.
run "the broken package upgraded first" "$l2" "$w1"
grep -q deconfigure "$T/log.deb" && fail "deconfigured: $(cat "$T/log.deb")"
configure
both --purge w
both --install "$l1"
run "the broken package upgraded after" "$w1" "$l2"
grep -q '^l\.prerm deconfigure in-favour w 1 P=l ' "$T/log.deb" ||
    fail "no prerm deconfigure: $(cat "$T/log.deb")"
opts=
configure

# 8. dpkg -i -B through the dpkg for apt: the package it deconfigured,
# not of the call, is configured after the unpack too, as dpkg -i does
# (and fails there, still broken; with the fix in the call, it is not).
shim_i() {	# WHAT DEB...: dpkg -i -B and the shim's compared
	what=$1
	shift
	: > "$D/log"
	: > "$U/log"
	dpkg_in "$D" -B --install "$@" > "$T/out.dpkg" 2>&1 && rd=0 || rd=$?
	DEBUNPACK_DPKG=$(command -v dpkg) PATH=$PATH:/usr/sbin:/sbin \
	    "$DPKGSHIM" --root="$U" --force-not-root \
	    --force-script-chrootless --log=/dev/null -B --install "$@" \
	    < /dev/null > "$T/out.shim" 2>&1 && ru=0 || ru=$?
	[ "$rd" = "$ru" ] || { cat "$T/out.dpkg" "$T/out.shim"; fail "$what: exit $rd from dpkg, $ru from the shim"; }
	grep -q "^De-configuring l (1), to allow installation of w (1) \.\.\.$" "$T/out.shim" ||
	    fail "$what: l not deconfigured: $(cat "$T/out.shim")"
	# Each package's scripts in order (the unpack groups the packages').
	for p in l w; do
		sed "s|$D|ROOT|g" "$D/log" | grep "P=$p " > "$T/l1" || true
		sed "s|$U|ROOT|g; s|dir=tmp.debunpack-old|dir=info|" "$U/log" |
		    grep "P=$p " > "$T/l2" || true
		diff -u "$T/l1" "$T/l2" || fail "$what: scripts of $p differ"
	done
	diff -u "$D/var/lib/dpkg/status" "$U/var/lib/dpkg/status" ||
	    fail "$what: dpkg's status differs"
}
if [ -n "${DPKGSHIM:-}" ] && [ -x "$DPKGSHIM" ]; then
	both --purge w
	both --install "$l1"
	shim_i "dpkg -i -B, the broken package alone" "$w1"
	# dpkg -i tries l again, which w still breaks.
	grep -q '^dpkg: dependency problems prevent configuration of l:$' "$T/out.shim" ||
	    fail "l not configured again: $(cat "$T/out.shim")"
	both --purge w
	both --install "$l1"
	shim_i "dpkg -i -B, the broken package upgraded too" "$w1" "$l2"
	[ "$rd" = 0 ] || fail "dpkg -i -B of w and l failed"
	# --force-depends over a Pre-Depends not satisfied: dpkg's warning.
	both --purge p w l
	dpkg_in "$D" --force-depends --unpack "$p1" > "$T/out.dpkg" 2>&1 &&
	    rd=0 || rd=$?
	DEBUNPACK_DPKG=$(command -v dpkg) PATH=$PATH:/usr/sbin:/sbin \
	    DEBUNPACK_DPKG_DEBUG=1 "$DPKGSHIM" --root="$U" --force-not-root \
	    --force-script-chrootless --log=/dev/null --force-depends \
	    --unpack "$p1" < /dev/null > "$T/out.shim" 2>&1 && ru=0 || ru=$?
	[ "$rd" = "$ru" ] && [ "$rd" = 0 ] ||
	    fail "--force-depends: exit $rd from dpkg, $ru from the shim"
	! grep -q 'handed to' "$T/out.shim" ||
	    fail "--force-depends: handed on: $(cat "$T/out.shim")"
	grep -q '^dpkg: warning: ignoring pre-dependency problem!$' "$T/out.shim" ||
	    fail "--force-depends: no warning: $(cat "$T/out.shim")"
	diff -u "$D/var/lib/dpkg/status" "$U/var/lib/dpkg/status" ||
	    fail "--force-depends: dpkg's status differs"
fi
echo "unpackdeps: ok"
