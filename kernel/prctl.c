/* prctl 157 (Linux's kernel/sys.c, sys_prctl): the options a memory
 * kernel and its programs need, with Linux's argument checks and errnos;
 * every other option is -EINVAL, as Linux's default case.
 *
 *   PR_SET_NAME / PR_GET_NAME       the calling thread's comm (16 bytes with
 *                                   its NUL), /proc/<pid>/status's Name
 *   PR_SET_MDWE / PR_GET_MDWE       memory-deny-write-execute for the mm
 *                                   (Linux 6.6's: once set it stays;
 *                                   mm/mm_types.h map_deny_write_exec)
 *   PR_SET_THP_DISABLE / GET        no transparent huge pages in the mm
 *   PR_SET_DUMPABLE / GET           the mm's dumpable mode (0 or 1)
 *   PR_SET_PDEATHSIG / GET          a signal when the creating thread ends
 *   PR_SET_CHILD_SUBREAPER / GET    orphaned descendants come to this
 *                                   process (kernel/exit.c find_new_reaper)
 *   PR_SET_NO_NEW_PRIVS / GET       a flag (mmlab has no set-user-ID exec)
 *   PR_GET_TID_ADDRESS              set_tid_address's word
 *   PR_CAPBSET_READ / DROP,         the capability bounding and ambient
 *   PR_CAP_AMBIENT                  sets (kernel/capability.c)
 *
 * The mm's flags are atomic bits (mm->flags); Linux takes the mmap_lock
 * for writing around PR_SET_THP_DISABLE so that a fault deciding on a
 * huge page sees the flag before or after, never half: the same here.
 * The comm is written by its own thread only; a reader in /proc may see a
 * name half-copied, as Linux's readers without task_lock may. */
#include "arch/x86_64/uaccess.h"
#include "kernel/cred.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "lib/string.h"
#include "mm/mm_types.h"
#include "mm/mmap_lock.h"

/* include/uapi/linux/prctl.h */
#define PR_SET_PDEATHSIG 1
#define PR_GET_PDEATHSIG 2
#define PR_GET_DUMPABLE 3
#define PR_SET_DUMPABLE 4
#define PR_SET_NAME 15
#define PR_GET_NAME 16
#define PR_SET_CHILD_SUBREAPER 36
#define PR_GET_CHILD_SUBREAPER 37
#define PR_SET_NO_NEW_PRIVS 38
#define PR_GET_NO_NEW_PRIVS 39
#define PR_GET_TID_ADDRESS 40
#define PR_SET_THP_DISABLE 41
#define PR_GET_THP_DISABLE 42
#define PR_SET_MDWE 65
#define PR_MDWE_REFUSE_EXEC_GAIN (1ul << 0)
#define PR_MDWE_NO_INHERIT (1ul << 1)
#define PR_GET_MDWE 66

static long get_current_mdwe(struct mm_struct *mm)
{
	long ret = 0;
	if (mm_flag_test(mm, MMF_HAS_MDWE))
		ret |= PR_MDWE_REFUSE_EXEC_GAIN;
	if (mm_flag_test(mm, MMF_HAS_MDWE_NO_INHERIT))
		ret |= PR_MDWE_NO_INHERIT;
	return ret;
}

/* Linux's prctl_set_mdwe: NO_INHERIT only with REFUSE_EXEC_GAIN, and the
 * flags once set can be set again but not changed (-EPERM). */
static long prctl_set_mdwe(struct mm_struct *mm, unsigned long bits, unsigned long arg3, unsigned long arg4,
			   unsigned long arg5)
{
	if (arg3 || arg4 || arg5)
		return -EINVAL;
	if (bits & ~(PR_MDWE_REFUSE_EXEC_GAIN | PR_MDWE_NO_INHERIT))
		return -EINVAL;
	if ((bits & PR_MDWE_NO_INHERIT) && !(bits & PR_MDWE_REFUSE_EXEC_GAIN))
		return -EINVAL;
	unsigned long current_bits = (unsigned long)get_current_mdwe(mm);
	if (current_bits && current_bits != bits)
		return -EPERM;
	if (bits & PR_MDWE_NO_INHERIT)
		mm_flag_set(mm, MMF_HAS_MDWE_NO_INHERIT);
	if (bits & PR_MDWE_REFUSE_EXEC_GAIN)
		mm_flag_set(mm, MMF_HAS_MDWE);
	return 0;
}

SYSCALL_DEFINE5(prctl, int, option, unsigned long, arg2, unsigned long, arg3, unsigned long, arg4,
		unsigned long, arg5)
{
	struct task_struct *me = current;
	struct mm_struct *mm = me->mm;
	char comm[TASK_COMM_LEN];
	if (!me->signal || !mm) /* a kernel thread making the call (a test) */
		return -EINVAL;
	switch (option) {
	case PR_SET_PDEATHSIG:
		if (arg2 > _NSIG) /* valid_signal */
			return -EINVAL;
		WRITE_ONCE(me->pdeath_signal, (int)arg2);
		return 0;
	case PR_GET_PDEATHSIG: {
		int sig = me->pdeath_signal;
		return copy_to_user((int __user *)arg2, &sig, sizeof(sig)) ? -EFAULT : 0;
	}
	case PR_GET_DUMPABLE:
		return get_dumpable(mm);
	case PR_SET_DUMPABLE:
		if (arg2 != SUID_DUMP_DISABLE && arg2 != SUID_DUMP_USER)
			return -EINVAL;
		set_dumpable(mm, (int)arg2);
		return 0;
	case PR_SET_NAME: {
		/* At most 15 bytes are read, the rest of the name is zeros. */
		memset(comm, 0, sizeof(comm));
		if (strncpy_from_user(comm, (const char __user *)arg2, sizeof(comm) - 1) < 0)
			return -EFAULT;
		__set_task_comm(me, comm);
		return 0;
	}
	case PR_GET_NAME:
		memcpy(comm, me->comm, sizeof(comm));
		comm[sizeof(comm) - 1] = 0;
		return copy_to_user((char __user *)arg2, comm, sizeof(comm)) ? -EFAULT : 0;
	case PR_SET_CHILD_SUBREAPER:
		spin_lock(&tasklist_lock);
		me->signal->is_child_subreaper = arg2 != 0;
		spin_unlock(&tasklist_lock);
		return 0;
	case PR_GET_CHILD_SUBREAPER: {
		int v = READ_ONCE(me->signal->is_child_subreaper);
		return copy_to_user((int __user *)arg2, &v, sizeof(v)) ? -EFAULT : 0;
	}
	case PR_SET_NO_NEW_PRIVS:
		if (arg2 != 1 || arg3 || arg4 || arg5)
			return -EINVAL;
		WRITE_ONCE(me->no_new_privs, true);
		return 0;
	case PR_GET_NO_NEW_PRIVS:
		if (arg2 || arg3 || arg4 || arg5)
			return -EINVAL;
		return READ_ONCE(me->no_new_privs);
	case PR_GET_TID_ADDRESS: {
		/* Linux's with CONFIG_CHECKPOINT_RESTORE (Debian's has it). */
		int __user *addr = me->clear_child_tid;
		return copy_to_user((int __user *__user *)arg2, &addr, sizeof(addr)) ? -EFAULT : 0;
	}
	case PR_SET_THP_DISABLE:
		if (arg3 || arg4 || arg5)
			return -EINVAL;
		mmap_write_lock(mm);
		if (arg2)
			mm_flag_set(mm, MMF_DISABLE_THP);
		else
			mm_flag_clear(mm, MMF_DISABLE_THP);
		mmap_write_unlock(mm);
		return 0;
	case PR_GET_THP_DISABLE:
		if (arg2 || arg3 || arg4 || arg5)
			return -EINVAL;
		return mm_flag_test(mm, MMF_DISABLE_THP);
	case PR_SET_MDWE:
		return prctl_set_mdwe(mm, arg2, arg3, arg4, arg5);
	case PR_GET_MDWE:
		if (arg2 || arg3 || arg4 || arg5)
			return -EINVAL;
		return get_current_mdwe(mm);
	default: {
		/* Linux's security_task_prctl: the capability options
		 * (-ENOSYS: not one of them). */
		long ret = cap_task_prctl(option, arg2, arg3, arg4, arg5);
		return ret == -ENOSYS ? -EINVAL : ret;
	}
	}
}
