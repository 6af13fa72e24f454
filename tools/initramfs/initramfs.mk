# The initramfs: build/initramfs.cpio, the root filesystem's first contents
# (fs/initramfs.c unpacks it at boot once the VFS is there), a newc cpio
# written by tools/gen_init_cpio.c from tools/initramfs/root.list (and,
# with INITRAMFS_PROGRAMS=1, one /bin line per user program), so that
# device nodes and root's files need no root on the build machine. The ISO carries it as the multiboot2 module
# "initramfs" (the Makefile's make_iso), beside the programs' own modules,
# which the kernel still runs programs from; it unpacks the archive into
# its tmpfs root at boot (fs/bin.c's populate_rootfs). Included from the top-level Makefile after tests/user/user.mk
# (USER_NAMES, USER_ELFS) and tools/linux/linux.mk (FORCE).
#
#   make build/initramfs.cpio

INITRAMFS := $(B)/initramfs.cpio
INITRAMFS_LIST := $(B)/initramfs.list
GEN_INIT_CPIO := $(B)/host/gen_init_cpio
INITRAMFS_FILES := tools/initramfs/root.list $(wildcard tools/initramfs/etc/*)

$(GEN_INIT_CPIO): tools/gen_init_cpio.c
	@mkdir -p $(dir $@)
	$(say) HOSTCC $@
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -o $@ $<

# The whole list, rewritten only when it changes (a program added or
# removed rebuilds the archive). The programs go into /bin from their own
# modules for now (fs/bin.c), and the tests start them from those: with
# their copies in the archive too, every program was in memory three times
# at boot (the module, the archive, the page cache), 47 MiB on the
# booting node, which left a 64 MiB node of sixteen-node without the 2 MiB
# blocks its tests count on. INITRAMFS_PROGRAMS=1 puts them in the archive
# (the shape the archive takes once the tests run programs from /bin and
# the kernel frees the archive after unpacking it, as Linux's
# free_initrd_mem).
INITRAMFS_PROGRAMS ?=
initramfs_bin_lines = $(if $(INITRAMFS_PROGRAMS),$(foreach n,$(USER_NAMES),file /bin/$(n) $(B)/user/$(n).elf 0755 0 0\n))
$(INITRAMFS_LIST): tools/initramfs/root.list FORCE
	@mkdir -p $(dir $@)
	@{ cat $<; printf '$(strip $(initramfs_bin_lines))' | sed 's/^ *//'; } > $@.new
	@cmp -s $@.new $@ && rm $@.new || mv $@.new $@

$(INITRAMFS): $(GEN_INIT_CPIO) $(INITRAMFS_LIST) $(INITRAMFS_FILES) $(USER_ELFS)
	$(say) CPIO $@
	$(Q)$(GEN_INIT_CPIO) $(INITRAMFS_LIST) > $@.tmp
	$(Q)mv $@.tmp $@
