#!/bin/sh
# SPDX-License-Identifier: MIT
# Without root: ownership is not applied, device nodes are an error unless
# --skip-devices (then recorded as not made, which --verify tells), and a
# root the user owns is filled all the same.
. "${srcdir:-.}/tests/lib.sh"

# As root, run this test as nobody through setpriv; otherwise as ourselves.
run() {
	if is_root; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
	else
		"$@"
	fi
}
if is_root; then
	command -v setpriv >/dev/null || skip "setpriv missing"
	chmod 755 "$T"
	chown nobody:nogroup "$T"
fi

dev=$(build_deb devices)
all=$(build_deb alltypes)
chmod 644 "$dev" "$all"
run mkdir "$T/root"
if run "$DEBUNPACK" --root "$T/root" "$dev" 2> "$T/err"; then
	fail "devices accepted without root"
fi
grep -q 'device nodes need root' "$T/err" || fail "message: $(cat "$T/err")"
[ -z "$(ls -A "$T/root")" ] || fail "root changed: $(ls -A "$T/root")"

run "$DEBUNPACK" --root "$T/root" --skip-devices "$dev" 2> "$T/err" ||
    fail "--skip-devices: $(cat "$T/err")"
grep -q 'warning: .*device node skipped' "$T/err" || fail "no warning: $(cat "$T/err")"
[ -z "$(find "$T/root" -type c -o -type b)" ] || fail "device created"
# Recorded all the same ("s"), so that --verify tells and nothing is lost.
grep -q "$(printf '^c\ts\t0666\t[0-9]*:[0-9]*\t-\t-\t/dev/null\t1,3$')" \
    "$T/root/var/lib/debunpack/devices.record" ||
    fail "skipped node not recorded: $(cat "$T/root/var/lib/debunpack/devices.record")"
run "$DEBUNPACK" --root "$T/root" --verify > "$T/verify" 2>&1 && fail "--verify: nothing said"
grep -q '^devices: /dev/loop0: device node not made (skipped at install)$' "$T/verify" ||
    fail "--verify: $(cat "$T/verify")"
run "$DEBUNPACK" -q --root "$T/root" --skip-devices "$dev" 2> "$T/err" || fail "-q"
[ ! -s "$T/err" ] || fail "-q printed: $(cat "$T/err")"

run "$DEBUNPACK" --root "$T/root" "$all" || fail "alltypes as non-root"
[ -p "$T/root/usr/share/alltypes/fifo" ] || fail "fifo not created"
[ "$(stat -c %U "$T/root/usr/bin/a")" = "$(run id -un)" ] || fail "owner applied"
no_temps "$T/root"
echo ok
