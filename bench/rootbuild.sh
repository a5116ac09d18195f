#!/bin/sh
# SPDX-License-Identifier: MIT
# Wall time and device cache flushes of building a working minbase root from
# the same 88 local .debs with debunpack (--dpkg-db --run-preinst, then
# dpkg --configure -a in the root) and with mmdebstrap (--variant=minbase
# from a local file: mirror), durable and unsafe, each run on a fresh
# loop-mounted filesystem, the tools alternating.
# usage: bench/rootbuild.sh [-r RUNS] [-f FILESYSTEMS] [-m METHODS] [-c CACHE]
#                           [-b DEBUNPACK] [-t TMPDIR] [-o OUTFILE]
#                           [-w minbase|buildd] [-a ARCH]
#        bench/rootbuild.sh --compare [rootdiff.sh options]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --compare ]; then
	shift
	exec sh "$top/bench/rootdiff.sh" "$@"
fi
. "$top/bench/rootlib.sh"
runs=3 filesystems="ext4 xfs btrfs" bin="" cache=/var/cache/debunpack-bench
workload=minbase arch=""
tmpdir=/var/tmp outfile="" args=$*
all_methods="debunpack-durable mmdebstrap-durable debunpack-unsafe mmdebstrap-unsafe
    bootstrap-durable mmdebstrap-eatmydata bootstrap-store"
methods="debunpack-durable mmdebstrap-durable debunpack-unsafe mmdebstrap-unsafe"
usage() {
	cat >&2 <<EOF
usage: $0 [-r RUNS] [-f FILESYSTEMS] [-m METHODS] [-c CACHE]
          [-b DEBUNPACK] [-t TMPDIR] [-o OUTFILE] [-w minbase|buildd]
          [-a ARCH]
       $0 --compare [bench/rootdiff.sh options]
  -r  runs of each method (default 3); the order of the tools is
      reversed every other run
  -f  filesystems (default "ext4 xfs btrfs")
  -m  methods (default "$methods"; also
      bootstrap-durable, mmdebstrap-eatmydata and bootstrap-store, the
      bootstrap with a warm store on the root's file system)
  -c  package cache (default /var/cache/debunpack-bench; the workload is
      CACHE/minbase, filled by bench/fetch.sh)
  -b  debunpack binary (default build/debunpack, copied before use)
  -t  where images and the mirror go (default /var/tmp; not tmpfs)
  -o  results file (default bench/results/rootbuild-DATE.txt)
  -w  the root: minbase (default) or buildd, each the variant of that name
      built from the packages of bench/workloads/WORKLOAD.list
  -a  a root of architecture ARCH (another than the host's: arm64, i386...):
      the list's ARCH packages (bench/fetch.sh -a, CACHE/WORKLOAD-ARCH),
      --architectures=ARCH for mmdebstrap and debunpack-bootstrap, the
      maintainer scripts under qemu-user (binfmt_misc)
EOF
	exit 2
}
while getopts r:f:m:c:b:t:o:w:a: o; do
	case $o in
	r) runs=$OPTARG ;;
	f) filesystems=$(echo "$OPTARG" | tr ',' ' ') ;;
	m) methods=$(echo "$OPTARG" | tr ',' ' ') ;;
	c) cache=$OPTARG ;;
	b) bin=$OPTARG ;;
	t) tmpdir=$OPTARG ;;
	o) outfile=$OPTARG ;;
	w) workload=$OPTARG ;;
	a) arch=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $runs in '' | *[!0-9]* | 0) usage ;; esac
case $workload in minbase | buildd) ;; *) usage ;; esac
RB_VARIANT=$workload RB_ARCH=$arch
export RB_VARIANT RB_ARCH
for m in $methods; do
	case " $all_methods " in *" $m "*) ;; *) echo "$0: unknown method $m" >&2; usage ;; esac
done
for fs in $filesystems; do
	case $fs in ext4 | xfs | btrfs) ;; *) echo "$0: unknown filesystem $fs" >&2; exit 2 ;; esac
done
[ "$(id -u)" = 0 ] || { echo "$0: needs root (loop devices, mount, chroot, drop_caches)" >&2; exit 1; }
rb_need

stamp=$(date +%Y%m%d-%H%M%S)
[ -n "$outfile" ] || outfile=$top/bench/results/rootbuild-$stamp.txt
work=$(mktemp -d "$tmpdir/debunpack-rootbuild.XXXXXX")
mnt=/mnt/bench-root-$$ rb_loop=""
cleanup() {
	rb_work_down "$work" "$mnt"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ "$(stat -f -c %T "$work")" = tmpfs ]; then
	echo "$0: $tmpdir is tmpfs: give a disk-backed directory with -t" >&2
	exit 1
fi

[ -n "$bin" ] || bin=$top/build/debunpack
cp "$bin" "$work/debunpack"
# debunpack-bootstrap and its helper, from the same build.
RB_BOOTSTRAP=$(dirname "$bin")/debunpack-bootstrap
RB_NOSYNC=$(dirname "$bin")/debunpack-nosync
export RB_BOOTSTRAP RB_NOSYNC
if ! rb_can_debunpack "$work/debunpack"; then
	echo "rootbuild: $bin has no --dpkg-db/--run-preinst: skipping the debunpack methods"
	m2=""
	for m in $methods; do
		case $m in debunpack-*) ;; *) m2="$m2 $m" ;; esac
	done
	methods=$m2
fi
[ -n "$methods" ] || { echo "$0: no method to run" >&2; exit 1; }

sh "$top/bench/fetch.sh" -c "$cache" ${arch:+-a "$arch"} "$workload"
dir=$cache/$workload${arch:+-$arch}
# mmdebstrap's eatmydata hook takes eatmydata from the mirror: it is
# there for every method, and none of the variants selects it.
extra=""
case " $methods " in
*" mmdebstrap-eatmydata "*)
	extra=$work/extra
	mkdir "$extra"
	(cd "$extra" && apt-get download -q -o APT::Sandbox::User=root \
	    eatmydata libeatmydata1 > /dev/null) ||
	    { echo "$0: cannot download eatmydata for mmdebstrap's hook" >&2; exit 1; } ;;
esac
rb_mirror "$dir" "$work/mirror" $extra
rb_want "$dir" > "$work/want"
npkgs=$(wc -l < "$work/want")

csv=$work/runs.csv
echo "fs,method,run,wall_s,sync_s,step1_s,step1_flushes,flushes,flushes_umount,written_mib,exit,pkgs_ok,paths,configure_s" > "$csv"
mkdir "$work/logs"
failed=0
r=1
while [ $r -le "$runs" ]; do
	order=$(rb_order "$r" $methods)
	for fs in $filesystems; do
		for m in $order; do
			rb_fs_up "$fs" "$work/img" "$mnt"
			root=$mnt/root
			mkdir "$root"
			# A warm store: filled by a build beside, untimed.
			RB_STORE=$mnt/store
			export RB_STORE
			if [ "$m" = bootstrap-store ] &&
			    ! rb_warm "$mnt/warm" "$work/mirror" "$work/debunpack" > "$work/out" 2>&1; then
				echo "rootbuild: cannot fill the store: $(tail -n 3 "$work/out")" >&2
				exit 1
			fi
			# Cold caches: both tools read the .debs from the cache's disk.
			rb_cold
			read -r w0 f0 <<-EOF
			$(rb_stat)
			EOF
			t0=$(date +%s.%N)
			if rb_build "$m" "$root" "$dir" "$work/mirror" "$work/debunpack" \
			    > "$work/out" 2>&1 3> "$work/sync"; then
				rc=0
			else
				rc=$?
			fi
			t1=$(date +%s.%N)
			read -r w1 f1 <<-EOF
			$(rb_stat)
			EOF
			wall=$(rb_wall "$t0" "$t1")
			syncs=$(awk '/^sync_s/ { printf "%.3f", $2 }' "$work/sync")
			step1=$(awk '/^step1/ { printf "%.3f,%d", $2, $3 }' "$work/sync")
			[ -n "$step1" ] || step1=,
			conf=$(awk '/^configure_s/ { printf "%.3f", $2 }' "$work/sync")
			rb_installed "$root" > "$work/have"
			if cmp -s "$work/want" "$work/have"; then ok=yes; else ok=no; fi
			paths=$(find "$root" -xdev -mindepth 1 | wc -l)
			if [ "$rc" != 0 ] || [ $ok != yes ]; then
				failed=$((failed + 1))
				cp "$work/out" "$work/logs/$fs.$m.$r.log"
				diff "$work/want" "$work/have" >> "$work/logs/$fs.$m.$r.log" || true
			fi
			# Flushes after the unmount too: what the unsafe methods left
			# dirty is written then.
			umount -R "$mnt"
			read -r _ f2 <<-EOF
			$(rb_stat)
			EOF
			rb_fs_down "$work/img" "$mnt"
			echo "$fs,$m,$r,$wall,$syncs,$step1,$((f1 - f0)),$((f2 - f0)),$(((w1 - w0) / 2048)),$rc,$ok,$paths,$conf" >> "$csv"
			printf '%-5s run %d %-19s %8.3f s (sync %6s, step1 %13s, configure %6s) %6d flushes %6d with umount %5d MiB  exit %d  %d/%d pkgs %s  %d paths\n' \
			    "$fs" "$r" "$m" "$wall" "${syncs:--}" "$(echo "$step1" | tr , / | sed "s|^/$|-|")" "${conf:--}" $((f1 - f0)) $((f2 - f0)) $(((w1 - w0) / 2048)) \
			    "$rc" "$(wc -l < "$work/have")" "$npkgs" "$ok" "$paths"
			if [ "$rc" != 0 ] || [ $ok != yes ]; then
				echo "rootbuild: $m on $fs failed (exit $rc, packages $ok); last lines:" >&2
				tail -n 8 "$work/logs/$fs.$m.$r.log" >&2
			fi
		done
	done
	r=$((r + 1))
done


# The table: medians over the runs that succeeded; the ratio is the median
# of the per-run ratios mmdebstrap / debunpack of the same run, measured
# minutes apart.
table() {
	awk -F, "$RB_AWK_MEDIAN"'
	NR == 1 { next }
	{
		split($2, mv, "-"); tool = mv[1]; var = mv[2]; k = $1 SUBSEP var
		if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
		if ($11 != 0 || $12 != "yes") { bad[k, tool]++; next }
		wall[k, tool] = wall[k, tool] " " $4
		fl[k, tool] = fl[k, tool] " " $8
		flu[k, tool] = flu[k, tool] " " $9
		if ($6 != "") { s1[k] = s1[k] " " $6; s1f[k] = s1f[k] " " $7 }
		w[k, tool, $3] = $4
	}
	END {
		print "| fs | variant | debunpack s | mmdebstrap s | ratio mm/deb | debunpack flushes | mmdebstrap flushes | flushes incl. umount (deb / mm) | debunpack step alone: s / flushes |"
		print "|---|---|---:|---:|---:|---:|---:|---:|---:|"
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, kk, SUBSEP)
			rs = ""
			for (r = 1; r <= 1000; r++)
				if ((k, "debunpack", r) in w && (k, "mmdebstrap", r) in w && w[k, "debunpack", r] > 0)
					rs = rs " " w[k, "mmdebstrap", r] / w[k, "debunpack", r]
			d = median(wall[k, "debunpack"]); m = median(wall[k, "mmdebstrap"]); q = median(rs)
			printf "| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s |\n", kk[1], kk[2],
			    d == "" ? "-" : sprintf("%.2f", d), m == "" ? "-" : sprintf("%.2f", m),
			    q == "" ? "-" : sprintf("%.2f", q),
			    median(fl[k, "debunpack"]) == "" ? "-" : median(fl[k, "debunpack"]),
			    median(fl[k, "mmdebstrap"]) == "" ? "-" : median(fl[k, "mmdebstrap"]),
			    median(flu[k, "debunpack"]) == "" ? "-" : median(flu[k, "debunpack"]),
			    median(flu[k, "mmdebstrap"]) == "" ? "-" : median(flu[k, "mmdebstrap"]),
			    s1[k] == "" ? "-" : sprintf("%.2f / %s", median(s1[k]), median(s1f[k]))
			if (bad[k, "debunpack"] || bad[k, "mmdebstrap"])
				printf "|  | (failed runs left out: debunpack %d, mmdebstrap %d) | | | | | | | |\n", bad[k, "debunpack"], bad[k, "mmdebstrap"]
		}
	}' "$1"
}

# Every method on its own: medians of wall time and flushes per file system.
methods_table() {
	awk -F, "$RB_AWK_MEDIAN"'
	NR == 1 { next }
	{
		k = $1 SUBSEP $2
		if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
		if ($11 != 0 || $12 != "yes") { bad[k]++; next }
		wall[k] = wall[k] " " $4; fl[k] = fl[k] " " $8
	}
	END {
		print "| fs | method | wall s | flushes | failed runs |"
		print "|---|---|---:|---:|---:|"
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, kk, SUBSEP)
			printf "| %s | %s | %s | %s | %d |\n", kk[1], kk[2],
			    wall[k] == "" ? "-" : sprintf("%.2f", median(wall[k])),
			    fl[k] == "" ? "-" : median(fl[k]), bad[k]
		}
	}' "$1"
}

mkdir -p "$(dirname "$outfile")"
{
	echo "rootbuild: build a working $workload${arch:+ $arch} root ($npkgs local .debs) with debunpack and mmdebstrap"
	echo
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "command: $0 $args"
	echo "checkout: $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "debunpack: $bin: $("$work/debunpack" --version 2>/dev/null | head -n 1)"
	echo "mmdebstrap: $(mmdebstrap --version); dpkg $(dpkg-query -W -f '${Version}' dpkg); apt $(dpkg-query -W -f '${Version}' apt)"
	echo "kernel: $(uname -r)"
	echo "cpu: $(nproc) x $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "memory: $(awk '/^MemTotal/ { print $2, $3 }' /proc/meminfo)"
	echo "images: ${SIZE_MIB:-4096} MiB sparse in $tmpdir, a fresh image, mkfs and loop device for every run"
	echo
	echo "Methods (every run into an empty directory on a fresh filesystem, after"
	echo "sync and drop_caches; environment DEBIAN_FRONTEND=noninteractive"
	echo "DEBCONF_NONINTERACTIVE_SEEN=true LC_ALL=LANG=LANGUAGE=C.UTF-8, as mmdebstrap sets):"
	echo "  debunpack-durable   debunpack --root R --dpkg-db --run-preinst DEBS &&"
	echo "                      chroot R dpkg --refuse-unsafe-io --configure -a && sync -f R"
	echo "  debunpack-unsafe    debunpack --root R --sync-mode none --dpkg-db --run-preinst DEBS &&"
	echo "                      chroot R dpkg --force-unsafe-io --configure -a"
	echo "  mmdebstrap-durable  unshare -n mmdebstrap --mode=root --variant=$workload --format=directory"
	echo "                      --hook-dir=$MMHOOKS/merged-usr --hook-dir=$MMHOOKS/file-mirror-automount"
	echo "                      '' R 'deb [trusted=yes] file:MIRROR ./' && sync -f R"
	echo "  mmdebstrap-unsafe   the same with --dpkgopt=force-unsafe-io and without the sync"
	echo "  mmdebstrap-eatmydata  mmdebstrap-durable with --hook-dir=$MMHOOKS/eatmydata"
	echo "  bootstrap-durable   unshare -n debunpack-bootstrap --variant=$workload"
	echo "                      '' R 'deb [trusted=yes] file:MIRROR ./' && sync -f R"
	echo "  bootstrap-store     bootstrap-durable with --store=S, S on R's file system, filled"
	echo "                      before the run (untimed) by the same build into a root removed then"
	echo "MIRROR: hardlinks of the $npkgs .debs, Packages by dpkg-scanpackages (archive priorities"
	echo "for apt, debconf, zlib1g, libbz2-1.0, libdb5.3). Every run checks dpkg-query in R: exactly"
	echo "the $npkgs package versions of the cache, all 'ii' (pkgs_ok)."
	echo
	echo "wall_s: the whole command including the final sync -f (sync_s: that sync alone;"
	echo "step1_s, step1_flushes: the debunpack command alone, before dpkg --configure;"
	echo "for bootstrap-durable its unpack with the preinsts, by its -v log, whose flushes"
	echo "are not counted apart: 0. configure_s: bootstrap-durable's dpkg --configure -a)."
	[ -z "$arch" ] || echo "architecture: $arch (host $(dpkg --print-architecture)); qemu: $(dpkg-query -W -f '${Version}' qemu-user-static 2>/dev/null)"
	echo "flushes: field 16 of /sys/block/loopN/stat (flush requests completed) from just"
	echo "before the command to just after it; 'incl. umount' counts to after the unmount,"
	echo "which also writes what the unsafe methods left dirty."
	echo
	table "$csv"
	echo
	methods_table "$csv"
	echo
	echo "runs.csv:"
	cat "$csv"
} > "$outfile"
echo
table "$csv"
echo
methods_table "$csv"
echo
echo "rootbuild: results in $outfile"
if [ "$failed" != 0 ]; then
	cp -R "$work/logs" "${outfile%.txt}.logs"
	echo "rootbuild: $failed runs failed: their output is in ${outfile%.txt}.logs" >&2
	exit 1
fi
