/* The scheduler's system calls about CPUs: sched_setaffinity 203,
 * sched_getaffinity 204 and getcpu 309, with Linux's ABI, errnos and their
 * order (kernel/sched/syscalls.c, kernel/sys.c).
 *
 * The user's mask is a bitmap of unsigned longs; ours is one 64-bit word
 * (NR_CPUS 64), so Linux's cpumask_size() (the mask rounded up to longs)
 * is 8 bytes. rseq (334) is not implemented: -ENOSYS, which glibc and musl
 * accept (they then read the CPU through getcpu/sched_getcpu).
 *
 * Invariant: a failing call changes neither the task nor user memory; a
 * task found by pid is held (find_get_task_by_vpid) until put back. */
#include "arch/x86_64/uaccess.h"
#include "kernel/pid.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/syscall.h"
#include "kernel/topology.h"

typedef int pid_t;

/* Linux's cpumask_size(): the bytes of a user-visible mask. */
#define CPUMASK_SIZE sizeof(u64)

/* Linux's find_process_by_pid + get_task_struct: pid 0 is the caller.
 * Either way the task comes with a reference (the caller's own pid too),
 * which put_task_struct drops. */
static struct task_struct *find_get_task(pid_t pid)
{
	if (pid)
		return find_get_task_by_vpid(pid);
	get_task_struct(current);
	return current;
}

/* Linux's get_user_cpu_mask: a short mask is zero-extended, a long one's
 * extra bytes are not read. */
static int get_user_cpu_mask(const void __user *user_mask_ptr, unsigned int len, struct cpumask *new_mask)
{
	new_mask->bits = 0;
	if (len > CPUMASK_SIZE)
		len = CPUMASK_SIZE;
	return copy_from_user(&new_mask->bits, user_mask_ptr, len) ? -EFAULT : 0;
}

/* Linux's sched_setaffinity(): ESRCH, then EINVAL for a task whose
 * affinity is not the user's to set (PF_NO_SETAFFINITY: our kernel threads,
 * the tasks without an mm), then EINVAL for a mask without an online CPU
 * (__set_cpus_allowed_ptr's dest_cpu check). No permission check: every
 * process runs as root. */
static long do_sched_setaffinity(pid_t pid, const struct cpumask *in_mask)
{
	struct task_struct *p = find_get_task(pid);
	if (!p)
		return -ESRCH;
	long ret = -EINVAL;
	if (p->mm && p->signal) /* not a kernel thread, even one using an mm */
		ret = set_cpus_allowed_ptr(p, in_mask);
	put_task_struct(p);
	return ret;
}

SYSCALL_DEFINE3(sched_setaffinity, pid_t, pid, unsigned int, len, unsigned long __user *, user_mask_ptr)
{
	struct cpumask new_mask;
	int ret = get_user_cpu_mask(user_mask_ptr, len, &new_mask);
	return ret ? ret : do_sched_setaffinity(pid, &new_mask);
}

SYSCALL_DEFINE3(sched_getaffinity, pid_t, pid, unsigned int, len, unsigned long __user *, user_mask_ptr)
{
	/* Linux's order: the length checks come before the pid lookup. The
	 * product is unsigned int, as Linux's. */
	if ((len * 8u) < nr_cpu_ids)
		return -EINVAL;
	if (len & (sizeof(unsigned long) - 1))
		return -EINVAL;
	struct task_struct *p = find_get_task(pid);
	if (!p)
		return -ESRCH;
	/* cpumask_and(mask, &p->cpus_mask, cpu_active_mask) */
	u64 mask = READ_ONCE(p->cpus_mask.bits) & __atomic_load_n(&cpu_online_mask.bits, __ATOMIC_ACQUIRE);
	put_task_struct(p);
	unsigned int retlen = len < CPUMASK_SIZE ? len : CPUMASK_SIZE;
	if (copy_to_user(user_mask_ptr, &mask, retlen))
		return -EFAULT;
	return retlen;
}

/* Linux's getcpu (kernel/sys.c): the cache argument is unused since 2.6.24.
 * The answer may be stale by the time the caller reads it, as on Linux. */
SYSCALL_DEFINE3(getcpu, unsigned int __user *, cpup, unsigned int __user *, nodep, void __user *, unused)
{
	(void)unused;
	int err = 0;
	unsigned int cpu = smp_processor_id();
	unsigned int node = (unsigned int)cpu_to_node(cpu);
	if (cpup)
		err |= copy_to_user(cpup, &cpu, sizeof(cpu)) ? 1 : 0;
	if (nodep)
		err |= copy_to_user(nodep, &node, sizeof(node)) ? 1 : 0;
	return err ? -EFAULT : 0;
}
