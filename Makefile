# mmlab: build the kernel and its ISO, boot it, test it. `make help` lists
# every target with one line each (the #> lines of this file and the .mk
# files it includes).
#
#> all            build/kernel.elf and build/kernel.iso (a plain make)
#> run            boot the default machine (4 nodes) with the console here (TOPOLOGY=name, CMDLINE='kernel options')
#> test           every test: host tests, then every topology in the matrix (FILTER=suite.case-glob, TOPOLOGY=name)
#> compare        the user programs on mmlab (default) and on Linux 6.1 (linux-ring), side by side
#> compare-mm-selftests  Linux's mm selftests on mmlab and on Linux 6.1, side by side
#> debug          boot halted, with gdb attached to QEMU's stub and the mm-* helpers loaded (docs/gdb.md)
#> deps           install the Debian packages the above need (as root); run, test, bench and debug do it too
#> help           this list
#> clean          remove build/
#
# Options: CROSS_COMPILE=x86_64-elf-  ACCEL=tcg|kvm  TOPOLOGY=name
#          CMDLINE='words' (make run, make test: kernel options after the topology's)
#          FILTER='suite.case-glob'  JOBS=n  V=1
#          ICOUNT=1 (make bench: the in-kernel figures in instructions, one
#          guest ns per instruction under QEMU's -icount shift=0)

.DEFAULT_GOAL := all

CROSS_COMPILE ?=
CC      := $(CROSS_COMPILE)gcc
LD      := $(CROSS_COMPILE)ld
NM      := $(CROSS_COMPILE)nm
OBJCOPY := $(CROSS_COMPILE)objcopy
NASM    ?= nasm
HOSTCC  ?= gcc
ACCEL   ?= tcg
TOPOLOGY ?=
FILTER  ?=
# One job more than the CPUs: the build's compilers wait on the disk now
# and then, and make test's boots on their firmware, their guests' timers,
# QEMU's start and exit and the kunit.py parse after each. Two boots at a
# time on this 2-core machine left a tenth of its CPU time idle; three
# took the built tree's make test from 5 min 6 s to 4 min 3 s, with less
# CPU time in all (docs/testing.md). JOBS=1 still runs one at a time.
JOBS    ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) + 1 )))

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
KERNEL_DIRS := boot arch/x86_64 kernel lib drivers block fs mm ipc net tests
KERNEL_SRCS :=
KERNEL_NOT_LINKED :=
include $(addsuffix /objects.mk,$(KERNEL_DIRS))
KERNEL_C   := $(filter %.c,$(KERNEL_SRCS))
KERNEL_ASM := $(filter %.asm,$(KERNEL_SRCS))
# drivers/ and fs/ have subfolders as Linux's (drivers/acpi/numa, fs/proc);
# tests/ has host/, runner/ and user/, which are not the kernel's.
KERNEL_TREE := $(KERNEL_DIRS) $(shell find drivers fs -mindepth 1 -type d 2>/dev/null)
KERNEL_UNLISTED := $(filter-out $(KERNEL_SRCS) $(KERNEL_NOT_LINKED),\
	$(wildcard $(addsuffix /*.c,$(KERNEL_TREE)) $(addsuffix /*.asm,$(KERNEL_TREE))))
ifneq ($(KERNEL_UNLISTED),)
$(error $(KERNEL_UNLISTED): in no objects.mk list; add each to its folder's objects.mk (or KERNEL_NOT_LINKED))
endif
KERNEL_OBJS := $(patsubst %.c,$(O)/%.o,$(KERNEL_C)) $(patsubst %.asm,$(O)/%.o,$(KERNEL_ASM))

include tests/runner/runner.mk
RUNNER_ARGS := --iso $(B)/kernel.iso --topologies tests/topologies --accel $(ACCEL)

# The first rule, so that a plain `make` builds the ISO (user.mk's rules come next).
all: $(B)/kernel.iso

# User programs (tests/user/): USER_ELFS for the ISO, USER_HOST_TESTS (their
# Linux builds, run on the host) for the runner.
-include tests/user/user.mk
HOST_TESTS += $(USER_HOST_TESTS)

# The initramfs (the programs and their manifest), then the Linux side:
# Debian's kernel booted with that same archive and an /init of ours, by
# the kernel = linux topologies (tests/topologies/linux-*.topo).
include tools/initramfs/initramfs.mk
include tools/linux/linux.mk
include tools/initramfs/shell.mk
include tests/mm_selftests/mm_selftests.mk

.PHONY: kunit-tool
#> kunit-tool     fetch and unpack Linux's kunit_tool, which make test parses each log with
kunit-tool:
	@tests/runner/kunit-tool.sh >/dev/null

.PHONY: all deps run test compare compare-mm-selftests debug clean help

help:
	@sed -n 's/^#> //p' $(MAKEFILE_LIST)

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
# It is found in this build's folder (build/, or build/nodebug/ for the
# bench kernel), so each kernel embeds the trampoline its own build made.
$(O)/arch/x86_64/trampoline_blob.o: $(B)/trampoline.bin
$(O)/arch/x86_64/trampoline_blob.o: NASM_INCLUDE := -I$(B)/

$(O)/%.o: %.asm
	@mkdir -p $(dir $@)
	$(say) NASM $<
	$(Q)$(NASM) -f elf64 -g -F dwarf -I. $(NASM_INCLUDE) -MD $(@:.o=.d) -MP -o $@ $<

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

# iso_kernel(kernel ELF, copy): the kernel an ISO boots, without its DWARF
# (objcopy --strip-debug): the loaded segments, the symbol table and the
# kernel's own .ksyms are those of the ELF, so every address is the same,
# and gdb, make profile and the reports read the DWARF from the ELF in
# build/. GRUB reads the whole file from the CD: its 10 MB of DWARF cost
# every boot about 0.35 s of CPU under TCG (0.8 s against 1.15 s for a
# hostile-firmware boot).
iso_kernel = $(OBJCOPY) --strip-debug $(1) $(2)

# No package installation here: make deps, run, test, debug and bench do it.
# make_iso(kernel ELF, staging folder, initramfs[, more files for /boot,
# more module lines]): the ISO $@ of that kernel and that archive, the
# module "initramfs" (tools/initramfs/initramfs.mk), which holds the
# programs and their manifest: no module per program. The last two are
# what a user who brings a program of their own adds (docs/initramfs.md):
# build/user-module.iso's.
define make_iso
	@rm -rf $(2) && mkdir -p $(2)/boot/grub
	$(say) ISO $@
	$(Q)$(call iso_kernel,$(1),$(2)/boot/kernel.elf)
	$(Q)cp $(3) $(2)/boot/initramfs.cpio
	$(Q)$(if $(4),cp $(4) $(2)/boot/)
	$(Q)awk -v more='$(strip $(5))' '/^\tmultiboot2 /{print; print "\tmodule2 /boot/initramfs.cpio initramfs"; \
		n = split(more, l, "\n"); for (i = 1; i <= n; i++) if (l[i] != "") print "\t" l[i]; next} {print}' \
		boot/grub.cfg > $(2)/boot/grub/grub.cfg
	$(Q)grub-mkrescue -o $@ $(2) > $(2).grub-mkrescue.log 2>&1 || \
		{ cat $(2).grub-mkrescue.log; exit 1; }
endef
$(B)/kernel.iso: $(B)/kernel.elf boot/grub.cfg $(INITRAMFS)
	$(call make_iso,$(B)/kernel.elf,$(B)/iso,$(INITRAMFS))

# The user-module topology's ISO: the default one plus program modules a
# user would add to grub.cfg (one new, one the archive has under another
# kind, one with a kind that does not exist), which the kernel merges
# into /bin and its registry (fs/bin.c; tests/initramfs_test.c).
USER_MODULE_ISO := $(B)/user-module.iso
$(USER_MODULE_ISO): $(B)/kernel.elf boot/grub.cfg $(INITRAMFS) $(B)/user/hello.elf
	$(call make_iso,$(B)/kernel.elf,$(B)/iso-user-module,$(INITRAMFS),$(B)/user/hello.elf,\
		module2 /boot/hello.elf test module_hello\nmodule2 /boot/hello.elf aux hello\nmodule2 /boot/hello.elf game module_of_no_kind)

# Changes (and so relinks the sanitized programs) only when the set does.
$(SANITIZE_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(SANITIZE)' | cmp -s - $@ 2>/dev/null || echo '$(SANITIZE)' > $@

run:
	@tools/deps.sh run
	@$(MAKE) -j$(JOBS) --no-print-directory $(B)/kernel.iso $(RUNNER)
	@$(RUNNER) run $(RUNNER_ARGS) $(if $(CMDLINE),--cmdline "$(CMDLINE)") $(or $(TOPOLOGY),default)

include tools/hostile/hostile.mk
include tools/gdb/gdb.mk
include tools/memmap/memmap.mk
include tools/tcg-profile/profile.mk

# The Linux guest is built (its kernel fetched once) only when a Linux
# topology may boot: every topology, or TOPOLOGY=linux-*.
test_boots_linux := $(if $(TOPOLOGY),$(filter linux-%,$(TOPOLOGY)),all)
test_boots_hostile := $(if $(TOPOLOGY),$(filter hostile-%,$(TOPOLOGY)),all)
test_boots_selftests := $(if $(TOPOLOGY),$(filter %mm-selftests,$(TOPOLOGY)),all)
KERNEL_C_OBJS := $(patsubst %.c,$(O)/%.o,$(KERNEL_C))
.PHONY: deps-test
deps-test:
	@tools/deps.sh test

# On a fresh machine the packages install (apt-get, which mostly waits on
# the network) while the kernel's C files compile: those need only the
# compiler, which Debian's build-essential machines have. apt-get takes a
# job of its own beside JOBS compiles (dpkg's unpacking takes some CPU:
# with JOBS alone the compiles ended 8 s after apt-get on a fresh machine,
# with one more 4 s before it). A machine without the compiler installs
# first. Then the rest of the build
# runs JOBS-wide, kunit_tool's extraction (a 140 MB xz) and the Linux
# guest's fetch beside the compilers.
test:
	@$(MAKE) -j$$(($(JOBS) + 1)) --no-print-directory deps-test \
		$(if $(shell command -v $(CC) 2>/dev/null),$(KERNEL_C_OBJS))
	@$(MAKE) -j$(JOBS) --no-print-directory $(B)/kernel.iso $(USER_MODULE_ISO) $(RUNNER) $(HOST_TESTS) kunit-tool \
		$(if $(test_boots_linux),linux-guest) $(if $(test_boots_hostile),hostile-cases) \
		$(if $(test_boots_selftests),mm-selftests)
	@kunit_tool=$$(tests/runner/kunit-tool.sh) && \
	$(RUNNER) test $(RUNNER_ARGS) \
		$(if $(test_boots_hostile),--topologies tests/topologies:$(HOSTILE)/topologies) \
		$(LINUX_RUNNER_ARGS) --results $(B)/test-results --jobs $(JOBS) \
		--kunit-tool "$$kunit_tool" \
		$(if $(TOPOLOGY),--topology $(TOPOLOGY)) $(if $(FILTER),--filter '$(FILTER)') \
		$(if $(CMDLINE),--cmdline "$(CMDLINE)") $(foreach t,$(HOST_TESTS),--host $(t))

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

# Linux's mm selftests on both kernels (tests/mm_selftests/), one line
# per program with both results; results in build/mm-selftests-results/.
# CMDLINE='words' goes to both boots (mmlab's mm_selftests.* options).
compare-mm-selftests:
	@tools/deps.sh test
	@$(MAKE) -j$(JOBS) --no-print-directory $(B)/kernel.iso $(RUNNER) linux-guest mm-selftests
	@rc=0; $(RUNNER) test $(RUNNER_ARGS) $(LINUX_RUNNER_ARGS) --results $(B)/mm-selftests-results \
		--jobs 1 --topology mm-selftests --topology linux-mm-selftests \
		$(if $(FILTER),--filter '$(FILTER)') $(if $(CMDLINE),--cmdline "$(CMDLINE)") || rc=$$?; \
	echo; python3 $(LINUX_DIR)/compare.py $(B)/mm-selftests-results/results.json \
		mm-selftests:mm_selftests linux-mm-selftests:mm_selftests || rc=1; \
	exit $$rc

include tests/bench.mk
include tools/report/report.mk
include tests/user/fuzz.mk

# gdb loads the helpers through the auto-load script beside the ELF
# (tools/gdb/gdb.mk), trusted for this one file.
debug:
	@tools/deps.sh debug
	@$(MAKE) --no-print-directory $(B)/kernel.iso $(GDB_AUTOLOAD) $(RUNNER)
	@$(RUNNER) run --gdb $(RUNNER_ARGS) $(or $(TOPOLOGY),default) & \
	gdb -q -iex 'add-auto-load-safe-path $(CURDIR)/$(GDB_AUTOLOAD)' $(B)/kernel.elf \
		-ex 'target remote localhost:1234' -ex 'break start_kernel' -ex 'continue'; \
	kill %1 2>/dev/null; wait

clean:
	rm -rf $(B)

include tests/host/host.mk
HOST_TESTS += $(HOST_MM_TESTS)

# The kernel's dependency files; user.mk and host.mk include their own.
-include $(shell find $(O) -name '*.d' 2>/dev/null)
