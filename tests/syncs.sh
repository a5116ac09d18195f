#!/bin/sh
# SPDX-License-Identifier: MIT
# The sync calls of a run in the default mode (syncfs) on a journaled
# ext4, counted with strace: counts that do not drift, unlike seconds.
#  - The journal's lines are written back and waited for ("writeback":
#    sync_file_range, no commit of the file system), and so are the
#    temporaries at the data barrier: on one journaled ext4 (or xfs)
#    the names barrier's one commit makes the data, the lines and the
#    names durable together.  Where the store of unpacked files was
#    filled beside the run, the data barrier is a syncfs of its own; an
#    install from the store that fills nothing only waits.
#  - The commit line is written after the last rename and written back
#    and waited for in its turn ("commit writeback"): on one journaled
#    ext4 (or xfs), which keeps its changes in order, the names barrier
#    makes no commit of its own, and the cleanup's one syncfs makes the
#    data, the lines, the names and the cleanup durable together (an
#    upgrade's backups and obsolete paths included).
#  - With --maintscripts (the dpkg for apt) the batches leave that commit
#    to the call: one before a script runs and one before the call
#    returns, however many groups the call's packages make; on a
#    journaled ext4 (and xfs) the fsync of dpkg's directory, its times
#    touched, where a syncfs would also write back what others left
#    dirty (seq_settle).
#  - With dpkg's database and --maintscripts, a group with no script to
#    run writes no half-installed status (apt still reads the line), and
#    one with a preinst writes it durably before the preinst runs: on
#    ext4 with a journal (and xfs) the new status file is written back,
#    renamed, and one fsync of the directory commits both; where only a
#    prerm ran, the batch's commit (the call's syncfs) carries it.
#  - Past the commit, a cleanup that removes only backups in the
#    databases' directories (dpkg's status and info files, records), on
#    the journal's own file system, is left to it: no last barrier.  An
#    upgrade's backups and obsolete paths in the tree still get one.
#  - The store of unpacked files on the root's filesystem is made durable
#    by the run's data barrier (a syncfs there), not by one of its own.
#  - The dpkg for apt runs dpkg --configure (apt's, and the one that ends
#    a dpkg -i) under debunpack-nosync on a journaled ext4, guarded on
#    xfs and btrfs (each sync of a file of dpkg's database a wait for
#    that file without a commit, no other) and
#    with its own syncs elsewhere, a syncfs of the root after each (and
#    of the filesystems mounted whole inside it, each once);
#    DEBUNPACK_DPKG_CONFIGURE=dpkg hands it on as is.
#  - With a second filesystem in the root, the journal's lines are synced
#    by their own fdatasync before the data barrier, and the commit line
#    comes after the names barrier of both, with its own fdatasync.
#  - The upgrade of an installed package whose old version has a prerm
#    and a postrm (dpkg's status written before the batch and after the
#    postrm): on a journaled ext4 each status file written back and
#    renamed, the first committed by the fsync before the postrm, the
#    second by the directory's fsync, which commits everything before it;
#    on btrfs (Linux 6.2 and later) each status file and each temporary
#    settled (fiemap with FIEMAP_FLAG_SYNC: its extents in the running
#    transaction, no commit),
#    the first status file's rename, the data and the names committed by
#    the names barrier's one syncfs, the backups' removal and the second
#    rename by the call's last syncfs: two commits, where fdatasyncs and
#    a data barrier cost two more and a log-tree sync.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "not root: the loop device needs root"
command -v strace > /dev/null || skip "strace not installed"
command -v mkfs.ext4 > /dev/null || skip "mkfs.ext4 missing"
# LeakSanitizer cannot run under ptrace.
ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0
export ASAN_OPTIONS
[ -e /dev/loop-control ] || modprobe loop 2> /dev/null || true

# shellcheck disable=SC2317 # called through cleanup_hooks
unmount_all() {
	umount "$T/m/t/usr/share" 2> /dev/null
	umount "$T/m/u/usr/share" 2> /dev/null
	umount "$T/m" 2> /dev/null
}
cleanup_hooks="unmount_all; $cleanup_hooks"
truncate -s 256M "$T/e.img"
mkfs.ext4 -q -F "$T/e.img" || fail "mkfs.ext4"
loop_attach "$T/e.img" || skip "no loop device"
mkdir "$T/m"
mount "$loop" "$T/m" || fail "cannot mount $loop"
[ -n "$(ls /proc/fs/jbd2 2> /dev/null)" ] ||
    skip "/proc/fs/jbd2 cannot be read: the journal is not seen"

a1=$(make_pkg -m "T <t@example.org>" -d test app 1 "dir ./usr/ 0755" "dir ./usr/share/ 0755" \
    "dir ./usr/share/app/ 0755" "file ./usr/share/app/a 0644 size:9000" \
    "file ./usr/share/app/b 0644 text:one")
a2=$(make_pkg -m "T <t@example.org>" -d test app 2 "dir ./usr/ 0755" "dir ./usr/share/ 0755" \
    "dir ./usr/share/app/ 0755" "file ./usr/share/app/a 0644 size:9001" \
    "file ./usr/share/app/c 0644 text:two")
p1=$(make_pkg -m "T <t@example.org>" -d test pre 1 "control-file preinst 0755 #!/bin/sh\nexit 0\n" \
    "dir ./usr/ 0755" "dir ./usr/share/ 0755" "file ./usr/share/pre 0644 text:pre")

# synced NAME ARG...: debunpack ARG... under strace; $T/NAME.calls has its
# sync calls and its write of the commit line, in order, one word each.
# The journal's lines are written back before each directory the run
# uses, and once more before the barrier: a run of writebacks is one word
# here (tests/check_journal counts them).
synced() {
	sy_name=$1
	shift
	strace -f -qq -s 65536 -o "$T/$sy_name.trace" \
	    -e trace=fsync,fdatasync,syncfs,sync_file_range,ioctl,renameat,renameat2,write \
	    "$DEBUNPACK" -q "$@" \
	    > "$T/$sy_name.out" 2>&1 || fail "$sy_name: $(cat "$T/$sy_name.out")"
	sed -n 's/^[0-9]* *\(fsync\|fdatasync\|syncfs\)(.*/\1/p
	    s/^[0-9]* *sync_file_range(.*WAIT_BEFORE|SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER).*/writeback/p
	    s/^[0-9]* *write(.*commit\\n", .*/commit/p' "$T/$sy_name.trace" |
	    tr '\n' ' ' | sed 's/\(writeback \)\{2,\}/writeback /g; s/ $//' > "$T/$sy_name.calls"
}
# linux_since MAJOR MINOR: the running kernel is that one or later.
linux_since() {
	uname -r | awk -F. -v ma="$1" -v mi="$2" \
	    '{ exit !($1 + 0 > ma || ($1 + 0 == ma && $2 + 0 >= mi)) }'
}
# expect NAME CALLS: the sync calls of NAME were these.
expect() {
	[ "$(cat "$T/$1.calls")" = "$2" ] ||
	    fail "$1: sync calls '$(cat "$T/$1.calls")', not '$2'"
	echo "ok $1: $2"
}

R=$T/m/r
mkdir "$R" "$T/m/s"
synced install --root "$R" "$a1"
expect install "writeback commit writeback syncfs"
# The upgrade has backups and an obsolete path to remove after the commit:
# the same one commit.
synced upgrade --root "$R" "$a2"
expect upgrade "writeback commit writeback syncfs"
[ ! -e "$R/usr/share/app/b" ] && [ -f "$R/usr/share/app/c" ] ||
    fail "upgrade: the tree is not version 2's"

# dpkg's database, as the dpkg for apt runs debunpack.
D=$T/m/d
empty_dpkg_db "$D"
synced noscripts --root "$D" --dpkg-db --maintscripts \
    --force-script-chrootless --status-fd 1 "$a1"
expect noscripts "writeback commit writeback fsync"
grep -qx 'status: app: half-installed' "$T/noscripts.out" ||
    fail "noscripts: no half-installed status line: $(cat "$T/noscripts.out")"
synced preinst --root "$D" --dpkg-db --maintscripts \
    --force-script-chrootless "$p1"
expect preinst "writeback fsync writeback commit writeback fsync"
[ -z "$(find "$D/var/lib/dpkg" "$D/var/lib/debunpack" -name '*.debunpack-*')" ] ||
    fail "preinst: backups left in the databases: $(find "$D/var/lib" -name '*.debunpack-*')"
# An upgrade replaces and drops paths in the tree: still one commit.
synced dbupgrade --root "$D" --dpkg-db --maintscripts \
    --force-script-chrootless "$a2"
expect dbupgrade "writeback commit writeback fsync"
# Two Essential packages and one more, none with a preinst: one group,
# one batch (an Essential package ends its group only where a later
# preinst could see it unpacked or not).
e1=$(make_pkg -m "T <t@example.org>" -d test ess1 1 "control-field Essential yes" \
    "dir ./usr/ 0755" "dir ./usr/share/ 0755" "file ./usr/share/ess1 0644 text:e1")
e2=$(make_pkg -m "T <t@example.org>" -d test ess2 1 "control-field Essential yes" \
    "dir ./usr/ 0755" "dir ./usr/share/ 0755" "file ./usr/share/ess2 0644 text:e2")
a3=$(make_pkg -m "T <t@example.org>" -d test app 3 "dir ./usr/ 0755" "dir ./usr/share/ 0755" \
    "dir ./usr/share/app/ 0755" "file ./usr/share/app/a 0644 size:9002")
synced groups --root "$D" --dpkg-db --maintscripts \
    --force-script-chrootless "$e1" "$e2" "$a3"
expect groups "writeback commit writeback fsync"
# Installed now, they work as they are until the batch: with a preinst
# after them, still one group.
synced preinstone --root "$D" --dpkg-db --maintscripts \
    --force-script-chrootless "$e1" "$e2" "$p1"
expect preinstone "writeback fsync writeback commit writeback fsync"
# Two not installed yet, with a preinst after them: three groups, three
# batches (one commit each, and the half-installed status synced before
# the preinst).
e3=$(make_pkg -m "T <t@example.org>" -d test ess3 1 "control-field Essential yes" \
    "dir ./usr/ 0755" "dir ./usr/share/ 0755" "file ./usr/share/ess3 0644 text:e3")
e4=$(make_pkg -m "T <t@example.org>" -d test ess4 1 "control-field Essential yes" \
    "dir ./usr/ 0755" "dir ./usr/share/ 0755" "file ./usr/share/ess4 0644 text:e4")
synced preinstgroups --root "$D" --dpkg-db --maintscripts \
    --force-script-chrootless "$e3" "$e4" "$p1"
expect preinstgroups "writeback commit writeback commit writeback fsync writeback commit writeback fsync"
[ "$(cat "$D/usr/share/ess1")" = e1 ] && [ "$(cat "$D/usr/share/ess2")" = e2 ] &&
    [ ! -e "$D/usr/share/app/c" ] || fail "groups: the tree is not the call's"
dpkg-query --admindir="$D/var/lib/dpkg" -W -f '${Status}\n' app pre > "$T/st" 2>&1 &&
    [ "$(sort -u "$T/st")" = "install ok unpacked" ] ||
    fail "dpkg's status after the runs: $(cat "$T/st")"

# The store on the root's file system: filled by a fresh install.
synced store --root "$T/m/s" --cache="$T/m/cache" "$a1"
expect store "writeback syncfs commit writeback syncfs"
[ "$(ls "$T/m/cache/entries" | wc -l)" = 1 ] ||
    fail "store: the run's entry is not in the store"
# A second root from the store: nothing filled beside the batch, so the
# data barrier only waits for the files (copied from the store here).
mkdir "$T/m/s2"
synced storehit --root "$T/m/s2" --cache="$T/m/cache" --stats "$a1"
expect storehit "writeback commit writeback syncfs"
grep -q 'decoded 0 ' "$T/storehit.out" ||
    fail "storehit: not installed from the store: $(cat "$T/storehit.out")"

# /usr/share on a file system of its own: the commit line waits.  Lines
# about directories there are not written back: a tmpfs keeps nothing.
mkdir -p "$T/m/t/usr/share"
mount -t tmpfs tmpfs "$T/m/t/usr/share" || skip "cannot mount a tmpfs"
synced twofs --root "$T/m/t" "$a1"
umount "$T/m/t/usr/share"
expect twofs "writeback fdatasync syncfs syncfs syncfs syncfs commit fdatasync"
# An upgrade that writes nothing on the second file system but drops a
# path there: the cleanup changes it, so the names barrier commits (the
# other file system's own commit must not remove it before the line).
b1=$(make_pkg -m "T <t@example.org>" -d test two 1 "dir ./usr/ 0755" "dir ./usr/lib/ 0755" \
    "file ./usr/lib/two1 0644 text:1" "dir ./usr/share/ 0755" "dir ./usr/share/two/ 0755" \
    "file ./usr/share/two/old 0644 text:old")
b2=$(make_pkg -m "T <t@example.org>" -d test two 2 "dir ./usr/ 0755" "dir ./usr/lib/ 0755" \
    "file ./usr/lib/two2 0644 text:2")
mkdir -p "$T/m/u/usr/share"
mount -t tmpfs tmpfs "$T/m/u/usr/share" || skip "cannot mount a tmpfs"
"$DEBUNPACK" -q --root "$T/m/u" "$b1" || fail "two 1"
synced twodrop --root "$T/m/u" "$b2"
[ ! -e "$T/m/u/usr/share/two/old" ] || fail "twodrop: the dropped path is still there"
umount "$T/m/u/usr/share"
case " $(cat "$T/twodrop.calls") " in
*" commit writeback syncfs "*) fail "twodrop: the names barrier left its commit: $(cat "$T/twodrop.calls")" ;;
esac
echo "ok twodrop: $(cat "$T/twodrop.calls")"

# conf_wberr FS: a guarded call whose database file fails its writeback
# must fail, whenever the writeback ran: on a disk of the crash recorder,
# which fails the writes of blocks holding a string, the stand-in writes
# status-new full of it and (late) starts its writeback itself before it
# syncs it (dd's nocache: posix_fadvise), so that the error is past when
# the shim opens its own descriptor to answer the sync: only the
# barrier's sync through a descriptor older than dpkg's writes sees it
# (12ee1fb); (early) or syncs it at once.  Either way the call exits
# non-zero, the barrier saying why.
conf_wberr() {
	command -v "mkfs.$1" > /dev/null || { echo "# SKIP wberr: mkfs.$1 missing"; return 0; }
	[ -x "${RECORDER:-}" ] && [ -c /dev/fuse ] && command -v fusermount3 > /dev/null ||
	    { echo "# SKIP wberr: no crash recorder (libfuse3-dev, fuse3)"; return 0; }
	rm -f "$T/w.img"
	truncate -s 320M "$T/w.img"
	"mkfs.$1" -q -f "$T/w.img" > /dev/null || fail "mkfs.$1"
	start_recorder "$T/w.img" /dev/null
	cleanup_hooks="umount -l '$T/mw' 2> /dev/null; fusermount3 -uz '$T/fuse' 2> /dev/null; $cleanup_hooks"
	loop_attach "$T/fuse/disk" || fail "no loop device for $1"
	mkdir -p "$T/mw"
	mount "$loop" "$T/mw" || fail "cannot mount $1"
	empty_dpkg_db "$T/mw"
	bad=QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ
	for how in late early; do
		cat > "$T/wbdpkg" <<EOS
#!/bin/sh
a=\${1#--root=}/var/lib/dpkg
if [ $how = late ]; then
	yes $bad | head -c 65536 | dd of="\$a/status-new" oflag=nocache status=none || exit 1
	sleep 1
else
	yes $bad | head -c 65536 > "\$a/status-new" || exit 1
fi
sync "\$a/status-new"
rm -f "\$a/status-new"
exit 0
EOS
		chmod +x "$T/wbdpkg"
		printf '%s' "$bad" > "$T/fuse/fail"
		set +e
		DEBUNPACK_DPKG=$T/wbdpkg DEBUNPACK_DPKG_DEBUG=1 "$DPKGSHIM" \
		    --root="$T/mw" --configure -a > "$T/wb.out" 2>&1
		st=$?
		set -e
		: > "$T/fuse/fail"
		grep -q "with its database's syncs only, then one barrier" "$T/wb.out" ||
		    fail "wberr $1 $how: not guarded: $(cat "$T/wb.out")"
		[ $st != 0 ] || fail "wberr $1 $how: a writeback error of dpkg's status went unseen: $(cat "$T/wb.out")"
		# The shim's own words, not the stand-in's sync's.
		grep -q "^dpkg: error: cannot make '$T/mw/var/lib/dpkg' durable: Input/output error$" "$T/wb.out" ||
		    fail "wberr $1 $how: the barrier did not say it: $(cat "$T/wb.out")"
		echo "ok wberr $1 $how: exit $st, $(grep "^dpkg: error: " "$T/wb.out")"
	done
	umount "$T/mw"
	loop_detach "$loop"
	fusermount3 -u "$T/fuse" || fail "fusermount3"
	wait $recpid || fail "recorder: $(cat "$T/recorder.err")"
	recpid=""
}

# conf_guarded FS: on xfs and btrfs the dpkg for apt answers each fsync
# and fdatasync of dpkg's itself: a file of the database (but updates/)
# is put on the disk ahead of what follows, without a commit (written
# back and waited for on xfs, settled by fiemap on btrfs), anything
# else (an update file, a directory, a file outside the database) does
# nothing, and the barrier after the call is its one syncfs; a process
# dpkg leaves behind still gets its syncs run (not ENOSYS) once the shim
# is gone.
conf_guarded() {
	command -v "mkfs.$1" > /dev/null || { echo "# SKIP guarded: mkfs.$1 missing"; return 0; }
	truncate -s 320M "$T/x.img"
	"mkfs.$1" -q -f "$T/x.img" > /dev/null || fail "mkfs.$1"
	loop_attach "$T/x.img" || fail "no loop device for $1"
	mkdir -p "$T/mx"
	cleanup_hooks="umount '$T/mx' 2> /dev/null; $cleanup_hooks"
	mount "$loop" "$T/mx" || fail "cannot mount $1"
	empty_dpkg_db "$T/mx"
	cat > "$T/guarddpkg" <<'EOS'
#!/bin/sh
r=${1#--root=} a=${1#--root=}/var/lib/dpkg
echo one > "$a/updates/0001" && sync "$a/updates/0001" &&
echo two > "$a/status-new" && sync "$a/status-new" &&
echo three > "$r/other" && sync "$r/other" && sync "$a" &&
sync -d "$a/status-new" && rm "$a/updates/0001" "$a/status-new" || exit 1
# Left running: its sync comes after the shim has returned.
(sleep 1; sync "$r/other"; echo "rc=$?" > "$r/late") > /dev/null 2>&1 &
echo "dpkg $*"
EOS
	chmod +x "$T/guarddpkg"
	DEBUNPACK_DPKG=$T/guarddpkg DEBUNPACK_DPKG_DEBUG=1 strace -f -qq \
	    -o "$T/conf-g.trace" \
	    -e trace=fsync,fdatasync,syncfs,sync_file_range,ioctl "$DPKGSHIM" \
	    --root="$T/mx" --configure -a > "$T/conf-g.out" 2>&1 ||
	    fail "conf-g: $(cat "$T/conf-g.out")"
	grep -q "with its database's syncs only, then one barrier" "$T/conf-g.out" &&
	    grep -q "^debunpack-dpkg: of dpkg's syncs, 2 put their file ahead of later changes, 0 synced '[^']*', 3 did nothing$" \
	    "$T/conf-g.out" || fail "conf-g: not guarded: $(cat "$T/conf-g.out")"
	# The stand-in's 5 calls and the late one (strace follows it), the
	# status file's 2 each a wait without a commit, the barrier's syncfs.
	case $1 in
	xfs) wait='sync_file_range\(.*SYNC_FILE_RANGE_WAIT_AFTER' ;;
	*) wait='ioctl\(.*FS_IOC_FIEMAP.*FIEMAP_FLAG_SYNC' ;;
	esac
	[ "$(grep -c -E '^[0-9]+ +f(data)?sync\(' "$T/conf-g.trace")" = 6 ] &&
	    [ "$(grep -c -E "^[0-9]+ +$wait" "$T/conf-g.trace")" = 2 ] &&
	    [ "$(grep -c -E '^[0-9]+ +syncfs\(' "$T/conf-g.trace")" = 1 ] ||
	    fail "conf-g: not 6 syncs answered by 2 waits and one syncfs: $(cat "$T/conf-g.trace")"
	for i in 1 2 3 4 5 6; do
		[ -f "$T/mx/late" ] && break
		sleep 1
	done
	[ "$(cat "$T/mx/late" 2> /dev/null)" = rc=0 ] ||
	    fail "conf-g: the sync of a process left behind: $(cat "$T/mx/late" 2>&1)"
	umount "$T/mx"
	loop_detach "$loop"
	echo "ok conf-g: on $1, dpkg's database file put ahead, nothing else syncs, one barrier after"
}

# The dpkg for apt hands --configure to dpkg (here a stand-in that tells
# whether its sync calls are filtered, and syncs once): on this journaled
# ext4, under debunpack-nosync, then one syncfs of the root; on a tmpfs,
# dpkg with its own syncs, then the barrier all the same.
if [ -x "${DPKGSHIM:-}" ] && [ -x "${DEBUNPACK_NOSYNC:-}" ] &&
    "$DEBUNPACK_NOSYNC" true 2> /dev/null; then
	cat > "$T/fakedpkg" <<'EOS'
#!/bin/sh
echo "dpkg $* nosync=${DEBUNPACK_NOSYNC_ACTIVE:-no}"
sync -f /
EOS
	chmod +x "$T/fakedpkg"
	conf() {	# NAME ROOT: the shim's --configure -a on ROOT, traced
		DEBUNPACK_DPKG=$T/fakedpkg DEBUNPACK_DPKG_DEBUG=1 strace -f -qq \
		    -o "$T/$1.trace" -e trace=fsync,fdatasync,syncfs "$DPKGSHIM" \
		    --root="$2" --configure -a > "$T/$1.out" 2>&1 ||
		    fail "$1: $(cat "$T/$1.out")"
		# The stand-in's own sync, then the shim's barrier.
		grep -c 'syncfs(' "$T/$1.trace" > "$T/$1.n"
	}
	# ran NAME NOSYNC HOW: dpkg ran so (nosync=1 or no), said HOW, and a
	# syncfs came after the stand-in's own.
	ran() {
		grep -q "^dpkg .*--configure -a nosync=$2\$" "$T/$1.out" &&
		    grep -q "$3" "$T/$1.out" ||
		    fail "$1: not $3: $(cat "$T/$1.out")"
		[ "$(cat "$T/$1.n")" -ge 2 ] ||
		    fail "$1: no barrier after dpkg: $(cat "$T/$1.trace")"
		echo "ok $1: dpkg $3, one barrier after"
	}
	conf conf-ext4 "$D"
	ran conf-ext4 1 'under debunpack-nosync'
	# dpkg -i: debunpack unpacks, and the --configure after it is
	# batched as apt's own --configure call.
	i1=$(make_pkg -m "T <t@example.org>" -d test ione 1 \
	    "file ./ione 0644 text:one")
	DEBUNPACK_DPKG=$T/fakedpkg DEBUNPACK_DPKG_DEBUG=1 strace -f -qq \
	    -o "$T/conf-i.trace" -e trace=syncfs,execve "$DPKGSHIM" \
	    --root="$D" --force-script-chrootless -i "$i1" > "$T/conf-i.out" 2>&1 ||
	    fail "conf-i: $(cat "$T/conf-i.out")"
	[ -f "$D/ione" ] || fail "conf-i: not unpacked: $(cat "$T/conf-i.out")"
	grep -q "^dpkg .*--configure ione nosync=1\$" "$T/conf-i.out" &&
	    grep -q -- "--configure after the unpack: .*under debunpack-nosync" \
	    "$T/conf-i.out" || fail "conf-i: not batched: $(cat "$T/conf-i.out")"
	# The last program run is the stand-in's sync: its syncfs, then the
	# shim's barrier.
	[ "$(awk '/execve\(/ { n = 0 } /syncfs\(/ { n++ } END { print n }' \
	    "$T/conf-i.trace")" -ge 2 ] ||
	    fail "conf-i: no barrier after dpkg: $(tail -n 3 "$T/conf-i.trace")"
	echo "ok conf-i: dpkg -i's --configure under debunpack-nosync, one barrier after"
	# The barrier syncs each filesystem once (the database is on the
	# root's), and of the mounts inside the root only whole filesystems
	# (a separate /boot, /var: a tmpfs here), not a bind mount of a
	# directory of the host's (a build directory, a mirror, a volume).
	mkdir -p "$D/whole" "$D/bound" "$T/hostdir"
	cleanup_hooks="umount '$D/bound' '$D/whole' 2> /dev/null; $cleanup_hooks"
	mount -t tmpfs tmpfs "$D/whole" || skip "cannot mount a tmpfs"
	mount --bind "$T/hostdir" "$D/bound" || fail "cannot bind $T/hostdir"
	DEBUNPACK_DPKG=$T/fakedpkg strace -f -qq -y -o "$T/conf-m.trace" \
	    -e trace=syncfs "$DPKGSHIM" --root="$D" --configure -a \
	    > "$T/conf-m.out" 2>&1 || fail "conf-m: $(cat "$T/conf-m.out")"
	umount "$D/bound" "$D/whole"
	for want in "$D" "$D/whole"; do
		[ "$(grep -c "^[0-9]* *syncfs([0-9]*<$want>)" "$T/conf-m.trace")" = 1 ] ||
		    fail "conf-m: not one syncfs of $want: $(cat "$T/conf-m.trace")"
	done
	! grep -q -e "<$D/var/lib/dpkg>" -e "<$D/bound>" "$T/conf-m.trace" ||
	    fail "conf-m: a filesystem synced twice, or the host's: $(cat "$T/conf-m.trace")"
	echo "ok conf-m: one syncfs a filesystem, whole mounts in the root, not the host's directories"
	mkdir -p "$T/m/tm"
	mount -t tmpfs tmpfs "$T/m/tm" || skip "cannot mount a tmpfs"
	empty_dpkg_db "$T/m/tm"
	conf conf-tmpfs "$T/m/tm"
	umount "$T/m/tm"
	ran conf-tmpfs no 'with its own syncs'
	DEBUNPACK_DPKG=$T/fakedpkg DEBUNPACK_DPKG_CONFIGURE=dpkg "$DPKGSHIM" \
	    --root="$D" --configure -a > "$T/conf-off.out" 2>&1 ||
	    fail "conf-off: $(cat "$T/conf-off.out")"
	grep -q "nosync=no$" "$T/conf-off.out" ||
	    fail "conf-off: DEBUNPACK_DPKG_CONFIGURE=dpkg still batched"
	conf_guarded xfs
	conf_wberr xfs
	if linux_since 6 2; then
		conf_guarded btrfs
		conf_wberr btrfs
	else
		echo "# SKIP conf-g btrfs: Linux before 6.2 settles nothing (fskind_settles)"
	fi
fi

# scripted NAME ROOT: pp 1 installed (prerm, postrm) in ROOT's empty
# database, then upgraded to pp 2 under strace ($T/NAME.calls).
s1=$(make_pkg -m "T <t@example.org>" -d test pp 1 \
    "control-file prerm 0755 #!/bin/sh\nexit 0\n" \
    "control-file postrm 0755 #!/bin/sh\nexit 0\n" \
    "dir ./usr/ 0755" "dir ./usr/share/ 0755" "file ./usr/share/pp 0644 text:1")
s2=$(make_pkg -m "T <t@example.org>" -d test pp 2 \
    "control-file prerm 0755 #!/bin/sh\nexit 0\n" \
    "control-file postrm 0755 #!/bin/sh\nexit 0\n" \
    "dir ./usr/ 0755" "dir ./usr/share/ 0755" "file ./usr/share/pp 0644 text:2")
scripted() {
	empty_dpkg_db "$2"
	"$DEBUNPACK" -q --root "$2" --dpkg-db --maintscripts \
	    --force-script-chrootless "$s1" || fail "$1: pp 1"
	# Configured, so that its prerm runs (no postinst to run).
	sed -i 's/^Status: install ok unpacked$/Status: install ok installed/' \
	    "$2/var/lib/dpkg/status"
	synced "$1" --root "$2" --dpkg-db --maintscripts \
	    --force-script-chrootless "$s2"
	[ "$(cat "$2/usr/share/pp")" = 2 ] &&
	    [ "$(dpkg-query --admindir="$2/var/lib/dpkg" -W -f '${Status} ${Version}' pp)" = \
	    "install ok unpacked 2" ] || fail "$1: pp 2 is not unpacked"
}
# unpacked NAME: NAME's sync calls, with "unpacked" where dpkg's new status
# saying so was written ($T/NAME.calls).
unpacked() {
	sed -n 's/^[0-9]* *\(fsync\|fdatasync\|syncfs\)(.*/\1/p
	    s/^[0-9]* *sync_file_range(.*WAIT_BEFORE|SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER).*/writeback/p
	    s/^[0-9]* *write(.*commit\\n", .*/commit/p
	    s/^[0-9]* *write(.*Status: install ok unpacked\\n.*/unpacked/p' "$T/$1.trace" |
	    tr '\n' ' ' | sed 's/\(writeback \)\{2,\}/writeback /g; s/ $//' > "$T/$1.calls"
}
scripted scripts-ext4 "$T/m/sc"
expect scripts-ext4 "writeback commit writeback fsync writeback fsync"
# The status after the postrm is written there, and written back.
unpacked scripts-ext4
expect scripts-ext4 "writeback commit writeback fsync unpacked writeback fsync"
if ! linux_since 6 2; then
	echo "# SKIP scripts-btrfs: Linux before 6.2 settles nothing (fskind_settles)"
elif command -v mkfs.btrfs > /dev/null; then
	truncate -s 320M "$T/b.img"
	mkfs.btrfs -q -f "$T/b.img" > /dev/null || fail "mkfs.btrfs"
	loop_attach "$T/b.img" || fail "no loop device for btrfs"
	mkdir -p "$T/mb"
	cleanup_hooks="umount '$T/mb' 2> /dev/null; $cleanup_hooks"
	mount "$loop" "$T/mb" || fail "cannot mount btrfs"
	scripted scripts-btrfs "$T/mb"
	umount "$T/mb"
	expect scripts-btrfs "commit syncfs syncfs"
	# Settled: the status files and the temporaries, before the first
	# rename (the data barrier) and the second status file's.
	[ "$(awk '/ioctl\(.*FS_IOC_FIEMAP.*FIEMAP_FLAG_SYNC/ { n++ }
	    /renameat.*"pp.debunpack-new"/ { print n + 0; exit }' \
	    "$T/scripts-btrfs.trace")" -ge 2 ] ||
	    fail "scripts-btrfs: nothing settled before the first rename"
	echo "ok scripts-btrfs: the status and the temporaries settled before the renames"
	# The status after the postrm written before the names barrier,
	# whose syncfs makes its data durable (seq_prewrite).
	unpacked scripts-btrfs
	expect scripts-btrfs "unpacked commit syncfs syncfs"
else
	echo "# SKIP scripts-btrfs: mkfs.btrfs missing"
fi
