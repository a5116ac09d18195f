#!/bin/sh
# SPDX-License-Identifier: MIT
# --maintscripts: dpkg --unpack's maintainer scripts, states, status-fd lines
# and exit codes, compared with dpkg's on the same packages in twin roots.
# The scripts run chrootless (--force-script-chrootless, as dpkg_in runs
# dpkg): a test root has no shell.
. "$(dirname "$0")/lib.sh"

command -v dpkg > /dev/null || skip "no dpkg"

# Each script logs its name, arguments and dpkg's variables, and fails
# when a file fail-PKG-SCRIPT-ARG1 is in the root.
S='#!/bin/sh\n[ "$(basename $(dirname $0))" != tmp.ci ] || grep -qx "Package: $DPKG_MAINTSCRIPT_PACKAGE" "$(dirname $0)/control" || echo "no control in tmp.ci P=$DPKG_MAINTSCRIPT_PACKAGE " >> "$DPKG_ROOT/log"\necho "$(basename $0) $* P=$DPKG_MAINTSCRIPT_PACKAGE A=$DPKG_MAINTSCRIPT_ARCH N=$DPKG_MAINTSCRIPT_NAME R=$DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT AD=$DPKG_ADMINDIR RT=$DPKG_ROOT dir=$(basename $(dirname $0))" >> "$DPKG_ROOT/log"\n[ ! -e "$DPKG_ROOT/fail-$DPKG_MAINTSCRIPT_PACKAGE-$DPKG_MAINTSCRIPT_NAME-$1" ] || exit 3\nexit 0\n'
# The package's Priority and Section change with its version: dpkg takes
# them from an archive as soon as it reads it, into every stanza it then
# writes, that of an undone unpack too.  "c" has no "./" entry, which
# dpkg-deb always writes: dpkg's file list of it has no "/.".
pkg() {	# NAME VERSION [FIELD VALUE]
	{
		[ $# -lt 4 ] || printf 'control-field %s %s\n' "$3" "$4"
		case $2 in
		1) printf 'control-field Priority optional\ncontrol-field Section misc\n' ;;
		*) printf 'control-field Priority extra\ncontrol-field Section devel\n' ;;
		esac
		for s in preinst postinst prerm postrm; do
			printf '%s\n' "control-file $s 0755 $S"
		done
		[ "$1" = c ] || echo "dir ./ 0755"
		printf '%s\n' "dir ./usr 0755" "dir ./usr/share 0755" \
		    "file ./usr/share/$1-$2 0644 text:$2" \
		    "file ./usr/share/$1 0644 text:$1 $2"
	} | make_pkg -a "${A:-all}" -m "T <t@example.org>" -d test "$1" "$2" -
}
a1=$(pkg a 1) a2=$(pkg a 2) b1=$(pkg b 1) b2=$(pkg b 2) c1=$(pkg c 1)
e1=$(pkg e 1 Essential yes) e2=$(pkg e 2 Essential yes)
arch=$(dpkg --print-architecture)
m1=$(A=$arch pkg m 1 Multi-Arch same) m2=$(A=$arch pkg m 2 Multi-Arch same)

D=$T/dpkg U=$T/debunpack
empty_dpkg_db "$D"
empty_dpkg_db "$U"

# run WHAT DEB...: both unpack; their exit codes, logs (scripts' paths
# and roots made alike: debunpack keeps an old postrm aside, where dpkg
# runs it from info/), status files, status-fd lines (each package's own
# in order: debunpack groups the packages' steps) and trees compared.
run() {
	dpkg_opts= deb_opts= twin_pkgs="a b c e h i k m"
	twin_run "$@"
}
configure() {
	dpkg_root "$D" --configure -a
	dpkg_root "$U" --configure -a
}
failed() {	# the last run failed, as dpkg's did: exit 1
	[ "$ru" = 1 ] || fail "exit $ru, not 1, after a failure"
}
fails() {	# PKG SCRIPT ARG: that script fails in both roots
	touch "$D/fail-$1-$2-$3" "$U/fail-$1-$2-$3"
}
unfail() {
	rm -f "$D"/fail-* "$U"/fail-*
}

# 1. New packages: preinst install, half-installed then unpacked.
run install "$a1" "$b1"
grep -q '^preinst install P=a A=all N=preinst R=1 AD=ROOT/var/lib/dpkg RT=ROOT dir=tmp.ci$' "$T/log.deb" ||
    fail "preinst not run from the control area with dpkg's variables"
grep -q '^Selecting previously unselected package a\.$' "$T/out.deb" &&
    grep -q '^Unpacking b (1) \.\.\.$' "$T/out.deb" || fail "dpkg's messages: $(cat "$T/out.deb")"
configure

# 2. Upgrades of configured packages: prerm upgrade, preinst upgrade,
# postrm upgrade.
run upgrade "$a2" "$b2"
grep -q '^a.prerm upgrade 2 P=a' "$T/log.deb" && grep -q '^b.postrm upgrade 2 P=b' "$T/log.deb" ||
    fail "no prerm or postrm upgrade: $(cat "$T/log.deb")"
grep -q '^Unpacking a (2) over (1) \.\.\.$' "$T/out.deb" || fail "no 'over' line"
configure

# 3. Failures, each of one package while the other goes on: exit 1.
fails a preinst upgrade
run "preinst upgrade fails" "$a1" "$b1"
failed
grep -q "Errors were encountered while processing:" "$T/err.deb" || fail "no dpkg error summary"
unfail
configure
fails a prerm upgrade
run "prerm upgrade fails, failed-upgrade works" "$a1" "$b2"
configure
fails a prerm upgrade
fails a prerm failed-upgrade
run "prerm and failed-upgrade fail" "$a2" "$b1"
failed
unfail
configure
fails b postrm upgrade
run "postrm upgrade fails, failed-upgrade works" "$a2" "$b1"
unfail
configure
fails c preinst install
run "preinst install fails" "$c1" "$a1"
failed
unfail
fails c preinst install
fails c postrm abort-install
run "preinst and postrm abort-install fail" "$c1"
failed
unfail
run "install after a failure" "$c1"
configure

# A package the batch refuses (a path of another package) fails alone:
# unwound as after its preinst, the others unpacked.
d1=$(make_pkg -m "T <t@example.org>" -d test d 1 "dir ./ 0755" "dir ./usr 0755" \
    "dir ./usr/share 0755" "file ./usr/share/a 0644 text:from d")
# dpkg's error text, as dpkg words it, on stderr and in the status line.
run "a path of another package" "$d1" "$b2"
failed
grep -q "^status: $d1 : error : trying to overwrite '/usr/share/a', which is also in package a 1$" "$T/sfd.deb" ||
    fail "no error line: $(cat "$T/sfd.deb")"
configure

# Where dpkg would undo an unpack after its commit (old postrm upgrade and
# new postrm failed-upgrade both fail), the new files are committed: the
# package fails, left half-installed and reinstreq, to be installed again.
fails a postrm upgrade
fails a postrm failed-upgrade
"$DEBUNPACK" --root "$U" --maintscripts --force-script-chrootless "$a1" \
    > "$T/out" 2>&1 && ru=0 || ru=$?
failed
grep -A1 '^Package: a$' "$U/var/lib/dpkg/status" | grep -qx 'Status: install reinstreq half-installed' ||
    fail "a not left reinstreq half-installed"
[ "$(cat "$U/usr/share/a")" = "a 1" ] || fail "a's new files not there"
unfail
"$DEBUNPACK" --root "$U" --maintscripts --force-script-chrootless "$a2" \
    > "$T/out" 2>&1 || fail "reinstalling a: $(cat "$T/out")"
dpkg_root "$D" --unpack "$a2"
configure

# A package whose every file another takes (Replaces) disappears:
# postrm disappear OVERWRITER VERSION, its stanza gone.
h1=$(make_pkg -m "T <t@example.org>" -d test h 1 "control-file postrm 0755 $S" \
    "dir ./ 0755" "dir ./usr 0755" "dir ./usr/share 0755" "file ./usr/share/h 0644 text:h")
i1=$(make_pkg -m "T <t@example.org>" -d test i 1 "control-field Replaces h" \
    "dir ./ 0755" "dir ./usr 0755" "dir ./usr/share 0755" "file ./usr/share/h 0644 text:i")
run "to disappear" "$h1"
configure
run "disappearance" "$i1"
grep -q '^h.postrm disappear i 1 P=h A=all N=postrm' "$T/log.deb" ||
    fail "no postrm disappear: $(cat "$T/log.deb")"
grep -q '^processing: disappear: h$' "$T/sfd.deb" || fail "no processing: disappear line"
grep -q '^Replacing files in old package h (1) \.\.\.$' "$T/out.deb" ||
    fail "no word of the files taken from h: $(cat "$T/out.deb")"
configure

# Over what dpkg --remove left (config-files): preinst install OLD NEW.
k1=$(make_pkg -m "T <t@example.org>" -d test k 1 "control-file preinst 0755 $S" \
    "control-file postrm 0755 $S" "control-file conffiles 0644 /etc/k\n" \
    "dir ./ 0755" "dir ./etc 0755" "file ./etc/k 0644 text:k")
run "with a conffile" "$k1"
[ "$(cat "$U/etc/k.dpkg-new")" = k ] && [ ! -e "$U/etc/k" ] ||
    fail "with a conffile: not left at etc/k.dpkg-new"
cmp "$D/etc/k.dpkg-new" "$U/etc/k.dpkg-new" || fail "with a conffile: etc/k.dpkg-new differs"
# NAME.dpkg-new holds the recorded version until dpkg's configure: no change.
"$DEBUNPACK" --root "$U" --verify > "$T/verify" 2>&1 ||
    fail "with a conffile: --verify before configure: $(cat "$T/verify")"
configure
dpkg_root "$D" --remove k
dpkg_root "$U" --remove k
run "over its conffiles" "$k1"
grep -q '^preinst install 1 1 P=k' "$T/log.deb" || fail "preinst install OLD NEW: $(cat "$T/log.deb")"
configure

# A Multi-Arch: same package: NAME:ARCH in the status lines and info/.
run "multi-arch install" "$m1"
grep -q "^status: m:$arch: unpacked" "$T/sfd.deb" || fail "m:$arch not named"
configure
fails m preinst upgrade
run "multi-arch upgrade fails" "$m2"
failed
unfail
run "multi-arch upgrade" "$m2"
configure

# dpkg's count of "files and directories currently installed" is of the
# names it reads: the diversions', statoverrides' and file triggers' too,
# each once, "/."
# included (every package here has "./", as dpkg-deb makes them).
for r in "$D" "$U"; do
	printf '/usr/share/a\n/usr/share/a.moved\n:\n/opt/x\n/opt/y\nlocal\n' \
	    > "$r/var/lib/dpkg/diversions"
	printf '#0 #0 0644 /usr/share/b\n#0 #0 0600 /opt/z\n' \
	    > "$r/var/lib/dpkg/statoverride"
	mkdir -p "$r/var/lib/dpkg/triggers"
	printf '/opt/t c\n/usr/share/a c\n' > "$r/var/lib/dpkg/triggers/File"
done
run "count with diversions and statoverrides" "$c1"
grep -q '^(Reading database \.\.\. [0-9]* files and directories currently installed\.)$' \
    "$T/out.deb" || fail "no count: $(cat "$T/out.deb")"
rm "$D/var/lib/dpkg/diversions" "$U/var/lib/dpkg/diversions" \
    "$D/var/lib/dpkg/statoverride" "$U/var/lib/dpkg/statoverride" \
    "$D/var/lib/dpkg/triggers/File" "$U/var/lib/dpkg/triggers/File"
configure
# dpkg -i's errors name --install; the dpkg for apt says so with
# --dpkg-messages=install.
fails c preinst upgrade
dpkg_in "$D" -i "$c1" > /dev/null 2> "$T/err.dpkg" && fail "dpkg -i: the failing preinst passed"
"$DEBUNPACK" --root "$U" --maintscripts --force-script-chrootless \
    --dpkg-messages=install "$c1" > /dev/null 2> "$T/err.deb" && fail "the failing preinst passed"
grep '(--install):' "$T/err.dpkg" > "$T/l1" || fail "dpkg: no (--install): $(cat "$T/err.dpkg")"
grep '(--install):' "$T/err.deb" | diff -u "$T/l1" - || fail "not dpkg -i's error line"
unfail
configure

# 4. An Essential package not installed yet ends its group where a
# preinst follows: the packages after it are unpacked in a batch of
# their own, after it, as with dpkg.
run essential "$e1" "$a2" "$b2"
n1=$(pkg n 1 Essential yes)
"$DEBUNPACK" --root "$U" --maintscripts --force-script-chrootless --status-fd 3 \
    "$n1" "$a1" 3> "$T/sfd" > /dev/null 2>&1 || fail "essential install"
grep -n 'status: [an]: unpacked\|status: a: half-installed' "$T/sfd" | tr '\n' ' ' > "$T/order"
grep -q '^[0-9]*:status: n: unpacked [0-9]*:status: a: half-installed' "$T/order" ||
    fail "a was not unpacked after n: $(cat "$T/order")"
# One installed works as it is until the batch: one group, whose preinst
# runs before either is unpacked.
"$DEBUNPACK" --root "$U" --maintscripts --force-script-chrootless --status-fd 3 \
    "$e2" "$a2" 3> "$T/sfd" > /dev/null 2>&1 || fail "essential upgrade"
grep -n 'status: [ae]: unpacked\|status: a: half-installed' "$T/sfd" | tr '\n' ' ' > "$T/order"
grep -q '^[0-9]*:status: a: half-installed [0-9]*:status: e: unpacked' "$T/order" ||
    fail "e and a were not one group: $(cat "$T/order")"

# A package a later one Pre-Depends on ends its group too.
f1=$(pkg f 1 Pre-Depends b)
"$DEBUNPACK" --root "$U" --maintscripts --force-script-chrootless --status-fd 3 \
    "$b1" "$f1" 3> "$T/sfd" > /dev/null 2>&1 || fail "pre-depends"
grep -n 'status: [bf]: unpacked\|status: f: half-installed' "$T/sfd" | tr '\n' ' ' > "$T/order"
grep -q '^[0-9]*:status: b: unpacked [0-9]*:status: f: half-installed' "$T/order" ||
    fail "f was not unpacked after b: $(cat "$T/order")"

# Chrooted, as root: the root's own /bin/sh runs the scripts, with
# DPKG_ROOT empty and DPKG_ADMINDIR /var/lib/dpkg.
if is_root; then
	C='#!/bin/sh\necho "$0 $* R=$DPKG_ROOT AD=$DPKG_ADMINDIR N=$DPKG_MAINTSCRIPT_NAME" >> /log\n'
	for v in 1 2; do
		{
			for s in preinst postinst prerm postrm; do
				printf '%s\n' "control-file $s 0755 $C"
			done
			printf '%s\n' "file ./g 0644 text:$v"
		} | make_pkg -m "T <t@example.org>" -d test g $v - > /dev/null
	done
	for r in "$T/cd" "$T/cu"; do
		empty_dpkg_db "$r"
		mkdir -p "$r/bin"
		cp /bin/sh "$r/bin/sh"
		for l in $(ldd /bin/sh | grep -o '/[^ ]*'); do
			mkdir -p "$r$(dirname "$l")"
			cp "$l" "$r$l"
		done
	done
	PATH=$PATH:/usr/sbin:/sbin dpkg --root="$T/cd" --log=/dev/null --unpack "$T/g-1.deb" > /dev/null ||
	    fail "dpkg chrooted"
	"$DEBUNPACK" --root "$T/cu" --maintscripts "$T/g-1.deb" > /dev/null || fail "chrooted"
	PATH=$PATH:/usr/sbin:/sbin dpkg --root="$T/cd" --log=/dev/null --unpack "$T/g-2.deb" > /dev/null ||
	    fail "dpkg chrooted"
	"$DEBUNPACK" --root "$T/cu" --maintscripts "$T/g-2.deb" > /dev/null || fail "chrooted"
	sed 's|^/var/lib/dpkg/tmp.debunpack-old/|/var/lib/dpkg/info/|' "$T/cu/log" > "$T/l2"
	diff -u "$T/cd/log" "$T/l2" || fail "chrooted scripts differ"
	grep -q '^/var/lib/dpkg/tmp.ci/preinst upgrade 1 2 R= AD=/var/lib/dpkg N=preinst$' "$T/l2" ||
	    fail "chrooted preinst: $(cat "$T/l2")"
else
	echo "not root: chrooted scripts not tried"
fi

# 5. Not where dpkg can go: exit 2, nothing run.
: > "$U/var/lib/dpkg/updates/0001"
: > "$U/log"
"$DEBUNPACK" --root "$U" --maintscripts --force-script-chrootless "$a1" 2> "$T/err" && ru=0 || ru=$?
[ "$ru" = 2 ] || fail "pending updates: exit $ru"
grep -q "dpkg was interrupted" "$T/err" || fail "message: $(cat "$T/err")"
[ ! -s "$U/log" ] || fail "a script ran: $(cat "$U/log")"
rm "$U/var/lib/dpkg/updates/0001"
"$DEBUNPACK" --root "$U" --maintscripts --force-script-chrootless - < "$a1" 2> "$T/err" && ru=0 || ru=$?
[ "$ru" = 2 ] && grep -q "standard input" "$T/err" || fail "standard input: exit $ru, $(cat "$T/err")"
[ ! -s "$U/log" ] || fail "a script ran: $(cat "$U/log")"
"$DEBUNPACK" --root "$U" --dpkg-messages "$a1" 2> "$T/err" && fail "--dpkg-messages alone"
grep -q 'go with --maintscripts' "$T/err" || fail "message: $(cat "$T/err")"
# 6. A failure past the commit point (the cleanup's barrier, made to
# fail): the new files stand, so the scripts go on as after a clean
# unpack (postrm upgrade, no abort-upgrade), the packages are unpacked,
# the call fails with the cause, and the next run finishes the rest.
if [ -f "$FAULTSHIM" ]; then
	ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0
	export ASAN_OPTIONS
	for r in "$T/pf" "$T/pc"; do
		empty_dpkg_db "$r"
		"$DEBUNPACK" --root "$r" --maintscripts --force-script-chrootless \
		    "$a1" "$b1" > /dev/null || fail "post-commit: set-up"
		dpkg_root "$r" --configure -a
		: > "$r/log"
	done
	up() {	# ROOT [ENV...]: a and b upgraded, syncs by syncfs
		r=$1
		shift
		env "$@" "$DEBUNPACK" --root "$r" --maintscripts \
		    --force-script-chrootless --sync-mode syncfs --status-fd 3 \
		    "$a2" "$b2" 3> "$T/sfd.pc" > /dev/null 2> "$T/err.pc"
	}
	up "$T/pc" FAULT_COUNT="$T/counts" LD_PRELOAD="$FAULTSHIM" ||
	    fail "post-commit: clean run: $(cat "$T/err.pc")"
	# The last syncfs of the call is the cleanup's.
	n=$(awk '$1 == "syncfs" && $2 > n { n = $2 } END { print n + 0 }' "$T/counts")
	[ "$n" -ge 2 ] || fail "post-commit: $n syncfs calls"
	up "$T/pf" FAULT_CALL=syncfs FAULT_N="$n" LD_PRELOAD="$FAULTSHIM" && ru=0 || ru=$?
	[ "$ru" = 2 ] || fail "post-commit: exit $ru"
	grep -q "cannot sync.*Input/output error" "$T/err.pc" ||
	    fail "post-commit: message: $(cat "$T/err.pc")"
	sed "s|$T/pc|ROOT|g" "$T/pc/log" > "$T/l1"
	sed "s|$T/pf|ROOT|g" "$T/pf/log" > "$T/l2"
	diff -u "$T/l1" "$T/l2" || fail "post-commit: the scripts were not those of a clean run"
	grep -q '^status: b: unpacked$' "$T/sfd.pc" || fail "post-commit: no unpacked line"
	sed '/^Status: install ok unpacked$/d' "$T/pf/var/lib/dpkg/status" > "$T/l2"
	sed '/^Status: install ok unpacked$/d' "$T/pc/var/lib/dpkg/status" > "$T/l1"
	diff -u "$T/l1" "$T/l2" || fail "post-commit: dpkg's status is not that of a clean run"
	# The next run repairs; dpkg configures the unpacked packages.
	"$DEBUNPACK" --root "$T/pf" --maintscripts --force-script-chrootless \
	    "$c1" > /dev/null 2>&1 || fail "post-commit: the next run"
	dpkg_root "$T/pf" --configure -a
	dpkg_root "$T/pc" --configure -a
	for r in "$T/pc" "$T/pf"; do
		(cd "$r" && find usr var/lib/dpkg/info -name 'c*' -prune -o \
		    -printf '%y %p\n' | sort) > "$r.tree"
	done
	diff -u "$T/pc.tree" "$T/pf.tree" || fail "post-commit: trees differ after the repair"
	[ -z "$(find "$T/pf" -name '*.debunpack-*')" ] || fail "post-commit: temporaries left"
else
	echo "no fault shim: the failure past the commit point not tried"
fi
exit 0
