#!/bin/sh
# SPDX-License-Identifier: MIT
# The unpack the dpkg for apt runs (--dpkg-db --maintscripts) under
# faults: every write, sync, rename and close of debunpack's upgrade of
# two packages with maintainer scripts and conffiles and the install of
# a third beside them fails in turn with
# EIO (tests/faultshim.so; the scripts run without it).  A call that
# fails exits 1 or 2 and says why; no script of a package's unwinding
# (abort-upgrade) runs once its old postrm upgrade ran, which only a
# committed batch runs; dpkg's status parses and each package is where
# dpkg leaves one: its old version installed with every file old (the
# unpack undone), its old version half-installed and to be reinstalled
# with each file old or new, or its new version unpacked with every
# file new (and, while debunpack's committed journal names them for the
# next run, the backups and the paths the new version dropped).  Then the same call without the fault, and dpkg --configure
# -a, end exactly where a clean call and dpkg --configure -a end:
# files, dpkg's status and file lists, debunpack's records.
# FAULT_STEP=K tries every Kth call only, from the (SWEEP_OFFSET mod
# K)th on, and the last, of the kinds of call made more than 30 times
# (writes, closes; tests/run.sh sets it; make check-full tries every
# one); every sync and rename is tried.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	TMPDIR=/dev/shm
	export TMPDIR
fi
. "${srcdir:-.}/tests/lib.sh"

[ -f "$FAULTSHIM" ] || skip "fault shim not built"
command -v dpkg > /dev/null || skip "no dpkg"
step=${FAULT_STEP:-1}
ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0
export ASAN_OPTIONS

# Each script logs its name and arguments.
S='#!/bin/sh\necho "$DPKG_MAINTSCRIPT_PACKAGE $DPKG_MAINTSCRIPT_NAME $*" >> "$DPKG_ROOT/log"\n'
pkg() {	# NAME VERSION: scripts, a conffile, a file of each version
	{
		for s in preinst postinst prerm postrm; do
			printf '%s\n' "control-file $s 0755 $S"
		done
		printf '%s\n' "control-file conffiles 0644 /etc/$1.conf\\n" \
		    "dir ./etc/ 0755" "file ./etc/$1.conf 0644 text:$1 $2\\n" \
		    "dir ./usr/ 0755" "dir ./usr/share/ 0755" \
		    "dir ./usr/share/$1/ 0755" \
		    "file ./usr/share/$1/same 0644 text:same" \
		    "file ./usr/share/$1/changes 0644 size:$((3000 * $2))" \
		    "file ./usr/share/$1/only-$2 0644 text:$2"
	} | make_pkg -a all -m "T <t@example.org>" -d test "$1" "$2" -
}
a1=$(pkg a 1) a2=$(pkg a 2) b1=$(pkg b 1) b2=$(pkg b 2) c1=$(pkg c 1)

# unpack ROOT [ENV...]: the upgrade, as the dpkg for apt runs it.
unpack() {
	un_root=$1
	shift
	env "$@" "$DEBUNPACK" --root "$un_root" --dpkg-db --maintscripts \
	    --dpkg-messages --no-progress --force-script-chrootless \
	    --sync-mode "$mode" -- "$a2" "$b2" "$c1" > "$T/out" 2> "$T/err"
}

# state ROOT OUT: every path (type, mode, size, contents) but dpkg's
# -old copies, debunpack's journal and the scripts' log; then dpkg's
# status.
state() {
	(cd "$1" && find . -mindepth 1 \( -name 'log' -o -name '*-old' -o \
	    -name journal \) -prune -o -printf '%p %y %m %s %l\n' |
	    LC_ALL=C sort
	 find . -type f ! -name log ! -name '*-old' ! -name journal \
	    -exec sha256sum {} + | LC_ALL=C sort -k2) > "$2"
}

# files ROOT PKG: PKG's paths, "PATH TYPE SIZE" (a directory's: -).
files() {
	(cd "$1" && find ./etc/"$2".conf ./usr/share/"$2" -printf '%p %y %s\n' \
	    2> /dev/null | awk '$2 == "d" { $3 = "-" } { print }' | LC_ALL=C sort)
}

# journaled ROOT PKG: the lines of NOW (PKG's files) less what a
# committed journal of ROOT still names for the next run to remove:
# backups, and the paths of the old version that the new one dropped.
journaled() {
	if [ -f "$1/var/lib/debunpack/journal" ]; then
		awk 'f == 1 { old[$1] = 1; next } f == 2 { new[$1] = 1; next }
		    $1 ~ /\.debunpack-old$/ { next }
		    ($1 in old) && !($1 in new) { next }
		    { print }' f=1 "$T/f.old" f=2 "$T/f.new" f=3 "$T/f.now"
	else
		cat "$T/f.now"
	fi
}

mkdir "$T/base"
empty_dpkg_db "$T/base"
"$DEBUNPACK" --root "$T/base" --dpkg-db --maintscripts \
    --force-script-chrootless "$a1" "$b1" > /dev/null || fail "install 1"
dpkg_root "$T/base" --configure -a
: > "$T/base/log"

total=0 problems=0
problem() {
	echo "FAIL: $*" >&2
	problems=$((problems + 1))
}

# try CALL N: the upgrade with the Nth CALL of debunpack failing.
try() {
	call=$1 at=$2
	what="$mode $call #$at"
	repro="FAULT_CALL=$call FAULT_N=$at FAULT_NOINHERIT=1 LD_PRELOAD=\$FAULTSHIM debunpack --sync-mode $mode ..."
	rm -rf "$T/r" "$T/log"
	cp -a "$T/base" "$T/r"
	st=0
	unpack "$T/r" FAULT_CALL="$call" FAULT_N="$at" FAULT_NOINHERIT=1 \
	    FAULT_LOG="$T/log" LD_PRELOAD="$FAULTSHIM" || st=$?
	fault=$(grep '^fault ' "$T/log" 2> /dev/null || true)
	[ -n "$fault" ] || { problem "$what: the call was not made ($repro)"; return 1; }
	what="$what [$(echo "$fault" | cut -d ' ' -f 6- | sed "s|$T/r/||g")]"
	if [ $st = 0 ]; then
		# A failure that changed nothing installed: a clean run's root.
		case $call in
		write|fsync|fdatasync|syncfs|sync_file_range)
			problem "$what: exit 0 after a failed $call ($repro)"
			return 1 ;;
		esac
		state "$T/r" "$T/now"
		cmp -s "$T/want.unpacked" "$T/now" || {
			problem "$what: exit 0 but not a clean run's root ($repro):" \
			    "$(diff "$T/want.unpacked" "$T/now" | head -n 6)"
			return 1
		}
	else
		[ $st = 1 ] || [ $st = 2 ] ||
		    { problem "$what: exit $st ($repro): $(cat "$T/err")"; return 1; }
		grep -q 'Input/output error' "$T/err" ||
		    problem "$what: the cause is not told ($repro): $(cat "$T/err")"
		for p in a b c; do
			# Nothing unwound once the old postrm upgrade ran.
			awk -v p=$p '$1 == p && $2 == "postrm" && $3 == "upgrade" { up = 1 }
			    $1 == p && $3 ~ /^abort-/ && up { bad = 1 }
			    END { exit bad }' "$T/r/log" ||
			    { problem "$what: $p unwound after its commit ($repro): $(cat "$T/r/log")"; return 1; }
			s=$(dpkg-query --admindir="$T/r/var/lib/dpkg" -W \
			    -f '${Status} ${Version}' $p 2> "$T/qerr") ||
			    s=not-known
			[ $p != c ] || [ "$s" != not-known ] || s=not-installed
			files "$T/r" $p > "$T/f.now"
			files "$T/base" $p > "$T/f.old"
			files "$T/new" $p > "$T/f.new"
			case $s in
			"install ok installed 1")
				cmp -s "$T/f.old" "$T/f.now" ||
				    { problem "$what: $p installed at 1 over other files ($repro): $(diff "$T/f.old" "$T/f.now")"; return 1; } ;;
			"install ok unpacked 2")
				journaled "$T/r" > "$T/f.left"
				cmp -s "$T/f.new" "$T/f.left" ||
				    { problem "$what: $p unpacked at 2 over other files ($repro): $(diff "$T/f.new" "$T/f.left")"; return 1; } ;;
			"install reinstreq half-installed "[12]) ;;
			# c, new: gone again with its files, or half-installed.
			not-installed | "unknown ok not-installed "* | \
			    "install ok not-installed "*)
				[ ! -s "$T/f.now" ] ||
				    { problem "$what: $p not installed but its files are there ($repro): $(cat "$T/f.now")"; return 1; } ;;
			"install ok unpacked 1")
				[ $p = c ] && cmp -s "$T/f.new" "$T/f.now" ||
				    { problem "$what: $p unpacked at 1 ($repro): $(diff "$T/f.new" "$T/f.now")"; return 1; } ;;
			*) problem "$what: $p is '$s' ($repro)"; return 1 ;;
			esac
		done
		# The same call again, without the fault.
		: > "$T/r/log"
		unpack "$T/r" ||
		    { problem "$what: the rerun failed ($repro): $(cat "$T/err")"; return 1; }
	fi
	dpkg_root "$T/r" --configure -a > /dev/null 2>&1 ||
	    { problem "$what: dpkg --configure -a failed ($repro)"; return 1; }
	state "$T/r" "$T/now"
	cmp -s "$T/want" "$T/now" || {
		problem "$what: not where a clean call ends ($repro):" \
		    "$(diff "$T/want" "$T/now" | head -n 8)"
		return 1
	}
}

for mode in syncfs batched; do
	# A clean call: what an unpack makes, and what configure then makes.
	rm -rf "$T/new"
	cp -a "$T/base" "$T/new"
	unpack "$T/new" || fail "$mode: clean call: $(cat "$T/err")"
	state "$T/new" "$T/want.unpacked"
	cp -a "$T/new" "$T/conf"
	dpkg_root "$T/conf" --configure -a > /dev/null
	state "$T/conf" "$T/want"
	rm -rf "$T/conf" "$T/r" "$T/counts"
	cp -a "$T/base" "$T/r"
	unpack "$T/r" FAULT_COUNT="$T/counts" FAULT_NOINHERIT=1 \
	    LD_PRELOAD="$FAULTSHIM" || fail "$mode: counted call"
	echo "# $mode: $(tr '\n' ' ' < "$T/counts")"
	while read -r call count; do
		[ "$count" -gt 0 ] || continue
		# Few calls (syncs, renames): each, whatever the step.
		k=$step
		[ "$count" -gt 30 ] || k=1
		n=$((1 + ${SWEEP_OFFSET:-0} % k))
		[ "$n" -le "$count" ] || n=$count
		points=0 bad=0
		while [ "$n" -le "$count" ]; do
			points=$((points + 1))
			try "$call" "$n" || bad=$((bad + 1))
			if [ "$n" -lt "$count" ] && [ $((n + k)) -gt "$count" ]; then
				n=$count
			else
				n=$((n + k))
			fi
		done
		total=$((total + points))
		echo "$mode $call: $points of $count points, $bad broken"
	done < "$T/counts"
done
[ "$problems" = 0 ] || fail "$problems of $total fault points broken"
echo "$total fault points"
