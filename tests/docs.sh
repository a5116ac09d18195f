#!/bin/sh
# SPDX-License-Identifier: MIT
# What README and the packaging say agrees with the build: README's build
# dependencies are the ones tests/setup.sh installs (debian/control's
# Build-Depends, with a compiler and make); the package recommends the
# compressors of the .tar.zst and .tar.xz targets README shows, and
# suggests every other compressor debunpack-bootstrap may run.
. "${srcdir:-.}/tests/lib.sh"

top=${srcdir:-.}
[ -f "$top/README" ] && [ -f "$top/debian/control" ] || skip "no README or debian/control here"

# README's list: the indented lines after "Build dependencies".
awk '/^Build dependencies/ { on = 1; next }
    on == 1 && /^$/ { on = 2; next }
    on == 2 && /^    / { print; next }
    on == 2 { exit }' "$top/README" | tr ' ' '\n' | grep . | LC_ALL=C sort > "$T/readme"
[ -s "$T/readme" ] || fail "no build dependencies found in README"
sh "$top/tests/setup.sh" --build-deps | tr ' ' '\n' | LC_ALL=C sort > "$T/setup"
diff -u "$T/setup" "$T/readme" || fail "README's build dependencies are not tests/setup.sh's"
echo "ok README's build dependencies"

# field NAME: debian/control's field NAME of the binary package, one
# package name a line.
field() {
	awk -v f="$1:" '$1 == f { on = 1; sub(/^[^:]*:/, ""); print; next }
	    on && /^[ \t]/ { print; next } { on = 0 }' "$top/debian/control" |
	    tr ',' '\n' | sed -e 's/([^)]*)//g' -e 's/[[:space:]]//g' | grep .
}
field Recommends > "$T/recommends"
field Suggests > "$T/suggests"
# The compressors' packages, from debunpack-bootstrap's own table.
sed -n 's/.* zip=[^ ]* zippkg=\([a-z0-9][^ ;]*\) ;;$/\1/p' "$top/src/debunpack-bootstrap.in" |
    LC_ALL=C sort -u > "$T/zippkgs"
[ "$(wc -l < "$T/zippkgs")" -ge 5 ] || fail "no compressor table in debunpack-bootstrap.in"
for p in zstd xz-utils; do
	grep -qx "$p" "$T/zippkgs" || fail "$p is not in debunpack-bootstrap's table"
	grep -qx "$p" "$T/recommends" || fail "debian/control does not recommend $p"
done
while read -r p; do
	# gzip is Essential: yes.
	[ "$p" != gzip ] || continue
	grep -qx "$p" "$T/recommends" || grep -qx "$p" "$T/suggests" ||
	    fail "debian/control neither recommends nor suggests $p"
done < "$T/zippkgs"
echo "ok the compressors in the package's relations"
