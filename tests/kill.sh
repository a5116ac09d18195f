#!/bin/sh
# SPDX-License-Identifier: MIT
# A run killed (SIGKILL) at any of its system calls that change the file
# system, or sync it, leaves a root that the next invocation repairs to
# exactly the state before the run or exactly the state after it, with
# records that match the root and no leftover.  A repair that is itself
# killed is finished by the next one.
#
# strace's fault injection delivers SIGKILL on entry to the Nth call of
# one system call, so each point (call, N) leaves the effects of every
# call made before it.  KILL_STEP=K tries every Kth N only (tests/run.sh
# sets it; make check-full tries every one), from the (SWEEP_OFFSET mod
# K)th on: CI's offset comes from the commit, so that successive commits
# try the points between.
. "${srcdir:-.}/tests/lib.sh"

command -v strace > /dev/null || skip "strace not installed"
strace -qq -o /dev/null true 2> /dev/null || skip "strace cannot trace here"
step=${KILL_STEP:-1}
first=$((1 + ${SWEEP_OFFSET:-0} % step))
# LeakSanitizer cannot run under ptrace; the other tests look for leaks.
ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0
export ASAN_OPTIONS
set_=openat,open,creat,mkdir,mkdirat,link,linkat,symlink,symlinkat,rename,renameat,renameat2,unlink,unlinkat,rmdir,write,pwrite64,writev,ftruncate,fsync,fdatasync,sync_file_range,syncfs,fchmod,fchmodat,fchown,fchownat,lchown,utimensat,futimesat,mknod,mknodat,flock,close

# Version 1 and 2 of "app" change, add and drop files, directories, a
# symlink, a hardlink and a conffile, turn an empty directory into a
# file and a file into a directory; "lib" comes new with version 2.
v1=$(make_pkg app 1 - <<'D'
control-file conffiles 0644 /etc/app.conf\n
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
file ./usr/share/old/data 0644 size:100
dir ./usr/share/becomes-file/ 0755
file ./usr/share/becomes-dir 0644 text:was a file\n
D
)
v2=$(make_pkg app 2 - <<'D'
control-file conffiles 0644 /etc/app.conf\n
dir ./etc/ 0755
file ./etc/app.conf 0644 text:two\n
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/app 0755 size:4000
hardlink ./usr/bin/app2 ./usr/bin/app
symlink ./usr/bin/app-link ../bin/app
dir ./usr/share/ 0755
dir ./usr/share/app/ 0755
dir ./usr/share/app/deep/ 0700
file ./usr/share/app/deep/new 0644 text:new\n
file ./usr/share/becomes-file 0644 text:was a directory\n
dir ./usr/share/becomes-dir/ 0755
file ./usr/share/becomes-dir/inside 0644 text:in\n
dir ./Aa/ 0755
file ./Aa/top 0644 text:a top-level directory named like the admin tree\n
D
)
lib=$(make_pkg lib 1 - <<'D'
dir ./usr/ 0755
dir ./usr/lib/ 0755
file ./usr/lib/lib.so 0644 size:2000
dir ./var/ 0755
dir ./var/cache/ 0755
dir ./var/cache/lib/ 0755
file ./var/cache/lib/index 0644 text:x\n
D
)

# The file systems' own names differ in their times only: compare them all.
mkdir "$T/empty" "$T/base"
"$DEBUNPACK" -q --root "$T/base" "$v1" || fail "install v1"
# A user's edit of the conffile: the upgrade keeps it (conffile rule).
echo mine > "$T/base/etc/app.conf"

# points LOG: "CALL COUNT" for each system call in a trace.
points() {
	sed -n 's/^\([a-z0-9_]*\)(.*/\1/p' "$1" | sort | uniq -c |
	    awk '{ print $2, $1 }'
}

# check NAME BEFORE-ROOT ARGS...: kill the install at every point.
check() {
	name=$1 src=$2
	shift 2
	rm -rf "$T/r"
	cp -a "$src" "$T/r"
	state "$T/r" > "$T/want.before"
	snapshot "$T/r" "$T/want.before.strict"
	cp "$T/want.before.strict" "$T/want.before.strict.adm"
	"$DEBUNPACK" -q --root "$T/r" "$@" || fail "$name: plain run"
	state "$T/r" > "$T/want.after"
	rm -rf "$T/r"
	cp -a "$src" "$T/r"
	strace -qq -o "$T/calls" -e trace=$set_ "$DEBUNPACK" -q --root "$T/r" "$@" ||
	    fail "$name: traced run"
	total=$(grep -c . "$T/calls")
	points "$T/calls" > "$T/points"
	nbefore=0 nafter=0 nempty=0 tried=0
	while read -r call count; do
	k=$first
	while [ $k -le "$count" ]; do
		tried=$((tried + 1))
		rm -rf "$T/r"
		cp -a "$src" "$T/r"
		touch -r "$src" "$T/r"
		set +e
		(strace -qq -o /dev/null -e trace=$set_ \
		    -e inject=$call:signal=KILL:when=$k \
		    "$DEBUNPACK" -q --root "$T/r" "$@") 2> "$T/err"
		st=$?
		set -e
		# glibc's malloc may open (and close) /proc/sys/vm/overcommit_memory
		# once, or not, as the threads' arenas shrink: the last openat or
		# close of the traced run may not come.  The run then finished, as
		# it must.
		if [ $st -eq 0 ]; then
			case $call in openat|close) ;; *) false ;; esac &&
			    [ "$k" -eq "$count" ] ||
			    fail "$name: $call #$k: not killed"
		fi
		"$DEBUNPACK" -q --root "$T/r" --recover 2> "$T/err" ||
		    fail "$name: $call #$k: repair: $(cat "$T/err")"
		no_temps "$T/r"
		[ ! -e "$T/r/var/lib/debunpack/journal" ] ||
		    fail "$name: $call #$k: journal left"
		# Killed between making the admin directory and its journal: the
		# empty directory stays (a root with nothing installed).
		empty_admin=no
		for d in var/lib/debunpack var/lib var; do
			if [ ! -e "$src/$d" ] && [ -d "$T/r/$d" ] &&
			    [ -z "$(ls -A "$T/r/$d")" ]; then
				empty_admin=yes
				rmdir "$T/r/$d"
			fi
		done
		[ $empty_admin = no ] || touch -r "$src" "$T/r"
		state "$T/r" > "$T/got"
		if cmp -s "$T/got" "$T/want.before"; then
			[ $empty_admin = no ] || nempty=$((nempty + 1))
			# Undone: directory times too are as they were, but for
			# the admin directory's when the journal was killed empty.
			snapshot "$T/r" "$T/got.strict"
			sed -i 's|^\(\./var/lib/debunpack d [0-9]* -\) [0-9.]* |\1 - |' \
			    "$T/got.strict" "$T/want.before.strict.adm"
			diff -u "$T/want.before.strict.adm" "$T/got.strict" >&2 ||
			    fail "$name: $call #$k: times not restored"
			nbefore=$((nbefore + 1))
		elif cmp -s "$T/got" "$T/want.after"; then
			nafter=$((nafter + 1))
		else
			diff -u "$T/want.before" "$T/got" >&2 || true
			fail "$name: $call #$k: neither the old nor the new state"
		fi
		if [ -d "$T/r/var/lib/debunpack" ]; then
			# Only the user's edit of the conffile may differ.
			"$DEBUNPACK" --root "$T/r" --verify > "$T/verify" 2>/dev/null ||
			    ! grep -v "^app: /etc/app.conf: .*(conffile)$" "$T/verify" ||
			    fail "$name: $call #$k: records do not match the root"
		fi
		k=$((k + step))
	done
	done < "$T/points"
	echo "ok $name: $tried of $total kill points: $nbefore undone" \
	    "($nempty left an empty admin directory), $nafter finished"
}

for mode in syncfs batched perfile; do
	check "first install ($mode)" "$T/empty" --sync-mode $mode "$v1"
	check "upgrade and new package ($mode)" "$T/base" --sync-mode $mode "$v2" "$lib"
done
# Version 2 that flags the user's changed conffile remove-on-upgrade: it
# is kept aside as app.conf.dpkg-old, a name the batch makes.
sed -e 's|^control-file conffiles 0644 /etc/app.conf\\n$|control-file conffiles 0644 remove-on-upgrade /etc/app.conf\\n|' \
    -e '/^file \.\/etc\/app.conf /d' "$T/app-2.desc" > "$T/v2rm.desc"
grep -q remove-on-upgrade "$T/v2rm.desc" || fail "no remove-on-upgrade in v2rm"
v2rm=$(build_deb v2rm "$T/v2rm.desc")
rm -rf "$T/rm"
cp -a "$T/base" "$T/rm"
"$DEBUNPACK" -q --root "$T/rm" "$v2rm" "$lib" 2> /dev/null || fail "install v2rm"
[ "$(cat "$T/rm/etc/app.conf.dpkg-old")" = mine ] && [ ! -e "$T/rm/etc/app.conf" ] ||
    fail "remove-on-upgrade: the changed conffile was not kept aside"
check "upgrade, a changed conffile removed on upgrade" "$T/base" "$v2rm" "$lib"
# dpkg's database in the batch, and the merged-/usr links of a new root.
mkdir "$T/base-db"
"$DEBUNPACK" -q --root "$T/base-db" --dpkg-db "$v1" || fail "install v1 with --dpkg-db"
check "first install, dpkg's database, merged /usr" "$T/empty" --dpkg-db \
    --merged-usr "$v1"
check "upgrade, dpkg's database" "$T/base-db" --dpkg-db "$v2" "$lib"
# A Replaces takeover of a file and of a conffile, the former owner's list
# and stanza changed with it: the same batch.
orig=$(build_deb orig "$FIXTURES/takeover/orig.desc")
take=$(build_deb take "$FIXTURES/takeover/take.desc")
mkdir "$T/base-rep"
"$DEBUNPACK" -q --root "$T/base-rep" --dpkg-db "$orig" || fail "install orig"
check "a Replaces takeover and a conffile transfer, dpkg's database" \
    "$T/base-rep" --dpkg-db "$take"
# Removal: the same batch, journaled and repaired; the changed conffile
# stays with remove, and goes with purge, records and all.
mkdir "$T/base-rm"
"$DEBUNPACK" -q --root "$T/base-rm" --dpkg-db "$v2" "$lib" || fail "install for removal"
echo mine > "$T/base-rm/etc/app.conf"
check "remove, dpkg's database" "$T/base-rm" --dpkg-db --remove app
check "purge of two, dpkg's database" "$T/base-rm" --dpkg-db --purge app lib
# Diversions made since the install (dpkg-divert --rename moved the
# files): the upgrade writes, removes and records through them.
if command -v dpkg-divert > /dev/null; then
	mkdir "$T/base-div"
	"$DEBUNPACK" -q --root "$T/base-div" --dpkg-db "$v1" || fail "install for diversions"
	for p in /usr/bin/app /usr/bin/old-only; do
		dpkg-divert --root="$T/base-div" --local --rename \
		    --divert "$p.local" --add "$p" > /dev/null || fail "dpkg-divert $p"
	done
	check "upgrade through diversions, dpkg's database" "$T/base-div" \
	    --dpkg-db "$v2" "$lib"
fi
# Last: what follows starts from its want.before and want.after.
check "upgrade (none)" "$T/base" --sync-mode none "$v2" "$lib"

# A repair killed at any of its own calls is finished by the next one:
# after a run killed half way through its renames (undone), and after one
# killed right past its commit point (finished).
rm -rf "$T/r"
cp -a "$T/base" "$T/r"
strace -qq -s 65536 -o "$T/calls" -e trace=$set_ "$DEBUNPACK" -q --root "$T/r" "$v2" "$lib"
rename=$(sed -n 's/^\(renameat2\{0,1\}\)(.*/\1/p' "$T/calls" | head -n 1)
nren=$(grep -c "^$rename(" "$T/calls")
cl=$(grep -n '^write(.*commit\\n", ' "$T/calls" | cut -d: -f1)
[ -n "$cl" ] || fail "no commit line in the trace"
nunl=$(head -n "$cl" "$T/calls" | grep -c '^unlinkat(' || true)
for at in "$rename:when=$((nren / 2))" "unlinkat:when=$((nunl + 1))"; do
	rm -rf "$T/crashed"
	cp -a "$T/base" "$T/crashed"
	set +e
	(strace -qq -o /dev/null -e trace=$set_ -e inject=${at%%:*}:signal=KILL:${at#*:} \
	    "$DEBUNPACK" -q --root "$T/crashed" "$v2" "$lib") 2> /dev/null
	set -e
	rm -rf "$T/r"
	cp -a "$T/crashed" "$T/r"
	"$DEBUNPACK" -q --root "$T/r" --recover || fail "repair after point $at"
	state "$T/r" > "$T/want"
	case $at in
	unlinkat:*) expect=after ;;
	*) expect=before ;;
	esac
	cmp -s "$T/want" "$T/want.$expect" || fail "point $at: not the $expect state"
	rm -rf "$T/r"
	cp -a "$T/crashed" "$T/r"
	strace -qq -o "$T/rcalls" -e trace=$set_ "$DEBUNPACK" -q --root "$T/r" --recover
	rtotal=$(grep -c . "$T/rcalls")
	points "$T/rcalls" > "$T/rpoints"
	while read -r call count; do
	k=$first
	while [ $k -le "$count" ]; do
		rm -rf "$T/r"
		cp -a "$T/crashed" "$T/r"
		set +e
		(strace -qq -o /dev/null -e trace=$set_ \
		    -e inject=$call:signal=KILL:when=$k \
		    "$DEBUNPACK" -q --root "$T/r" --recover) 2> /dev/null
		set -e
		"$DEBUNPACK" -q --root "$T/r" --recover ||
		    fail "repair of repair at $at/$call #$k"
		no_temps "$T/r"
		state "$T/r" > "$T/got"
		cmp -s "$T/got" "$T/want" || {
			diff -u "$T/want" "$T/got" >&2
			fail "repair killed at $call #$k after point $at: another state"
		}
		k=$((k + step))
	done
	done < "$T/rpoints"
	echo "ok repair killed at each of its $rtotal points (every $step) after point $at"
done

# A journal that is not one is refused with its line, and nothing changes.
rm -rf "$T/r"
cp -a "$T/base" "$T/r"
printf 'debunpack-journal 1\nitem\tR\t2\tusr\tx.debunpack-new\tx\n' \
    > "$T/r/var/lib/debunpack/journal"
refused "$T/r" "install went on past a bad journal" \
    "'journal': cannot repair: line 2: bad backup flag" "$v2"
printf 'debunpack-journal 9\n' > "$T/r/var/lib/debunpack/journal"
"$DEBUNPACK" -q --root "$T/r" --list 2> "$T/err" && fail "list past a bad journal"
grep -q "unknown journal version" "$T/err" || fail "version message: $(cat "$T/err")"
echo "ok bad journals refused"
