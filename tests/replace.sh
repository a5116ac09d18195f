#!/bin/sh
# SPDX-License-Identifier: MIT
# Replacing installed files: new contents in place, no temporary left, and a
# leftover temporary of an interrupted run does not get in the way.
. "${srcdir:-.}/tests/lib.sh"

cat > "$T/v1.desc" <<'D'
dir ./etc/ 0755
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./etc/conf 0644 text:old\n
file ./usr/bin/tool 0755 text:#!/bin/sh\necho\sold\n
symlink ./usr/bin/alias tool
hardlink ./usr/bin/tool2 ./usr/bin/tool
D
sed -e 's/old/new/g' -e 's/^symlink .*/symlink .\/usr\/bin\/alias ..\/..\/etc\/conf/' \
    "$T/v1.desc" > "$T/v2.desc"
v1=$(build_deb v1 "$T/v1.desc")
v2=$(build_deb v2 "$T/v2.desc")

for mode in syncfs batched perfile none; do
	root=$T/root-$mode
	mkdir "$root"
	"$DEBUNPACK" -q --root "$root" --sync-mode "$mode" "$v1" || fail "v1 $mode"
	grep -q old "$root/etc/conf" || fail "v1 contents ($mode)"
	ino_before=$(stat -c %i "$root/etc/conf")
	# A temporary left by a run that was killed before its commit.
	echo stale > "$root/etc/conf.debunpack-new"
	"$DEBUNPACK" -q --root "$root" --sync-mode "$mode" "$v2" || fail "v2 $mode"
	grep -q new "$root/etc/conf" || fail "v2 contents ($mode)"
	grep -q new "$root/usr/bin/tool2" || fail "v2 hardlink contents ($mode)"
	[ "$(stat -c %i "$root/usr/bin/tool")" = "$(stat -c %i "$root/usr/bin/tool2")" ] ||
	    fail "hardlink identity lost ($mode)"
	[ "$(readlink "$root/usr/bin/alias")" = ../../etc/conf ] ||
	    fail "symlink not replaced ($mode)"
	# Atomic replace means a new inode, never a rewrite of the old one.
	[ "$(stat -c %i "$root/etc/conf")" != "$ino_before" ] ||
	    fail "file rewritten in place ($mode)"
	no_temps "$root"
	mkdir "$T/ref-$mode"
	dpkg-deb -x "$v2" "$T/ref-$mode"
	same_tree "$T/ref-$mode" "$root" no
	echo "ok $mode"
done
