#!/bin/sh
# SPDX-License-Identifier: MIT
# One database in a root that has dpkg's (--dpkg-db): the packages dpkg
# installed are installed packages to debunpack, read from dpkg's
# database.  Each scenario starts from packages dpkg installed in two
# roots; then one root gets dpkg -i and the other debunpack --dpkg-db and
# dpkg --configure -a, and both must have succeeded or failed alike and
# hold the same tree, the same view in dpkg-query (versions, states,
# conffiles, owners of every file) and the same file lists, line for
# line.  Then the cases of issue #25 where the two databases drifted.
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

# compare NAME: both roots alike.
compare() {
	twin_view "$T/dpkg" > "$T/theirs.view"
	twin_view "$T/ours" > "$T/ours.view"
	diff -u "$T/theirs.view" "$T/ours.view" ||
	    fail "$1: not what dpkg leaves"
}

# bydpkg DEB...: dpkg installs them in both roots.
bydpkg() {
	for r in "$T/ours" "$T/dpkg"; do
		# shellcheck disable=SC2046 # one word per package file
		dpkg_root "$r" -i $(for id; do echo "$T/$id.deb"; done)
	done
}

# step NAME [OPTION...] DEB...: dpkg -i in one root, debunpack --dpkg-db
# and dpkg --configure -a in the other (OPTIONs to both); then compare.
step() {
	name=$1
	shift
	opts="" debs=""
	for id; do
		case $id in
		--*) opts="$opts $id" ;;
		*) debs="$debs $T/$id.deb" ;;
		esac
	done
	set +e
	# shellcheck disable=SC2086 # one word per option and package file
	dpkg_in "$T/dpkg" --force-confdef --force-confold $opts -i $debs > "$T/dpkg.out" 2>&1
	theirs=$?
	# shellcheck disable=SC2086
	"$DEBUNPACK" --no-progress --root "$T/ours" --dpkg-db $opts $debs > "$T/ours.out" 2>&1 &&
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
	compare "$name"
}

# An upgrade of a package dpkg installed: the files the new version
# lacks go (a file whatever its content, an emptied directory, a
# symlink), its conffiles follow dpkg's table by the MD5 dpkg's status
# keeps, an obsolete one stays.
pkg up-1 pkg-up 1 "" "/etc-a;/etc-b;/etc-c;/etc-gone" etc-a:one etc-b:one \
    etc-c:one etc-gone:one sub/ sub/file:one sub/other:one keep:one \
    link-\>keep old-link-\>keep
pkg up-2 pkg-up 2 "" "/etc-a;/etc-b;/etc-c" etc-a:two etc-b:one etc-c:two \
    keep:two link-\>keep
new; bydpkg up-1
echo changed | tee "$T/ours/sub/file" > "$T/dpkg/sub/file"
echo mine | tee "$T/ours/etc-a" > "$T/dpkg/etc-a"
rm "$T/ours/etc-c" "$T/dpkg/etc-c"
step "upgrade of dpkg's package" up-2
[ ! -e "$T/ours/var/lib/debunpack/pkg-up.record" ] ||
    grep -q '^Version: 2$' "$T/ours/var/lib/debunpack/pkg-up.record" ||
    fail "a record of the old version"
step "reinstall" up-2
echo "ok an upgrade of a package dpkg installed"

# Replaces: a package takes files of one dpkg installed; the loser's
# list loses them; one that loses every file disappears.
pkg rp-orig pkg-orig 0 "" /conf file:original conf:original only-orig:o
pkg rp-take pkg-take 0 "Replaces pkg-orig" /conf file:takeover conf:takeover \
    only-take:t
pkg rp-all pkg-all 0 "Replaces pkg-orig" /conf file:all conf:all only-orig:a
new; bydpkg rp-orig; step "Replaces of dpkg's package" rp-take
new; bydpkg rp-orig; step "Replaces of every file: disappears" rp-all
echo "ok Replaces takes paths of packages dpkg installed"

# Without Replaces: refused in dpkg's words, or --force-overwrite takes
# it with dpkg's warning; the loser's list loses it.
pkg ov-a pkg-a 1 "" "" shared:a mine-a:a
pkg ov-b pkg-b 1 "" "" shared:b mine-b:b
new; bydpkg ov-a
step "overwrite refused" ov-b
grep -q "trying to overwrite '/shared', which is also in package pkg-a 1" \
    "$T/ours.out" || fail "overwrite refused: $(cat "$T/ours.out")"
step "--force-overwrite" --force-overwrite ov-b
grep -q "warning: .*trying to overwrite '/shared', which is also in package pkg-a 1" \
    "$T/ours.out" || fail "--force-overwrite: no warning: $(cat "$T/ours.out")"
dpkg_root "$T/ours" --verify
echo "ok --force-overwrite over a package dpkg installed, in dpkg's words"

# --remove and --purge of packages dpkg installed, without scripts.
for how in remove purge; do
	new; bydpkg up-1 ov-a
	echo mine | tee "$T/ours/etc-a" > "$T/dpkg/etc-a"
	dpkg_root "$T/dpkg" --$how pkg-up
	"$DEBUNPACK" -q --root "$T/ours" --dpkg-db --$how pkg-up ||
	    fail "--$how of dpkg's package"
	compare "--$how"
done
# Down to its conffiles by dpkg, purged by debunpack.
new; bydpkg up-1
dpkg_root "$T/ours" --remove pkg-up
dpkg_root "$T/dpkg" --purge pkg-up
"$DEBUNPACK" -q --root "$T/ours" --dpkg-db --purge pkg-up ||
    fail "--purge of dpkg's config-files package"
compare "--purge of a config-files package"
echo "ok --remove and --purge of packages dpkg installed"

# The cases of issue #25 where debunpack's records and dpkg's database
# drifted apart.
pkg dr-1 pkg-dr 1 "" /conf conf:one file:one
pkg dr-2 pkg-dr 2 "" /conf conf:two file:two new:two
pkg dr-bad pkg-bad 1 "" "" file:bad
R=$T/drift
fresh() {
	rm -rf "$R"
	empty_dpkg_db "$R"
	"$DEBUNPACK" -q --root "$R" --dpkg-db "$T/dr-1.deb" || fail "install pkg-dr"
	dpkg_root "$R" --configure -a
}
rec=$R/var/lib/debunpack/pkg-dr.record

# (a) dpkg removes a package debunpack installed; the run that drops the
# stale record installs it again: its new record stays.
for how in remove purge; do
	fresh
	dpkg_root "$R" --$how pkg-dr
	"$DEBUNPACK" --root "$R" --dpkg-db "$T/dr-1.deb" 2> "$T/err" ||
	    fail "(a) $how: $(cat "$T/err")"
	grep -q '^Version: 1$' "$rec" || fail "(a) $how: no record written"
	"$DEBUNPACK" --root "$R" --files pkg-dr | grep -q '^/file$' ||
	    fail "(a) $how: --files"
	"$DEBUNPACK" --root "$R" --dpkg-db --purge pkg-dr 2> "$T/err" ||
	    fail "(a) $how: --purge: $(cat "$T/err")"
	[ ! -e "$R/file" ] && [ ! -e "$R/conf" ] && [ ! -e "$rec" ] ||
	    fail "(a) $how: --purge left files"
done
echo "ok (a) a package dpkg removed, installed again, is debunpack's"

# (d) dpkg upgrades or removes a package debunpack installed: the queries
# answer as dpkg's do.
fresh
dpkg_root "$R" -i "$T/dr-2.deb"
"$DEBUNPACK" --root "$R" --owner /new > "$T/out" || fail "(d) --owner after dpkg's upgrade"
[ "$(cat "$T/out")" = "pkg-dr: /new" ] || fail "(d) --owner: $(cat "$T/out")"
"$DEBUNPACK" --root "$R" --files pkg-dr > "$T/out" || fail "(d) --files after dpkg's upgrade"
dpkg-query --admindir="$R/var/lib/dpkg" -L pkg-dr | diff -u - "$T/out" || fail "(d) --files"
[ "$("$DEBUNPACK" --root "$R" --list)" = "$(printf 'pkg-dr\t2\tall')" ] ||
    fail "(d) --list: $("$DEBUNPACK" --root "$R" --list)"
"$DEBUNPACK" --root "$R" --verify || fail "(d) --verify"
echo changed > "$R/file"
"$DEBUNPACK" --root "$R" --verify --verify-format=rpm > "$T/out" && fail "(d) --verify: a change unseen"
dpkg_in "$R" --verify > "$T/theirs"
diff -u "$T/theirs" "$T/out" || fail "(d) --verify: not dpkg's"
dpkg_root "$R" --remove pkg-dr
"$DEBUNPACK" --root "$R" --files pkg-dr > "$T/out" || fail "(d) --files after dpkg --remove"
dpkg-query --admindir="$R/var/lib/dpkg" -L pkg-dr | diff -u - "$T/out" || fail "(d) --files, removed"
echo "ok (d) queries answer for what dpkg did"

# A path of several packages: --owner names them in dpkg -S's order (the
# list dpkg reads last first; it reads them in their blocks' order on the
# disk), in a root dpkg installed and in one debunpack did.
for p in zeta alpha mid omega beta; do
	pkg "sh-$p" "$p" 1 "" "" shared/ "shared/$p:$p"
done
new
for p in zeta alpha mid omega beta; do
	dpkg_root "$T/dpkg" -i "$T/sh-$p.deb"
	"$DEBUNPACK" -q --root "$T/ours" --dpkg-db "$T/sh-$p.deb" || fail "install $p"
done
for r in "$T/dpkg" "$T/ours"; do
	dpkg-query --admindir="$r/var/lib/dpkg" -S /shared > "$T/theirs"
	"$DEBUNPACK" --root "$r" --owner /shared > "$T/out" || fail "--owner /shared"
	diff -u "$T/theirs" "$T/out" || fail "--owner: not dpkg -S's order"
done
echo "ok --owner names a path's packages in dpkg -S's order"

# (e) --purge of a package dpkg left in its config-files state.
"$DEBUNPACK" --root "$R" --dpkg-db --purge pkg-dr 2> "$T/err" || fail "(e): $(cat "$T/err")"
[ ! -e "$R/conf" ] || fail "(e) the conffile stayed"
[ -z "$(dpkg-query --admindir="$R/var/lib/dpkg" -W pkg-dr 2>/dev/null)" ] ||
    fail "(e) still in dpkg's status"
echo "ok (e) --purge of dpkg's config-files package"

# (f) a run that fails drops no record, and says none is dropped.
fresh
dpkg_root "$R" --purge pkg-dr
pkg dr-clash pkg-clash 1 "" "" file:clash
"$DEBUNPACK" -q --root "$R" --dpkg-db "$T/dr-1.deb" || fail "(f) reinstall"
dpkg_root "$R" -i "$T/dr-2.deb"
"$DEBUNPACK" --root "$R" --dpkg-db --verbose "$T/dr-clash.deb" 2> "$T/err" && fail "(f) a clash accepted"
grep -q "dropped" "$T/err" && fail "(f) a failed run says it dropped: $(cat "$T/err")"
[ -e "$rec" ] || fail "(f) a failed run dropped the record"
# In dpkg's words (the dpkg for apt) not at all: dpkg says nothing of it.
cp -a "$R" "$T/words"
"$DEBUNPACK" --root "$T/words" --dpkg-db --verbose --maintscripts \
    --force-script-chrootless --dpkg-messages \
    --force-overwrite "$T/dr-clash.deb" > "$T/out" 2>&1 ||
    fail "(f) forced, in dpkg's words: $(cat "$T/out")"
grep -q "dropped" "$T/out" && fail "(f) dpkg's words tell a dropped record: $(cat "$T/out")"
[ ! -e "$T/words/var/lib/debunpack/pkg-dr.record" ] || fail "(f) in dpkg's words: the record stayed"
"$DEBUNPACK" --root "$R" --dpkg-db --verbose --force-overwrite "$T/dr-clash.deb" 2> "$T/err" ||
    fail "(f) forced: $(cat "$T/err")"
grep -q "dpkg changed 'pkg-dr' since debunpack installed it (version 2 installed): debunpack's record of it is dropped" "$T/err" ||
    fail "(f) no word of the dropped record: $(cat "$T/err")"
[ ! -e "$rec" ] || fail "(f) the record stayed"
dpkg_root "$R" --verify
echo "ok (f) only a run that drops a record says so"

# A dry run over packages dpkg installed plans as the run would act, and
# writes nothing.
new; bydpkg up-1 ov-a
state "$T/ours" > "$T/before"
"$DEBUNPACK" --root "$T/ours" --dpkg-db --dry-run "$T/up-2.deb" > "$T/plan" 2>&1 ||
    fail "dry run: $(cat "$T/plan")"
grep -q "sub/other" "$T/plan" || fail "dry run: no word of the old version's paths: $(cat "$T/plan")"
"$DEBUNPACK" --root "$T/ours" --dpkg-db --dry-run "$T/ov-b.deb" > "$T/plan" 2>&1 &&
    fail "dry run: a clash accepted"
state "$T/ours" | diff -u "$T/before" - || fail "a dry run changed the root"
echo "ok a dry run over packages dpkg installed"
