#!/bin/sh
# SPDX-License-Identifier: MIT
# The unpack the dpkg for apt runs (--dpkg-db --maintscripts) under
# faults: every write, sync, rename and close of debunpack fails in turn
# with EIO (tests/faultshim.so; the scripts run without it), in two
# calls: "upgrade", two packages with maintainer scripts and conffiles
# upgraded and a third installed beside them; "conflicts", a package
# that removes a conflicting one in its favour and one that takes every
# file of another, which disappears.  A call that fails exits 1 or 2
# and says why; no script of a package's unwinding (abort-upgrade,
# abort-install) runs once its old postrm upgrade ran, which only a
# committed batch runs; dpkg's status parses and each package is where
# dpkg leaves one: as before the call with its files as they were (the
# unpack undone), half-installed (to be installed again) or
# half-configured over its old files, or as a clean call leaves it with
# its files as that call leaves them (and, while debunpack's committed
# journal names them for the next run, the backups and the paths the
# new versions dropped).  Then the same call without the fault, and dpkg --configure
# -a, end exactly where a clean call and dpkg --configure -a end:
# files, dpkg's status and file lists, debunpack's records.
# FAULT_STEP=K tries every Kth call only, from the (SWEEP_OFFSET mod
# K)th on, and the last, of the kinds of call made more than 30 times
# (writes, closes; tests/run.sh sets it; make check-full tries every
# one); every sync and rename is tried.  FAULT_SCENS and FAULT_MODES:
# the calls and sync modes tried (default: all); tests/maintfaults-btrfs.sh
# runs the upgrade on btrfs.
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
pkg() {	# NAME VERSION [FIELD VALUE]...: scripts, a conffile, files
	pk_name=$1 pk_ver=$2
	shift 2
	{
		fields_scripts "$S" "$@"
		printf '%s\n' "control-file conffiles 0644 /etc/$pk_name.conf\\n" \
		    "dir ./etc/ 0755" "file ./etc/$pk_name.conf 0644 text:$pk_name $pk_ver\\n" \
		    "dir ./usr/ 0755" "dir ./usr/share/ 0755" \
		    "dir ./usr/share/$pk_name/ 0755" \
		    "file ./usr/share/$pk_name/same 0644 text:same" \
		    "file ./usr/share/$pk_name/changes 0644 size:$((3000 * pk_ver))" \
		    "file ./usr/share/$pk_name/only-$pk_ver 0644 text:$pk_ver"
	} | make_pkg -a all -m "T <t@example.org>" -d test "$pk_name" "$pk_ver" -
}
a1=$(pkg a 1) a2=$(pkg a 2) b1=$(pkg b 1) b2=$(pkg b 2) c1=$(pkg c 1)
e1=$(pkg e 1) g1=$(pkg g 1 Conflicts e Replaces e)
# h has no conffile nor script: i, which ships its one file, makes it
# disappear.
h1=$(make_pkg -a all -m "T <t@example.org>" -d test h 1 "dir ./usr/ 0755" \
    "dir ./usr/share/ 0755" "dir ./usr/share/h/ 0755" \
    "file ./usr/share/h/only 0644 text:h")
i1=$(make_pkg -a all -m "T <t@example.org>" -d test i 1 \
    "control-field Replaces h" "dir ./usr/ 0755" "dir ./usr/share/ 0755" \
    "dir ./usr/share/h/ 0755" "file ./usr/share/h/only 0644 text:h")

# unpack ROOT [ENV...]: the scenario's call, as the dpkg for apt runs it.
unpack() {
	un_root=$1
	shift
	# shellcheck disable=SC2086 # one word per package
	env "$@" "$DEBUNPACK" --root "$un_root" --dpkg-db --maintscripts \
	    --dpkg-messages --no-progress --force-script-chrootless \
	    --auto-deconfigure --sync-mode "$mode" -- $debs \
	    > "$T/out" 2> "$T/err"
}

# state ROOT OUT: every path (type, mode, size, contents) but dpkg's
# -old copies, debunpack's journal and the scripts' log; dpkg's status
# as each package's stanza.  One difference is let pass: a conflictor
# whose removal failed at its last step (its stanza written after its
# postrm remove) keeps the "deinstall" its removal's batch gave it,
# where dpkg leaves a conflictor removed in its favour at "install".
state() {
	(cd "$1" && find . -mindepth 1 \( -name 'log' -o -name '*-old' -o \
	    -name journal -o -path ./var/lib/dpkg/status \) -prune -o \
	    -printf '%p %y %m %s %l\n' | LC_ALL=C sort
	 find . -type f ! -name log ! -name '*-old' ! -name journal \
	    ! -path ./var/lib/dpkg/status -exec sha256sum {} + |
	    LC_ALL=C sort -k2
	 for p in $pkgs; do
		dpkg-query --admindir=var/lib/dpkg -s "$p" 2> /dev/null |
		    sed 's/^Status: deinstall ok config-files$/Status: install ok config-files/'
	 done) > "$2"
}

# files ROOT PKG: PKG's paths, "PATH TYPE SIZE" (a directory's: -).
files() {
	(cd "$1" && find ./etc/"$2".conf ./usr/share/"$2" -printf '%p %y %s\n' \
	    2> /dev/null | awk '$2 == "d" { $3 = "-" } { print }' | LC_ALL=C sort)
}

# status ROOT PKG: PKG's status and version in ROOT, or "absent".
status() {
	dpkg-query --admindir="$1/var/lib/dpkg" -W -f '${Status} ${Version}' \
	    "$2" 2> /dev/null || echo absent
}

# journaled ROOT: the lines of $T/f.now less what a committed journal of
# ROOT still names for the next run to remove: backups, and the paths of
# the old versions ($T/f.old) that the new ones ($T/f.new) dropped.
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

total=0 problems=0
problem() {
	echo "FAIL: $*" >&2
	problems=$((problems + 1))
}

# fits P: package P of the failed call in $T/r is where dpkg leaves one.
fits() {
	s=$(status "$T/r" "$1")
	files "$T/r" "$1" > "$T/f.now"
	files "$T/base" "$1" > "$T/f.old"
	files "$T/new" "$1" > "$T/f.new"
	if [ "$s" = "$(status "$T/base" "$1")" ]; then
		cmp -s "$T/f.old" "$T/f.now" ||
		    { echo "$1 is '$s' as before, over other files: $(diff "$T/f.old" "$T/f.now")"; return 1; }
	elif [ "$s" = "$(status "$T/new" "$1")" ]; then
		journaled "$T/r" > "$T/f.left"
		cmp -s "$T/f.new" "$T/f.left" ||
		    { echo "$1 is '$s' as after, over other files: $(diff "$T/f.new" "$T/f.left")"; return 1; }
	else
		case $s in
		*" half-installed "*) ;;
		# A conflictor removed by its own batch, before its postrm
		# remove: dpkg's state after a removal, its files gone.
		"deinstall ok config-files "*)
			journaled "$T/r" > "$T/f.left"
			cmp -s "$T/f.new" "$T/f.left" ||
			    { echo "$1 is '$s' over other files: $(diff "$T/f.new" "$T/f.left")"; return 1; } ;;
		# Not installed (its stanza kept for its selection): no file.
		*" not-installed "*)
			[ ! -s "$T/f.now" ] ||
			    { echo "$1 is '$s' but has files: $(cat "$T/f.now")"; return 1; } ;;
		*" half-configured "*)
			cmp -s "$T/f.old" "$T/f.now" ||
			    { echo "$1 is '$s' over other files: $(diff "$T/f.old" "$T/f.now")"; return 1; } ;;
		*) echo "$1 is '$s' (before: '$(status "$T/base" "$1")'; after: '$(status "$T/new" "$1")')"; return 1 ;;
		esac
	fi
}

# try CALL N: the scenario's call with the Nth CALL of debunpack failing.
try() {
	call=$1 at=$2
	what="$scen $mode $call #$at"
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
		# A failure that changed nothing installed: a clean call's root.
		case $call in
		write|fsync|fdatasync|syncfs|sync_file_range)
			problem "$what: exit 0 after a failed $call ($repro)"
			return 1 ;;
		esac
		state "$T/r" "$T/now"
		cmp -s "$T/want.unpacked" "$T/now" || {
			problem "$what: exit 0 but not a clean call's root ($repro):" \
			    "$(diff "$T/want.unpacked" "$T/now" | head -n 6)"
			return 1
		}
	else
		[ $st = 1 ] || [ $st = 2 ] ||
		    { problem "$what: exit $st ($repro): $(cat "$T/err")"; return 1; }
		grep -q 'Input/output error' "$T/err" ||
		    problem "$what: the cause is not told ($repro): $(cat "$T/err")"
		for p in $pkgs; do
			# Nothing unwound once the old postrm upgrade ran.
			awk -v p="$p" '$1 == p && $2 == "postrm" && $3 == "upgrade" { up = 1 }
			    $1 == p && $3 ~ /^abort-/ && up { bad = 1 }
			    END { exit bad }' "$T/r/log" ||
			    { problem "$what: $p unwound after its commit ($repro): $(cat "$T/r/log")"; return 1; }
			why=$(fits "$p") ||
			    { problem "$what: $why ($repro)"; return 1; }
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

for scen in ${FAULT_SCENS:-upgrade conflicts}; do
	case $scen in
	upgrade) before="$a1 $b1" debs="$a2 $b2 $c1" pkgs="a b c" ;;
	conflicts) before="$e1 $h1" debs="$g1 $i1" pkgs="e g h i" ;;
	esac
	rm -rf "$T/base"
	mkdir "$T/base"
	empty_dpkg_db "$T/base"
	# shellcheck disable=SC2086 # one word per package
	"$DEBUNPACK" --root "$T/base" --dpkg-db --maintscripts \
	    --force-script-chrootless $before > /dev/null || fail "$scen: set-up"
	dpkg_root "$T/base" --configure -a
	: > "$T/base/log"
	for mode in ${FAULT_MODES:-syncfs batched}; do
		# A clean call: what it makes, and what configure then makes.
		rm -rf "$T/new"
		cp -a "$T/base" "$T/new"
		unpack "$T/new" || fail "$scen $mode: clean call: $(cat "$T/err")"
		state "$T/new" "$T/want.unpacked"
		cp -a "$T/new" "$T/conf"
		dpkg_root "$T/conf" --configure -a > /dev/null
		state "$T/conf" "$T/want"
		rm -rf "$T/conf" "$T/r" "$T/counts"
		cp -a "$T/base" "$T/r"
		unpack "$T/r" FAULT_COUNT="$T/counts" FAULT_NOINHERIT=1 \
		    LD_PRELOAD="$FAULTSHIM" || fail "$scen $mode: counted call"
		echo "# $scen $mode: $(tr '\n' ' ' < "$T/counts")"
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
				if [ "$n" -lt "$count" ] &&
				    [ $((n + k)) -gt "$count" ]; then
					n=$count
				else
					n=$((n + k))
				fi
			done
			total=$((total + points))
			echo "$scen $mode $call: $points of $count points, $bad broken"
		done < "$T/counts"
	done
done
[ "$problems" = 0 ] || fail "$problems of $total fault points broken"
echo "$total fault points"
