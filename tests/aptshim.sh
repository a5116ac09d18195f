#!/bin/sh
# SPDX-License-Identifier: MIT
# Real apt-get runs with the dpkg for apt (DPKGSHIM) as apt's dpkg: a
# minbase root (debunpack-bootstrap from a flat mirror of real packages)
# and its twin, each on an ext4 loop device of its own; in both, apt-get
# installs eight packages with maintainer scripts and conffiles (more
# than five: apt hands dpkg a --recursive directory), upgrades three to
# newer versions added to the mirror (bookworm's tzdata to
# bookworm-security's, openssl and libssl3 from bookworm-updates to
# bookworm-security), removes and purges two, reinstalls two (over a
# changed conffile), reinstalls one with a file diverted (dpkg-divert
# --rename), unpacks one again through dpkg's path filters from apt's
# DPkg::Options, and installs packages whose preinst fails (a new one,
# and an upgrade), the root with the shim, the twin with the real dpkg;
# then kills the shim's unpack of three upgrades (before, at and after
# its commit point) and recovers as a user does.  After each step: apt exits 0 without
# "APT had planned for dpkg to do more than it reported back", dpkg
# --audit is clean, dpkg -l and the trees (contents, modes, owners, the
# packaged files' mtimes) are the twin's, so are the packages whose
# triggers apt's dpkg calls processed, and every unpack call apt made
# ran debunpack; the device flushes of the unpack calls are counted for both.
# The shim's apt has DEBUNPACK_CACHE in its environment: its first install
# fills the store, and the same install into a fresh copy of the bootstrap
# root takes every package from it, dpkg -l and the tree the twin's.  APTSHIM_STEPS=install stops after the first step.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "not root: apt, the bootstrap and the loop devices need root"
for c in apt-get apt-ftparchive dpkg-scanpackages dpkg chroot losetup mkfs.ext4; do
	command -v "$c" > /dev/null || skip "$c missing"
done
[ -x "${BOOTSTRAP:-}" ] && [ -x "${DEBUNPACK_NOSYNC:-}" ] ||
    skip "debunpack-bootstrap not built"
[ -n "${DPKGSHIM:-}" ] && [ -x "$DPKGSHIM" ] ||
    fail "the dpkg for apt is not built: DPKGSHIM='${DPKGSHIM:-}'"
"$DEBUNPACK_NOSYNC" true 2> "$T/nosync.err" ||
    skip "no seccomp filter here: $(cat "$T/nosync.err")"
[ -e /dev/loop-control ] || modprobe loop 2>/dev/null || true
real_dpkg=$(command -v dpkg)
TMPDIR=$T
export TMPDIR DEBUNPACK DEBUNPACK_NOSYNC

# The packages beyond minbase: cached like minbase's, so that every run
# installs the same versions.  "old" ones are in the mirror from the
# start, "new" ones are added for the upgrade.
old="tzdata=2026b-0+deb12u1 openssl=3.0.17-1~deb12u2 libssl3=3.0.17-1~deb12u2
less=590-2.1~deb12u2 netbase=6.4 readline-common=8.2-1.3 libreadline8=8.2-1.3
sensible-utils=0.0.17+nmu1 ucf=3.0043+nmu1+deb12u1"
new="tzdata=2026f-0+deb12u1 openssl=3.0.22-1~deb12u2 libssl3=3.0.22-1~deb12u2"
minbase_debs
xcache=${APTSHIM_CACHE:-/var/cache/debunpack-tests/aptshim}
mkdir -p "$xcache"
# deb_of NAME=VERSION: the cached file's path (apt's name: the epoch's
# colon as %3a, none here).
deb_of() {
	echo "$xcache/${1%%=*}_${1#*=}_"*.deb
}
missing=""
for pv in $old $new; do
	[ -f "$(deb_of "$pv")" ] || missing="$missing $pv"
done
if [ -n "$missing" ]; then
	# shellcheck disable=SC2086 # one word per package
	timed xdownload sh -c 'cd "$1" && shift && exec apt-get download -q \
	    -o APT::Sandbox::User=root "$@"' sh "$xcache" $missing ||
	    skip "cannot download$missing: $(tail -n 1 "$T/xdownload.log")"
fi

# The mirror: minbase with bookworm's tzdata, and the "old" packages.
mirror=$T/mirror
mkdir -p "$mirror"
# shellcheck disable=SC2086 # one word per file
for d in $debs; do
	case $(basename "$d") in tzdata_*) continue ;; esac
	cp "$d" "$mirror/"
done
for pv in $old; do
	cp "$(deb_of "$pv")" "$mirror/"
done
reindex() {
	sh "${srcdir:-.}/bench/override.sh" "$mirror"/*.deb > "$mirror/.override"
	(cd "$mirror" && dpkg-scanpackages -m . .override > Packages 2> /dev/null &&
	    apt-ftparchive release . > Release) || fail "cannot index the mirror $mirror"
}
reindex

# Two ext4 file systems on loop devices of our own: the root (the shim)
# and its twin (the real dpkg).
# shellcheck disable=SC2317 # called through cleanup_hooks
unmount_all() {
	for m in "$T/a" "$T/b"; do
		umount "$m" 2> /dev/null
	done
}
cleanup_hooks="unmount_all; $cleanup_hooks"
for side in a b; do
	truncate -s 1G "$T/$side.img"
	mkfs.ext4 -q -F -b 4096 "$T/$side.img" || fail "mkfs.ext4 $side"
	loop_attach "$T/$side.img" || skip "no loop device"
	eval "dev_$side=${loop#/dev/}"
	mkdir "$T/$side"
	mount "$loop" "$T/$side" || fail "cannot mount $loop"
done
# flushes DEV: flush requests completed by the device so far (field 16).
flushes() {
	awk '{ print $16 }' "/sys/block/$1/stat"
}
[ -n "$(flushes "$dev_a")" ] || skip "the kernel does not count flushes in /sys/block/$dev_a/stat"

src="deb [trusted=yes] file:$mirror ./"
timed bootstrap "$BOOTSTRAP" -q --variant=minbase "" "$T/a/root" "$src" ||
    fail "bootstrap: $(tail -n 5 "$T/bootstrap.log")"
cp -a "$T/a/root" "$T/b/root" || fail "cannot copy the root to its twin"

# apt's dpkg in each root, observable: each call logged in $T/calls.log
# with the flushes of its device; DEBUNPACK, which the shim runs, logs
# the same.  The shim finds the real dpkg through DEBUNPACK_DPKG.  For an
# unpack call, the shim is asked first why it would hand it on
# (DEBUNPACK_DPKG_DEBUG, with a dpkg and a debunpack that do nothing but
# answer --help): its reason on a "why" line.
mkdir "$T/bin"
cat > "$T/bin/shim" <<EOF
#!/bin/sh
echo "shim \$(awk '{ print \$16 }' /sys/block/$dev_a/stat) \$*" >> "$T/calls.log"
case " \$* " in
*" --unpack "* | *" --install "* | *" -i "*)
	why=\$(DEBUNPACK_DPKG_DEBUG=1 DEBUNPACK_DPKG=/bin/true DEBUNPACK="$T/bin/probe" \\
	    "$DPKGSHIM" "\$@" 2>&1 < /dev/null > /dev/null |
	    sed -n 's/^debunpack-dpkg: handed to [^:]*: //p' | head -n 1)
	[ -z "\$why" ] || echo "why \$why" >> "$T/calls.log"
esac
DEBUNPACK="$T/bin/debunpack" DEBUNPACK_DPKG="$real_dpkg" "$DPKGSHIM" "\$@"
rc=\$?
echo "shim-end \$(awk '{ print \$16 }' /sys/block/$dev_a/stat) \$rc" >> "$T/calls.log"
exit \$rc
EOF
cat > "$T/bin/probe" <<EOF
#!/bin/sh
case \$1 in --help | --version) exec "$DEBUNPACK" "\$@" ;; esac
exit 1
EOF
cat > "$T/bin/debunpack" <<EOF
#!/bin/sh
echo "debunpack \$(awk '{ print \$16 }' /sys/block/$dev_a/stat) \$*" >> "$T/calls.log"
# Step 8: the next unpack killed at the call named in \$T/kill.
if [ -f "$T/kill" ] && [ "\$1" != --help ] && [ "\$1" != --version ]; then
	k=\$(cat "$T/kill")
	rm -f "$T/kill"
	exec strace -f -qq -o /dev/null -e trace="\${k%:*}" \\
	    -e inject="\${k%:*}:signal=KILL:when=\${k#*:}" "$DEBUNPACK" "\$@"
fi
"$DEBUNPACK" "\$@"
rc=\$?
echo "debunpack-end \$(awk '{ print \$16 }' /sys/block/$dev_a/stat) \$rc" >> "$T/calls.log"
exit \$rc
EOF
cat > "$T/bin/dpkg" <<EOF
#!/bin/sh
echo "dpkg \$(awk '{ print \$16 }' /sys/block/$dev_b/stat) \$*" >> "$T/calls.log"
"$real_dpkg" "\$@"
rc=\$?
echo "dpkg-end \$(awk '{ print \$16 }' /sys/block/$dev_b/stat) \$rc" >> "$T/calls.log"
exit \$rc
EOF
chmod +x "$T/bin/shim" "$T/bin/probe" "$T/bin/debunpack" "$T/bin/dpkg"

# apt from outside each root (Dir), as mmdebstrap runs it: the root's own
# apt.conf.d is left out (its debconf hook would preconfigure into the
# host's debconf database); dpkg gets --root, so that the maintainer
# scripts run chrooted.  DPkg::Chroot-Directory would need the shim and
# debunpack, with their libraries, inside the root.
mkdir "$T/parts"
for side in a b c; do
	R=$T/$side/root
	[ $side != c ] || R=$T/a/root2
	if [ $side = b ]; then d=$T/bin/dpkg; else d=$T/bin/shim; fi
	cat > "$T/apt-$side.conf" <<EOF
Dir "$R/";
Dir::State::status "$R/var/lib/dpkg/status";
Dir::Etc::Parts "$T/parts/";
Dir::Bin::dpkg "$d";
DPkg::Options { "--root=$R"; "--force-confdef"; "--force-confold"; };
DPkg::Use-Pty "0";
APT::Sandbox::User "root";
APT::Install-Recommends "false";
Acquire::Languages "none";
EOF
done

# apt SIDE NAME ARG...: apt-get ARG... in SIDE's root, its output in
# $T/NAME-SIDE.log; exit 0 and no "APT had planned" (apt's complaint when
# dpkg's status lines miss some of the work it asked for).
apt() {
	ap_side=$1 ap_name=$2
	shift 2
	echo "step $ap_name $ap_side" >> "$T/calls.log"
	# The shim's roots share a store of unpacked files, on their file
	# system, from apt's environment: the documented way.
	if [ "$ap_side" = b ]; then
		unset DEBUNPACK_CACHE
	else
		DEBUNPACK_CACHE=$T/a/store
		export DEBUNPACK_CACHE
	fi
	APT_CONFIG=$T/apt-$ap_side.conf DEBIAN_FRONTEND=noninteractive \
	    timed "$ap_name-$ap_side" apt-get -q -y "$@" ||
	    fail "$ap_name ($ap_side): apt-get $*: exit $?: $(tail -n 5 "$T/$ap_name-$ap_side.log")"
	! grep -q 'APT had planned for dpkg to do more than it reported back' \
	    "$T/$ap_name-$ap_side.log" ||
	    fail "$ap_name ($ap_side): apt says dpkg reported back less than planned"
}
# apt_fails SIDE NAME ARG...: as apt, for a step whose apt-get must fail
# (a maintainer script fails): exit 100, dpkg's error reported to apt,
# and still no "APT had planned".
apt_fails() {
	af_side=$1 af_name=$2
	shift 2
	echo "step $af_name $af_side" >> "$T/calls.log"
	if [ "$af_side" = b ]; then unset DEBUNPACK_CACHE; fi
	af_rc=0
	APT_CONFIG=$T/apt-$af_side.conf DEBIAN_FRONTEND=noninteractive \
	    timed "$af_name-$af_side" apt-get -q -y "$@" || af_rc=$?
	[ $af_rc = 100 ] ||
	    fail "$af_name ($af_side): apt-get $*: exit $af_rc, not 100: $(tail -n 5 "$T/$af_name-$af_side.log")"
	grep -q 'Sub-process .* returned an error code' "$T/$af_name-$af_side.log" ||
	    fail "$af_name ($af_side): apt does not report dpkg's error: $(tail -n 5 "$T/$af_name-$af_side.log")"
	! grep -q 'APT had planned for dpkg to do more than it reported back' \
	    "$T/$af_name-$af_side.log" ||
	    fail "$af_name ($af_side): apt says dpkg reported back less than planned"
}

# listing ROOT: what must be alike in the two roots: every path's type,
# mode, owner, size (not a directory's), link target and contents, and the
# mtimes of the packages' regular files (the scripts' own files carry the
# time of their run), but for ldconfig's aux-cache (inode numbers and
# ctimes, which no two file systems share).  Left out: apt's and dpkg's logs, apt's caches and
# lists, dpkg's and debconf's -old copies (one per run of each), and
# debunpack's own records, which only the shim's root has more of.
listing() {
	(cd "$1" && find . -mindepth 1 \
	    \( -path ./var/log -o -path ./var/cache/apt -o -path ./var/lib/apt/lists \
	    -o -path ./var/lib/debunpack \) -prune -o \
	    \( -path './var/lib/dpkg/*-old' -o -path './var/cache/debconf/*-old' \) -prune -o \
	    -printf '%p %y %m %u %g %s %l\n') |
	    awk '$2 == "d" { $6 = "-" } { print }' | LC_ALL=C sort
	(cd "$1" && find . -mindepth 1 \
	    \( -path ./var/log -o -path ./var/cache/apt -o -path ./var/lib/apt/lists \
	    -o -path ./var/lib/debunpack \) -prune -o \
	    \( -path './var/lib/dpkg/*-old' -o -path './var/cache/debconf/*-old' \) -prune -o \
	    -path ./var/cache/ldconfig/aux-cache -prune -o \
	    -type f -print0 | xargs -0 -r sha256sum) | LC_ALL=C sort -k2
	cat "$1"/var/lib/dpkg/info/*.list > "$T/packaged"
	(cd "$1" && find . -type f -printf '%p %T@\n') |
	    awk -v list="$T/packaged" '
		BEGIN { while ((getline l < list) > 0) packaged["." l] = 1 }
		$1 in packaged { sub(/\.0+$/, "", $2); print "mtime " $1 " " $2 }' |
	    LC_ALL=C sort
}

# alike STEP: the checks of the step above in both roots.
alike() {
	for side in a b; do
		R=$T/$side/root
		LC_ALL=C chroot "$R" dpkg --audit > "$T/audit-$side" 2>&1 ||
		    fail "$1 ($side): dpkg --audit: $(cat "$T/audit-$side")"
		[ ! -s "$T/audit-$side" ] || fail "$1 ($side): dpkg --audit: $(cat "$T/audit-$side")"
		LC_ALL=C chroot "$R" dpkg-query -W \
		    -f '${db:Status-Abbrev} ${Package} ${Version}\n' > "$T/l-$side" ||
		    fail "$1 ($side): dpkg-query"
		listing "$R" > "$T/tree-$side"
	done
	diff -u "$T/l-b" "$T/l-a" || fail "$1: dpkg -l with the shim differs from dpkg's"
	# The same packages' triggers processed (libc-bin's ldconfig, ...):
	# what the unpacks activated, noted as dpkg notes it.
	if [ -f "$T/$1-a.log" ]; then
		for side in a b; do
			grep '^Processing triggers for ' "$T/$1-$side.log" |
			    LC_ALL=C sort > "$T/trig-$side" || true
		done
		diff -u "$T/trig-b" "$T/trig-a" ||
		    fail "$1: the triggers processed with the shim differ from dpkg's"
		[ "$1" != install ] || [ -s "$T/trig-b" ] ||
		    fail "install: dpkg processed no trigger, the check proves nothing"
	fi
	diff -u "$T/tree-b" "$T/tree-a" > "$T/tree.diff" ||
	    fail "$1: the root differs from the twin's: $(head -n 40 "$T/tree.diff")"
}

# unpack_flushes STEP: the unpack calls of STEP in the two roots and
# their device flushes: "shim" for the root, "dpkg" for the twin.  Every
# unpack the shim was given ran debunpack, in at most 16 flushes (about
# 9, a few more when a syncfs meets writeback under load; two barriers
# more would pass that bound; the real dpkg's grow with the files),
# unless the shim's reason for handing one on: this tree's debunpack has
# every option the shim needs.
unpack_flushes() {
	awk -v step="$1" '
	$1 == "step" { on = ($2 == step); next }
	!on { next }
	($1 == "shim" || $1 == "dpkg") {
		who = $1; before = $2; unpack = 0; deb = 0; why = ""
		for (i = 3; i <= NF; i++)
			if ($i == "--unpack" || $i == "--install" || $i == "-i") unpack = 1
		if (unpack) calls[who]++
		next
	}
	$1 == "why" { $1 = ""; why = substr($0, 2); next }
	# The shim asks debunpack for --help (its options): no unpack.
	$1 == "debunpack" { if (unpack && $3 != "--help" && $3 != "--version") deb++; next }
	($1 == "shim-end" || $1 == "dpkg-end") {
		all[who] += $2 - before
		if (unpack) {
			fl[who] += $2 - before
			if (who == "shim" && deb == 0) {
				handed++
				bad = bad " [" why "]"
			} else if (who == "shim" && $2 - before > 16) {
				bad = bad " [" $2 - before " flushes]"
			}
		}
		unpack = 0
	}
	END {
		printf "%s: unpack calls: shim %d (flushes %d, %d handed on), dpkg %d (flushes %d); all calls: shim %d flushes, dpkg %d\n",
		    step, calls["shim"], fl["shim"], handed, calls["dpkg"], fl["dpkg"],
		    all["shim"], all["dpkg"]
		if (bad != "") { print "wrong:" bad; exit 1 }
	}' "$T/calls.log" > "$T/flushes" || fail "$1: $(cat "$T/flushes")"
	cat "$T/flushes"
}

: > "$T/calls.log"
alike bootstrap
echo "ok the root and its twin"
# A third root, "c", on the shim's file system: the same packages later,
# from the store the first install fills.
cp -a "$T/a/root" "$T/a/root2" || fail "cannot copy the root"

# 1. A fresh install: eight packages, maintainer scripts (less's
#    alternatives, ucf's debconf), conffiles (netbase's, openssl's).
for side in a b; do
	apt $side update update
	apt $side install install less netbase libreadline8 ucf openssl
done
grep -q -- '--recursive' "$T/calls.log" ||
    fail "apt made no --recursive call: $(grep '^shim' "$T/calls.log")"
alike install
unpack_flushes install
echo "ok apt-get install of eight packages"

# 1b. The same install into the fresh root "c": every package the first
#     one unpacked (each a miss of the store, which it filled) is found
#     in the store, and the root is the twin's.
hits() { tr -cd "$1" < "$T/a/store/hits" | wc -c; }
[ "$(hits m)" -gt 0 ] && [ "$(hits h)" = 0 ] ||
    fail "install: the store was not used: $(hits m) misses, $(hits h) hits"
unpacked=$(hits m)
[ "$(ls "$T/a/store/entries" | wc -l)" = "$unpacked" ] ||
    fail "install: $(ls "$T/a/store/entries" | wc -l) entries of $unpacked"
apt c update3 update
apt c again install less netbase libreadline8 ucf openssl
[ "$(hits h)" = "$unpacked" ] && [ "$(hits m)" = "$unpacked" ] ||
    fail "again: $(hits h) packages from the store of $unpacked"
LC_ALL=C chroot "$T/a/root2" dpkg-query -W \
    -f '${db:Status-Abbrev} ${Package} ${Version}\n' > "$T/l-c" || fail "again: dpkg-query"
diff -u "$T/l-b" "$T/l-c" || fail "again: dpkg -l from the store differs from dpkg's"
listing "$T/a/root2" > "$T/tree-c"
diff -u "$T/tree-b" "$T/tree-c" > "$T/tree.diff" ||
    fail "again: the root from the store differs from the twin's: $(head -n 40 "$T/tree.diff")"
rm -rf "$T/a/root2"
echo "ok apt-get install again: $unpacked packages from the store (DEBUNPACK_CACHE)"
[ "${APTSHIM_STEPS:-all}" != install ] || exit 0

# 2. An upgrade: the newer versions added to the mirror.
for pv in $new; do
	cp "$(deb_of "$pv")" "$mirror/"
done
reindex
for side in a b; do
	apt $side update2 update
	apt $side upgrade dist-upgrade
done
alike upgrade
for pv in $new; do
	awk -v p="${pv%%=*}" -v v="${pv#*=}" '$1 == "ii" && $2 == p && $3 == v { f = 1 }
	    END { exit !f }' "$T/l-a" || fail "upgrade: ${pv%%=*} is not ${pv#*=} and installed"
done
unpack_flushes upgrade
echo "ok apt-get dist-upgrade of three packages"

# 3. A removal and a purge (the shim passes them on to dpkg).
for side in a b; do
	apt $side remove remove less
	apt $side purge purge netbase
done
alike remove
! awk '($1 == "ii" && $2 == "less") || $2 == "netbase"' "$T/l-a" | grep -q . ||
    fail "remove: less or netbase left: $(cat "$T/l-a")"
echo "ok apt-get remove and purge"

# 4. A reinstall, over a conffile the admin changed (kept: confold).
for side in a b; do
	echo "# local change" >> "$T/$side/root/etc/ssl/openssl.cnf"
	touch -d @1700000000 "$T/$side/root/etc/ssl/openssl.cnf"
	apt $side reinstall install --reinstall openssl libreadline8
done
alike reinstall
grep -q '^# local change$' "$T/a/root/etc/ssl/openssl.cnf" ||
    fail "reinstall: the changed conffile was not kept"
echo "ok apt-get install --reinstall"

# 5. A diverted file (dpkg-divert --rename, as the admin does it): the
#    reinstall puts the package's file at the diverted name.
for side in a b; do
	R=$T/$side/root
	"$real_dpkg-divert" --root="$R" --admindir="$R/var/lib/dpkg" --local \
	    --rename --divert /usr/bin/openssl.distrib --add /usr/bin/openssl \
	    > "$T/divert-$side.log" 2>&1 || fail "dpkg-divert: $(cat "$T/divert-$side.log")"
	echo local > "$R/usr/bin/openssl"
	touch -d @1700000000 "$R/usr/bin/openssl"
	apt $side divert install --reinstall openssl
done
alike divert
[ "$(cat "$T/a/root/usr/bin/openssl")" = local ] && [ -x "$T/a/root/usr/bin/openssl.distrib" ] ||
    fail "divert: the package's file is not at the diverted name"
echo "ok apt-get install --reinstall of a package with a diverted file"

# 6. dpkg's path filters, as apt passes them (DPkg::Options): less, in
#    config-files state since step 3, unpacked again without its
#    documentation but for the copyright file.
for side in a b; do
	apt $side filter -o 'DPkg::Options::=--path-exclude=/usr/share/doc/*' \
	    -o 'DPkg::Options::=--path-include=/usr/share/doc/*/copyright' \
	    install less
done
alike filter
[ -f "$T/a/root/usr/share/doc/less/copyright" ] &&
    [ -z "$(find "$T/a/root/usr/share/doc/less" -type f ! -name copyright)" ] ||
    fail "filter: less's documentation was not filtered: $(find "$T/a/root/usr/share/doc/less")"
echo "ok apt-get install with path-exclude and path-include"

# 7. Failing preinsts: a new package whose preinst fails (dpkg's
#    abort-install), and the upgrade of an installed one whose new
#    preinst fails (abort-upgrade: the old version stays).
fp() {
	make_pkg -m "T <t@example.org>" -d "test package" "$@"
}
fp failnew 1 "control-field Priority optional" "control-field Section misc" \
    "control-file preinst 0755 #!/bin/sh\necho failnew preinst \$*\nexit 1\n" \
    "control-file postrm 0755 #!/bin/sh\necho failnew postrm \$*\n" \
    "dir ./usr/ 0755" "dir ./usr/share/ 0755" "dir ./usr/share/failnew/ 0755" \
    "file ./usr/share/failnew/f 0644 text:f" > /dev/null
fp failup 1 "control-field Priority optional" "control-field Section misc" \
    "control-file postrm 0755 #!/bin/sh\necho failup 1 postrm \$*\n" \
    "control-file conffiles 0644 /etc/failup.conf\n" \
    "dir ./etc/ 0755" "file ./etc/failup.conf 0644 text:one\n" \
    "dir ./usr/ 0755" "dir ./usr/share/ 0755" "dir ./usr/share/failup/ 0755" \
    "file ./usr/share/failup/a 0644 text:a1" "file ./usr/share/failup/b 0644 text:b1" > /dev/null
cp "$T/failnew-1.deb" "$T/failup-1.deb" "$mirror/"
reindex
for side in a b; do
	apt $side update4 update
	apt_fails $side failnew install failnew
	apt $side failup1 install failup
done
alike failnew
fp failup 2 "control-field Priority optional" "control-field Section misc" \
    "control-file preinst 0755 #!/bin/sh\necho failup 2 preinst \$*\nexit 1\n" \
    "control-file postrm 0755 #!/bin/sh\necho failup 2 postrm \$*\n" \
    "control-file conffiles 0644 /etc/failup.conf\n" \
    "dir ./etc/ 0755" "file ./etc/failup.conf 0644 text:two\n" \
    "dir ./usr/ 0755" "dir ./usr/share/ 0755" "dir ./usr/share/failup/ 0755" \
    "file ./usr/share/failup/a 0644 text:a2" "file ./usr/share/failup/c 0644 text:c2" > /dev/null
cp "$T/failup-2.deb" "$mirror/"
reindex
for side in a b; do
	apt $side update5 update
	apt_fails $side failup install failup
done
alike failup
for side in a b; do
	grep '^failnew \|^failup ' "$T/failnew-$side.log" "$T/failup-$side.log" |
	    sed 's/^[^:]*-[ab]\.log://' > "$T/scripts-$side"
done
diff -u "$T/scripts-b" "$T/scripts-a" ||
    fail "failing preinsts: the scripts ran otherwise than under dpkg"
grep -q '^failup 2 postrm abort-upgrade 1' "$T/scripts-a" &&
    awk '$2 == "failup" && $3 == "1" && $1 == "ii" { f = 1 } END { exit !f }' "$T/l-a" &&
    [ "$(cat "$T/a/root/usr/share/failup/a")" = a1 ] ||
    fail "failup: the failed upgrade was not undone: $(cat "$T/scripts-a") $(grep failup "$T/l-a")"
echo "ok apt-get install with failing preinsts (abort-install, abort-upgrade)"

# 8. apt runs killed (SIGKILL, by strace's fault injection) in the shim's
#    unpack of an upgrade: before its commit point (entering the data
#    barrier, a syncfs), at it (the commit that makes the names durable,
#    the commit line written: on this ext4 the fsync of dpkg's directory
#    before the old postrm, its second after the half-installed status's)
#    and after it (waiting for the old postrm, its third script after
#    the old prerm and the new preinst).  apt
#    fails as when dpkg is killed; dpkg --audit asks for the package to
#    be reinstalled, as after a dpkg killed in its unpack; the user's
#    recovery, dpkg --configure -a and the same apt-get again, ends where
#    the twin's one run ends.
command -v strace > /dev/null && strace -qq -o /dev/null true 2> /dev/null ||
    { echo "no strace here: killed apt runs not tried"; exit 0; }
v=3 was=1
for at in syncfs:1 fsync:2 wait4:3; do
	fp failup $v "control-field Priority optional" "control-field Section misc" \
	    "control-file preinst 0755 #!/bin/sh\necho failup $v preinst \$*\n" \
	    "control-file prerm 0755 #!/bin/sh\necho failup $v prerm \$*\n" \
	    "control-file postrm 0755 #!/bin/sh\necho failup $v postrm \$*\n" \
	    "control-file conffiles 0644 /etc/failup.conf\n" \
	    "dir ./etc/ 0755" "file ./etc/failup.conf 0644 text:v$v\n" \
	    "dir ./usr/ 0755" "dir ./usr/share/ 0755" "dir ./usr/share/failup/ 0755" \
	    "file ./usr/share/failup/a 0644 text:a$v" \
	    "file ./usr/share/failup/v$v 0644 text:$v" > /dev/null
	cp "$T/failup-$v.deb" "$mirror/"
	reindex
	apt b "update-k$v" update
	apt b "kill$v" install failup
	apt a "update-k$v" update
	echo "$at" > "$T/kill"
	af_rc=0
	APT_CONFIG=$T/apt-a.conf DEBIAN_FRONTEND=noninteractive \
	    timed "kill$v-a" apt-get -q -y install failup || af_rc=$?
	[ $af_rc = 100 ] && [ ! -f "$T/kill" ] ||
	    fail "killed at $at: apt-get exit $af_rc: $(tail -n 5 "$T/kill$v-a.log")"
	LC_ALL=C chroot "$T/a/root" dpkg --audit > "$T/audit-k" 2>&1 || true
	st=$(chroot "$T/a/root" dpkg-query -W -f '${Status} ${Version}' failup)
	# dpkg's stanza during an unpack is the old version's until the
	# old postrm ran.
	[ "$st" = "install reinstreq half-installed $was" ] ||
	    fail "killed at $at: failup is '$st', not $was half-installed to reinstall: $(cat "$T/audit-k")"
	grep -q failup "$T/audit-k" || fail "killed at $at: dpkg --audit: $(cat "$T/audit-k")"
	[ "$at" != wait4:3 ] || [ -f "$T/a/root/usr/share/failup/v$v" ] ||
	    fail "killed at $at: not past the commit point"
	LC_ALL=C chroot "$T/a/root" dpkg --configure -a > "$T/conf-k" 2>&1 ||
	    fail "killed at $at: dpkg --configure -a: $(cat "$T/conf-k")"
	apt a "kill$v" install failup
	alike "kill$v"
	[ -z "$(find "$T/a/root" -name '*.debunpack-*')" ] ||
	    fail "killed at $at: temporaries left: $(find "$T/a/root" -name '*.debunpack-*')"
	echo "ok apt-get killed in the unpack at $at, then recovered"
	was=$v
	v=$((v + 1))
done
