/* Credentials (Linux's include/linux/cred.h and capability.h): who a task
 * is (the user and group ids) and what it may do (the capability sets).
 *
 * mmlab has one user, root: every id is 0 and nothing changes one (there
 * is no setuid(2) and no set-user-ID file). The capability sets are
 * Linux's and do change: capset(2) and prctl(2) lower them, execve(2)
 * recomputes them as Linux's cap_bprm_creds_from_file does for uid 0, and
 * capable() asks the effective set where Linux checks a capability.
 *
 * Invariant: a struct cred is never changed once a task uses it. A change
 * is a new cred (prepare_creds: a copy of current's) that commit_creds
 * puts in place of the old one; the old one is freed when its last
 * reference goes. A task's creds change only by the task itself (Linux's
 * rule too); task->cred is written under task_lock, so that a reader of
 * another task (capget of a pid, /proc/<pid>/status) takes its reference
 * with get_task_cred and reads a cred that stays whole. Linux reads
 * another task's cred under RCU instead.
 *
 * Linux keeps two pointers, real_cred (what others see of the task) and
 * cred (what it acts with, overridden for a while by override_creds);
 * mmlab has no override, so one pointer is both. */
#ifndef KERNEL_CRED_H
#define KERNEL_CRED_H

#include "kernel/types.h"

struct task_struct;

/* A capability set: bit n is capability n (Linux 6.3's u64 form; 6.1 keeps
 * two u32 words, the same bits). */
typedef struct {
	u64 val;
} kernel_cap_t;

/* include/uapi/linux/capability.h: the capabilities mmlab checks, and the
 * last one Linux 6.1 and 6.12 know. */
#define CAP_DAC_OVERRIDE 1
#define CAP_FOWNER 3
#define CAP_SETPCAP 8
#define CAP_IPC_LOCK 14
#define CAP_SYS_ADMIN 21
#define CAP_SYS_BOOT 22
#define CAP_SYS_NICE 23
#define CAP_SYS_RESOURCE 24
#define CAP_LAST_CAP 40 /* CAP_CHECKPOINT_RESTORE */

#define CAP_VALID_MASK ((1ull << (CAP_LAST_CAP + 1)) - 1)
#define CAP_FULL_SET ((kernel_cap_t){ CAP_VALID_MASK })
#define CAP_EMPTY_SET ((kernel_cap_t){ 0 })

static inline bool cap_valid(long long cap) { return cap >= 0 && cap <= CAP_LAST_CAP; }
static inline bool cap_raised(kernel_cap_t c, int flag) { return c.val >> flag & 1; }
static inline kernel_cap_t cap_combine(kernel_cap_t a, kernel_cap_t b) { return (kernel_cap_t){ a.val | b.val }; }
static inline kernel_cap_t cap_intersect(kernel_cap_t a, kernel_cap_t b) { return (kernel_cap_t){ a.val & b.val }; }
static inline bool cap_issubset(kernel_cap_t a, kernel_cap_t set) { return !(a.val & ~set.val); }

struct cred {
	int usage; /* references: tasks using it, readers holding it; atomic */
	unsigned int uid, gid;     /* real */
	unsigned int suid, sgid;   /* saved */
	unsigned int euid, egid;   /* effective */
	unsigned int fsuid, fsgid; /* for file access */
	kernel_cap_t cap_inheritable; /* what an exec may pass on */
	kernel_cap_t cap_permitted;   /* what the task may make effective */
	kernel_cap_t cap_effective;   /* what capable() asks */
	kernel_cap_t cap_bset;        /* the bounding set: the most an exec may give */
	kernel_cap_t cap_ambient;     /* kept across an exec of a file without capabilities */
};

/* Root's, which every task starts from (kernel threads keep it): every id
 * 0, every capability permitted, effective and in the bounding set. Static:
 * never freed. */
extern struct cred init_cred;

static inline const struct cred *get_cred(const struct cred *cred)
{
	__atomic_add_fetch(&((struct cred *)cred)->usage, 1, __ATOMIC_RELAXED);
	return cred;
}
void put_cred(const struct cred *cred);

/* The caller's creds: only the caller changes them, so no reference is
 * needed to read them. */
const struct cred *current_cred(void);
/* Another task's, with a reference (put_cred). */
const struct cred *get_task_cred(struct task_struct *task);

/* A copy of the caller's creds to change (NULL: no memory), then either
 * commit_creds (the caller's from now on; it takes the reference) or
 * abort_creds. */
struct cred *prepare_creds(void);
void commit_creds(struct cred *new);
void abort_creds(struct cred *new);

/* A new task's (fork, clone, a thread): the parent's, shared (p is not
 * running yet). Linux copies them for a new process (its keyrings and
 * user counts are per process) and shares them for a thread; with
 * neither, sharing is the same to see. */
void copy_creds(struct task_struct *p, const struct task_struct *parent);
/* At the task's end (kthread_join). */
void exit_creds(struct task_struct *p);

/* execve: the program's creds, computed before the point of no return
 * (NULL: no memory), as Linux's prepare_bprm_creds and
 * cap_bprm_creds_from_file (security/commoncap.c) make them for a file
 * without file capabilities run by uid 0: the permitted set becomes the
 * bounding set with the inheritable set and the ambient one, and the
 * effective set all of the permitted. Under no_new_privs nothing is
 * gained: the permitted set stays within the old one. */
struct cred *prepare_exec_creds(void);

/* Whether the caller has cap in its effective set (Linux's capable(), the
 * check cap_capable makes in the initial user namespace). */
bool capable(int cap);
/* The same for another task (has_capability). */
bool has_capability(struct task_struct *task, int cap);

/* prctl's capability options (kernel/capability.c, Linux's
 * cap_task_prctl): PR_CAPBSET_READ, PR_CAPBSET_DROP, PR_CAP_AMBIENT; any
 * other option is -ENOSYS (not one of these). */
long cap_task_prctl(int option, unsigned long arg2, unsigned long arg3, unsigned long arg4, unsigned long arg5);

#endif
