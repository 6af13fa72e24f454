/* User processes (see kernel/process.h): creation from an ELF image, the
 * initial stack, exit and exit_group, the kill after a fault, and reaping.
 *
 * A process is a kernel task with task->mm, task->files and an FPU area.
 * It starts in process_main (kernel mode, on its own CPU, with its mm
 * already active: the scheduler switches CR3 to next->mm), which loads the
 * program and drops to ring 3. It ends in process_end, always in its own
 * context: the mm and files go first, then do_exit() ends the task, and the
 * creator's process_wait() frees the task and reads the result.
 *
 * Invariant: everything a process owns (mm, files, FPU area, its
 * process_info) is freed by the time process_wait() returns. */
#include "kernel/process.h"
#include "arch/x86_64/syscall.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/cmdline.h"
#include "kernel/binfmt_elf.h"
#include "kernel/elf.h"
#include "kernel/file.h"
#include "kernel/multiboot2.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/syscall.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/page.h"
#include "mm/slab.h"

#define MAX_ARGS 16
#define MAX_ARG_BYTES 1024
#define SIGSEGV 11

struct process_info {
	struct process_result result;
	const void *image;
	unsigned long image_size;
	int argc;
	char *argv[MAX_ARGS + 1];
	char arg_bytes[MAX_ARG_BYTES];
	char console_prefix[16];
};

static int next_pid = 1;
static unsigned long processes_alive;

unsigned long nr_processes(void) { return __atomic_load_n(&processes_alive, __ATOMIC_RELAXED); }

static struct process_info *process_info_of(struct task_struct *p)
{
	return container_of(p->result, struct process_info, result);
}

/* Frees what the process owns, in its own context, and ends the task. */
static __noreturn void process_end(void)
{
	struct task_struct *tsk = current;
	struct mm_struct *mm = tsk->mm;
	void *fpu = tsk->fpu_state;

	strlcpy(tsk->result->last_line, files_last_console_line(tsk->files),
		sizeof(tsk->result->last_line));
	files_release(tsk->files);
	tsk->files = NULL;
	/* Off the process's page tables and FPU area before they go: the
	 * scheduler looks at both when it switches. */
	__asm__ volatile("cli" ::: "memory");
	tsk->mm = NULL;
	tsk->fpu_state = NULL;
	switch_mm(mm, NULL);
	__asm__ volatile("sti" ::: "memory");
	mmput(mm);
	kfree(fpu);
	__atomic_sub_fetch(&processes_alive, 1, __ATOMIC_RELAXED);
	do_exit(tsk->result->killed ? 128 + SIGSEGV : tsk->result->exit_code);
}

__noreturn void process_exit(int code)
{
	current->result->exit_code = code & 0xff;
	process_end();
}

__noreturn void user_fault_kill(struct pt_regs *regs, u64 cr2, const char *reason)
{
	struct task_struct *tsk = current;
	struct process_result *res = tsk->result;
	/* From user mode: nothing of the kernel's is held, and the teardown
	 * may wait for TLB-flush IPIs. */
	__asm__ volatile("sti" ::: "memory");
	if (!res) /* cannot happen: only processes run in user mode */
		panic("BUG: user-mode exception in task %s, which is not a process", tsk->comm);
	res->killed = true;
	if (regs->vector == X86_TRAP_PF)
		snprintf(res->reason, sizeof(res->reason),
			 "%s at address %#lx (ip %#lx, error code %#lx)", reason, cr2, regs->rip,
			 regs->error_code);
	else
		snprintf(res->reason, sizeof(res->reason), "%s (ip %#lx, error code %#lx)", reason,
			 regs->rip, regs->error_code);
	printk(KERN_ALWAYS "%smmlab: process %d (%s) killed: %s\n", process_info_of(tsk)->console_prefix,
	       tsk->pid, tsk->comm, res->reason);
	process_end();
}

static int process_main(void *data)
{
	struct process_info *info = data;
	struct task_struct *tsk = current;
	struct elf_image_info elf;
	unsigned long sp = 0;

	int err = elf_load(tsk->mm, info->image, info->image_size, &elf);
	if (!err)
		err = setup_arg_pages(tsk->mm, &elf);
	if (!err) {
		err = create_elf_tables(&elf, info->argc, info->argv, &sp);
		tsk->mm->start_stack = sp;
	}
	if (err) {
		printk(KERN_ALWAYS "%smmlab: process %d (%s) could not start: error %d\n",
		       info->console_prefix, tsk->pid, tsk->comm, err);
		process_exit(127);
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
	void *fpu = NULL;

	if (!cpu_online(args->cpu)) {
		*err = -ENXIO;
		return NULL;
	}
	*err = elf_check(args->image, args->image_size);
	if (*err)
		return NULL;
	*err = -ENOMEM;
	info = kmalloc(sizeof(*info), GFP_KERNEL | __GFP_ZERO);
	if (!info)
		goto fail;
	info->image = args->image;
	info->image_size = args->image_size;
	strlcpy(info->console_prefix, args->console_prefix ? args->console_prefix : "",
		sizeof(info->console_prefix));
	*err = copy_args(info, args);
	if (*err)
		goto fail;
	*err = -ENOMEM;
	mm = mm_alloc();
	files = files_alloc(info->console_prefix);
	fpu = kmalloc(FPU_STATE_SIZE, GFP_KERNEL);
	if (!mm || !files || !fpu)
		goto fail;
	if ((uintptr_t)fpu & 15)
		panic("BUG: kmalloc(%d) is not 16-byte aligned", FPU_STATE_SIZE);
	fpu_state_init(fpu);
	tsk = kthread_create_on_cpu(process_main, info, args->cpu, "user/%u");
	if (!tsk)
		goto fail;
	strlcpy(tsk->comm, args->name, sizeof(tsk->comm));
	tsk->mm = mm;
	tsk->files = files;
	tsk->fpu_state = fpu;
	tsk->result = &info->result;
	tsk->pid = __atomic_fetch_add(&next_pid, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&processes_alive, 1, __ATOMIC_RELAXED);
	*err = 0;
	wake_up_process(tsk);
	return tsk;
fail:
	if (mm)
		mmput(mm);
	if (files)
		files_release(files);
	kfree(fpu);
	kfree(info);
	return NULL;
}

void process_wait(struct task_struct *p, struct process_result *res)
{
	struct process_info *info = process_info_of(p);
	kthread_join(p);
	*res = info->result;
	kfree(info);
}

bool process_run(const char *name, const char *const *argv, unsigned int cpu,
		 struct process_result *res, int *err)
{
	const struct boot_module *mod = find_user_program(name, NULL);
	if (!mod) {
		*err = -ENOENT;
		return false;
	}
	struct process_spawn_args args = {
		.name = name,
		.image = __va(mod->start),
		.image_size = mod->end - mod->start,
		.argv = argv,
		.cpu = cpu,
	};
	struct task_struct *p = process_spawn(&args, err);
	if (!p)
		return false;
	process_wait(p, res);
	return true;
}

static char run_list[256];
kernel_param_string("run", run_list, "user programs to run at boot, comma separated (default: the demo modules)");

static void run_one_at_boot(const char *name)
{
	struct process_result res;
	int err;
	pr_info("mmlab: running %s as a process on CPU %u\n", name, smp_processor_id());
	if (!process_run(name, NULL, smp_processor_id(), &res, &err))
		pr_err("mmlab: %s could not be started: error %d%s\n", name, err,
		       err == -ENOENT ? " (no such module in grub.cfg)" : "");
	else if (!res.killed) /* a kill has had its report already */
		pr_info("mmlab: %s exited with status %d\n", name, res.exit_code);
}

void run_boot_programs(void)
{
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
	for (unsigned i = 0; i < boot_info.nr_modules; i++) {
		const char *line = boot_info.modules[i].cmdline;
		if (line && !strncmp(line, "demo ", 5))
			run_one_at_boot(line + 5);
	}
}

const struct boot_module *find_user_program(const char *name, const char **kind)
{
	for (unsigned i = 0; i < boot_info.nr_modules; i++) {
		const char *line = boot_info.modules[i].cmdline;
		const char *space = line ? strchr(line, ' ') : NULL;
		if (!space || strcmp(space + 1, name))
			continue;
		static char kind_buf[MB2_MAX_MODULES][16];
		size_t n = (size_t)(space - line);
		if (n >= sizeof(kind_buf[i]))
			continue;
		memcpy(kind_buf[i], line, n);
		kind_buf[i][n] = 0;
		if (kind)
			*kind = kind_buf[i];
		return &boot_info.modules[i];
	}
	return NULL;
}

SYSCALL_DEFINE1(exit, int, error_code)
{
	process_exit(error_code);
}

/* One thread per process: exit_group is exit. */
SYSCALL_DEFINE1(exit_group, int, error_code)
{
	process_exit(error_code);
}
