#!/bin/sh
# SPDX-License-Identifier: MIT
# Every sync call of an upgrade fails in turn (EIO, injected with strace):
# the run says which file or filesystem could not be synced, exits 1 and
# leaves the root as it was.  From the sync of the commit line on, the run
# is past the point of no return: it stands, and the next one finishes it.
. "${srcdir:-.}/tests/lib.sh"

command -v strace >/dev/null || skip "strace not installed"
# LeakSanitizer cannot run under ptrace; the other checks of a sanitized
# build still do.
ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0
export ASAN_OPTIONS
strace -qq -o /dev/null -e inject=getpid:error=EIO:when=1 true 2>/dev/null ||
    skip "strace cannot inject faults here"

v1=$(make_pkg app 1 - <<'D'
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/app 0755 size:3000
file ./usr/bin/old-only 0755 text:old\n
D
)
v2=$(make_pkg app 2 - <<'D'
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/app 0755 size:4000
dir ./usr/share/ 0755
dir ./usr/share/app/ 0755
file ./usr/share/app/new 0644 text:new\n
D
)
mkdir "$T/base"
"$DEBUNPACK" -q --root "$T/base" "$v1" || fail "install v1"
snapshot "$T/base" "$T/before"
cp -a "$T/base" "$T/clean"
"$DEBUNPACK" -q --root "$T/clean" "$v2" || fail "upgrade"
# The records are written by each run anew, directories change with it:
# their times differ.
snapshot "$T/clean" "$T/after.all" no
grep -v '/var/lib/debunpack' "$T/after.all" > "$T/after"

for mode in syncfs batched perfile; do
	rm -rf "$T/r"; cp -a "$T/base" "$T/r"
	strace -qq -s 65536 -o "$T/trace" -e trace=fsync,fdatasync,syncfs,write \
	    "$DEBUNPACK" -q --root "$T/r" --sync-mode $mode "$v2" || fail "$mode: trace"
	grep -v '^write(' "$T/trace" > "$T/calls"
	# The sync of the commit line: the first one after its write.
	cl=$(grep -n '^write(.*commit\\n", ' "$T/trace" | cut -d: -f1)
	[ -n "$cl" ] || fail "$mode: no commit line in the trace"
	# Position of the commit line's sync among the sync calls.
	cpos=$(head -n "$cl" "$T/trace" | grep -vc '^write(' || true)
	cpos=$((cpos + 1))
	tried=0 undone=0
	for call in fsync fdatasync syncfs; do
		n=$(grep -c "^$call(" "$T/calls" || true)
		k=1
		while [ "$k" -le "$n" ]; do
			rm -rf "$T/r"; cp -a "$T/base" "$T/r"
			if strace -qq -o /dev/null -e trace=$call \
			    -e inject=$call:error=EIO:when=$k \
			    "$DEBUNPACK" -q --root "$T/r" --sync-mode $mode "$v2" \
			    2> "$T/err"; then
				fail "$mode: $call #$k failed and the run said nothing"
			fi
			[ "$(wc -l < "$T/err")" = 1 ] &&
			    grep -q "cannot sync.*: Input/output error$" "$T/err" ||
			    fail "$mode: $call #$k: $(cat "$T/err")"
			snapshot "$T/r" "$T/now"
			if cmp -s "$T/before" "$T/now"; then
				undone=$((undone + 1))
			else
				# Where the failed call is among the sync calls.
				pos=$(awk -v c="$call(" -v k="$k" 'index($0, c) == 1 && ++n == k { print NR }' "$T/calls")
				[ "$pos" -ge "$cpos" ] ||
				    fail "$mode: $call #$k changed the root: $(diff "$T/before" "$T/now" | head -n 5)"
				"$DEBUNPACK" -q --root "$T/r" --recover || fail "$mode: recover"
				snapshot "$T/r" "$T/now.all" no
				grep -v '/var/lib/debunpack' "$T/now.all" > "$T/now"
				diff -u "$T/after" "$T/now" ||
				    fail "$mode: the run failing at its commit line was not finished"
				"$DEBUNPACK" --root "$T/r" --verify > /dev/null ||
				    fail "$mode: records after the repair"
			fi
			no_temps "$T/r"
			tried=$((tried + 1))
			k=$((k + 1))
		done
	done
	[ "$tried" -gt 0 ] || fail "$mode: no sync call"
	echo "ok $mode: $tried sync failures, $undone undone, $((tried - undone)) at or past the commit point finished by the next run"
done
