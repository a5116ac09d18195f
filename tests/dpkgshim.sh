#!/bin/sh
# SPDX-License-Identifier: MIT
# The dpkg apt runs (src/cli/dpkgshim.c): what it hands to the real dpkg
# arrives byte for byte, what it unpacks reaches debunpack translated,
# dpkg's configuration is read in dpkg's order, --recursive walks in
# dpkg's order, --install is the unpack then dpkg --configure, exit
# statuses are dpkg's; and debunpack takes only dpkg's lock under
# DPKG_FRONTEND_LOCKED.
. "$(dirname "$0")/lib.sh"

: "${DPKGSHIM:=$PWD/src/cli/dpkg}"
[ -x "$DPKGSHIM" ] || fail "no shim at $DPKGSHIM"
# The real dpkg configures, orders and refuses beside the shim.
command -v dpkg > /dev/null && command -v dpkg-query > /dev/null ||
    skip "no dpkg"
REAL_DEBUNPACK=$DEBUNPACK
export T REAL_DEBUNPACK

# The environment dpkg reads, the test's own.
unset DPKG_FORCE DPKG_ROOT DPKG_ADMINDIR DPKG_FRONTEND_LOCKED \
    DEBUNPACK_SYNC_MODE DEBUNPACK_DPKG_DEBUG
mkdir -p "$T/etc/dpkg.cfg.d" "$T/home" "$T/bin"
DEBUNPACK_DPKG_CFGDIR=$T/etc HOME=$T/home
export DEBUNPACK_DPKG_CFGDIR HOME

# A real dpkg that records its arguments, NUL after each, and exits
# $FAKE_DPKG_RC.
cat > "$T/bin/dpkg" <<'EOF'
#!/bin/sh
for a; do printf '%s\0' "$a"; done > "$T/handed"
exit "${FAKE_DPKG_RC:-0}"
EOF
# A debunpack whose --help is the real one's without the options other
# parts add, plus those of them in $FAKE_ADD, and which records its
# arguments.
cat > "$T/bin/debunpack" <<'EOF'
#!/bin/sh
if [ "$1" = --help ]; then
	"$REAL_DEBUNPACK" --help | grep -v -E \
	    '^ +--(maintscripts|dpkg-messages|path-exclude|path-include|force-script-chrootless|dpkg-admindir)( |=|$)'
	all="--maintscripts --dpkg-messages --path-exclude --path-include"
	for o in ${FAKE_ADD-$all}; do
		printf '      %s  (added by the test)\n' "$o"
	done
	exit 0
fi
for a; do printf '%s\0' "$a"; done > "$T/unpacked"
exit "${FAKE_DEBUNPACK_RC:-0}"
EOF
# The real debunpack with the options it lacks left out (they need what
# the packages of this test do not have: maintainer scripts).
cat > "$T/bin/debunpack-real" <<'EOF'
#!/bin/sh
help=$("$REAL_DEBUNPACK" --help)
if [ "$1" = --help ]; then
	printf '%s\n' "$help"
	for o in --maintscripts --dpkg-messages; do
		printf '      %s  (added by the test)\n' "$o"
	done
	exit 0
fi
n=$#
while [ "$n" -gt 0 ]; do
	a=$1
	shift
	n=$((n - 1))
	case $a in
	--maintscripts|--dpkg-messages)
		printf '%s\n' "$help" | grep -q -e " $a" || continue ;;
	esac
	set -- "$@" "$a"
done
exec "$REAL_DEBUNPACK" "$@"
EOF
chmod +x "$T/bin/dpkg" "$T/bin/debunpack" "$T/bin/debunpack-real"
DEBUNPACK_DPKG=$T/bin/dpkg DEBUNPACK=$T/bin/debunpack
export DEBUNPACK_DPKG DEBUNPACK

R=$T/root
mkdir -p "$R"
empty_dpkg_db "$R"
A=$(make_pkg -m 'T <t@example.org>' -d test a 1.0 'dir ./usr/ 0755' 'file ./usr/a 0644 text:a\n')
B=$(make_pkg -m 'T <t@example.org>' -d test b 2.0 'dir ./usr/ 0755' 'file ./usr/b 0644 text:b\n')

# args ARG...: the NUL-terminated form the fakes record.
args() {
	for a; do printf '%s\0' "$a"; done
}

# handed_on ARG...: the shim run with ARGs reaches the real dpkg with
# exactly ARGs, and debunpack does nothing.
handed_on() {
	rm -f "$T/handed" "$T/unpacked"
	"$DPKGSHIM" "$@" > "$T/out" 2>&1 || true
	[ -f "$T/handed" ] || fail "not handed on: $* ($(cat "$T/out"))"
	[ ! -f "$T/unpacked" ] || fail "debunpack ran for: $*"
	args "$@" | cmp -s - "$T/handed" ||
	    fail "handed on changed: $* -> $(tr '\0' ' ' < "$T/handed")"
}

# unpacked WANT ARG...: the shim run with ARGs runs debunpack with
# exactly the arguments WANT (NUL-terminated) and does not hand on.
unpacked() {
	un_want=$1
	shift
	rm -f "$T/handed" "$T/unpacked"
	DEBUNPACK_DPKG_DEBUG=1 "$DPKGSHIM" "$@" > "$T/out" 2>&1 ||
	    fail "shim failed: $* ($(cat "$T/out"))"
	[ ! -f "$T/handed" ] || fail "handed on: $* ($(cat "$T/out"))"
	[ -f "$T/unpacked" ] || fail "debunpack did not run: $*"
	printf '%s' "$un_want" | tr '\n' '\0' | cmp -s - "$T/unpacked" ||
	    fail "debunpack got: $(tr '\0' ' ' < "$T/unpacked"), want: $(printf '%s' "$un_want" | tr '\n' ' ')"
}

# Every action but --unpack and --install, byte for byte, with odd words.
handed_on --print-architecture
handed_on --print-foreign-architectures
handed_on --assert-multi-arch
handed_on --compare-versions 1.0 lt 2.0
handed_on --configure --pending
handed_on --status-fd 3 --no-triggers --configure a:all 'b c'
handed_on --force-depends --abort-after=1 --remove a
handed_on -P a
handed_on -l 'a*' ''
handed_on -S "$(printf 'new\nline')"
handed_on --set-selections
handed_on -L a
handed_on -c "$A"
handed_on --fsys-tarfile "$A"
handed_on --add-architecture i386
handed_on --get-selections
handed_on --verify a
handed_on --audit
handed_on --triggers-only --pending
handed_on --clear-avail
handed_on --help
# Bad usage: dpkg says it, in its words and with its exit status.
handed_on --bogus
handed_on -Z --unpack "$A"
handed_on --unpack --root
handed_on --no-act=1 --unpack "$A"
handed_on --unpack --install "$A"
handed_on --force-nosuch --unpack "$A"
# A list --ignore-depends refuses: dpkg's usage error, in its words.
handed_on --root="$R" --no-debsig --ignore-depends=x,,y --unpack "$A"
handed_on --root="$R" --no-debsig --ignore-depends=x/y --unpack "$A"
handed_on --status-fd x --unpack "$A"
handed_on --unpack
handed_on -R --unpack
rm -f "$T/handed"
"$DPKGSHIM" > /dev/null 2>&1 || true
[ -f "$T/handed" ] && [ ! -s "$T/handed" ] || fail "no arguments not handed on"
# An unpack with an option debunpack does not do as dpkg does.
for opt in --no-act --dry-run --simulate -E --skip-same-version -O -N \
    --force-overwrite-dir --force-overwrite-diverted --force-all \
    --force-bad-version \
    -G --refuse-downgrade --no-force-downgrade \
    --status-logger=cat -D1 --debug=1 -a; do
	handed_on --root="$R" --no-debsig $opt --unpack "$A"
done
handed_on --root="$R" --no-debsig --abort-after=1 --unpack "$A" "$B"
handed_on --root="$R" --no-debsig --status-fd=1 --status-fd=2 --unpack "$A"
# A database outside the root, where scripts run chrooted: dpkg fails
# the first package with a script, half done; it is dpkg's to do so.
mkdir -p "$T/db"
handed_on --root="$R" --no-debsig --admindir="$T/db" --unpack "$A"
handed_on --instdir="$R" --no-debsig --admindir="$T/db" --unpack "$A"
# A database that is not there is dpkg's to refuse.
handed_on --root="$R" --no-debsig --admindir="$T/nodb" \
    --force-script-chrootless --unpack "$A"
handed_on --root="$R" --no-debsig --unpack "$T/missing.deb"
handed_on --root="$R" --no-debsig --unpack "$T"
handed_on --root="$R" --no-debsig -R --unpack "$A"
handed_on --root="$T/noroot" --no-debsig --unpack "$A"
# A package whose control cannot be read is dpkg's to refuse.
printf 'not a deb\n' > "$T/bad.deb"
handed_on --root="$R" --no-debsig --unpack "$T/bad.deb"
# Exit statuses are the real dpkg's.  In the test's root: the barrier
# after a configure syncs every filesystem mounted below the root, and
# below / that is every other test's too, one of which may be failing
# its writes on purpose.
FAKE_DPKG_RC=1 "$DPKGSHIM" --root="$R" --configure -a > /dev/null 2>&1 && rc=0 || rc=$?
[ "$rc" = 1 ] || fail "handed-on exit status $rc, want 1"
# No real dpkg: the shim says what dpkg would, in dpkg's words, exit 2.
DEBUNPACK_DPKG=$T/nodpkg "$DPKGSHIM" --bogus 2> "$T/err" && rc=0 || rc=$?
[ "$rc" = 2 ] || fail "bad usage without dpkg: exit $rc, want 2"
grep -qx "dpkg: error: unknown option --bogus" "$T/err" ||
    fail "bad usage without dpkg: $(cat "$T/err")"
# The real dpkg's usage error, as it would have said it.
DEBUNPACK_DPKG=$(command -v dpkg) "$DPKGSHIM" --unpack --bogus 2> "$T/err" &&
    rc=0 || rc=$?
[ "$rc" = 2 ] && [ "$(head -n 1 "$T/err")" = \
    "dpkg: error: unknown option --bogus" ] ||
    fail "real dpkg's usage error: exit $rc, $(cat "$T/err")"
DEBUNPACK_DPKG=$T/nodpkg "$DPKGSHIM" --root="$R" --configure -a 2> "$T/err" && rc=0 ||
    rc=$?
[ "$rc" = 2 ] && grep -q "^dpkg: error: cannot execute '$T/nodpkg'" \
    "$T/err" || fail "no dpkg: exit $rc, $(cat "$T/err")"
# A debunpack without --maintscripts and --dpkg-messages: dpkg unpacks,
# and DEBUNPACK_DPKG_DEBUG says why in one line (tests/aptshim.sh reads it).
FAKE_ADD="" handed_on --root="$R" --no-debsig --unpack "$A"
FAKE_ADD="" DEBUNPACK_DPKG_DEBUG=1 "$DPKGSHIM" --root="$R" --no-debsig \
    --unpack "$A" 2> "$T/err" || fail "debug: $(cat "$T/err")"
[ "$(cat "$T/err")" = "debunpack-dpkg: handed to $T/bin/dpkg: debunpack\
 lacks --dpkg-db, --maintscripts or --dpkg-messages" ] || fail "debug: $(cat "$T/err")"
FAKE_ADD="--maintscripts --dpkg-messages" DEBUNPACK_DPKG_DEBUG=1 \
    "$DPKGSHIM" --root="$R" --no-debsig --path-include=/x --unpack "$A" \
    2> "$T/err" || fail "debug: $(cat "$T/err")"
[ "$(cat "$T/err")" = "debunpack-dpkg: handed to $T/bin/dpkg: debunpack\
 lacks --path-include" ] || fail "debug: $(cat "$T/err")"
DEBUNPACK_DPKG_DEBUG=1 "$DPKGSHIM" --root="$R" --no-debsig -E --unpack \
    "$A" 2> "$T/err" || fail "debug: $(cat "$T/err")"
[ "$(cat "$T/err")" = "debunpack-dpkg: handed to $T/bin/dpkg: option\
 --skip-same-version" ] || fail "debug: $(cat "$T/err")"
FAKE_ADD="--maintscripts --dpkg-messages" handed_on --root="$R" \
    --no-debsig '--path-exclude=/usr/share/doc/*' --unpack "$A"
# And the debunpack of this tree: unpacked once it has them, else handed on.
if "$REAL_DEBUNPACK" --help | grep -q -e ' --maintscripts' &&
    "$REAL_DEBUNPACK" --help | grep -q -e ' --dpkg-messages'; then
	rm -f "$T/handed"
	DEBUNPACK=$REAL_DEBUNPACK "$DPKGSHIM" --root="$R" --no-debsig \
	    --unpack "$A" > "$T/out" 2>&1 || fail "unpack: $(cat "$T/out")"
	[ ! -f "$T/handed" ] && [ -f "$R/var/lib/debunpack/a.record" ] ||
	    fail "not unpacked by debunpack"
	DEBUNPACK=$REAL_DEBUNPACK "$REAL_DEBUNPACK" -q --root "$R" \
	    --dpkg-db --remove a || fail "removing a"
else
	DEBUNPACK=$REAL_DEBUNPACK handed_on --root="$R" --no-debsig \
	    --unpack "$A"
fi

# What the shim unpacks: debunpack's options from dpkg's, in order.
base="--root
$R
--dpkg-db
--maintscripts
--dpkg-messages
--no-progress
"
unpacked "$base--
$A
" --root="$R" --no-debsig --unpack "$A"
# The shim reads control files without libarchive (src/deb/debctl.h: it
# starts in every call of apt's, and libarchive loads libxml2 and ICU);
# a form that reader leaves (control.tar.zst) through dpkg-deb --field.
# Both reach debunpack; a file neither reads is dpkg's.
if command -v ldd > /dev/null && ldd "$DPKGSHIM" > "$T/ldd" 2>&1; then
	! grep -E 'libarchive|libnettle' "$T/ldd" ||
	    fail "the shim links libarchive or Nettle"
fi
Z=$(build_deb comp-zst)
G=$(build_deb comp-gz)
unpacked "$base--
$Z
$G
$A
" --root="$R" --no-debsig --unpack "$Z" "$G" "$A"
printf 'not a package\n' > "$T/junk.deb"
handed_on --root="$R" --no-debsig --unpack "$A" "$T/junk.deb"
# --force-breaks debunpack honours (tests/unpackdeps.sh): it reaches the
# unpack in DPKG_FORCE, as dpkg hands forces to its scripts.
unpacked "$base--
$A
" --root="$R" --no-debsig --force-breaks --unpack "$A"
# So is --force-depends (a Pre-Depends problem, tests/maintscripts.sh);
# --ignore-depends is debunpack's option of that name, given twice.
unpacked "$base--
$A
" --root="$R" --no-debsig --force-depends --unpack "$A"
unpacked "$base--ignore-depends=x
--ignore-depends=y:i386,z
--
$A
" --root="$R" --no-debsig --ignore-depends=x --ignore-depends y:i386,z --unpack "$A"
# Every form of the options, before and after the action; what does not
# change an unpack goes nowhere.
unpacked "$base--status-fd=3
--auto-deconfigure
--path-exclude=/usr/share/doc/*
--path-include=/usr/share/doc/*/copyright
--force-overwrite
--
$A
$B
" --status-fd 0x3 --unpack --no-triggers -B --root "$R" --no-debsig \
    --path-exclude='/usr/share/doc/*' \
    --path-include '/usr/share/doc/*/copyright' --force-confold,overwrite \
    --force-unsafe-io --refuse-depends --no-force-breaks --robot \
    --verify-format=rpm --no-pager --abort-after=2 \
    --triggers "$A" "$B"
# "--" ends the options; "-" is a file there.
cp "$A" "$T/-"
(cd "$T" && unpacked "$base--
./-
" --root="$R" --no-debsig --unpack -- -)
rm -f "$T/-"
# --root places the database, --instdir the root alone, --admindir the
# database alone: the same as --root when they agree.
unpacked "$base--
$A
" --instdir="$R/" --admindir="$R/var/lib/dpkg" --no-debsig --unpack "$A"
unpacked "$base--
$A
" --admindir="$T" --root="$R/." --no-debsig --unpack "$A"
DPKG_ROOT=$R unpacked "$base--
$A
" --no-debsig --unpack "$A"
DPKG_ROOT=$R DPKG_ADMINDIR=$T handed_on --no-debsig --unpack "$A"
# --force-downgrade off then on again; not-root when root.
unpacked "$base--
$A
" -G --force-downgrade,not-root --root="$R" --no-debsig --unpack "$A"
DPKG_FORCE=overwrite,downgrade unpacked "$base--force-overwrite
--
$A
" --root="$R" --no-debsig --unpack "$A"
# A package of an architecture the root does not take: debunpack's force.
unpacked "$base--force-architecture
--
$A
" --root="$R" --no-debsig --force-architecture --unpack "$A"
DPKG_FORCE="" handed_on --root="$R" --no-debsig --unpack "$A"
# The sync mode for throwaway roots.
DEBUNPACK_SYNC_MODE=none unpacked "--root
$R
--dpkg-db
--maintscripts
--dpkg-messages
--no-progress
--sync-mode=none
--
$A
" --root="$R" --no-debsig --unpack "$A"
# Under debunpack-nosync, debunpack's --stats says its syncs did nothing.
if [ -x "${DEBUNPACK_NOSYNC:-}" ] &&
    "$DEBUNPACK_NOSYNC" true 2>/dev/null; then
	mkdir "$T/ns"
	"$DEBUNPACK_NOSYNC" "$REAL_DEBUNPACK" --root "$T/ns" --stats "$A" \
	    > "$T/stats" || fail "debunpack under debunpack-nosync"
	grep -q '^nosync:     yes ' "$T/stats" || fail "stats: $(cat "$T/stats")"
	rm -rf "$T/ns"
	mkdir "$T/ns"
	"$REAL_DEBUNPACK" --root "$T/ns" --stats=json "$A" > "$T/stats"
	grep -q '"nosync":false,' "$T/stats" || fail "stats: $(cat "$T/stats")"
	rm -rf "$T/ns"
fi
# Hooks around an unpack, in order, with dpkg's environment; a failing
# pre-invoke hook is fatal before anything is unpacked.  Around an install
# they are dpkg's (its --configure would run them again).
rm -f "$T/hooks" "$T/unpacked"
unpacked "$base--
$A
" --root="$R" --no-debsig --force-confold \
    --pre-invoke='echo "1 $DPKG_HOOK_ACTION $DPKG_ROOT $DPKG_ADMINDIR $DPKG_FORCE $(ls "$T/unpacked" 2>/dev/null)" >> "$T/hooks"' \
    --post-invoke='echo "3 $DPKG_HOOK_ACTION $(ls "$T/unpacked")" >> "$T/hooks"' \
    --pre-invoke='echo 2 >> "$T/hooks"' --unpack "$A"
printf '%s\n' "1 unpack $R $R/var/lib/dpkg security-mac,downgrade,confold " \
    2 "3 unpack $T/unpacked" | diff -u - "$T/hooks" || fail "hooks"
rm -f "$T/unpacked"
"$DPKGSHIM" --root="$R" --no-debsig --pre-invoke='exit 3' --unpack "$A" \
    2> "$T/err" && rc=0 || rc=$?
[ "$rc" = 2 ] && [ ! -f "$T/unpacked" ] &&
    grep -qx "dpkg: error: error executing hook 'exit 3', exit code 768" \
    "$T/err" || fail "failing hook: exit $rc, $(cat "$T/err")"
handed_on --root="$R" --no-debsig --post-invoke=true -i "$A"
# A force debunpack has, given to it when it has it.
FAKE_ADD="--maintscripts --dpkg-messages --force-script-chrootless" \
    unpacked "$base--force-script-chrootless
--
$A
" --root="$R" --no-debsig --force-script-chrootless --unpack "$A"
FAKE_ADD="--maintscripts --dpkg-messages" handed_on --root="$R" --no-debsig \
    --force-script-chrootless --unpack "$A"
# A database of its own: --dpkg-admindir, chrootless (--admindir,
# DPKG_ADMINDIR, and --instdir, which leaves the database where it was);
# or
# inside the root under another name, chrooted.
all="--maintscripts --dpkg-messages --force-script-chrootless --dpkg-admindir"
own="--root
$R
--dpkg-db
--dpkg-admindir=$T/db
--maintscripts
--dpkg-messages
--no-progress
--force-script-chrootless
--
$A
"
FAKE_ADD=$all unpacked "$own" --root="$R" --admindir="$T/db" --no-debsig \
    --force-script-chrootless --unpack "$A"
FAKE_ADD=$all DPKG_ROOT=$R DPKG_ADMINDIR=$T/db unpacked "$own" --no-debsig \
    --force-script-chrootless --unpack "$A"
# --root places the database over DPKG_ADMINDIR.
FAKE_ADD=$all DPKG_ADMINDIR=$T/db unpacked "$base--force-script-chrootless
--
$A
" --root="$R" --no-debsig --force-script-chrootless --unpack "$A"
FAKE_ADD=$all DPKG_ADMINDIR=$T/db unpacked "$own" --instdir="$R" \
    --no-debsig --force-script-chrootless --unpack "$A"
FAKE_ADD=$all unpacked "$own" --admindir="$T/db" --instdir="$R" \
    --no-debsig --force-script-chrootless --unpack "$A"
mkdir -p "$R/var/lib/dpkg2"
FAKE_ADD=$all unpacked "--root
$R
--dpkg-db
--dpkg-admindir=$R/var/lib/dpkg2
--maintscripts
--dpkg-messages
--no-progress
--
$A
" --root="$R" --admindir="$R/var/lib/dpkg2" --no-debsig --unpack "$A"
# A debunpack without --dpkg-admindir: dpkg does it.
FAKE_ADD="--maintscripts --dpkg-messages --force-script-chrootless" \
    handed_on --root="$R" --admindir="$T/db" --no-debsig \
    --force-script-chrootless --unpack "$A"
# Exit statuses: debunpack's 1 (a package failed) and 2 are dpkg's.
for rc in 1 2; do
	FAKE_DEBUNPACK_RC=$rc "$DPKGSHIM" --root="$R" --no-debsig --unpack \
	    "$A" > /dev/null 2>&1 && got=0 || got=$?
	[ "$got" = "$rc" ] || fail "debunpack exit $rc: shim exit $got"
done

# dpkg's configuration: dpkg.cfg.d's valid names in strcmp order, then
# dpkg.cfg, then ~/.dpkg.cfg, then the command line.
printf '# comment\n\npath-exclude=/a\n' > "$T/etc/dpkg.cfg.d/10a"
printf 'path-exclude "/b"\nno-debsig\n' > "$T/etc/dpkg.cfg.d/9b"
printf 'path-exclude=/never\n' > "$T/etc/dpkg.cfg.d/bad.name"
printf 'path-exclude=/never\n' > "$T/etc/dpkg.cfg.d/.hidden"
printf "path-exclude '/c'  \\nforce-overwrite\n" > "$T/etc/dpkg.cfg"
printf 'path-include /d\n' > "$T/home/.dpkg.cfg"
unpacked "$base--path-exclude=/a
--path-exclude=/b
--path-exclude=/c
--path-include=/d
--path-include=/e
--force-overwrite
--
$A
" --root="$R" --path-include=/e --unpack "$A"
# Options of the configuration that debunpack does not do hand on, and
# so does a configuration dpkg would refuse (dpkg says why).
printf 'status-logger=cat\n' > "$T/etc/dpkg.cfg.d/50hook"
handed_on --root="$R" --unpack "$A"
printf 'refuse-downgrade\n' > "$T/etc/dpkg.cfg.d/50hook"
handed_on --root="$R" --unpack "$A"
for bad in 'unknown-option' 'no-debsig=1' 'root' 'root "/x' \
    '  no-debsig' 'force-nosuch'; do
	printf '%s\n' "$bad" > "$T/etc/dpkg.cfg.d/50hook"
	handed_on --root="$R" --unpack "$A"
done
rm -f "$T/etc/dpkg.cfg.d/"* "$T/etc/dpkg.cfg.d/.hidden" "$T/etc/dpkg.cfg" \
    "$T/home/.dpkg.cfg"

# --recursive: dpkg's walk, each directory's names in strcmp order, links
# followed, loops skipped; apt's numbered links in their order.
mkdir -p "$T/tree/a" "$T/tree/sub" "$T/apt"
cp "$A" "$T/tree/b.deb"
cp "$A" "$T/tree/a.deb"
cp "$B" "$T/tree/a/z.deb"
cp "$B" "$T/tree/a.deb.not"
ln -s "$T/tree" "$T/tree/sub/loop"
ln -s ../b.deb "$T/tree/sub/c.deb"
for i in 01 02 09 10 11; do
	ln -s "$A" "$T/apt/$i-pkg.deb"
done
unpacked "$base--
$T/tree/a/z.deb
$T/tree/a.deb
$T/tree/b.deb
$T/tree/sub/c.deb
$T/apt/01-pkg.deb
$T/apt/02-pkg.deb
$T/apt/09-pkg.deb
$T/apt/10-pkg.deb
$T/apt/11-pkg.deb
" --root="$R" --no-debsig --recursive --unpack "$T/tree" "$T/apt"
mkdir "$T/empty"
handed_on --root="$R" --no-debsig -R --unpack "$T/empty"
# The same order as dpkg's own walk, which --no-act tells (the paths cut
# to their end: ".../tree/a/z.deb").
dpkg_in "$R" --no-act -R --unpack "$T/tree" "$T/apt/" |
    sed -n 's/^Preparing to unpack \.*\(.*\) \.\.\.$/\1/p' > "$T/dpkg-order"
[ "$(wc -l < "$T/dpkg-order")" = 9 ] || fail "dpkg's order: $(cat "$T/dpkg-order")"
DEBUNPACK_DPKG_DEBUG=1 "$DPKGSHIM" --root="$R" --no-debsig -R --unpack \
    "$T/tree" "$T/apt/" > "$T/out" 2>&1 || fail "shim: $(cat "$T/out")"
tr '\0' '\n' < "$T/unpacked" | sed '1,/^--$/d' > "$T/shim-order"
paste -d '\t' "$T/shim-order" "$T/dpkg-order" | while IFS="$(printf '\t')" \
    read -r ours theirs; do
	case $ours in
	*"$theirs") ;;
	*) fail "order differs from dpkg's: $(tr '\n' ' ' < "$T/shim-order") /" \
	    "$(tr '\n' ' ' < "$T/dpkg-order")" ;;
	esac
done

# --install: debunpack unpacks (its record is there), then the real dpkg
# configures what unpacked with the caller's options; dpkg.log has the
# unpack's lines and dpkg's own.
PATH=$PATH:/usr/sbin:/sbin DEBUNPACK=$T/bin/debunpack-real \
    DEBUNPACK_DPKG=$(command -v dpkg) "$DPKGSHIM" --root="$R" \
    --force-not-root --no-debsig --log="$T/dpkg.log" -i "$A" "$B" \
    > "$T/out" 2>&1 || fail "dpkg -i: $(cat "$T/out")"
[ -f "$R/var/lib/debunpack/a.record" ] || fail "debunpack did not unpack a"
[ "$(cat "$R/usr/b")" = b ] || fail "b's file not there"
for p in a b; do
	[ "$(dpkg-query --root="$R" -W -f='${Status}' $p)" = \
	    "install ok installed" ] || fail "$p not configured"
done
sed 's/^[0-9-]* [0-9:]* //' "$T/dpkg.log" > "$T/log"
for line in 'startup archives install' 'install a:all <none> 1.0' \
    'status half-installed a:all 1.0' 'status unpacked a:all 1.0' \
    'install b:all <none> 2.0' 'status unpacked b:all 2.0' \
    'startup packages configure' 'status installed a:all 1.0' \
    'status installed b:all 2.0'; do
	grep -qx "$line" "$T/log" || fail "dpkg.log lacks '$line': $(cat "$T/log")"
done
# An upgrade is logged as one.
A2=$(make_pkg -m 'T <t@example.org>' -d test a 1.1 'dir ./usr/ 0755' 'file ./usr/a 0644 text:a2\n')
DEBUNPACK=$T/bin/debunpack-real "$DPKGSHIM" --root="$R" --no-debsig \
    --log="$T/dpkg.log" --unpack "$A2" > "$T/out" 2>&1 ||
    fail "dpkg --unpack: $(cat "$T/out")"
grep -q ' upgrade a:all 1.0 1.1$' "$T/dpkg.log" || fail "no upgrade logged"
[ "$(dpkg-query --root="$R" -W -f='${Status} ${Version}' a)" = \
    "install ok unpacked 1.1" ] || fail "a 1.1 not unpacked"
# The configure call: the command line's options, not the action nor -R,
# and only what unpacked (none: no configure at all).
mkdir -p "$T/one"
cp "$B" "$T/one/b.deb"
DEBUNPACK=$T/bin/debunpack-real "$DPKGSHIM" --root="$R" --no-debsig \
    --force-confold -Ri --status-fd=1 -G --force-downgrade "$T/one" \
    > "$T/out" 2>&1 || fail "dpkg -Ri: $(cat "$T/out")"
args --root="$R" --no-debsig --force-confold --status-fd=1 -G \
    --force-downgrade --configure b | cmp -s - "$T/handed" ||
    fail "configure call: $(tr '\0' ' ' < "$T/handed")"
rm -f "$T/handed"
FAKE_DEBUNPACK_RC=2 "$DPKGSHIM" --root="$R" --no-debsig -i "$A" \
    > /dev/null 2>&1 && rc=0 || rc=$?
[ "$rc" = 2 ] && [ ! -f "$T/handed" ] ||
    fail "failed unpack: exit $rc, configured: $([ -f "$T/handed" ] && echo yes)"
FAKE_DEBUNPACK_RC=1 FAKE_DPKG_RC=1 "$DPKGSHIM" --root="$R" --no-debsig \
    -i "$A" > /dev/null 2>&1 && rc=0 || rc=$?
[ "$rc" = 1 ] || fail "configure failed: exit $rc, want 1"

# DPKG_FRONTEND_LOCKED: debunpack takes dpkg's lock alone, as dpkg under
# apt; without it, a held lock-frontend stops it.
# An interrupted debunpack run (its journal in the root) is finished by
# debunpack --recover before a call that changes the root goes anywhere;
# not before a dry run or a query, never when there is no journal; when
# it cannot be finished, nothing runs and the error says what to do.
J=$T/jroot
mkdir -p "$J/var/lib/debunpack"
empty_dpkg_db "$J"
: > "$J/var/lib/debunpack/journal"
for call in "--configure -a" "--remove a" "--triggers-only -a"; do
	rm -f "$T/handed" "$T/unpacked"
	# shellcheck disable=SC2086 # CALL holds several words
	"$DPKGSHIM" --root="$J" $call > "$T/out" 2>&1 || fail "$call: $(cat "$T/out")"
	args -q --root "$J" --recover | cmp -s - "$T/unpacked" ||
	    fail "$call: no recovery first: $(tr '\0' ' ' < "$T/unpacked" 2>/dev/null)"
done
[ -f "$T/handed" ] || fail "--triggers-only not handed on after the recovery"
for call in "--no-act --configure -a" "-l" "--audit"; do
	rm -f "$T/unpacked"
	# shellcheck disable=SC2086
	"$DPKGSHIM" --root="$J" $call > "$T/out" 2>&1 || fail "$call: $(cat "$T/out")"
	[ ! -f "$T/unpacked" ] || fail "$call: debunpack ran: $(tr '\0' ' ' < "$T/unpacked")"
done
rm "$J/var/lib/debunpack/journal"
rm -f "$T/unpacked"
"$DPKGSHIM" --root="$J" --configure -a > "$T/out" 2>&1 || fail "no journal: $(cat "$T/out")"
[ ! -f "$T/unpacked" ] || fail "debunpack ran without a journal"
: > "$J/var/lib/debunpack/journal"
rm -f "$T/handed"
rc=0
FAKE_DEBUNPACK_RC=1 "$DPKGSHIM" --root="$J" --configure -a > "$T/out" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "a failed recovery: exit $rc"
[ ! -f "$T/handed" ] || fail "dpkg ran after a failed recovery"
grep -qx "dpkg: error: '$J' holds an interrupted debunpack run that could not be finished: run 'debunpack --root $J --recover'" "$T/out" ||
    fail "a failed recovery says: $(cat "$T/out")"
rm "$J/var/lib/debunpack/journal"

hold() {	# FILE: a process holding dpkg's fcntl lock on FILE, in $holder
	rm -f "$T/held"
	perl -e 'use Fcntl; open(my $f, "+<", $ARGV[0]) or die;
	    fcntl($f, F_SETLK, pack("ssx4qqlx4", F_WRLCK, SEEK_SET, 0, 0, 0))
	    or die "lock: $!"; open(my $o, ">", $ARGV[1]); close($o);
	    sleep 60' "$1" "$T/held" &
	holder=$!
	i=0
	while [ ! -e "$T/held" ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || fail "no lock on $1"
		sleep 0.05
	done
}
L=$T/lockroot
mkdir -p "$L"
empty_dpkg_db "$L"
: > "$L/var/lib/dpkg/lock-frontend"
: > "$L/var/lib/dpkg/lock"
hold "$L/var/lib/dpkg/lock-frontend"
"$REAL_DEBUNPACK" -q --root "$L" --dpkg-db "$A" 2> "$T/err" &&
    fail "unpacked while apt holds lock-frontend"
grep -q "lock-frontend held by another process" "$T/err" ||
    fail "lock-frontend: $(cat "$T/err")"
DPKG_FRONTEND_LOCKED=true "$REAL_DEBUNPACK" -q --root "$L" --dpkg-db "$A" ||
    fail "DPKG_FRONTEND_LOCKED: lock-frontend still taken"
kill "$holder"
wait "$holder" 2>/dev/null || true
hold "$L/var/lib/dpkg/lock"
DPKG_FRONTEND_LOCKED=true "$REAL_DEBUNPACK" -q --root "$L" --dpkg-db "$B" \
    2> "$T/err" && fail "unpacked while dpkg's lock is held"
grep -q "(lock held by another process)" "$T/err" ||
    fail "lock: $(cat "$T/err")"
kill "$holder"
wait "$holder" 2>/dev/null || true

echo "PASS: dpkgshim"
