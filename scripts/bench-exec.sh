#!/usr/bin/env bash
# Runs exec DAGs of `true` nodes through seam and the same processes started bare, interleaved,
# and prints per case the median of the per-pair ratios (seam ÷ bare) with their min and max.
#
#   scripts/bench-exec.sh [PAIRS]      PAIRS ≥ 7 (default 9)
#
# Cases: one (a one-node DAG: seam's fixed cost), chain100 (each node needs the one before),
# wide200 and wide1000 (all independent, concurrency 8). Baselines: a shell loop of /bin/true
# for one and chain100; `xargs -P8 -n1 /bin/true` for the wide ones. A second baseline, "go",
# starts the same processes with Go's os/exec (one after another, or 8 at a time), as seam
# does: a shell's fork copies its whole address space, which on a loaded VM makes the shell
# loop the slower of the two. seam runs each case twice per pair, with --no-store and with the
# default SQLite store (.seam/seam.db in a fresh folder per case, so the store grows over the
# pairs as a real one does). Within a pair the order of the four runs rotates, so load on the
# machine hits every side alike. Wall times
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
mkdir -p "$WORK/gobare"
cat >"$WORK/gobare/main.go" <<'EOF'
// Command gobare starts /bin/true N times with os/exec: one after another (chain) or 8 at a
// time (wide).
package main

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
)

func main() {
	n, _ := strconv.Atoi(os.Args[2])
	workers := 1
	if os.Args[1] == "wide" {
		workers = 8
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range jobs {
				if err := exec.Command("/bin/true").Run(); err != nil {
					panic(err)
				}
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}
EOF
printf 'module gobare\ngo 1.25\n' >"$WORK/gobare/go.mod"
(cd "$WORK/gobare" && go build -o "$WORK/gobare/gobare" .)
GOBARE=$WORK/gobare/gobare

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
printf '%-9s %5s  %8s %7s %11s %9s  %-24s %-24s %-24s\n' case pairs "bare ms" "go ms" "no-store ms" "store ms" \
	"no-store ÷ bare" "store ÷ bare" "no-store ÷ go"
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
	: >"$dir/bare" && : >"$dir/go" && : >"$dir/nostore" && : >"$dir/store"
	: >"$dir/r-nostore" && : >"$dir/r-store" && : >"$dir/r-go"
	# one unmeasured run of each, so the store exists and the files are in the page cache
	(cd "$dir" && timed "$SEAM" run dag.yaml >/dev/null && timed "${bare[@]}" >/dev/null)
	for ((p = 0; p < PAIRS; p++)); do
		for k in 0 1 2 3; do
			case $(((p + k) % 4)) in
			0) tb=$(timed "${bare[@]}") ;;
			1) tg=$(timed "$GOBARE" "$shape" "$n") ;;
			2) tn=$(cd "$dir" && timed "$SEAM" run --no-store dag.yaml) ;;
			3) ts=$(cd "$dir" && timed "$SEAM" run dag.yaml) ;;
			esac
		done
		echo "$tb" >>"$dir/bare"
		echo "$tg" >>"$dir/go"
		echo "$tn" >>"$dir/nostore"
		echo "$ts" >>"$dir/store"
		awk -v a="$tn" -v b="$tb" 'BEGIN {print a / b}' >>"$dir/r-nostore"
		awk -v a="$ts" -v b="$tb" 'BEGIN {print a / b}' >>"$dir/r-store"
		awk -v a="$tn" -v b="$tg" 'BEGIN {print a / b}' >>"$dir/r-go"
	done
	printf '%-9s %5d  %8s %7s %11s %9s  %-24s %-24s %-24s\n' "$c" "$PAIRS" "$(median_ms "$dir/bare")" \
		"$(median_ms "$dir/go")" "$(median_ms "$dir/nostore")" "$(median_ms "$dir/store")" \
		"$(stats "$dir/r-nostore")" "$(stats "$dir/r-store")" "$(stats "$dir/r-go")"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
