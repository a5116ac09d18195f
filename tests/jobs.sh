#!/bin/sh
# SPDX-License-Identifier: MIT
# Decompressing in threads changes only the time: with any --jobs, the same
# tree, the same records, the same conflicts and the same messages as with
# one job, for packages of every compression in one run.
. "${srcdir:-.}/tests/lib.sh"

debs=""
for f in comp-xz comp-gz comp-zst comp-bz2 comp-lzma comp-none many alltypes pax; do
	debs="$debs $(build_deb $f)"
done
# A large member, decompressed in many blocks while the others queue.
big=$(make_pkg big 1 - <<'D'
compress data xz
dir ./usr/ 0755
dir ./usr/big/ 0755
gen 400 ./usr/big/f 0644 40000
D
)

# run NAME JOBS ARGS...: install into a fresh root, keep what it said.
run() {
	name=$1 njobs=$2
	shift 2
	rm -rf "$T/$name"; mkdir "$T/$name"
	rc=0
	"$DEBUNPACK" --root "$T/$name" --jobs "$njobs" "$@" > "$T/$name.out" \
	    2> "$T/$name.err" || rc=$?
	echo $rc > "$T/$name.rc"
}

# same A B: A and B ended alike, said the same and left the same root.
same() {
	cmp -s "$T/$1.rc" "$T/$2.rc" || fail "$1/$2: exit $(cat "$T/$1.rc") and $(cat "$T/$2.rc")"
	diff -u "$T/$1.err" "$T/$2.err" || fail "$1/$2: messages differ"
	snapshot "$T/$1" "$T/$1.list"
	snapshot "$T/$2" "$T/$2.list"
	# The admin directory and its parents are made at run time.
	for x in "$1" "$2"; do
		sed 's/^\(\.\/var[^ ]* [a-z] [0-7]* [0-9-]*\) [0-9.]*/\1/' "$T/$x.list" > "$T/$x.l"
	done
	diff -u "$T/$1.l" "$T/$2.l" || fail "$1/$2: trees differ"
}

for jobs in 2 3 8; do
	run one 1 $debs "$big"
	run many $jobs $debs "$big"
	[ "$(cat "$T/one.rc")" = 0 ] || fail "install: $(cat "$T/one.err")"
	same one many
	"$DEBUNPACK" --root "$T/many" --verify || fail "--jobs $jobs: verify"
	echo "ok --jobs $jobs: $(echo $debs | wc -w) packages and a large one, as with one job"
done

# A conflict found in the third package, while later ones are decompressed.
clash=$(make_pkg clash 1 - <<'D'
compress data gz
dir ./usr/ 0755
dir ./usr/big/ 0755
file ./usr/big/f00007 0644 text:mine\n
D
)
run one 1 "$big" $debs "$clash" $debs
run many 2 "$big" $debs "$clash" $debs
[ "$(cat "$T/one.rc")" = 1 ] || fail "conflict accepted: $(cat "$T/one.err")"
grep -q "also in package 'big'" "$T/one.err" || fail "conflict: $(cat "$T/one.err")"
same one many
[ -z "$(ls -A "$T/many")" ] || fail "conflict: root not restored"
echo "ok a conflict stops a run alike, with the packages after it in flight"

# A corrupt package among good ones, and a missing one.
cp "$big" "$T/cut.deb"
truncate -s $(( $(stat -c %s "$big") / 2 )) "$T/cut.deb"
run one 1 $debs "$T/cut.deb" "$big"
run many 2 $debs "$T/cut.deb" "$big"
[ "$(cat "$T/one.rc")" = 1 ] || fail "truncated package accepted"
same one many
run one 1 $debs "$T/nonexistent.deb"
run many 2 $debs "$T/nonexistent.deb"
same one many
echo "ok broken packages among good ones: same messages ($(cat "$T/many.err"))"

for bad in x 0 -1 65 2junk ""; do
	"$DEBUNPACK" --root "$T/one" --jobs "$bad" "$big" 2> "$T/err" && fail "--jobs '$bad' accepted"
	grep -q "jobs" "$T/err" || fail "--jobs '$bad': $(cat "$T/err")"
done
echo "ok bad --jobs values refused"
