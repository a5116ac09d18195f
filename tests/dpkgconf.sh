#!/bin/sh
# SPDX-License-Identifier: MIT
# Conffiles through the dpkg for apt (DPKGSHIM): its unpack leaves each
# conffile's new version at NAME.dpkg-new and the old hash (or
# "newconffile") in dpkg's status, as dpkg --unpack does, so that the
# real dpkg's --configure decides with the user.  Twin roots, one by the
# shim, one by the real dpkg: an upgrade of a conffile the user changed
# or deleted, with --force-confold, --force-confnew, --force-confdef,
# --force-confmiss and with none (stdin is no terminal: dpkg's prompt
# reads end of file and the package stays unconfigured), by dpkg -i and
# by apt's --unpack then --configure; both must exit alike and leave the
# same tree (contents, modes, the .dpkg-* files) and the same status.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "not root: dpkg acts in the test's roots"
command -v dpkg > /dev/null || skip "dpkg missing"
[ -n "${DPKGSHIM:-}" ] && [ -x "$DPKGSHIM" ] ||
    fail "the dpkg for apt is not built: DPKGSHIM='${DPKGSHIM:-}'"
real_dpkg=$(command -v dpkg)

# app VERSION CONTENT [CONTENT2]: app whose conffiles hold CONTENT
# (/etc/app.conf) and CONTENT2 (/etc/new.conf, a conffile new in that
# version, when given).
app() {
	if [ -n "${3:-}" ]; then
		twin_pkg "app$1" app "$1" "" "/etc/app.conf;/etc/new.conf" \
		    etc/ "etc/app.conf:$2" "etc/new.conf:$3" "usr/" "usr/app:$1"
	else
		twin_pkg "app$1" app "$1" "" "/etc/app.conf" \
		    etc/ "etc/app.conf:$2" "usr/" "usr/app:$1"
	fi
}
app 1 one
app 2 two new
app 3 one new

# ours ARG...: the shim as dpkg in root ours (dpkg_in's options); it
# says when it hands a call to the real dpkg.
ours() {
	PATH=$PATH:/usr/sbin:/sbin DEBUNPACK_DPKG=$real_dpkg \
	    DEBUNPACK_DPKG_DEBUG=1 "$DPKGSHIM" \
	    --root="$T/ours" --force-not-root --force-script-chrootless \
	    --log=/dev/null "$@" < /dev/null
}

# view ROOT: its tree (contents, modes) and dpkg's status of app.
view() {
	tree_view "$1"
	dpkg-query --admindir="$1/var/lib/dpkg" -W \
	    -f '${Package} ${Version} ${db:Status-Abbrev}\n${Conffiles}\n'
	for l in "$1"/var/lib/dpkg/info/*.list; do
		echo "${l##*/}:"
		cat "$l"
	done
}

# both NAME ARG...: the same dpkg call in both roots; same exit, same view.
both() {
	name=$1
	shift
	dpkg_in "$T/dpkg" "$@" > "$T/dpkg.out" 2>&1 && rd=0 || rd=$?
	ours "$@" > "$T/ours.out" 2>&1 && ru=0 || ru=$?
	[ "$rd" = "$ru" ] || { cat "$T/dpkg.out" "$T/ours.out"; fail "$name: exit $rd from dpkg, $ru from the shim"; }
	# An unpack is debunpack's, or the test compares dpkg with itself.
	case " $* " in
	*" -i "* | *" --unpack "*)
		! grep -q '^debunpack-dpkg: handed to' "$T/ours.out" ||
		    fail "$name: handed to dpkg: $(cat "$T/ours.out")" ;;
	esac
	view "$T/dpkg" > "$T/theirs.view"
	view "$T/ours" > "$T/ours.view"
	diff -u "$T/theirs.view" "$T/ours.view" ||
	    { cat "$T/ours.out"; fail "$name: not what dpkg leaves"; }
}

# start: app 1 installed by dpkg in both roots.
start() {
	twin_new
	dpkg_root "$T/dpkg" -i "$T/app1.deb"
	dpkg_root "$T/ours" -i "$T/app1.deb"
}

# Unchanged by the user: upgraded, the new conffile installed.
start
both "unchanged" -i "$T/app2.deb"
[ "$(cat "$T/ours/etc/app.conf")" = two ] || fail "unchanged: not upgraded"

# Changed by the user, each way dpkg's --configure can be told.
for force in --force-confold --force-confnew --force-confdef \
    "--force-confdef --force-confnew" ""; do
	start
	for r in dpkg ours; do echo mine > "$T/$r/etc/app.conf"; done
	# shellcheck disable=SC2086 # the force options, one word each
	both "changed ${force:-(no force)}" $force -i "$T/app2.deb"
done
[ "$rd" != 0 ] || fail "no force: dpkg configured without asking"
[ -e "$T/ours/etc/app.conf.dpkg-new" ] ||
    fail "no force: the new version is not left as app.conf.dpkg-new"
grep -q 'newconffile' "$T/ours.view" ||
    fail "no force: dpkg's status does not mark the new conffile"

# apt's way: --unpack (the status keeps the old hash), then --configure.
start
for r in dpkg ours; do echo mine > "$T/$r/etc/app.conf"; done
both "unpack" --unpack "$T/app2.deb"
[ "$(cat "$T/ours/etc/app.conf.dpkg-new")" = two ] ||
    fail "unpack: the new version is not at app.conf.dpkg-new"
both "configure" --force-confnew --configure app
[ "$(cat "$T/ours/etc/app.conf")" = two ] || fail "configure: not the new"

# Deleted by the user: stays deleted, or back with --force-confmiss.
for force in "" --force-confmiss; do
	start
	rm "$T/dpkg/etc/app.conf" "$T/ours/etc/app.conf"
	# shellcheck disable=SC2086 # the force option
	both "deleted ${force:-(no force)}" $force -i "$T/app2.deb"
done

# The package's version unchanged (3 ships 1's), the user's kept.
start
for r in dpkg ours; do echo mine > "$T/$r/etc/app.conf"; done
both "same version" -i "$T/app3.deb"
[ "$(cat "$T/ours/etc/app.conf")" = mine ] || fail "same version: not kept"

# The conffile of a package removed but not purged (config-files): the
# next package that ships it takes it without a Replaces, as dpkg does,
# the other's status listing it obsolete.
twin_pkg other1 other 1 "" "/etc/app.conf" etc/ "etc/app.conf:other"
start
for r in dpkg ours; do
	dpkg_root "$T/$r" --remove app
	echo mine > "$T/$r/etc/app.conf"
done
both "other over config-files" -i "$T/other1.deb"
both "purge config-files" --purge app
[ -e "$T/ours/etc/app.conf" ] || fail "purge config-files: took other's conffile"

# Hardlinked conffiles: NAME.dpkg-new linked to NAME.dpkg-new, then
# configured (dpkg's t-unpack-hardlink).
twin_pkg links1 links 1 "" "/etc/l0;/etc/l1" etc/ "etc/l0:linked" \
    "=hardlink ./etc/l1 ./etc/l0"
twin_new
both "hardlinked conffiles" --unpack "$T/links1.deb"
[ "$(stat -c %h "$T/ours/etc/l1.dpkg-new")" = 2 ] ||
    fail "hardlinked conffiles: not linked"
both "hardlinked conffiles, configured" --configure links

# An unpack that fails (the preinst exits 1): no .dpkg-new stays, the
# status has the old hash, in either root.
twin_pkg app4 app 4 "" "/etc/app.conf" etc/ "etc/app.conf:four" \
    '=control-file preinst 0755 #!/bin/sh\nexit 1\n'
start
for r in dpkg ours; do echo mine > "$T/$r/etc/app.conf"; done
both "failed preinst" --force-confnew -i "$T/app4.deb"
[ ! -e "$T/ours/etc/app.conf.dpkg-new" ] || fail "failed preinst: .dpkg-new left"

# Killed (SIGKILL) at each rename, unlink and sync of the unpack, then
# repaired (--recover): app.conf.dpkg-new is there exactly when dpkg's
# status has version 2 unpacked, the tree is the one before or the one
# after, and no temporary is left.  .dpkg-new is a final name: the
# repair keeps a committed one and removes none of the user's.
if command -v strace > /dev/null && strace -qq -o /dev/null true 2> /dev/null; then
	ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0
	export ASAN_OPTIONS
	calls=rename,renameat,renameat2,unlink,unlinkat,fsync,fdatasync,syncfs
	start
	echo mine > "$T/ours/etc/app.conf"
	rm -rf "$T/base"
	cp -a "$T/ours" "$T/base"
	tree() {
		(cd "$1" && find . -path ./var -prune -o -printf '%p %y %s\n' |
		    grep -v '^\./var ' | LC_ALL=C sort)
	}
	unpack() {
		"$DEBUNPACK" -q --root "$T/ours" --maintscripts \
		    --force-script-chrootless "$T/app2.deb"
	}
	tree "$T/base" > "$T/tree.before"
	unpack || fail "kill: plain run"
	tree "$T/ours" > "$T/tree.after"
	rm -rf "$T/ours"
	cp -a "$T/base" "$T/ours"
	strace -qq -f -o "$T/calls" -e trace=$calls "$DEBUNPACK" -q \
	    --root "$T/ours" --maintscripts --force-script-chrootless \
	    "$T/app2.deb" || fail "kill: traced run"
	sed -n 's/^[0-9]* *\([a-z0-9_]*\)(.*/\1/p' "$T/calls" | sort | uniq -c |
	    awk '{ print $2, $1 }' > "$T/points"
	[ -s "$T/points" ] || fail "kill: no kill point"
	nbefore=0 nafter=0
	while read -r call count; do
		k=1
		while [ $k -le "$count" ]; do
			rm -rf "$T/ours"
			cp -a "$T/base" "$T/ours"
			(strace -qq -o /dev/null -e trace=$calls \
			    -e "inject=$call:signal=KILL:when=$k" \
			    "$DEBUNPACK" -q --root "$T/ours" --maintscripts \
			    --force-script-chrootless "$T/app2.deb") \
			    > /dev/null 2>&1 || true
			"$DEBUNPACK" -q --root "$T/ours" --recover 2> "$T/err" ||
			    fail "kill: $call #$k: repair: $(cat "$T/err")"
			no_temps "$T/ours"
			tree "$T/ours" > "$T/tree.got"
			st=$(dpkg-query --admindir="$T/ours/var/lib/dpkg" -W \
			    -f '${Version} ${Status}' app)
			if cmp -s "$T/tree.got" "$T/tree.after"; then
				[ "$st" = "2 install ok unpacked" ] ||
				    fail "kill: $call #$k: .dpkg-new, status '$st'"
				nafter=$((nafter + 1))
			elif cmp -s "$T/tree.got" "$T/tree.before"; then
				[ "$st" != "2 install ok unpacked" ] ||
				    fail "kill: $call #$k: unpacked, no .dpkg-new"
				nbefore=$((nbefore + 1))
			else
				diff -u "$T/tree.before" "$T/tree.got" >&2 || true
				fail "kill: $call #$k: neither the tree before nor after"
			fi
			[ "$(cat "$T/ours/etc/app.conf")" = mine ] ||
			    fail "kill: $call #$k: the user's conffile changed"
			k=$((k + 1))
		done
	done < "$T/points"
	[ $nbefore -gt 0 ] && [ $nafter -gt 0 ] ||
	    fail "kill: $nbefore undone, $nafter finished: not both"
	echo "kill: $nbefore undone, $nafter finished"
fi
exit 0
