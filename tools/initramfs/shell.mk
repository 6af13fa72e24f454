# make shell (docs/shell.md): a machine booted to BusyBox's shell on this
# terminal. The archive is the one every boot has (build/initramfs.cpio:
# BusyBox, its applet links, inittab, profile and every user program); the
# user's own static programs, SHELL_PROGRAMS='path...', come in a second
# archive after it (each as /bin/<its file name without .elf>), which
# both kernels unpack over the first, and then in an ISO of their own.
# Included from the top-level Makefile after initramfs.mk and linux.mk.
#
#   make shell [TOPOLOGY=name] [KERNEL=linux] [SHELL_PROGRAMS='a.elf b'] [CMDLINE='words']

SHELL_CONSOLE_LOG := $(B)/shell-console.log
SHELL_EXTRA_LIST := $(B)/shell-programs.list
SHELL_EXTRA_CPIO := $(B)/shell-programs.cpio
SHELL_INITRD := $(B)/shell-initramfs.cpio
SHELL_ISO := $(B)/shell.iso

$(SHELL_EXTRA_LIST): FORCE
	$(call write_if_changed,$@,$(foreach f,$(SHELL_PROGRAMS),file /bin/$(patsubst %.elf,%,$(notdir $(f))) $(abspath $(f)) 0755 0 0\n))
$(SHELL_EXTRA_CPIO): $(GEN_INIT_CPIO) $(SHELL_EXTRA_LIST) $(SHELL_PROGRAMS)
	$(say) CPIO $@
	$(Q)$(GEN_INIT_CPIO) $(SHELL_EXTRA_LIST) > $@.tmp
	$(Q)mv $@.tmp $@
$(SHELL_INITRD): $(INITRAMFS) $(SHELL_EXTRA_CPIO)
	$(say) CPIO $@
	$(call cat_initrd,$^)
$(SHELL_ISO): $(B)/kernel.elf boot/grub.cfg $(SHELL_INITRD)
	$(call make_iso,$(B)/kernel.elf,$(B)/iso-shell,$(SHELL_INITRD))

shell_linux := $(filter linux,$(KERNEL))
shell_iso := $(if $(SHELL_PROGRAMS),$(SHELL_ISO),$(B)/kernel.iso)
shell_initrd := $(if $(SHELL_PROGRAMS),$(SHELL_INITRD),$(INITRAMFS))

.PHONY: shell
#> shell          boot the default machine to BusyBox's shell here; ^A x quits (TOPOLOGY=, KERNEL=linux, SHELL_PROGRAMS='prog.elf ...', CMDLINE=)
shell:
	@tools/deps.sh run
	@$(MAKE) -j$(JOBS) --no-print-directory $(RUNNER) $(if $(shell_linux),$(LINUX_VMLINUX) $(shell_initrd),$(shell_iso))
	@echo "make shell: BusyBox on the serial port; poweroff ends the machine, ^A x quits QEMU;" \
		"the kernel's log (console=ttyS1) is in $(SHELL_CONSOLE_LOG)"
	@$(RUNNER) run --iso $(shell_iso) --topologies tests/topologies --accel $(ACCEL) \
		--shell-log $(SHELL_CONSOLE_LOG) \
		$(if $(shell_linux),--linux-kernel $(LINUX_VMLINUX) --linux-initrd $(shell_initrd)) \
		--cmdline "$(if $(shell_linux),rdinit,init)=/sbin/init console=ttyS1 $(CMDLINE)" \
		$(or $(TOPOLOGY),$(if $(shell_linux),linux-ring,default))
