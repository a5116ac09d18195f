#!/bin/sh
# SPDX-License-Identifier: MIT
# A root that holds another filesystem: syncfs is trusted per filesystem.
# With a FUSE mount (bindfs) at /opt inside a root on a trusted
# filesystem, the files under /opt are synced one by one and their
# directories fsynced, the others by the two syncfs barriers.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "not root: cannot mount"
command -v bindfs >/dev/null || skip "bindfs not installed"
[ -c /dev/fuse ] || skip "no /dev/fuse"
case $(stat -f -c %T "$T") in
ext2/ext3|xfs|btrfs|tmpfs) ;;
*) skip "test directory on $(stat -f -c %T "$T"), where syncfs is not trusted" ;;
esac

deb=$(make_pkg mixed-mounts 1 - <<'D'
dir ./opt/ 0755
dir ./opt/app/ 0755
gen 7 ./opt/app/f 0644 3000
dir ./usr/ 0755
dir ./usr/share/ 0755
gen 5 ./usr/share/g 0644 2000
D
)
root=$T/root
mkdir -p "$root/opt" "$T/backing"
bindfs "$T/backing" "$root/opt" || skip "bindfs cannot mount here"
trap 'fusermount3 -u "$root/opt" 2>/dev/null || umount "$root/opt"; rm -rf "$T"' EXIT
[ "$(stat -f -c %T "$root/opt")" = fuseblk ] || [ "$(stat -f -c %T "$root/opt")" = fuse ] ||
    fail "bindfs mount is $(stat -f -c %T "$root/opt")"

"$DEBUNPACK" --root "$root" --sync-mode syncfs --stats=json "$deb" > "$T/stats" ||
    fail "install"
# 7 files under /opt one by one, and the journal's (at least 2: before the
# first of them and at the commit point); 2 syncfs for the rest.
n=$(sed 's/.*"fdatasync":\([0-9]*\),.*/\1/' "$T/stats")
[ "$n" -ge 9 ] || fail "fdatasync count: $(cat "$T/stats")"
grep -q '"sync_file_range_write":6,' "$T/stats" ||
    fail "writeback of the 5 files and the record: $(cat "$T/stats")"
grep -q '"syncfs":2,' "$T/stats" || fail "syncfs count: $(cat "$T/stats")"
# opt/app was made and filled there: fsynced, as its parent, at each barrier.
grep -q '"fsync":[1-9]' "$T/stats" || fail "no directory fsync: $(cat "$T/stats")"
[ "$(ls "$T/backing/app" | wc -l)" = 7 ] || fail "files missing under the mount"
no_temps "$root"
"$DEBUNPACK" --root "$root" --verify || fail "verify"
echo "ok files on a FUSE mount inside the root synced one by one: $(cat "$T/stats")"
# auto judges by the root's filesystem: syncfs here.
"$DEBUNPACK" --root "$root" --stats=json "$deb" > "$T/stats" || fail "reinstall"
grep -q '"sync_mode":"syncfs"' "$T/stats" || fail "auto: $(cat "$T/stats")"
echo "ok auto picks syncfs for the root and keeps the mount safe"

# A repair is as durable as the run: killed at the commit's first rename,
# the run leaves a journal whose undo renames under /opt too; the repair
# fsyncs the directories it names there (no syncfs is trusted on FUSE),
# and syncs the root's filesystem once.
if command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null; then
	# LeakSanitizer cannot run under ptrace; the other tests look for leaks.
	ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0
	export ASAN_OPTIONS
	set +e
	strace -qq -o /dev/null -e trace=linkat,renameat,renameat2,rename \
	    -e inject=linkat,renameat,renameat2,rename:signal=KILL:when=1 \
	    "$DEBUNPACK" -q --root "$root" --sync-mode syncfs "$deb" 2>/dev/null
	set -e
	[ -s "$root/var/lib/debunpack/journal" ] || fail "no journal after the kill"
	strace -qq -y -o "$T/rcalls" -e trace=fsync,syncfs \
	    "$DEBUNPACK" -q --root "$root" --recover || fail "repair"
	[ ! -e "$root/var/lib/debunpack/journal" ] || fail "journal left"
	grep -q "^fsync([0-9]*<$root/opt/app>)" "$T/rcalls" ||
	    fail "repair: opt/app not fsynced: $(cat "$T/rcalls")"
	grep -q "^syncfs([0-9]*<$root>)" "$T/rcalls" ||
	    fail "repair: no syncfs of the root: $(cat "$T/rcalls")"
	! grep -q "^syncfs([0-9]*<$root/opt" "$T/rcalls" ||
	    fail "repair: syncfs trusted on FUSE: $(cat "$T/rcalls")"
	no_temps "$root"
	"$DEBUNPACK" --root "$root" --verify || fail "verify after the repair"
	echo "ok a repair fsyncs what it changed on the FUSE mount, syncfs elsewhere"
else
	echo "strace cannot trace here: repair on a FUSE mount not tested"
fi
