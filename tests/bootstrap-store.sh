#!/bin/sh
# SPDX-License-Identifier: MIT
# debunpack-bootstrap with the store of unpacked files (--store): the
# first minbase build fills it (debunpack runs outside debunpack-nosync,
# so the store is filled and its sync is real), the second, into a fresh
# directory on the same file system, finds every package there and
# clones it; both roots finished and verified alike; a tarball's root is
# built on the store's file system, so it clones too.  DEBUNPACK_CACHE
# does the same as --store; --no-store wins over it; a store that cannot
# be made is a note and the build decodes.
. "${srcdir:-.}/tests/lib.sh"

bootstrap_ready apt-get apt-ftparchive dpkg-scanpackages dpkg chroot
minbase_debs
mirror=$T/mirror
minbase_mirror "$mirror"
src="deb [trusted=yes] file:$mirror ./"
unset DEBUNPACK_CACHE

# bs NAME ARG...: debunpack-bootstrap -v ARG..., its output in $T/NAME.log.
bs() {
	bs_name=$1
	shift
	"$BOOTSTRAP" -v --variant=minbase "$@" > "$T/$bs_name.log" 2>&1 < /dev/null ||
	    fail "$bs_name: exit $?: $(tail -n 5 "$T/$bs_name.log")"
}
# verified ROOT: every package "ii", dpkg's and debunpack's checks clean.
verified() {
	every_ii "$1"
	LC_ALL=C chroot "$1" dpkg --verify > "$T/verify" 2>&1 ||
	    fail "$1: dpkg --verify: $(head "$T/verify")"
	[ ! -s "$T/verify" ] || fail "$1: dpkg --verify: $(head "$T/verify")"
	"$DEBUNPACK" --root "$1" --verify > "$T/verify" 2>&1 ||
	    fail "$1: debunpack --verify: $(head "$T/verify")"
}
npkg=$n
hits() { tr -cd h < "$T/store/hits" | wc -c; }
misses() { tr -cd m < "$T/store/hits" | wc -c; }

bs fill "" "$T/a" "$src" --store="$T/store"
verified "$T/a"
entries=$(ls "$T/store/entries" | wc -l)
[ "$entries" = "$npkg" ] || fail "the first build filled $entries entries of $npkg packages"
[ "$(hits)" = 0 ] && [ "$(misses)" = "$npkg" ] ||
    fail "first build: $(hits) hits, $(misses) misses"
grep -q "read but not filled" "$T/fill.log" && fail "the store was opened under debunpack-nosync"
echo "ok the first build fills the store ($entries entries)"

# The second, from DEBUNPACK_CACHE: every package from the store.
DEBUNPACK_CACHE=$T/store bs clone "" "$T/b" "$src"
verified "$T/b"
[ "$(hits)" = "$npkg" ] || fail "second build: $(hits) hits of $npkg"
n=$(grep -c "debunpack: .* \(cloned\|copied\) from the cache" "$T/clone.log") || :
[ "$n" = "$npkg" ] || fail "second build: $n packages from the store of $npkg"
# The same files, package by package, as the first build's.
for r in a b; do
	(cd "$T/$r/var/lib/dpkg/info" && cat ./*.md5sums) | LC_ALL=C sort > "$T/$r.sums"
done
cmp -s "$T/a.sums" "$T/b.sums" || fail "the two builds' md5sums differ"
echo "ok the second build ($n packages from the store) is verified alike"

# A tarball: its scratch root is made on the store's file system, TMPDIR
# (a tmpfs here) elsewhere, so that its packages come from the store as
# the directory build's did (cloned where that file system has reflinks,
# not copied across file systems); nothing of it is left in the store.
mkdir "$T/tmpdir"
mount -t tmpfs tmpfs "$T/tmpdir" || fail "cannot mount a tmpfs"
cleanup_hooks="umount -l '$T/tmpdir' 2>/dev/null; $cleanup_hooks"
TMPDIR=$T/tmpdir bs tar "" "$T/root.tar" "$src" --store="$T/store"
for l in clone tar; do
	sed -n 's/^debunpack: \(.*\) \(cloned\|copied\) from the cache.*/\1 \2/p' "$T/$l.log" |
	    LC_ALL=C sort > "$T/$l.how"
done
[ "$(wc -l < "$T/tar.how")" = "$npkg" ] || fail "tarball: $(wc -l < "$T/tar.how") packages from the store of $npkg"
cmp -s "$T/clone.how" "$T/tar.how" ||
    fail "tarball: not from the store as the directory: $(diff "$T/clone.how" "$T/tar.how" | head -n 4)"
st=$(cd "$T/store" && pwd -P)
grep -q "^debunpack-bootstrap: the tarball's root is built in '$st/tmp/\." "$T/tar.log" ||
    fail "the tarball's root not in the store: $(grep "tarball's root" "$T/tar.log")"
[ -z "$(ls -A "$T/store/tmp")" ] || fail "left in the store: $(ls -A "$T/store/tmp")"
[ -z "$(ls -A "$T/tmpdir")" ] || fail "left in TMPDIR: $(ls -A "$T/tmpdir")"
tar -tf "$T/root.tar" | grep -qx '\./usr/bin/dpkg' || fail "the tarball has no ./usr/bin/dpkg"
echo "ok a tarball's packages come from the store as a directory's ($(cut -d' ' -f2 "$T/tar.how" | sort -u | tr '\n' ' '))"
# A store on a file system mounted noexec: the root's programs could not
# run there, so the tarball's root is built in TMPDIR, and works.
mkdir "$T/nx"
mount -t tmpfs -o noexec tmpfs "$T/nx" || fail "cannot mount a noexec tmpfs"
cleanup_hooks="umount -l '$T/nx' 2>/dev/null; $cleanup_hooks"
TMPDIR=$T/tmpdir bs nx "" "$T/nx.tar" "$src" --store="$T/nx/store"
grep -q "^debunpack-bootstrap: the tarball's root is built in '$T/tmpdir/" "$T/nx.log" ||
    fail "noexec store: the root not in TMPDIR: $(grep "tarball's root" "$T/nx.log")"
tar -tf "$T/nx.tar" | grep -qx '\./usr/bin/dpkg' || fail "the noexec store's tarball has no ./usr/bin/dpkg"
echo "ok a store mounted noexec: the tarball's root is built in TMPDIR"

# --no-store wins over DEBUNPACK_CACHE: the store is not touched.
cp "$T/store/hits" "$T/hits.before"
DEBUNPACK_CACHE=$T/store bs none "" "$T/c" "$src" --no-store
cmp -s "$T/hits.before" "$T/store/hits" || fail "--no-store: the store was looked up"
# A store that cannot be made: a note, and the build decodes.
: > "$T/file"
bs bad "" "$T/d" "$src" --store="$T/file/store"
grep -q "store '$T/file/store' not used" "$T/bad.log" ||
    fail "no note of the unusable store: $(grep store "$T/bad.log")"
verified "$T/d"
echo "ok --no-store over DEBUNPACK_CACHE; an unusable store is a note"
