# fs/: exec and the ELF loader, and procfs (fs/proc/).
# Linked into the kernel: adding a file here is the one deliberate step that
# builds it in (the top Makefile refuses a source file that no list names).
KERNEL_SRCS += \
	fs/binfmt_elf.c \
	fs/exec.c \
	fs/proc/array.c \
	fs/proc/task_mmu.c
