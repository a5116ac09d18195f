#!/bin/sh
# SPDX-License-Identifier: MIT
# dpkg-divert's diversions, dpkg-statoverride's overrides and the path
# filters, each honoured as dpkg honours them: every step is run with
# dpkg -i in one root and with debunpack --dpkg-db then dpkg --configure
# -a in another, and both must succeed or both fail, with the same trees
# (types, modes, owners, contents), the same status (versions, states,
# conffiles and their hashes), the same file lists and md5sums, and the
# same answers from dpkg-query -S and -L.
#
# Replayed from dpkg's functional suite (tests/t-* in dpkg's source),
# with dpkg-divert run before the unpack in both roots where the test's
# preinst runs it (debunpack runs no preinst before its unpack):
# t-unpack-divert-hardlink, t-conffile-divert-normal,
# t-conffile-divert-conffile, t-unpack-divert-nowarn,
# t-conffile-replaces-diverted, t-filtering (every case, fresh and over
# an upgrade either way, a conffile left out too); and beyond them:
# statoverrides of every entry type and the files dpkg refuses, a
# local diversion, a
# diverting package installed before and after the one it diverts, an
# upgrade and a removal that follow a diversion, a diversion made after
# the install, and a package that ships a diversion's new name.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "not root: dpkg acts in the test's roots, owners are compared"
command -v dpkg > /dev/null || skip "dpkg missing"
command -v dpkg-divert > /dev/null || skip "dpkg-divert missing"

# pkg, new: tests/lib.sh's twin_pkg and twin_new.
pkg() {
	twin_pkg "$@"
}
new() {
	twin_new
}

# both CMD...: shell command CMD run in each root (from there).
both() {
	for b_root in "$T/ours" "$T/dpkg"; do
		(cd "$b_root" && eval "$*") || fail "in $b_root: $*"
	done
}

# divert ARG...: dpkg-divert ARG... in each root.
divert() {
	for R in "$T/ours" "$T/dpkg"; do
		dpkg-divert --root="$R" "$@" > /dev/null || fail "dpkg-divert $*"
	done
}

# same NAME: the two roots' views are the same.
same() {
	twin_view "$T/dpkg" > "$T/theirs.view"
	twin_view "$T/ours" > "$T/ours.view"
	diff -u "$T/theirs.view" "$T/ours.view" || fail "$1: not what dpkg leaves"
}

# step NAME [-r] DEB...: install them in both roots, in one run (-r:
# remove the packages named instead); both succeed or both fail; compare.
step() {
	name=$1
	shift
	act=-i
	if [ "$1" = -r ]; then
		act=-r
		shift
	fi
	args=""
	for id; do
		if [ $act = -i ]; then args="$args $T/$id.deb"; else args="$args $id"; fi
	done
	set +e
	# shellcheck disable=SC2086 # one word per package
	dpkg_in "$T/dpkg" --force-confdef --force-confold $act $args > "$T/dpkg.out" 2>&1
	theirs=$?
	if [ $act = -i ]; then
		# shellcheck disable=SC2086
		"$DEBUNPACK" -q --root "$T/ours" --dpkg-db $args > "$T/ours.out" 2>&1 &&
		    dpkg_in "$T/ours" --force-confdef --force-confold --configure -a \
		    >> "$T/ours.out" 2>&1
	else
		# shellcheck disable=SC2086
		"$DEBUNPACK" -q --root "$T/ours" --dpkg-db --remove $args > "$T/ours.out" 2>&1
	fi
	ours=$?
	set -e
	if [ $theirs = 0 ] && [ $ours != 0 ]; then
		fail "$name: dpkg succeeded, debunpack failed: $(cat "$T/ours.out")"
	fi
	if [ $theirs != 0 ] && [ $ours = 0 ]; then
		fail "$name: debunpack succeeded, dpkg failed: $(cat "$T/dpkg.out")"
	fi
	same "$name"
	no_temps "$T/ours"
}

# t-unpack-divert-hardlink: both names of a hard link diverted.
pkg hl pkg-hardlink 0 "" "" test-file:hardlinked "=hardlink ./test-hardlink ./test-file"
new
divert --local --no-rename --divert /test-file.distrib --add /test-file
divert --local --no-rename --divert /test-hardlink.distrib --add /test-hardlink
step "t-unpack-divert-hardlink" hl
[ "$(stat -c %i "$T/ours/test-file.distrib")" = \
    "$(stat -c %i "$T/ours/test-hardlink.distrib")" ] || fail "hardlink not kept"
"$DEBUNPACK" --root "$T/ours" --verify pkg-hardlink > "$T/verify.out" ||
    fail "verify of a diverted package: $(cat "$T/verify.out")"
echo "ok t-unpack-divert-hardlink"

# A local diversion, then the package, its upgrade (which no longer
# ships a diverted file: it goes where it is) and its removal.
pkg lo0 pkg-local 0 "" "" test-file:zero test-gone:zero test-kept:zero
pkg lo1 pkg-local 1 "" "" test-file:one test-kept:one
new
divert --local --no-rename --divert /test-file.local --add /test-file
divert --local --no-rename --divert /test-gone.local --add /test-gone
step "local diversion: install" lo0
[ "$(cat "$T/ours/test-file.local")" = zero ] || fail "not diverted"
grep -q "	/test-file.local	/test-file\$" "$T/ours/var/lib/debunpack/pkg-local.record" ||
    fail "record: $(cat "$T/ours/var/lib/debunpack/pkg-local.record")"
head -n 1 "$T/ours/var/lib/debunpack/pkg-local.record" | grep -qx "debunpack-record 2 dpkg-db" ||
    fail "record header: $(head -n 1 "$T/ours/var/lib/debunpack/pkg-local.record")"
step "local diversion: upgrade" lo1
[ ! -e "$T/ours/test-gone.local" ] || fail "the old diverted file stayed"
"$DEBUNPACK" --root "$T/ours" --verify pkg-local > "$T/verify.out" ||
    fail "verify: $(cat "$T/verify.out")"
step "local diversion: remove" -r pkg-local
[ ! -e "$T/ours/test-file.local" ] || fail "the diverted file stayed"
echo "ok a local diversion: install, upgrade and removal follow it"

# A diverted conffile: installed, upgraded, changed by the user then
# upgraded (the new version beside it, at the diversion's name).
pkg lc0 pkg-lconf 0 "" /test-conf test-conf:zero
pkg lc1 pkg-lconf 1 "" /test-conf test-conf:one
pkg lc2 pkg-lconf 2 "" /test-conf test-conf:two
new
divert --local --no-rename --divert /test-conf.local --add /test-conf
step "diverted conffile: install" lc0
step "diverted conffile: upgrade" lc1
both 'echo mine > test-conf.local'
step "diverted conffile: changed, upgrade" lc2
echo "ok a diverted conffile"

# A diversion whose new name is another package's path: dpkg judges the
# conflict by the name the package ships, and writes over the other's
# file.
pkg ot-b pkg-b 0 "" "" test-b:b
pkg ot-a pkg-a 0 "" "" test-a:a
new
step "a diversion onto another package's path: its owner" ot-b
divert --local --no-rename --divert /test-b --add /test-a
step "a diversion onto another package's path" ot-a
# Told (not by dpkg), here by a dry run of the reinstall.
"$DEBUNPACK" --root "$T/ours" --dpkg-db --dry-run "$T/ot-a.deb" > "$T/plan" 2>&1 ||
    fail "dry run: $(cat "$T/plan")"
grep -q "written over the file of package 'pkg-b'" "$T/plan" ||
    fail "no warning: $(cat "$T/plan")"
# Its removal deletes what is at the diverted name, as dpkg does, though
# the other package lists it.
step "a diversion onto another package's path: removal" -r pkg-a
echo "ok a diversion onto another package's path"

# A diverting package and the package it diverts, in either order, in one
# run or two; the diverting package writes the original name.
pkg dv-files pkg-files 0 "" "" test-file:files test-other:files
pkg dv-divert pkg-divert 0 "" "" test-file:divert
for order in "dv-files dv-divert" "dv-divert dv-files"; do
	for runs in one two; do
		new
		divert --package pkg-divert --no-rename --divert /test-file.distrib --add /test-file
		if [ $runs = one ]; then
			# shellcheck disable=SC2086 # two packages
			step "package diversion, $order, one run" $order
		else
			for id in $order; do
				step "package diversion, $order, two runs: $id" "$id"
			done
		fi
	done
done
step "package diversion: the diverted package removed" -r pkg-files
step "package diversion: the diverting package removed" -r pkg-divert
echo "ok a package's diversion, the packages in every order"

# The diverted package installed by dpkg itself (its file list is
# dpkg's alone): the diverting package may ship the path all the same, a
# third package may not.
pkg dv-third pkg-third 0 "" "" test-file:third
new
divert --package pkg-divert --no-rename --divert /test-file.distrib --add /test-file
dpkg_root "$T/ours" -i "$T/dv-files.deb"
dpkg_root "$T/dpkg" -i "$T/dv-files.deb"
step "a diversion of dpkg's own package's path" dv-divert
step "a third package over a diverted path of dpkg's" dv-third
grep -q "trying to overwrite '/test-file', which is also in package pkg-files 0" \
    "$T/ours.out" || fail "message: $(cat "$T/ours.out")"
echo "ok a diversion of a path of a package dpkg installed"

# t-conffile-divert-normal, t-conffile-divert-conffile: a conffile
# diverted (moved) by another package's preinst, which ships the path,
# as a plain file or as a conffile of its own; then the first upgraded.
pkg cd-conff pkg-conff 0 "" /test-conffile test-conffile:conff
pkg cd-conff1 pkg-conff 1 "" /test-conffile test-conffile:conff-1
pkg cd-normal pkg-conff-divert 0 "" "" test-conffile:diverted
pkg cd-conffile pkg-conff-divert 0 "" /test-conffile test-conffile:diverted
for how in normal conffile; do
	new
	step "t-conffile-divert-$how: base" cd-conff
	divert --package pkg-conff-divert --rename --divert /test-conffile.diverted \
	    --add /test-conffile
	step "t-conffile-divert-$how" "cd-$how"
	step "t-conffile-divert-$how: the diverted one upgraded" cd-conff1
	[ "$(cat "$T/ours/test-conffile.diverted")" = conff-1 ] ||
	    fail "t-conffile-divert-$how: the upgrade missed the diverted conffile"
	echo "ok t-conffile-divert-$how"
done

# t-unpack-divert-nowarn: the diversion made (and the file moved) after
# pkg-files was installed; then pkg-files upgraded and removed: its
# records follow the diversion.
pkg nw-files pkg-files 0 "" "" test-file:files
pkg nw-files1 pkg-files 1 "" "" test-file:files-1
pkg nw-divert pkg-divert-unpacking 0 "" "" test-file:divert
new
step "t-unpack-divert-nowarn: base" nw-files
divert --package pkg-divert-unpacking --rename --divert /test-file.diverted --add /test-file
step "t-unpack-divert-nowarn" nw-divert
step "diverted after the install: upgrade" nw-files1
step "diverted after the install: removal" -r pkg-files
echo "ok t-unpack-divert-nowarn, and a diversion made after the install"

# t-conffile-replaces-diverted: a local diversion (moved) of an installed
# conffile; its package upgraded without it, another taking it over.
pkg rd-0 pkg-conff 0 "" /test/conffile "=dir ./test 0755" \
    "=file ./test/conffile 0644 text:0\\n"
pkg rd-1 pkg-conff 1 "" "" "=dir ./test 0755"
pkg rd-move pkg-conff-move 0 "Replaces pkg-conff (<< 1)" /test/conffile \
    "=dir ./test 0755" "=file ./test/conffile 0644 text:move\\n"
new
step "t-conffile-replaces-diverted: base" rd-0
divert --local --rename --divert /test/conffile.moved --add /test/conffile
step "t-conffile-replaces-diverted: upgrade" rd-1
step "t-conffile-replaces-diverted: takeover" rd-move
echo "ok t-conffile-replaces-diverted"

# A package that ships a diversion's new name: dpkg refuses it.
pkg to-pkg pkg-to 0 "" "" test-file.distrib:mine
new
divert --package pkg-divert --no-rename --divert /test-file.distrib --add /test-file
step "shipping a diversion's new name" to-pkg
grep -q "trying to overwrite '/test-file.distrib', which is the diverted version of '/test-file' (package: pkg-divert)" \
    "$T/ours.out" || fail "message: $(cat "$T/ours.out")"
echo "ok a diversion's new name is no package's to ship"

# dpkg-statoverride's overrides: the owner and mode of each type of
# entry, by name and by number, a diverted path's by the package's name;
# the root's passwd and group say the same as the host's, which dpkg
# reads.
pkg so-pkg pkg-statov 0 "" "" test-file:file "=dir ./test-dir 0755" \
    "=file ./test-dir/x 0644 text:x\\n" "=symlink ./test-link test-file" \
    "=fifo ./test-fifo 0644" "=file ./test-div 0644 text:div\\n" \
    "=file ./test-plain 0644 text:plain\\n" "=hardlink ./test-hard ./test-plain"
pkg so-pkg1 pkg-statov 1 "" "" test-file:file1 "=dir ./test-dir 0755" \
    "=file ./test-dir/x 0644 text:x1\\n" "=symlink ./test-link test-file" \
    "=fifo ./test-fifo 0644" "=file ./test-div 0644 text:div1\\n" \
    "=file ./test-plain 0644 text:plain1\\n" "=hardlink ./test-hard ./test-plain"
statov() {
	both 'mkdir -p etc && grep -E "^(root|daemon|bin):" /etc/passwd > etc/passwd &&
	    grep -E "^(root|daemon|bin|adm):" /etc/group > etc/group'
	both "printf '%s' '$1' > var/lib/dpkg/statoverride"
}
new
statov 'daemon adm 4750 /test-file
#2 #3 2770 /test-dir
bin daemon 0600 /test-dir/x
daemon adm 0700 /test-link
#1 #4 0600 /test-fifo
daemon bin 0640 /test-div
daemon bin 0604 /test-hard
root root 0755 /nothing/here
'
divert --local --no-rename --divert /test-div.local --add /test-div
step "statoverrides" so-pkg
[ "$(stat -c '%a %U:%G' "$T/ours/test-file")" = "4750 daemon:adm" ] ||
    fail "statoverride not applied: $(stat -c '%a %U:%G' "$T/ours/test-file")"
# A hard link's override is on the inode its target shares, as dpkg sets it.
[ "$(stat -c '%a %U:%G' "$T/ours/test-plain")" = "604 daemon:bin" ] ||
    fail "hard link's statoverride not applied: $(stat -c '%a %U:%G' "$T/ours/test-plain")"
"$DEBUNPACK" --root "$T/ours" --verify pkg-statov > "$T/verify.out" ||
    fail "verify after statoverrides: $(cat "$T/verify.out")"
step "statoverrides: upgrade" so-pkg1
echo "ok statoverrides on files, directories, symlinks, fifos, hard links, a diverted path"

# An override for a user or group the root does not know: dpkg's error,
# every package refused.
new
statov 'nosuchuser root 0644 /test-file
'
step "statoverride of an unknown user" so-pkg
grep -q "var/lib/dpkg/statoverride.*unknown system user 'nosuchuser' in statoverride file" \
    "$T/ours.out" || fail "message: $(cat "$T/ours.out")"
statov 'root nosuchgroup 0644 /test-file
'
step "statoverride of an unknown group" so-pkg
grep -q "unknown system group 'nosuchgroup'" "$T/ours.out" ||
    fail "message: $(cat "$T/ours.out")"
for bad in 'root root 0644 /a
root root 0600 /a
' 'root root 99 /a
' 'root root /a
' 'root root 0644 /a'; do
	statov "$bad"
	step "a bad statoverride file" so-pkg
done
echo "ok statoverride files dpkg refuses are refused"

# t-filtering: --path-exclude and --path-include, each case of dpkg's test
# on its package (a symlink among the docs, a conffile among them too),
# installed fresh, then the same filters over an install of everything,
# then everything over the filtered install.
sf="=dir ./test 0755
=dir ./test/lib 0755
=dir ./test/lib/pkg-somefiles 0755
=file ./test/lib/pkg-somefiles/run 0755 text:run\\n
=dir ./test/share 0755
=dir ./test/share/doc 0755
=dir ./test/share/doc/pkg-somefiles 0755
=file ./test/share/doc/pkg-somefiles/README 0644 text:readme\\n
=file ./test/share/doc/pkg-somefiles/copyright 0644 text:copyright\\n
=dir ./test/share/doc/pkg-somefiles/html 0755
=file ./test/share/doc/pkg-somefiles/html/index.html 0644 text:html\\n
=symlink ./test/share/doc/pkg-symlinked pkg-somefiles
=dir ./test/share/locale 0755
=dir ./test/share/locale/ca 0755
=file ./test/share/locale/ca/foo.mo 0644 text:ca\\n
=dir ./test/share/locale/de 0755
=file ./test/share/locale/de/foo.mo 0644 text:de\\n
=dir ./test/share/locale/es 0755
=file ./test/share/locale/es/foo.mo 0644 text:es\\n
=dir ./test/etc 0755
=file ./test/etc/conf 0644 text:conf\\n"
printf '%s\n' "$sf" > "$T/sf.lines"
pkg_sf() {
	# shellcheck disable=SC2046 # one argument per line
	(IFS='
'; pkg "$@" /test/etc/conf $(cat "$T/sf.lines"))
}
pkg_sf sf0 pkg-somefiles 0 ""
pkg_sf sf1 pkg-somefiles 1 ""

# fstep NAME FILTER... -- DEB: one install with these filters in both.
fstep() {
	fname=$1
	shift
	filters=""
	while [ "$1" != -- ]; do
		filters="$filters $1"
		shift
	done
	fdeb=$2
	set +e
	# shellcheck disable=SC2086 # one word per filter
	dpkg_in "$T/dpkg" $filters -i "$T/$fdeb.deb" > "$T/dpkg.out" 2>&1
	theirs=$?
	# shellcheck disable=SC2086
	"$DEBUNPACK" -q --root "$T/ours" --dpkg-db $filters "$T/$fdeb.deb" > "$T/ours.out" 2>&1 &&
	    dpkg_in "$T/ours" --configure -a >> "$T/ours.out" 2>&1
	ours=$?
	set -e
	[ $theirs = 0 ] || fail "$fname: dpkg failed: $(cat "$T/dpkg.out")"
	[ $ours = 0 ] || fail "$fname: debunpack failed: $(cat "$T/ours.out")"
	same "$fname"
	no_temps "$T/ours"
}

# The patterns are words, never globbed by this shell.
set -f
ncase=0
for filters in \
    "--path-exclude=/test/share/doc/*/*" \
    "--path-exclude=/test/share/doc/*" \
    "--path-exclude=/test/share/doc/*/* --path-include=/test/share/doc/*/copyright" \
    "--path-exclude=/test/share/doc/* --path-include=/test/share/doc/*/copyright" \
    "--path-exclude=/test/share/doc/* --path-include=/test/share/doc/*/copyright --path-include=/test*/READ*" \
    "--path-include=/test/* --path-include=/test/share/doc --path-include=/test/lib/*/*" \
    "--path-exclude=/test/share/locale/* --path-include=/test/share/locale/de/*" \
    "--path-exclude=/test/share/* --path-include=/test/share/*" \
    "--path-exclude=/test/share/* --path-include=/test/share/* --path-exclude=/test/share/* --path-include=/test/share/*" \
    "--path-exclude=/test/etc/*"; do
	ncase=$((ncase + 1))
	new
	# shellcheck disable=SC2086 # one word per filter
	fstep "t-filtering $ncase: $filters" $filters -- sf0
	# shellcheck disable=SC2086
	fstep "t-filtering $ncase: upgraded unfiltered" -- sf1
	new
	fstep "t-filtering $ncase: unfiltered" -- sf0
	# shellcheck disable=SC2086
	fstep "t-filtering $ncase: upgraded with $filters" $filters -- sf1
done
echo "ok t-filtering: $ncase cases, fresh and over an upgrade either way"

# Directories the filters empty are removed at the cleanup; with few
# descriptors the table gives theirs back, and the barrier after the
# cleanup must not open them again by path (it did: "cannot open
# directory", after the commit, the journal left behind).
new
fstep "unfiltered, for few descriptors" -- sf0
(ulimit -n 40
fstep "upgraded with --path-exclude=/test/share/* and 40 descriptors" \
    --path-exclude=/test/share/* -- sf1)
[ ! -e "$T/ours/test/share/locale/ca" ] ||
    fail "an emptied directory stayed: $(ls "$T/ours/test/share/locale")"
echo "ok directories emptied by the filters removed with few descriptors"
set +f

# A filter that is no absolute path matches nothing, as in dpkg.
new
fstep "a relative filter" '--path-exclude=test/share/doc/*' -- sf0
[ -f "$T/ours/test/share/doc/pkg-somefiles/README" ] || fail "a relative filter left a path out"
echo "ok a relative filter matches nothing, as in dpkg"

# A path the filters leave out is the package's all the same: listed
# (--files as dpkg -L), and another package's file there is judged as
# dpkg judges it, both ways: a conflict, or (Replaces) listed by both.
# fboth NAME FILTER -- DEB: one install in both roots, alike or failing
# alike.
fboth() {
	fname=$1 ffilter=$2 fdeb=$4
	set +e
	dpkg_in "$T/dpkg" ${ffilter:+"$ffilter"} -i "$T/$fdeb.deb" > "$T/dpkg.out" 2>&1
	theirs=$?
	"$DEBUNPACK" -q --root "$T/ours" --dpkg-db ${ffilter:+"$ffilter"} \
	    "$T/$fdeb.deb" > "$T/ours.out" 2>&1 &&
	    dpkg_in "$T/ours" --configure -a >> "$T/ours.out" 2>&1
	ours=$?
	set -e
	[ $theirs = 0 ] || [ $ours != 0 ] ||
	    fail "$fname: debunpack succeeded, dpkg failed: $(cat "$T/dpkg.out")"
	[ $theirs != 0 ] || [ $ours = 0 ] ||
	    fail "$fname: dpkg succeeded, debunpack failed: $(cat "$T/ours.out")"
	same "$fname"
}
pkg fa pkg-fa 1 "" "" fdoc/ fdoc/x:x fdoc/y:y fbin:b
pkg fb pkg-fb 1 "" "" fdoc/ fdoc/x:other
pkg fc pkg-fc 1 "Replaces pkg-fb" "" fdoc/ fdoc/x:c
new
fboth "filtered install" --path-exclude=/fdoc/* -- fa
"$DEBUNPACK" --root "$T/ours" --files pkg-fa > "$T/out"
dpkg-query --admindir="$T/dpkg/var/lib/dpkg" -L pkg-fa | diff -u - "$T/out" ||
    fail "--files of a filtered install: not dpkg -L's"
fboth "over a filtered path" "" -- fb
grep -q "trying to overwrite '/fdoc/x', which is also in package pkg-fa 1" "$T/ours.out" ||
    fail "over a filtered path: $(cat "$T/ours.out")"
new
fboth "b" "" -- fb
fboth "filtered over another's file" --path-exclude=/fdoc/* -- fa
grep -q "trying to overwrite '/fdoc/x', which is also in package pkg-fb 1" "$T/ours.out" ||
    fail "filtered over another's file: $(cat "$T/ours.out")"
fboth "filtered, Replaces" --path-exclude=/fdoc/* -- fc
echo "ok filtered paths are listed and judged as dpkg does"
