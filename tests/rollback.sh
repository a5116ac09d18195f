#!/bin/sh
# SPDX-License-Identifier: MIT
# A commit that fails at any of its renames, of files or of records, puts
# the root and the admin directory back exactly as they were.
. "${srcdir:-.}/tests/lib.sh"

[ -f "$FAULTSHIM" ] || skip "fault shim not built"
# A sanitizer runtime wants to be first; the shim does not need that check.
ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0
export ASAN_OPTIONS

v1=$(make_pkg app 1 - <<'D'
dir ./etc/ 0755
file ./etc/app.conf 0644 text:one\n
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/app 0755 size:3000
symlink ./usr/bin/app-link app
file ./usr/bin/old-only 0755 text:old\n
D
)
v2=$(make_pkg app 2 - <<'D'
dir ./etc/ 0755
file ./etc/app.conf 0644 text:two\n
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/app 0755 size:4000
symlink ./usr/bin/app-link ../bin/app
dir ./usr/share/ 0755
dir ./usr/share/app/ 0755
file ./usr/share/app/new 0644 text:new\n
D
)
lib=$(make_pkg lib 1 "dir ./usr/ 0755" "dir ./usr/lib/ 0755" "file ./usr/lib/lib.so 0644 size:2000")
root=$T/root
mkdir "$root"
"$DEBUNPACK" -q --root "$root" "$v1" || fail "install v1"
snapshot "$root" "$T/before"

for mode in syncfs batched perfile none; do
	n=1
	while :; do
		if FAULT_RENAMEAT=$n LD_PRELOAD=$FAULTSHIM "$DEBUNPACK" -q --root "$root" \
		    --sync-mode $mode "$v2" "$lib" 2> "$T/err"; then
			break
		fi
		grep -q "cannot rename: Input/output error" "$T/err" || fail "rename $n: $(cat "$T/err")"
		snapshot "$root" "$T/after"
		diff -u "$T/before" "$T/after" || fail "$mode: failure at rename $n changed the root"
		no_temps "$root"
		n=$((n + 1))
		[ $n -lt 100 ] || fail "no end to the renames"
	done
	# It went through: the upgrade is complete.
	[ "$(cat "$root/etc/app.conf")" = two ] || fail "$mode: upgrade incomplete"
	[ ! -e "$root/usr/bin/old-only" ] || fail "$mode: old file left"
	[ -f "$root/usr/lib/lib.so" ] || fail "$mode: lib missing"
	no_temps "$root"
	echo "ok $mode: failures at renames 1..$((n - 1)) rolled back"
	# Back to v1 for the next mode.
	rm -rf "$root"; mkdir "$root"
	"$DEBUNPACK" -q --root "$root" "$v1" || fail "reinstall v1"
	snapshot "$root" "$T/before"
done
