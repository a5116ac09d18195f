#!/bin/sh
# SPDX-License-Identifier: MIT
# decode-ahead, apt's DPkg::Pre-Install-Pkgs hook (src/ahead/ahead.h):
# packages it decoded are installed from what it gave, to the same tree,
# records, dpkg database and output as without it, and --stats counts
# them; a package it could not decode (damaged) and one changed after apt
# named it are decoded by the run, with the run's own messages, and so is
# every package when the process was killed; a call right after the hook
# gets the same root whatever the process did by then; a process bound by
# another user is not trusted; the process ends once every package is
# served or claimed, and at once when apt is gone.
. "${srcdir:-.}/tests/lib.sh"

: "${DECODE_AHEAD:=$PWD/decode-ahead}"
[ -x "$DECODE_AHEAD" ] || fail "no decode-ahead at $DECODE_AHEAD"
# The decoding process of this test alone: tests run side by side.
DEBUNPACK_AHEAD_TAG=test-$$
export DEBUNPACK_AHEAD_TAG DEBUNPACK DECODE_AHEAD T

# The helpers the runs below need inside the test's apt too.
cat > "$T/helpers.sh" <<'EOF'
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# procs: the pids of this test's decoding processes (its tag in their
# environment), zombies left out (they hold nothing).
procs() {
	for d in /proc/[0-9]*; do
		[ "$(cat "$d/comm" 2>/dev/null)" = decode-ahead ] || continue
		{ tr '\0' '\n' < "$d/environ"; } 2>/dev/null |
		    grep -qx "DEBUNPACK_AHEAD_TAG=$DEBUNPACK_AHEAD_TAG" || continue
		[ "$(awk '{ print $3 }' "$d/stat" 2>/dev/null)" != Z ] ||
		    continue
		echo "${d#/proc/}"
	done
}

# decoded N: wait (at most 30 s) until this test's process holds N
# decoded packages (its memory files).
decoded() {
	d_i=0
	while :; do
		d_n=0
		for p in $(procs); do
			d_n=$(ls -l "/proc/$p/fd" 2>/dev/null |
			    grep -c 'memfd:debunpack-ahead' || true)
		done
		[ "$d_n" -lt "$1" ] || return 0
		d_i=$((d_i + 1))
		[ $d_i -lt 300 ] || fail "the process decoded $d_n packages, not $1"
		sleep 0.1
	done
}

# gone: wait (at most 5 s) until no process of this test runs.
gone() {
	g_i=0
	while [ -n "$(procs)" ]; do
		g_i=$((g_i + 1))
		[ $g_i -lt 50 ] || fail "the decoding process still runs: $(procs)"
		sleep 0.1
	done
}
EOF
. "$T/helpers.sh"

# An apt of its own: the hook as apt runs it (sh -c, the files on its
# input), then COMMAND, as apt's dpkg calls come.  Its name is not a
# shell's, as apt's is not: the process watches it.
cat > "$T/apt" <<'EOF'
#!/bin/sh
# apt FILE... -- COMMAND...
for f; do
	[ "$f" != -- ] || break
	printf '%s\n' "$f"
done | sh -c "$DECODE_AHEAD"
while [ "$1" != -- ]; do shift; done
shift
"$@"
EOF
chmod 755 "$T/apt"

# pkg NAME VERSION SCALE [LINE...]: a package of random and repetitive
# files (SCALE times about 300 KB), links and an empty directory.
pkg() {
	p_n=$1 p_v=$2 p_s=$3
	shift 3
	make_pkg -o "$p_n-$p_v" "$p_n" "$p_v" "$@" \
	    "dir ./usr/ 0755" "dir ./usr/share/ 0755" \
	    "dir ./usr/share/$p_n/ 0755" \
	    "file ./usr/share/$p_n/random 0644 size:$((p_s * 150000))" \
	    "file ./usr/share/$p_n/text 0644 fill:$((p_s * 150000)):$p_v" \
	    "gen 40 ./usr/share/$p_n/f 0644 700" \
	    "hardlink ./usr/share/$p_n/random.link ./usr/share/$p_n/random" \
	    "symlink ./usr/share/$p_n/text.sym text" \
	    "dir ./usr/share/$p_n/empty/ 0755"
}

# install ROOT OUT FILE...: debunpack into ROOT (a dpkg database kept
# beside its records), two decoding threads; stdout and stderr in OUT.out
# and OUT.err, the exit status in OUT.rc.
cat > "$T/install" <<'EOF'
#!/bin/sh
r=$1 o=$2
shift 2
rc=0
"$DEBUNPACK" -j 2 --stats --dpkg-db --root "$r" "$@" > "$o.out" 2> "$o.err" ||
    rc=$?
echo "$rc" > "$o.rc"
EOF
chmod 755 "$T/install"

# same ROOT1 ROOT2: the same tree, records and dpkg database.
same() {
	state "$1" > "$T/state.1"
	state "$2" > "$T/state.2"
	diff -u "$T/state.1" "$T/state.2" || fail "$1 and $2 differ"
}

a1=$(pkg alpha 1 4)
b1=$(pkg beta 1 3 "compress data gz")
c1=$(pkg gamma 1 2 "compress data zst")

# 1. Decoded ahead, taken, and the process gone once all are served.
mkdir "$T/plain" "$T/ahead"
DEBUNPACK_AHEAD_TAG=none-$$ "$T/install" "$T/plain" "$T/plain" "$a1" "$b1" "$c1"
[ "$(cat "$T/plain.rc")" = 0 ] || fail "without the process: $(cat "$T/plain.err")"
! grep -q decoded_ahead "$T/plain.out" || fail "stats: $(cat "$T/plain.out")"
"$T/apt" "$a1" "$b1" "$c1" -- sh -c '. "$T/helpers.sh"; decoded 3;
    "$T/install" "$T/ahead" "$T/ahead" "$0" "$1" "$2"; gone' \
    "$a1" "$b1" "$c1" || fail "the run with the process"
[ "$(cat "$T/ahead.rc")" = 0 ] || fail "with the process: $(cat "$T/ahead.err")"
grep -qx 'ahead:      decoded_ahead 3' "$T/ahead.out" ||
    fail "stats: $(cat "$T/ahead.out")"
same "$T/plain" "$T/ahead"
diff -u "$T/plain.err" "$T/ahead.err" || fail "messages differ"

# 2. A damaged package: the process cannot decode it and keeps nothing;
# the run decodes it and fails as without the process, the root as it
# was.
a2=$(pkg alpha 2 4)
b2=$(pkg beta 2 3 "compress data gz" "corrupt-member data middle")
cp -a "$T/plain" "$T/plain2"
cp -a "$T/plain" "$T/ahead2"
state "$T/ahead2" > "$T/before2"
DEBUNPACK_AHEAD_TAG=none-$$ "$T/install" "$T/plain2" "$T/plain2" "$a2" "$b2"
[ "$(cat "$T/plain2.rc")" != 0 ] || fail "the damaged package was installed"
grep -q 'data\.tar\.gz' "$T/plain2.err" || fail "message: $(cat "$T/plain2.err")"
"$T/apt" "$a2" "$b2" -- sh -c '. "$T/helpers.sh"; decoded 1;
    "$T/install" "$T/ahead2" "$T/ahead2" "$0" "$1"' "$a2" "$b2" ||
    fail "the damaged run with the process"
[ "$(cat "$T/ahead2.rc")" = "$(cat "$T/plain2.rc")" ] ||
    fail "exit $(cat "$T/ahead2.rc"), not $(cat "$T/plain2.rc")"
diff -u "$T/plain2.err" "$T/ahead2.err" || fail "messages differ"
state "$T/ahead2" > "$T/after2"
diff -u "$T/before2" "$T/after2" || fail "the failed run changed the root"
gone

# 3. A package file written again after apt named it (same inode): what
# the process decoded is not that file any more; the run installs the
# file as it is.
cp "$(pkg gamma 2 2 "compress data zst")" "$T/gamma.deb"
c3=$(pkg gamma 3 2 "compress data zst")
cp -a "$T/plain" "$T/ahead3"
"$T/apt" "$T/gamma.deb" -- sh -c '. "$T/helpers.sh"; decoded 1;
    cat "$0" > "$T/gamma.deb";
    "$T/install" "$T/ahead3" "$T/ahead3" "$T/gamma.deb"' "$c3" ||
    fail "the changed run with the process"
[ "$(cat "$T/ahead3.rc")" = 0 ] || fail "changed: $(cat "$T/ahead3.err")"
! grep -q decoded_ahead "$T/ahead3.out" || fail "stats: $(cat "$T/ahead3.out")"
cp -a "$T/plain" "$T/plain3"
DEBUNPACK_AHEAD_TAG=none-$$ "$T/install" "$T/plain3" "$T/plain3" "$c3"
same "$T/plain3" "$T/ahead3"
gone

# 4. A call right after the hook, whatever the process has done by then
# (a big package, which a call takes over from it, among them): the
# call claims its packages, the result is the run's without the
# process, and the process ends once they are all claimed or taken.
big=$(make_pkg -o big-1 big 1 "dir ./usr/ 0755" "dir ./usr/share/ 0755" \
    "file ./usr/share/big 0644 size:6000000" "compress data xz 0")
mkdir "$T/plain4" "$T/ahead4"
DEBUNPACK_AHEAD_TAG=none-$$ "$T/install" "$T/plain4" "$T/plain4" "$big" "$a1" "$b1"
[ "$(cat "$T/plain4.rc")" = 0 ] || fail "without the process: $(cat "$T/plain4.err")"
"$T/apt" "$a1" "$big" "$b1" -- sh -c '. "$T/helpers.sh";
    "$T/install" "$T/ahead4" "$T/ahead4" "$0" "$1" "$2"; gone' \
    "$big" "$a1" "$b1" || fail "the run right after the hook"
[ "$(cat "$T/ahead4.rc")" = 0 ] || fail "right after the hook: $(cat "$T/ahead4.err")"
same "$T/plain4" "$T/ahead4"

# 5. The process killed before the calls: they decode for themselves.
mkdir "$T/killed"
"$T/apt" "$a1" "$b1" -- sh -c '. "$T/helpers.sh"; decoded 2;
    kill -9 $(procs); gone;
    "$T/install" "$T/killed" "$T/killed" "$0" "$1"' "$a1" "$b1" ||
    fail "the run after the process was killed"
[ "$(cat "$T/killed.rc")" = 0 ] || fail "after the kill: $(cat "$T/killed.err")"
! grep -q decoded_ahead "$T/killed.out" || fail "stats: $(cat "$T/killed.out")"
mkdir "$T/plain5"
DEBUNPACK_AHEAD_TAG=none-$$ "$T/install" "$T/plain5" "$T/plain5" "$a1" "$b1"
same "$T/plain5" "$T/killed"

# 6. apt gone before any call: the process ends with it.
"$T/apt" "$a1" "$b1" "$c1" -- true || fail "apt"
gone

# 7. Another user bound the process's name first (the user's, the
# root's "/" device and inode, the tag): neither the hook nor the run
# trusts it, and it is told nothing; the run decodes.
# Debian's python3: one a user installed for root may not run as nobody.
if is_root && [ -x /usr/bin/python3 ] && command -v setpriv > /dev/null; then
	# Where it says it listens, and what it got.
	chmod 711 "$T"
	mkdir -m 1777 "$T/rogue-io"
	setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
st = os.stat("/")
s.bind("\0debunpack-ahead-0-%x-%x-%s" % (st.st_dev, st.st_ino,
    os.environ["DEBUNPACK_AHEAD_TAG"]))
s.listen(8)
open(sys.argv[1], "w").close()
got = 0
s.settimeout(20)
try:
    while True:
        c, _ = s.accept()
        c.settimeout(2)
        try:
            while True:
                b = c.recv(65536)
                if not b:
                    break
                got += len(b)
        except OSError:
            pass
        c.close()
        with open(sys.argv[2], "w") as f:
            f.write(str(got))
except OSError:
    pass
' "$T/rogue-io/up" "$T/rogue-io/got" &
	rogue=$!
	cleanup_hooks="$cleanup_hooks kill $rogue 2>/dev/null;"
	i=0
	while [ ! -e "$T/rogue-io/up" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "the other user's process did not start"
		sleep 0.1
	done
	mkdir "$T/rogue"
	"$T/apt" "$a1" -- "$T/install" "$T/rogue" "$T/rogue" "$a1" \
	    2> "$T/hook.err" || fail "apt beside the other user's process"
	grep -q 'debunpack: decoding ahead: cannot reach the decoding process' \
	    "$T/hook.err" || fail "hook: $(cat "$T/hook.err")"
	[ "$(cat "$T/rogue.rc")" = 0 ] || fail "beside it: $(cat "$T/rogue.err")"
	! grep -q decoded_ahead "$T/rogue.out" || fail "stats: $(cat "$T/rogue.out")"
	[ "$(cat "$T/rogue-io/got" 2>/dev/null || echo 0)" = 0 ] ||
	    fail "the other user's process was sent $(cat "$T/rogue-io/got") bytes"
	kill "$rogue" 2>/dev/null || true
fi
exit 0
