/* Signal storage (see kernel/signal.h): rt_sigaction 13, rt_sigprocmask 14,
 * sigaltstack 131, with Linux's checks in Linux's order (kernel/signal.c:
 * sys_rt_sigaction/do_sigaction, sys_rt_sigprocmask/sigprocmask,
 * do_sigaltstack), and the way back to user mode of a thread whose group is
 * exiting. Nothing is delivered: an action is stored and reported back. */
#include "kernel/signal.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/process.h"
#include "lib/string.h"
#include "kernel/syscall.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

/* sa_flags bits (include/uapi/asm-generic/signal-defs.h, x86's SA_RESTORER). */
#define SA_NOCLDSTOP 0x00000001ul
#define SA_NOCLDWAIT 0x00000002ul
#define SA_SIGINFO 0x00000004ul
#define SA_EXPOSE_TAGBITS 0x00000800ul
#define SA_RESTORER 0x04000000ul
#define SA_ONSTACK 0x08000000ul
#define SA_RESTART 0x10000000ul
#define SA_NODEFER 0x40000000ul
#define SA_RESETHAND 0x80000000ul
/* Linux's UAPI_SA_FLAGS: what do_sigaction keeps; other bits read back 0. */
#define UAPI_SA_FLAGS (SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_NODEFER | \
		       SA_RESETHAND | SA_EXPOSE_TAGBITS | SA_RESTORER)

#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

#define SS_ONSTACK 1
#define SS_DISABLE 2
#define SS_AUTODISARM (1u << 31)
#define SS_FLAG_BITS SS_AUTODISARM
#define MINSIGSTKSZ 2048 /* x86's */

#define sigmask(sig) (1ul << ((sig) - 1))
#define SIG_DFL 0ul
#define SIG_IGN 1ul

typedef struct {
	unsigned long ss_sp;
	int ss_flags;
	unsigned long ss_size;
} stack_t;

struct sighand_struct *sighand_alloc(void)
{
	struct sighand_struct *sh = kzalloc(sizeof(*sh), GFP_KERNEL);
	if (!sh)
		return NULL;
	sh->count = 1;
	spin_lock_init(&sh->siglock);
	return sh;
}

void sighand_put(struct sighand_struct *sighand)
{
	if (sighand && __atomic_sub_fetch(&sighand->count, 1, __ATOMIC_ACQ_REL) == 0)
		kfree(sighand);
}

/* Linux's set_max_threads (kernel/fork.c): at most an eighth of memory in
 * kernel stacks (THREAD_SIZE: 16 KiB on x86_64, as ours), at least 20. */
unsigned long max_threads(void)
{
	unsigned long n = totalram_pages() / (8 * (THREAD_SIZE / PAGE_SIZE));
	return n < 20 ? 20 : n;
}

void rlimits_init(struct rlimit *rlim)
{
	/* include/asm-generic/resource.h INIT_RLIMITS: _STK_LIM 8 MiB,
	 * INR_OPEN_CUR/MAX 1024/4096, MLOCK_LIMIT 8 MiB, MQ_BYTES_MAX 819200. */
	for (int i = 0; i < RLIM_NLIMITS; i++)
		rlim[i] = (struct rlimit){ RLIM_INFINITY, RLIM_INFINITY };
	rlim[RLIMIT_STACK].rlim_cur = 8ul << 20;
	rlim[RLIMIT_CORE].rlim_cur = 0;
	rlim[RLIMIT_NOFILE] = (struct rlimit){ 1024, 4096 };
	rlim[RLIMIT_MEMLOCK] = (struct rlimit){ 8ul << 20, 8ul << 20 };
	rlim[RLIMIT_MSGQUEUE] = (struct rlimit){ 819200, 819200 };
	rlim[RLIMIT_NICE] = (struct rlimit){ 0, 0 };
	rlim[RLIMIT_RTPRIO] = (struct rlimit){ 0, 0 };
	/* fork_init: NPROC and SIGPENDING are half of max_threads. */
	unsigned long half = max_threads() / 2;
	rlim[RLIMIT_NPROC] = (struct rlimit){ half, half };
	rlim[RLIMIT_SIGPENDING] = (struct rlimit){ half, half };
}

void arch_do_signal_or_restart(void)
{
	/* Linux's get_signal for a SIGKILL from zap_other_threads: the
	 * thread ends with the group's status. */
	if (fatal_signal_pending(current))
		do_exit_thread(READ_ONCE(current->signal->group_exit_code));
}

void collect_sigign_sigcatch(struct task_struct *p, unsigned long *ign, unsigned long *catch)
{
	struct sighand_struct *sh = p->sighand;
	*ign = *catch = 0;
	if (!sh)
		return;
	spin_lock(&sh->siglock);
	for (int i = 1; i <= _NSIG; i++) {
		unsigned long handler = sh->action[i - 1].sa.sa_handler;
		if (handler == SIG_IGN)
			*ign |= sigmask(i);
		else if (handler != SIG_DFL)
			*catch |= sigmask(i);
	}
	spin_unlock(&sh->siglock);
}

/* Linux's do_sigaction. */
static int do_sigaction(int sig, struct k_sigaction *act, struct k_sigaction *oact)
{
	struct sighand_struct *sh = current->sighand;
	if (sig < 1 || sig > _NSIG || (act && (sig == SIGKILL || sig == SIGSTOP)))
		return -EINVAL;
	if (!sh) /* a kernel thread making the call (a test): it has no actions */
		return -EINVAL;
	struct k_sigaction *k = &sh->action[sig - 1];
	spin_lock(&sh->siglock);
	if (oact)
		*oact = *k;
	/* Unknown flag bits are cleared, so user space can tell what the
	 * kernel supports. */
	if (act)
		act->sa.sa_flags &= UAPI_SA_FLAGS;
	if (oact)
		oact->sa.sa_flags &= UAPI_SA_FLAGS;
	if (act) {
		act->sa.sa_mask.sig[0] &= ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
		*k = *act;
	}
	spin_unlock(&sh->siglock);
	return 0;
}

SYSCALL_DEFINE4(rt_sigaction, int, sig, const struct sigaction __user *, act,
		struct sigaction __user *, oact, size_t, sigsetsize)
{
	struct k_sigaction new_sa, old_sa;
	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	if (act && copy_from_user(&new_sa.sa, act, sizeof(new_sa.sa)))
		return -EFAULT;
	int ret = do_sigaction(sig, act ? &new_sa : NULL, oact ? &old_sa : NULL);
	if (ret)
		return ret;
	if (oact && copy_to_user(oact, &old_sa.sa, sizeof(old_sa.sa)))
		return -EFAULT;
	return 0;
}

/* Linux's sys_rt_sigprocmask + sigprocmask: the mask is the thread's own. */
SYSCALL_DEFINE4(rt_sigprocmask, int, how, const sigset_t __user *, nset, sigset_t __user *, oset,
		size_t, sigsetsize)
{
	struct task_struct *tsk = current;
	sigset_t old_set = { { tsk->blocked } }, new_set;
	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	if (nset) {
		if (copy_from_user(&new_set, nset, sizeof(new_set)))
			return -EFAULT;
		new_set.sig[0] &= ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
		switch (how) {
		case SIG_BLOCK:
			tsk->blocked |= new_set.sig[0];
			break;
		case SIG_UNBLOCK:
			tsk->blocked &= ~new_set.sig[0];
			break;
		case SIG_SETMASK:
			tsk->blocked = new_set.sig[0];
			break;
		default:
			return -EINVAL;
		}
	}
	if (oset && copy_to_user(oset, &old_set, sizeof(old_set)))
		return -EFAULT;
	return 0;
}

/* Linux's on_sig_stack: sp inside the alternate stack (which grows down). */
static bool on_sig_stack(unsigned long sp)
{
	struct task_struct *t = current;
	if (t->sas_ss_flags & SS_AUTODISARM)
		return false;
	return sp > t->sas_ss_sp && sp - t->sas_ss_sp <= t->sas_ss_size;
}

static int sas_ss_flags(unsigned long sp)
{
	if (!current->sas_ss_size)
		return SS_DISABLE;
	return on_sig_stack(sp) ? SS_ONSTACK : 0;
}

/* Linux's do_sigaltstack (x86's sigaltstack_size_valid accepts any size
 * once MINSIGSTKSZ is met: no dynamic FPU sigframe here). */
static int do_sigaltstack(const stack_t *ss, stack_t *oss, unsigned long sp)
{
	struct task_struct *t = current;
	if (oss) {
		memset(oss, 0, sizeof(*oss));
		oss->ss_sp = t->sas_ss_sp;
		oss->ss_size = t->sas_ss_size;
		oss->ss_flags = sas_ss_flags(sp) | (int)(t->sas_ss_flags & SS_FLAG_BITS);
	}
	if (ss) {
		unsigned long ss_sp = ss->ss_sp, ss_size = ss->ss_size;
		unsigned int ss_flags = (unsigned int)ss->ss_flags;
		if (on_sig_stack(sp))
			return -EPERM;
		unsigned int ss_mode = ss_flags & ~SS_FLAG_BITS;
		if (ss_mode != SS_DISABLE && ss_mode != SS_ONSTACK && ss_mode != 0)
			return -EINVAL;
		if (t->sas_ss_sp == ss_sp && t->sas_ss_size == ss_size && t->sas_ss_flags == ss_flags)
			return 0;
		if (ss_mode == SS_DISABLE) {
			ss_size = 0;
			ss_sp = 0;
		} else if (ss_size < MINSIGSTKSZ) {
			return -ENOMEM;
		}
		t->sas_ss_sp = ss_sp;
		t->sas_ss_size = ss_size;
		t->sas_ss_flags = ss_flags;
	}
	return 0;
}

SYSCALL_DEFINE2(sigaltstack, const stack_t __user *, uss, stack_t __user *, uoss)
{
	stack_t new, old;
	if (uss && copy_from_user(&new, uss, sizeof(new)))
		return -EFAULT;
	int err = do_sigaltstack(uss ? &new : NULL, uoss ? &old : NULL, task_pt_regs(current)->rsp);
	if (!err && uoss && copy_to_user(uoss, &old, sizeof(old)))
		return -EFAULT;
	return err;
}
