#!/bin/sh
# SPDX-License-Identifier: MIT
# Every difference between the minbase (or buildd) root debunpack builds (--dpkg-db
# --run-preinst, dpkg --configure -a) and the one mmdebstrap builds from the
# same .debs, both durable, on one fresh filesystem: paths, types, modes,
# owners, link targets, sizes and hashes, then var/lib/dpkg/status stanza by
# stanza and var/lib/dpkg/info file by file. Each difference is classified:
# expected-variable (machine-id, caches, logs, *-old), mmdebstrap setup
# extras, debunpack's own records, or real.
# usage: bench/rootdiff.sh [-f FS] [-c CACHE] [-b DEBUNPACK] [-t TMPDIR]
#                          [-o OUTFILE] [-k] [-s debunpack|bootstrap]
#                          [-w minbase|buildd] [-a ARCH]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/rootlib.sh"
fs=ext4 bin="" cache=/var/cache/debunpack-bench tmpdir=/var/tmp outfile="" keep=""
side=debunpack
usage() {
	cat >&2 <<EOF
usage: $0 [-f FS] [-c CACHE] [-b DEBUNPACK] [-t TMPDIR] [-o OUTFILE] [-k]
          [-s debunpack|bootstrap] [-w minbase|buildd] [-a ARCH]
  -f  filesystem of the image both roots are built on (default ext4)
  -c  package cache (default /var/cache/debunpack-bench; CACHE/WORKLOAD)
  -b  debunpack binary (default build/debunpack)
  -t  where the image and the mirror go (default /var/tmp)
  -o  report file (default bench/results/rootdiff-DATE.txt)
  -k  keep the image mounted afterwards (the commands to remove it are printed)
  -s  debunpack's side: the two-command flow (debunpack, the default) or
      debunpack-bootstrap --variant=WORKLOAD (bootstrap), beside the build
  -w  the root: minbase (default) or buildd, the variant of that name from
      the packages of bench/workloads/WORKLOAD.list
  -a  roots of architecture ARCH, as bench/rootbuild.sh -a builds them
EOF
	exit 2
}
workload=minbase arch=""
while getopts f:c:b:t:o:ks:w:a: o; do
	case $o in
	f) fs=$OPTARG ;;
	c) cache=$OPTARG ;;
	b) bin=$OPTARG ;;
	t) tmpdir=$OPTARG ;;
	o) outfile=$OPTARG ;;
	k) keep=1 ;;
	s) side=$OPTARG ;;
	w) workload=$OPTARG ;;
	a) arch=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $side in debunpack | bootstrap) ;; *) usage ;; esac
case $workload in minbase | buildd) ;; *) usage ;; esac
RB_VARIANT=$workload RB_ARCH=$arch
export RB_VARIANT RB_ARCH
[ "$(id -u)" = 0 ] || { echo "$0: needs root" >&2; exit 1; }
rb_need
[ -n "$bin" ] || bin=$top/build/debunpack
rb_can_debunpack "$bin" || { echo "$0: $bin has no --dpkg-db/--run-preinst" >&2; exit 1; }
[ -n "$outfile" ] || outfile=$top/bench/results/rootdiff-$(date +%Y%m%d-%H%M%S).txt

work=$(mktemp -d "$tmpdir/debunpack-rootdiff.XXXXXX")
mnt=/mnt/bench-root-$$ rb_loop=""
cleanup() {
	if [ -n "$keep" ] && mountpoint -q "$mnt"; then
		echo "rootdiff: kept: roots in $mnt/debunpack and $mnt/mmdebstrap; remove with"
		echo "  umount -R $mnt && losetup -d $rb_loop && rmdir $mnt && rm -rf $work"
		return
	fi
	rb_work_down "$work" "$mnt"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cp "$bin" "$work/debunpack"
RB_BOOTSTRAP=$(dirname "$bin")/debunpack-bootstrap
RB_NOSYNC=$(dirname "$bin")/debunpack-nosync
export RB_BOOTSTRAP RB_NOSYNC
sh "$top/bench/fetch.sh" -c "$cache" ${arch:+-a "$arch"} "$workload" > /dev/null
dir=$cache/$workload${arch:+-$arch}
rb_mirror "$dir" "$work/mirror"
rb_want "$dir" > "$work/want"
rb_fs_up "$fs" "$work/img" "$mnt"
D=$mnt/debunpack M=$mnt/mmdebstrap
mkdir "$D" "$M"
# mtimes later than this were set while building: not compared.
start=$(date '+%Y-%m-%d %H:%M:%S')
for m in debunpack mmdebstrap; do
	bm=$m
	[ $m = mmdebstrap ] || bm=$side
	if ! rb_build "$bm-durable" "$mnt/$m" "$dir" "$work/mirror" "$work/debunpack" \
	    > "$work/$m.log" 2>&1 3> /dev/null; then
		echo "rootdiff: $m failed; last lines of its output:" >&2
		tail -n 20 "$work/$m.log" >&2
		exit 1
	fi
done

# manifest ROOT: one line per path, sorted: path, type, mode, uid:gid, then
# per type what identifies the content (regular: size, sha256 and link
# count; symlink: target; device: major,minor) and last the mtime.
manifest() {
	(cd "$1" && find . -xdev -mindepth 1 -type f -print0 | xargs -0r sha256sum) |
	    sed 's|^\([0-9a-f]*\)  \./|\1\t|' > "$work/hashes"
	(cd "$1" && find . -xdev -mindepth 1 \( -type b -o -type c \) -exec stat -c '%n	%t,%T' {} +) |
	    sed 's|^\./||' > "$work/devs"
	(cd "$1" && find . -xdev -mindepth 1 -printf '%P\t%y\t%m\t%U:%G\t%s\t%l\t%n\t%TY-%Tm-%Td %TT\n') |
	    awk -F'\t' -v OFS='\t' '
		FILENAME == ARGV[1] { h[$2] = $1; next }
		FILENAME == ARGV[2] { dv[$1] = $2; next }
		{
			if ($2 == "f") c = "size=" $5 " sha256=" substr(h[$1], 1, 16) " links=" $7
			else if ($2 == "l") c = "-> " $6
			else if ($2 == "b" || $2 == "c") c = "dev=" dv[$1]
			else c = ""
			print $1, $2, $3, $4, c, substr($8, 1, 19)
		}' "$work/hashes" "$work/devs" - | LC_ALL=C sort
}
manifest "$D" > "$work/D.man"
manifest "$M" > "$work/M.man"

# The classes, by path (relative to the root). The mirror's path is what the
# file-mirror-automount hook bind-mounted and left as empty directories.
mirror_rel=${work#/}/mirror
classify() {
	awk -F'\t' -v OFS='\t' -v mirror="$mirror_rel" '
	function cls(p) {
		if (p ~ /^etc\/machine-id$|^var\/lib\/dbus\/machine-id$|^etc\/ld\.so\.cache$|^var\/cache\/ldconfig(\/|$)|^var\/log\/|^var\/cache\/debconf\/.*-old$|^var\/lib\/dpkg\/.*-old$/)
			return "variable"
		if (p ~ /^var\/lib\/debunpack(\/|$)/)
			return "debunpack"
		if (p ~ /^etc\/apt\/sources\.list$|^etc\/fstab$|^etc\/apt\/apt\.conf\.d\/99mmdebstrap$|^etc\/dpkg\/dpkg\.cfg\.d\/99mmdebstrap$|^etc\/resolv\.conf$|^etc\/hostname$|^dev\/|^var\/lib\/apt\/|^var\/cache\/apt\/|^var\/lib\/dpkg\/arch$/)
			return "mmdebstrap"
		if (index(mirror "/", p "/") == 1 && p ~ /^var\/tmp\/./)
			return "mmdebstrap"
		return "real"
	}
	{ print cls($1), $0 }'
}

# The comparison: a line per path that differs in anything but mtime, and
# a line per regular file or symlink whose mtime alone differs.
LC_ALL=C join -t "$(printf '\t')" -a 1 -a 2 -e '' -o 0,1.2,1.3,1.4,1.5,1.6,2.2,2.3,2.4,2.5,2.6 \
    "$work/D.man" "$work/M.man" |
    awk -F'\t' -v OFS='\t' -v start="$start" '
	{
		p = $1
		d = $2 == "" ? "" : $2 " " $3 " " $4 " " $5
		m = $7 == "" ? "" : $7 " " $8 " " $9 " " $10
		if ($2 == "") { print p, "only-mmdebstrap", m; next }
		if ($7 == "") { print p, "only-debunpack", d; next }
		if ($2 == "d" && $7 == "d") { d = $2 " " $3 " " $4; m = $7 " " $8 " " $9 }
		else if ($2 == "f" && $7 == "f") {
			# Link counts differ when one side has hardlinks the other
			# has as copies: reported, but as its own kind.
			dd = d; mm = m; sub(/ links=[0-9]+/, "", dd); sub(/ links=[0-9]+/, "", mm)
			if (dd == mm && d != m) { print p, "links", "debunpack: " d, "mmdebstrap: " m; next }
		}
		if (d != m) { print p, "differs", "debunpack: " d, "mmdebstrap: " m; next }
		if ($6 != $11 && $2 != "d") {
			if ($6 < start || $11 < start) print p, "mtime", "debunpack: " $6, "mmdebstrap: " $11
			else print p, "mtime-build"
		}
	}' | classify > "$work/diff"

# text_diff FILE: the first lines of a unified diff of FILE between the roots.
text_diff() {
	if [ -f "$D/$1" ] && [ -f "$M/$1" ] && grep -Iq . "$D/$1" && grep -Iq . "$M/$1"; then
		diff -u --label "debunpack/$1" --label "mmdebstrap/$1" "$D/$1" "$M/$1" |
		    sed -n '3,120p' | sed 's/^/      /'
	fi
}

report() {
	echo "rootdiff: the $workload${arch:+ $arch} root of debunpack against mmdebstrap's, same $(wc -l < "$work/want") .debs, both durable, on $fs"
	echo
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "checkout: $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "debunpack: $bin: $("$work/debunpack" --version 2>/dev/null | head -n 1)"
	echo "mmdebstrap: $(mmdebstrap --version)"
	if [ "$side" = bootstrap ]; then
		echo "debunpack root:  unshare -n debunpack-bootstrap -v --variant=$workload${arch:+ --architectures=$arch} '' R 'deb [trusted=yes] file:/$mirror_rel ./' && sync -f R"
	else
		echo "debunpack root:  debunpack --root R --dpkg-db --run-preinst DEBS && chroot R dpkg --refuse-unsafe-io --configure -a && sync -f R"
	fi
	echo "mmdebstrap root: unshare -n mmdebstrap --mode=root --variant=$workload${arch:+ --architectures=$arch} --format=directory --hook-dir=$MMHOOKS/merged-usr --hook-dir=$MMHOOKS/file-mirror-automount '' R 'deb [trusted=yes] file:/$mirror_rel ./' && sync -f R"
	for m in debunpack mmdebstrap; do
		rb_installed "$mnt/$m" > "$work/$m.have"
		if cmp -s "$work/want" "$work/$m.have"; then
			echo "$m: all $(wc -l < "$work/want") packages installed ('ii'), the cache's versions"
		else
			echo "$m: PACKAGES DIFFER from the cache's:"
			diff "$work/want" "$work/$m.have" | sed 's/^/  /'
		fi
	done
	echo "paths: debunpack $(wc -l < "$work/D.man"), mmdebstrap $(wc -l < "$work/M.man") (directory mtimes and sizes are not compared)"
	echo
	for c in real mmdebstrap debunpack variable; do
		case $c in
		real) title="Real differences (not explained by setup or by what varies from run to run)" ;;
		mmdebstrap) title="mmdebstrap setup extras (sources.list, fstab, copied host files, dpkg arch, apt state, its mirror mount point)" ;;
		debunpack) title="debunpack's own records (var/lib/debunpack)" ;;
		variable) title="Expected-variable files (machine-id, ld.so.cache, ldconfig aux-cache, var/log, *-old)" ;;
		esac
		n=$(awk -F'\t' -v c=$c '$1 == c && $3 !~ /^mtime/' "$work/diff" | wc -l)
		echo "== $title: $n"
		awk -F'\t' -v c=$c '$1 == c && $3 !~ /^mtime/ { printf "  %-15s %s\n", $3, $2; for (i = 4; i <= NF; i++) printf "      %s\n", $i }' "$work/diff" > "$work/sect"
		if [ "$c" = real ]; then
			# Real differences in text files get their diff, except for
			# var/lib/dpkg, compared entry by entry further down.
			while IFS= read -r line; do
				echo "$line"
				case $line in
				"  differs "*)
					p=${line#  differs }
					p=$(echo "$p" | sed 's/^ *//')
					case $p in var/lib/dpkg/*) ;; *) text_diff "$p" ;; esac ;;
				esac
			done < "$work/sect"
		elif [ "$c" = debunpack ] && [ "$n" -gt 6 ]; then
			head -n 6 "$work/sect"
			echo "  ... ($n paths in all, every one only in the debunpack root)"
		else
			cat "$work/sect"
		fi
		echo
	done
	n=$(awk -F'\t' '$3 == "mtime"' "$work/diff" | wc -l)
	echo "== mtime-only differences of files and symlinks, where a side kept an mtime from before the builds: $n"
	echo "   (and $(awk -F'\t' '$3 == "mtime-build"' "$work/diff" | wc -l) where both were written during the builds, not listed)"
	# The control files in var/lib/dpkg/info in one line: their mtimes
	# say who wrote them, not what they hold.
	awk -F'\t' '$3 == "mtime" && $2 ~ /^var\/lib\/dpkg\/info\// { n++; if (!ex) ex = $2 "  (" $4 ", " $5 ")" }
	    END { if (n) printf "  %-10s var/lib/dpkg/info/*: %d files, e.g. %s\n", "real", n, ex }' "$work/diff"
	awk -F'\t' '$3 == "mtime" && $2 !~ /^var\/lib\/dpkg\/info\// { printf "  %-10s %s  (%s, %s)\n", $1, $2, $4, $5 }' "$work/diff" > "$work/sect"
	head -n 60 "$work/sect"
	[ "$(wc -l < "$work/sect")" -le 60 ] || echo "  ... (first 60 of $(wc -l < "$work/sect"))"
	echo

	echo "== var/lib/dpkg/status, stanza by stanza"
	awk '
	FNR == 1 { side++ }
	/^Package: / { pkg = $2; nf[side, pkg] = 0; seen[pkg] = 1 }
	/^[A-Za-z][^:]*:/ {
		f = $0; sub(/:.*/, "", f)
		v = $0; sub(/^[^:]*: ?/, "", v)
		cur = f
		order[side, pkg] = order[side, pkg] " " f
		val[side, pkg, f] = v
		has[side, pkg, f] = 1
		next
	}
	/^[ \t]/ { val[side, pkg, cur] = val[side, pkg, cur] "\\n" $0; next }
	END {
		np = 0; same = 0
		for (p in seen) list[++np] = p
		for (i = 1; i <= np; i++) for (j = i + 1; j <= np; j++) if (list[j] < list[i]) { t = list[i]; list[i] = list[j]; list[j] = t }
		for (i = 1; i <= np; i++) {
			p = list[i]; out = ""
			if (!((1, p, "Package") in has)) { print "  " p ": only in mmdebstrap"; continue }
			if (!((2, p, "Package") in has)) { print "  " p ": only in debunpack"; continue }
			# Every field of either stanza, debunpack side first,
			# then those only mmdebstrap has.
			n = split(order[1, p] order[2, p], fl, " ")
			delete done
			for (x = 1; x <= n; x++) {
				f = fl[x]
				if (f in done) continue
				done[f] = 1
				a = (1, p, f) in has ? val[1, p, f] : "(absent)"
				b = (2, p, f) in has ? val[2, p, f] : "(absent)"
				if (a != b) out = out "    " f ": debunpack  " a "\n    " f ": mmdebstrap " b "\n"
			}
			if (order[1, p] != order[2, p]) out = out "    field order: debunpack" order[1, p] "\n                 mmdebstrap" order[2, p] "\n"
			if (out == "") same++
			else printf "  %s:\n%s", p, out
		}
		print "  (" same " of " np " stanzas identical, field order included)"
	}' "$D/var/lib/dpkg/status" "$M/var/lib/dpkg/status"
	echo
	echo "== var/lib/dpkg/info, file by file"
	(cd "$D/var/lib/dpkg/info" && ls -A) > "$work/info.D"
	(cd "$M/var/lib/dpkg/info" && ls -A) > "$work/info.M"
	LC_ALL=C sort -u "$work/info.D" "$work/info.M" > "$work/info.all"
	same=0 total=0
	while IFS= read -r f; do
		total=$((total + 1))
		a=$D/var/lib/dpkg/info/$f b=$M/var/lib/dpkg/info/$f
		if [ ! -e "$b" ]; then echo "  only in debunpack:  $f"; continue; fi
		if [ ! -e "$a" ]; then echo "  only in mmdebstrap: $f"; continue; fi
		ma=$(stat -c '%a %U:%G' "$a") mb=$(stat -c '%a %U:%G' "$b")
		if cmp -s "$a" "$b"; then
			if [ "$ma" = "$mb" ]; then same=$((same + 1)); else echo "  mode/owner differ:  $f (debunpack $ma, mmdebstrap $mb)"; fi
			continue
		fi
		[ "$ma" = "$mb" ] || echo "  mode/owner differ:  $f (debunpack $ma, mmdebstrap $mb)"
		case $f in
		*.list)
			if [ "$(LC_ALL=C sort "$a")" = "$(LC_ALL=C sort "$b")" ]; then
				echo "  same entries, other order: $f"
				diff "$a" "$b" | grep '^[<>]' | head -n 6 | sed 's/^/      /'
				continue
			fi ;;
		esac
		echo "  content differs:    $f"
		diff -u --label "debunpack/$f" --label "mmdebstrap/$f" "$a" "$b" | sed -n '3,30p' | sed 's/^/      /'
	done < "$work/info.all"
	echo "  ($same of $total files identical in content, mode and owner)"
	echo
	echo "== other var/lib/dpkg files (not info/, not status): see the sections above"
	awk -F'\t' '$2 ~ /^var\/lib\/dpkg\// && $2 !~ /^var\/lib\/dpkg\/(info\/|status$)/ && $3 !~ /^mtime/ { printf "  %-10s %-15s %s\n", $1, $3, $2 }' "$work/diff"
}

mkdir -p "$(dirname "$outfile")"
report > "$work/report"
cp "$work/report" "$outfile"
cat "$work/report"
echo
echo "rootdiff: report in $outfile"
