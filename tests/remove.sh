#!/bin/sh
# SPDX-License-Identifier: MIT
# --remove and --purge beside dpkg's own: each step runs in a root of
# ours (debunpack --dpkg-db, configured by dpkg) and in one of dpkg's, and
# the trees, the status files and the info directories must match: remove
# keeps the conffiles (changed or not) and the directories that hold
# them, as "config-files"; purge takes them, the NAME.dpkg-old beside
# them, the stanza and the info files; a directory another package has
# stays.  Then what is refused, with the root left as it was: a package
# dpkg installed, an essential one, one another depends on, one with
# maintainer scripts; and what is only told: a package not installed.
. "${srcdir:-.}/tests/lib.sh"

# app: a conffile in a directory of its own, a shared directory, a
# symlink; dep depends on app; tool has no conffile.
app=$(make_pkg -m "T <t@example.org>" -d app app 1.0-1 - <<'D'
dir ./ 0755
control-file conffiles 0644 /etc/app/app.conf\n/etc/app/other.conf\n
dir ./etc/ 0755
dir ./etc/app/ 0755
file ./etc/app/app.conf 0644 text:a=1\n
file ./etc/app/other.conf 0644 text:b=1\n
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/app 0755 text:app\n
symlink ./usr/bin/app-alias app
dir ./usr/share/ 0755
dir ./usr/share/doc/ 0755
dir ./usr/share/doc/app/ 0755
file ./usr/share/doc/app/README 0644 text:read me\n
D
)
tool=$(make_pkg -m "T <t@example.org>" -d tool tool 2 - <<'D'
dir ./ 0755
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/tool 0755 text:tool\n
dir ./usr/share/ 0755
dir ./usr/share/doc/ 0755
dir ./usr/share/doc/tool/ 0755
file ./usr/share/doc/tool/README 0644 text:tool\n
D
)
dep=$(make_pkg -m "T <t@example.org>" dep 1 - <<'D'
control-field Depends tool (>= 1) | other-tool, app
control-field Description dep
dir ./ 0755
dir ./usr/ 0755
dir ./usr/share/ 0755
file ./usr/share/dep 0644 text:dep\n
D
)
sed -e 's/^control-field Package tool/control-field Package ess/' \
    -e 's|tool|ess|g' "$T/tool-2.desc" > "$T/ess.desc"
echo 'control-field Essential yes' >> "$T/ess.desc"
sed -e 's/^control-field Package tool/control-field Package scripted/' \
    -e 's|tool|scripted|g' "$T/tool-2.desc" > "$T/scripted.desc"
printf 'control-file postrm 0755 #!/bin/sh\\nexit 0\\n\n' >> "$T/scripted.desc"
# other provides other-tool: dep's alternative to tool.
sed -e 's/^control-field Package tool/control-field Package other/' \
    -e 's|tool|other|g' "$T/tool-2.desc" > "$T/other.desc"
echo 'control-field Provides other-tool' >> "$T/other.desc"
ess=$(build_deb ess "$T/ess.desc")
scripted=$(build_deb scripted "$T/scripted.desc")
other=$(build_deb other "$T/other.desc")

withdpkg=""
if is_root && command -v dpkg > /dev/null; then
	withdpkg=1
fi
# view ROOT: the tree (but debunpack's records, and dpkg's backups of
# its own files, which tell dpkg's last run), dpkg's status and its info
# directory, file by file.
view() {
	(cd "$1" && find . -path ./var/lib/debunpack -prune -o \
	    -printf '%p %y %m %s %l\n' | grep -v '^\./var/lib/debunpack ' |
	    grep -v '^\./var/lib/dpkg/[a-z]*-old ' | LC_ALL=C sort)
	echo "== status"
	cat "$1/var/lib/dpkg/status"
	echo "== info"
	for f in $(cd "$1/var/lib/dpkg/info" && ls | LC_ALL=C sort); do
		echo "-- $f"
		cat "$1/var/lib/dpkg/info/$f"
	done
}
# pair NAME DEB...: our root and dpkg's with the packages, configured, and
# the user's edit of app.conf in both.
pair() {
	mkdir "$T/$1" "$T/$1.dpkg"
	empty_dpkg_db "$T/$1.dpkg"
	shift_name=$1
	shift
	"$DEBUNPACK" -q --root "$T/$shift_name" --dpkg-db "$@" ||
	    fail "$shift_name: install"
	if [ -n "$withdpkg" ]; then
		dpkg_root "$T/$shift_name" --configure -a
		dpkg_root "$T/$shift_name.dpkg" -i "$@"
	fi
	for r in "$T/$shift_name" "$T/$shift_name.dpkg"; do
		[ ! -f "$r/etc/app/app.conf" ] || echo a=2 > "$r/etc/app/app.conf"
	done
}
same_as_dpkg() {	# NAME STEP
	[ -n "$withdpkg" ] || return 0
	view "$T/$1" > "$T/ours"
	view "$T/$1.dpkg" > "$T/theirs"
	diff -u "$T/theirs" "$T/ours" || fail "$2: not what dpkg leaves"
}

# Remove: the conffiles stay, changed or not, with their directories.
pair a "$app" "$tool"
"$DEBUNPACK" --root "$T/a" --dpkg-db --remove app 2> "$T/err" ||
    fail "remove: $(cat "$T/err")"
[ ! -s "$T/err" ] || fail "remove said: $(cat "$T/err")"
[ "$(cat "$T/a/etc/app/app.conf")" = a=2 ] || fail "remove: the changed conffile is gone"
[ -f "$T/a/etc/app/other.conf" ] || fail "remove: the unchanged conffile is gone"
[ ! -e "$T/a/usr/bin/app" ] && [ ! -L "$T/a/usr/bin/app-alias" ] &&
    [ ! -e "$T/a/usr/share/doc/app" ] || fail "remove: the package's files stay"
[ -d "$T/a/usr/share/doc" ] || fail "remove: a directory tool has is gone"
[ -n "$withdpkg" ] && dpkg_root "$T/a.dpkg" --remove app
same_as_dpkg a "remove"
no_temps "$T/a"
printf 'app\t1.0-1\tall\tconfig-files\ntool\t2\tall\n' > "$T/want"
"$DEBUNPACK" --root "$T/a" --list | diff -u "$T/want" - || fail "--list after remove"
printf '/etc\n/etc/app\n/etc/app/app.conf\n/etc/app/other.conf\n' > "$T/want"
"$DEBUNPACK" --root "$T/a" --files app | diff -u "$T/want" - || fail "--files after remove"
"$DEBUNPACK" --root "$T/a" --verify app > "$T/verify" && fail "--verify: the edit is not seen"
grep -q '/etc/app/app.conf' "$T/verify" || fail "--verify after remove: $(cat "$T/verify")"
echo "ok remove keeps the conffiles, as dpkg --remove"

# Remove again: told, nothing done; purge: the rest goes, with the
# .dpkg-old dpkg would take.
state "$T/a" > "$T/before"
"$DEBUNPACK" --root "$T/a" --dpkg-db --remove app 2> "$T/err" || fail "remove twice: exit $?"
grep -q "warning: ignoring 'app': only its configuration files are left" "$T/err" ||
    fail "remove twice said: $(cat "$T/err")"
state "$T/a" | diff -u "$T/before" - || fail "remove twice changed the root"
for r in "$T/a" "$T/a.dpkg"; do
	echo old > "$r/etc/app/app.conf.dpkg-old"
done
"$DEBUNPACK" --root "$T/a" --dpkg-db --purge app 2> "$T/err" || fail "purge: $(cat "$T/err")"
[ ! -e "$T/a/etc/app" ] || fail "purge: /etc/app stays: $(ls -A "$T/a/etc/app")"
[ -n "$withdpkg" ] && dpkg_root "$T/a.dpkg" --purge app
same_as_dpkg a "purge after remove"
[ ! -e "$T/a/var/lib/debunpack/app.record" ] || fail "purge: the record stays"
echo "ok purge after remove, as dpkg --purge"

# Purge from installed; a package without conffiles removed goes whole.
pair b "$app" "$tool"
"$DEBUNPACK" --root "$T/b" --dpkg-db --purge app 2> "$T/err" || fail "purge: $(cat "$T/err")"
"$DEBUNPACK" --root "$T/b" --dpkg-db --remove tool 2> "$T/err" || fail "remove tool: $(cat "$T/err")"
if [ -n "$withdpkg" ]; then
	dpkg_root "$T/b.dpkg" --purge app
	dpkg_root "$T/b.dpkg" --remove tool
fi
same_as_dpkg b "purge, and remove without conffiles"
[ -z "$(ls -A "$T/b/var/lib/debunpack")" ] || fail "records left: $(ls "$T/b/var/lib/debunpack")"
[ ! -e "$T/b/usr" ] || fail "/usr stays: $(find "$T/b/usr")"
echo "ok purge of an installed package, remove of one without conffiles"

# Without --dpkg-db: only debunpack's records; the dry run says what would
# go and changes nothing.
mkdir "$T/c"
"$DEBUNPACK" -q --root "$T/c" "$app" "$tool" || fail "c: install"
state "$T/c" > "$T/before"
"$DEBUNPACK" --root "$T/c" --dry-run --purge app > "$T/plan" 2>&1 || fail "dry run: $(cat "$T/plan")"
state "$T/c" | diff -u "$T/before" - || fail "the dry run changed the root"
for p in /usr/bin/app /usr/bin/app-alias /etc/app/app.conf /usr/share/doc/app; do
	grep -q "^remove $p\$" "$T/plan" || fail "dry run: no 'remove $p': $(cat "$T/plan")"
done
grep -q "^remove /usr/share/doc\$" "$T/plan" && fail "dry run: removes tool's directory"
"$DEBUNPACK" --root "$T/c" --purge app 2> "$T/err" || fail "purge without dpkg's database"
[ ! -e "$T/c/etc/app" ] && [ -f "$T/c/usr/bin/tool" ] || fail "purge without dpkg's database: wrong tree"
echo "ok without dpkg's database; the dry run"

# Refused, the root as it was, one line naming the cause and the way out.
mkdir "$T/d"
"$DEBUNPACK" -q --root "$T/d" --dpkg-db "$app" "$tool" "$dep" "$ess" "$scripted" ||
    fail "d: install"
refused() {	# WHY MESSAGE ARGS...
	why=$1 msg=$2
	shift 2
	state "$T/d" > "$T/before"
	"$DEBUNPACK" --root "$T/d" --dpkg-db "$@" 2> "$T/err" && fail "$why: accepted"
	grep -q "$msg" "$T/err" || fail "$why: said $(cat "$T/err")"
	[ "$(wc -l < "$T/err")" = 1 ] || fail "$why: more than one line: $(cat "$T/err")"
	state "$T/d" | diff -u "$T/before" - || fail "$why: the root changed"
}
refused "depended on" "cannot remove 'app': 'dep' depends on it (--force-depends" --remove app
refused "no alternative left" "cannot remove 'tool': 'dep' depends on it" --remove tool
"$DEBUNPACK" -q --root "$T/d" --dpkg-db "$other" || fail "d: install other"
refused "no alternative left, by Provides" "cannot remove 'tool': 'dep' depends on it" \
    --remove tool other
refused "essential" "cannot remove 'ess': it is essential (--force-remove-essential" --purge ess
refused "a postrm" "cannot remove 'scripted': it has a postrm script.*dpkg --remove scripted" \
    --remove scripted
"$DEBUNPACK" --root "$T/d" --dpkg-db --remove tool 2> "$T/err" ||
    fail "an alternative of a dependency: $(cat "$T/err")"
"$DEBUNPACK" --root "$T/d" --dpkg-db --force-depends --remove app 2> "$T/err" ||
    fail "--force-depends: $(cat "$T/err")"
"$DEBUNPACK" --root "$T/d" --dpkg-db --force-remove-essential --purge ess 2> "$T/err" ||
    fail "--force-remove-essential: $(cat "$T/err")"
"$DEBUNPACK" --root "$T/d" --dpkg-db --no-scripts --purge scripted 2> "$T/err" ||
    fail "--no-scripts: $(cat "$T/err")"
[ ! -e "$T/d/var/lib/dpkg/info/scripted.postrm" ] || fail "purge left the postrm"
"$DEBUNPACK" --root "$T/d" --remove nosuch 2> "$T/err" || fail "not installed: exit $?"
grep -q "warning: ignoring 'nosuch': not installed" "$T/err" || fail "not installed: $(cat "$T/err")"
"$DEBUNPACK" --remove app 2> "$T/err" && fail "no --root: accepted"
grep -q "^debunpack: --root is required to remove" "$T/err" || fail "no --root: $(cat "$T/err")"
"$DEBUNPACK" --root "$T/d" --list --remove app 2> "$T/err" && fail "--list --remove: accepted"
echo "ok refusals, forces and warnings"

# A package dpkg installed itself is removed as debunpack's own are, as
# dpkg removes it (tests/dpkgone.sh compares the two side by side).
if [ -n "$withdpkg" ]; then
	mkdir "$T/e" "$T/e2"
	empty_dpkg_db "$T/e"
	empty_dpkg_db "$T/e2"
	dpkg_root "$T/e" -i "$tool"
	dpkg_root "$T/e2" -i "$tool"
	"$DEBUNPACK" --root "$T/e" --dpkg-db --remove tool 2> "$T/err" ||
	    fail "dpkg's package: $(cat "$T/err")"
	dpkg_root "$T/e2" --remove tool
	[ "$(tree_list "$T/e" no | grep -v '^\./var/')" = "$(tree_list "$T/e2" no | grep -v '^\./var/')" ] ||
	    fail "dpkg's package: not removed as dpkg removes it"
	[ "$(dpkg-query --admindir="$T/e/var/lib/dpkg" -W -f '${db:Status-Abbrev}' tool)" = \
	    "$(dpkg-query --admindir="$T/e2/var/lib/dpkg" -W -f '${db:Status-Abbrev}' tool)" ] ||
	    fail "dpkg's package: its status"
	echo "ok a package dpkg installed is removed as dpkg removes it"
fi

# The status fd tells a front end as dpkg does.
mkdir "$T/f"
"$DEBUNPACK" -q --root "$T/f" --dpkg-db "$app" || fail "f: install"
"$DEBUNPACK" -q --root "$T/f" --dpkg-db --status-fd 3 --remove app 3> "$T/status" ||
    fail "status fd"
grep -q '^processing: remove: app$' "$T/status" && grep -q '^status: app: config-files$' "$T/status" ||
    fail "status fd: $(cat "$T/status")"
"$DEBUNPACK" -q --root "$T/f" --dpkg-db --status-fd 3 --purge app 3> "$T/status" ||
    fail "status fd, purge"
grep -q '^processing: purge: app$' "$T/status" && grep -q '^status: app: not-installed$' "$T/status" ||
    fail "status fd, purge: $(cat "$T/status")"
echo "ok the status fd"
