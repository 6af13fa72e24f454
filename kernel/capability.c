/* capget 125 and capset 126 (Linux's kernel/capability.c with
 * security/commoncap.c's cap_capget and cap_capset), and prctl's
 * capability options (cap_task_prctl).
 *
 * The user ABI: a header { u32 version; int pid; } and, for version 1,
 * one { effective, permitted, inheritable } triple of u32 (capabilities
 * 0..31), for versions 2 and 3 two of them (the second: 32..63). A version
 * the kernel does not know gets the preferred one (3) written back into
 * the header and -EINVAL; capget with a NULL data pointer is that probe
 * and returns 0 (how libcap asks which version to use).
 *
 * Only the caller changes its own sets (kernel/cred.h), so capset takes
 * pid 0 or the caller's own thread id only; any other is -EPERM, as
 * Linux's since 2.6.25 ("may only affect current now"). */
#include "arch/x86_64/uaccess.h"
#include "kernel/cred.h"
#include "kernel/pid.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"

#define _LINUX_CAPABILITY_VERSION_1 0x19980330
#define _LINUX_CAPABILITY_U32S_1 1
#define _LINUX_CAPABILITY_VERSION_2 0x20071026 /* deprecated: the same as 3 */
#define _LINUX_CAPABILITY_VERSION_3 0x20080522
#define _LINUX_CAPABILITY_U32S_3 2
#define _KERNEL_CAPABILITY_VERSION _LINUX_CAPABILITY_VERSION_3

/* include/uapi/linux/prctl.h */
#define PR_CAPBSET_READ 23
#define PR_CAPBSET_DROP 24
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_IS_SET 1
#define PR_CAP_AMBIENT_RAISE 2
#define PR_CAP_AMBIENT_LOWER 3
#define PR_CAP_AMBIENT_CLEAR_ALL 4

struct __user_cap_header_struct {
	u32 version;
	int pid;
};

struct __user_cap_data_struct {
	u32 effective;
	u32 permitted;
	u32 inheritable;
};

/* The number of u32 words of each set the version carries, or -EINVAL
 * with the preferred version written back (-EFAULT if it cannot be). */
static int cap_validate_magic(struct __user_cap_header_struct __user *header, unsigned int *tocopy)
{
	u32 version;
	if (get_user_u32(&version, &header->version))
		return -EFAULT;
	switch (version) {
	case _LINUX_CAPABILITY_VERSION_1:
		*tocopy = _LINUX_CAPABILITY_U32S_1;
		return 0;
	case _LINUX_CAPABILITY_VERSION_2: /* Linux warns once that it is deprecated */
	case _LINUX_CAPABILITY_VERSION_3:
		*tocopy = _LINUX_CAPABILITY_U32S_3;
		return 0;
	default:
		if (put_user_u32(_KERNEL_CAPABILITY_VERSION, &header->version))
			return -EFAULT;
		return -EINVAL;
	}
}

SYSCALL_DEFINE2(capget, struct __user_cap_header_struct __user *, header, struct __user_cap_data_struct __user *,
		dataptr)
{
	unsigned int tocopy;
	int ret = cap_validate_magic(header, &tocopy);
	if (!dataptr || ret)
		return !dataptr && ret == -EINVAL ? 0 : ret;
	u32 upid;
	if (get_user_u32(&upid, &header->pid))
		return -EFAULT;
	int pid = (int)upid;
	if (pid < 0)
		return -EINVAL;
	const struct cred *cred;
	if (pid && pid != current->pid) {
		struct task_struct *target = find_get_task_by_vpid(pid);
		if (!target)
			return -ESRCH;
		cred = get_task_cred(target);
		put_task_struct(target);
	} else {
		cred = get_cred(current_cred());
	}
	/* Each 64-bit set as two u32 words; version 1 gets the low ones only
	 * (the upper capabilities silently dropped, as Linux's). */
	struct __user_cap_data_struct kdata[2];
	for (int i = 0; i < 2; i++) {
		kdata[i].effective = (u32)(cred->cap_effective.val >> (32 * i));
		kdata[i].permitted = (u32)(cred->cap_permitted.val >> (32 * i));
		kdata[i].inheritable = (u32)(cred->cap_inheritable.val >> (32 * i));
	}
	put_cred(cred);
	return copy_to_user(dataptr, kdata, tocopy * sizeof(kdata[0])) ? -EFAULT : 0;
}

static kernel_cap_t mk_kernel_cap(u32 low, u32 high)
{
	return (kernel_cap_t){ (low | (u64)high << 32) & CAP_VALID_MASK };
}

/* Linux's cap_capset: the inheritable set may gain only what the old
 * inheritable or permitted set has (unless the caller has CAP_SETPCAP),
 * and only within the bounding set; the permitted set only shrinks; the
 * effective set lies within the new permitted one. The ambient set keeps
 * only what stays both permitted and inheritable. */
static int cap_capset(struct cred *new, const struct cred *old, kernel_cap_t effective, kernel_cap_t inheritable,
		      kernel_cap_t permitted)
{
	bool inh_capped = !cap_raised(old->cap_effective, CAP_SETPCAP);
	if (inh_capped && !cap_issubset(inheritable, cap_combine(old->cap_inheritable, old->cap_permitted)))
		return -EPERM;
	if (!cap_issubset(inheritable, cap_combine(old->cap_inheritable, old->cap_bset)))
		return -EPERM;
	if (!cap_issubset(permitted, old->cap_permitted))
		return -EPERM;
	if (!cap_issubset(effective, permitted))
		return -EPERM;
	new->cap_effective = effective;
	new->cap_inheritable = inheritable;
	new->cap_permitted = permitted;
	new->cap_ambient = cap_intersect(new->cap_ambient, cap_intersect(permitted, inheritable));
	return 0;
}

SYSCALL_DEFINE2(capset, struct __user_cap_header_struct __user *, header,
		const struct __user_cap_data_struct __user *, data)
{
	unsigned int tocopy;
	int ret = cap_validate_magic(header, &tocopy);
	if (ret)
		return ret;
	u32 upid;
	if (get_user_u32(&upid, &header->pid))
		return -EFAULT;
	int pid = (int)upid;
	if (pid != 0 && pid != current->pid)
		return -EPERM;
	struct __user_cap_data_struct kdata[2] = { { 0 } };
	if (copy_from_user(kdata, data, tocopy * sizeof(kdata[0])))
		return -EFAULT;
	struct cred *new = prepare_creds();
	if (!new)
		return -ENOMEM;
	ret = cap_capset(new, current_cred(), mk_kernel_cap(kdata[0].effective, kdata[1].effective),
			 mk_kernel_cap(kdata[0].inheritable, kdata[1].inheritable),
			 mk_kernel_cap(kdata[0].permitted, kdata[1].permitted));
	if (ret) {
		abort_creds(new);
		return ret;
	}
	commit_creds(new);
	return 0;
}

/* Linux's cap_task_prctl, without the securebits (PR_GET/SET_SECUREBITS,
 * PR_GET/SET_KEEPCAPS: mmlab has no set*uid to keep capabilities across,
 * so those options stay prctl's -EINVAL). */
long cap_task_prctl(int option, unsigned long arg2, unsigned long arg3, unsigned long arg4, unsigned long arg5)
{
	const struct cred *old = current_cred();
	struct cred *new;
	switch (option) {
	case PR_CAPBSET_READ:
		if (!cap_valid((long long)arg2))
			return -EINVAL;
		return cap_raised(old->cap_bset, (int)arg2);
	case PR_CAPBSET_DROP:
		if (!cap_raised(old->cap_effective, CAP_SETPCAP))
			return -EPERM;
		if (!cap_valid((long long)arg2))
			return -EINVAL;
		if (!(new = prepare_creds()))
			return -ENOMEM;
		new->cap_bset.val &= ~(1ull << arg2);
		commit_creds(new);
		return 0;
	case PR_CAP_AMBIENT:
		if (arg2 == PR_CAP_AMBIENT_CLEAR_ALL) {
			if (arg3 | arg4 | arg5)
				return -EINVAL;
			if (!(new = prepare_creds()))
				return -ENOMEM;
			new->cap_ambient = CAP_EMPTY_SET;
			commit_creds(new);
			return 0;
		}
		if (!cap_valid((long long)arg3) || arg4 || arg5)
			return -EINVAL;
		if (arg2 == PR_CAP_AMBIENT_IS_SET)
			return cap_raised(old->cap_ambient, (int)arg3);
		if (arg2 != PR_CAP_AMBIENT_RAISE && arg2 != PR_CAP_AMBIENT_LOWER)
			return -EINVAL;
		/* A raised ambient capability must be permitted and
		 * inheritable (no securebits here to forbid raising). */
		if (arg2 == PR_CAP_AMBIENT_RAISE &&
		    (!cap_raised(old->cap_permitted, (int)arg3) || !cap_raised(old->cap_inheritable, (int)arg3)))
			return -EPERM;
		if (!(new = prepare_creds()))
			return -ENOMEM;
		if (arg2 == PR_CAP_AMBIENT_RAISE)
			new->cap_ambient.val |= 1ull << arg3;
		else
			new->cap_ambient.val &= ~(1ull << arg3);
		commit_creds(new);
		return 0;
	default:
		return -ENOSYS;
	}
}
