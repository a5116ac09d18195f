#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmark workloads in a cache: real packages (bench/workloads/NAME.list)
# with apt-get download, synthetic ones (synth-Nk: N thousand 4 KiB files;
# synth-Ng: one N GiB file) with mkdeb. Each gets a SHA256SUMS manifest that
# names its files in install order, and nopreinst/ copies for dpkg.
# With -a ARCH, a list's packages of architecture ARCH (a root of another
# architecture) in CACHE/NAME-ARCH, from the host's sources through apt
# lists of its own in CACHE/.apt-ARCH (the host's dpkg is not told of
# ARCH); a package ARCH's archive lacks (libquadmath0 beside arm64) is left
# out, and said so.
# usage: bench/fetch.sh [-c CACHE] [-k MKDEB] [-a ARCH] WORKLOAD...
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cache=/var/cache/debunpack-bench
mkdeb=$top/build/tests/mkdeb
arch=""
usage() {
	echo "usage: $0 [-c CACHE] [-k MKDEB] [-a ARCH] WORKLOAD..." >&2
	echo "  WORKLOAD: a list in $top/bench/workloads, synth-Nk or synth-Ng" >&2
	echo "  -a ARCH: a list's packages of architecture ARCH, in CACHE/WORKLOAD-ARCH" >&2
	exit 2
}
while getopts c:k:a: o; do
	case $o in
	c) cache=$OPTARG ;;
	k) mkdeb=$OPTARG ;;
	a) arch=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage

tmp=""
cleanup() {
	[ -z "$tmp" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The list a workload's directory is filled from: bench/workloads/NAME.list,
# or with -a, its packages that ARCH's archive has ($dir/.list, made by
# arch_list).
list_of() {
	if [ -n "$arch" ]; then
		echo "$2/.list"
	else
		echo "$top/bench/workloads/$1.list"
	fi
}

# apt for ARCH alone, on lists of its own (-a): apt-get's options.
arch_apt() {
	aa=$cache/.apt-$arch
	echo "-o APT::Architecture=$arch -o APT::Architectures::=$arch" \
	    "-o Dir::State::Lists=$aa/lists -o Dir::State::status=$aa/status" \
	    "-o Dir::Cache=$aa/cache -o APT::Sandbox::User=root"
}

# arch_list NAME DIR: DIR/.list, NAME's list without what ARCH's archive
# lacks; the lists are read once (removing CACHE/.apt-ARCH reads them anew).
arch_list() {
	aa=$cache/.apt-$arch
	if [ ! -f "$aa/updated" ]; then
		mkdir -p "$aa/lists/partial" "$aa/cache/archives/partial"
		: > "$aa/status"
		# shellcheck disable=SC2046 # apt's options, one word each
		apt-get -q $(arch_apt) update > "$aa/update.log" 2>&1 ||
		    { echo "fetch: apt-get update for $arch failed: $(tail -n 1 "$aa/update.log")" >&2; return 1; }
		: > "$aa/updated"
	fi
	# shellcheck disable=SC2046 # apt's options, one word each
	apt-cache $(arch_apt) pkgnames | LC_ALL=C sort > "$2/.names"
	# The lists are the host's: its GNU triplet in a name
	# (binutils-x86-64-linux-gnu) is ARCH's there.
	al_from=$(dpkg-architecture -qDEB_HOST_GNU_TYPE 2> /dev/null | tr _ -)
	al_to=$(dpkg-architecture -a "$arch" -qDEB_HOST_GNU_TYPE 2> /dev/null | tr _ -)
	: > "$2/.list"
	while read -r pkg; do
		case $pkg in '' | '#'*) continue ;; esac
		case $pkg in *-"$al_from") pkg=${pkg%"$al_from"}$al_to ;; esac
		if LC_ALL=C look "$pkg" "$2/.names" | grep -qx "$pkg"; then
			echo "$pkg" >> "$2/.list"
		else
			echo "fetch: $1: $pkg has no $arch package: left out"
		fi
	done < "$top/bench/workloads/$1.list"
	# And what ARCH's packages depend on that the host's do not
	# (libhwasan0 for arm64's libgcc-12-dev): apt's closure of the list.
	# shellcheck disable=SC2046 # apt's options and the names, one word each
	apt-get -q $(arch_apt) -o APT::Install-Recommends=false --simulate \
	    install $(cat "$2/.list") > "$2/.closure" 2>&1 ||
	    { echo "fetch: $1: apt cannot install the list for $arch: $(grep '^E:' "$2/.closure" | head -n 1)" >&2; return 1; }
	sed -n 's/^Inst \([^ :]*\).*/\1/p' "$2/.closure" | while read -r pkg; do
		grep -qx "$pkg" "$2/.list" && continue
		echo "fetch: $1: $pkg added: the $arch packages depend on it"
		echo "$pkg" >> "$2/.list"
	done
}

# fetch_list NAME DIR: the packages of the list, each kept once it is there,
# so that a workload stays the same package versions from run to run until
# its directory is removed.
fetch_list() {
	fl_name=$1 fl_dir=$2 missing=""
	while read -r pkg; do
		case $pkg in '' | '#'*) continue ;; esac
		set -- "$fl_dir/${pkg}"_*.deb
		[ -e "$1" ] || missing="$missing $pkg"
	done < "$(list_of "$fl_name" "$fl_dir")"
	[ -n "$missing" ] || return 0
	echo "fetch: $fl_name: downloading$missing"
	tmp=$(mktemp -d "$fl_dir/.download.XXXXXX")
	# The sandbox user could not write into a root-only temporary directory.
	dl_opts="-o APT::Sandbox::User=root"
	[ -z "$arch" ] || dl_opts=$(arch_apt)
	# shellcheck disable=SC2086 # one word per package or option
	(cd "$tmp" && apt-get download -q $dl_opts $missing) > /dev/null
	mv "$tmp"/*.deb "$fl_dir/"
	rm -rf "$tmp"
	tmp=""
}

# list_files NAME DIR: the cached file of each package, in list order.
list_files() {
	lf_name=$1 lf_dir=$2
	while read -r pkg; do
		case $pkg in '' | '#'*) continue ;; esac
		set -- "$lf_dir/${pkg}"_*.deb
		if [ $# -ne 1 ] || [ ! -e "$1" ]; then
			echo "fetch: $pkg: expected one ${pkg}_*.deb in $lf_dir" >&2
			return 1
		fi
		basename "$1"
	done < "$(list_of "$lf_name" "$lf_dir")"
}

# synth_desc NAME: the mkdeb description of a synthetic workload.
# Files go 500 to a directory, about what a big /usr/share directory holds,
# so that directory size is not what the file count measures.
synth_desc() {
	sd_num=${1#synth-}
	sd_num=${sd_num%[kg]}
	case $1 in
	synth-*k) sd_files=$((sd_num * 1000)) ;;
	*) sd_files=0 ;;
	esac
	# zstd: mkdeb's random data does not compress, and zstd stores it raw
	# at ~250 MB/s, where xz -0 takes ~35 s per 256 MiB (~5 minutes for
	# synth-2g) and gzip -1 ~6 s. mkdeb builds the .deb in memory:
	# synth-2g takes ~16 s and ~4.2 GiB of RAM to make.
	echo "compress data zst"
	echo "control-field Package $1"
	echo "control-field Version 1.0"
	echo "control-field Architecture all"
	echo "control-field Maintainer debunpack bench <bench@example.org>"
	case $1 in
	synth-*k)
		sd_dirs=$(((sd_files + 499) / 500))
		echo "control-field Installed-Size $((sd_files * 4 + sd_dirs * 4 + 12))"
		;;
	synth-*g)
		echo "control-field Installed-Size $((sd_num * 1048576 + 12))"
		;;
	esac
	echo "control-field Description synthetic benchmark workload $1"
	echo "dir ./ 0755"
	echo "dir ./usr/ 0755"
	echo "dir ./usr/share/ 0755"
	echo "dir ./usr/share/$1/ 0755"
	case $1 in
	synth-*k)
		sd_d=0
		while [ $((sd_d * 500)) -lt "$sd_files" ]; do
			sd_n=$((sd_files - sd_d * 500))
			[ $sd_n -le 500 ] || sd_n=500
			printf 'dir ./usr/share/%s/d%03d/ 0755\n' "$1" $sd_d
			printf 'gen %d ./usr/share/%s/d%03d/f 0644 4096\n' $sd_n "$1" $sd_d
			sd_d=$((sd_d + 1))
		done
		;;
	synth-*g)
		echo "file ./usr/share/$1/big 0644 size:$((sd_num * 1073741824))"
		;;
	esac
}

# make_synth NAME DIR: the package, rebuilt only when its description
# changed.
make_synth() {
	synth_desc "$1" > "$2/.desc.new"
	if [ -f "$2/$1.deb" ] && cmp -s "$2/.desc.new" "$2/$1.desc"; then
		rm -f "$2/.desc.new"
		return 0
	fi
	if [ ! -x "$mkdeb" ]; then
		echo "fetch: no mkdeb at $mkdeb: build debunpack first (make -C build) or give -k" >&2
		return 1
	fi
	echo "fetch: $1: generating with mkdeb"
	rm -f "$2/$1.deb" "$2/$1.desc"
	"$mkdeb" "$2/.desc.new" "$2/.$1.deb.tmp"
	mv "$2/.$1.deb.tmp" "$2/$1.deb"
	mv "$2/.desc.new" "$2/$1.desc"
}

# manifest DIR FILE...: DIR/SHA256SUMS names exactly FILE... in that order;
# an unchanged set is verified rather than trusted.
manifest() {
	mf_dir=$1
	shift
	if [ -f "$mf_dir/SHA256SUMS" ] &&
	    [ "$(awk '{ print $2 }' "$mf_dir/SHA256SUMS")" = "$(printf '%s\n' "$@")" ]; then
		(cd "$mf_dir" && sha256sum --quiet --strict -c SHA256SUMS) && return 0
		echo "fetch: $mf_dir: checksum mismatch: remove the files named above and rerun" >&2
		return 1
	fi
	(cd "$mf_dir" && sha256sum -- "$@") > "$mf_dir/.SHA256SUMS.new"
	mv "$mf_dir/.SHA256SUMS.new" "$mf_dir/SHA256SUMS"
}

# strip_preinst SRC DST: SRC without its preinst, which cannot run in an
# empty root. Only control.tar changes: the other members are copied as they
# are, in the same order, so dpkg decompresses the same data.
strip_preinst() {
	tmp=$(mktemp -d "$(dirname "$2")/.strip.XXXXXX")
	members=$(ar t "$1")
	ctrl=$(printf '%s\n' "$members" | grep '^control\.tar')
	case $ctrl in
	control.tar.xz) dec="xz -dc" enc="xz -c" ;;
	control.tar.gz) dec="gzip -dc" enc="gzip -9nc" ;;
	control.tar.zst) dec="zstd -qdc" enc="zstd -qc" ;;
	control.tar) dec=cat enc=cat ;;
	*) echo "fetch: $1: unknown control member '$ctrl'" >&2; return 1 ;;
	esac
	(cd "$tmp" && ar x "$1")
	$dec < "$tmp/$ctrl" > "$tmp/ctrl.tar"
	tar --delete -f "$tmp/ctrl.tar" ./preinst
	$enc < "$tmp/ctrl.tar" > "$tmp/$ctrl"
	# shellcheck disable=SC2086 # one word per member
	(cd "$tmp" && ar rcD "$2.tmp" $members)
	dpkg-deb --info "$2.tmp" > /dev/null
	mv "$2.tmp" "$2"
	rm -rf "$tmp"
	tmp=""
}

# nopreinst DIR: DIR/nopreinst holds a copy of each package of the
# manifest, without preinst; packages that have none are hardlinked.
nopreinst() {
	np=$1/nopreinst
	if [ -f "$np/SHA256SUMS.src" ] && cmp -s "$1/SHA256SUMS" "$np/SHA256SUMS.src"; then
		return 0
	fi
	rm -rf "$np"
	mkdir "$np"
	# Not a pipe into the loop: the EXIT trap must see strip_preinst's tmp.
	while read -r _ f; do
		if dpkg-deb --ctrl-tarfile "$1/$f" | tar -t | grep -qx '\./preinst'; then
			strip_preinst "$1/$f" "$np/$f"
		else
			ln "$1/$f" "$np/$f" 2>/dev/null || cp "$1/$f" "$np/$f"
		fi
	done < "$1/SHA256SUMS"
	cp "$1/SHA256SUMS" "$np/SHA256SUMS.src"
}

for w in "$@"; do
	dir=$cache/$w${arch:+-$arch}
	mkdir -p "$dir"
	case $w in
	synth-[1-9]*k | synth-[1-9]*g)
		n=${w#synth-}
		n=${n%[kg]}
		case $n in *[!0-9]*) usage ;; esac
		make_synth "$w" "$dir"
		manifest "$dir" "$w.deb"
		;;
	*)
		if [ ! -f "$top/bench/workloads/$w.list" ]; then
			echo "fetch: no workload $w (no $top/bench/workloads/$w.list)" >&2
			exit 2
		fi
		[ -z "$arch" ] || arch_list "$w" "$dir"
		fetch_list "$w" "$dir"
		files=$(list_files "$w" "$dir")
		# shellcheck disable=SC2086 # file names have no blanks
		manifest "$dir" $files
		;;
	esac
	# The nopreinst copies are for dpkg on the host: not for another
	# architecture.
	[ -n "$arch" ] || nopreinst "$dir"
	echo "fetch: $w: $(wc -l < "$dir/SHA256SUMS") packages in $dir"
done
