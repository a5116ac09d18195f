# SPDX-License-Identifier: MIT
# Shared helpers of the integration tests: scratch space, fixtures, tree listings.
# Sourced by tests/*.sh; the Makefile exports DEBUNPACK, MKDEB and FIXTURES.

set -eu

: "${DEBUNPACK:=$PWD/debunpack}"
: "${MKDEB:=$PWD/tests/mkdeb}"
: "${FIXTURES:=$(dirname "$0")/fixtures}"

T=$(mktemp -d "${TMPDIR:-/tmp}/debunpack-test.XXXXXX")
cleanup_hooks="" own_loops=""
cleanup() {
	# The loop devices still ours (what is mounted from them goes
	# lazily), then the hooks, which undo mounts that may already be gone.
	set +e
	for l in $own_loops; do
		umount -l "$l" 2>/dev/null
		losetup -d "$l" 2>/dev/null
	done
	eval "$cleanup_hooks"
	# Read-only directories from fixtures would stop rm.
	chmod -R u+rwx "$T" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

# Loop devices.  A test detaches only what it still holds: tests run side
# by side, and a device detached here may be bound by another test a moment
# later, under the same name; detaching it again at exit would pull that
# test's disk from under it.
loop_attach() {	# IMAGE [LOSETUP-OPTION...]: a loop device of our own, in $loop
	_img=$1
	shift
	loop=$(losetup -f --show "$@" "$_img") || return 1
	own_loops="$own_loops $loop"
}
loop_detach() {	# DEV: detached (gone already is fine) and no longer ours
	own_loops=$(echo "$own_loops" | sed "s| $1\$||; s| $1 | |")
	losetup -d "$1" 2>/dev/null ||
	    [ ! -e "/sys/block/${1#/dev/}/loop/backing_file" ] ||
	    fail "losetup -d $1"
}

is_root() {
	[ "$(id -u)" = 0 ]
}

# start_recorder IMAGE LOG: the crash recorder (tests/crash/recorder.c) on
# IMAGE at $T/fuse, its pid in $recpid, once $T/fuse/disk is there; skip
# where FUSE cannot mount.
start_recorder() {
	mkdir -p "$T/fuse"
	"$RECORDER" "$1" "$2" "$T/fuse" > "$T/recorder.err" 2>&1 &
	recpid=$!
	sr_i=0
	while [ ! -e "$T/fuse/disk" ]; do
		# No FUSE mount allowed here (a container, say): nothing to test.
		kill -0 $recpid 2>/dev/null ||
		    skip "cannot mount the recorder: $(head -n 1 "$T/recorder.err")"
		sr_i=$((sr_i + 1))
		[ $sr_i -lt 100 ] || fail "recorder did not start"
		sleep 0.05
	done
}

# build_deb NAME [DESC]: build fixture NAME.desc (from FIXTURES or DESC) into $T/NAME.deb
build_deb() {
	desc=${2:-$FIXTURES/$1.desc}
	"$MKDEB" "$desc" "$T/$1.deb" || fail "mkdeb $desc"
	echo "$T/$1.deb"
}

# make_pkg [-a ARCH] [-m MAINTAINER] [-d DESCRIPTION] [-o FILE] NAME VERSION
# LINE...: package NAME of architecture all (or ARCH), with those fields if
# given, made of the mkdeb lines (tests/mkdeb.c; "-" for those of standard
# input), built from $T/FILE.desc (default NAME-VERSION); its path on stdout.
make_pkg() {
	mp_a=all mp_m="" mp_d="" mp_f=""
	while :; do
		case $1 in
		-a) mp_a=$2 ;;
		-m) mp_m=$2 ;;
		-d) mp_d=$2 ;;
		-o) mp_f=$2 ;;
		*) break ;;
		esac
		shift 2
	done
	mp_n=$1 mp_v=$2
	shift 2
	: "${mp_f:=$mp_n-$mp_v}"
	{
		printf 'control-field Package %s\n' "$mp_n"
		printf 'control-field Version %s\n' "$mp_v"
		printf 'control-field Architecture %s\n' "$mp_a"
		[ -z "$mp_m" ] || printf 'control-field Maintainer %s\n' "$mp_m"
		[ -z "$mp_d" ] || printf 'control-field Description %s\n' "$mp_d"
		for mp_l; do
			if [ "$mp_l" = - ]; then cat; else printf '%s\n' "$mp_l"; fi
		done
	} > "$T/$mp_f.desc"
	build_deb "$mp_f" "$T/$mp_f.desc"
}

# fields_scripts TEXT [FIELD VALUE]...: make_pkg's lines for the control
# fields given, then the four maintainer scripts, each TEXT (printf's
# escapes, as make_pkg reads them).
fields_scripts() {
	fs_text=$1
	shift
	while [ $# -ge 2 ]; do
		printf 'control-field %s %s\n' "$1" "$2"
		shift 2
	done
	for fs_s in preinst postinst prerm postrm; do
		printf '%s\n' "control-file $fs_s 0755 $fs_text"
	done
}

# empty_dpkg_db ROOT: ROOT holds an empty dpkg database, for dpkg to install into.
empty_dpkg_db() {
	mkdir -p "$1/var/lib/dpkg/info" "$1/var/lib/dpkg/updates"
	: > "$1/var/lib/dpkg/status"
}

# dpkg_in ROOT ARG...: dpkg on ROOT as the tests run it (as any user, no
# chroot for maintainer scripts, no log, no prompt), its exit status returned.
dpkg_in() {
	di_root=$1
	shift
	# A test's root has no shell to chroot into; dpkg looks for ldconfig
	# and start-stop-daemon in PATH, which users often lack sbin in.
	PATH=$PATH:/usr/sbin:/sbin dpkg --root="$di_root" --force-not-root \
	    --force-script-chrootless --log=/dev/null "$@" < /dev/null
}

# dpkg_root ROOT ARG...: dpkg_in, which must succeed; its output in
# $T/dpkg.log, shown if it does not.
dpkg_root() {
	dpkg_in "$@" > "$T/dpkg.log" 2>&1 ||
	    { cat "$T/dpkg.log" >&2; fail "dpkg --root=$*"; }
}

# tree_list DIR: one line per path below DIR, sorted: type, mode, size,
# mtime, hardlink group, link target.  Hardlinked files name the first path
# of their inode, so two trees with the same link structure list alike.
# Sizes of directories and mtimes of symlinks depend on the filesystem and on
# tar versions respectively, so only what dpkg-deb -x defines is listed.
tree_list() {
	(cd "$1" && find . -mindepth 1 -printf '%i\t%y\t%m\t%s\t%T@\t%n\t%p\t%l\n') |
	    LC_ALL=C sort -t "$(printf '\t')" -k7,7 |
	    awk -F '\t' -v dirtimes="${2:-yes}" '
		{
			size = ($2 == "d") ? "-" : $4
			mtime = $5; sub(/\.0+$/, "", mtime)
			if ($2 == "d" && dirtimes == "no") mtime = "-"
			link = "-"
			if ($2 == "f" && $6 > 1) {
				if (!($1 in first)) first[$1] = $7
				link = first[$1]
			}
			printf "%s %s %s %s %s %s -> %s\n", $7, $2, $3, size, mtime, link, $8
		}'
}

# unstamp_records FILE: FILE, a snapshot, with the mtimes of what a run
# writes with its own time (records, dpkg database files, merged-/usr
# links) blanked, so that states compare across runs.
unstamp_records() {
	sed -e 's|^\(\./var/lib/debunpack/[^ ]*\.record f [0-9]* [0-9]*\) [0-9.]* |\1 - |' \
	    -e 's|^\(\./var/lib/dpkg/[^ ]* f [0-9]* [0-9]*\) [0-9.]* |\1 - |' \
	    -e 's|^\(\./lib[0-9a-z]* l [0-9]* [0-9]*\) [0-9.]* |\1 - |' \
	    -e 's|^\(\./s\{0,1\}bin l [0-9]* [0-9]*\) [0-9.]* |\1 - |' "$1"
}

# state ROOT: ROOT's snapshot on standard output as a repaired or undone run
# must leave it: directory times and the times of what a run writes with
# its own clock (records, dpkg's files, merged-/usr links) left out.
state() {
	# A file of its own: tests run checks in parallel.
	st_tmp=$(mktemp "$T/state.XXXXXX")
	snapshot "$1" "$st_tmp" no
	unstamp_records "$st_tmp"
	rm -f "$st_tmp"
}

# strip_admin REF OUT: OUT holds the records debunpack keeps in
# var/lib/debunpack, which dpkg-deb -x does not make: check they are there,
# then remove them (and var/lib, var if REF has none) before comparing.
strip_admin() {
	[ -d "$2/var/lib/debunpack" ] || return 0
	[ ! -d "$1/var/lib/debunpack" ] || return 0
	ls "$2/var/lib/debunpack/"*.record > /dev/null 2>&1 || fail "no record in $2"
	for d in var/lib/debunpack var/lib var; do
		[ ! -d "$1/$d" ] || continue
		# Removing a directory changes its parent's mtime: keep that.
		p=$(dirname "$2/$d")
		touch -r "$p" "$T/stamp"
		if [ "$d" = var/lib/debunpack ]; then rm -rf "${2:?}/$d"; else rmdir "$2/$d"; fi
		touch -r "$T/stamp" "$p"
	done
}

# same_tree A B [no]: listings and file contents are equal; with "no",
# directory mtimes are left out (directories that existed before a run are
# kept as they were, so their times are not the archive's).
same_tree() {
	strip_admin "$1" "$2"
	snapshot "$1" "$T/list.a" "${3:-yes}"
	snapshot "$2" "$T/list.b" "${3:-yes}"
	diff -u "$T/list.a" "$T/list.b" || fail "trees differ: $1 $2"
}

# refused ROOT WHY PATTERN [ARG...]: "debunpack -q --root ROOT ARG..." fails
# (else fail with WHY), its message matches PATTERN (grep; "" for any) and
# ROOT is exactly as it was.
refused() {
	rf_root=$1 rf_why=$2 rf_pat=$3
	shift 3
	snapshot "$rf_root" "$T/refused.before"
	if "$DEBUNPACK" -q --root "$rf_root" "$@" 2> "$T/err"; then
		fail "$rf_why"
	fi
	[ -z "$rf_pat" ] || grep -q "$rf_pat" "$T/err" ||
	    fail "message: $(cat "$T/err")"
	snapshot "$rf_root" "$T/refused.after"
	diff -u "$T/refused.before" "$T/refused.after" ||
	    fail "refused run changed the root"
}

# no_temps DIR: no temporary or backup name of debunpack is left below DIR.
no_temps() {
	left=$(find "$1" -name '*.debunpack-new' -o -name '.debunpack-new.*' \
	    -o -name '*.debunpack-old' -o -name '.debunpack-old.*')
	[ -z "$left" ] || fail "temporaries left: $left"
}

# snapshot DIR OUT [no]: everything about DIR, contents by checksum, for
# before/after comparisons of failed runs.
snapshot() {
	tree_list "$1" "${3:-yes}" > "$2"
	(cd "$1" && find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2) >> "$2"
}

# dpkg_same DEB REF ROOT: ROOT holds what dpkg-deb -x put in REF.  Directory
# mtimes are checked against the archive instead: GNU tar makes symlinks
# and hardlinks at the end of an extraction, after it set the times of
# their directories, so its own directory times are not the archive's.
dpkg_same() {
	same_tree "$2" "$3" no
	dpkg-deb --fsys-tarfile "$1" | TZ=UTC0 tar -tv --full-time |
	    awk '$1 ~ /^d/ { sub(/^\.\/?/, "", $6); print $4 " " $5 "\t" $6 }' |
	    while IFS="$(printf '\t')" read -r when name; do
		[ -n "$name" ] || continue
		want=$(TZ=UTC0 date -d "$when" +%s)
		got=$(stat -c %Y "$3/$name")
		[ "$want" = "$got" ] || fail "directory $name: mtime $got, archive says $want"
	    done
}

# timed NAME CMD...: CMD, its output in $T/NAME.log, and how long it took
# (for information: nothing depends on it).
timed() {
	tm_name=$1
	shift
	tm_start=$(date +%s.%N)
	tm_rc=0
	"$@" > "$T/$tm_name.log" 2>&1 < /dev/null || tm_rc=$?
	echo "$tm_start $(date +%s.%N)" |
	    awk -v n="$tm_name" '{ printf "time: %s: %.2f s\n", n, $2 - $1 }'
	return $tm_rc
}

# arch_twins_ready: twin roots of two architectures, one run by dpkg and
# one by the dpkg for apt (DPKGSHIM), dpkg's variables of the caller
# cleared; sets native (the host dpkg's) and foreign (i386, or amd64 on
# an i386 host).
arch_twins_ready() {
	is_root || skip "not root: dpkg acts in the test's roots"
	command -v dpkg > /dev/null || skip "dpkg missing"
	: "${DPKGSHIM:=$PWD/src/cli/dpkg}"
	[ -x "$DPKGSHIM" ] || fail "no shim at $DPKGSHIM"
	unset DPKG_FORCE DPKG_ROOT DPKG_ADMINDIR DPKG_FRONTEND_LOCKED \
	    DEBUNPACK_DPKG_DEBUG
	native=$(dpkg --print-architecture)
	foreign=i386
	[ "$native" != i386 ] || foreign=amd64
}

# bootstrap_ready CMD...: what a debunpack-bootstrap build in the root
# mode needs: root, each CMD, the bootstrap and debunpack-nosync built, a
# seccomp filter; SKIP naming what is missing.  A killed build leaves its
# scratch directory in the test's own (TMPDIR).
bootstrap_ready() {
	is_root || skip "not root: the root mode chroots and owns the root's files"
	for c in "$@"; do
		command -v "$c" > /dev/null || skip "$c missing"
	done
	[ -x "${BOOTSTRAP:-}" ] && [ -x "${DEBUNPACK_NOSYNC:-}" ] ||
	    skip "debunpack-bootstrap not built"
	export DEBUNPACK DEBUNPACK_NOSYNC
	TMPDIR=$T
	export TMPDIR
	"$DEBUNPACK_NOSYNC" true 2> "$T/nosync.err" ||
	    skip "no seccomp filter here: $(cat "$T/nosync.err")"
}

# minbase_debs: the minbase package set of bench/workloads/minbase.list
# from the archive, kept in $MINBASE_CACHE (default
# /var/cache/debunpack-tests/minbase) from run to run, so that the tests
# install the same versions until the cache is removed: $pkgs (names),
# $debs (files), $n (how many), $cache.  SKIP when it cannot be had.
minbase_debs() {
	mb_list=${srcdir:-.}/bench/workloads/minbase.list
	[ -f "$mb_list" ] || skip "no bench/workloads/minbase.list in this tree"
	cache=${MINBASE_CACHE:-/var/cache/debunpack-tests/minbase}
	mkdir -p "$cache"
	pkgs="" mb_missing=""
	while read -r mb_p; do
		case $mb_p in '' | '#'*) continue ;; esac
		pkgs="$pkgs $mb_p"
		set -- "$cache/${mb_p}"_*.deb
		[ -f "$1" ] || mb_missing="$mb_missing $mb_p"
	done < "$mb_list"
	if [ -n "$mb_missing" ]; then
		mb_dl=$(mktemp -d "$cache/.download.XXXXXX")
		cleanup_hooks="$cleanup_hooks rm -rf '$mb_dl';"
		# The sandbox user could not write into a root-only directory.
		# shellcheck disable=SC2086 # one word per package
		if ! timed download sh -c 'cd "$1" && shift && exec apt-get download -q \
		    -o APT::Sandbox::User=root "$@"' sh "$mb_dl" $mb_missing; then
			skip "cannot download the minbase packages (archive not reachable?): $(tail -n 1 "$T/download.log")"
		fi
		mv "$mb_dl"/*.deb "$cache/"
		rmdir "$mb_dl"
	fi
	debs="" n=0
	for mb_p in $pkgs; do
		set -- "$cache/${mb_p}"_*.deb
		if [ $# != 1 ] || [ ! -f "$1" ]; then
			fail "expected one ${mb_p}_*.deb in $cache"
		fi
		debs="$debs $1"
		n=$((n + 1))
	done
}

# every_ii ROOT: each package of minbase_debs is installed and configured
# in ROOT, and no other is.
every_ii() {
	LC_ALL=C chroot "$1" dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' \
	    > "$T/query" || fail "dpkg-query -W"
	awk '$1 != "ii"' "$T/query" > "$T/not-ii"
	[ ! -s "$T/not-ii" ] || fail "not configured: $(cat "$T/not-ii")"
	awk '{ print $2 }' "$T/query" | LC_ALL=C sort > "$T/have"
	# shellcheck disable=SC2086 # one word per package
	printf '%s\n' $pkgs | LC_ALL=C sort > "$T/want"
	diff -u "$T/want" "$T/have" || fail "installed packages are not the list's"
	[ "$(wc -l < "$T/have")" = "$n" ] || fail "$(wc -l < "$T/have") packages, not $n"
}

# minbase_mirror DIR: a flat apt repository in DIR of minbase_debs's
# packages, with the bookworm archive's priorities where a control file
# says otherwise (bench/override.sh), as a real mirror gives them to apt.
minbase_mirror() {
	mkdir -p "$1"
	# shellcheck disable=SC2086 # one word per file
	cp $debs "$1/"
	sh "${srcdir:-.}/bench/override.sh" "$1"/*.deb > "$1/.override"
	(cd "$1" && dpkg-scanpackages -m . .override > Packages 2> /dev/null &&
	    apt-ftparchive release . > Release) || fail "cannot make the mirror $1"
}

# twin_pkg [-a ARCH] ID PACKAGE VERSION FIELDS CONFFILES ENTRY...: package
# file $T/ID.deb of ARCH (default all), as dpkg's functional tests make
# theirs (maintainer "Dpkg Developers"); FIELDS "Name value" lines joined by ";", CONFFILES the
# conffiles' paths joined by ";"; each ENTRY a file at the top of the
# root, FILE:CONTENT (mode 0644), "dir/" for a directory, "name->target"
# for a symlink, or a mkdeb line when it starts with "=".
twin_pkg() {
	tp_a=all
	if [ "$1" = -a ]; then
		tp_a=$2
		shift 2
	fi
	tp_id=$1 tp_p=$2 tp_v=$3 tp_fields=$4 tp_conff=$5
	shift 5
	{
		if [ -n "$tp_fields" ]; then
			printf '%s\n' "$tp_fields" | tr ';' '\n' | sed 's/^/control-field /'
		fi
		if [ -n "$tp_conff" ]; then
			printf 'control-file conffiles 0644 %s\\n\n' \
			    "$(printf '%s' "$tp_conff" | sed 's/;/\\n/g')"
		fi
		printf 'dir ./ 0755\n'
		for f; do
			case $f in
			=*) printf '%s\n' "${f#=}" ;;
			*/) printf 'dir ./%s 0755\n' "$f" ;;
			*-\>*) printf 'symlink ./%s %s\n' "${f%%->*}" "${f#*->}" ;;
			*) printf 'file ./%s 0644 text:%s\\n\n' "${f%%:*}" "${f#*:}" ;;
			esac
		done
	} | make_pkg -a "$tp_a" -o "$tp_id" \
	    -m "Dpkg Developers <debian-dpkg@lists.debian.org>" \
	    -d "test package" "$tp_p" "$tp_v" - > /dev/null
}

# twin_new: two empty roots with dpkg's database, $T/ours and $T/dpkg.
twin_new() {
	rm -rf "$T/ours" "$T/dpkg"
	empty_dpkg_db "$T/ours"
	empty_dpkg_db "$T/dpkg"
}

# twin_owners ROOT: the owners dpkg-query -S gives each path of ROOT
# (but var/), sorted: dpkg reads the file lists in their order on the
# disk (pkg_files_optimize_load).  One dpkg-query for every path: it
# answers each in turn, its misses on stderr, so the lines are sorted
# after.
twin_owners() {
	(cd "$1" && find . -path ./var -prune -o ! -type d -print) |
	    grep -v '^\./var$' | sed -e 's|^\.||' -e 's/\.debunpack-dist$/.dpkg-dist/' |
	    LC_ALL=C sort | tr '\n' '\0' |
	    xargs -0r dpkg-query --admindir="$1/var/lib/dpkg" -S 2>&1 |
	    sed 's/^dpkg-query: //' | awk -F ': ' '
		$1 ~ /^diversion by / || $1 ~ /^local diversion / ||
		    NF != 2 { print; next }
		{ n = split($1, p, ", "); s = ""
		  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (p[j] < p[i]) { t = p[i]; p[i] = p[j]; p[j] = t }
		  for (i = 1; i <= n; i++) s = s (i > 1 ? ", " : "") p[i]
		  print s ": " $2 }' | LC_ALL=C sort
}

# tree_view DIR: every path below DIR but var/, sorted, one line each:
# a file's mode, owner, link count and contents (newlines as "|"), a
# symlink's target, another type's letter (find's %y), mode and owner.
# One perl for the whole tree: the twin tests take thousands of views.
tree_view() {
	(cd "$1" && find . -path ./var -prune -o -print0 | perl -0ne '
		chomp; my @s = lstat $_ or die "$_: $!\n";
		my $who = (getpwuid($s[4]) // $s[4]) . ":" . (getgrgid($s[5]) // $s[5]);
		my $mode = sprintf "%o", $s[2] & 07777;
		if (-l _) {
			print "$_ l $who -> ", readlink($_) // die("$_: $!\n"), "\n";
		} elsif (!-f _) {
			my $y = -d _ ? "d" : -p _ ? "p" : -S _ ? "s" :
			    -c _ ? "c" : -b _ ? "b" : "?";
			print "$_ $y $mode $who\n";
		} else {
			open my $f, "<", $_ or die "$_: $!\n";
			my $c = do { local $/; <$f> } // ""; $c =~ tr/\n/|/;
			print "$_ $mode $who $s[3] $c\n";
		}') | grep -av '^\./var ' | LC_ALL=C sort
}

# twin_view ROOT: the tree (mode, owner, links and contents of each
# file), what dpkg's database says of each package, its file lists and
# diversions, each path's owners and each package's files; twin roots
# compare equal when their views do.  A few processes per view, not
# some per path: the twin tests take thousands of views.
twin_view() {
	tree_view "$1" | sed 's/\.debunpack-dist /.dpkg-dist /' | LC_ALL=C sort
	echo "== packages"
	dpkg-query --admindir="$1/var/lib/dpkg" -W \
	    -f '${Package} ${Version} ${db:Status-Abbrev}\n${Conffiles}\n' 2>&1 |
	    LC_ALL=C sort
	echo "== info"
	for f in "$1"/var/lib/dpkg/info/*.list "$1"/var/lib/dpkg/info/*.md5sums \
	    "$1"/var/lib/dpkg/diversions; do
		[ -f "$f" ] || continue
		echo "-- ${f#"$1"/}"
		cat "$f"
	done
	echo "== owners"
	twin_owners "$1"
	echo "== files"
	# Each package's list, a blank line between two, in -W's order.
	dpkg-query --admindir="$1/var/lib/dpkg" -W -f '${Package}\n' |
	    xargs -r dpkg-query --admindir="$1/var/lib/dpkg" -L 2>&1
}

# twin_run WHAT DEB...: dpkg --unpack in $D, debunpack --maintscripts in
# $U (both logging their scripts to ROOT/log), then compare the exits,
# dpkg's messages, the scripts and --status-fd lines of each package in
# $twin_pkgs (letters), dpkg's status, the trees under $twin_tree and
# usr/share's files.  $dpkg_opts / $deb_opts: options for each side;
# $twin_sfd: what precedes a package's name in a status error line;
# loose: the reasons are debunpack's own words; nostatus: skip status.
twin_run() {
	what=$1
	shift
	: > "$D/log"
	: > "$U/log"
	dpkg_in "$D" ${dpkg_opts:-} --status-fd 3 --unpack "$@" 3> "$T/sfd.dpkg" \
	    > "$T/out.dpkg" 2> "$T/err.dpkg" && rd=0 || rd=$?
	"$DEBUNPACK" --root "$U" --maintscripts --force-script-chrootless \
	    --dpkg-messages ${deb_opts:-} --status-fd 3 "$@" 3> "$T/sfd.deb" \
	    > "$T/out.deb" 2> "$T/err.deb" && ru=0 || ru=$?
	[ "$rd" = "$ru" ] || { cat "$T/out.dpkg" "$T/err.dpkg" "$T/out.deb" "$T/err.deb"; fail "$what: exit $rd from dpkg, $ru from debunpack"; }
	# dpkg's lines, those of each package in dpkg's order (the
	# packages' steps are grouped: the lines, not their order, match).
	sort "$T/out.dpkg" > "$T/l1"
	sort "$T/out.deb" > "$T/l2"
	diff -u "$T/l1" "$T/l2" || fail "$what: dpkg's messages differ"
	sort "$T/err.dpkg" | sed "${loose:+/^ [^/]/d}" > "$T/l1"
	# dpkg --purge between runs: debunpack's notice that its record goes.
	sort "$T/err.deb" | sed "${loose:+/^ [^/]/d}" |
	    sed '/^debunpack: warning: dpkg changed /d' > "$T/l2"
	diff -u "$T/l1" "$T/l2" || fail "$what: dpkg's errors differ"
	sed "s|$D|ROOT|g" "$D/log" > "$T/log.dpkg"
	sed "s|$U|ROOT|g; s|dir=tmp.debunpack-old|dir=info|" "$U/log" > "$T/log.deb"
	for p in $twin_pkgs; do
		grep "P=$p " "$T/log.dpkg" > "$T/l1" || true
		grep "P=$p " "$T/log.deb" > "$T/l2" || true
		diff -u "$T/l1" "$T/l2" || fail "$what: scripts of $p differ"
		for s in dpkg deb; do
			grep -v '^progress:' "$T/sfd.$s" |
			    sed "${loose:+s/ : error : .*/ : error :/}" |
			    grep -E ": $p:|^status: [^ ]*${twin_sfd:-}$p[-_][^ ]* : error" > "$T/sfd-$s" || true
		done
		diff -u "$T/sfd-dpkg" "$T/sfd-deb" || fail "$what: status-fd lines of $p differ"
	done
	# NOSTATUS: a new conffile, whose MD5 --dpkg-db records where dpkg
	# writes "newconffile" until configure.
	[ -n "${nostatus:-}" ] || diff -u "$D/var/lib/dpkg/status" "$U/var/lib/dpkg/status" ||
	    fail "$what: dpkg's status differs"
	(cd "$D" && find ${twin_tree:-usr} -printf '%y %p\n' | grep -v '\.md5sums$' | sort) > "$T/t1"
	(cd "$U" && find ${twin_tree:-usr} -printf '%y %p\n' | grep -v '\.md5sums$' | sort) > "$T/t2"
	diff -u "$T/t1" "$T/t2" || fail "$what: trees differ"
	# dpkg's file lists, line for line.
	for f in "$D"/var/lib/dpkg/info/*.list; do
		[ -f "$f" ] || continue
		cmp -s "$f" "$U/var/lib/dpkg/info/${f##*/}" ||
		    fail "$what: ${f##*/} differs: $(diff "$f" "$U/var/lib/dpkg/info/${f##*/}" | head -n 5)"
	done
	for f in $(cd "$D/usr/share" && ls); do
		cmp -s "$D/usr/share/$f" "$U/usr/share/$f" || fail "$what: $f differs"
	done
	[ ! -e "$U/var/lib/dpkg/tmp.ci" ] && [ ! -e "$U/var/lib/dpkg/tmp.debunpack-old" ] ||
	    fail "$what: control areas left"
}
