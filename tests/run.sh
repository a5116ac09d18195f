#!/bin/sh
# SPDX-License-Identifier: MIT
# The test suite as CI runs it: warnings as errors and make check of the
# whole roots, every other test under ASan+UBSan, 60 s of fuzzing
# (FUZZ_TIME) beside the unit tests and one run of each mode under
# valgrind, and make distcheck.  Set QUICK=1 to stop after the first
# make check.
#
# CI has 90 minutes on machines whose speed varies fourfold (its disk's
# the most), and is to stay under 45 on these, so each test runs once:
# the whole roots (below) in the plain pass, every other test under
# ASan+UBSan, and the sweeps in part: every 64th kill point, every 96th
# fault point, a sixth of the random kills, 3 full-disk steps, one random
# subset of the writes after each flush and at most 20 states of each
# power-loss case, the hostile catalogue's dry runs in every fourth case,
# 60 s of fuzzing.  Which points and subsets is set by the commit
# (SWEEP_OFFSET, from its hash): successive commits try the others.
# `make check-full` in a build directory runs the sweeps whole (every
# point; many minutes), `sh tests/crash/matrix.sh` every power-loss case,
# `make check-dpkg-suite` dpkg's whole functional suite, of which
# tests/dpkgsuite-ci.sh runs the 69 default tests the shim unpacks
# wholly here, and `make check` every test
# in one build.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# CI must reach dpkg's suite (tests/dpkgsuite-ci.sh): not having it fails.
DPKG_SUITE_REQUIRED=1
export DPKG_SUITE_REQUIRED
started=$(date +%s)

check() {	# DIR [TESTS]: make check, showing the logs of what failed
	rc=0
	make -s -C "$1" -j"$(nproc)" check ${2:+"TESTS=$2"} || rc=$?
	slowest "$1"
	if [ $rc != 0 ]; then
		for log in "$1"/tests/*.log "$1"/tests/*/*.log; do
			grep -q ':test-result: \(FAIL\|ERROR\)' "${log%.log}.trs" 2>/dev/null &&
			    { echo "=== $log"; tail -n 40 "$log"; }
		done
		exit 1
	fi
}

# slowest DIR: the ten longest tests of the last make check there, from
# each log's birth (the test's start) to its .trs (its end), and the time
# so far: where CI's minutes go, in its own output.
slowest() {
	for trs in "$1"/tests/*.trs "$1"/tests/*/*.trs; do
		[ -f "$trs" ] || continue
		born=$(stat -c %W "${trs%.trs}.log" 2>/dev/null) || continue
		[ "$born" -gt 0 ] 2>/dev/null || return 0	# no birth times here
		t=${trs%.trs}
		echo "$(($(stat -c %Y "$trs") - born)) ${t#"$1"/}"
	done | sort -rn | head -n 10 | awk '{ printf "  %5d s  %s\n", $1, $2 }'
	echo "  ($(($(date +%s) - started)) s since the start)"
}

# reap WHAT PID LOG N: the end of a job run in the background: the last
# N lines of its LOG (0: none), and 60 when it failed, which fails CI.
reap() {
	echo "== end of $1"
	rc=0
	wait "$2" || rc=$?
	[ "$4" = 0 ] || tail -n "$4" "$3"
	if [ $rc != 0 ]; then
		[ "$4" != 0 ] || tail -n 60 "$3"
		echo "$1 failed (exit $rc): $3"
		exit 1
	fi
	echo "  ($(($(date +%s) - started)) s since the start)"
}

# The plain pass (-O2, what users run): the unit tests and the tests
# whose every step is a whole root (bootstraps, apt runs, dpkg's suite,
# power-loss states of a root), those whose time is dpkg's beside ours
# or a loop disk's, and the kill sweep (strace and SIGKILL: no cleanup
# runs for a sanitizer to check; the repair's does, under valgrind
# below).  Their C paths run under the sanitizers in the smaller tests,
# which run there only.
# Longest first, as in Makefile.am: make -j starts them in this order.
roots="tests/crash/quick.sh tests/kill.sh tests/aptshim.sh tests/fullfs.sh
tests/recipes.sh tests/dpkgsuite-ci.sh tests/bootstrap.sh
tests/bootstrap-unshare.sh tests/store.sh tests/bootstrap-foreign.sh
tests/real-debs.sh tests/dpkg-compare.sh tests/conflicts.sh
tests/multiarch.sh tests/bootstrap-store.sh tests/bootstrap-mmdebstrap.sh
tests/minbase.sh tests/killrand.sh"
# without DIR WORDS: the tests of DIR's make check but WORDS
without() {
	# shellcheck disable=SC2086 # one word per test
	make -s -C "$1" print-tests | tr ' ' '\n' |
	    grep -vxF "$(printf '%s\n' $2)" | tr '\n' ' '
}

# The sweeps' share in CI (see above), and its offset: SWEEP_OFFSET=N
# sh tests/run.sh runs the points of another commit's CI again.
KILL_STEP=${KILL_STEP:-64} FAULT_STEP=${FAULT_STEP:-96}
KILLRAND_TRIALS=${KILLRAND_TRIALS:-36} CRASH_SEEDS=${CRASH_SEEDS:-1}
CRASH_MAX=${CRASH_MAX:-20} HOSTILE_DRY_STEP=${HOSTILE_DRY_STEP:-4}
FULLFS_STEPS=${FULLFS_STEPS:-3} FULLFS_ISTEPS=${FULLFS_ISTEPS:-2}
if [ -z "${SWEEP_OFFSET:-}" ]; then
	SWEEP_OFFSET=$(git rev-parse HEAD 2> /dev/null | cut -c 1-6)
	SWEEP_OFFSET=$((0x${SWEEP_OFFSET:-0}))
fi
export KILL_STEP FAULT_STEP KILLRAND_TRIALS CRASH_SEEDS CRASH_MAX \
    FULLFS_STEPS FULLFS_ISTEPS SWEEP_OFFSET
echo "== sweeps: one kill point in $KILL_STEP, one fault point in $FAULT_STEP, SWEEP_OFFSET=$SWEEP_OFFSET"

echo "== build (-Werror) and make check (the unit tests and the whole roots)"
CONFIGURE_FLAGS=--enable-werror sh tests/setup.sh
check build "$roots $(make -s -C build print-units)"
[ "${QUICK:-0}" = 1 ] && exit 0

# Beside the sanitizers' configure, which keeps one core at most; its
# log is shown once their make check has passed.
echo "== debunpack's own .deb: build, contents, install (tests/debbuild.sh), in the background"
(sh tests/debbuild.sh || [ $? = 77 ]) > build/debbuild.log 2>&1 &
debbuild=$!
trap 'kill "$debbuild" 2> /dev/null || true' EXIT

echo "== ASan+UBSan build and make check (every test but the whole roots)"
BUILD=build-asan CONFIGURE_FLAGS=--enable-werror \
    CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
    sh tests/setup.sh
# The hostile catalogue in one sync mode (its cases are about parsing
# and paths, not syncing).
HOSTILE_MODES=syncfs HOSTILE_DRY_STEP=$HOSTILE_DRY_STEP \
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    check build-asan "$(without build-asan "$roots")"

reap tests/debbuild.sh "$debbuild" build/debbuild.log 20

# The fuzzer, make distcheck and valgrind each keep one core busy at
# most: side by side, their logs shown at the end.
echo "== fuzzing the install path for ${FUZZ_TIME:-60} s (tests/fuzz), in the background"
FUZZ_TIME=${FUZZ_TIME:-60} FUZZ_JOURNAL_TIME=${FUZZ_JOURNAL_TIME:-15} \
    sh tests/fuzz/run.sh > build/fuzz.log 2>&1 &
fuzz=$!

echo "== make distcheck, in the background"
# The tarball builds, installs and passes its unit tests and the tests of
# the program's surface (options, documents, install); the rest ran
# above on this tree, which is what the tarball holds.
units=$(make -s -C build print-units)
[ -n "$units" ] || { echo "distcheck: no unit test to run"; exit 1; }
make -s -C build distcheck \
    TESTS="$units tests/cli.sh tests/docs.sh tests/install.sh tests/bad.sh" \
    > build/distcheck.log 2>&1 &
distcheck=$!

echo "== valgrind: unit tests and one run of every sync mode"
# The unit tests in the background, beside the runs below: alone, the
# last of the four jobs kept one core while the other waited.
for t in build/tests/check_*; do
	[ -x "$t" ] || continue
	CK_FORK=no valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
	    --error-exitcode=1 "$t" > /dev/null || { echo "valgrind: $t"; exit 1; }
done > build/valgrind-units.log 2>&1 &
vgunits=$!
vg=$(mktemp -d)
trap 'rm -rf "$vg"; kill "$fuzz" "$distcheck" "$vgunits" 2> /dev/null || true' EXIT
build/tests/mkdeb tests/fixtures/alltypes.desc "$vg/a.deb"
for mode in syncfs batched perfile none; do
	mkdir "$vg/$mode"
	valgrind -q --leak-check=full --error-exitcode=1 \
	    build/debunpack -q --root "$vg/$mode" --sync-mode $mode "$vg/a.deb" ||
	    { echo "valgrind: debunpack --sync-mode $mode"; exit 1; }
done
# dpkg's database: a new one, then merged by an upgrade over it.
mkdir "$vg/db"
for i in 1 2; do
	valgrind -q --leak-check=full --error-exitcode=1 \
	    build/debunpack -q --root "$vg/db" --dpkg-db --merged-usr "$vg/a.deb" ||
	    { echo "valgrind: debunpack --dpkg-db ($i)"; exit 1; }
done
# Queries in their formats, a removal and a purge over dpkg's database,
# and -R over a directory.
for q in "--list --json" "--list alltypes nosuch" "--verify --json" \
    "--verify --verify-format=rpm alltypes nosuch" "--owner /usr --json" \
    "--owner bin/a nothing" "--files alltypes nosuch"; do
	# shellcheck disable=SC2086 # Q holds an option and its words
	if valgrind -q --leak-check=full --error-exitcode=3 \
	    build/debunpack --root "$vg/db" $q > /dev/null 2>&1; then
		:
	elif [ $? = 3 ]; then
		echo "valgrind: debunpack $q"; exit 1
	fi
done
for rm in --remove --purge; do
	valgrind -q --leak-check=full --error-exitcode=1 \
	    build/debunpack -q --root "$vg/db" --dpkg-db --no-scripts $rm alltypes ||
	    { echo "valgrind: debunpack $rm"; exit 1; }
done
# The maintainer scripts' sequence over dpkg's database, a preinst that
# fails among them (its unwind), then the dpkg for apt's --configure
# (the real dpkg, under debunpack-nosync where the filesystem allows).
for p in ok fail; do
	rc=0
	[ $p = ok ] || rc=1
	printf '%s\n' "control-field Package $p" "control-field Version 1" \
	    "control-field Architecture all" "control-field Priority optional" \
	    "control-field Section misc" \
	    "control-file preinst 0755 #!/bin/sh\\nexit $rc\\n" \
	    "dir ./usr/ 0755" "file ./usr/$p 0644 text:$p" > "$vg/$p.desc"
	build/tests/mkdeb "$vg/$p.desc" "$vg/$p.deb"
done
mkdir -p "$vg/ms/var/lib/dpkg/info" "$vg/ms/var/lib/dpkg/updates"
: > "$vg/ms/var/lib/dpkg/status"
st=0
valgrind -q --leak-check=full --error-exitcode=3 build/debunpack -q \
    --root "$vg/ms" --dpkg-db --maintscripts --force-script-chrootless \
    "$vg/ok.deb" "$vg/fail.deb" > /dev/null 2>&1 || st=$?
[ $st = 1 ] || { echo "valgrind: debunpack --maintscripts (exit $st)"; exit 1; }
DEBUNPACK_NOSYNC=$PWD/build/debunpack-nosync valgrind -q --leak-check=full \
    --error-exitcode=3 build/src/cli/dpkg --root="$vg/ms" --force-not-root \
    --force-script-chrootless --log=/dev/null --configure -a > /dev/null 2>&1 ||
    { echo "valgrind: the dpkg for apt's --configure"; exit 1; }
mkdir "$vg/tree" "$vg/rec"
cp "$vg/a.deb" "$vg/tree/"
valgrind -q --leak-check=full --error-exitcode=1 \
    build/debunpack -q --root "$vg/rec" -R "$vg/tree" ||
    { echo "valgrind: debunpack -R"; exit 1; }
# Threads: a package of many xz blocks decoded by three of them, then
# the same with a corrupt block in the middle, which they hand over to a
# decoder of the whole stream.
build/tests/mkdeb tests/fixtures/xzblocks.desc "$vg/b.deb"
{ cat tests/fixtures/xzblocks.desc; echo "xz-damage data middle corrupt"; } > "$vg/bad.desc"
build/tests/mkdeb "$vg/bad.desc" "$vg/bad.deb"
mkdir "$vg/blocks" "$vg/badblocks"
valgrind -q --leak-check=full --error-exitcode=1 \
    build/debunpack -q --root "$vg/blocks" --jobs 3 "$vg/b.deb" ||
    { echo "valgrind: debunpack --jobs 3, xz blocks"; exit 1; }
if valgrind -q --leak-check=full --error-exitcode=3 build/debunpack -q \
    --root "$vg/badblocks" --jobs 3 "$vg/bad.deb" 2>/dev/null; then
	echo "valgrind: corrupt xz block accepted"; exit 1
elif [ $? = 3 ]; then
	echo "valgrind: errors on the corrupt xz block"; exit 1
fi
# An error path too: the second package is broken.
build/tests/mkdeb tests/fixtures/bad/truncated.desc "$vg/t.deb"
if valgrind -q --leak-check=full --error-exitcode=3 build/debunpack -q \
    --root "$vg/none" "$vg/a.deb" "$vg/t.deb" 2>/dev/null; then
	echo "valgrind: broken package accepted"; exit 1
elif [ $? = 3 ]; then
	echo "valgrind: errors on the failure path"; exit 1
fi
# And the repair of a run killed half way through its commit.
mkdir "$vg/kill"
build/debunpack -q --root "$vg/kill" "$vg/a.deb"
(strace -qq -o /dev/null -e inject=renameat:signal=KILL:when=3 \
    build/debunpack -q --root "$vg/kill" --sync-mode none "$vg/a.deb") 2>/dev/null || true
[ -f "$vg/kill/var/lib/debunpack/journal" ] || { echo "valgrind: no journal to repair"; exit 1; }
valgrind -q --leak-check=full --error-exitcode=1 build/debunpack -q \
    --root "$vg/kill" --recover || { echo "valgrind: debunpack --recover"; exit 1; }

reap "valgrind on the unit tests" "$vgunits" build/valgrind-units.log 20
reap "the fuzzer" "$fuzz" build/fuzz.log 12
reap "make distcheck" "$distcheck" build/distcheck.log 0
echo "all tests passed"
