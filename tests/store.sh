#!/bin/sh
# SPDX-License-Identifier: MIT
# The store of unpacked files (--cache) on real filesystems (btrfs, xfs
# with reflink, ext4): a second install clones (or copies) instead of
# decoding and leaves the root, the records and dpkg's database exactly
# as a decoded install does; damaged, truncated, read-only, full and
# shared stores fall back to decoding, never to a failed install, and a
# store on another filesystem is copied from.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "needs root for loop devices"
command -v strace >/dev/null || skip "strace missing: a fill is killed through it"
command -v losetup >/dev/null || skip "losetup missing"
[ -e /dev/loop-control ] || modprobe loop 2>/dev/null || true

# Two packages sharing a content, every entry type, a conffile, and an
# upgrade; "big" is large enough to be killed while it is stored.
make_pkg a 1 'control-file conffiles 0644 /etc/a.conf\n' - <<'D' >/dev/null
dir ./ 0755
dir ./etc/ 0755
file ./etc/a.conf 0644 text:key = 1\n
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/a 04755 size:70000
file ./usr/bin/empty 0644 empty
dir ./usr/share/ 0755
dir ./usr/share/a/ 02755
file ./usr/share/a/shared 0644 text:the same in a and b\n
file ./usr/share/a/name\swith\sspace%25 0640 text:odd name\n
hardlink ./usr/share/a/hard ./usr/bin/a
symlink ./usr/share/a/rel ../../bin/a
fifo ./usr/share/a/fifo 0644
D
make_pkg a 2 'control-file conffiles 0644 /etc/a.conf\n' - <<'D' >/dev/null
dir ./ 0755
dir ./etc/ 0755
file ./etc/a.conf 0644 text:key = 2\n
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/a 0755 size:80000
dir ./usr/share/ 0755
dir ./usr/share/a/ 0755
file ./usr/share/a/shared 0644 text:the same in a and b\n
D
make_pkg b 1 - <<'D' >/dev/null
dir ./ 0755
dir ./usr/ 0755
dir ./usr/share/ 0755
dir ./usr/share/b/ 0755
file ./usr/share/b/shared 0644 text:the same in a and b\n
gen 200 ./usr/share/b/g 0644 5000
D
make_pkg big 1 - <<'D' >/dev/null
dir ./ 0755
dir ./usr/ 0755
dir ./usr/share/ 0755
dir ./usr/share/big/ 0755
gen 2000 ./usr/share/big/f 0644 8000
D
make_pkg c 1 - <<'D' >/dev/null
dir ./ 0755
dir ./usr/ 0755
dir ./usr/share/ 0755
file ./usr/share/c 0644 text:only c has it\n
D
A1=$T/a-1.deb A2=$T/a-2.deb B1=$T/b-1.deb BIG=$T/big-1.deb C1=$T/c-1.deb

run() {	# ROOT ARG...: an install into the new ROOT with dpkg's database, stats in $T/stats.json
	r_root=$1
	shift
	mkdir -p "$r_root"
	"$DEBUNPACK" --root "$r_root" --dpkg-db --stats=json "$@" \
	    > "$T/stats.json" 2> "$T/err" || fail "run $*: $(cat "$T/err")"
}

cache() {	# FIELD: the last run's cache counter
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cache"][sys.argv[2]])' \
	    "$T/stats.json" "$1"
}

calls() {	# CALL: how many times the last run made CALL (--stats)
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["calls"][sys.argv[2]])' \
	    "$T/stats.json" "$1"
}

same() {	# REF ROOT: trees, records and dpkg's database alike
	state "$1" > "$T/s.ref"
	state "$2" > "$T/s.got"
	diff -u "$T/s.ref" "$T/s.got" || fail "$2 differs from $1"
	no_temps "$2"
}

tested=0
for fs in btrfs xfs ext4; do
	case $fs in
	ext4) mkfs="mkfs.ext4 -q -F -b 4096"; want=copied ;;
	xfs) mkfs="mkfs.xfs -q -f -m reflink=1"; want=cloned ;;
	btrfs) mkfs="mkfs.btrfs -q -f"; want=cloned ;;
	esac
	command -v "mkfs.$fs" >/dev/null || { echo "mkfs.$fs missing: $fs not tested"; continue; }
	img=$T/$fs.img
	truncate -s 1G "$img"
	$mkfs "$img" >/dev/null 2>&1 || { echo "mkfs.$fs failed: $fs not tested"; continue; }
	loop_attach "$img" || skip "no loop device"
	m=$T/mnt-$fs
	mkdir "$m"
	cleanup_hooks="umount -l '$m' 2>/dev/null; $cleanup_hooks"
	mount "$loop" "$m" || fail "mount $fs"
	S=$m/store

	# Without the store, then filling it, then from it: for every -j
	# (the decoding threads, and the packages decoded ahead of their
	# turn), each filling a store of its own that every -j reads.
	run "$m/ref" "$A1" "$B1"
	syncs=$(calls syncfs)
	run "$m/fill" --cache "$S" "$A1" "$B1"
	[ "$(cache filled)" = 2 ] && [ "$(cache decoded)" = 2 ] ||
	    fail "$fs: not filled: $(cat "$T/stats.json")"
	# Filling costs the run no sync of its own: on btrfs the names
	# barrier's commit carries the entries of a store filled by clones,
	# and the data barrier still settles each file.  (On xfs and ext4 the
	# data barrier syncs the filesystem instead of waiting for each
	# file's writeback: one syncfs more, and none of the store's own.)
	case $fs in btrfs) want_syncs=$syncs ;; *) want_syncs=$((syncs + 1)) ;; esac
	[ "$(calls syncfs)" = "$want_syncs" ] ||
	    fail "$fs: $(calls syncfs) syncfs filling the store, $syncs without it"
	same "$m/ref" "$m/fill"
	run "$m/ref3" "$A1" "$B1" "$C1"
	for j in 1 2 3 4 8; do
		run "$m/fill$j" --cache "$m/jstore$j" -j $j "$A1" "$B1" "$C1"
		[ "$(cache filled)" = 3 ] && [ "$(cache decoded)" = 3 ] ||
		    fail "$fs -j $j: not filled: $(cat "$T/stats.json")"
		same "$m/ref3" "$m/fill$j"
	done
	for j in 1 2 3 4 8; do
		run "$m/hit$j" --cache "$S" -j $j "$A1" "$B1"
		[ "$(cache $want)" = 2 ] && [ "$(cache decoded)" = 0 ] ||
		    fail "$fs -j $j: not $want: $(cat "$T/stats.json")"
		[ ! -s "$T/err" ] || fail "$fs: notes on a clean hit: $(cat "$T/err")"
		same "$m/ref" "$m/hit$j"
		case $j in 1) k=8 ;; 2) k=4 ;; 3) k=1 ;; 4) k=2 ;; *) k=3 ;; esac
		run "$m/cross$j" --cache "$m/jstore$k" -j $j "$A1" "$B1" "$C1"
		[ "$(cache $want)" = 3 ] && [ "$(cache decoded)" = 0 ] ||
		    fail "$fs -j $j from -j $k's store: not $want: $(cat "$T/stats.json")"
		same "$m/ref3" "$m/cross$j"
	done
	# -v tells how each package came.
	mkdir "$m/v"
	"$DEBUNPACK" -v --root "$m/v" --cache "$S" "$B1" 2> "$T/v" || fail "$fs: -v"
	grep -q "^debunpack: b $want from the cache ([0-9]* bytes not decoded)\$" "$T/v" ||
	    fail "$fs: -v: $(cat "$T/v")"
	# A clone has nothing of its own to write back nor to settle: an
	# install from the store starts writeback (sync_file_range) and
	# settles (fiemap) only what it writes (records, dpkg's database).
	# A copy (ext4) is written, and counts as a decoded file does; an
	# empty file has no data anywhere.
	run "$m/wb-ref" "$A1" "$B1"
	wb=$(($(calls sync_file_range_write) + $(calls fiemap)))
	waits=$(calls sync_file_range_wait)
	run "$m/wb-hit" --cache "$S" "$A1" "$B1"
	got=$(($(calls sync_file_range_write) + $(calls fiemap)))
	got_waits=$(calls sync_file_range_wait)
	echo "$fs: writebacks and settles $wb decoded, $got from the store; waits $waits, $got_waits"
	nf=$(find "$m/ref/etc" "$m/ref/usr" -type f -printf "%i\n" | sort -u | wc -l)
	case $want in
	cloned) [ "$got" -le $((wb - nf)) ] ||
		fail "$fs: $got writebacks and settles from the store, $wb decoded, $nf files" ;;
	copied) ne=$(find "$m/ref/etc" "$m/ref/usr" -type f -empty -printf "%i\n" | sort -u | wc -l)
		[ "$got" = $((wb - ne)) ] ||
		fail "$fs: $got writebacks and settles from the store, $wb decoded, $ne empty files" ;;
	esac
	# The new directories of a package from the store wait for their
	# journal lines together: on xfs (the lines written back, and
	# waited for), fewer waits than a decoded install's, one for each
	# directory it makes, even leaving out each file's.
	if [ "$fs" = xfs ]; then
		[ "$got_waits" -lt $((waits - nf)) ] ||
		    fail "$fs: $got_waits waits from the store, $waits decoded, $nf files"
	fi
	same "$m/wb-ref" "$m/wb-hit"
	# A package through a FIFO is decoded, never looked up: reading it
	# for its key would leave nothing to install.
	mkfifo "$T/pipe-$fs.deb"
	cat "$A1" > "$T/pipe-$fs.deb" &
	run "$m/fifo" --cache "$S" "$T/pipe-$fs.deb" "$B1"
	wait
	[ "$(cache decoded)" = 1 ] && [ "$(cache $want)" = 1 ] ||
	    fail "$fs: a FIFO's package: $(cat "$T/stats.json")"
	same "$m/ref" "$m/fifo"
	# --stats says it for each package too, in both forms.
	run "$m/st" --cache "$S" "$A1" "$B1"
	python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))["cache"]["packages"]
assert [(x["name"], x["how"], x["bytes_not_decoded"] > 0, x["filled"]) for x in p] == \
    [("a", sys.argv[2], True, False), ("b", sys.argv[2], True, False)], p' \
	    "$T/stats.json" $want || fail "$fs: --stats=json's packages"
	mkdir "$m/st2"
	"$DEBUNPACK" --root "$m/st2" --cache "$S" --stats "$A1" > "$T/st" ||
	    fail "$fs: --stats"
	grep -q "^cache pkg:  a $want bytes_not_decoded [1-9][0-9]* filled no\$" "$T/st" ||
	    fail "$fs: --stats: $(cat "$T/st")"
	# Under debunpack-nosync (its mark in the environment), the store
	# is read but never filled: its sync would do nothing.
	mkdir "$m/ns"
	export DEBUNPACK_NOSYNC_ACTIVE=1
	run "$m/ns" --cache "$m/ns-store" "$A1"
	unset DEBUNPACK_NOSYNC_ACTIVE
	[ "$(cache filled)" = 0 ] && grep -q "read but not filled" "$T/err" &&
	    [ -z "$(ls "$m/ns-store/entries")" ] ||
	    fail "$fs: filled under debunpack-nosync: $(cat "$T/err")"
	run "$m/ns2" --cache "$m/ns-store" "$A1"
	[ "$(cache filled)" = 1 ] && python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["cache"]["packages"][0]["filled"]' "$T/stats.json" ||
	    fail "$fs: not filled after debunpack-nosync"
	# Each content once: the packages' shared file too.
	n=$(find "$S/objects" -type f | wc -l)
	want_n=$(find "$m/ref/etc" "$m/ref/usr" -type f -size +0 -exec sha256sum {} + |
	    cut -d ' ' -f 1 | sort -u | wc -l)
	[ "$n" = "$want_n" ] || fail "$fs: $n contents stored, $want_n expected"
	# An upgrade from the store: conffile rules and obsolete paths alike.
	run "$m/ref" "$A2"
	run "$m/fill" --cache "$S" "$A2"
	run "$m/hit1" --cache "$S" "$A2"
	[ "$(cache $want)" = 1 ] || fail "$fs: upgrade not $want"
	same "$m/ref" "$m/fill"
	same "$m/ref" "$m/hit1"

	# A content changed in the store is seen before anything is cloned.
	h=$(sha256sum "$m/hit4/usr/bin/a" | cut -c 1-64)
	obj=$S/objects/$(echo "$h" | cut -c 1-2)/$h
	[ -f "$obj" ] || fail "$fs: no content $obj"
	printf 'X' | dd of="$obj" bs=1 seek=10 conv=notrunc 2>/dev/null
	# Told once, for its package; the other one is cloned.  (Several
	# packages are looked up on threads of their own.)
	run "$m/dmg" --cache "$S" "$B1" "$A1"
	[ "$(grep -c "not used" "$T/err")" = 1 ] &&
	    grep -q "^debunpack: warning: cache entry '[^']*' not used: a content was changed\$" "$T/err" ||
	    fail "$fs: damaged content not told once: $(cat "$T/err")"
	[ "$(cache decoded)" = 1 ] && [ "$(cache $want)" = 1 ] ||
	    fail "$fs: damaged content used"
	run "$m/ref-ba" "$B1" "$A1"
	same "$m/ref-ba" "$m/dmg"
	# ... and the decoded install stored it again.
	run "$m/dmg2" --cache "$S" "$B1" "$A1"
	[ "$(cache $want)" = 2 ] || fail "$fs: damaged content not replaced"
	same "$m/ref-ba" "$m/dmg2"
	run "$m/ref1" "$A1"

	# A change whose stamp was put back: what --cache-verify is for.
	cp -p "$obj" "$T/stamp-$fs"
	printf 'Y' | dd of="$obj" bs=1 seek=20 conv=notrunc 2>/dev/null
	touch -r "$T/stamp-$fs" "$obj"
	run "$m/vfy" --cache "$S" --cache-verify "$A1"
	grep -q "not used: a content does not match its hash" "$T/err" ||
	    fail "$fs: --cache-verify did not see it: $(cat "$T/err")"
	[ "$(cache decoded)" = 1 ] || fail "$fs: --cache-verify used it"
	same "$m/ref1" "$m/vfy"
	run "$m/vfy2" --cache "$S" --cache-verify "$A1"
	[ "$(cache $want)" = 1 ] || fail "$fs: --cache-verify: not stored again"
	same "$m/ref1" "$m/vfy2"

	# A truncated manifest is not trusted, then rewritten.
	for e in "$S"/entries/*; do
		truncate -s -20 "$e"
	done
	run "$m/trunc" --cache "$S" "$A1"
	grep -q "not used: the manifest" "$T/err" || fail "$fs: truncation not told: $(cat "$T/err")"
	[ "$(cache decoded)" = 1 ] || fail "$fs: truncated entry used"
	same "$m/ref1" "$m/trunc"
	run "$m/trunc2" --cache "$S" "$A1"
	[ "$(cache $want)" = 1 ] || fail "$fs: truncated entry not rewritten"

	# A read-only store is read, and a miss decodes with a note.
	mkdir "$T/ro-$fs"
	mount --bind "$S" "$T/ro-$fs" && mount -o remount,bind,ro "$T/ro-$fs" ||
	    fail "$fs: read-only bind mount"
	cleanup_hooks="umount -l '$T/ro-$fs' 2>/dev/null; $cleanup_hooks"
	run "$m/ro" --cache "$T/ro-$fs" "$A1" "$BIG"
	[ "$(cache decoded)" = 1 ] && [ "$(cache filled)" = 0 ] ||
	    fail "$fs: read-only store: $(cat "$T/stats.json")"
	grep -q "cache not filled" "$T/err" || fail "$fs: read-only store not told"
	run "$m/refbig" "$A1" "$BIG"
	same "$m/refbig" "$m/ro"
	umount "$T/ro-$fs"

	# Two runs at once on one empty store: both whole, then both hits.
	S2=$m/store2
	mkdir -p "$m/c1" "$m/c2"
	"$DEBUNPACK" -q --root "$m/c1" --dpkg-db --cache "$S2" "$A1" "$B1" "$BIG" 2> "$T/e1" &
	p1=$!
	"$DEBUNPACK" -q --root "$m/c2" --dpkg-db --cache "$S2" "$BIG" "$B1" "$A1" 2> "$T/e2" &
	p2=$!
	wait $p1 || fail "$fs: first concurrent run: $(cat "$T/e1")"
	wait $p2 || fail "$fs: second concurrent run: $(cat "$T/e2")"
	run "$m/c3" --cache "$S2" "$A1" "$B1" "$BIG"
	[ "$(cache $want)" = 3 ] || fail "$fs: concurrent fills: $(cat "$T/stats.json")"
	run "$m/refall" "$A1" "$B1" "$BIG"
	same "$m/refall" "$m/c3"

	# A run killed while it fills leaves no entry a later run trusts:
	# killed at its 100th clone (FICLONE, an ioctl) of a content into
	# the store, or where contents are copied as they are decoded, as it
	# names its 100th (linkat), some contents are in, the entry is not.
	S3=$m/store3
	mkdir -p "$m/k"
	case $want in cloned) fillcall=ioctl ;; *) fillcall=linkat ;; esac
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	    strace -f -qq -o /dev/null -e inject=$fillcall:signal=KILL:when=100 \
	    "$DEBUNPACK" -q --root "$m/k" --cache "$S3" "$BIG" 2>/dev/null &&
	    fail "$fs: the run was not killed while it filled the store"
	[ "$(find "$S3/objects" -type f | wc -l)" -gt 0 ] ||
	    fail "$fs: killed before it filled anything"
	[ -z "$(ls -A "$S3/entries")" ] || fail "$fs: an entry of a killed fill: $(ls "$S3/entries")"
	"$DEBUNPACK" -q --root "$m/k" --recover 2>/dev/null || true
	run "$m/k2" --cache "$S3" "$BIG"
	[ ! -s "$T/err" ] || fail "$fs: after a kill: $(cat "$T/err")"
	run "$m/k3" --cache "$S3" "$BIG"
	[ "$(cache $want)" = 1 ] || fail "$fs: after a kill, not filled"
	"$DEBUNPACK" --cache "$S3" --cache-prune > "$T/info" || fail "$fs: prune"
	grep -q '^entries:  0$' "$T/info" || fail "$fs: prune left: $(cat "$T/info")"
	[ -z "$(ls -A "$S3/tmp")" ] || fail "$fs: prune left temporaries"
	[ "$(find "$S3/objects" -type f | wc -l)" = 0 ] || fail "$fs: prune left contents"

	# The size limit: the least recently used entry goes first.
	"$DEBUNPACK" --cache "$S" --cache-info > "$T/info" || fail "$fs: info"
	grep -q '^hits: ' "$T/info" || fail "$fs: info: $(cat "$T/info")"
	touch -d '2000-01-01' "$S"/entries/*
	run "$m/lru" --cache "$S" "$B1"
	"$DEBUNPACK" --cache "$S" --cache-info > "$T/info" || fail "$fs: info"
	bytes=$(sed -n 's/^bytes: *//p' "$T/info")
	entries=$(sed -n 's/^entries: *//p' "$T/info")
	"$DEBUNPACK" --cache "$S" --cache-max-size $((bytes - 1)) --cache-prune \
	    > "$T/info" || fail "$fs: prune to a size"
	left=$(sed -n 's/^entries: *//p' "$T/info")
	[ "$left" -lt "$entries" ] && [ "$left" -gt 0 ] ||
	    fail "$fs: $entries entries, $left after pruning to $((bytes - 1)) bytes"
	[ "$(sed -n 's/^bytes: *//p' "$T/info")" -lt "$bytes" ] || fail "$fs: nothing freed"
	run "$m/lru2" --cache "$S" "$B1"
	[ "$(cache $want)" = 1 ] || fail "$fs: the entry used last was evicted"
	# The limit from the environment, as the dpkg for apt and
	# debunpack-bootstrap pass it on to their runs of debunpack.
	run "$m/envlim" --cache "$S" "$A1"
	"$DEBUNPACK" --cache "$S" --cache-info > "$T/info" || fail "$fs: info"
	bytes=$(sed -n 's/^bytes: *//p' "$T/info")
	entries=$(sed -n 's/^entries: *//p' "$T/info")
	mkdir -p "$m/envlim2"
	# A run that fills the store (only a store that grew is pruned).
	DEBUNPACK_CACHE=$S DEBUNPACK_CACHE_MAX_SIZE=$((bytes - 1)) "$DEBUNPACK" -q \
	    --root "$m/envlim2" --dpkg-db "$C1" || fail "$fs: DEBUNPACK_CACHE_MAX_SIZE run"
	"$DEBUNPACK" --cache "$S" --cache-info > "$T/info" || fail "$fs: info"
	[ "$(sed -n 's/^entries: *//p' "$T/info")" -le "$entries" ] &&
	    [ "$(sed -n 's/^bytes: *//p' "$T/info")" -le $((bytes - 1)) ] ||
	    fail "$fs: DEBUNPACK_CACHE_MAX_SIZE $((bytes - 1)): $entries entries before, now: $(cat "$T/info")"

	tested=$((tested + 1))
	echo "$fs: cloned as $want; damaged, truncated, read-only, concurrent, killed, pruned: ok"
	umount "$m"
	loop_detach "$loop"
	rm -f "$img"
done

# A full store (a small tmpfs): told, what it holds used, the rest decoded.
mkdir "$T/tmpfs" "$T/other"
mount -t tmpfs -o size=256k tmpfs "$T/tmpfs" || skip "no tmpfs"
cleanup_hooks="umount -l '$T/tmpfs' 2>/dev/null; $cleanup_hooks"
run "$T/x1" --cache "$T/tmpfs/s" "$A1" "$B1" "$BIG"
grep -q "cache not filled" "$T/err" || fail "full store not told: $(cat "$T/err")"
run "$T/xref" "$A1" "$B1" "$BIG"
same "$T/xref" "$T/x1"
run "$T/x2" --cache "$T/tmpfs/s" "$A1" "$B1" "$BIG"
[ "$(cache decoded)" -ge 1 ] || fail "the package a full store could not hold not decoded"
same "$T/xref" "$T/x2"

# A store on another filesystem than the root's: filled by copies, then
# read by copies (no reflink across filesystems), never decoded again.
mount -t tmpfs -o size=64m tmpfs "$T/other" || skip "no tmpfs"
cleanup_hooks="umount -l '$T/other' 2>/dev/null; $cleanup_hooks"
[ "$(stat -c %d "$T/other")" != "$(stat -c %d "$T")" ] || fail "tmpfs on the root's filesystem"
run "$T/x3" --cache "$T/other/s" "$A1" "$B1" "$BIG"
same "$T/xref" "$T/x3"
[ "$(cache filled)" = 3 ] || fail "store on another filesystem not filled: $(cat "$T/stats.json")"
run "$T/x4" --cache "$T/other/s" "$A1" "$B1" "$BIG"
[ "$(cache decoded)" = 0 ] && [ "$(cache copied)" = 3 ] && [ "$(cache cloned)" = 0 ] ||
    fail "store on another filesystem not copied from: $(cat "$T/stats.json")"
[ ! -s "$T/err" ] || fail "store on another filesystem: said $(cat "$T/err")"
same "$T/xref" "$T/x4"

[ $tested -gt 0 ] || skip "no filesystem could be tested"
