/* The small system calls: getpid 39, gettid 186, set_tid_address 218,
 * sched_yield 24, uname 63, getppid 110, setpgid 109,
 * getpgrp 111, setsid 112, getpgid 121, getsid 124, getrusage 98,
 * times 100, sysinfo 99, getrlimit 97, setrlimit 160,
 * prlimit64 302, with Linux's ABI and errnos. Those of the clocks and
 * sleeps are kernel/time_syscalls.c's.
 *
 * Invariant: a call either succeeds whole or changes no user memory: each
 * result is built in the kernel and copied out once, and a bad user pointer
 * gives -EFAULT through the uaccess copies, never a kernel fault. */
#include "arch/x86_64/uaccess.h"
#include "kernel/cred.h"
#include "kernel/pid.h"
#include "kernel/resource.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "lib/string.h"
#include "kernel/syscall.h"
#include "kernel/time.h"
#include "mm/swapfile.h"
#include "mm/mm_types.h"
#include "mm/page_alloc.h"

/* The process id is the thread group's (its leader's thread id). A task
 * outside any group (a kernel thread, which Linux gives tgid == pid) is its
 * own. */
SYSCALL_DEFINE0(getpid)
{
	return current->signal ? current->tgid : current->pid;
}

SYSCALL_DEFINE0(gettid)
{
	return current->pid;
}

/* Linux's: the word is cleared and woken at this thread's exit. */
SYSCALL_DEFINE1(set_tid_address, int __user *, tidptr)
{
	current->clear_child_tid = tidptr;
	return current->pid;
}

/* Yielding lets the others of this CPU's run queue run first (there is no
 * load balancing: a task leaves its CPU only for its affinity). */
SYSCALL_DEFINE0(sched_yield)
{
	cond_resched();
	return 0;
}

#define __NEW_UTS_LEN 64

struct new_utsname {
	char sysname[__NEW_UTS_LEN + 1];
	char nodename[__NEW_UTS_LEN + 1];
	char release[__NEW_UTS_LEN + 1];
	char version[__NEW_UTS_LEN + 1];
	char machine[__NEW_UTS_LEN + 1];
	char domainname[__NEW_UTS_LEN + 1];
};

/* The release names the Linux version whose ABI and /proc formats this
 * kernel follows (6.12), so that code which parses it to decide what the
 * kernel offers reads a Linux-shaped number; "-mmlab" says whose it is. */
SYSCALL_DEFINE1(uname, struct new_utsname __user *, name)
{
	struct new_utsname u;
	memset(&u, 0, sizeof(u));
	strlcpy(u.sysname, "mmlab", sizeof(u.sysname));
	strlcpy(u.nodename, "mmlab", sizeof(u.nodename));
	strlcpy(u.release, "6.12.0-mmlab", sizeof(u.release));
	strlcpy(u.version, "#1 SMP", sizeof(u.version));
	strlcpy(u.machine, "x86_64", sizeof(u.machine));
	strlcpy(u.domainname, "(none)", sizeof(u.domainname));
	return copy_to_user(name, &u, sizeof(u)) ? -EFAULT : 0;
}

/* A process the kernel started has no parent process, as Linux's init:
 * getppid gives 0, as init's. (The ids, getuid and the others, read the
 * creds: kernel/cred.c.) */
/* The parent process's id; 0 for a process the kernel started (Linux's
 * init) and for an orphan of a tree being torn down. */
SYSCALL_DEFINE0(getppid)
{
	struct task_struct *leader = current->group_leader;
	if (!leader)
		return 0;
	spin_lock(&tasklist_lock);
	int ppid = leader->real_parent ? leader->real_parent->tgid : 0;
	spin_unlock(&tasklist_lock);
	return ppid;
}

/* ---- Process groups and sessions (Linux's kernel/sys.c), under
 * tasklist_lock; the ids are their leaders' pids, within the caller's
 * process tree ---- */

/* A process group of the tree with the given session (Linux's
 * pid_task(pgrp, PIDTYPE_PGID) and its task_session check). */
static bool pgrp_in_session_locked(struct task_struct *root, int pgrp, int session)
{
	struct task_struct *g;
	list_for_each_entry(g, &root->signal->tree_tasks, tasks)
		if (g->signal->pgrp == pgrp && (session < 0 || g->signal->session == session))
			return true;
	return false;
}

/* Linux's setpgid: pid 0 is the caller, pgid 0 the pid; the caller may
 * move itself or a child that has not exec'd, in its own session, to a
 * group of that session or a new one named after it; a session leader
 * stays where it is. */
SYSCALL_DEFINE2(setpgid, int, pid, int, pgid)
{
	struct task_struct *group_leader = current->group_leader, *p;
	if (!current->signal)
		return -ESRCH;
	if (!pid)
		pid = group_leader->tgid;
	if (!pgid)
		pgid = pid;
	if (pgid < 0)
		return -EINVAL;
	struct task_struct *root = current->signal->child_reaper;
	p = find_task_in_tree(root, pid);
	if (!p)
		return -ESRCH;
	int err;
	spin_lock(&tasklist_lock);
	struct signal_struct *me = current->signal;
	if (p->group_leader != p) {
		err = -EINVAL;
	} else if (p->real_parent == group_leader) {
		if (p->signal->session != me->session)
			err = -EPERM;
		else if (!(p->flags & PF_FORKNOEXEC))
			err = -EACCES;
		else
			err = 0;
	} else {
		err = p != group_leader ? -ESRCH : 0;
	}
	if (!err && p->signal->leader)
		err = -EPERM;
	if (!err && pgid != pid && !pgrp_in_session_locked(root, pgid, me->session))
		err = -EPERM;
	if (!err)
		p->signal->pgrp = pgid;
	spin_unlock(&tasklist_lock);
	put_task_struct(p);
	return err;
}

/* getpgid (which == 0) and getsid (1): pid 0 is the caller. */
static long get_pgrp_or_session(int pid, int which)
{
	if (!current->signal)
		return -ESRCH;
	struct task_struct *p = current;
	if (pid) {
		p = find_task_in_tree(current->signal->child_reaper, pid);
		if (!p) {
			/* A kernel thread: Linux's group and session 0. */
			struct task_struct *k = find_get_kthread(pid);
			if (!k)
				return -ESRCH;
			put_task_struct(k);
			return 0;
		}
	}
	spin_lock(&tasklist_lock);
	long id = which ? p->signal->session : p->signal->pgrp;
	spin_unlock(&tasklist_lock);
	if (pid)
		put_task_struct(p);
	return id;
}

SYSCALL_DEFINE1(getpgid, int, pid) { return get_pgrp_or_session(pid, 0); }
SYSCALL_DEFINE0(getpgrp) { return get_pgrp_or_session(0, 0); }
SYSCALL_DEFINE1(getsid, int, pid) { return get_pgrp_or_session(pid, 1); }

/* Linux's ksys_setsid: a new session and process group, both named after
 * the caller, unless it leads a session already or a process group of
 * its id exists (it leads one); the new session has no controlling
 * terminal (proc_clear_tty). */
SYSCALL_DEFINE0(setsid)
{
	struct signal_struct *sig = current->signal;
	if (!sig)
		return -EPERM;
	int session = current->tgid, err = -EPERM;
	spin_lock(&tasklist_lock);
	if (!sig->leader && !pgrp_in_session_locked(sig->child_reaper, session, -1)) {
		sig->leader = true;
		sig->pgrp = sig->session = session;
		WRITE_ONCE(sig->tty, NULL);
		err = session;
	}
	spin_unlock(&tasklist_lock);
	return err;
}

/* ---- getrusage (Linux's kernel/sys.c) ---- */

static void accumulate_thread_rusage(const struct task_struct *t, struct rusage *r, u64 *utime, u64 *stime)
{
	r->ru_nvcsw += (long)READ_ONCE(t->nvcsw);
	r->ru_nivcsw += (long)READ_ONCE(t->nivcsw);
	r->ru_minflt += (long)READ_ONCE(t->min_flt);
	r->ru_majflt += (long)READ_ONCE(t->maj_flt);
	*utime += READ_ONCE(t->utime);
	*stime += READ_ONCE(t->stime);
}

/* Linux's getrusage(): RUSAGE_THREAD is the caller; RUSAGE_SELF its whole
 * group, the exited threads' share (kept in signal_struct) and the live
 * threads'; RUSAGE_CHILDREN the waited-for children's (wait_task_zombie
 * adds them up); RUSAGE_BOTH (wait4's rusage of the child it reaps) the
 * two. maxrss is the peak RSS of the address space (VmHWM), in KiB, the
 * children's the largest of theirs. The times are whole ticks
 * (account_process_tick in kernel/sched_time.c): Linux with tick accounting
 * samples them the same way, then scales the pair to the scheduler's
 * exact runtime, which mmlab does not keep. */
void getrusage(struct task_struct *p, int who, struct rusage *r)
{
	struct signal_struct *sig = p->signal;
	u64 utime = 0, stime = 0;
	unsigned long maxrss = 0;
	memset(r, 0, sizeof(*r));
	if (who == RUSAGE_THREAD || !sig) {
		accumulate_thread_rusage(p, r, &utime, &stime);
		if (sig)
			maxrss = READ_ONCE(sig->maxrss);
	} else {
		spin_lock(&sig->siglock);
		if (who != RUSAGE_SELF) {
			r->ru_nvcsw = (long)sig->cnvcsw;
			r->ru_nivcsw = (long)sig->cnivcsw;
			r->ru_minflt = (long)sig->cmin_flt;
			r->ru_majflt = (long)sig->cmaj_flt;
			utime = sig->cutime;
			stime = sig->cstime;
			maxrss = sig->cmaxrss;
		}
		if (who != RUSAGE_CHILDREN) {
			r->ru_nvcsw += (long)sig->nvcsw;
			r->ru_nivcsw += (long)sig->nivcsw;
			r->ru_minflt += (long)sig->min_flt;
			r->ru_majflt += (long)sig->maj_flt;
			utime += sig->utime;
			stime += sig->stime;
			maxrss = max(maxrss, sig->maxrss);
			struct task_struct *t;
			list_for_each_entry(t, &sig->thread_head, thread_node)
				accumulate_thread_rusage(t, r, &utime, &stime);
		}
		spin_unlock(&sig->siglock);
	}
	/* Linux's setmax_mm_hiwater_rss (p's mm, when p is still running). */
	if (who != RUSAGE_CHILDREN && p == current && p->mm)
		maxrss = max(maxrss, __atomic_load_n(&p->mm->hiwater_rss, __ATOMIC_RELAXED));
	r->ru_maxrss = (long)(maxrss * (PAGE_SIZE / 1024));
	r->ru_utime = ns_to_kernel_old_timeval(utime);
	r->ru_stime = ns_to_kernel_old_timeval(stime);
}

SYSCALL_DEFINE2(getrusage, int, who, struct rusage __user *, ru)
{
	struct rusage r;
	if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN && who != RUSAGE_THREAD)
		return -EINVAL;
	getrusage(current, who, &r);
	return copy_to_user(ru, &r, sizeof(r)) ? -EFAULT : 0;
}

/* ---- times, sysinfo ---- */

struct tms {
	long tms_utime, tms_stime, tms_cutime, tms_cstime;
};

/* Linux's times(): the group's CPU time (getrusage's RUSAGE_SELF) and the
 * waited-for children's (RUSAGE_CHILDREN), in clock_t; the result is the clock_t ticks since
 * boot (Linux's start 5 minutes before a 32-bit jiffies wrap; both are
 * only good for differences, as POSIX says). tbuf may be NULL. */
SYSCALL_DEFINE1(times, struct tms __user *, tbuf)
{
	if (tbuf) {
		struct rusage r, c;
		getrusage(current, RUSAGE_SELF, &r);
		getrusage(current, RUSAGE_CHILDREN, &c);
		struct tms t = {
			.tms_utime = r.ru_utime.tv_sec * USER_HZ + r.ru_utime.tv_usec / (1000000 / USER_HZ),
			.tms_stime = r.ru_stime.tv_sec * USER_HZ + r.ru_stime.tv_usec / (1000000 / USER_HZ),
			.tms_cutime = c.ru_utime.tv_sec * USER_HZ + c.ru_utime.tv_usec / (1000000 / USER_HZ),
			.tms_cstime = c.ru_stime.tv_sec * USER_HZ + c.ru_stime.tv_usec / (1000000 / USER_HZ),
		};
		if (copy_to_user(tbuf, &t, sizeof(t)))
			return -EFAULT;
	}
	return (long)nsec_to_clock_t(ktime_get_ns());
}

#define SI_LOAD_SHIFT 16

struct sysinfo {
	long uptime;             /* seconds since boot, rounded up */
	unsigned long loads[3];  /* 1, 5 and 15 minute load averages, << SI_LOAD_SHIFT */
	unsigned long totalram;  /* MemTotal */
	unsigned long freeram;   /* MemFree */
	unsigned long sharedram; /* shmem: none */
	unsigned long bufferram; /* block-device buffers: none */
	unsigned long totalswap, freeswap; /* si_swapinfo's (mm/swapfile.c) */
	u16 procs;               /* tasks */
	u16 pad;
	unsigned long totalhigh, freehigh; /* no highmem on x86_64 */
	u32 mem_unit;            /* bytes per unit of the memory fields */
	char _f[20 - 2 * sizeof(unsigned long) - sizeof(u32)];
};

/* Linux's do_sysinfo: si_meminfo's page counts, then, since their total in
 * bytes fits a long here, mem_unit 1 and every field in bytes, as a 64-bit
 * Linux always reports. procs counts every task, kernel threads included,
 * as Linux's nr_threads. */
SYSCALL_DEFINE1(sysinfo, struct sysinfo __user *, info)
{
	struct sysinfo i;
	memset(&i, 0, sizeof(i));
	u64 up = ktime_get_ns();
	i.uptime = (long)(up / NSEC_PER_SEC + (up % NSEC_PER_SEC ? 1 : 0));
	get_avenrun(i.loads, 0, SI_LOAD_SHIFT - FSHIFT);
	i.procs = (u16)nr_kthreads(); /* truncated, as Linux's */
	i.totalram = totalram_pages() << PAGE_SHIFT;
	i.freeram = nr_free_pages() << PAGE_SHIFT;
	si_swapinfo(&i.freeswap, &i.totalswap);
	i.freeswap <<= PAGE_SHIFT;
	i.totalswap <<= PAGE_SHIFT;
	i.mem_unit = 1;
	return copy_to_user(info, &i, sizeof(i)) ? -EFAULT : 0;
}

/* ---- resource limits (Linux's kernel/sys.c), per thread group ---- */


/* Linux's sysctl_nr_open default (fs/file.c): the highest NOFILE hard limit. */
#define NR_OPEN 1048576ul

/* Linux's do_prlimit: nothing is read or written when the new limit is
 * refused. */
static int do_prlimit(struct task_struct *tsk, unsigned int resource, const struct rlimit *new_rlim,
		      struct rlimit *old_rlim)
{
	struct signal_struct *sig = tsk->signal;
	if (resource >= RLIM_NLIMITS)
		return -EINVAL;
	if (!sig) /* a kernel thread making the call (a test): no process, no limits */
		return -ESRCH;
	if (new_rlim) {
		if (new_rlim->rlim_cur > new_rlim->rlim_max)
			return -EINVAL;
		if (resource == RLIMIT_NOFILE && new_rlim->rlim_max > NR_OPEN)
			return -EPERM;
	}
	int err = 0;
	spin_lock(&sig->siglock);
	/* Raising a hard limit takes CAP_SYS_RESOURCE (the caller's, also
	 * for another process's limit, as Linux's). */
	if (new_rlim && new_rlim->rlim_max > sig->rlim[resource].rlim_max && !capable(CAP_SYS_RESOURCE))
		err = -EPERM;
	if (old_rlim && !err)
		*old_rlim = sig->rlim[resource];
	if (new_rlim && !err)
		sig->rlim[resource] = *new_rlim;
	spin_unlock(&sig->siglock);
	return err;
}

SYSCALL_DEFINE2(getrlimit, unsigned int, resource, struct rlimit __user *, rlim)
{
	struct rlimit value;
	int ret = do_prlimit(current, resource, NULL, &value);
	if (!ret && copy_to_user(rlim, &value, sizeof(value)))
		return -EFAULT;
	return ret;
}

SYSCALL_DEFINE2(setrlimit, unsigned int, resource, struct rlimit __user *, rlim)
{
	struct rlimit new_rlim;
	if (copy_from_user(&new_rlim, rlim, sizeof(new_rlim)))
		return -EFAULT;
	return do_prlimit(current, resource, &new_rlim, NULL);
}

/* struct rlimit64 has the same layout (RLIM64_INFINITY is RLIM_INFINITY on
 * 64-bit). Only this process's threads are visible: another pid is -ESRCH. */
SYSCALL_DEFINE4(prlimit64, int, pid, unsigned int, resource, const struct rlimit __user *, new_rlim,
		struct rlimit __user *, old_rlim)
{
	struct rlimit old, new;
	struct task_struct *tsk = current;
	if (new_rlim && copy_from_user(&new, new_rlim, sizeof(new)))
		return -EFAULT;
	if (pid) {
		struct task_struct *t = find_get_task_by_vpid(pid);
		bool ours = t && t->tgid == current->tgid;
		if (t)
			put_task_struct(t);
		if (!ours)
			return -ESRCH;
	}
	int ret = do_prlimit(tsk, resource, new_rlim ? &new : NULL, old_rlim ? &old : NULL);
	if (!ret && old_rlim && copy_to_user(old_rlim, &old, sizeof(old)))
		return -EFAULT;
	return ret;
}
