# kernel/: init, printk, command line, SMP, scheduling, processes, signals,
# futexes, locking, RCU, the system-call table.
# Linked into the kernel: adding a file here is the one deliberate step that
# builds it in (the top Makefile refuses a source file that no list names).
KERNEL_SRCS += \
	kernel/capability.c \
	kernel/cmdline.c \
	kernel/cred.c \
	kernel/crash.c \
	kernel/debugger.c \
	kernel/exit.c \
	kernel/exit_notify.c \
	kernel/exit_wait.c \
	kernel/fork.c \
	kernel/futex.c \
	kernel/futex_robust.c \
	kernel/futex_waitwake.c \
	kernel/gdb_constants.c \
	kernel/ksyms.c \
	kernel/kthread.c \
	kernel/main.c \
	kernel/panic.c \
	kernel/pid.c \
	kernel/prctl.c \
	kernel/psi.c \
	kernel/psi_proc.c \
	kernel/psi_trigger.c \
	kernel/printk.c \
	kernel/process.c \
	kernel/rcu.c \
	kernel/reboot.c \
	kernel/rwsem.c \
	kernel/sched.c \
	kernel/sched_time.c \
	kernel/sched_syscalls.c \
	kernel/signal.c \
	kernel/signal_deliver.c \
	kernel/signal_send.c \
	kernel/signal_stop.c \
	kernel/signal_wait.c \
	kernel/smp.c \
	kernel/spinlock.c \
	kernel/sys.c \
	kernel/syscall.c \
	kernel/sysctl.c \
	kernel/time.c \
	kernel/time_syscalls.c \
	kernel/topology.c \
	kernel/wait.c
