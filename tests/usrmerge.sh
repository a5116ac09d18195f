#!/bin/sh
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
