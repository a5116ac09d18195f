#!/bin/sh
# SPDX-License-Identifier: MIT
# debunpack-bootstrap's command line, checked before anything is built or
# downloaded (no root, no mirror): --help, mmdebstrap's spellings and what
# of mmdebstrap is not supported, usage errors (exit 2), and the target:
# a tarball's directory and compressor, a format by the target's name, a
# directory's lost+found, standard output on a terminal; --include's .deb
# files, and --dpkg-for-apt without debunpack.  Each refusal is one line
# naming the cause, and nothing is made.
. "${srcdir:-.}/tests/lib.sh"

[ -x "${BOOTSTRAP:-}" ] || skip "debunpack-bootstrap not built"
command -v dpkg > /dev/null || skip "no dpkg"
arch=$(dpkg --print-architecture)
src="deb [trusted=yes] file:$T/mirror ./"

"$BOOTSTRAP" --help > "$T/out" 2> "$T/err" || fail "--help: exit $?"
[ ! -s "$T/err" ] || fail "--help wrote to stderr"
grep -q "^usage: debunpack-bootstrap \[OPTION...\] SUITE \[TARGET \[MIRROR...\]\]$" "$T/out" ||
    fail "--help: $(head -n 1 "$T/out")"
# The hook directory where make install put it.
[ -n "${MMHOOKDIR_INSTALLED:-}" ] || fail "MMHOOKDIR_INSTALLED not set"
grep -qx "  $MMHOOKDIR_INSTALLED" "$T/out" ||
    fail "--help does not name $MMHOOKDIR_INSTALLED: $(tail -n 2 "$T/out")"
echo "ok --help"

# refused NAME STATUS CAUSE ARG...: debunpack-bootstrap ARG... exits
# STATUS with one line naming CAUSE (and, for a usage error, the pointer
# to --help), and makes nothing in $T/made.
mkdir "$T/made"
refused() {
	rf_name=$1 rf_want=$2 rf_cause=$3
	shift 3
	rf_rc=0
	(cd "$T/made" && "$BOOTSTRAP" "$@") > "$T/$rf_name.out" 2> "$T/$rf_name.err" < /dev/null ||
	    rf_rc=$?
	[ "$rf_rc" = "$rf_want" ] ||
	    fail "$rf_name: exit $rf_rc, want $rf_want: $(cat "$T/$rf_name.err")"
	[ ! -s "$T/$rf_name.out" ] || fail "$rf_name: stdout written"
	grep -v "^Try 'debunpack-bootstrap --help' for more information\.$" "$T/$rf_name.err" > "$T/lines"
	[ "$(wc -l < "$T/lines")" = 1 ] || fail "$rf_name: not one line: $(cat "$T/$rf_name.err")"
	grep -qF -- "debunpack-bootstrap: $rf_cause" "$T/lines" ||
	    fail "$rf_name: cause '$rf_cause' not said: $(cat "$T/lines")"
	if [ "$rf_want" = 2 ]; then
		[ "$(wc -l < "$T/$rf_name.err")" = 2 ] || fail "$rf_name: no pointer to --help"
	fi
	[ -z "$(ls -A "$T/made")" ] || fail "$rf_name: made $(ls -A "$T/made")"
}

# Usage errors; mmdebstrap's modes, formats and variants that are not
# made here are named as such.
refused nosuite 2 "SUITE is needed"
refused option 2 "unknown option '--nope'" --nope bookworm r
refused variant 2 "unknown variant 'tiny'" --variant=tiny bookworm r
refused extract 2 "mmdebstrap's --variant=extract is not supported" --variant=extract bookworm r
refused fakechroot 2 "mmdebstrap's --mode=fakechroot is not supported (root, unshare or auto)" \
    --mode=fakechroot bookworm r
refused chrootless 2 "mmdebstrap's --mode=chrootless is not supported" --mode chrootless bookworm r
refused squashfs 2 "mmdebstrap's --format=squashfs is not supported (directory, tar or auto)" \
    --format=squashfs bookworm r
refused sqfsname 2 "'r.sqfs': mmdebstrap's squashfs and ext2 images are not made here" bookworm r.sqfs
refused ext2name 2 "'r.ext2': mmdebstrap's squashfs and ext2 images are not made here" bookworm r.ext2
refused foreign 2 "--architectures=foreign0: no qemu-user emulator is known for it" \
    --architectures="foreign0,$arch" bookworm r
refused archname 2 "--architectures=Arm_64: not an architecture name" \
    --architectures="$arch,Arm_64" bookworm r
refused nomirror 2 "no SUITE and no MIRROR" "" r
refused emptymirrors 2 "no sources: every MIRROR is empty" bookworm r ""
refused stdoutdir 2 "'-' is a tarball on standard output: --format=tar" --format=dir bookworm -
refused needvalue 2 "--components needs a value" bookworm r --components
echo "ok usage errors, mmdebstrap's unsupported modes, formats and variants"

# --include's package files are read first; --dpkg-for-apt needs
# debunpack among --include, by name or as its .deb.
other=$(make_pkg other 1.0)
echo "not a package" > "$T/junk.deb"
refused nodeb 2 "--include=$T/no/such.deb: no such package file" \
    --include="$T/no/such.deb" bookworm r "$src"
refused junkdeb 2 "--include=$T/junk.deb: not a .deb dpkg-deb can read" \
    --include=hostname,"$T/junk.deb" bookworm r "$src"
forapt="--dpkg-for-apt: debunpack would not be in the root: --include=debunpack or --include=PATH/debunpack_VERSION_ARCH.deb"
refused forapt 2 "$forapt" --dpkg-for-apt bookworm r "$src"
refused forapt-other 2 "$forapt" --dpkg-for-apt --include="$other" --include=debunpack-doc \
    bookworm r "$src"
echo "ok --include's .deb files read first, --dpkg-for-apt without debunpack refused"

# The target, before anything is made or downloaded (the mirror does not
# exist: reaching it would be another error).
refused nodir 1 "'$T/nodir': no such directory for the tarball" \
    bookworm "$T/nodir/r.tar.zst" "$src"
[ ! -e "$T/nodir" ] || fail "nodir: made"
mkdir "$T/isdir.tar"
: > "$T/isdir.tar/x"
refused isdir 1 "'$T/isdir.tar' is a directory: --format=directory, or a name for the tarball" \
    --format=tar bookworm "$T/isdir.tar" "$src"
refused isdirauto 1 "'$T/isdir.tar' is not empty" bookworm "$T/isdir.tar" "$src"
ln -s "$T/made/sub/r.tar" "$T/dangling.tar"
refused linkdir 1 "'$T/made/sub': no such directory for the tarball" \
    bookworm "$T/dangling.tar" "$src"
# A compressor that is not installed, by its name.
missing=""
for c in lzop:lzo lzip:lz compress:Z; do
	command -v "${c%%:*}" > /dev/null || { missing=$c; break; }
done
if [ -n "$missing" ]; then
	refused nozip 1 "'$T/r.tar.${missing#*:}' is compressed with ${missing%%:*}, which is missing (Debian package" \
	    bookworm "$T/r.tar.${missing#*:}" "$src"
	echo "ok a missing compressor (${missing%%:*}) refused"
else
	echo "lzop, lzip and compress are all installed: no missing compressor to try"
fi
mkdir -p "$T/lf/lost+found"
: > "$T/lf/lost+found/#1234"
refused lostfound 1 "'$T/lf' holds a non-empty lost+found" bookworm "$T/lf" "$src"
[ -e "$T/lf/lost+found/#1234" ] && [ "$(ls -A "$T/lf")" = lost+found ] ||
    fail "lost+found: touched"
mkdir "$T/full"
: > "$T/full/.hidden"
refused notempty 1 "'$T/full' is not empty" bookworm "$T/full" "$src"
echo "ok the target checked first"

# Standard output, TARGET's default as mmdebstrap's, is no terminal.
if command -v script > /dev/null; then
	rc=0
	(cd "$T/made" && script -qec "'$BOOTSTRAP' bookworm" /dev/null) > "$T/tty.out" 2>&1 ||
	    rc=$?
	[ "$rc" = 1 ] || fail "a terminal: exit $rc: $(cat "$T/tty.out")"
	grep -q "^debunpack-bootstrap: standard output is a terminal: redirect it, or name a TARGET" "$T/tty.out" ||
	    fail "a terminal: $(cat "$T/tty.out")"
	echo "ok no tarball to a terminal"
else
	echo "no script(1) (bsdutils): standard output as a terminal not tried"
fi
