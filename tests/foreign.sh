#!/bin/sh
# SPDX-License-Identifier: MIT
# A root of another architecture (arm64 on this host): debunpack unpacks
# it natively, byte for byte what dpkg-deb -x gives and dpkg's database
# as dpkg --force-architecture writes it; only the maintainer scripts run
# its binaries, through qemu-user by binfmt_misc: --run-preinst,
# --maintscripts, dpkg --configure and the dpkg for apt record aarch64.  An entry without the F flag gets its
# interpreter placed in the root for each script and taken away after;
# a root no emulator runs is refused before anything is written.
# The arm64 busybox-static is fetched once into FOREIGN_CACHE (default
# /var/cache/debunpack-tests/foreign).
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "not root: the scripts run chrooted"
command -v dpkg > /dev/null || skip "dpkg missing"
unset DPKG_FORCE DPKG_ROOT DPKG_ADMINDIR DEBUNPACK_EMULATOR \
    DEBUNPACK_BINFMT_MISC
bm=/proc/sys/fs/binfmt_misc
[ "$(head -n 1 "$bm/status" 2> /dev/null)" = enabled ] ||
    skip "binfmt_misc is not mounted and enabled (install binfmt-support)"
# The aarch64 entry qemu-user-static registers, with its F flag.
entry=$(grep -l '^magic 7f454c460201010000000000000000000200b700' "$bm"/* \
    2> /dev/null | head -n 1)
[ -n "$entry" ] && [ "$(head -n 1 "$entry")" = enabled ] &&
    grep -q '^flags: .*F' "$entry" ||
    skip "no enabled aarch64 binfmt_misc entry with F (install qemu-user-static)"

cache=${FOREIGN_CACHE:-/var/cache/debunpack-tests/foreign}
bb=$(ls "$cache"/busybox-static_*_arm64.deb 2> /dev/null | head -n 1)
if [ -z "$bb" ]; then
	mkdir -p "$T/apt/lists/partial" "$T/apt/cache/archives/partial" "$cache"
	A="-o APT::Architectures::=arm64 -o Dir::State::Lists=$T/apt/lists
	    -o Dir::Cache=$T/apt/cache -o APT::Sandbox::User=root"
	# shellcheck disable=SC2086
	(cd "$T" && apt-get $A update && apt-get $A download \
	    busybox-static:arm64) > "$T/apt.log" 2>&1 ||
	    skip "cannot fetch busybox-static:arm64: $(tail -n 1 "$T/apt.log")"
	mv "$T"/busybox-static_*_arm64.deb "$cache/" || fail "cache $cache"
	bb=$(ls "$cache"/busybox-static_*_arm64.deb | head -n 1)
fi

# 1. Natively: the tree dpkg-deb -x gives, dpkg's database as dpkg writes it.
R=$T/root D=$T/dpkg X=$T/x
empty_dpkg_db "$R"
empty_dpkg_db "$D"
# Nothing of the unpack runs a program: strace sees debunpack's exec alone.
if command -v strace > /dev/null; then
	# LeakSanitizer cannot work under ptrace.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	    strace -f -qq -e trace=execve -o "$T/exec.log" "$DEBUNPACK" \
	    --root "$R" --dpkg-db --architecture=arm64 -q "$bb" ||
	    fail "debunpack of busybox-static:arm64"
	grep -q "execve(\"$DEBUNPACK\"" "$T/exec.log" ||
	    fail "strace saw no exec: $(cat "$T/exec.log")"
	! grep 'execve(' "$T/exec.log" | grep -vq "execve(\"$DEBUNPACK\"" ||
	    fail "the unpack ran programs: $(cat "$T/exec.log")"
else
	"$DEBUNPACK" --root "$R" --dpkg-db --architecture=arm64 -q "$bb" ||
	    fail "debunpack of busybox-static:arm64"
fi
dpkg_root "$D" --force-architecture --unpack "$bb"
mkdir "$X"
dpkg-deb -x "$bb" "$X"
(cd "$R" && find . -path ./var -prune -o -print) | LC_ALL=C sort > "$T/r.paths"
(cd "$X" && find . -print) | LC_ALL=C sort > "$T/x.paths"
diff -u "$T/x.paths" "$T/r.paths" || fail "the arm64 tree's paths differ"
(cd "$X" && find . -type f) | while read -r f; do
	cmp "$X/$f" "$R/$f" || fail "$f differs from dpkg-deb -x"
done
tree_list "$X" no > "$T/x.tree"
tree_list "$R" no | grep -v '^\./var' > "$T/r.tree"
diff -u "$T/x.tree" "$T/r.tree" || fail "the arm64 tree's modes differ"
for f in status info/busybox-static.list info/busybox-static.md5sums; do
	cmp "$D/var/lib/dpkg/$f" "$R/var/lib/dpkg/$f" ||
	    { diff -u "$D/var/lib/dpkg/$f" "$R/var/lib/dpkg/$f"; fail "$f"; }
done

# 2. The scripts under emulation: the root's shell is the arm64 busybox.
ln -s busybox "$R/bin/sh"
S='#!/bin/sh\necho "$DPKG_MAINTSCRIPT_NAME $1 $(uname -m) $DPKG_MAINTSCRIPT_ARCH emu=$(test -e /usr/libexec/qemu-binfmt/aarch64-binfmt-P && echo in || echo out)" >> /rec.log\n'
rec() {	# VERSION [ARCH]: the recording package
	{
		printf 'control-file preinst 0755 %s\n' "$S"
		printf 'control-file postinst 0755 %s\n' "$S"
		printf '%s\n' "dir ./ 0755" "dir ./opt 0755" \
		    "file ./opt/rec 0644 text:$1"
	} | make_pkg -a "${2:-arm64}" -m "T <t@example.org>" -d test \
	    -o "rec-$1-${2:-arm64}" rec "$1" -
}
r1=$(rec 1) r2=$(rec 2) r3=$(rec 5)
"$DEBUNPACK" --root "$R" --dpkg-db --architecture=arm64 --run-preinst -q \
    "$r1" || fail "--run-preinst in the arm64 root"
[ "$(cat "$R/rec.log")" = "preinst install aarch64 arm64 emu=out" ] ||
    fail "preinst record: $(cat "$R/rec.log")"
"$DEBUNPACK" --root "$R" --dpkg-db --architecture=arm64 --maintscripts -q \
    "$r2" || fail "--maintscripts in the arm64 root"
[ "$(sed -n 2p "$R/rec.log")" = "preinst upgrade aarch64 arm64 emu=out" ] ||
    fail "--maintscripts' preinst record: $(cat "$R/rec.log")"
# dpkg --configure runs the postinst chrooted through the same entry.
PATH=$PATH:/usr/sbin:/sbin dpkg --root="$R" --log=/dev/null --configure rec \
    > "$T/dpkg.log" 2>&1 || fail "dpkg --configure: $(cat "$T/dpkg.log")"
[ "$(sed -n 3p "$R/rec.log")" = "postinst configure aarch64 arm64 emu=out" ] ||
    fail "postinst record: $(cat "$R/rec.log")"
# The dpkg for apt, its --unpack through debunpack --maintscripts: the
# root takes arm64 as a foreign architecture of the host's dpkg.
: "${DPKGSHIM:=$PWD/src/cli/dpkg}"
echo arm64 > "$R/var/lib/dpkg/arch"
r4=$(rec 4)
PATH=$PATH:/usr/sbin:/sbin DEBUNPACK_DPKG_DEBUG=1 "$DPKGSHIM" --root="$R" \
    --log=/dev/null --unpack "$r4" > "$T/shim.out" 2>&1 < /dev/null ||
    fail "the dpkg for apt: $(cat "$T/shim.out")"
! grep -q "handed to" "$T/shim.out" || fail "handed on: $(cat "$T/shim.out")"
[ "$(sed -n 4p "$R/rec.log")" = "preinst upgrade aarch64 arm64 emu=out" ] ||
    fail "the dpkg for apt's preinst record: $(cat "$R/rec.log")"

# 3. An entry without F: the kernel looks for its interpreter in the root,
# where debunpack puts it for each script only.  A copy of binfmt_misc's
# directory with the entry's F taken away tells it so; the real entry
# still runs the scripts.
F=$T/binfmt
mkdir "$F"
echo enabled > "$F/status"
sed 's/^flags: .*/flags: P/' "$entry" > "$F/qemu-aarch64"
interp=$(sed -n 's/^interpreter //p' "$entry")
[ "$interp" = /usr/libexec/qemu-binfmt/aarch64-binfmt-P ] ||
    skip "qemu-user-static's interpreter is $interp, not the one the script looks for"
tree_list "$R/usr" > "$T/usr.before"
DEBUNPACK_BINFMT_MISC=$F "$DEBUNPACK" --root "$R" --dpkg-db \
    --architecture=arm64 --maintscripts -q "$r3" ||
    fail "--maintscripts with a binfmt entry without F"
[ "$(sed -n 5p "$R/rec.log")" = "preinst upgrade aarch64 arm64 emu=in" ] ||
    fail "the emulator was not in the root for the script: $(cat "$R/rec.log")"
tree_list "$R/usr" > "$T/usr.after"
diff -u "$T/usr.before" "$T/usr.after" || fail "the emulator left a trace"
[ ! -e "$R/usr/libexec" ] || fail "usr/libexec left in the root"
# A named emulator that needs a loader is refused, the root untouched.
tree_list "$R" > "$T/before"
DEBUNPACK_BINFMT_MISC=$F "$DEBUNPACK" --root "$R" --dpkg-db \
    --architecture=arm64 --run-preinst --emulator="$(command -v dpkg)" \
    "$r1" > "$T/out" 2>&1 && fail "a dynamic emulator was taken"
grep -q "lacks the F flag.*not a static executable" "$T/out" ||
    fail "error: $(cat "$T/out")"
[ "$(wc -l < "$T/out")" = 1 ] || fail "more than one line: $(cat "$T/out")"
tree_list "$R" > "$T/after"
diff -u "$T/before" "$T/after" || fail "the refused run changed the root"
# No binfmt_misc to read (a container mounts none): the root's shell,
# run once, tells that the kernel's entries still work.
r6=$(rec 6)
DEBUNPACK_BINFMT_MISC=$T/none "$DEBUNPACK" --root "$R" --dpkg-db \
    --architecture=arm64 --maintscripts -q "$r6" ||
    fail "--maintscripts without a readable binfmt_misc"
[ "$(sed -n 6p "$R/rec.log")" = "preinst upgrade aarch64 arm64 emu=out" ] ||
    fail "the probed run's record: $(cat "$R/rec.log")"

# 4. No emulator at all: ia64 has no qemu-user.  The root's shell says so
# by its ELF header; the run is refused in one line before any write.
N=$T/ia64
empty_dpkg_db "$N"
mkdir "$N/bin"
# ELF64, little-endian, ET_EXEC, EM_IA_64 (50).
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\002\000\062\000' \
    > "$N/bin/sh"
i1=$(rec 1 ia64)
tree_list "$N" > "$T/before"
for how in --run-preinst --maintscripts; do
	"$DEBUNPACK" --root "$N" --dpkg-db --architecture=ia64 $how "$i1" \
	    > "$T/out" 2>&1 && fail "$how: a root without an emulator was taken"
	grep -q "$N.*binaries are for ia64.*no enabled entry" "$T/out" ||
	    fail "$how error: $(cat "$T/out")"
	[ "$(wc -l < "$T/out")" = 1 ] || fail "$how: $(cat "$T/out")"
	tree_list "$N" > "$T/after"
	diff -u "$T/before" "$T/after" || fail "$how: the refused run changed the root"
done
# 5. No entry of the host's at all (binfmt-support not installed, or a
# container that sees none): the emulator named is registered in a
# binfmt_misc of each script's own user namespace; unnamed, the error
# names qemu-user-static's.  The run itself is in a user namespace whose empty
# binfmt_misc hides the host's entries from it and from what it starts:
# without a binfmt_misc of their own, the scripts could not run.
qemu=/usr/bin/qemu-aarch64-static
if [ -x "$qemu" ] && unshare --user --mount -r sh -c \
    'mount -t binfmt_misc none /proc/sys/fs/binfmt_misc' 2> /dev/null; then
	r7=$(rec 7) r8=$(rec 8)
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --user --mount -r sh -c '
	    mount -t binfmt_misc none /proc/sys/fs/binfmt_misc || exit 3
	    [ -z "$(ls /proc/sys/fs/binfmt_misc | grep -v -e status -e register)" ] || exit 4
	    "$1" --root "$2" --dpkg-db --architecture=arm64 --maintscripts -q \
	        --emulator="$3" "$4" || exit 5
	    DEBUNPACK_EMULATOR=$3 "$1" --root "$2" --dpkg-db \
	        --architecture=arm64 --maintscripts -q "$5" || exit 6
	    ! "$1" --root "$2" --dpkg-db --architecture=arm64 --run-preinst \
	        --emulator="$(command -v dpkg)" "$5" > "$6" 2>&1 || exit 7
	    ! "$1" --root "$2" --dpkg-db --architecture=arm64 --run-preinst \
	        "$5" > "$6.unnamed" 2>&1 || exit 8
	    # The dpkg for apt: dpkg --configure, handed on, runs the postinst.
	    PATH=$PATH:/usr/sbin:/sbin DEBUNPACK_EMULATOR=$3 "$7" --root="$2" \
	        --log=/dev/null --configure rec > "$6.shim" 2>&1 < /dev/null || exit 9
	' sh "$DEBUNPACK" "$R" "$qemu" "$r7" "$r8" "$T/out" "$DPKGSHIM" ||
	    fail "scripts with a binfmt_misc of their own: step $? ($(cat "$T/out" 2>/dev/null))"
	[ "$(sed -n 7p "$R/rec.log")" = "preinst upgrade aarch64 arm64 emu=out" ] ||
	    fail "the named emulator's record: $(cat "$R/rec.log")"
	[ "$(sed -n 8p "$R/rec.log")" = "preinst upgrade aarch64 arm64 emu=out" ] ||
	    fail "DEBUNPACK_EMULATOR's record: $(cat "$R/rec.log")"
	[ "$(sed -n 9p "$R/rec.log")" = "postinst configure aarch64 arm64 emu=out" ] ||
	    fail "the dpkg for apt's --configure: $(cat "$R/rec.log" "$T/out.shim")"
	grep -q "no enabled entry for them (name qemu-user-static's $qemu with --emulator" \
	    "$T/out.unnamed" || fail "no emulator named: $(cat "$T/out.unnamed")"
	[ "$(wc -l < "$T/out.unnamed")" = 1 ] || fail "$(cat "$T/out.unnamed")"
	grep -q "no entry for, and .* is not a static executable" "$T/out" ||
	    fail "a dynamic emulator without an entry: $(cat "$T/out")"
	[ "$(wc -l < "$T/out")" = 1 ] || fail "more than one line: $(cat "$T/out")"
	# debunpack-emulate (debunpack-bootstrap's configure): the root's
	# programs, the same way; unnamed, refused in one line.
	: "${DEBUNPACK_EMULATE:=$PWD/debunpack-emulate}"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --user --mount -r sh -c '
	    mount -t binfmt_misc none /proc/sys/fs/binfmt_misc || exit 3
	    DEBUNPACK_EMULATOR=$3 "$1" "$2" chroot "$2" /bin/sh -c "uname -m" > "$4" || exit 4
	    ! "$1" "$2" chroot "$2" /bin/true 2> "$4.unnamed" || exit 5
	' sh "$DEBUNPACK_EMULATE" "$R" "$qemu" "$T/emu.out" ||
	    fail "debunpack-emulate: step $? ($(cat "$T/emu.out.unnamed" 2>/dev/null))"
	[ "$(cat "$T/emu.out")" = aarch64 ] || fail "debunpack-emulate ran: $(cat "$T/emu.out")"
	grep -q "^debunpack-emulate: '$R': the root's binaries are for aarch64.*no enabled entry" \
	    "$T/emu.out.unnamed" || fail "debunpack-emulate unnamed: $(cat "$T/emu.out.unnamed")"
	# Nothing of the host's changed.
	[ ! -e /proc/sys/fs/binfmt_misc/debunpack-aarch64 ] ||
	    fail "the scripts' own entry is the host's"
else
	echo "no qemu-aarch64-static, or no binfmt_misc of a user namespace's own (Linux 6.7): case 5 not run"
fi

exit 0
