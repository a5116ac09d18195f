#!/bin/sh
# SPDX-License-Identifier: MIT
# The store of unpacked files (--cache) against the decoding floor: for
# each filesystem a fresh loop-mounted image holding the store and the
# roots; per run (page cache dropped before each): the all-cores decoding
# floor (dpkg-deb --fsys-tarfile > /dev/null), an install without the
# store, the first install with an empty store (it fills it), and the
# second into a fresh root (it clones or copies), durable default mode.
# With -x, also a second install from a store on another filesystem (an
# ext4 image of its own, filled untimed): copied, not decoded.  With -d,
# the disk's floor for the first install: the bytes its device line says
# it wrote, written by dd with one fsync to a fresh image of the same
# filesystem (where the store copies, it writes the data twice).  With
# -D, the loop devices read and write their image with direct I/O: no
# second page cache (the host filesystem's) between the image and the
# disk, as with a real disk, where every byte written to the image is
# otherwise copied once more in memory, by the loop device's worker.
# With -C, the copying floor of the second install: the first's root
# copied by cp -a --reflink=auto into the same filesystem (cloned where
# it can), then sync -f, with no temporaries, renames or checks.
# Prints one line per filesystem and method, the median of RUNS, the
# ratios the issue's targets name, and each run's --stats cache and
# device lines (the install without the store's too).
# usage: bench/store.sh [-r RUNS] [-w WORKLOAD] [-f "FS..."] [-c CACHE]
#                       [-b DEBUNPACK] [-t TMPDIR] [-x] [-d] [-D] [-C]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=3 workload=big fss="btrfs xfs ext4" cache=/var/cache/debunpack-bench
exe=$top/build/debunpack tmpdir=/var/tmp across="" disk="" dio=off cpfloor=""
while getopts r:w:f:c:b:t:xdDC o; do
	case $o in
	r) runs=$OPTARG ;;
	w) workload=$OPTARG ;;
	f) fss=$OPTARG ;;
	c) cache=$OPTARG ;;
	b) exe=$OPTARG ;;
	t) tmpdir=$OPTARG ;;
	x) across=1 ;;
	d) disk=1 ;;
	D) dio=on ;;
	C) cpfloor=1 ;;
	*) sed -n 's/^# usage: /usage: /p' "$0" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "bench/store.sh: needs root (loop devices, drop_caches)" >&2; exit 1; }
dir=$cache/$workload
[ -f "$dir/SHA256SUMS" ] || { echo "bench/store.sh: no $dir: sh bench/fetch.sh $workload" >&2; exit 1; }
(cd "$dir" && sha256sum --quiet -c SHA256SUMS) || exit 1
set --
while read -r _ f; do
	set -- "$@" "$dir/$f"
done < "$dir/SHA256SUMS"
work=$(mktemp -d "$tmpdir/debunpack-store-bench.XXXXXX")
mnt=$work/mnt loop="" mnt2=$work/mnt2 loop2=""
cleanup() {
	umount "$mnt" 2>/dev/null || true
	umount "$mnt2" 2>/dev/null || true
	[ -z "$loop" ] || losetup -d "$loop" 2>/dev/null || true
	[ -z "$loop2" ] || losetup -d "$loop2" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cp "$exe" "$work/debunpack"
mkdir "$mnt" "$mnt2"
# Installed size, four times over: the roots of a run and the store
# (six with -x: its two roots more).
kib=$(for p; do dpkg-deb -f "$p" Installed-Size; done | awk '{ s += $1 } END { print s }')
times=4
[ -z "$across" ] || times=6
size=$((kib * times / 1024 + 512))M

cold() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

secs() {	# CMD...: its wall time in seconds on stdout, its output in $work/out
	s0=$(date +%s.%N)
	"$@" > "$work/out" 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
	s1=$(date +%s.%N)
	echo "$s0 $s1" | awk '{ printf "%.3f\n", $2 - $1 }'
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

echo "workload $workload: $# packages, runs $runs, $(nproc) cpus, loop direct-io $dio"
for fs in $fss; do
	case $fs in
	ext4) mkfs="mkfs.ext4 -q -F" ;;
	xfs) mkfs="mkfs.xfs -q -f -m reflink=1" ;;
	btrfs) mkfs="mkfs.btrfs -q -f" ;;
	*) echo "unknown filesystem $fs" >&2; exit 2 ;;
	esac
	: > "$work/t.floor"; : > "$work/t.plain"; : > "$work/t.first"; : > "$work/t.second"
	: > "$work/t.across"; : > "$work/t.disk"; : > "$work/t.cp"
	i=0
	while [ $i -lt "$runs" ]; do
		i=$((i + 1))
		rm -f "$work/img"
		truncate -s "$size" "$work/img"
		$mkfs "$work/img" > /dev/null
		loop=$(losetup -f --show --direct-io=$dio "$work/img")
		mount "$loop" "$mnt"
		mkdir "$mnt/plain" "$mnt/first" "$mnt/second" "$mnt/fill" "$mnt/across"
		cold
		# shellcheck disable=SC2016 # expanded by the inner shell
		secs sh -c 'for p; do dpkg-deb --fsys-tarfile "$p" > /dev/null || exit; done' floor "$@" >> "$work/t.floor"
		cold
		secs "$work/debunpack" --root "$mnt/plain" --stats "$@" >> "$work/t.plain"
		echo "$fs run $i without: $(grep -E '^device:' "$work/out" | tr '\n' ' ')"
		cold
		secs "$work/debunpack" --root "$mnt/first" --cache "$mnt/store" --stats "$@" >> "$work/t.first"
		echo "$fs run $i first:  $(grep -E '^(cache|device):' "$work/out" | tr '\n' ' ')"
		wrote=$(sed -n 's/^device:.* written_bytes \([0-9]*\).*/\1/p' "$work/out")
		cold
		secs "$work/debunpack" --root "$mnt/second" --cache "$mnt/store" --stats "$@" >> "$work/t.second"
		echo "$fs run $i second: $(grep -E '^(cache|device):' "$work/out" | tr '\n' ' ')"
		if [ -n "$cpfloor" ]; then
			cold
			# shellcheck disable=SC2016 # expanded by the inner shell
			secs sh -c 'cp -a --reflink=auto "$1" "$2" && sync -f "$2"' cp \
			    "$mnt/first" "$mnt/cpfloor" >> "$work/t.cp"
		fi
		if [ -n "$across" ]; then
			rm -f "$work/img2"
			truncate -s "$size" "$work/img2"
			mkfs.ext4 -q -F "$work/img2" > /dev/null
			loop2=$(losetup -f --show --direct-io=$dio "$work/img2")
			mount "$loop2" "$mnt2"
			"$work/debunpack" --root "$mnt/fill" --cache "$mnt2/store" "$@" > /dev/null
			cold
			secs "$work/debunpack" --root "$mnt/across" --cache "$mnt2/store" --stats "$@" >> "$work/t.across"
			echo "$fs run $i across: $(grep -E '^(cache|device):' "$work/out" | tr '\n' ' ')"
			umount "$mnt2"
			losetup -d "$loop2"
			loop2=""
		fi
		umount "$mnt"
		losetup -d "$loop"
		loop=""
		if [ -n "$disk" ] && [ -n "$wrote" ]; then
			rm -f "$work/img"
			truncate -s "$size" "$work/img"
			$mkfs "$work/img" > /dev/null
			loop=$(losetup -f --show --direct-io=$dio "$work/img")
			mount "$loop" "$mnt"
			cold
			secs dd if=/dev/zero of="$mnt/disk" bs=1M count=$((wrote / 1048576)) conv=fsync >> "$work/t.disk"
			echo "$fs run $i disk:   dd wrote $((wrote / 1048576)) MiB (the first's bytes)"
			umount "$mnt"
			losetup -d "$loop"
			loop=""
		fi
	done
	f=$(median < "$work/t.floor") p=$(median < "$work/t.plain")
	a=$(median < "$work/t.first") b=$(median < "$work/t.second")
	echo "$f $p $a $b" | awk -v fs="$fs" '{
		printf "%s: floor %.2f s, without store %.2f s, first %.2f s (%.2fx without), second %.2f s (%.2fx floor, %.2fx first)\n",
		    fs, $1, $2, $3, $3 / $2, $4, $4 / $1, $4 / $3 }'
	[ ! -s "$work/t.disk" ] || echo "$p $a $(median < "$work/t.disk")" | awk -v fs="$fs" '{
		printf "%s: the disk writing the first'"'"'s bytes %.2f s (%.2fx without store; the first at %.2fx that)\n",
		    fs, $3, $3 / $1, $2 / $3 }'
	[ ! -s "$work/t.cp" ] || echo "$a $b $(median < "$work/t.cp")" | awk -v fs="$fs" '{
		printf "%s: cp -a --reflink=auto of the first'"'"'s root, then sync -f: %.2f s (%.2fx first; the second at %.2fx that)\n",
		    fs, $3, $3 / $1, $2 / $3 }'
	[ -z "$across" ] || echo "$f $p $(median < "$work/t.across")" | awk -v fs="$fs" '{
		printf "%s: second from a store on another filesystem (ext4) %.2f s (%.2fx floor, %.2fx without store)\n",
		    fs, $3, $3 / $1, $3 / $2 }'
done
