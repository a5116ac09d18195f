#!/bin/sh
# SPDX-License-Identifier: MIT
# A new version ships a symlink where its old version had a directory:
# dpkg leaves the directory as it is, with no word of who else has files
# in it, and dpkg-maintscript-helper's dir_to_symlink (preinst: the
# directory aside, a staging one in its place; postinst: the switch)
# makes the symlink, or refuses when the directory holds conffiles,
# another package's files or the user's.  The same packages in twin
# roots, by dpkg -i and by debunpack --maintscripts then dpkg
# --configure -a: the same exit, tree and file lists.
. "${srcdir:-.}/tests/lib.sh"

command -v dpkg > /dev/null || skip "no dpkg"
command -v dpkg-maintscript-helper > /dev/null ||
    skip "no dpkg-maintscript-helper"

H='#!/bin/sh\nset -e\ndpkg-maintscript-helper dir_to_symlink /opt/path /opt/dir 0 -- "$@"\n'
# pkg ID NAME VERSION LINE...: a package under /opt; VERSION 1 has the
# helper's scripts.
pkg() {
	pk_id=$1 pk_n=$2 pk_v=$3
	shift 3
	{
		if [ "$pk_v" = 1 ]; then
			for s in preinst postinst postrm; do
				printf '%s\n' "control-file $s 0755 $H"
			done
		fi
		printf '%s\n' "dir ./ 0755" "dir ./opt/ 0755"
		for l; do printf '%s\n' "$l"; done
	} | make_pkg -o "$pk_id" -m "T <t@example.org>" -d test "$pk_n" "$pk_v" - > /dev/null
}
pkg int-0 int 0 "dir ./opt/path/ 0755" "file ./opt/path/f 0644 text:f"
pkg int-1 int 1 "symlink ./opt/path dir" "dir ./opt/dir/ 0755" \
    "file ./opt/dir/f 0644 text:f"
pkg conf-0 conf 0 "dir ./opt/path/ 0755" "file ./opt/path/c 0644 text:c"
sed -i 's|^control-field Package|control-file conffiles 0644 /opt/path/c\\n\n&|' \
    "$T/conf-0.desc"
build_deb conf-0 "$T/conf-0.desc" > /dev/null
pkg conf-1 conf 1 "symlink ./opt/path dir"
pkg other-0 other 0 "dir ./opt/path/ 0755" "file ./opt/path/o 0644 text:o"

D=$T/dpkg U=$T/ours
# fresh: both roots empty.
fresh() {
	rm -rf "$D" "$U"
	empty_dpkg_db "$D"
	empty_dpkg_db "$U"
}
# both ID...: dpkg -i of each in both roots.
both() {
	for id; do
		dpkg_root "$D" -i "$T/$id.deb"
		dpkg_root "$U" -i "$T/$id.deb"
	done
}
# view ROOT: the tree and the file lists.
view() {
	(cd "$1" && find opt -printf '%y %p %l\n' 2>/dev/null | LC_ALL=C sort)
	for l in "$1"/var/lib/dpkg/info/*.list; do
		echo "${l##*/}:"
		LC_ALL=C sort "$l"
	done
}
# step NAME ID: dpkg -i in one root, debunpack then dpkg --configure -a
# in the other; both succeed or fail alike and leave the same.
step() {
	dpkg_in "$D" -i "$T/$2.deb" > "$T/out.dpkg" 2>&1 && rd=0 || rd=1
	{ "$DEBUNPACK" --root "$U" --dpkg-db --maintscripts \
	    --force-script-chrootless --dpkg-messages --no-progress \
	    "$T/$2.deb" < /dev/null &&
	    dpkg_in "$U" --configure -a; } > "$T/out.ours" 2>&1 && ru=0 || ru=1
	[ "$rd" = "$ru" ] || fail "$1: exit $rd from dpkg, $ru from debunpack:
$(cat "$T/out.dpkg" "$T/out.ours")"
	view "$D" > "$T/v1"
	view "$U" > "$T/v2"
	diff -u "$T/v1" "$T/v2" || fail "$1: not what dpkg leaves"
}

# The switch, the directory's contents moved within the package.
fresh
both int-0
step "directory to symlink" int-1
[ "$rd" = 0 ] && [ -h "$U/opt/path" ] && [ -f "$U/opt/dir/f" ] ||
    fail "no switch: $(cat "$T/out.ours")"
"$DEBUNPACK" --root "$U" --dpkg-db --maintscripts --force-script-chrootless \
    --no-progress "$T/int-1.deb" < /dev/null > "$T/out.ours" 2>&1 ||
    fail "reinstall over the symlink: $(cat "$T/out.ours")"
[ -h "$U/opt/path" ] || fail "reinstall: the symlink is gone"
echo "ok a directory becomes the new version's symlink"

# Unpacked, not configured: the directory (staging) stays until the
# postinst.
fresh
both int-0
"$DEBUNPACK" --root "$U" --dpkg-db --maintscripts --force-script-chrootless \
    --no-progress "$T/int-1.deb" < /dev/null > "$T/out.ours" 2>&1 ||
    fail "unpack: $(cat "$T/out.ours")"
[ -d "$U/opt/path" ] && [ ! -h "$U/opt/path" ] ||
    fail "unpack replaced the directory"
dpkg_root "$U" --configure -a
[ -h "$U/opt/path" ] || fail "configure: no switch"
echo "ok the switch waits for the postinst"

# Refused: a conffile in it, another package's file, the user's file.
fresh
both conf-0
step "a directory with a conffile" conf-1
[ "$rd" = 1 ] && [ -d "$U/opt/path" ] || fail "conffile: switched"
fresh
both other-0 int-0
step "a directory with another package's file" int-1
[ "$rd" = 1 ] && [ -f "$U/opt/path/o" ] || fail "other's file: switched"
fresh
both int-0
echo mine | tee "$D/opt/path/mine" > "$U/opt/path/mine"
step "a directory with the user's file" int-1
[ "$rd" = 1 ] && [ "$(cat "$U/opt/path/mine")" = mine ] ||
    fail "user's file: switched"
echo "ok no switch over conffiles, other packages' or the user's files"

# Plain debunpack, no scripts: the directory stays, as dpkg leaves it.
root=$T/plain
mkdir "$root"
"$DEBUNPACK" -q --root "$root" "$T/int-0.deb" || fail "plain: install"
"$DEBUNPACK" -q --root "$root" "$T/int-1.deb" || fail "plain: upgrade"
[ -d "$root/opt/path" ] && [ ! -h "$root/opt/path" ] && [ -f "$root/opt/dir/f" ] ||
    fail "plain: the directory replaced"
"$DEBUNPACK" --root "$root" --verify > /dev/null || fail "plain: --verify"
echo "ok without scripts the directory stays"
