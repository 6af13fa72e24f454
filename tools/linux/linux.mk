# The Linux side (tools/linux/): Debian 12's own kernel booted under the same
# QEMU machine as mmlab, with mmlab's own initramfs (the same programs in
# /bin and their manifest) and the project's init (suite "linux"). Included
# from the top-level Makefile, which defines B, HOSTCC, HOST_CFLAGS, Q and
# say; after tests/user/user.mk (USER_DIR) and tools/initramfs/initramfs.mk
# (INITRAMFS, GEN_INIT_CPIO).
#
#   LINUX_VMLINUZ       Debian's image (tools/linux/fetch-kernel.sh; fetched
#                       once with apt-get download, kept in $(B)/linux)
#   LINUX_VMLINUX       the kernel in it, unpacked (tools/linux/
#                       extract-vmlinux.sh): what QEMU boots, through the
#                       kernel's PVH entry, skipping the decompressor
#   LINUX_INIT_CPIO     an archive of /init alone (gen_init_cpio)
#   LINUX_INITRD        the initramfs: build/initramfs.cpio, then
#                       LINUX_INIT_CPIO (Linux unpacks one after the other);
#                       its test and crash lines are the cases, its bench
#                       (and demo, aux) programs run only when run= on the
#                       command line names them (make bench-compare)
#   LINUX_RUNNER_ARGS   what mmlab-runner needs to boot kernel = linux topologies
#   make linux-guest    builds LINUX_VMLINUZ and LINUX_INITRD

LINUX_DIR := tools/linux
LINUX_B := $(B)/linux
LINUX_VMLINUZ := $(LINUX_B)/vmlinuz
LINUX_INITRD := $(LINUX_B)/initramfs.cpio
LINUX_INIT := $(LINUX_B)/init
LINUX_VMLINUX := $(LINUX_B)/vmlinux
LINUX_RUNNER_ARGS := --linux-kernel $(LINUX_VMLINUX) --linux-initrd $(LINUX_INITRD)

# musl-gcc -static where it is installed (musl-tools), else glibc's gcc -static.
LINUX_CC := $(if $(shell command -v musl-gcc 2>/dev/null),musl-gcc,$(HOSTCC))

$(LINUX_INIT): $(LINUX_DIR)/init.c $(USER_DIR)/program_run.c $(USER_DIR)/program_run.h
	@mkdir -p $(dir $@)
	$(say) CC-INIT $@
	$(Q)$(LINUX_CC) -std=gnu11 -O2 -Wall -Wextra -Werror -Wmissing-prototypes \
		-Wmissing-declarations -D_GNU_SOURCE -I$(USER_DIR) -static -o $@ \
		$(LINUX_DIR)/init.c $(USER_DIR)/program_run.c

# Fetched once: the script does nothing when the image and the virtio
# modules are there. One run makes both (a grouped target: with two plain
# targets, make -j ran the script twice at once, each unpacking into the
# same folder, and a fresh clone's build failed).
LINUX_MODULES_ORDER := $(LINUX_B)/modules/order
$(LINUX_VMLINUZ) $(LINUX_MODULES_ORDER) &:
	$(Q)$(LINUX_DIR)/fetch-kernel.sh $(LINUX_B)

$(LINUX_VMLINUX): $(LINUX_VMLINUZ) $(LINUX_DIR)/extract-vmlinux.sh
	$(say) VMLINUX $@
	$(Q)$(LINUX_DIR)/extract-vmlinux.sh $< $@

# /init and the virtio block modules (/lib/modules/NAME.ko, and their load
# order in /lib/modules/order, which init insmods at boot: a disk shows as
# /dev/vda on Linux too): the programs and their manifest come from mmlab's
# archive, which this one follows (tools/linux/init.c reads
# /etc/mmlab/programs and runs /bin/NAME).
LINUX_INIT_CPIO := $(LINUX_B)/init.cpio
$(LINUX_INIT_CPIO): $(GEN_INIT_CPIO) $(LINUX_INIT) $(LINUX_MODULES_ORDER)
	$(say) CPIO $@
	$(Q)printf 'file /init $(LINUX_INIT) 0755 0 0\ndir /lib 0755 0 0\ndir /lib/modules 0755 0 0\n' > $@.list
	$(Q)printf 'file /lib/modules/order $(LINUX_MODULES_ORDER) 0644 0 0\n' >> $@.list
	$(Q)for m in $$(cat $(LINUX_MODULES_ORDER)); do \
		printf 'file /lib/modules/%s $(LINUX_B)/modules/%s 0644 0 0\n' $$m $$m; done >> $@.list
	$(Q)$(GEN_INIT_CPIO) $@.list > $@.tmp
	$(Q)mv $@.tmp $@

# cat_initrd(archives): $@, the archives one after another.
cat_initrd = $(Q)cat $(1) > $@.tmp && mv $@.tmp $@
$(LINUX_INITRD): $(INITRAMFS) $(LINUX_INIT_CPIO)
	$(say) CPIO $@
	$(call cat_initrd,$^)

.PHONY: linux-guest FORCE
#> linux-guest    Debian's Linux 6.1 kernel and an initramfs of the user programs (tools/linux/)
linux-guest: $(LINUX_VMLINUX) $(LINUX_INITRD)
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
	@$(MAKE) --no-print-directory $(LINUX_VMLINUX) $(LINUX_LAYOUT_INITRD) $(RUNNER) $(B)/host/hostile_gen
	@$(LINUX_DIR)/compare-layouts.sh $(B)/compare-layouts $(RUNNER) $(B)/host/hostile_gen \
		$(LINUX_VMLINUX) $(LINUX_LAYOUT_INITRD) $(HOSTILE_SEED) '$(or $(LAYOUTS),*)'
