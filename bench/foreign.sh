#!/bin/sh
# SPDX-License-Identifier: MIT
# A foreign root's unpack runs at native speed: the same package list
# (bench/workloads/minbase.list by default) of arm64 and of the host's
# amd64, each unpacked by debunpack --dpkg-db into a fresh root on one
# filesystem, alternating, median of N runs of wall and CPU time; the
# bytes each unpacks (data.tar contents, du of the root) beside them.  Fetched once into
# CACHE/foreign-ARCH with apt-get download from a private copy of the
# host's lists (the host's apt configuration is left alone).
# usage: bench/foreign.sh [-c CACHE] [-r N] [-d DIR] [-w LIST] [-b DEBUNPACK]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cache=/var/cache/debunpack-bench
runs=3
dir=/var/tmp/debunpack-bench-foreign
list=$top/bench/workloads/minbase.list
debunpack=$top/build/debunpack
while getopts c:r:d:w:b: o; do
	case $o in
	c) cache=$OPTARG ;;
	r) runs=$OPTARG ;;
	d) dir=$OPTARG ;;
	w) list=$OPTARG ;;
	b) debunpack=$OPTARG ;;
	*) echo "usage: $0 [-c CACHE] [-r N] [-d DIR] [-w LIST] [-b DEBUNPACK]" >&2
	   exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "$0: run as root (chown, dpkg's database)" >&2; exit 1; }
host=$(dpkg --print-architecture)
foreign=arm64
[ "$host" != arm64 ] || foreign=amd64

fetch() {	# ARCH: the list's packages of ARCH in $cache/foreign-ARCH
	d=$cache/foreign-$1
	[ ! -f "$d/.done" ] || return 0
	mkdir -p "$d/lists/partial" "$d/apt/archives/partial"
	a="-o APT::Architecture=$1 -o APT::Architectures::=$1
	    -o Dir::State::Lists=$d/lists
	    -o Dir::Cache=$d/apt -o APT::Sandbox::User=root"
	# shellcheck disable=SC2086
	apt-get $a update -qq
	# shellcheck disable=SC2086
	(cd "$d" && apt-get $a download -qq $(cat "$list"))
	rm -rf "$d/lists" "$d/apt"
	touch "$d/.done"
}
fetch "$host"
fetch "$foreign"

mkdir -p "$dir"
# ARCH: one unpack into a fresh root, its wall and CPU (user+sys)
# seconds appended to $dir/t.ARCH and $dir/c.ARCH.  CPU time is what a
# shared machine's load disturbs least.
once() {
	rm -rf "$dir/root"
	mkdir "$dir/root"
	sync
	/usr/bin/time -f '%e %U %S' -o "$dir/time" "$debunpack" \
	    --root "$dir/root" --dpkg-db --architecture="$1" -q \
	    "$cache/foreign-$1"/*.deb
	awk '{ print $1 }' "$dir/time" >> "$dir/t.$1"
	awk '{ printf "%.2f\n", $2 + $3 }' "$dir/time" >> "$dir/c.$1"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: > "$dir/t.$host"
: > "$dir/t.$foreign"
: > "$dir/c.$host"
: > "$dir/c.$foreign"
i=0
while [ $i -lt "$runs" ]; do
	once "$host"
	once "$foreign"
	i=$((i + 1))
done
printf '%-8s %5s %12s %12s %8s %8s %s\n' arch debs data-bytes root-bytes \
    wall cpu "wall runs"
for a in "$host" "$foreign"; do
	n=$(ls "$cache/foreign-$a"/*.deb | wc -l)
	bytes=$(for f in "$cache/foreign-$a"/*.deb; do
		dpkg-deb --fsys-tarfile "$f" | wc -c; done |
		awk '{ s += $1 } END { print s }')
	rm -rf "$dir/root"
	mkdir "$dir/root"
	"$debunpack" --root "$dir/root" --dpkg-db --architecture="$a" -q \
	    "$cache/foreign-$a"/*.deb
	rb=$(du -sb "$dir/root" | cut -f1)
	echo "$bytes" > "$dir/b.$a"
	printf '%-8s %5s %12s %12s %8s %8s %s\n' "$a" "$n" "$bytes" "$rb" \
	    "$(median < "$dir/t.$a")" "$(median < "$dir/c.$a")" \
	    "$(tr '\n' ' ' < "$dir/t.$a")"
done
# The two lists differ in size (arm64's binaries are larger): the time
# per byte unpacked is what compares.
awk -v h="$(median < "$dir/t.$host")" -v f="$(median < "$dir/t.$foreign")" \
    -v hb="$(cat "$dir/b.$host")" -v fb="$(cat "$dir/b.$foreign")" \
    -v hc="$(median < "$dir/c.$host")" -v fc="$(median < "$dir/c.$foreign")" \
    -v fa="$foreign" -v ha="$host" 'BEGIN {
	printf "wall %s/%s: %.2f, per byte unpacked: %.2f\n", fa, ha,
	    f / h, (f / fb) / (h / hb)
	printf "cpu  %s/%s: %.2f, per byte unpacked: %.2f\n", fa, ha,
	    fc / hc, (fc / fb) / (hc / hb) }'
rm -rf "$dir/root"
