#!/bin/sh
# SPDX-License-Identifier: MIT
# --maintscripts and Conflicts: the conflictor removed in favour of a
# package that Replaces it (prerm remove in-favour, its files, postrm
# remove), refused without Replaces, met through Provides, and a failing
# prerm unwound, and the packages that depend on a conflictor: refused
# without --auto-deconfigure, deconfigured with it ("to allow removal
# of"), unwound when their prerm fails, warned of with --force-depends;
# scripts, status, status-fd lines, output, trees and exit codes
# compared with dpkg --unpack's in twin roots.
. "$(dirname "$0")/lib.sh"

command -v dpkg > /dev/null || skip "no dpkg"

# Each script logs its name and arguments, and fails when a file
# fail-PKG-SCRIPT-ARG1 is in the root.
S='#!/bin/sh\necho "$(basename $0) $* P=$DPKG_MAINTSCRIPT_PACKAGE N=$DPKG_MAINTSCRIPT_NAME dir=$(basename $(dirname $0))" >> "$DPKG_ROOT/log"\n[ ! -e "$DPKG_ROOT/fail-$DPKG_MAINTSCRIPT_PACKAGE-$DPKG_MAINTSCRIPT_NAME-$1" ] || exit 3\nexit 0\n'
# pkg NAME VERSION [FIELD VALUE]...: all four scripts, a file of its own
# and, with C set, /usr/share/common; without scripts when NOSCRIPTS is set.
pkg() {
	pn=$1 pv=$2
	shift 2
	{
		while [ $# -ge 2 ]; do
			printf 'control-field %s %s\n' "$1" "$2"
			shift 2
		done
		[ -n "${NOSCRIPTS:-}" ] || for s in preinst postinst prerm postrm; do
			printf '%s\n' "control-file $s 0755 $S"
		done
		# "./" as dpkg-deb packs it: dpkg lists it ("/.") and counts it.
		printf '%s\n' "dir ./ 0755" "dir ./usr 0755" "dir ./usr/share 0755" \
		    "file ./usr/share/$pn-$pv 0644 text:$pv"
		[ -z "${C:-}" ] || printf '%s\n' "file ./usr/share/common 0644 text:$pn $pv"
	} | make_pkg -m "T <t@example.org>" -d test "$pn" "$pv" -
}

D=$T/dpkg U=$T/debunpack
empty_dpkg_db "$D"
empty_dpkg_db "$U"

# run WHAT DEB...: both unpack; exit codes, messages (sorted), scripts
# with their arguments (debunpack runs a removed package's postrm from
# its copy), dpkg's status, status-fd lines of each package and trees
# compared.
run() {
	dpkg_opts="${FORCE:+--force-$FORCE} ${AUTO:+--auto-deconfigure}"
	deb_opts="${FORCE:+--dpkg-force=$FORCE} ${AUTO:+--auto-deconfigure}"
	twin_pkgs="a b c e f t g h i j k l m n o q r s u v w x y z" twin_sfd=/
	twin_tree="usr var/lib/dpkg/info"
	twin_run "$@"
}
both() {	# dpkg ARG... in both roots
	dpkg_root "$D" "$@"
	dpkg_root "$U" "$@"
}

x1=$(C=1 pkg x 1)
y1=$(C=1 pkg y 1 Conflicts x Replaces x)
z1=$(pkg z 1 Conflicts 'x (>= 1)')
w1=$(pkg w 1 Provides v)
q1=$(pkg q 1 Conflicts v Replaces w)
v1=$(NOSCRIPTS=1 pkg v 1 Conflicts 'q (<< 1)')
both --install "$x1" "$w1"

# 1. Conflicts without Replaces: refused in dpkg's words, the other
# package of the call unpacked, exit 1.
run "conflicts, no replaces" "$z1" "$v1"
[ "$ru" = 1 ] || fail "refused: exit $ru"
grep -q '^ z conflicts with x (>= 1)$' "$T/err.deb" &&
    grep -q '^  x (version 1) is present and installed\.$' "$T/err.deb" ||
    fail "no reason: $(cat "$T/err.deb")"
grep -q "^status: .*/z-1.deb : error : conflicting packages - not installing z$" "$T/sfd.deb" ||
    fail "no error line: $(cat "$T/sfd.deb")"
[ ! -e "$U/usr/share/z-1" ] || fail "z unpacked"
both --configure -a

# 2. A failing prerm of the conflictor: postinst abort-remove in-favour,
# the conflictor installed again, the new package not installed.
touch "$D/fail-x-prerm-remove" "$U/fail-x-prerm-remove"
run "prerm remove in-favour fails" "$y1"
[ "$ru" = 1 ] || fail "failed prerm: exit $ru"
grep -q '^x.postinst abort-remove in-favour y 1 P=x' "$T/log.deb" ||
    fail "no abort-remove: $(cat "$T/log.deb")"
# 2b. Its abort-remove failing too: left half-configured, its stanza
# showing the version it was configured at, as dpkg's does.
touch "$D/fail-x-postinst-abort-remove" "$U/fail-x-postinst-abort-remove"
run "prerm and abort-remove fail" "$y1"
[ "$ru" = 1 ] || fail "failed abort-remove: exit $ru"
grep -A5 '^Package: x$' "$U/var/lib/dpkg/status" | grep -qx 'Config-Version: 1' ||
    fail "x half-configured without its Config-Version"
rm -f "$D"/fail-* "$U"/fail-*
both --configure -a

# 3. Conflicts and Replaces: prerm remove in-favour, the new files, the
# conflictor's files that were not taken removed, postrm remove; left
# config-files with its postrm, as dpkg leaves it.
run "removal in favour" "$y1"
[ "$ru" = 0 ] || fail "removal in favour: exit $ru"
grep -q '^x.prerm remove in-favour y 1 P=x' "$T/log.deb" &&
    grep -q '^x.postrm remove P=x' "$T/log.deb" || fail "scripts: $(cat "$T/log.deb")"
grep -q '^Removing x (1), to allow configuration of y (1) \.\.\.$' "$T/out.deb" ||
    fail "no Removing line: $(cat "$T/out.deb")"
[ ! -e "$U/usr/share/x-1" ] && [ "$(cat "$U/usr/share/common")" = "y 1" ] ||
    fail "x's files"
both --configure -a

# 4. Through Provides: q conflicts with v, which w provides (q
# Replaces w) and v is: two packages meet it, dpkg removes neither.
run "conflict met twice" "$q1"
[ "$ru" = 1 ] || fail "met twice: exit $ru"
grep -q '^  w provides v and is present and installed\.$' "$T/err.deb" ||
    fail "no provides line: $(cat "$T/err.deb")"
# With v gone, w goes in favour of q.
dpkg_root "$D" --purge v
"$DEBUNPACK" --root "$U" --dpkg-db --purge v > "$T/out" 2>&1 || fail "purge v: $(cat "$T/out")"
run "virtual conflict" "$q1"
[ "$ru" = 0 ] || fail "virtual conflict: exit $ru"
grep -q '^w.prerm remove in-favour q 1 P=w' "$T/log.deb" || fail "w's prerm: $(cat "$T/log.deb")"
both --configure -a

# 5. An installed package (q) conflicting with what the new one (u)
# provides: dpkg cannot remove the package it installs, u is refused;
# v, which q conflicts with by name and which does not Replace q, too.
u1=$(pkg u 1 Provides v)
run "installed conflicts with a provided name" "$v1" "$u1"
[ "$ru" = 1 ] || fail "v and u: exit $ru"
grep -q '^  u provides v and is to be installed\.$' "$T/err.deb" ||
    fail "no provides line: $(cat "$T/err.deb")"
grep -q '^  v (version 1) is to be installed\.$' "$T/err.deb" ||
    fail "no line for v: $(cat "$T/err.deb")"
# 6. Forced: the conflict told, then ignored.
s1=$(pkg s 1 Conflicts q)
run "unforced" "$s1"
[ "$ru" = 1 ] || fail "unforced: exit $ru"
FORCE=conflicts run "--force-conflicts" "$s1"
[ "$ru" = 0 ] || fail "forced: exit $ru"
grep -q '^dpkg: warning: ignoring conflict, may proceed anyway!$' "$T/err.deb" ||
    fail "no warning: $(cat "$T/err.deb")"
both --configure -a

# 7. A conflictor with a conffile and no postrm: its files go, the
# conffile stays, config-files; the new package takes the conffile's
# other paths without a word about replacing.
k1=$(make_pkg -m "T <t@example.org>" -d test k 1 "control-file prerm 0755 $S" \
    "control-file conffiles 0644 /etc/k\n" "dir ./etc 0755" \
    "file ./etc/k 0644 text:k" "dir ./usr 0755" "dir ./usr/share 0755" \
    "file ./usr/share/k 0644 text:k")
l1=$(make_pkg -m "T <t@example.org>" -d test l 1 "control-field Conflicts k" \
    "control-field Replaces k" "dir ./usr 0755" "dir ./usr/share 0755" \
    "file ./usr/share/k 0644 text:l")
both --install "$k1"
run "conflictor with a conffile" "$l1"
[ "$ru" = 0 ] || fail "conffile conflictor: exit $ru"
[ -e "$U/etc/k" ] || fail "k's conffile removed"
grep -A1 '^Package: k$' "$U/var/lib/dpkg/status" | grep -qx 'Status: install ok config-files' ||
    fail "k not config-files"
both --configure -a

# 8. A conflictor not wanted any more (its selection deinstall) goes,
# whether or not the new package Replaces it.
m1=$(pkg m 1 Conflicts l)
for r in "$D" "$U"; do
	echo "l deinstall" | dpkg --root="$r" --force-not-root --log=/dev/null \
	    --set-selections || fail "set-selections"
done
run "unwanted conflictor" "$m1"
[ "$ru" = 0 ] || fail "unwanted conflictor: exit $ru: $(cat "$T/err.dpkg")"
both --configure -a

# 9. Two packages of one call that conflict: the second is checked
# against the first unpacked, as dpkg checks it.
n1=$(pkg n 1) o1=$(pkg o 1 Conflicts n)
run "conflict within the call" "$n1" "$o1"
[ "$ru" = 1 ] || fail "within the call: exit $ru"
[ -e "$U/usr/share/n-1" ] && [ ! -e "$U/usr/share/o-1" ] || fail "n, o"

# 10. Two packages of one call that remove the same one in favour: the
# first does, the second finds it gone, as with dpkg.
g1=$(pkg g 1) h1=$(pkg h 1 Conflicts g Replaces g) i1=$(pkg i 1 Conflicts g Replaces g)
both --install "$g1"
run "one conflictor, two packages" "$h1" "$i1"
[ "$ru" = 0 ] || fail "one conflictor, two packages: exit $ru"
[ "$(grep -c '^Removing g (1)' "$T/out.deb")" = 1 ] || fail "g removed twice: $(cat "$T/out.deb")"
both --configure -a

# 11. The new package's preinst fails after the conflictor's prerm: its
# postrm abort-install, then the conflictor's postinst abort-remove
# in-favour, the conflictor installed again.
j1=$(pkg j 1) r1=$(pkg r 1 Conflicts j Replaces j)
both --install "$j1"
touch "$D/fail-r-preinst-install" "$U/fail-r-preinst-install"
run "preinst fails after the conflictor's prerm" "$r1"
[ "$ru" = 1 ] || fail "failed preinst: exit $ru"
grep -q '^j.postinst abort-remove in-favour r 1 P=j' "$T/log.deb" ||
    fail "no abort-remove: $(cat "$T/log.deb")"
rm -f "$D"/fail-* "$U"/fail-*

# 12. A conffile of a package dpkg purged, installed again: there again
# (the half-installed stanza of the new install is no sign that
# debunpack's record of the purged one still stands).
"$DEBUNPACK" --root "$U" --maintscripts --force-script-chrootless "$k1" > "$T/out" 2>&1 ||
    fail "k: $(cat "$T/out")"
dpkg_root "$U" --configure -a
dpkg_root "$U" --purge k
[ ! -e "$U/etc/k" ] || fail "dpkg's purge left /etc/k"
"$DEBUNPACK" --root "$U" --maintscripts --force-script-chrootless "$k1" > "$T/out" 2>&1 ||
    fail "k again: $(cat "$T/out")"
dpkg_root "$U" --configure -a
[ "$(cat "$U/etc/k")" = k ] || fail "k's conffile not installed again: $(cat "$T/out")"

# 13. The conflictor (b) has a package that depends on it (a): without
# --auto-deconfigure dpkg cannot remove it, and refuses the new one.
b1=$(pkg b 1 Provides vb) a1=$(pkg a 1 Depends 'b (>= 1)')
c1=$(pkg c 1 Conflicts b Replaces b)
# The twin gets k as 12 left it in debunpack's root.
dpkg_root "$D" --install "$k1"
both --install "$b1" "$a1"
run "a dependent of the conflictor" "$c1"
[ "$ru" = 1 ] || fail "dependent, no --auto-deconfigure: exit $ru"
grep -q '^dpkg: no, cannot proceed with removal of b (--auto-deconfigure will help):$' "$T/err.deb" &&
    grep -q '^ a depends on b (>= 1)$' "$T/err.deb" &&
    grep -q '^  b is to be removed\.$' "$T/err.deb" || fail "no reason: $(cat "$T/err.deb")"
[ -e "$U/usr/share/b-1" ] && [ ! -e "$U/usr/share/c-1" ] || fail "b or c"

# 14. With it: a's prerm deconfigure in-favour c 1 removing b 1 fails,
# and is unwound (postinst abort-deconfigure, a installed again).
touch "$D/fail-a-prerm-deconfigure" "$U/fail-a-prerm-deconfigure"
AUTO=1 run "a dependent's prerm fails" "$c1"
[ "$ru" = 1 ] || fail "failing deconfigure: exit $ru"
grep -q '^a.postinst abort-deconfigure in-favour c 1 removing b 1 P=a' "$T/log.deb" ||
    fail "no abort-deconfigure: $(cat "$T/log.deb")"
rm -f "$D"/fail-* "$U"/fail-*

# 15. Then it goes: a deconfigured, half-configured, b removed.
AUTO=1 run "a dependent deconfigured" "$c1"
[ "$ru" = 0 ] || fail "dependent deconfigured: exit $ru"
grep -q '^De-configuring a (1), to allow removal of b (1) \.\.\.$' "$T/out.deb" ||
    fail "no De-configuring line: $(cat "$T/out.deb")"
grep -q '^a.prerm deconfigure in-favour c 1 removing b 1 P=a' "$T/log.deb" ||
    fail "a's prerm: $(cat "$T/log.deb")"
grep -A1 '^Package: a$' "$U/var/lib/dpkg/status" | grep -qx 'Status: install ok half-configured' ||
    fail "a not half-configured"
both --purge a
both --configure -a

# 16. Through what the conflictor provides, forced: dpkg's notice that
# it may have trouble, its warning, no deconfiguration.
e1=$(pkg e 1 Provides ve) f1=$(pkg f 1 Depends ve) t1=$(pkg t 1 Conflicts e Replaces e)
both --install "$e1" "$f1"
FORCE=depends run "a dependent through Provides, forced" "$t1"
[ "$ru" = 0 ] || fail "forced dependent: exit $ru"
grep -q '^dpkg: may have trouble removing e, as it provides ve \.\.\.$' "$T/err.deb" &&
    grep -q '^dpkg: warning: ignoring dependency problem with removal of e:$' "$T/err.deb" ||
    fail "no notice: $(cat "$T/err.deb")"
exit 0
