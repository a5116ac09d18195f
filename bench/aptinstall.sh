#!/bin/sh
# SPDX-License-Identifier: MIT
# The install people run most: apt-get install into a root that exists.
# A minbase root (debunpack-bootstrap, with debunpack itself installed from
# the build tree) gets build-essential and what it needs (the buildd set of
# bench/workloads/buildd.list) by apt-get in a chroot, with dpkg as apt runs
# it (durable, unsafe-io, or every sync suppressed) and with debunpack's dpkg
# for apt; wall time and device flushes of the apt-get command alone, each
# run on a fresh loop-mounted filesystem.  With -a upgrade, the root has the
# set already and apt-get upgrade moves all of it to a next version (the
# same files, rebuilt as a binNMU is: bench/bumpdebs.py); with -a reinstall,
# apt-get install --reinstall of every package in the root.
# usage: bench/aptinstall.sh [-a ACTION] [-r RUNS] [-f FILESYSTEMS] [-m METHODS]
#                            [-c CACHE] [-B BUILDDIR] [-t TMPDIR] [-o OUTFILE]
#                            [-p PACKAGES] [-b BASE] [-T]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/rootlib.sh"
runs=3 filesystems="ext4 xfs btrfs" builddir=$top/build
cache=/var/cache/debunpack-bench tmpdir=/var/tmp outfile="" args=$*
packages=build-essential action=install owner=debunpack trace=""
all_methods="dpkg-durable dpkg-unsafe dpkg-nosync shim-durable shim-nosync shim-noahead"
methods=$all_methods
usage() {
	cat >&2 <<EOF
usage: $0 [-a ACTION] [-r RUNS] [-f FILESYSTEMS] [-m METHODS] [-c CACHE]
          [-B BUILDDIR] [-t TMPDIR] [-o OUTFILE] [-p PACKAGES] [-b BASE] [-T]
  -a  what is measured (default install):
      install    apt-get install PACKAGES into the minbase root
      upgrade    the root has PACKAGES (installed unmeasured); the mirror
                 then holds the whole set at a next version; apt-get upgrade
      reinstall  the root has PACKAGES; apt-get install --reinstall of
                 every package installed
  -r  runs of each method (default 3; the order is reversed every other run)
  -f  filesystems (default "ext4 xfs btrfs")
  -m  methods (default "$methods"):
      dpkg-durable   chroot R apt-get ACTION; sync -f R
      dpkg-unsafe    the same with DPkg::Options::=--force-unsafe-io, no sync
      dpkg-nosync    the first under debunpack-nosync (every sync a no-op,
                     as eatmydata); sync -f R
      shim-durable   the first with Dir::Bin::dpkg set to debunpack's dpkg
                     for apt; sync -f R
      shim-nosync    shim-durable under debunpack-nosync; sync -f R
      shim-noahead   shim-durable without decode-ahead, apt's
                     DPkg::Pre-Install-Pkgs hook that the shim methods
                     add (as src/apt/50debunpack does)
  -c  package cache (default /var/cache/debunpack-bench; CACHE/buildd is
      filled by bench/fetch.sh)
  -B  debunpack's build directory (default build/): installed into the
      root with make install DESTDIR=ROOT
  -t  where images and the mirror go (default /var/tmp; not tmpfs)
  -o  results file (default bench/results/aptinstall-DATE.txt)
  -p  what apt-get installs (default "$packages")
  -b  whose the root's packages are (default debunpack):
      debunpack  as debunpack-bootstrap leaves them: debunpack's records
                 beside dpkg's database
      dpkg       dpkg's alone, as in a root dpkg made (debootstrap, a
                 container image): debunpack's records of them removed
  -T  trace where each call's flushes came from (tracefs; the kernel's
      block, syscalls and marker events): a sync system call's, or the
      filesystem's own (bench/flushorigin.py)
EOF
	exit 2
}
while getopts a:r:f:m:c:B:t:o:p:b:T o; do
	case $o in
	a) action=$OPTARG ;;
	r) runs=$OPTARG ;;
	f) filesystems=$(echo "$OPTARG" | tr ',' ' ') ;;
	m) methods=$(echo "$OPTARG" | tr ',' ' ') ;;
	c) cache=$OPTARG ;;
	B) builddir=$(cd "$OPTARG" && pwd) ;;
	t) tmpdir=$OPTARG ;;
	o) outfile=$OPTARG ;;
	p) packages=$OPTARG ;;
	b) owner=$OPTARG ;;
	T) trace=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $runs in '' | *[!0-9]* | 0) usage ;; esac
case $action in install | upgrade | reinstall) ;; *) echo "$0: unknown action $action" >&2; usage ;; esac
case $owner in debunpack | dpkg) ;; *) echo "$0: unknown base $owner" >&2; usage ;; esac
for m in $methods; do
	case " $all_methods " in *" $m "*) ;; *) echo "$0: unknown method $m" >&2; usage ;; esac
done
for fs in $filesystems; do
	case $fs in ext4 | xfs | btrfs) ;; *) echo "$0: unknown filesystem $fs" >&2; exit 2 ;; esac
done
[ "$(id -u)" = 0 ] || { echo "$0: needs root (loop devices, mount, chroot, drop_caches)" >&2; exit 1; }
rb_need
nosync=$builddir/debunpack-nosync
[ -x "$builddir/debunpack" ] && [ -x "$nosync" ] ||
    { echo "$0: no debunpack build in $builddir (-B)" >&2; exit 1; }
tr=/sys/kernel/tracing
if [ -n "$trace" ]; then
	[ -e $tr/trace_marker ] || mount -t tracefs nodev $tr
	for e in block/block_bio_queue syscalls/sys_enter_fsync; do
		[ -d $tr/events/$e ] ||
		    { echo "$0: -T: this kernel has no $e event in $tr" >&2; exit 1; }
	done
	command -v python3 > /dev/null || { echo "$0: -T needs python3" >&2; exit 1; }
fi
case $(rb_source "$builddir") in
*-dirty) echo "$0: warning: $builddir is built from a working tree with changes, which each run's make install rebuilds from: bench a build of a clone" >&2 ;;
esac

stamp=$(date +%Y%m%d-%H%M%S)
[ -n "$outfile" ] || outfile=$top/bench/results/apt$action-$stamp.txt
work=$(mktemp -d "$tmpdir/debunpack-aptinstall.XXXXXX")
mnt=/mnt/bench-apt-$$ rb_loop=""
cleanup() {
	[ ! -d "$mnt/root$work/mirror" ] || umount "$mnt/root$work/mirror" 2>/dev/null || true
	rb_work_down "$work" "$mnt"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ "$(stat -f -c %T "$work")" = tmpfs ]; then
	echo "$0: $tmpdir is tmpfs: give a disk-backed directory with -t" >&2
	exit 1
fi

# What debunpack links beyond minbase: installed with the base, for every
# method alike, so that the roots differ only in the dpkg apt runs.
sh "$top/bench/fetch.sh" -c "$cache" buildd
extra=$work/extra
mkdir "$extra"
(cd "$extra" && apt-get download -q -o APT::Sandbox::User=root \
    libarchive13 libacl1 liblz4-1 libnettle8 libxml2 libicu72 libzstd1 > /dev/null) ||
    { echo "$0: cannot download debunpack's libraries" >&2; exit 1; }
for f in "$extra"/*.deb; do
	# Those the buildd set has already stay its version.
	p=$(dpkg-deb -f "$f" Package)
	! ls "$cache/buildd/${p}"_*.deb > /dev/null 2>&1 || rm "$f"
done
rb_mirror "$cache/buildd" "$work/mirror" "$extra"
sources="deb [trusted=yes] file:$work/mirror ./"
if [ "$action" = upgrade ]; then
	# The next version of the whole set, and debunpack's libraries as
	# they were: bound over the first mirror once the set is installed.
	# shellcheck disable=SC2046 # one word per .deb
	python3 "$top/bench/bumpdebs.py" +up1 "$work/next" $(rb_debs "$cache/buildd") ||
	    { echo "$0: cannot make the next version of the set" >&2; exit 1; }
	(cd "$work/next" && sha256sum -- *.deb) > "$work/next/SHA256SUMS"
	rb_mirror "$work/next" "$work/mirror2" "$extra"
fi

# base ROOT: minbase with debunpack's libraries, debunpack installed from
# the build tree, and the mirror bound at its own path for apt in the root.
base() {
	DEBUNPACK=$builddir/debunpack DEBUNPACK_NOSYNC=$nosync unshare -n \
	    "$builddir/debunpack-bootstrap" -q --variant=minbase \
	    --include=libarchive13,libssl3 '' "$1" "$sources" || return
	make -s -C "$builddir" install DESTDIR="$1" > /dev/null || return
	# dpkg's database is whole (--dpkg-db): without the records, every
	# package is one dpkg installed.
	[ "$owner" = debunpack ] || rm -f "$1"/var/lib/debunpack/*.record
	mkdir -p "$1$work/mirror"
	mount --bind "$work/mirror" "$1$work/mirror"
	chroot "$1" apt-get update -q > /dev/null || return
	[ "$action" != install ] || return 0
	# The set as the upgrade and the reinstall find it, installed alike
	# for every method (no sync: the sync before the measured command
	# makes it durable).
	"$nosync" chroot "$1" apt-get install -y -q --no-install-recommends $packages > /dev/null || return
	if [ "$action" = upgrade ]; then
		umount "$1$work/mirror"
		mount --bind "$work/mirror2" "$1$work/mirror"
		chroot "$1" apt-get update -q > /dev/null || return
	fi
	# shellcheck disable=SC2016 # dpkg-query's format
	reinstall=$(chroot "$1" dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' |
	    awk '$1 == "ii" { print $2 }' | tr '\n' ' ')
}

# shim_path ROOT: debunpack's dpkg for apt as installed in the root, or
# nothing when this build has none.
shim_path() {
	for p in /usr/local/libexec/debunpack/dpkg /usr/libexec/debunpack/dpkg; do
		[ ! -x "$1$p" ] || { echo "$p"; return; }
	done
}

# calls ROOT REAL: ROOT's /usr/local/sbin/dpkg-calls, what apt runs as
# dpkg in every method: REAL (the real dpkg or debunpack's dpkg for apt)
# with the same arguments, and a line in ROOT's /var/log/dpkg-calls for
# the call: its action, its device flushes (field 16 of the loop device's
# stat, read through the root's /sys), its seconds, its exit status and
# its last word (a package, or the directory of --recursive), and for
# --recursive the packages found there.
calls() {
	cat > "$1/usr/local/sbin/dpkg-calls" <<EOS
#!/bin/sh
flushes() { read -r _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ f _ < /sys/block/$rb_dev/stat; echo "\$f"; }
f0=\$(flushes) t0=\$(date +%s.%N)
${trace:+echo dpkg-calls start > $tr/trace_marker}
$2 "\$@"
rc=\$?
${trace:+echo dpkg-calls end > $tr/trace_marker}
f1=\$(flushes) t1=\$(date +%s.%N)
a=other
for w; do
	case \$w in
	--unpack | --install | --configure | --triggers-only | --remove | --purge) [ \$a != other ] || a=\${w#--} ;;
	-i) [ \$a != other ] || a=install ;;
	esac
	last=\${w##*/}
done
# A --recursive call: the packages of its directory, in a sixth field.
pk=""
[ ! -d "\$w" ] || pk=\$(ls "\$w" | sed 's/_.*//' | tr '\n' ',')
echo "\$a \$((f1 - f0)) \$(echo "\$t0 \$t1" | awk '{ printf "%.3f", \$2 - \$1 }') \$rc \$last \${pk%,}" >> /var/log/dpkg-calls
exit \$rc
EOS
	chmod 755 "$1/usr/local/sbin/dpkg-calls"
	: > "$1/var/log/dpkg-calls"
}

# trace_start: the trace buffer emptied and the events of -T on: every bio
# that asks for a flush (with the stack that queued it), the sync calls'
# entries and exits; the wrapper's marks come through trace_marker.
# trace_stop FILE: the events off, the buffer's text in FILE.
trace_start() {
	echo 0 > $tr/tracing_on
	echo 0 > $tr/events/enable
	echo '!stacktrace if rwbs ~ "*F*"' 2> /dev/null > $tr/events/block/block_bio_queue/trigger || :
	echo 65536 > $tr/buffer_size_kb
	: > $tr/trace
	echo 'rwbs ~ "*F*"' > $tr/events/block/block_bio_queue/filter
	echo 'stacktrace if rwbs ~ "*F*"' > $tr/events/block/block_bio_queue/trigger
	echo 1 > $tr/events/block/block_bio_queue/enable
	for c in fsync fdatasync syncfs sync sync_file_range msync; do
		echo 1 > $tr/events/syscalls/sys_enter_$c/enable
		echo 1 > $tr/events/syscalls/sys_exit_$c/enable
	done
	echo 1 > $tr/tracing_on
}
trace_stop() {
	echo 0 > $tr/tracing_on
	cp $tr/trace "$1"
	echo 0 > $tr/events/enable
	echo '!stacktrace if rwbs ~ "*F*"' > $tr/events/block/block_bio_queue/trigger
	echo 0 > $tr/events/block/block_bio_queue/filter
	: > $tr/trace
}

# run METHOD ROOT: the measured command.
run() {
	case $action in
	install) aptget="apt-get install -y -q --no-install-recommends" what=$packages ;;
	upgrade) aptget="apt-get upgrade -y -q" what="" ;;
	reinstall) aptget="apt-get install -y -q --reinstall" what=$reinstall ;;
	esac
	aptget="$aptget -o Dir::Bin::dpkg=/usr/local/sbin/dpkg-calls"
	ahead=$(shim_path "$2")
	ahead=${ahead%/dpkg}/decode-ahead
	case $1 in
	shim-durable | shim-nosync) [ ! -x "$2$ahead" ] ||
		aptget="$aptget -o DPkg::Pre-Install-Pkgs::=$ahead" ;;
	esac
	# shellcheck disable=SC2086 # APTGET and WHAT hold several words
	case $1 in
	dpkg-durable) chroot "$2" $aptget $what && sync -f "$2" ;;
	dpkg-unsafe) chroot "$2" $aptget -o DPkg::Options::=--force-unsafe-io $what ;;
	dpkg-nosync) "$nosync" chroot "$2" $aptget $what && sync -f "$2" ;;
	shim-durable) chroot "$2" $aptget $what && sync -f "$2" ;;
	shim-nosync) "$nosync" chroot "$2" $aptget $what && sync -f "$2" ;;
	shim-noahead) chroot "$2" $aptget $what && sync -f "$2" ;;
	esac
}

csv=$work/runs.csv
echo "fs,method,run,wall_s,flushes,written_mib,exit,ii,audit_clean,planned_more,stale,unpack_calls,max_unpack_flushes,max_unpack_sync_flushes" > "$csv"
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
			if ! base "$root" > "$work/out" 2>&1; then
				echo "aptinstall: the base root failed on $fs:" >&2
				tail -n 20 "$work/out" >&2
				exit 1
			fi
			# As in sbuild's, pbuilder's and a container's root: the
			# dpkg for apt reads the filesystem's mount options there.
			mount -t proc proc "$root/proc"
			mount -t sysfs sysfs "$root/sys"
			[ -z "$trace" ] || mount -t tracefs nodev "$root$tr"
			case $m in
			shim-*)
				shim=$(shim_path "$root")
				[ -n "$shim" ] || { echo "aptinstall: this build has no dpkg for apt" >&2; exit 1; }
				calls "$root" "$shim" ;;
			*) calls "$root" /usr/bin/dpkg ;;
			esac
			rb_cold
			read -r w0 f0 <<-EOF
			$(rb_stat)
			EOF
			[ -z "$trace" ] || trace_start
			t0=$(date +%s.%N)
			if run "$m" "$root" > "$work/out" 2>&1; then rc=0; else rc=$?; fi
			t1=$(date +%s.%N)
			[ -z "$trace" ] || { trace_stop "$work/trace"; umount "$root$tr"; }
			umount "$root/sys" "$root/proc"
			read -r w1 f1 <<-EOF
			$(rb_stat)
			EOF
			wall=$(rb_wall "$t0" "$t1")
			ii=$(rb_installed "$root" | grep -vc '\[' || true)
			if [ -z "$(chroot "$root" dpkg --audit 2>&1)" ]; then audit=yes; else audit=no; fi
			if grep -q 'APT had planned for dpkg to do more' "$work/out"; then more=yes; else more=no; fi
			# An upgrade leaves no package of the set at its old version.
			stale=0
			[ "$action" != upgrade ] ||
			    stale=$(rb_installed "$root" | awk -v l="$work/next/SHA256SUMS" '
				BEGIN { while ((getline x < l) > 0) { split(x, f, " "); sub(/_.*/, "", f[2]); set[f[2]] = 1 } }
				($1 in set) && $2 !~ /\+up1$/ { n++ } END { print n + 0 }')
			if [ "$rc" != 0 ] || [ $audit != yes ] || [ $more != no ] || [ "$stale" != 0 ]; then
				failed=$((failed + 1))
				cp "$work/out" "$work/logs/$fs.$m.$r.log"
			fi
			# apt's calls of dpkg: how many unpack (--unpack,
			# --install), their largest flush count, and all calls'
			# seconds by action.
			cp "$root/var/log/dpkg-calls" "$work/logs/$fs.$m.$r.calls"
			read -r nun maxun <<-EOF
			$(awk '$1 == "unpack" || $1 == "install" { n++; if ($2 > m) m = $2 }
			    END { print n + 0, m + 0 }' "$root/var/log/dpkg-calls")
			EOF
			# With -T, the largest count of an unpack call's
			# flushes that a sync call caused (flushorigin.py's
			# lines are the calls', in order).
			maxsy=-
			if [ -n "$trace" ]; then
				python3 "$top/bench/flushorigin.py" "$work/trace" \
				    "$(tr : , < "/sys/block/$rb_dev/dev")" > "$work/logs/$fs.$m.$r.origins"
				rm -f "$work/trace"
				maxsy=$(awk 'NR == FNR { a[FNR] = $1; next }
				    $1 != "all" && (a[$1] == "unpack" || a[$1] == "install") && $3 > m { m = $3 }
				    END { print m + 0 }' "$root/var/log/dpkg-calls" "$work/logs/$fs.$m.$r.origins")
			fi
			by=$(awk '{ n[$1]++; s[$1] += $3; f[$1] += $2 }
			    END { for (a in n) printf "%s %d calls %.1f s %d flushes; ", a, n[a], s[a], f[a] }' \
			    "$root/var/log/dpkg-calls")
			umount "$root$work/mirror"
			umount -R "$mnt"
			rb_fs_down "$work/img" "$mnt"
			echo "$fs,$m,$r,$wall,$((f1 - f0)),$(((w1 - w0) / 2048)),$rc,$ii,$audit,$more,$stale,$nun,$maxun,$maxsy" >> "$csv"
			printf '%-5s run %d %-13s %8.3f s %6d flushes %5d MiB  exit %d  %d ii  audit %s\n' \
			    "$fs" "$r" "$m" "$wall" $((f1 - f0)) $(((w1 - w0) / 2048)) "$rc" "$ii" "$audit"
			echo "$fs run $r $m: $by" >> "$work/bycall"
			echo "      dpkg calls: $by"
		done
	done
	r=$((r + 1))
done

# Medians of the runs that succeeded, per filesystem and method, and the
# median of each run's time over dpkg-durable's of the same run.
table() {
	awk -F, "$RB_AWK_MEDIAN"'
	NR == 1 { next }
	{
		k = $1 SUBSEP $2
		if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
		if ($7 != 0 || $9 != "yes" || $10 != "no" || $11 != 0) { bad[k]++; next }
		wall[k] = wall[k] " " $4; fl[k] = fl[k] " " $5; w[$1, $2, $3] = $4
		nu[k] = nu[k] " " $12; mu[k] = mu[k] " " $13
		if ($14 != "-" && $14 != "") su[k] = su[k] " " $14
	}
	END {
		print "| fs | method | wall s | flushes | time / dpkg-durable (same run) | unpack calls | most flushes in one | most from syncs in one | failed runs |"
		print "|---|---|---:|---:|---:|---:|---:|---:|---:|"
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, kk, SUBSEP); rs = ""
			for (r = 1; r <= 1000; r++)
				if ((kk[1], kk[2], r) in w && (kk[1], "dpkg-durable", r) in w)
					rs = rs " " w[kk[1], kk[2], r] / w[kk[1], "dpkg-durable", r]
			q = median(rs)
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", kk[1], kk[2],
			    wall[k] == "" ? "-" : sprintf("%.2f", median(wall[k])),
			    fl[k] == "" ? "-" : median(fl[k]),
			    q == "" ? "-" : sprintf("%.2f", q),
			    nu[k] == "" ? "-" : median(nu[k]),
			    mu[k] == "" ? "-" : median(mu[k]),
			    su[k] == "" ? "-" : median(su[k]), bad[k]
		}
	}' "$1"
}

mkdir -p "$(dirname "$outfile")"
{
	case $action in
	install) echo "aptinstall: apt-get install $packages into a minbase root, by method" ;;
	upgrade) echo "aptinstall: apt-get upgrade of $packages and the minbase root under it to a next version of every package, by method" ;;
	reinstall) echo "aptinstall: apt-get install --reinstall of every package of a minbase root with $packages, by method" ;;
	esac
	echo
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "command: $0 $args"
	echo "checkout: $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "debunpack: $builddir: $("$builddir/debunpack" --version 2>/dev/null | head -n 1), built from $(rb_source "$builddir")"
	echo "dpkg $(dpkg-query -W -f '${Version}' dpkg); apt $(dpkg-query -W -f '${Version}' apt); kernel $(uname -r)"
	echo "cpu: $(nproc) x $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "images: ${SIZE_MIB:-4096} MiB sparse in $tmpdir, a fresh image, mkfs and loop device for every run"
	echo
	echo "Every run: a fresh filesystem; debunpack-bootstrap --variant=minbase --include=libarchive13,libssl3"
	echo "from a local mirror (the buildd set and debunpack's libraries); make install DESTDIR=R of the"
	echo "build; apt-get update in R; sync; drop_caches; then the measured command (see -m in the usage)."
	[ "$owner" = debunpack ] ||
	    echo "base dpkg: debunpack's records removed after the bootstrap: every package is dpkg's."
	echo "flushes: field 16 of /sys/block/loopN/stat over the measured command. A run counts when apt"
	echo "exits 0, dpkg --audit is clean and apt never says it planned more than dpkg reported."
	case $action in
	upgrade) echo "upgrade: the set installed unmeasured (apt-get install under debunpack-nosync), then the"
		echo "mirror holds the next version of every package of the set (bench/bumpdebs.py: the same"
		echo "data.tar, version +up1); apt-get update; sync; drop_caches; apt-get upgrade is measured;"
		echo "stale (must be 0): packages of the set still at their old version after it." ;;
	reinstall) echo "reinstall: the set installed unmeasured (apt-get install under debunpack-nosync); sync;"
		echo "drop_caches; apt-get install --reinstall of every package installed is measured." ;;
	esac
	echo
	table "$csv"
	echo
	echo "unpack calls: apt's dpkg calls with --unpack or --install (median); most flushes in one:"
	echo "the largest device flush count of one of them (median over the runs). Every call of"
	echo "dpkg goes through a wrapper that logs its action, flushes and seconds:"
	cat "$work/bycall"
	[ -z "$trace" ] || {
		echo
		echo "most from syncs in one (-T): of an unpack call's flushes, the most that a sync call"
		echo "caused, by the kernel's trace (bench/flushorigin.py); the rest are the filesystem's own"
		echo "(xfs's log-tail pushing, timed commits). Each run's calls and their origins are in"
		echo "the .calls directory (FS.METHOD.RUN.origins: call, flushes, from syncs, the fs's own)."
	}
	echo
	echo "runs.csv:"
	cat "$csv"
} > "$outfile"
mkdir -p "${outfile%.txt}.calls"
cp "$work/logs"/*.calls "${outfile%.txt}.calls/"
[ -z "$trace" ] || cp "$work/logs"/*.origins "${outfile%.txt}.calls/"
echo
table "$csv"
echo
echo "aptinstall: results in $outfile, each run's dpkg calls in ${outfile%.txt}.calls"
if [ "$failed" != 0 ]; then
	cp -R "$work/logs" "${outfile%.txt}.logs"
	echo "aptinstall: $failed runs failed: their output is in ${outfile%.txt}.logs" >&2
	exit 1
fi
