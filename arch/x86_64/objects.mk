# arch/x86_64/: everything that knows the CPU.
# Linked into the kernel: adding a file here is the one deliberate step that
# builds it in (the top Makefile refuses a source file that no list names).
KERNEL_SRCS += \
	arch/x86_64/apic.c \
	arch/x86_64/cacheinfo.c \
	arch/x86_64/clear_page.asm \
	arch/x86_64/boot_paging.c \
	arch/x86_64/cpufeature.c \
	arch/x86_64/entry.asm \
	arch/x86_64/fpu.c \
	arch/x86_64/fw_cfg.c \
	arch/x86_64/gdt.c \
	arch/x86_64/head64.asm \
	arch/x86_64/io_apic.c \
	arch/x86_64/process_64.c \
	arch/x86_64/qemu_exit.c \
	arch/x86_64/serial.c \
	arch/x86_64/signal.c \
	arch/x86_64/smpboot.c \
	arch/x86_64/switch_to.asm \
	arch/x86_64/syscall.c \
	arch/x86_64/tlb.c \
	arch/x86_64/trampoline_blob.asm \
	arch/x86_64/traps.c \
	arch/x86_64/tsc.c \
	arch/x86_64/uaccess.c \
	arch/x86_64/user_entry.asm
