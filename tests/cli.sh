#!/bin/sh
# SPDX-License-Identifier: MIT
# The command line: help, version, usage errors and their exit codes.
. "${srcdir:-.}/tests/lib.sh"

"$DEBUNPACK" --help > "$T/out" || fail "--help exit $?"
grep -q '^usage: debunpack' "$T/out" || fail "--help text"
"$DEBUNPACK" --version > "$T/out" || fail "--version exit $?"
grep -q '^debunpack [0-9]' "$T/out" || fail "--version text"
grep -q 'libarchive' "$T/out" || fail "--version must name libarchive"

usage_error() {
	if "$DEBUNPACK" "$@" > "$T/out" 2> "$T/err"; then
		fail "accepted: $*"
	else
		rc=$?
	fi
	[ "$rc" = 2 ] || fail "exit $rc for: $*"
	# One line saying what is wrong, one pointing at --help.
	[ "$(wc -l < "$T/err")" = 2 ] || fail "not two lines for: $*: $(cat "$T/err")"
	head -n 1 "$T/err" | grep -q '^debunpack: ' || fail "no cause for: $*: $(cat "$T/err")"
	[ "$(tail -n 1 "$T/err")" = "Try 'debunpack --help' for more information." ] ||
	    fail "no pointer to --help for: $*: $(cat "$T/err")"
	[ ! -s "$T/out" ] || fail "stdout written for: $*"
}
usage_error
usage_error --sync-mode fast x.deb
usage_error --stats=xml x.deb
usage_error --no-such-option x.deb
usage_error --root
# A bad size limit from the environment is a usage error too.
(export DEBUNPACK_CACHE_MAX_SIZE=12Q; usage_error x.deb) || exit 1
grep -q "^debunpack: DEBUNPACK_CACHE_MAX_SIZE takes a size" "$T/err" ||
    fail "DEBUNPACK_CACHE_MAX_SIZE: $(cat "$T/err")"
# What writes needs --root, / included; a query reads / without it.
usage_error x.deb
grep -q "^debunpack: --root is required to install (--root / for the running system)$" "$T/err" ||
    fail "no --root: $(cat "$T/err")"
usage_error --recover
"$DEBUNPACK" --list > /dev/null 2>&1 || fail "--list without --root: exit $?"

deb=$(build_deb comp-gz)
mkdir "$T/r"
"$DEBUNPACK" --root "$T/r" --stats=json "$deb" > "$T/json" || fail "stats json"
[ "$(wc -l < "$T/json")" = 1 ] || fail "json is not one line"
# The default follows the root's filesystem.
case $(stat -f -c %T "$T/r") in
ext2/ext3|xfs|btrfs|f2fs|tmpfs) want=syncfs ;;
*) want=batched ;;
esac
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["packages"]==1 and d["sync_mode"]==sys.argv[2] and d["calls"]["rename"]+d["calls"]["link"]>0, d' "$T/json" "$want" ||
	    fail "json (want $want): $(cat "$T/json")"
fi
rm -rf "$T/r"; mkdir "$T/r"
"$DEBUNPACK" --root "$T/r" --stats --sync-mode perfile "$deb" > "$T/text" || fail "stats text"
grep -q '^sync mode:  perfile' "$T/text" || fail "stats text: $(cat "$T/text")"
# perfile fsyncs files and starts no writeback; the fdatasyncs are the
# journal's (before a file is synced in a directory it had not named yet,
# before the renames, at the commit point).
grep -q 'sync_file_range_write 0 .* fdatasync [1-9][0-9]* fsync [1-9]' "$T/text" ||
    fail "perfile calls: $(cat "$T/text")"
rm -rf "$T/r"; mkdir "$T/r"
"$DEBUNPACK" -v --root "$T/r" "$deb" 2> "$T/err" > /dev/null || fail "-v"
grep -q 'unpacking comp-gz' "$T/err" || fail "-v: $(cat "$T/err")"
"$DEBUNPACK" --root "$T/nonexistent" "$deb" 2> "$T/err" && fail "missing root"
grep -q "cannot open root" "$T/err" || fail "missing root message: $(cat "$T/err")"
# --recover repairs an interrupted run and says so; a query only says
# that one is due, and leaves it (reads never write).
rm -rf "$T/r"; mkdir -p "$T/r/var/lib/debunpack"
printf 'debunpack-journal 1\ndir\tA\t1.000000000\t1.000000000\t.\n' \
    > "$T/r/var/lib/debunpack/journal"
"$DEBUNPACK" --root "$T/r" --list > /dev/null 2> "$T/err" || fail "--list: $(cat "$T/err")"
grep -q "awaits its repair ('debunpack --recover'): answering from the records before it" "$T/err" ||
    fail "--list said no pending repair: $(cat "$T/err")"
[ -e "$T/r/var/lib/debunpack/journal" ] || fail "--list repaired"
"$DEBUNPACK" --root "$T/r" --recover > /dev/null 2> "$T/err" || fail "--recover: $(cat "$T/err")"
grep -q 'repaired an interrupted run: undid it' "$T/err" ||
    fail "--recover said no repair: $(cat "$T/err")"
[ ! -e "$T/r/var/lib/debunpack/journal" ] || fail "--recover left the journal"
echo ok

# A directory given as a package: said plainly, nothing made.
mkdir "$T/notadeb" "$T/r2"
if "$DEBUNPACK" --root "$T/r2" "$T/notadeb" > "$T/out" 2> "$T/err"; then
	fail "a directory accepted as a package"
fi
[ "$(cat "$T/err")" = "debunpack: $T/notadeb: a directory, not a package file (-R installs the packages under it)" ] ||
    fail "a directory as a package: $(cat "$T/err")"
[ -z "$(ls -A "$T/r2")" ] || fail "a directory as a package: the root changed"

# -R: the .deb files under a directory, sorted, as one batch; "-" is
# standard input.
mkdir -p "$T/tree/sub" "$T/r3"
cp "$(build_deb comp-gz)" "$T/tree/sub/b.deb"
cp "$(build_deb comp-xz)" "$T/tree/a.deb"
echo "not a package" > "$T/tree/notes.txt"
"$DEBUNPACK" -v --root "$T/r3" -R "$T/tree" 2> "$T/err" || fail "-R: $(cat "$T/err")"
grep -o 'from .*' "$T/err" | sed "s|$T/tree/||" > "$T/order"
printf 'from a.deb\nfrom sub/b.deb\n' | diff -u - "$T/order" || fail "-R: not the .deb files in order"
"$DEBUNPACK" --root "$T/r3" -R "$T/notadeb" 2> "$T/err" && fail "-R of a directory without packages: accepted"
grep -q "no package file (\*\.deb) under it" "$T/err" || fail "-R empty: $(cat "$T/err")"
mkdir "$T/r4"
"$DEBUNPACK" -q --root "$T/r4" - < "$(build_deb pax)" || fail "standard input"
"$DEBUNPACK" --root "$T/r4" --list | grep -q . || fail "standard input: nothing installed"
"$DEBUNPACK" --root "$T/r4" - - < /dev/null 2> "$T/err" && fail "'-' twice: accepted"
grep -q "standard input ('-') can be read once" "$T/err" || fail "'-' twice: $(cat "$T/err")"

# Versions as dpkg orders them: -v says upgrading, reinstalling or
# downgrading, from which version to which; a downgrade warns without -v,
# and -q keeps it quiet.
for v in 1.0 1.0~rc1 1:0.9 2.0; do
	make_pkg ver "$v" "dir ./usr/ 0755" "file ./usr/ver 0644 text:$v\\n" > /dev/null
done
mkdir "$T/v"
"$DEBUNPACK" --root "$T/v" "$T/ver-1.0.deb" 2> "$T/err" || fail "ver 1.0"
[ ! -s "$T/err" ] || fail "a new package said: $(cat "$T/err")"
"$DEBUNPACK" --root "$T/v" "$T/ver-1.0~rc1.deb" 2> "$T/err" || fail "ver 1.0~rc1"
[ "$(cat "$T/err")" = "debunpack: warning: downgrading ver from 1.0 to 1.0~rc1" ] ||
    fail "downgrade: $(cat "$T/err")"
"$DEBUNPACK" -v --root "$T/v" "$T/ver-1:0.9.deb" 2> "$T/err" || fail "ver 1:0.9"
grep -q "^debunpack: upgrading ver (1.0~rc1 -> 1:0.9) from $T/ver-1:0.9.deb$" "$T/err" ||
    fail "-v upgrade: $(cat "$T/err")"
! grep -q warning "$T/err" || fail "an epoch upgrade warned: $(cat "$T/err")"
"$DEBUNPACK" -v --root "$T/v" "$T/ver-1:0.9.deb" 2> "$T/err" || fail "reinstall"
grep -q "^debunpack: reinstalling ver (1:0.9 -> 1:0.9) from" "$T/err" ||
    fail "-v reinstall: $(cat "$T/err")"
"$DEBUNPACK" -q --root "$T/v" "$T/ver-2.0.deb" 2> "$T/err" || fail "ver 2.0"
[ ! -s "$T/err" ] || fail "-q downgrade said: $(cat "$T/err")"
[ "$(cat "$T/v/usr/ver")" = 2.0 ] || fail "ver 2.0 not installed"
echo "ok versions"
