#!/bin/sh
# SPDX-License-Identifier: MIT
# The whole power-loss matrix: install and upgrade, syncfs, batched and
# perfile, on ext4, ext4 with noauto_da_alloc, xfs and btrfs, with enough
# random subsets for over 2,000 states per file system; syncfs and
# batched in overlays over ext4, xfs and btrfs; a FUSE mount inside the
# root, and runs killed before and after their commit point and repaired;
# the upgrade as the dpkg for apt runs it, with dpkg's status checked too;
# the upgrade cloned from the store of unpacked files; then the negative
# controls.  Run from a configured build directory, as root:
#	sh ../tests/crash/matrix.sh
# One line per scenario: states, violations, time.  Exit 1 on a violation
# in a durable mode, or a negative control that finds none.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$PWD
export srcdir="$top" DEBUNPACK="$build/debunpack" MKDEB="$build/tests/mkdeb" \
    FIXTURES="$top/tests/fixtures" RECORDER="$build/tests/crash/recorder" \
    CRASHREPLAY="$build/tests/crash/crashreplay" \
    DPKGSHIM="$build/src/cli/dpkg" DEBUNPACK_NOSYNC="$build/debunpack-nosync"
st=0
# one ARG...: one crash.sh scenario; its line and its first violations.
one() {
	out=$(sh "$top/tests/crash/crash.sh" "$@" 2>&1) || st=1
	printf '%s\n' "$out" | grep -v '^VIOLATION'
	printf '%s\n' "$out" | grep '^VIOLATION' | head -n 20
}
# both FS MODE: install and upgrade, with random subsets after each flush:
# many where a run flushes a few times (syncfs), fewer where it flushes
# per file (perfile about twice as often as batched).
both() {
	case $2 in
	syncfs) subsets=64 ;;
	batched) subsets=16 ;;
	*) subsets=8 ;;
	esac
	one -s $subsets "$1" "$2" install
	one -s $subsets "$1" "$2" upgrade
}
for fs in ext4 ext4-noauto xfs btrfs; do
	for mode in syncfs batched perfile; do
		both $fs $mode
	done
done
# The recording through a loop device in direct-I/O mode, and fsck of
# every state, on each file system once.
for fs in ext4 xfs btrfs; do
	one -d -f -s 2 $fs batched upgrade
done
# Overlays (containers): the mode auto gives them, and batched.
for fs in ovl-ext4 ovl-xfs ovl-btrfs; do
	both $fs syncfs
	both $fs batched
done
# A FUSE mount inside the root (/usr/share on bindfs), and runs killed
# before and after their commit point, then repaired by the next run.
for fs in ext4 xfs btrfs; do
	one -F -s 16 $fs syncfs install
	one -F -s 16 $fs batched upgrade
	for kill in linkat:2 renameat:3 unlinkat:8; do
		one -F -k $kill -s 8 $fs syncfs upgrade
	done
	one -k unlinkat:8 -s 8 $fs batched upgrade
done
# The file system commits while the run goes on, as on a long run (ext4
# every 5 s, or another program's fsync): the journal's lines must reach
# the disk before the directories they name change.
for fs in ext4 xfs btrfs; do
	one -C -s 4 $fs syncfs install
	one -C -s 4 $fs batched upgrade
	one -C -s 2 $fs perfile upgrade
	# A commit after the first renames: names never before their data.
	one -C -p renameat:2 -s 4 $fs syncfs upgrade
	# A commit after the first unlink past the commit line: a backup's
	# removal never durable before the line.
	one -C -p unlinkat:1 -s 4 $fs syncfs upgrade
done
# The upgrade as the dpkg for apt runs it: dpkg's database and status,
# maintainer scripts.
for fs in ext4 xfs btrfs; do
	one -s 16 $fs syncfs scripts
	one -s 8 $fs batched scripts
	one -s 16 $fs syncfs dbinstall
	one -s 16 $fs syncfs groups
	one -C -s 4 $fs syncfs groups
done
# The upgrade from the store of unpacked files, filled by an earlier run:
# every file cloned (FICLONE) on xfs and btrfs, copied on ext4.
for fs in xfs btrfs ext4; do
	one -s 64 $fs syncfs cloned
	one -s 16 $fs batched cloned
done
# The upgrade that fills the store: in every state an install from the
# store that state holds gives what a decoded one gives.
for fs in xfs btrfs ext4; do
	one -s 16 $fs syncfs fill
	one -C -s 2 $fs syncfs fill
done
for fs in ext4-noauto xfs ovl-ext4; do
	one -e -s 4 $fs none upgrade
done
# dpkg --configure through the dpkg for apt: batched on ext4, dpkg's own
# syncs and one barrier on ext4 without auto_da_alloc, guarded (only the
# database's syncs, each its file written back on xfs or settled on
# btrfs, no commit before the barrier) on xfs and btrfs, where durable dpkg
# alone leaves states --configure -a cannot finish on btrfs (its fsync
# of an update file carries none of the renames made before it); and
# guarded while the file system commits again and again.
for fs in ext4 ext4-noauto xfs btrfs; do
	one -s 16 $fs syncfs configure
done
for fs in xfs btrfs; do
	one -C -s 4 $fs syncfs configure
done
one -e -s 4 ext4 none configure
one -e -s 4 xfs none cloned
one -e -s 4 ext4-noauto none scripts
exit $st
