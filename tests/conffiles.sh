#!/bin/sh
# SPDX-License-Identifier: MIT
# Conffiles: replaced when unchanged, kept when the user changed them (the
# new version goes next to them as NAME.debunpack-dist), marked in records.
. "${srcdir:-.}/tests/lib.sh"

# ver N CONTENT: package app version N whose conffile holds CONTENT.
ver() {
	cat > "$T/app$1.desc" <<D
control-field Package app
control-field Version $1
control-field Architecture all
control-file conffiles 0644 /etc/app.conf\\n
dir ./etc/ 0755
file ./etc/app.conf 0644 text:$2\\n
dir ./usr/ 0755
file ./usr/app 0755 text:program$1\\n
D
	build_deb "app$1" "$T/app$1.desc" > /dev/null
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

# A conffile that exists without a record is the user's too.
mkdir -p "$T/r2/etc"
echo local > "$T/r2/etc/app.conf"
"$DEBUNPACK" -q --root "$T/r2" "$T/app1.deb" || fail "install over a local file"
[ "$(cat "$T/r2/etc/app.conf")" = local ] || fail "local conffile replaced"
[ "$(cat "$T/r2/etc/app.conf.debunpack-dist")" = one ] || fail "no dist beside the local file"
echo ok
