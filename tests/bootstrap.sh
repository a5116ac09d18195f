#!/bin/sh
# SPDX-License-Identifier: MIT
# debunpack-bootstrap builds the minbase root from a flat mirror the test
# makes of the minbase packages: every package configured, dpkg's
# database sound, nothing left of apt's work, what mmdebstrap leaves
# (the host's resolv.conf and hostname, --aptopt in apt.conf.d, a fresh
# file system's empty lost+found); a tarball twice, bit for bit the same
# with SOURCE_DATE_EPOCH, the second replacing an older file; a tarball
# into a pipe; mmdebstrap's default sources for a suite without a MIRROR;
# a kill in each phase leaves a root marked unfinished, which a second
# run finishes; bad input (an unreachable mirror, a missing package) is
# one line naming apt's cause, a non-zero exit, and nothing that looks
# finished.
. "${srcdir:-.}/tests/lib.sh"

bootstrap_ready apt-get apt-ftparchive dpkg-scanpackages dpkg chroot
minbase_debs

mirror=$T/mirror
minbase_mirror "$mirror"
src="deb [trusted=yes] file:$mirror ./"
MARKER=.debunpack-bootstrap-unfinished

# bs NAME ARG...: debunpack-bootstrap ARG..., its output in $T/NAME.log.
bs() {
	bs_name=$1
	shift
	bs_rc=0
	"$BOOTSTRAP" "$@" > "$T/$bs_name.log" 2>&1 < /dev/null || bs_rc=$?
	return $bs_rc
}

# finished ROOT: the minbase set, every package "ii", audit and verify
# clean, no marker, no lists or downloaded packages left.
finished() {
	[ ! -e "$1/$MARKER" ] || fail "$1: still marked unfinished"
	every_ii "$1"
	LC_ALL=C chroot "$1" dpkg --audit > "$T/audit" 2>&1 || fail "dpkg --audit: $(cat "$T/audit")"
	[ ! -s "$T/audit" ] || fail "dpkg --audit: $(cat "$T/audit")"
	LC_ALL=C chroot "$1" dpkg --verify > "$T/verify" 2>&1 || fail "dpkg --verify: $(head "$T/verify")"
	[ -z "$(ls -A "$1/var/lib/apt/lists" | grep -v '^partial$')" ] || fail "package lists left"
	[ -z "$(ls -A "$1/var/cache/apt/archives" | grep -v '^partial$')" ] || fail "packages left"
	# The given mirror, nothing else.
	[ "$(cat "$1/etc/apt/sources.list")" = "$src" ] ||
	    fail "sources.list: $(cat "$1/etc/apt/sources.list")"
	[ -L "$1/bin" ] || fail "/usr is not merged"
}

# As on a fresh ext4 file system: an empty lost+found is no content.  The
# options after the operands, as mmdebstrap takes them.
mkdir -p "$T/root/lost+found"
echo 'Acquire::Retries "2";' > "$T/opt.conf"
bs minbase "" "$T/root" "$src" --variant=minbase \
    --aptopt='APT::Get::Show-Versions "true"' --aptopt="$T/opt.conf" ||
    fail "minbase: exit $bs_rc: $(tail -n 5 "$T/minbase.log")"
finished "$T/root"
[ -d "$T/root/lost+found" ] && [ -z "$(ls -A "$T/root/lost+found")" ] ||
    fail "lost+found not kept empty"
echo "ok minbase into a directory"

# What mmdebstrap leaves in the root too: the host's resolv.conf and
# hostname (contents and mode), and --aptopt in apt's configuration.
for f in /etc/resolv.conf /etc/hostname; do
	if [ -e "$f" ]; then
		cmp -s "$f" "$T/root$f" || fail "$f: not the host's"
		[ "$(stat -L -c %a "$f")" = "$(stat -c %a "$T/root$f")" ] ||
		    fail "$f: mode $(stat -c %a "$T/root$f"), the host's $(stat -L -c %a "$f")"
	else
		[ ! -e "$T/root$f" ] || fail "$f: the host has none, the root has one"
	fi
done
printf '%s\n' 'APT::Get::Show-Versions "true";' 'Acquire::Retries "2";' |
    diff -u - "$T/root/etc/apt/apt.conf.d/99debunpack-bootstrap" ||
    fail "--aptopt not kept in the root"
echo "ok resolv.conf, hostname and --aptopt as mmdebstrap leaves them"

# apt works in the result, from the same mirror (bound where the root's
# sources.list looks for it).
mkdir -p "$T/root$mirror"
mount --bind "$mirror" "$T/root$mirror" || fail "cannot bind the mirror"
cleanup_hooks="umount '$T/root$mirror' 2> /dev/null; $cleanup_hooks"
chroot "$T/root" apt-get -q update > "$T/aptup.log" 2>&1 ||
    fail "apt-get update in the root: $(tail -n 3 "$T/aptup.log")"
chroot "$T/root" env DEBIAN_FRONTEND=noninteractive apt-get -q -y install \
    --reinstall hostname > "$T/aptin.log" 2>&1 ||
    fail "apt-get install in the root: $(tail -n 3 "$T/aptin.log")"
umount "$T/root$mirror"
rm -rf "$T/root${mirror%/mirror}"
echo "ok apt-get update and install in the root"

# The same root as a tarball, twice: the same bytes.  The second goes
# over an older tarball, through a link to it, as sbuild's cache is
# refreshed: the file the link names is replaced by a rename (its other
# name keeps the old contents), with its mode.
SOURCE_DATE_EPOCH=1700000000
export SOURCE_DATE_EPOCH
echo old > "$T/real2.tar"
chmod 640 "$T/real2.tar"
ln "$T/real2.tar" "$T/old2.tar"
ln -s real2.tar "$T/root2.tar"
for i in 1 2; do
	bs tar$i -q --variant=minbase "" "$T/root$i.tar" "$src" ||
	    fail "tarball $i: $(tail -n 5 "$T/tar$i.log")"
done
unset SOURCE_DATE_EPOCH
cmp -s "$T/root1.tar" "$T/real2.tar" || fail "two tarballs differ"
[ -L "$T/root2.tar" ] || fail "the link to the tarball was replaced"
[ "$(cat "$T/old2.tar")" = old ] || fail "the old tarball was written over in place"
[ "$(stat -c %a "$T/real2.tar")" = 640 ] || fail "mode $(stat -c %a "$T/real2.tar"), not the old 640"
tar -tf "$T/root1.tar" > "$T/list"
grep -qx './usr/bin/dpkg' "$T/list" || fail "no usr/bin/dpkg in the tarball"
! grep -q "$MARKER" "$T/list" || fail "the tarball holds the marker"
[ -z "$(find "$T" -maxdepth 1 -name '*.part*')" ] || fail "a .part left: $(ls "$T")"
echo "ok reproducible tarball, replacing an older one"

# --cache-dir keeps what it downloaded (copy: makes apt download).
bs cache --variant=essential --cache-dir="$T/cache" "" "$T/ess" \
    "deb [trusted=yes] copy:$mirror ./" || fail "--cache-dir: $(tail -n 5 "$T/cache.log")"
ls "$T/cache"/dpkg_*.deb > /dev/null 2>&1 || fail "--cache-dir kept nothing"
[ -z "$(ls -A "$T/ess/var/cache/apt/archives" | grep -v '^partial$')" ] ||
    fail "--cache-dir: packages in the root"
echo "ok --cache-dir"

# The essential variant is without apt (apt takes itself for essential),
# the apt variant with it: a tarball, into a pipe (a TARGET that is a
# pipe is one, whatever its name).
chroot "$T/ess" dpkg-query -W -f '${db:Status-Abbrev}\n' apt > "$T/q" 2>&1 &&
    grep -q '^ii' "$T/q" && fail "--variant=essential installed apt"
mkfifo "$T/apt.pipe"
cat "$T/apt.pipe" > "$T/apt.tar" &
catpid=$!
bs apt --variant=apt "" "$T/apt.pipe" "$src" || fail "--variant=apt: $(tail -n 5 "$T/apt.log")"
wait $catpid || fail "reading the pipe"
[ -p "$T/apt.pipe" ] || fail "the pipe was replaced"
tar -xOf "$T/apt.tar" ./var/lib/dpkg/status |
    awk '/^Package: / { p = $2 } /^Status: install ok installed$/ && p == "apt" { f = 1 }
	END { exit !f }' || fail "--variant=apt: no apt in the tarball"
echo "ok the essential and apt variants, a tarball into a pipe"

# No MIRROR: mmdebstrap's sources for the suite (the security archive's
# layout by release; none but the suite for unstable), --components
# repeated and split as mmdebstrap splits them.  A proxy that refuses
# stops each build at apt-get update, with apt's cause in one line; the
# unfinished root holds its sources.list.  TARGET left out is standard
# output, as with mmdebstrap: a build, not a usage error.
arch=$(dpkg --print-architecture)
proxy='Acquire::http::Proxy "http://127.0.0.1:9/"'
noretry='Acquire::Retries "0"'
# defsrc SUITE LINE...: the sources for SUITE are LINE...
defsrc() {
	ds_suite=$1
	shift
	bs "def-$ds_suite" --aptopt="$proxy" --aptopt="$noretry" --architectures="$arch" \
	    --components=main --components="contrib non-free,main" \
	    "$ds_suite" "$T/def-$ds_suite" && fail "$ds_suite: exit 0 through a refusing proxy"
	grep -q "^debunpack-bootstrap: apt-get update: cannot fetch 'http://.*': Could not connect to 127.0.0.1:9" \
	    "$T/def-$ds_suite.log" || fail "$ds_suite: apt's cause not said: $(cat "$T/def-$ds_suite.log")"
	printf '%s\n' "$@" | diff -u - "$T/def-$ds_suite/etc/apt/sources.list" ||
	    fail "$ds_suite: not mmdebstrap's sources"
}
c="main contrib non-free"
defsrc bookworm "deb http://deb.debian.org/debian bookworm $c" \
    "deb http://deb.debian.org/debian bookworm-updates $c" \
    "deb http://security.debian.org/debian-security bookworm-security $c"
defsrc buster "deb http://deb.debian.org/debian buster $c" \
    "deb http://deb.debian.org/debian buster-updates $c" \
    "deb http://security.debian.org/debian-security buster/updates $c"
defsrc unstable "deb http://deb.debian.org/debian unstable $c"
bs stdout --aptopt="$proxy" --aptopt="$noretry" bookworm && fail "no TARGET: exit 0 through a refusing proxy"
[ "$bs_rc" = 1 ] && grep -q "^debunpack-bootstrap: apt-get update: cannot fetch" "$T/stdout.log" ||
    fail "no TARGET: exit $bs_rc: $(cat "$T/stdout.log")"
echo "ok mmdebstrap's default sources"

# Killed in each phase: marked unfinished; run again, it is finished.
# The wrappers stand for debunpack and the nosync helper: they let the
# step run a while (or to its end) and then kill the whole build.
cat > "$T/kill-unpack" <<EOF
#!/bin/sh
timeout -s KILL 0.3 "$DEBUNPACK" "\$@"
kill -9 \$PPID
EOF
cat > "$T/kill-after-unpack" <<EOF
#!/bin/sh
"$DEBUNPACK" "\$@"
kill -9 \$PPID
EOF
cat > "$T/kill-configure" <<EOF
#!/bin/sh
timeout -s KILL 1 "$DEBUNPACK_NOSYNC" "\$@"
kill -9 \$PPID
EOF
chmod +x "$T/kill-unpack" "$T/kill-after-unpack" "$T/kill-configure"
for k in unpack after-unpack configure; do
	r=$T/k-$k
	case $k in
	configure) set -- env DEBUNPACK_NOSYNC="$T/kill-$k" ;;
	*) set -- env DEBUNPACK="$T/kill-$k" ;;
	esac
	"$@" "$BOOTSTRAP" -q --variant=minbase "" "$r" "$src" \
	    > "$T/kill-$k.log" 2>&1 < /dev/null && fail "killed in $k: exit 0"
	[ -e "$r/$MARKER" ] || fail "killed in $k: not marked unfinished"
	bs again-$k -q --variant=minbase "" "$r" "$src" ||
	    fail "after a kill in $k: exit $bs_rc: $(tail -n 5 "$T/again-$k.log")"
	finished "$r"
	awk -v r="$r/" 'index($2 "/", r) == 1' /proc/self/mounts | grep -q . &&
	    fail "after a kill in $k: mounts left in the root"
done
echo "ok killed in each phase, then finished"

# Bad input: one line naming the cause, a non-zero exit, nothing that
# looks finished.
# bad NAME STATUS CAUSE ARG...
bad() {
	bd_name=$1 bd_want=$2 bd_cause=$3
	shift 3
	bs "bad-$bd_name" "$@" && fail "$bd_name: exit 0"
	[ "$bs_rc" = "$bd_want" ] || fail "$bd_name: exit $bs_rc, want $bd_want: $(cat "$T/bad-$bd_name.log")"
	grep -v "^Try '" "$T/bad-$bd_name.log" > "$T/bad.lines"
	[ "$(wc -l < "$T/bad.lines")" = 1 ] || fail "$bd_name: not one line: $(cat "$T/bad-$bd_name.log")"
	grep -q "^debunpack-bootstrap: .*$bd_cause" "$T/bad.lines" ||
	    fail "$bd_name: cause /$bd_cause/ not said: $(cat "$T/bad-$bd_name.log")"
}
bad variant 2 "unknown variant 'tiny'" --variant=tiny "" "$T/b1" "$src"
[ ! -e "$T/b1" ] || fail "unknown variant: the target was made"
bad option 2 "unknown option '--nope'" --nope "" "$T/b1" "$src"
bad mirror 1 "apt-get update: cannot fetch 'file:$T/no-such-mirror/./Packages': File not found" \
    --variant=minbase "" "$T/b2" "deb [trusted=yes] file:$T/no-such-mirror ./"
[ -e "$T/b2/$MARKER" ] || fail "missing mirror: not marked unfinished"
bad refused 1 "apt-get update: cannot fetch 'http://127.0.0.1:9/debian/dists/bookworm/InRelease': Could not connect to 127.0.0.1:9" \
    --variant=minbase --aptopt="$noretry" bookworm "$T/b4" http://127.0.0.1:9/debian
bad missing 1 "no package 'no-such-package' in the sources" --variant=minbase \
    --include=no-such-package "" "$T/b3" "$src"
[ -e "$T/b3/$MARKER" ] || fail "missing package: not marked unfinished"
bad missing2 1 "no packages 'no-such-package', 'nor-this' in the sources" \
    --variant=minbase --include=hostname,no-such-package --include nor-this \
    "" "$T/b5" "$src"
mkdir "$T/full"
echo mine > "$T/full/file"
bad notempty 1 "is not empty" --variant=minbase "" "$T/full" "$src"
[ "$(cat "$T/full/file")" = mine ] && [ "$(ls -A "$T/full")" = file ] ||
    fail "a non-empty target was touched"
bad stdout 2 "standard output" --format=directory "" - "$src"
echo "ok bad input"
