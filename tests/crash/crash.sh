#!/bin/sh
# SPDX-License-Identifier: MIT
# Power-loss crash test of one scenario: record every write and flush the
# file system sends to its disk while debunpack runs (recorder.c, a FUSE
# file under a loop device), then rebuild the disk as a power cut could
# have left it at each flush, and with random subsets of the writes that
# followed (crashreplay.c), mount each such state and check it (check.py).
#
# usage: crash.sh [-n MAXSTATES] [-s SUBSETS] [-e] [-f] [-d] [-k SYSCALL:N] [-F]
#                 [-C] [-p SYSCALL:N] FS MODE SCENARIO
#   FS        ext4, ext4-noauto (noauto_da_alloc), xfs or btrfs; ovl-ext4,
#             ovl-xfs or ovl-btrfs: the root is an overlay (empty lower
#             layer) whose upper layer is on that file system
#   MODE      a --sync-mode
#   SCENARIO  install (into an empty file system), upgrade, or replaces
#             (a package that Replaces the installed one takes a file
#             and its conffile), or scripts: the upgrade as the dpkg
#             for apt runs it, in a root with dpkg's database, with
#             maintainer scripts (--dpkg-db --maintscripts): dpkg's
#             status must also fit the files in every state (dpkg_fits);
#             or cloned: the upgrade with every file of the new packages
#             from the store of unpacked files (--cache, at the root's
#             var/cache/debunpack), filled and synced by an earlier run
#             on the same file system: cloned (FICLONE) on xfs (made with
#             reflink=1) and btrfs, copied by the kernel on ext4
#             or fill: the upgrade that fills that store, empty before:
#             in every state, besides the root's checks, an install of
#             the same packages into a fresh root from the store the
#             state holds must succeed and give the tree a decoded
#             install gives (whatever it finds: no entry, or whole ones)
#             or configure: dpkg --configure -a of version 1 of "app"
#             (its postinst makes a symlink) and "lib", unpacked (its
#             conffile at .dpkg-new), as the dpkg for apt runs it
#             (DPKGSHIM: the real dpkg under debunpack-nosync, then one
#             barrier; MODE none: dpkg under debunpack-nosync alone,
#             the negative control): after each crash state, the real
#             dpkg's --configure -a must leave the tree and the status
#             that durable dpkg leaves;
#             or dbinstall: the same as a first install (version 1 of
#             "app", with its scripts, and "lib" into dpkg's empty
#             database), where only the databases' backups are left to
#             remove after the commit;
#             or groups: "scripts" with "lib" Essential and first, so
#             that the call is two batches, lib's then app's (its prerm
#             runs between them): on xfs and a journaled ext4 neither
#             batch commits, the call syncs before app's prerm and before
#             it exits (seq_settle); a repaired state may also be the
#             tree after lib's batch alone (MID, check.py)
#   -n        check at most MAXSTATES states (default: all prefix states)
#   -s        SUBSETS random-subset states per flush interval (default 1)
#   -e        expect violations: a negative control (exit 0 if found)
#   -f        also check each state with the file system's fsck (read-only)
#   -d        record through a loop device with --direct-io=on
#   -k SYSCALL:N  the recorded run is killed at its N-th call of SYSCALL
#             (linkat:4 before the commit point, unlinkat:8 after it in
#             the upgrade), then `debunpack --recover` repairs it,
#             recorded too: once that exit 0 is durable, the root must be
#             all old or all new
#   -F        the root's /usr/share is a FUSE mount (bindfs) of a directory
#             beside the root on the same disk, as a container's volume;
#             in the crash states a bind mount shows it again
#   -C        the file system commits while the run goes on, as it does
#             on its own during a long run (ext4 every 5 s, xfs and btrfs
#             every 30 s, or when another program fsyncs): every 10 ms a
#             file outside the root's listing (lost+found) grows and is
#             fsynced (ext4, xfs), or btrfs is asked to commit its
#             transaction (BTRFS_IOC_START_SYNC), which writes back
#             nothing of the run's; each commit is a state
#   -p SYSCALL:N  with -C: the recorded run starts once the committer
#             commits, and pauses 50 ms before its N-th call of SYSCALL
#             (renameat:2: after its first rename), so that the file
#             system commits there, whatever the run's speed: a commit
#             between two steps, as a long run meets one.  For upgrades:
#             a fresh install's first commits can keep the directories
#             above the admin directory (var, var/lib) made before its
#             journal exists, which no repair removes
# Prints one line per scenario: states checked, violations, time; and
# each violation with its state.  Needs root, /dev/fuse, losetup.
. "${srcdir:-.}/tests/lib.sh"

max=0 subsets=1 expect=no fsck=no dio=off kill=0 fuse=no commits=no pause=0
while getopts n:s:efdk:FCp: o; do
	case $o in
	n) max=$OPTARG ;;
	s) subsets=$OPTARG ;;
	e) expect=yes ;;
	f) fsck=yes ;;
	d) dio=on ;;
	k) kill=$OPTARG ;;
	F) fuse=yes ;;
	C) commits=yes ;;
	p) pause=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 3 ] || {
	echo "usage: crash.sh [-n N] [-s S] [-e] [-f] [-d] [-k SYSCALL:N] [-F] [-C] [-p SYSCALL:N] FS MODE SCENARIO" >&2
	exit 2
}
fs=$1 mode=$2 scenario=$3

is_root || skip "needs root for loop devices and FUSE"
[ -c /dev/fuse ] || skip "no /dev/fuse"
[ -x "${RECORDER:-}" ] && [ -x "${CRASHREPLAY:-}" ] || skip "recorder not built (libfuse3-dev)"
command -v fusermount3 > /dev/null || skip "fusermount3 missing (fuse3)"
PY=/usr/bin/python3
[ -x $PY ] || skip "no $PY"
CHECK="$PY -S ${srcdir:-.}/tests/crash/check.py"

ovl=no
case $fs in
ovl-*) ovl=yes fs=${fs#ovl-} ;;
esac
if [ $commits = yes ] && { [ $ovl = yes ] || [ $fuse = yes ]; }; then
	echo "crash.sh: -C is for a root at the top of its file system" >&2
	exit 2
fi
if [ $fuse = yes ]; then
	[ $ovl = no ] || { echo "crash.sh: -F is not for overlays" >&2; exit 2; }
	command -v bindfs > /dev/null || skip "bindfs missing"
fi
if [ "$pause" != 0 ] && { [ $commits = no ] || [ "$kill" != 0 ]; }; then
	echo "crash.sh: -p is for -C, without -k" >&2
	exit 2
fi
if [ "$kill" != 0 ] || [ "$pause" != 0 ]; then
	command -v strace > /dev/null && strace -qq -o /dev/null true 2> /dev/null ||
	    skip "strace cannot trace here"
fi
case $fs in
ext4) size=64M mkfs="mkfs.ext4 -q -F -b 4096" opts="" fsckcmd="e2fsck -fn" ;;
ext4-noauto) size=64M mkfs="mkfs.ext4 -q -F -b 4096" opts="-o noauto_da_alloc"
	fsckcmd="e2fsck -fn" ;;
# Every state is a copy of one image: xfs refuses a UUID that is still
# mounted, which a state is after its unmount while another mount
# namespace (a concurrent unshare, mmdebstrap) holds a copy of the mount.
xfs) size=320M mkfs="mkfs.xfs -q -f -m reflink=1" opts="-o nouuid" fsckcmd="xfs_repair -n" ;;
btrfs) size=128M mkfs="mkfs.btrfs -q -f" opts="" fsckcmd="btrfs check --readonly" ;;
*) echo "unknown file system $fs" >&2; exit 2 ;;
esac
command -v "${mkfs%% *}" > /dev/null || skip "${mkfs%% *} missing"
[ $fsck = no ] || command -v "${fsckcmd%% *}" > /dev/null ||
    skip "${fsckcmd%% *} missing"

# The packages: version 2 changes, adds and drops files, directories, a
# symlink, a hardlink pair and a conffile; "lib" comes with it.
cat > "$T/v1.desc" <<'D'
control-field Package app
control-field Version 1
control-field Architecture all
control-file conffiles 0644 /etc/app.conf\n
dir ./etc/ 0755
file ./etc/app.conf 0644 text:one\n
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/app 0755 size:30000
hardlink ./usr/bin/app2 ./usr/bin/app
symlink ./usr/bin/app-link app
file ./usr/bin/old-only 0755 size:9000
dir ./usr/share/ 0755
dir ./usr/share/app/ 0755
file ./usr/share/app/a 0644 size:5000
file ./usr/share/app/b 0644 size:17000
file ./usr/share/app/c 0644 size:100
D
cat > "$T/v2.desc" <<'D'
control-field Package app
control-field Version 2
control-field Architecture all
control-file conffiles 0644 /etc/app.conf\n
dir ./etc/ 0755
file ./etc/app.conf 0644 text:two\n
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/app 0755 size:40000
hardlink ./usr/bin/app2 ./usr/bin/app
symlink ./usr/bin/app-link ../bin/app
dir ./usr/share/ 0755
dir ./usr/share/app/ 0755
file ./usr/share/app/a 0644 size:5001
file ./usr/share/app/b 0644 size:17001
file ./usr/share/app/c 0644 size:101
dir ./usr/share/app/new/ 0755
file ./usr/share/app/new/d 0644 size:8000
D
cat > "$T/lib.desc" <<'D'
control-field Package lib
control-field Version 1
control-field Architecture all
dir ./usr/ 0755
dir ./usr/lib/ 0755
file ./usr/lib/lib.so 0644 size:20000
file ./usr/lib/lib.a 0644 size:3000
D
# "take" Replaces "app": it takes a file and the conffile of version 1
# (its record changes in the same batch), and ships its own.
cat > "$T/take.desc" <<'D'
control-field Package take
control-field Version 1
control-field Architecture all
control-field Replaces app
control-file conffiles 0644 /etc/app.conf\n
dir ./etc/ 0755
file ./etc/app.conf 0644 text:taken\n
dir ./usr/ 0755
dir ./usr/share/ 0755
dir ./usr/share/app/ 0755
file ./usr/share/app/b 0644 size:17002
dir ./usr/share/take/ 0755
file ./usr/share/take/t 0644 size:6000
D
v1=$(build_deb v1 "$T/v1.desc")
v2=$(build_deb v2 "$T/v2.desc")
lib=$(build_deb lib "$T/lib.desc")
take=$(build_deb take "$T/take.desc")
# For "scripts": the same versions with the scripts an upgrade runs, and
# the options the dpkg for apt gives (its scripts run without a chroot:
# the root has no shell).
for d in v1 v2; do
	sed '/^control-file conffiles/a\
control-file prerm 0755 #!/bin/sh\\nexit 0\\n\
control-file preinst 0755 #!/bin/sh\\nexit 0\\n\
control-file postrm 0755 #!/bin/sh\\nexit 0\\n' "$T/$d.desc" > "$T/${d}s.desc"
done
v1s=$(build_deb v1s "$T/v1s.desc")
# For "groups": "lib", Essential, ends its group (unpackseq.c).
sed '/^control-field Architecture/a\
control-field Essential yes' "$T/lib.desc" > "$T/libe.desc"
libe=$(build_deb libe "$T/libe.desc")
# For "configure": a postinst that changes the root by metadata alone (a
# maintainer script's unsynced data is not dpkg's to make durable).
sed '/^control-file conffiles/a\
control-file postinst 0755 #!/bin/sh\\nmkdir -p "$DPKG_ROOT/var/lib/app"\\nln -sfn configured "$DPKG_ROOT/var/lib/app/state"\\n' \
    "$T/v1.desc" > "$T/v1c.desc"
v1c=$(build_deb v1c "$T/v1c.desc")
v2s=$(build_deb v2s "$T/v2s.desc")
db="" dbrun="" mid=""
# "app"'s version before and after the run, for dpkg_fits.
appold=1 appnew=2
case $scenario in
install) pre="" run="$v1 $lib" ;;
upgrade) pre=$v1 run="$v2 $lib" ;;
replaces) pre=$v1 run="$take $lib" ;;
cloned | fill) pre=$v1 run="$v2 $lib" ;;
scripts) pre=$v1s run="$v2s $lib" db=--dpkg-db
	dbrun="--dpkg-db --maintscripts --force-script-chrootless"
	command -v dpkg-query > /dev/null || skip "dpkg-query missing" ;;
configure) pre="" run="" db=--dpkg-db
	[ -x "${DPKGSHIM:-}" ] && [ -x "${DEBUNPACK_NOSYNC:-}" ] ||
	    skip "the dpkg for apt or debunpack-nosync not built"
	command -v dpkg > /dev/null || skip "dpkg missing" ;;
groups) pre=$v1s run="$libe $v2s" db=--dpkg-db mid=$libe
	dbrun="--dpkg-db --maintscripts --force-script-chrootless"
	command -v dpkg-query > /dev/null || skip "dpkg-query missing" ;;
dbinstall) pre="" run="$v1s $lib" db=--dpkg-db appold="" appnew=1
	dbrun="--dpkg-db --maintscripts --force-script-chrootless"
	command -v dpkg-query > /dev/null || skip "dpkg-query missing" ;;
*) echo "unknown scenario $scenario" >&2; exit 2 ;;
esac
# dbroot DIR: DIR gets dpkg's database first when the scenario has one.
dbroot() {
	[ -z "$db" ] || empty_dpkg_db "$1"
}

# cloned: the store's directories are in the root (its var/cache/debunpack
# itself is not listed) and the run installs from it, as it says.
store="" storerun=""
if [ "$scenario" = cloned ] || [ "$scenario" = fill ]; then
	store=var/cache/debunpack
	case $fs in
	xfs | btrfs) want=cloned ;;
	*) want=copied ;;
	esac
fi
# fill: what an install of the run's packages into an empty root gives.
if [ "$scenario" = fill ]; then
	mkdir "$T/fresh"
	# shellcheck disable=SC2086
	"$DEBUNPACK" -q --root "$T/fresh" $run || fail "install into $T/fresh"
	$CHECK list "$T/fresh" > "$T/fresh.list"
fi
# The old and new trees, made the same way on the scratch file system.
mkdir "$T/old" "$T/new"
[ -z "$store" ] || mkdir -p "$T/old/${store%/*}" "$T/new/${store%/*}"
# With -F, the mount point is there before the run, as in the root.
[ $fuse = no ] || mkdir -p "$T/old/usr/share" "$T/new/usr/share"
dbroot "$T/old"
dbroot "$T/new"
if [ "$scenario" = configure ]; then
	# Unpacked, then configured by durable dpkg: what must be after.
	for d in "$T/old" "$T/new"; do
		"$DEBUNPACK" -q --root "$d" --dpkg-db "$v1c" "$lib" ||
		    fail "unpack into $d"
	done
	dpkg_in "$T/new" --configure -a > "$T/ref.log" 2>&1 ||
	    fail "dpkg --configure -a: $(cat "$T/ref.log")"
else
	# shellcheck disable=SC2086 # DB, DBRUN and RUN hold several words
	[ -z "$pre" ] || "$DEBUNPACK" -q --root "$T/old" $db "$pre"
	# shellcheck disable=SC2086
	[ -z "$pre" ] || "$DEBUNPACK" -q --root "$T/new" $db "$pre"
	# shellcheck disable=SC2086
	"$DEBUNPACK" -q --root "$T/new" $dbrun $run
fi
$CHECK list "$T/old" > "$T/old.list"
$CHECK list "$T/new" > "$T/new.list"
# groups: the tree once the first batch is done, as whole as the others.
midlist=""
if [ -n "$mid" ]; then
	dbroot "$T/mid"
	# shellcheck disable=SC2086
	"$DEBUNPACK" -q --root "$T/mid" $db "$pre" &&
	    "$DEBUNPACK" -q --root "$T/mid" $dbrun $mid || fail "the first batch alone"
	$CHECK list "$T/mid" > "$T/mid.list"
	midlist=$T/mid.list
fi

recpid=""
cleanup_hooks="fusermount3 -uz '$T/fuse' 2>/dev/null; [ -z \"\$recpid\" ] || kill \$recpid 2>/dev/null;
$cleanup_hooks"
attach() {	# IMAGE [DIO]: a loop device of our own, in $loop
	loop_attach "$1" --direct-io="${2:-off}" || fail "losetup $1"
}
# settle CMD...: CMD, again while it fails for up to 5 s: an unmount
# finds its target busy while udev still probes the device that went, or
# a FUSE daemon still lets go of what it served.
settle() {
	st_n=0
	until "$@" 2> "$T/settle.err"; do
		st_n=$((st_n + 1))
		[ $st_n -lt 50 ] || { cat "$T/settle.err" >&2; return 1; }
		sleep 0.1
	done
}
detach() {
	if mountpoint -q "$T/sm" && [ "$(findmnt -n -o SOURCE "$T/sm")" = "$loop" ]; then
		settle umount "$T/sm" || fail "umount $loop"
	fi
	if mountpoint -q "$T/m" && [ "$(findmnt -n -o SOURCE "$T/m")" = "$loop" ]; then
		settle umount "$T/m" || fail "umount $loop"
	fi
	loop_detach "$loop"
}

# root MNT [bind]: sets $rootdir, where the run's root is on the file
# system mounted at MNT: MNT, or an overlay of MNT/upper mounted on
# MNT.ovl in the ovl- cases; with -F, MNT/root, its usr/share a bindfs
# mount of MNT/share (a bind mount with "bind": a crash state is checked
# as the disk holds it).  bindfs runs in the foreground, in the
# background of this shell, so that unroot can wait for it to let go of
# MNT: it may still hold MNT/share for a moment after its unmount, and
# MNT's own unmount would then find it busy.
bindpid=""
root() {
	if [ $fuse = yes ]; then
		mkdir -p "$1/root/usr/share" "$1/share"
		rootdir=$1/root
		if [ "${2:-}" = bind ]; then
			mount --bind "$1/share" "$1/root/usr/share" ||
			    fail "bind $1/share on $1/root/usr/share"
			return
		fi
		bindfs -f "$1/share" "$1/root/usr/share" 2>> "$T/bindfs.err" &
		bindpid=$!
		n=0
		until mountpoint -q "$1/root/usr/share"; do
			kill -0 $bindpid 2> /dev/null && [ $n -lt 200 ] ||
			    fail "bindfs $1/share: $(cat "$T/bindfs.err")"
			sleep 0.05
			n=$((n + 1))
		done
		return
	fi
	rootdir=$1
	[ $ovl = yes ] || return 0
	mkdir -p "$1/upper" "$1/work" "$1.ovl" "$T/lower"
	mount -t overlay overlay \
	    -o "lowerdir=$T/lower,upperdir=$1/upper,workdir=$1/work" "$1.ovl" ||
	    fail "mount the overlay on $1"
	rootdir=$1.ovl
}
unroot() {	# MNT: the overlay or FUSE mount root() made on MNT goes
	[ $fuse = no ] || ! mountpoint -q "$1/root/usr/share" ||
	    umount "$1/root/usr/share" || fail "umount $1/root/usr/share"
	if [ -n "$bindpid" ]; then
		wait $bindpid || :
		bindpid=""
	fi
	[ $ovl = no ] || ! mountpoint -q "$1.ovl" || umount "$1.ovl" ||
	    fail "umount $1.ovl"
}
[ $fuse = no ] || cleanup_hooks="umount -l '$T/m/root/usr/share' 2>/dev/null; umount -l '$T/sm/root/usr/share' 2>/dev/null;
[ -z \"\$bindpid\" ] || kill \$bindpid 2>/dev/null;
$cleanup_hooks"
[ $ovl = no ] || cleanup_hooks="umount -l '$T/m.ovl' 2>/dev/null; umount -l '$T/sm.ovl' 2>/dev/null;
$cleanup_hooks"

# The disk before the run: a new file system, with version 1 for upgrades.
truncate -s $size "$T/img"
$mkfs "$T/img" > /dev/null || fail "$mkfs"
mkdir "$T/m" "$T/fuse"
attach "$T/img"
mount $opts "$loop" "$T/m" || fail "mount"
root "$T/m"
r=$rootdir
dbroot "$r"
# shellcheck disable=SC2086
[ -z "$pre" ] || "$DEBUNPACK" -q --root "$r" $db "$pre" || fail "install $pre"
[ "$scenario" != configure ] ||
    "$DEBUNPACK" -q --root "$r" --dpkg-db "$v1c" "$lib" || fail "unpack into $r"
if [ "$scenario" = cloned ]; then
	# The store filled by an earlier run into a root beside, which goes:
	# its entries and contents stay, durable before the recording.
	mkdir -p "$r/${store%/*}" "$r/fill"
	# shellcheck disable=SC2086
	"$DEBUNPACK" -q --root "$r/fill" --cache "$r/$store" $run ||
	    fail "fill the store"
	rm -rf "${r:?}/fill"
	[ "$(ls "$r/$store/entries" | wc -l)" = 2 ] || fail "the store was not filled"
fi
if [ -n "$store" ]; then
	mkdir -p "$r/${store%/*}"
	storerun="--cache $r/$store --stats=json"
fi
# -C: the committer's file is in lost+found, which the listing leaves out.
[ $commits = no ] || mkdir -p "$r/lost+found"
unroot "$T/m"
detach
cp --sparse=always "$T/img" "$T/base.img"

# The recorded run.
start_recorder "$T/img" "$T/log"
attach "$T/fuse/disk" $dio
if [ $dio = on ]; then
	[ "$(cat "/sys/block/${loop#/dev/}/loop/dio")" = 1 ] ||
	    fail "the loop device did not take direct I/O"
fi
mount $opts "$loop" "$T/m" || fail "mount on the recorder"
root "$T/m"
r=$rootdir
echo start > "$T/fuse/mark"
# -C: commits of the file system while the run goes on (see the usage).
committer=""
if [ $commits = yes ]; then
	rm -f "$T/commits.stop"
	$PY -S -c 'import fcntl, os, struct, sys, time
path, fs, stop = sys.argv[1:4]
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
while not os.path.exists(stop):
    if fs == "btrfs":
        # START_SYNC then WAIT_SYNC on the transaction it started.
        t = bytearray(8)
        fcntl.ioctl(fd, 0x80089418, t)
        fcntl.ioctl(fd, 0x40089416, bytes(t))
    else:
        # A new size to log: the fsync commits what came before it.
        os.write(fd, b"x")
        os.fsync(fd)
    time.sleep(0.001)' "$T/m/lost+found/commits" "$fs" "$T/commits.stop" \
	    2> "$T/committer.err" &
	committer=$!
	cleanup_hooks="touch '$T/commits.stop'; $cleanup_hooks"
	# The run starts once commits come (the committer's start is slow).
	if [ "$pause" = 0 ]; then
		:
	elif [ $fs = btrfs ]; then
		sleep 0.2	# its commits write no file to watch
	else
		n=0
		while [ "$(stat -c %s "$T/m/lost+found/commits" 2> /dev/null ||
		    echo 0)" -lt 2 ]; do
			[ $n -lt 500 ] ||
			    fail "the committer did not start: $(cat "$T/committer.err")"
			n=$((n + 1))
			sleep 0.01
		done
	fi
fi
# -p: the run pauses before the N-th call of a syscall, the committer not.
pausing=""
[ "$pause" = 0 ] ||
    pausing="strace -f -qq -o /dev/null -e inject=${pause%:*}:delay_enter=50000:when=${pause#*:}"
how=""
if [ "$scenario" = configure ] && [ "$mode" = none ]; then
	# The negative control: dpkg's syncs suppressed, and no barrier.
	PATH=$PATH:/usr/sbin:/sbin "$DEBUNPACK_NOSYNC" dpkg --root="$r" \
	    --force-not-root --force-script-chrootless --log=/dev/null \
	    --configure -a < /dev/null > "$T/run.stats" 2>&1 ||
	    fail "recorded run: $(cat "$T/run.stats")"
	how=" (dpkg, no sync at all)"
elif [ "$scenario" = configure ]; then
	# As apt runs it; the shim says whether dpkg's syncs were batched.
	PATH=$PATH:/usr/sbin:/sbin DEBUNPACK_DPKG=$(command -v dpkg) \
	    DEBUNPACK_DPKG_DEBUG=1 "$DPKGSHIM" --root="$r" --force-not-root \
	    --force-script-chrootless --log=/dev/null --configure -a \
	    < /dev/null > "$T/run.stats" 2>&1 ||
	    fail "recorded run: $(cat "$T/run.stats")"
	if grep -q 'under debunpack-nosync' "$T/run.stats"; then
		how=" (dpkg batched)"
	elif grep -q "with its database's syncs only" "$T/run.stats"; then
		how=" (dpkg guarded: $(sed -n "s/^debunpack-dpkg: of dpkg's syncs, \([0-9]*\) put their file ahead of later changes, \([0-9]*\) synced .*, \([0-9]*\) did nothing$/\1 put ahead, \2 synced, \3 not/p" "$T/run.stats"))"
	else
		how=" (dpkg's own syncs)"
	fi
elif [ "$kill" = 0 ]; then
	# shellcheck disable=SC2086
	$pausing "$DEBUNPACK" -q --root "$r" --sync-mode "$mode" $dbrun $storerun $run \
	    > "$T/run.stats" || fail "recorded run"
	if [ "$scenario" = cloned ]; then
		python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["cache"]
assert c[sys.argv[2]] == 2 and c["decoded"] == 0, c' "$T/run.stats" "$want" ||
		    fail "the recorded run did not install from the store as $want: $(cat "$T/run.stats")"
	elif [ "$scenario" = fill ]; then
		python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["cache"]
assert c["decoded"] == 2 and c["filled"] == 2, c' "$T/run.stats" ||
		    fail "the recorded run did not fill the store: $(cat "$T/run.stats")"
	fi
else
	# shellcheck disable=SC2086
	strace -f -qq -o /dev/null \
	    -e inject="${kill%:*}:signal=KILL:when=${kill#*:}" \
	    "$DEBUNPACK" -q --root "$r" --sync-mode "$mode" $dbrun $run 2> /dev/null &&
	    fail "the recorded run was not killed at $kill"
	[ -f "$r/var/lib/debunpack/journal" ] ||
	    fail "the kill at $kill left nothing to repair"
	"$DEBUNPACK" -q --root "$r" --recover || fail "recorded repair"
	ended=$($CHECK whole "$r" "$T/old.list" "$T/new.list" $midlist) ||
	    fail "the recorded repair left: $ended"
fi
if [ -n "$committer" ]; then
	touch "$T/commits.stop"
	wait $committer || fail "committer: $(cat "$T/committer.err")"
fi
echo "exited 0" > "$T/fuse/mark"
unroot "$T/m"
detach
settle fusermount3 -u "$T/fuse" || fail "fusermount3 -u $T/fuse"
wait $recpid || fail "recorder: $(cat "$T/recorder.err")"
recpid=""

"$CRASHREPLAY" info "$T/log" > "$T/info" || fail "the log is cut"
nflush=$(sed -n 's/^flushes //p' "$T/info")
start=$(sed -n 's/^mark \([0-9]*\) start$/\1/p' "$T/info")
done_at=$(sed -n 's/^mark \([0-9]*\) exited 0$/\1/p' "$T/info")
case "$start.$done_at" in
*[!0-9.]* | .* | *.) fail "marks missing from the log: $(cat "$T/info")" ;;
esac
[ "$done_at" -ge "$start" ] || fail "marks out of order"
# A durable mode flushes before it exits.
[ $expect = yes ] || [ "$done_at" -gt "$start" ] ||
    fail "no flush between the marks of a $mode run"

# States: at each flush from the run's start on, then random subsets of
# the writes after each: their seeds from SWEEP_OFFSET (CI's comes from
# the commit, so that successive commits try other subsets).
: > "$T/states"
k=$((start > 0 ? start : 1))
while [ $k -le $((nflush + 1)) ]; do
	echo "$k" >> "$T/states"
	k=$((k + 1))
done
s=1
while [ $s -le "$subsets" ]; do
	k=$((start > 0 ? start : 1))
	while [ $k -le "$nflush" ]; do
		echo "$k $((k * 1000000 + ${SWEEP_OFFSET:-0} % 10000 * 100 + s))" >> "$T/states"
		k=$((k + 1))
	done
	s=$((s + 1))
done
total=$(wc -l < "$T/states")
if [ "$max" -gt 0 ] && [ "$total" -gt "$max" ]; then
	# An even spread over the list, prefix states first, shifted
	# within each stretch by SWEEP_OFFSET (CI's comes from the commit).
	awk -v n="$total" -v m="$max" -v o="$(( ${SWEEP_OFFSET:-0} % ((total + max - 1) / max) ))" \
	    'int((NR - 1 - o) * m / n) != int((NR - 2 - o) * m / n) || NR == 1 + o' \
	    "$T/states" > "$T/states.some"
	mv "$T/states.some" "$T/states"
fi

# records_of ROOT DEB...: the admin directory has a record per package.
records_of() {
	r=$1
	shift
	for d in "$@"; do
		n=$(basename "$d" .deb)
		case $n in v1 | v2 | v1s | v2s) n=app ;; libe) n=lib ;; esac
		[ -f "$r/var/lib/debunpack/$n.record" ] || return 1
	done
}

# dpkg_fits ROOT DONE: with dpkg's database, its status fits the files:
# it parses; "app" unpacked at version 1 only while every file is old,
# at version 2 only when every file is new (the half-installed write is
# durable before the first new file, "unpacked" written after the
# batch's barrier), half-installed whatever the files; once exit 0 is
# durable, both packages unpacked at their new versions.  A crash
# state durable dpkg can leave too: the next unpack of the package
# finishes it.  Prints what does not fit.
dpkg_fits() {
	[ -n "$db" ] || return 0
	df_st=$(dpkg-query --admindir="$1/var/lib/dpkg" -W \
	    -f '${Package} ${Status} ${Version}\n' app lib 2> "$T/dq.err") || {
		# Packages without an old version are not there before the run.
		df_new="lib"
		[ -n "$appold" ] || df_new="app|lib"
		grep -q 'no packages found matching' "$T/dq.err" ||
		    { echo "dpkg's status does not parse: $(head -n 2 "$T/dq.err")"; return 1; }
		if grep 'no packages found matching' "$T/dq.err" |
		    grep -Evq "matching ($df_new)\$" || [ "$2" = 1 ]; then
			echo "$(grep 'no packages found' "$T/dq.err" | tr '\n' ' ')in state $2"
			return 1
		fi
	}
	df_files=$($CHECK which "$1" "$T/old.list" "$T/new.list" $midlist)
	# Files the new version drops go past the commit point, as the
	# journal says; any next run (the dpkg for apt recovers before it
	# hands a call to dpkg) removes the rest first.
	[ "${df_files%% *}" != new-leftover ] ||
	    [ ! -f "$1/var/lib/debunpack/journal" ] || df_files=new
	# groups: the first batch (no script, so no half-installed status)
	# under way; its journal lets the next run finish or undo it.
	[ "$df_files" != mid-partial ] || [ -f "$1/var/lib/debunpack/journal" ] ||
	    echo "the first batch's paths in part, without a journal"
	echo "$df_st" | while read -r p _ _ state v; do
		[ -n "$p" ] || continue
		case $p.$state.$v.${df_files%% *}.$2 in
		*.unpacked.*.1) [ "$p.$v" = "app.$appnew" ] || [ "$p.$v" = lib.1 ] ||
		    echo "$p $state $v after exit 0 was durable" ;;
		*.*.*.*.1) echo "$p $state $v after exit 0 was durable" ;;
		"app.unpacked.$appold.old".* | "app.unpacked.$appnew.new".* | lib.unpacked.1.new.* | *.half-installed.*) ;;
		"app.unpacked.$appold.mid".* | lib.unpacked.1.mid.*) ;;
		"app.unpacked.$appold.mid-partial".* | lib.unpacked.1.mid-plus.*) ;;
		*) echo "$p $state $v with files $df_files" ;;
		esac
	done
}

# configure_state ROOT DONE: for "configure", a crash state ROOT is one
# that the real dpkg's --configure -a finishes to what durable dpkg left
# (the new tree, both packages installed, --audit clean); once exit 0 is
# durable (DONE 1) it is that already.  Prints what is not.
configure_state() {
	[ "$2" = 0 ] || configured "$1" "after exit 0 was durable,"
	dpkg_in "$1" --configure -a > "$T/cfg.log" 2>&1 || {
		echo "dpkg --configure -a failed: $(tail -n 3 "$T/cfg.log" | tr '\n' ' ')"
		return 0
	}
	configured "$1" "after dpkg --configure -a,"
	# Its warnings (the test packages have no Description) aside.
	cs_a=$(dpkg_in "$1" --audit 2> /dev/null)
	[ -z "$cs_a" ] || echo "after dpkg --configure -a, dpkg --audit: $cs_a"
}
# configured ROOT WHEN: ROOT's tree and status are durable dpkg's after
# its --configure -a; prints what is not, after WHEN.
configured() {
	cs_w=$($CHECK whole "$1" "$T/old.list" "$T/new.list" 2>&1)
	[ "$cs_w" = new ] || echo "$2 the tree: $cs_w"
	cs_st=$(dpkg-query --admindir="$1/var/lib/dpkg" -W \
	    -f '${Package} ${Status}\n' app lib 2> /dev/null)
	[ "$cs_st" = "app install ok installed
lib install ok installed" ] || echo "$2 the status: $cs_st"
}

# fs_corrupt K STATE: the file system of state K, mounted on $T/sm, found
# itself corrupt (check.py's exit 3, its line in $T/bad).  debunpack only
# makes system calls, which cannot make a consistent disk inconsistent:
# such a state is reported apart with the kernel's and fsck's words, and
# the log and the disk before it are kept for a look.  The disk the whole
# run left must never be one: that would be the recorder losing writes.
fscorrupt=0 keep=""
fs_corrupt() {
	fscorrupt=$((fscorrupt + 1))
	fc_kmsg=$(dmesg 2> /dev/null | tail -n "+$((kmark + 1))" | grep -E 'EXT4-fs (error|warning)|XFS .*([Cc]orrupt|error)|BTRFS (error|critical)|JBD2' |
	    tail -n 2 | tr '\n' ' ')
	unroot "$T/sm"
	settle umount "$T/sm" || fail "umount $loop"
	fc_fsck=$(${fsckcmd:-true} "$loop" 2>&1 | tail -n 2 | tr '\n' ' ')
	detach
	if [ -z "$keep" ]; then
		keep=$(mktemp -d "${TMPDIR:-/tmp}/crash-fscorrupt.XXXXXX")
		cp --sparse=always "$T/base.img" "$T/log" "$keep/"
		echo "$fs $mode $scenario $2" > "$keep/state"
	fi
	echo "FS-CORRUPT $2: $(head -n 1 "$T/bad"); kernel: ${fc_kmsg:-nothing}; ${fsckcmd:-fsck}: ${fc_fsck:-nothing}; log and disk in $keep"
	[ "$1" -le "$nflush" ] ||
	    fail "the disk the whole run left is corrupt: $(head -n 1 "$T/bad")"
}

# kernel_since MARK: the kernel's last lines after line MARK of dmesg, on one line.
kernel_since() {
	dmesg 2> /dev/null | tail -n "+$(($1 + 1))" | tail -n 3 | tr '\n' ' '
}

# fill: an install into a fresh root of the state, from the store the
# state holds, gives what a decoded install gives; 1 when the store had
# both packages whole.  Prints what is not so.
storehits=0
from_store() {
	rm -rf "$1/.fromstore"
	mkdir "$1/.fromstore"
	# shellcheck disable=SC2086
	if ! "$DEBUNPACK" -q --root "$1/.fromstore" --cache "$1/$store" \
	    --stats=json $run > "$T/fs.stats" 2> "$T/fs.err"; then
		echo "an install from the store failed: $(cat "$T/fs.err")"
		return 0
	fi
	$CHECK list "$1/.fromstore" > "$T/fs.list"
	if ! cmp -s "$T/fresh.list" "$T/fs.list"; then
		echo "an install from the store is not a decoded one's:" \
		    "$(diff "$T/fresh.list" "$T/fs.list" | grep '^[<>]' | head -n 4 | tr '\n' ' ')"
	fi
	! python3 -c 'import json, sys
sys.exit(json.load(open(sys.argv[1]))["cache"]["decoded"] != 0)' "$T/fs.stats" ||
	    storehits=$((storehits + 1))
}

t0=$(date +%s)
checked=0 violations=0 lost=0
mkdir "$T/sm"
# replay K [SEED]: state K (SEED: with its pick of the writes after
# flush K) written over a fresh copy of the disk, on a loop device.
replay() {
	cp --sparse=always "$T/base.img" "$T/st.img"
	"$CRASHREPLAY" apply "$T/log" "$T/st.img" "$@" || fail "replay $*"
	attach "$T/st.img"
}
while read -r k seed; do
	replay "$k" $seed
	state="state $k${seed:+ seed $seed}"
	checked=$((checked + 1))
	# State K holds every write before flush K: what flush K made
	# durable.  The "exited 0" mark, after flush F, is durable in states
	# K >= F: debunpack's last sync returned before it wrote the mark.
	done_now=0
	[ "$k" -lt "$done_at" ] || done_now=1
	# The kernel's lines from here on are this state's.
	kmark=$(dmesg 2> /dev/null | wc -l)
	if ! mount $opts "$loop" "$T/sm" 2> "$T/err"; then
		# Once more from a fresh copy, attached anew: a
		# state is one disk, so a disk that cannot be mounted fails
		# again; a device still held by what ran beside us does not.
		ms_err="$(tr '\n' ' ' < "$T/err")kernel: $(kernel_since "$kmark")"
		detach
		replay "$k" $seed
		kmark=$(dmesg 2> /dev/null | wc -l)
		if ! mount $opts "$loop" "$T/sm" 2> "$T/err"; then
			echo "VIOLATION $state: cannot mount:" \
			    "$(tr '\n' ' ' < "$T/err")kernel: $(kernel_since "$kmark")"
			violations=$((violations + 1))
			detach
			continue
		fi
		echo "$state mounted at the second try; the first: $ms_err"
	fi
	root "$T/sm" bind
	sr=$rootdir
	set +e
	$CHECK list "$sr" > "$T/bad"
	st=$?
	if [ $st = 3 ]; then
		set -e
		fs_corrupt "$k" "$state"
		continue
	fi
	if [ "$scenario" = configure ]; then
		set -e
		configure_state "$sr" $done_now > "$T/bad"
		if [ -s "$T/bad" ]; then
			sed "s/^/VIOLATION $state: /" "$T/bad"
			violations=$((violations + 1))
			lost=$((lost + 1))
		fi
		unroot "$T/sm"
		detach
		continue
	fi
	if [ "$kill" != 0 ] && [ $done_now = 1 ]; then
		# The repair's exit 0 is durable: all old or all new.
		$CHECK whole "$sr" "$T/old.list" "$T/new.list" $midlist > "$T/bad"
	else
		$CHECK state "$sr" "$T/old.list" "$T/new.list" $done_now > "$T/bad"
	fi
	st=$?
	set -e
	[ $st -le 1 ] || fail "$state: the checker failed: $(cat "$T/bad")"
	# After a kill, the durable exit 0 is the repair's (checked below).
	if [ "$kill" = 0 ]; then dpkg_fits "$sr" $done_now; else dpkg_fits "$sr" 0; fi > "$T/dbad"
	if [ -s "$T/dbad" ]; then
		sed "s/^/VIOLATION $state: dpkg: /" "$T/dbad"
		violations=$((violations + 1))
		lost=$((lost + 1))
	fi
	if [ $st = 1 ]; then
		sed "s/^/VIOLATION $state: /" "$T/bad"
		violations=$((violations + 1))
		lost=$((lost + 1))
	elif ! "$DEBUNPACK" -q --root "$sr" --recover 2> "$T/err"; then
		echo "VIOLATION $state: repair failed: $(cat "$T/err")"
		violations=$((violations + 1))
	elif ! $CHECK whole "$sr" "$T/old.list" "$T/new.list" $midlist > "$T/bad"; then
		sed "s/^/VIOLATION $state: after the repair: /" "$T/bad"
		violations=$((violations + 1))
	elif [ -n "$(dpkg_fits "$sr" 0)" ]; then
		echo "VIOLATION $state: dpkg after the repair: $(dpkg_fits "$sr" 0)"
		violations=$((violations + 1))
	elif [ "$(cat "$T/bad")" = new ] && ! records_of "$sr" $run; then
		echo "VIOLATION $state: all new, but records are missing"
		violations=$((violations + 1))
	elif { [ "$(cat "$T/bad")" = new ] || [ -n "$pre" ]; } &&
	    ! "$DEBUNPACK" --root "$sr" --verify > "$T/bad" 2>&1; then
		echo "VIOLATION $state: --verify after the repair: $(head -3 "$T/bad")"
		violations=$((violations + 1))
	fi
	if [ "$scenario" = fill ]; then
		from_store "$sr" > "$T/bad"
		if [ -s "$T/bad" ]; then
			sed "s/^/VIOLATION $state: /" "$T/bad"
			violations=$((violations + 1))
			lost=$((lost + 1))
		fi
	fi
	unroot "$T/sm"
	if [ $fsck = yes ]; then
		umount "$T/sm"
		$fsckcmd "$loop" > "$T/bad" 2>&1 || {
			echo "VIOLATION $state: $fsckcmd: $(tail -n 2 "$T/bad")"
			violations=$((violations + 1))
		}
	fi
	detach
done < "$T/states"
t=$(($(date +%s) - t0))

[ $ovl = no ] || fs=ovl-$fs
[ $fuse = no ] || fs="$fs+fuse"
[ $commits = no ] || fs="$fs, committing"
[ "$pause" = 0 ] || fs="$fs, pausing at $pause"
[ "$kill" = 0 ] || scenario="$scenario (killed at $kill, repaired to $ended)"
if [ "$scenario" = fill ]; then
	scenario="$scenario (from the store: whole in every state, both packages there in $storehits)"
elif [ -n "$store" ]; then
	scenario="$scenario ($want from the store)"
fi
scenario="$scenario$how"
echo "$fs $mode $scenario: $checked states of $total ($nflush flushes," \
    "run from flush $start, exit 0 durable after flush $done_at):" \
    "$violations violations, ${t}s${keep:+ ($fscorrupt corrupt by the file system's own account)}"
if [ $expect = yes ]; then
	# Caught by the invariants of the state itself: data lost.
	[ $lost -gt 0 ] || fail "negative control found no lost data"
	exit 0
fi
[ $violations = 0 ] || fail "$violations violations"
