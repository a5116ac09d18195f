#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/maintfaults.sh's upgrade in the default sync mode, every fault
# point, in a directory on btrfs: there the dpkg for apt writes dpkg's
# status that follows the old postrms before the batch's names barrier
# (unpackseq_status.c, seq_prewrite), and only renames it after them; a
# fault in that early write must fail the call as the write's own would.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "not root: the loop device needs root"
command -v mkfs.btrfs > /dev/null || skip "mkfs.btrfs missing"
[ -e /dev/loop-control ] || modprobe loop 2> /dev/null || true
truncate -s 512M "$T/b.img"
mkfs.btrfs -q -f "$T/b.img" > /dev/null || fail "mkfs.btrfs"
loop_attach "$T/b.img" || skip "no loop device"
mkdir "$T/mb"
cleanup_hooks="umount '$T/mb' 2> /dev/null; $cleanup_hooks"
mount "$loop" "$T/mb" || fail "cannot mount btrfs"
st=0
FAULT_SCENS=upgrade FAULT_MODES=syncfs FAULT_STEP=1 TMPDIR=$T/mb \
    sh "${srcdir:-.}/tests/maintfaults.sh" || st=$?
exit $st
