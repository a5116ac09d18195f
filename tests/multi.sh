#!/bin/sh
# SPDX-License-Identifier: MIT
# Several packages in one run: one batch, command-line order; a path of two
# packages is a conflict, which --force-overwrite resolves for the later one.
. "${srcdir:-.}/tests/lib.sh"

for p in a b c; do
	make_pkg -o "$p" "pkg$p" 1.0 - > /dev/null <<D
dir ./usr/ 0755
dir ./usr/share/ 0755
dir ./usr/share/$p/ 0755
file ./usr/share/$p/own 0644 text:$p\\n
file ./usr/share/shared 0644 text:from\\s$p\\n
gen 50 ./usr/share/$p/f 0644 300
D
done

root=$T/root
mkdir "$root"
"$DEBUNPACK" --root "$root" "$T/a.deb" "$T/b.deb" 2> "$T/err" && fail "conflict accepted"
grep -q "b.deb: 'usr/share/shared': also in package 'pkga'" "$T/err" ||
    fail "conflict message: $(cat "$T/err")"
[ -z "$(ls -A "$root")" ] || fail "root changed by a conflict"
"$DEBUNPACK" --root "$root" --force-overwrite --sync-mode batched --stats=json \
    "$T/a.deb" "$T/b.deb" "$T/c.deb" > "$T/stats.json" 2> "$T/err" ||
    fail "three packages"
grep -q "warning: .*'usr/share/shared': taken over from package 'pkgb'" "$T/err" ||
    fail "no warning: $(cat "$T/err")"
[ "$(cat "$root/usr/share/shared")" = "from c" ] || fail "later package must win"
for p in a b c; do
	[ "$(cat "$root/usr/share/$p/own")" = "$p" ] || fail "$p own file"
done
no_temps "$root"
grep -q '"packages":3' "$T/stats.json" || fail "stats: $(cat "$T/stats.json")"
# One batch: each file synced once (154 files, 3 records) and the journal
# twice (before the renames, at the commit point), and each directory once,
# at the end (6 of the packages, var, var/lib and the admin directory when
# the files commit, the admin directory again for the records, which
# commit after them, and once for the journal's name, but where syncing
# a new file makes its name durable: xfs, btrfs, a journaled ext4).
grep -q '"fdatasync":159,' "$T/stats.json" || fail "fdatasync count: $(cat "$T/stats.json")"
grep -Eq '"fsync":1[01],' "$T/stats.json" || fail "dir fsync count: $(cat "$T/stats.json")"

# syncfs: one barrier for the data of files and records, one for all their
# names and the commit line, whatever the number of files; the journal's
# lines written back (before each directory the run uses, and before the
# barrier) and carried by the data barrier, where syncfs is trusted (else
# synced before it, with its name's fsync, as above).
rm -rf "$root"; mkdir "$root"
"$DEBUNPACK" -q --root "$root" --force-overwrite --sync-mode syncfs --stats=json \
    "$T/a.deb" "$T/b.deb" "$T/c.deb" > "$T/stats.json" || fail "syncfs"
[ "$(cat "$root/usr/share/shared")" = "from c" ] || fail "syncfs: later package must win"
no_temps "$root"
grep -Eq '"sync_file_range_wait":[1-9][0-9]*,"fadvise":0,"fdatasync":0,"fsync":0,"syncfs":2,' \
    "$T/stats.json" || grep -Eq '"fdatasync":1,"fsync":[01],"syncfs":2,' \
    "$T/stats.json" || fail "syncfs counts: $(cat "$T/stats.json")"
# The path taken over within the run is listed by its last owner only.
"$DEBUNPACK" --root "$root" --verify || fail "records after a take-over in one run"
[ "$("$DEBUNPACK" --root "$root" --owner /usr/share/shared)" = "pkgc: /usr/share/shared" ] ||
    fail "owner: $("$DEBUNPACK" --root "$root" --owner /usr/share/shared)"

# Same in reverse order: a wins.
rm -rf "$root"; mkdir "$root"
"$DEBUNPACK" -q --root "$root" --force-overwrite "$T/c.deb" "$T/b.deb" "$T/a.deb" || fail "reverse"
[ "$(cat "$root/usr/share/shared")" = "from a" ] || fail "reverse order"
no_temps "$root"

# A failing package anywhere in the batch leaves nothing of the others.
printf 'garbage' > "$T/bad.deb"
rm -rf "$root"; mkdir "$root"
"$DEBUNPACK" -q --root "$root" --force-overwrite "$T/a.deb" "$T/b.deb" "$T/bad.deb" 2> "$T/err" &&
    fail "bad package accepted"
[ -z "$(ls -A "$root")" ] || fail "root not restored: $(find "$root")"
grep -q "bad.deb" "$T/err" || fail "error does not name the package: $(cat "$T/err")"

# Few descriptors: batched closes files after writing and reopens them by
# name for the commit, and directories evicted from the cache are reopened
# too; syncfs keeps no file open at all.
rm -rf "$root"; mkdir "$root"
(ulimit -n 40 && "$DEBUNPACK" -q --root "$root" --force-overwrite --sync-mode batched \
    --stats=json "$T/a.deb" "$T/b.deb" "$T/c.deb") > "$T/stats.json" ||
    fail "with ulimit -n 40"
grep -q '"reopen":[1-9]' "$T/stats.json" || fail "no reopen: $(cat "$T/stats.json")"
rm -rf "$root"; mkdir "$root"
(ulimit -n 40 && "$DEBUNPACK" -q --root "$root" --force-overwrite --sync-mode syncfs \
    --stats=json "$T/a.deb" "$T/b.deb" "$T/c.deb") > "$T/stats.json" ||
    fail "syncfs with ulimit -n 40"
grep -q '"reopen":0' "$T/stats.json" || fail "syncfs reopened: $(cat "$T/stats.json")"
[ "$(cat "$root/usr/share/shared")" = "from c" ] || fail "ulimit: later package must win"
no_temps "$root"
echo ok

# Several versions of one package in one run (an apt cache as *.deb): as
# dpkg, which unpacks them in order, the last one given stands; the others
# are left out, each with a note.
d1=$(make_pkg dup 1 "dir ./opt/ 0755" "file ./opt/a 0644 text:1\\n")
d2=$(make_pkg dup 2 "dir ./opt/ 0755" "file ./opt/b 0644 text:2\\n")
d3=$(make_pkg dup 3 "dir ./opt/ 0755" "file ./opt/c 0644 text:3\\n")
rm -rf "$root"; mkdir "$root"
"$DEBUNPACK" --root "$root" "$d1" "$d3" "$d2" 2> "$T/err" || fail "three versions: $(cat "$T/err")"
[ -f "$root/opt/b" ] && [ ! -e "$root/opt/a" ] && [ ! -e "$root/opt/c" ] ||
    fail "three versions: not the last one's files: $(ls "$root/opt")"
[ "$("$DEBUNPACK" --root "$root" --list | cut -f 1,2)" = "$(printf 'dup\t2')" ] ||
    fail "three versions: $("$DEBUNPACK" --root "$root" --list)"
printf 'debunpack: note: leaving out dup 1 (%s): version 2 (%s) comes later on the command line\ndebunpack: note: leaving out dup 3 (%s): version 2 (%s) comes later on the command line\n' \
    "$d1" "$d2" "$d3" "$d2" | diff -u - "$T/err" || fail "three versions: notes"
# -q: no note; the order decides, not the version.
"$DEBUNPACK" -q --root "$root" "$d2" "$d1" 2> "$T/err" || fail "two versions"
[ ! -s "$T/err" ] || fail "-q: $(cat "$T/err")"
[ -f "$root/opt/a" ] && [ ! -e "$root/opt/b" ] || fail "two versions: not the last one's"
# A version left out is read through all the same, as dpkg would fail on
# it first: a cut one, or one with a name no package may have, is refused.
cp "$d1" "$T/d1cut.deb"
truncate -s $(( $(stat -c %s "$d1") - 20 )) "$T/d1cut.deb"
refused "$root" "a cut earlier version accepted" "d1cut.deb" "$T/d1cut.deb" "$d2"
d0=$(make_pkg -o d0 dup 0 "dir ./opt/ 0755" "file ./opt/../../escape 0644 text:x")
refused "$root" "a hostile earlier version accepted" "d0.deb" "$d0" "$d2"
# A package given as a pipe is read once, by the run itself.
mkfifo "$T/pipe.deb"
cat "$d1" > "$T/pipe.deb" &
rm -rf "$root"; mkdir "$root"
"$DEBUNPACK" -q --root "$root" "$T/pipe.deb" "$T/a.deb" 2> "$T/err" ||
    fail "a package through a pipe: $(cat "$T/err")"
wait
[ -f "$root/opt/a" ] || fail "a package through a pipe: not installed"
echo "ok several versions of one package: the last one given stands"
