#!/usr/bin/env bash
# Runs exec DAGs of `true` nodes through seam and the same processes started bare, interleaved,
# and prints per case the median of the per-pair ratios (seam ÷ bare) with their min and max.
#
#   scripts/bench-exec.sh [PAIRS]      PAIRS ≥ 7 (default 9)
#
# Cases: one (a one-node DAG: seam's fixed cost), chain100 (each node needs the one before),
# wide200 and wide1000 (all independent, concurrency 8). Baselines: a shell loop of /bin/true
# for one and chain100; `xargs -P8 -n1 /bin/true` for the wide ones. seam runs each case twice
# per pair, with --no-store and with the default SQLite store (.seam/seam.db in a fresh
# folder per case, so the store grows over the pairs as a real one does). Within a pair the
# order of the three runs rotates, so load on the machine hits every side alike. Wall times
# come from bash's $EPOCHREALTIME around each command. The load average is printed before
# and after: quote it with the numbers.
#
# Environment: SEAM_BENCH_CASES (default "one chain100 wide200 wide1000").
set -euo pipefail

PAIRS=${1:-9}
if ((PAIRS < 7)); then
	echo "bench-exec: at least 7 pairs (got $PAIRS)" >&2
	exit 2
fi
CASES=${SEAM_BENCH_CASES:-one chain100 wide200 wide1000}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d /tmp/seam-bench-exec.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

echo "building seam..." >&2
(cd "$ROOT" && go build -o "$WORK/seam" ./cmd/seam)
SEAM=$WORK/seam

# gen SHAPE N: a DAG of N `true` exec nodes.
gen() {
	local shape=$1 n=$2 i
	printf 'version: 1\nname: %s%d\nconcurrency: 8\nnodes:\n' "$shape" "$n"
	for ((i = 0; i < n; i++)); do
		printf '  n%d:\n    type: exec\n    with: {command: [/bin/true], output: text}\n' "$i"
		if [[ $shape == chain ]] && ((i > 0)); then
			printf '    needs: [n%d]\n' $((i - 1))
		fi
	done
}

bare_loop() {
	local i
	for ((i = 0; i < $1; i++)); do /bin/true; done
}
bare_wide() { seq "$1" | xargs -P8 -n1 /bin/true; }

# now_us: the wall clock in microseconds.
now_us() {
	local t=${EPOCHREALTIME/./}
	echo "$t"
}

# timed CMD...: runs CMD, prints its wall time in microseconds; fails when CMD does.
timed() {
	local t0 t1
	t0=$(now_us)
	"$@" >/dev/null 2>"$WORK/stderr" || {
		echo "bench-exec: $* failed:" >&2
		cat "$WORK/stderr" >&2
		exit 1
	}
	t1=$(now_us)
	echo $((t1 - t0))
}

# stats FILE: median, min and max of the numbers in FILE, one a line.
stats() {
	sort -g "$1" | awk '{v[NR] = $1} END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f (%.3f–%.3f)", m, v[1], v[NR]
	}'
}
median_ms() {
	sort -g "$1" | awk '{v[NR] = $1} END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.1f", m / 1000
	}'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %5s  %9s %11s %11s  %-26s %-26s\n' case pairs "bare ms" "no-store ms" "store ms" \
	"no-store ÷ bare" "store ÷ bare"
for c in $CASES; do
	case $c in
	one) n=1 shape=chain bare=(bare_loop 1) ;;
	chain*) n=${c#chain} shape=chain bare=(bare_loop "$n") ;;
	wide*) n=${c#wide} shape=wide bare=(bare_wide "$n") ;;
	*)
		echo "bench-exec: unknown case $c" >&2
		exit 2
		;;
	esac
	dir=$WORK/$c
	mkdir -p "$dir"
	gen "$shape" "$n" >"$dir/dag.yaml"
	: >"$dir/bare" && : >"$dir/nostore" && : >"$dir/store" && : >"$dir/r-nostore" && : >"$dir/r-store"
	# one unmeasured run of each, so the store exists and the files are in the page cache
	(cd "$dir" && timed "$SEAM" run dag.yaml >/dev/null && timed "${bare[@]}" >/dev/null)
	for ((p = 0; p < PAIRS; p++)); do
		for k in 0 1 2; do
			case $(((p + k) % 3)) in
			0) tb=$(timed "${bare[@]}") ;;
			1) tn=$(cd "$dir" && timed "$SEAM" run --no-store dag.yaml) ;;
			2) ts=$(cd "$dir" && timed "$SEAM" run dag.yaml) ;;
			esac
		done
		echo "$tb" >>"$dir/bare"
		echo "$tn" >>"$dir/nostore"
		echo "$ts" >>"$dir/store"
		awk -v a="$tn" -v b="$tb" 'BEGIN {print a / b}' >>"$dir/r-nostore"
		awk -v a="$ts" -v b="$tb" 'BEGIN {print a / b}' >>"$dir/r-store"
	done
	printf '%-9s %5d  %9s %11s %11s  %-26s %-26s\n' "$c" "$PAIRS" "$(median_ms "$dir/bare")" \
		"$(median_ms "$dir/nostore")" "$(median_ms "$dir/store")" \
		"$(stats "$dir/r-nostore")" "$(stats "$dir/r-store")"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
