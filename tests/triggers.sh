#!/bin/sh
# SPDX-License-Identifier: MIT
# Triggers through the dpkg for apt (DPKGSHIM): twin roots, one unpacked
# by the shim (debunpack --dpkg-db --maintscripts), the other by the real
# dpkg, with the same calls.  Packages interested in file triggers
# (await, noawait) and in an explicit trigger are installed in both; then
# packages that activate them (paths, "activate" directives, dpkg-trigger
# from a preinst) are unpacked with --no-triggers, as apt does, an
# interested package is upgraded from triggers-pending, one unpack runs
# without --no-triggers, and an upgrade gives up a directory another
# package keeps.  After each step the status file, the
# triggers directory (File, the explicit trigger's file, Unincorp) and
# the interested packages' logs of their postinst calls must be the real
# dpkg's, byte for byte; and again after the real dpkg --configure -a
# processed what both left.
. "${srcdir:-.}/tests/lib.sh"

command -v dpkg > /dev/null && command -v dpkg-trigger > /dev/null ||
    skip "no dpkg"
: "${DPKGSHIM:=$PWD/src/cli/dpkg}"
[ -x "$DPKGSHIM" ] || fail "no shim at $DPKGSHIM"
unset DPKG_FORCE DPKG_ROOT DPKG_ADMINDIR DPKG_FRONTEND_LOCKED \
    DEBUNPACK_DPKG_DEBUG
mkdir -p "$T/etc" "$T/home"
DEBUNPACK_DPKG_CFGDIR=$T/etc HOME=$T/home DEBUNPACK_DPKG=$(command -v dpkg)
export DEBUNPACK_DPKG_CFGDIR HOME DEBUNPACK_DPKG DEBUNPACK

# A postinst that logs its calls ("triggered NAMES" among them).
LOG='#!/bin/sh\necho "$DPKG_MAINTSCRIPT_PACKAGE $*" >> "$DPKG_ROOT/postinst.log"\n'
# pkg ID NAME VERSION TRIGGERS [PREINST] [PATH...]: TRIGGERS is the
# triggers control file ("" for none), PREINST a preinst's shell line.
pkg() {
	p_id=$1 p_n=$2 p_v=$3 p_t=$4 p_pre=${5:-}
	shift 4
	[ $# -eq 0 ] || shift
	{
		printf 'control-file postinst 0755 %s\n' "$LOG"
		[ -z "$p_t" ] || printf 'control-file triggers 0644 %s\n' "$p_t"
		[ -z "$p_pre" ] ||
		    printf 'control-file preinst 0755 #!/bin/sh\\n%s\\n\n' "$p_pre"
		# A file of its own: dpkg has a package of directories alone
		# disappear when another has them.
		printf 'dir ./usr 0755\ndir ./usr/share 0755\n'
		printf 'file ./usr/share/%s 0644 text:%s\\n\n' "$p_n" "$p_v"
		for f; do
			case $f in
			*/) printf 'dir ./%s 0755\n' "$f" ;;
			*) printf 'file ./%s 0644 text:%s\\n\n' "$f" "$p_v" ;;
			esac
		done
	} | make_pkg -o "$p_id" -m "T <t@example.org>" -d test "$p_n" "$p_v" - \
	    > /dev/null
}

pkg i1 t-interest 1 'interest /usr/share/tman\ninterest tname\ninterest-noawait /usr/share/tnoaw\n' "" \
    usr/share/tman/ usr/share/tnoaw/
pkg i2 t-interest 2 'interest /usr/share/tman\ninterest tname\ninterest-noawait /usr/share/tnoaw\n' "" \
    usr/share/tman/ usr/share/tnoaw/
pkg j1 t-other 1 'interest-await /usr/share/tman/sub\ninterest-noawait tname\n' "" \
    usr/share/tman/ usr/share/tman/sub/
pkg a1 t-act 1 "" "" usr/share/tman/ usr/share/tman/sub/ \
    usr/share/tman/sub/a.1 usr/share/tnoaw/ usr/share/tnoaw/a
pkg a2 t-act 2 "" "" usr/share/tman/ usr/share/tman/b.1
pkg b1 t-activator 1 'activate tname\nactivate-noawait /usr/share/tnoaw\n' ""
pkg c1 t-cmd 1 "" 'dpkg-trigger tname'
pkg d1 t-plain 1 "" "" usr/share/tman/ usr/share/tman/d.1
pkg s1 t-shared 1 "" "" usr/share/tman/
pkg s2 t-shared 2 ""

D=$T/dpkg U=$T/shim
empty_dpkg_db "$D"
empty_dpkg_db "$U"

# both WHAT ARG...: the real dpkg in one root, the shim in the other.
both() {
	what=$1
	shift
	dpkg_in "$D" "$@" > "$T/out.dpkg" 2>&1 && rd=0 || rd=$?
	PATH=$PATH:/usr/sbin:/sbin "$DPKGSHIM" --root="$U" --force-not-root \
	    --force-script-chrootless --log=/dev/null "$@" < /dev/null \
	    > "$T/out.shim" 2>&1 && ru=0 || ru=$?
	[ "$rd" = "$ru" ] || { cat "$T/out.dpkg" "$T/out.shim"; fail "$what: exit $rd from dpkg, $ru from the shim"; }
	compare "$what"
}

# compare WHAT: the status, the triggers directory, the postinst logs.
compare() {
	for r in "$D" "$U"; do
		{
			echo "== status"
			cat "$r/var/lib/dpkg/status"
			for f in "$r"/var/lib/dpkg/triggers/*; do
				[ "${f##*/}" != Lock ] || continue
				echo "== ${f##*/}"
				cat "$f"
			done
			echo "== postinst.log"
			cat "$r/postinst.log" 2>/dev/null || true
		} > "$r.view"
	done
	diff -u "$D.view" "$U.view" || fail "$1: not what dpkg leaves"
}

# The interested packages, installed by dpkg in both roots.
for r in "$D" "$U"; do
	dpkg_root "$r" -i "$T/i1.deb" "$T/j1.deb"
done
compare "interests installed"

# apt's unpacks: file triggers (await, noawait, a directory above).
both "unpack activating paths" --unpack --no-triggers "$T/a1.deb"
grep -q '^Triggers-Pending: /usr/share/tnoaw /usr/share/tman$' "$D/var/lib/dpkg/status" ||
    fail "the real dpkg left no trigger pending: the test proves nothing"
# "activate" directives, an explicit trigger with two interested.
both "unpack with activate" --unpack --no-triggers "$T/b1.deb"
# dpkg-trigger from a preinst, queued in Unincorp.
both "unpack running dpkg-trigger" --unpack --no-triggers "$T/c1.deb"
# An interested package upgraded from triggers-pending.
both "interest upgraded" --unpack --no-triggers "$T/i2.deb"
# An activating package upgraded (its old files' paths too).
both "activator upgraded" --unpack --no-triggers "$T/a2.deb"

# What both left, processed by dpkg.
for r in "$D" "$U"; do
	dpkg_root "$r" --configure -a
done
compare "configured by dpkg"

# Without --no-triggers the unpack processes what it activated.
both "unpack processing triggers" --unpack "$T/d1.deb"
grep -q 't-interest triggered' "$D/postinst.log" ||
    fail "the real dpkg processed no trigger: the test proves nothing"
for r in "$D" "$U"; do
	dpkg_root "$r" --configure -a
done
compare "configured at the end"

# A directory an upgrade gives up that another package keeps: dpkg
# leaves it, and activates nothing.
both "install sharing a directory" -i "$T/s1.deb"
both "upgrade leaving a shared directory" --unpack --no-triggers "$T/s2.deb"
grep -q 'Triggers-Pending' "$D/var/lib/dpkg/status" &&
    fail "the real dpkg activated a trigger: the test proves nothing"
exit 0
