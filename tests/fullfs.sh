#!/bin/sh
# SPDX-License-Identifier: MIT
# A full disk at many points of an install and of an upgrade, on ext4 (a
# loop device) and on tmpfs: a filler leaves K bytes free, for K from 0 to
# what the install needs, or J inodes; each run exits 1 with one line that
# names a file and the cause, and leaves the root exactly as it was, with
# no temporaries; once the filler is gone the same command completes.  A
# decompression bomb (a tiny package with a file far larger than the disk)
# fails the same way.
#
# FULLFS_STEPS and FULLFS_ISTEPS: into how many steps the free space and
# the free inodes are divided between none and enough (each run kind, each
# filesystem), besides the first and last few blocks and inodes.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "needs root to mount filesystems"
steps=${FULLFS_STEPS:-16}
isteps=${FULLFS_ISTEPS:-6}
[ -e /dev/loop-control ] || modprobe loop 2>/dev/null || true

# "app" 1 and 2, and "lib": 2 changes, adds and drops files, changes the
# conffile (which the user edited), a symlink, a hardlinked file, drops a
# directory and makes another: about 120 paths and 1.2 MB, with files
# large and small, so that the disk fills up at many different points.
v1=$(make_pkg app 1 - <<'D'
control-file conffiles 0644 /etc/app.conf\n
dir ./ 0755
dir ./etc/ 0755
file ./etc/app.conf 0644 text:one\n
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/app 0755 size:30000
hardlink ./usr/bin/app2 ./usr/bin/app
symlink ./usr/bin/app-link app
file ./usr/bin/old-only 0755 text:old\n
dir ./usr/share/ 0755
dir ./usr/share/app/ 0755
gen 40 ./usr/share/app/f 0644 3000
dir ./usr/share/old/ 0755
gen 10 ./usr/share/old/o 0644 2000
file ./usr/share/big 0644 size:400000
D
)
v2=$(make_pkg app 2 - <<'D'
control-file conffiles 0644 /etc/app.conf\n
dir ./ 0755
dir ./etc/ 0755
file ./etc/app.conf 0644 text:two\n
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/app 0755 size:40000
hardlink ./usr/bin/app2 ./usr/bin/app
symlink ./usr/bin/app-link ../bin/app
dir ./usr/share/ 0755
dir ./usr/share/app/ 0755
gen 60 ./usr/share/app/f 0644 5000
dir ./usr/share/new/ 0700
gen 30 ./usr/share/new/n 0644 100
file ./usr/share/big 0644 size:600000
D
)
lib=$(make_pkg lib 1 - <<'D'
dir ./ 0755
dir ./usr/ 0755
dir ./usr/lib/ 0755
file ./usr/lib/lib.so 0644 size:200000
dir ./var/ 0755
dir ./var/cache/ 0755
dir ./var/cache/lib/ 0755
file ./var/cache/lib/index 0644 text:x\n
D
)
cat > "$T/bomb.desc" <<'D'
dir ./ 0755
file ./big 0644 fill:200000000:\x00
D
bomb=$(build_deb bomb "$T/bomb.desc")
[ "$(stat -c %s "$bomb")" -lt 100000 ] || fail "the bomb is not small: $(stat -c %s "$bomb")"

mkdir "$T/empty" "$T/base"
"$DEBUNPACK" -q --root "$T/base" "$v1" || fail "install v1"
echo mine > "$T/base/etc/app.conf"

# avail, ifree: what the filesystem at $mnt has left for a root's files.
avail() {
	echo $(($(stat -f -c '%a * %S' "$mnt")))
}
ifree() {
	stat -f -c %d "$mnt"
}

# fill_space K: fill $mnt until K bytes (or a block less) are free.
fill_space() {
	i=0
	while [ $i -lt 8 ] && [ "$(avail)" -gt "$1" ]; do
		i=$((i + 1))
		# A file's extents may cost the filesystem a block more than
		# its length: then the next file fills what is left.
		len=$(($(avail) - $1))
		[ $len -le 4096 ] || len=$((len - 4096))
		fallocate -l $len "$mnt/filler.$i" || fail "cannot fill $mnt"
	done
}

# fill_inodes J: fill $mnt until J inodes are free.
fill_inodes() {
	mkdir "$mnt/filler.i"
	n=$(($(ifree) - $1))
	[ $n -le 0 ] || (cd "$mnt/filler.i" && seq -f f%.0f "$n" | xargs touch)
}

# try HOW AMOUNT NAME SRC ARGS...: fill $mnt (HOW space or inodes) to
# leave AMOUNT, run ARGS on a copy of SRC: it fails cleanly (room=no), or
# there was room enough and it succeeds (room=yes); after a failure the
# same command without the filler completes.
try() {
	how=$1 amount=$2 name=$3 src=$4
	shift 4
	rm -rf "$mnt/root" "$mnt"/filler.*
	cp -a "$src" "$mnt/root"
	"fill_$how" "$amount"
	free=$(avail)/$(ifree)
	set +e
	"$DEBUNPACK" -q --root "$mnt/root" "$@" 2> "$W/err"
	rc=$?
	set -e
	what="$fs $name, $how $amount (free bytes/inodes $free)"
	case $rc in
	0)
		room=yes
		state "$mnt/root" > "$W/got"
		diff -u "$W/want.after" "$W/got" >&2 || fail "$what: exit 0, not the state after"
		no_temps "$mnt/root"
		return 0
		;;
	1)	room=no ;;
	*)	fail "$what: exit $rc: $(cat "$W/err")" ;;
	esac
	[ "$(wc -l < "$W/err")" = 1 ] || fail "$what: not one line: $(cat "$W/err")"
	grep -q "^debunpack: .*'[^']*': .*No space left on device$" "$W/err" ||
	    fail "$what: message: $(cat "$W/err")"
	snapshot "$mnt/root" "$W/got"
	diff -u "$W/want.before" "$W/got" >&2 || fail "$what: root changed: $(cat "$W/err")"
	no_temps "$mnt/root"
	# The point where the disk filled up: the message without the package.
	sed "s|^debunpack: [^']*'|'|" "$W/err" >> "$W/points"
	echo "$free" >> "$W/amounts"
	rm -rf "$mnt"/filler.*
	"$DEBUNPACK" -q --root "$mnt/root" "$@" 2> "$W/err" ||
	    fail "$what: rerun with room: $(cat "$W/err")"
	state "$mnt/root" > "$W/got"
	diff -u "$W/want.after" "$W/got" >&2 || fail "$what: rerun: not the state after"
	no_temps "$mnt/root"
}

# probe HOW N NAME SRC ARGS...: try with N units left (blocks of 4096
# bytes, or inodes), once for each N.
probe() {
	p_how=$1 p_n=$2
	shift 2
	if grep -qx "$p_n" "$W/tried"; then
		return 0
	fi
	echo "$p_n" >> "$W/tried"
	if [ "$p_how" = space ]; then
		try space $((p_n * 4096)) "$@"
	else
		try inodes "$p_n" "$@"
	fi
	if [ $room = yes ]; then
		nroom=$((nroom + 1))
	else
		nfull=$((nfull + 1))
	fi
}

# check NAME SRC ARGS...: fill up the disk during "debunpack ARGS" on a
# copy of SRC, at many points: the least room the run needs (bisection),
# then the first few amounts (admin directory, journal, first files),
# amounts spread from none to that least, and the last few below it
# (records, journal lines, commit).  Then the same with inodes.
check() {
	name=$1 src=$2
	shift 2
	rm -rf "$mnt/root" "$mnt"/filler.*
	cp -a "$src" "$mnt/root"
	snapshot "$mnt/root" "$W/want.before"
	"$DEBUNPACK" -q --root "$mnt/root" "$@" || fail "$fs $name: run with room"
	state "$mnt/root" > "$W/want.after"
	line="ok $fs $name:"
	for how in space inodes; do
		: > "$W/tried"
		nfull=0 nroom=0
		if [ $how = space ]; then
			hi=$(((need + 4095) / 4096 * 2)) nsteps=$steps nlow=6
		else
			hi=$((ineed * 2)) nsteps=$isteps nlow=4
		fi
		probe $how "$hi" "$name" "$src" "$@"
		[ $room = yes ] || fail "$fs $name: no room with $hi $how units"
		lo=0
		probe $how $lo "$name" "$src" "$@"
		while [ $((hi - lo)) -gt 1 ]; do
			mid=$(((lo + hi) / 2))
			probe $how $mid "$name" "$src" "$@"
			if [ $room = yes ]; then hi=$mid; else lo=$mid; fi
		done
		k=1
		while [ $k -lt $nlow ]; do
			probe $how $k "$name" "$src" "$@"
			k=$((k + 1))
		done
		k=1
		while [ $k -lt "$nsteps" ]; do
			probe $how $((hi * k / nsteps)) "$name" "$src" "$@"
			k=$((k + 1))
		done
		k=1
		while [ $k -le $nlow ] && [ $k -le "$hi" ]; do
			probe $how $((hi - k)) "$name" "$src" "$@"
			k=$((k + 1))
		done
		line="$line $how: least room $hi, full at $nfull amounts ($nroom had room);"
	done
	echo "$line"
}

# bomb: the tiny package with a huge file fills the disk and fails cleanly.
bomb() {
	rm -rf "$mnt/root" "$mnt"/filler.*
	cp -a "$T/base" "$mnt/root"
	snapshot "$mnt/root" "$W/want.before"
	for mode in syncfs batched; do
		"$DEBUNPACK" -q --root "$mnt/root" --sync-mode $mode "$bomb" 2> "$W/err" &&
		    fail "$fs: bomb ($mode) installed"
		[ "$(wc -l < "$W/err")" = 1 ] || fail "$fs bomb: not one line: $(cat "$W/err")"
		grep -q "^debunpack: .*'big': .*No space left on device$" "$W/err" ||
		    fail "$fs bomb ($mode): message: $(cat "$W/err")"
		snapshot "$mnt/root" "$W/got"
		diff -u "$W/want.before" "$W/got" >&2 || fail "$fs bomb ($mode): root changed"
		no_temps "$mnt/root"
	done
	echo "ok $fs bomb: $(stat -c %s "$bomb") bytes for 200 MB, $(cat "$W/err")"
}

# run_fs FS MNT: every check on the filesystem FS mounted at MNT, with
# files of its own in $T/FS (the filesystems are tested side by side).
run_fs() {
	fs=$1 mnt=$2 W=$T/$1
	mkdir "$W"
	: > "$W/points"
	: > "$W/amounts"
	# What a fresh install needs: the space and inodes it takes.
	mkdir "$mnt/root"
	sync
	b0=$(avail) i0=$(ifree)
	"$DEBUNPACK" -q --root "$mnt/root" "$v2" "$lib" || fail "$fs: install"
	sync
	need=$((b0 - $(avail))) ineed=$((i0 - $(ifree)))
	echo "$fs: an install takes $need bytes and $ineed inodes"
	for mode in syncfs batched; do
		check "install ($mode)" "$T/empty" --sync-mode $mode "$v2" "$lib"
		check "upgrade ($mode)" "$T/base" --sync-mode $mode "$v2" "$lib"
	done
	bomb
	rm -rf "$mnt/root" "$mnt"/filler.*
	echo "ok $fs: $(sort -u "$W/points" | wc -l) different messages," \
	    "$(sort -u "$W/amounts" | wc -l) different amounts left, in" \
	    "$(wc -l < "$W/points") failed runs:"
	sort "$W/points" | uniq -c | sort -rn | sed 's/^/    /'
}

# A 16 MiB ext4 on a loop device of our own, and a 16 MiB tmpfs, with 1024
# inodes each.
fss=
if ! command -v mkfs.ext4 > /dev/null || ! command -v losetup > /dev/null; then
	echo "mkfs.ext4 or losetup missing: ext4 not tested"
elif ! truncate -s 16M "$T/ext4.img" ||
    ! mkfs.ext4 -q -F -b 4096 -m 0 -N 1024 "$T/ext4.img" > /dev/null 2>&1; then
	echo "mkfs.ext4 failed: ext4 not tested"
elif ! loop_attach "$T/ext4.img" 2> /dev/null; then
	echo "no loop device: ext4 not tested"
else
	mkdir "$T/mnt-ext4"
	cleanup_hooks="umount '$T/mnt-ext4' 2>/dev/null; $cleanup_hooks"
	mount "$loop" "$T/mnt-ext4" || fail "mount $loop"
	fss=ext4
fi
mkdir "$T/mnt-tmpfs"
if mount -t tmpfs -o size=16m,nr_inodes=1024 debunpack-test "$T/mnt-tmpfs"; then
	cleanup_hooks="umount '$T/mnt-tmpfs' 2>/dev/null; $cleanup_hooks"
	fss="$fss tmpfs"
else
	echo "cannot mount tmpfs: tmpfs not tested"
fi
[ -n "$fss" ] || skip "no filesystem could be mounted"

for fs in $fss; do
	run_fs $fs "$T/mnt-$fs" > "$T/log.$fs" 2>&1 &
	eval "pid_$fs=\$!"
done
failed=
for fs in $fss; do
	eval "wait \$pid_$fs" || failed="$failed $fs"
	cat "$T/log.$fs"
done
[ -z "$failed" ] || fail "on$failed"
