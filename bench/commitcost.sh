#!/bin/sh
# SPDX-License-Identifier: MIT
# What one commit of a filesystem costs on this machine: the floor under
# any installer that must leave each of apt's dpkg calls durable when it
# returns (one commit a call at the least).  On a fresh loop-mounted
# filesystem holding a tree of files, a small file is written and renamed
# over another (an update of dpkg's status, a conffile) N times, then N
# times again each followed by a syncfs(2) of the filesystem; the second
# loop's extra time, device flushes (field 16 of /sys/block/loopN/stat)
# and bytes written, divided by N, are one commit's.  Both loops run in
# one process (ctypes' syncfs), alternated RUNS times; medians.
# usage: bench/commitcost.sh [-n COMMITS] [-r RUNS] [-f FILES] [FS...]   (as root)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/rootlib.sh"
n=100 runs=3 files=4000
while getopts n:r:f: o; do
	case $o in
	n) n=$OPTARG ;;
	r) runs=$OPTARG ;;
	f) files=$OPTARG ;;
	*) echo "usage: $0 [-n COMMITS] [-r RUNS] [-f FILES] [FS...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- ext4 xfs btrfs
[ "$(id -u)" = 0 ] || { echo "$0: needs root for loop devices" >&2; exit 1; }
for t in mkfs.xfs:xfsprogs mkfs.btrfs:btrfs-progs python3:python3; do
	command -v "${t%%:*}" > /dev/null ||
	    apt-get install -y -qq --no-install-recommends "${t#*:}" > /dev/null
done

work=$(mktemp -d "${TMPDIR:-/var/tmp}/debunpack-commit.XXXXXX")
mnt=$work/mnt
trap 'rb_work_down "$work" "$mnt"' EXIT

cat > "$work/loop.py" <<'EOF'
import ctypes, os, sys, time
mnt, dev, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
libc = ctypes.CDLL(None, use_errno=True)
def stat():
    f = open("/sys/block/%s/stat" % dev).read().split()
    return int(f[15]), int(f[6]) * 512
def one(commit):
    dfd = os.open(mnt, os.O_RDONLY | os.O_DIRECTORY)
    f0, w0 = stat()
    t0 = time.monotonic()
    for i in range(n):
        p = os.path.join(mnt, "etc", "status")
        with open(p + "-new", "w") as fp:
            fp.write(("Package: p%d\nStatus: install ok installed\n" % i) * 64)
        os.rename(p + "-new", p)
        if commit and libc.syncfs(dfd) != 0:
            sys.exit("syncfs: %s" % os.strerror(ctypes.get_errno()))
    libc.syncfs(dfd)
    t1 = time.monotonic()
    f1, w1 = stat()
    os.close(dfd)
    return t1 - t0, f1 - f0, w1 - w0
libc.syncfs(os.open(mnt, os.O_RDONLY))
a = one(False)
b = one(True)
print("%.6f %d %d %.6f %d %d" % (a + b))
EOF

for fs in "$@"; do
	SIZE_MIB=1024 rb_fs_up "$fs" "$work/img" "$mnt"
	# A tree to commit beside: files in a few directories.
	mkdir -p "$mnt/etc"
	i=0
	while [ $i -lt "$files" ]; do
		d=$mnt/usr/share/d$((i / 500))
		[ -d "$d" ] || mkdir -p "$d"
		head -c 2048 /dev/urandom > "$d/f$i"
		i=$((i + 1))
	done
	sync -f "$mnt"
	r=1
	while [ $r -le "$runs" ]; do
		python3 "$work/loop.py" "$mnt" "$rb_dev" "$n" >> "$work/$fs.runs"
		r=$((r + 1))
	done
	rb_fs_down "$work/img" "$mnt"
	# Per commit: extra seconds, flushes and bytes of the committing loop.
	sort -n -k4 "$work/$fs.runs" | awk -v fs="$fs" -v n="$n" -v runs="$runs" '
	    { ms[NR] = ($4 - $1) * 1000 / n; fl[NR] = ($5 - $2) / n;
	      kb[NR] = ($6 - $3) / 1024 / n }
	    END { m = int((NR + 1) / 2);
	      printf "%s: one commit %.2f ms, %.1f flushes, %.0f KiB written (median of %d runs of %d)\n",
	        fs, ms[m], fl[m], kb[m], runs, n }'
done
