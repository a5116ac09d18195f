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
# libarchive-tools for the device nodes of their tarballs, mmdebstrap
# for its hook directory (tests/bootstrap-mmdebstrap.sh), and
# qemu-user-static with binfmt-support to run an arm64 root's scripts
# (tests/foreign.sh).
deps="$(build_deps) dpkg e2fsprogs xfsprogs btrfs-progs mount util-linux
valgrind python3 apt xz-utils zstd strace libfuse3-dev fuse3 bindfs clang
libclang-rt-14-dev debhelper dpkg-dev fakeroot time apt-utils uidmap
libarchive-tools mmdebstrap qemu-user-static binfmt-support"

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
	# qemu-user-static registers its binfmt_misc entries where the
	# machine runs systemd or binfmt-support's service; a container
	# may have neither running: mount the filesystem, enable them.
	if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc \
		    2> /dev/null || true
	fi
	if [ -e /proc/sys/fs/binfmt_misc/status ] &&
	    [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] &&
	    command -v update-binfmts > /dev/null; then
		update-binfmts --enable qemu-aarch64 > /dev/null 2>&1 || true
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
