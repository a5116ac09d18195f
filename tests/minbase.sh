#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's two commands make a working root of the minbase package set
# from the archive: every package configured, dpkg's database consistent,
# /usr merged; a later --dpkg-db run merges into that database like dpkg.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "not root: chroot and the maintainer scripts need root"
for c in apt-get dpkg chroot; do
	command -v "$c" > /dev/null || skip "$c missing"
done
arch=$(dpkg --print-architecture)
minbase_debs

# quiet_ok WHAT CMD...: CMD exits 0 and prints nothing.
quiet_ok() {
	qo_what=$1
	shift
	LC_ALL=C "$@" > "$T/out" 2>&1 || fail "$qo_what: exit $?: $(head -n 20 "$T/out")"
	[ ! -s "$T/out" ] || fail "$qo_what: $(head -n 20 "$T/out")"
}

# no_leftovers ROOT: no name of debunpack's (temporary, backup, dist).
no_leftovers() {
	no_temps "$1"
	left=$(find "$1" -xdev \( -name '*.debunpack-*' -o -name '.debunpack-*' \) -print)
	[ -z "$left" ] || fail "left in the root: $left"
}

# The README's "Build a root", exactly.
R=$T/root
mkdir "$R"
# shellcheck disable=SC2086 # file names have no blanks
timed debunpack "$DEBUNPACK" --root "$R" --dpkg-db --run-preinst $debs ||
    { tail -n 20 "$T/debunpack.log" >&2; fail "debunpack --dpkg-db --run-preinst"; }
no_leftovers "$R"
timed verify-unpacked "$DEBUNPACK" --root "$R" --verify ||
    fail "--verify after the unpack: $(head -n 20 "$T/verify-unpacked.log")"
timed configure chroot "$R" dpkg --configure -a ||
    { tail -n 30 "$T/configure.log" >&2; fail "dpkg --configure -a"; }
# Without /dev in the root, a maintainer script's >/dev/null makes a file
# or fails: the root must not have needed one.
if grep -n '/dev/null' "$T/configure.log" >&2; then
	fail "maintainer scripts missed /dev/null during dpkg --configure -a"
fi
[ ! -e "$R/dev/null" ] || [ -c "$R/dev/null" ] ||
    fail "dpkg --configure -a left a $(stat -c %F "$R/dev/null") as /dev/null"

every_ii "$R"
echo "ok $n packages configured"
quiet_ok "dpkg --verify" chroot "$R" dpkg --verify
quiet_ok "dpkg --audit" chroot "$R" dpkg --audit
echo "ok dpkg --verify and --audit"
chroot "$R" apt-get --version > /dev/null || fail "apt-get --version in the root"
chroot "$R" /bin/true || fail "/bin/true in the root"
owner=$(LC_ALL=C chroot "$R" dpkg -S /bin/ls 2> /dev/null ||
    LC_ALL=C chroot "$R" dpkg -S /usr/bin/ls) || fail "dpkg -S: no owner of ls"
case $owner in coreutils:*) ;; *) fail "dpkg -S /bin/ls: $owner" ;; esac
echo "ok programs run, dpkg -S"
links="bin sbin lib"
[ "$arch" != amd64 ] || links="$links lib64"
for l in $links; do
	[ -L "$R/$l" ] || fail "$l is not a symlink"
	case $(readlink "$R/$l") in
	"usr/$l" | "/usr/$l") ;;
	*) fail "$l -> $(readlink "$R/$l"), not usr/$l" ;;
	esac
done
echo "ok merged /usr"
no_leftovers "$R"
"$DEBUNPACK" --root "$R" --verify > "$T/verify" 2>&1 ||
    fail "--verify after dpkg --configure -a: $(head -n 20 "$T/verify")"
echo "ok no leftovers, --verify"

# Every trigger interest of an info/PKG.triggers is where dpkg keeps it
# when it unpacks the package: else a library installed later would not
# run ldconfig.
for f in "$R"/var/lib/dpkg/info/*.triggers; do
	[ -f "$f" ] || continue
	pkg=$(basename "$f" .triggers)
	while read -r kind name _; do
		case $kind in
		interest | interest-await) who=$pkg ;;
		interest-noawait) who=$pkg/noawait ;;
		*) continue ;;
		esac
		case $name in
		/*) grep -qxF "$name $who" "$R/var/lib/dpkg/triggers/File" ;;
		*) grep -qxF "$who" "$R/var/lib/dpkg/triggers/$name" ;;
		esac 2> /dev/null ||
		    fail "$pkg: '$kind $name' not registered in var/lib/dpkg/triggers"
	done < "$f"
done
echo "ok trigger interests"

# Reinstalling two packages of the same version merges into the database
# as dpkg --unpack does (in a copy of the root): the other stanzas and info
# files stay as they were, the two are unpacked with Config-Version.
hn="" sd=""
for d in $debs; do
	case ${d##*/} in
	hostname_*) hn=$d ;;
	sed_*) sd=$d ;;
	esac
done
db=var/lib/dpkg
cp -a "$R" "$T/ref"
cp "$R/$db/status" "$T/status.before"
info_sums() {
	(cd "$1/$db/info" && find . -type f ! -name 'hostname.*' ! -name 'sed.*' \
	    -printf '%P %m\n' | LC_ALL=C sort | while read -r name mode; do
		echo "$name $mode $(sha256sum < "$name")"
	done)
}
info_sums "$R" > "$T/info.before"
timed reinstall "$DEBUNPACK" --root "$R" --dpkg-db "$hn" "$sd" ||
    fail "reinstall: $(tail -n 20 "$T/reinstall.log")"
dpkg_root "$T/ref" --unpack "$hn" "$sd"
diff -u "$T/ref/$db/status" "$R/$db/status" ||
    fail "status after the reinstall: dpkg's (-) and debunpack's (+) differ"
# others STATUS: the stanzas of every other package, as they are.
others() {
	awk 'BEGIN { RS = ""; ORS = "\n\n" }
	    $0 !~ /^Package: (hostname|sed)\n/' "$1"
}
others "$T/status.before" > "$T/others.before"
others "$R/$db/status" > "$T/others.after"
cmp "$T/others.before" "$T/others.after" || fail "other packages' stanzas changed"
info_sums "$R" > "$T/info.after"
diff -u "$T/info.before" "$T/info.after" || fail "other packages' info files changed"
for pd in "hostname:$hn" "sed:$sd"; do
	p=${pd%%:*} deb=${pd#*:}
	ver=$(dpkg-deb -f "$deb" Version)
	awk -v p="$p" 'BEGIN { RS = "" } $0 ~ "^Package: " p "\n"' "$R/$db/status" > "$T/stanza"
	grep -qx 'Status: install ok unpacked' "$T/stanza" || fail "$p: $(grep ^Status: "$T/stanza")"
	grep -qx "Config-Version: $ver" "$T/stanza" || fail "$p: no Config-Version: $ver"
	for f in "$T/ref/$db/info/$p".* "$R/$db/info/$p".*; do
		f=${f##*/}
		cmp "$T/ref/$db/info/$f" "$R/$db/info/$f" || fail "info/$f differs from dpkg's"
		[ "$(stat -c %a "$T/ref/$db/info/$f")" = "$(stat -c %a "$R/$db/info/$f")" ] ||
		    fail "info/$f: mode differs from dpkg's"
	done
done
rm -rf "$T/ref"
echo "ok reinstall merges like dpkg --unpack"
timed configure-again chroot "$R" dpkg --configure -a ||
    { tail -n 20 "$T/configure-again.log" >&2; fail "dpkg --configure -a after the reinstall"; }
every_ii "$R"
quiet_ok "dpkg --audit after the reinstall" chroot "$R" dpkg --audit
quiet_ok "dpkg --verify after the reinstall" chroot "$R" dpkg --verify
no_leftovers "$R"
"$DEBUNPACK" --root "$R" --verify > "$T/verify" 2>&1 ||
    fail "--verify after the reinstall: $(head -n 20 "$T/verify")"
echo ok
