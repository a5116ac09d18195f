#!/bin/sh
# SPDX-License-Identifier: MIT
# SIGKILL at random times, not at chosen system calls (kill.sh does those):
# an install into an empty root and an upgrade, in sync modes syncfs,
# batched and none, each killed after a random delay drawn over the
# duration of an unkilled run.  The next run repairs the root to exactly
# the state before or after, records included, with no leftover; an
# install run after that gives exactly the state after.
#
# KILLRAND_TRIALS=N: trials in all (default 204, spread over the six kinds
# of run); KILLRAND_SEED=S repeats the delays of an earlier run (printed),
# though not the timing of the machine; KILLRAND_KEEP=DIR keeps there a
# copy of the root each kill left (the last, thus a failing trial's).
. "${srcdir:-.}/tests/lib.sh"

trials=${KILLRAND_TRIALS:-204}
seed=${KILLRAND_SEED:-$(date +%s)}
case $trials$seed in
*[!0-9]*) fail "KILLRAND_TRIALS and KILLRAND_SEED are numbers" ;;
esac
per=$(((trials + 5) / 6))
echo "seed $seed (KILLRAND_SEED=$seed repeats the delays), $per trials per kind"

# On a disk a run can last ten times longer (waiting for it) and a trial
# seconds: the roots go to a tmpfs of our own as root, else to /dev/shm,
# unless $T is on a tmpfs already.  A kill is a process death, not a power
# cut: the filesystem does not matter to what it leaves.
fs=$T
if is_root && mkdir "$T/fs" &&
    mount -t tmpfs -o size=512m,mode=0755 debunpack-killrand "$T/fs" 2>/dev/null; then
	cleanup_hooks="umount '$T/fs' 2>/dev/null; $cleanup_hooks"
	fs=$T/fs
elif [ "$(stat -f -c %T "$T")" != tmpfs ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
    fs=$(mktemp -d /dev/shm/debunpack-killrand.XXXXXX 2>/dev/null); then
	cleanup_hooks="chmod -R u+rwx '$fs'; rm -rf '$fs'; $cleanup_hooks"
else
	fs=$T
fi
echo "roots in $fs ($(stat -f -c %T "$fs"))"

# Version 1 and 2 of "app": 2 changes every file of data/, the conffile
# (which the user edited), a hardlinked file and a symlink, drops old/ and
# old-only, and adds new/ and a second package, "lib".  About 800 files
# and 2.5 to 4 MB a run: long enough that random times fall in each
# phase, short enough for 200 trials in a minute.
v1=$(make_pkg app 1 - <<'D'
control-file conffiles 0644 /etc/app.conf\n
compress data gz 1
dir ./ 0755
dir ./etc/ 0755
file ./etc/app.conf 0644 text:one\n
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/app 0755 size:3000
hardlink ./usr/bin/app2 ./usr/bin/app
symlink ./usr/bin/app-link app
file ./usr/bin/old-only 0755 text:old\n
dir ./usr/share/ 0755
dir ./usr/share/old/ 0755
gen 150 ./usr/share/old/o 0644 500
dir ./usr/share/data/ 0755
gen 600 ./usr/share/data/f 0644 700
file ./usr/share/big 0644 size:2000000
D
)
v2=$(make_pkg app 2 - <<'D'
control-file conffiles 0644 /etc/app.conf\n
compress data gz 1
dir ./ 0755
dir ./etc/ 0755
file ./etc/app.conf 0644 text:two\n
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/app 0755 size:4000
hardlink ./usr/bin/app2 ./usr/bin/app
symlink ./usr/bin/app-link ../bin/app
dir ./usr/share/ 0755
dir ./usr/share/data/ 0755
gen 600 ./usr/share/data/f 0644 900
dir ./usr/share/new/ 0700
dir ./usr/share/new/deep/ 0755
gen 150 ./usr/share/new/deep/n 0644 300
file ./usr/share/big 0644 size:3000000
D
)
lib=$(make_pkg lib 1 - <<'D'
compress data gz 1
dir ./ 0755
dir ./usr/ 0755
dir ./usr/lib/ 0755
gen 100 ./usr/lib/l 0644 1000
D
)

mkdir "$fs/empty" "$fs/base"
"$DEBUNPACK" -q --root "$fs/base" "$v1" || fail "install v1"
echo mine > "$fs/base/etc/app.conf"

# state ROOT OUT: OUT.strict is the snapshot of ROOT, directory times
# included but for the admin directory's (the journal's name changes it);
# OUT what must be the same before and after a repair: no directory times,
# and a record's own mtime is the time it was written.  One snapshot for
# both (they take most of a trial's time).
state() {
	snapshot "$1" "$2.tmp"
	sed 's|^\(\./var/lib/debunpack d [0-9]* -\) [0-9.]* |\1 - |' \
	    "$2.tmp" > "$2.strict"
	sed 's|^\(\./[^ ]* d [0-9]* -\) [0-9.]* |\1 - |' "$2.tmp" > "$2.nodt"
	unstamp_records "$2.nodt" > "$2"
}

# records ROOT: a checksum of ROOT's package records.
records() {
	cat "$1"/var/lib/debunpack/*.record 2> /dev/null | cksum
}

# fresh SRC: $r is a copy of SRC, times included.
r=$fs/r
fresh() {
	rm -rf "$r"
	cp -a "$1" "$r"
	touch -r "$1" "$r"
}

now_us() {
	t=$(date +%s%N)
	echo $((t / 1000))
}

# check NAME SRC ARGS...: kill the install ARGS at random times.
kind=0
check() {
	name=$1 src=$2
	shift 2
	kind=$((kind + 1))
	fresh "$src"
	state "$r" "$T/want.before"
	# The duration of an unkilled run, started as the trials start it:
	# the least of three, the one least slowed by whatever else runs.
	for i in 1 2 3; do
		fresh "$src"
		t0=$(now_us)
		"$DEBUNPACK" -q --root "$r" "$@" &
		wait $! || fail "$name: plain run"
		echo $(($(now_us) - t0))
	done | sort -n | sed -n 1p > "$T/dur"
	dur=$(cat "$T/dur")
	state "$r" "$T/want.after"
	no_temps "$r"
	records_after=$(records "$r")
	awk -v seed=$((seed + kind)) -v n="$per" -v d="$dur" 'BEGIN {
		srand(seed)
		for (i = 0; i < n; i++)
			printf "%.6f\n", rand() * d / 1e6
	}' > "$T/delays"
	# Where the kill landed, seen from what it left: ended (the run was
	# over), start (no journal yet), extract (a journal without renames),
	# rename (renames before the commit point), commit (past it, cleanup
	# left), exit (journal removed, new records).
	n_ended=0 n_start=0 n_extract=0 n_rename=0 n_commit=0 n_exit=0
	nbefore=0 nafter=0 nempty=0 ndirect=0 trial=0
	while read -r delay; do
		trial=$((trial + 1))
		what="$name: trial $trial (seed $seed, delay ${delay}s)"
		fresh "$src"
		"$DEBUNPACK" -q --root "$r" "$@" 2> "$T/err" &
		pid=$!
		sleep "$delay"
		kill -s KILL $pid 2> /dev/null || true
		st=0
		wait $pid 2> /dev/null || st=$?
		if [ $st = 0 ]; then
			n_ended=$((n_ended + 1))
		elif [ $st != 137 ]; then
			fail "$what: exit status $st: $(cat "$T/err")"
		elif [ -f "$r/var/lib/debunpack/journal" ]; then
			if grep -qx commit "$r/var/lib/debunpack/journal"; then
				n_commit=$((n_commit + 1))
			elif grep -q '^item' "$r/var/lib/debunpack/journal"; then
				n_rename=$((n_rename + 1))
			else
				n_extract=$((n_extract + 1))
			fi
		elif [ "$(records "$r")" = "$records_after" ]; then
			n_exit=$((n_exit + 1))
		else
			n_start=$((n_start + 1))
		fi
		[ -z "${KILLRAND_KEEP:-}" ] || { rm -rf "$KILLRAND_KEEP"; cp -a "$r" "$KILLRAND_KEEP"; }
		if [ $((trial % 4)) = 0 ]; then
			# The same command again repairs, then installs.
			ndirect=$((ndirect + 1))
		else
			"$DEBUNPACK" -q --root "$r" --recover 2> "$T/err" ||
			    fail "$what: repair: $(cat "$T/err")"
			no_temps "$r"
			[ ! -e "$r/var/lib/debunpack/journal" ] || fail "$what: journal left"
			# Killed between making the admin directory and its
			# journal: the empty directory stays (see kill.sh).
			empty_admin=no
			for d in var/lib/debunpack var/lib var; do
				if [ ! -e "$src/$d" ] && [ -d "$r/$d" ] &&
				    [ -z "$(ls -A "$r/$d")" ]; then
					empty_admin=yes
					rmdir "$r/$d"
				fi
			done
			[ $empty_admin = no ] || touch -r "$src" "$r"
			# Records are part of the state: the same as a clean
			# run's, they match the root (kill.sh also runs --verify).
			state "$r" "$T/got"
			if cmp -s "$T/got" "$T/want.before"; then
				[ $empty_admin = no ] || nempty=$((nempty + 1))
				# Undone: directory times too.
				diff -u "$T/want.before.strict" "$T/got.strict" >&2 ||
				    fail "$what: times not restored"
				nbefore=$((nbefore + 1))
			elif cmp -s "$T/got" "$T/want.after"; then
				nafter=$((nafter + 1))
			else
				diff -u "$T/want.before" "$T/got" | head -n 40 >&2
				fail "$what: neither the old nor the new state"
			fi
		fi
		"$DEBUNPACK" -q --root "$r" "$@" 2> "$T/err" ||
		    fail "$what: install after the kill: $(cat "$T/err")"
		no_temps "$r"
		[ ! -e "$r/var/lib/debunpack/journal" ] || fail "$what: journal left by the rerun"
		state "$r" "$T/got"
		cmp -s "$T/want.after" "$T/got" || {
			diff -u "$T/want.after" "$T/got" | head -n 40 >&2
			fail "$what: rerun did not give the state after"
		}
	done < "$T/delays"
	echo "ok $name: $trial kills over $((dur / 1000)) ms: $n_start before" \
	    "the journal, $n_extract extracting, $n_rename renaming, $n_commit" \
	    "past the commit point, $n_exit exiting, $n_ended after the end;" \
	    "repaired $nbefore undone ($nempty empty admin directory)," \
	    "$nafter finished, $ndirect by the next install"
	tot_trials=$((tot_trials + trial)) tot_start=$((tot_start + n_start))
	tot_extract=$((tot_extract + n_extract)) tot_rename=$((tot_rename + n_rename))
	tot_commit=$((tot_commit + n_commit)) tot_exit=$((tot_exit + n_exit))
	tot_ended=$((tot_ended + n_ended))
}

tot_trials=0 tot_start=0 tot_extract=0 tot_rename=0 tot_commit=0 tot_exit=0 tot_ended=0
for mode in syncfs batched none; do
	check "install ($mode)" "$fs/empty" --sync-mode $mode "$v1"
	check "upgrade ($mode)" "$fs/base" --sync-mode $mode "$v2" "$lib"
done
echo "ok $tot_trials trials: $tot_start before the journal, $tot_extract" \
    "extracting, $tot_rename renaming, $tot_commit past the commit point," \
    "$tot_exit exiting, $tot_ended after the end"
