#!/bin/sh
# SPDX-License-Identifier: MIT
# debunpack-bootstrap builds the minbase root from a flat mirror the test
# makes of the minbase packages: every package configured, dpkg's
# database sound, nothing left of apt's work; a tarball twice, bit for bit
# the same with SOURCE_DATE_EPOCH; a kill in each phase leaves a root
# marked unfinished, which a second run finishes; bad input is one line,
# a non-zero exit, and nothing that looks finished.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "not root: the root mode chroots and owns the root's files"
for c in apt-get apt-ftparchive dpkg-scanpackages dpkg chroot; do
	command -v "$c" > /dev/null || skip "$c missing"
done
[ -x "${BOOTSTRAP:-}" ] && [ -x "${DEBUNPACK_NOSYNC:-}" ] ||
    skip "debunpack-bootstrap not built"
export DEBUNPACK DEBUNPACK_NOSYNC
# A killed build leaves its scratch directory: in the test's.
TMPDIR=$T
export TMPDIR
"$DEBUNPACK_NOSYNC" true 2> "$T/nosync.err" ||
    skip "no seccomp filter here: $(cat "$T/nosync.err")"
minbase_debs

mirror=$T/mirror
minbase_mirror "$mirror"
src="deb [trusted=yes] file:$mirror ./"
MARKER=.debunpack-bootstrap-unfinished

# bs NAME ARG...: debunpack-bootstrap ARG..., its output in $T/NAME.log.
bs() {
	bs_name=$1
	shift
	bs_rc=0
	"$BOOTSTRAP" "$@" > "$T/$bs_name.log" 2>&1 < /dev/null || bs_rc=$?
	return $bs_rc
}

# finished ROOT: the minbase set, every package "ii", audit and verify
# clean, no marker, no lists or downloaded packages left.
finished() {
	[ ! -e "$1/$MARKER" ] || fail "$1: still marked unfinished"
	every_ii "$1"
	LC_ALL=C chroot "$1" dpkg --audit > "$T/audit" 2>&1 || fail "dpkg --audit: $(cat "$T/audit")"
	[ ! -s "$T/audit" ] || fail "dpkg --audit: $(cat "$T/audit")"
	LC_ALL=C chroot "$1" dpkg --verify > "$T/verify" 2>&1 || fail "dpkg --verify: $(head "$T/verify")"
	[ -z "$(ls -A "$1/var/lib/apt/lists" | grep -v '^partial$')" ] || fail "package lists left"
	[ -z "$(ls -A "$1/var/cache/apt/archives" | grep -v '^partial$')" ] || fail "packages left"
	grep -qxF "$src" "$1/etc/apt/sources.list" || fail "sources.list: $(cat "$1/etc/apt/sources.list")"
	[ -L "$1/bin" ] || fail "/usr is not merged"
}

bs minbase --variant=minbase "" "$T/root" "$src" ||
    fail "minbase: exit $bs_rc: $(tail -n 5 "$T/minbase.log")"
finished "$T/root"
echo "ok minbase into a directory"

# apt works in the result, from the same mirror (bound where the root's
# sources.list looks for it).
mkdir -p "$T/root$mirror"
mount --bind "$mirror" "$T/root$mirror" || fail "cannot bind the mirror"
cleanup_hooks="umount '$T/root$mirror' 2> /dev/null; $cleanup_hooks"
chroot "$T/root" apt-get -q update > "$T/aptup.log" 2>&1 ||
    fail "apt-get update in the root: $(tail -n 3 "$T/aptup.log")"
chroot "$T/root" env DEBIAN_FRONTEND=noninteractive apt-get -q -y install \
    --reinstall hostname > "$T/aptin.log" 2>&1 ||
    fail "apt-get install in the root: $(tail -n 3 "$T/aptin.log")"
umount "$T/root$mirror"
rm -rf "$T/root${mirror%/mirror}"
echo "ok apt-get update and install in the root"

# The same root as a tarball, twice: the same bytes.
SOURCE_DATE_EPOCH=1700000000
export SOURCE_DATE_EPOCH
for i in 1 2; do
	bs tar$i -q --variant=minbase "" "$T/root$i.tar" "$src" ||
	    fail "tarball $i: $(tail -n 5 "$T/tar$i.log")"
done
unset SOURCE_DATE_EPOCH
cmp -s "$T/root1.tar" "$T/root2.tar" || fail "two tarballs differ"
tar -tf "$T/root1.tar" > "$T/list"
grep -qx './usr/bin/dpkg' "$T/list" || fail "no usr/bin/dpkg in the tarball"
! grep -q "$MARKER" "$T/list" || fail "the tarball holds the marker"
[ ! -e "$T/root1.tar.part" ] || fail "a .part left"
echo "ok reproducible tarball"

# --cache-dir keeps what it downloaded (copy: makes apt download).
bs cache --variant=essential --cache-dir="$T/cache" "" "$T/ess" \
    "deb [trusted=yes] copy:$mirror ./" || fail "--cache-dir: $(tail -n 5 "$T/cache.log")"
ls "$T/cache"/dpkg_*.deb > /dev/null 2>&1 || fail "--cache-dir kept nothing"
[ -z "$(ls -A "$T/ess/var/cache/apt/archives" | grep -v '^partial$')" ] ||
    fail "--cache-dir: packages in the root"
echo "ok --cache-dir"

# The essential variant is without apt (apt takes itself for essential),
# the apt variant with it.
chroot "$T/ess" dpkg-query -W -f '${db:Status-Abbrev}\n' apt > "$T/q" 2>&1 &&
    grep -q '^ii' "$T/q" && fail "--variant=essential installed apt"
bs apt --variant=apt "" "$T/apt" "$src" || fail "--variant=apt: $(tail -n 5 "$T/apt.log")"
chroot "$T/apt" dpkg-query -W -f '${db:Status-Abbrev}\n' apt | grep -q '^ii' ||
    fail "--variant=apt: no apt"
echo "ok the essential and apt variants"

# Killed in each phase: marked unfinished; run again, it is finished.
# The wrappers stand for debunpack and the nosync helper: they let the
# step run a while (or to its end) and then kill the whole build.
cat > "$T/kill-unpack" <<EOF
#!/bin/sh
timeout -s KILL 0.3 "$DEBUNPACK" "\$@"
kill -9 \$PPID
EOF
cat > "$T/kill-after-unpack" <<EOF
#!/bin/sh
"$DEBUNPACK" "\$@"
kill -9 \$PPID
EOF
cat > "$T/kill-configure" <<EOF
#!/bin/sh
timeout -s KILL 1 "$DEBUNPACK_NOSYNC" "\$@"
kill -9 \$PPID
EOF
chmod +x "$T/kill-unpack" "$T/kill-after-unpack" "$T/kill-configure"
for k in unpack after-unpack configure; do
	r=$T/k-$k
	case $k in
	configure) set -- env DEBUNPACK_NOSYNC="$T/kill-$k" ;;
	*) set -- env DEBUNPACK="$T/kill-$k" ;;
	esac
	"$@" "$BOOTSTRAP" -q --variant=minbase "" "$r" "$src" \
	    > "$T/kill-$k.log" 2>&1 < /dev/null && fail "killed in $k: exit 0"
	[ -e "$r/$MARKER" ] || fail "killed in $k: not marked unfinished"
	bs again-$k -q --variant=minbase "" "$r" "$src" ||
	    fail "after a kill in $k: exit $bs_rc: $(tail -n 5 "$T/again-$k.log")"
	finished "$r"
	awk -v r="$r/" 'index($2 "/", r) == 1' /proc/self/mounts | grep -q . &&
	    fail "after a kill in $k: mounts left in the root"
done
echo "ok killed in each phase, then finished"

# Bad input: one line naming the cause, a non-zero exit, nothing that
# looks finished.
# bad NAME STATUS CAUSE ARG...
bad() {
	bd_name=$1 bd_want=$2 bd_cause=$3
	shift 3
	bs "bad-$bd_name" "$@" && fail "$bd_name: exit 0"
	[ "$bs_rc" = "$bd_want" ] || fail "$bd_name: exit $bs_rc, want $bd_want: $(cat "$T/bad-$bd_name.log")"
	grep -v "^Try '" "$T/bad-$bd_name.log" > "$T/bad.lines"
	[ "$(wc -l < "$T/bad.lines")" = 1 ] || fail "$bd_name: not one line: $(cat "$T/bad-$bd_name.log")"
	grep -q "^debunpack-bootstrap: .*$bd_cause" "$T/bad.lines" ||
	    fail "$bd_name: cause /$bd_cause/ not said: $(cat "$T/bad-$bd_name.log")"
}
bad variant 2 "unknown variant 'tiny'" --variant=tiny "" "$T/b1" "$src"
[ ! -e "$T/b1" ] || fail "unknown variant: the target was made"
bad option 2 "unknown option '--nope'" --nope "" "$T/b1" "$src"
bad mirror 1 "apt-get update" --variant=minbase "" "$T/b2" \
    "deb [trusted=yes] file:$T/no-such-mirror ./"
[ -e "$T/b2/$MARKER" ] || fail "unreachable mirror: not marked unfinished"
bad missing 1 "no-such-package" --variant=minbase --include=no-such-package \
    "" "$T/b3" "$src"
[ -e "$T/b3/$MARKER" ] || fail "missing package: not marked unfinished"
mkdir "$T/full"
echo mine > "$T/full/file"
bad notempty 1 "is not empty" --variant=minbase "" "$T/full" "$src"
[ "$(cat "$T/full/file")" = mine ] && [ "$(ls -A "$T/full")" = file ] ||
    fail "a non-empty target was touched"
bad stdout 2 "standard output" --format=directory "" - "$src"
bad tarexists 1 "exists" --variant=minbase "" "$T/root1.tar" "$src"
cmp -s "$T/root1.tar" "$T/root2.tar" || fail "an existing tarball was touched"
echo "ok bad input"
