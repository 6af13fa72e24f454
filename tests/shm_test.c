/* System V shared memory (ipc/shm.h) on real address spaces: a segment's
 * pages, its object and its slab objects come back after IPC_RMID and
 * the last detach, whichever way the detach comes (shmdt, exit, a child
 * mm's end) and in every pte_reclaim mode; nattch counts VMAs as Linux's
 * (a split piece is an attach, shmdt takes every piece); the errno of
 * each bad call in Linux's order; ids as Linux's ipc_idr_alloc makes
 * them. Each mm is a test_mm (tests/test_mm.h), whose cleanup checks that
 * every page and slab object is back. No segment has an inode (its pages
 * are a shmem object's, mm/shmem.h), so there is no inode count to
 * check. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "tests/test_cpu.h"
#include "arch/x86_64/uaccess.h"
#include "ipc/shm.h"
#include "kernel/sched.h"
#include "lib/err.h"
#include "mm/mmap.h"
#include "mm/mmu_context.h"
#include "mm/shmem.h"
#include "mm/util.h"

#define NPAGES 5
#define SEG (NPAGES * PAGE_SIZE)

/* The current task's mm, in the case's mode (if it has one); flags as
 * test_mm_create's beside TEST_MM_CURRENT. */
static struct mm_struct *space_flags(struct kunit *test, unsigned flags)
{
	const struct pte_reclaim_mode_param *m = test->param_value;
	if (m)
		KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, m->mode), 0);
	return test_mm_create(test, TEST_MM_CURRENT | flags);
}

static struct mm_struct *space(struct kunit *test) { return space_flags(test, 0); }

static unsigned long nattch(int id)
{
	struct shmid64_ds ds;
	return shmctl_stat(id, IPC_STAT, &ds) ? ~0ul : ds.shm_nattch;
}

static unsigned long attach(struct kunit *test, int id, unsigned long addr, int flg)
{
	unsigned long a = 0;
	KUNIT_EXPECT_EQ(test, do_shmat(id, addr, flg, &a), 0l);
	return a;
}

/* Writes a byte into every page of [a, a + SEG) through the user copy. */
static void touch(struct kunit *test, unsigned long a, u8 v)
{
	for (unsigned long off = 0; off < SEG; off += PAGE_SIZE)
		KUNIT_EXPECT_EQ(test, copy_to_user((void *)(a + off), &v, 1), 0ul);
}

static u8 byte_at(unsigned long a)
{
	u8 v = 0xee;
	if (copy_from_user(&v, (const void *)a, 1))
		return 0xee;
	return v;
}

/* Two attaches, a child mm's copies of them, IPC_RMID, then the detaches:
 * the segment lives to the last one and everything it held comes back. */
static void a_segment_goes_at_its_last_detach(struct kunit *test)
{
	unsigned long shmem = nr_shmem_pages(), committed = vm_memory_committed();
	int segments = shm_segments_in_use();
	struct mm_struct *mm = space(test);
	int id = (int)ksys_shmget(IPC_PRIVATE, SEG, 0600);
	KUNIT_ASSERT_GE(test, id, 0);
	KUNIT_EXPECT_EQ(test, vm_memory_committed(), committed + NPAGES); /* shmem_acct_size */
	unsigned long a = attach(test, id, 0, 0), b = attach(test, id, 0, 0);
	KUNIT_EXPECT_EQ(test, nattch(id), 2ul);
	touch(test, a, 1);
	touch(test, b, 2);
	KUNIT_EXPECT_EQ(test, byte_at(a + PAGE_SIZE), 2);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem + NPAGES);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 2ul * NPAGES);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 0ul);
	struct shm_info info;
	KUNIT_EXPECT_GE(test, shmctl_shm_info(&info), 0);
	KUNIT_EXPECT_GE(test, info.shm_rss, (unsigned long)NPAGES);

	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(mm, &child), 0);
	KUNIT_EXPECT_EQ(test, nattch(id), 4ul); /* fork's copies are attaches */
	KUNIT_EXPECT_EQ(test, ksys_shmctl(id, IPC_RMID, NULL), 0l);
	KUNIT_EXPECT_EQ(test, shm_segments_in_use(), segments + 1); /* attached: it stays */
	struct shmid64_ds ds;
	KUNIT_EXPECT_EQ(test, shmctl_stat(id, IPC_STAT, &ds), 0);
	KUNIT_EXPECT_EQ(test, ds.shm_perm.mode, (u32)(SHM_DEST | 0600));
	mmput(child);
	KUNIT_EXPECT_EQ(test, nattch(id), 2ul);
	KUNIT_EXPECT_EQ(test, ksys_shmdt(a), 0l);
	KUNIT_EXPECT_EQ(test, nattch(id), 1ul);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem + NPAGES);
	KUNIT_EXPECT_EQ(test, ksys_shmdt(b), 0l);
	/* The last detach: gone, its pages and commit with it. */
	KUNIT_EXPECT_EQ(test, shmctl_stat(id, IPC_STAT, &ds), -EINVAL);
	KUNIT_EXPECT_EQ(test, shm_segments_in_use(), segments);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem);
	KUNIT_EXPECT_EQ(test, vm_memory_committed(), committed);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 0ul);
	test_mm_destroy(test, mm);
}

/* The attaches of a removed segment go with the mm (exit, execve): the
 * last one destroys it. A segment nobody removed outlives its mm, and
 * what it holds is checked back after its IPC_RMID (the mm's own leak
 * check would count it). */
static void exit_detaches_every_attach(struct kunit *test)
{
	unsigned long shmem = nr_shmem_pages();
	int segments = shm_segments_in_use();
	struct kunit_resources before;
	kunit_resources_take(&before);
	struct mm_struct *mm = space_flags(test, TEST_MM_NO_LEAK_CHECK);
	int id = (int)ksys_shmget(IPC_PRIVATE, SEG, 0600);
	int kept = (int)ksys_shmget(IPC_PRIVATE, PAGE_SIZE, 0600);
	KUNIT_ASSERT_GE(test, id, 0);
	KUNIT_ASSERT_GE(test, kept, 0);
	touch(test, attach(test, id, 0, 0), 3);
	attach(test, id, 0, SHM_RDONLY);
	unsigned long k = attach(test, kept, 0, 0);
	KUNIT_EXPECT_EQ(test, copy_to_user((void *)k, "k", 1), 0ul);
	KUNIT_EXPECT_EQ(test, ksys_shmctl(id, IPC_RMID, NULL), 0l);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem + NPAGES + 1);
	test_mm_destroy(test, mm);
	KUNIT_EXPECT_EQ(test, shm_segments_in_use(), segments + 1);
	KUNIT_EXPECT_EQ(test, nattch(kept), 0ul);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem + 1); /* kept's page stays */
	KUNIT_EXPECT_EQ(test, ksys_shmctl(kept, IPC_RMID, NULL), 0l);
	KUNIT_EXPECT_EQ(test, shm_segments_in_use(), segments);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem);
	kunit_expect_resources_back(test, &before);
}

/* nattch counts VMAs (Linux's shm_open per VMA): mprotect splitting an
 * attach makes two; shmdt at its start takes both pieces. A read-only
 * attach can never be made writable. */
static void pieces_of_an_attach_count_and_go_together(struct kunit *test)
{
	struct mm_struct *mm = space(test);
	int id = (int)ksys_shmget(IPC_PRIVATE, SEG, 0600);
	KUNIT_ASSERT_GE(test, id, 0);
	unsigned long a = attach(test, id, 0, 0);
	KUNIT_EXPECT_EQ(test, do_mprotect(mm, a + PAGE_SIZE, PAGE_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_EQ(test, nattch(id), 3ul);
	KUNIT_EXPECT_EQ(test, ksys_shmdt(a + PAGE_SIZE), -EINVAL); /* no attach starts there */
	KUNIT_EXPECT_EQ(test, ksys_shmdt(a), 0l);
	KUNIT_EXPECT_EQ(test, nattch(id), 0ul);
	KUNIT_EXPECT_NULL(test, find_vma_intersection(mm, a, a + SEG));
	unsigned long r = attach(test, id, 0, SHM_RDONLY);
	KUNIT_EXPECT_EQ(test, do_mprotect(mm, r, SEG, PROT_READ | PROT_WRITE), -EACCES);
	KUNIT_EXPECT_EQ(test, ksys_shmctl(id, IPC_RMID, NULL), 0l);
	KUNIT_EXPECT_EQ(test, ksys_shmdt(r), 0l);
	test_mm_destroy(test, mm);
}

static void put_limits_back(void *ctx)
{
	const unsigned long *saved = ctx;
	WRITE_ONCE(shm_ctlmax, saved[0]);
	WRITE_ONCE(shm_ctlall, saved[1]);
	WRITE_ONCE(shm_ctlmni, (int)saved[2]);
}

/* Linux's order of errors in shmget, shmat, shmdt and shmctl. */
static void bad_calls_fail_in_linux_order(struct kunit *test)
{
	static unsigned long saved[3];
	saved[0] = shm_ctlmax;
	saved[1] = shm_ctlall;
	saved[2] = (unsigned long)shm_ctlmni;
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, put_limits_back, saved), 0);
	struct mm_struct *mm = space(test);
	(void)mm;
	KUNIT_EXPECT_EQ(test, ksys_shmget(IPC_PRIVATE, 0, 0600), (long)-EINVAL);
	WRITE_ONCE(shm_ctlmax, 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ksys_shmget(IPC_PRIVATE, 2 * PAGE_SIZE + 1, 0600), (long)-EINVAL);
	WRITE_ONCE(shm_ctlall, shm_tot + 1);
	KUNIT_EXPECT_EQ(test, ksys_shmget(IPC_PRIVATE, 2 * PAGE_SIZE, 0600), (long)-ENOSPC);
	put_limits_back(saved);
	WRITE_ONCE(shm_ctlmni, shm_segments_in_use());
	KUNIT_EXPECT_EQ(test, ksys_shmget(IPC_PRIVATE, PAGE_SIZE, 0600), (long)-ENOSPC);
	put_limits_back(saved);
	/* A SHM_HUGETLB size with no pool (4 MiB); tests/hugetlbfs_test.c
	 * has the segments of the pools there are. */
	KUNIT_EXPECT_EQ(test, ksys_shmget(IPC_PRIVATE, PAGE_SIZE, SHM_HUGETLB | (22 << SHM_HUGE_SHIFT) | 0600),
			(long)-EINVAL);
	const key_t key = 0x73686d74;
	KUNIT_EXPECT_EQ(test, ksys_shmget(key, PAGE_SIZE, 0600), (long)-ENOENT);
	int id = (int)ksys_shmget(key, 2 * PAGE_SIZE, IPC_CREAT | IPC_EXCL | 0400);
	KUNIT_ASSERT_GE(test, id, 0);
	KUNIT_EXPECT_EQ(test, ksys_shmget(key, PAGE_SIZE, IPC_CREAT | IPC_EXCL | 0600), (long)-EEXIST);
	KUNIT_EXPECT_EQ(test, ksys_shmget(key, 3 * PAGE_SIZE, 0600), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, ksys_shmget(key, 0, 0), (long)id);
	unsigned long a = 0;
	KUNIT_EXPECT_EQ(test, do_shmat(-1, 0, 0, &a), -EINVAL);
	KUNIT_EXPECT_EQ(test, do_shmat(id, 0x1234, 0, &a), -EINVAL);
	KUNIT_EXPECT_EQ(test, do_shmat(id, 0, SHM_REMAP, &a), -EINVAL);
	KUNIT_EXPECT_EQ(test, do_shmat(id, 0x123, SHM_RND | SHM_REMAP, &a), -EINVAL);
	KUNIT_EXPECT_EQ(test, do_shmat(id + (1 << IPCMNI_SHIFT), 0, 0, &a), -EINVAL); /* stale sequence */
	/* Mode 0400 grants no write, but root has CAP_IPC_OWNER. */
	KUNIT_EXPECT_EQ(test, do_shmat(id, 0, 0, &a), 0l);
	KUNIT_EXPECT_EQ(test, do_shmat(id, a, 0, &a), -EINVAL); /* over a mapping, no SHM_REMAP */
	KUNIT_EXPECT_EQ(test, ksys_shmdt(a + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksys_shmdt(a), 0l);
	KUNIT_EXPECT_EQ(test, ksys_shmdt(a), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksys_shmctl(-1, IPC_RMID, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksys_shmctl(id, -1, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksys_shmctl(id, IPC_STAT | 0x100, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksys_shmctl(id, IPC_STAT, (void *)8), -EFAULT);
	KUNIT_EXPECT_EQ(test, ksys_shmctl(id, IPC_SET, (void *)8), -EFAULT);
	KUNIT_EXPECT_EQ(test, ksys_shmctl(id, IPC_RMID, NULL), 0l);
	KUNIT_EXPECT_EQ(test, ksys_shmctl(id, IPC_RMID, NULL), -EINVAL);
	test_mm_destroy(test, mm);
}

/* Linux's ipc_idr_alloc: with nothing else in the table, indexes cycle
 * through [0, ipc_min_cycle) from the last one given, and the sequence
 * moves on each time the index comes round again. */
static void ids_cycle_and_their_sequence_moves_on(struct kunit *test)
{
	struct mm_struct *mm = space(test);
	if (shm_segments_in_use())
		kunit_skip(test, "other segments exist: the cycle is longer");
	int prev = (int)ksys_shmget(IPC_PRIVATE, PAGE_SIZE, 0600);
	KUNIT_ASSERT_GE(test, prev, 0);
	KUNIT_EXPECT_EQ(test, ksys_shmctl(prev, IPC_RMID, NULL), 0l);
	for (int i = 0; i < IPC_MIN_CYCLE + 2; i++) {
		int id = (int)ksys_shmget(IPC_PRIVATE, PAGE_SIZE, 0600);
		KUNIT_ASSERT_GE(test, id, 0);
		int idx = (ipcid_to_idx(prev) + 1) % IPC_MIN_CYCLE;
		int seq = ipcid_to_seqx(prev) + (idx <= ipcid_to_idx(prev));
		KUNIT_EXPECT_EQ(test, id, (seq << IPCMNI_SHIFT) + idx);
		struct shmid64_ds ds;
		KUNIT_EXPECT_EQ(test, shmctl_stat(idx, SHM_STAT, &ds), id);
		KUNIT_EXPECT_EQ(test, ds.shm_perm.seq, (unsigned short)seq);
		KUNIT_EXPECT_EQ(test, ksys_shmctl(id, IPC_RMID, NULL), 0l);
		prev = id;
	}
	test_mm_destroy(test, mm);
}

/* What every worker of the crew below attaches. */
struct attach_churn {
	int id;
	struct mm_struct *mm;
	unsigned long rounds; /* done, by all workers; atomic */
};

#define CHURN_ROUNDS 100

/* One CPU's share: attach, write and read back its own word, detach;
 * every eighth round a fork's copy of the whole mm comes and goes too. */
static int attach_churn_worker(struct test_worker *w)
{
	struct attach_churn *c = w->crew->ctx;
	kthread_use_mm(c->mm);
	int err = 0;
	unsigned long word = (w->id % NPAGES) * PAGE_SIZE + (w->id / NPAGES) * sizeof(u64);
	for (unsigned long n = 0; n < CHURN_ROUNDS && !err; n++) {
		unsigned long a = 0;
		u64 v = ~0ull;
		if (do_shmat(c->id, 0, 0, &a) || put_user_u64(n << 8 | w->id, (void *)(a + word)) ||
		    get_user_u64(&v, (const void *)(a + word)) || v != (n << 8 | w->id))
			err = 1;
		if (!(n % 8)) {
			struct mm_struct *child;
			if (dup_mm(c->mm, &child))
				err = 1;
			else
				mmput(child);
		}
		if (a && ksys_shmdt(a))
			err = 1;
		__atomic_add_fetch(&c->rounds, 1, __ATOMIC_RELAXED);
		test_crew_progress(w);
		cond_resched();
	}
	kthread_unuse_mm(c->mm);
	return err;
}

static struct test_crew churn_crew;

/* Attaches, detaches and forks on every CPU at once, with IPC_RMID in
 * their midst: nattch ends exact (the case's own attach), the id finds
 * the removed segment all along, and the last detach gives everything
 * back. */
static void attaches_on_every_cpu_keep_nattch_exact(struct kunit *test)
{
	unsigned long shmem = nr_shmem_pages();
	int segments = shm_segments_in_use();
	static struct attach_churn churn;
	churn.mm = space(test);
	churn.rounds = 0;
	churn.id = (int)ksys_shmget(IPC_PRIVATE, SEG, 0600);
	KUNIT_ASSERT_GE(test, churn.id, 0);
	unsigned long a = attach(test, churn.id, 0, 0);
	test_crew_start(test, &churn_crew, attach_churn_worker, &churn, 0, 0);
	KUNIT_EXPECT_EQ(test, ksys_shmctl(churn.id, IPC_RMID, NULL), 0l);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &churn_crew), 0ul);
	KUNIT_EXPECT_EQ(test, churn.rounds, (unsigned long)churn_crew.n * CHURN_ROUNDS);
	KUNIT_EXPECT_EQ(test, nattch(churn.id), 1ul);
	KUNIT_EXPECT_EQ(test, ksys_shmdt(a), 0l);
	KUNIT_EXPECT_EQ(test, shm_segments_in_use(), segments);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem);
	test_mm_destroy(test, churn.mm);
}

static struct kunit_case shm_cases[] = {
	KUNIT_CASE_PARAM(a_segment_goes_at_its_last_detach, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(exit_detaches_every_attach, pte_reclaim_modes_gen_params),
	KUNIT_CASE(pieces_of_an_attach_count_and_go_together),
	KUNIT_CASE(bad_calls_fail_in_linux_order),
	KUNIT_CASE(ids_cycle_and_their_sequence_moves_on),
	KUNIT_CASE_PARAM(attaches_on_every_cpu_keep_nattch_exact, pte_reclaim_modes_gen_params),
	{}
};

static struct kunit_suite shm_suite = {
	.name = "shm",
	.test_cases = shm_cases,
};
kunit_test_suite(shm_suite);
