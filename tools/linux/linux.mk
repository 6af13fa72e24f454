# The Linux side (tools/linux/): Debian 12's own kernel booted under the same
# QEMU machine as mmlab, with an initramfs holding the project's init and the
# same user test and crash programs (suite "linux"). Included from the
# top-level Makefile, which defines B, HOSTCC, HOST_CFLAGS, Q and say; after
# tests/user/user.mk (USER_TEST_NAMES, USER_CRASH_NAMES, user_src).
#
#   LINUX_COMPARE_BINS  what the guest runs: KIND:PATH words, KIND test or
#                       crash (judged as tests/user/program_run.c says), in
#                       order, or bench (run only when run= on the command
#                       line names it: make bench-compare); the program's
#                       name is PATH's file name without ".elf" (so it
#                       matches mmlab's case name)
#   LINUX_VMLINUZ       Debian's image (tools/linux/fetch-kernel.sh; fetched
#                       once with apt-get download, kept in $(B)/linux)
#   LINUX_INITRD        the initramfs (tools/linux/mkinitramfs.sh, newc cpio)
#   LINUX_RUNNER_ARGS   what mmlab-runner needs to boot kernel = linux topologies
#   make linux-guest    builds LINUX_VMLINUZ and LINUX_INITRD

LINUX_DIR := tools/linux
LINUX_B := $(B)/linux
LINUX_VMLINUZ := $(LINUX_B)/vmlinuz
LINUX_INITRD := $(LINUX_B)/initramfs.cpio
LINUX_INIT := $(LINUX_B)/init
LINUX_RUNNER_ARGS := --linux-kernel $(LINUX_VMLINUZ) --linux-initrd $(LINUX_INITRD)

# musl-gcc -static where it is installed (musl-tools), else glibc's gcc -static.
LINUX_CC := $(if $(shell command -v musl-gcc 2>/dev/null),musl-gcc,$(HOSTCC))

# The very files mmlab runs (tests/user/user.mk: one static build per
# program, musl and the glibc builds by name).
LINUX_COMPARE_BINS ?= $(foreach n,$(USER_TEST_NAMES),test:$(B)/user/$(n).elf) \
	$(foreach n,$(USER_CRASH_NAMES),crash:$(B)/user/$(n).elf) \
	$(foreach n,$(USER_BENCH_NAMES),bench:$(B)/user/$(n).elf)
LINUX_COMPARE_FILES = $(foreach b,$(LINUX_COMPARE_BINS),$(lastword $(subst :, ,$(b))))

$(LINUX_INIT): $(LINUX_DIR)/init.c $(USER_DIR)/program_run.c $(USER_DIR)/program_run.h
	@mkdir -p $(dir $@)
	$(say) CC-INIT $@
	$(Q)$(LINUX_CC) -std=gnu11 -O2 -Wall -Wextra -Werror -Wmissing-prototypes \
		-Wmissing-declarations -D_GNU_SOURCE -I$(USER_DIR) -static -o $@ \
		$(LINUX_DIR)/init.c $(USER_DIR)/program_run.c

# Fetched once: the script does nothing when the image is there.
$(LINUX_VMLINUZ):
	$(Q)$(LINUX_DIR)/fetch-kernel.sh $(LINUX_B)

# The list itself is a prerequisite (rewritten only when it changes), so a
# program added, removed or moved rebuilds the image.
$(LINUX_B)/compare-bins.list: FORCE
	@mkdir -p $(dir $@)
	@echo '$(strip $(LINUX_COMPARE_BINS))' | cmp -s - $@ || echo '$(strip $(LINUX_COMPARE_BINS))' > $@

$(LINUX_INITRD): $(LINUX_DIR)/mkinitramfs.sh $(LINUX_INIT) $(LINUX_COMPARE_FILES) $(LINUX_B)/compare-bins.list
	$(say) CPIO $@
	$(Q)$(LINUX_DIR)/mkinitramfs.sh $@ $(LINUX_INIT) $(LINUX_COMPARE_BINS)

.PHONY: linux-guest FORCE
#> linux-guest    Debian's Linux 6.1 kernel and an initramfs of the user programs (tools/linux/)
linux-guest: $(LINUX_VMLINUZ) $(LINUX_INITRD)
FORCE:

# make compare-layouts: Linux 6.1 on each NUMA layout class of the hostile
# generator, in the case's own machine and tables (tools/linux/
# compare-layouts.sh), its init running layout_probe (what Linux made of the
# layout, and where memory bound to each node lies). Slow (8 boots of Linux
# under TCG, one at a time), so not part of make test. LAYOUTS=GLOB picks
# classes (e.g. LAYOUTS='interleave-*').
LINUX_LAYOUT_PROBE := $(LINUX_B)/layout_probe
LINUX_LAYOUT_INITRD := $(LINUX_B)/layouts.cpio
$(LINUX_LAYOUT_PROBE): $(LINUX_DIR)/layout_probe.c
	@mkdir -p $(dir $@)
	$(say) CC-PROBE $@
	$(Q)$(LINUX_CC) -std=gnu11 -O2 -Wall -Wextra -Werror -static -o $@ $<
$(LINUX_LAYOUT_INITRD): $(LINUX_DIR)/mkinitramfs.sh $(LINUX_INIT) $(LINUX_LAYOUT_PROBE)
	$(say) CPIO $@
	$(Q)$(LINUX_DIR)/mkinitramfs.sh $@ $(LINUX_INIT) bench:$(LINUX_LAYOUT_PROBE)

.PHONY: compare-layouts
#> compare-layouts  Linux 6.1 on each NUMA layout class's machine and SRAT: nodes, zones, placement (slow)
compare-layouts:
	@$(MAKE) --no-print-directory $(LINUX_VMLINUZ) $(LINUX_LAYOUT_INITRD) $(RUNNER) $(B)/host/hostile_gen
	@$(LINUX_DIR)/compare-layouts.sh $(B)/compare-layouts $(RUNNER) $(B)/host/hostile_gen \
		$(LINUX_VMLINUZ) $(LINUX_LAYOUT_INITRD) $(HOSTILE_SEED) '$(or $(LAYOUTS),*)'
