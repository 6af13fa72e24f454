# mmlab: build the kernel and its ISO, boot it, test it.
#
#   make          build/kernel.elf and build/kernel.iso
#   make run      boot the default machine (4 nodes) with the console here
#   make test     every test: host tests, then every topology in the matrix
#                 (linux-ring among them: Debian's Linux on the default machine)
#   make compare  the user programs on mmlab (default) and on Linux (linux-ring),
#                 side by side (FILTER defaults to 'user.*' here)
#   make bench    benchmarks: on the host natively, then in the kernel (build/bench/);
#                 make bench-pte: only the per-pte_reclaim-mode table;
#                 make bench-mempolicy: only the per-policy fault costs;
#                 make bench-migrate: migrate_pages into a node with room for all, half, none;
#                 make bench-compare: mmlab (each pte_reclaim mode) beside
#                 Linux 6.1 on the same 1-CPU machine, in instructions
#                 (benchmarks boot a DEBUG_VM=0 kernel, debug aids off)
#   make fuzz     the system-call fuzzer, longer: FUZZ_CALLS per seed of FUZZ_SEEDS,
#                 on the host's Linux and on mmlab (build/fuzz-results/)
#   make debug    boot halted, with gdb attached to QEMU's stub
#   make deps     install the Debian packages the above need (as root); run,
#                 test, bench and debug install them too, a plain make does not
#   make clean
#
# Options: CROSS_COMPILE=x86_64-elf-  ACCEL=tcg|kvm  TOPOLOGY=name
#          FILTER='suite.case-glob'  JOBS=n  V=1
#          ICOUNT=1 (make bench: the in-kernel figures in instructions, one
#          guest ns per instruction under QEMU's -icount shift=0)

CROSS_COMPILE ?=
CC      := $(CROSS_COMPILE)gcc
LD      := $(CROSS_COMPILE)ld
NM      := $(CROSS_COMPILE)nm
NASM    ?= nasm
HOSTCC  ?= gcc
ACCEL   ?= tcg
TOPOLOGY ?=
FILTER  ?=
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)

# Quiet by default; V=1 shows the commands.
ifeq ($(V),1)
Q :=
say := @true
else
Q := @
say = @printf '  %-8s %s\n'
endif

B := build
O := $(B)/obj

KERNEL_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wmissing-prototypes -Wmissing-declarations \
	-ffreestanding -nostdinc -isystem $(shell $(CC) -print-file-name=include) \
	-fno-pic -fno-pie -mcmodel=kernel -mno-red-zone -mgeneral-regs-only \
	-fno-stack-protector -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-fno-asynchronous-unwind-tables -fno-tree-loop-distribute-patterns \
	-fno-strict-aliasing -fcf-protection=none -I. -MMD -MP
# DEBUG_VM=1 (the default): Linux's CONFIG_DEBUG_VM checks, such as the
# unfenced-clear check of set_pte_at/set_pmd_at (mm/clear_page.h).
DEBUG_VM ?= 1
ifeq ($(DEBUG_VM),1)
KERNEL_CFLAGS += -DCONFIG_DEBUG_VM
endif
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack --no-warn-rwx-segments -T linker.ld
HOST_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wmissing-prototypes -Wmissing-declarations
# AddressSanitizer reserves terabytes of shadow address space up front,
# which a host with vm.overcommit_memory = 2 refuses (every sanitized
# program aborts at start): there the host tests are built with
# UndefinedBehaviorSanitizer alone, and the build says so.
ifeq ($(shell cat /proc/sys/vm/overcommit_memory 2>/dev/null),2)
SANITIZE_NAME := ubsan
SANITIZE := -fsanitize=undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
$(info note: vm.overcommit_memory is 2 on this host, where AddressSanitizer cannot reserve its shadow memory: the host tests are built with UBSan only)
else
SANITIZE_NAME := asan
SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
SANITIZE_STAMP := $(B)/host/sanitize-flags

# Each folder lists what it links into the kernel (<folder>/objects.mk). A
# source file in those folders that no list names stops the build, so a
# file is never linked, or left out, by accident of where it sits; one that
# is not for the kernel goes in KERNEL_NOT_LINKED with the reason beside it.
KERNEL_DIRS := boot arch/x86_64 kernel mm tests
KERNEL_SRCS :=
KERNEL_NOT_LINKED :=
include $(addsuffix /objects.mk,$(KERNEL_DIRS))
KERNEL_C   := $(filter %.c,$(KERNEL_SRCS))
KERNEL_ASM := $(filter %.asm,$(KERNEL_SRCS))
KERNEL_UNLISTED := $(filter-out $(KERNEL_SRCS) $(KERNEL_NOT_LINKED),\
	$(wildcard $(addsuffix /*.c,$(KERNEL_DIRS)) $(addsuffix /*.asm,$(KERNEL_DIRS))))
ifneq ($(KERNEL_UNLISTED),)
$(error $(KERNEL_UNLISTED): in no objects.mk list; add each to its folder's objects.mk (or KERNEL_NOT_LINKED))
endif
KERNEL_OBJS := $(patsubst %.c,$(O)/%.o,$(KERNEL_C)) $(patsubst %.asm,$(O)/%.o,$(KERNEL_ASM))

# The judge's part (KTAP parser, boot judge, kunit_tool reader) is shared
# with the runner's self-test.
RUNNER_JUDGE_SRCS := tests/runner/ktap.c tests/runner/judge.c tests/runner/kunit_tool.c \
	tests/runner/xalloc.c
RUNNER_SRCS := tests/runner/runner.c tests/runner/options.c tests/runner/qemu.c \
	tests/runner/jobs.c tests/runner/topology.c tests/runner/report.c tests/runner/hostile.c \
	$(RUNNER_JUDGE_SRCS)
RUNNER := $(B)/host/mmlab-runner
HOST_TESTS := $(B)/host/runner-selftest
RUNNER_ARGS := --iso $(B)/kernel.iso --topologies tests/topologies --accel $(ACCEL)

# The first rule, so that a plain `make` builds the ISO (user.mk's rules come next).
all: $(B)/kernel.iso

# User programs (tests/user/): USER_ELFS for the ISO, USER_HOST_TESTS (their
# Linux builds, run on the host) for the runner.
-include tests/user/user.mk
HOST_TESTS += $(USER_HOST_TESTS)

# The Linux side: Debian's kernel and an initramfs of the same user programs,
# booted by the kernel = linux topologies (tests/topologies/linux-*.topo).
include tools/linux/linux.mk

.PHONY: kunit-tool
kunit-tool:
	@tests/runner/kunit-tool.sh >/dev/null

.PHONY: all deps run test compare debug bench bench-pte bench-mempolicy bench-migrate bench-hugetlb bench-compare fuzz clean \
	host-tests

deps:
	@tools/deps.sh

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@

# The AP trampoline is a flat real-mode binary, embedded by trampoline_blob.asm.
$(B)/trampoline.bin: arch/x86_64/trampoline.nasm
	@mkdir -p $(dir $@)
	$(say) NASM $<
	$(Q)$(NASM) -f bin -o $@ $<
$(O)/arch/x86_64/trampoline_blob.o: $(B)/trampoline.bin

$(O)/%.o: %.asm
	@mkdir -p $(dir $@)
	$(say) NASM $<
	$(Q)$(NASM) -f elf64 -g -F dwarf -I. -MD $(@:.o=.d) -MP -o $@ $<

# The symbol table is made from a first link and linked into a second; the
# .ksyms section follows text and rodata, so no code address moves (checked).
$(B)/host/gensyms: tools/gensyms.c
	@mkdir -p $(dir $@)
	$(say) HOSTCC $@
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -o $@ $<

$(B)/ksyms0.c: $(B)/host/gensyms
	$(Q)$(B)/host/gensyms < /dev/null > $@

$(B)/kernel.pass1.elf: $(KERNEL_OBJS) $(O)/ksyms0.o linker.ld
	$(say) LD $@
	$(Q)$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS) $(O)/ksyms0.o

$(B)/ksyms.c: $(B)/kernel.pass1.elf $(B)/host/gensyms
	$(Q)$(NM) -n -S --defined-only $< | $(B)/host/gensyms > $@

$(O)/ksyms0.o: $(B)/ksyms0.c
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@
$(O)/ksyms.o: $(B)/ksyms.c
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(B)/kernel.elf: $(B)/kernel.pass1.elf $(O)/ksyms.o
	$(say) LD $@
	$(Q)$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS) $(O)/ksyms.o
	@$(NM) -n $(B)/kernel.pass1.elf | grep -i ' t ' > $(B)/text1.syms
	@$(NM) -n $@ | grep -i ' t ' > $(B)/text2.syms
	@cmp -s $(B)/text1.syms $(B)/text2.syms || \
		{ echo "error: linking the symbol table moved code"; exit 1; }

# The user programs ride along as multiboot2 modules, one line each in the
# ISO's grub.cfg: "module2 /boot/user/<name>.elf <kind> <name>".
user_module_lines = $(foreach k,test crash bench demo aux,$(foreach n,$(USER_$(shell echo $(k) | tr a-z A-Z)_NAMES),\
	module2 /boot/user/$(n).elf $(k) $(n)\n))
# No package installation here: make deps, run, test, debug and bench do it.
# make_iso(kernel ELF, staging folder): the ISO $@ of that kernel and USER_ELFS.
define make_iso
	@rm -rf $(2) && mkdir -p $(2)/boot/grub $(2)/boot/user
	$(say) ISO $@
	$(Q)cp $(1) $(2)/boot/kernel.elf
	$(Q)$(if $(USER_ELFS),cp $(USER_ELFS) $(2)/boot/user/)
	$(Q)printf '$(strip $(user_module_lines))' | sed 's/^ *//' > $(2).modules.cfg
	$(Q)awk -v mods=$(2).modules.cfg '/^\tmultiboot2 /{print; while ((getline l < mods) > 0) print "\t" l; next} {print}' \
		boot/grub.cfg > $(2)/boot/grub/grub.cfg
	$(Q)grub-mkrescue -o $@ $(2) > $(2).grub-mkrescue.log 2>&1 || \
		{ cat $(2).grub-mkrescue.log; exit 1; }
endef
$(B)/kernel.iso: $(B)/kernel.elf boot/grub.cfg $(USER_ELFS)
	$(call make_iso,$(B)/kernel.elf,$(B)/iso)

$(RUNNER): $(RUNNER_SRCS) $(wildcard tests/runner/*.h)
	@mkdir -p $(dir $@)
	$(say) HOSTCC $@
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -o $@ $(RUNNER_SRCS)

# Changes (and so relinks the sanitized programs) only when the set does.
$(SANITIZE_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(SANITIZE)' | cmp -s - $@ 2>/dev/null || echo '$(SANITIZE)' > $@

# The self-test also reads .topo files and builds QEMU command lines.
RUNNER_SELFTEST_SRCS := tests/runner/selftest.c $(RUNNER_JUDGE_SRCS) tests/runner/topology.c \
	tests/runner/hostile.c tests/runner/qemu.c tests/runner/jobs.c tests/runner/options.c
$(B)/host/runner-selftest: $(RUNNER_SELFTEST_SRCS) $(wildcard tests/runner/*.h) $(SANITIZE_STAMP)
	@mkdir -p $(dir $@)
	$(say) HOSTCC $@
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(SANITIZE) -o $@ $(RUNNER_SELFTEST_SRCS)

run:
	@tools/deps.sh run
	@$(MAKE) -j$(JOBS) --no-print-directory $(B)/kernel.iso $(RUNNER)
	@$(RUNNER) run $(RUNNER_ARGS) $(or $(TOPOLOGY),default)

# Hostile firmware tables (tools/hostile/): hostile_gen writes
# HOSTILE_COUNT cases (the first 27 are one of each class: SRAT, SLIT, MADT,
# each naming the field it damages) from HOSTILE_SEED into build/hostile/:
# a table file, a .topo (the machine, how the table gets there, the
# warnings the kernel must print) and the GRUB case files of
# build/hostile/hostile.iso (the kernel alone, booted with
# tools/hostile/grub.cfg). `make test` boots HOSTILE_COUNT of them beside
# the matrix; `make test-hostile` boots HOSTILE_LONG_COUNT alone.
HOSTILE_SEED ?= 1
HOSTILE_COUNT ?= 27
HOSTILE_LONG_COUNT ?= 270
HOSTILE := $(B)/hostile
$(B)/host/hostile_gen: tools/hostile/hostile_gen.c
	@mkdir -p $(dir $@)
	$(say) HOSTCC $@
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -o $@ $<
# $(1): how many cases. Regenerated on every run (a few milliseconds, and
# the ISO takes a few seconds), so the seed and count are always the ones asked.
define hostile_prepare
	$(Q)rm -rf $(HOSTILE) && $(B)/host/hostile_gen --seed $(HOSTILE_SEED) --count $(1) \
		--out $(HOSTILE) --iso $(HOSTILE)/hostile.iso
	$(Q)mkdir -p $(HOSTILE)/iso/boot/grub && cp $(B)/kernel.elf $(HOSTILE)/iso/boot/kernel.elf && \
		cp tools/hostile/grub.cfg $(HOSTILE)/iso/boot/grub/grub.cfg
	$(Q)grub-mkrescue -o $(HOSTILE)/hostile.iso $(HOSTILE)/iso > $(HOSTILE)/grub-mkrescue.log 2>&1 || \
		{ cat $(HOSTILE)/grub-mkrescue.log; exit 1; }
endef
.PHONY: hostile-cases test-hostile
hostile-cases: $(B)/kernel.elf $(B)/host/hostile_gen
	$(call hostile_prepare,$(HOSTILE_COUNT))
test-hostile:
	@tools/deps.sh test
	@$(MAKE) -j$(JOBS) --no-print-directory $(B)/kernel.elf $(B)/host/hostile_gen $(RUNNER)
	$(call hostile_prepare,$(HOSTILE_LONG_COUNT))
	@$(RUNNER) test --iso $(HOSTILE)/hostile.iso --topologies $(HOSTILE)/topologies --accel $(ACCEL) \
		--results $(B)/hostile-results --jobs $(JOBS)

# The Linux guest is built (its kernel fetched once) only when a Linux
# topology may boot: every topology, or TOPOLOGY=linux-*.
test_boots_linux := $(if $(TOPOLOGY),$(filter linux-%,$(TOPOLOGY)),all)
test_boots_hostile := $(if $(TOPOLOGY),$(filter hostile-%,$(TOPOLOGY)),all)
# The build runs JOBS-wide, kunit_tool's extraction (a 140 MB xz) and the
# Linux guest's fetch beside the compilers.
test:
	@tools/deps.sh test
	@$(MAKE) -j$(JOBS) --no-print-directory $(B)/kernel.iso $(RUNNER) $(HOST_TESTS) kunit-tool \
		$(if $(test_boots_linux),linux-guest) $(if $(test_boots_hostile),hostile-cases)
	@kunit_tool=$$(tests/runner/kunit-tool.sh) && \
	$(RUNNER) test $(RUNNER_ARGS) \
		$(if $(test_boots_hostile),--topologies tests/topologies:$(HOSTILE)/topologies) \
		$(LINUX_RUNNER_ARGS) --results $(B)/test-results --jobs $(JOBS) \
		--kunit-tool "$$kunit_tool" \
		$(if $(TOPOLOGY),--topology $(TOPOLOGY)) $(if $(FILTER),--filter '$(FILTER)') \
		$(foreach t,$(HOST_TESTS),--host $(t))

# The same user programs on both kernels, on the same machine: mmlab's
# default topology (suite "user") and Linux's linux-ring (suite "linux"),
# then one line per program with both results (tools/linux/compare.py).
# Results in build/compare-results/. Fails if either boot failed.
COMPARE_TOPOLOGIES := default linux-ring
compare:
	@tools/deps.sh test
	@$(MAKE) -j$(JOBS) --no-print-directory $(B)/kernel.iso $(RUNNER) linux-guest
	@rc=0; $(RUNNER) test $(RUNNER_ARGS) $(LINUX_RUNNER_ARGS) --results $(B)/compare-results \
		--jobs $(JOBS) $(foreach t,$(COMPARE_TOPOLOGIES),--topology $(t)) \
		--filter '$(or $(FILTER),user.*)' || rc=$$?; \
	echo; python3 $(LINUX_DIR)/compare.py $(B)/compare-results/results.json \
		default:user linux-ring:linux || rc=1; \
	exit $$rc

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
BENCH_CMDLINE := page_poison=off pte_ref.debug=0 spinlock_debug=off
BENCH_RUNNER_ARGS := --iso $(BENCH_ISO) --topologies tests/topologies --accel $(ACCEL)
.PHONY: bench-kernel
bench-kernel: $(RUNNER)
	@$(MAKE) --no-print-directory B=$(BENCH_B) DEBUG_VM=0 $(BENCH_B)/kernel.elf
	@$(MAKE) --no-print-directory $(BENCH_ISO)
$(BENCH_ISO): $(BENCH_B)/kernel.elf boot/grub.cfg $(USER_ELFS)
	$(call make_iso,$(BENCH_B)/kernel.elf,$(BENCH_B)/iso)

# Benchmarks: the allocator natively on the host (the figures that mean
# something) and the user benchmark programs on the host's Linux, then the
# same shapes inside the kernel under QEMU, the user programs as mmlab
# processes (emulated: relative costs only; with ICOUNT=1 every guest
# nanosecond is one instruction, so two versions of the kernel can be
# compared exactly). Figures go to build/bench/.
BENCH_TOPOLOGIES ?= default pci-hole-6g
bench:
	@tools/deps.sh run
	@$(MAKE) --no-print-directory bench-kernel $(B)/host/bench_page_alloc
	@echo "== host-native benchmarks (build/bench/host.txt)"
	@$(MAKE) --no-print-directory bench-host
	@echo "== the user benchmark programs on the host's Linux, native (build/bench/user-linux.txt)"
	@$(MAKE) --no-print-directory bench-user-linux
	@for t in $(BENCH_TOPOLOGIES); do \
		echo "== in-kernel benchmarks on '$$t' under $(ACCEL)$(if $(ICOUNT), with -icount shift=0 (ns are instructions)) (build/bench/kernel-$$t.txt)"; \
		$(RUNNER) run $(BENCH_RUNNER_ARGS) $(if $(ICOUNT),--icount) --cmdline "bench $(BENCH_CMDLINE)" $$t </dev/null | \
			tr -d '\r' | sed -n '/^Debug aids:/p; /^Spinlocks:/p; /==== in-kernel benchmarks/,/==== end of benchmarks/p' | \
			tee $(B)/bench/kernel-$$t.txt; \
	done
	@$(MAKE) --no-print-directory bench-pte
	@$(MAKE) --no-print-directory bench-mempolicy
	@$(MAKE) --no-print-directory bench-migrate
	@$(MAKE) --no-print-directory bench-hugetlb
	@$(MAKE) --no-print-directory bench-compare

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
# (ns per fault under each memory policy, move_pages pages per second) on
# 'default' (4 nodes) under -icount shift=0, so a guest ns is one
# instruction (all vCPUs on one TCG thread). Figures: build/bench/mempolicy.txt.
bench-mempolicy:
	@$(MAKE) --no-print-directory bench-kernel
	@mkdir -p $(B)/bench
	@$(RUNNER) run $(BENCH_RUNNER_ARGS) --icount --cmdline "run=mempolicy_fault $(BENCH_CMDLINE)" default </dev/null | \
		tr -d '\r' | grep -a -E '^(bench:|Debug aids:|Spinlocks:|mmlab: .* exited)' | tee $(B)/bench/mempolicy.txt

# Migration into a node that cannot hold the pages (tests/user/bench/migrate_cost.c):
# migrate_pages of the same pages into room for all of them, for half,
# and for none, on 'default' under -icount shift=0 (ns are instructions).
# Figures: build/bench/migrate.txt.
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
# byte), then runs BENCH_COMPARE_CLEAR_PROGRAMS twice more: with
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
BENCH_COMPARE_LINUX := linux:- linux-noerms:clearcpuid=erms linux-orig:clearcpuid=erms,rep_good
.PHONY: bench-compare
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
		[ "$$words" = - ] && words= progs=$(BENCH_COMPARE_PROGRAMS); \
		echo "== Linux 6.1 on 'linux-single'$${words:+ with $$words}, -icount shift=0: $$progs ($(B)/bench/compare-$$name.txt)"; \
		$(RUNNER) run $(BENCH_RUNNER_ARGS) $(LINUX_RUNNER_ARGS) --icount \
			--cmdline "run=$$progs $$words" linux-single </dev/null | \
			tr -d '\r' | grep -a -E '^(bench:|init: running on|linux: )' > $(B)/bench/compare-$$name.txt || exit 1; \
	done
	@python3 $(LINUX_DIR)/bench_compare.py $(B)/bench > $(B)/bench/compare.txt
	@cat $(B)/bench/compare.txt

# The longer run of the system-call fuzzer (tests/user/tests/syscall_fuzz.c;
# make test runs it with 100,000 calls and one seed): FUZZ_CALLS calls for
# each of FUZZ_SEEDS, natively on the host's Linux, then on mmlab (topology
# TOPOLOGY, default "default"; the program reads fuzz.calls= and fuzz.seed=
# from /proc/cmdline). Each mmlab boot is judged as make test judges it:
# the kernel survives, the program passes, every page comes back. Results in
# build/fuzz-results/seed-N/ (the host run's output: host-seed-N.txt).
FUZZ_CALLS ?= 2000000
FUZZ_SEEDS ?= 1 2 3
fuzz:
	@tools/deps.sh test
	@$(MAKE) --no-print-directory $(B)/kernel.iso $(RUNNER)
	@rc=0; for s in $(FUZZ_SEEDS); do \
		echo "== host Linux: $(FUZZ_CALLS) calls, seed $$s"; \
		mkdir -p $(B)/fuzz-results; \
		$(B)/user/syscall_fuzz.elf --calls $(FUZZ_CALLS) --seed $$s > $(B)/fuzz-results/host-seed-$$s.txt; \
		st=$$?; grep -v '^ok: ' $(B)/fuzz-results/host-seed-$$s.txt; \
		[ $$st -eq 0 ] || { echo "host Linux: the fuzzer exited with status $$st"; rc=1; }; \
		echo "== mmlab ($(or $(TOPOLOGY),default)): $(FUZZ_CALLS) calls, seed $$s"; \
		$(RUNNER) test $(RUNNER_ARGS) --results $(B)/fuzz-results/seed-$$s --jobs 1 \
			--topology $(or $(TOPOLOGY),default) --filter 'user.syscall_fuzz' \
			--cmdline "fuzz.calls=$(FUZZ_CALLS) fuzz.seed=$$s" || rc=1; \
		grep -a 'calls in' $(B)/fuzz-results/seed-$$s/$(or $(TOPOLOGY),default).log; \
	done; exit $$rc

debug:
	@tools/deps.sh debug
	@$(MAKE) --no-print-directory $(B)/kernel.iso $(RUNNER)
	@$(RUNNER) run --gdb $(RUNNER_ARGS) $(or $(TOPOLOGY),default) & \
	gdb -q $(B)/kernel.elf -ex 'target remote localhost:1234' -ex 'break start_kernel' -ex 'continue'; \
	kill %1 2>/dev/null; wait

clean:
	rm -rf $(B)

include tests/host/host.mk
HOST_TESTS += $(HOST_MM_TESTS)

# The kernel's dependency files; user.mk and host.mk include their own.
-include $(shell find $(O) -name '*.d' 2>/dev/null)
