#!/bin/sh
# SPDX-License-Identifier: MIT
# Multi-Arch: same pairs, as dpkg keeps them: the instances NAME:ARCH of
# one package are separate packages that own the paths they both ship
# together (a file of the same content, a directory, a symlink to the
# same target), refuse a shared file whose content differs in dpkg's
# words, and keep a shared path while one instance still lists it.  An
# instance unpacked at another version than its pair deconfigures it.
# Twin roots, one given to dpkg -i and one to the dpkg for apt
# (DPKGSHIM), with a foreign architecture in var/lib/dpkg/arch, must
# succeed or fail alike and hold the same tree, status, info files and
# lists, byte for byte; real libraries of the archive too.  How many
# steps the dpkg for apt handed to dpkg is told at the end.
. "${srcdir:-.}/tests/lib.sh"

arch_twins_ready

# view ROOT: the tree (content of files, targets of symlinks), the
# status file as written, every info file of dpkg's database.  dpkg
# writes its status in its own order, so an instance's stanza must be
# where dpkg puts it; the info files are compared whole.
view() {
	tree_view "$1"
	echo "== status"
	cat "$1/var/lib/dpkg/status"
	echo "== info"
	(cd "$1/var/lib/dpkg/info" && for f in *; do
		[ -f "$f" ] || continue
		echo "$f:"
		cat "$f"
	done)
	echo "== owners"
	twin_owners "$1"
}

compare() {
	view "$T/dpkg" > "$T/theirs.view"
	view "$T/ours" > "$T/ours.view"
	diff -u "$T/theirs.view" "$T/ours.view" ||
	    fail "$1: not what dpkg leaves; dpkg said: $(cat "$T/dpkg.out"); ours said: $(cat "$T/ours.out")"
}

# fresh: twin roots that take $foreign.
fresh() {
	twin_new
	for r in "$T/ours" "$T/dpkg"; do
		dpkg_root "$r" --add-architecture "$foreign"
	done
}

handed=0 steps=0
# step NAME ACTION [OPTION...] ID...: dpkg ACTION (-i, -r, -P, ...) in
# one root, the dpkg for apt's in the other.  Both succeed or both fail;
# $T/ours.out and $T/dpkg.out hold what each said.
step() {
	name=$1 action=$2
	shift 2
	args=""
	for id; do
		case $id in
		--*) args="$args $id" ;;
		*:*) args="$args $id" ;;
		*) args="$args $T/$id.deb" ;;
		esac
	done
	set +e
	# shellcheck disable=SC2086 # one word per option and package
	dpkg_in "$T/dpkg" $action $args > "$T/dpkg.out" 2>&1
	theirs=$?
	# shellcheck disable=SC2086
	PATH=$PATH:/usr/sbin:/sbin DEBUNPACK_DPKG_DEBUG=1 "$DPKGSHIM" \
	    --root="$T/ours" --force-not-root --force-script-chrootless \
	    --log=/dev/null $action $args > "$T/ours.out" 2>&1 < /dev/null
	ours=$?
	set -e
	steps=$((steps + 1))
	! grep -q "handed to" "$T/ours.out" || handed=$((handed + 1))
	[ $theirs = 0 ] || [ $ours != 0 ] ||
	    fail "$name: ours succeeded, dpkg failed: $(cat "$T/dpkg.out"); ours said: $(cat "$T/ours.out")"
	[ $theirs != 0 ] || [ $ours = 0 ] ||
	    fail "$name: dpkg succeeded, ours failed: $(cat "$T/ours.out")"
	compare "$name"
}

# said NAME TEXT: ours said TEXT (a fixed string) as dpkg did.
said() {
	grep -qF -- "$2" "$T/dpkg.out" || fail "$1: dpkg did not say '$2'"
	grep -qF -- "$2" "$T/ours.out" ||
	    fail "$1: ours did not say '$2': $(cat "$T/ours.out")"
}

# mpkg ID NAME ARCH VERSION CONFFILES ENTRY...: a Multi-Arch: same
# package of ARCH (tests/lib.sh's twin_pkg entries).
mpkg() {
	mp_id=$1 mp_name=$2 mp_arch=$3 mp_ver=$4 mp_conff=$5
	shift 5
	twin_pkg -a "$mp_arch" "$mp_id" "$mp_name" "$mp_ver" "Multi-Arch same" \
	    "$mp_conff" "$@"
}

C='#!/bin/sh\necho "$DPKG_MAINTSCRIPT_NAME $1 $DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT" >> "$DPKG_ROOT/count-$DPKG_MAINTSCRIPT_ARCH"\n'
count_preinst="control-file preinst 0755 $C"
count_postrm="control-file postrm 0755 $C"
count_prerm="control-file prerm 0755 $C"
for a in "$native" "$foreign"; do
	for v in 1 2; do
		# Shared: a directory, a file, a symlink; each arch its own.
		mpkg "lib-$a-$v" libpair "$a" "$v" "/etc/pair.conf" \
		    usr/ usr/share/ usr/share/pair/ "usr/share/pair/data:v$v" \
		    "usr/share/pair/link->data" etc/ "etc/pair.conf:conf v$v" \
		    usr/lib/ "usr/lib/$a/" "usr/lib/$a/libpair.so:$a v$v"
	done
	# A shared file of a content of its own, of the same size and not.
	mpkg "diff-$a" libdiff "$a" 1 "" usr/ "usr/shared:$a"
	mpkg "size-$a" libsize "$a" 1 "" usr/ "usr/sized:size $a$a"
	mpkg "clash-$a" libclash "$a" 1 "" usr/ "usr/shared:clash"
	# Without conffiles: what debunpack unpacks beside its pair.  Its
	# scripts note the instances dpkg counts (in the root's tree).
	for v in 1 2; do
		mpkg "plain-$a-$v" libplain "$a" "$v" "" "=$count_preinst" \
		    "=$count_postrm" "=$count_prerm" usr/ usr/share/ \
		    usr/share/plain/ "usr/share/plain/data:v$v" \
		    "usr/share/plain/link->data" usr/lib/ "usr/lib/$a/" \
		    "usr/lib/$a/libplain.so:$a v$v"
	done
done

# native NAME: the dpkg for apt unpacked the last step itself.
native() {
	! grep -q "handed to" "$T/ours.out" ||
	    fail "$1: handed on: $(cat "$T/ours.out")"
}

# One instance, then its pair in another call.
fresh
step "first instance" -i "lib-$native-1"
step "its pair beside it" -i "lib-$foreign-1"
[ -f "$T/ours/var/lib/dpkg/info/libpair:$foreign.list" ] ||
    fail "no list of libpair:$foreign"
echo "ok a Multi-Arch: same pair, one call each"

# Without conffiles, at one version: the dpkg for apt's own, and again.
step "a plain instance" -i "plain-$native-1"
step "its pair beside it, unpacked by debunpack" -i "plain-$foreign-1"
native "a plain pair"
grep -qx "preinst install 2" "$T/ours/count-$foreign" ||
    fail "REFCOUNT of the pair: $(cat "$T/ours/count-$foreign")"
[ -f "$T/ours/var/lib/dpkg/info/libplain:$foreign.list" ] ||
    fail "no list of libplain:$foreign"
step "the pair reinstalled" -i "plain-$foreign-1"
native "the pair reinstalled"
# At another version: dpkg deconfigures the other until its own upgrade
# (its prerm deconfigure), and writes over the paths they share.
step "a plain instance upgraded" -i "plain-$native-2"
native "a plain instance upgraded"
said "deconfigured" "De-configuring libplain:$foreign (1), to allow configuration of libplain:$native (2) ..."
step "and its pair" -i "plain-$foreign-2"
native "and its pair"
# Both in one call: the second unpacked with the first in place.
for r in "$T/ours" "$T/dpkg"; do
	dpkg_root "$r" -P "libplain:$native" "libplain:$foreign"
done
step "a plain pair in one call" -i "plain-$native-1" "plain-$foreign-1"
native "a plain pair in one call"
step "a plain pair upgraded in one call" -i "plain-$foreign-2" "plain-$native-2"
native "a plain pair upgraded in one call"
echo "ok a pair without conffiles: beside, reinstalled, upgraded, in one call, by debunpack"

# Upgrading one instance deconfigures the other until its own upgrade.
step "one instance upgraded" -i "lib-$native-2"
step "then the other" -i "lib-$foreign-2"
echo "ok a pair upgraded one instance after the other"

# Removing one instance keeps what the other still lists; then purged.
step "one instance removed" -r "libpair:$native"
for f in usr/share/pair/data etc/pair.conf; do
	[ -f "$T/ours/$f" ] || fail "the shared /$f went with one instance"
done
[ ! -e "$T/ours/usr/lib/$native/libpair.so" ] ||
    fail "the removed instance's own file stayed"
step "the other purged" -P "libpair:$foreign"
step "the first purged" -P "libpair:$native"
echo "ok one instance removed keeps the shared paths, both purged"

# Both instances in one call, then both upgraded in one call.
fresh
step "both in one call" -i "lib-$native-1" "lib-$foreign-1"
step "both upgraded in one call" -i "lib-$foreign-2" "lib-$native-2"
# A version not Multi-Arch: same cannot take the place of both.
make_pkg -o lib-no -a "$native" -m "Dpkg Developers <debian-dpkg@lists.debian.org>" \
    -d "test package" libpair 3 "dir ./ 0755" > /dev/null
step "not co-installable with both instances" -i lib-no
! grep -q "handed to" "$T/ours.out" || fail "handed on: $(cat "$T/ours.out")"
diff -u "$T/dpkg.out" "$T/ours.out" || fail "not dpkg's words"
said "multiple instances" "package libpair:$native (3) with field 'Multi-Arch: no' is not co-installable with libpair which has multiple installed instances"
refused "$T/ours" "debunpack put one package in the place of both instances" \
    "lib-no.deb: package libpair:$native (3) with field 'Multi-Arch: no' is not co-installable with libpair which has multiple installed instances$" \
    --dpkg-db "$T/lib-no.deb"
[ "$(wc -l < "$T/err")" = 1 ] || fail "more than one line: $(cat "$T/err")"
# Without --maintscripts a run holds one instance of a name: a pair in
# one run is refused in one line that says so, the root left as it was.
refused "$T/ours" "a pair in one plain run" \
    "lib-$foreign-2.deb: 'libpair:$foreign' and 'libpair:$native' in one run: debunpack unpacks two instances of a package in runs of their own$" \
    --dpkg-db "$T/lib-$native-2.deb" "$T/lib-$foreign-2.deb"
[ "$(wc -l < "$T/err")" = 1 ] || fail "more than one line: $(cat "$T/err")"
# With --maintscripts --dpkg-messages, dpkg --unpack's words and status.
snapshot "$T/ours" "$T/before"
set +e
dpkg_in "$T/dpkg" --status-fd 3 --unpack "$T/lib-no.deb" > "$T/dpkg.out" 2>&1 3> "$T/dpkg.sfd"
theirs=$?
"$DEBUNPACK" --root "$T/ours" --maintscripts --dpkg-messages \
    --force-script-chrootless --status-fd 3 "$T/lib-no.deb" > "$T/ours.out" 2>&1 3> "$T/ours.sfd"
ours=$?
set -e
[ "$theirs$ours" = 11 ] || fail "--maintscripts: dpkg $theirs, ours $ours"
diff -u "$T/dpkg.out" "$T/ours.out" || fail "--maintscripts: not dpkg's words"
# debunpack's own progress lines aside.
grep -v '^progress: ' "$T/ours.sfd" | diff -u "$T/dpkg.sfd" - ||
    fail "--maintscripts: not dpkg's status lines"
snapshot "$T/ours" "$T/after"
diff -u "$T/before" "$T/after" || fail "--maintscripts: the root changed"
echo "ok a pair in one call; no single package in its place"

# A shared file that differs is refused in dpkg's words, whether its
# size tells it or only its content.
fresh
step "differing pair: first" -i "diff-$native"
step "differing pair: second refused" -i "diff-$foreign"
native "differing pair"
said "differing content" "trying to overwrite shared '/usr/shared', which is different from other instances of package libdiff:$foreign"
step "differing size: first" -i "size-$native"
step "differing size: second refused" -i "size-$foreign"
native "differing size"
said "differing size" "trying to overwrite shared '/usr/sized', which is different from other instances of package libsize:$foreign"
# Another package's path: dpkg names its Multi-Arch: same owner with its
# arch, and the refused instance's stanza keeps its Multi-Arch.
step "another package's path refused" -i "clash-$native"
said "another package" "trying to overwrite '/usr/shared', which is also in package libdiff:$native 1"
step "--force-overwrite takes it" -i --force-overwrite "diff-$foreign"
native "--force-overwrite"
echo "ok a differing shared file refused as dpkg refuses it"

# Real pairs: Multi-Arch: same libraries of the archive without
# conffiles, both architectures at one version, fetched once into
# MULTIARCH_CACHE (default /var/cache/debunpack-tests/multiarch); one
# call each, then both in one call.
real="zlib1g liblzma5 libzstd1 libacl1 libselinux1 libbz2-1.0 libcap2"
cache=${MULTIARCH_CACHE:-/var/cache/debunpack-tests/multiarch}
have=yes
for p in $real; do
	for a in "$native" "$foreign"; do
		ls "$cache/${p}_"*"_$a.deb" > /dev/null 2>&1 || have=no
	done
done
if [ $have = no ]; then
	mkdir -p "$T/apt/lists/partial" "$T/apt/cache/archives/partial" "$cache"
	A="-o APT::Architectures::=$native -o APT::Architectures::=$foreign
	    -o Dir::State::Lists=$T/apt/lists -o Dir::Cache=$T/apt/cache
	    -o APT::Sandbox::User=root"
	# An index of one suite may be missing (a mirror syncing): each
	# foreign instance is asked at its native one's version.
	mkdir "$T/dl"
	# shellcheck disable=SC2086
	(cd "$T/dl" && { apt-get $A update || :; } && for p in $real; do
		apt-get $A download "$p:$native" || exit 1
		v=$(dpkg-deb -f "$(ls "${p}_"*"_$native.deb")" Version)
		apt-get $A download "$p:$foreign=$v" || exit 1
	done) > "$T/apt.log" 2>&1 && mv "$T"/dl/*.deb "$cache/" && have=yes
fi
if [ $have = yes ]; then
	nat="" for=""
	for p in $real; do
		for a in "$native" "$foreign"; do
			d=$(ls "$cache/${p}_"*"_$a.deb" | tail -n 1)
			cp "$d" "$T/r-$p-$a.deb"
			v=$(dpkg-deb -f "$d" Version)
			[ "$a" = "$native" ] && nv=$v || [ "$v" = "$nv" ] ||
			    fail "$p: $native at $nv, $foreign at $v"
		done
		nat="$nat r-$p-$native" for="$for r-$p-$foreign"
	done
	fresh
	# shellcheck disable=SC2086 # one word per package
	step "real pairs: the native instances" --unpack $nat
	# shellcheck disable=SC2086
	step "real pairs: the foreign ones beside them" --unpack $for
	native "real pairs beside"
	fresh
	# shellcheck disable=SC2086
	step "real pairs in one call" --unpack $nat $for
	native "real pairs in one call"
	echo "ok real Multi-Arch: same pairs unpacked by debunpack as by dpkg"
else
	echo "skipped: real pairs (cannot fetch: $(tail -n 1 "$T/apt.log"))"
fi

echo "ok $handed of $steps steps handed to dpkg"
