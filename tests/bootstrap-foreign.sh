#!/bin/sh
# SPDX-License-Identifier: MIT
# debunpack-bootstrap --architectures=arm64,armhf on an amd64 host (amd64
# on an arm64 one): the minbase root of the first architecture, from a
# flat mirror of that architecture's real packages, unpacked natively,
# its preinsts and dpkg --configure -a under qemu-user through
# binfmt_misc (or, where it has no entry, the emulator named with
# --emulator, registered in a binfmt_misc of the root's programs' own):
# every package configured, the root's dpkg (run under
# emulation) says its architecture is arm64 and armhf its foreign one,
# dpkg --verify is clean, the root runs programs.  Before anything is
# written, a bad architecture name, binfmt_misc unmounted, no emulator
# registered, or one without the F flag whose interpreter is not static
# is refused in one line; with a static one, it is put in the root while
# the root's programs run, and taken away after.  The essential and apt
# variants too, as directories: what they hold, every package configured
# under emulation, none of another architecture.  With
# FOREIGN_FULL=1 (make check-foreign, some minutes): the same root as a
# tarball twice, bit for bit the same with SOURCE_DATE_EPOCH, through
# mmdebstrap's hook, an armhf minbase (a 32-bit root; on an amd64 host),
# the buildd root whose gcc compiles a program that runs there and
# prints what it computed, and built with --mode=unshare (with and without
# a binfmt_misc entry).  The packages
# are kept in FOREIGN_CACHE (default /var/cache/debunpack-tests).
# SKIP when not root, or binfmt_misc or the
# emulator is missing (saying which).
. "${srcdir:-.}/tests/lib.sh"

bootstrap_ready apt-get apt-cache apt-ftparchive dpkg-scanpackages dpkg \
    dpkg-architecture chroot look
[ -f "${srcdir:-.}/bench/fetch.sh" ] || skip "no bench/fetch.sh in this tree"

host=$(dpkg --print-architecture)
case $host in
arm64) fa=amd64 q=x86_64 second=i386 elf=3e00 ;;
*) fa=arm64 q=aarch64 second=armhf elf=b700 ;;
esac
bf=/proc/sys/fs/binfmt_misc
[ -e "$bf/status" ] ||
    skip "binfmt_misc is not mounted on $bf (mount -t binfmt_misc binfmt_misc $bf)"
[ -e "$bf/qemu-$q" ] ||
    skip "no qemu-$q in $bf (qemu-user-static and binfmt-support)"
[ "$(head -n 1 "$bf/qemu-$q")" = enabled ] || skip "$bf/qemu-$q is disabled"
sed -n 's/^flags: //p' "$bf/qemu-$q" | grep -q F ||
    skip "$bf/qemu-$q has no F flag"

# bs NAME ARG...: debunpack-bootstrap ARG..., its output in $T/NAME.log.
bs() {
	bs_name=$1
	shift
	bs_rc=0
	"$BOOTSTRAP" "$@" > "$T/$bs_name.log" 2>&1 < /dev/null || bs_rc=$?
	return $bs_rc
}

# refused NAME RC WORDS TARGET: the run NAME exited RC with one line
# holding WORDS, and TARGET was not made.
refused() {
	[ "$bs_rc" = "$2" ] || fail "$1: exit $bs_rc, not $2: $(cat "$T/$1.log")"
	[ "$(wc -l < "$T/$1.log")" -le 2 ] || fail "$1: more than one line: $(cat "$T/$1.log")"
	grep -q -- "$3" "$T/$1.log" || fail "$1: no '$3' in: $(cat "$T/$1.log")"
	[ ! -e "$4" ] || fail "$1: $4 was made"
}

# The refusals first: they need no packages.
src="deb [trusted=yes] file:$T/none ./"
bs badname --architectures="$fa,Arm_64" --variant=minbase "" "$T/r0" "$src" || :
refused badname 2 "not an architecture name" "$T/r0"
mkdir "$T/nobf"
DEBUNPACK_BINFMT_MISC=$T/nobf bs nomount --architectures="$fa" \
    --variant=minbase "" "$T/r0" "$src" || :
refused nomount 1 "binfmt_misc is not mounted" "$T/r0"
echo enabled > "$T/nobf/status"
DEBUNPACK_BINFMT_MISC=$T/nobf bs noqemu --architectures="$fa" \
    --variant=minbase "" "$T/r0" "$src" || :
refused noqemu 1 "cannot run $fa programs: no qemu-$q" "$T/r0"
# An entry without F whose interpreter is not static (qemu-user-binfmt's):
# it could not run inside the root.
sed -e 's/^flags: .*/flags: P/' -e "s|^interpreter .*|interpreter $(command -v cat)|" \
    "$bf/qemu-$q" > "$T/nobf/qemu-$q"
DEBUNPACK_BINFMT_MISC=$T/nobf bs noF --architectures="$fa" \
    --variant=minbase "" "$T/r0" "$src" || :
refused noF 1 "lacks the F flag and runs $(command -v cat), which is not a static executable" "$T/r0"
echo "ok a bad name, no binfmt_misc, no emulator, a dynamic one without F: refused, nothing made"

# The packages: bench/workloads/minbase.list's, of architecture $fa,
# kept from run to run in $FOREIGN_CACHE/minbase-$fa.
fcache=${FOREIGN_CACHE:-/var/cache/debunpack-tests}
timed fetch sh "${srcdir:-.}/bench/fetch.sh" -c "$fcache" -a "$fa" minbase ||
    skip "cannot download the $fa minbase packages (archive not reachable?): $(tail -n 1 "$T/fetch.log")"
dir=$fcache/minbase-$fa
# shellcheck disable=SC2034 # minbase_mirror's and every_ii's
debs=$(awk -v d="$dir" '{ print d "/" $2 }' "$dir/SHA256SUMS")
pkgs=$(grep -v '^#' "$dir/.list")
# shellcheck disable=SC2086 # one word per package
n=$(printf '%s\n' $pkgs | wc -l)
mirror=$T/mirror
minbase_mirror "$mirror"
src="deb [trusted=yes] file:$mirror ./"

# finished ROOT: the minbase set of $fa, configured; its dpkg (run under
# emulation) says its architectures; verified; no marker.
finished() {
	[ ! -e "$1/.debunpack-bootstrap-unfinished" ] || fail "$1: still marked unfinished"
	every_ii "$1"
	[ "$(chroot "$1" dpkg --print-architecture)" = "$fa" ] ||
	    fail "dpkg --print-architecture in the root: $(chroot "$1" dpkg --print-architecture 2>&1)"
	[ "$(chroot "$1" dpkg --print-foreign-architectures)" = "$second" ] ||
	    fail "dpkg --print-foreign-architectures: $(chroot "$1" dpkg --print-foreign-architectures 2>&1)"
	printf '%s\n' "$fa" "$second" | cmp -s - "$1/var/lib/dpkg/arch" ||
	    fail "var/lib/dpkg/arch: $(cat "$1/var/lib/dpkg/arch")"
	# The root's programs are $fa's (ELF e_machine), and run.
	[ "$(od -An -tx1 -j18 -N2 "$1/usr/bin/dpkg" | tr -d ' ')" = "$elf" ] ||
	    fail "$1/usr/bin/dpkg is not a $fa program"
	chroot "$1" /bin/true || fail "chroot $1 /bin/true"
	LC_ALL=C dpkg --root "$1" --verify > "$T/verify" 2>&1 ||
	    fail "dpkg --root --verify: $(head "$T/verify")"
	[ ! -s "$T/verify" ] || fail "dpkg --root --verify: $(head "$T/verify")"
	LC_ALL=C chroot "$1" dpkg --audit > "$T/audit" 2>&1 && [ ! -s "$T/audit" ] ||
	    fail "dpkg --audit: $(cat "$T/audit")"
}

bs minbase -v --architectures="$fa,$second" --variant=minbase "" "$T/root" "$src" ||
    fail "minbase: exit $bs_rc: $(tail -n 5 "$T/minbase.log")"
finished "$T/root"
grep -q "unpacking $n packages (the preinsts under qemu-$q)" "$T/minbase.log" ||
    fail "no word of the emulated preinsts: $(grep unpacking "$T/minbase.log")"
sed -n 's/^debunpack-bootstrap: \(unpacked\|configured\) in/&/p' "$T/minbase.log"
echo "ok $fa minbase into a directory, its preinsts and configuration emulated"

# An entry without F (binfmt-support's default): the kernel would look
# for its static interpreter in the root, which has it while its programs
# run and not after (the kernel's own entry, with F, still runs them here).
sed 's/^flags: .*/flags: P/' "$bf/qemu-$q" > "$T/nobf/qemu-$q"
interp=$(sed -n 's/^interpreter //p' "$T/nobf/qemu-$q")
DEBUNPACK_BINFMT_MISC=$T/nobf bs noFstatic -v --architectures="$fa,$second" \
    --variant=minbase "" "$T/rootp" "$src" ||
    fail "without F: exit $bs_rc: $(tail -n 5 "$T/noFstatic.log")"
finished "$T/rootp"
grep -q "^debunpack-bootstrap: $interp put in the root while its programs run" "$T/noFstatic.log" ||
    fail "without F: the interpreter was not put in the root: $(grep -i interp "$T/noFstatic.log")"
[ ! -e "$T/rootp$interp" ] && [ ! -e "$T/rootp$(dirname "$interp")" ] ||
    fail "without F: $interp left in the root"
echo "ok $fa minbase with a binfmt_misc entry without F: $interp in the root while it ran"

# No entry at all (binfmt-support not installed, a container that sees
# none): the emulator named is registered in a binfmt_misc of the root's
# programs' own user namespace, for the preinsts (debunpack) and dpkg
# --configure (debunpack-emulate).  Unnamed, the refusal says how.
rm -f "$T/nobf/qemu-$q"
DEBUNPACK_BINFMT_MISC=$T/nobf bs ownunnamed --architectures="$fa" \
    --variant=minbase "" "$T/r0" "$src" || :
refused ownunnamed 1 "no qemu-$q in .*name /usr/bin/qemu-$q-static with --emulator" "$T/r0"
if [ -x "/usr/bin/qemu-$q-static" ] && unshare --user --mount -r sh -c \
    'mount -t binfmt_misc none /proc/sys/fs/binfmt_misc' 2> /dev/null; then
	DEBUNPACK_BINFMT_MISC=$T/nobf bs own -v --architectures="$fa,$second" \
	    --variant=minbase --emulator="/usr/bin/qemu-$q-static" "" "$T/rooto" "$src" ||
	    fail "no entry, --emulator: exit $bs_rc: $(tail -n 5 "$T/own.log")"
	finished "$T/rooto"
	grep -q "registered in a binfmt_misc of their own" "$T/own.log" ||
	    fail "no entry, --emulator: not told: $(grep configuring "$T/own.log")"
	rm -rf "$T/rooto"
	echo "ok $fa minbase without a binfmt_misc entry, its emulator named"
fi

# The smaller variants, as directories: essential (the Essential: yes
# packages and what they need, no apt) and apt (those and apt), every
# package configured under emulation and of the root's architecture.
awk '/^Package:/ { p = $2 } /^Essential: yes/ { print p }' "$mirror/Packages" |
    LC_ALL=C sort > "$T/essential"
[ -s "$T/essential" ] || fail "no Essential: yes package in the mirror"
for v in essential apt; do
	bs "v$v" -q --architectures="$fa" --variant=$v "" "$T/root-$v" "$src" ||
	    fail "--variant=$v: exit $bs_rc: $(tail -n 5 "$T/v$v.log")"
	[ ! -e "$T/root-$v/.debunpack-bootstrap-unfinished" ] || fail "$v: still marked unfinished"
	LC_ALL=C chroot "$T/root-$v" dpkg-query -W \
	    -f '${db:Status-Abbrev} ${Package} ${Architecture}\n' > "$T/q-$v" ||
	    fail "$v: dpkg-query -W in the root"
	! awk '$1 != "ii"' "$T/q-$v" | grep . ||
	    fail "$v: not configured: $(awk '$1 != "ii"' "$T/q-$v")"
	! awk -v a="$fa" '$3 != a && $3 != "all"' "$T/q-$v" | grep . ||
	    fail "$v: not $fa: $(awk -v a="$fa" '$3 != a && $3 != "all"' "$T/q-$v")"
	awk '{ print $2 }' "$T/q-$v" | LC_ALL=C sort > "$T/have-$v"
	LC_ALL=C comm -23 "$T/essential" "$T/have-$v" > "$T/missing-$v"
	[ ! -s "$T/missing-$v" ] || fail "$v: essential packages missing: $(cat "$T/missing-$v")"
	if [ $v = essential ]; then
		! grep -qx apt "$T/have-$v" || fail "essential: apt installed"
	else
		grep -qx apt "$T/have-$v" || fail "apt: no apt"
		LC_ALL=C chroot "$T/root-$v" apt-get --version > "$T/aptv" 2>&1 ||
		    fail "apt: the root's apt-get does not run: $(cat "$T/aptv")"
	fi
	[ "$(wc -l < "$T/have-$v")" -lt "$n" ] ||
	    fail "$v: $(wc -l < "$T/have-$v") packages, as many as minbase's $n"
	LC_ALL=C dpkg --root "$T/root-$v" --verify > "$T/verify-$v" 2>&1 && [ ! -s "$T/verify-$v" ] ||
	    fail "$v: dpkg --verify: $(head "$T/verify-$v")"
	echo "ok $fa --variant=$v: $(wc -l < "$T/have-$v") packages, configured under emulation"
	rm -rf "$T/root-$v"
done

[ "${FOREIGN_FULL:-}" = 1 ] || exit 0

# The same root as a tarball, twice: the same bytes.
SOURCE_DATE_EPOCH=1700000000
export SOURCE_DATE_EPOCH
for i in 1 2; do
	bs tar$i -q --architectures="$fa,$second" --variant=minbase "" "$T/root$i.tar" "$src" ||
	    fail "tarball $i: $(tail -n 5 "$T/tar$i.log")"
done
cmp -s "$T/root1.tar" "$T/root2.tar" || fail "two tarballs differ"
echo "ok $fa minbase as a tarball, twice the same bytes"

# As mmdebstrap's extract hook (--variant=custom), the root's architecture
# is mmdebstrap's --architectures.
if command -v mmdebstrap > /dev/null && command -v arch-test > /dev/null; then
	rc=0
	DEBUNPACK_BOOTSTRAP=$BOOTSTRAP DEBUNPACK_VARIANT=minbase unshare -n mmdebstrap \
	    --mode=root --variant=custom \
	    --architectures="$fa" --hook-dir="$MMHOOKDIR" \
	    --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
	    "" "$T/mmroot" "$src" > "$T/mm.log" 2>&1 < /dev/null || rc=$?
	awk -v t="$T/" 'index($2, t) == 1 { print $2 }' /proc/self/mounts |
	    sort -r | while read -r mp; do umount "$mp"; done
	[ $rc = 0 ] || fail "mmdebstrap --architectures=$fa with the hook: $(tail -n 5 "$T/mm.log")"
	[ -s "$T/mmroot/var/lib/debunpack/dpkg.record" ] || fail "the hook did not install"
	[ "$(chroot "$T/mmroot" dpkg --print-architecture)" = "$fa" ] ||
	    fail "the hook's root: dpkg --print-architecture: $(chroot "$T/mmroot" dpkg --print-architecture 2>&1)"
	echo "ok $fa minbase through mmdebstrap's hook"
fi

# A 32-bit root of its own (armhf on an amd64 host; an arm64 one runs
# armhf itself): ELFCLASS32 programs under qemu-arm.
if [ "$fa" = arm64 ]; then
	timed fetch32 sh "${srcdir:-.}/bench/fetch.sh" -c "$fcache" -a armhf minbase ||
	    skip "cannot download the armhf minbase packages: $(tail -n 1 "$T/fetch32.log")"
	debs=$(awk -v d="$fcache/minbase-armhf" '{ print d "/" $2 }' "$fcache/minbase-armhf/SHA256SUMS")
	minbase_mirror "$T/mirror32"
	bs armhf -v --architectures=armhf --variant=minbase "" "$T/root32" \
	    "deb [trusted=yes] file:$T/mirror32 ./" ||
	    fail "armhf minbase: exit $bs_rc: $(tail -n 5 "$T/armhf.log")"
	grep -q "(the preinsts under qemu-arm)" "$T/armhf.log" ||
	    fail "armhf: no word of qemu-arm: $(grep unpacking "$T/armhf.log")"
	[ "$(chroot "$T/root32" dpkg --print-architecture)" = armhf ] ||
	    fail "armhf root: dpkg --print-architecture: $(chroot "$T/root32" dpkg --print-architecture 2>&1)"
	# ELFCLASS32, EM_ARM.
	[ "$(od -An -tx1 -j4 -N1 "$T/root32/usr/bin/dpkg" | tr -d ' ')" = 01 ] &&
	    [ "$(od -An -tx1 -j18 -N2 "$T/root32/usr/bin/dpkg" | tr -d ' ')" = 2800 ] ||
	    fail "$T/root32/usr/bin/dpkg is not a 32-bit arm program"
	LC_ALL=C chroot "$T/root32" dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' \
	    > "$T/query32" || fail "armhf: dpkg-query -W"
	[ "$(wc -l < "$T/query32")" = "$(wc -l < "$fcache/minbase-armhf/SHA256SUMS")" ] ||
	    fail "armhf: $(wc -l < "$T/query32") packages installed"
	! grep -v '^ii ' "$T/query32" > "$T/not-ii32" ||
	    fail "armhf: not configured: $(head "$T/not-ii32")"
	LC_ALL=C dpkg --root "$T/root32" --verify > "$T/verify32" 2>&1 && [ ! -s "$T/verify32" ] ||
	    fail "armhf: dpkg --verify: $(head "$T/verify32")"
	[ "$(chroot "$T/root32" sh -c 'echo $((6 * 7))')" = 42 ] || fail "armhf: the root's sh"
	rm -rf "$T/root32" "$T/mirror32"
	echo "ok armhf minbase, a 32-bit root, its scripts under qemu-arm"
fi

# The buildd root of $fa: its gcc compiles a program under emulation, and
# the program runs there and prints what it computed from its argument
# and the machine it finds itself on.
timed fetchb sh "${srcdir:-.}/bench/fetch.sh" -c "$fcache" -a "$fa" buildd ||
    skip "cannot download the $fa buildd packages: $(tail -n 1 "$T/fetchb.log")"
debs=$(awk -v d="$fcache/buildd-$fa" '{ print d "/" $2 }' "$fcache/buildd-$fa/SHA256SUMS")
minbase_mirror "$T/mirrorb"
t0=$(date +%s)
bs buildd -v --architectures="$fa" --variant=buildd "" "$T/rootb" \
    "deb [trusted=yes] file:$T/mirrorb ./" ||
    fail "$fa buildd: exit $bs_rc: $(tail -n 5 "$T/buildd.log")"
t1=$(date +%s)
cat > "$T/rootb/tmp/sum.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>

int
main(int argc, char **argv)
{
	struct utsname u;
	unsigned long long n, i, s = 0;

	if (argc != 2 || uname(&u) != 0)
		return 2;
	n = strtoull(argv[1], NULL, 10);
	for (i = 1; i <= n; i++)
		s += i * i;
	printf("%s %llu\n", u.machine, s);
	return 0;
}
EOF
LC_ALL=C chroot "$T/rootb" gcc -O2 -Wall -Werror -o /tmp/sum /tmp/sum.c > "$T/gcc.log" 2>&1 ||
    fail "gcc in the $fa buildd root: $(tail -n 5 "$T/gcc.log")"
[ "$(od -An -tx1 -j18 -N2 "$T/rootb/tmp/sum" | tr -d ' ')" = "$elf" ] ||
    fail "gcc's program is not a $fa program"
# The sum of the squares up to a number known only now, and the machine
# qemu-user reports: both computed by the program as it runs.
k=$(($(date +%s) % 1000 + 1000))
want="$q $((k * (k + 1) * (2 * k + 1) / 6))"
got=$(chroot "$T/rootb" /tmp/sum "$k") || fail "the program did not run: $got"
[ "$got" = "$want" ] || fail "the program printed '$got', not '$want'"
t2=$(date +%s)
echo "$fa buildd built in $((t1 - t0)) s; gcc and the program ran in $((t2 - t1)) s"
rm -rf "$T/rootb" "$T/mirrorb"
echo "ok $fa buildd: gcc compiled a program under emulation, and it ran"

# --mode=unshare: as an ordinary user with subordinate ids (the user of
# tests/bootstrap-unshare.sh), the emulator found through the F flag
# inside the user namespace too.
user=dbp-unshare
command -v newuidmap > /dev/null && unshare --help 2>&1 | grep -q -- --map-auto ||
    skip "no newuidmap or unshare --map-auto for --mode=unshare"
if ! id "$user" > /dev/null 2>&1; then
	useradd --system --no-create-home --shell /usr/sbin/nologin "$user" ||
	    fail "useradd $user"
fi
for f in /etc/subuid /etc/subgid; do
	grep -q "^$user:" "$f" 2> /dev/null || echo "$user:3000000:65536" >> "$f"
done
chmod 755 "$T"
mkdir "$T/u"
cp -R "$mirror" "$T/u/mirror"
chown -R "$user" "$T/u"
setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups env HOME=/nonexistent \
    TMPDIR="$T/u" "$BOOTSTRAP" -q --mode=unshare --architectures="$fa,$second" \
    --variant=minbase "" "$T/u/root.tar" "deb [trusted=yes] file:$T/u/mirror ./" \
    > "$T/unshare.log" 2>&1 < /dev/null || fail "unshare: $(tail -n 5 "$T/unshare.log")"
# The same files as root's tarball, but for the device nodes a user
# namespace cannot make (bsdtar adds them): the lists of names agree.
tar -tf "$T/root1.tar" | sort > "$T/names1"
tar -tf "$T/u/root.tar" | sort > "$T/namesu"
diff -u "$T/names1" "$T/namesu" > "$T/names.diff" || fail "unshare's tarball: $(head -n 20 "$T/names.diff")"
echo "ok $fa minbase with --mode=unshare"

# --mode=unshare without a binfmt_misc entry, the emulator named: the
# root's programs in a user namespace nested in the build's, its ids
# mapped from the build's own map.
if [ -x "/usr/bin/qemu-$q-static" ]; then
	mkdir "$T/u/nobf"
	echo enabled > "$T/u/nobf/status"
	chown -R "$user" "$T/u/nobf"
	setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups env HOME=/nonexistent \
	    TMPDIR="$T/u" DEBUNPACK_BINFMT_MISC="$T/u/nobf" "$BOOTSTRAP" -v --mode=unshare \
	    --architectures="$fa" --variant=minbase --emulator="/usr/bin/qemu-$q-static" \
	    "" "$T/u/rooto.tar" "deb [trusted=yes] file:$T/u/mirror ./" \
	    > "$T/unshareo.log" 2>&1 < /dev/null || fail "unshare, no entry: $(tail -n 5 "$T/unshareo.log")"
	grep -q "registered in a binfmt_misc of their own" "$T/unshareo.log" ||
	    fail "unshare, no entry: not told: $(grep configuring "$T/unshareo.log")"
	tar -tf "$T/u/rooto.tar" | grep -q 'var/lib/dpkg/status$' ||
	    fail "unshare, no entry: no dpkg status in the tarball"
	echo "ok $fa minbase with --mode=unshare, without a binfmt_misc entry"
fi
