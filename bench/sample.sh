#!/bin/sh
# SPDX-License-Identifier: MIT
# Quick start: build debunpack, package some of its own files as .debs and
# unpack them into a scratch root in the default (auto), batched and perfile
# modes, with --stats.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/tests/setup.sh"
bin=$top/build/debunpack

# On the build's disk, not /tmp: tmpfs would make every sync free.
work=$(mktemp -d "$top/build/sample.XXXXXX")
trap 'rm -rf "$work"' EXIT

# mkpkg NAME DEST SRC...: a package NAME with SRC copied under DEST.
mkpkg() {
	name=$1 dest=$2
	shift 2
	mkdir -p "$work/$name/DEBIAN" "$work/$name$dest"
	cp -R "$@" "$work/$name$dest/"
	cat > "$work/$name/DEBIAN/control" <<CTL
Package: $name
Version: 0.1.0
Architecture: all
Maintainer: debunpack sample <sample@example.org>
Description: debunpack sample package made from its own files
CTL
	dpkg-deb --root-owner-group -Zxz -b "$work/$name" "$work/$name.deb" > /dev/null
	rm -rf "${work:?}/$name"
}
mkpkg debunpack-sample-src /usr/src/debunpack "$top/src" "$top/configure.ac" "$top/Makefile.am"
mkpkg debunpack-sample-doc /usr/share/doc/debunpack "$top/README" "$top/man"
mkpkg debunpack-sample-tests /usr/share/debunpack "$top/tests"
mkpkg debunpack-sample-bin /usr/bin "$bin"

for mode in auto batched perfile; do
	mkdir "$work/root-$mode"
	echo "== debunpack --sync-mode $mode --stats ($(ls "$work"/*.deb | wc -l) packages)"
	"$bin" --root "$work/root-$mode" --sync-mode "$mode" --stats "$work"/*.deb
	echo "   $(find "$work/root-$mode" | wc -l) paths under $work/root-$mode"
done
