#!/bin/sh
# SPDX-License-Identifier: MIT
# dpkg's own functional test suite (dpkg's source, tests/) run twice, once
# with the real dpkg and once with the dpkg for apt (DPKGSHIM) first in
# PATH, each test from a fresh copy of the suite's database and instdir;
# a table says, per test, the two results and how many of its unpack
# calls the shim made with debunpack.  Exit 1 when a result differs, 3
# when the suite cannot be had or run here (no dpkg, make or dpkg-deb;
# no source to fetch it from), 0 when they all agree.  `make
# check-dpkg-suite` runs it, and tests/dpkgsuite-ci.sh a part of it;
# usage and environment:
#
#   tests/dpkgsuite.sh [TEST...]     (default: the suite's passing list)
#   DPKGSHIM        the built shim (required)
#   DEBUNPACK        the debunpack the shim is to run (default: from PATH)
#   DPKG_SUITE_SRC   a directory holding dpkg's tests/ (else fetched with
#                    apt-get source into DPKG_SUITE_CACHE, default
#                    /var/cache/debunpack-tests/dpkg-suite)
#   DPKG_SUITE_OUT   where the table, logs and call logs go (default
#                    ./dpkgsuite, emptied first)
#   DPKG_SUITE_JOBS  2 (default) runs the two passes side by side, 1 in turn
#   DPKG_SUITE_DB_IN_INSTDIR=1  (root) the suite's database bound at
#                    INSTDIR/var/lib/dpkg in both passes, for a shim that
#                    needs it there: the rest of the suite measured past
#                    that one limit
#
# The suite runs with its own settings (its own --admindir and --instdir,
# chrootless scripts): never with DPKG_AS_ROOT, which installs into /.
set -eu

me=dpkgsuite
die() {
	echo "$me: $*" >&2
	exit 1
}
# nosuite WHY: the suite cannot be had or run here.
nosuite() {
	echo "$me: $*" >&2
	exit 3
}

real_dpkg=$(command -v dpkg) || nosuite "no dpkg in PATH"
[ -n "${DPKGSHIM:-}" ] || die "DPKGSHIM: the dpkg for apt to test is not set"
[ -x "$DPKGSHIM" ] || die "cannot run the shim '$DPKGSHIM': not built?"
DPKGSHIM=$(cd "$(dirname "$DPKGSHIM")" && pwd)/$(basename "$DPKGSHIM")
: "${DEBUNPACK:=$(command -v debunpack || true)}"
[ -n "$DEBUNPACK" ] && [ -x "$DEBUNPACK" ] || die "cannot run debunpack '$DEBUNPACK'"
DEBUNPACK=$(cd "$(dirname "$DEBUNPACK")" && pwd)/$(basename "$DEBUNPACK")
for c in make dpkg-deb dpkg-query dpkg-divert; do
	command -v "$c" > /dev/null || nosuite "$c is missing (dpkg's suite runs it)"
done
out=${DPKG_SUITE_OUT:-$PWD/dpkgsuite}
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The host's "deb" sources as "deb-src" ones, in one-line and in deb822
# form (paragraphs with "Enabled: no" left out), for apt-get source.
deb_src_lines() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f"
	done
}
deb_src_paragraphs() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'function flush() {
			if (para != "" && deb && !off) printf "%s\n", para
			para = ""; deb = 0; off = 0
		}
		/^[[:space:]]*$/ { flush(); next }
		/^#/ { next }
		tolower($1) == "types:" {
			for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1
			$0 = "Types: deb-src"
		}
		tolower($1) == "enabled:" && tolower($2) == "no" { off = 1 }
		{ para = para $0 "\n" }
		END { flush() }' "$f"
	done
}

# fetch_suite: dpkg's source unpacked under the cache; its tests/ in $src.
fetch_suite() {
	cache=${DPKG_SUITE_CACHE:-/var/cache/debunpack-tests/dpkg-suite}
	for d in "$cache"/dpkg-*/tests; do
		[ -f "$d/Test.mk" ] && src=$d
	done
	[ -z "${src:-}" ] || return 0
	command -v apt-get > /dev/null || nosuite "no DPKG_SUITE_SRC and no apt-get to fetch dpkg's source"
	command -v dpkg-source > /dev/null ||
	    nosuite "dpkg-source (dpkg-dev) is needed to unpack dpkg's source"
	mkdir -p "$cache"
	a=$(mktemp -d "$cache/.fetch.XXXXXX")
	trap 'rm -rf "$a"' EXIT
	mkdir -p "$a/parts" "$a/lists/partial" "$a/cache/archives/partial" "$a/src"
	deb_src_lines > "$a/sources.list"
	deb_src_paragraphs > "$a/parts/host.sources"
	[ -s "$a/sources.list" ] || [ -s "$a/parts/host.sources" ] ||
	    nosuite "no deb sources in /etc/apt to derive deb-src ones from"
	set -- -q -o Dir::Etc::SourceList="$a/sources.list" \
	    -o Dir::Etc::SourceParts="$a/parts" -o Dir::State::Lists="$a/lists" \
	    -o Dir::Cache="$a/cache" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
	    -o APT::Sandbox::User=root
	apt-get "$@" update > "$a/update.log" 2>&1 ||
	    nosuite "apt-get update of the deb-src lists: $(tail -n 1 "$a/update.log")"
	(cd "$a/src" && apt-get "$@" source dpkg) > "$a/source.log" 2>&1 ||
	    nosuite "apt-get source dpkg: $(tail -n 1 "$a/source.log")"
	for d in "$a"/src/dpkg-*/tests; do
		[ -f "$d/Test.mk" ] || continue
		v=$(basename "$(dirname "$d")")
		rm -rf "${cache:?}/$v"
		mv "$(dirname "$d")" "$cache/$v"
		src=$cache/$v/tests
	done
	rm -rf "$a"
	trap - EXIT
	[ -n "${src:-}" ] || nosuite "apt-get source dpkg gave no tests/ directory"
}

if [ -n "${DPKG_SUITE_SRC:-}" ]; then
	src=$DPKG_SUITE_SRC
	[ -f "$src/Test.mk" ] || die "'$src' is not dpkg's tests/ directory (no Test.mk)"
else
	fetch_suite
fi
src=$(cd "$src" && pwd)
echo "$me: dpkg's suite from $src"

# The tests: those named, or the suite's own list of passing tests (its
# Makefile's TESTS without test-all).
if [ $# -gt 0 ]; then
	tests="$*"
else
	tests=$(printf 'print-tests:\n\t@echo $(TESTS)\n' |
	    env -u DPKG_TESTSUITE_OPTIONS -u DPKG_AS_ROOT -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	    make -s --no-print-directory -C "$src" -f Makefile -f - print-tests) ||
	    die "cannot read the list of tests from $src/Makefile"
fi
for t in $tests; do
	[ -f "$src/$t/Makefile" ] || die "no test '$t' in $src"
done

# The shim's side, observable: PATH's dpkg logs each call and runs the
# shim, DEBUNPACK logs each call and runs debunpack; the log of both
# says which of a test's unpack calls debunpack made.
bin=$out/bin
mkdir -p "$bin"
# For an unpack call, the shim is asked first why it would hand it on
# (DEBUNPACK_DPKG_DEBUG), with a dpkg and a debunpack that do nothing
# (but answer --help, which the shim reads debunpack's options from):
# its reason on a "why" line.  Its words cannot go on the test's stderr,
# which some tests compare.
cat > "$bin/dpkg" <<EOF
#!/bin/sh
printf 'dpkg' >> "$out/calls.log"
printf ' %s' "\$@" >> "$out/calls.log"
echo >> "$out/calls.log"
case " \$* " in
*" --unpack "* | *" --install "* | *" -i "*)
	why=\$(DEBUNPACK_DPKG_DEBUG=1 DEBUNPACK_DPKG=/bin/true DEBUNPACK="$bin/probe" \\
	    "$DPKGSHIM" "\$@" 2>&1 < /dev/null > /dev/null |
	    sed -n 's/^debunpack-dpkg: handed to [^:]*: //p' | head -n 1)
	[ -z "\$why" ] || echo "why \$why" >> "$out/calls.log"
esac
exec "$DPKGSHIM" "\$@"
EOF
cat > "$bin/debunpack" <<EOF
#!/bin/sh
printf 'debunpack' >> "$out/calls.log"
printf ' %s' "\$@" >> "$out/calls.log"
echo >> "$out/calls.log"
exec "$DEBUNPACK" "\$@"
EOF
# The probe's debunpack: it says what options it has (the shim asks),
# and does nothing else.
cat > "$bin/probe" <<EOF
#!/bin/sh
case \$1 in --help | --version) exec "$DEBUNPACK" "\$@" ;; esac
exit 1
EOF
chmod +x "$bin/dpkg" "$bin/debunpack" "$bin/probe"

# pass MODE: every test in a copy of the suite of its own, from the
# pristine database and instdir each time; "TEST pass|fail SECONDS" lines
# in $out/MODE.results, the test's output in $out/MODE/TEST.log.
pass() {
	p_mode=$1
	p_dir=$out/$p_mode.suite
	cp -a "$src" "$p_dir"
	cp -a "$p_dir/dpkgdb" "$out/$p_mode.db0"
	cp -a "$p_dir/dpkginst" "$out/$p_mode.inst0"
	mkdir -p "$out/$p_mode"
	: > "$out/$p_mode.results"
	for p_t in $tests; do
		rm -rf "$p_dir/dpkgdb" "$p_dir/dpkginst"
		cp -a "$out/$p_mode.db0" "$p_dir/dpkgdb"
		cp -a "$out/$p_mode.inst0" "$p_dir/dpkginst"
		if [ "${DPKG_SUITE_DB_IN_INSTDIR:-0}" = 1 ]; then
			mkdir -p "$p_dir/dpkginst/var/lib/dpkg"
			mount --bind "$p_dir/dpkgdb" "$p_dir/dpkginst/var/lib/dpkg" ||
			    die "cannot bind the database into the instdir of $p_t"
		fi
		[ "$p_mode" = real ] || echo "test $p_t" >> "$out/calls.log"
		p_start=$(date +%s.%N)
		if [ "$p_mode" = real ]; then
			p_path=$PATH
		else
			p_path=$bin:$PATH
		fi
		# The suite's make, not one under ours (make check-dpkg-suite).
		if env -u DPKG_TESTSUITE_OPTIONS -u DPKG_AS_ROOT -u MAKEFLAGS -u MFLAGS \
		    -u MAKELEVEL PATH="$p_path" \
		    DEBUNPACK="$bin/debunpack" DEBUNPACK_DPKG="$real_dpkg" \
		    make -C "$p_dir/$p_t" test < /dev/null > "$out/$p_mode/$p_t.log" 2>&1; then
			p_r=pass
		else
			p_r=fail
		fi
		if [ "${DPKG_SUITE_DB_IN_INSTDIR:-0}" = 1 ]; then
			umount "$p_dir/dpkginst/var/lib/dpkg" ||
			    die "cannot unmount $p_dir/dpkginst/var/lib/dpkg"
		fi
		echo "$p_t $p_r $p_start $(date +%s.%N)" |
		    awk '{ printf "%s %s %.1f\n", $1, $2, $4 - $3 }' >> "$out/$p_mode.results"
	done
}

if [ "${DPKG_SUITE_DB_IN_INSTDIR:-0}" = 1 ]; then
	[ "$(id -u)" = 0 ] || die "DPKG_SUITE_DB_IN_INSTDIR=1 needs root (mount --bind)"
	# A pass stopped half way leaves its bind mount: undone at exit.
	trap 'for m in "$out"/*.suite/dpkginst/var/lib/dpkg; do
		mountpoint -q "$m" 2> /dev/null && umount "$m"; done' EXIT
	trap 'exit 1' INT TERM
fi
: > "$out/calls.log"
start=$(date +%s)
if [ "${DPKG_SUITE_JOBS:-2}" = 1 ]; then
	pass real
	pass shim
else
	pass real &
	realpid=$!
	pass shim
	wait $realpid || die "the pass with the real dpkg failed"
fi
end=$(date +%s)

# The table.  "handled": of the test's dpkg calls that unpack (--unpack,
# --install, -i), how many debunpack runs there were for them, as D/U.
awk -v realf="$out/real.results" -v shimf="$out/shim.results" '
	BEGIN {
		while ((getline l < realf) > 0) { split(l, f, " "); real[f[1]] = f[2]; rt[f[1]] = f[3] }
		while ((getline l < shimf) > 0) { split(l, f, " "); shim[f[1]] = f[2]; st[f[1]] = f[3]; order[++n] = f[1] }
	}
	$1 == "test" { t = $2; next }
	$1 == "dpkg" {
		for (i = 2; i <= NF; i++)
			if ($i == "--unpack" || $i == "--install" || $i == "-i") { u[t]++; break }
		next
	}
	$1 == "why" {
		$1 = ""; sub(/^ /, "")
		if (!(t in why)) why[t] = $0
		reasons[$0]++
		next
	}
	$1 == "debunpack" {
		q = 0
		for (i = 2; i <= NF; i++)
			if ($i ~ /^--(list|owner|verify|files|contents|help|version)$/) q = 1
		if (!q) d[t]++
	}
	END {
		printf "%-46s %-5s %-5s %-8s %6s %6s\n", "test", "dpkg", "shim", "handled", "s-dpkg", "s-shim"
		for (i = 1; i <= n; i++) {
			t = order[i]
			h = (u[t] + 0 == 0) ? "-" : sprintf("%d/%d", d[t] + 0, u[t])
			mark = (real[t] != shim[t]) ? "  DIFFERS" : ""
			printf "%-46s %-5s %-5s %-8s %6s %6s%s%s\n", t, real[t], shim[t], h, rt[t], st[t], mark,
			    (t in why) ? "  handed on: " why[t] : ""
			tests++
			if (real[t] == "pass") rp++
			if (shim[t] == "pass") sp++
			if (real[t] != shim[t]) diff++
			if (u[t] > 0 && d[t] >= u[t]) all++
			else if (d[t] > 0) some++
			else if (u[t] > 0) none++
		}
		printf "\ntests: %d; pass with dpkg: %d; pass with the shim: %d; differ: %d\n", tests, rp, sp, diff
		printf "unpacks all by debunpack: %d tests; some: %d; none (real dpkg): %d\n", all, some, none
		for (r in reasons)
			printf "unpack calls handed on, %d: %s\n", reasons[r], r
	}' "$out/calls.log" > "$out/table"
echo "time: $((end - start)) s" >> "$out/table"
cat "$out/table"
if grep -q ' DIFFERS$' "$out/table"; then
	echo "$me: the shim's results differ from dpkg's (logs: $out/real, $out/shim)" >&2
	exit 1
fi
exit 0
