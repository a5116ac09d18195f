#!/bin/sh
# SPDX-License-Identifier: MIT
# Every fixture, in every sync mode, unpacks to the tree dpkg-deb -x makes.
. "${srcdir:-.}/tests/lib.sh"

command -v dpkg-deb >/dev/null || skip "dpkg-deb not installed"

fixtures="alltypes deep many usrmerge-plain pax underscore-ok
comp-xz comp-gz comp-zst comp-bz2 comp-lzma comp-none"
if is_root; then
	fixtures="$fixtures devices"
else
	echo "not root: device nodes are covered by nonroot.sh only"
fi

for f in $fixtures; do
	src=$FIXTURES/$f.desc
	[ "$f" = usrmerge-plain ] && src=$FIXTURES/usrmerge.desc
	deb=$(build_deb "$f" "$src")
	mkdir "$T/ref-$f"
	dpkg-deb -x "$deb" "$T/ref-$f" || fail "dpkg-deb -x $f"
	for mode in syncfs batched perfile none; do
		out=$T/out-$f-$mode
		mkdir "$out"
		"$DEBUNPACK" -q --root "$out" --sync-mode "$mode" "$deb" ||
		    fail "$f ($mode): exit $?"
		dpkg_same "$deb" "$T/ref-$f" "$out"
		no_temps "$out"
		rm -rf "$out"
	done
	rm -rf "$T/ref-$f"
	echo "ok $f"
done

# Owners and modes, as root: a file takes the run's owner and the umask's
# mode, or a setgid directory's group, unless changed to the archive's.
if is_root; then
	deb=$(build_deb owners)
	for mode in syncfs batched perfile none; do
		out=$T/out-owners-$mode
		mkdir "$out"
		(umask 022 && "$DEBUNPACK" -q --root "$out" --sync-mode "$mode" "$deb") ||
		    fail "owners ($mode): exit $?"
		(cd "$out/usr/share/owners" && stat -c '%n %u %g %a' ./* .) > "$T/owners.got"
		cat > "$T/owners.want" <<-EOW
		./none 0 0 0
		./open 0 0 666
		./private 0 0 600
		./root 0 0 644
		./shared 0 0 664
		./staff 0 50 640
		./suid 0 50 4755
		. 0 50 2775
		EOW
		diff -u "$T/owners.want" "$T/owners.got" || fail "owners ($mode): not the archive's"
		rm -rf "$out"
	done
	echo "ok owners"
fi
