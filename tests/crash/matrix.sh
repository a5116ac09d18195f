#!/bin/sh
# The whole power-loss matrix: install and upgrade, syncfs, batched and
# perfile,
# on ext4, ext4 with noauto_da_alloc, xfs and btrfs, with enough random
# subsets for over 2,000 states per file system; then the negative
# controls.  Run from a configured build directory, as root:
#	sh ../tests/crash/matrix.sh
# One line per scenario: states, violations, time.  Exit 1 on a violation
# in a durable mode, or a negative control that finds none.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$PWD
export srcdir="$top" DEBUNPACK="$build/debunpack" MKDEB="$build/tests/mkdeb" \
    FIXTURES="$top/tests/fixtures" RECORDER="$build/tests/crash/recorder" \
    CRASHREPLAY="$build/tests/crash/crashreplay"
st=0
for fs in ext4 ext4-noauto xfs btrfs; do
	for mode in syncfs batched perfile; do
		# perfile flushes about twice as often: fewer subsets each;
		# syncfs flushes a few times per run: many subsets each.
		case $mode in
		syncfs) subsets=64 ;;
		batched) subsets=16 ;;
		*) subsets=8 ;;
		esac
		for scenario in install upgrade; do
			out=$(sh "$top/tests/crash/crash.sh" -s $subsets $fs \
			    $mode $scenario 2>&1) || st=1
			printf '%s\n' "$out" | grep -v '^VIOLATION'
			printf '%s\n' "$out" | grep '^VIOLATION' | head -n 20
		done
	done
done
# The recording through a loop device in direct-I/O mode, and fsck of
# every state, on each file system once.
for fs in ext4 xfs btrfs; do
	out=$(sh "$top/tests/crash/crash.sh" -d -f -s 2 $fs batched upgrade 2>&1) ||
	    st=1
	printf '%s\n' "$out" | grep -v '^VIOLATION'
	printf '%s\n' "$out" | grep '^VIOLATION' | head -n 20
done
for fs in ext4-noauto xfs; do
	out=$(sh "$top/tests/crash/crash.sh" -e -s 4 $fs none upgrade 2>&1) ||
	    st=1
	printf '%s\n' "$out" | grep -v '^VIOLATION'
	printf '%s\n' "$out" | grep '^VIOLATION' | head -n 5
done
exit $st
