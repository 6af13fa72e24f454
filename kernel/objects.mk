# kernel/: init, printk, ACPI, SMP, scheduling, processes, files.
# Linked into the kernel: adding a file here is the one deliberate step that
# builds it in (the top Makefile refuses a source file that no list names).
KERNEL_SRCS += \
	kernel/acpi.c \
	kernel/acpi_numa.c \
	kernel/binfmt_elf.c \
	kernel/cmdline.c \
	kernel/console_line.c \
	kernel/crash.c \
	kernel/elf.c \
	kernel/exit.c \
	kernel/file.c \
	kernel/fork.c \
	kernel/futex.c \
	kernel/futex_robust.c \
	kernel/ksyms.c \
	kernel/main.c \
	kernel/memmap.c \
	kernel/multiboot2.c \
	kernel/pid.c \
	kernel/panic.c \
	kernel/printk.c \
	kernel/proc_array.c \
	kernel/proc_task.c \
	kernel/process.c \
	kernel/procfs.c \
	kernel/random.c \
	kernel/ratelimit.c \
	kernel/rbtree.c \
	kernel/rcu.c \
	kernel/rwsem.c \
	kernel/sched.c \
	kernel/sched_syscalls.c \
	kernel/signal.c \
	kernel/smp.c \
	kernel/spinlock.c \
	kernel/string.c \
	kernel/sysfs.c \
	kernel/sys.c \
	kernel/syscall.c \
	kernel/time.c \
	kernel/topology.c \
	kernel/wait.c
