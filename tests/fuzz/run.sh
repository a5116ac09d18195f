#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the libFuzzer targets with clang and run them: tests/fuzz/fuzz_deb.c
# (the install path) for FUZZ_TIME seconds (default 120), from a seed corpus
# of the fixtures, then tests/fuzz/fuzz_journal.c (the repair, and the
# record reader) for FUZZ_JOURNAL_TIME seconds (default 30), from journals
# written below.  Exits non-zero on any finding; the input is left in
# build-fuzz/findings.
#
#   sh tests/fuzz/run.sh            # 2.5 minutes, as CI runs it
#   FUZZ_TIME=3600 sh tests/fuzz/run.sh
#   FUZZ_JOBS=2 ...                 # that many fuzzing processes
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
time=${FUZZ_TIME:-120}
[ -n "$time" ] || time=120
build=${FUZZ_BUILD:-$top/build-fuzz}
command -v clang > /dev/null ||
    { echo "fuzz: clang is needed: apt-get install clang libclang-rt-14-dev" >&2; exit 1; }

if [ ! -f "$build/Makefile" ]; then
	[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi)
	mkdir -p "$build"
	(cd "$build" && "$top/configure" -q CC=clang \
	    CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
	    --enable-fuzz)
fi
make -s -C "$build" -j"$(nproc)" tests/fuzz/fuzz_deb tests/fuzz/fuzz_journal \
    tests/mkdeb

# Seeds: every fixture as dpkg-deb would build it, and again with bare
# (uncompressed) and gzip members, which mutations get through to the tar
# reader and the extraction rather than stopping at a checksum.
seeds=$build/fuzz-seeds
corpus=$build/fuzz-corpus
findings=$build/findings
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$findings"
for d in "$top"/tests/fixtures/*.desc "$top"/tests/fixtures/bad/*.desc \
    "$top"/tests/fixtures/hostile/*.desc; do
	[ -f "$d" ] || continue
	n=$(basename "$(dirname "$d")")-$(basename "$d" .desc)
	for v in xz none gz; do
		{ cat "$d"; [ $v = xz ] || printf 'compress data %s\ncompress control %s\n' $v $v; } |
		    "$build/tests/mkdeb" - "$seeds/$n-$v.deb" 2> /dev/null || continue
		# Large fixtures only slow every mutation down.
		[ "$(wc -c < "$seeds/$n-$v.deb")" -le 65536 ] || rm -f "$seeds/$n-$v.deb"
	done
done
echo "fuzz: $(ls "$seeds" | wc -l) seeds, $(ls "$corpus" | wc -l) inputs kept from earlier runs, $time s"

# A tmpfs makes the syncs of every run free.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	TMPDIR=/dev/shm
	export TMPDIR
fi
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export ASAN_OPTIONS UBSAN_OPTIONS
jobs=${FUZZ_JOBS:-1}
set -- -max_total_time="$time" -max_len=65536 -timeout=30 -rss_limit_mb=2048 \
    -dict="$top/tests/fuzz/deb.dict" -artifact_prefix="$findings/" \
    -print_final_stats=1 "$corpus" "$seeds"
if [ "$jobs" -gt 1 ]; then
	set -- -jobs="$jobs" -workers="$jobs" "$@"
fi
if "$build/tests/fuzz/fuzz_deb" "$@" > "$build/fuzz.log" 2>&1; then
	grep -E '^(#[0-9]+.*DONE|stat::)' "$build/fuzz.log" || true
	echo "fuzz: no finding"
else
	tail -n 60 "$build/fuzz.log"
	echo "fuzz: FINDING, input in $findings" >&2
	exit 1
fi

# The repair: journals as runs write them (the fuzz root's admin directory
# is adm/, its directories d/ and n/, see fuzz_journal.c), and a record.
jtime=${FUZZ_JOURNAL_TIME:-30}
jseeds=$build/fuzz-journal-seeds
jcorpus=$build/fuzz-journal-corpus
rm -rf "$jseeds"
mkdir -p "$jseeds" "$jcorpus"
t='1700000000.000000000'
printf 'debunpack-journal 1\ndir\tA\t%s\t%s\t.\ndir\tR\t%s\t%s\td\nmkdir\tn\nitem\tR\t1\td\tx.debunpack-new\tx\nitem\tR\t0\td\ty.debunpack-new\ty\nitem\tR\t0\td\tz.debunpack-new\tz\n' \
    $t $t $t $t > "$jseeds/undo"
{ cat "$jseeds/undo"; printf 'gone\tf\td/gone\ncommit\n'; } > "$jseeds/forward"
printf 'debunpack-journal 1\ndir\tR\t%s\t%s\t.\naside\tm\nmkdir\tm\nmkdir\tlink\n' $t $t \
    > "$jseeds/aside"
printf 'debunpack-record 1\nPackage: p\nVersion: 1\nArchitecture: all\n\n' > "$jseeds/record"
echo "fuzz: the repair, $(ls "$jseeds" | wc -l) seeds, $jtime s"
if "$build/tests/fuzz/fuzz_journal" -max_total_time="$jtime" -max_len=4096 \
    -timeout=30 -rss_limit_mb=2048 -artifact_prefix="$findings/journal-" \
    -print_final_stats=1 "$jcorpus" "$jseeds" > "$build/fuzz-journal.log" 2>&1; then
	grep -E '^(#[0-9]+.*DONE|stat::)' "$build/fuzz-journal.log" || true
	echo "fuzz: the repair, no finding"
else
	tail -n 60 "$build/fuzz-journal.log"
	echo "fuzz: FINDING in the repair, input in $findings" >&2
	exit 1
fi
