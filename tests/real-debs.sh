#!/bin/sh
# SPDX-License-Identifier: MIT
# Real Debian packages unpack exactly as dpkg-deb -x unpacks them.
. "${srcdir:-.}/tests/lib.sh"

command -v apt-get >/dev/null || skip "apt-get missing"
pkgs="base-files tzdata bash coreutils mawk libc-bin"
(cd "$T" && apt-get download $pkgs > "$T/apt.log" 2>&1) ||
    skip "cannot download packages (archive not reachable?)"
for deb in "$T"/*.deb; do
	name=$(basename "$deb")
	mkdir "$T/ref"
	dpkg-deb -x "$deb" "$T/ref"
	for mode in syncfs batched perfile none; do
		mkdir "$T/out"
		# dpkg-deb -x makes no merged-/usr links (base-files 12 would).
		"$DEBUNPACK" -q --root "$T/out" --merged-usr=no --sync-mode $mode \
		    "$deb" || fail "$name $mode"
		dpkg_same "$deb" "$T/ref" "$T/out"
		no_temps "$T/out"
		rm -rf "$T/out"
	done
	rm -rf "$T/ref"
	echo "ok $name"
done
# All of them as one batch, into a new root: merged /usr (base-files 12).
mkdir "$T/all"
"$DEBUNPACK" -q --root "$T/all" "$T"/*.deb || fail "one batch"
no_temps "$T/all"
if dpkg-deb -f "$T"/base-files_*.deb Version | grep -q '^1[2-9]'; then
	[ "$(readlink "$T/all/bin")" = usr/bin ] || fail "no merged-/usr bin link"
	[ -x "$T/all/usr/bin/bash" ] || fail "bash not in usr/bin"
fi
echo ok
