#!/bin/sh
# SPDX-License-Identifier: MIT
# Broken and hostile packages fail with one line naming the package and the
# cause, and change nothing: not in the root, not next to it.
. "${srcdir:-.}/tests/lib.sh"

# A root that already holds an installed package, and a sentinel beside it.
cat > "$T/base.desc" <<'D'
dir ./etc/ 0755
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./etc/conf 0644 text:installed\n
file ./usr/bin/tool 0755 size:5000
symlink ./usr/bin/alias tool
D
base=$(build_deb base "$T/base.desc")
root=$T/root
mkdir "$root" "$T/sentinel"
echo keep > "$T/sentinel/file"
"$DEBUNPACK" -q --root "$root" "$base" || fail "base install"
snapshot "$root" "$T/before"
snapshot "$T/sentinel" "$T/sentinel.before"

check_unchanged() {
	snapshot "$root" "$T/after"
	diff -u "$T/before" "$T/after" || fail "$1: root changed"
	snapshot "$T/sentinel" "$T/sentinel.after"
	diff -u "$T/sentinel.before" "$T/sentinel.after" || fail "$1: sentinel changed"
	[ ! -e "$T/escape" ] || fail "$1: wrote outside the root"
	no_temps "$root"
}

# expect_fail NAME PATTERN: NAME.desc from bad/ fails mentioning PATTERN.
expect_fail() {
	deb=$(build_deb "$1" "$FIXTURES/bad/$1.desc")
	# Together with a good package: the good one must not land either.
	for mode in syncfs batched perfile none; do
		if "$DEBUNPACK" --root "$root" --sync-mode "$mode" "$base" "$deb" \
		    > "$T/out" 2> "$T/err"; then
			fail "$1 ($mode): accepted"
		else
			rc=$?
		fi
		[ "$rc" = 1 ] || fail "$1 ($mode): exit $rc, want 1"
		[ "$(wc -l < "$T/err")" = 1 ] || { cat "$T/err"; fail "$1: not one line"; }
		grep -q "^debunpack: .*$1.deb: " "$T/err" || { cat "$T/err"; fail "$1: package not named"; }
		grep -q -- "$2" "$T/err" || { cat "$T/err"; fail "$1: cause '$2' not said"; }
		check_unchanged "$1 ($mode)"
	done
	# The threads that decompress change nothing of what is said.
	for jobs in 1 2 3; do
		"$DEBUNPACK" --root "$root" --jobs $jobs "$base" "$deb" 2> "$T/err.j" &&
		    fail "$1 (--jobs $jobs): accepted"
		diff -u "$T/err" "$T/err.j" || fail "$1: --jobs $jobs says otherwise"
		check_unchanged "$1 (--jobs $jobs)"
	done
	echo "ok $1: $(cat "$T/err")"
}

expect_fail dbver3 "unsupported format version"
expect_fail order "expected member 'control.tar\*'"
expect_fail nodata "missing data member"
expect_fail nocontrol-member "expected member 'control.tar"
expect_fail nodebbin "first member is not 'debian-binary'"
expect_fail junk-member "unexpected member 'junk'"
expect_fail truncated "runcated"
expect_fail badxz "data.tar.xz"
expect_fail nopkgfield "missing field 'Package'"
expect_fail dotdot "'\.\.' component"
expect_fail newline "newline"
expect_fail tarsize "runcated"

# Absolute names are made relative, as dpkg-deb does: contained, not refused.
deb=$(build_deb abs "$FIXTURES/bad/abs.desc")
"$DEBUNPACK" -q --root "$T/absroot" "$deb" 2>/dev/null && fail "missing root accepted"
mkdir "$T/absroot"
"$DEBUNPACK" -q --root "$T/absroot" "$deb" || fail "abs"
[ -n "$(find "$T/absroot" -type f)" ] || fail "abs: nothing unpacked"
echo "ok abs (contained)"

# Not a package at all, and a missing file.
printf 'hello' > "$T/plain.deb"
"$DEBUNPACK" -q --root "$root" "$T/plain.deb" 2> "$T/err" && fail "plain file accepted"
grep -q "plain.deb" "$T/err" || fail "plain: $(cat "$T/err")"
"$DEBUNPACK" -q --root "$root" "$T/missing.deb" 2> "$T/err" && fail "missing file accepted"
grep -q "missing.deb: cannot open: No such file" "$T/err" || fail "missing: $(cat "$T/err")"
check_unchanged "not a package"
echo ok
