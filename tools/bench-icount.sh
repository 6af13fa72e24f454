#!/usr/bin/env bash
# Instructions per pair of each page allocator figure, counted by callgrind
# (which counts the same on a loaded machine as on a quiet one): the
# benchmark runs one figure (--only) at two scales, callgrind counts only
# inside run_buddy (mmlab), run_floor (the hot pair's floor model),
# tree_run or tree_run_locked (the peer alone, and with the node lock's
# spin_lock around each half, when built with it), and
# the difference of the counts divided by the difference of the operations
# (which the benchmark reports) leaves setup and warm-up out.
# usage: tools/bench-icount.sh BENCH_BINARY [KEY...]   (default: every figure)
set -euo pipefail
bin=$1; shift
keys=("$@")
[ ${#keys[@]} -eq 0 ] && keys=(order0_hot_pair order0_batch1000_pair order0_worst_pair order9_pair
	order9_split_pair order18_pair order9_fragmented_fail)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
count() { # FUNCTION KEY SCALE [ARGS] -> "instructions operations"
	valgrind --tool=callgrind --callgrind-out-file="$tmp/out" --toggle-collect="$1" \
		"$bin" --only "$2" --runs 1 --scale "$3" "${@:4}" >/dev/null 2>"$tmp/err"
	echo "$(awk '/^(summary|totals):/ {print $2; exit}' "$tmp/out") $(sed -n 's/.* \([0-9]*\) operations per allocator/\1/p' "$tmp/err")"
}
printf '%-26s %12s %12s %12s %12s\n' figure mmlab floor tree tree+lock
for k in "${keys[@]}"; do
	row=()
	for fn in run_buddy run_floor tree_run tree_run_locked; do
		args=(); case $fn in run_*) args=(--no-peer) ;; esac
		read -r i1 n1 < <(count $fn "$k" 0.2 "${args[@]}")
		read -r i2 n2 < <(count $fn "$k" 0.4 "${args[@]}")
		# A figure without the floor model, or that the peer has no
		# shape for, never enters the function.
		if [ "$i2" = "$i1" ]; then row+=(-); else row+=("$(awk -v a="$i1" -v b="$i2" -v m="$n1" -v n="$n2" 'BEGIN {printf "%.0f", (b - a) / (n - m)}')"); fi
	done
	printf '%-26s %12s %12s %12s %12s\n' "$k" "${row[@]}"
done
