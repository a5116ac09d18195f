#!/bin/sh
# SPDX-License-Identifier: MIT
# Summary of a bench/run.sh runs.csv: summary.csv (median, min, max of each
# metric), summary.md (tables and the targets, pass or miss) and chart.png.
# usage: bench/report.sh RUNS.CSV [OUTDIR]   (OUTDIR: the csv's directory)
set -eu
usage() {
	echo "usage: $0 RUNS.CSV [OUTDIR]" >&2
	exit 2
}
case ${1:-} in -*) usage ;; esac
case $# in 1 | 2) ;; *) usage ;; esac
csv=$1
out=${2:-$(dirname "$csv")}
[ -r "$csv" ] || { echo "$0: cannot read $csv" >&2; exit 1; }
head -n 1 "$csv" | grep -q '^workload,fs,method,run,wall_s,flushes,' ||
    { echo "$0: $csv: not a runs.csv from bench/run.sh" >&2; exit 1; }
mkdir -p "$out"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/debunpack-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

env=$(dirname "$csv")/env.txt
[ -r "$env" ] || env=/dev/null

# Only the first eleven fields are read: the last one, the quoted --stats
# JSON, holds commas.
awk -F, -v scsv="$out/summary.csv" -v md="$out/summary.md" -v tmp="$tmp" \
    -v envfile="$env" -v src="$csv" '
function add(list, v) { return v == "" ? list : list " " v }
# stat(list): sets med, lo, hi from a blank-separated list of numbers;
# false when it is empty.
function stat(list,    a, n, i, j, t) {
	n = split(list, a, " ")
	if (n == 0) { med = lo = hi = ""; return 0 }
	for (i = 2; i <= n; i++) {
		t = a[i] + 0
		for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
		a[j + 1] = t
	}
	lo = a[1] + 0; hi = a[n] + 0
	med = n % 2 ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
	return 1
}
function secs(s) {
	return s < 1 ? sprintf("%.3f", s) : s < 10 ? sprintf("%.2f", s) : \
	    s < 100 ? sprintf("%.1f", s) : sprintf("%.0f", s)
}
# mawk prints integers past 2^31 as 2.14748e+09 and clamps %d: %.0f.
function num(v) { return v == int(v) ? sprintf("%.0f", v) : sprintf("%.1f", v) }
function mib(kib) { return sprintf("%.1f MiB", kib / 1024) }
function bytes(b) {
	return b >= 1073741824 ? sprintf("%.2f GiB", b / 1073741824) : \
	    sprintf("%.0f MiB", b / 1048576)
}
function seen(arr, k) { return k in arr }
# wall(w, f, m): median wall seconds of the successful runs, or "".
function wall(w, f, m) { return stat(V[w, f, m, "wall"]) ? med : "" }
function ratio(a, b) { return a == "" || b == "" || b == 0 ? "" : a / b }
# verdict(v, op, t): the cell of a targets row.
function verdict(v, op, t, shown) {
	if (v == "") return "n/a"
	if (op == "<=") return shown " " (v <= t ? "pass" : "**miss**")
	if (op == ">=") return shown " " (v >= t ? "pass" : "**miss**")
	return shown
}
# failnote(key): what failed among the runs of key, for a table cell.
function failnote(k) {
	if (!FAIL[k]) return ""
	return ", **" FAIL[k] "/" N[k] " failed** (exit " RC[k] ")"
}
NR == 1 { next }
{
	w = $1; f = $2; m = $3
	if (!seen(WS, w)) { WS[w] = 1; WL[++nw] = w }
	if (!seen(FSS, f)) { FSS[f] = 1; FL[++nf] = f }
	WF[w, f] = 1
	if (!seen(MS, w SUBSEP m)) { MS[w, m] = 1; ML[w, ++nm[w]] = m }
	k = w SUBSEP f SUBSEP m
	N[k]++
	if ($10 != 0) { FAIL[k]++; RC[k] = $10; next }
	V[k, "wall"] = add(V[k, "wall"], $5)
	V[k, "flushes"] = add(V[k, "flushes"], $6)
	V[k, "jbd2"] = add(V[k, "jbd2"], $7)
	V[k, "bytes"] = add(V[k, "bytes"], $8)
	V[k, "rss"] = add(V[k, "rss"], $9)
}
END {
	nmet = split("wall flushes jbd2 bytes rss", MET, " ")
	printf "workload,fs,method,runs,failed" > scsv
	for (i = 1; i <= nmet; i++)
		printf ",%s_median,%s_min,%s_max", MET[i], MET[i], MET[i] > scsv
	printf "\n" > scsv
	for (a = 1; a <= nw; a++) for (i = 1; i <= nm[WL[a]]; i++) for (b = 1; b <= nf; b++) {
		w = WL[a]; m = ML[w, i]; f = FL[b]; k = w SUBSEP f SUBSEP m
		if (!(k in N)) continue
		printf "%s,%s,%s,%d,%d", w, f, m, N[k], FAIL[k] > scsv
		for (j = 1; j <= nmet; j++) {
			if (!stat(V[k, MET[j]])) printf ",,," > scsv
			else if (MET[j] == "wall") printf ",%.4f,%.4f,%.4f", med, lo, hi > scsv
			else printf ",%s,%s,%s", num(med), num(lo), num(hi) > scsv
		}
		printf "\n" > scsv
	}

	print "# debunpack benchmark" > md
	print "" > md
	while ((getline line < envfile) > 0) print "    " line > md
	print "" > md
	print "Medians of the successful runs, (min–max) when there is more than one;" > md
	print "fl = device cache flushes, from " src "." > md
	# The filesystems each workload was run on, in the order of the runs.
	for (a = 1; a <= nw; a++)
		for (b = 1; b <= nf; b++)
			if ((WL[a], FL[b]) in WF) FW[WL[a], ++nfw[WL[a]]] = FL[b]
	for (a = 1; a <= nw; a++) {
		w = WL[a]
		print "\n## " w "\n" > md
		hdr = "| method |"; sep = "|---|"
		for (b = 1; b <= nfw[w]; b++) { hdr = hdr " " FW[w, b] " |"; sep = sep "---|" }
		print "Wall time / flushes:\n\n" hdr "\n" sep > md
		for (i = 1; i <= nm[w]; i++) {
			m = ML[w, i]; row = "| " m " |"
			for (b = 1; b <= nfw[w]; b++) {
				k = w SUBSEP FW[w, b] SUBSEP m
				if (!(k in N)) { row = row " – |"; continue }
				if (!stat(V[k, "wall"])) { row = row " **failed** (exit " RC[k] ") |"; continue }
				c = secs(med) " s"
				if (N[k] - FAIL[k] > 1) c = c " (" secs(lo) "–" secs(hi) ")"
				stat(V[k, "flushes"]); c = c " / " num(med) " fl"
				row = row " " c failnote(k) " |"
			}
			print row > md
		}
		print "\nWritten to the device during the run / peak RSS / ext4 journal commits:\n\n" hdr "\n" sep > md
		for (i = 1; i <= nm[w]; i++) {
			m = ML[w, i]; row = "| " m " |"
			for (b = 1; b <= nfw[w]; b++) {
				k = w SUBSEP FW[w, b] SUBSEP m
				if (!stat(V[k, "bytes"])) { row = row " – |"; continue }
				c = bytes(med)
				c = c " / " (stat(V[k, "rss"]) ? mib(med) : "–")
				if (stat(V[k, "jbd2"])) c = c " / " num(med) " jbd2"
				row = row " " c " |"
			}
			print row > md
		}
		# Scaling: debunpack-auto by jobs, when more than one was run.
		nj = 0
		for (i = 1; i <= nm[w]; i++)
			if (ML[w, i] ~ /^debunpack-auto-j[0-9]+$/) {
				t = substr(ML[w, i], 17) + 0
				for (j = nj; j >= 1 && JB[j] > t; j--) JB[j + 1] = JB[j]
				JB[j + 1] = t; nj++
			}
		if (nj < 2) continue
		print "\ndebunpack-auto by jobs: wall (speedup over -j" JB[1] ") / peak RSS (largest of the runs):\n\n" \
		    "| jobs |" substr(hdr, 11) "\n" sep > md
		for (j = 1; j <= nj; j++) {
			row = "| -j" JB[j] " |"
			for (b = 1; b <= nfw[w]; b++) {
				f = FW[w, b]; k = w SUBSEP f SUBSEP "debunpack-auto-j" JB[j]
				if (!(k in N)) { row = row " – |"; continue }
				v = wall(w, f, "debunpack-auto-j" JB[j])
				if (v == "") { row = row " **failed** (exit " RC[k] ") |"; continue }
				base = wall(w, f, "debunpack-auto-j" JB[1])
				c = secs(v) " s" (base == "" ? "" : sprintf(" (%.2f×)", base / v))
				c = c " / " (stat(V[k, "rss"]) ? mib(hi) : "–")
				row = row " " c failnote(k) " |"
			}
			print row > md
		}
	}

	print "\n## Targets\n" > md
	print "From the medians above; the default is debunpack-auto with the most jobs" > md
	print "measured (debunpack-batched where auto is missing), each ratio taken at" > md
	print "the same jobs. Peak RSS: the debunpack method nearest its limit, 64 MiB" > md
	print "with one job and 48 MiB more for each further one." > md
	print "floor is dpkg-deb --fsys-tarfile with its default threads, floor-1 with one." > md
	print "On big (large multi-block xz packages, bound by decoding) the wall targets" > md
	print "are those of a decoding-bound install: default / floor ≤ 1.20, dpkg / default" > md
	print "≥ 1.65, eatmydata-dpkg / default ≥ 1.35." > md
	for (a = 1; a <= nw; a++) {
		w = WL[a]; dm = ""; dj = 0
		for (pass = 1; pass <= 2 && dm == ""; pass++) {
			pre = pass == 1 ? "debunpack-auto-j" : "debunpack-batched-j"
			for (i = 1; i <= nm[w]; i++) {
				m = ML[w, i]
				if (index(m, pre) == 1 && substr(m, length(pre) + 1) + 0 > dj) {
					dj = substr(m, length(pre) + 1) + 0; dm = m
				}
			}
		}
		DM[w] = dm; DJ[w] = dj
	}
	# Side by side, the workloads show whether flushes and memory grow
	# with the number or the size of files (synth-1k, -10k, -50k, -2g).
	print "\nThe default across workloads, wall / flushes / peak RSS:\n" > md
	hdr = "| workload | default |"; sep = "|---|---|"
	for (b = 1; b <= nf; b++) { hdr = hdr " " FL[b] " |"; sep = sep "---|" }
	print hdr "\n" sep > md
	for (a = 1; a <= nw; a++) {
		w = WL[a]; row = "| " w " | " (DM[w] == "" ? "–" : DM[w]) " |"
		for (b = 1; b <= nf; b++) {
			k = w SUBSEP FL[b] SUBSEP DM[w]
			if (DM[w] == "" || !(k in N)) { row = row " – |"; continue }
			if (!stat(V[k, "wall"])) { row = row " **failed** (exit " RC[k] ") |"; continue }
			c = secs(med) " s"
			stat(V[k, "flushes"]); c = c " / " num(med) " fl"
			stat(V[k, "rss"]); c = c " / " (hi == "" ? "–" : mib(hi))
			row = row " " c failnote(k) " |"
		}
		print row > md
	}
	for (a = 1; a <= nw; a++) {
		w = WL[a]; dm = DM[w]; dj = DJ[w]
		print "\n### " w "\n" > md
		if (dm == "") { print "No debunpack-auto or debunpack-batched runs." > md; continue }
		pj = ((w, "debunpack-perfile-j" dj) in MS) && ((w, "debunpack-batched-j" dj) in MS) ? dj : 1
		big = w == "big"
		tf = big ? "1.20" : "0.65"; td = big ? "1.65" : "4"; te = big ? "1.35" : "2"
		hdr = "| metric | target |"; sep = "|---|---|"
		for (b = 1; b <= nfw[w]; b++) { hdr = hdr " " FW[w, b] " |"; sep = sep "---|" }
		if (big) {
			# The medians the ratios are taken from, side by side.
			print "Wall time, medians:\n\n| method |" substr(hdr, 20) "\n|---|" substr(sep, 10) > md
			n = split(dm " floor floor-1 dpkg eatmydata-dpkg", BM, " ")
			for (i = 1; i <= n; i++) {
				row = "| " BM[i] (i == 1 ? " (default)" : "") " |"
				for (b = 1; b <= nfw[w]; b++) {
					k = w SUBSEP FW[w, b] SUBSEP BM[i]
					v = wall(w, FW[w, b], BM[i])
					row = row " " (!(k in N) ? "–" : v == "" ? "**failed**" : secs(v) " s") " |"
				}
				print row > md
			}
			print "" > md
		}
		print hdr "\n" sep > md
		r1 = "| flushes, " dm " | ≤ 8 |"
		r2 = "| " dm " / debunpack-none-j" dj ", wall | ≤ 1.10 |"
		r3 = "| " dm " / floor, wall | ≤ " tf " |"
		r3b = "| " dm " / floor-1, wall | – |"
		r4 = "| dpkg / " dm ", wall | ≥ " td " |"
		r5 = "| eatmydata-dpkg / " dm ", wall | ≥ " te " |"
		r6 = "| perfile / batched (j" pj "), wall and flushes | – |"
		r7 = "| peak RSS, debunpack-*-jN | ≤ 64 MiB + 48 MiB × (N − 1) |"
		for (b = 1; b <= nfw[w]; b++) {
			f = FW[w, b]; k = w SUBSEP f SUBSEP dm
			dw = wall(w, f, dm)
			fl = stat(V[k, "flushes"]) ? med : ""
			r1 = r1 " " verdict(fl, "<=", 8, num(fl)) failnote(k) " |"
			v = ratio(dw, wall(w, f, "debunpack-none-j" dj))
			r2 = r2 " " verdict(v, "<=", 1.10, sprintf("%.2f", v)) " |"
			v = ratio(dw, wall(w, f, "floor"))
			r3 = r3 " " verdict(v, "<=", tf + 0, sprintf("%.2f", v)) " |"
			v = ratio(dw, wall(w, f, "floor-1"))
			r3b = r3b " " (v == "" ? "n/a" : sprintf("%.2f", v)) " |"
			v = ratio(wall(w, f, "dpkg"), dw)
			r4 = r4 " " verdict(v, ">=", td + 0, sprintf("%.2f", v)) " |"
			v = ratio(wall(w, f, "eatmydata-dpkg"), dw)
			r5 = r5 " " verdict(v, ">=", te + 0, sprintf("%.2f", v)) " |"
			v = ratio(wall(w, f, "debunpack-perfile-j" pj), wall(w, f, "debunpack-batched-j" pj))
			pf = stat(V[w, f, "debunpack-perfile-j" pj, "flushes"]) ? med : ""
			bf = stat(V[w, f, "debunpack-batched-j" pj, "flushes"]) ? med : ""
			c = v == "" ? "n/a" : sprintf("%.1f×", v)
			if (v != "" && pf != "" && bf > 0) c = c ", " sprintf("%.0f×", pf / bf) " fl"
			else if (v != "" && pf != "") c = c ", " num(pf) " vs 0 fl"
			r6 = r6 " " c " |"
			# The method nearest its own limit (in KiB) is the one shown.
			top = ""; tm = ""; tl = 65536
			for (i = 1; i <= nm[w]; i++) {
				m = ML[w, i]
				if (index(m, "debunpack-") != 1 || !stat(V[w, f, m, "rss"])) continue
				j = m; sub(/.*-j/, "", j)
				lim = (64 + 48 * (j - 1)) * 1024
				if (top == "" || hi / lim > top / tl) { top = hi; tm = m; tl = lim }
			}
			sub(/^debunpack-/, "", tm)
			r7 = r7 " " verdict(top, "<=", tl, top == "" ? "" : mib(top) " (" tm ", ≤ " mib(tl) ")") " |"
		}
		print r1 "\n" r2 "\n" r3 > md
		if ((w, "floor-1") in MS) print r3b > md
		print r4 "\n" r5 "\n" r6 "\n" r7 > md
	}

	# Chart data, one file per workload: method, then for each filesystem
	# wall median, min and max, then for each filesystem the median flushes
	# as bars (NaN where there is none, or 0, which a log scale cannot draw),
	# then the same as labels (NaN where there is none).
	for (a = 1; a <= nw; a++) {
		w = WL[a]; dat = tmp "/" a ".dat"; wmin = wmax = ""; fmax = 0
		for (i = 1; i <= nm[w]; i++) {
			m = ML[w, i]; lab = m; sub(/^debunpack-/, "", lab)
			line = lab; fls = raw = ""
			for (b = 1; b <= nf; b++) {
				k = w SUBSEP FL[b] SUBSEP m
				if (stat(V[k, "wall"])) {
					line = line " " med " " lo " " hi
					if (wmin == "" || med < wmin) wmin = med
					if (wmax == "" || med > wmax) wmax = med
				} else
					line = line " NaN NaN NaN"
				fls = fls " " (stat(V[k, "flushes"]) && med > 0 ? med : "NaN")
				raw = raw " " (med == "" ? "NaN" : med)
				if (med != "" && med > fmax) fmax = med
			}
			print line fls raw > dat
		}
		close(dat)
		print w, nm[w], (wmin > 0 && wmax / wmin > 20 ? "log" : "lin"), \
		    (wmax == "" ? 1 : wmax), fmax > (tmp "/workloads")
	}
	close(tmp "/workloads")
	for (b = 1; b <= nf; b++) printf "%s%s", FL[b], b < nf ? " " : "\n" > (tmp "/fs")
}' "$csv"

if ! command -v gnuplot > /dev/null; then
	echo "report: no gnuplot (apt-get install gnuplot-nox): no chart" >&2
	echo "report: $out/summary.csv $out/summary.md"
	exit 0
fi
nw=$(wc -l < "$tmp/workloads")
# shellcheck disable=SC2046 # one word per filesystem
set -- $(cat "$tmp/fs")
nf=$#
{
	echo "set terminal pngcairo size 1600,$((nw * 440 + 40)) font ',10' noenhanced"
	echo "set output '$out/chart.png'"
	echo "set multiplot layout $nw,2 title 'debunpack benchmark, $(basename "$(dirname "$csv")")/$(basename "$csv"); debunpack-MODE-jJOBS drawn as MODE-jJOBS'"
	echo "set style data histogram"
	echo "set style fill solid 0.85 border -1"
	echo "set boxwidth 0.9"
	echo "set xtics rotate by -40 left nomirror"
	echo "set grid ytics"
	echo "set key top left"
	echo "set bmargin 6"
	echo "set datafile missing 'NaN'"
	echo "set linetype 1 lc rgb '#4477aa'"
	echo "set linetype 2 lc rgb '#ee6677'"
	echo "set linetype 3 lc rgb '#228833'"
	echo "set linetype 4 lc rgb '#ccbb44'"
	a=1
	while read -r w nm scale wmax fmax; do
		dat=$tmp/$a.dat
		# Explicit ranges: a panel whose runs all failed (no value) still
		# draws, empty, instead of stopping gnuplot.
		echo "set xrange [-0.6:$nm - 0.4]"
		echo "set style histogram errorbars gap 1 lw 1"
		# Spans of two orders of magnitude (perfile on many files) would
		# flatten every other bar on a linear axis.
		if [ "$scale" = log ]; then
			echo "set logscale y; set yrange [*:$wmax * 2]"
			echo "set title '$w: wall time, s (median, min-max; log scale)'"
		else
			echo "unset logscale y; set yrange [0:$wmax * 1.15]"
			echo "set title '$w: wall time, s (median, min-max)'"
		fi
		printf "plot"
		b=1
		for f in "$@"; do
			c=$((2 + 3 * (b - 1)))
			if [ $b = 1 ]; then
				printf " '%s' using %d:%d:%d:xtic(1) title '%s'" "$dat" $c $((c + 1)) $((c + 2)) "$f"
			else
				printf ", '' using %d:%d:%d title '%s'" $c $((c + 1)) $((c + 2)) "$f"
			fi
			b=$((b + 1))
		done
		echo
		echo "set style histogram clustered gap 1"
		# Room above the tallest bar for its label.
		echo "set logscale y; set yrange [0.5:($fmax > 1 ? $fmax : 1) * 30]"
		echo "set title '$w: device cache flushes (median; log scale)'"
		printf "plot"
		b=1
		for f in "$@"; do
			c=$((1 + 3 * nf + b))
			if [ $b = 1 ]; then
				printf " '%s' using %d:xtic(1) title '%s'" "$dat" $c "$f"
			else
				printf ", '' using %d title '%s'" $c "$f"
			fi
			b=$((b + 1))
		done
		# Each bar's value above it, zeros at the foot of the axis: bar b
		# of a cluster of nf sits (b - (nf + 1) / 2) / (nf + gap) from
		# the cluster's centre.
		b=1
		for f in "$@"; do
			c=$((1 + 4 * nf + b))
			printf ", '' using (\$0 + (%d - (%d + 1) / 2.0) / (%d + 1)):(\$%d > 0 ? \$%d : 0.5):(sprintf('%%.0f', \$%d)) with labels rotate by 90 left offset 0,0.3 font ',7' notitle" \
			    $b "$nf" "$nf" $c $c $c
			b=$((b + 1))
		done
		echo
		a=$((a + 1))
	done < "$tmp/workloads"
	echo "unset multiplot"
} > "$tmp/chart.gp"
# Panels without data warn; only a failure is worth showing.
if ! gnuplot "$tmp/chart.gp" 2> "$tmp/gnuplot.err"; then
	cat "$tmp/gnuplot.err" >&2
	exit 1
fi
echo "report: $out/summary.csv $out/summary.md $out/chart.png"
