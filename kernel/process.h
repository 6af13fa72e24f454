/* User processes: a kernel task with an address space (mm), open files and
 * a user context entered through iretq and left through syscall or an
 * exception.
 *
 * A process is single-threaded and, as every task, bound to one CPU. It is
 * created from a static ELF64 executable (a multiboot2 module), runs until
 * exit/exit_group or until a fault it may not take kills it, and is reaped
 * by whoever created it (process_wait), which frees everything it had. */
#ifndef KERNEL_PROCESS_H
#define KERNEL_PROCESS_H

#include "kernel/types.h"

struct task_struct;
struct pt_regs;

/* How a process ended. */
struct process_result {
	int exit_code;     /* exit status (0..255), when it exited */
	bool killed;       /* killed by a fault */
	char reason[160];  /* the kill report: what, where */
	char last_line[128]; /* the last line it wrote (a test's "SKIP: why") */
};

struct process_spawn_args {
	const char *name;           /* comm, and argv[0] */
	const void *image;          /* the ELF file */
	unsigned long image_size;
	const char *const *argv;    /* NULL-terminated, argv[0] included; NULL: { name } */
	const char *console_prefix; /* before every output line; NULL: "" */
	unsigned int cpu;           /* where it runs */
};

/* Creates a process and starts it; returns its task, or NULL with *err set
 * (-ENOEXEC for an image that is not a static x86_64 ELF executable,
 * -ENXIO for an offline CPU, -E2BIG for too many or too long arguments,
 * -ENOMEM). */
struct task_struct *process_spawn(const struct process_spawn_args *args, int *err);
/* Waits until p has ended, frees it and fills *res. */
void process_wait(struct task_struct *p, struct process_result *res);

/* Runs the boot module named name as a process on cpu until it ends:
 * false (with *err) if it could not start. */
bool process_run(const char *name, const char *const *argv, unsigned int cpu,
		 struct process_result *res, int *err);
/* Boot, when not testing: runs the programs named in run= (comma
 * separated), or else every "demo" module, one after the other, their
 * output on the console. */
void run_boot_programs(void);

/* The boot module whose command line's program name is name (the module's
 * line in grub.cfg is "<kind> <name>", kind being test, crash, bench or
 * demo); returns false if there is none. */
struct boot_module;
const struct boot_module *find_user_program(const char *name, const char **kind);

/* user_fault_kill() (declared in arch/x86_64/traps.h) ends the current
 * process after an exception in user mode nobody resolved, with a one-line
 * report (pid, address, reason). */

/* Ends the current process with an exit status (exit, exit_group). */
__noreturn void process_exit(int code);

/* Processes created and not yet reaped. */
unsigned long nr_processes(void);

#endif
