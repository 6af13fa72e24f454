/* Credentials (kernel/cred.c) and capabilities (kernel/capability.c): the
 * runner thread's creds changed through capget/capset (do_syscall_64, as
 * a process would), what the capability checks then refuse (MPOL_MF_MOVE_ALL,
 * the overcommit admin reserve), execve's
 * recomputation of the sets (prepare_exec_creds), and the references:
 * every cred a case makes is freed when the case puts the runner's creds
 * back (the suite's slab count checks it).
 *
 * Each case that changes the runner's creds registers, first, a deferred
 * action that commits the ones it started with again (capset cannot raise
 * what it dropped), so that a failing case leaves the next one root. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/cred.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "mm/mempolicy.h"
#include "mm/util.h"

#define UBASE 0x0000300000000000ul /* 4 pages: the header, the data, a range */
#define PG PAGE_SIZE

static long sys(unsigned long nr, unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3,
		unsigned long a4, unsigned long a5)
{
	const unsigned long args[6] = { a0, a1, a2, a3, a4, a5 };
	return do_syscall_64(nr, args);
}

struct cap_header {
	u32 version;
	int pid;
};
struct cap_data {
	u32 effective, permitted, inheritable;
};

static void restore_creds(void *saved)
{
	commit_creds((struct cred *)saved); /* the reference taken below */
}

/* The runner's creds come back when the case ends. */
static void keep_creds(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, restore_creds, (void *)get_cred(current_cred())), 0);
}

/* capset(version 3, pid 0) of the three sets, through user memory at
 * UBASE; the syscall's result. */
static long capset_sets(u64 eff, u64 prm, u64 inh)
{
	struct cap_header h = { 0x20080522, 0 };
	struct cap_data d[2] = { { (u32)eff, (u32)prm, (u32)inh },
				 { (u32)(eff >> 32), (u32)(prm >> 32), (u32)(inh >> 32) } };
	if (copy_to_user((void *)UBASE, &h, sizeof(h)) || copy_to_user((void *)(UBASE + 64), d, sizeof(d)))
		return -EFAULT;
	return sys(__NR_capset, UBASE, UBASE + 64, 0, 0, 0, 0);
}

static void root_and_capget(struct kunit *test)
{
	test_mm_enter_space(test, UBASE, 4);
	/* Every kernel thread is root with every capability. */
	const struct cred *c = current_cred();
	KUNIT_EXPECT_EQ(test, c->uid, 0u);
	KUNIT_EXPECT_EQ(test, c->euid, 0u);
	KUNIT_EXPECT_EQ(test, c->cap_effective.val, CAP_VALID_MASK);
	KUNIT_EXPECT_EQ(test, c->cap_bset.val, CAP_VALID_MASK);
	KUNIT_EXPECT_TRUE(test, capable(CAP_SYS_ADMIN));
	KUNIT_EXPECT_TRUE(test, has_capability(current, CAP_LAST_CAP));
	/* capget of the runner: its sets, split in two words. */
	struct cap_header h = { 0x20080522, 0 };
	struct cap_data d[2];
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)UBASE, &h, sizeof(h)), 0ul);
	KUNIT_EXPECT_EQ(test, sys(__NR_capget, UBASE, UBASE + 64, 0, 0, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(d, (void *)(UBASE + 64), sizeof(d)), 0ul);
	KUNIT_EXPECT_EQ(test, d[0].effective, 0xffffffffu);
	KUNIT_EXPECT_EQ(test, d[1].permitted, (u32)(CAP_VALID_MASK >> 32));
	KUNIT_EXPECT_EQ(test, d[0].inheritable, 0u);
	/* An unknown version: the preferred one written back, -EINVAL;
	 * the same with no data is the probe (0). */
	h.version = 7;
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)UBASE, &h, sizeof(h)), 0ul);
	KUNIT_EXPECT_EQ(test, sys(__NR_capget, UBASE, UBASE + 64, 0, 0, 0, 0), -EINVAL);
	KUNIT_ASSERT_EQ(test, copy_from_user(&h, (void *)UBASE, sizeof(h)), 0ul);
	KUNIT_EXPECT_EQ(test, h.version, 0x20080522u);
	h.version = 7;
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)UBASE, &h, sizeof(h)), 0ul);
	KUNIT_EXPECT_EQ(test, sys(__NR_capget, UBASE, 0, 0, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_capget, 0x1000, UBASE + 64, 0, 0, 0, 0), -EFAULT);
}

/* capset's rules, and what a dropped CAP_SYS_NICE then refuses: mbind
 * and move_pages with MPOL_MF_MOVE_ALL (-EPERM). */
static void capset_and_checks(struct kunit *test)
{
	test_mm_enter_space(test, UBASE, 4);
	keep_creds(test);
	u64 all = CAP_VALID_MASK, nice = 1ull << CAP_SYS_NICE;
	const struct cred *before = current_cred();
	/* Effective outside permitted, or permitted growing: -EPERM,
	 * nothing changed. */
	KUNIT_EXPECT_EQ(test, capset_sets(all, all & ~nice, 0), -EPERM);
	KUNIT_EXPECT_PTR_EQ(test, current_cred(), before);
	KUNIT_EXPECT_EQ(test, capset_sets(all & ~nice, all & ~nice, 0), 0);
	KUNIT_EXPECT_FALSE(test, capable(CAP_SYS_NICE));
	KUNIT_EXPECT_TRUE(test, capable(CAP_SYS_ADMIN));
	KUNIT_EXPECT_EQ(test, capset_sets(all, all, 0), -EPERM);
	/* Without CAP_SYS_NICE: MPOL_MF_MOVE_ALL is refused first. */
	unsigned long nodes = 1;
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)(UBASE + 2 * PG), &nodes, sizeof(nodes)), 0ul);
	KUNIT_EXPECT_EQ(test, sys(__NR_mbind, UBASE, PG, MPOL_BIND, UBASE + 2 * PG, 64, MPOL_MF_MOVE_ALL), -EPERM);
	KUNIT_EXPECT_EQ(test, sys(__NR_mbind, UBASE, PG, MPOL_BIND, UBASE + 2 * PG, 64, MPOL_MF_MOVE), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_move_pages, 0, 0, 0, 0, 0, MPOL_MF_MOVE_ALL), -EPERM);
	/* The inheritable set: within permitted|inheritable without
	 * CAP_SETPCAP; what is dropped from the bounding set never. */
	KUNIT_EXPECT_EQ(test, capset_sets(all & ~nice, all & ~nice, nice), 0); /* CAP_SETPCAP: allowed */
	u64 pcap = 1ull << CAP_SETPCAP;
	KUNIT_EXPECT_EQ(test, capset_sets(all & ~nice & ~pcap, all & ~nice, 0), 0);
	KUNIT_EXPECT_EQ(test, capset_sets(all & ~nice & ~pcap, all & ~nice, nice), -EPERM);
	/* Everything dropped. */
	KUNIT_EXPECT_EQ(test, capset_sets(0, 0, 0), 0);
	KUNIT_EXPECT_FALSE(test, capable(CAP_SYS_ADMIN));
	KUNIT_EXPECT_EQ(test, current_cred()->cap_bset.val, CAP_VALID_MASK);
}

/* execve's sets for uid 0 (prepare_exec_creds): permitted = bounding |
 * inheritable | ambient, effective = permitted; under no_new_privs
 * nothing beyond the old permitted set. */
static void exec_creds(struct kunit *test)
{
	keep_creds(test);
	u64 nice = 1ull << CAP_SYS_NICE, lock = 1ull << CAP_IPC_LOCK;
	struct cred *new = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, new);
	new->cap_bset.val = CAP_VALID_MASK & ~nice;
	new->cap_permitted.val = new->cap_effective.val = lock;
	new->cap_inheritable.val = nice;
	commit_creds(new);
	struct cred *exec = prepare_exec_creds();
	KUNIT_ASSERT_NOT_NULL(test, exec);
	KUNIT_EXPECT_EQ(test, exec->cap_permitted.val, CAP_VALID_MASK);
	KUNIT_EXPECT_EQ(test, exec->cap_effective.val, CAP_VALID_MASK);
	KUNIT_EXPECT_EQ(test, exec->cap_inheritable.val, nice);
	abort_creds(exec);
	bool nnp = current->no_new_privs;
	current->no_new_privs = true;
	exec = prepare_exec_creds();
	current->no_new_privs = nnp;
	KUNIT_ASSERT_NOT_NULL(test, exec);
	KUNIT_EXPECT_EQ(test, exec->cap_permitted.val, lock);
	KUNIT_EXPECT_EQ(test, exec->cap_effective.val, lock);
	abort_creds(exec);
}

/* A reader's reference (get_task_cred) keeps a cred its task replaced
 * alive, and is the last to go. */
static void references(struct kunit *test)
{
	keep_creds(test);
	const struct cred *old = get_task_cred(current);
	int usage = __atomic_load_n(&old->usage, __ATOMIC_RELAXED);
	KUNIT_EXPECT_GE(test, usage, 2);
	struct cred *new = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, new);
	KUNIT_EXPECT_EQ(test, new->usage, 1);
	commit_creds(new);
	KUNIT_EXPECT_PTR_EQ(test, current_cred(), (const struct cred *)new);
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&old->usage, __ATOMIC_RELAXED), usage - 1);
	put_cred(old);
}

static int saved_overcommit;
static void restore_overcommit(void *unused)
{
	(void)unused;
	WRITE_ONCE(sysctl_overcommit_memory, saved_overcommit);
}

/* Under OVERCOMMIT_NEVER the admin reserve is kept back from a caller
 * without CAP_SYS_ADMIN (cap_vm_enough_memory): a charge that fits only
 * within it is refused once the capability is dropped. */
static void admin_reserve(struct kunit *test)
{
	long reserve = (long)(READ_ONCE(sysctl_admin_reserve_kbytes) >> (PAGE_SHIFT - 10));
	if (reserve < 4)
		kunit_skip(test, "admin_reserve_kbytes is under 4 pages");
	keep_creds(test);
	saved_overcommit = READ_ONCE(sysctl_overcommit_memory);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, restore_overcommit, NULL), 0);
	WRITE_ONCE(sysctl_overcommit_memory, OVERCOMMIT_NEVER);
	/* Half the reserve short of the limit: inside it for root only. */
	long pages = (long)vm_commit_limit() - (long)vm_memory_committed() - reserve / 2;
	if (pages <= 0)
		kunit_skip(test, "the commit is already within the admin reserve of its limit");
	KUNIT_EXPECT_EQ(test, security_vm_enough_memory_mm(NULL, pages), 0);
	vm_unacct_memory(pages);
	struct cred *new = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, new);
	new->cap_effective.val &= ~(1ull << CAP_SYS_ADMIN);
	commit_creds(new);
	KUNIT_EXPECT_EQ(test, security_vm_enough_memory_mm(NULL, pages), -ENOMEM);
	KUNIT_EXPECT_EQ(test, security_vm_enough_memory_mm(NULL, 1), 0);
	vm_unacct_memory(1);
}

static struct kunit_case cred_cases[] = {
	KUNIT_CASE(root_and_capget),
	KUNIT_CASE(capset_and_checks),
	KUNIT_CASE(exec_creds),
	KUNIT_CASE(references),
	KUNIT_CASE(admin_reserve),
	{},
};

static struct kunit_suite cred_suite = {
	.name = "cred",
	.test_cases = cred_cases,
};
kunit_test_suite(cred_suite);
