# The initramfs: build/initramfs.cpio, the root filesystem's first contents
# (fs/initramfs.c unpacks it at boot once the VFS is there), a newc cpio
# written by tools/gen_init_cpio.c, so that device nodes and root's files
# need no root on the build machine: tools/initramfs/root.list, every user
# program as /bin/<name>, and their manifest /etc/mmlab/programs, one line
# "<kind> <name> [args...]" each (fs/programs.h; docs/initramfs.md). The
# ISO carries it as the multiboot2 module "initramfs" (the Makefile's
# make_iso) and no module per program; fs/bin.c unpacks it, reads the
# manifest and frees the archive's pages. Linux 6.1 boots the same archive
# (tools/linux/linux.mk adds /init). Included from the top-level Makefile
# after tests/user/user.mk (USER_*_NAMES, USER_ELFS); FORCE is
# tools/linux/linux.mk's.
#
#   make build/initramfs.cpio

INITRAMFS := $(B)/initramfs.cpio
INITRAMFS_LIST := $(B)/initramfs.list
INITRAMFS_MANIFEST := $(B)/initramfs.programs
GEN_INIT_CPIO := $(B)/host/gen_init_cpio
INITRAMFS_FILES := tools/initramfs/root.list $(wildcard tools/initramfs/etc/*)

$(GEN_INIT_CPIO): tools/gen_init_cpio.c
	@mkdir -p $(dir $@)
	$(say) HOSTCC $@
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -o $@ $<

# write_if_changed(file, printf text[, file to copy first]): the file
# rewritten only when its contents change (a program added or removed
# rebuilds what depends on it). The text rides in printf's format: no %,
# no quotes.
define write_if_changed
	@mkdir -p $(dir $(1))
	@{ $(if $(3),cat $(3);) printf '$(strip $(2))' | sed 's/^ *//'; } > $(1).new
	@cmp -s $(1).new $(1) && rm $(1).new || mv $(1).new $(1)
endef

# initramfs_list_lines(manifest, program files): gen_init_cpio's lines
# after root.list: the manifest as /etc/mmlab/programs and each program
# file as /bin/<its file name without .elf>.
initramfs_list_lines = dir /etc/mmlab 0755 0 0\nfile /etc/mmlab/programs $(1) 0644 0 0\n$(foreach \
	f,$(2),file /bin/$(patsubst %.elf,%,$(notdir $(f))) $(f) 0755 0 0\n)

# The user programs' manifest: "<kind> <name>", kinds in USER_KINDS' order.
user_kind_TEST := test
user_kind_CRASH := crash
user_kind_BENCH := bench
user_kind_DEMO := demo
user_kind_AUX := aux
user_manifest_lines = \# <kind> <name> [args...]: the programs in /bin (fs/programs.h)\n$(foreach k,$(USER_KINDS),$(foreach n,$(USER_$(k)_NAMES),$(user_kind_$(k)) $(n)\n))

# program_archive(archive, list, manifest, name of the variable holding the
# manifest's lines, program files): the rules of an archive of root.list,
# those programs in /bin and that manifest (the mm-selftests ISO's too).
define program_archive
$(3): FORCE
	$$(call write_if_changed,$$@,$$($(4)))
$(2): tools/initramfs/root.list FORCE
	$$(call write_if_changed,$$@,$$(call initramfs_list_lines,$(3),$(5)),$$<)
$(1): $$(GEN_INIT_CPIO) $(2) $(3) $$(INITRAMFS_FILES) $(5)
	$$(say) CPIO $$@
	$$(Q)$$(GEN_INIT_CPIO) $(2) > $$@.tmp
	$$(Q)mv $$@.tmp $$@
endef
$(eval $(call program_archive,$(INITRAMFS),$(INITRAMFS_LIST),$(INITRAMFS_MANIFEST),user_manifest_lines,$(USER_ELFS)))
