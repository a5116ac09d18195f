#!/bin/sh
# SPDX-License-Identifier: MIT
# Every write, sync, rename and close of an install, of an upgrade (in
# each durable sync mode) and of an install that reopens its files
# (batched, few descriptors) fails in turn, with EIO, and with ENOSPC at
# every third call (tests/faultshim.so): a run that fails exits 1 with
# one line naming a file and the cause, renames nothing after the
# failure, and leaves each path either old or new; the next run completes
# it to exactly what a clean run makes.  A failed write or sync, or a
# failed close of a file being written, never passes for success.  Every
# point is tried and every broken one reported before the test fails.
# FAULT_STEP=K tries every Kth call only (tests/run.sh sets it; make
# check-full tries every one), from the (SWEEP_OFFSET mod K)th on, and
# the last.
#
# The faults are injected: a disk's flushes would only slow the test down
# (twice as long on ext4), so the scratch roots go to tmpfs unless TMPDIR
# says where.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	TMPDIR=/dev/shm
	export TMPDIR
fi
. "${srcdir:-.}/tests/lib.sh"

[ -f "$FAULTSHIM" ] || skip "fault shim not built"
step=${FAULT_STEP:-1}
# A sanitizer runtime wants to be first; the shim does not need that check.
ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0
export ASAN_OPTIONS
tab=$(printf '\t')

# Version 2 of "app" changes, adds and drops files, a directory, a
# symlink, a hardlink and two conffiles (the user changed one of them),
# turns an empty directory into a file and a file into a directory;
# "lib" comes new with it.
v1=$(make_pkg app 1 - <<'D'
control-file conffiles 0644 /etc/app.conf\n/etc/app/default.conf\n
control-file postrm 0755 #!/bin/sh\nexit 0\n
dir ./etc/ 0755
file ./etc/app.conf 0644 text:one\n
dir ./etc/app/ 0755
file ./etc/app/default.conf 0644 text:default one\n
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/app 0755 size:3000
hardlink ./usr/bin/app2 ./usr/bin/app
symlink ./usr/bin/app-link app
file ./usr/bin/old-only 0755 text:old\n
file ./usr/bin/empty 0644 size:0
dir ./usr/share/ 0755
dir ./usr/share/old/ 0755
file ./usr/share/old/data 0644 size:100
dir ./usr/share/becomes-file/ 0755
file ./usr/share/becomes-dir 0644 text:was a file\n
D
)
v2=$(make_pkg app 2 - <<'D'
control-file conffiles 0644 /etc/app.conf\n/etc/app/default.conf\n
dir ./etc/ 0755
file ./etc/app.conf 0644 text:two\n
dir ./etc/app/ 0755
file ./etc/app/default.conf 0644 text:default two\n
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/app 0755 size:70000
hardlink ./usr/bin/app2 ./usr/bin/app
symlink ./usr/bin/app-link ../bin/app
file ./usr/bin/empty 0644 size:0
dir ./usr/share/ 0755
dir ./usr/share/app/ 0755
dir ./usr/share/app/deep/ 0700
file ./usr/share/app/deep/new 0644 text:new\n
file ./usr/share/becomes-file 0644 text:was a directory\n
dir ./usr/share/becomes-dir/ 0755
file ./usr/share/becomes-dir/inside 0644 text:in\n
D
)
lib=$(make_pkg lib 1 "dir ./usr/ 0755" "dir ./usr/lib/ 0755" "file ./usr/lib/lib.so 0644 size:2000")
# More files than batched mode keeps open under a low descriptor limit:
# it closes them once written and reopens them to sync them.
many=$(
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do
		printf 'file ./many/%s 0644 text:%s\\n\n' $i $i
	done | make_pkg many 1 "dir ./many/ 0755" -
)

mkdir "$T/empty" "$T/base" "$T/base-db"
"$DEBUNPACK" -q --root "$T/base" "$v1" || fail "install v1"
"$DEBUNPACK" -q --root "$T/base-db" --dpkg-db "$v1" || fail "install v1 with --dpkg-db"
# The user's edit of a conffile: the upgrade keeps it.
echo mine > "$T/base/etc/app.conf"
touch -d @1000000000 "$T/base/etc/app.conf"

# state ROOT OUT: one line per path, "PATH<TAB>what it is", contents by
# checksum; the times of directories, and of records (the time they were
# written), are left out: a rerun writes them anew.  OUT.strict is the
# whole snapshot.
state() {
	snapshot "$1" "$2.strict"
	awk -v t="$tab" '
		/^\.\// {
			p = $1
			if ($2 == "d" || p ~ /^\.\/var\/lib\/debunpack\/[^\/]*\.record$/ ||
			    p ~ /^\.\/var\/lib\/dpkg\//)
				$5 = "-"
			line = $0; sub(/^[^ ]* /, "", line)
			what[p] = line; order[++n] = p; next
		}
		{ sum[$2] = $1 }
		END {
			for (i = 1; i <= n; i++) {
				p = order[i]
				print p t what[p] ((p in sum) ? " " sum[p] : "")
			}
		}' "$2.strict" > "$2"
}

# $leftover matches the paths of temporaries, backups and the journal of
# a run; leftovers STATE lists them.
leftover='([.]debunpack-(new|old)|/[.]debunpack-(new|old)[.][0-9]+|^[.]/var/lib/debunpack/journal)$'
leftovers() {
	awk -F "$tab" -v leftover="$leftover" '$1 ~ leftover { print $1 }' "$1"
}

# per_path BEFORE AFTER NOW: every path of NOW but leftovers is as in
# BEFORE or as in AFTER (absent counts); prints the others.
per_path() {
	awk -F "$tab" '
		f == 1 { b[$1] = $2; all[$1]; next }
		f == 2 { a[$1] = $2; all[$1]; next }
		$1 !~ leftover { n[$1] = $2; all[$1] }
		END {
			for (p in all) {
				now = (p in n) ? n[p] : "(absent)"
				old = (p in b) ? b[p] : "(absent)"
				new = (p in a) ? a[p] : "(absent)"
				if (now != old && now != new)
					printf "%s: now %s; old %s; new %s\n", p, now, old, new
			}
		}' leftover="$leftover" f=1 "$1" f=2 "$2" f=3 "$3"
}

# kept STATE|SNAPSHOT [noadmin]: the lines of a state or a snapshot but
# those of leftovers; with noadmin, nor the directories that hold the
# journal (a first install makes them for it).
kept() {
	awk -v leftover="$leftover" -v noadmin="${2:-}" '
		{
			p = ($1 ~ /^[.]\//) ? $1 : $2
			sub(/\t.*/, "", p)
			if (p ~ leftover)
				next
			if (noadmin != "" && (p == "./var" || p == "./var/lib" ||
			    p == "./var/lib/debunpack"))
				next
			print
		}' "$1"
}

total=0 problems=0
# problem WHAT: a point that broke a rule.  The run goes on with the next
# point, so that one run shows every broken point; it fails at the end.
problem() {
	echo "FAIL: $*" >&2
	problems=$((problems + 1))
}

# try SCEN MODE CALL N ERRNO ARGS...: run with the Nth CALL failing and
# check what became of the root; sets outcome (succeeded; or undone,
# journal, finished, mixed: what the failed run left), or returns 1 after
# a problem.
try() {
	scen=$1 mode=$2 call=$3 at=$4 errno=$5
	shift 5
	what="$mode $scen $call #$at $errno"
	repro=$(echo "FAULT_CALL=$call FAULT_N=$at FAULT_ERRNO=$errno" \
	    "LD_PRELOAD=\$FAULTSHIM debunpack -q --root ROOT --sync-mode $mode $*" |
	    sed "s|$T/||g")
	case $errno in
	EIO) cause="Input/output error" ;;
	ENOSPC) cause="No space left on device" ;;
	esac
	rm -rf "$T/r" "$T/log"
	cp -a "$T/src" "$T/r"
	set +e
	FAULT_CALL=$call FAULT_N=$at FAULT_ERRNO=$errno FAULT_LOG=$T/log \
	    LD_PRELOAD=$FAULTSHIM "$DEBUNPACK" -q --root "$T/r" \
	    --sync-mode "$mode" "$@" > "$T/out" 2> "$T/err"
	st=$?
	set -e
	fault=$(grep '^fault ' "$T/log" 2> /dev/null || true)
	[ -n "$fault" ] || { problem "$what: the call was not made ($repro)"; return 1; }
	# What failed: "fault CALL N ERRNO TID PATH ACCESS" (rename: OLD -> NEW).
	what="$what [$(echo "$fault" | cut -d ' ' -f 6- | sed "s|$T/r/||g")]"
	msgok=yes
	# Nothing is renamed over an old version once a sync failed; nor once
	# any call failed, by a run that fails.
	case $call,$st in
	fsync,*|fdatasync,*|syncfs,*|sync_file_range,*|*,[1-9]*)
		if grep -q '^renamed-after ' "$T/log"; then
			problem "$what: renamed after the failed call ($repro):" \
			    "$fault / $(grep '^renamed-after ' "$T/log" | head -n 3)"
			return 1
		fi ;;
	esac
	if [ $st = 0 ]; then
		# Only a failure that does not touch what is installed may pass.
		case $call in
		write|fsync|fdatasync|syncfs)
			problem "$what: exit 0 after a failed $call of ${fault#fault * * * * } ($repro)"
			return 1 ;;
		close)
			# "fault close N ERRNO TID PATH ACCESS"
			fpath=$(echo "$fault" | cut -d ' ' -f 6)
			case "$fpath $(echo "$fault" | cut -d ' ' -f 7)" in
			*.debunpack-new" "*w* | */.debunpack-new.*" "*w*)
				problem "$what: exit 0 after a failed close of $fpath ($repro)"
				return 1 ;;
			esac ;;
		esac
		# The new state, records included, and no leftover.
		state "$T/r" "$T/now"
		cmp -s "$T/want.after" "$T/now" || {
			problem "$what: exit 0 but not the new state ($repro):" \
			    "$(diff "$T/want.after" "$T/now" | head -n 6)"
			return 1
		}
		outcome=succeeded
		return 0
	fi
	[ $st = 1 ] || { problem "$what: exit $st: $(cat "$T/err") ($repro)"; return 1; }
	# A message problem does not stop the checks of the root.
	[ "$(wc -l < "$T/err")" = 1 ] && grep -q "^debunpack: .*'.*': .*: $cause\$" "$T/err" || {
		problem "$what: message ($repro): $(cat "$T/err")"
		msgok=no
	}
	[ ! -s "$T/out" ] || { problem "$what: output: $(cat "$T/out")"; msgok=no; }
	state "$T/r" "$T/now"
	per_path "$T/want.before" "$T/want.after" "$T/now" > "$T/bad"
	[ ! -s "$T/bad" ] || {
		problem "$what: neither old nor new ($repro): $(head -n 5 "$T/bad")"
		return 1
	}
	left=$(leftovers "$T/now")
	kept "$T/now" noadmin > "$T/now.noadmin"
	if [ -z "$left" ] && cmp -s "$T/want.before" "$T/now"; then
		# Undone: directory times are back.
		cmp -s "$T/want.before.strict" "$T/now.strict" || {
			problem "$what: times not restored ($repro):" \
			    "$(diff "$T/want.before.strict" "$T/now.strict" | head -n 6)"
			return 1
		}
		outcome=undone
	elif [ -n "$left" ] && cmp -s "$T/want.before.noadmin" "$T/now.noadmin"; then
		# Undone but for the journal, which the run could not finish (a
		# failed write of it) and leaves to the next run, with the
		# directories that hold it.
		case $left in
		*./var/lib/debunpack/journal*) ;;
		*) problem "$what: undone but left $left ($repro)"; return 1 ;;
		esac
		kept "$T/now.strict" noadmin > "$T/now.strict.noadmin"
		cmp -s "$T/want.before.strict.noadmin" "$T/now.strict.noadmin" || {
			problem "$what: times not restored ($repro):" \
			    "$(diff "$T/want.before.strict.noadmin" "$T/now.strict.noadmin" | head -n 6)"
			return 1
		}
		outcome=journal
	elif kept "$T/now" | cmp -s "$T/want.after" -; then
		outcome=finished
	else
		outcome=mixed
	fi
	# The next run, without the fault, completes it.
	"$DEBUNPACK" -q --root "$T/r" --sync-mode "$mode" "$@" 2> "$T/err" || {
		problem "$what: the rerun failed ($repro; left $outcome): $(cat "$T/err")"
		return 1
	}
	# Exactly a clean run's root: records (which --verify would check
	# against the files) the same to the byte, no leftover.
	state "$T/r" "$T/now"
	cmp -s "$T/want.after" "$T/now" || {
		problem "$what: the rerun did not make the new state ($repro; left $outcome):" \
		    "$(diff "$T/want.after" "$T/now" | head -n 8)"
		return 1
	}
	[ $msgok = yes ]
}

# sweep SCEN SRC MODE ARGS...: count the calls of a run, then fail each.
sweep() {
	scen=$1 src=$2 mode=$3
	shift 3
	rm -rf "$T/src" "$T/r"
	cp -a "$src" "$T/src"
	cp -a "$T/src" "$T/r"
	state "$T/r" "$T/want.before"
	kept "$T/want.before" noadmin > "$T/want.before.noadmin"
	kept "$T/want.before.strict" noadmin > "$T/want.before.strict.noadmin"
	"$DEBUNPACK" -q --root "$T/r" --sync-mode "$mode" "$@" || fail "$mode $scen: plain run"
	state "$T/r" "$T/want.after"
	# The shim changes nothing but counts.
	rm -rf "$T/r" "$T/counts"
	cp -a "$T/src" "$T/r"
	FAULT_COUNT=$T/counts LD_PRELOAD=$FAULTSHIM "$DEBUNPACK" -q --root "$T/r" \
	    --sync-mode "$mode" "$@" || fail "$mode $scen: counted run"
	state "$T/r" "$T/now"
	diff -u "$T/want.after" "$T/now" || fail "$mode $scen: counted run made another root"
	echo "# $mode $scen: $(tr '\n' ' ' < "$T/counts")"
	while read -r call count; do
		[ "$count" -gt 0 ] || continue
		for errno in EIO ENOSPC; do
			# Every call here may report a full disk (a rename that
			# needs a new directory block, a close on NFS); the code
			# paths are EIO's: every third call is enough.
			k=$step
			[ $errno = EIO ] || k=$((step * 3))
			points=0 clean=0 undone=0 journal=0 finished=0 mixed=0
			passed=0 bad=0
			n=$((1 + ${SWEEP_OFFSET:-0} % k))
			[ "$n" -le "$count" ] || n=$count
			while [ "$n" -le "$count" ]; do
				points=$((points + 1))
				if try "$scen" "$mode" "$call" "$n" "$errno" "$@"; then
					case $outcome in
					succeeded) passed=$((passed + 1)) ;;
					*) clean=$((clean + 1))
					   eval "$outcome=\$((\$$outcome + 1))" ;;
					esac
				else
					bad=$((bad + 1))
				fi
				# The last call is always tried.
				if [ "$n" -lt "$count" ] && [ $((n + k)) -gt "$count" ]; then
					n=$count
				else
					n=$((n + k))
				fi
			done
			total=$((total + points))
			[ $bad = 0 ] && ok=ok || ok="FAIL ($bad broke a rule)"
			echo "$ok $mode $scen $call $errno: $points points," \
			    "$clean failed cleanly ($undone undone, $journal undone" \
			    "but the journal, $finished new, $mixed part new)," \
			    "$passed succeeded"
		done
	done < "$T/counts"
}

for mode in syncfs batched perfile; do
	sweep install "$T/empty" "$mode" "$v1"
	sweep upgrade "$T/base" "$mode" "$v2" "$lib"
done
# dpkg's database in the same batch: its status, info files and the old
# version's info files that go.
sweep dpkg-db "$T/base-db" syncfs --dpkg-db "$v2" "$lib"
# A Replaces takeover of a file and a conffile: the former owner's record,
# list and stanza change in the same batch.
orig=$(build_deb orig "$FIXTURES/takeover/orig.desc")
take=$(build_deb take "$FIXTURES/takeover/take.desc")
mkdir "$T/base-rep"
"$DEBUNPACK" -q --root "$T/base-rep" --dpkg-db "$orig" || fail "install orig"
sweep replaces "$T/base-rep" syncfs --dpkg-db "$take"
# Removal: its paths, records and dpkg's stanza and info files go in the
# same kind of batch, undone or finished alike.
sweep remove "$T/base-db" syncfs --dpkg-db --no-scripts --remove app
sweep purge "$T/base-db" batched --dpkg-db --no-scripts --purge app
# 30 descriptors: 12 for written files (src/run/install.c, install_fd_budget).
# ulimit -n is not POSIX, but dash, bash and busybox sh have it.
if nofile=$(ulimit -S -n 2> /dev/null) && ulimit -S -n 30 2> /dev/null; then
	sweep reopen "$T/empty" batched "$many"
	ulimit -S -n "$nofile"
else
	echo "# no ulimit -n: files reopened at the commit not tried"
fi
echo "# $total fault points tried (every $step)"
[ $problems = 0 ] || fail "$problems fault points broke a rule"
