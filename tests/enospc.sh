#!/bin/sh
# SPDX-License-Identifier: MIT
# A full disk at many points of an install fails cleanly: exit 1, the cause
# named, the root exactly as before, no temporaries.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "needs root to mount a small tmpfs"
mnt=$T/mnt
mkdir "$mnt"
mount -t tmpfs -o size=4m,nr_inodes=400 debunpack-test "$mnt" || skip "cannot mount tmpfs"
cleanup_hooks="umount '$mnt' 2>/dev/null || true; $cleanup_hooks"

cat > "$T/base.desc" <<'D'
dir ./usr/ 0755
dir ./usr/share/ 0755
file ./usr/share/keep 0644 size:100000
D
base=$(build_deb base "$T/base.desc")
root=$mnt/root
mkdir "$root"
"$DEBUNPACK" -q --root "$root" "$base" || fail base
snapshot "$root" "$T/before"

# Packages that need more space, or more inodes, than there is, at
# different points: one large file, many small ones, a deep tree.
n=0
for spec in "file ./usr/share/keep 0644 size:5000000" \
    "gen 40 ./usr/share/f 0644 200000" \
    "gen 1000 ./usr/share/g 0644 10" \
    "file ./usr/share/a 0644 size:3000000
file ./usr/share/keep 0644 size:2000000"; do
	n=$((n + 1))
	printf 'dir ./usr/ 0755\ndir ./usr/share/ 0755\n%s\n' "$spec" > "$T/full$n.desc"
	deb=$(build_deb "full$n" "$T/full$n.desc")
	for mode in syncfs batched perfile none; do
		"$DEBUNPACK" --root "$root" --sync-mode $mode "$deb" 2> "$T/err" &&
		    fail "full$n ($mode): exit 0"
		grep -q 'No space left on device' "$T/err" || fail "full$n: $(cat "$T/err")"
		snapshot "$root" "$T/after"
		diff -u "$T/before" "$T/after" || fail "full$n ($mode): root changed"
		no_temps "$root"
	done
	echo "ok full$n: $(cat "$T/err")"
done
