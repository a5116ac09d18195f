#!/bin/sh
# SPDX-License-Identifier: MIT
# debunpack's own .deb: build it from a copy of the working tree with
# dpkg-buildpackage, check what it holds, and install it with the freshly
# built debunpack into a scratch root, where the installed program must run.
# Not part of make check (a package build takes minutes); tests/run.sh
# calls it.  DEBUNPACK names the program to install with (default
# build/debunpack).  Exit 77 when it cannot run here.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
debunpack=${DEBUNPACK:-$top/build/debunpack}

skip() {
	echo "debbuild: SKIP: $*"
	exit 77
}
fail() {
	echo "debbuild: FAIL: $*" >&2
	exit 1
}

command -v dpkg-buildpackage > /dev/null || skip "no dpkg-buildpackage (dpkg-dev)"
[ -x "$debunpack" ] || fail "no $debunpack: build it first"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/debunpack-debbuild.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# The source: the files git knows of, committed or not yet (git archive
# would miss the uncommitted ones), without generated and built ones nor
# untracked build directories.
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src=$tmp/debunpack-$version
mkdir "$src"
if git -C "$top" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	(cd "$top" && { git ls-files -z --cached
	    git ls-files -z --others --exclude-standard | grep -zv '^build[^/]*/'
	    } | xargs -0 sh -c 'for f; do
		{ [ -e "$f" ] || [ -L "$f" ]; } && printf "%s\0" "$f"
	    done' sh |
	    tar --null -T - -cf -) | tar -xf - -C "$src"
else
	(cd "$top" && tar --exclude='./build*' --exclude=./autom4te.cache \
	    -cf - .) | tar -xf - -C "$src"
fi

# Build dependencies: installed when root, else they must be there.
if ! (cd "$src" && dpkg-checkbuilddeps) 2> "$tmp/unmet"; then
	[ "$(id -u)" = 0 ] && command -v apt-get > /dev/null ||
	    skip "$(cat "$tmp/unmet")"
	echo "debbuild: installing the build dependencies"
	DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq \
	    --no-install-recommends "$src" > "$tmp/apt.log" 2>&1 ||
	    { cat "$tmp/apt.log"; fail "apt-get build-dep"; }
	(cd "$src" && dpkg-checkbuilddeps) || fail "build dependencies still unmet"
fi

(cd "$src" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -us -uc) \
    > "$tmp/build.log" 2>&1 || { tail -n 60 "$tmp/build.log"; fail "dpkg-buildpackage"; }
arch=$(dpkg-architecture -q DEB_HOST_ARCH)
deb=$tmp/debunpack_${version}_$arch.deb
[ -f "$deb" ] || fail "no $(basename "$deb"): $(ls "$tmp")"

dpkg-deb -c "$deb" | awk '{ print $6 }' > "$tmp/contents"
for f in ./usr/bin/debunpack ./usr/share/man/man1/debunpack.1.gz \
    ./usr/share/bash-completion/completions/debunpack \
    ./usr/bin/debunpack-bootstrap ./usr/share/man/man1/debunpack-bootstrap.1.gz \
    ./usr/libexec/debunpack/debunpack-nosync \
    ./usr/libexec/debunpack/dpkg ./usr/share/man/man8/debunpack-dpkg.8.gz \
    ./usr/libexec/debunpack/decode-ahead \
    ./usr/share/doc/debunpack/examples/apt.conf.d/50debunpack \
    ./usr/share/debunpack/mmdebstrap/extract00.sh; do
	grep -qx "$f" "$tmp/contents" || fail "$f not in $(basename "$deb")"
done
[ "$(dpkg-deb -f "$deb" Package Version)" = "Package: debunpack
Version: $version" ] || fail "control: $(dpkg-deb -f "$deb")"
# The packaged man page names the packaged hook directory.
dpkg-deb --fsys-tarfile "$deb" |
    tar -xOf - ./usr/share/man/man1/debunpack-bootstrap.1.gz | gzip -dc |
    grep -q '^\.Fl -hook-dir Ns = Ns Pa /usr/share/debunpack/mmdebstrap ,$' ||
    fail "the man page does not name /usr/share/debunpack/mmdebstrap"

# apt's setting, not enabled, names the packaged shim.
dpkg-deb --fsys-tarfile "$deb" |
    tar -xOf - ./usr/share/doc/debunpack/examples/apt.conf.d/50debunpack |
    grep -qx 'Dir::Bin::dpkg "/usr/libexec/debunpack/dpkg";' ||
    fail "50debunpack does not name /usr/libexec/debunpack/dpkg"
dpkg-deb --fsys-tarfile "$deb" |
    tar -xOf - ./usr/share/doc/debunpack/examples/apt.conf.d/50debunpack |
    grep -qx 'DPkg::Pre-Install-Pkgs:: "/usr/libexec/debunpack/decode-ahead";' ||
    fail "50debunpack does not name /usr/libexec/debunpack/decode-ahead"
! grep -qx '\./etc/apt/.*' "$tmp/contents" || fail "the package enables apt's setting"

# Install it as a user would, dpkg's database too when this debunpack
# keeps one.
mkdir "$tmp/root"
set -- --root "$tmp/root"
"$debunpack" --help | grep -q -- --dpkg-db && set -- "$@" --dpkg-db
"$debunpack" -q "$@" "$deb" || fail "debunpack $* $(basename "$deb")"
"$tmp/root/usr/bin/debunpack" --version > "$tmp/version" ||
    fail "installed debunpack --version: exit $?"
grep -q "^debunpack $version" "$tmp/version" ||
    fail "installed debunpack --version: $(cat "$tmp/version")"
case " $* " in
*" --dpkg-db "*)
	grep -qx 'Package: debunpack' "$tmp/root/var/lib/dpkg/status" ||
	    fail "debunpack not in the root's dpkg status"
	grep -qx /usr/bin/debunpack "$tmp/root/var/lib/dpkg/info/debunpack.list" ||
	    fail "/usr/bin/debunpack not in debunpack.list"
	;;
esac
echo "debbuild: $(basename "$deb") builds, holds the program, its man pages (with its paths) and completion, and installs"
