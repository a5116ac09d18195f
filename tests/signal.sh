#!/bin/sh
# SPDX-License-Identifier: MIT
# SIGINT and SIGTERM during extraction: exit 1, temporaries and new
# directories removed, installed files untouched; after SIGKILL a rerun of
# the same command completes.
. "${srcdir:-.}/tests/lib.sh"

cat > "$T/base.desc" <<'D'
dir ./usr/ 0755
dir ./usr/share/ 0755
file ./usr/share/keep 0644 text:installed\n
D
# Large enough that extraction is still going on when the signal comes.
cat > "$T/slow.desc" <<'D'
compress data zst
dir ./usr/ 0755
dir ./usr/share/ 0755
file ./usr/share/keep 0644 text:new\n
owner 1000 1000 nosuchuser nosuchgroup
dir ./usr/share/slow/ 02750
owner 0 0 root root
gen 200 ./usr/share/slow/f 0644 1000
file ./usr/share/slow/big 0644 fill:800000000:z
D
base=$(build_deb base "$T/base.desc")
slow=$(build_deb slow "$T/slow.desc")
root=$T/root
mkdir "$root"
"$DEBUNPACK" -q --root "$root" "$base" || fail base
snapshot "$root" "$T/before"

# wait_for_temp PID [DIR]: until a temporary exists; with DIR, a
# directory the run makes, until a file is there (files take their final
# names at once in a new directory).
wait_for_temp() {
	if [ -n "${2:-}" ]; then
		set -- "$1" "$2" -type f
	else
		set -- "$1" "" -name '*.debunpack-new'
	fi
	i=0
	while [ -z "$(find "$root/$2" "$3" "$4" 2>/dev/null | head -n 1)" ]; do
		kill -0 "$1" 2>/dev/null || fail "run ended before the signal"
		i=$((i + 1))
		[ $i -lt 3000 ] || fail "no temporary appeared"
		sleep 0.01
	done
}

for sig in INT TERM; do
	"$DEBUNPACK" --root "$root" --sync-mode none "$slow" 2> "$T/err" &
	pid=$!
	wait_for_temp $pid
	kill -s $sig $pid
	if wait $pid; then fail "SIG$sig: exit 0"; else rc=$?; fi
	[ "$rc" = 1 ] || fail "SIG$sig: exit $rc"
	grep -q 'interrupted' "$T/err" || fail "SIG$sig: $(cat "$T/err")"
	snapshot "$root" "$T/after"
	diff -u "$T/before" "$T/after" || fail "SIG$sig: root changed"
	no_temps "$root"
	echo "ok SIG$sig"
done

# SIGKILL leaves temporaries behind; the same command run again finishes.
# (Killed once the slow directory holds files, i.e. after its entry;
# a kill between its mkdir and its chmod is left to the repair of
# interrupted runs.)
"$DEBUNPACK" --root "$root" --sync-mode none "$slow" 2> "$T/err" &
pid=$!
wait_for_temp $pid usr/share/slow
kill -s KILL $pid
wait $pid || true
[ "$(cat "$root/usr/share/keep")" = installed ] || fail "old file lost at SIGKILL"
"$DEBUNPACK" -q --root "$root" --sync-mode none "$slow" || fail "rerun after SIGKILL"
[ "$(cat "$root/usr/share/keep")" = new ] || fail "rerun did not install"
no_temps "$root"
# The killed run made the directory; its owner and mode were applied at
# once, since the rerun keeps existing directories as they are.
[ "$(stat -c %a "$root/usr/share/slow")" = 2750 ] || fail "directory mode after rerun"
if is_root; then
	[ "$(stat -c %u:%g "$root/usr/share/slow")" = 1000:1000 ] ||
	    fail "directory owner after rerun: $(stat -c %u:%g "$root/usr/share/slow")"
fi
echo "ok SIGKILL + rerun"
