/* Credentials (kernel/cred.h): the reference counting, the copy a change
 * starts from, and the swap that makes it the task's (Linux's
 * kernel/cred.c), with the capability checks the rest of the kernel asks
 * (kernel/capability.c's capable), execve's recomputation of the sets
 * (security/commoncap.c's cap_bprm_creds_from_file, for uid 0), and the
 * system calls that read the ids: getuid 102, getgid 104, geteuid 107,
 * getegid 108, getresuid 118, getresgid 120 (Linux's kernel/sys.c). The
 * auxiliary vector's AT_UID, AT_EUID, AT_GID and AT_EGID are the same 0.
 *
 * Locking: task->cred is written only by the task itself, under its
 * task_lock; another task's cred is read under the same lock, with a
 * reference taken before the lock is dropped. */
#include "arch/x86_64/uaccess.h"
#include "kernel/cred.h"
#include "kernel/panic.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "lib/string.h"
#include "mm/slab.h"

struct cred init_cred = {
	.usage = 1, /* its own: never freed */
	.cap_inheritable = { 0 },
	.cap_permitted = { CAP_VALID_MASK },
	.cap_effective = { CAP_VALID_MASK },
	.cap_bset = { CAP_VALID_MASK },
	.cap_ambient = { 0 },
};

void put_cred(const struct cred *cred)
{
	struct cred *c = (struct cred *)cred;
	int left = __atomic_sub_fetch(&c->usage, 1, __ATOMIC_ACQ_REL);
	if (left < 0 || (left == 0 && c == &init_cred))
		panic("BUG: put_cred(%p): usage %d", c, left);
	if (left == 0)
		kfree(c);
}

const struct cred *current_cred(void) { return current->cred; }

const struct cred *get_task_cred(struct task_struct *task)
{
	task_lock(task);
	const struct cred *cred = get_cred(task->cred);
	task_unlock(task);
	return cred;
}

struct cred *prepare_creds(void)
{
	struct cred *new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return NULL;
	*new = *current_cred();
	new->usage = 1;
	return new;
}

void commit_creds(struct cred *new)
{
	struct task_struct *me = current;
	const struct cred *old = me->cred;
	task_lock(me);
	me->cred = new;
	task_unlock(me);
	put_cred(old);
}

void abort_creds(struct cred *new) { put_cred(new); }

void copy_creds(struct task_struct *p, const struct task_struct *parent)
{
	const struct cred *old = p->cred;
	p->cred = get_cred(parent->cred);
	if (old)
		put_cred(old);
}

void exit_creds(struct task_struct *p)
{
	const struct cred *cred = p->cred;
	p->cred = NULL;
	if (cred)
		put_cred(cred);
}

struct cred *prepare_exec_creds(void)
{
	const struct cred *old = current_cred();
	struct cred *new = prepare_creds();
	if (!new)
		return NULL;
	/* handle_privileged_root: uid 0 (real or effective) gets the
	 * bounding set and the inheritable set as permitted, and, with euid
	 * 0, the effective set raised (file capabilities: none here). */
	bool effective = false;
	if (new->euid == 0 || new->uid == 0)
		new->cap_permitted = cap_combine(old->cap_bset, old->cap_inheritable);
	if (new->euid == 0)
		effective = true;
	/* What is gained is kept only if nothing makes the exec unsafe: of
	 * Linux's reasons (a tracer without the capabilities, no_new_privs)
	 * mmlab has no_new_privs (there is no ptrace). */
	if (!cap_issubset(new->cap_permitted, old->cap_permitted) && READ_ONCE(current->no_new_privs))
		new->cap_permitted = cap_intersect(new->cap_permitted, old->cap_permitted);
	new->suid = new->fsuid = new->euid;
	new->sgid = new->fsgid = new->egid;
	/* No file capabilities and no set-user-ID: the ambient set stays,
	 * and is part of the permitted one. */
	new->cap_permitted = cap_combine(new->cap_permitted, new->cap_ambient);
	new->cap_effective = effective ? new->cap_permitted : new->cap_ambient;
	return new;
}

bool has_capability(struct task_struct *task, int cap)
{
	const struct cred *cred = get_task_cred(task);
	bool ret = cap_raised(cred->cap_effective, cap);
	put_cred(cred);
	return ret;
}

bool capable(int cap)
{
	if (!cap_valid(cap))
		panic("BUG: capable(%d): no such capability", cap);
	return cap_raised(current_cred()->cap_effective, cap);
}

SYSCALL_DEFINE0(getuid) { return current_cred()->uid; }
SYSCALL_DEFINE0(geteuid) { return current_cred()->euid; }
SYSCALL_DEFINE0(getgid) { return current_cred()->gid; }
SYSCALL_DEFINE0(getegid) { return current_cred()->egid; }

/* Linux's: the three written in order, the first that faults ends it. */
static long put_res_ids(unsigned int r, unsigned int e, unsigned int s, unsigned int __user *rp,
			unsigned int __user *ep, unsigned int __user *sp)
{
	if (put_user_u32(r, rp) || put_user_u32(e, ep) || put_user_u32(s, sp))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE3(getresuid, unsigned int __user *, ruidp, unsigned int __user *, euidp, unsigned int __user *, suidp)
{
	const struct cred *c = current_cred();
	return put_res_ids(c->uid, c->euid, c->suid, ruidp, euidp, suidp);
}

SYSCALL_DEFINE3(getresgid, unsigned int __user *, rgidp, unsigned int __user *, egidp, unsigned int __user *, sgidp)
{
	const struct cred *c = current_cred();
	return put_res_ids(c->gid, c->egid, c->sgid, rgidp, egidp, sgidp);
}
