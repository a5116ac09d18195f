#!/bin/sh
# SPDX-License-Identifier: MIT
# Wall time, device cache flushes, journal commits, bytes written and peak
# RSS of debunpack's sync modes against dpkg, dpkg-deb -x, eatmydata dpkg and
# the decompression floor (threaded and one thread), on fresh loop-mounted
# filesystems.
# usage: bench/run.sh [-r RUNS] [-w WORKLOADS] [-m METHODS] [-x METHODS]
#                     [-f FILESYSTEMS] [-o OUTDIR] [-b DEBUNPACK] [-B BASELINE]
#                     [-c CACHE] [-t TMPDIR]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=3 workloads="minbase mixed" filesystems="ext4 xfs btrfs"
methods="" exclude="" outdir=$top/bench/results/latest bin="" base=""
cache=/var/cache/debunpack-bench tmpdir=/var/tmp
args=$*
# Every method name, in the order runs interleave and reports list them.
# Jobs: one, two (one per core of the 2-core machine the targets are set
# for) and one per online CPU of this machine.
sync_modes="auto syncfs batched perfile none"
ncpu=$(nproc)
jobs_list="1 2"
case " $jobs_list " in *" $ncpu "*) ;; *) jobs_list="$jobs_list $ncpu" ;; esac
all_methods="floor floor-1 dpkg-deb-x dpkg eatmydata-dpkg"
for mode in $sync_modes; do
	for j in $jobs_list; do
		all_methods="$all_methods debunpack-$mode-j$j"
	done
done
usage() {
	cat >&2 <<EOF
usage: $0 [-r RUNS] [-w WORKLOADS] [-m METHODS] [-x METHODS]
          [-f FILESYSTEMS] [-o OUTDIR] [-b DEBUNPACK] [-B BASELINE]
          [-c CACHE] [-t TMPDIR]
  -r  runs of each method (default 3), interleaved
  -w  workloads (default "minbase mixed"): bench/workloads/NAME.list,
      synth-Nk (N thousand 4 KiB files), synth-Ng (one N GiB file)
  -m  methods to run, names or globs, blank- or comma-separated
      (default all; "floor debunpack-*" for synthetic workloads)
  -x  methods to leave out, e.g. 'debunpack-perfile-*'
  -f  filesystems (default "ext4 xfs btrfs"); ovl-ext4, ovl-xfs and
      ovl-btrfs put the root in an overlay whose upper layer is there
  -o  results directory (default bench/results/latest); a copy is kept
      beside it, named after the start time
  -b  debunpack binary (default build/debunpack, copied before use)
  -B  another debunpack binary (an older build, say) to compare with:
      each debunpack-* method gets a base-debunpack-* twin run by it,
      interleaved with it, so that the two are measured side by side
  -c  package cache (default /var/cache/debunpack-bench)
  -t  where the filesystem images go (default /var/tmp; not tmpfs)
methods: floor floor-1 dpkg-deb-x dpkg eatmydata-dpkg debunpack-MODE-jJOBS
  (MODE: $sync_modes; JOBS: $jobs_list)
EOF
	exit 2
}
while getopts r:w:m:x:f:o:b:B:c:t: o; do
	case $o in
	r) runs=$OPTARG ;;
	w) workloads=$(echo "$OPTARG" | tr ',' ' ') ;;
	m) methods=$(echo "$OPTARG" | tr ',' ' ') ;;
	x) exclude=$(echo "$OPTARG" | tr ',' ' ') ;;
	f) filesystems=$(echo "$OPTARG" | tr ',' ' ') ;;
	o) outdir=$OPTARG ;;
	b) bin=$OPTARG ;;
	B) base=$OPTARG ;;
	c) cache=$OPTARG ;;
	t) tmpdir=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
if [ -n "$base" ]; then
	twins=""
	for m in $all_methods; do
		twins="$twins $m"
		case $m in debunpack-*) twins="$twins base-$m" ;; esac
	done
	all_methods=$twins
fi
case $runs in '' | *[!0-9]* | 0) usage ;; esac
for fs in $filesystems; do
	case $fs in
	ext4 | xfs | btrfs | ovl-ext4 | ovl-xfs | ovl-btrfs) ;;
	*) echo "$0: unknown filesystem $fs" >&2; exit 2 ;;
	esac
done
for w in $workloads; do
	case $w in
	synth-[1-9]*[kg]) ;;
	*) [ -f "$top/bench/workloads/$w.list" ] ||
	    { echo "$0: unknown workload $w (no bench/workloads/$w.list)" >&2; exit 2; } ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "$0: needs root (loop devices, mount, drop_caches)" >&2; exit 1; }
# OUTDIR is replaced at the end: only ever a previous results directory.
if [ -e "$outdir" ] && [ ! -f "$outdir/runs.csv" ] && [ -n "$(ls -A "$outdir")" ]; then
	echo "$0: $outdir exists and holds no runs.csv: not replacing it" >&2
	exit 2
fi

# select_methods PATTERNS: the methods of all_methods matching PATTERNS and
# no -x pattern; a pattern that matches nothing is a typo, not a no-op.
select_methods() {
	# The patterns are split on blanks but must not match file names.
	set -f
	for p in $1 $exclude; do
		hit=""
		for m in $all_methods; do
			# shellcheck disable=SC2254 # the pattern is meant to glob
			case $m in $p) hit=1 ;; esac
		done
		[ -n "$hit" ] || { echo "$0: no method matches '$p'" >&2; exit 2; }
	done
	# A base- twin (-B) goes with the method it twins.
	for m in $all_methods; do
		keep=""
		for p in $1; do
			# shellcheck disable=SC2254
			case ${m#base-} in $p) keep=1 ;; esac
		done
		for p in $exclude; do
			# shellcheck disable=SC2254
			case ${m#base-} in $p) keep="" ;; esac
		done
		[ -z "$keep" ] || printf '%s ' "$m"
	done
	set +f
}
# workload_methods W: the methods selected for workload W.
workload_methods() {
	case $1 in
	synth-*) select_methods "${methods:-floor debunpack-*}" ;;
	*) select_methods "${methods:-*}" ;;
	esac
}
selected=""
for w in $workloads; do
	selected="$selected $(workload_methods "$w")"
done

need=""
for t in eatmydata:eatmydata gnuplot:gnuplot-nox /usr/bin/time:time \
    mkfs.xfs:xfsprogs mkfs.btrfs:btrfs-progs mkfs.ext4:e2fsprogs ar:binutils \
    xz:xz-utils zstd:zstd losetup:mount; do
	command -v "${t%%:*}" > /dev/null || need="$need ${t#*:}"
done
if [ -n "$need" ]; then
	echo "run: installing$need"
	# shellcheck disable=SC2086 # one word per package
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need > /dev/null
fi

work=$(mktemp -d "$tmpdir/debunpack-bench.XXXXXX")
mnt=$work/mnt res="" finished=""
cleanup() {
	if [ -z "$finished" ] && [ -s "$res/runs.csv" ]; then
		echo "run: stopped; the runs so far are in $res/runs.csv (bench/report.sh summarizes them)" >&2
	fi
	if mountpoint -q "$work/ovl"; then
		umount "$work/ovl" || umount -l "$work/ovl" || true
	fi
	if mountpoint -q "$mnt"; then
		umount "$mnt" || umount -l "$mnt" || true
	fi
	mountpoint -q "$mnt" || mountpoint -q "$work/ovl" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$mnt"
# On tmpfs, the images would live in RAM and every flush would be free.
if [ "$(stat -f -c %T "$work")" = tmpfs ]; then
	echo "$0: $tmpdir is tmpfs: give a disk-backed directory with -t" >&2
	exit 1
fi

# The binary under test is copied once: the build directory may be rebuilt
# while the benchmark runs.
if [ -z "$bin" ]; then
	bin=$top/build/debunpack
	[ -x "$bin" ] || sh "$top/tests/setup.sh"
fi
cp "$bin" "$work/debunpack"
"$work/debunpack" --version > /dev/null
if [ -n "$base" ]; then
	cp "$base" "$work/debunpack-base"
	"$work/debunpack-base" --version > /dev/null
fi
mkdeb=$top/build/tests/mkdeb
if [ -x "$mkdeb" ]; then
	cp "$mkdeb" "$work/mkdeb"
	mkdeb=$work/mkdeb
fi

# Methods this binary cannot run are skipped: the sync modes are read from
# the --sync-mode part of --help (usage line and option text), --jobs from
# its presence.
help=$("$work/debunpack" --help 2>&1 || true)
help_modes=$(printf '%s\n' "$help" | awk '
	/--sync-mode/ { s = $0; sub(/.*--sync-mode/, "", s); sub(/\].*/, "", s)
		print s; p = 1; next }
	p && /^[ \t]+[^ \t-]/ && !/^[ \t]+debunpack/ { print; next }
	{ p = 0 }' | tr '|,()' '    ')
has_jobs=""
printf '%s\n' "$help" | grep -q -- '--jobs' && has_jobs=1
# floor-1 needs dpkg-deb's --threads-max (dpkg 1.21.9).
has_threads_max=""
dpkg-deb --help 2>&1 | grep -q -- '--threads-max' && has_threads_max=1
# supported METHOD: true if this binary (or dpkg-deb) can run METHOD; says
# why not.
supported() {
	case $1 in
	floor-1)
		[ -n "$has_threads_max" ] && return 0
		echo "run: skipping $1: no --threads-max in dpkg-deb --help"
		return 1 ;;
	debunpack-* | base-debunpack-*) ;;
	*) return 0 ;;
	esac
	mj=${1#base-}
	mj=${mj#debunpack-}
	mode=${mj%-j*}
	if ! printf '%s\n' "$help_modes" | grep -qw -- "$mode"; then
		echo "run: skipping $1: no sync mode $mode in --help"
		return 1
	fi
	if [ -z "$has_jobs" ] && [ "${mj##*-j}" != 1 ]; then
		echo "run: skipping $1: no --jobs in --help"
		return 1
	fi
	return 0
}
unsupported=""
for m in $all_methods; do
	case " $selected " in *" $m "*) ;; *) continue ;; esac
	supported "$m" || unsupported="$unsupported $m"
done

stamp=$(date +%Y%m%d-%H%M%S)
res=$(dirname "$outdir")/$stamp
mkdir -p "$(dirname "$outdir")"
mkdir "$res" "$res/logs"
csv=$res/runs.csv
echo "workload,fs,method,run,wall_s,flushes,jbd2_commits,bytes_written,peak_rss_kib,exit,paths,stats_json" > "$csv"
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "command: $0 $args"
	echo "checkout: $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "debunpack: $bin: $("$work/debunpack" --version | head -n 1)"
	[ -z "$base" ] ||
	    echo "baseline (base-debunpack-*): $base: $("$work/debunpack-base" --version | head -n 1)"
	echo "dpkg: $(dpkg-query -W -f '${Version}' dpkg)"
	echo "kernel: $(uname -r)"
	echo "cpu: $(nproc) x $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "memory: $(awk '/^MemTotal/ { print $2, $3 }' /proc/meminfo)"
	echo "mkfs: $(mkfs.ext4 -V 2>&1 | head -n 1); $(mkfs.xfs -V); $(mkfs.btrfs -V | head -n 1)"
} > "$res/env.txt"

# shellcheck disable=SC2086 # workload names have no blanks
sh "$top/bench/fetch.sh" -c "$cache" -k "$mkdeb" $workloads

# jbd2_commits DEV: ext4 journal commits so far, empty for other filesystems.
jbd2_commits() {
	for f in /proc/fs/jbd2/"$1"-*/info; do
		[ -e "$f" ] && awk 'NR == 1 { print $1 }' "$f"
		return 0
	done
}

# One dpkg invocation for the whole workload into an empty root:
# --force-depends: nothing is installed, so the Pre-Depends of about a
# quarter of minbase fail, and dpkg stops unpacking those packages;
# --log=/dev/null: dpkg's log is not under --root, every run would append
# to the host's /var/log/dpkg.log;
# --refuse-unsafe-io: this machine turns on force-unsafe-io in
# /etc/dpkg/dpkg.cfg.d, which skips dpkg's fsyncs;
# --force-not-root, --force-architecture: not needed as root with amd64
# and all packages, kept so that other hosts measure the same command.
dpkg_flags="--force-not-root --force-depends --force-architecture --log=/dev/null --refuse-unsafe-io"

timed() {
	/usr/bin/time -f %M -o "$work/rss" "$@"
}

# run_method METHOD ROOT DIR: runs METHOD on the workload in DIR (manifest
# order) under GNU time, whose %M is the peak RSS of the largest single
# process of the tree (dpkg-deb and its decompressor, dpkg and its
# dpkg-deb children), not their sum.
run_method() {
	rm_m=$1 rm_root=$2 rm_dir=$3
	set --
	case $rm_m in
	dpkg | eatmydata-dpkg) debs=$rm_dir/nopreinst ;;
	*) debs=$rm_dir ;;
	esac
	while read -r _ f; do
		set -- "$@" "$debs/$f"
	done < "$rm_dir/SHA256SUMS"
	case $rm_m in
	floor)
		# dpkg-deb decodes xz with one thread per online CPU (liblzma's
		# threaded decoder, dpkg 1.21.13 with liblzma 5.4): blocks of a
		# multi-block data.tar.xz are decoded in parallel.
		# shellcheck disable=SC2016 # expanded by the inner shell
		timed sh -c 'for p; do dpkg-deb --fsys-tarfile "$p" > /dev/null || exit; done' floor "$@" ;;
	floor-1)
		# shellcheck disable=SC2016
		timed sh -c 'for p; do dpkg-deb --threads-max=1 --fsys-tarfile "$p" > /dev/null || exit; done' floor-1 "$@" ;;
	dpkg-deb-x)
		# shellcheck disable=SC2016
		timed sh -c 'r=$1; shift; for p; do dpkg-deb -x "$p" "$r" || exit; done; sync -f "$r"' dpkg-deb-x "$rm_root" "$@" ;;
	dpkg)
		# shellcheck disable=SC2086 # several flags
		timed dpkg $dpkg_flags --root="$rm_root" --unpack "$@" ;;
	eatmydata-dpkg)
		# shellcheck disable=SC2086
		timed eatmydata dpkg $dpkg_flags --root="$rm_root" --unpack "$@" ;;
	debunpack-* | base-debunpack-*)
		exe=$work/debunpack
		case $rm_m in base-*) exe=$work/debunpack-base ;; esac
		mj=${rm_m#base-}
		mj=${mj#debunpack-}
		jobs=""
		[ -z "$has_jobs" ] || jobs="--jobs ${mj##*-j}"
		# shellcheck disable=SC2086 # empty or two words
		timed "$exe" --root "$rm_root" --sync-mode "${mj%-j*}" $jobs --stats=json "$@" ;;
	esac
}

# size_mib DIR: an image size for the workload: three times its installed
# size (files and metadata, the filesystem's own, a margin for btrfs's
# duplicated metadata) plus 2 GiB. Images are sparse.
size_mib() {
	kib=0
	while read -r _ f; do
		s=$(dpkg-deb -f "$1/$f" Installed-Size)
		kib=$((kib + ${s:-0}))
	done < "$1/SHA256SUMS"
	echo $((kib * 3 / 1024 + 2048))
}

failed=0
for w in $workloads; do
	todo=""
	for m in $(workload_methods "$w"); do
		case " $unsupported " in *" $m "*) ;; *) todo="$todo $m" ;; esac
	done
	[ -n "$todo" ] || { echo "run: $w: no method to run"; continue; }
	size=$(size_mib "$cache/$w")
	for fs in $filesystems; do
		case $fs in
		ext4 | ovl-ext4) mkfs="mkfs.ext4 -q -F" ;;
		xfs | ovl-xfs) mkfs="mkfs.xfs -q -f" ;;
		btrfs | ovl-btrfs) mkfs="mkfs.btrfs -q -f" ;;
		esac
		echo "run: $w on $fs ($size MiB image):$todo"
		truncate -s 0 "$work/img"
		truncate -s "${size}M" "$work/img"
		$mkfs "$work/img" > /dev/null
		# mount sets the loop device up with autoclear: the unmount
		# detaches it, and nothing here detaches a loop device by name
		# (another program's may have taken the number since).
		mount -o loop "$work/img" "$mnt"
		loop=$(findmnt -n -o SOURCE "$mnt")
		dev=${loop#/dev/}
		[ "$(wc -w < "/sys/block/$dev/stat")" -ge 16 ] ||
		    { echo "$0: no flush counts in /sys/block/$dev/stat (kernel < 5.5)" >&2; exit 1; }
		r=1
		while [ $r -le "$runs" ]; do
			# Interleaved, so that drift in the machine hits every method alike.
			for m in $todo; do
				root=$mnt/root
				rm -rf "$root" "$mnt/work"
				mkdir "$root"
				case $fs in
				ovl-*)
					# A container's root: an overlay whose
					# upper layer is the root on the image.
					mkdir -p "$mnt/work" "$work/lower" "$work/ovl"
					mount -t overlay overlay -o \
					    "lowerdir=$work/lower,upperdir=$root,workdir=$mnt/work" \
					    "$work/ovl"
					root=$work/ovl
					;;
				esac
				case $m in
				dpkg | eatmydata-dpkg)
					mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
					: > "$root/var/lib/dpkg/status"
					: > "$root/var/lib/dpkg/available"
					;;
				esac
				# Cold caches, and nothing left to write back from the
				# previous run (or the rm) inside this one's counts.
				sync
				echo 3 > /proc/sys/vm/drop_caches
				read -r wr0 fl0 <<-EOF
				$(awk '{ print $7, $16 }' "/sys/block/$dev/stat")
				EOF
				jb0=$(jbd2_commits "$dev")
				t0=$(date +%s.%N)
				if run_method "$m" "$root" "$cache/$w" > "$work/out" 2> "$work/err"; then
					rc=0
				else
					rc=$?
				fi
				t1=$(date +%s.%N)
				read -r wr1 fl1 <<-EOF
				$(awk '{ print $7, $16 }' "/sys/block/$dev/stat")
				EOF
				jb1=$(jbd2_commits "$dev")
				wall=$(awk "BEGIN { printf \"%.6f\", $t1 - $t0 }")
				jbd2=""
				[ -z "$jb0" ] || jbd2=$((jb1 - jb0))
				bytes=$(((wr1 - wr0) * 512))
				rss=$(tail -n 1 "$work/rss" 2>/dev/null || true)
				case $rss in '' | *[!0-9]*) rss="" ;; esac
				paths=$(find "$root" -mindepth 1 | wc -l)
				[ "$root" = "$mnt/root" ] || umount "$root"
				stats=$(grep '^{' "$work/out" | tail -n 1 | sed 's/"/""/g' || true)
				[ -z "$stats" ] || stats="\"$stats\""
				echo "$w,$fs,$m,$r,$wall,$((fl1 - fl0)),$jbd2,$bytes,$rss,$rc,$paths,$stats" >> "$csv"
				printf '%-8s %-5s run %d %-22s %8.3f s %7d fl %6s jbd2 %6d MiB %7s KiB %6d paths  exit %d\n' \
				    "$w" "$fs" "$r" "$m" "$wall" $((fl1 - fl0)) "${jbd2:--}" \
				    $((bytes / 1048576)) "${rss:--}" "$paths" "$rc"
				if [ "$rc" != 0 ]; then
					failed=$((failed + 1))
					log=$res/logs/$w.$fs.$m.$r.log
					{ echo "exit $rc"; echo "== stdout"; cat "$work/out"; echo "== stderr"; cat "$work/err"; } > "$log"
					echo "run: $m failed (exit $rc), last lines of stderr (all in $log):" >&2
					tail -n 5 "$work/err" >&2
				fi
			done
			r=$((r + 1))
		done
		rm -rf "$mnt/root" "$mnt/work"
		umount "$mnt"
		rm -f "$work/img"
	done
done

rmdir "$res/logs" 2>/dev/null || true
sh "$top/bench/report.sh" "$csv" "$res"
rm -rf "$outdir"
cp -R "$res" "$outdir"
finished=1
echo "run: results in $outdir (and $res)"
[ "$failed" = 0 ] || { echo "run: $failed runs failed, see runs.csv and logs/" >&2; exit 1; }
