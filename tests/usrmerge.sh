#!/bin/sh
# SPDX-License-Identifier: MIT
# Merged /usr: existing bin -> usr/bin style links are kept and traversed,
# never replaced by directories, whatever the mode.
. "${srcdir:-.}/tests/lib.sh"

deb=$(build_deb usrmerge)
for mode in syncfs batched perfile none; do
	root=$T/root-$mode
	mkdir -p "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib"
	ln -s usr/bin "$root/bin"
	ln -s /usr/sbin "$root/sbin"	# absolute: means ROOT/usr/sbin
	ln -s usr/lib "$root/lib"
	"$DEBUNPACK" -q --root "$root" --sync-mode "$mode" "$deb" || fail "$mode"
	for l in bin sbin lib; do
		[ -L "$root/$l" ] || fail "$l replaced ($mode)"
	done
	[ "$(readlink "$root/sbin")" = /usr/sbin ] || fail "sbin target changed"
	# Everything the package put under bin/ is in usr/bin/.
	mkdir "$T/ref"
	dpkg-deb -x "$deb" "$T/ref"
	for d in bin sbin lib; do
		[ -d "$T/ref/$d" ] || continue
		(cd "$T/ref/$d" && find . ! -type d) | while read -r f; do
			[ -e "$root/usr/$d/$f" ] || [ -L "$root/usr/$d/$f" ] ||
			    fail "$d/$f not under usr/$d ($mode)"
		done
	done
	no_temps "$root"
	rm -rf "$T/ref"
	echo "ok $mode"
done

# One file, two spellings, two packages of one run: the later one takes it
# over, and the earlier one's record no longer lists it under its own
# spelling (else an upgrade of that package that drops the path would
# remove the file the other one owns).
old=$(make_pkg oldstyle 1 - <<'D'
dir ./bin/ 0755
file ./bin/tool 0755 text:old\n
file ./bin/other 0755 text:other\n
D
)
new=$(make_pkg newstyle 1 - <<'D'
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/tool 0755 text:new\n
D
)
root=$T/root-takeover
mkdir -p "$root/usr/bin"
ln -s usr/bin "$root/bin"
"$DEBUNPACK" -q --root "$root" --force-overwrite "$old" "$new" || fail "take-over"
[ "$(cat "$root/usr/bin/tool")" = new ] || fail "take-over: later package must win"
"$DEBUNPACK" --root "$root" --verify || fail "take-over: records"
"$DEBUNPACK" --root "$root" --owner /bin/tool > "$T/owner" && fail "take-over: /bin/tool still owned: $(cat "$T/owner")"
[ "$("$DEBUNPACK" --root "$root" --owner /usr/bin/tool)" = "newstyle: /usr/bin/tool" ] ||
    fail "take-over: owner of /usr/bin/tool"
echo "ok a path taken over under another spelling leaves the earlier record"
