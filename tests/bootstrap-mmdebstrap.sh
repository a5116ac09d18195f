#!/bin/sh
# SPDX-License-Identifier: MIT
# mmdebstrap with debunpack's hook directory (share/debunpack/mmdebstrap):
# --variant=custom leaves the install to the hook, which builds the
# DEBUNPACK_VARIANT set with debunpack-bootstrap in mmdebstrap's root;
# mmdebstrap's own steps (setup, cleanup, output) stay.  The minbase root
# from the test's flat mirror: every package configured, dpkg's database
# sound, the same packages as debunpack-bootstrap's own minbase, mmdebstrap's
# cleanup done; a tarball too; the variants where mmdebstrap installs
# packages itself after the hook are refused in one line.
. "${srcdir:-.}/tests/lib.sh"

bootstrap_ready mmdebstrap apt-get apt-ftparchive dpkg-scanpackages chroot
[ -x "${MMHOOKDIR:-}/extract00.sh" ] || skip "debunpack-bootstrap's hooks not built"
DEBUNPACK_BOOTSTRAP=$BOOTSTRAP
export DEBUNPACK_BOOTSTRAP
minbase_debs

mirror=$T/mirror
minbase_mirror "$mirror"
src="deb [trusted=yes] file:$mirror ./"

# mm NAME ARG...: mmdebstrap ARG... in a network namespace of its own (a
# file: mirror needs no network), its output in $T/NAME.log.  A failed
# mmdebstrap leaves the mirror bound in its root.
unmount_left() {
	awk -v t="$T/" 'index($2, t) == 1 { print $2 }' /proc/self/mounts |
	    sort -r | while read -r mp; do umount "$mp"; done
}
cleanup_hooks="unmount_left; $cleanup_hooks"
mm() {
	mm_name=$1
	shift
	mm_rc=0
	unshare -n mmdebstrap "$@" > "$T/$mm_name.log" 2>&1 < /dev/null || mm_rc=$?
	return $mm_rc
}

DEBUNPACK_VARIANT=minbase mm dir --mode=root --variant=custom \
    --hook-dir="$MMHOOKDIR" --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
    "" "$T/root" "$src" || fail "mmdebstrap: exit $mm_rc: $(tail -n 5 "$T/dir.log")"
grep -q "running --extract-hook directly: $MMHOOKDIR/extract00.sh" "$T/dir.log" ||
    fail "the hook did not run: $(grep hook "$T/dir.log")"
every_ii "$T/root"
LC_ALL=C chroot "$T/root" dpkg --audit > "$T/audit" 2>&1 || fail "dpkg --audit: $(cat "$T/audit")"
[ ! -s "$T/audit" ] || fail "dpkg --audit: $(cat "$T/audit")"
LC_ALL=C chroot "$T/root" dpkg --verify > "$T/verify" 2>&1 || fail "dpkg --verify: $(head "$T/verify")"
[ -L "$T/root/bin" ] || fail "/usr is not merged"
[ -s "$T/root/var/lib/debunpack/dpkg.record" ] || fail "no debunpack record: debunpack did not install"
# mmdebstrap's cleanup ran after the hook.
[ -z "$(ls -A "$T/root/var/lib/apt/lists" | grep -v "^partial$" | grep -v "^lock$")" ] ||
    fail "package lists left: $(ls "$T/root/var/lib/apt/lists")"
[ -z "$(ls -A "$T/root/var/cache/apt/archives" | grep -v '^partial$' | grep -v '^lock$')" ] ||
    fail "packages left: $(ls "$T/root/var/cache/apt/archives")"
[ ! -e "$T/root/var/log/dpkg.log" ] || fail "dpkg.log left"
echo "ok mmdebstrap --variant=custom with the hook: the minbase root"

# A tarball, mmdebstrap's output: the same paths.
DEBUNPACK_VARIANT=minbase mm tar --mode=root --variant=custom \
    --hook-dir="$MMHOOKDIR" --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
    "" "$T/root.tar" "$src" || fail "mmdebstrap tarball: exit $mm_rc: $(tail -n 5 "$T/tar.log")"
tar -tf "$T/root.tar" | sed 's|/$||' | LC_ALL=C sort > "$T/tar.list"
(cd "$T/root" && find . | LC_ALL=C sort) > "$T/dir.list"
diff -u "$T/dir.list" "$T/tar.list" > "$T/tar.diff" ||
    fail "the tarball's paths are not the directory's: $(head -n 20 "$T/tar.diff")"
echo "ok mmdebstrap's tarball with the hook"

# Where mmdebstrap installs packages itself after the hook: refused by the
# hook, in one line naming the way out.
mm minbase --mode=root --variant=minbase --hook-dir="$MMHOOKDIR" \
    --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
    "" "$T/r2" "$src" && fail "--variant=minbase with the hook succeeded"
grep -q 'debunpack-bootstrap: mmdebstrap extracted packages itself .*use --variant=custom' "$T/minbase.log" ||
    fail "no cause given: $(tail -n 5 "$T/minbase.log")"
mm inc --mode=root --variant=custom --include=hostname --hook-dir="$MMHOOKDIR" \
    --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
    "" "$T/r3" "$src" && fail "--include with the hook succeeded"
grep -q 'debunpack-bootstrap: mmdebstrap would install --include=hostname after this hook: give them in DEBUNPACK_INCLUDE' "$T/inc.log" ||
    fail "no cause given: $(tail -n 5 "$T/inc.log")"
echo "ok the variants mmdebstrap installs itself are refused"
