#!/bin/sh
# SPDX-License-Identifier: MIT
# dpkg's own rules for files that change hands and for conffiles, replayed
# beside dpkg: the scenarios of dpkg's functional test suite (tests/t-*
# in dpkg's source) described here in mkdeb's format, each step run with
# dpkg -i in one root and with debunpack --dpkg-db then dpkg --configure
# -a in another.  After every step both must have succeeded or both
# failed, and the trees, dpkg's view of the packages (version, state,
# conffiles) and of who owns each file must be the same.
#
# Replayed: t-file-replaces, t-file-replaces-disappear,
# t-file-replaces-versioned, t-conffile-replaces,
# t-conffile-replaces-existing, t-conffile-replaces-existing-and-upgrade,
# t-conffile-replaces-upgrade (each in its four orders: two runs or one,
# original first or last; the -existing ones also with the original
# reinstalled instead of upgraded, and with the conffile changed or
# deleted by the user first), t-conffile-obsolete (its first half),
# t-conffile-root-option (a conffile moving between two packages upgraded
# in one run), t-conffile-forcenew and t-conffile-forcemiss without their
# --force options (a changed conffile over a reinstall, a deleted one
# over a reinstall and an upgrade).  Not replayed, as they need what
# debunpack does not do: maintainer scripts (t-conffile-replaces-disappear
# and t-disappear-* check what a postrm does), dpkg's prompt and
# its --force-conf* options (t-conffile-prompt, t-conffile-forceask, the
# forced halves of t-conffile-forcenew and -forcemiss).  The diversion
# tests (t-conffile-divert-*, t-conffile-replaces-diverted,
# t-unpack-divert-*) are replayed by tests/divert.sh.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "not root: dpkg acts in the test's roots"
command -v dpkg > /dev/null || skip "dpkg missing"

# pkg, new: tests/lib.sh's twin_pkg and twin_new.
pkg() {
	twin_pkg "$@"
}
new() {
	twin_new
}

# step NAME DEB...: install them in both roots, in one run; then compare.
step() {
	name=$1
	shift
	debs=""
	for id; do
		debs="$debs $T/$id.deb"
	done
	set +e
	# dpkg with its prompt's default: keep what is there.
	# shellcheck disable=SC2086 # one word per package file
	dpkg_in "$T/dpkg" --force-confdef --force-confold -i $debs > "$T/dpkg.out" 2>&1
	theirs=$?
	# shellcheck disable=SC2086
	"$DEBUNPACK" -q --root "$T/ours" --dpkg-db $debs > "$T/ours.out" 2>&1 &&
	    dpkg_in "$T/ours" --force-confdef --force-confold --configure -a \
	    >> "$T/ours.out" 2>&1
	ours=$?
	set -e
	if [ $theirs = 0 ] && [ $ours != 0 ]; then
		fail "$name: dpkg succeeded, debunpack failed: $(cat "$T/ours.out")"
	fi
	if [ $theirs != 0 ] && [ $ours = 0 ]; then
		fail "$name: debunpack succeeded, dpkg failed: $(cat "$T/dpkg.out")"
	fi
	twin_view "$T/dpkg" > "$T/theirs.view"
	twin_view "$T/ours" > "$T/ours.view"
	diff -u "$T/theirs.view" "$T/ours.view" ||
	    fail "$name: not what dpkg leaves"
}

# orders CASE A B: A then B, in two runs and in one, and B then A.
orders() {
	new; step "$1: two runs" "$2"; step "$1: two runs, then" "$3"
	new; step "$1: one run" "$2" "$3"
	new; step "$1: two runs reversed" "$3"; step "$1: two runs reversed, then" "$2"
	new; step "$1: one run reversed" "$3" "$2"
	echo "ok $1 (four orders)"
}

# t-file-replaces
pkg fr-orig pkg-file-original 0 "" "" test-file:original test-original:o
pkg fr-take pkg-file-takeover 0 "Replaces pkg-file-original" "" \
    test-file:takeover test-takeover:t
orders t-file-replaces fr-orig fr-take

# t-conffile-replaces
pkg cr-orig pkg-conff-original 0 "" /test-conffile test-conffile:original \
    test-original:o
pkg cr-take pkg-conff-takeover 0 "Replaces pkg-conff-original" /test-conffile \
    test-conffile:takeover test-takeover:t
orders t-conffile-replaces cr-orig cr-take

# from CASE BASE PREP A B [THEN]: orders as above, each from package BASE
# installed, after shell command PREP (run in each root; "" for none),
# then package THEN, if given, in a run of its own.
from() {
	fc=$1 fbase=$2 fprep=$3 fa=$4 fb=$5 fthen=${6:-}
	for fo in "two runs" "one run" "two runs reversed" "one run reversed"; do
		new
		step "$fc, $fo: base" "$fbase"
		for fr in "$T/ours" "$T/dpkg"; do
			(cd "$fr" && eval "$fprep")
		done
		case $fo in
		"two runs") step "$fc, $fo" "$fa"; step "$fc, $fo, then" "$fb" ;;
		"one run") step "$fc, $fo" "$fa" "$fb" ;;
		"two runs reversed") step "$fc, $fo" "$fb"; step "$fc, $fo, then" "$fa" ;;
		*) step "$fc, $fo" "$fb" "$fa" ;;
		esac
		[ -z "$fthen" ] || step "$fc, $fo, last" "$fthen"
	done
	echo "ok $fc (four orders)"
}

# t-conffile-replaces-existing: original, installed, is upgraded (or
# reinstalled) and taken over.  In one run, original's new version puts
# nothing at the conffile that takeover then takes: what is there is
# what original installed before, perhaps changed or deleted by the
# user, and dpkg carries that version's hash over (original's status
# keeps it, obsolete).
pkg ce-orig0 pkg-conff-original 0 "" /test-conffile \
    "test-conffile:test original 0" test-original:
pkg ce-orig1 pkg-conff-original 1 "" /test-conffile \
    "test-conffile:test original 1" test-original:
pkg ce-take pkg-conff-takeover 0 "Replaces pkg-conff-original" /test-conffile \
    "test-conffile:test takeover" test-takeover:
from t-conffile-replaces-existing ce-orig0 "" ce-orig1 ce-take
from "t-conffile-replaces-existing, reinstalled" ce-orig0 "" ce-orig0 ce-take
from "t-conffile-replaces-existing, changed" ce-orig0 \
    "echo mine > test-conffile" ce-orig1 ce-take
from "t-conffile-replaces-existing, changed, reinstalled" ce-orig0 \
    "echo mine > test-conffile" ce-orig0 ce-take
from "t-conffile-replaces-existing, deleted" ce-orig0 "rm test-conffile" \
    ce-orig1 ce-take

# t-conffile-replaces-existing-and-upgrade: the same, then takeover
# upgraded.
pkg cx-take0 pkg-conff-takeover 0 "Replaces pkg-conff-original" /test-conffile \
    "test-conffile:test takeover 0" test-takeover:
pkg cx-take1 pkg-conff-takeover 1 "Replaces pkg-conff-original" /test-conffile \
    "test-conffile:test takeover 1" test-takeover:
from t-conffile-replaces-existing-and-upgrade ce-orig0 "" ce-orig1 cx-take0 \
    cx-take1

# t-conffile-replaces-upgrade: original and takeover, two conffiles, then
# takeover upgraded.
pkg cu-orig pkg-conff-original 0 "" "/test-conffile;/test-confpath" \
    "test-conffile:test original 0" "test-confpath:test original 0" \
    test-original:
pkg cu-take0 pkg-conff-takeover 0 "Replaces pkg-conff-original" \
    "/test-conffile;/test-confpath" "test-conffile:test takeover 0" \
    "test-confpath:test takeover 0" test-takeover:
pkg cu-take1 pkg-conff-takeover 1 "Replaces pkg-conff-original" \
    "/test-conffile;/test-confpath" "test-conffile:test takeover 1" \
    "test-confpath:test takeover 1" test-takeover:
new; step "t-conffile-replaces-upgrade: two runs" cu-orig
step "t-conffile-replaces-upgrade: two runs, then" cu-take0
step "t-conffile-replaces-upgrade: two runs, last" cu-take1
new; step "t-conffile-replaces-upgrade: one run" cu-orig cu-take0
step "t-conffile-replaces-upgrade: one run, last" cu-take1
new; step "t-conffile-replaces-upgrade: two runs reversed" cu-take0
step "t-conffile-replaces-upgrade: two runs reversed, then" cu-orig
step "t-conffile-replaces-upgrade: two runs reversed, last" cu-take1
new; step "t-conffile-replaces-upgrade: one run reversed" cu-take0 cu-orig
step "t-conffile-replaces-upgrade: one run reversed, last" cu-take1
echo "ok t-conffile-replaces-upgrade (four orders)"

# t-file-replaces-disappear: every file of original taken: it disappears.
pkg fd-orig pkg-file-original 0 "" "" test-file:original test-other:original
pkg fd-take pkg-file-takeover 0 "Replaces pkg-file-original" "" \
    test-file:takeover test-other:takeover
orders t-file-replaces-disappear fd-orig fd-take

# t-file-replaces-versioned: takeover 1 replaces original before 1, which
# no longer ships the file.
pkg fv-orig0 pkg-file-original 0 "" "" test-file:original test-original:o
pkg fv-orig1 pkg-file-original 1 "" "" test-original:o1
pkg fv-take0 pkg-file-takeover 0 "" "" test-takeover:t
pkg fv-take1 pkg-file-takeover 1 "Replaces pkg-file-original (<< 1)" "" \
    test-file:takeover test-takeover:t1
new; step "versioned: base" fv-orig0 fv-take0; step "versioned: original 1" fv-orig1
step "versioned: takeover 1" fv-take1
new; step "versioned, one run: base" fv-orig0 fv-take0
step "versioned, one run" fv-orig1 fv-take1
new; step "versioned, reversed: base" fv-orig0 fv-take0; step "versioned, reversed: takeover 1" fv-take1
step "versioned, reversed: original 1" fv-orig1
new; step "versioned, reversed, one run: base" fv-orig0 fv-take0
step "versioned, reversed, one run" fv-take1 fv-orig1
echo "ok t-file-replaces-versioned (four orders)"

# t-conffile-root-option: the conffile moves from a to b, both upgraded
# in one run.
pkg ro-a1 pkg-conff-a 1 "" /test-conffile test-conffile:pkg-conff-a
pkg ro-a2 pkg-conff-a 2 "" ""
pkg ro-b1 pkg-conff-b 1 "" ""
pkg ro-b2 pkg-conff-b 2 "" /test-conffile test-conffile:pkg-conff-b
new; step "root-option: base" ro-a1 ro-b1; step "root-option: the move" ro-a2 ro-b2
echo "ok t-conffile-root-option"

# t-conffile-obsolete, its first half (the rest needs maintainer scripts):
# a version that no longer ships a conffile leaves it, listed obsolete,
# changed or not.
pkg co-0 pkg-conff-obsolete 0 "" /test-conffile test-conffile:zero
pkg co-1 pkg-conff-obsolete 1 "" ""
new; step "obsolete: install" co-0; step "obsolete: upgrade" co-1
new; step "obsolete, changed: install" co-0
echo foo | tee -a "$T/ours/test-conffile" >> "$T/dpkg/test-conffile"
step "obsolete, changed: upgrade" co-1
echo "ok t-conffile-obsolete (its first half)"

# t-conffile-forcenew and t-conffile-forcemiss, without the force: the
# user's change or deletion stands over a reinstall; an upgrade that
# changes the conffile puts its version beside (named as each tool
# names it).
pkg cf-1 pkg-conff 1 "" /test-conffile test-conffile:one
pkg cf-2 pkg-conff 2 "" /test-conffile test-conffile:two
new; step "forcenew: install" cf-1
echo mine | tee "$T/ours/test-conffile" > "$T/dpkg/test-conffile"
step "forcenew: reinstall over a change" cf-1
rm "$T/ours/test-conffile" "$T/dpkg/test-conffile"
step "forcemiss: reinstall over a deletion" cf-1
step "forcemiss: upgrade over a deletion" cf-2
echo "ok t-conffile-forcenew, t-conffile-forcemiss (their defaults)"
