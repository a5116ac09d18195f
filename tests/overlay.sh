#!/bin/sh
# SPDX-License-Identifier: MIT
# A root on overlayfs, as in a container: syncfs makes it durable, and a
# file's writeback error, which syncfs does not report there, is found by
# the check of each file.  The upper layer is ext4, xfs and btrfs on a
# loop device over the crash recorder, which fails the writes of blocks
# full of one string with EIO: real writeback errors, from the kernel.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "not root: cannot mount"
[ -x "${RECORDER:-}" ] || skip "recorder not built (libfuse3-dev)"
command -v fusermount3 > /dev/null || skip "fusermount3 missing (fuse3)"
[ -c /dev/fuse ] || skip "no /dev/fuse"

# A block of 'Q's is what the recorder is told to fail; nothing else the
# packages or the file systems write holds 64 of them in a row.
bad=QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ
pkg() {	# VERSION BIGFILL: package ovl of 40 small files and a big one
	make_pkg ovl "$1" "dir ./usr/ 0755" "dir ./usr/share/ 0755" "dir ./usr/share/ovl/ 0755" \
	    "gen 40 ./usr/share/ovl/f 0644 3000" "file ./usr/share/ovl/big 0644 fill:262144:$2"
}
v1=$(pkg 1 A)
v2=$(pkg 2 Q)
# More directories than a run keeps open under "ulimit -n 40".
dirs=$(
	i=100
	while [ $i -lt 400 ]; do
		printf 'dir ./usr/share/d%d/ 0755\ngen 3 ./usr/share/d%d/f 0644 100\n' $i $i
		i=$((i + 1))
	done | make_pkg dirs 1 "dir ./usr/ 0755" "dir ./usr/share/ 0755" -
)

recpid=""
cleanup_hooks="for m in '$T/root' '$T/up'; do umount -l \"\$m\" 2>/dev/null; done;
fusermount3 -uz '$T/fuse' 2>/dev/null; [ -z \"\$recpid\" ] || kill \$recpid 2>/dev/null;
$cleanup_hooks"

# up FS: a fresh FS on the recorder, an overlay of it at $T/root; 1 if FS
# or overlayfs is not there.
up() {
	case $1 in
	ext4) mkfs="mkfs.ext4 -q -F" ;;
	xfs) mkfs="mkfs.xfs -q -f" ;;
	btrfs) mkfs="mkfs.btrfs -q -f" ;;
	esac
	command -v ${mkfs%% *} > /dev/null || return 1
	rm -f "$T/img"
	truncate -s 512M "$T/img"
	$mkfs "$T/img" > /dev/null 2>&1 || return 1
	mkdir -p "$T/up" "$T/lower" "$T/root"
	start_recorder "$T/img" /dev/null
	loop_attach "$T/fuse/disk" || fail "losetup"
	mount "$loop" "$T/up" || return 1
	mkdir "$T/up/upper" "$T/up/work"
	mount -t overlay overlay -o "lowerdir=$T/lower,upperdir=$T/up/upper,workdir=$T/up/work" \
	    "$T/root" 2> /dev/null || { umount "$T/up"; return 1; }
}

down() {
	umount "$T/root" "$T/up" || fail "umount"
	loop_detach "$loop"
	fusermount3 -u "$T/fuse" || fail "fusermount3"
	wait $recpid || fail "recorder: $(cat "$T/recorder.err")"
	recpid=""
}

tried=0
for fs in ext4 xfs btrfs; do
	if ! up $fs; then
		echo "# $fs or overlayfs not available here"
		continue
	fi
	tried=$((tried + 1))
	[ "$(stat -f -c %T "$T/root")" = overlayfs ] ||
	    fail "$fs: root is on $(stat -f -c %T "$T/root")"

	# auto: syncfs, each file checked; no fdatasync for any file.
	"$DEBUNPACK" --root "$T/root" --stats=json "$v1" > "$T/stats" ||
	    fail "$fs: install"
	grep -q '"sync_mode":"syncfs"' "$T/stats" || fail "$fs: mode: $(cat "$T/stats")"
	grep -q '"filesystems":\[{"type":"overlay","sync":"syncfs+check",' "$T/stats" ||
	    fail "$fs: filesystems: $(cat "$T/stats")"
	# 41 files and the record, each checked once, and the journal's
	# lines written back at its start and before each directory the run
	# uses (the package's 3, a few of the admin directory's); the
	# journal's syncs only.
	grep -Eq '"fiemap":4[3-9]}' "$T/stats" || fail "$fs: checks: $(cat "$T/stats")"
	n=$(sed 's/.*"fdatasync":\([0-9]*\),.*/\1/' "$T/stats")
	[ "$n" -le 3 ] || fail "$fs: $n fdatasync calls: $(cat "$T/stats")"
	"$DEBUNPACK" --root "$T/root" --verify || fail "$fs: verify"
	echo "ok $fs: an overlay root gets syncfs and a check of each file: $(cat "$T/stats")"

	# The layers are on different filesystems: a directory the run
	# closed and opens again may come back with another inode number
	# once the caches are dropped; it is the same directory.
	(while :; do echo 2 > /proc/sys/vm/drop_caches; sleep 0.01; done) &
	dropper=$!
	set +e
	(ulimit -n 40 && exec "$DEBUNPACK" -q --root "$T/root" "$dirs") 2> "$T/err"
	st=$?
	set -e
	kill $dropper
	wait $dropper 2> /dev/null || true
	[ $st = 0 ] || fail "$fs: directories read again: $(cat "$T/err")"
	[ "$(find "$T/root/usr/share" -path '*/d[0-9]*/f*' | wc -l)" = 900 ] ||
	    fail "$fs: $(find "$T/root/usr/share" -path '*/d[0-9]*/f*' | wc -l) files"
	echo "ok $fs: directories of an overlay read again after dropped caches"

	# The big file's blocks now fail: the upgrade stops, naming it.
	snapshot "$T/root" "$T/before"
	printf '%s' "$bad" > "$T/fuse/fail"
	if "$DEBUNPACK" -q --root "$T/root" "$v2" 2> "$T/err"; then
		fail "$fs: a failed writeback went unnoticed"
	fi
	: > "$T/fuse/fail"
	[ "$(wc -l < "$T/err")" = 1 ] || fail "$fs: message: $(cat "$T/err")"
	grep -q 'usr/share/ovl/big.*Input/output error' "$T/err" ||
	    fail "$fs: message: $(cat "$T/err")"
	no_temps "$T/root"
	snapshot "$T/root" "$T/after"
	diff -u "$T/before" "$T/after" || fail "$fs: the failed run changed the root"
	"$DEBUNPACK" -q --root "$T/root" --recover || fail "$fs: recover"
	snapshot "$T/root" "$T/after"
	diff -u "$T/before" "$T/after" || fail "$fs: the repair changed the root"
	echo "ok $fs: a writeback error under the overlay fails the run: $(cat "$T/err")"

	# Without syncs nothing looks, and the same error passes unseen: the
	# check is what found it.
	printf '%s' "$bad" > "$T/fuse/fail"
	"$DEBUNPACK" -q --root "$T/root" --sync-mode none "$v2" ||
	    fail "$fs: none: $(cat "$T/err")"
	sync -f "$T/root" 2> /dev/null || true
	: > "$T/fuse/fail"
	echo "ok $fs: the same error goes unseen with --sync-mode none"

	# Once the disk is good again, the upgrade goes through.
	"$DEBUNPACK" -q --root "$T/root" "$v1" || fail "$fs: reinstall v1"
	"$DEBUNPACK" -q --root "$T/root" "$v2" || fail "$fs: upgrade"
	"$DEBUNPACK" --root "$T/root" --verify || fail "$fs: verify v2"
	down
done
[ $tried -gt 0 ] || skip "no overlayfs over ext4, xfs or btrfs here"

# Rootless, as in a rootless container: an unprivileged user in a user
# and mount namespace of its own mounts the overlay (Linux 5.11) and
# installs into it the same way.
rootless() {	# CMD...: as nobody, in a user and mount namespace of its own
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    unshare --user --map-root-user --mount "$@"
}
if ! command -v unshare > /dev/null || ! command -v setpriv > /dev/null; then
	echo "# no unshare or setpriv: no rootless case"
elif ! rootless true 2> /dev/null; then
	echo "# no unprivileged user namespaces here: no rootless case"
else
	rl=$T/rootless
	mkdir -p "$rl/lower" "$rl/upper" "$rl/work" "$rl/root"
	cp "$v1" "$rl/v1.deb"
	chmod 755 "$T"
	chown -R nobody:nogroup "$rl"
	set +e
	rootless sh -c '
		mount -t overlay overlay -o "lowerdir=$1/lower,upperdir=$1/upper,workdir=$1/work" \
		    "$1/root" 2> /dev/null || exit 77
		"$2" --root "$1/root" --stats=json "$1/v1.deb" > "$1/stats" &&
		    "$2" --root "$1/root" --verify' rootless "$rl" "$DEBUNPACK" 2> "$T/err"
	st=$?
	set -e
	if [ $st = 77 ]; then
		echo "# no overlay in an unprivileged user namespace here"
	else
		[ $st = 0 ] || fail "rootless: $(cat "$T/err")"
		grep -q '"filesystems":\[{"type":"overlay","sync":"syncfs+check",' \
		    "$rl/stats" || fail "rootless: $(cat "$rl/stats")"
		[ "$(stat -c %U "$rl/upper/usr/share/ovl/big")" = nobody ] ||
		    fail "rootless: owner $(stat -c %U "$rl/upper/usr/share/ovl/big")"
		no_temps "$rl/upper"
		echo "ok rootless: an unprivileged user's overlay gets the same: $(cat "$rl/stats")"
	fi
fi
