/* User processes (see kernel/process.h): creation, by execve of a file
 * (or, for tests, from an ELF image in memory), and reaping of the group leader with its thread group.
 * Threads are added by kernel/fork.c and end in kernel/exit.c.
 *
 * A process is a thread group: its leader is a kernel task with task->mm,
 * task->files, an FPU area and the group's struct signal_struct, which sits
 * in the process_info allocated here. The leader starts in process_main
 * (kernel mode, on its own CPU, with its mm already active: the scheduler
 * switches CR3 to next->mm), which execve's the program's file (the mm
 * made here is replaced, as a kernel thread's none is in Linux) or loads
 * the image, and drops to ring 3.
 *
 * Invariant: everything a process owns (mm, files, FPU areas, kernel stacks
 * and task_structs of all its threads, its sighand and process_info) is
 * freed by the time process_wait() returns. */
#include "kernel/process.h"
#include "mm/mmu_context.h"
#include "fs/fs_struct.h"
#include "arch/x86_64/syscall.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/cmdline.h"
#include "fs/exec.h"
#include "fs/binfmt_elf.h"
#include "fs/file.h"
#include "fs/programs.h"
#include "kernel/panic.h"
#include "kernel/pid.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "kernel/syscall.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/page.h"
#include "mm/page_owner_map.h"
#include "mm/slab.h"

#define MAX_ARGS 16
#define MAX_ARG_BYTES 1024
#define PROCESS_PATH_MAX 256

struct process_info {
	struct signal_struct signal; /* the thread group */
	char path[PROCESS_PATH_MAX];
	/* Done once the program is in place (or could not be): its mm, with
	 * a reference for the spawner that asked for it (want_mm). */
	struct completion started;
	bool want_mm;
	struct mm_struct *started_mm;
	const void *image;
	unsigned long image_size;
	int argc;
	char *argv[MAX_ARGS + 1];
	char arg_bytes[MAX_ARG_BYTES];
	char console_prefix[16];
	char stdio_path[32];
};

static unsigned long processes_alive;

unsigned long nr_processes(void) { return __atomic_load_n(&processes_alive, __ATOMIC_RELAXED); }
void process_ended(void) { __atomic_sub_fetch(&processes_alive, 1, __ATOMIC_RELAXED); }
void process_started(void) { __atomic_add_fetch(&processes_alive, 1, __ATOMIC_RELAXED); }

static struct process_info *process_info_of_signal(struct signal_struct *sig)
{
	return container_of(sig, struct process_info, signal);
}

static struct process_info *process_info_of(struct task_struct *p) { return process_info_of_signal(p->signal); }

const char *process_console_prefix(struct task_struct *tsk) { return process_info_of(tsk)->console_prefix; }

struct signal_struct *process_signal_alloc(const char *console_prefix)
{
	struct process_info *info = kmalloc(sizeof(*info), GFP_KERNEL | __GFP_ZERO);
	if (!info)
		return NULL;
	strlcpy(info->console_prefix, console_prefix ? console_prefix : "", sizeof(info->console_prefix));
	init_completion(&info->started);
	struct signal_struct *sig = &info->signal;
	sig->sigcnt = 1;
	sig->nr_threads = 1;
	spin_lock_init(&sig->siglock);
	INIT_LIST_HEAD(&sig->thread_head);
	INIT_LIST_HEAD(&sig->shared_pending.list);
	INIT_LIST_HEAD(&sig->tree_tasks);
	INIT_LIST_HEAD(&sig->dead_leaders);
	init_waitqueue_head(&sig->wait_chldexit);
	return sig;
}

void process_signal_free(struct signal_struct *sig)
{
	if (!sig)
		return;
	/* An OOM victim's (Linux's free_signal_struct: oom_mm lives as
	 * long as the signal_struct). */
	if (sig->oom_mm)
		mmdrop(sig->oom_mm);
	kfree(process_info_of_signal(sig));
}

void release_process(struct task_struct *p)
{
	struct signal_struct *sig = p->signal;
	struct sighand_struct *sighand = p->sighand;
	struct signal_struct *root = sig->child_reaper->signal;
	bool is_root = root == sig;
	if (p->group_leader != p)
		panic("BUG: release_process(%s) on thread %d, which is not a group leader", p->comm, p->pid);
	/* Linux's wait_task_zombie waits for the whole group too
	 * (delay_group_leader): the other threads' task_structs first, the
	 * leader's once it has exited. */
	wait_group_released(sig);
	/* Out of its tree's list first: nobody finds it (and takes a
	 * reference) from here on, so release_task's wait ends. */
	spin_lock(&tasklist_lock);
	list_del(&p->tasks);
	spin_unlock(&tasklist_lock);
	release_task(p);
	sighand_put(sighand);
	/* Leaders an exec replaced: ended long since, named by nobody now. */
	while (!list_empty(&sig->dead_leaders)) {
		struct task_struct *old = list_first_entry(&sig->dead_leaders, struct task_struct, thread_node);
		struct sighand_struct *old_sighand = old->sighand;
		list_del(&old->thread_node);
		release_task(old);
		sighand_put(old_sighand);
	}
	process_signal_free(sig);
	if (is_root)
		return;
	/* The root's process_wait waits for this count: the last touch of
	 * the root's signal_struct. */
	spin_lock(&tasklist_lock);
	root->nr_tree--;
	spin_unlock(&tasklist_lock);
	wake_up_tree_waiters();
}

/* The stack VMA's size: RLIMIT_STACK's soft limit as the process starts
 * (Linux's stack grows up to it; here the VMA is that size from the start,
 * demand-paged), at most USER_STACK_SIZE, the room the layout leaves below
 * STACK_TOP for it (mm/mm_types.h). */
unsigned long stack_vma_size(const struct signal_struct *sig)
{
	unsigned long size = sig->rlim[RLIMIT_STACK].rlim_cur;
	if (size > USER_STACK_SIZE)
		size = USER_STACK_SIZE;
	size &= ~(PAGE_SIZE - 1);
	return size < 16 * PAGE_SIZE ? 16 * PAGE_SIZE : size;
}

/* The program is in place (ok) or could not be: the spawner waiting in
 * process_started_mm goes on, with a reference to the mm if it asked. */
static void program_started(struct process_info *info, bool ok)
{
	if (ok && info->want_mm) {
		mmget(current->mm);
		info->started_mm = current->mm;
	}
	complete_all(&info->started);
}

struct mm_struct *process_started_mm(struct task_struct *p)
{
	struct process_info *info = process_info_of(p);
	wait_for_completion(&info->started);
	struct mm_struct *mm = info->started_mm;
	info->started_mm = NULL;
	return mm;
}

/* Linux's environment for init (envp_init). */
static const char *const process_envp[] = { "HOME=/", "TERM=linux", NULL };

/* The process's first code, on its stack below task_pt_regs (which
 * kernel_execve fills): its program by execve, as Linux starts init
 * (kernel_execve from a kernel thread, then ret_from_fork to user mode). */
/* fd 0, 1 and 2 on path (process_spawn_args.stdio_path), by the process
 * itself: 0 or the open's error. */
static int open_stdio(const char *path)
{
	struct files_struct *files = current->files;
	for (unsigned fd = 0; fd < 3; fd++)
		files_close(files, fd);
	int fd = files_open(files, AT_FDCWD, path, O_RDWR, 0);
	if (fd < 0)
		return fd;
	for (unsigned i = 1; i < 3; i++) {
		int nfd = files_dup(files, (unsigned)fd);
		if (nfd < 0)
			return nfd;
	}
	return 0;
}

static __noreturn void process_exec(void *data)
{
	struct process_info *info = data;
	struct task_struct *tsk = current;
	int err = info->stdio_path[0] ? open_stdio(info->stdio_path) : 0;
	if (err)
		printk(KERN_ALWAYS "%smmlab: process %d (%s): open(%s) for fd 0-2: error %d\n",
		       info->console_prefix, tsk->pid, tsk->comm, info->stdio_path, err);
	else
		err = kernel_execve(info->path, (const char *const *)info->argv, process_envp);
	program_started(info, !err);
	if (err) {
		printk(KERN_ALWAYS "%smmlab: process %d (%s) could not start: execve(%s) error %d\n",
		       info->console_prefix, tsk->pid, tsk->comm, info->path, err);
		do_exit_thread(127);
	}
	exit_to_user_mode_prepare();
	ret_from_fork_user(task_pt_regs(tsk));
}

static int process_main(void *data)
{
	struct process_info *info = data;
	struct task_struct *tsk = current;
	struct elf_image_info elf;
	unsigned long sp = 0;

	if (info->path[0])
		call_on_stack(task_pt_regs(tsk), process_exec, info);
	int err = elf_load(tsk->mm, info->image, info->image_size, &elf);
	if (!err)
		err = setup_arg_pages(tsk->mm, &elf, stack_vma_size(tsk->signal));
	if (!err) {
		err = create_elf_tables(&elf, info->argc, info->argv, 0, NULL, NULL, &sp);
		tsk->mm->start_stack = sp;
	}
	program_started(info, !err);
	if (err) {
		printk(KERN_ALWAYS "%smmlab: process %d (%s) could not start: error %d\n",
		       info->console_prefix, tsk->pid, tsk->comm, err);
		do_exit_thread(127);
	}
	enter_user_mode(elf.entry, sp);
}

static int copy_args(struct process_info *info, const struct process_spawn_args *args)
{
	const char *const self[] = { args->name, NULL };
	const char *const *argv = args->argv ? args->argv : self;
	size_t used = 0;
	for (info->argc = 0; argv[info->argc]; info->argc++) {
		size_t n = strlen(argv[info->argc]) + 1;
		if (info->argc == MAX_ARGS || n > sizeof(info->arg_bytes) - used)
			return -E2BIG;
		info->argv[info->argc] = memcpy(info->arg_bytes + used, argv[info->argc], n);
		used += n;
	}
	info->argv[info->argc] = NULL;
	return info->argc ? 0 : -EINVAL;
}

struct task_struct *process_spawn(const struct process_spawn_args *args, int *err)
{
	struct process_info *info = NULL;
	struct task_struct *tsk = NULL;
	struct mm_struct *mm = NULL;
	struct files_struct *files = NULL;
	struct fs_struct *fs = NULL;
	struct sighand_struct *sighand = NULL;
	void *fpu = NULL;

	if (!cpu_online(args->cpu)) {
		*err = -ENXIO;
		return NULL;
	}
	if (args->path) {
		/* Its file is looked for now, so that the caller hears of a
		 * missing one; what else execve finds wrong ends the process
		 * (exit status 127, reported on the console). */
		*err = strlen(args->path) < PROCESS_PATH_MAX ? program_file_check(args->path) : -ENAMETOOLONG;
	} else {
		*err = elf_check(args->image, args->image_size);
	}
	if (*err)
		return NULL;
	*err = -ENOMEM;
	struct signal_struct *sig = process_signal_alloc(args->console_prefix);
	if (!sig)
		goto fail;
	info = process_info_of_signal(sig);
	if (args->path)
		strlcpy(info->path, args->path, sizeof(info->path));
	info->want_mm = args->want_mm;
	if (args->stdio_path && strlcpy(info->stdio_path, args->stdio_path, sizeof(info->stdio_path)) >=
					sizeof(info->stdio_path)) {
		*err = -ENAMETOOLONG;
		goto fail;
	}
	info->image = args->image;
	info->image_size = args->image_size;
	*err = copy_args(info, args);
	if (*err)
		goto fail;
	*err = -ENOMEM;
	mm = mm_alloc();
	files = files_alloc(info->console_prefix);
	fs = copy_fs_struct(&init_fs); /* "/" and umask 022, as Linux's init */
	fpu = kmalloc(FPU_STATE_SIZE, GFP_KERNEL);
	sighand = sighand_alloc();
	if (!mm || !files || !fs || !fpu || !sighand)
		goto fail;
	if ((uintptr_t)fpu & 63) /* XSAVE's alignment */
		panic("BUG: kmalloc(%d) is not 64-byte aligned", FPU_STATE_SIZE);
	fpu_state_init(fpu);
	tsk = __kthread_create_on_cpu(process_main, info, args->cpu, args->name);
	if (!tsk)
		goto fail;
	int nr = args->init ? init_pid_handover(current) : alloc_pid();
	if (nr < 0) {
		kthread_stop(tsk); /* it never ran: nothing of the process is its yet */
		*err = nr;
		goto fail;
	}
	/* It starts on the CPU asked for and may then run on any. */
	struct cpumask all = cpu_possible_mask();
	set_cpus_allowed_ptr(tsk, &all);
	tsk->mm = mm;
	tsk->files = files;
	tsk->fs = fs;
	tsk->fpu_state = fpu;

	/* The thread group, with the leader as its one thread. */
	INIT_LIST_HEAD(&tsk->pending.list);
	tsk->sas_ss_flags = SS_DISABLE; /* Linux's INIT_TASK: no alternate stack */
	rlimits_init(sig->rlim);
	tsk->signal = sig;
	tsk->sighand = sighand;
	tsk->result = &sig->result;
	tsk->pid = tsk->tgid = nr;
	tsk->group_leader = tsk;
	tsk->usage = 1;
	list_add_tail(&tsk->thread_node, &sig->thread_head);
	/* The root of a process tree, with no parent (getppid 0, as Linux's
	 * init), its own session and process group. */
	INIT_LIST_HEAD(&tsk->children);
	INIT_LIST_HEAD(&tsk->sibling);
	sig->pgrp = sig->session = tsk->tgid;
	sig->leader = true;
	if (args->init)
		sig->flags |= SIGNAL_UNKILLABLE;
	sig->child_reaper = tsk;
	spin_lock(&tasklist_lock);
	list_add_tail(&tsk->tasks, &sig->tree_tasks);
	spin_unlock(&tasklist_lock);
	attach_pid(tsk);
	user_thread_started();
	process_started();
	*err = 0;
	wake_up_process(tsk);
	return tsk;
fail:
	if (mm)
		mmput(mm);
	if (files)
		files_release(files);
	put_fs_struct(fs);
	sighand_put(sighand);
	kfree(fpu);
	kfree(info);
	return NULL;
}

void process_wait(struct task_struct *p, struct process_result *res)
{
	/* p is the task process_spawn made; an exec from another thread may
	 * make that one the leader (and p a dead leader) until the end. */
	struct signal_struct *sig = p->signal;
	if (sig->child_reaper->signal != sig)
		panic("BUG: process_wait(%s) on %d, which the kernel did not start", p->comm, p->pid);
	/* The processes left in its tree were killed when it ended
	 * (exit_notify); each is freed by its parent's wait or the kernel. */
	wait_tree_released(sig);
	*res = sig->result;
	release_process(sig->child_reaper);
}

bool process_wait_timeout(struct task_struct *p, unsigned long timeout_ms, struct process_result *res)
{
	struct process_info *info = process_info_of(p);
	bool in_time = wait_group_released_timeout(&info->signal, msecs_to_jiffies(timeout_ms));
	if (!in_time) { /* a group that is already ending takes nothing */
		struct kernel_siginfo kill = { .si_signo = SIGKILL, .si_code = SI_KERNEL };
		send_signal(SIGKILL, &kill, p, true);
	}
	process_wait(p, res);
	return in_time;
}

bool process_run(const char *name, const char *const *argv, unsigned int cpu,
		 struct process_result *res, int *err)
{
	return process_run_on(name, argv, cpu, NULL, res, err);
}

bool process_run_on(const char *name, const char *const *argv, unsigned int cpu, const char *stdio_path,
		    struct process_result *res, int *err)
{
	char path[PROCESS_PATH_MAX];
	if (!name[0] || strchr(name, '/') || snprintf(path, sizeof(path), "/bin/%s", name) >= (int)sizeof(path)) {
		*err = -ENOENT;
		return false;
	}
	struct process_spawn_args args = {
		.name = name,
		.path = path,
		.argv = argv,
		.cpu = cpu,
		.stdio_path = stdio_path,
	};
	struct task_struct *p = process_spawn(&args, err);
	if (!p)
		return false;
	process_wait(p, res);
	return true;
}

static char run_list[256];
kernel_param_string("run", run_list, "user programs to run at boot, comma separated (default: the demo programs; none: no program)");
static char run_tty[32];
kernel_param_string("run_tty", run_tty,
		    "a terminal (ttyS0) for the run= programs' fd 0-2 and controlling terminal, instead of the console line");

static void run_one_at_boot(const char *name)
{
	struct process_result res;
	int err;
	pr_info("mmlab: running %s as a process on CPU %u\n", name, smp_processor_id());
	char dev[sizeof(run_tty) + 5] = "";
	if (run_tty[0])
		snprintf(dev, sizeof(dev), "/dev/%s", run_tty);
	if (!process_run_on(name, NULL, smp_processor_id(), dev[0] ? dev : NULL, &res, &err))
		pr_err("mmlab: %s could not be started: error %d%s\n", name, err,
		       err == -ENOENT ? " (no such program in /bin)" : "");
	else if (!res.killed) /* a kill has had its report already */
		pr_info("mmlab: %s exited with status %d\n", name, res.exit_code);
	page_owner_map_after_program(name);
}

/* Linux's init=: the one program run as process 1, in place of the boot
 * programs (`make shell` boots /sbin/init, BusyBox's: docs/shell.md).
 * Its argv[0] is the path and its environment Linux's envp_init, as
 * Linux's run_init_process gives them; fd 0, 1 and 2 are /dev/console
 * (the console= port's terminal), as Linux's console_on_rootfs opens. Linux first tries rdinit= (/init)
 * of an initramfs; mmlab's root is always the initramfs, and only this
 * word names process 1. */
static char init_path[PROCESS_PATH_MAX];
kernel_param_string("init", init_path, "a program to run as process 1 instead of the boot programs (e.g. /sbin/init)");

static void run_init(void)
{
	const char *slash = strrchr(init_path, '/');
	const char *const argv[] = { init_path, NULL };
	struct process_spawn_args args = {
		.name = slash ? slash + 1 : init_path,
		.path = init_path,
		.argv = argv,
		.cpu = smp_processor_id(),
		.init = true,
		.stdio_path = "/dev/console", /* Linux's console_on_rootfs */
	};
	int err;
	struct task_struct *p = process_spawn(&args, &err);
	if (!p)
		panic("No working init found. Try passing init= option to kernel. (%s: error %d)", init_path, err);
	struct process_result res;
	process_wait(p, &res);
	/* Linux's do_exit of the last task of the init pid namespace. */
	panic("Attempted to kill init! exitcode=0x%08x", res.killed ? res.signal : res.exit_code << 8);
}

void run_boot_programs(void)
{
	if (init_path[0]) {
		run_init();
		return;
	}
	if (!strcmp(run_list, "none"))
		return; /* make memmap: the map after boot, nothing run */
	if (run_list[0]) {
		char list[sizeof(run_list)];
		strlcpy(list, run_list, sizeof(list));
		for (char *name = list, *next; name && *name; name = next) {
			next = strchr(name, ',');
			if (next)
				*next++ = 0;
			run_one_at_boot(name);
		}
		return;
	}
	for (unsigned int i = 0; i < nr_user_programs(); i++)
		if (!strcmp(user_program(i)->kind, "demo"))
			run_one_at_boot(user_program(i)->name);
}
