#!/bin/sh
# SPDX-License-Identifier: MIT
# Multi-block xz data members, with and without sizes in the block headers:
# with any --jobs, the same tree, records, dpkg database, output and exit
# status, and the files dpkg-deb -x makes.  A broken block fails alike at
# every --jobs with one line naming the package and data.tar.xz, leaves the
# root as it was, and takes no more memory than a sound package does.
# Concatenated streams and stream padding are accepted or refused as
# dpkg-deb does, where it reads the whole member, else as xz does.
#
#   XZBLOCKS_VMEM_MIB=N   address space of the runs under ulimit -v (512)
. "${srcdir:-.}/tests/lib.sh"

command -v dpkg-deb > /dev/null || skip "dpkg-deb not installed"
command -v xz > /dev/null || skip "xz not installed (checks the fixtures)"
command -v ar > /dev/null || skip "ar not installed (reads the members)"

all_jobs="1 2 3 8"
vmem=${XZBLOCKS_VMEM_MIB:-512}
# A broken package may take this much more than a sound one of its size.
rss_slack=$((128 * 1024))

# desc FILE PKG SCALE [LINE...]: $T/FILE.deb, a package PKG whose data
# member holds SCALE times about 600 KB of random, repetitive and small
# files (30 small files per SCALE, whose headers and data straddle block
# boundaries), hardlinks, a symlink, an empty file and an empty directory;
# each LINE is added to the description (compression, blocks, damage).
desc() {
	d_file=$1 d_name=$2 d_scale=$3
	shift 3
	s=./usr/share/$d_name
	make_pkg -o "$d_file" -m "Test <t@example.org>" -d "multi-block xz" "$d_name" 1.0 \
	    "$@" \
	    "dir ./ 0755" \
	    "dir ./usr/ 0755" \
	    "dir ./usr/share/ 0755" \
	    "dir $s/ 0755" \
	    "file $s/random1 0644 size:$((d_scale * 150000))" \
	    "file $s/zeros 0644 fill:$((d_scale * 200000)):\\x00" \
	    "dir $s/small/ 0755" \
	    "gen $((d_scale * 30)) $s/small/f 0644 3000" \
	    "file $s/random2 0755 size:$((d_scale * 100000))" \
	    "file $s/text 0644 fill:$((d_scale * 70000)):a" \
	    "hardlink $s/random1.link $s/random1" \
	    "hardlink $s/small/f.link $s/small/f00010" \
	    "symlink $s/random2.sym random2" \
	    "dir $s/empty/ 0755" \
	    "file $s/nothing 0644 empty"
}

# blocks DEB: "BLOCKS STREAMS yes|no": the data member's blocks and
# streams as xz counts them, and whether the block headers hold sizes.
blocks() {
	ar p "$1" data.tar.xz > "$T/member.xz" || fail "$1: no data.tar.xz"
	xz --robot --list -vv "$T/member.xz" | awk -F '\t' '
		$1 == "totals" { b = $3; s = $2 }
		$1 == "summary" { h = $3 }
		END { print b, s, h }'
}

# run NAME JOBS ARGS...: debunpack -v --jobs JOBS ARGS... into a fresh
# root NAME; what it said and its exit status are kept beside it.
run() {
	r_name=$1 r_jobs=$2
	shift 2
	rm -rf "${T:?}/$r_name"
	mkdir "$T/$r_name"
	r_rc=0
	"$DEBUNPACK" -v --root "$T/$r_name" --jobs "$r_jobs" "$@" \
	    > "$T/$r_name.out" 2> "$T/$r_name.err" || r_rc=$?
	echo $r_rc > "$T/$r_name.rc"
}

# listing NAME [no]: snapshot of root NAME, without the times of what a
# run makes with its own time (records, dpkg's database, var and its
# parents); with "no", without the times of directories at all (those of
# a pre-populated root get new entries).
listing() {
	snapshot "$T/$1" "$T/$1.snap" "${2:-yes}"
	sed 's/^\(\.\/var[^ ]* [a-z] [0-7]* [0-9-]*\) [0-9.]*/\1/' "$T/$1.snap" > "$T/$1.list"
}

# same A B: runs A and B ended alike, said the same and left the same root.
same() {
	cmp -s "$T/$1.rc" "$T/$2.rc" ||
	    fail "$1/$2: exit $(cat "$T/$1.rc") and $(cat "$T/$2.rc")"
	diff -u "$T/$1.out" "$T/$2.out" || fail "$1/$2: standard output differs"
	diff -u "$T/$1.err" "$T/$2.err" || fail "$1/$2: messages differ"
	listing "$1"
	listing "$2"
	diff -u "$T/$1.list" "$T/$2.list" || fail "$1/$2: roots differ"
}

# --- Sound packages ---------------------------------------------------------

# Blocks of 256 KiB with sizes in their headers (xz -T2), of 1 MiB without
# (xz -T1) at dpkg-deb's level 6 and its 8 MiB dictionary, one block, and
# the small fixtures of the fuzz corpus.
multi=$(desc multi multi 10 "compress data xz 1" "xz-blocks data 262144")
nosz=$(desc nosz nosz 10 "compress data xz 6" "xz-blocks data 1048576 nosizes")
single=$(desc single single 2 "compress data xz 1" "xz-blocks data 67108864")
fix=$(build_deb xzblocks)
fixns=$(build_deb xzblocks-nosizes)
for d in "$multi:yes" "$nosz:no" "$fix:yes" "$fixns:no" "$single:yes"; do
	blocks "${d%:*}" > "$T/blocks"
	read -r nb ns sz < "$T/blocks"
	min=4
	[ "${d%:*}" != "$single" ] || min=1
	if [ "$nb" -lt $min ] || [ "$ns" != 1 ] || [ "$sz" != "${d##*:}" ]; then
		fail "${d%:*}: $nb blocks in $ns streams, sizes in headers: $sz"
	fi
	[ "${d%:*}" != "$single" ] || [ "$nb" = 1 ] || fail "$single: $nb blocks"
done
echo "ok fixtures: $(blocks "$multi" | cut -d' ' -f1) and" \
    "$(blocks "$nosz" | cut -d' ' -f1) blocks, sizes in the headers or not"

good="$multi $nosz $single $fix $fixns"
for jobs in $all_jobs; do
	run "g$jobs" "$jobs" $good
	run "db$jobs" "$jobs" --dpkg-db --sync-mode none $good
	[ "$(cat "$T/g$jobs.rc")" = 0 ] || fail "--jobs $jobs: $(cat "$T/g$jobs.err")"
	[ "$(cat "$T/db$jobs.rc")" = 0 ] || fail "--jobs $jobs --dpkg-db: $(cat "$T/db$jobs.err")"
	[ -s "$T/db$jobs/var/lib/dpkg/status" ] || fail "--dpkg-db: no status"
	if [ "$jobs" != 1 ]; then
		same g1 "g$jobs"
		same db1 "db$jobs"
		rm -rf "${T:?}/g$jobs" "${T:?}/db$jobs"
	fi
	"$DEBUNPACK" --root "$T/g1" --verify > /dev/null || fail "--verify"
	if [ "$jobs" = 1 ]; then
		echo "ok --jobs 1: installed, with --dpkg-db and without, and verified"
	else
		echo "ok --jobs $jobs: tree, records, dpkg database and messages as with --jobs 1"
	fi
done

mkdir "$T/ref"
for d in $good; do
	dpkg-deb -x "$d" "$T/ref" || fail "dpkg-deb -x $d"
done
for d in $good; do
	dpkg_same "$d" "$T/ref" "$T/g1"
done
no_temps "$T/g1"
echo "ok the files dpkg-deb -x makes"
rm -rf "${T:?}/ref" "${T:?}/g1" "${T:?}/db1"

# --- Memory ----------------------------------------------------------------

# ulimit -v counts every mapping (thread stacks, malloc arenas); under a
# sanitizer the shadow memory alone is terabytes, and RSS says little.
mem=yes
# ulimit -v is not POSIX, but dash, bash and busybox sh have it.
# shellcheck disable=SC3045
if grep -q -e __asan_init -e __tsan_init -e __msan_init "$DEBUNPACK" 2> /dev/null; then
	mem=no
	echo "# memory not checked: debunpack is built with a sanitizer"
elif ! (ulimit -v $((vmem * 1024))) 2> /dev/null; then
	mem=no
	echo "# memory not checked: this shell has no ulimit -v"
fi
rss=no
if [ $mem = yes ]; then
	if /usr/bin/time -f %M -o "$T/rss" true 2> /dev/null; then
		rss=yes
	else
		echo "# peak RSS not measured: no GNU time (apt-get install time)"
	fi
fi

# go NAME HOW JOBS ARGS...: debunpack --root NAME --jobs JOBS ARGS...,
# the root made ready by the caller; HOW is "free", or "limit" for
# ulimit -v.  Its output, messages, exit status and peak RSS in KiB (0
# when not measured) are kept beside the root.
go() {
	g_name=$1 g_how=$2 g_jobs=$3
	shift 3
	set -- "$DEBUNPACK" --root "$T/$g_name" --jobs "$g_jobs" "$@"
	[ $rss = no ] || set -- /usr/bin/time -f %M -o "$T/$g_name.rss" "$@"
	g_rc=0
	if [ "$g_how" = limit ]; then
		# shellcheck disable=SC3045
		(ulimit -v $((vmem * 1024)) && exec "$@") \
		    > "$T/$g_name.out" 2> "$T/$g_name.err" || g_rc=$?
	else
		"$@" > "$T/$g_name.out" 2> "$T/$g_name.err" || g_rc=$?
	fi
	echo $g_rc > "$T/$g_name.rc"
	# GNU time says first when the command failed; the number is last.
	if [ $rss = yes ]; then
		tail -n 1 "$T/$g_name.rss" > "$T/$g_name.rss.n"
		mv "$T/$g_name.rss.n" "$T/$g_name.rss"
	else
		echo 0 > "$T/$g_name.rss"
	fi
}

# A root that already holds a package, and a sound package installed in
# the same run as each broken one: neither may land.
pre=$(desc pre pre 1 "compress data xz 1")
mate=$(desc mate mate 1 "compress data xz 1" "xz-blocks data 262144")
mkdir "$T/pre"
"$DEBUNPACK" -q --root "$T/pre" "$pre" || fail "install of $pre"
snapshot "$T/pre" "$T/pre.snap"

# prepop NAME HOW JOBS DEB: go, into a copy of the pre-populated root,
# with the mate and DEB.
prepop() {
	rm -rf "${T:?}/$1"
	cp -a "$T/pre" "$T/$1"
	go "$1" "$2" "$3" --sync-mode none "$mate" "$4"
}

# bdesc FILE LINE...: $T/FILE.deb, package sound with LINEs: about 2.4 MB
# of tar, 10 blocks of 256 KiB.
bdesc() {
	b_file=$1
	shift
	desc "$b_file" sound 4 "compress data xz 1" "$@"
}
sound=$(bdesc sound "xz-blocks data 262144")
# The files of the sound package are the ones dpkg-deb -x makes.
mkdir "$T/sref" "$T/sroot"
dpkg-deb -x "$sound" "$T/sref" || fail "dpkg-deb -x $sound"
"$DEBUNPACK" -q --root "$T/sroot" --sync-mode none "$sound" || fail "install of $sound"
dpkg_same "$sound" "$T/sref" "$T/sroot"
rm -rf "${T:?}/sref" "${T:?}/sroot"
dpkg-deb --fsys-tarfile "$sound" > "$T/sound.tar"

# What it takes, at every --jobs; and the root it leaves, which a broken
# package that is accepted must leave too.
sound_rss=""
for jobs in $all_jobs; do
	prepop s free "$jobs" "$sound"
	[ "$(cat "$T/s.rc")" = 0 ] || fail "sound: $(cat "$T/s.err")"
	cp "$T/s.rss" "$T/sound.rss.$jobs"
	sound_rss="$sound_rss $(cat "$T/s.rss")"
	listing s no
	cp "$T/s.list" "$T/s.list.$jobs"
	cmp -s "$T/s.list.1" "$T/s.list.$jobs" || fail "sound: --jobs $jobs makes another root"
	if [ $mem = yes ]; then
		prepop sl limit "$jobs" "$sound"
		[ "$(cat "$T/sl.rc")" = 0 ] ||
		    fail "--jobs $jobs: a sound run does not fit in $vmem MiB of address space: $(cat "$T/sl.err")"
		listing sl no
		diff -u "$T/s.list" "$T/sl.list" || fail "--jobs $jobs: under ulimit -v, another root"
	fi
done
[ $mem = no ] || echo "ok a sound package of 10 blocks at every --jobs in $vmem MiB of address space" \
    "(peak RSS in KiB with --jobs $all_jobs:$sound_rss)"

# --- Broken blocks ----------------------------------------------------------

# From here on a broken rule is a problem and the test goes on, so that one
# run shows every broken rule; it fails at the end.
problems=0
problem() {
	echo "FAIL: $*" >&2
	problems=$((problems + 1))
}

# shape RUN DEB WHAT: the message of RUN is one line naming DEB and the
# member, with a cause after it.
shape() {
	sh_base=$(basename "$2")
	[ "$(wc -l < "$T/$1.err")" = 1 ] ||
	    { problem "$3: not one line: $(cat "$T/$1.err")"; return; }
	grep -q '^debunpack: ' "$T/$1.err" ||
	    problem "$3: no 'debunpack: ' prefix: $(cat "$T/$1.err")"
	grep -qF "$sh_base" "$T/$1.err" ||
	    problem "$3: package not named: $(cat "$T/$1.err")"
	grep -q 'data\.tar\.xz.*: [^ ]' "$T/$1.err" ||
	    problem "$3: data.tar.xz and a cause not said: $(cat "$T/$1.err")"
}

# unchanged RUN WHAT: root RUN is the pre-populated root, exactly.
unchanged() {
	snapshot "$T/$1" "$T/$1.after"
	diff -u "$T/pre.snap" "$T/$1.after" > "$T/$1.diff" ||
	    { cat "$T/$1.diff" >&2; problem "$2: root changed"; }
	left=$(find "$T/$1" -name '*.debunpack-*' -o -name '.debunpack-*')
	[ -z "$left" ] || problem "$2: left behind: $left"
}

# rss_ok RUN JOBS WHAT: RUN took at most rss_slack more than a sound run.
rss_ok() {
	[ $rss = yes ] || return 0
	ro_base=$(cat "$T/sound.rss.$2")
	ro_got=$(cat "$T/$1.rss")
	[ "$ro_got" -le $((ro_base + rss_slack)) ] ||
	    problem "$3: peak RSS $ro_got KiB, a sound package takes $ro_base KiB"
}

# broken NAME LINE...: the sound package with LINEs fails at every --jobs
# with one line and changes nothing, in bounded memory: each run under
# ulimit -v, and once more without at the most --jobs, which must end alike.
broken() {
	b_what=$1 b_before=$problems
	deb=$(bdesc "$@")
	b_how=free
	[ $mem = no ] || b_how=limit
	for jobs in $all_jobs; do
		w="$b_what (--jobs $jobs)"
		prepop b $b_how "$jobs" "$deb"
		[ "$(cat "$T/b.rc")" = 1 ] ||
		    problem "$w: exit $(cat "$T/b.rc"), want 1: $(cat "$T/b.err")"
		[ ! -s "$T/b.out" ] || problem "$w: said on stdout: $(cat "$T/b.out")"
		shape b "$deb" "$w"
		unchanged b "$w"
		rss_ok b "$jobs" "$w"
		cp "$T/b.err" "$T/b.err.$jobs"
		cp "$T/b.rc" "$T/b.rc.$jobs"
	done
	if [ $mem = yes ]; then
		prepop b free "$jobs" "$deb"
		{ cmp -s "$T/b.rc" "$T/b.rc.$jobs" && cmp -s "$T/b.err" "$T/b.err.$jobs"; } ||
		    problem "$w: without ulimit -v: exit $(cat "$T/b.rc"): $(cat "$T/b.err")"
		unchanged b "$w, without ulimit -v"
		rss_ok b "$jobs" "$w, without ulimit -v"
	fi
	for jobs in $all_jobs; do
		cmp -s "$T/b.err.1" "$T/b.err.$jobs" ||
		    echo "# $b_what: --jobs $jobs says: $(cat "$T/b.err.$jobs")"
	done
	[ $problems != "$b_before" ] || echo "ok $b_what: $(cat "$T/b.err.1")"
}

broken corrupt "xz-blocks data 262144" "xz-damage data middle corrupt"
broken corrupt-nosizes "xz-blocks data 262144 nosizes" \
    "xz-damage data middle corrupt"
broken cut "xz-blocks data 262144" "xz-damage data last cut"
broken cut-nosizes "xz-blocks data 262144 nosizes" "xz-damage data last cut"
# 64 GiB, in the first block and in one in the middle.
broken usize-first "xz-blocks data 262144" "xz-damage data 0 usize 68719476736"
broken usize "xz-blocks data 262144" "xz-damage data middle usize 68719476736"
broken usize-nosizes "xz-blocks data 262144 nosizes" \
    "xz-damage data middle usize 68719476736"

# A dictionary larger than the encoder's is valid xz: dpkg-deb reads such
# a member, and so may debunpack (with the files of the sound package); a
# decoder may refuse it for the memory it would take, with one line.
# Either way the memory actually taken is bounded.
for v in "middle dict 37" "0 dict 40"; do
	what="dict ${v##* }" d_before=$problems
	deb=$(bdesc "dict${v##* }" "xz-blocks data 262144" "xz-damage data $v")
	dpkg-deb --fsys-tarfile "$deb" 2> "$T/dict.err" | cmp -s - "$T/sound.tar" ||
	    problem "$what: dpkg-deb does not read the sound package's tar: $(cat "$T/dict.err")"
	: > "$T/said"
	for jobs in $all_jobs; do
		for how in free limit; do
			[ $how = limit ] && [ $mem = no ] && continue
			w="$what (--jobs $jobs, $how)"
			prepop d $how "$jobs" "$deb"
			case $(cat "$T/d.rc") in
			0)
				listing d no
				diff -u "$T/s.list" "$T/d.list" ||
				    problem "$w: accepted, but not as the sound package"
				echo "$how: accepted" >> "$T/said" ;;
			1)
				shape d "$deb" "$w"
				unchanged d "$w"
				echo "$how: refused ($(cat "$T/d.err"))" >> "$T/said" ;;
			*)
				problem "$w: exit $(cat "$T/d.rc"): $(cat "$T/d.err")" ;;
			esac
			rss_ok d "$jobs" "$w"
		done
	done
	# How many runs of the eight ended how.
	[ $problems != "$d_before" ] ||
	    echo "ok $what, valid xz that asks for a large dictionary:" \
	    "$(sort "$T/said" | uniq -c | sed 's/^ *//' | paste -s -d ';' -)"
done

# --- Concatenated streams and stream padding --------------------------------

# verdict DEB: what dpkg-deb -x makes of DEB, and what xz -t makes of its
# data member: "accepted" or "refused" each.
verdict() {
	rm -rf "${T:?}/vref"
	mkdir "$T/vref"
	if dpkg-deb -x "$1" "$T/vref" > /dev/null 2>&1; then v_dpkg=accepted; else v_dpkg=refused; fi
	rm -rf "${T:?}/vref"
	ar p "$1" data.tar.xz > "$T/member.xz"
	if xz -t "$T/member.xz" 2> /dev/null; then v_xz=accepted; else v_xz=refused; fi
}

# stream NAME LINE...: the sound package with LINEs, accepted or refused
# as dpkg-deb does, else (dpkg-deb reads the first stream only) as xz
# does, alike at every --jobs.
stream() {
	s_what=$1 s_before=$problems
	deb=$(bdesc "$@")
	verdict "$deb"
	# What dpkg-deb accepts, it reads as the sound package.
	if [ $v_dpkg = accepted ]; then
		dpkg-deb --fsys-tarfile "$deb" | cmp -s - "$T/sound.tar" ||
		    problem "$s_what: dpkg-deb does not read the sound package's tar"
	fi
	want=$v_dpkg
	note=""
	if [ $v_dpkg != $v_xz ]; then
		want=$v_xz
		note=" (dpkg-deb -x $v_dpkg it: it reads the first stream only)"
	fi
	for jobs in $all_jobs; do
		w="$s_what (--jobs $jobs)"
		prepop t free "$jobs" "$deb"
		case $want:$(cat "$T/t.rc") in
		accepted:0)
			listing t no
			diff -u "$T/s.list" "$T/t.list" ||
			    problem "$w: not the files of the sound package" ;;
		refused:1)
			shape t "$deb" "$w"
			unchanged t "$w" ;;
		*)
			problem "$w: exit $(cat "$T/t.rc"), want $want: $(cat "$T/t.err")" ;;
		esac
		cp "$T/t.err" "$T/t.err.$jobs"
	done
	for jobs in $all_jobs; do
		cmp -s "$T/t.err.1" "$T/t.err.$jobs" ||
		    echo "# $s_what: --jobs $jobs says: $(cat "$T/t.err.$jobs")"
	done
	[ $problems != "$s_before" ] ||
	    echo "ok $s_what: $want$note$(sed 's/^/: /' "$T/t.err.1")"
}

stream padding "xz-blocks data 262144" "xz-padding data 8"
stream empty-stream "xz-blocks data 262144 nosizes" "xz-split data end" \
    "xz-padding data 4"
stream two-streams "xz-blocks data 262144" "xz-split data middle"
stream two-streams-padded "xz-blocks data 262144 nosizes" "xz-split data 3" \
    "xz-padding data 12"
stream bad-padding "xz-blocks data 262144" "xz-padding data 3"

[ $problems = 0 ] || fail "$problems problems"
