/* The system calls that send signals (the sending half of Linux's
 * kernel/signal.c): kill 62, tkill 200, tgkill 234, rt_sigqueueinfo 129,
 * rt_tgsigqueueinfo 297, with Linux's checks in Linux's order.
 *
 * A process may signal any process of its process tree (kernel/signal.h:
 * every process here is root's); another tree's pids are not its to name
 * (-ESRCH), as another pid namespace's. A zombie can still be named (its
 * leader stays in the tree until it is reaped); what is sent to it is
 * dropped. Kernel threads can be named from every tree, and ignore
 * what they are sent (kernel/kthread.c). */
#include "arch/x86_64/uaccess.h"
#include "kernel/pid.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "lib/string.h"
#include "mm/util.h"

/* Linux's kill_pid_info/group_send_sig_info, for the caller's process:
 * sig 0 only checks that the target exists. */
static int group_send_sig(int sig, struct kernel_siginfo *info, struct task_struct *p)
{
	if (sig < 0 || sig > _NSIG) /* check_kill_permission's valid_signal */
		return -EINVAL;
	if (!sig)
		return 0;
	return send_signal(sig, info, p, true);
}

/* The task with thread id nr in the caller's process tree (zombies
 * included), or a kernel thread (which every tree sees, as Linux's
 * initial pid namespace does: send_signal drops what is sent to one),
 * with a reference; NULL if none (another tree's is none too, as another
 * pid namespace's). */
static struct task_struct *find_own_thread(int nr)
{
	struct task_struct *t = find_task_in_tree(current->signal->child_reaper, nr);
	return t ? t : find_get_kthread(nr);
}

static void prepare_kill_siginfo(int sig, struct kernel_siginfo *info, int code)
{
	memset(info, 0, sizeof(*info));
	info->si_signo = sig;
	info->si_code = code;
	info->rt.pid = current->tgid;
	info->rt.uid = 0;
}

int send_sig(int sig, struct task_struct *p)
{
	struct kernel_siginfo info;
	prepare_kill_siginfo(sig, &info, SI_USER);
	return send_signal(sig, &info, p, false);
}

static bool in_pgrp(struct task_struct *p, const void *pgrp)
{
	return p->signal->pgrp == *(const int *)pgrp;
}

/* Linux's kill -1 choice: every process but the tree's root (process 1)
 * and the caller's own. */
static bool not_root_nor_self(struct task_struct *p, const void *unused)
{
	(void)unused;
	return p != p->signal->child_reaper && p->signal != current->signal;
}

/* Linux's __kill_pgrp_info (kill -1: the same with count, as
 * kill_something_info's): 0 if sig reached one of them, else the last
 * error, -ESRCH when there was nobody. */
static int kill_processes(int sig, struct kernel_siginfo *info, bool (*match)(struct task_struct *, const void *),
			  const void *arg)
{
	struct task_struct **procs;
	int n = collect_tree_processes(current->signal->child_reaper, match, arg, &procs);
	int ret = -ESRCH;
	bool success = false;
	for (int i = 0; i < n; i++) {
		ret = group_send_sig(sig, info, procs[i]);
		success |= !ret;
		put_task_struct(procs[i]);
	}
	kvfree(procs);
	return success ? 0 : ret;
}

/* Linux's kill_something_info: pid > 0 a process (any of its thread ids
 * names the whole process); 0 the caller's process group, -1 every
 * process it may signal but process 1 (its tree's root) and itself, < -1
 * the process group -pid. Every process here is root's, and may signal
 * any other of its tree. */
SYSCALL_DEFINE2(kill, int, pid, int, sig)
{
	struct kernel_siginfo info;
	if (!current->signal)
		return -ESRCH;
	prepare_kill_siginfo(sig, &info, SI_USER);
	if (pid > 0) {
		struct task_struct *t = find_own_thread(pid);
		if (!t)
			return -ESRCH;
		int ret = group_send_sig(sig, &info, t);
		put_task_struct(t);
		return ret;
	}
	/* -INT_MIN is undefined. */
	if (pid == (int)0x80000000)
		return -ESRCH;
	if (pid == -1)
		return kill_processes(sig, &info, not_root_nor_self, NULL);
	int pgrp = pid ? -pid : READ_ONCE(current->signal->pgrp);
	return kill_processes(sig, &info, in_pgrp, &pgrp);
}

/* Linux's do_send_specific: thread tid, of process tgid unless tgid <= 0. */
static int do_send_specific(int tgid, int tid, int sig, struct kernel_siginfo *info)
{
	struct task_struct *t = find_own_thread(tid);
	if (!t || (tgid > 0 && t->tgid != tgid)) {
		if (t)
			put_task_struct(t);
		return -ESRCH;
	}
	int ret = sig < 0 || sig > _NSIG ? -EINVAL : sig ? send_signal(sig, info, t, false) : 0;
	put_task_struct(t);
	return ret;
}

static int do_tkill(int tgid, int tid, int sig)
{
	struct kernel_siginfo info;
	if (!current->signal)
		return -ESRCH;
	prepare_kill_siginfo(sig, &info, SI_TKILL);
	return do_send_specific(tgid, tid, sig, &info);
}

SYSCALL_DEFINE3(tgkill, int, tgid, int, pid, int, sig)
{
	if (pid <= 0 || tgid <= 0)
		return -EINVAL;
	return do_tkill(tgid, pid, sig);
}

SYSCALL_DEFINE2(tkill, int, pid, int, sig)
{
	if (pid <= 0)
		return -EINVAL;
	return do_tkill(0, pid, sig);
}

/* The user's siginfo_t is 128 bytes; the kernel keeps its first 48. */
#define SI_MAX_SIZE 128

/* Linux's copy_siginfo_from_user + the checks of do_rt_sigqueueinfo: a
 * process may not pretend to be the kernel or kill() (si_code >= 0) or
 * tkill (SI_TKILL), unless it signals itself. */
static int sigqueueinfo_prepare(int pid, int sig, const void __user *uinfo, struct kernel_siginfo *info)
{
	if (copy_from_user(info, uinfo, sizeof(*info)))
		return -EFAULT;
	if ((info->si_code >= 0 || info->si_code == SI_TKILL) && current->pid != pid)
		return -EPERM;
	info->si_signo = sig;
	return 0;
}

SYSCALL_DEFINE3(rt_sigqueueinfo, int, pid, int, sig, const void __user *, uinfo)
{
	struct kernel_siginfo info;
	int ret = sigqueueinfo_prepare(pid, sig, uinfo, &info);
	if (ret)
		return ret;
	if (!current->signal || pid <= 0) /* no process groups for sigqueue */
		return -ESRCH;
	struct task_struct *t = find_own_thread(pid);
	if (!t)
		return -ESRCH;
	ret = group_send_sig(sig, &info, t);
	put_task_struct(t);
	return ret;
}

SYSCALL_DEFINE4(rt_tgsigqueueinfo, int, tgid, int, pid, int, sig, const void __user *, uinfo)
{
	struct kernel_siginfo info;
	if (pid <= 0 || tgid <= 0)
		return -EINVAL;
	int ret = sigqueueinfo_prepare(pid, sig, uinfo, &info);
	if (ret)
		return ret;
	if (!current->signal)
		return -ESRCH;
	return do_send_specific(tgid, pid, sig, &info);
}

