#!/bin/sh
# SPDX-License-Identifier: MIT
# --dry-run is the run itself, stopped before its commit and undone: for
# every fixture, the bad ones, and upgrades with dpkg-owned paths, a
# package dpkg installed, a directory and a file replacing each other,
# merged-/usr aliases, a kept conffile, shared and non-empty directories
# and a takeover, the dry run exits and speaks as the run does, leaves
# the root as it was, and its verdicts are what the run then does: every
# "create", "replace", "remove" and "keep" line matches the change, and
# every path the run changed has its line.  Reads never write: the dry run
# changes no time of anything in the root (ctimes, which nothing can set
# back), and as root it says the same through a read-only bind mount.
. "${srcdir:-.}/tests/lib.sh"

# changes ROOT: every path with its change and modification times.
changes() {
	(cd "$1" && find . -printf '%C@ %T@ %p\n') | LC_ALL=C sort -k3
}

ro=""
if is_root; then
	ro=$T/ro
	mkdir "$ro"
	cleanup_hooks="umount -l '$ro' 2>/dev/null; $cleanup_hooks"
fi

# listing ROOT: "INODE TYPE PATH<tab>TARGET" for every path but the admin
# directories, whose files are the run's own.
listing() {
	(cd "$1" && find . -mindepth 1 -printf '%i %y %P\t%l\n') |
	    grep -v -e ' var/lib/debunpack' -e ' var/lib/dpkg' | LC_ALL=C sort -k3
}

# check_plan PLAN BEFORE AFTER: each verdict of PLAN against the change
# from listing BEFORE to listing AFTER, and each change against PLAN.
# Verdicts name the package's paths; merged-/usr links in AFTER map them
# to where they are ("bin/x" is "usr/bin/x").
check_plan() {
	awk -v plan="$1" -v before="$2" -v after="$3" '
	function entry(line, arr, links,   tab, head, f, p) {
		tab = index(line, "\t")
		head = substr(line, 1, tab - 1)
		split(head, f, " ")
		p = substr(head, length(f[1]) + length(f[2]) + 3)
		arr[p] = f[1] " " f[2]
		if (f[2] == "l")
			links[p] = substr(line, tab + 1)
		return p
	}
	# real(P): P with a symlinked directory prefix replaced by its target.
	function real(p,   n, c, i, pre, rest, t) {
		n = split(p, c, "/")
		pre = ""
		for (i = 1; i < n; i++) {
			pre = pre (i > 1 ? "/" : "") c[i]
			if (pre in alink) {
				t = alink[pre]
				sub(/^\//, "", t)
				if (index(alink[pre], "/") != 1 && index(pre, "/") > 0) {
					rest = pre
					sub(/\/[^\/]*$/, "", rest)
					t = rest "/" t
				}
				return real(t substr(p, length(pre) + 1))
			}
		}
		return p
	}
	function bad(msg) { print "plan: " msg; st = 1 }
	BEGIN {
		while ((getline line < before) > 0) entry(line, b, blink)
		while ((getline line < after) > 0) entry(line, a, alink)
		while ((getline line < plan) > 0) {
			if (line ~ /\\/) { escaped = 1; continue }
			verb = line; sub(/ .*/, "", verb)
			p = substr(line, length(verb) + 3)
			why = ""
			if (verb == "keep" && (i = index(p, ": ")) > 0) {
				why = substr(p, i + 2)
				p = substr(p, 1, i - 1)
			}
			isdir = sub(/\/$/, "", p)
			p = real(p)
			said[p] = verb
			if (verb == "create") {
				if (p in b) bad(line ": was there before")
				if (!(p in a)) bad(line ": not there after")
				else if (isdir && a[p] !~ / d$/) bad(line ": not a directory")
			} else if (verb == "replace") {
				if (!(p in b) || !(p in a)) bad(line ": not there before and after")
				else if (b[p] == a[p]) bad(line ": unchanged")
			} else if (verb == "remove") {
				if (!(p in b)) bad(line ": was not there")
				if (p in a) bad(line ": still there")
			} else if (verb == "keep" && why ~ /^deleted since/) {
				if ((p in b) || (p in a)) bad(line ": there")
				if ((why ~ /goes to/) != ((p ".debunpack-dist") in a))
					bad(line ": the new version beside it or not")
			} else if (verb == "keep") {
				if (!(p in b) || !(p in a) || b[p] != a[p]) bad(line ": changed")
				if (why ~ /^changed since/ &&
				    (why ~ /goes to/) != ((p ".debunpack-dist") in a))
					bad(line ": the new version beside it or not")
			} else
				bad("unknown verdict: " line)
		}
		if (escaped) exit st
		for (p in a) {
			if (a[p] ~ / d$/ || p ~ /\.debunpack-dist$/) continue
			if (a[p] ~ / l$/ && p ~ /^(bin|sbin|lib[a-z0-9]*)$/) continue
			if (!(p in b) && said[p] != "create") bad(p ": made, no create line")
			if ((p in b) && b[p] != a[p] && said[p] != "replace")
				bad(p ": replaced, no replace line")
		}
		for (p in b)
			if (!(p in a) && said[p] != "remove" && said[p] != "replace")
				bad(p ": removed, no remove line")
		exit st
	}'
}

cases=0
# compare WHAT ROOT ARG...: the dry run, then the run, of "debunpack
# --root ROOT ARG...": same status, same standard error, nothing changed
# by the first, the verdicts true of the second.
compare() {
	c_what=$1 c_root=$2
	shift 2
	listing "$c_root" > "$T/l.before"
	snapshot "$c_root" "$T/s.before"
	changes "$c_root" > "$T/c.before"
	set +e
	"$DEBUNPACK" --root "$c_root" --dry-run "$@" > "$T/plan" 2> "$T/dry.err"
	dry_rc=$?
	set -e
	snapshot "$c_root" "$T/s.dry"
	diff -u "$T/s.before" "$T/s.dry" >&2 || fail "$c_what: the dry run changed the root"
	changes "$c_root" | diff -u "$T/c.before" - >&2 ||
	    fail "$c_what: the dry run touched the root"
	no_temps "$c_root"
	if [ -n "$ro" ]; then
		mount --bind "$c_root" "$ro" && mount -o remount,bind,ro "$ro" ||
		    fail "read-only bind mount"
		set +e
		"$DEBUNPACK" --root "$ro" --dry-run "$@" > "$T/plan.ro" 2> "$T/dry.ro"
		ro_rc=$?
		set -e
		umount "$ro"
		[ "$ro_rc" = "$dry_rc" ] && cmp -s "$T/plan" "$T/plan.ro" &&
		    cmp -s "$T/dry.err" "$T/dry.ro" ||
		    fail "$c_what: read-only, the dry run exits $ro_rc and says $(cat "$T/plan.ro" "$T/dry.ro")"
	fi
	set +e
	"$DEBUNPACK" --root "$c_root" "$@" > /dev/null 2> "$T/run.err"
	run_rc=$?
	set -e
	[ "$dry_rc" = "$run_rc" ] ||
	    fail "$c_what: the dry run exits $dry_rc, the run $run_rc: $(cat "$T/run.err" "$T/dry.err")"
	cmp -s "$T/dry.err" "$T/run.err" ||
	    fail "$c_what: the dry run said '$(cat "$T/dry.err")', the run '$(cat "$T/run.err")'"
	if [ "$run_rc" = 0 ]; then
		listing "$c_root" > "$T/l.after"
		check_plan "$T/plan" "$T/l.before" "$T/l.after" > "$T/check" ||
		    { cat "$T/plan" "$T/check" >&2; fail "$c_what: verdicts and the run differ"; }
	else
		[ ! -s "$T/plan" ] || [ -s "$T/dry.err" ] ||
		    fail "$c_what: failed without a word"
	fi
	cases=$((cases + 1))
}


# Every fixture into a new root, and over itself; the bad ones refused.
for desc in "$FIXTURES"/*.desc "$FIXTURES"/bad/*.desc; do
	name=$(basename "$desc" .desc)
	case $name in devices) is_root || continue ;; esac
	deb=$("$MKDEB" "$desc" "$T/$name.deb" 2>/dev/null && echo "$T/$name.deb") || continue
	rm -rf "$T/r"
	mkdir "$T/r"
	compare "$name" "$T/r" "$deb"
	compare "$name again" "$T/r" "$deb"
done
echo "ok fixtures ($cases runs)"

# An upgrade: replaced, removed and kept paths, a directory shared with
# another package, one that holds a file of nobody's, a directory and a
# file replacing each other, a changed conffile, a hardlink.
s1=$(make_pkg s 1 "dir ./shared/ 0755" "file ./shared/s 0644 text:s\\n")
a1=$(make_pkg a 1 "dir ./opt/ 0755" "dir ./opt/d/ 0755" "file ./opt/f 0644 text:f\\n" \
    "dir ./opt/gone/ 0755" "file ./opt/gone/x 0644 text:x\\n" \
    "dir ./opt/user/ 0755" "file ./opt/user/y 0644 text:y\\n" \
    "dir ./shared/ 0755" "file ./shared/a 0644 text:a\\n" \
    "dir ./etc/ 0755" "file ./etc/a.conf 0644 text:one\\n" \
    "control-file conffiles 0644 /etc/a.conf\\n" "file ./opt/old 0644 text:old\\n")
a2=$(make_pkg a 2 "dir ./opt/ 0755" "file ./opt/d 0644 text:now a file\\n" \
    "dir ./opt/f/ 0755" "file ./opt/f/in 0644 text:in\\n" \
    "dir ./etc/ 0755" "file ./etc/a.conf 0644 text:two\\n" \
    "control-file conffiles 0644 /etc/a.conf\\n" "file ./opt/new 0644 text:new\\n" \
    "hardlink ./opt/new2 ./opt/new")
rm -rf "$T/u"
mkdir "$T/u"
"$DEBUNPACK" -q --root "$T/u" "$s1" "$a1" || fail "install s 1, a 1"
echo mine > "$T/u/opt/user/mine"
echo changed > "$T/u/etc/a.conf"
compare "upgrade" "$T/u" "$a2"
grep -qx "keep /etc/a.conf: changed since it was installed, the new version goes to /etc/a.conf.debunpack-dist" "$T/plan" ||
    { cat "$T/plan"; fail "no kept conffile in the plan"; }
grep -qx "keep /shared: also in package 's'" "$T/plan" || { cat "$T/plan"; fail "shared directory"; }
grep -qx "keep /opt/user: not empty" "$T/plan" || { cat "$T/plan"; fail "non-empty directory"; }
grep -qx "remove /opt/gone" "$T/plan" || { cat "$T/plan"; fail "emptied directory"; }
# The same version again: the user's conffile stands, nothing beside it.
rm -f "$T/u/etc/a.conf.debunpack-dist"
compare "reinstall" "$T/u" "$a2"
grep -qx "keep /etc/a.conf: changed since it was installed" "$T/plan" ||
    { cat "$T/plan"; fail "reinstall: the conffile's verdict"; }
# A conffile the user deleted stays deleted; the new version beside it.
k1=$(make_pkg k 1 "dir ./etc/ 0755" "file ./etc/k.conf 0644 text:k1\\n" \
    "control-file conffiles 0644 /etc/k.conf\\n")
k2=$(make_pkg k 2 "dir ./etc/ 0755" "file ./etc/k.conf 0644 text:k2\\n" \
    "control-file conffiles 0644 /etc/k.conf\\n")
"$DEBUNPACK" -q --root "$T/u" "$k1" || fail "install k 1"
rm "$T/u/etc/k.conf"
compare "a deleted conffile" "$T/u" "$k2"
grep -qx "keep /etc/k.conf: deleted since it was installed, the new version goes to /etc/k.conf.debunpack-dist" "$T/plan" ||
    { cat "$T/plan"; fail "deleted conffile: its verdict"; }
echo "ok upgrade"

# Refusals decided at different depths: another package's file, a
# non-empty directory to become a file, and with --force-overwrite the
# takeover's warning.
b1=$(make_pkg b 1 "dir ./shared/ 0755" "file ./shared/s 0644 text:b\\n")
compare "conflict" "$T/u" "$b1"
[ "$run_rc" = 1 ] || fail "conflict: exit $run_rc"
compare "takeover" "$T/u" --force-overwrite "$b1"
grep -q "taken over from package 's'" "$T/run.err" || fail "takeover: $(cat "$T/run.err")"
c1=$(make_pkg c 1 "file ./opt/user 0644 text:no\\n")
compare "file over a full directory" "$T/u" "$c1"
[ "$run_rc" = 1 ] || fail "file over a full directory: exit $run_rc"
echo "ok refusals"

# Merged /usr: the package's bin/x is usr/bin/x.
m1=$(make_pkg m 1 "dir ./bin/ 0755" "file ./bin/m 0755 text:m\\n" \
    "dir ./usr/ 0755" "dir ./usr/bin/ 0755" "file ./usr/bin/n 0755 text:n\\n")
m2=$(make_pkg m 2 "dir ./usr/ 0755" "dir ./usr/bin/ 0755" "file ./usr/bin/m 0755 text:m2\\n")
rm -rf "$T/m"
mkdir "$T/m"
compare "merged /usr" "$T/m" --merged-usr "$m1"
[ -L "$T/m/bin" ] && [ -f "$T/m/usr/bin/m" ] || fail "merged /usr: no alias"
compare "merged /usr upgrade" "$T/m" "$m2"
# A package that ships the merged-/usr links itself (base-files does in
# trixie), after a file put through one of them.
ml=$(make_pkg ml 1 "dir ./usr/ 0755" "dir ./usr/bin/ 0755" \
    "file ./usr/bin/x 0755 text:x\\n" "symlink ./bin usr/bin" \
    "symlink ./sbin usr/sbin" "symlink ./lib usr/lib")
rm -rf "$T/m"
mkdir "$T/m"
compare "merged /usr links shipped" "$T/m" --merged-usr=yes "$ml"
[ "$run_rc" = 0 ] || fail "merged /usr links shipped: exit $run_rc"
echo "ok merged /usr"

# What the run puts in a directory makes it not empty in the plan as on
# disk: a file over a directory another package fills, and an old
# version's directory that another package refills.
e1=$(make_pkg ofill 1 "file ./opt/e/x 0644 text:x\\n")
e2=$(make_pkg ofile 1 "file ./opt/e 0644 text:e\\n")
d1=$(make_pkg oold 1 "dir ./opt/ 0755" "dir ./opt/d/ 0755" "file ./opt/d/x 0644 text:x\\n")
d2=$(make_pkg oold 2 "dir ./opt/ 0755")
d3=$(make_pkg orefill 1 "file ./opt/d/y 0644 text:y\\n")
rm -rf "$T/f"
mkdir -p "$T/f/opt/e"
compare "a file over a directory the run fills" "$T/f" "$e1" "$e2"
[ "$run_rc" = 1 ] || fail "a file over a directory the run fills: exit $run_rc"
"$DEBUNPACK" -q --root "$T/f" "$d1" || fail "install oold 1"
compare "a directory the run refills" "$T/f" "$d2" "$d3"
grep -qx "keep /opt/d: not empty" "$T/plan" || { cat "$T/plan"; fail "refilled directory"; }
echo "ok directories the run fills"

# dpkg's database: a path of a package dpkg installed, and an upgrade of
# that package, are refused by the dry run as by the run.
if command -v dpkg > /dev/null; then
	umask 022
	rm -rf "$T/d"
	empty_dpkg_db "$T/d"
	o1=$(make_pkg dpkgonly 1 "dir ./usr/ 0755" "dir ./usr/share/ 0755" \
	    "dir ./usr/share/ux/ 0755" "file ./usr/share/ux/shared 0644 text:o\\n")
	o2=$(make_pkg dpkgonly 2 "dir ./usr/ 0755" "dir ./usr/share/ 0755" \
	    "dir ./usr/share/ux/ 0755" "file ./usr/share/ux/shared 0644 text:o2\\n")
	g1=$(make_pkg grab 1 "dir ./usr/ 0755" "dir ./usr/share/ 0755" \
	    "dir ./usr/share/ux/ 0755" "file ./usr/share/ux/shared 0644 text:g\\n")
	dpkg_root "$T/d" -i "$o1"
	compare "a path dpkg owns" "$T/d" --dpkg-db "$g1"
	[ "$run_rc" = 1 ] || fail "a path dpkg owns: exit $run_rc"
	compare "a package dpkg installed" "$T/d" --dpkg-db "$o2"
	compare "a new package beside dpkg's" "$T/d" --dpkg-db "$s1"
	# A path dpkg-divert diverted: planned where the run puts it.
	v1=$(make_pkg divd 1 "dir ./usr/ 0755" "dir ./usr/bin/ 0755" \
	    "file ./usr/bin/divd 0755 text:d\\n")
	dpkg-divert --root="$T/d" --local --no-rename \
	    --divert /usr/bin/divd.local --add /usr/bin/divd > /dev/null ||
	    fail "dpkg-divert"
	compare "a diverted path" "$T/d" --dpkg-db "$v1"
	grep -qx "create /usr/bin/divd.local" "$T/plan" ||
	    { cat "$T/plan"; fail "a diverted path: not planned at its new name"; }
	# Paths the filters leave out: nothing planned, nothing made.
	f1=$(make_pkg filt 1 "dir ./usr/ 0755" "dir ./usr/share/ 0755" \
	    "dir ./usr/share/doc/ 0755" "dir ./usr/share/doc/filt/ 0755" \
	    "file ./usr/share/doc/filt/README 0644 text:r\\n" \
	    "file ./usr/share/doc/filt/copyright 0644 text:c\\n" \
	    "file ./usr/share/filt 0644 text:f\\n")
	compare "filtered paths" "$T/d" --dpkg-db \
	    --path-exclude='/usr/share/doc/*' \
	    --path-include='/usr/share/doc/*/copyright' "$f1"
	! grep -q README "$T/plan" && [ ! -e "$T/d/usr/share/doc/filt/README" ] ||
	    { cat "$T/plan"; fail "a filtered path planned or made"; }
	grep -qx "create /usr/share/doc/filt/copyright" "$T/plan" ||
	    { cat "$T/plan"; fail "an included path not planned"; }
	echo "ok dpkg's database"
fi
