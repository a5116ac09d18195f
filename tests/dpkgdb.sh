#!/bin/sh
# SPDX-License-Identifier: MIT
# --dpkg-db writes the status stanza and the info files that dpkg --unpack
# writes for the same packages: fixtures with every kind of control member
# and field, merges and upgrades, and real packages when some are at hand.
. "${srcdir:-.}/tests/lib.sh"

command -v dpkg >/dev/null || skip "dpkg not installed"
arch=$(dpkg --print-architecture)
# Not as root, dpkg extracts control members through the umask.
umask 022

# dpkg_root runs dpkg as root or not, its maintainer scripts without chroot
# into the roots, which have no shell: the fixtures' scripts do nothing, and
# the real packages are chosen without preinst.  --force-depends: the
# fixtures depend on packages that are not there.

# unpack_both NAME DEB...: debunpack into $T/d-NAME and dpkg --unpack into
# $T/s-NAME, one invocation each; the roots are made empty on first use,
# dpkg's with the merged-/usr links debunpack chose for its own.
unpack_both() {
	ub_d=$T/d-$1 ub_s=$T/s-$1
	shift
	[ -d "$ub_d" ] || mkdir "$ub_d"
	"$DEBUNPACK" -q --root "$ub_d" --dpkg-db "$@" || fail "debunpack $*"
	if [ ! -d "$ub_s" ]; then
		empty_dpkg_db "$ub_s"
		for l in bin sbin lib lib32 lib64 libx32; do
			[ -L "$ub_d/$l" ] || continue
			ub_t=$(readlink "$ub_d/$l")
			mkdir -p "$ub_s/${ub_t#/}"
			ln -s "$ub_t" "$ub_s/$l"
		done
	fi
	dpkg_root "$ub_s" --force-depends --unpack "$@"
}

# conffile_hashes ROOT: "PATH HASH" for every conffile of ROOT's status.
conffile_hashes() {
	awk '/^Conffiles:/ { c = 1; next } /^[^ ]/ { c = 0 } c { print $1, $2 }' \
	    "$1/var/lib/dpkg/status"
}

# check_hashes ROOT: each conffile hash in ROOT's status is the md5 of the
# file in ROOT, as it is after an unpack.
check_hashes() {
	conffile_hashes "$1" | while read -r ch_path ch_hash; do
		ch_want=$(md5sum < "$1$ch_path") || fail "conffile $ch_path missing in $1"
		[ "$ch_hash" = "${ch_want%% *}" ] ||
		    fail "$1: conffile $ch_path: status says $ch_hash, the file's md5 is ${ch_want%% *}"
	done
}

# status_as STATUS WORD [REF]: STATUS with its conffile hashes replaced by
# WORD; with REF, only those of the conffiles REF has as "newconffile".
status_as() {
	awk -v w="$2" '
		FILENAME != ARGV[ARGC - 1] {
			if (/^Package:/) p = $2
			if (/^Conffiles:/) { c = 1; next }
			if (/^[^ ]/) c = 0
			if (c && $2 == "newconffile") fresh[p " " $1] = 1
			next
		}
		/^Package:/ { p = $2 }
		/^Conffiles:/ { c = 1; print; next }
		/^[^ ]/ { c = 0 }
		c && (!ref || (p " " $1) in fresh) { $2 = w; print " " $0; next }
		{ print }' ref="${3:+1}" ${3:+"$3"} "$1"
}

# info_list DIR: name, mode and checksum of each file of an info directory.
info_list() {
	(cd "$1" && find . -type f -printf '%P %m\n' | LC_ALL=C sort |
	    while read -r il_name il_mode; do
		il_sum=$(sha256sum < "$il_name")
		echo "$il_name $il_mode ${il_sum%% *}"
	    done)
}

# triggers_list DIR: what dpkg keeps in triggers/ about interests (its lock
# and an empty Unincorp say nothing), one "FILE: LINE" per line.
triggers_list() {
	[ -d "$1" ] || return 0
	for tl_f in "$1"/*; do
		[ -f "$tl_f" ] || continue
		case ${tl_f##*/} in Lock) continue ;; esac
		[ "${tl_f##*/}" != Unincorp ] || [ -s "$tl_f" ] || continue
		sed "s|^|${tl_f##*/}: |" "$tl_f"
	done
}

# same_db NAME [HASHES]: debunpack's database in $T/d-NAME is dpkg's in
# $T/s-NAME.  Conffile hashes: dpkg --unpack writes "newconffile" where
# debunpack writes the md5 of the file (HASHES "new", the default); "any"
# leaves them out (an upgrade of a configured package, where dpkg keeps
# the old hash); "same" compares them too (after dpkg --configure).
same_db() {
	sd_d=$T/d-$1/var/lib/dpkg sd_s=$T/s-$1/var/lib/dpkg sd_bad=""
	case ${2:-new} in
	new)
		check_hashes "$T/d-$1"
		status_as "$sd_d/status" newconffile "$sd_s/status" > "$T/status.d"
		cp "$sd_s/status" "$T/status.s"
		;;
	any)
		check_hashes "$T/d-$1"
		status_as "$sd_d/status" - > "$T/status.d"
		status_as "$sd_s/status" - > "$T/status.s"
		;;
	same)
		cp "$sd_d/status" "$T/status.d"
		cp "$sd_s/status" "$T/status.s"
		;;
	esac
	if ! diff -u "$T/status.s" "$T/status.d" > "$T/diff"; then
		echo "$1: status: dpkg (-) and debunpack (+) differ:" >&2
		cat "$T/diff" >&2
		sd_bad="$sd_bad status"
	fi
	info_list "$sd_s/info" > "$T/info.s"
	info_list "$sd_d/info" > "$T/info.d"
	if ! diff -u "$T/info.s" "$T/info.d" > "$T/diff"; then
		echo "$1: info/ (name mode sha256): dpkg (-) and debunpack (+) differ:" >&2
		cat "$T/diff" >&2
		# The contents of what differs, for the report.
		for f in $(cut -d ' ' -f 1 "$T/info.s" "$T/info.d" | LC_ALL=C sort -u); do
			if [ -f "$sd_s/info/$f" ] && [ -f "$sd_d/info/$f" ]; then
				diff -u "$sd_s/info/$f" "$sd_d/info/$f" >&2 || :
			elif [ -f "$sd_s/info/$f" ]; then
				echo "only dpkg's: info/$f:" >&2
				head -n 5 "$sd_s/info/$f" >&2
			else
				echo "only debunpack's: info/$f:" >&2
				head -n 5 "$sd_d/info/$f" >&2
			fi
		done
		sd_bad="$sd_bad info"
	fi
	# Without a triggers/ directory, dpkg's next run registers the
	# interests of every unpacked package from its info/PKG.triggers (the
	# configured cases check that it does).
	triggers_list "$sd_s/triggers" > "$T/trig.s"
	triggers_list "$sd_d/triggers" > "$T/trig.d"
	if [ -d "$sd_d/triggers" ] && ! diff -u "$T/trig.s" "$T/trig.d" > "$T/diff"; then
		echo "$1: triggers/: dpkg (-) and debunpack (+) differ:" >&2
		cat "$T/diff" >&2
		sd_bad="$sd_bad triggers"
	fi
	[ -z "$sd_bad" ] || fail "$1: dpkg's and debunpack's database differ:$sd_bad"
	no_temps "$T/d-$1"
}

# with_md5sums DESC: DESC gets the md5sums member dpkg-deb would give it.
with_md5sums() {
	wm_name=$(basename "$1" .desc)
	build_deb "$wm_name" "$1" > /dev/null
	rm -rf "$T/x"
	dpkg-deb -x "$T/$wm_name.deb" "$T/x"
	wm_sums=$(cd "$T/x" && find . -type f | LC_ALL=C sort | sed 's|^\./||' |
	    while read -r f; do
		s=$(md5sum < "$f")
		printf '%s  %s\\n' "${s%% *}" "$f"
	    done)
	printf 'control-file md5sums 0644 %s\n' "$wm_sums" >> "$1"
	rm -rf "$T/x"
}

# Every control member dpkg keeps, all maintainer scripts, conffiles, and
# the fields of a status stanza in an order that is not dpkg's.
cat > "$T/full.desc" <<'D'
control-field Package full
control-field Source full-src (1.0-0)
control-field Version 1:2.0~rc1-3
control-field Architecture all
control-field Maintainer Test <t@example.org>
control-field Installed-Size 42
control-field Homepage https://example.org/full
control-field Depends a(>=1),b |c,  d:any
control-field Pre-Depends e (<< 2:1.0-1~)
control-field Essential yes
control-field Protected yes
control-field Priority optional
control-field Section admin
control-field Recommends f
control-field Suggests g (= 1)
control-field Breaks h (<< 1)
control-field Conflicts i
control-field Replaces j (<= 3)
control-field Provides k (= 2.0), l
control-field Enhances m
control-field Built-Using n (= 1.2-3)
control-field Description a package with everything\n A longer description\n .\n over lines.
control-field X-Custom-Field some value
control-field X-Multi first line\n second line
control-field Bugs debbugs://bugs.example.org
control-field Origin Example
control-file conffiles 0644 /etc/full/full.conf\n/etc/full.conf\n
control-file preinst 0755 #!/bin/sh\nexit 0\n
control-file postinst 0755 #!/bin/sh\nexit 0\n
control-file prerm 0755 #!/bin/sh\nexit 0\n
control-file postrm 0755 #!/bin/sh\nexit 0\n
control-file config 0755 #!/bin/sh\nexit 0\n
control-file templates 0644 Template: full/question\nType: boolean\nDefault: true\nDescription: really?\n
control-file shlibs 0644 libfull 1 full (>= 1)\n
control-file triggers 0644 interest full-trigger\ninterest-noawait /usr/share/full\nactivate-noawait ldconfig\n
dir ./ 0755
dir ./etc/ 0755
dir ./etc/full/ 0755
file ./etc/full/full.conf 0644 text:a = 1\n
file ./etc/full.conf 0600 text:secret\n
dir ./usr/ 0755
dir ./usr/share/ 0755
dir ./usr/share/full/ 0755
file ./usr/share/full/data 0644 text:data\n
D
with_md5sums "$T/full.desc"

# Values dpkg writes back in its own spelling: versions in dependencies,
# the case of Priority and Multi-Arch.
cat > "$T/odd.desc" <<'D'
control-field Package odd
control-field Version 1
control-field Architecture all
control-field Priority Optional
control-field Multi-Arch Foreign
control-field Maintainer Test <t@example.org>
control-field Depends a (>=1), b( >= 2 ), c:any(>=1),d (= 1)|e
control-field Provides k (=2.0)
control-field Breaks h (< 1), i (> 2)
control-field Description odd spellings
control-file md5sums 0644 b026324c6904b2a9cb4b88d6d61c81d1  usr/odd\n
dir ./ 0755
dir ./usr/ 0755
file ./usr/odd 0644 text:1\n
D

# Multi-Arch: same: the info files are named PKG:ARCH.*.
cat > "$T/same.desc" <<D
control-field Package libsame1
control-field Version 1.0-1
control-field Architecture $arch
control-field Multi-Arch same
control-field Maintainer Test <t@example.org>
control-field Description a library
control-file postinst 0755 #!/bin/sh\\nexit 0\\n
control-file shlibs 0644 libsame 1 libsame1 (>= 1.0)\\n
control-file symbols 0644 libsame.so.1 libsame1 #MINVER#\\n sym@Base 1.0\\n
control-file triggers 0644 activate-noawait ldconfig\\n
control-file conffiles 0644 /etc/same.conf\\n
dir ./ 0755
dir ./etc/ 0755
file ./etc/same.conf 0644 text:same\\n
dir ./usr/ 0755
dir ./usr/lib/ 0755
file ./usr/lib/libsame.so.1.0 0644 text:elf\\n
symlink ./usr/lib/libsame.so.1 libsame.so.1.0
D
with_md5sums "$T/same.desc"

# Fields dpkg writes only when they say something.
cat > "$T/plain.desc" <<'D'
control-field Package plain
control-field Version 3
control-field Architecture all
control-field Essential no
control-field Multi-Arch no
control-field Maintainer Test <t@example.org>
control-field Description plain
control-file md5sums 0644 b026324c6904b2a9cb4b88d6d61c81d1  usr/plain\n
dir ./ 0755
dir ./usr/ 0755
file ./usr/plain 0644 text:1\n
D

# No md5sums member (dpkg makes one when a package lacks it).
cat > "$T/nomd5.desc" <<'D'
control-field Package nomd5
control-field Version 1
control-field Architecture all
control-field Maintainer Test <t@example.org>
control-field Description no md5sums
dir ./ 0755
dir ./usr/ 0755
file ./usr/nomd5 0644 text:1\n
D

# The .list: directories after their files, hardlinks, symlinks (which
# dpkg's tar extractor makes last, and lists last), a name with a space;
# scripts with other modes (which dpkg keeps only as root).
xmode=0775 tmode=0664
is_root || xmode=0755 tmode=0644
cat > "$T/tree.desc" <<D
control-field Package tree
control-field Version 1.0
control-field Architecture all
control-field Maintainer Test <t@example.org>
control-field Description entries in archive order
control-file postinst $xmode #!/bin/sh\\nexit 0\\n
control-file templates $tmode Template: tree/q\\nType: note\\nDescription: note\\n
dir ./ 0755
dir ./usr/ 0755
dir ./usr/share/ 0755
dir ./usr/share/tree/ 0755
file ./usr/share/tree/b 0644 text:b\\n
file ./usr/share/tree/a 0644 text:a\\n
hardlink ./usr/share/tree/a-link ./usr/share/tree/a
symlink ./usr/share/tree/c ../tree/b
dir ./usr/share/tree/z/ 0755
dir ./usr/share/tree/y/ 0700
file ./usr/share/tree/z/with\\sspace 0644 text:s\\n
symlink ./usr/share/tree/dirlink z
file ./usr/share/tree/y/deep 0600 empty
dir ./usr/lib/ 0755
file ./usr/lib/tree.so 0755 text:so\\n
hardlink ./usr/share/tree/h2 ./usr/lib/tree.so
D
with_md5sums "$T/tree.desc"

for p in full odd same plain nomd5 tree; do
	deb=$(build_deb "$p" "$T/$p.desc")
	unpack_both "$p" "$deb"
	same_db "$p"
	echo "ok $p"
done
[ -f "$T/d-same/var/lib/dpkg/info/libsame1:$arch.list" ] ||
    fail "Multi-Arch: same: no info/libsame1:$arch.list"
[ "$(head -n 1 "$T/d-tree/var/lib/dpkg/info/tree.list")" = /. ] ||
    fail ".list does not start with /."

# Dependencies dpkg cannot parse: dpkg refuses the package; whatever
# debunpack does, dpkg must still be able to read the database after it.
i=0
for v in 'a [amd64]' 'a (>= 1) <!nocheck>' 'a (>= 1' 'a (~ 1)'; do
	i=$((i + 1))
	deb=$(make_pkg -m "Test <t@example.org>" "bad$i" 1 "control-field Depends $v" \
	    "control-field Description unparsable dependency" "dir ./ 0755")
	mkdir -p "$T/d-bad$i"
	empty_dpkg_db "$T/s-bad"
	if dpkg_in "$T/s-bad" --force-depends --unpack "$deb" > /dev/null 2>&1; then
		echo "dpkg takes 'Depends: $v': not checked"
		continue
	fi
	if "$DEBUNPACK" -q --root "$T/d-bad$i" --dpkg-db "$deb" 2> /dev/null; then
		dpkg-query --admindir="$T/d-bad$i/var/lib/dpkg" -W > /dev/null 2> "$T/err" ||
		    fail "'Depends: $v': dpkg refuses the package; debunpack installed it and now dpkg cannot read the database: $(cat "$T/err")"
	else
		[ -z "$(ls -A "$T/d-bad$i")" ] || fail "'Depends: $v': refused, but the root changed"
	fi
	echo "ok 'Depends: $v'"
done

# Configured by dpkg, the conffiles get the hash debunpack wrote.
for p in full same; do
	dpkg_root "$T/s-$p" --force-depends --configure -a
	conffile_hashes "$T/s-$p" > "$T/hash.s"
	conffile_hashes "$T/d-$p" > "$T/hash.d"
	diff -u "$T/hash.s" "$T/hash.d" || fail "$p: conffile hashes differ from dpkg's after --configure"
	# dpkg configures debunpack's root as well, and changes no hash.
	dpkg_root "$T/d-$p" --force-depends --configure -a
	same_db "$p" same
	echo "ok $p configured"
done

# Merges: packages of separate runs, and of one run, sort into one status.
unpack_both merge "$T/tree.deb"
unpack_both merge "$T/full.deb"
unpack_both merge "$T/same.deb"
same_db merge
echo "ok merge, three runs"
unpack_both merge1 "$T/tree.deb" "$T/plain.deb" "$T/full.deb"
same_db merge1
echo "ok merge, one run"

# Upgrades: v2 drops postrm, a file and a conffile's old content.
up() {
	up_postrm='control-file postrm 0755 #!/bin/sh\nexit 0\n'
	[ "$1" = 1 ] || up_postrm=""
	cat > "$T/up$1.desc" <<D
control-field Package up
control-field Version $1
control-field Architecture all
control-field Maintainer Test <t@example.org>
control-field Description upgraded
control-file conffiles 0644 /etc/up.conf\\n
control-file preinst 0755 #!/bin/sh\\nexit 0\\n
control-file postinst 0755 #!/bin/sh\\nexit 0\\n
control-file prerm 0755 #!/bin/sh\\nexit 0\\n
$up_postrm
dir ./ 0755
dir ./etc/ 0755
file ./etc/up.conf 0644 text:version $1\\n
dir ./usr/ 0755
dir ./usr/share/ 0755
dir ./usr/share/up/ 0755
file ./usr/share/up/v$1 0644 text:$1\\n
D
	with_md5sums "$T/up$1.desc"
	build_deb "up$1" "$T/up$1.desc" > /dev/null
}
up 1
up 2
unpack_both up "$T/up1.deb"
unpack_both up "$T/up2.deb"
same_db up
[ ! -e "$T/d-up/var/lib/dpkg/info/up.postrm" ] || fail "stale info/up.postrm after the upgrade"
[ ! -e "$T/d-up/usr/share/up/v1" ] || fail "usr/share/up/v1 left after the upgrade"
echo "ok upgrade of an unpacked package"

# Of a configured one: Config-Version names the configured version.  dpkg
# keeps the configured conffile's hash until it configures the new one;
# debunpack has put the new file in place and gives its md5.
unpack_both upc "$T/up1.deb"
dpkg_root "$T/s-upc" --force-depends --configure -a
dpkg_root "$T/d-upc" --force-depends --configure -a
same_db upc same
unpack_both upc "$T/up2.deb"
same_db upc any
grep -qx 'Config-Version: 1' "$T/d-upc/var/lib/dpkg/status" || fail "no Config-Version: 1"
dpkg_root "$T/s-upc" --force-depends --configure -a
dpkg_root "$T/d-upc" --force-depends --configure -a
same_db upc same
echo "ok upgrade of a configured package"

# Triggers in a root dpkg has configured: a new interest is registered,
# and the file trigger of a path the package installs is activated.
cat > "$T/watch.desc" <<'D'
control-field Package watch
control-field Version 1
control-field Architecture all
control-field Maintainer Test <t@example.org>
control-field Description is interested in triggers
control-file postinst 0755 #!/bin/sh\necho "$*" >> "$DPKG_ROOT/watch.log"\n
control-file triggers 0644 interest watch-trigger\ninterest-noawait /usr/share/watched\n
dir ./ 0755
dir ./usr/ 0755
dir ./usr/share/ 0755
dir ./usr/share/watched/ 0755
file ./usr/share/watch 0644 text:watch\n
D
cat > "$T/act.desc" <<'D'
control-field Package act
control-field Version 1
control-field Architecture all
control-field Maintainer Test <t@example.org>
control-field Description activates triggers
control-file postinst 0755 #!/bin/sh\nexit 0\n
control-file triggers 0644 activate watch-trigger\ninterest act-trigger\n
dir ./ 0755
dir ./usr/ 0755
dir ./usr/share/ 0755
dir ./usr/share/watched/ 0755
file ./usr/share/watched/act 0644 text:act\n
D
for p in watch act; do
	with_md5sums "$T/$p.desc"
	build_deb "$p" "$T/$p.desc" > /dev/null
done
unpack_both trig "$T/watch.deb"
dpkg_root "$T/s-trig" --force-depends --configure -a
dpkg_root "$T/d-trig" --force-depends --configure -a
same_db trig same
# act unpacked as apt has dpkg unpack (--no-triggers: no processing).
"$DEBUNPACK" -q --root "$T/d-trig" --dpkg-db "$T/act.deb" || fail "debunpack act"
dpkg_root "$T/s-trig" --force-depends --unpack --no-triggers "$T/act.deb"
# The interests as dpkg registers them, and the activations noted in the
# status as dpkg notes them (watch triggers-pending, act awaiting it).
triggers_list "$T/s-trig/var/lib/dpkg/triggers" > "$T/trig.s"
triggers_list "$T/d-trig/var/lib/dpkg/triggers" > "$T/trig.d"
diff -u "$T/trig.s" "$T/trig.d" || fail "trigger interests differ after act"
for r in s d; do
	dpkg-query --admindir="$T/$r-trig/var/lib/dpkg" -W -f '${Package} ${Status} [${Triggers-Pending}] [${Triggers-Awaited}]\n' > "$T/trigst.$r"
done
diff -u "$T/trigst.s" "$T/trigst.d" || fail "the activations in the status differ after act"
grep -q '^watch install ok triggers-pending \[.*watch-trigger' "$T/trigst.d" ||
    fail "act's activations are not watch's pending triggers: $(cat "$T/trigst.d")"
dpkg_root "$T/s-trig" --force-depends --configure -a
dpkg_root "$T/d-trig" --force-depends --configure -a
same_db trig same
# watch's postinst was told of the same triggers, in the same calls.
diff -u "$T/s-trig/watch.log" "$T/d-trig/watch.log" ||
    fail "watch's postinst calls differ"
grep -q '^triggered' "$T/d-trig/watch.log" || fail "watch not triggered"
grep -q '^configure' "$T/d-trig/watch.log" || fail "watch not configured"
echo "ok triggers in a configured root"

# Real packages, when some are at hand (no preinst: dpkg runs them
# without chroot here).
real=""
for dir in /var/tmp/bench-helper-cache/minbase /var/cache/debunpack-tests/minbase \
    /var/cache/apt/archives; do
	for p in base-files debconf libattr1 libpam0g coreutils; do
		set -- "$dir/${p}"_*.deb
		[ -f "$1" ] || continue
		case " $real " in *" $p:"*) continue ;; esac
		real="$real $p:$1"
	done
done
[ -n "$real" ] || echo "no real packages at hand: skipping that part"
for pd in $real; do
	p=${pd%%:*} deb=${pd#*:}
	if dpkg-deb --ctrl-tarfile "$deb" | tar -t | grep -qx '\./preinst'; then
		echo "$p has a preinst: skipped"
		continue
	fi
	unpack_both "real-$p" "$deb"
	same_db "real-$p"
	rm -rf "$T/d-real-$p" "$T/s-real-$p"
	echo "ok $p"
done
echo ok
