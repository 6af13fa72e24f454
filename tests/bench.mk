# The benchmarks (tests/bench_*.c in the kernel, the user benchmark
# programs of tests/user/, tests/host/ natively). Included by the top
# Makefile.

# Benchmark machines boot without the tests' debug aids: the kernel built
# with DEBUG_VM=0 (no CONFIG_DEBUG_VM: the fence check of every set_pte_at),
# in its own folder so that make test keeps its checks ($(BENCH_ISO): the
# same user programs, this kernel), and BENCH_CMDLINE after each
# topology's own words (the last word wins): no page poisoning (single
# boots with it for the tests: every free fills the page, every allocation
# checks it), no empty-table check on each freed PTE table, no spinlock
# owner checks. The boot report's "Debug aids:" line, which every bench
# output carries, says what was off.
BENCH_B := $(B)/nodebug
BENCH_ISO := $(BENCH_B)/kernel.iso
# clear_huge_page_threshold_kb=0 undoes the 2 MiB threshold the test
# machines boot with (the last of a repeated option counts): benchmarks
# clear huge pages as the kernel chooses from CPUID.
BENCH_CMDLINE := page_poison=off pte_ref.debug=0 spinlock_debug=off clear_huge_page_threshold_kb=0
BENCH_RUNNER_ARGS := --iso $(BENCH_ISO) --topologies tests/topologies --accel $(ACCEL)
.PHONY: bench bench-kernel bench-pte bench-mempolicy bench-migrate bench-hugetlb bench-compare bench-fork
#> bench-kernel   the DEBUG_VM=0 kernel and ISO the benchmarks boot (build/nodebug/)
bench-kernel: $(RUNNER)
	@$(MAKE) --no-print-directory B=$(BENCH_B) DEBUG_VM=0 $(BENCH_B)/kernel.elf
	@$(MAKE) --no-print-directory $(BENCH_ISO)
$(BENCH_ISO): $(BENCH_B)/kernel.elf boot/grub.cfg $(INITRAMFS)
	$(call make_iso,$(BENCH_B)/kernel.elf,$(BENCH_B)/iso,$(INITRAMFS))

# Benchmarks: the allocator natively on the host (the figures that mean
# something) and the user benchmark programs on the host's Linux, then the
# same shapes inside the kernel under QEMU, the user programs as mmlab
# processes (emulated: relative costs only; with ICOUNT=1 every guest
# nanosecond is one instruction, so two versions of the kernel can be
# compared exactly). Figures go to build/bench/.
BENCH_TOPOLOGIES ?= default pci-hole-6g
#> bench          every benchmark: host-native, the user programs on the host, in-kernel, then bench-pte,
#>                bench-mempolicy, bench-migrate, bench-hugetlb and bench-compare (ICOUNT=1: in instructions)
bench:
	@tools/deps.sh run
	@$(MAKE) --no-print-directory bench-kernel $(B)/host/bench_page_alloc
	@echo "== host-native benchmarks (build/bench/host.txt)"
	@$(MAKE) --no-print-directory bench-host
	@echo "== the user benchmark programs on the host's Linux, native (build/bench/user-linux.txt)"
	@$(MAKE) --no-print-directory bench-user-linux
	@$(MAKE) --no-print-directory bench-inkernel
	@$(MAKE) --no-print-directory bench-pte
	@$(MAKE) --no-print-directory bench-mempolicy
	@$(MAKE) --no-print-directory bench-migrate
	@$(MAKE) --no-print-directory bench-hugetlb
	@$(MAKE) --no-print-directory bench-compare
	@$(MAKE) --no-print-directory bench-fork

# The in-kernel benchmarks alone (the page allocator, vmalloc and kvmalloc,
# IPIs and spinlocks, then the user programs as mmlab processes): one boot
# with "bench" per topology of BENCH_TOPOLOGIES, the bench kernel, debug
# aids off. Figures: build/bench/kernel-TOPOLOGY.txt.
.PHONY: bench-inkernel
#> bench-inkernel the in-kernel benchmarks on BENCH_TOPOLOGIES (ICOUNT=1: in instructions)
bench-inkernel:
	@$(MAKE) --no-print-directory bench-kernel
	@mkdir -p $(B)/bench
	@for t in $(BENCH_TOPOLOGIES); do \
		echo "== in-kernel benchmarks on '$$t' under $(ACCEL)$(if $(ICOUNT), with -icount shift=0 (ns are instructions)) (build/bench/kernel-$$t.txt)"; \
		$(RUNNER) run $(BENCH_RUNNER_ARGS) $(if $(ICOUNT),--icount) --cmdline "bench $(BENCH_CMDLINE)" $$t </dev/null | \
			tr -d '\r' | sed -n '/^Debug aids:/p; /^Spinlocks:/p; /==== in-kernel benchmarks/,/==== end of benchmarks/p' | \
			tee $(B)/bench/kernel-$$t.txt; \
	done

# The PTE-table modes' table (docs/pte_tables.md): the user benchmark programs booted
# once per pte_reclaim mode, always under -icount shift=0 (every guest ns is
# one instruction: the modes differ by ~1%, which TCG's wall clock would
# hide). BENCH_PTE_SINGLE run on 'single' (1 vCPU); BENCH_PTE_SMP on
# 'default' (4 vCPUs, for T = 1, 2, 4 threads: under -icount one TCG thread
# runs all vCPUs, so a figure there is the instructions of all CPUs
# together per fault). pte_table_growth_full is the cover letter's whole
# workload, ~72 G instructions per mode: drop it from BENCH_PTE_SINGLE for
# a quick run. The debug aids are off (BENCH_CMDLINE, $(BENCH_ISO)): the
# empty-table check on every free, for one, is a make test aid, not part of
# either design. Figures: build/bench/pte-MODE.txt.
BENCH_PTE_MODES ?= refcount scan off
BENCH_PTE_SINGLE ?= multi_fault,mmap_munmap,pte_table_growth_full
BENCH_PTE_SMP ?= pte_multi_fault
#> bench-pte      the pte_reclaim modes' table, in instructions (docs/pte_tables.md)
bench-pte:
	@$(MAKE) --no-print-directory bench-kernel
	@mkdir -p $(B)/bench
	@for m in $(BENCH_PTE_MODES); do \
		echo "== pte_reclaim=$$m, -icount shift=0 (ns are instructions), debug aids off: $(BENCH_PTE_SINGLE) on 'single', $(BENCH_PTE_SMP) on 'default' ($(B)/bench/pte-$$m.txt)"; \
		for run in "single $(BENCH_PTE_SINGLE)" "default $(BENCH_PTE_SMP)"; do \
			set -- $$run; \
			$(RUNNER) run $(BENCH_RUNNER_ARGS) --icount --cmdline "run=$$2 pte_reclaim=$$m $(BENCH_CMDLINE)" $$1 </dev/null; \
		done | tr -d '\r' | grep -a -E '^(bench:|pte_reclaim:|Debug aids:|Spinlocks:|mmlab: .* exited)' | tee $(B)/bench/pte-$$m.txt; \
	done

# The NUMA policies' figures (docs/mempolicy.md): the user benchmark mempolicy_fault
# (ns per fault under each memory policy, move_pages pages per second, and
# where each policy's pages landed, node by node) on 'default' (4 nodes)
# under -icount shift=0, so a guest ns is one instruction (all vCPUs on one
# TCG thread). Then the same binary on Linux 6.1 in the same machine
# ('linux-ring', default's QEMU lines), for its placement lines: plain TCG,
# since Linux 6.1 does not bring up four CPUs under -icount, so its times
# there are emulated nanoseconds, not instructions. Figures:
# build/bench/mempolicy.txt and build/bench/mempolicy-linux.txt.
#> bench-mempolicy  the per-policy fault costs, in instructions, and the placement beside Linux 6.1 (docs/mempolicy.md)
bench-mempolicy:
	@tools/deps.sh test
	@$(MAKE) --no-print-directory bench-kernel linux-guest
	@mkdir -p $(B)/bench
	@echo "== mmlab on 'default', -icount shift=0, debug aids off: mempolicy_fault ($(B)/bench/mempolicy.txt)"
	@$(RUNNER) run $(BENCH_RUNNER_ARGS) --icount --cmdline "run=mempolicy_fault $(BENCH_CMDLINE)" default </dev/null | \
		tr -d '\r' | grep -a -E '^(bench:|Debug aids:|Spinlocks:|mmlab: .* exited)' | tee $(B)/bench/mempolicy.txt
	@echo "== Linux 6.1 on 'linux-ring' under $(ACCEL) (times emulated): mempolicy_fault ($(B)/bench/mempolicy-linux.txt)"
	@$(RUNNER) run $(BENCH_RUNNER_ARGS) $(LINUX_RUNNER_ARGS) --cmdline "run=mempolicy_fault clearcpuid=" linux-ring </dev/null | \
		tr -d '\r' | grep -a -E '^(bench:|init: running on|linux: )' | tee $(B)/bench/mempolicy-linux.txt

# Migration into a node that cannot hold the pages (tests/user/bench/migrate_cost.c):
# migrate_pages of the same pages into room for all of them, for half,
# and for none, on 'default' under -icount shift=0 (ns are instructions).
# Figures: build/bench/migrate.txt.
#> bench-migrate  migrate_pages into a node with room for all, half and none, in instructions
bench-migrate:
	@$(MAKE) --no-print-directory bench-kernel
	@mkdir -p $(B)/bench
	@$(RUNNER) run $(BENCH_RUNNER_ARGS) --icount --cmdline "run=migrate_cost $(BENCH_CMDLINE)" default </dev/null | \
		tr -d '\r' | grep -a -E '^(bench:|Debug aids:|Spinlocks:|mmlab: .* exited)' | tee $(B)/bench/migrate.txt

# The huge pages' VM creation in the kernel (tests/user/tests/vm_create.c): 1 GiB
# of 2 MiB pages, then of 1 GiB pages, MAP_HUGETLB|MAP_POPULATE under each
# clearing method, on the topologies of BENCH_HUGETLB_TOPOLOGIES
# (pci-hole-6g has a free 1 GiB block): every byte zero, the path counted
# in /proc/vmstat, no fence assertion. A check, not a speed (TCG): the
# speeds are make bench-host's. Lines in build/bench/hugetlb-TOPOLOGY.txt.
# The run-time debug aids are off (BENCH_CMDLINE), but this is the test
# build's kernel: CONFIG_DEBUG_VM's fence check is what "no fence
# assertion" checks, and nothing here is a figure to compare.
BENCH_HUGETLB_TOPOLOGIES ?= pci-hole-6g default
#> bench-hugetlb  1 GiB of huge pages made under each clearing method, checked
bench-hugetlb:
	@$(MAKE) --no-print-directory $(B)/kernel.iso $(RUNNER)
	@mkdir -p $(B)/bench
	@for t in $(BENCH_HUGETLB_TOPOLOGIES); do \
		echo "== vm_create on '$$t' under $(ACCEL) ($(B)/bench/hugetlb-$$t.txt)"; \
		$(RUNNER) run $(RUNNER_ARGS) --cmdline "run=vm_create vm_create.mib=1024 $(BENCH_CMDLINE)" $$t </dev/null | \
			tr -d '\r' | grep -a -E '^(bench:|Debug aids:|Spinlocks:|mmlab: .* exited|BUG)' | tee $(B)/bench/hugetlb-$$t.txt; \
	done

# mmlab beside Linux 6.1, counted the same way (docs/pte_tables.md): the
# user benchmark programs BENCH_COMPARE_PROGRAMS on 'single' under each
# pte_reclaim mode (the bench kernel, debug aids off) and on 'linux-single'
# (Debian's Linux 6.1 on the same machine: one CPU, 512 MiB, no NUMA
# tables; its init runs them when run= names them), all under -icount
# shift=0, so every figure is instructions. Linux boots as it is (4 KiB
# pages cleared with clear_page_erms, whose REP STOSB QEMU counts per
# byte: the empty clearcpuid= undoes the topology's, since Linux takes
# the last of a repeated option), then runs BENCH_COMPARE_CLEAR_PROGRAMS
# twice more: with
# clearcpuid=erms (clear_page_rep: 512 REP STOSQ iterations) and with
# clearcpuid=erms,rep_good (clear_page_orig: 64 loops of 8 MOVs, 11
# instructions a loop, as mmlab's memset for __GFP_ZERO; it also moves
# Linux's memcpy and copy_user to their unrolled forms). Each boot's lines
# in build/bench/compare-*.txt; the table (tools/linux/bench_compare.py) in
# build/bench/compare.txt. pte_table_growth_full (the cover letter's whole
# workload) takes minutes per boot (Linux's most): drop it for a quick run.
BENCH_COMPARE_PROGRAMS ?= multi_fault,mmap_munmap,pte_multi_fault,mempolicy_fault,pte_table_growth_full
BENCH_COMPARE_CLEAR_PROGRAMS ?= multi_fault
BENCH_COMPARE_MODES := off scan refcount
BENCH_COMPARE_LINUX := linux:clearcpuid= linux-noerms:clearcpuid=erms linux-orig:clearcpuid=erms,rep_good
#> bench-compare  mmlab (each pte_reclaim mode) beside Linux 6.1 on one CPU, in instructions
bench-compare:
	@tools/deps.sh test
	@$(MAKE) --no-print-directory bench-kernel linux-guest
	@mkdir -p $(B)/bench
	@for m in $(BENCH_COMPARE_MODES); do \
		echo "== mmlab on 'single', pte_reclaim=$$m, -icount shift=0, debug aids off: $(BENCH_COMPARE_PROGRAMS) ($(B)/bench/compare-mmlab-$$m.txt)"; \
		$(RUNNER) run $(BENCH_RUNNER_ARGS) --icount \
			--cmdline "run=$(BENCH_COMPARE_PROGRAMS) pte_reclaim=$$m $(BENCH_CMDLINE)" single </dev/null | \
			tr -d '\r' | grep -a -E '^(bench:|pte_reclaim:|Debug aids:|Spinlocks:|mmlab: .* exited)' \
			> $(B)/bench/compare-mmlab-$$m.txt || exit 1; \
	done
	@for v in $(BENCH_COMPARE_LINUX); do \
		name=$${v%%:*} words=$${v#*:} progs=$(BENCH_COMPARE_CLEAR_PROGRAMS); \
		[ "$$name" = linux ] && progs=$(BENCH_COMPARE_PROGRAMS); \
		echo "== Linux 6.1 on 'linux-single'$${words:+ with $$words}, -icount shift=0: $$progs ($(B)/bench/compare-$$name.txt)"; \
		$(RUNNER) run $(BENCH_RUNNER_ARGS) $(LINUX_RUNNER_ARGS) --icount \
			--cmdline "run=$$progs $$words" linux-single </dev/null | \
			tr -d '\r' | grep -a -E '^(bench:|init: running on|linux: )' > $(B)/bench/compare-$$name.txt || exit 1; \
	done
	@python3 $(LINUX_DIR)/bench_compare.py $(B)/bench > $(B)/bench/compare.txt
	@cat $(B)/bench/compare.txt


# fork's cost (docs/fork_and_cow.md): tests/user/bench/fork_cost.c, fork +
# exit + wait4 of a process with 1, 64 and 1024 MiB of touched 4 KiB pages
# and a copy-on-write fault (the program's defaults: 8 forks per size,
# 1,024 faults), on 'single-4g' (one CPU, 4 GiB, no NUMA
# tables: tests/bench-topologies/) under each pte_reclaim mode (the bench
# kernel, debug aids off) and on Linux 6.1 in the same machine, all under
# -icount shift=0 (ns are instructions). Linux clears and copies 4 KiB
# pages with REP STOSB/MOVSB, which QEMU counts per byte; it runs a second
# time with clearcpuid=erms,rep_good (its unrolled clear_page_orig and
# memcpy, as mmlab's). Lines in build/bench/fork-*.txt, the table in
# build/bench/fork.txt.
BENCH_FORK_TOPOLOGIES := --topologies tests/bench-topologies
#> bench-fork     fork+exit+wait4 and the COW fault, mmlab (each pte_reclaim mode) beside Linux 6.1, in instructions
bench-fork:
	@tools/deps.sh test
	@$(MAKE) --no-print-directory bench-kernel linux-guest
	@mkdir -p $(B)/bench
	@for m in $(BENCH_COMPARE_MODES); do \
		echo "== mmlab on 'single-4g', pte_reclaim=$$m, -icount shift=0, debug aids off ($(B)/bench/fork-mmlab-$$m.txt)"; \
		$(RUNNER) run --iso $(BENCH_ISO) $(BENCH_FORK_TOPOLOGIES) --accel $(ACCEL) --icount \
			--cmdline "run=fork_cost pte_reclaim=$$m $(BENCH_CMDLINE)" single-4g </dev/null | \
			tr -d '\r' | grep -a -E '^(bench:|Debug aids:|mmlab: .* exited)' | tee $(B)/bench/fork-mmlab-$$m.txt || exit 1; \
	done
	@for v in linux:- linux-orig:clearcpuid=erms,rep_good; do \
		name=$${v%%:*} words=$${v#*:}; [ "$$words" = - ] && words=; \
		echo "== Linux 6.1 on 'linux-single-4g'$${words:+ with $$words}, -icount shift=0 ($(B)/bench/fork-$$name.txt)"; \
		$(RUNNER) run --iso $(BENCH_ISO) $(BENCH_FORK_TOPOLOGIES) --accel $(ACCEL) $(LINUX_RUNNER_ARGS) --icount \
			--cmdline "run=fork_cost $$words" linux-single-4g </dev/null | \
			tr -d '\r' | grep -a -E '^(bench:|init: running on|linux: )' | tee $(B)/bench/fork-$$name.txt || exit 1; \
	done

# Swap's cost (docs/swap.md): tests/user/bench/swap_cost.c, pages swapped
# out with MADV_PAGEOUT and read back in order (page-cluster as set, then
# 0), on 'swap-1cpu' (one CPU, 512 MiB, the 512 MiB swap disk:
# tests/bench-topologies/) with the bench kernel and on Linux 6.1 in the
# same machine, under -icount shift=0 (the program subtracts the idle time
# the disk's waits leave in the clock). Lines in build/bench/swap-*.txt.
#> bench-swap     swap-out and swap-in per page, mmlab beside Linux 6.1, in instructions
.PHONY: bench-swap
bench-swap:
	@tools/deps.sh test
	@$(MAKE) --no-print-directory bench-kernel linux-guest
	@mkdir -p $(B)/bench
	@echo "== mmlab on 'swap-1cpu', -icount shift=0, debug aids off ($(B)/bench/swap-mmlab.txt)"
	@$(RUNNER) run --iso $(BENCH_ISO) $(BENCH_FORK_TOPOLOGIES) --accel $(ACCEL) --icount \
		--cmdline "run=swap_cost $(BENCH_CMDLINE)" swap-1cpu </dev/null | \
		tr -d '\r' | grep -a -E '^(bench:|Debug aids:|mmlab: .* exited)' | tee $(B)/bench/swap-mmlab.txt
	@echo "== Linux 6.1 on 'linux-swap-1cpu', -icount shift=0 ($(B)/bench/swap-linux.txt)"
	@$(RUNNER) run --iso $(BENCH_ISO) $(BENCH_FORK_TOPOLOGIES) --accel $(ACCEL) $(LINUX_RUNNER_ARGS) --icount \
		--cmdline "run=swap_cost" linux-swap-1cpu </dev/null | \
		tr -d '\r' | grep -a -E '^(bench:|init: running on|linux: )' | tee $(B)/bench/swap-linux.txt
