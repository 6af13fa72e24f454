#!/usr/bin/env bash
# make report's measuring half: each step is an existing benchmark target,
# run one after the other (the figures would disturb each other if run side
# by side), with a progress line, its time and the machine's load. A step
# that fails is recorded as failed and the others still run; the steps
# that boot Linux 6.1 are recorded as skipped, with the reason, when its
# guest could not be built (no network for Debian's kernel, say). What each
# step did goes to build/report/logs/; the record the figures are drawn
# with goes to build/bench/report-meta.txt and build/bench/report-steps.tsv
# (tools/report/plot.py reads both).
#
# usage: tools/report/run.sh MAKE BUILD_DIR [STEP...]   (default: every step;
# REPORT_JOBS=n: parallel compilers in the build step, default 2)
set -uo pipefail
make=$1 b=$2; shift 2
bench=$b/bench logs=$b/report/logs
mkdir -p "$bench" "$logs"

# key|needs Linux|what (the progress line)|make arguments
steps=(
	"build|no|the bench kernel (debug aids off) and the host benchmarks|-j${REPORT_JOBS:-2} bench-kernel $b/host/bench_page_alloc $b/host/vmalloc_bench $b/host/bench_clear_page"
	"linux|no|Linux 6.1 guest: Debian's kernel (apt-get download) and an initramfs of the same programs|linux-guest"
	"host|no|clearing speed, page allocator, vmalloc ranges, natively on this machine (bench-host)|bench-host"
	"compare|yes|instructions per fault and VmPTE along the seed workload, mmlab x3 modes + Linux 6.1 under -icount (bench-compare)|bench-compare"
	"fork|yes|fork+exit+wait4 and the COW fault, mmlab x3 modes + Linux 6.1 under -icount (bench-fork)|bench-fork"
	"mempolicy|yes|placement per policy and node, mmlab under -icount + Linux 6.1 on the same 4 nodes (bench-mempolicy)|bench-mempolicy"
	"inkernel|no|vmalloc, kvmalloc and the allocator in the kernel, 'default' under -icount (bench-inkernel)|bench-inkernel ICOUNT=1 BENCH_TOPOLOGIES=default"
	"migrate|no|migrate_pages into a node with room for all, half and none, under -icount (bench-migrate)|bench-migrate"
	"icount|no|page allocator instructions per pair, counted by callgrind (bench-icount)|bench-icount"
	"plots|no|figures and tables into docs/results/ (tools/report/plot.py)|report-plots"
)
# The host-native figures on a shared machine: each timed with the
# thread's CPU clock (the time the CPU gave to other programs is not
# counted), the clearing routines over 5 runs instead of 3. Either can be
# set from outside.
export BENCH_ARGS="${BENCH_ARGS---cpu-clock}" CLEAR_BENCH_ARGS="${CLEAR_BENCH_ARGS---runs 5}"
want=("$@")
selected() { [ ${#want[@]} -eq 0 ] && return 0; local w; for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }

load() { cut -d' ' -f1 /proc/loadavg; }
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo yes || echo no)
{
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "cores=$(nproc)"
	echo "commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
	echo "dirty=$dirty"
	echo "host_kernel=$(uname -sr)"
	echo "qemu=$(qemu-system-x86_64 --version 2>/dev/null | head -1)"
	echo "load_start=$(load)"
} > "$bench/report-meta.txt"
steps_file=$bench/report-steps.tsv
printf 'key\tstatus\tseconds\tload_start\tload_end\twhat\treason\n' > "$steps_file"

n=0 total=0
for s in "${steps[@]}"; do selected "${s%%|*}" && total=$((total + 1)); done
linux_ok=1 linux_reason=
t_all=$(date +%s)
for s in "${steps[@]}"; do
	IFS='|' read -r key needs what args <<< "$s"
	selected "$key" || continue
	n=$((n + 1))
	printf '[%d/%d] %s ...\n' "$n" "$total" "$what"
	log=$logs/$key.log l0=$(load) t0=$(date +%s)
	if [ "$needs" = yes ] && [ $linux_ok = 0 ]; then
		printf '%s\tskipped\t0\t%s\t%s\t%s\t%s\n' "$key" "$l0" "$l0" "$what" "$linux_reason" >> "$steps_file"
		printf '      skipped: %s\n' "$linux_reason"
		continue
	fi
	# shellcheck disable=SC2086
	$make --no-print-directory $args </dev/null > "$log" 2>&1
	rc=$?
	t=$(( $(date +%s) - t0 )) l1=$(load)
	if [ $rc = 0 ]; then
		status=ok reason=
	else
		status=failed reason="exit status $rc; the log's last line: $(grep -v '^[[:space:]]*$' "$log" | tail -1 | tr '\t' ' ')"
		if [ "$key" = linux ]; then
			linux_ok=0
			linux_reason="the Linux 6.1 guest could not be built ($(grep -v '^[[:space:]]*$' "$log" | tail -1 | tr '\t' ' '))"
		fi
	fi
	printf '%s\t%s\t%d\t%s\t%s\t%s\t%s\n' "$key" "$status" "$t" "$l0" "$l1" "$what" "$reason" >> "$steps_file"
	printf '      %s in %dm%02ds (load %s -> %s)%s\n' "$status" $((t / 60)) $((t % 60)) "$l0" "$l1" \
		"${reason:+: $reason; log $log}"
done
echo "load_end=$(load)" >> "$bench/report-meta.txt"
echo "seconds=$(( $(date +%s) - t_all ))" >> "$bench/report-meta.txt"
