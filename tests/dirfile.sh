#!/bin/sh
# SPDX-License-Identifier: MIT
# A directory and a file replacing each other follow dpkg: an empty
# directory that no other package has becomes a file, a package's own
# file moves aside for a directory; a non-empty directory, another
# package's path or a file no package has is an error that changes
# nothing.  A failed run puts everything back.
. "${srcdir:-.}/tests/lib.sh"

# pkg NAME VERSION LINE...: make_pkg of a package under /opt.
pkg() {
	pk_n=$1 pk_v=$2
	shift 2
	make_pkg "$pk_n" "$pk_v" "dir ./opt/ 0755" "$@"
}

a1=$(pkg a 1 "dir ./opt/d/ 0755" "file ./opt/f 0644 text:file" \
    "dir ./opt/full/ 0755" "file ./opt/full/x 0644 text:x")
a2=$(pkg a 2 "file ./opt/d 0644 text:now a file" "dir ./opt/f/ 0755" \
    "file ./opt/f/in 0644 text:in" "dir ./opt/full/ 0755" \
    "file ./opt/full/x 0644 text:x")
root=$T/root
mkdir "$root"
"$DEBUNPACK" -q --root "$root" "$a1" || fail "install a 1"

# Both ways at once, then the records agree with the root.
"$DEBUNPACK" -q --root "$root" "$a2" || fail "upgrade a 2"
[ -f "$root/opt/d" ] && [ "$(cat "$root/opt/d")" = "now a file" ] ||
    fail "empty directory not replaced by the file"
[ -d "$root/opt/f" ] && [ -f "$root/opt/f/in" ] ||
    fail "file not replaced by the directory"
no_temps "$root"
"$DEBUNPACK" --root "$root" --verify > /dev/null || fail "verify after upgrade"
echo "ok directory to file and file to directory"

# Undone by a failure at the commit: both come back as they were.
if [ -f "$FAULTSHIM" ]; then
	ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0
	export ASAN_OPTIONS
	rm -rf "$root"
	mkdir "$root"
	"$DEBUNPACK" -q --root "$root" "$a1"
	snapshot "$root" "$T/before"
	n=1
	while :; do
		if FAULT_RENAMEAT=$n LD_PRELOAD=$FAULTSHIM "$DEBUNPACK" -q \
		    --root "$root" "$a2" 2> "$T/err"; then
			break
		fi
		snapshot "$root" "$T/after"
		diff -u "$T/before" "$T/after" || fail "rename $n failed: root changed"
		no_temps "$root"
		n=$((n + 1))
	done
	[ $n -gt 2 ] || fail "no rename was failed"
	echo "ok undone at each of $((n - 1)) renames"
fi

# A non-empty directory is never replaced by a file.
rm -rf "$root"
mkdir "$root"
"$DEBUNPACK" -q --root "$root" "$a1"
a3=$(pkg a 3 "file ./opt/full 0644 text:file")
refused "$root" "non-empty directory replaced" \
    "'opt/full': is a directory that is not empty" "$a3"
echo "ok non-empty directory kept"

# Another package's directory, even empty, is not replaced by a file.
b1=$(pkg b 1 "dir ./opt/shared/ 0755")
c1=$(pkg c 1 "file ./opt/shared 0644 text:c")
"$DEBUNPACK" -q --root "$root" "$b1"
refused "$root" "directory of another package replaced" \
    "'opt/shared': is a directory of package 'b'" "$c1"
echo "ok directory of another package kept"

# Another package's file, or a file no package has, does not become a directory.
d1=$(pkg d 1 "file ./opt/dfile 0644 text:d")
e1=$(pkg e 1 "dir ./opt/dfile/ 0755" "file ./opt/dfile/x 0644 text:e")
"$DEBUNPACK" -q --root "$root" "$d1"
refused "$root" "file of another package replaced by a directory" \
    "'opt/dfile': is a file of package 'd'" "$e1"
echo user > "$root/opt/userfile"
u1=$(pkg u 1 "dir ./opt/userfile/ 0755")
refused "$root" "user's file replaced by a directory" \
    "'opt/userfile': exists and is not a directory" "$u1"
[ "$(cat "$root/opt/userfile")" = user ] || fail "user's file lost"
echo "ok files of others and of the user kept"

# A user's file where the old version had a directory: an upgrade that
# drops the directory keeps the file, one that has it again refuses.
p1=$(pkg p 1 "dir ./opt/ud/ 0755" "file ./opt/ud/y 0644 text:y")
p2=$(pkg p 2 "file ./opt/other 0644 text:o")
p3=$(pkg p 3 "dir ./opt/ud/ 0755" "file ./opt/ud/z 0644 text:z")
rm -rf "$root"
mkdir "$root"
"$DEBUNPACK" -q --root "$root" "$p1"
rm -r "$root/opt/ud"
echo mine > "$root/opt/ud"
refused "$root" "user's file replaced by the package's directory" \
    "'opt/ud': exists and is not a directory" "$p3"
"$DEBUNPACK" -q --root "$root" "$p2" 2> "$T/err" || fail "upgrade to p 2: $(cat "$T/err")"
[ "$(cat "$root/opt/ud")" = mine ] || fail "user's file lost by an upgrade"
no_temps "$root"
echo "ok a user's file in place of a package's directory is kept"

# A file of this run replacing an empty directory, and another entry of
# the same run inside that directory: refused, nothing changed.
f1=$(pkg f 1 "dir ./opt/e/ 0755")
f2=$(pkg f 2 "file ./opt/e 0644 text:file")
g1=$(pkg g 1 "dir ./opt/e/ 0755" "file ./opt/e/bar 0644 text:bar")
rm -rf "$root"
mkdir "$root"
"$DEBUNPACK" -q --root "$root" "$f1"
refused "$root" "a file replaced a directory that the same run fills" "" \
    "$f2" "$g1"
no_temps "$root"
echo "ok a directory the run fills is not replaced by a file"
