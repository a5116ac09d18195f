#!/bin/sh
# SPDX-License-Identifier: MIT
# debunpack-bootstrap --mode=unshare, as an ordinary user with subordinate
# id ranges (the test makes the user and the ranges): the minbase root is
# built and configured inside a user namespace; a directory carries the
# shifted owners, a tarball the real ones, the same as root's tarball but
# for the device nodes that a namespace cannot make; without a range the
# build is refused in one line; in a rootless container whose filesystem is
# an overlay, the bootstrap and debunpack give the same roots; a tarball
# where the user may not write is refused before the build; --store=default
# is the user's store, filled in the namespace and used by the next build.
# SKIP where the kernel forbids unprivileged user namespaces.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "not root: the test makes a user and its subordinate ranges"
for c in apt-get apt-ftparchive dpkg-scanpackages dpkg chroot setpriv useradd \
    newuidmap newgidmap; do
	command -v "$c" > /dev/null || skip "$c missing"
done
unshare --help 2>&1 | grep -q -- --map-auto || skip "unshare has no --map-auto"
[ -x "${BOOTSTRAP:-}" ] && [ -x "${DEBUNPACK_NOSYNC:-}" ] ||
    skip "debunpack-bootstrap not built"
export DEBUNPACK DEBUNPACK_NOSYNC
"$DEBUNPACK_NOSYNC" true 2> "$T/nosync.err" ||
    skip "no seccomp filter here: $(cat "$T/nosync.err")"

# The user, once per machine, with 65536 ids of its own.
user=dbp-unshare
if ! id "$user" > /dev/null 2>&1; then
	useradd --system --no-create-home --shell /usr/sbin/nologin "$user" ||
	    fail "useradd $user"
fi
uid=$(id -u "$user")
for f in /etc/subuid /etc/subgid; do
	grep -q "^$user:" "$f" 2> /dev/null ||
	    echo "$user:3000000:65536" >> "$f"
done
sub=$(awk -F: -v u="$user" '$1 == u { print $2; exit }' /etc/subgid)
as_user() {
	setpriv --reuid="$uid" --regid="$(id -g "$user")" --init-groups \
	    env HOME=/nonexistent "$@"
}
as_user unshare --user --map-auto --map-root-user true 2> "$T/ns.err" ||
    skip "no unprivileged user namespace here: $(cat "$T/ns.err")"

minbase_debs
# Everything the user reads or writes: below a directory it owns.
chmod 755 "$T"
w=$T/w
mkdir "$w"
minbase_mirror "$w/mirror"
chown -R "$user" "$w"
src="deb [trusted=yes] file:$w/mirror ./"

# bs NAME ARG...: debunpack-bootstrap ARG... as the user, its output in
# $T/NAME.log.
bs() {
	bs_name=$1
	shift
	bs_rc=0
	as_user TMPDIR="$w" "$BOOTSTRAP" "$@" > "$T/$bs_name.log" 2>&1 < /dev/null ||
	    bs_rc=$?
	return $bs_rc
}

bs dir --variant=minbase "" "$w/root" "$src" ||
    fail "unshare: exit $bs_rc: $(tail -n 5 "$T/dir.log")"
[ ! -e "$w/root/.debunpack-bootstrap-unfinished" ] || fail "marked unfinished"
every_ii "$w/root"
# root is the user, group shadow (42) the 42nd id of the range after 1.
[ "$(stat -c %u "$w/root/etc/shadow")" = "$uid" ] ||
    fail "etc/shadow: owner $(stat -c %u "$w/root/etc/shadow"), want $uid"
[ "$(stat -c %g "$w/root/etc/shadow")" = $((sub + 41)) ] ||
    fail "etc/shadow: group $(stat -c %g "$w/root/etc/shadow"), want $((sub + 41))"
echo "ok a directory with the shifted owners"

# The store of unpacked files: "default" is the user's
# ($XDG_CACHE_HOME/debunpack), resolved before the namespace makes the
# user root; what the namespace's root stores belongs to the user; a
# second build takes every package from it.
bs_store() {	# ROOT NAME
	as_user TMPDIR="$w" XDG_CACHE_HOME="$w/xdg" "$BOOTSTRAP" -v --variant=minbase \
	    --store=default "" "$1" "$src" > "$T/$2.log" 2>&1 < /dev/null ||
	    fail "$2: exit $?: $(tail -n 5 "$T/$2.log")"
	every_ii "$1"
}
st=$w/xdg/debunpack
bs_store "$w/s1" store1
[ "$(ls "$st/entries" 2> /dev/null | wc -l)" = "$n" ] ||
    fail "the user's default store has $(ls "$st/entries" 2> /dev/null | wc -l) entries of $n"
[ -z "$(find "$st" ! -user "$uid" | head -n 3)" ] ||
    fail "store files not the user's: $(find "$st" ! -user "$uid" | head -n 3)"
bs_store "$w/s2" store2
[ "$(tr -cd h < "$st/hits" | wc -c)" = "$n" ] ||
    fail "second build: $(tr -cd h < "$st/hits" | wc -c) packages from the store of $n"
rm -rf "$w/s1" "$w/s2"
echo "ok --store=default: the user's store, filled and then used in the namespace"

# A rootless container: the user's own user and mount namespaces, an
# overlay (empty lower layer) as the filesystem the job writes to, and in
# it, as the namespace's root, what a CI job there runs: the bootstrap in
# its root mode, and debunpack itself with its default durability.  Both
# give what they give outside; debunpack makes the overlay durable with
# its syncfs strategy and per-file checks, not per-file syncs.
o=$w/ovl
mkdir "$o" "$o/lower" "$o/upper" "$o/work" "$o/merged"
chown -R "$user" "$o"
# shellcheck disable=SC2016 # expanded by the inner shell
as_user TMPDIR="$w" unshare --user --map-auto --map-root-user --mount --pid \
    --fork --mount-proc sh -c '
	o=$1 bootstrap=$2 debunpack=$3 src=$4
	shift 4
	mount -t overlay overlay \
	    -o "lowerdir=$o/lower,upperdir=$o/upper,workdir=$o/work" "$o/merged" ||
	    exit 77
	"$bootstrap" -q --mode=root --variant=minbase "" "$o/merged/root" "$src" ||
	    exit 1
	mkdir "$o/merged/direct"
	"$debunpack" -q --root "$o/merged/direct" --dpkg-db --stats=json "$@" \
	    > "$o/stats.json"' sh "$o" "$BOOTSTRAP" "$DEBUNPACK" "$src" $debs \
    > "$T/ovl.log" 2>&1 < /dev/null || {
	rc=$?
	[ $rc != 77 ] || skip "no overlay mount in a user namespace here"
	fail "in the container: exit $rc: $(tail -n 5 "$T/ovl.log")"
}
# Owners (shifted alike), types, modes and file sizes, as outside.
listing() {
	(cd "$1" && find . -printf '%p %y %m %U %G %s\n') |
	    awk '$2 == "d" { $6 = "-" } { print }' | LC_ALL=C sort
}
listing "$w/root" > "$T/dir.list"
listing "$o/upper/root" > "$T/ovl.list"
diff -u "$T/dir.list" "$T/ovl.list" ||
    fail "the container's bootstrap differs from the user's"
every_ii "$o/upper/root"
python3 - "$o/stats.json" <<'P' || fail "in the container: --stats: $(cat "$o/stats.json")"
import json, sys
fs = json.load(open(sys.argv[1]))["filesystems"]
assert [(f["type"], f["sync"]) for f in fs] == [("overlay", "syncfs+check")], fs
P
mkdir "$T/direct"
# shellcheck disable=SC2086 # one word per file
"$DEBUNPACK" -q --root "$T/direct" --dpkg-db $debs ||
    fail "the same packages outside"
(cd "$T/direct" && find . -printf '%p %y %m %s\n') |
    awk '$2 == "d" { $4 = "-" } { print }' | LC_ALL=C sort > "$T/host.list"
(cd "$o/upper/direct" && find . -printf '%p %y %m %s\n') |
    awk '$2 == "d" { $4 = "-" } { print }' | LC_ALL=C sort > "$T/ctr.list"
diff -u "$T/host.list" "$T/ctr.list" ||
    fail "debunpack in the container installs another tree"
echo "ok a rootless container on an overlay: the same roots, the overlay's strategy"

# The tarballs of both modes, with the same SOURCE_DATE_EPOCH: the same
# entries, the real owners in both; /dev's device nodes, which the user
# namespace could not make, are in the rootless one too (after the rest).
SOURCE_DATE_EPOCH=1700000000
export SOURCE_DATE_EPOCH
bs tar -q --variant=minbase "" "$w/u.tar" "$src" ||
    fail "unshare tarball: $(tail -n 5 "$T/tar.log")"
TMPDIR=$T "$BOOTSTRAP" -q --mode=root --variant=minbase "" "$T/r.tar" "$src" \
    > "$T/roottar.log" 2>&1 || fail "root tarball: $(tail -n 5 "$T/roottar.log")"
unset SOURCE_DATE_EPOCH
tar -tvf "$w/u.tar" | LC_ALL=C sort -k 6 > "$T/u.list"
tar -tvf "$T/r.tar" | LC_ALL=C sort -k 6 > "$T/r.list"
diff -u "$T/r.list" "$T/u.list" || fail "the tarballs of the two modes differ"
grep -q '^crw-rw-rw- 0/0 *1,3 .* ./dev/null$' "$T/u.list" ||
    fail "no /dev/null in the rootless tarball"
grep -q '^-rw-r----- 0/42 .* ./etc/shadow$' "$T/u.list" ||
    fail "etc/shadow in the tarball: $(grep etc/shadow "$T/u.list")"
echo "ok a tarball with the real owners, the same as root's"

# A tarball where the user may not write: refused in one line, before
# anything is built (and not after the build, by the shell).
bs nowrite -q --variant=minbase "" "$T/nowrite.tar.zst" "$src" &&
    fail "a tarball in a directory of root's: exit 0"
[ "$bs_rc" = 1 ] && [ "$(wc -l < "$T/nowrite.log")" = 1 ] &&
    grep -q "^debunpack-bootstrap: '$T': no permission to write the tarball there$" "$T/nowrite.log" ||
    fail "a tarball in a directory of root's: exit $bs_rc: $(cat "$T/nowrite.log")"
echo "ok a tarball where the user may not write: refused first"

# No range: refused in one line, before anything is made.
for f in /etc/subuid /etc/subgid; do
	cp "$f" "$T/$(basename "$f").saved"
done
cleanup_hooks="$cleanup_hooks cp '$T/subuid.saved' /etc/subuid; cp '$T/subgid.saved' /etc/subgid;"
sed -i "/^$user:/d" /etc/subuid
bs norange --variant=minbase "" "$w/none" "$src" && fail "no range: exit 0"
[ "$bs_rc" = 1 ] && [ "$(wc -l < "$T/norange.log")" = 1 ] &&
    grep -q "^debunpack-bootstrap: .*no range for $user in /etc/subuid" "$T/norange.log" ||
    fail "no range: exit $bs_rc: $(cat "$T/norange.log")"
[ ! -e "$w/none" ] || fail "no range: the target was made"
cp "$T/subuid.saved" /etc/subuid
echo "ok refused without a range"
