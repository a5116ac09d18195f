#!/bin/sh
# SPDX-License-Identifier: MIT
# dpkg's database outside the root (dpkg --instdir=I --admindir=D, as
# dpkg's own suite and image builders call it): the dpkg for apt unpacks
# through debunpack --dpkg-admindir=D instead of handing the call on.
# Install, upgrade and removal in one twin through the shim, in the
# other through the real dpkg: the same tree, the same database, the
# same maintainer script calls with the same DPKG_ADMINDIR.  Then
# debunpack's queries read D, a chrooted script cannot reach a database
# outside the root (dpkg refuses it too), a repair refuses another
# database than the interrupted run's, and with the root and D on two
# filesystems the one barrier flushes both devices.
. "$(dirname "$0")/lib.sh"

is_root || skip "not root: dpkg acts in the test's roots"
command -v dpkg > /dev/null && command -v dpkg-query > /dev/null ||
    skip "no dpkg"
: "${DPKGSHIM:=$PWD/src/cli/dpkg}"
[ -x "$DPKGSHIM" ] || fail "no shim at $DPKGSHIM"

unset DPKG_FORCE DPKG_ROOT DPKG_ADMINDIR DPKG_FRONTEND_LOCKED \
    DEBUNPACK_SYNC_MODE DEBUNPACK_DPKG_DEBUG
mkdir -p "$T/etc/dpkg.cfg.d" "$T/home"
DEBUNPACK_DPKG_CFGDIR=$T/etc HOME=$T/home
# The shim's debunpack logs its calls, then runs ours.
cat > "$T/debunpack-log" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >> "$T/calls.log"
exec "$DEBUNPACK" "\$@"
EOF
chmod +x "$T/debunpack-log"
DEBUNPACK_DPKG=$(command -v dpkg)
export DEBUNPACK_DPKG_CFGDIR HOME DEBUNPACK_DPKG
: > "$T/calls.log"

# A script that says how it was called, and whether it sees the database.
script() {
	printf '=control-file %s 0755 #!/bin/sh\\necho "$DPKG_MAINTSCRIPT_NAME $* $DPKG_ADMINDIR $DPKG_ROOT $(cat "$DPKG_ADMINDIR/info/a.list" "$DPKG_ADMINDIR/info/b.list" 2> /dev/null | wc -l)" >> "$DPKG_ADMINDIR/../scripts.log"\\n' "$1"
}
twin_pkg a1 a 1.0 "" "/etc/a.conf" "$(script preinst)" "$(script postinst)" \
    "$(script prerm)" "$(script postrm)" etc/ usr/ usr/share/ usr/share/a/ \
    etc/a.conf:one usr/share/a/f:one usr/share/a/old:old
twin_pkg a2 a 2.0 "" "/etc/a.conf" "$(script preinst)" "$(script postinst)" \
    "$(script prerm)" "$(script postrm)" etc/ usr/ usr/share/ usr/share/a/ \
    etc/a.conf:two usr/share/a/f:two usr/share/a/new:new
twin_pkg b1 b 1.0 "" "" "$(script preinst)" usr/ usr/share/ usr/share/b/ \
    usr/share/b/f:b

# side NAME: an instdir and a database beside it, empty.
side() {
	rm -rf "${T:?}/$1"
	mkdir -p "$T/$1/inst" "$T/$1/db/info" "$T/$1/db/updates"
	: > "$T/$1/db/status"
}
side ours
side dpkg

# run SIDE ARG...: dpkg on SIDE as dpkg's suite runs it: the real one,
# or the shim first in PATH for "ours".
run() {
	r_side=$1
	shift
	set -- --instdir="$T/$r_side/inst" --admindir="$T/$r_side/db" \
	    --force-script-chrootless --force-not-root --log=/dev/null \
	    --no-debsig "$@"
	if [ "$r_side" = ours ]; then
		DEBUNPACK=$T/debunpack-log PATH=$PATH:/usr/sbin:/sbin \
		    "$DPKGSHIM" "$@" < /dev/null
	else
		PATH=$PATH:/usr/sbin:/sbin dpkg "$@" < /dev/null
	fi
}

# view SIDE: its tree, its database as dpkg-query reads it, its file
# lists and what its scripts said, with the side's paths made alike.
view() {
	v_db=$T/$1/db
	# debunpack's own records (ROOT/var/lib/debunpack) are not dpkg's.
	tree_view "$T/$1/inst"
	echo "== packages"
	dpkg-query --admindir="$v_db" -W \
	    -f '${Package} ${Version} ${db:Status-Abbrev}\n${Conffiles}\n' 2>&1 |
	    LC_ALL=C sort
	echo "== owners"
	(cd "$T/$1/inst" && find . -path ./var -prune -o ! -type d -print) |
	    grep -v '^\./var$' | sed 's|^\.||' |
	    LC_ALL=C sort | while read -r path; do
		dpkg-query --admindir="$v_db" -S "$path" 2>&1 |
		    sed 's/^dpkg-query: //'
	done
	echo "== lists"
	for l in "$v_db"/info/*; do
		[ -f "$l" ] || continue
		case $l in *.list | *.md5sums | *.conffiles) ;; *) continue ;; esac
		echo "${l##*/}:"
		LC_ALL=C sort "$l"
	done
	echo "== scripts"
	cat "$T/$1/scripts.log" 2> /dev/null
}

# compare NAME: both sides alike.
compare() {
	view ours | sed "s|$T/ours|SIDE|g" > "$T/ours.view"
	view dpkg | sed "s|$T/dpkg|SIDE|g" > "$T/dpkg.view"
	diff -u "$T/dpkg.view" "$T/ours.view" || fail "$1: not what dpkg leaves"
}

# step NAME ARG...: the same call on both sides, alike in exit status.
step() {
	s_name=$1
	shift
	run dpkg "$@" > "$T/dpkg.out" 2>&1 && s_theirs=0 || s_theirs=$?
	run ours "$@" > "$T/ours.out" 2>&1 && s_ours=0 || s_ours=$?
	[ "$s_theirs" = "$s_ours" ] ||
	    fail "$s_name: exit $s_ours, dpkg's $s_theirs ($(cat "$T/ours.out"))"
	compare "$s_name"
}

step install -i "$T/a1.deb"
grep -q -- "--dpkg-admindir=$T/ours/db" "$T/calls.log" ||
    fail "install: debunpack did not unpack with --dpkg-admindir ($(cat "$T/calls.log"))"
[ ! -e "$T/ours/inst/var/lib/dpkg" ] ||
    fail "install: a database made in the root"
: > "$T/calls.log"
# One package a call: of several, debunpack runs the postrms after the
# group's batch (unpackseq.c), which the scripts' log would tell.
step upgrade -i "$T/a2.deb"
step second -i "$T/b1.deb"
[ "$(grep -c -- "--dpkg-admindir=$T/ours/db" "$T/calls.log")" = 2 ] ||
    fail "upgrade: not one debunpack call each ($(cat "$T/calls.log"))"
step remove -r a
step purge -P a b

# Queries read the database given, not the root's.
side q
"$DEBUNPACK" --root "$T/q/inst" --dpkg-admindir="$T/q/db" \
    --dpkg-db --maintscripts --force-script-chrootless --no-progress \
    "$T/a2.deb" "$T/b1.deb" > "$T/q.out" 2>&1 ||
    fail "debunpack --dpkg-admindir: $(cat "$T/q.out")"
"$DEBUNPACK" --root "$T/q/inst" --dpkg-admindir="$T/q/db" --files b |
    LC_ALL=C sort > "$T/ours.files" || fail "--files"
dpkg-query --admindir="$T/q/db" -L b | LC_ALL=C sort > "$T/dpkg.files"
cmp -s "$T/ours.files" "$T/dpkg.files" ||
    fail "--files: $(cat "$T/ours.files")"
"$DEBUNPACK" --root "$T/q/inst" --dpkg-admindir="$T/q/db" --owner \
    /usr/share/b/f > "$T/owner" || fail "--owner"
grep -q '^b' "$T/owner" || fail "--owner: $(cat "$T/owner")"
"$DEBUNPACK" --root "$T/q/inst" --dpkg-admindir="$T/q/nothere" --list \
    > /dev/null 2> "$T/err" && fail "--list with no database: exit 0"
grep -q "nothere" "$T/err" || fail "no database: $(cat "$T/err")"

# Chrooted, a script cannot reach a database outside the root: refused,
# as dpkg refuses it, naming the cause.
side c
cp -a "$T/c" "$T/c.before"
"$DEBUNPACK" --root "$T/c/inst" --dpkg-admindir="$T/c/db" --maintscripts \
    --no-progress "$T/b1.deb" > "$T/c.out" 2>&1 &&
    fail "chrooted scripts, database outside: exit 0"
grep -q "outside" "$T/c.out" || fail "chrooted: $(cat "$T/c.out")"

# A repair refuses another database than the interrupted run's.
side j
mkdir -p "$T/j/inst/var/lib/debunpack"
printf 'debunpack-journal 1\ndir\tA\t1.0\t1.0\t.\ndpkgdir\t%s\ndir\tR\t1.0\t1.0\tvar/lib/dpkg\n' \
    "$T/j/db" > "$T/j/inst/var/lib/debunpack/journal"
"$DEBUNPACK" --root "$T/j/inst" --recover > "$T/j.out" 2>&1 &&
    fail "repair without the run's database: exit 0"
grep -q -- "--dpkg-admindir=$T/j/db" "$T/j.out" || fail "repair: $(cat "$T/j.out")"
[ -f "$T/j/inst/var/lib/debunpack/journal" ] || fail "repair refused, journal gone"
"$DEBUNPACK" --root "$T/j/inst" --dpkg-admindir="$T/j/db" --recover \
    > "$T/j.out" 2>&1 || fail "repair with the run's database: $(cat "$T/j.out")"
[ ! -f "$T/j/inst/var/lib/debunpack/journal" ] || fail "repaired, journal kept"

# Killed at each of its renames (files and dpkg's database alike), an
# upgrade is repaired with the same --dpkg-admindir to exactly the state
# before it or exactly the state after it, in the root and in the database.
# dbstate DIR: the database's snapshot, its files' times (the run's own
# clock) left out.
dbstate() {
	tree_list "$1" no | awk '$2 == "f" { $5 = "-" } { print }'
	(cd "$1" && find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2)
}
if command -v strace > /dev/null && strace -qq -o /dev/null true 2> /dev/null; then
	# LeakSanitizer cannot run under ptrace; the other runs look for leaks.
	kasan=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0
	side k
	"$DEBUNPACK" -q --root "$T/k/inst" --dpkg-admindir="$T/k/db" --dpkg-db \
	    "$T/a1.deb" || fail "kill: a1"
	rm -rf "$T/k0"
	cp -a "$T/k" "$T/k0"
	{ state "$T/k/inst"; dbstate "$T/k/db"; } > "$T/k.before"
	ASAN_OPTIONS=$kasan strace -qq -o "$T/calls" -e trace=rename,renameat,renameat2 "$DEBUNPACK" \
	    -q --root "$T/k/inst" --dpkg-admindir="$T/k/db" --dpkg-db \
	    "$T/a2.deb" || fail "kill: traced run"
	{ state "$T/k/inst"; dbstate "$T/k/db"; } > "$T/k.after"
	grep -q 'k/db/' "$T/calls" || grep -q 'status' "$T/calls" ||
	    fail "kill: no rename in the database ($(cat "$T/calls"))"
	call=$(sed -n 's/^\(renameat2\{0,1\}\)(.*/\1/p' "$T/calls" | head -n 1)
	n=$(grep -c "^$call(" "$T/calls")
	# Past the commit point too: the first removal after it.
	rm -rf "$T/k"
	cp -a "$T/k0" "$T/k"
	ASAN_OPTIONS=$kasan strace -qq -s 4096 -o "$T/calls" -e trace=write,unlinkat "$DEBUNPACK" \
	    -q --root "$T/k/inst" --dpkg-admindir="$T/k/db" --dpkg-db \
	    "$T/a2.deb" || fail "kill: traced run"
	cl=$(grep -n '^write(.*commit\\n", ' "$T/calls" | cut -d: -f1)
	[ -n "$cl" ] || fail "kill: no commit line in the trace"
	nunl=$(head -n "$cl" "$T/calls" | grep -c '^unlinkat(' || true)
	points=""
	k=1
	while [ "$k" -le "$n" ]; do
		points="$points $call:$k"
		k=$((k + 1))
	done
	nbefore=0 nafter=0
	for p in $points unlinkat:$((nunl + 1)); do
		c=${p%%:*} k=${p#*:}
		rm -rf "$T/k"
		cp -a "$T/k0" "$T/k"
		(ASAN_OPTIONS=$kasan strace -qq -o /dev/null -e trace="$c" \
		    -e inject="$c":signal=KILL:when=$k "$DEBUNPACK" -q \
		    --root "$T/k/inst" --dpkg-admindir="$T/k/db" --dpkg-db \
		    "$T/a2.deb"; exit $?) 2> /dev/null &&
		    fail "kill: $c #$k: not killed"
		call=$c
		"$DEBUNPACK" -q --root "$T/k/inst" --dpkg-admindir="$T/k/db" \
		    --recover 2> "$T/err" || fail "kill: $call #$k: repair: $(cat "$T/err")"
		no_temps "$T/k"
		{ state "$T/k/inst"; dbstate "$T/k/db"; } > "$T/k.got"
		if cmp -s "$T/k.got" "$T/k.before"; then
			nbefore=$((nbefore + 1))
		elif cmp -s "$T/k.got" "$T/k.after"; then
			nafter=$((nafter + 1))
		else
			diff -u "$T/k.after" "$T/k.got" >&2 || true
			fail "kill: $call #$k: neither before nor after"
		fi
	done
	[ "$nbefore" -gt 0 ] && [ "$nafter" -gt 0 ] ||
	    fail "kill: $nbefore undone, $nafter finished: not both"
	echo "killed at $n renames and past the commit: $nbefore undone, $nafter finished"
else
	echo "no strace: the killed runs not tried"
fi

# Two filesystems: the barrier makes both durable (each device flushed).
command -v mkfs.ext4 > /dev/null && command -v losetup > /dev/null ||
    { echo "no mkfs.ext4 or losetup: two filesystems not tried"; exit 0; }
unmount_all() {
	for m in "$T/fs/inst" "$T/fs/db"; do
		umount "$m" 2> /dev/null
	done
}
cleanup_hooks="unmount_all; $cleanup_hooks"
for part in inst db; do
	truncate -s 64M "$T/$part.img"
	mkfs.ext4 -q -F -b 4096 "$T/$part.img" || fail "mkfs.ext4 $part"
	loop_attach "$T/$part.img" || skip "no loop device"
	eval "dev_$part=${loop#/dev/}"
	mkdir -p "$T/fs/$part"
	mount "$loop" "$T/fs/$part" || fail "cannot mount $loop"
done
mkdir -p "$T/fs/db/info" "$T/fs/db/updates"
: > "$T/fs/db/status"
sync
flushes() {
	awk '{ print $16 }' "/sys/block/$1/stat"
}
[ -n "$(flushes "$dev_inst")" ] ||
    { echo "no flush counts in /sys/block/$dev_inst/stat"; exit 0; }
set -- a1 syncfs a2 batched b1 perfile
while [ $# -gt 0 ]; do
	sync
	fi0=$(flushes "$dev_inst") fd0=$(flushes "$dev_db")
	"$DEBUNPACK" --root "$T/fs/inst" --dpkg-admindir="$T/fs/db" --dpkg-db \
	    --sync-mode "$2" --no-progress --stats=json "$T/$1.deb" \
	    > "$T/fs.out" 2> "$T/fs.err" ||
	    fail "two filesystems, $2: $(cat "$T/fs.err")"
	# --stats names both filesystems synced.
	if [ "$2" = syncfs ] && command -v python3 > /dev/null; then
		python3 -c 'import json, sys
fs = json.load(open(sys.argv[1]))["filesystems"]
sys.exit(0 if len(fs) == 2 else 1)' "$T/fs.out" ||
		    fail "two filesystems, $2: not both synced: $(cat "$T/fs.out")"
	fi
	[ "$(flushes "$dev_inst")" -gt "$fi0" ] ||
	    fail "two filesystems, $2: the root's device not flushed"
	[ "$(flushes "$dev_db")" -gt "$fd0" ] ||
	    fail "two filesystems, $2: the database's device not flushed"
	shift 2
done
grep -q '^Package: b$' "$T/fs/db/status" || fail "two filesystems: b not in the status"
[ -f "$T/fs/inst/usr/share/b/f" ] || fail "two filesystems: b's file missing"
