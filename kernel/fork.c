/* New threads: clone 56 and clone3 435 (Linux's kernel/fork.c:
 * sys_clone, sys_clone3, copy_clone_args_from_user, clone3_args_valid,
 * kernel_clone, copy_process), for the thread flags glibc and musl use.
 *
 * mmlab runs thread groups only: a clone that would make a new process
 * (no CLONE_THREAD: fork, vfork, posix_spawn's CLONE_VM|CLONE_VFORK) has
 * nowhere to go (no wait4, no exec, no copy of an address space), and gets
 * -EINVAL, as Linux gives for flag combinations it does not accept, with
 * one log line naming the flags; so do the flags of things mmlab lacks
 * (namespaces, pidfds, ptrace, vfork, cgroups) and a thread with a file
 * table of its own (no CLONE_FILES: mmlab cannot copy one). The libcs pass
 * a clone error on (glibc's pthread_create returns the errno, musl's
 * returns EAGAIN; fork and posix_spawn report -1 with errno EINVAL).
 *
 * A new thread (copy_process, for CLONE_VM|CLONE_SIGHAND|CLONE_THREAD):
 * a task on the CPU select_task_rq_fork picks, with the scheduler's side
 * of the parent (sched_fork), a copy of the parent's FPU registers
 * (fpu_clone), the parent's FS/GS bases or CLONE_SETTLS's, the shared mm
 * (a user more), files, sighand and thread group. It starts in fork_entry,
 * which writes CLONE_CHILD_SETTID's word and returns to user mode with the
 * parent's user registers but rax = 0 and rsp = the new stack (Linux's
 * ret_from_fork). */
#include "arch/x86_64/syscall.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
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

/* What mmlab accepts beyond the three a thread needs: sharing what it has
 * (files), and flags with nothing to act on here (no fs_struct: CLONE_FS is
 * the same either way; no SysV semaphores, tracing or I/O contexts). */
#define MMLAB_CLONE_THREAD_FLAGS                                                                     \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS | \
	 CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | CLONE_DETACHED |            \
	 CLONE_UNTRACED | CLONE_IO | CLONE_PARENT)

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

__noreturn void ret_from_fork_user(const struct pt_regs *regs); /* user_entry.asm */

/* Says once per reason which flags mmlab refused, so a libc's failure has
 * a cause on the console. */
static void refuse_once(bool *said, const struct kernel_clone_args *args, const char *why)
{
	if (!__atomic_exchange_n(said, true, __ATOMIC_RELAXED))
		pr_warn("clone: flags %#llx (exit signal %d) refused with EINVAL: %s (reported once)\n",
			(unsigned long long)args->flags, args->exit_signal, why);
}
static bool said_process, said_unsupported, said_files, said_set_tid;

/* The new thread's first code, in kernel mode on its CPU, with the mm and
 * FS/GS bases loaded by the switch to it. */
static int fork_entry(void *data)
{
	struct pt_regs regs = *(struct pt_regs *)data;
	struct task_struct *tsk = current;
	kfree(data);
	/* Linux's schedule_tail: CLONE_CHILD_SETTID, errors ignored. */
	if (tsk->set_child_tid) {
		int tid = tsk->pid;
		(void)copy_to_user(tsk->set_child_tid, &tid, sizeof(tid));
	}
	/* The way out every entry takes (it returns with interrupts off, so
	 * a group exit or a move to another CPU asked for after its checks
	 * is seen by the kick's interrupt in user mode): a group exit that
	 * began while this thread was being made, a pending migration. */
	exit_to_user_mode_prepare();
	ret_from_fork_user(&regs);
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
	if ((f & CLONE_THREAD) && (f & (CLONE_NEWUSER | CLONE_NEWPID)))
		return -EINVAL;
	if ((f & CLONE_PIDFD) && (f & CLONE_DETACHED))
		return -EINVAL;
	if (!(f & CLONE_THREAD)) {
		refuse_once(&said_process, args, "a new process (fork, vfork, spawn): mmlab runs threads of a process only");
		return -EINVAL;
	}
	if (f & ~MMLAB_CLONE_THREAD_FLAGS) {
		refuse_once(&said_unsupported, args, "namespaces, pidfds, ptrace, vfork and cgroups are not supported");
		return -EINVAL;
	}
	if (!(f & CLONE_FILES)) {
		refuse_once(&said_files, args, "a thread with its own file table (no CLONE_FILES) is not supported");
		return -EINVAL;
	}
	return 0;
}

/* Linux's kernel_clone + copy_process for a thread of current's group. */
static long kernel_clone(struct kernel_clone_args *args)
{
	struct task_struct *parent = current, *p;
	struct signal_struct *sig = parent->signal;
	u64 f = args->flags;

	if ((f & CLONE_PIDFD) && (f & CLONE_PARENT_SETTID) && args->pidfd == args->parent_tid)
		return -EINVAL;
	int err = clone_flags_valid(args);
	if (err)
		return err;
	/* x86's set_new_tls -> do_arch_prctl_64(ARCH_SET_FS). */
	if ((f & CLONE_SETTLS) && args->tls >= TASK_SIZE)
		return -EPERM;
	if (!sig || !user_thread_reaper_running())
		return -EAGAIN;
	/* copy_process's nr_threads >= max_threads (fork_init's bound on the
	 * kernel stacks memory can hold). */
	if (nr_user_threads() >= max_threads())
		return -EAGAIN;

	struct pt_regs *regs = kmalloc(sizeof(*regs), GFP_KERNEL);
	if (!regs)
		return -ENOMEM;
	*regs = *task_pt_regs(parent);
	regs->rax = 0;
	if (args->stack)
		regs->rsp = args->stack;
	p = kthread_create_on_cpu(fork_entry, regs, select_task_rq_fork(parent), "user/%u");
	if (!p) {
		kfree(regs);
		return -ENOMEM;
	}
	err = fpu_clone(p, parent);
	if (err) {
		kthread_stop(p);
		kfree(regs);
		return err;
	}
	sched_fork(p, parent);
	strlcpy(p->comm, parent->comm, sizeof(p->comm));
	current_save_fsgs(); /* a user wrfsbase/wrgsbase the kernel has not seen */
	p->thread = parent->thread;
	if (f & CLONE_SETTLS)
		p->thread.fsbase = args->tls;
	p->blocked = parent->blocked;
	/* A thread starts without the parent's alternate signal stack
	 * (copy_process's sas_ss_reset for CLONE_VM). */
	p->sas_ss_sp = p->sas_ss_size = 0;
	p->sas_ss_flags = SS_DISABLE;
	/* Nothing pending for it yet (Linux's init_sigpending). */
	INIT_LIST_HEAD(&p->pending.list);
	p->pending.signal = 0;
	p->set_child_tid = (f & CLONE_CHILD_SETTID) ? args->child_tid : NULL;
	p->clear_child_tid = (f & CLONE_CHILD_CLEARTID) ? args->child_tid : NULL;
	p->pid = alloc_pid();
	p->tgid = parent->tgid;
	p->group_leader = parent->group_leader;
	p->signal = sig;
	p->sighand = parent->sighand;
	p->result = parent->result;
	p->usage = 1;

	/* Joining the group and the exit check are one step under siglock
	 * (copy_process's fatal_signal_pending check): a group exit either
	 * finds the new thread on thread_head or is seen here. */
	spin_lock(&sig->siglock);
	if (sig->group_exit) {
		spin_unlock(&sig->siglock);
		void *fpu = p->fpu_state;
		p->fpu_state = NULL;
		kthread_stop(p);
		kfree(fpu);
		kfree(regs);
		return -EINTR; /* Linux's -ERESTARTNOINTR: the caller is exiting anyway */
	}
	__atomic_add_fetch(&parent->mm->mm_users, 1, __ATOMIC_RELAXED); /* mmget */
	__atomic_add_fetch(&p->sighand->count, 1, __ATOMIC_RELAXED);
	p->mm = parent->mm;
	p->files = parent->files;
	mpol_fork(p, parent); /* copy_process: the creator's NUMA policy */
	__atomic_add_fetch(&sig->sigcnt, 1, __ATOMIC_RELAXED); /* the reaper drops it, unlocked */
	sig->nr_threads++;
	list_add_tail(&p->thread_node, &sig->thread_head);
	spin_unlock(&sig->siglock);
	attach_pid(p);
	user_thread_started();

	int nr = p->pid;
	if (f & CLONE_PARENT_SETTID)
		(void)copy_to_user(args->parent_tid, &nr, sizeof(nr)); /* errors ignored, as Linux's */
	wake_up_process(p);
	return nr;
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
