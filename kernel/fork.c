/* New tasks: fork 57, vfork 58, clone 56 and clone3 435 (Linux's
 * kernel/fork.c: sys_clone, sys_clone3, copy_clone_args_from_user,
 * clone3_args_valid, kernel_clone, copy_process), for the flags glibc and
 * musl pass for threads, fork, vfork and posix_spawn.
 *
 * Every new task (copy_process): a task on the CPU select_task_rq_fork
 * picks, with the scheduler's side of the parent (sched_fork), a copy of
 * the parent's FPU registers (fpu_clone), the parent's FS/GS bases or
 * CLONE_SETTLS's, its blocked mask, nothing pending. It starts in
 * fork_entry, which writes CLONE_CHILD_SETTID's word and returns to user
 * mode with the parent's user registers but rax = 0 and rsp = the new
 * stack if one was given (Linux's ret_from_fork).
 *
 * A thread (CLONE_VM|CLONE_SIGHAND|CLONE_THREAD) joins the parent's group:
 * its mm, files, sighand and signal_struct. A new process (no
 * CLONE_THREAD) gets a thread group of its own (copy_signal: the limits
 * copied), the parent's address space shared (CLONE_VM) or copied
 * (copy_mm -> dup_mm), its descriptor table shared (CLONE_FILES) or
 * copied (dup_fd), its signal actions shared (CLONE_SIGHAND) or copied
 * (copy_sighand); its parent is the calling process (the caller's parent
 * with CLONE_PARENT), it is in the parent's process group, session and
 * process tree, and it tells its parent of its end with exit_signal
 * (kernel/exit.c). CLONE_VFORK's parent sleeps until the child has left
 * the memory it borrowed (its exit). Flags for what mmlab lacks
 * (namespaces, pidfds, cgroups, set_tid) are refused with EINVAL and one
 * log line naming them, as Linux refuses flag combinations it does not
 * accept. */
#include "arch/x86_64/syscall.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fs/fs_struct.h"
#include "kernel/cred.h"
#include "kernel/pid.h"
#include "kernel/printk.h"
#include "kernel/process.h"
#include "kernel/signal.h"
#include "lib/string.h"
#include "kernel/syscall.h"
#include "mm/mm_types.h"
#include "mm/mempolicy.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/slab.h"

#define CSIGNAL 0x000000fful
#define CLONE_NEWTIME 0x00000080ul
#define CLONE_VM 0x00000100ul
#define CLONE_FS 0x00000200ul
#define CLONE_FILES 0x00000400ul
#define CLONE_SIGHAND 0x00000800ul
#define CLONE_PIDFD 0x00001000ul
#define CLONE_PTRACE 0x00002000ul
#define CLONE_VFORK 0x00004000ul
#define CLONE_PARENT 0x00008000ul
#define CLONE_THREAD 0x00010000ul
#define CLONE_NEWNS 0x00020000ul
#define CLONE_SYSVSEM 0x00040000ul
#define CLONE_SETTLS 0x00080000ul
#define CLONE_PARENT_SETTID 0x00100000ul
#define CLONE_CHILD_CLEARTID 0x00200000ul
#define CLONE_DETACHED 0x00400000ul
#define CLONE_UNTRACED 0x00800000ul
#define CLONE_CHILD_SETTID 0x01000000ul
#define CLONE_NEWCGROUP 0x02000000ul
#define CLONE_NEWUTS 0x04000000ul
#define CLONE_NEWIPC 0x08000000ul
#define CLONE_NEWUSER 0x10000000ul
#define CLONE_NEWPID 0x20000000ul
#define CLONE_NEWNET 0x40000000ul
#define CLONE_IO 0x80000000ul
#define CLONE_LEGACY_FLAGS 0xfffffffful
#define CLONE_CLEAR_SIGHAND 0x100000000ul
#define CLONE_INTO_CGROUP 0x200000000ul

/* What mmlab accepts: sharing what it has (memory, files, root and
 * working directory, actions), and flags with nothing to act on here (no
 * SysV semaphores, tracing or I/O contexts; CLONE_PTRACE only matters to
 * a traced parent). */
#define MMLAB_CLONE_FLAGS                                                                            \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS | \
	 CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | CLONE_DETACHED |            \
	 CLONE_UNTRACED | CLONE_IO | CLONE_PARENT | CLONE_VFORK | CLONE_PTRACE | CLONE_CLEAR_SIGHAND)

#define CLONE_ARGS_SIZE_VER0 64
#define CLONE_ARGS_SIZE_VER2 88
#define MAX_PID_NS_LEVEL 32

struct clone_args {
	u64 flags;
	u64 pidfd;
	u64 child_tid;
	u64 parent_tid;
	u64 exit_signal;
	u64 stack;
	u64 stack_size;
	u64 tls;
	u64 set_tid;
	u64 set_tid_size;
	u64 cgroup;
};
_Static_assert(sizeof(struct clone_args) == CLONE_ARGS_SIZE_VER2, "struct clone_args is Linux's");

struct kernel_clone_args {
	u64 flags;
	int __user *pidfd;
	int __user *child_tid;
	int __user *parent_tid;
	int exit_signal;
	unsigned long stack;
	unsigned long stack_size;
	unsigned long tls;
	u64 set_tid_size;
};


DEFINE_SPINLOCK(tasklist_lock);

/* Says once per reason which flags mmlab refused, so a libc's failure has
 * a cause on the console. */
static void refuse_once(bool *said, const struct kernel_clone_args *args, const char *why)
{
	if (!__atomic_exchange_n(said, true, __ATOMIC_RELAXED))
		pr_warn("clone: flags %#llx (exit signal %d) refused with EINVAL: %s (reported once)\n",
			(unsigned long long)args->flags, args->exit_signal, why);
}
static bool said_unsupported, said_files, said_set_tid;

/* The new task's first code, in kernel mode on its CPU, with the mm and
 * FS/GS bases loaded by the switch to it, on the stack below the place of
 * its user registers (fork_entry moved it there): the parent's registers
 * as clone made them go there first, so that a signal delivered before
 * the task ever ran in user mode (a kill between clone and the first
 * switch) builds its frame from them, as every later entry's delivery
 * does from task_pt_regs. */
static __noreturn void fork_entry_user(void *data)
{
	struct task_struct *tsk = current;
	struct pt_regs *regs = task_pt_regs(tsk);
	*regs = *(struct pt_regs *)data;
	kfree(data);
	/* Linux's schedule_tail: CLONE_CHILD_SETTID, errors ignored. */
	if (tsk->set_child_tid)
		(void)put_user_u32((u32)tsk->pid, tsk->set_child_tid);
	/* The way out every entry takes (it returns with interrupts off, so
	 * a group exit or a move to another CPU asked for after its checks
	 * is seen by the kick's interrupt in user mode): a group exit that
	 * began while this thread was being made, a signal, a pending
	 * migration. */
	exit_to_user_mode_prepare();
	ret_from_fork_user(regs);
}

static int fork_entry(void *data)
{
	call_on_stack(task_pt_regs(current), fork_entry_user, data);
}

/* Linux's copy_process checks, in its order, then mmlab's own. */
static int clone_flags_valid(const struct kernel_clone_args *args)
{
	u64 f = args->flags;
	if ((f & (CLONE_NEWNS | CLONE_FS)) == (CLONE_NEWNS | CLONE_FS))
		return -EINVAL;
	if ((f & (CLONE_NEWUSER | CLONE_FS)) == (CLONE_NEWUSER | CLONE_FS))
		return -EINVAL;
	/* Thread groups share signal handlers; shared handlers need a shared
	 * address space. */
	if ((f & CLONE_THREAD) && !(f & CLONE_SIGHAND))
		return -EINVAL;
	if ((f & CLONE_SIGHAND) && !(f & CLONE_VM))
		return -EINVAL;
	/* A tree's root (Linux's init, SIGNAL_UNKILLABLE) makes no siblings
	 * of itself: it has no parent to reap them. */
	if ((f & CLONE_PARENT) && !current->group_leader->real_parent)
		return -EINVAL;
	if ((f & CLONE_THREAD) && (f & (CLONE_NEWUSER | CLONE_NEWPID)))
		return -EINVAL;
	if ((f & CLONE_PIDFD) && (f & CLONE_DETACHED))
		return -EINVAL;
	if (f & ~MMLAB_CLONE_FLAGS) {
		refuse_once(&said_unsupported, args, "namespaces, pidfds and cgroups are not supported");
		return -EINVAL;
	}
	if ((f & CLONE_THREAD) && !(f & CLONE_FILES)) {
		refuse_once(&said_files, args, "a thread with its own file table (no CLONE_FILES) is not supported");
		return -EINVAL;
	}
	return 0;
}

/* Frees what copy_process gave p before it ran (p never ran: its
 * task_struct goes with kthread_stop). */
static void free_unstarted(struct task_struct *p, struct pt_regs *regs)
{
	void *fpu = p->fpu_state;
	p->fpu_state = NULL;
	kthread_stop(p);
	kfree(fpu);
	kfree(regs);
}

/* A thread of current's group (CLONE_THREAD): joining the group and the
 * exit check are one step under the siglocks (copy_process's
 * fatal_signal_pending check), so a group exit either finds the new
 * thread on thread_head or is seen here. */
static int copy_thread_group(struct task_struct *p, struct task_struct *parent)
{
	struct signal_struct *sig = parent->signal;
	p->tgid = parent->tgid;
	p->group_leader = parent->group_leader;
	p->signal = sig;
	p->sighand = parent->sighand;
	p->result = parent->result;
	spin_lock(&p->sighand->siglock);
	spin_lock(&sig->siglock);
	if (sig->group_exit) {
		spin_unlock(&sig->siglock);
		spin_unlock(&p->sighand->siglock);
		return -EINTR; /* Linux's -ERESTARTNOINTR: the caller is exiting anyway */
	}
	/* A group stop under way or done takes the new thread too. */
	task_join_group_stop(p);
	mmget(parent->mm);
	__atomic_add_fetch(&p->sighand->count, 1, __ATOMIC_RELAXED);
	p->mm = parent->mm;
	p->files = parent->files;
	mpol_fork(p, parent); /* copy_process: the creator's NUMA policy */
	__atomic_add_fetch(&sig->sigcnt, 1, __ATOMIC_RELAXED); /* the reaper drops it, unlocked */
	sig->nr_threads++;
	list_add_tail(&p->thread_node, &sig->thread_head);
	spin_unlock(&sig->siglock);
	spin_unlock(&p->sighand->siglock);
	return 0;
}

/* Linux's copy_mm, copy_files, copy_sighand and copy_signal for a new
 * process: its own mm unless CLONE_VM, its own descriptor table unless
 * CLONE_FILES, its own actions unless CLONE_SIGHAND; always a new thread
 * group with the parent's limits. Then it joins the process tree. */
static int copy_new_process(struct task_struct *p, struct task_struct *parent,
			    const struct kernel_clone_args *args)
{
	struct signal_struct *psig = parent->signal, *sig;
	struct mm_struct *mm = NULL;
	struct files_struct *files = NULL;
	struct sighand_struct *sighand = NULL;
	u64 f = args->flags;
	int err = -ENOMEM;

	sig = process_signal_alloc(process_console_prefix(parent));
	if (!sig)
		return -ENOMEM;
	if (f & CLONE_VM) {
		mm = parent->mm;
		mmget(mm);
	} else {
		err = dup_mm(parent->mm, &mm);
		if (err)
			goto fail;
	}
	err = -ENOMEM;
	if (f & CLONE_FILES) {
		files = parent->files;
		get_files_struct(files);
	} else if (!(files = dup_fd(parent->files, process_console_prefix(parent)))) {
		goto fail;
	}
	if (f & CLONE_SIGHAND) {
		sighand = parent->sighand;
		__atomic_add_fetch(&sighand->count, 1, __ATOMIC_RELAXED);
	} else if (!(sighand = copy_sighand(f & CLONE_CLEAR_SIGHAND))) {
		goto fail;
	}
	spin_lock(&psig->siglock);
	memcpy(sig->rlim, psig->rlim, sizeof(sig->rlim));
	sig->oom_score_adj = psig->oom_score_adj; /* Linux's copy_signal */
	sig->oom_score_adj_min = psig->oom_score_adj_min;
	spin_unlock(&psig->siglock);
	p->tgid = p->pid;
	p->group_leader = p;
	p->signal = sig;
	p->sighand = sighand;
	p->result = &sig->result;
	p->flags |= PF_FORKNOEXEC;
	INIT_LIST_HEAD(&p->children);
	INIT_LIST_HEAD(&p->sibling);
	list_add_tail(&p->thread_node, &sig->thread_head);
	/* Linux's: CLONE_PARENT's child is the parent's sibling and takes
	 * the parent's exit signal. */
	struct task_struct *leader = parent->group_leader;
	p->exit_signal = (f & CLONE_PARENT) ? leader->exit_signal : args->exit_signal;

	spin_lock(&tasklist_lock);
	struct task_struct *root = psig->child_reaper;
	/* copy_process's fatal_signal_pending check: a parent being killed,
	 * or a tree being torn down, makes no more processes. */
	if (READ_ONCE(psig->group_exit) || root->signal->tree_dead) {
		spin_unlock(&tasklist_lock);
		err = -EINTR; /* Linux's -ERESTARTNOINTR */
		goto fail;
	}
	p->real_parent = (f & CLONE_PARENT) ? leader->real_parent : leader;
	/* The thread that made it (Linux's real_parent): CLONE_PARENT's is
	 * the one that made the parent. */
	p->parent_thread = (f & CLONE_PARENT) ? leader->parent_thread : parent;
	list_add_tail(&p->sibling, &p->real_parent->children);
	sig->pgrp = psig->pgrp;
	sig->session = psig->session;
	sig->tty = psig->tty; /* Linux's copy_signal: the controlling terminal is inherited */
	sig->child_reaper = root;
	list_add_tail(&p->tasks, &root->signal->tree_tasks);
	root->signal->nr_tree++;
	p->mm = mm;
	p->files = files;
	mpol_fork(p, parent);
	spin_unlock(&tasklist_lock);
	process_started();
	return 0;
fail:
	if (mm)
		mmput(mm);
	files_release(files);
	sighand_put(sighand);
	process_signal_free(sig);
	p->signal = NULL;
	p->sighand = NULL;
	return err;
}

/* Linux's wait_for_vfork_done: killable (a fatal signal ends the wait,
 * the child goes on with the memory). */
static void wait_for_vfork_done(struct task_struct *child)
{
	struct completion *x = &child->vfork_done;
	DEFINE_WAIT(wait);
	for (;;) {
		prepare_to_wait(&x->wait, &wait, TASK_INTERRUPTIBLE);
		if (completion_done(x) || sigkill_pending(current))
			break;
		schedule();
	}
	finish_wait(&x->wait, &wait);
}

/* Whether the caller escapes RLIMIT_NPROC: root's user (Linux's
 * INIT_USER, uid 0), or CAP_SYS_RESOURCE or CAP_SYS_ADMIN. */
static bool nproc_exempt(void)
{
	return current_cred()->uid == 0 || capable(CAP_SYS_RESOURCE) || capable(CAP_SYS_ADMIN);
}

/* Linux's kernel_clone + copy_process. */
static long kernel_clone(struct kernel_clone_args *args)
{
	struct task_struct *parent = current, *p;
	u64 f = args->flags;

	if ((f & CLONE_PIDFD) && (f & CLONE_PARENT_SETTID) && args->pidfd == args->parent_tid)
		return -EINVAL;
	int err = clone_flags_valid(args);
	if (err)
		return err;
	/* x86's set_new_tls -> do_arch_prctl_64(ARCH_SET_FS). */
	if ((f & CLONE_SETTLS) && args->tls >= TASK_SIZE)
		return -EPERM;
	if (!parent->signal || !user_thread_reaper_running())
		return -EAGAIN;
	/* copy_process's nr_threads >= max_threads (fork_init's bound on the
	 * kernel stacks memory can hold). */
	if (nr_user_threads() >= max_threads())
		return -EAGAIN;
	/* copy_process's RLIMIT_NPROC: a user's tasks (threads count too)
	 * may not go past the limit, unless the user is root (Linux's
	 * INIT_USER) or the caller has CAP_SYS_RESOURCE or CAP_SYS_ADMIN.
	 * Every process here runs as uid 0, root's user, so the limit is
	 * kept and reported (getrlimit, prlimit64) but never refuses a
	 * fork, whatever capabilities it dropped, as for root on Linux. */
	if (nr_user_threads() >= READ_ONCE(parent->signal->rlim[RLIMIT_NPROC].rlim_cur) && !nproc_exempt())
		return -EAGAIN;

	struct pt_regs *regs = kmalloc(sizeof(*regs), GFP_KERNEL);
	if (!regs)
		return -ENOMEM;
	*regs = *task_pt_regs(parent);
	regs->rax = 0;
	if (args->stack)
		regs->rsp = args->stack;
	p = __kthread_create_on_cpu(fork_entry, regs, select_task_rq_fork(parent), parent->comm);
	if (!p) {
		kfree(regs);
		return -ENOMEM;
	}
	err = fpu_clone(p, parent);
	if (err) {
		free_unstarted(p, regs);
		return err;
	}
	sched_fork(p, parent);
	strlcpy(p->comm, parent->comm, sizeof(p->comm));
	current_save_fsgs(); /* a user wrfsbase/wrgsbase the kernel has not seen */
	p->thread = parent->thread;
	if (f & CLONE_SETTLS)
		p->thread.fsbase = args->tls;
	p->blocked = parent->blocked;
	p->no_new_privs = READ_ONCE(parent->no_new_privs);
	copy_creds(p, parent);
	/* copy_process's sas_ss_reset: a task sharing the memory without
	 * waiting for it (a thread, clone(CLONE_VM)) does not share the
	 * parent's alternate signal stack; fork and vfork keep it. */
	if ((f & (CLONE_VM | CLONE_VFORK)) == CLONE_VM) {
		p->sas_ss_sp = p->sas_ss_size = 0;
		p->sas_ss_flags = SS_DISABLE;
	} else {
		p->sas_ss_sp = parent->sas_ss_sp;
		p->sas_ss_size = parent->sas_ss_size;
		p->sas_ss_flags = parent->sas_ss_flags;
	}
	/* Nothing pending for it yet (Linux's init_sigpending). */
	INIT_LIST_HEAD(&p->pending.list);
	p->pending.signal = 0;
	p->set_child_tid = (f & CLONE_CHILD_SETTID) ? args->child_tid : NULL;
	p->clear_child_tid = (f & CLONE_CHILD_CLEARTID) ? args->child_tid : NULL;
	p->pid = alloc_pid();
	if (p->pid < 0) { /* copy_process's alloc_pid: -EAGAIN when every id is taken */
		err = p->pid;
		p->pid = 0;
		free_unstarted(p, regs);
		return err;
	}
	p->usage = 1;
	if (f & CLONE_VFORK) {
		p->in_vfork = true;
		init_completion(&p->vfork_done);
	}

	/* Linux's copy_fs: the parent's root, cwd and umask shared
	 * (CLONE_FS) or copied. */
	struct fs_struct *fs = parent->fs;
	if (f & CLONE_FS) {
		if (fs)
			get_fs_struct(fs);
	} else if (!(fs = copy_fs_struct(parent->fs))) {
		free_unstarted(p, regs);
		return -ENOMEM;
	}
	err = (f & CLONE_THREAD) ? copy_thread_group(p, parent) : copy_new_process(p, parent, args);
	if (err) {
		put_fs_struct(fs);
		free_unstarted(p, regs);
		return err;
	}
	p->fs = fs;
	attach_pid(p);
	user_thread_started();

	int nr = p->pid;
	if (f & CLONE_PARENT_SETTID)
		(void)copy_to_user(args->parent_tid, &nr, sizeof(nr)); /* errors ignored, as Linux's */
	if (f & CLONE_VFORK)
		get_task_struct(p); /* its vfork_done stays readable until the wait ends */
	wake_up_new_task(p);
	if (f & CLONE_VFORK) {
		wait_for_vfork_done(p);
		put_task_struct(p);
	}
	return nr;
}

SYSCALL_DEFINE0(fork)
{
	struct kernel_clone_args args = { .exit_signal = SIGCHLD };
	return kernel_clone(&args);
}

SYSCALL_DEFINE0(vfork)
{
	struct kernel_clone_args args = { .flags = CLONE_VFORK | CLONE_VM, .exit_signal = SIGCHLD };
	return kernel_clone(&args);
}

/* x86_64's argument order: flags, stack, parent_tid, child_tid, tls. */
SYSCALL_DEFINE5(clone, unsigned long, clone_flags, unsigned long, newsp, int __user *, parent_tidptr,
		int __user *, child_tidptr, unsigned long, tls)
{
	struct kernel_clone_args args = {
		.flags = (clone_flags & CLONE_LEGACY_FLAGS) & ~CSIGNAL,
		.pidfd = parent_tidptr,
		.child_tid = child_tidptr,
		.parent_tid = parent_tidptr,
		.exit_signal = (int)(clone_flags & CSIGNAL),
		.stack = newsp,
		.tls = tls,
	};
	return kernel_clone(&args);
}

/* Linux's copy_struct_from_user: a larger struct than ours is fine when its
 * tail is zero (E2BIG otherwise), a smaller one is zero-extended. */
static int copy_struct_from_user(void *dst, size_t ksize, const void __user *src, size_t usize)
{
	size_t size = usize < ksize ? usize : ksize;
	memset(dst, 0, ksize);
	for (size_t off = ksize; off < usize; off++) {
		u8 b;
		if (copy_from_user(&b, (const u8 __user *)src + off, 1))
			return -EFAULT;
		if (b)
			return -E2BIG;
	}
	return copy_from_user(dst, src, size) ? -EFAULT : 0;
}

static int copy_clone_args_from_user(struct kernel_clone_args *kargs, struct clone_args __user *uargs,
				     size_t usize)
{
	struct clone_args args;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	if (usize < CLONE_ARGS_SIZE_VER0)
		return -EINVAL;
	int err = copy_struct_from_user(&args, sizeof(args), uargs, usize);
	if (err)
		return err;
	if (args.set_tid_size > MAX_PID_NS_LEVEL)
		return -EINVAL;
	if (!args.set_tid && args.set_tid_size > 0)
		return -EINVAL;
	if (args.set_tid && args.set_tid_size == 0)
		return -EINVAL;
	/* The upper bits of exit_signal unset, and a valid signal. */
	if ((args.exit_signal & ~CSIGNAL) || args.exit_signal > _NSIG)
		return -EINVAL;
	if ((args.flags & CLONE_INTO_CGROUP) && (args.cgroup > 0x7fffffff || usize < CLONE_ARGS_SIZE_VER2))
		return -EINVAL;
	*kargs = (struct kernel_clone_args){
		.flags = args.flags,
		.pidfd = (int __user *)(uintptr_t)args.pidfd,
		.child_tid = (int __user *)(uintptr_t)args.child_tid,
		.parent_tid = (int __user *)(uintptr_t)args.parent_tid,
		.exit_signal = (int)args.exit_signal,
		.stack = args.stack,
		.stack_size = args.stack_size,
		.tls = args.tls,
		.set_tid_size = args.set_tid_size,
	};
	/* set_tid (choosing the new thread's id) is refused below as
	 * unsupported flags would be; Linux reads it here first. */
	if (args.set_tid) {
		int set_tid[MAX_PID_NS_LEVEL];
		if (copy_from_user(set_tid, (const void __user *)(uintptr_t)args.set_tid,
				   kargs->set_tid_size * sizeof(int)))
			return -EFAULT;
	}
	return 0;
}

static bool clone3_stack_valid(struct kernel_clone_args *kargs)
{
	if (kargs->stack == 0)
		return kargs->stack_size == 0;
	if (kargs->stack_size == 0)
		return false;
	if (!access_ok((const void *)kargs->stack, kargs->stack_size))
		return false;
	kargs->stack += kargs->stack_size; /* the stack grows down */
	return true;
}

static bool clone3_args_valid(struct kernel_clone_args *kargs)
{
	if (kargs->flags & ~(CLONE_LEGACY_FLAGS | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP))
		return false;
	/* CLONE_DETACHED and the CSIGNAL bits are reserved for clone3. */
	if (kargs->flags & (CLONE_DETACHED | (CSIGNAL & ~CLONE_NEWTIME)))
		return false;
	if ((kargs->flags & (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND)) == (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND))
		return false;
	if ((kargs->flags & (CLONE_THREAD | CLONE_PARENT)) && kargs->exit_signal)
		return false;
	return clone3_stack_valid(kargs);
}

SYSCALL_DEFINE2(clone3, struct clone_args __user *, uargs, size_t, size)
{
	struct kernel_clone_args kargs;
	int err = copy_clone_args_from_user(&kargs, uargs, size);
	if (err)
		return err;
	if (!clone3_args_valid(&kargs))
		return -EINVAL;
	if (kargs.set_tid_size) {
		refuse_once(&said_set_tid, &kargs, "clone3's set_tid is not supported");
		return -EINVAL;
	}
	return kernel_clone(&kargs);
}
