# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Shared by bench/rootbuild.sh, rootdiff.sh and aptinstall.sh (sourced,
# POSIX sh): the local mirror mmdebstrap reads, fresh loop-mounted
# filesystems, the two ways of building a working minbase root from the
# same .debs, and the run loop's order, cold start and medians.

# Both tools run in the environment mmdebstrap sets for itself, so that
# maintainer scripts and debconf behave alike.
export DEBIAN_FRONTEND=noninteractive DEBCONF_NONINTERACTIVE_SEEN=true
export LC_ALL=C.UTF-8 LANGUAGE=C.UTF-8 LANG=C.UTF-8

MMHOOKS=/usr/share/mmdebstrap/hooks

# rb_need: installs what the scripts use and this machine lacks.
rb_need() {
	need=""
	for t in mmdebstrap:mmdebstrap dpkg-scanpackages:dpkg-dev \
	    mkfs.xfs:xfsprogs mkfs.btrfs:btrfs-progs mkfs.ext4:e2fsprogs \
	    losetup:mount unshare:util-linux eatmydata:eatmydata \
	    ${RB_ARCH:+arch-test:arch-test}; do
		command -v "${t%%:*}" > /dev/null || need="$need ${t#*:}"
	done
	[ -n "$need" ] || return 0
	echo "rootbuild: installing$need"
	# shellcheck disable=SC2086 # one word per package
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need > /dev/null
}

# rb_debs DIR: the workload's files, in manifest (list) order, one a line.
rb_debs() {
	awk -v d="$1" '{ print d "/" $2 }' "$1/SHA256SUMS"
}

# rb_want DIR: "Package Version Architecture" of every .deb of DIR, sorted:
# what both roots must have installed.
rb_want() {
	rb_debs "$1" | while read -r f; do
		# shellcheck disable=SC2016 # dpkg-deb's format, not the shell's
		dpkg-deb -W --showformat='${Package} ${Version} ${Architecture}\n' "$f"
	done | sort
}

# rb_installed ROOT: the same for the packages dpkg calls installed in ROOT
# ("ii"); others are printed with their status so that they show up as a
# mismatch.
rb_installed() {
	# shellcheck disable=SC2016 # dpkg-query's format
	dpkg-query --admindir="$1/var/lib/dpkg" -W \
	    -f '${db:Status-Abbrev}|${Package} ${Version} ${Architecture}\n' 2>/dev/null |
	    awk -F'|' '{ s = $1; sub(/ +$/, "", s); if (s == "ii") print $2; else print $2 " [" s "]" }' | sort
}

# rb_mirror DIR MIRROR [EXTRA]: a flat apt repository in MIRROR holding
# exactly the .debs of DIR (hardlinked: the same inodes the debunpack runs
# read), and those of directory EXTRA.
# Packages is made by dpkg-scanpackages with the override of
# bench/override.sh: the bookworm archive's Priority where a control file
# says otherwise (without it minbase would lack apt and its dependencies).
rb_mirror() {
	rm -rf "$2"
	mkdir -p "$2"
	{ rb_debs "$1"; [ -z "${3:-}" ] || ls "$3"/*.deb; } | while read -r f; do
		ln "$f" "$2/" 2>/dev/null || cp "$f" "$2/"
	done
	sh "$top/bench/override.sh" "$2"/*.deb > "$2/.override"
	(cd "$2" && dpkg-scanpackages -m . .override > Packages 2> .scan.log)
	[ "$(grep -c '^Package:' "$2/Packages")" = "$(ls "$2"/*.deb | wc -l)" ] ||
	    { echo "rootbuild: $2/Packages does not list every .deb (see $2/.scan.log)" >&2; return 1; }
}

# rb_fs_up FS IMG MNT: a fresh sparse SIZE_MIB image IMG with filesystem FS,
# on a loop device of its own mounted on MNT; sets rb_loop and rb_dev.
rb_fs_up() {
	case $1 in
	ext4) mkfs="mkfs.ext4 -q -F" ;;
	xfs) mkfs="mkfs.xfs -q -f" ;;
	btrfs) mkfs="mkfs.btrfs -q -f" ;;
	*) echo "rootbuild: unknown filesystem $1" >&2; return 2 ;;
	esac
	rm -f "$2"
	truncate -s "${SIZE_MIB:-4096}M" "$2"
	$mkfs "$2" > /dev/null
	rb_loop=$(losetup -f --show "$2")
	rb_dev=${rb_loop#/dev/}
	mkdir -p "$3"
	mount "$rb_loop" "$3"
}

# rb_fs_down IMG MNT: unmounts MNT with whatever a failed mmdebstrap left
# mounted below it, detaches the loop device rb_fs_up attached, removes IMG.
rb_fs_down() {
	if mountpoint -q "$2"; then
		umount -R "$2" || umount -R -l "$2" || true
	fi
	[ -z "${rb_loop:-}" ] || losetup -d "$rb_loop" 2>/dev/null || true
	rb_loop=""
	rm -f "$1"
}

# rb_order RUN METHODS...: the methods in the order run RUN takes them.
# They alternate, and which goes first changes every run, so that neither
# always meets the warmer (or the more loaded) machine.
rb_order() {
	if [ $(($1 % 2)) = 1 ]; then
		shift
		echo "$@"
		return
	fi
	shift
	rb_o=""
	for rb_m in "$@"; do
		rb_o="$rb_m $rb_o"
	done
	echo $rb_o
}

# rb_cold: the page cache dropped (what is dirty written first), so that
# every method reads its .debs from the disk.
rb_cold() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

# rb_wall T0 T1: seconds between two `date +%s.%N` stamps, to the ms.
rb_wall() {
	awk "BEGIN { printf \"%.3f\\n\", $2 - $1 }"
}

# The tables' awk: the median of a list of numbers separated by blanks.
RB_AWK_MEDIAN='
	function median(s,    a, n, i, j, t) {
		n = split(s, a, " ")
		if (n == 0) return ""
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}'

# rb_stat: "written_sectors flushes" of rb_dev so far (fields 7 and 16 of
# /sys/block/loopN/stat: write sectors, flush requests completed).
rb_stat() {
	awk '{ print $7, $16 }' "/sys/block/$rb_dev/stat"
}

# rb_build METHOD ROOT DEBDIR MIRROR BIN: builds a root of the variant
# $RB_VARIANT (default minbase; the .debs of DEBDIR are its set) in ROOT (an
# empty directory) with METHOD:
#   debunpack-durable   debunpack --root R --dpkg-db --run-preinst DEBS (default
#                       sync mode); chroot R dpkg --refuse-unsafe-io --configure -a;
#                       sync -f R
#   debunpack-unsafe    debunpack --root R --sync-mode none --dpkg-db --run-preinst DEBS;
#                       chroot R dpkg --force-unsafe-io --configure -a
#   mmdebstrap-durable  mmdebstrap --mode=root --variant=VARIANT (its default: dpkg
#                       without unsafe io) from MIRROR; sync -f R
#   mmdebstrap-unsafe   the same with --dpkgopt=force-unsafe-io, no sync
#   mmdebstrap-eatmydata  mmdebstrap-durable with mmdebstrap's eatmydata hook;
#                       sync -f R
#   bootstrap-durable   debunpack-bootstrap --variant=VARIANT from MIRROR
#                       ($RB_BOOTSTRAP, with BIN and $RB_NOSYNC); sync -f R
#   bootstrap-store     the same with --store=$RB_STORE, a store on R's file
#                       system that rb_warm filled before (a warm store)
# The final sync -f: maintainer scripts (update-passwd, ldconfig, debconf...)
# and dpkg's --configure write files without fsync, mmdebstrap's cleanup
# deletes without one; only with it is the root on disk when the command
# ends. Its time is printed on fd 3 ("sync_s S"), empty for the unsafe ones;
# for the debunpack methods also the time and flushes of the debunpack step
# (rb_step1).
# mmdebstrap runs in a network namespace of its own (unshare -n): it cannot
# download anything, whatever its apt configuration says.
# With RB_ARCH set, the root is of that architecture: mmdebstrap and
# debunpack-bootstrap get --architectures=RB_ARCH, debunpack
# --architecture=RB_ARCH and the root's var/lib/dpkg/arch; the bootstrap's
# unpack (with its preinsts) is its step1, from its -v log.
rb_build() {
	rb_m=$1 rb_root=$2 rb_dir=$3 rb_mirror=$4 rb_bin=$5
	set --
	for f in $(rb_debs "$rb_dir"); do
		set -- "$@" "$f"
	done
	rb_mm="" rb_da=""
	if [ -n "${RB_ARCH:-}" ]; then
		rb_mm=--architectures=$RB_ARCH rb_da=--architecture=$RB_ARCH
		case $rb_m in
		debunpack-*)
			mkdir -p "$rb_root/var/lib/dpkg"
			echo "$RB_ARCH" > "$rb_root/var/lib/dpkg/arch" ;;
		esac
	fi
	p0=$(date +%s.%N)
	pf0=$(rb_stat)
	case $rb_m in
	debunpack-durable)
		"$rb_bin" --root "$rb_root" $rb_da --dpkg-db --run-preinst "$@" &&
		    rb_step1 "$p0" "$pf0" &&
		    chroot "$rb_root" dpkg --refuse-unsafe-io --configure -a ;;
	debunpack-unsafe)
		"$rb_bin" --root "$rb_root" $rb_da --sync-mode none --dpkg-db --run-preinst "$@" &&
		    rb_step1 "$p0" "$pf0" &&
		    chroot "$rb_root" dpkg --force-unsafe-io --configure -a ;;
	mmdebstrap-durable)
		unshare -n mmdebstrap --mode=root --variant="${RB_VARIANT:-minbase}" $rb_mm --format=directory \
		    --hook-dir="$MMHOOKS/merged-usr" --hook-dir="$MMHOOKS/file-mirror-automount" \
		    '' "$rb_root" "deb [trusted=yes] file:$rb_mirror ./" ;;
	mmdebstrap-unsafe)
		unshare -n mmdebstrap --mode=root --variant="${RB_VARIANT:-minbase}" $rb_mm --format=directory \
		    --hook-dir="$MMHOOKS/merged-usr" --hook-dir="$MMHOOKS/file-mirror-automount" \
		    --dpkgopt=force-unsafe-io \
		    '' "$rb_root" "deb [trusted=yes] file:$rb_mirror ./" ;;
	mmdebstrap-eatmydata)
		unshare -n mmdebstrap --mode=root --variant="${RB_VARIANT:-minbase}" $rb_mm --format=directory \
		    --hook-dir="$MMHOOKS/merged-usr" --hook-dir="$MMHOOKS/file-mirror-automount" \
		    --hook-dir="$MMHOOKS/eatmydata" \
		    '' "$rb_root" "deb [trusted=yes] file:$rb_mirror ./" ;;
	bootstrap-durable)
		rb_bslog=${TMPDIR:-/tmp}/rootbuild-bootstrap.$$.log
		DEBUNPACK=$rb_bin DEBUNPACK_NOSYNC=$RB_NOSYNC unshare -n "$RB_BOOTSTRAP" -v \
		    --variant="${RB_VARIANT:-minbase}" $rb_mm '' "$rb_root" \
		    "deb [trusted=yes] file:$rb_mirror ./" > "$rb_bslog" 2>&1 ||
		    { tail -n 20 "$rb_bslog"; rm -f "$rb_bslog"; false; } || return
		# Its phases: the unpack (step1, no flush of its own: the one
		# barrier is at the end) and the configuration, on fd 3.
		sed -n 's/^debunpack-bootstrap: unpacked in \([0-9.]*\) s$/step1 \1 0/p;
		    s/^debunpack-bootstrap: configured in \([0-9.]*\) s$/configure_s \1/p' \
		    "$rb_bslog" >&3
		rm -f "$rb_bslog" ;;
	bootstrap-store)
		DEBUNPACK=$rb_bin DEBUNPACK_NOSYNC=$RB_NOSYNC unshare -n "$RB_BOOTSTRAP" -q \
		    --variant="${RB_VARIANT:-minbase}" $rb_mm --store="$RB_STORE" '' "$rb_root" \
		    "deb [trusted=yes] file:$rb_mirror ./" ;;
	*) echo "rootbuild: unknown method $rb_m" >&2; return 2 ;;
	esac || return
	case $rb_m in
	*-durable | *-eatmydata | bootstrap-store)
		s0=$(date +%s.%N)
		sync -f "$rb_root" || return
		s1=$(date +%s.%N)
		awk "BEGIN { printf \"sync_s %.6f\n\", $s1 - $s0 }" >&3 ;;
	esac
}

# rb_warm ROOT MIRROR BIN: the store $RB_STORE filled, untimed, by a build
# of the variant into ROOT, which goes: what bootstrap-store then finds.
rb_warm() {
	DEBUNPACK=$3 DEBUNPACK_NOSYNC=$RB_NOSYNC unshare -n "$RB_BOOTSTRAP" -q \
	    --variant="${RB_VARIANT:-minbase}" --store="$RB_STORE" '' "$1" \
	    "deb [trusted=yes] file:$2 ./" && rm -rf "$1" && sync -f "$RB_STORE"
}

# rb_step1 T0 "SECTORS0 FLUSHES0": prints on fd 3 the time and flushes of the
# debunpack step of the debunpack methods ("step1 S FLUSHES"): the rest of
# their time is dpkg --configure and the sync.
rb_step1() {
	t=$(date +%s.%N)
	f=$(rb_stat)
	awk -v t0="$1" -v t1="$t" -v f0="${2#* }" -v f1="${f#* }" \
	    'BEGIN { printf "step1 %.6f %d\n", t1 - t0, f1 - f0 }' >&3
}

# rb_source BUILDDIR: the checkout BUILDDIR was configured from and its
# revision ("-dirty" when its working tree has changes: make install
# rebuilds from that tree, so a bench of a tree being edited measures
# whatever it holds when each run installs it; bench a clone).
rb_source() {
	rs_src=$(sed -n 's/^abs_top_srcdir = //p' "$1/Makefile" 2>/dev/null)
	echo "${rs_src:-unknown} at $(git -C "${rs_src:-/nonexistent}" describe --always --dirty 2>/dev/null || echo unknown)"
}

# rb_can_debunpack BIN: true if BIN has the options the debunpack flow needs.
rb_can_debunpack() {
	"$1" --help 2>&1 | grep -q -- '--dpkg-db' &&
	    "$1" --help 2>&1 | grep -q -- '--run-preinst'
}

# rb_work_down WORK MNT: unmount and detach what rb_fs_up made for image
# WORK/img at MNT, then remove MNT and WORK (WORK stays if MNT is still
# mounted: removing it would reach into the mount).
rb_work_down() {
	rb_fs_down "$1/img" "$2"
	rmdir "$2" 2>/dev/null || true
	mountpoint -q "$2" || rm -rf "$1"
}
