#!/bin/sh
# SPDX-License-Identifier: MIT
# Reads never write.  Every query (--list, --owner, --files, --verify, in
# each format) and a dry run answer the same through a read-only bind
# mount and as a user who may only read the root as on the root itself,
# and leave every change time in it as it was; a journal left by a killed
# run is told of, never repaired, and the answers are the committed state.
# Needs root (a bind mount, another user): SKIP otherwise.
. "${srcdir:-.}/tests/lib.sh"

is_root || skip "needs root for a read-only bind mount and another user"
command -v setpriv > /dev/null || skip "no setpriv"

# changes ROOT: every path with its change and modification times.
changes() {
	(cd "$1" && find . -printf '%C@ %T@ %p\n') | LC_ALL=C sort -k3
}


# Readable by anyone: the other user reads the root and the packages.
chmod 755 "$T"
umask 022
a1=$(make_pkg a 1 "dir ./etc/ 0755" "file ./etc/a.conf 0644 text:one\\n" \
    "control-file conffiles 0644 /etc/a.conf\\n" "dir ./usr/ 0755" \
    "dir ./usr/bin/ 0755" "file ./usr/bin/a 0755 text:a\\n" \
    "file ./usr/bin/old 0755 text:old\\n")
a2=$(make_pkg a 2 "dir ./etc/ 0755" "file ./etc/a.conf 0644 text:two\\n" \
    "control-file conffiles 0644 /etc/a.conf\\n" "dir ./usr/ 0755" \
    "dir ./usr/bin/ 0755" "file ./usr/bin/a 0755 text:a2\\n" \
    "dir ./usr/share/ 0755" "dir ./usr/share/a/ 0755" "file ./usr/share/a/new 0644 text:n\\n")
b1=$(make_pkg b 1 "dir ./usr/ 0755" "dir ./usr/bin/ 0755" "file ./usr/bin/b 0755 text:b\\n")
chmod 644 "$T"/*.deb

R=$T/root
mkdir "$R"
"$DEBUNPACK" -q --root "$R" --dpkg-db "$a1" "$b1" || fail "install a 1, b 1"
echo changed > "$R/etc/a.conf"
echo gone > "$R/usr/bin/b"

ro=$T/ro
mkdir "$ro"
cleanup_hooks="umount -l '$ro' 2>/dev/null; $cleanup_hooks"
mount --bind "$R" "$ro" && mount -o remount,bind,ro "$ro" || fail "read-only bind mount"

# ask WHAT ARG...: the answer (output, error, status) of "debunpack ARG..."
# on the root, through the read-only mount and as nobody is the same, and
# none of them changed a time in the root (--verify's output aside: only
# root checks owners).
ask() {
	a_what=$1
	shift
	changes "$R" > "$T/c.before"
	for how in rw ro user; do
		case $how in
		rw) set -- --root "$R" "$@"; run="" ;;
		ro) set -- --root "$ro" "$@"; run="" ;;
		user) set -- --root "$R" "$@"
			run="setpriv --reuid=nobody --regid=nogroup --clear-groups" ;;
		esac
		set +e
		$run "$DEBUNPACK" "$@" > "$T/out.$how" 2> "$T/err.$how"
		echo $? > "$T/rc.$how"
		set -e
		shift 2
		sed -i "s|$ro|$R|g" "$T/out.$how" "$T/err.$how"
	done
	for how in ro user; do
		for f in out err rc; do
			# Owners are checked by root alone: --verify's columns.
			case "$how $f $a_what" in "user out --verify"*) continue ;; esac
			cmp -s "$T/$f.rw" "$T/$f.$how" ||
			    fail "$a_what ($how): $f differs: $(cat "$T/$f.rw") / $(cat "$T/$f.$how")"
		done
	done
	changes "$R" | diff -u "$T/c.before" - >&2 || fail "$a_what changed the root"
}

for q in "--list" "--list --json" "--owner /usr/bin/a" "--owner --json /etc/a.conf" \
    "--owner */bin/*" "--files a" "--verify" "--verify --json" \
    "--verify --verify-format=rpm" "--verify a"; do
	# shellcheck disable=SC2086 # Q holds the options and operands
	ask "$q" $q
done
grep -q '/etc/a.conf' "$T/out.rw" && ! grep -q '/usr/bin/b' "$T/out.rw" ||
    fail "--verify a: not its problems: $(cat "$T/out.rw")"
ask "an upgrade's dry run" --dry-run --dpkg-db "$a2"
grep -qx "keep /etc/a.conf: changed since it was installed, the new version goes to /etc/a.conf.debunpack-dist" "$T/out.rw" ||
    fail "dry run: $(cat "$T/out.rw")"
grep -qx "create /usr/share/a/new" "$T/out.rw" || fail "dry run: $(cat "$T/out.rw")"
grep -qx "remove /usr/bin/old" "$T/out.rw" || fail "dry run: $(cat "$T/out.rw")"
ask "a removal's dry run" --dry-run --dpkg-db --no-scripts --remove b
[ "$(cat "$T/rc.rw")" = 0 ] || fail "removal's dry run: $(cat "$T/err.rw")"
echo "ok queries and dry runs read only"

# A new root that cannot be written: the dry run plans every directory,
# merged /usr's links and dpkg's database, and says what the run does.
N=$T/new
mkdir "$N"
umount "$ro"
mount --bind "$N" "$ro" && mount -o remount,bind,ro "$ro" || fail "read-only bind mount"
"$DEBUNPACK" --root "$ro" --dry-run --dpkg-db --merged-usr=yes "$a2" "$b1" \
    > "$T/plan.ro" 2> "$T/err" || fail "dry run of a new read-only root: $(cat "$T/err")"
[ -z "$(ls -A "$N")" ] || fail "the new root got $(ls -A "$N")"
"$DEBUNPACK" -q --root "$N" --dpkg-db --merged-usr=yes "$a2" "$b1" || fail "the run"
"$DEBUNPACK" --root "$T/new2" --dry-run --dpkg-db "$a2" > /dev/null 2>&1 &&
    fail "a dry run of a missing root succeeded"
for p in /etc/ /etc/a.conf /usr/bin/a /usr/bin/b /usr/share/a/new; do
	grep -qx "create $p" "$T/plan.ro" || fail "no 'create $p' in $(cat "$T/plan.ro")"
done
[ -L "$N/bin" ] && [ -f "$N/var/lib/dpkg/status" ] || fail "the run made no merged /usr or status"
echo "ok a new read-only root"

# A run killed half way leaves its journal: a query says so, answers from
# the state before it and leaves it for --recover; a dry run refuses.
umount "$ro"
command -v strace > /dev/null || { echo "no strace: journal part skipped"; exit 0; }
"$DEBUNPACK" --root "$R" --list > "$T/list.before" 2> /dev/null
(strace -qq -o /dev/null -e inject=renameat:signal=KILL:when=2 \
    "$DEBUNPACK" -q --root "$R" --dpkg-db --sync-mode none "$a2") 2> /dev/null || true
[ -f "$R/var/lib/debunpack/journal" ] || fail "no journal left by the killed run"
mount --bind "$R" "$ro" && mount -o remount,bind,ro "$ro" || fail "read-only bind mount"
ask "a query with a journal" --list
cmp -s "$T/list.before" "$T/out.rw" || fail "--list with a journal: $(cat "$T/out.rw")"
grep -q "awaits its repair ('debunpack --recover')" "$T/err.rw" || fail "no word of the journal: $(cat "$T/err.rw")"
# A dry run cannot say what the run would do before the repair made the
# files what it plans from: refused, in the same line everywhere.
ask "a dry run with a journal" --dry-run --dpkg-db "$a2"
[ "$(cat "$T/rc.rw")" = 1 ] || fail "dry run with a journal: exit $(cat "$T/rc.rw")"
grep -q "awaits its repair, which a dry run does not make: 'debunpack --recover' repairs it" "$T/err.rw" ||
    fail "dry run: $(cat "$T/err.rw")"
[ -f "$R/var/lib/debunpack/journal" ] || fail "the journal went"
"$DEBUNPACK" --root "$ro" --recover > /dev/null 2> "$T/err" && fail "--recover on a read-only mount succeeded"
"$DEBUNPACK" --root "$R" --recover 2> "$T/err" || fail "--recover: $(cat "$T/err")"
[ ! -f "$R/var/lib/debunpack/journal" ] || fail "--recover left the journal"
echo "ok a journal left to repair"
