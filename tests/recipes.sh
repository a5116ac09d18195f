#!/bin/sh
# SPDX-License-Identifier: MIT
# README's recipes for apt through debunpack, run as README writes them:
# debunpack's own .deb is made as the Debian package lays it out (a build
# of this tree for /usr, packed with dpkg-deb), and put in a flat mirror
# of the minbase packages with what it and the recipes need.  The
# Dockerfile's instructions (ENV, COPY, RUN) run in a chroot of a minbase
# root as docker runs them on debian:bookworm; the sbuild tarball is built
# by debunpack-bootstrap --dpkg-for-apt and holds the setting; the plain
# chroot and the throwaway root (apt under debunpack-nosync) run their
# lines.  After each, apt-get install went through debunpack's dpkg: its
# unpack either ran debunpack (the package's record is there) or was
# handed on only because debunpack lacks the options it needs (another
# part's); and --dpkg-for-apt from the mirror by name, and refused
# without debunpack.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "not root: chroot, bind mounts and the bootstrap need root"
for c in apt-get apt-ftparchive dpkg-scanpackages dpkg-deb dpkg-shlibdeps chroot make; do
	command -v "$c" > /dev/null || skip "$c missing"
done
[ -x "${BOOTSTRAP:-}" ] && [ -x "${DEBUNPACK_NOSYNC:-}" ] ||
    skip "debunpack-bootstrap not built"
"$DEBUNPACK_NOSYNC" true 2> "$T/nosync.err" ||
    skip "no seccomp filter here: $(cat "$T/nosync.err")"
export DEBUNPACK DEBUNPACK_NOSYNC
TMPDIR=$T
export TMPDIR
top=$(cd "${srcdir:-.}" && pwd)
[ -x "$top/configure" ] || skip "no configure in $top"
arch=$(dpkg --print-architecture)

# debunpack's .deb with the Debian package's paths (/usr/bin,
# /usr/libexec/debunpack, /usr/share/doc/debunpack, /etc/dpkg), which
# README's recipes name: this tree configured for them and installed
# into a staging tree, its library dependencies from dpkg-shlibdeps.
mkdir "$T/build" "$T/stage" "$T/ctx"
(cd "$T/build" && "$top/configure" -q --prefix=/usr --sysconfdir=/etc \
    --localstatedir=/var --libexecdir=/usr/libexec \
    --with-bash-completion-dir=/usr/share/bash-completion/completions &&
    make -s -j2 install DESTDIR="$T/stage") > "$T/build.log" 2>&1 ||
    fail "building debunpack for /usr: $(tail -n 5 "$T/build.log")"
version=$("$T/build/debunpack" --version | sed -n '1s/^debunpack \([^ ]*\).*/\1/p')
[ -n "$version" ] || fail "no version from the /usr build's debunpack"
mkdir -p "$T/shl/debian" "$T/stage/DEBIAN"
cp "$top/debian/control" "$T/shl/debian/"
deps=$(cd "$T/shl" && dpkg-shlibdeps -O -e "$T/stage/usr/bin/debunpack" \
    -e "$T/stage/usr/libexec/debunpack/debunpack-nosync" \
    -e "$T/stage/usr/libexec/debunpack/dpkg" 2> /dev/null |
    sed -n 's/^shlibs:Depends=//p')
[ -n "$deps" ] || fail "dpkg-shlibdeps found no dependencies"
cat > "$T/stage/DEBIAN/control" <<CTL
Package: debunpack
Version: $version
Architecture: $arch
Maintainer: debunpack developers <debunpack@example.org>
Depends: $deps
Description: install .deb packages into a root, durably and fast
 The build of this tree that tests/recipes.sh installs.
CTL
deb=$T/ctx/debunpack_${version}_$arch.deb
dpkg-deb --root-owner-group -Zgzip --build "$T/stage" "$deb" > "$T/debbuild.log" 2>&1 ||
    fail "dpkg-deb --build: $(cat "$T/debbuild.log")"
dpkg-deb -c "$deb" > "$T/contents"
grep -q ' \./usr/libexec/debunpack/dpkg$' "$T/contents" ||
    fail "the .deb holds no /usr/libexec/debunpack/dpkg"
echo "ok debunpack_${version}_$arch.deb built for /usr"

# The mirror: minbase, what debunpack and the recipes need beyond it
# (cached like minbase's, so that every run installs the same versions
# until the cache is removed), and debunpack's .deb, for --include by
# name.
extra="libarchive13 libxml2 libicu72 libssl3 less"
minbase_debs
xcache=${RECIPES_CACHE:-/var/cache/debunpack-tests/recipes}
mkdir -p "$xcache"
missing=""
for p in $extra; do
	set -- "$xcache/${p}"_*.deb
	[ -f "$1" ] || missing="$missing $p"
done
if [ -n "$missing" ]; then
	# shellcheck disable=SC2086 # one word per package
	timed xdownload sh -c 'cd "$1" && shift && exec apt-get download -q \
	    -o APT::Sandbox::User=root "$@"' sh "$xcache" $missing ||
	    skip "cannot download$missing: $(tail -n 1 "$T/xdownload.log")"
fi
mirror=$T/mirror
minbase_mirror "$mirror"
for p in $extra; do
	set -- "$xcache/${p}"_*.deb
	[ $# = 1 ] || fail "expected one ${p}_*.deb in $xcache"
	cp "$1" "$mirror/"
done
cp "$deb" "$mirror/"
(cd "$mirror" && sh "$top/bench/override.sh" ./*.deb > .override &&
    dpkg-scanpackages -m . .override > Packages 2> /dev/null &&
    apt-ftparchive release . > Release) || fail "cannot index the mirror"
src="deb [trusted=yes] file:$mirror ./"

# block TITLE: README's indented block after the line that starts with
# TITLE, its indent taken off.
block() {
	awk -v t="$1" 'on == 0 && index($0, t) == 1 { on = 1; next }
	    on == 1 && /^$/ { on = 2; next }
	    on == 2 && /^    / { sub(/^    /, ""); print; next }
	    on == 2 { exit }' "$top/README" > "$T/block"
	[ -s "$T/block" ] || fail "README has no block after '$1'"
}

# Every root's apt reads the test's mirror at its path on the host.
mounts=""
# shellcheck disable=SC2317 # called through cleanup_hooks
unmount_all() {
	for m in $mounts; do
		umount "$m" 2> /dev/null || umount -l "$m" 2> /dev/null
	done
}
cleanup_hooks="unmount_all; $cleanup_hooks"
bind_mirror() {
	mkdir -p "$1$mirror"
	mount --bind "$mirror" "$1$mirror" || fail "cannot bind the mirror into $1"
	mounts="$1$mirror $mounts"
}
unbind_mirror() {
	umount "$1$mirror" || fail "cannot unmount $1$mirror"
	mounts=$(echo " $mounts " | sed "s| $1$mirror | |")
	rm -rf "${1:?}${mirror%/mirror}"
}

# inroot ROOT LOG CMD: CMD through /bin/sh in ROOT as docker runs a RUN
# (an environment of the image's, HOME=/root, in /), with the variables
# of $envs and DEBUNPACK_DPKG_DEBUG (the shim says why it hands a call
# on), appending to LOG.
envs=""
inroot() {
	# shellcheck disable=SC2086 # NAME=VALUE words without blanks
	(cd "$1" && env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	    HOME=/root LC_ALL=C.UTF-8 $envs DEBUNPACK_DPKG_DEBUG=1 \
	    chroot "$1" /bin/sh -c "cd / && $3") >> "$2" 2>&1 < /dev/null
}

# through_shim ROOT LOG PKG: PKG is installed and configured in ROOT by
# an apt-get whose output is LOG, through debunpack's dpkg: it ran (it
# says why it handed the --configure call on), and PKG's unpack ran
# debunpack (its record is there) or was handed on only because the
# debunpack at hand lacks the options the call needs.
through_shim() {
	ts_st=$(chroot "$1" dpkg-query -W -f '${db:Status-Abbrev}' "$3" 2> /dev/null) || ts_st=""
	[ "$ts_st" = "ii " ] || fail "$3 is not installed in $1: '$ts_st': $(tail -n 5 "$2")"
	grep -q '^debunpack-dpkg: handed to [^:]*: action --configure' "$2" ||
	    fail "$1: apt did not run debunpack's dpkg: $(tail -n 5 "$2")"
	grep '^debunpack-dpkg: handed to ' "$2" |
	    grep -v '^debunpack-dpkg: handed to [^:]*: \(action --\|debunpack lacks \)' > "$T/why" &&
	    fail "$1: the shim handed an unpack to dpkg: $(cat "$T/why")"
	if [ -e "$1/var/lib/debunpack/$3.record" ]; then
		ts_how="debunpack unpacked it"
	else
		ts_how=$(sed -n 's/^debunpack-dpkg: handed to [^:]*: \(debunpack lacks .*\)/\1/p' "$2" | head -n 1)
		[ -n "$ts_how" ] || fail "$1: $3 neither unpacked by debunpack nor handed on for want of options"
		ts_how="handed to dpkg: $ts_how"
	fi
}

# The Dockerfile: FROM is the minbase root (debian:bookworm's stand-in),
# ENV, COPY (from the build context, the .deb's directory) and RUN are
# done in it as docker does them; any other instruction fails the test.
block "A Docker image"
awk '/\\$/ { sub(/\\$/, ""); line = line $0 " "; next }
    { print line $0; line = "" }' "$T/block" > "$T/Dockerfile"
grep -q '^FROM debian:bookworm$' "$T/Dockerfile" || fail "README's Dockerfile is not FROM debian:bookworm"
timed docker-root "$BOOTSTRAP" -q --variant=minbase "" "$T/docker" "$src" ||
    fail "bootstrap: $(tail -n 5 "$T/docker-root.log")"
D=$T/docker
bind_mirror "$D"
: > "$T/docker.log"
nrun=0
while read -r instr rest; do
	case $instr in
	FROM) ;;
	ENV) envs="$envs $rest" ;;
	COPY)
		# shellcheck disable=SC2086 # the instruction's words, globbed in the context
		set -- $(cd "$T/ctx" && echo $rest)
		[ $# = 2 ] || fail "COPY $rest: not one file and a directory"
		cp "$T/ctx/$1" "$D$2" || fail "COPY $rest" ;;
	RUN)
		nrun=$((nrun + 1))
		: > "$T/run$nrun.log"
		inroot "$D" "$T/run$nrun.log" "$rest" ||
		    fail "RUN $rest: exit $?: $(tail -n 5 "$T/run$nrun.log")" ;;
	*) fail "README's Dockerfile has $instr, which the test does not do" ;;
	esac
done < "$T/Dockerfile"
[ "$nrun" = 2 ] || fail "README's Dockerfile has $nrun RUNs, not 2"
[ ! -e "$D/tmp/$(basename "$deb")" ] || fail "the Dockerfile left the .deb in /tmp"
grep -q '^Dir::Bin::dpkg "/usr/libexec/debunpack/dpkg";$' "$D/etc/apt/apt.conf.d/50debunpack" ||
    fail "the Dockerfile did not turn the setting on"
through_shim "$D" "$T/run2.log" less
unbind_mirror "$D"
envs=""
echo "ok README's Dockerfile, in a chroot: less through debunpack's dpkg ($ts_how)"
