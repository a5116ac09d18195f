#!/bin/sh
# SPDX-License-Identifier: MIT
# Building a root: the merged-/usr links of a new root, the preinsts run
# in it, the progress line on a terminal and the --status-fd lines.
. "${srcdir:-.}/tests/lib.sh"

# dash's echo would turn the "\n" of mkdeb's escapes into newlines.
say() {
	printf '%s\n' "$*"
}

# pkg FILE NAME VERSION ARCH: build $T/FILE.deb of package NAME, the rest of
# its description (mkdeb lines) read from standard input.
pkg() {
	make_pkg -o "$1" -a "$4" -m "Test <t@example.org>" -d "test package" "$2" "$3" - > /dev/null
}

# newroot NAME: an empty directory $T/NAME, printed.
newroot() {
	rm -rf "${T:?}/$1"
	mkdir "$T/$1"
	echo "$T/$1"
}

# empty DIR WHY: DIR holds nothing.
empty() {
	[ -z "$(ls -A "$1")" ] || fail "$2: left $(cd "$1" && find . | sort | tr '\n' ' ')"
}

# linked ROOT WHY: the merged-/usr links of amd64 are there.
linked() {
	for l in bin sbin lib lib32 lib64 libx32; do
		[ -L "$1/$l" ] || fail "$2: $l is not a link"
		[ "$(readlink "$1/$l")" = "usr/$l" ] ||
		    fail "$2: $l -> $(readlink "$1/$l")"
		[ -d "$1/usr/$l" ] || fail "$2: no usr/$l"
	done
}

# unlinked ROOT WHY: none of the merged-/usr links is there.
unlinked() {
	for l in bin sbin lib lib32 lib64 libx32; do
		[ ! -L "$1/$l" ] || fail "$2: $l is a link"
	done
}

body='dir ./ 0755
dir ./bin/ 0755
file ./bin/x 0755 text:x\n
dir ./lib/ 0755
file ./lib/y 0644 text:y\n'
say "$body" | pkg bf12 base-files 12.4 amd64
say "$body" | pkg bf11 base-files 11.1 amd64
say "$body" | pkg other other 1 amd64
bf12=$T/bf12.deb bf11=$T/bf11.deb other=$T/other.deb
pkg trunc broken 1 all <<'D'
dir ./ 0755
dir ./usr/ 0755
file ./usr/big 0644 size:200000
compress data none
truncate 5000
D
trunc=$T/trunc.deb
printf 'not a package\n' > "$T/garbage.deb"
garbage=$T/garbage.deb

# 1. --merged-usr

r=$(newroot mu-a)
"$DEBUNPACK" -q --root "$r" "$bf12" || fail "base-files 12"
linked "$r" "base-files 12"
[ -f "$r/usr/bin/x" ] && [ -f "$r/usr/lib/y" ] || fail "base-files 12: files not under usr/"
echo "ok auto: base-files 12 in a new root makes the links"

r=$(newroot mu-b)
"$DEBUNPACK" -q --root "$r" "$bf11" || fail "base-files 11"
unlinked "$r" "base-files 11"
[ -d "$r/bin" ] && [ -f "$r/bin/x" ] || fail "base-files 11: no bin/x"
[ ! -e "$r/sbin" ] && [ ! -e "$r/lib64" ] || fail "base-files 11: sbin or lib64 made"
echo "ok auto: base-files 11 makes no links"

r=$(newroot mu-c)
"$DEBUNPACK" -q --root "$r" --merged-usr "$other" || fail "--merged-usr"
linked "$r" "--merged-usr"
[ -f "$r/usr/bin/x" ] || fail "--merged-usr: no usr/bin/x"
echo "ok --merged-usr makes the links for any package"

r=$(newroot mu-d)
"$DEBUNPACK" -q --root "$r" --merged-usr=no "$bf12" || fail "--merged-usr=no"
unlinked "$r" "--merged-usr=no"
[ -d "$r/bin" ] && [ -f "$r/bin/x" ] || fail "--merged-usr=no: no bin/x"
echo "ok --merged-usr=no makes no links"

r=$(newroot mu-e)
mkdir "$r/usr"
"$DEBUNPACK" -q --root "$r" "$bf12" || fail "root with usr/"
unlinked "$r" "root with usr/"
[ -d "$r/bin" ] && [ -f "$r/bin/x" ] || fail "root with usr/: no bin/x"
echo "ok auto: a root that has usr/ is not new, no links"

r=$(newroot mu-f)
set +e
"$DEBUNPACK" -q --root "$r" --merged-usr=maybe "$bf12" 2> "$T/err"
st=$?
set -e
[ $st -eq 2 ] || fail "--merged-usr=maybe: exit $st"
grep -q "maybe" "$T/err" && grep -q "^Try 'debunpack --help'" "$T/err" ||
    fail "--merged-usr=maybe: message: $(cat "$T/err")"
empty "$r" "--merged-usr=maybe"
echo "ok --merged-usr=maybe is a usage error"

r=$(newroot mu-g)
set +e
"$DEBUNPACK" -q --root "$r" "$bf12" "$trunc" 2> "$T/err"
st=$?
set -e
[ $st -eq 1 ] || fail "failed run: exit $st"
grep -q 'trunc.deb' "$T/err" || fail "failed run: message: $(cat "$T/err")"
empty "$r" "failed run"
echo "ok a failed run removes the links with the rest"

if command -v strace > /dev/null && strace -qq -o /dev/null true 2> /dev/null; then
	# LeakSanitizer cannot run under ptrace.
	ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0
	export ASAN_OPTIONS
	# Killed before the third link, at the commit's first link of a new
	# name, and at its last removal of a temporary (names and temporaries
	# both there: the repair tells them apart).
	for point in symlinkat:3 linkat:1 unlinkat:last; do
		if [ "${point#*:}" = last ]; then
			r=$(newroot mu-h)
			strace -qq -o "$T/calls" -e trace=unlinkat \
			    "$DEBUNPACK" -q --root "$r" "$bf12"
			point=unlinkat:$(grep -n 'debunpack-new", 0)' "$T/calls" |
			    tail -n 1 | cut -d: -f1)
			[ "$point" != unlinkat: ] || fail "no temporary removed"
		fi
		r=$(newroot mu-h)
		set +e
		# Not exec'd: the subshell, not this shell, says "Killed".
		(strace -f -qq -o /dev/null \
		    -e inject=${point%:*}:signal=KILL:when=${point#*:} \
		    "$DEBUNPACK" -q --root "$r" "$bf12"
		    exit $?) 2> "$T/err"
		st=$?
		set -e
		[ $st -ne 0 ] || fail "$point: not killed"
		[ -L "$r/bin" ] && [ -L "$r/sbin" ] || fail "$point: killed before the links"
		"$DEBUNPACK" -q --root "$r" --recover 2> "$T/err" ||
		    fail "$point: recover: $(cat "$T/err")"
		empty "$r" "$point: recover"
		echo "ok killed at $point, the repair removes the links"
	done
else
	echo "SKIP: strace cannot trace here: no kill test of the links"
fi

# 2. --run-preinst

logger='#!/bin/sh\necho "$DPKG_MAINTSCRIPT_PACKAGE $DPKG_MAINTSCRIPT_NAME $DPKG_MAINTSCRIPT_ARCH $*" >> /preinst.log\n'
files() {
	printf 'dir ./ 0755\ndir ./usr/ 0755\ndir ./usr/share/ 0755\n'
	printf 'file ./usr/share/%s 0644 text:%s\\n\n' "$1" "$1"
}
for p in p1 p2 p4; do
	{ say "control-file preinst 0755 $logger"; files $p; } | pkg $p $p 1 all
done
{ say "control-file preinst 0755 $logger"; files p1; } | pkg p1v2 p1 2 all
# No data file: the preinst is the first file the run writes.
{ say "control-file preinst 0755 $logger"; say 'dir ./ 0755'; } | pkg p6 p6 1 all
{ say 'control-file preinst 0755 #!/bin/sh\nexit 3\n'; files p3; } | pkg p3 p3 1 all

if ! is_root; then
	echo "SKIP: not root: --run-preinst not run"
else
	# A root with a shell: dash and the libraries it loads, at their paths.
	R=$(newroot pre)
	mkdir -p "$R/bin" "$R/usr/bin"
	cp -L /bin/dash "$R/bin/sh"
	cp -L /bin/dash "$R/usr/bin/sh"
	for lib in $(ldd /bin/dash | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'); do
		mkdir -p "$R$(dirname "$lib")"
		cp -L "$lib" "$R$lib"
	done
	chroot "$R" /bin/sh -c : || fail "no shell in the test root"

	"$DEBUNPACK" -q --root "$R" --merged-usr=no --dpkg-db --run-preinst \
	    "$T/p1.deb" "$T/p2.deb" || fail "run-preinst"
	printf 'p1 preinst all install\np2 preinst all install\n' > "$T/want"
	diff -u "$T/want" "$R/preinst.log" || fail "preinst.log"
	[ -c "$R/dev/null" ] && [ "$(stat -c '%t,%T' "$R/dev/null")" = 1,3 ] ||
	    fail "dev/null: $(ls -l "$R/dev/null" 2>&1)"
	[ "$(stat -c %a "$R/var/lib/dpkg/info/p1.preinst")" = 755 ] ||
	    fail "info/p1.preinst: $(ls -l "$R/var/lib/dpkg/info/p1.preinst" 2>&1)"
	echo "ok preinsts run in command-line order with dpkg's environment"

	"$DEBUNPACK" -q --root "$R" --merged-usr=no --dpkg-db --run-preinst \
	    "$T/p1v2.deb" || fail "run-preinst upgrade"
	echo 'p1 preinst all upgrade 1 2' >> "$T/want"
	diff -u "$T/want" "$R/preinst.log" || fail "preinst.log after upgrade"
	echo "ok an upgrade runs preinst upgrade OLD NEW"

	set +e
	"$DEBUNPACK" -q --root "$R" --merged-usr=no --dpkg-db --run-preinst \
	    "$T/p3.deb" "$T/p4.deb" 2> "$T/err"
	st=$?
	set -e
	[ $st -eq 1 ] || fail "failing preinst: exit $st"
	[ "$(grep -c . "$T/err")" = 1 ] && grep -q 'p3' "$T/err" &&
	    grep -q 'exit status 3' "$T/err" ||
	    fail "failing preinst: message: $(cat "$T/err")"
	diff -u "$T/want" "$R/preinst.log" || fail "p4's preinst ran after p3's failed"
	[ -f "$R/usr/share/p3" ] && [ -f "$R/usr/share/p4" ] ||
	    fail "failing preinst: files not installed"
	echo "ok a failing preinst stops the run, the files stay"

	# Nothing of the run may still be open for writing on the script.
	for mode in syncfs batched perfile none; do
		"$DEBUNPACK" -q --root "$R" --merged-usr=no --dpkg-db --run-preinst \
		    --sync-mode $mode "$T/p6.deb" 2> "$T/err" ||
		    fail "preinst of a package without data, $mode: $(cat "$T/err")"
		if [ $mode = syncfs ]; then
			echo 'p6 preinst all install' >> "$T/want"
		else
			echo 'p6 preinst all upgrade 1 1' >> "$T/want"
		fi
		diff -u "$T/want" "$R/preinst.log" || fail "preinst.log, p6 $mode"
	done
	echo "ok the preinst of a package without data files runs"

	if command -v setpriv > /dev/null; then
		chmod 755 "$T"
		r=$(newroot pre-nobody)
		chown nobody "$r"
		set +e
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		    "$DEBUNPACK" --root "$r" --run-preinst "$T/p1.deb" 2> "$T/err"
		st=$?
		set -e
		chmod 700 "$T"
		[ $st -eq 2 ] || fail "not root: exit $st"
		grep -q 'root' "$T/err" || fail "not root: message: $(cat "$T/err")"
		empty "$r" "not root"
		echo "ok --run-preinst as nobody is a usage error"
	else
		echo "SKIP: setpriv missing: --run-preinst not tried as nobody"
	fi
fi
if ! is_root; then
	r=$(newroot pre-user)
	set +e
	"$DEBUNPACK" --root "$r" --run-preinst "$T/p1.deb" 2> "$T/err"
	st=$?
	set -e
	[ $st -eq 2 ] || fail "not root: exit $st"
	grep -q 'root' "$T/err" || fail "not root: message: $(cat "$T/err")"
	empty "$r" "not root"
	echo "ok --run-preinst when not root is a usage error"
fi

# 3. The progress line on a terminal

for p in a b; do
	printf 'dir ./ 0755\ndir ./usr/ 0755\ndir ./usr/share/ 0755\nfile ./usr/share/%s 0644 size:5000\n' $p |
	    pkg $p $p 1 all
done
a=$T/a.deb b=$T/b.deb
CR=$(printf '\r')

if command -v script > /dev/null && script -qfec true /dev/null > /dev/null 2>&1; then
	# on_tty ARG...: debunpack ARG... with standard error on a terminal;
	# what it wrote there in $T/tty.out.
	on_tty() {
		script -qfec "'$DEBUNPACK' $* > /dev/null" /dev/null > "$T/tty.out" || true
	}
	r=$(newroot tty)
	on_tty --root "'$r'" "'$a'" "'$b'"
	grep -q "${CR}debunpack: extracting" "$T/tty.out" ||
	    fail "no progress line: $(od -c "$T/tty.out" | head)"
	[ "$(tail -c 4 "$T/tty.out" | od -An -c | tr -d ' ')" = '\r033[K' ] ||
	    fail "progress line not erased at the end: $(od -c "$T/tty.out" | tail -3)"
	[ -f "$r/usr/share/b" ] || fail "tty: not installed"
	echo "ok the progress line is redrawn and erased"

	for opt in -q --no-progress; do
		r=$(newroot tty$opt)
		on_tty --root "'$r'" "$opt" "'$a'" "'$b'"
		[ ! -s "$T/tty.out" ] || fail "$opt: printed $(od -c "$T/tty.out" | head)"
		r=$(newroot tty$opt)
		on_tty --root "'$r'" "$opt" "'$a'" "'$garbage'"
		grep -q 'garbage.deb' "$T/tty.out" && ! grep -q extracting "$T/tty.out" ||
		    fail "$opt: error run printed $(od -c "$T/tty.out" | head)"
		echo "ok $opt: errors only on a terminal"
	done
else
	echo "SKIP: script (util-linux) missing: no terminal test"
fi

r=$(newroot notty)
"$DEBUNPACK" --root "$r" "$a" "$b" 2> "$T/err" || fail "not a tty"
[ ! -s "$T/err" ] || fail "not a tty: printed $(cat "$T/err")"
echo "ok no progress line when standard error is not a terminal"

# 4. --status-fd

# dpkglines FILE: the lines of FILE in dpkg's forms.
dpkglines() {
	grep -v '^progress: ' "$1" || true
}
# progresslines FILE TOTAL: the progress lines have their form, the first
# says nothing is done, the last that all is.
progresslines() {
	grep '^progress: ' "$1" > "$T/progress"
	grep -Ev "^progress: (extracting|syncing|renaming|preinst|done): [0-9]+/$2: [0-9]+\$" \
	    "$T/progress" && fail "progress lines of bad form"
	[ "$(head -n 1 "$T/progress")" = "progress: extracting: 0/$2: 0" ] ||
	    fail "first progress line: $(head -n 1 "$T/progress")"
	tail -n 1 "$1" | grep -Eq "^progress: done: $2/$2: [0-9]+\$" ||
	    fail "last line: $(tail -n 1 "$1")"
}

r=$(newroot sfd)
"$DEBUNPACK" -q --root "$r" --status-fd 3 "$a" "$b" 3> "$T/status" ||
    fail "status-fd"
cat > "$T/want" <<'E'
processing: install: a
status: a: half-installed
processing: install: b
status: b: half-installed
status: a: unpacked
status: b: unpacked
E
dpkglines "$T/status" | diff -u "$T/want" - || fail "status lines"
progresslines "$T/status" 2
echo "ok status lines of an install"

"$DEBUNPACK" -q --root "$r" --status-fd 3 "$a" 3> "$T/status" ||
    fail "status-fd upgrade"
printf 'processing: upgrade: a\nstatus: a: half-installed\nstatus: a: unpacked\n' > "$T/want"
dpkglines "$T/status" | diff -u "$T/want" - || fail "status lines of an upgrade"
progresslines "$T/status" 1
echo "ok status lines of an upgrade"

set +e
"$DEBUNPACK" -q --root "$r" --status-fd 99 "$a" 2> "$T/err" 99>&-
st=$?
set -e
[ $st -eq 2 ] || fail "--status-fd 99: exit $st"
grep -q '99' "$T/err" || fail "--status-fd 99: message: $(cat "$T/err")"
echo "ok --status-fd of a closed descriptor is a usage error"

pkg ma libm 1 amd64 <<'D'
control-field Multi-Arch same
dir ./ 0755
dir ./usr/ 0755
file ./usr/m 0644 text:m\n
D
"$DEBUNPACK" -q --root "$r" --status-fd 3 "$T/ma.deb" 3> "$T/status" ||
    fail "status-fd M-A: same"
printf 'processing: install: libm:amd64\nstatus: libm:amd64: half-installed\nstatus: libm:amd64: unpacked\n' > "$T/want"
dpkglines "$T/status" | diff -u "$T/want" - || fail "status lines of M-A: same"
echo "ok Multi-Arch: same packages are NAME:ARCH"

r=$(newroot sfd-full)
"$DEBUNPACK" -q --root "$r" --status-fd 3 "$a" "$b" 3> /dev/full ||
    fail "status fd on /dev/full"
[ -f "$r/usr/share/b" ] || fail "status fd on /dev/full: not installed"
mkfifo "$T/fifo"
(head -c 1 "$T/fifo" > /dev/null) &
r=$(newroot sfd-pipe)
"$DEBUNPACK" -q --root "$r" --status-fd 3 "$a" "$b" 3> "$T/fifo" ||
    fail "status fd a pipe whose reader went away"
wait
[ -f "$r/usr/share/b" ] || fail "status fd on a closed pipe: not installed"
echo "ok a status fd that cannot be written to does not stop the run"

# Failed runs: the failing package, by its path when its name is not known.
r=$(newroot sfd-fail)
for bad in garbage trunc; do
	set +e
	"$DEBUNPACK" -q --root "$r" --status-fd 3 "$a" "$T/$bad.deb" \
	    3> "$T/status" 2> /dev/null
	st=$?
	set -e
	[ $st -eq 1 ] || fail "$bad: exit $st"
	! grep -q ': unpacked$' "$T/status" || fail "$bad: unpacked: $(cat "$T/status")"
	case $bad in
	garbage) want="^status: [^ ]*garbage\\.deb : error : ." ;;
	trunc) want="^status: broken : error : ." ;;
	esac
	grep -q "$want" "$T/status" ||
	    fail "$bad: no error status line: $(cat "$T/status")"
	empty "$r" "$bad"
done
echo "ok a failed run names the failing package on the status fd"

# Hostile packages and dpkg's database: a package that ships a file of the
# database is refused and changes nothing; control members whose names
# dpkg would not take ("..", with a dot) do not reach info/.
pkg dbfile dbfile 1 all <<'D'
dir ./ 0755
dir ./var/ 0755
dir ./var/lib/ 0755
dir ./var/lib/dpkg/ 0755
file ./var/lib/dpkg/status 0644 text:Package: evil\n
D
r=$(newroot dbfile)
refused "$r" "a package shipping var/lib/dpkg/status accepted" \
    "var/lib/dpkg/status': a package ships a file of dpkg's database" \
    --dpkg-db "$T/dbfile.deb"
[ "$(wc -l < "$T/err")" -eq 1 ] || fail "database file: more than one line"
empty "$r" "database file"
pkg oddctl oddctl 1 all <<'D'
control-file ../escape 0644 x\n
control-file with.dot 0644 x\n
control-file postinst 0755 #!/bin/sh\n
dir ./ 0755
D
r=$(newroot oddctl)
"$DEBUNPACK" -q --root "$r" --dpkg-db "$T/oddctl.deb" || fail "odd control members"
[ "$(cd "$r/var/lib/dpkg/info" && ls | sort | tr '\n' ' ')" = \
    "format oddctl.list oddctl.md5sums oddctl.postinst " ] ||
    fail "info/: $(ls "$r/var/lib/dpkg/info")"
[ ! -e "$r/var/lib/dpkg/escape" ] && [ ! -e "$r/var/lib/escape" ] ||
    fail "a control member escaped info/"
echo "ok hostile packages cannot reach dpkg's database"

# A path that dpkg-divert diverted goes under the diversion's name, as
# dpkg puts it (tests/divert.sh compares with dpkg itself), and dpkg's
# file list keeps the package's name; a package that ships a diversion's
# new name is refused, as dpkg refuses it.
pkg divme divme 1 all <<'D'
dir ./ 0755
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/divme 0755 text:new\n
D
pkg divto divto 1 all <<'D'
dir ./ 0755
dir ./usr/ 0755
dir ./usr/bin/ 0755
file ./usr/bin/divme.distrib 0755 text:mine\n
D
r=$(newroot divert)
"$DEBUNPACK" -q --root "$r" --dpkg-db "$T/oddctl.deb" || fail "oddctl"
printf '/usr/bin/divme\n/usr/bin/divme.distrib\nlocal-diverter\n' \
    > "$r/var/lib/dpkg/diversions"
"$DEBUNPACK" -q --root "$r" --dpkg-db "$T/divme.deb" || fail "divme diverted"
[ "$(cat "$r/usr/bin/divme.distrib")" = new ] && [ ! -e "$r/usr/bin/divme" ] ||
    fail "divme not at the diversion's name"
grep -qx /usr/bin/divme "$r/var/lib/dpkg/info/divme.list" ||
    fail "divme.list: $(cat "$r/var/lib/dpkg/info/divme.list")"
refused "$r" "a diversion's new name shipped" \
    "trying to overwrite '/usr/bin/divme.distrib', which is the diverted version of '/usr/bin/divme' (package: local-diverter)" \
    --dpkg-db "$T/divto.deb"
echo "ok a path diverted by dpkg-divert goes to its new name, which no package may ship"

# Packages that dpkg installed itself are installed packages: their paths
# are theirs (in dpkg's words), and they are upgraded as debunpack's own.
if [ "$(id -u)" = 0 ] && command -v dpkg > /dev/null; then
	pkg bar bar 1 all <<'D'
dir ./ 0755
dir ./usr/ 0755
dir ./usr/share/ 0755
dir ./usr/share/shared/ 0755
file ./usr/share/shared/file 0644 text:bar\n
D
	pkg eee eee 1 all <<'D'
dir ./ 0755
dir ./usr/ 0755
dir ./usr/share/ 0755
dir ./usr/share/shared/ 0755
file ./usr/share/shared/file 0644 text:eee\n
D
	r=$(newroot bydpkg)
	empty_dpkg_db "$r"
	dpkg_root "$r" --force-depends --unpack "$T/bar.deb"
	refused "$r" "a path of a package dpkg installed taken" \
	    "trying to overwrite '/usr/share/shared/file', which is also in package bar 1" \
	    --dpkg-db "$T/eee.deb"
	"$DEBUNPACK" -q --root "$r" --dpkg-db "$T/bar.deb" ||
	    fail "a package dpkg installed: not reinstalled"
	dpkg_root "$r" --verify bar
	echo "ok packages dpkg installed are installed packages"
else
	echo "# not root or no dpkg: packages installed by dpkg not tried"
fi
