# kernel/: init, printk, ACPI, SMP, scheduling, processes, files.
# Linked into the kernel: adding a file here is the one deliberate step that
# builds it in (the top Makefile refuses a source file that no list names).
KERNEL_SRCS += \
	kernel/acpi.c \
	kernel/acpi_numa.c \
	kernel/cmdline.c \
	kernel/console_line.c \
	kernel/crash.c \
	kernel/elf.c \
	kernel/file.c \
	kernel/futex.c \
	kernel/ksyms.c \
	kernel/main.c \
	kernel/memmap.c \
	kernel/multiboot2.c \
	kernel/panic.c \
	kernel/printk.c \
	kernel/proc_task.c \
	kernel/process.c \
	kernel/procfs.c \
	kernel/rbtree.c \
	kernel/rcu.c \
	kernel/rwsem.c \
	kernel/sched.c \
	kernel/smp.c \
	kernel/spinlock.c \
	kernel/string.c \
	kernel/sys.c \
	kernel/syscall.c \
	kernel/time.c \
	kernel/topology.c \
	kernel/wait.c
