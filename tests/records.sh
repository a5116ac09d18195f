#!/bin/sh
# SPDX-License-Identifier: MIT
# Package records in the admin directory, and the queries that read them:
# --list, --owner, --contents, --files, --verify.
. "${srcdir:-.}/tests/lib.sh"

all=$(build_deb alltypes)
root=$T/root
mkdir "$root"
"$DEBUNPACK" -q --root "$root" "$all" || fail install
rec=$root/var/lib/debunpack/alltypes.record
[ -f "$rec" ] || fail "no record"
[ "$(head -n 1 "$rec")" = "debunpack-record 1" ] || fail "record header"
grep -q '^Package: alltypes$' "$rec" || fail "record control"
no_temps "$root"

# Every regular file: size and SHA-256 computed while unpacking match the
# file on disk; every path of the package is listed.
tab=$(printf '\t')
grep "^[fh]$tab" "$rec" | while IFS="$tab" read -r type flags mode owner size sha path target; do
	[ "$(stat -c %s "$root$path")" = "$size" ] || fail "$path: size"
	[ "$(sha256sum < "$root$path" | cut -d ' ' -f 1)" = "$sha" ] || fail "$path: sha256"
	[ "$(stat -c %04a "$root$path")" = "$mode" ] || fail "$path: mode $mode"
done
npaths=$(dpkg-deb -c "$all" | grep -vc ' \./$')
[ "$(sed -n '/^$/,$p' "$rec" | grep -c .)" = "$npaths" ] || fail "record has not every path"
grep -q "^l$tab-${tab}0777${tab}.*$tab/usr/share/alltypes/rel$tab../../bin/a$" "$rec" ||
    fail "symlink line: $(grep rel "$rec")"
grep -q "^h$tab.*$tab/usr/lib/x/b$tab/usr/bin/a$" "$rec" || fail "hardlink line"

# --list and --owner.
[ "$("$DEBUNPACK" --root "$root" --list)" = "$(printf 'alltypes\t1.0-1\tall')" ] ||
    fail "--list: $("$DEBUNPACK" --root "$root" --list)"
[ "$("$DEBUNPACK" --root "$root" --owner /usr/bin/a)" = "alltypes: /usr/bin/a" ] || fail "--owner"
# Paths as typed: "//", "/./", ".." and a trailing "/" taken out.
for p in /usr/bin//a /usr/./bin/a /usr/share/../bin/a/ //usr/bin/a; do
	[ "$("$DEBUNPACK" --root "$root" --owner "$p")" = "alltypes: /usr/bin/a" ] ||
	    fail "--owner $p: $("$DEBUNPACK" --root "$root" --owner "$p" 2>&1)"
done
# As dpkg -S: a part of a path, a glob whose * matches "/", several at once.
"$DEBUNPACK" --root "$root" --owner alltypes/dat > "$T/out" || fail "--owner part"
printf 'alltypes: /usr/share/alltypes/data\nalltypes: /usr/share/alltypes/data2\n' |
    diff -u - "$T/out" || fail "--owner part of a path"
"$DEBUNPACK" --root "$root" --owner '/usr/*/a' > "$T/out" || fail "--owner glob"
printf 'alltypes: /usr/bin/a\n' | diff -u - "$T/out" || fail "--owner glob"
[ "$("$DEBUNPACK" --root "$root" --owner '/etc/*' | wc -l)" = 2 ] ||
    fail "--owner '/etc/*': $("$DEBUNPACK" --root "$root" --owner '/etc/*')"
# Several: what is found on stdout, one line on stderr for each miss, exit 1.
if "$DEBUNPACK" --root "$root" --owner /etc/passwd /usr/bin/a 'nothing*here' \
    > "$T/out" 2> "$T/err"; then
	fail "--owner unowned"
fi
[ "$(cat "$T/out")" = "alltypes: /usr/bin/a" ] || fail "--owner several: $(cat "$T/out")"
# dpkg -S's words, with the pattern as it was searched for.
printf "debunpack: no path found matching pattern '/etc/passwd'\ndebunpack: no path found matching pattern '*nothing*here*'\n" |
    diff -u - "$T/err" || fail "--owner misses"

# A second package, then an upgrade of the first: the record is replaced.
other=$(make_pkg other 2 "dir ./usr/ 0755" "dir ./usr/bin/ 0755" "file ./usr/bin/other 0755 text:x")
sed 's/^control-field Version 1.0-1$/control-field Version 1.0-2/' "$FIXTURES/alltypes.desc" > "$T/all2.desc"
all2=$(build_deb all2 "$T/all2.desc")
"$DEBUNPACK" -q --root "$root" "$other" "$all2" || fail "second run"
[ "$("$DEBUNPACK" --root "$root" --list | cut -f 1,2 | tr '\t' ' ' | tr '\n' ';')" = "alltypes 1.0-2;other 2;" ] ||
    fail "--list after upgrade: $("$DEBUNPACK" --root "$root" --list)"
[ "$("$DEBUNPACK" --root "$root" --owner /usr/bin)" = "alltypes, other: /usr/bin" ] ||
    fail "--owner shared directory: $("$DEBUNPACK" --root "$root" --owner /usr/bin)"
no_temps "$root"

# --admindir: records go there, nothing under the root's var/lib.
mkdir "$T/r2" "$T/admin"
"$DEBUNPACK" -q --root "$T/r2" --admindir "$T/admin" "$other" || fail "--admindir"
[ -f "$T/admin/other.record" ] || fail "--admindir: no record"
[ ! -e "$T/r2/var" ] || fail "--admindir: root has var"
[ "$("$DEBUNPACK" --root "$T/r2" --admindir "$T/admin" --list | cut -f 1)" = other ] || fail "--list --admindir"
"$DEBUNPACK" -q --root "$T/r2" --admindir "$T/missing" "$other" 2> "$T/err" && fail "missing admindir"
grep -q "cannot open admin directory" "$T/err" || fail "missing admindir: $(cat "$T/err")"

# --verify: silent on an intact root, one line per kind of change.
"$DEBUNPACK" --root "$root" --verify > "$T/out" 2>&1 || fail "verify intact: $(cat "$T/out")"
[ ! -s "$T/out" ] || fail "verify printed: $(cat "$T/out")"
echo changed > "$root/usr/share/alltypes/data"
chmod 0600 "$root/usr/bin/suid"
rm "$root/usr/share/alltypes/empty"
ln -sfn elsewhere "$root/usr/share/alltypes/rel"
"$DEBUNPACK" --root "$root" --verify alltypes > "$T/out" 2> "$T/err" && fail "verify found nothing"
grep -q "^alltypes: /usr/share/alltypes/data: changed size" "$T/out" || fail "verify content: $(cat "$T/out")"
grep -q "^alltypes: /usr/share/alltypes/data2: changed size" "$T/out" || fail "verify hardlink: $(cat "$T/out")"
grep -q "^alltypes: /usr/bin/suid: changed mode 0600 (recorded 4755)" "$T/out" || fail "verify mode: $(cat "$T/out")"
grep -q "^alltypes: /usr/share/alltypes/empty: missing" "$T/out" || fail "verify missing: $(cat "$T/out")"
grep -q "^alltypes: /usr/share/alltypes/rel: changed link target" "$T/out" || fail "verify link: $(cat "$T/out")"
[ "$(wc -l < "$T/out")" = 5 ] || fail "verify: $(cat "$T/out")"
grep -q "5 problems found" "$T/err" || fail "verify summary: $(cat "$T/err")"
# -q: the same lines, no summary; the exit status says it.
"$DEBUNPACK" -q --root "$root" --verify alltypes > "$T/out2" 2> "$T/err" && fail "-q verify found nothing"
cmp -s "$T/out" "$T/out2" && [ ! -s "$T/err" ] || fail "-q --verify: $(cat "$T/err")"
"$DEBUNPACK" --root "$root" --verify nosuchpkg 2> "$T/err" && fail "verify of a missing package"
grep -q "not installed" "$T/err" || fail "verify missing package: $(cat "$T/err")"
# Same content, same size: the checksum tells.
"$DEBUNPACK" -q --root "$root" "$all2" || fail "repair"
printf 'some dat4\n' > "$root/usr/share/alltypes/data"
"$DEBUNPACK" --root "$root" --verify alltypes 2>/dev/null | grep -q "data: changed content" ||
    fail "verify same-size change"

# An empty root: nothing installed, nothing owned.
mkdir "$T/empty"
[ -z "$("$DEBUNPACK" --root "$T/empty" --list)" ] || fail "--list on an empty root"
"$DEBUNPACK" --root "$T/empty" --owner /x 2>/dev/null && fail "--owner on an empty root"

# --contents lists what dpkg-deb -c lists (spacing aside).
for f in alltypes comp-gz pax; do
	deb=$(build_deb "$f")
	"$DEBUNPACK" --contents "$deb" | tr -s ' ' > "$T/ours"
	TZ=UTC0 dpkg-deb -c "$deb" | tr -s ' ' > "$T/theirs"
	diff -u "$T/theirs" "$T/ours" || fail "--contents $f"
done
"$DEBUNPACK" --contents --list x.deb 2>/dev/null && fail "--contents --list accepted"
# Several packages: each listing under its file's name, a blank line between.
a=$(build_deb alltypes) g=$(build_deb comp-gz)
"$DEBUNPACK" --contents "$a" "$g" > "$T/both" || fail "--contents of two"
{ echo "==> $a <=="; "$DEBUNPACK" --contents "$a"; echo; echo "==> $g <=="
  "$DEBUNPACK" --contents "$g"; } | diff -u - "$T/both" || fail "--contents labels"

# --json: --list, --owner, --verify and --dry-run as JSON arrays that a
# parser reads; --verify-format=rpm: dpkg --verify's lines (dpkgquery.sh
# compares them with dpkg's own).
json_ok() {	# FILE WHAT
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1" ||
	    fail "$2: not JSON: $(cat "$1")"
}
"$DEBUNPACK" --root "$root" --list --json > "$T/j" || fail "--list --json"
json_ok "$T/j" "--list --json"
grep -q '{"package": "alltypes", "version": "1.0-2", "architecture": "all", "state": "installed"}' "$T/j" ||
    fail "--list --json: $(cat "$T/j")"
"$DEBUNPACK" --root "$root" --owner /usr/bin/a --json > "$T/j" || fail "--owner --json"
json_ok "$T/j" "--owner --json"
[ "$(cat "$T/j")" = '[{"path": "/usr/bin/a", "packages": ["alltypes"]}]' ] ||
    fail "--owner --json: $(cat "$T/j")"
"$DEBUNPACK" --root "$root" --verify --json alltypes > "$T/j" 2> /dev/null &&
    fail "--verify --json: the change not seen"
json_ok "$T/j" "--verify --json"
grep -q '"path": "/usr/share/alltypes/data", "conffile": false, "rpm": "??5??????", "problems": \["changed content"\]' "$T/j" ||
    fail "--verify --json: $(cat "$T/j")"
"$DEBUNPACK" --root "$root" --verify --verify-format=rpm alltypes > "$T/rpm" 2> /dev/null &&
    fail "--verify-format=rpm: the change not seen"
grep -qx '??5??????   /usr/share/alltypes/data' "$T/rpm" ||
    fail "--verify-format=rpm: $(cat "$T/rpm")"
rm "$root/usr/bin/a"
"$DEBUNPACK" --root "$root" --verify --verify-format=rpm alltypes 2> /dev/null |
    grep -qx 'missing     /usr/bin/a' || fail "--verify-format=rpm, missing"
"$DEBUNPACK" --root "$T/empty" --list --json | grep -qx '\[\]' || fail "--list --json, empty"
"$DEBUNPACK" --root "$T/empty" --dry-run --json "$(build_deb comp-gz)" > "$T/j" ||
    fail "--dry-run --json"
json_ok "$T/j" "--dry-run --json"
grep -q '"action": "create", "path": "/usr/share/' "$T/j" || fail "--dry-run --json: $(cat "$T/j")"
# A dry run that fails after some verdicts still ends its array.
mkdir -p "$T/jfail/usr/share/comp-gz"
: > "$T/jfail/usr/share/comp-gz/random"
"$DEBUNPACK" --root "$T/jfail" --dry-run --json "$(build_deb comp-gz)" "$(build_deb truncated "$FIXTURES/bad/truncated.desc")" \
    > "$T/j" 2> /dev/null && fail "--dry-run --json of a broken package succeeded"
json_ok "$T/j" "--dry-run --json that fails"
grep -q '"action": "replace", "path": "/usr/share/comp-gz/random"' "$T/j" ||
    fail "--dry-run --json that fails: $(cat "$T/j")"
"$DEBUNPACK" --root "$root" --json x.deb 2> "$T/err" && fail "--json with an install"
grep -q "json goes with" "$T/err" || fail "--json with an install: $(cat "$T/err")"
"$DEBUNPACK" --root "$root" --list --verify-format=rpm 2> /dev/null && fail "--verify-format with --list"
"$DEBUNPACK" --root "$root" --verify --verify-format=xml 2> /dev/null && fail "--verify-format=xml"

# --files: an installed package's paths as dpkg -L lists them ("/." first,
# symlinks last); a blank line between packages; one line for each that
# is not installed, exit 1.
"$DEBUNPACK" --root "$root" --files alltypes > "$T/files" || fail "--files"
[ "$(wc -l < "$T/files")" = "$((npaths + 1))" ] || fail "--files: $(wc -l < "$T/files") paths, not $npaths and /."
[ "$(head -n 1 "$T/files")" = /. ] || fail "--files: no /. first"
grep -qx /usr/bin/a "$T/files" && grep -qx /usr/share/alltypes/rel "$T/files" ||
    fail "--files: $(cat "$T/files")"
if "$DEBUNPACK" --root "$root" --files alltypes nosuch other > "$T/out" 2> "$T/err"; then
	fail "--files of a package not installed"
fi
[ "$(cat "$T/err")" = "debunpack: package 'nosuch' is not installed" ] || fail "--files: $(cat "$T/err")"
{ cat "$T/files"; echo; echo; printf '/.\n/usr\n/usr/bin\n/usr/bin/other\n'; } |
    diff -u - "$T/out" || fail "--files of three"
echo ok
