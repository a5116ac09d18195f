#!/bin/sh
# SPDX-License-Identifier: MIT
# make install: the program, its man page and its bash completion land under
# DESTDIR, the program runs, and the completion completes; the paths the
# man pages and --help name are where this prefix installs.
. "${srcdir:-.}/tests/lib.sh"

[ -f Makefile ] || skip "not run from the build directory"
command -v make > /dev/null || skip "no make"

# makevar NAME: the value of make variable NAME in this build's Makefile.
makevar() {
	printf 'debunpack-show-var:\n\t@echo $(%s)\n' "$1" > "$T/show.mk"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	    make -s -f Makefile -f "$T/show.mk" debunpack-show-var
}
bindir=$(makevar bindir)
mandir=$(makevar mandir)
compdir=$(makevar bashcompletiondir)

# A make of its own: the one running the tests must not pass on its
# goals or job slots.
dest=$T/dest
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install DESTDIR="$dest" \
    > "$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install"; }

bin=$dest$bindir/debunpack
[ -x "$bin" ] || fail "not installed: $bindir/debunpack"
[ -f "$dest$mandir/man1/debunpack.1" ] || fail "not installed: $mandir/man1/debunpack.1"
"$bin" --version > "$T/out" || fail "installed binary: --version exit $?"
grep -q '^debunpack [0-9]' "$T/out" || fail "installed binary: --version: $(cat "$T/out")"

# debunpack-bootstrap, its man page and its helper, which it finds where
# they were installed.
bs=$dest$bindir/debunpack-bootstrap
[ -x "$bs" ] || fail "not installed: $bindir/debunpack-bootstrap"
[ -f "$dest$mandir/man1/debunpack-bootstrap.1" ] ||
    fail "not installed: $mandir/man1/debunpack-bootstrap.1"
pkglibexecdir=$(makevar pkglibexecdir)
[ -x "$dest$pkglibexecdir/debunpack-nosync" ] ||
    fail "not installed: $pkglibexecdir/debunpack-nosync"
grep -q "^NOSYNC=.*$pkglibexecdir/debunpack-nosync" "$bs" ||
    fail "debunpack-bootstrap does not look for the helper in $pkglibexecdir"
"$bs" --version > "$T/out" || fail "debunpack-bootstrap --version: exit $?"
grep -q '^debunpack-bootstrap [0-9]' "$T/out" || fail "--version: $(cat "$T/out")"
# mmdebstrap's hook directory where this prefix puts it, and named there
# by the man page, --help and the hook's own usage line.
hookdir=$(makevar pkgdatadir)/mmdebstrap
[ -x "$dest$hookdir/extract00.sh" ] || fail "not installed: $hookdir/extract00.sh"
grep -q -- "--hook-dir=$hookdir " "$dest$hookdir/extract00.sh" ||
    fail "extract00.sh does not name $hookdir"
"$bs" --help | grep -qx "  $hookdir" || fail "debunpack-bootstrap --help does not name $hookdir"
grep -q "^\.Fl -hook-dir Ns = Ns Pa $hookdir ,\$" "$dest$mandir/man1/debunpack-bootstrap.1" ||
    fail "the man page does not name $hookdir"
grep -n 'share/debunpack' "$dest$mandir/man1/debunpack-bootstrap.1" |
    grep -v "$hookdir" && fail "the man page names another hook directory"

[ -n "$compdir" ] || { echo "configured without a bash completion"; exit 0; }
comp=$dest$compdir/debunpack
[ -f "$comp" ] || fail "not installed: $compdir/debunpack"
command -v bash > /dev/null || skip "no bash to try the completion in"

# complete WORD...: what the completion offers for the command line
# WORD..., the last word being the one completed; one reply a line.
complete_words() {
	PATH=$dest$bindir:$PATH bash -c '. "$1" || exit 1
	    shift
	    COMP_WORDS=("$@")
	    COMP_CWORD=$(($# - 1))
	    COMP_LINE="$*"
	    COMP_POINT=${#COMP_LINE}
	    COMPREPLY=()
	    _debunpack debunpack "${COMP_WORDS[COMP_CWORD]}" \
	        "${COMP_WORDS[COMP_CWORD-1]}" || exit 1
	    printf "%s\n" "${COMPREPLY[@]}"' sh "$comp" "$@"
}

complete_words debunpack --sync-mode "" > "$T/got" || fail "completion failed"
printf '%s\n' auto syncfs batched perfile none > "$T/want"
diff -u "$T/want" "$T/got" || fail "--sync-mode: not the sync modes"

# Every option --help lists is offered, and nothing else: the one table.
"$bin" --help | grep -o '^\(  -[A-Za-z], \|      \)--[a-z][a-z-]*' |
    sed 's/.*--/--/' | LC_ALL=C sort > "$T/want"
complete_words debunpack -- | grep -v '=$' | LC_ALL=C sort > "$T/got" ||
    fail "completion failed"
diff -u "$T/want" "$T/got" || fail "--: not the options of --help"
grep -qx -- --dry-run "$T/got" && grep -qx -- --verify-format "$T/got" ||
    fail "--: $(cat "$T/got")"

complete_words debunpack --dpkg-db > "$T/got" || fail "completion failed"
echo --dpkg-db > "$T/want"
diff -u "$T/want" "$T/got" || fail "--dpkg-db: not --dpkg-db"
complete_words debunpack --dpkg | LC_ALL=C sort > "$T/got" || fail "completion failed"
printf '%s\n' --dpkg-admindir --dpkg-admindir= --dpkg-db --dpkg-dist \
    --dpkg-force --dpkg-force= --dpkg-messages --dpkg-messages= |
    diff -u - "$T/got" || fail "--dpkg: not the five"

# "--merged-usr=" as bash splits it (at "=", COMP_WORDBREAKS' default)
# and as one word.
complete_words debunpack --merged-usr = > "$T/got" || fail "completion failed"
printf '%s\n' auto yes no > "$T/want"
diff -u "$T/want" "$T/got" || fail "--merged-usr =: not auto yes no"
complete_words debunpack --merged-usr=n > "$T/got" || fail "completion failed"
[ "$(cat "$T/got")" = --merged-usr=no ] || fail "--merged-usr=n: $(cat "$T/got")"

# Directories after --root, package files (and directories) as operands.
mkdir "$T/files" "$T/files/dir"
: > "$T/files/a.deb"
: > "$T/files/b.txt"
complete_words debunpack --root "$T/files/" > "$T/got" || fail "completion failed"
[ "$(cat "$T/got")" = "$T/files/dir" ] || fail "--root: $(cat "$T/got")"
complete_words debunpack "$T/files/" | LC_ALL=C sort > "$T/got"
printf '%s\n' "$T/files/a.deb" "$T/files/dir" > "$T/want"
diff -u "$T/want" "$T/got" || fail "operands: not the .deb files and directories"

# --verify, --files, --remove and --purge: the packages recorded under --root.
mkdir -p "$T/croot/var/lib/debunpack"
: > "$T/croot/var/lib/debunpack/hello.record"
: > "$T/croot/var/lib/debunpack/help2man.record"
: > "$T/croot/var/lib/debunpack/jq.record"
for q in --verify --files --remove --purge; do
	complete_words debunpack --root "$T/croot" $q he > "$T/got" || fail "completion failed"
	printf '%s\n' hello help2man | diff -u - "$T/got" || fail "$q: not the installed packages"
done

# --owner: paths inside the root, as it has them, directories with their
# slash; --verify-format: its values.
mkdir -p "$T/croot/usr/bin" "$T/croot/usr/share"
: > "$T/croot/usr/bin/jq"
complete_words debunpack --root "$T/croot" --owner /usr/ | LC_ALL=C sort > "$T/got" || fail "completion failed"
printf '%s\n' /usr/bin/ /usr/share/ | diff -u - "$T/got" || fail "--owner: not the root's paths"
complete_words debunpack --root "$T/croot" --owner /usr/bin/jq /usr/b > "$T/got" || fail "completion failed"
printf '%s\n' /usr/bin/ | diff -u - "$T/got" || fail "--owner's second pattern"
complete_words debunpack --verify --verify-format r > "$T/got" || fail "completion failed"
printf '%s\n' rpm | diff -u - "$T/got" || fail "--verify-format"

# Every long option that --help describes is offered.
"$bin" --help | sed -nE 's/^  (-[[:alnum:]], |    )(--[a-z][a-z-]*).*/\2/p' |
    LC_ALL=C sort -u > "$T/help"
[ -s "$T/help" ] || fail "no options found in --help"
complete_words debunpack -- | sed 's/=.*//' | LC_ALL=C sort -u > "$T/offered"
missing=$(LC_ALL=C comm -23 "$T/help" "$T/offered")
[ -z "$missing" ] || fail "not completed: $missing"

# debunpack-bootstrap's completion: the variants, and every option of
# its --help.
bcomp=$dest$compdir/debunpack-bootstrap
[ -f "$bcomp" ] || fail "not installed: $compdir/debunpack-bootstrap"
complete_bs() {
	bash -c '. "$1" || exit 1
	    shift
	    COMP_WORDS=("$@")
	    COMP_CWORD=$(($# - 1))
	    COMPREPLY=()
	    _debunpack_bootstrap debunpack-bootstrap || exit 1
	    printf "%s\n" "${COMPREPLY[@]}"' sh "$bcomp" "$@"
}
complete_bs debunpack-bootstrap --variant=mi > "$T/got" || fail "completion failed"
[ "$(cat "$T/got")" = --variant=minbase ] || fail "--variant=mi: $(cat "$T/got")"
"$bs" --help | sed -nE 's/^  (-[[:alnum:]], |    )(--[a-z][a-z-]*).*/\2/p' |
    LC_ALL=C sort -u > "$T/help"
[ -s "$T/help" ] || fail "no options found in debunpack-bootstrap --help"
complete_bs debunpack-bootstrap -- | sed 's/=.*//' | LC_ALL=C sort -u > "$T/offered"
missing=$(LC_ALL=C comm -23 "$T/help" "$T/offered")
[ -z "$missing" ] || fail "debunpack-bootstrap: not completed: $missing"
