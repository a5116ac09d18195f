#!/bin/sh
# SPDX-License-Identifier: MIT
# Conffiles: replaced when unchanged, kept when the user changed them (the
# new version goes next to them as NAME.debunpack-dist), marked in records.
. "${srcdir:-.}/tests/lib.sh"

# ver N CONTENT: package app version N whose conffile holds CONTENT.
ver() {
	make_pkg -o "app$1" app "$1" "control-file conffiles 0644 /etc/app.conf\\n" \
	    "dir ./etc/ 0755" "file ./etc/app.conf 0644 text:$2\\n" \
	    "dir ./usr/ 0755" "file ./usr/app 0755 text:program$1\\n" > /dev/null
}
ver 1 one
ver 2 two
ver 3 three
root=$T/root
mkdir "$root"
"$DEBUNPACK" -q --root "$root" "$T/app1.deb" || fail "install 1"
grep -q "^f${tab:=$(printf '\t')}c${tab}0644${tab}.*${tab}/etc/app.conf$" "$root/var/lib/debunpack/app.record" ||
    fail "conffile not flagged in the record"

# Unchanged: replaced, quietly.
"$DEBUNPACK" --root "$root" "$T/app2.deb" 2> "$T/err" || fail "upgrade to 2"
[ "$(cat "$root/etc/app.conf")" = two ] || fail "unchanged conffile not replaced"
[ ! -e "$root/etc/app.conf.debunpack-dist" ] || fail "dist file for an unchanged conffile"
[ ! -s "$T/err" ] || fail "warning for an unchanged conffile: $(cat "$T/err")"

# Unchanged, and the same in the new version (2 again, as an upgrade that
# keeps it): left as it is, its inode and time too, as dpkg's configure
# keeps it; the other files upgraded, the record still lists it.
sed -e 's/Version 2/Version 2a/' -e 's/program2/program2a/' "$T/app2.desc" > "$T/app2a.desc"
build_deb app2a "$T/app2a.desc" > /dev/null
touch -d @1000000000 "$root/etc/app.conf"
before=$(stat -c '%i %Y' "$root/etc/app.conf")
"$DEBUNPACK" --root "$root" "$T/app2a.deb" 2> "$T/err" || fail "upgrade to 2a"
[ "$(stat -c '%i %Y' "$root/etc/app.conf")" = "$before" ] ||
    fail "an unchanged conffile the same in the new version was written"
[ "$(cat "$root/usr/app")" = program2a ] || fail "2a: other files not upgraded"
[ ! -s "$T/err" ] || fail "2a: said $(cat "$T/err")"
grep -q "${tab}/etc/app.conf$" "$root/var/lib/debunpack/app.record" ||
    fail "2a: the conffile left the record"
no_temps "$root"
"$DEBUNPACK" --root "$root" --verify > "$T/out" 2>&1 || fail "2a: verify: $(cat "$T/out")"
"$DEBUNPACK" --root "$root" --dry-run "$T/app2.deb" > "$T/out" 2>&1 || fail "2a: dry run"
grep -q "^keep /etc/app.conf: unchanged conffile" "$T/out" || fail "2a: plan: $(cat "$T/out")"

# Changed by the user: kept, the new version beside it, with a warning.
echo mine > "$root/etc/app.conf"
"$DEBUNPACK" --root "$root" "$T/app3.deb" 2> "$T/err" || fail "upgrade to 3"
[ "$(cat "$root/etc/app.conf")" = mine ] || fail "user's conffile replaced"
[ "$(cat "$root/etc/app.conf.debunpack-dist")" = three ] || fail "no new version beside it"
[ "$(cat "$root/usr/app")" = program3 ] || fail "other files not upgraded"
grep -q "warning: .*'etc/app.conf': changed since it was installed" "$T/err" ||
    fail "no warning: $(cat "$T/err")"
no_temps "$root"
# The record keeps what the package shipped: verify names the change.
"$DEBUNPACK" --root "$root" --verify > "$T/out" 2>&1 && fail "verify found nothing"
grep -q "app: /etc/app.conf: changed .* (conffile)" "$T/out" || fail "verify: $(cat "$T/out")"

# The package's own version unchanged (a reinstall of 3, or 4 that ships
# the same conffile): the user's kept, nothing written beside it, nothing
# said, as dpkg.
sed -e 's/Version 3/Version 4/' -e 's/program3/program4/' "$T/app3.desc" > "$T/app4.desc"
build_deb app4 "$T/app4.desc" > /dev/null
rm "$root/etc/app.conf.debunpack-dist"
for d in app3 app4; do
	"$DEBUNPACK" --root "$root" "$T/$d.deb" 2> "$T/err" || fail "$d over the user's"
	[ "$(cat "$root/etc/app.conf")" = mine ] || fail "$d: user's conffile replaced"
	[ ! -e "$root/etc/app.conf.debunpack-dist" ] ||
	    fail "$d: a new version beside an unchanged packaged one"
	[ ! -s "$T/err" ] || fail "$d: said $(cat "$T/err")"
	no_temps "$root"
done
[ "$(cat "$root/usr/app")" = program4 ] || fail "4: other files not upgraded"

# Deleted by the user: stays deleted on reinstall and upgrade, as dpkg
# (without its --force-confmiss); the record keeps the packaged one.
rm "$root/etc/app.conf"
"$DEBUNPACK" --root "$root" "$T/app4.deb" 2> "$T/err" || fail "4 over a deleted conffile"
[ ! -e "$root/etc/app.conf" ] || fail "4: the deleted conffile came back"
[ ! -e "$root/etc/app.conf.debunpack-dist" ] || fail "4: a dist for an unchanged conffile"
[ ! -s "$T/err" ] || fail "4 over a deleted conffile said: $(cat "$T/err")"
# A new packaged version goes beside it, as dpkg's prompt's default does.
"$DEBUNPACK" --root "$root" "$T/app2.deb" 2> "$T/err" || fail "2 over a deleted conffile"
[ ! -e "$root/etc/app.conf" ] || fail "2: the deleted conffile came back"
[ "$(cat "$root/etc/app.conf.debunpack-dist")" = two ] || fail "2: no new version beside it"
grep -q "warning: .*'etc/app.conf': deleted since it was installed: not brought back" "$T/err" ||
    fail "2 over a deleted conffile: $(cat "$T/err")"
no_temps "$root"
"$DEBUNPACK" --root "$root" --verify > "$T/out" 2>&1 && fail "verify: the deletion not seen"
grep -q "app: /etc/app.conf: missing (conffile)" "$T/out" || fail "verify: $(cat "$T/out")"
# Beside dpkg itself, where it can act in a root.
if is_root && command -v dpkg > /dev/null; then
	empty_dpkg_db "$T/cmp-ours"
	empty_dpkg_db "$T/cmp-dpkg"
	"$DEBUNPACK" -q --root "$T/cmp-ours" --dpkg-db "$T/app3.deb" || fail "cmp: install"
	dpkg_root "$T/cmp-ours" --configure -a
	# dpkg -i with its prompt's default: keep what is there, deleted or not.
	dpkg_root "$T/cmp-dpkg" --force-confdef --force-confold -i "$T/app3.deb"
	for r in "$T/cmp-ours" "$T/cmp-dpkg"; do echo mine > "$r/etc/app.conf"; done
	"$DEBUNPACK" -q --root "$T/cmp-ours" --dpkg-db "$T/app4.deb" || fail "cmp: 4"
	dpkg_root "$T/cmp-dpkg" --force-confdef --force-confold -i "$T/app4.deb"
	for r in "$T/cmp-ours" "$T/cmp-dpkg"; do rm "$r/etc/app.conf"; done
	"$DEBUNPACK" -q --root "$T/cmp-ours" --dpkg-db "$T/app2.deb" || fail "cmp: 2"
	dpkg_root "$T/cmp-dpkg" --force-confdef --force-confold -i "$T/app2.deb"
	# NAME.debunpack-dist is debunpack's name for dpkg's NAME.dpkg-dist.
	for who in ours dpkg; do
		(cd "$T/cmp-$who" && find etc usr | sed 's/\.debunpack-dist$/.dpkg-dist/' |
		    LC_ALL=C sort) > "$T/tree.$who"
	done
	diff -u "$T/tree.dpkg" "$T/tree.ours" || fail "not the tree dpkg leaves"
fi

# --dpkg-dist: dpkg's name for the new version beside the user's.
echo changed > "$root/etc/app.conf.new-user" && mv "$root/etc/app.conf.new-user" "$root/etc/app.conf"
rm -f "$root/etc/app.conf.debunpack-dist"
"$DEBUNPACK" -q --root "$root" --dpkg-dist "$T/app3.deb" 2> /dev/null || fail "--dpkg-dist"
[ "$(cat "$root/etc/app.conf.dpkg-dist")" = three ] && [ ! -e "$root/etc/app.conf.debunpack-dist" ] ||
    fail "--dpkg-dist: not NAME.dpkg-dist: $(ls "$root/etc")"
[ "$(cat "$root/etc/app.conf")" = changed ] || fail "--dpkg-dist: the user's replaced"

# A conffile that exists without a record is the user's too.
mkdir -p "$T/r2/etc"
echo local > "$T/r2/etc/app.conf"
"$DEBUNPACK" -q --root "$T/r2" "$T/app1.deb" || fail "install over a local file"
[ "$(cat "$T/r2/etc/app.conf")" = local ] || fail "local conffile replaced"
[ "$(cat "$T/r2/etc/app.conf.debunpack-dist")" = one ] || fail "no dist beside the local file"
echo ok
