#!/bin/sh
# SPDX-License-Identifier: MIT
# The power-loss crash tests that make check runs: a fresh install and an
# upgrade in the default mode, syncfs, on ext4 (every flush, and 16 random
# subsets of the writes after each: syncfs flushes a few times per run,
# each time after many writes), and the negative control, which must find
# violations: --sync-mode none on ext4 with noauto_da_alloc; an upgrade
# in an overlay whose upper layer is ext4, as in a container; an install
# with /usr/share on a FUSE mount, and an upgrade there killed after its
# commit point and repaired by the next run, recorded too; the upgrade as
# the dpkg for apt runs it (dpkg's database, maintainer scripts: dpkg's
# status must fit the files in every state; on ext4 and on xfs, where
# the status written after the old postrms carries the cleanup's
# barrier), and a first install there,
# whose cleanup is left to the file system; dpkg --configure as the dpkg
# for apt runs it on ext4 (batched: dpkg's syncs suppressed, one barrier)
# and on btrfs (guarded: only its database's syncs, each its file
# settled, no commit before the barrier), and
# its negative control (no barrier); an upgrade whose files are
# cloned from the store, on xfs and btrfs (reflinks), and the upgrade that
# fills the store, on xfs, btrfs and ext4 (in every state an install from
# the store the state holds is a decoded one's); an upgrade on ext4
# while the file system commits again and again, as on a long run (the
# journal's lines must reach the disk before the directories they name
# change), and on ext4, xfs and btrfs with a pause after its first
# rename, in which the file system commits (the names made so far must
# not be durable before the data they point at: syncfs.c,
# syncfs_wait_data; on btrfs the files are settled, not committed, before
# the renames), and the dpkg for apt's upgrade on btrfs (its status
# files settled too),
# and on ext4 with a pause at its first unlink past the commit line (a
# backup's removal must not be durable before the line: syncfs_leave);
# the dpkg for apt's call of two batches (an Essential package ends the
# first), which leave their one commit to the call, on ext4 and xfs;
# and that call's upgrade in batched mode on btrfs, whose per-file
# fsyncs would log the renames of the files they synced (syncmodes.c).
# The whole matrix:
# tests/crash/matrix.sh.  CRASH_SEEDS=N: at most N random subsets after
# each flush, CRASH_MAX=M: at most M states of each case, evenly spread
# (tests/run.sh sets both for CI; the default is each case's, and all).
set -u
crash="${srcdir:-.}/tests/crash/crash.sh"
skipped=0
for args in "-s 16 ext4 syncfs install" "-s 16 ext4 syncfs upgrade" \
    "-s 8 ovl-ext4 syncfs upgrade" "-F -s 4 ext4 syncfs install" \
    "-F -k unlinkat:8 -s 4 ext4 syncfs upgrade" \
    "-s 4 ext4 syncfs replaces" "-s 4 ext4 syncfs scripts" \
    "-s 2 xfs syncfs scripts" \
    "-s 4 ext4 syncfs groups" "-s 2 xfs syncfs groups" \
    "-s 4 ext4 syncfs dbinstall" "-s 4 ext4 syncfs configure" \
    "-s 4 btrfs syncfs configure" "-e -s 2 ext4 none configure" \
    "-s 4 xfs syncfs cloned" "-s 4 btrfs syncfs cloned" \
    "-s 4 xfs syncfs fill" "-s 4 btrfs syncfs fill" "-s 2 ext4 syncfs fill" \
    "-C -s 2 ext4 batched upgrade" "-s 2 btrfs batched scripts" \
    "-C -p renameat:2 -s 2 ext4 syncfs upgrade" \
    "-C -p renameat:2 -s 2 xfs syncfs upgrade" \
    "-C -p renameat:2 -s 2 btrfs syncfs upgrade" "-s 2 btrfs syncfs scripts" \
    "-C -p unlinkat:1 -s 2 ext4 syncfs upgrade" \
    "-e -s 2 ext4-noauto none upgrade"; do
	if [ -n "${CRASH_SEEDS:-}" ]; then
		# shellcheck disable=SC2086 # ARGS holds several words
		set -- $args
		args=""
		while [ $# -gt 0 ]; do
			if [ "$1" = -s ] && [ "$2" -gt "$CRASH_SEEDS" ]; then
				args="$args -s $CRASH_SEEDS"
				shift 2
				continue
			fi
			args="$args $1"
			shift
		done
	fi
	[ -z "${CRASH_MAX:-}" ] || args="-n $CRASH_MAX $args"
	# shellcheck disable=SC2086 # ARGS holds several words
	sh "$crash" $args > "${TMPDIR:-/tmp}/crash-quick.$$" 2>&1
	st=$?
	grep -v '^VIOLATION' "${TMPDIR:-/tmp}/crash-quick.$$"
	if [ $st = 77 ]; then
		skipped=1
	elif [ $st != 0 ]; then
		grep '^VIOLATION' "${TMPDIR:-/tmp}/crash-quick.$$" | head -20
		rm -f "${TMPDIR:-/tmp}/crash-quick.$$"
		exit 1
	fi
done
rm -f "${TMPDIR:-/tmp}/crash-quick.$$"
[ $skipped = 0 ] || exit 77
