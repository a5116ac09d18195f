#!/bin/sh
# SPDX-License-Identifier: MIT
# dpkg's own functional suite in make check: a fixed part of it, unpack
# tests on which the dpkg for apt agrees with dpkg today, run by
# tests/dpkgsuite.sh (the real dpkg, then the shim first in PATH, each
# test from the suite's pristine database outside its instdir).  Each
# must pass both ways with every unpack call made by debunpack: a test
# the shim hands on to the real dpkg proves nothing here.  The whole
# suite is `make check-dpkg-suite`.
#
# The suite is DPKG_SUITE_SRC, or fetched with apt-get source as
# dpkgsuite.sh does.  Where it cannot be had, SKIP; with
# DPKG_SUITE_REQUIRED=1 (tests/run.sh, that is CI, sets it) a FAIL.
. "$(dirname "$0")/lib.sh"

# The list, in one place.  To grow it: `make check-dpkg-suite` in the
# build directory, then add a test whose line in dpkgsuite/table reads
# "pass pass" with all its unpack calls by debunpack (handled D/U, D = U).
# That is every test of dpkg's default list but the four that hand a
# call on (--dry-run, --debug, control files debunpack cannot read) and
# t-db, which unpacks nothing: about 110 s of the table's times, 60 s on
# two cores.
tests="t-normal t-field-priority t-option-recursive t-unpack-symlink
t-unpack-hardlink t-unpack-divert-hardlink t-unpack-divert-nowarn
t-unpack-fifo t-maintscript-leak t-filtering t-dir-leftover-parents
t-dir-leftover-conffile t-disappear t-disappear-empty t-file-conflicts
t-file-replaces t-file-replaces-versioned t-conffile-normal
t-conffile-obsolete t-conffile-orphan t-conffile-root-option
t-conffile-divert-normal t-conffile-replaces-upgrade
t-conffile-replaces-downgrade t-conffile-rename t-symlink-dir
t-switch-symlink-abs-to-dir t-switch-symlink-rel-to-dir
t-failinst-failrm t-depends t-breaks t-breaks-protected t-breaks-essential
t-conflicts t-conflict-provide-replace-real
t-conflict-provide-replace-virtual t-conflict-provide-replace-interface
t-predepends-no-triggers t-triggers-configure t-triggers-path
t-triggers-db t-queue-process-deconf-dupe t-conffile-forcemiss
t-conffile-forcenew t-conffile-forceask t-conffile-conflict
t-conffile-replaces t-conffile-replaces-disappear
t-file-replaces-disappear t-switch-dir-to-symlink-abs
t-switch-dir-to-symlink-rel t-provides t-provides-self
t-provides-arch-implicit t-provides-arch-qualified
t-conflict-provide-replace-virtual-multiarch t-triggers
t-triggers-depends t-triggers-depcycle t-triggers-depfarcycle
t-triggers-selfcycle t-triggers-cycle t-triggers-halt
t-conffile-replaces-existing t-conffile-replaces-existing-and-upgrade
t-conffile-replaces-diverted t-conffile-versioned-replaces-downgrade
t-conffile-declarative-removal t-multiarch"

is_root || skip "not root: the suite's packages are installed with owners"
: "${DPKGSHIM:=$PWD/src/cli/dpkg}"
[ -x "$DPKGSHIM" ] || fail "no shim at $DPKGSHIM"

# shellcheck disable=SC2086 # one word per test
DPKG_SUITE_OUT=$T/suite DPKGSHIM=$DPKGSHIM DEBUNPACK=$DEBUNPACK \
    sh "$(dirname "$0")/dpkgsuite.sh" $tests > "$T/out" 2>&1 && rc=0 || rc=$?
case $rc in
0) ;;
3)
	cat "$T/out"
	[ "${DPKG_SUITE_REQUIRED:-0}" != 1 ] ||
	    fail "dpkg's suite cannot be had (DPKG_SUITE_REQUIRED=1)"
	skip "dpkg's suite cannot be had: $(tail -n 1 "$T/out")" ;;
*)
	cat "$T/out"
	[ ! -f "$T/suite/table" ] || cat "$T/suite/table"
	fail "dpkg's suite: the shim differs from dpkg (exit $rc)" ;;
esac
cat "$T/suite/table"
# Each test ran, and through debunpack for every unpack call.
for t in $tests; do
	line=$(awk -v t="$t" '$1 == t' "$T/suite/table")
	[ -n "$line" ] || fail "$t: not in the table"
	# shellcheck disable=SC2086 # the table's columns, one word each
	set -- $line
	[ "$2 $3" = "pass pass" ] || fail "$t: dpkg $2, shim $3"
	case $4 in
	*/*) [ "${4%/*}" = "${4#*/}" ] && [ "${4%/*}" -gt 0 ] ||
		fail "$t: only $4 unpack calls by debunpack" ;;
	*) fail "$t: no unpack call ($4)" ;;
	esac
done
