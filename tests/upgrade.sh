#!/bin/sh
# SPDX-License-Identifier: MIT
# Upgrades remove what the new version no longer ships (never what another
# package or the new version itself has, even through merged-/usr links);
# paths of other installed packages conflict unless --force-overwrite.
. "${srcdir:-.}/tests/lib.sh"

root=$T/root
mkdir -p "$root/usr/bin"
ln -s usr/bin "$root/bin"

p1=$(make_pkg p 1 "dir ./usr/ 0755" "dir ./usr/bin/ 0755" "file ./usr/bin/a 0755 text:a1" \
    "file ./usr/bin/b 0755 text:b1" "dir ./bin/ 0755" "file ./bin/tool 0755 text:tool1" \
    "dir ./d/ 0755" "file ./d/x 0644 text:x" "symlink ./d/s x" \
    "dir ./shared/ 0755" "file ./shared/p 0644 text:p" "dir ./kept/ 0755" "file ./kept/k 0644 text:k")
p2=$(make_pkg p 2 "dir ./usr/ 0755" "dir ./usr/bin/ 0755" "file ./usr/bin/a 0755 text:a2" \
    "file ./usr/bin/tool 0755 text:tool2")
q1=$(make_pkg q 1 "dir ./shared/ 0755" "file ./shared/q 0644 text:q")

"$DEBUNPACK" -q --root "$root" "$p1" "$q1" || fail "install p1 q1"
[ "$(cat "$root/usr/bin/tool")" = tool1 ] || fail "tool through bin link"
echo user > "$root/kept/user-file"

# --dry-run says what the upgrade will do and does nothing.
snapshot "$root" "$T/before"
"$DEBUNPACK" --root "$root" --dry-run "$p2" > "$T/plan" || fail "dry run: $(cat "$T/plan")"
for line in "replace /usr/bin/a" "replace /usr/bin/tool" "remove /usr/bin/b" "remove /d/x" \
    "remove /d" "remove /shared/p"; do
	grep -qx "$line" "$T/plan" || { cat "$T/plan"; fail "dry run lacks '$line'"; }
done
snapshot "$root" "$T/after"
diff -u "$T/before" "$T/after" || fail "dry run changed the root"

"$DEBUNPACK" -q --root "$root" "$p2" || fail "upgrade to p2"

[ "$(cat "$root/usr/bin/a")" = a2 ] || fail "a not upgraded"
[ ! -e "$root/usr/bin/b" ] || fail "b of the old version left"
[ ! -e "$root/d" ] || fail "directory d of the old version left"
[ ! -e "$root/shared/p" ] || fail "shared/p left"
[ -f "$root/shared/q" ] || fail "q's file removed"
[ -f "$root/kept/user-file" ] || fail "user file removed"
[ ! -e "$root/kept/k" ] || fail "kept/k left"
# The old version had bin/tool, the new one usr/bin/tool: the same file
# through the merged-/usr link. It must survive the removal of bin/tool.
[ "$(cat "$root/usr/bin/tool")" = tool2 ] || fail "usr/bin/tool lost to the old bin/tool"
[ -L "$root/bin" ] || fail "bin link replaced"
[ "$("$DEBUNPACK" --root "$root" --list | cut -f 1,2 | tr '\t\n' ' ;')" = "p 2;q 1;" ] ||
    fail "--list: $("$DEBUNPACK" --root "$root" --list)"
no_temps "$root"
echo "ok upgrade"

# Reinstalling the same version repairs a file a user changed.
echo broken > "$root/usr/bin/a"
"$DEBUNPACK" -q --root "$root" "$p2" || fail reinstall
[ "$(cat "$root/usr/bin/a")" = a2 ] || fail "reinstall did not repair"
echo "ok reinstall"

# A path of another installed package: an error naming both, or with
# --force-overwrite a change of owner with a warning.
r1=$(make_pkg -o r1 r 1 "dir ./shared/ 0755" "file ./shared/q 0644 text:from-r")
snapshot "$root" "$T/before"
# The dry run refuses as the run does: the same line, the same status.
"$DEBUNPACK" --root "$root" --dry-run "$r1" > "$T/plan" 2> "$T/dryerr" && fail "dry run: no conflict"
"$DEBUNPACK" --root "$root" "$r1" 2> "$T/err" && fail "conflict accepted"
grep -q "r1.deb: 'shared/q': also in package 'q'" "$T/err" || fail "conflict: $(cat "$T/err")"
cmp -s "$T/err" "$T/dryerr" || fail "dry run said: $(cat "$T/dryerr"), the run: $(cat "$T/err")"
snapshot "$root" "$T/after"
diff -u "$T/before" "$T/after" || fail "conflict changed the root"
"$DEBUNPACK" --root "$root" --force-overwrite "$r1" 2> "$T/err" || fail "--force-overwrite"
grep -q "taken over from package 'q'" "$T/err" || fail "no warning: $(cat "$T/err")"
[ "$("$DEBUNPACK" --root "$root" --owner /shared/q)" = "r: /shared/q" ] ||
    fail "owner after takeover: $("$DEBUNPACK" --root "$root" --owner /shared/q)"
# q lost its only file: it disappears, record and all, as dpkg drops it.
grep -q "'q' disappears" "$T/err" || fail "q does not disappear: $(cat "$T/err")"
[ ! -e "$root/var/lib/debunpack/q.record" ] || fail "q's record is still there"
# Upgrading q to a version without the file must not remove r's file.
q2=$(make_pkg q 2 "dir ./shared/ 0755")
"$DEBUNPACK" -q --root "$root" "$q2" || fail "upgrade q"
[ "$(cat "$root/shared/q")" = from-r ] || fail "r's file removed by q's upgrade"
no_temps "$root"
echo "ok conflicts"
