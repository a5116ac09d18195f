#!/bin/sh
# SPDX-License-Identifier: MIT
# Device cache flushes and --stats of each sync mode for one generated package
# on fresh loop-mounted filesystems (ext4, xfs, btrfs), side by side.
# usage: [MODES="syncfs batched ..."] bench/flushes.sh [-n FILES] [-s BYTES] [-r RUNS] [FS...]   (as root)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
files=5000 size=16384 runs=1
while getopts n:s:r: o; do
	case $o in
	n) files=$OPTARG ;;
	s) size=$OPTARG ;;
	r) runs=$OPTARG ;;
	*) echo "usage: $0 [-n FILES] [-s BYTES] [-r RUNS] [FS...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- ext4 xfs btrfs
[ "$(id -u)" = 0 ] || { echo "$0: needs root for loop devices" >&2; exit 1; }
sh "$top/tests/setup.sh"
bin=$top/build/debunpack

work=$(mktemp -d "${TMPDIR:-/var/tmp}/debunpack-bench.XXXXXX")
mnt=$work/mnt loop=""
cleanup() {
	umount "$mnt" 2>/dev/null || true
	[ -z "$loop" ] || losetup -d "$loop" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
mkdir "$mnt"

printf 'compress data zst\ndir ./ 0755\ndir ./usr/ 0755\ndir ./usr/share/ 0755\n' > "$work/pkg.desc"
d=0
while [ $((d * 500)) -lt "$files" ]; do
	n=$((files - d * 500)); [ $n -le 500 ] || n=500
	printf 'dir ./usr/share/d%d/ 0755\ngen %d ./usr/share/d%d/f 0644 %d\n' $d $n $d "$size" >> "$work/pkg.desc"
	d=$((d + 1))
done
"$top/build/tests/mkdeb" "$work/pkg.desc" "$work/pkg.deb"
echo "package: $files files of $size bytes in $d directories"

# jbd2_commits DEV: ext4 journal commits so far, empty for other filesystems.
jbd2_commits() {
	f=$(ls /proc/fs/jbd2/"$1"-*/info 2>/dev/null | head -n 1)
	[ -z "$f" ] || awk 'NR == 1 { print $1 }' "$f"
}

for fs in "$@"; do
	case $fs in
	ext4) mkfs="mkfs.ext4 -q -F -b 4096" ;;
	xfs) mkfs="mkfs.xfs -q -f" ;;
	btrfs) mkfs="mkfs.btrfs -q -f" ;;
	*) echo "unknown filesystem $fs" >&2; exit 2 ;;
	esac
	truncate -s 0 "$work/img"
	truncate -s 2G "$work/img"
	$mkfs "$work/img" > /dev/null
	loop=$(losetup -f --show "$work/img")
	mount "$loop" "$mnt"
	dev=${loop#/dev/}
	r=1
	while [ $r -le "$runs" ]; do
		# Interleaved, so that drift in the machine hits every mode alike.
		for mode in ${MODES:-syncfs batched perfile none}; do
			rm -rf "$mnt/root"; mkdir "$mnt/root"
			sync; echo 3 > /proc/sys/vm/drop_caches
			before=$(awk '{ print $16 }' "/sys/block/$dev/stat")
			jbefore=$(jbd2_commits "$dev")
			t0=$(date +%s.%N)
			"$bin" --root "$mnt/root" --sync-mode $mode --stats=json "$work/pkg.deb" > "$work/stats"
			t1=$(date +%s.%N)
			after=$(awk '{ print $16 }' "/sys/block/$dev/stat")
			jafter=$(jbd2_commits "$dev")
			printf '%-6s run %d %-8s wall %6.3fs flushes %6d jbd2 %5s  %s\n' "$fs" "$r" "$mode" \
			    "$(awk "BEGIN { print $t1 - $t0 }")" $((after - before)) \
			    "$([ -n "$jbefore" ] && echo $((jafter - jbefore)) || echo -)" "$(cat "$work/stats")"
		done
		r=$((r + 1))
	done
	umount "$mnt"
	losetup -d "$loop"
	loop=""
done
