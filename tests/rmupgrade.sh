#!/bin/sh
# SPDX-License-Identifier: MIT
# Conffiles flagged remove-on-upgrade (deb-conffiles(5)): the upgrade
# removes the one left unchanged and keeps the one the user changed as
# NAME.dpkg-old; one another package has stays; a package that ships the
# path, or a flag no one knows, is refused.  Each step runs beside dpkg
# itself where dpkg can act in a root (as root), and the trees must match.
. "${srcdir:-.}/tests/lib.sh"

# app VERSION CONFFILES-LINES SHIP-OLD: package app; SHIP-OLD "yes" ships
# /etc/app/old.conf.
app() {
	ap_old=""
	[ "$3" != yes ] || ap_old="file ./etc/app/old.conf 0644 text:old\\n"
	make_pkg -m "T <t@example.org>" -d app app "$1" "control-file conffiles 0644 $2" \
	    "dir ./etc/ 0755" "dir ./etc/app/ 0755" "file ./etc/app/keep.conf 0644 text:keep $1\\n" \
	    ${ap_old:+"$ap_old"} "dir ./usr/ 0755" "file ./usr/app 0755 text:app $1\\n"
}
v1=$(app 1 '/etc/app/keep.conf\n/etc/app/old.conf\n' yes)
v2=$(app 2 '/etc/app/keep.conf\nremove-on-upgrade /etc/app/old.conf\n' no)
shipped=$(app 3 '/etc/app/keep.conf\nremove-on-upgrade /etc/app/old.conf\n' yes)
badflag=$(app 4 '/etc/app/keep.conf\nkeep-on-upgrade /etc/app/old.conf\n' no)

# dpkg in its own root, as root and where dpkg is: "" when it cannot.
withdpkg=""
if is_root && command -v dpkg > /dev/null; then
	withdpkg=1
fi
# files ROOT: the tree without the package managers' own directories.
files() {
	(cd "$1" && find . -path ./var -prune -o -printf '%p %y %m %s\n' |
	    grep -v '^\./var ' | LC_ALL=C sort)
	for f in $(cd "$1" && find etc -type f | LC_ALL=C sort); do
		echo "$f: $(cat "$1/$f")"
	done
}
same_as_dpkg() {	# OURS THEIRS STEP
	[ -n "$withdpkg" ] || return 0
	files "$1" > "$T/ours"
	files "$2" > "$T/theirs"
	diff -u "$T/theirs" "$T/ours" || fail "$3: not what dpkg leaves"
}

# Unchanged: removed with the old version's other paths.
mkdir "$T/a"
empty_dpkg_db "$T/a"
"$DEBUNPACK" -q --root "$T/a" "$v1" || fail "install 1"
"$DEBUNPACK" --root "$T/a" "$v2" 2> "$T/err" || fail "upgrade: $(cat "$T/err")"
[ ! -e "$T/a/etc/app/old.conf" ] || fail "unchanged: not removed"
[ ! -e "$T/a/etc/app/old.conf.dpkg-old" ] || fail "unchanged: kept aside"
[ ! -s "$T/err" ] || fail "unchanged: said $(cat "$T/err")"
if [ -n "$withdpkg" ]; then
	mkdir "$T/da"
	empty_dpkg_db "$T/da"
	dpkg_root "$T/da" -i "$v1"
	dpkg_root "$T/da" -i "$v2"
	same_as_dpkg "$T/a" "$T/da" "unchanged"
fi
no_temps "$T/a"
echo "ok unchanged: removed"

# Changed by the user: kept as old.conf.dpkg-old, with a warning; the dry
# run says so first.
mkdir "$T/b"
empty_dpkg_db "$T/b"
"$DEBUNPACK" -q --root "$T/b" "$v1" || fail "install 1"
echo mine > "$T/b/etc/app/old.conf"
"$DEBUNPACK" --root "$T/b" --dry-run "$v2" > "$T/plan" 2>&1 || fail "dry run: $(cat "$T/plan")"
grep -q '^create /etc/app/old.conf.dpkg-old$' "$T/plan" &&
    grep -q '^remove /etc/app/old.conf$' "$T/plan" || fail "dry run: $(cat "$T/plan")"
"$DEBUNPACK" --root "$T/b" "$v2" 2> "$T/err" || fail "upgrade: $(cat "$T/err")"
[ ! -e "$T/b/etc/app/old.conf" ] || fail "changed: still there"
[ "$(cat "$T/b/etc/app/old.conf.dpkg-old")" = mine ] || fail "changed: not kept aside"
grep -q "warning: .*'etc/app/old.conf': .*kept as 'old.conf.dpkg-old'" "$T/err" ||
    fail "changed: no warning: $(cat "$T/err")"
if [ -n "$withdpkg" ]; then
	mkdir "$T/db"
	empty_dpkg_db "$T/db"
	dpkg_root "$T/db" -i "$v1"
	echo mine > "$T/db/etc/app/old.conf"
	dpkg_root "$T/db" -i "$v2"
	same_as_dpkg "$T/b" "$T/db" "changed"
fi
"$DEBUNPACK" -q --root "$T/b" --verify || fail "verify after the upgrade"
no_temps "$T/b"
echo "ok changed: kept as .dpkg-old"

# A fresh install over a file no package has: kept aside too, as dpkg does.
mkdir -p "$T/c/etc/app"
empty_dpkg_db "$T/c"
echo local > "$T/c/etc/app/old.conf"
"$DEBUNPACK" -q --root "$T/c" "$v2" 2> /dev/null || fail "install 2 over a local file"
[ "$(cat "$T/c/etc/app/old.conf.dpkg-old")" = local ] && [ ! -e "$T/c/etc/app/old.conf" ] ||
    fail "fresh install: the local file was not kept aside"
if [ -n "$withdpkg" ]; then
	mkdir -p "$T/dc/etc/app"
	empty_dpkg_db "$T/dc"
	echo local > "$T/dc/etc/app/old.conf"
	dpkg_root "$T/dc" -i "$v2"
	same_as_dpkg "$T/c" "$T/dc" "fresh install"
fi
echo "ok fresh install: a local file kept aside"

# Another package has the path: it stays, untouched.
other=$(make_pkg other 1 "dir ./etc/ 0755" "dir ./etc/app/ 0755" \
    "file ./etc/app/old.conf 0644 text:other\\n")
mkdir "$T/d"
"$DEBUNPACK" -q --root "$T/d" "$other" || fail "install other"
"$DEBUNPACK" -q --root "$T/d" "$v2" || fail "install 2 beside other"
[ "$(cat "$T/d/etc/app/old.conf")" = other ] && [ ! -e "$T/d/etc/app/old.conf.dpkg-old" ] ||
    fail "another package's file was moved"
echo "ok another package's file stays"

# dpkg's status lists it, flagged.
mkdir "$T/e"
"$DEBUNPACK" -q --root "$T/e" --dpkg-db "$v2" || fail "--dpkg-db install 2"
grep -q '^ /etc/app/old.conf newconffile remove-on-upgrade$' "$T/e/var/lib/dpkg/status" ||
    fail "status: $(grep -A3 '^Conffiles' "$T/e/var/lib/dpkg/status")"
if [ -n "$withdpkg" ]; then
	mkdir "$T/de"
	empty_dpkg_db "$T/de"
	dpkg_root "$T/de" -i "$v2"
	sed -n '/^Conffiles:/,/^[A-Z]/p' "$T/de/var/lib/dpkg/status" | grep '^ ' | sed 's/ [0-9a-f]\{32\}$/ HASH/' > "$T/theirs"
	sed -n '/^Conffiles:/,/^[A-Z]/p' "$T/e/var/lib/dpkg/status" | grep '^ ' | sed 's/ [0-9a-f]\{32\}$/ HASH/' > "$T/ours"
	diff -u "$T/theirs" "$T/ours" || fail "Conffiles: not dpkg's"
fi
echo "ok dpkg's status"

# The upgrade that flags it: dpkg's status keeps the hash dpkg had for the
# old version's conffile, changed by the user or not; the next upgrade,
# the file no longer the package's, has none.
v5=$(app 5 '/etc/app/keep.conf\nremove-on-upgrade /etc/app/old.conf\n' no)
old_md5=$(printf 'old\n' | md5sum | cut -d ' ' -f 1)
conffiles_of() {	# ROOT: the Conffiles lines of dpkg's status
	sed -n '/^Conffiles:/,/^[A-Z]/p' "$1/var/lib/dpkg/status" | grep '^ '
}
for how in unchanged changed; do
	mkdir "$T/f-$how"
	"$DEBUNPACK" -q --root "$T/f-$how" --dpkg-db "$v1" || fail "--dpkg-db install 1"
	[ $how = unchanged ] || echo mine > "$T/f-$how/etc/app/old.conf"
	"$DEBUNPACK" -q --root "$T/f-$how" --dpkg-db "$v2" 2> /dev/null ||
	    fail "$how: --dpkg-db upgrade to 2"
	conffiles_of "$T/f-$how" > "$T/ours.2"
	grep -qx " /etc/app/old.conf $old_md5 remove-on-upgrade" "$T/ours.2" ||
	    fail "$how: upgrade to 2: $(cat "$T/ours.2")"
	"$DEBUNPACK" -q --root "$T/f-$how" --dpkg-db "$v5" || fail "$how: --dpkg-db upgrade to 5"
	conffiles_of "$T/f-$how" > "$T/ours.5"
	grep -qx " /etc/app/old.conf newconffile remove-on-upgrade" "$T/ours.5" ||
	    fail "$how: upgrade to 5: $(cat "$T/ours.5")"
	if [ -n "$withdpkg" ]; then
		mkdir "$T/df-$how"
		empty_dpkg_db "$T/df-$how"
		dpkg_root "$T/df-$how" -i "$v1"
		[ $how = unchanged ] || echo mine > "$T/df-$how/etc/app/old.conf"
		dpkg_root "$T/df-$how" -i "$v2"
		conffiles_of "$T/df-$how" > "$T/theirs.2"
		diff -u "$T/theirs.2" "$T/ours.2" || fail "$how: upgrade to 2: Conffiles not dpkg's"
		dpkg_root "$T/df-$how" -i "$v5"
		conffiles_of "$T/df-$how" > "$T/theirs.5"
		diff -u "$T/theirs.5" "$T/ours.5" || fail "$how: upgrade to 5: Conffiles not dpkg's"
	fi
done
echo "ok dpkg's status after the upgrades, as dpkg keeps it"

# Refused, the root as it was: the package ships the path; an unknown flag.
refused "$T/a" "shipped and flagged" "'etc/app/old.conf': is in the package, but its conffiles say remove-on-upgrade" "$shipped"
refused "$T/a" "unknown flag" "'conffiles': unknown flag 'keep-on-upgrade'" "$badflag"
echo "ok refused: a flagged path shipped, an unknown flag"
