#!/bin/sh
# SPDX-License-Identifier: MIT
# Set-up on a fresh Debian machine: build dependencies (when root), then an
# out-of-tree build in $BUILD (default build/).  Reruns only do what is missing.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

# The build dependencies are debian/control's Build-Depends (but debhelper,
# which only the package build needs) and a compiler and make: one list,
# which README repeats (tests/docs.sh holds the two together).
# "setup.sh --build-deps" prints them.
build_deps() {
	echo gcc make
	awk '/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, "") }
	    on && /^[^ \t]/ { on = 0 }
	    on' "$top/debian/control" | tr ',' '\n' |
	    sed -e 's/([^)]*)//g' -e 's/\[[^]]*\]//g' -e 's/|.*//' -e 's/[[:space:]]//g' |
	    grep -v -e '^$' -e '^debhelper'
}
if [ "${1:-}" = --build-deps ]; then
	build_deps
	exit 0
fi

# For the tests: dpkg-deb (dpkg), mkfs for ext4/xfs/btrfs, losetup/mount,
# setpriv (util-linux), valgrind, python3 for JSON checks, apt for real
# packages, xz-utils and zstd for compressed packages and tarballs,
# strace to kill runs at every system call (tests/kill.sh), libfuse3 and
# fuse3 for the power-loss recorder (tests/crash), bindfs for a FUSE mount
# inside a root (tests/mounts.sh), clang and its libFuzzer runtime for
# the fuzz target (tests/fuzz), debhelper, dpkg-dev and fakeroot to build
# debunpack's own .deb (tests/debbuild.sh; dpkg-dev's dpkg-source also
# unpacks dpkg's source for make check-dpkg-suite), GNU time for peak memory
# (tests/xzblocks.sh), apt-utils for the test mirrors and uidmap for the
# rootless builds of debunpack-bootstrap (tests/bootstrap*.sh), with
# libarchive-tools for the device nodes of their tarballs, and mmdebstrap
# for its hook directory (tests/bootstrap-mmdebstrap.sh); qemu-user-static
# and binfmt-support run the maintainer scripts of a foreign root
# (tests/foreign.sh, tests/bootstrap-foreign.sh), arch-test lets mmdebstrap build one beside
# it (bench/rootbuild.sh -a).
deps="$(build_deps) dpkg e2fsprogs xfsprogs btrfs-progs mount util-linux
valgrind python3 apt xz-utils zstd strace libfuse3-dev fuse3 bindfs clang
libclang-rt-14-dev debhelper dpkg-dev fakeroot time apt-utils uidmap
libarchive-tools mmdebstrap qemu-user-static binfmt-support arch-test"

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	missing=""
	for p in $deps; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		    grep -q 'install ok installed' || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "setup: installing$missing"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		    --no-install-recommends $missing > /dev/null
	fi
	# A fresh machine (a container, a CI VM without systemd's automount)
	# may have binfmt_misc unmounted, and binfmt-support's postinst then
	# registers nothing: mount it and register the one emulator the
	# foreign root's test needs, leaving every other format as it is.
	bf=/proc/sys/fs/binfmt_misc
	[ -e "$bf/status" ] || mount -t binfmt_misc binfmt_misc "$bf" 2> /dev/null || :
	case $(dpkg --print-architecture) in arm64) q=x86_64 ;; *) q=aarch64 ;; esac
	if [ -e "$bf/status" ] && [ ! -e "$bf/qemu-$q" ]; then
		update-binfmts --enable "qemu-$q" > /dev/null 2>&1 ||
		    echo "setup: cannot register qemu-$q in binfmt_misc: tests/bootstrap-foreign.sh will skip" >&2
	fi
elif ! pkg-config --exists libarchive check 2>/dev/null; then
	echo "setup: not root: install the build dependencies first:" >&2
	echo "  apt-get install $(echo $deps)" >&2
	exit 1
fi

cd "$top"
[ -x configure ] || autoreconf -fi
build=${BUILD:-build}
mkdir -p "$build"
cd "$build"
# shellcheck disable=SC2086 # CONFIGURE_FLAGS holds several words
[ -f Makefile ] || "$top/configure" -q ${CONFIGURE_FLAGS:-}
make -s -j"$(nproc)"
