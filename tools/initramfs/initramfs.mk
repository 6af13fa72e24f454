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
INITRAMFS_FILES := tools/initramfs/root.list $(wildcard tools/initramfs/etc/* tools/initramfs/etc/*/*)

# Debian's BusyBox (busybox-static: a static glibc executable, unmodified),
# the shell (docs/shell.md): /bin/busybox and one symbolic link to it per
# applet, at the path `busybox --list-full` gives (/bin/sh, /sbin/init,
# /usr/bin/free, ...), with the directories those need, and the files
# BusyBox init and sh read (/etc/inittab, /etc/init.d/rcS, /etc/profile).
# The list is made from the very binary the archive carries, so a newer
# package's applets come with it.
BUSYBOX ?= /bin/busybox
BUSYBOX_LIST := $(B)/busybox.list
$(BUSYBOX_LIST): $(BUSYBOX) tools/initramfs/initramfs.mk
	@mkdir -p $(dir $@)
	$(say) GEN $@
	$(Q){ echo 'file /bin/busybox $(BUSYBOX) 0755 0 0'; \
	echo 'file /etc/inittab tools/initramfs/etc/inittab 0644 0 0'; \
	echo 'file /etc/profile tools/initramfs/etc/profile 0644 0 0'; \
	echo 'dir /etc/init.d 0755 0 0'; \
	echo 'file /etc/init.d/rcS tools/initramfs/etc/init.d/rcS 0755 0 0'; \
	$(BUSYBOX) --list-full | awk '/\// { n = split($$0, p, "/"); d = ""; \
		for (i = 1; i < n; i++) { d = d "/" p[i]; if (!(d in seen) && d != "/bin") { seen[d]; print "dir " d " 0755 0 0" } } } \
		$$0 != "bin/busybox" { print "slink /" $$0 " /bin/busybox 0777 0 0" }'; } > $@.tmp
	$(Q)mv $@.tmp $@

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
# manifest's lines, program files[, more list files]): the rules of an
# archive of root.list (and the more list files after it), those programs
# in /bin and that manifest (the mm-selftests ISO's too).
define program_archive
$(3): FORCE
	$$(call write_if_changed,$$@,$$($(4)))
$(2): tools/initramfs/root.list $(6) FORCE
	$$(call write_if_changed,$$@,$$(call initramfs_list_lines,$(3),$(5)),tools/initramfs/root.list $(6))
$(1): $$(GEN_INIT_CPIO) $(2) $(3) $$(INITRAMFS_FILES) $(5) $$(if $(6),$$(BUSYBOX))
	$$(say) CPIO $$@
	$$(Q)$$(GEN_INIT_CPIO) $(2) > $$@.tmp
	$$(Q)mv $$@.tmp $$@
endef
# The archive's copies of the user programs, without their DWARF (objcopy
# --strip-debug: code, data and symbol table as linked). Nothing in either
# guest reads it, build/user/*.elf keep it for gdb and the host's runs, and
# the archive is 16 MB instead of 24: every boot that loads it (GRUB reads
# it from the CD, Linux unpacks it) spends about 0.4 s of CPU less under TCG.
INITRAMFS_ELFS := $(patsubst $(B)/user/%,$(B)/user/archive/%,$(USER_ELFS))
$(B)/user/archive/%.elf: $(B)/user/%.elf
	@mkdir -p $(dir $@)
	$(Q)$(OBJCOPY) --strip-debug $< $@
$(eval $(call program_archive,$(INITRAMFS),$(INITRAMFS_LIST),$(INITRAMFS_MANIFEST),user_manifest_lines,$(INITRAMFS_ELFS),$(BUSYBOX_LIST)))
