/* User processes: thread groups of kernel tasks sharing an address space
 * (mm), open files and signal actions, each thread with a user context
 * entered through iretq/sysret and left through syscall or an exception.
 *
 * A thread runs on one CPU at a time and may move to another its affinity
 * allows (kernel/sched.h). The kernel starts a process from a static ELF64
 * executable (a multiboot2 module) as one thread, its group leader
 * (process_spawn); clone(CLONE_THREAD) adds threads, fork, vfork and clone
 * without CLONE_THREAD make new processes, its children (kernel/fork.c),
 * and execve replaces its program (fs/exec.c). A thread ends by exit, the
 * whole group by exit_group or by a fault it may not take (kernel/exit.c).
 * Threads other than the leader are freed by the kernel's reaper once they
 * have exited; a process, with its leader, by its parent's wait
 * (kernel/exit_wait.c), by the kernel when nobody waits for it, or, for a
 * process the kernel started, by process_wait, which returns only when
 * every thread has ended, every process of its tree is freed (it is their
 * process 1: kernel/signal.h) and everything they had is free. */
#ifndef KERNEL_PROCESS_H
#define KERNEL_PROCESS_H

#include "kernel/types.h"

struct task_struct;
struct pt_regs;

/* How a process ended. */
struct process_result {
	int exit_code;     /* exit status (0..255), when it exited */
	bool killed;       /* killed by a signal (a fault's, or one sent) */
	int signal;        /* which, when killed (Linux's WTERMSIG) */
	bool core_dumped;  /* killed by a core-dump signal while dumpable (WCOREDUMP) */
	char reason[160];  /* the kill report: what, where */
	char last_line[128]; /* the last line it wrote (a test's "SKIP: why") */
};

struct process_spawn_args {
	const char *name;           /* comm, and argv[0] */
	const char *path;           /* the program's file, which the new process execve's */
	const void *image;          /* or, without a path, an ELF image in memory (tests) */
	unsigned long image_size;
	const char *const *argv;    /* NULL-terminated, argv[0] included; NULL: { name } */
	const char *console_prefix; /* before every output line; NULL: "" */
	unsigned int cpu;           /* where it starts (it may run on any CPU) */
	bool want_mm;               /* process_started_mm will be asked for its mm */
	/* A device whose file becomes fd 0, 1 and 2, opened by the process
	 * itself before its execve (Linux's console_on_rootfs for init: one
	 * open, dup'd twice); it is a session leader, so a terminal opened
	 * here becomes its controlling terminal. NULL: the console line. */
	const char *stdio_path;
};

/* Creates a process and starts it; returns its task, or NULL with *err set
 * (for a path, what looking it up says: -ENOENT, -EACCES...; for an image,
 * -ENOEXEC for one that is not a static x86_64 ELF executable,
 * -ENXIO for an offline CPU, -E2BIG for too many or too long arguments,
 * -ENOMEM). */
struct task_struct *process_spawn(const struct process_spawn_args *args, int *err);
/* For a process spawned with want_mm: waits until its program is in
 * place (execve's new mm, not the one spawned with) and returns that mm
 * with a reference (mmput it), or NULL if it could not start. Once. */
struct mm_struct *process_started_mm(struct task_struct *p);
/* Waits until p has ended, frees it and fills *res. */
void process_wait(struct task_struct *p, struct process_result *res);
/* process_wait with a time limit: a process still running after
 * timeout_ms is sent SIGKILL (every thread) and then waited for; returns
 * false when it had to be killed. */
bool process_wait_timeout(struct task_struct *p, unsigned long timeout_ms, struct process_result *res);

/* Runs /bin/<name> (from the initramfs, or a boot module's copy there:
 * fs/bin.c) as a new process on cpu until it ends, started by execve as
 * Linux starts init: false (with *err: -ENOENT when there is no such
 * program) if it could not start. */
bool process_run(const char *name, const char *const *argv, unsigned int cpu,
		 struct process_result *res, int *err);
/* The same with fd 0-2 on stdio_path (process_spawn_args), NULL: the
 * console line. */
bool process_run_on(const char *name, const char *const *argv, unsigned int cpu, const char *stdio_path,
		    struct process_result *res, int *err);
/* Boot, when not testing: runs the programs named in run= (comma
 * separated), or else every program of kind "demo" (fs/programs.h), one after the other, their
 * output on the console. */
void run_boot_programs(void);

/* Which programs there are, of which kind: fs/programs.h's registry
 * (find_user_program, user_program). */

/* user_fault_kill() (declared in arch/x86_64/traps.h) ends the current
 * process after an exception in user mode nobody resolved, with a one-line
 * report (pid, address, reason). */

/* Ends the current process, every thread of it, with an exit status
 * (exit_group; Linux's do_group_exit). */
__noreturn void process_exit(int code);
/* Ends the current thread (exit; Linux's do_exit for a user thread): its
 * robust futexes and CLONE_CHILD_CLEARTID word are dealt with, it leaves
 * the group, and the last thread of the group sets the process's result
 * (status: the group exit's, else its own) and frees its files. */
__noreturn void do_exit_thread(int code);

/* Linux's mm_release for tsk leaving mm (its exit, or an exec): the
 * CLONE_CHILD_CLEARTID word cleared and woken when others share mm. */
struct mm_struct;
void mm_release(struct task_struct *tsk, struct mm_struct *mm);
/* Linux's de_thread, for execve: the caller's other threads end (as a
 * group exit ends them) and are freed, and a caller that is not the
 * leader takes the leader's place; 0, or -EAGAIN when the group is
 * exiting anyway. */
int de_thread(struct task_struct *tsk);
/* The stack VMA's size for a new program of sig's process. */
struct signal_struct;
unsigned long stack_vma_size(const struct signal_struct *sig);

/* The user registers a user-mode entry saved at the top of p's kernel stack. */
#define task_pt_regs(p) ((struct pt_regs *)((char *)(p)->stack + THREAD_SIZE) - 1)

/* Processes created and not yet reaped. */
unsigned long nr_processes(void);
/* User threads (of every process) that have not exited yet. */
unsigned long nr_user_threads(void);

/* Between kernel/process.c, fork.c and exit.c. */
struct signal_struct;
void user_thread_started(void);         /* a thread was made (counted) */
bool user_thread_reaper_running(void);  /* threads other than leaders can be freed */
void process_ended(void);               /* the last thread of a process exited */
void process_started(void);             /* a process was made (counted) */
const char *process_console_prefix(struct task_struct *tsk);
/* Waits until every thread of the group has exited and every task_struct
 * but the leader's is freed; wait_tree_released, for a root, also until
 * every other process of its tree is freed (wake_up_tree_waiters: one
 * was). */
void wait_group_released(struct signal_struct *sig);
void wait_tree_released(struct signal_struct *sig);
void wake_up_tree_waiters(void);
/* kernel/exit_notify.c, for do_exit_thread: the end of a thread that is
 * not its process's last (the children it made pass to the process,
 * their parent-death signals fire), and the end of the process's last
 * thread (exit_notify: true when nobody will wait for it, so the kernel
 * frees it); exit.c's release_processes_later queues ended processes
 * (on their thread_node) for the kernel to free. */
void exit_thread_children(struct task_struct *tsk);
bool exit_notify(struct task_struct *leader);
struct list_head;
void release_processes_later(struct list_head *dead);
/* A zeroed signal_struct with one thread, inside the process_info a
 * process keeps (the console prefix, copied); NULL if memory is short;
 * process_signal_free frees it. */
struct signal_struct *process_signal_alloc(const char *console_prefix);
void process_signal_free(struct signal_struct *sig);
/* Frees an ended process whose leader is p: waits for its threads, then
 * frees the leader, its sighand and its signal_struct (Linux's
 * release_task of a zombie leader). */
void release_process(struct task_struct *p);
/* An ended process's wait status (Linux's: exit code << 8, or the signal
 * with 0x80 for a core-dump signal) and its SIGCHLD/waitid siginfo. */
struct kernel_siginfo;
int process_wait_status(const struct signal_struct *sig);
void process_siginfo(const struct task_struct *p, struct kernel_siginfo *info);
/* The same for at most timeout ticks: false if the time ran out first. */
bool wait_group_released_timeout(struct signal_struct *sig, long timeout);

#endif
