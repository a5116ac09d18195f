#!/bin/sh
# SPDX-License-Identifier: MIT
# Real filesystems on loop devices (ext4, xfs, btrfs): every mode gives the
# tree dpkg-deb -x gives, and the device cache flushes, counted by the block
# layer, show the batch at work: batched needs far fewer than perfile.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "needs root for loop devices"
command -v losetup >/dev/null || skip "losetup missing"
[ -e /dev/loop-control ] || modprobe loop 2>/dev/null || true

cat > "$T/pkg.desc" <<'D'
compress data gz 1
dir ./ 0755
dir ./usr/ 0755
dir ./usr/share/ 0755
dir ./usr/share/a/ 0755
dir ./usr/share/b/ 02755
gen 300 ./usr/share/a/f 0644 4000
gen 200 ./usr/share/b/g 0640 20000
symlink ./usr/share/link a/f00001
hardlink ./usr/share/b/hard ./usr/share/a/f00002
D
deb=$(build_deb pkg "$T/pkg.desc")
mkdir "$T/ref"
dpkg-deb -x "$deb" "$T/ref"

# flushes DEV: flush requests completed by the device so far (field 16).
flushes() {
	awk '{ print $16 }' "/sys/block/$1/stat"
}

tested=0
for fs in ext4 xfs btrfs; do
	case $fs in
	ext4) mkfs="mkfs.ext4 -q -F -b 4096" ;;
	xfs) mkfs="mkfs.xfs -q -f" ;;
	btrfs) mkfs="mkfs.btrfs -q -f" ;;
	esac
	command -v "mkfs.$fs" >/dev/null || { echo "mkfs.$fs missing: $fs not tested"; continue; }
	img=$T/$fs.img
	truncate -s 400M "$img"
	$mkfs "$img" >/dev/null 2>&1 || { echo "mkfs.$fs failed: $fs not tested"; continue; }
	loop_attach "$img" || skip "no loop device"
	dev=${loop#/dev/}
	mnt=$T/mnt-$fs
	mkdir "$mnt"
	cleanup_hooks="umount '$mnt' 2>/dev/null; $cleanup_hooks"
	mount "$loop" "$mnt" || fail "mount $fs"
	[ -f "/sys/block/$dev/stat" ] || fail "no stat for $dev"
	line="$fs flushes:"
	for mode in syncfs batched perfile none; do
		root=$mnt/$mode
		mkdir "$root"
		sync
		before=$(flushes "$dev")
		"$DEBUNPACK" -q --root "$root" --sync-mode $mode "$deb" || fail "$fs $mode"
		after=$(flushes "$dev")
		eval "f_$mode=$((after - before))"
		line="$line $mode $((after - before))"
		dpkg_same "$deb" "$T/ref" "$root"
		no_temps "$root"
	done
	echo "$line"
	# --stats names the disk and counts its flushes within the run: at
	# least the barrier's, at most what the block layer saw around it.
	mkdir "$mnt/stats"
	sync
	before=$(flushes "$dev")
	"$DEBUNPACK" -q --root "$mnt/stats" --sync-mode syncfs --stats=json \
	    "$deb" > "$T/stats.json" || fail "$fs --stats"
	after=$(flushes "$dev")
	python3 - "$T/stats.json" "$dev" $((after - before)) <<'P' || fail "$fs: --stats device: $(cat "$T/stats.json")"
import json, sys
d = json.load(open(sys.argv[1]))["device"]
assert d["name"] == sys.argv[2], d
assert d["scope"] == "device-wide", d
assert 1 <= d["flushes"] <= int(sys.argv[3]), d
assert d["written_bytes"] >= 300 * 4000, d
P
	"$DEBUNPACK" -q --root "$mnt/stats" --sync-mode none --stats "$deb" |
	    grep -q "^device:     $dev (device-wide) flushes [0-9]" ||
	    fail "$fs: --stats text has no device line"
	# 501 files: perfile flushes at least once per file; batched a small
	# multiple of the number of directories on ext4/xfs, one per file on
	# btrfs (its log tree), so only the ordering is checked here.
	[ "$f_perfile" -ge 501 ] || fail "$fs: perfile made $f_perfile flushes"
	[ "$f_batched" -lt "$f_perfile" ] || fail "$fs: batched $f_batched >= perfile $f_perfile"
	# none syncs nothing itself; the filesystem's own periodic commits
	# (btrfs every 30 s, slower under sanitizers) still flush now and then.
	[ "$f_none" -lt $((f_perfile / 10)) ] || fail "$fs: none made $f_none flushes"
	# Busy for a moment after the last run (a scan of the new mount):
	# tried again before it counts.
	for i in 1 2 3 4 5; do
		umount "$mnt" 2> /dev/null && break
		sleep 1
	done
	! mountpoint -q "$mnt" || fail "cannot unmount $mnt"
	loop_detach "$loop"
	tested=$((tested + 1))
done
[ $tested -gt 0 ] || skip "no filesystem could be made"
echo ok
