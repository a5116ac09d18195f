#!/bin/sh
# SPDX-License-Identifier: MIT
# Architectures as dpkg decides them: the host dpkg's native one, the
# foreign ones of the root's var/lib/dpkg/arch.  Twin roots, one given
# to dpkg -i and one to debunpack --dpkg-db (and to the dpkg for apt,
# DPKGSHIM), must succeed or fail alike and hold the same tree and the
# same dpkg database: a foreign package refused in dpkg's words and then
# taken after dpkg --add-architecture, --force-architecture, and a
# Multi-Arch: same pair of which dpkg installed one instance.
. "${srcdir:-.}/tests/lib.sh"

arch_twins_ready

# view ROOT: the tree, dpkg's view of it, its file lists.
view() {
	tree_view "$1"
	echo "== packages"
	dpkg-query --admindir="$1/var/lib/dpkg" -W \
	    -f '${binary:Package} ${Version} ${db:Status-Abbrev}\n${Conffiles}\n' |
	    LC_ALL=C sort
	echo "== owners"
	twin_owners "$1"
	echo "== lists"
	for l in "$1"/var/lib/dpkg/info/*.list "$1"/var/lib/dpkg/info/*.md5sums; do
		[ -f "$l" ] || continue
		echo "${l##*/}:"
		cat "$l"
	done
	echo "== arch"
	dpkg --root="$1" --print-foreign-architectures
}

# untouched BEFORE ROOT: ROOT as snapshot BEFORE was, but for dpkg's lock
# files, which dpkg too leaves behind the first time it locks a database.
untouched() {
	snapshot "$2" "$T/after"
	for f in "$1" "$T/after"; do
		grep -v -e '^\./var/lib/dpkg d ' -e 'var/lib/dpkg/lock' "$f" > "$f.nolock"
	done
	diff -u "$1.nolock" "$T/after.nolock" || fail "$3"
}

compare() {
	view "$T/dpkg" > "$T/theirs.view"
	view "$T/ours" > "$T/ours.view"
	diff -u "$T/theirs.view" "$T/ours.view" || fail "$1: not what dpkg leaves"
}

# both_arch ROOT-ARGS: dpkg --add-architecture in both roots.
add_arch() {
	dpkg_root "$T/dpkg" --add-architecture "$1"
	dpkg_root "$T/ours" --add-architecture "$1"
}

# step NAME HOW [OPTION...] DEB...: dpkg -i in one root; in the other,
# HOW: "db" (debunpack --dpkg-db, then dpkg --configure -a), "seq"
# (debunpack --maintscripts --dpkg-messages, then the same) or "shim"
# (the dpkg for apt's -i).  Both succeed or both fail; $T/ours.out holds
# what ours said.
step() {
	name=$1 how=$2
	shift 2
	opts="" debs=""
	for id; do
		case $id in
		--*) opts="$opts $id" ;;
		*) debs="$debs $T/$id.deb" ;;
		esac
	done
	set +e
	# shellcheck disable=SC2086 # one word per option and package file
	dpkg_in "$T/dpkg" $opts -i $debs > "$T/dpkg.out" 2>&1
	theirs=$?
	case $how in
	db | seq)
		[ "$how" = db ] && mode=--dpkg-db ||
		    mode="--maintscripts --dpkg-messages --force-script-chrootless"
		# shellcheck disable=SC2086
		"$DEBUNPACK" --no-progress --root "$T/ours" $mode $opts $debs \
		    > "$T/ours.out" 2>&1
		ours=$?
		# As dpkg -i: what unpacked is configured, failures or not.
		dpkg_in "$T/ours" --configure -a >> "$T/ours.out" 2>&1 ||
		    ours=$? ;;
	shim)
		# shellcheck disable=SC2086
		PATH=$PATH:/usr/sbin:/sbin DEBUNPACK_DPKG_DEBUG=1 "$DPKGSHIM" \
		    --root="$T/ours" --force-not-root --force-script-chrootless \
		    --log=/dev/null $opts -i $debs > "$T/ours.out" 2>&1 < /dev/null
		ours=$? ;;
	esac
	set -e
	[ $theirs = 0 ] || [ $ours = 0 ] ||
	    [ "$theirs" = "$ours" ] || fail "$name: dpkg $theirs, ours $ours"
	[ $theirs != 0 ] || [ $ours = 0 ] ||
	    fail "$name: dpkg succeeded, ours failed: $(cat "$T/ours.out")"
	[ $theirs = 0 ] || [ $ours != 0 ] ||
	    fail "$name: ours succeeded, dpkg failed: $(cat "$T/dpkg.out")"
	compare "$name"
}

# apkg ID NAME ARCH FIELDS ENTRY...: twin_pkg's package of architecture ARCH.
apkg() {
	ap_id=$1 ap_n=$2 ap_a=$3 ap_fields=$4
	shift 4
	{
		if [ -n "$ap_fields" ]; then
			printf '%s\n' "$ap_fields" | tr ';' '\n' | sed 's/^/control-field /'
		fi
		printf 'dir ./ 0755\n'
		for f; do
			case $f in
			*/) printf 'dir ./%s 0755\n' "$f" ;;
			*) printf 'file ./%s 0644 text:%s\\n\n' "${f%%:*}" "${f#*:}" ;;
			esac
		done
	} | make_pkg -o "$ap_id" -a "$ap_a" -m "Dpkg Developers <debian-dpkg@lists.debian.org>" \
	    -d "test package" "$ap_n" 1.0 - > /dev/null
}

refusal="package architecture ($foreign) does not match system ($native)"

apkg fo foreign-pkg "$foreign" "" fo-file:foreign
apkg na native-pkg "$native" "" na-file:native
apkg al all-pkg all "" al-file:all

# A foreign package refused alone: the root untouched, dpkg's words.
twin_new
snapshot "$T/ours" "$T/before"
if "$DEBUNPACK" --root "$T/ours" --dpkg-db "$T/fo.deb" 2> "$T/err"; then
	fail "a foreign package installed"
fi
grep -q "^debunpack: .*fo.deb: $refusal$" "$T/err" ||
    fail "foreign refused: $(cat "$T/err")"
[ "$(wc -l < "$T/err")" = 1 ] || fail "more than one line: $(cat "$T/err")"
untouched "$T/before" "$T/ours" "a refused package changed the root"
step "foreign refused" db fo
# In dpkg's words, the others of the call unpacked.
step "foreign refused, the others go on" seq na fo al
grep -q "^dpkg: error processing archive .*fo.deb (--unpack):$" "$T/ours.out" &&
    grep -q "^ $refusal$" "$T/ours.out" ||
    fail "not in dpkg's words: $(cat "$T/ours.out")"
grep -q "^ $refusal$" "$T/dpkg.out" || fail "dpkg's words changed: $(cat "$T/dpkg.out")"
step "the dpkg for apt refuses it" shim fo
grep -q "^ $refusal$" "$T/ours.out" || fail "the shim: $(cat "$T/ours.out")"
! grep -q "handed to" "$T/ours.out" || fail "the shim handed it on: $(cat "$T/ours.out")"
# debunpack's own records: the same refusal, one line, nothing written.
mkdir "$T/plain"
refused "$T/plain" "a foreign package installed" "$refusal" "$T/fo.deb"
"$DEBUNPACK" -q --root "$T/plain" "$T/al.deb" "$T/na.deb" ||
    fail "all and native packages refused"
echo "ok a foreign package is refused as dpkg refuses it, alone"

# Once the root takes the architecture, it installs.
add_arch "$foreign"
step "foreign taken" db fo
[ -f "$T/ours/fo-file" ] || fail "foreign package not there"
twin_new; add_arch "$foreign"
step "foreign taken, dpkg's words" seq fo
twin_new; add_arch "$foreign"
step "foreign taken by the dpkg for apt" shim fo
! grep -q "handed to" "$T/ours.out" || fail "handed on: $(cat "$T/ours.out")"
# A root of its own with another native architecture.
rm -rf "$T/plain"; mkdir "$T/plain"
"$DEBUNPACK" -q --root "$T/plain" --architecture="$foreign" "$T/fo.deb" ||
    fail "--architecture=$foreign refused a $foreign package"
refused "$T/plain" "a package of the host's architecture taken" \
    "($native) does not match system ($foreign)" --architecture="$foreign" \
    "$T/na.deb"
echo "ok after dpkg --add-architecture a foreign package installs"

# --force-architecture: installed, dpkg's warning.
twin_new
step "--force-architecture" seq --force-architecture fo
grep -q "^dpkg: warning: overriding problem because --force enabled:$" \
    "$T/ours.out" && grep -q "^dpkg: warning: $refusal$" "$T/ours.out" ||
    fail "--force-architecture: $(cat "$T/ours.out")"
twin_new
step "--force-architecture through the dpkg for apt" shim --force-architecture fo
! grep -q "handed to" "$T/ours.out" || fail "handed on: $(cat "$T/ours.out")"
echo "ok --force-architecture installs it, with dpkg's warning"

# Multi-Arch: same: two instances, shared paths.
for a in "$native" "$foreign"; do
	apkg "ma-$a" libma "$a" "Multi-Arch same" usr/ usr/shared:same \
	    "usr/only-$a:$a"
done
# Without dpkg's database debunpack keeps one record a name: refused.
mkdir "$T/single"
"$DEBUNPACK" -q --root "$T/single" "$T/ma-$native.deb" || fail "one instance"
snapshot "$T/single" "$T/before"
if "$DEBUNPACK" --root "$T/single" --force-architecture \
    "$T/ma-$foreign.deb" 2> "$T/err"; then
	fail "a second instance without dpkg's database"
fi
grep -q "'libma:$foreign' would sit beside 'libma:$native': without dpkg's database" "$T/err" ||
    fail "second instance: $(cat "$T/err")"
untouched "$T/before" "$T/single" "a refused instance changed the root"
# With it, beside dpkg's: debunpack's own run (its record libma:ARCH's),
# then through the dpkg for apt, which hands the pair on no more.
twin_new; add_arch "$foreign"
dpkg_root "$T/dpkg" -i "$T/ma-$native.deb"
dpkg_root "$T/ours" -i "$T/ma-$native.deb"
step "second instance beside dpkg's, debunpack's run" seq "ma-$foreign"
[ -f "$T/ours/var/lib/debunpack/libma:$foreign.record" ] ||
    fail "no record of libma:$foreign"
for r in "$T/ours" "$T/dpkg"; do
	dpkg_root "$r" -P "libma:$foreign"
done
compare "the second instance purged"
step "second instance beside dpkg's" shim "ma-$foreign"
! grep -q "handed to" "$T/ours.out" || fail "handed on: $(cat "$T/ours.out")"
# Queries answer for both instances, as dpkg-query does.
"$DEBUNPACK" --root "$T/ours" --list 'libma*' > "$T/list" ||
    fail "--list: $(cat "$T/list")"
printf 'libma:%s\t1.0\t%s\n' "$native" "$native" "$foreign" "$foreign" |
    LC_ALL=C sort | diff -u - "$T/list" || fail "--list: not both instances"
"$DEBUNPACK" --root "$T/ours" --files "libma:$foreign" > "$T/files" &&
    grep -qx "/usr/only-$foreign" "$T/files" && grep -qx /usr/shared "$T/files" ||
    fail "--files libma:$foreign: $(cat "$T/files")"
"$DEBUNPACK" --root "$T/ours" --owner /usr/shared > "$T/owner" &&
    grep -q "libma:$foreign" "$T/owner" && grep -q "libma:$native" "$T/owner" ||
    fail "--owner /usr/shared: $(cat "$T/owner")"
"$DEBUNPACK" --root "$T/ours" --verify || fail "--verify of the pair"
for r in "$T/ours" "$T/dpkg"; do
	dpkg_root "$r" -r "libma:$native"
done
[ -f "$T/ours/usr/shared" ] || fail "the shared file went with one instance"
compare "one instance removed"
# One instance debunpack installed, the other the dpkg for apt's.
twin_new; add_arch "$foreign"
step "first instance" db "ma-$native"
step "second instance beside debunpack's" shim "ma-$foreign"
! grep -q "handed to" "$T/ours.out" || fail "handed on: $(cat "$T/ours.out")"
# The first reinstalled: its own instance, the pair's paths still shared.
step "the first reinstalled" db "ma-$native"
for r in "$T/ours" "$T/dpkg"; do
	dpkg_root "$r" -P "libma:$foreign"
done
[ -f "$T/ours/usr/shared" ] || fail "the shared file went with one instance"
compare "one instance purged"
echo "ok Multi-Arch: same pairs: dpkg's, shared paths kept while one remains"

# A Multi-Arch: same pair goes back and forth between debunpack and dpkg:
# once dpkg purged the instance debunpack installed, its record is stale
# even though --maintscripts writes the new one half-installed, at the
# same version, before the batch: the conffile is installed anew.
for a in "$native" "$foreign"; do
	{
		printf 'control-field Multi-Arch same\n'
		printf 'control-file conffiles 0644 /usr/conf\\n\n'
		printf 'dir ./ 0755\ndir ./usr 0755\n'
		printf 'file ./usr/conf 0644 text:shared conffile\\n\n'
	} | make_pkg -o "mc-$a" -a "$a" -m "Dpkg Developers <debian-dpkg@lists.debian.org>" \
	    -d "test package" libmc 1.0 - > /dev/null
done
twin_new; add_arch "$foreign"
step "conffile instance" shim "mc-$native"
step "its pair" shim "mc-$foreign"
for r in "$T/ours" "$T/dpkg"; do
	dpkg_root "$r" -P "libmc:$native" "libmc:$foreign"
done
[ ! -e "$T/ours/usr/conf" ] || fail "the purge left the conffile"
step "installed again after dpkg purged it" shim "mc-$native"
[ -f "$T/ours/usr/conf" ] || fail "the conffile was not installed again"
echo "ok a package dpkg purged is installed again whole, conffiles too"

# A root whose installed dpkg is of another architecture (a root of the
# foreign one, built on this host): without --architecture its packages
# are native there, as its own dpkg will take them, and the host's are
# refused in that dpkg's words; --architecture still decides when given.
R=$T/other
empty_dpkg_db "$R"
printf 'Package: dpkg\nEssential: yes\nStatus: install ok installed\nPriority: required\nArchitecture: %s\nVersion: 1.21.22\nDescription: package manager\n\n' \
    "$foreign" > "$R/var/lib/dpkg/status"
"$DEBUNPACK" --root "$R" --dpkg-db -q "$T/fo.deb" 2> "$T/err" ||
    fail "a package of the root's dpkg's architecture refused: $(cat "$T/err")"
[ -f "$R/fo-file" ] || fail "foreign-pkg not installed"
grep -q "^Package: foreign-pkg$" "$R/var/lib/dpkg/status" || fail "no status of foreign-pkg"
snapshot "$R" "$T/before"
if "$DEBUNPACK" --root "$R" --dpkg-db "$T/na.deb" 2> "$T/err"; then
	fail "the host's architecture taken in a root of $foreign"
fi
grep -q "^debunpack: .*na.deb: package architecture ($native) does not match system ($foreign)$" "$T/err" ||
    fail "host's package refused: $(cat "$T/err")"
untouched "$T/before" "$R" "a refused package changed the root"
"$DEBUNPACK" --root "$R" --dpkg-db --architecture="$native" -q "$T/na.deb" 2> "$T/err" ||
    fail "--architecture=$native: $(cat "$T/err")"
[ -f "$R/na-file" ] || fail "native-pkg not installed with --architecture"
echo "ok a root's own dpkg decides its native architecture"
