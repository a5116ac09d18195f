#!/bin/sh
# SPDX-License-Identifier: MIT
# Corners found in review: each once broke a promise (integrity, durability,
# cleanup, bounded descriptors, escaped output).
. "${srcdir:-.}/tests/lib.sh"

root=$T/root
mkdir "$root"
echo keep > "$root/keep"
snapshot "$root" "$T/before"

unchanged() {
	snapshot "$root" "$T/after"
	diff -u "$T/before" "$T/after" || fail "$1: root changed"
	no_temps "$root"
}

# A corrupted data.tar.gz: gzip's CRC and length must be checked.
for off in 200 1000 3000 middle -12; do
	printf 'compress data gz\ncorrupt-member data %s\ndir ./ 0755\nfile ./a 0644 size:50000\n' \
	    "$off" > "$T/gz.desc"
	deb=$(build_deb gz "$T/gz.desc")
	"$DEBUNPACK" -q --root "$root" "$deb" 2> "$T/err" && fail "corrupt gzip at $off accepted"
	unchanged "gzip $off"
done
echo "ok corrupted gzip: $(cat "$T/err")"

# A damaged tar header is an error, not an entry.
printf 'compress data none\ncorrupt-member data 700\ndir ./ 0755\nfile ./a 0644 size:5000\nfile ./b 0644 size:5000\n' > "$T/hdr.desc"
deb=$(build_deb hdr "$T/hdr.desc")
"$DEBUNPACK" -q --root "$root" "$deb" 2> "$T/err" && fail "damaged header accepted"
unchanged "damaged header"
echo "ok damaged header: $(cat "$T/err")"

# A hardlink whose target is replaced later in the run keeps the old
# inode; its data must still be synced before exit 0.
cat > "$T/hl.desc" <<'D'
dir ./ 0755
file ./a 0644 size:100000
hardlink ./b ./a
hardlink ./c ./b
file ./a 0644 text:new\n
D
deb=$(build_deb hl "$T/hl.desc")
mkdir "$T/hl"
"$DEBUNPACK" --root "$T/hl" --sync-mode batched --stats=json "$deb" > "$T/stats" ||
    fail "hardlink hand-over"
# Two inodes (the new a, the old one behind b and c), the record, and the
# journal twice.
grep -q '"fdatasync":5,' "$T/stats" || fail "hand-over: $(cat "$T/stats")"
[ "$(stat -c %s "$T/hl/b")" = 100000 ] || fail "b lost its data"
[ "$(stat -c %i "$T/hl/b")" = "$(stat -c %i "$T/hl/c")" ] || fail "b and c not linked"
[ "$(cat "$T/hl/a")" = new ] || fail "a not replaced"
echo "ok hardlink hand-over"

# A path 2,000 directories deep: created without recursion.
{
	echo 'dir ./ 0755'
	p=.
	i=0
	while [ $i -lt 2000 ]; do p=$p/a; i=$((i + 1)); done
	echo "file $p/f 0644 text:deep\\n"
} > "$T/deep.desc"
deb=$(build_deb deep "$T/deep.desc")
mkdir "$T/deep"
"$DEBUNPACK" -q --root "$T/deep" "$deb" || fail "deep path: exit $?"
[ "$(find "$T/deep" -name f | wc -l)" = 1 ] || fail "deep file missing"
echo "ok 2000 levels"

# Terminal control codes from an archive are escaped in messages.
printf 'member-order debian-binary control data extra:j\\x1b[31m\n' > "$T/esc.desc"
deb=$(build_deb esc "$T/esc.desc")
"$DEBUNPACK" --root "$root" "$deb" 2> "$T/err" && fail "junk member accepted"
if LC_ALL=C grep -q "$(printf '\033')" "$T/err"; then fail "raw escape printed"; fi
grep -q 'j\\x1b\[31m' "$T/err" || fail "escape: $(cat "$T/err")"
unchanged "escape"
echo "ok escaped: $(cat "$T/err")"

# Many directories and files under a small descriptor limit.
{
	echo 'compress data gz 1'
	echo 'dir ./ 0755'
	i=0
	while [ $i -lt 300 ]; do
		echo "dir ./d$i/ 0755"
		echo "gen 2 ./d$i/f 0644 100"
		i=$((i + 1))
	done
} > "$T/wide.desc"
deb=$(build_deb wide "$T/wide.desc")
for n in 32 64 256; do
	rm -rf "$T/wide"; mkdir "$T/wide"
	(ulimit -n $n && "$DEBUNPACK" --root "$T/wide" --stats=json "$deb") > "$T/stats" ||
	    fail "ulimit -n $n"
	[ "$(find "$T/wide" -path "$T/wide/var" -prune -o -type f -print | wc -l)" = 600 ] || fail "ulimit -n $n: files missing"
done
echo "ok 300 directories under ulimit -n 32, 64, 256"

# Without root, files without owner read permission cannot be reopened
# for the commit: they are synced as they are written instead.
if is_root && command -v setpriv >/dev/null; then
	printf 'dir ./ 0755\ngen 200 ./f 0000 10\n' > "$T/m0.desc"
	deb=$(build_deb m0 "$T/m0.desc")
	chmod 755 "$T"; chmod 644 "$deb"
	mkdir "$T/m0"; chown nobody "$T/m0"
	(ulimit -n 64 && setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    "$DEBUNPACK" --root "$T/m0" "$deb") || fail "unreadable files as nobody"
	[ "$(find "$T/m0" -type f -perm 0000 | wc -l)" = 200 ] || fail "m0: files missing"
	echo "ok unreadable files without root"
else
	echo "not root: unreadable-file case not run"
fi
