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
# part's).  Then --dpkg-for-apt with debunpack from the mirror by name,
# and a debunpack whose package has no apt setting failing the build
# (the refusals before anything is written are tests/bootstrap-cli.sh's).
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
# into a staging tree (in the background, while the first root is
# built), its library dependencies from dpkg-shlibdeps.
mkdir "$T/build" "$T/stage" "$T/ctx"
(cd "$T/build" && "$top/configure" -q --prefix=/usr --sysconfdir=/etc \
    --localstatedir=/var --libexecdir=/usr/libexec \
    --with-bash-completion-dir=/usr/share/bash-completion/completions &&
    make -s -j2 install DESTDIR="$T/stage") > "$T/build.log" 2>&1 < /dev/null &
buildpid=$!
cleanup_hooks="kill $buildpid 2> /dev/null; wait $buildpid 2> /dev/null; $cleanup_hooks"

# The mirror: minbase and what debunpack and the recipes need beyond it
# (cached like minbase's, so that every run installs the same versions
# until the cache is removed); debunpack's .deb joins it once built, for
# --include by name.
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
reindex() {
	(cd "$mirror" && sh "$top/bench/override.sh" ./*.deb > .override &&
	    dpkg-scanpackages -m . .override > Packages 2> /dev/null &&
	    apt-ftparchive release . > Release) || fail "cannot index the mirror"
}
reindex
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
# says how the --configure call went to dpkg), and PKG's unpack ran
# debunpack (its record is there): this tree's debunpack has every
# option the shim needs, so no unpack may be handed on.
through_shim() {
	ts_st=$(chroot "$1" dpkg-query -W -f '${db:Status-Abbrev}' "$3" 2> /dev/null) || ts_st=""
	[ "$ts_st" = "ii " ] || fail "$3 is not installed in $1: '$ts_st': $(tail -n 5 "$2")"
	grep -Eq '^debunpack-dpkg: (handed to [^:]*: action )?--configure' "$2" ||
	    fail "$1: apt did not run debunpack's dpkg: $(tail -n 5 "$2")"
	grep '^debunpack-dpkg: handed to ' "$2" |
	    grep -v '^debunpack-dpkg: handed to [^:]*: action --' > "$T/why" &&
	    fail "$1: the shim handed an unpack to dpkg: $(cat "$T/why")"
	[ -e "$1/var/lib/debunpack/$3.record" ] ||
	    fail "$1: $3 was not unpacked by debunpack"
	ts_how="debunpack unpacked it"
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
wait $buildpid || fail "building debunpack for /usr: $(tail -n 5 "$T/build.log")"
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
cp "$deb" "$mirror/"
reindex
bind_mirror "$D"
: > "$T/docker.log"
nrun=0
while read -r instr rest; do
	case $instr in
	FROM) ;;
	ENV) envs="$envs $rest" ;;
	COPY)
		# shellcheck disable=SC2046,SC2086 # the instruction's words, globbed in the context
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

# recipe_lines TITLE: README's block after TITLE, one command a line
# (continuations joined), into $T/lines.
recipe_lines() {
	block "$1"
	awk '/\\$/ { sub(/\\$/, ""); line = line $0; next }
	    { print line $0; line = "" }' "$T/block" > "$T/lines"
}
# bootstrap_line LINE: README's debunpack-bootstrap LINE with the test's
# mirror for the suite's archive, and minbase for the variant (the
# mirror has no more); the rest as written.
bootstrap_line() {
	printf '%s\n' "$1" | grep -q '^debunpack-bootstrap .* bookworm ' ||
	    fail "not a debunpack-bootstrap line for bookworm: $1"
	printf '%s "%s"\n' "$1" "$src" |
	    sed -e "s|^debunpack-bootstrap |'$BOOTSTRAP' -q |" \
		-e 's| --variant=[a-z]* | --variant=minbase |' -e 's| bookworm | "" |'
}
# setting_on ROOT: ROOT's apt runs debunpack's dpkg, which is there.
setting_on() {
	chroot "$1" apt-config dump > "$T/aptconfig" 2>&1 || fail "apt-config in $1: $(cat "$T/aptconfig")"
	grep -qx 'Dir::Bin::dpkg "/usr/libexec/debunpack/dpkg";' "$T/aptconfig" ||
	    fail "$1: apt's dpkg is $(grep '^Dir::Bin::dpkg ' "$T/aptconfig")"
	[ -x "$1/usr/libexec/debunpack/dpkg" ] || fail "$1: no /usr/libexec/debunpack/dpkg"
}

# sbuild's tarball: README's commands with HOME in the test, from the
# .deb's directory; the setting is in the tarball, and apt-get install in
# an unpacked copy (what sbuild does for the build dependencies) goes
# through the shim.
recipe_lines "sbuild's unshare mode"
mkdir "$T/home"
: > "$T/sbuild.log"
while IFS= read -r line; do
	case $line in debunpack-bootstrap*) line=$(bootstrap_line "$line") ;; esac
	(cd "$T/ctx" && env HOME="$T/home" sh -c "$line") >> "$T/sbuild.log" 2>&1 < /dev/null ||
	    fail "$line: exit $?: $(tail -n 5 "$T/sbuild.log")"
done < "$T/lines"
tarball=$T/home/.cache/sbuild/bookworm-amd64.tar.zst
[ -f "$tarball" ] || fail "no $tarball: $(ls -R "$T/home")"
zstd -dc < "$tarball" | tar -xOf - ./etc/apt/apt.conf.d/50debunpack > "$T/setting" ||
    fail "no etc/apt/apt.conf.d/50debunpack in the tarball"
grep -qx 'Dir::Bin::dpkg "/usr/libexec/debunpack/dpkg";' "$T/setting" ||
    fail "the tarball's setting: $(cat "$T/setting")"
S=$T/sbuild-copy
mkdir "$S"
zstd -dc < "$tarball" | tar -C "$S" --numeric-owner -xpf - || fail "cannot unpack the tarball"
setting_on "$S"
bind_mirror "$S"
: > "$T/sbuild-apt.log"
inroot "$S" "$T/sbuild-apt.log" "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y less" ||
    fail "apt-get install in the tarball's copy: $(tail -n 5 "$T/sbuild-apt.log")"
through_shim "$S" "$T/sbuild-apt.log" less
unbind_mirror "$S"
echo "ok README's sbuild tarball has the setting; in a copy, less through debunpack's dpkg ($ts_how)"

# The plain chroot, /srv/chroot in the test; the throwaway root's line
# in a copy of it, made before its apt-get lines.
recipe_lines "name.) The same for a plain chroot"
C=$T/srv/chroot/bookworm
: > "$T/chroot.log"
while IFS= read -r line; do
	case $line in
	debunpack-bootstrap*)
		mkdir -p "$T/srv/chroot"
		line=$(bootstrap_line "$line" | sed "s| /srv/chroot/| $T/srv/chroot/|")
		(cd "$T/ctx" && sh -c "$line") >> "$T/chroot.log" 2>&1 < /dev/null ||
		    fail "$line: exit $?: $(tail -n 5 "$T/chroot.log")"
		setting_on "$C"
		cp -a "$C" "$T/ci" || fail "cannot copy the chroot"
		bind_mirror "$C"
		continue ;;
	"chroot /srv/chroot/bookworm "*) line=$(printf '%s\n' "$line" | sed "s|^chroot /srv/|chroot $T/srv/|") ;;
	*) fail "README's chroot recipe has '$line', which the test does not do" ;;
	esac
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
	    DEBIAN_FRONTEND=noninteractive DEBUNPACK_DPKG_DEBUG=1 sh -c "$line" \
	    >> "$T/chroot.log" 2>&1 < /dev/null ||
	    fail "$line: exit $?: $(tail -n 5 "$T/chroot.log")"
done < "$T/lines"
through_shim "$C" "$T/chroot.log" less
unbind_mirror "$C"
echo "ok README's plain chroot: less through debunpack's dpkg ($ts_how)"

# The throwaway root: README's line inside the copy (its lists read
# first).  What apt's children get is seen by a Pre-Invoke command of
# the test's: debunpack-nosync's mark and the sync mode for the shim.
recipe_lines "A throwaway root"
[ "$(wc -l < "$T/lines")" = 1 ] || fail "README's throwaway root is not one line: $(cat "$T/lines")"
ci=$(cat "$T/lines")
bind_mirror "$T/ci"
echo 'DPkg::Pre-Invoke { "env | grep ^DEBUNPACK_ | sort > /tmp/recipes-env"; };' \
    > "$T/ci/etc/apt/apt.conf.d/99recipes-observe"
: > "$T/ci.log"
inroot "$T/ci" "$T/ci.log" "apt-get update" || fail "apt-get update: $(tail -n 5 "$T/ci.log")"
: > "$T/ci.log"
envs="DEBIAN_FRONTEND=noninteractive"
inroot "$T/ci" "$T/ci.log" "$ci" || fail "$ci: exit $?: $(tail -n 5 "$T/ci.log")"
envs=""
through_shim "$T/ci" "$T/ci.log" less
grep -qx DEBUNPACK_NOSYNC_ACTIVE=1 "$T/ci/tmp/recipes-env" &&
    grep -qx DEBUNPACK_SYNC_MODE=none "$T/ci/tmp/recipes-env" ||
    fail "apt's dpkg calls are not under debunpack-nosync with sync mode none: $(cat "$T/ci/tmp/recipes-env")"
unbind_mirror "$T/ci"
echo "ok README's throwaway root: less through debunpack's dpkg under debunpack-nosync ($ts_how)"

# --dpkg-for-apt with debunpack by name, from the mirror.
timed byname "$BOOTSTRAP" -q --variant=minbase --dpkg-for-apt --include=debunpack \
    "" "$T/byname" "$src" || fail "--include=debunpack: $(tail -n 5 "$T/byname.log")"
setting_on "$T/byname"
[ "$(chroot "$T/byname" dpkg-query -W -f '${Version}' debunpack)" = "$version" ] ||
    fail "--include=debunpack: not the mirror's debunpack"
echo "ok --dpkg-for-apt with debunpack from the mirror by name"

# The same through mmdebstrap's hook (DEBUNPACK_DPKG_FOR_APT), and apt in
# that root installs through debunpack's dpkg.
if command -v mmdebstrap > /dev/null && [ -x "${MMHOOKDIR:-}/extract00.sh" ]; then
	timed mmhook env DEBUNPACK_BOOTSTRAP="$BOOTSTRAP" DEBUNPACK_VARIANT=minbase \
	    DEBUNPACK_INCLUDE=debunpack DEBUNPACK_DPKG_FOR_APT=1 \
	    unshare -n mmdebstrap -q --mode=root --variant=custom \
	    --hook-dir="$MMHOOKDIR" \
	    --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
	    "" "$T/mmhook" "$src" || fail "mmdebstrap's hook: $(tail -n 5 "$T/mmhook.log")"
	setting_on "$T/mmhook"
	bind_mirror "$T/mmhook"
	: > "$T/mmhook-apt.log"
	inroot "$T/mmhook" "$T/mmhook-apt.log" "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y less" ||
	    fail "apt-get install in mmdebstrap's root: $(tail -n 5 "$T/mmhook-apt.log")"
	through_shim "$T/mmhook" "$T/mmhook-apt.log" less
	unbind_mirror "$T/mmhook"
	echo "ok mmdebstrap's hook with DEBUNPACK_DPKG_FOR_APT=1: less through debunpack's dpkg ($ts_how)"
else
	echo "# mmdebstrap's hook not tried: no mmdebstrap or hook directory"
fi

# A debunpack whose package ships no apt setting fails the build in one
# line, the root left marked unfinished.
fake=$(make_pkg -o debunpack-fake debunpack 0.0.1 'file /usr/bin/debunpack 0755 text:#!/bin/sh')
rc=0
"$BOOTSTRAP" -q --variant=essential --dpkg-for-apt --include="$fake" "" "$T/nosetting" "$src" \
    > "$T/nosetting.log" 2>&1 < /dev/null || rc=$?
[ "$rc" = 1 ] || fail "a debunpack without the setting: exit $rc: $(tail -n 5 "$T/nosetting.log")"
[ "$(cat "$T/nosetting.log")" = "debunpack-bootstrap: --dpkg-for-apt: the root's debunpack ships no apt setting (examples/apt.conf.d/50debunpack)" ] ||
    fail "a debunpack without the setting: $(cat "$T/nosetting.log")"
[ -e "$T/nosetting/.debunpack-bootstrap-unfinished" ] || fail "a debunpack without the setting: root not marked unfinished"
echo "ok --dpkg-for-apt fails on a debunpack without the setting"
