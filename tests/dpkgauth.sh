#!/bin/sh
# SPDX-License-Identifier: MIT
# In a root where debunpack keeps dpkg's database (--dpkg-db), dpkg may
# act after it: dpkg's status is then the authority.  A package dpkg
# purged, removed or installed in another version since is no longer
# debunpack's: queries read its record as absent at once, the next run
# drops it (said, journaled), and a later install does not act on it
# (no silent downgrade, no file owned by nobody).  A record made without
# --dpkg-db is not judged by dpkg's status; a removal or an upgrade
# without --dpkg-db of a package dpkg's database has is refused.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "not root: dpkg acts in the test's roots"
command -v dpkg > /dev/null || skip "dpkg missing"

# pkg NAME VERSION [LINE...]: a package with one file, and LINEs.
pkg() {
	pk_n=$1 pk_v=$2
	shift 2
	make_pkg -m "T <t@example.org>" -d "$pk_n" "$pk_n" "$pk_v" "dir ./ 0755" \
	    "dir ./usr/ 0755" "dir ./usr/share/ 0755" "dir ./usr/share/$pk_n/ 0755" \
	    "file ./usr/share/$pk_n/README 0644 text:$pk_n $pk_v\\n" "$@"
}
hello=$(pkg hello 1)
tree1=$(pkg tree 1)
tree2=$(pkg tree 2 "file ./usr/share/tree/NEWFILE 0644 text:new\\n")
other=$(pkg other 1)

R=$T/r
mkdir "$R"
"$DEBUNPACK" -q --root "$R" --dpkg-db "$hello" "$tree1" "$other" || fail "install"
dpkg_root "$R" --configure -a

# dpkg purges hello and installs tree 2 over debunpack's tree 1.
dpkg_root "$R" --purge hello
dpkg_root "$R" -i "$tree2"
printf 'other\t1\tall\ntree\t2\tall\n' > "$T/want"
"$DEBUNPACK" --root "$R" --list | diff -u "$T/want" - || fail "--list shows what dpkg changed"
"$DEBUNPACK" --root "$R" --verify > "$T/verify" 2>&1 || fail "--verify: $(cat "$T/verify")"
"$DEBUNPACK" --root "$R" --files hello > /dev/null 2>&1 && fail "--files of a purged package"
# dpkg's tree 2 answers as dpkg -L and dpkg -S answer.
"$DEBUNPACK" --root "$R" --files tree > "$T/files" || fail "--files of dpkg's tree"
dpkg-query --admindir="$R/var/lib/dpkg" -L tree | diff -u - "$T/files" ||
    fail "--files of dpkg's tree: not dpkg -L's"
"$DEBUNPACK" --root "$R" --owner /usr/share/tree/NEWFILE > "$T/owner" ||
    fail "--owner of dpkg's file"
[ "$(cat "$T/owner")" = "tree: /usr/share/tree/NEWFILE" ] || fail "--owner: $(cat "$T/owner")"
# The records are still there until a run drops them.
[ -f "$R/var/lib/debunpack/hello.record" ] || fail "a query removed a record"
echo "ok queries read dpkg's changes as they stand"

# A run drops the stale records, says so with --verbose (housekeeping:
# dpkg's database is the authority), and leaves dpkg's files to dpkg.
cp -a "$R" "$T/quiet"
"$DEBUNPACK" --root "$T/quiet" --dpkg-db --purge other 2> "$T/err" || fail "purge: $(cat "$T/err")"
[ ! -s "$T/err" ] || fail "stale records told without --verbose: $(cat "$T/err")"
[ -z "$(ls -A "$T/quiet/var/lib/debunpack")" ] || fail "records left without --verbose"
"$DEBUNPACK" --root "$R" --dpkg-db --verbose --purge other 2> "$T/err" || fail "purge: $(cat "$T/err")"
grep -q "dpkg changed 'hello' since debunpack installed it (purged): debunpack's record of it is dropped" "$T/err" ||
    fail "no word of hello: $(cat "$T/err")"
grep -q "dpkg changed 'tree' since debunpack installed it (version 2 installed)" "$T/err" ||
    fail "no word of tree: $(cat "$T/err")"
[ -z "$(ls -A "$R/var/lib/debunpack")" ] || fail "records left: $(ls "$R/var/lib/debunpack")"
[ -f "$R/usr/share/tree/NEWFILE" ] || fail "dpkg's NEWFILE was removed"
dpkg-query --admindir="$R/var/lib/dpkg" -S /usr/share/tree/NEWFILE > /dev/null ||
    fail "NEWFILE owned by nobody"
dpkg_root "$R" --verify tree
echo "ok a run drops them, said, and leaves dpkg's files to dpkg"

# dpkg's tree 2 is an installed package like any: tree 1 over it is the
# downgrade dpkg -i makes, its NEWFILE gone with it, and debunpack's again.
"$DEBUNPACK" --root "$R" --dpkg-db "$tree1" 2> "$T/err" ||
    fail "downgrade of dpkg's tree: $(cat "$T/err")"
[ ! -e "$R/usr/share/tree/NEWFILE" ] || fail "tree 2's NEWFILE stayed"
[ "$(dpkg-query --admindir="$R/var/lib/dpkg" -W -f '${Version}' tree)" = 1 ] ||
    fail "tree: not version 1 in dpkg's status"
dpkg_root "$R" --configure -a
dpkg_root "$R" --verify tree
"$DEBUNPACK" --root "$R" --files tree | grep -q '^/usr/share/tree/README$' ||
    fail "tree 1: no record"
echo "ok a package dpkg upgraded is downgraded as dpkg -i downgrades it"

# dpkg --remove: the same for a package removed to its conffiles.
R2=$T/r2
mkdir "$R2"
"$DEBUNPACK" -q --root "$R2" --dpkg-db "$hello" || fail "install r2"
dpkg_root "$R2" --remove hello
[ -z "$("$DEBUNPACK" --root "$R2" --list)" ] || fail "--list after dpkg --remove"
echo "ok dpkg --remove"

# Without --dpkg-db a record is debunpack's alone, whatever dpkg's status
# says; but a package dpkg's database has must not change behind it.
R3=$T/r3
mkdir "$R3"
"$DEBUNPACK" -q --root "$R3" --dpkg-db "$other" || fail "install other"
"$DEBUNPACK" -q --root "$R3" "$hello" || fail "install hello without --dpkg-db"
[ "$("$DEBUNPACK" --root "$R3" --list | cut -f 1 | tr '\n' ' ')" = "hello other " ] ||
    fail "a record without --dpkg-db judged by dpkg: $("$DEBUNPACK" --root "$R3" --list)"
"$DEBUNPACK" --root "$R3" --remove other 2> "$T/err" && fail "remove without --dpkg-db: accepted"
grep -q "cannot remove 'other': dpkg's database has it too: --dpkg-db" "$T/err" ||
    fail "remove without --dpkg-db: $(cat "$T/err")"
"$DEBUNPACK" --root "$R3" "$other" 2> "$T/err" && fail "reinstall without --dpkg-db: accepted"
grep -q "'other' is in dpkg's database too: --dpkg-db" "$T/err" ||
    fail "reinstall without --dpkg-db: $(cat "$T/err")"
echo "ok records without --dpkg-db, and the refusals"
