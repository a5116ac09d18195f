#!/bin/sh
# SPDX-License-Identifier: MIT
# The queries against dpkg's own on the same root: --list as dpkg-query -l
# and -W, --owner as dpkg -S, --files as dpkg -L (diversions included),
# --verify-format=rpm as dpkg --verify, with their misses and exit codes.
. "${srcdir:-.}/tests/lib.sh"

command -v dpkg-query >/dev/null || skip "dpkg-query not installed"
arch=$(dpkg --print-architecture)
R=$T/root
mkdir "$R"

# dq ARG...: dpkg-query on R, its output in $T/dq.out and $T/dq.err, its
# exit code in $dq_rc.  db ARG...: debunpack the same way ($T/db.*).
dq() {
	dq_rc=0
	dpkg-query --root="$R" "$@" > "$T/dq.out" 2> "$T/dq.err" || dq_rc=$?
}
db() {
	db_rc=0
	"$DEBUNPACK" --root "$R" "$@" > "$T/db.out" 2> "$T/db.err" || db_rc=$?
}
# same_out WHAT: both printed the same on standard output.
same_out() {
	diff -u "$T/dq.out" "$T/db.out" || fail "$1: dpkg-query (-) and debunpack (+) differ"
}
# same_rc WHAT: both exited alike (0, or not 0).
same_rc() {
	[ "$dq_rc" = 0 ] && [ "$db_rc" = 0 ] && return 0
	[ "$dq_rc" != 0 ] && [ "$db_rc" != 0 ] ||
	    fail "$1: dpkg-query exit $dq_rc, debunpack exit $db_rc: $(cat "$T/db.err")"
}
# by_package FILE: dpkg -S's lines with each line's packages sorted (dpkg
# names them in its hash's order), the lines sorted.
by_package() {
	awk '{
		i = index($0, ": /"); n = split(substr($0, 1, i - 1), p, ", ")
		for (a = 1; a <= n; a++) for (b = a + 1; b <= n; b++)
			if (p[b] < p[a]) { t = p[a]; p[a] = p[b]; p[b] = t }
		s = p[1]; for (a = 2; a <= n; a++) s = s ", " p[a]
		print s substr($0, i)
	}' "$1" | LC_ALL=C sort
}

# A Multi-Arch: same library, a package of every file type with conffiles,
# and one that shares their directories.
libma1=$(make_pkg -a "$arch" libma1 1.0-1 - <<'D'
control-field Multi-Arch same
control-field Maintainer Test <t@example.org>
control-field Description a co-installable library
control-file conffiles 0644 /etc/ma.conf\n
dir ./ 0755
dir ./etc/ 0755
file ./etc/ma.conf 0644 text:a = 1\n
dir ./usr/ 0755
dir ./usr/lib/ 0755
file ./usr/lib/libma.so.1.0 0644 text:library\n
symlink ./usr/lib/libma.so.1 libma.so.1.0
dir ./usr/bin/ 0755
file ./usr/bin/ma-tool 0755 text:#!/bin/sh\n
D
)
tool=$(make_pkg -m "Test <t@example.org>" -d "a tool" tool 2 - <<'D'
dir ./ 0755
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/tool 0755 text:tool\n
file ./usr/bin/mat 0755 text:mat\n
D
)
"$DEBUNPACK" -q --root "$R" --dpkg-db "$libma1" "$(build_deb alltypes)" "$tool" ||
    fail "install"

# --list: names as dpkg-query shows them, NAME:ARCH for Multi-Arch: same.
dq -W -f '${binary:Package}\t${Version}\t${Architecture}\n'
db --list
same_out "--list"
db --list --json
grep -q '{"package": "libma1", "version": "1.0-1", "architecture": "'"$arch"'", "state": "installed"}' "$T/db.out" ||
    fail "--list --json: $(cat "$T/db.out")"
# With patterns, as dpkg-query -l reads them: NAME[:ARCH], each a pattern
# or not; one line on standard error for each that names nothing, exit 1.
for p in 'lib*' "libma1:$arch" '*:all' 'l*:a*' 'tool alltypes' 'nosuch' 'tool nosuch*'; do
	# shellcheck disable=SC2086 # several patterns
	dq -W -f '${binary:Package}\t${Version}\t${Architecture}\n' $p
	# shellcheck disable=SC2086
	db --list $p
	same_out "--list $p"
	same_rc "--list $p"
done
grep -qx "debunpack: no packages found matching 'nosuch\*'" "$T/db.err" ||
    fail "--list miss: $(cat "$T/db.err")"
echo "ok --list"

# --owner as dpkg -S: the same paths and packages, whatever the pattern:
# a path (as typed, trailing slash too), a part of a path, a part with a
# wildcard in it (dpkg puts "*" around what does not start with one of
# "*[?/"), a glob over whole paths.
for p in /usr/lib/libma.so.1.0 /usr/bin /usr/bin/ ma.so 'bin/ma*' '/usr/*/ma*' \
    '*conf' '[/]etc/ma.conf' 'usr/b?n/t' /usr/lib/libma.so.1 '/usr/lib/libma.so.1 /usr/bin/tool'; do
	# shellcheck disable=SC2086 # several patterns
	dq -S $p
	# shellcheck disable=SC2086
	db --owner $p
	by_package "$T/dq.out" > "$T/dq.sorted"
	by_package "$T/db.out" > "$T/db.sorted"
	diff -u "$T/dq.sorted" "$T/db.sorted" || fail "--owner $p: dpkg -S (-) and debunpack (+) differ"
	same_rc "--owner $p"
done
grep -qx "libma1:$arch: /usr/lib/libma.so.1" "$T/db.out" || fail "--owner: no :$arch: $(cat "$T/db.out")"
# A miss: exit 1, dpkg's words for the pattern as it was searched for.
for p in /etc/passwd nothing 'no*thing' ''; do
	dq -S "$p"
	db --owner "$p"
	same_rc "--owner $p"
	[ "$dq_rc" = 1 ] && [ "$db_rc" = 1 ] || fail "--owner $p: exit $db_rc, dpkg $dq_rc"
	want=$(sed -n 's/^dpkg-query: no path found matching pattern \(.*\)$/\1/p' "$T/dq.err")
	grep -q '^dpkg-query: no path found matching pattern ' "$T/dq.err" ||
	    fail "dpkg -S $p said: $(cat "$T/dq.err")"
	[ "$(cat "$T/db.err")" = "debunpack: no path found matching pattern '$want'" ] ||
	    fail "--owner $p: $(cat "$T/db.err")"
done
# Options after the patterns are options, --owner=PATTERN a pattern too.
db --owner --json /usr/bin/tool
[ "$(cat "$T/db.out")" = '[{"path": "/usr/bin/tool", "packages": ["tool"]}]' ] ||
    fail "--owner --json PATH: $(cat "$T/db.out") $(cat "$T/db.err")"
db --owner /usr/lib/libma.so.1 --json
[ "$(cat "$T/db.out")" = '[{"path": "/usr/lib/libma.so.1", "packages": ["libma1:'"$arch"'"]}]' ] ||
    fail "--owner PATH --json: $(cat "$T/db.out") $(cat "$T/db.err")"
db --owner=/usr/bin/tool /usr/bin/mat
printf 'tool: /usr/bin/tool\ntool: /usr/bin/mat\n' | diff -u - "$T/db.out" ||
    fail "--owner=PATTERN PATTERN"
db --owner --json
[ "$db_rc" = 2 ] && grep -q "owner needs at least one pattern" "$T/db.err" ||
    fail "--owner without a pattern: exit $db_rc: $(cat "$T/db.err")"
echo "ok --owner"

# --files as dpkg -L: "/." first, symlinks last, NAME:ARCH taken; a blank
# line between packages; one that is not installed told, exit 1.
for p in libma1 "libma1:$arch" alltypes tool 'tool alltypes' 'tool nosuch libma1' \
    nosuch "tool:$arch" "alltypes:all"; do
	# shellcheck disable=SC2086 # several packages
	dq -L $p
	# shellcheck disable=SC2086
	db --files $p
	same_out "--files $p"
	same_rc "--files $p"
done
# dpkg names the instance it looked for; here, what was asked for.
db --files "tool:$arch"
[ "$(cat "$T/db.err")" = "debunpack: package 'tool:$arch' is not installed" ] ||
    fail "--files tool:$arch: $(cat "$T/db.err")"
# What dpkg-divert set up after the install, told as dpkg -L tells it: by
# the administrator, by another package, by the package itself.
command -v dpkg-divert >/dev/null || skip "dpkg-divert not installed"
dpkg-divert --root="$R" --no-rename --local --divert /usr/bin/tool.real --add /usr/bin/tool > /dev/null ||
    fail "dpkg-divert --local"
dpkg-divert --root="$R" --no-rename --package libma1 --divert /usr/share/alltypes/data.ma \
    --add /usr/share/alltypes/data > /dev/null || fail "dpkg-divert --package"
dpkg-divert --root="$R" --no-rename --package alltypes --divert /usr/bin/a.real --add /usr/bin/a > /dev/null ||
    fail "dpkg-divert --package alltypes"
dq -L tool alltypes libma1
db --files tool alltypes libma1
same_out "--files with diversions"
grep -qx 'locally diverted to: /usr/bin/tool.real' "$T/db.out" &&
    grep -qx 'diverted by libma1 to: /usr/share/alltypes/data.ma' "$T/db.out" &&
    grep -qx 'package diverts others to: /usr/bin/a.real' "$T/db.out" ||
    fail "--files: diversions not told: $(cat "$T/db.out")"
# dpkg -S tells of them too, before the owners of a path (if any).
for p in /usr/bin/tool /usr/bin/tool.real '*.real' /usr/share/alltypes/data.ma 'data*'; do
	dq -S "$p"
	db --owner "$p"
	by_package "$T/dq.out" > "$T/dq.sorted"
	by_package "$T/db.out" > "$T/db.sorted"
	diff -u "$T/dq.sorted" "$T/db.sorted" || fail "--owner $p, diverted: dpkg -S (-) and debunpack (+) differ"
	same_rc "--owner $p, diverted"
done
db --owner /usr/bin/tool /usr/bin/tool.real
printf 'local diversion from: /usr/bin/tool\nlocal diversion to: /usr/bin/tool.real\ntool: /usr/bin/tool\nlocal diversion from: /usr/bin/tool\nlocal diversion to: /usr/bin/tool.real\n' |
    diff -u - "$T/db.out" || fail "--owner of a diverted path"
db --owner --json /usr/share/alltypes/data.ma
[ "$(cat "$T/db.out")" = '[{"path": "/usr/share/alltypes/data.ma", "packages": [], "diversion": {"from": "/usr/share/alltypes/data", "to": "/usr/share/alltypes/data.ma", "by": "libma1"}}]' ] ||
    fail "--owner --json of a diverted path: $(cat "$T/db.out")"
for d in /usr/bin/tool /usr/share/alltypes/data /usr/bin/a; do
	dpkg-divert --root="$R" --no-rename --remove "$d" > /dev/null || fail "dpkg-divert --remove $d"
done
echo "ok --files"

# --verify-format=rpm prints what dpkg --verify prints, for every kind of
# problem dpkg sees: another content (same size or not), a file that is
# no longer one (a symlink to a file: its content read through it), a
# missing path (a conffile too), one whose directory became a file
# ("(Not a directory)").  What dpkg does not check (modes, link targets,
# a symlink or directory replaced) it does not print either.
dpkg_verify() {	# PKG...: dpkg --verify's lines for each PKG, in $T/dq.out
	: > "$T/dq.out"
	dq_rc=0
	for dv_p; do
		dpkg_in "$R" --verify "$dv_p" >> "$T/dq.out" 2> "$T/dq.err" || dq_rc=$?
	done
}
dpkg_verify libma1 alltypes tool
[ ! -s "$T/dq.out" ] || fail "dpkg --verify: not clean after the install: $(cat "$T/dq.out")"
db --verify --verify-format=rpm libma1 alltypes tool
same_out "--verify-format=rpm, nothing changed"
[ "$db_rc" = 0 ] || fail "--verify-format=rpm of an intact root: exit $db_rc"
echo 'a = 2' > "$R/etc/ma.conf"
echo changed > "$R/usr/lib/libma.so.1.0"
printf 'tool\n' > "$R/usr/bin/mat"
rm "$R/usr/bin/ma-tool"
rm "$R/usr/share/alltypes/data"
ln -s empty "$R/usr/share/alltypes/data"
rm "$R/usr/bin/sgid"
ln -s a "$R/usr/bin/sgid"
mv "$R/usr/bin/tool" "$R/usr/bin/tool.moved"
ln -s tool.moved "$R/usr/bin/tool"
rm -r "$R/etc/alltypes"
touch "$R/etc/alltypes"
chmod 0700 "$R/usr/bin/suid"
ln -sfn elsewhere "$R/usr/share/alltypes/rel"
rm "$R/usr/share/alltypes/dangling"
rm "$R/usr/share/alltypes/dirlink"
mkdir "$R/usr/share/alltypes/dirlink"
dpkg_verify libma1 alltypes tool
db --verify --verify-format=rpm libma1 alltypes tool
same_out "--verify-format=rpm"
grep -qx 'missing   c /etc/alltypes/alltypes.conf (Not a directory)' "$T/db.out" &&
    grep -qx '??5?????? c /etc/ma.conf' "$T/db.out" &&
    grep -qx '?M5??????   /usr/bin/sgid' "$T/db.out" &&
    grep -qx '?M.??????   /usr/bin/tool' "$T/db.out" ||
    fail "--verify-format=rpm: $(cat "$T/db.out")"
[ "$db_rc" = 1 ] || fail "--verify-format=rpm: exit $db_rc with problems"
# The text says more: what dpkg does not check too.
db --verify alltypes
grep -qx 'alltypes: /usr/bin/suid: changed mode 0700 (recorded 4755)' "$T/db.out" &&
    grep -qx 'alltypes: /usr/share/alltypes/rel: changed link target' "$T/db.out" &&
    grep -qx 'alltypes: /etc/alltypes/alltypes.conf: missing (Not a directory) (conffile)' "$T/db.out" ||
    fail "--verify: $(cat "$T/db.out")"
db --verify --json alltypes
grep -q '"path": "/usr/bin/suid", "conffile": false, "rpm": null, "problems": \["changed mode 0700 (recorded 4755)"\]' "$T/db.out" ||
    fail "--verify --json, what dpkg does not check: $(cat "$T/db.out")"
db --verify --json "libma1:$arch"
grep -q '"package": "libma1:'"$arch"'", "path": "/usr/bin/ma-tool", "conffile": false, "rpm": "missing", "problems": \["missing"\]' "$T/db.out" ||
    fail "--verify --json: $(cat "$T/db.out")"
# A package not installed: told as dpkg tells it, the others verified
# all the same, exit 1.
dpkg_verify tool nosuch libma1
db --verify --verify-format=rpm tool nosuch libma1
same_out "--verify of a package not installed"
same_rc "--verify of a package not installed"
grep -qx "debunpack: package 'nosuch' is not installed" "$T/db.err" ||
    fail "--verify nosuch: $(cat "$T/db.err")"
echo "ok --verify"

# A root without records: each package or pattern named is told as not
# found, exit 1, as dpkg-query tells it of an empty database.
mkdir "$T/empty"
for q in "--files nosuch" "--verify nosuch" "--list nosuch" "--owner /nosuch"; do
	# shellcheck disable=SC2086 # the query and its operand
	if "$DEBUNPACK" --root "$T/empty" $q > "$T/out" 2> "$T/err"; then
		fail "$q on an empty root: exit 0"
	fi
	[ ! -s "$T/out" ] && grep -q "nosuch" "$T/err" || fail "$q on an empty root: $(cat "$T/err")"
done
echo "ok empty root"
