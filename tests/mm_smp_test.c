/* One address space used on several CPUs at once: the rwsem the mmap_lock
 * is made of (readers share, a writer is alone, waiters are served in
 * order and never lost, trylock semantics), the mmap_lock's rules (faults
 * and MADV_DONTNEED beside each other under the read lock, mprotect and
 * munmap kept out while a reader holds it), split PTE locks, and the TLB
 * shootdown of an mm run by every online CPU (kthread_use_mm).
 *
 * Faults go through the real fault handler: the workers touch user memory
 * with copy_*_user, whose faults handle_page_fault resolves under the
 * mmap_lock as a thread's would be.
 *
 * Timing never decides a case. A worker that must be blocked is shown to
 * be blocked by the lock's own state (it is queued on the rwsem:
 * rwsem_is_contended) before the case looks at what it has not done yet;
 * waits are hang guards (HANG_GUARD_NS without progress) that a correct
 * kernel never reaches. The main thread sleeps while it waits, so a
 * worker on its own CPU runs too. Every case gives back the pages, slab
 * objects and page-table pages it took. */
#include "tests/kunit.h"
#include "tests/test_cpu.h"
#include "tests/test_mm.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/tlb.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/printk.h"
#include "fs/proc/proc_fs.h"
#include "kernel/rwsem.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/string.h"
#include "kernel/time.h"
#include "kernel/unistd.h"
#include "mm/compaction.h"
#include "mm/page_alloc.h"
#include "mm/huge_memory.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/migrate.h"
#include "mm/numa.h"
#include "mm/page.h"
#include "mm/pgtable.h"
#include "mm/pt_reclaim.h"
#include "mm/pte_ref.h"

#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define BASE 0x0000300000000000ul /* a PGD entry of its own */

static unsigned long load(const volatile unsigned long *v) { return __atomic_load_n(v, __ATOMIC_ACQUIRE); }
static void store(volatile unsigned long *v, unsigned long x) { __atomic_store_n(v, x, __ATOMIC_RELEASE); }
static void inc(volatile unsigned long *v) { __atomic_add_fetch(v, 1, __ATOMIC_ACQ_REL); }

/* ---- rwsem -------------------------------------------------------------------- */

static void rwsem_trylock_semantics(struct kunit *test)
{
	static DECLARE_RWSEM(sem);
	init_rwsem(&sem);
	unsigned long bugs = rwsem_bugs;
	/* Free: either trylock succeeds. */
	KUNIT_EXPECT_EQ(test, down_read_trylock(&sem), 1);
	KUNIT_EXPECT_TRUE(test, rwsem_is_locked(&sem));
	KUNIT_EXPECT_FALSE(test, rwsem_is_write_locked(&sem));
	/* Readers share; a writer cannot come in. */
	KUNIT_EXPECT_EQ(test, down_read_trylock(&sem), 1);
	KUNIT_EXPECT_EQ(test, down_write_trylock(&sem), 0);
	up_read(&sem);
	up_read(&sem);
	KUNIT_EXPECT_FALSE(test, rwsem_is_locked(&sem));
	/* A writer is alone. */
	KUNIT_EXPECT_EQ(test, down_write_trylock(&sem), 1);
	KUNIT_EXPECT_TRUE(test, rwsem_is_write_locked(&sem));
	KUNIT_EXPECT_EQ(test, down_read_trylock(&sem), 0);
	KUNIT_EXPECT_EQ(test, down_write_trylock(&sem), 0);
	/* Downgraded: a reader now, so readers come in and writers do not. */
	downgrade_write(&sem);
	KUNIT_EXPECT_TRUE(test, rwsem_is_locked(&sem));
	KUNIT_EXPECT_FALSE(test, rwsem_is_write_locked(&sem));
	KUNIT_EXPECT_EQ(test, down_read_trylock(&sem), 1);
	KUNIT_EXPECT_EQ(test, down_write_trylock(&sem), 0);
	up_read(&sem);
	up_read(&sem);
	KUNIT_EXPECT_FALSE(test, rwsem_is_locked(&sem));
	down_write(&sem);
	up_write(&sem);
	down_read(&sem);
	up_read(&sem);
	KUNIT_EXPECT_EQ(test, sem.count, 0);
	KUNIT_EXPECT_EQ(test, rwsem_bugs, bugs);
}

/* The debug checks: a release by a task that does not hold the lock is
 * reported, counted and ignored; so is an mmap_lock assertion that does
 * not hold. */
static void rwsem_misuse_is_reported_and_survived(struct kunit *test)
{
	static DECLARE_RWSEM(sem);
	static struct mm_struct fake;
	init_rwsem(&sem);
	init_rwsem(&fake.mmap_lock);
	unsigned long bugs = rwsem_bugs;
	up_read(&sem); /* nobody holds it */
	KUNIT_EXPECT_EQ(test, rwsem_bugs, bugs + 1);
	KUNIT_EXPECT_EQ(test, sem.count, 0);
	down_read(&sem);
	up_write(&sem); /* held for reading, not writing */
	KUNIT_EXPECT_EQ(test, rwsem_bugs, bugs + 2);
	KUNIT_EXPECT_EQ(test, sem.count, 1);
	downgrade_write(&sem);
	KUNIT_EXPECT_EQ(test, rwsem_bugs, bugs + 3);
	up_read(&sem);
	KUNIT_EXPECT_FALSE(test, rwsem_is_locked(&sem));
	mmap_assert_locked(&fake);
	KUNIT_EXPECT_EQ(test, rwsem_bugs, bugs + 4);
	mmap_read_lock(&fake);
	mmap_assert_locked(&fake);
	mmap_assert_write_locked(&fake);
	KUNIT_EXPECT_EQ(test, rwsem_bugs, bugs + 5);
	mmap_read_unlock(&fake);
	mmap_write_lock(&fake);
	mmap_assert_write_locked(&fake);
	KUNIT_EXPECT_EQ(test, rwsem_bugs, bugs + 5);
	mmap_write_unlock(&fake);
	KUNIT_EXPECT_FALSE(test, rwsem_is_locked(&fake.mmap_lock));
}

/* A blocked locker: records when it got the lock. */
struct locker {
	struct rw_semaphore *sem;
	bool write;
	volatile unsigned long step; /* 1: about to lock; 2: holds it; 3: released */
	volatile unsigned long *order; /* shared sequence */
	unsigned long got_at;          /* the sequence value when it got it */
	volatile unsigned long release; /* set: may release */
	struct task_struct *task;
};

static int locker_fn(void *data)
{
	struct locker *l = data;
	store(&l->step, 1);
	if (l->write)
		down_write(l->sem);
	else
		down_read(l->sem);
	l->got_at = __atomic_add_fetch(l->order, 1, __ATOMIC_ACQ_REL);
	store(&l->step, 2);
	while (!load(&l->release))
		schedule_timeout_uninterruptible(1);
	if (l->write)
		up_write(l->sem);
	else
		up_read(l->sem);
	store(&l->step, 3);
	return 0;
}

static void start_locker(struct kunit *test, struct locker *l, struct rw_semaphore *sem, bool write,
			 volatile unsigned long *order)
{
	*l = (struct locker){ .sem = sem, .write = write, .order = order };
	l->task = kthread_run_on_cpu(locker_fn, l, test_other_cpu_or_this(), "rwsem/%u");
	KUNIT_ASSERT_NOT_NULL(test, l->task);
}

/* How many tasks wait on sem. */
/* A writer waits while a reader holds it, a reader waits while a writer
 * holds it, and each gets it as soon as the holder lets go. */
static void rwsem_writer_excludes_readers(struct kunit *test)
{
	static DECLARE_RWSEM(sem);
	static volatile unsigned long order;
	static struct locker w, r;
	init_rwsem(&sem);
	order = 0;
	down_read(&sem);
	start_locker(test, &w, &sem, true, &order);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(test_rwsem_waiters(&sem) == 1, NULL));
	KUNIT_EXPECT_EQ(test, load(&w.step), 1); /* queued: it has not got it */
	up_read(&sem);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(load(&w.step) == 2, NULL));
	KUNIT_EXPECT_TRUE(test, rwsem_is_write_locked(&sem));
	/* Now a reader waits for the writer. */
	start_locker(test, &r, &sem, false, &order);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(test_rwsem_waiters(&sem) == 1, NULL));
	KUNIT_EXPECT_EQ(test, load(&r.step), 1);
	KUNIT_EXPECT_EQ(test, down_read_trylock(&sem), 0);
	store(&w.release, 1);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(load(&r.step) == 2, NULL));
	KUNIT_EXPECT_EQ(test, w.got_at, 1);
	KUNIT_EXPECT_EQ(test, r.got_at, 2);
	store(&r.release, 1);
	kthread_join(w.task);
	kthread_join(r.task);
	KUNIT_EXPECT_FALSE(test, rwsem_is_locked(&sem));
}

/* Writers do not starve: once a writer waits, a reader that comes later
 * waits behind it even though only readers hold the lock, and the writer
 * gets it first; readers queued together are let in together. */
static void rwsem_waiting_writer_is_not_overtaken(struct kunit *test)
{
	static DECLARE_RWSEM(sem);
	static volatile unsigned long order;
	static struct locker w, r1, r2;
	init_rwsem(&sem);
	order = 0;
	down_read(&sem);
	start_locker(test, &w, &sem, true, &order);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(test_rwsem_waiters(&sem) == 1, NULL));
	KUNIT_EXPECT_EQ(test, down_read_trylock(&sem), 0); /* a writer waits */
	start_locker(test, &r1, &sem, false, &order);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(test_rwsem_waiters(&sem) == 2, NULL));
	start_locker(test, &r2, &sem, false, &order);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(test_rwsem_waiters(&sem) == 3, NULL));
	KUNIT_EXPECT_EQ(test, load(&r1.step), 1);
	KUNIT_EXPECT_EQ(test, load(&r2.step), 1);
	up_read(&sem);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(load(&w.step) == 2, NULL));
	KUNIT_EXPECT_EQ(test, w.got_at, 1);
	KUNIT_EXPECT_EQ(test, test_rwsem_waiters(&sem), 2);
	store(&w.release, 1);
	/* Both readers in at once: each holds it while the other does. */
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(load(&r1.step) == 2 && load(&r2.step) == 2, NULL));
	KUNIT_EXPECT_EQ(test, sem.count, 2);
	store(&r1.release, 1);
	store(&r2.release, 1);
	kthread_join(w.task);
	kthread_join(r1.task);
	kthread_join(r2.task);
	KUNIT_EXPECT_FALSE(test, rwsem_is_locked(&sem));
}

/* Every CPU hammers one rwsem with reads, writes, trylocks and
 * downgrades: a writer is never inside with anyone, the writers' plain
 * (non-atomic) increments all land, and every waiter is woken (the crew
 * finishes). */
struct hammer {
	struct rw_semaphore sem;
	volatile unsigned long readers, writers;
	unsigned long counter; /* only changed under the write lock, non-atomically */
	unsigned long writes;  /* atomic: writes done */
	unsigned long forced;  /* atomic: writes held until another task waited */
};
/* Operations in all, shared among the CPUs: a blocked locker is handed the
 * lock with a wakeup IPI, which a loaded host makes slow (a virtual CPU
 * woken from hlt may wait for the host to run it), so the total is kept
 * the same on a machine with many CPUs. Whether the CPUs' loops overlap
 * is up to the host; so that waiters are queued and handed the lock in
 * every run, each worker's first write holds the lock until another
 * worker waits for it (or all the others are done): "forced" counts
 * those, and the wakeups they cause must all arrive. */
#define HAMMER_OPS 384

static int hammer_fn(struct test_worker *w)
{
	struct hammer *h = w->crew->ctx;
	int bad = 0;
	unsigned rounds = HAMMER_OPS / w->crew->n;
	bool forced = false;
	for (unsigned i = 0; i < rounds; i++) {
		unsigned kind = (i + w->id) % 8;
		bool got = true;
		if (kind == 0 || kind == 5) {
			if (kind == 5)
				got = down_write_trylock(&h->sem);
			else
				down_write(&h->sem);
			if (!got)
				continue;
			if (load(&h->readers) || load(&h->writers))
				bad++;
			inc(&h->writers);
			if (kind == 0 && !forced) {
				forced = true;
				while (!rwsem_is_contended(&h->sem) &&
				       load(&w->crew->done) < w->crew->n - 1)
					cpu_relax();
				if (rwsem_is_contended(&h->sem))
					__atomic_add_fetch(&h->forced, 1, __ATOMIC_RELAXED);
			}
			unsigned long v = READ_ONCE(h->counter);
			cpu_relax();
			WRITE_ONCE(h->counter, v + 1);
			__atomic_add_fetch(&h->writes, 1, __ATOMIC_RELAXED);
			__atomic_sub_fetch(&h->writers, 1, __ATOMIC_ACQ_REL);
			if (i % 3 == 0) {
				downgrade_write(&h->sem);
				inc(&h->readers);
				if (load(&h->writers))
					bad++;
				__atomic_sub_fetch(&h->readers, 1, __ATOMIC_ACQ_REL);
				up_read(&h->sem);
			} else {
				up_write(&h->sem);
			}
		} else {
			if (kind == 3)
				got = down_read_trylock(&h->sem);
			else
				down_read(&h->sem);
			if (!got)
				continue;
			inc(&h->readers);
			if (load(&h->writers))
				bad++;
			cpu_relax();
			__atomic_sub_fetch(&h->readers, 1, __ATOMIC_ACQ_REL);
			up_read(&h->sem);
		}
		test_crew_progress(w);
		if (i % 64 == 0)
			cond_resched();
	}
	return bad;
}

static void rwsem_every_cpu_hammers_one_lock(struct kunit *test)
{
	static struct hammer h;
	static struct test_crew c;
	memset((void *)&h, 0, sizeof(h));
	init_rwsem(&h.sem);
	unsigned long bugs = rwsem_bugs;
	test_crew_start(test, &c, hammer_fn, &h, 0, 0);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	/* The first worker to hold it so finds nobody done yet (the others'
	 * own first writes come before their end), so someone waits. */
	KUNIT_EXPECT_GE(test, h.forced, c.n > 1 ? 1 : 0);
	KUNIT_EXPECT_EQ(test, h.counter, h.writes);
	KUNIT_EXPECT_GT(test, h.writes, 0);
	KUNIT_EXPECT_EQ(test, h.sem.count, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&h.sem.wait_list));
	KUNIT_EXPECT_EQ(test, rwsem_bugs, bugs);
}

/* ---- one mm on every CPU --------------------------------------------------------- */

/* An mm with len bytes mapped read-write at BASE; when it goes (at
 * test_mm_destroy or the end of the case) every page, table and slab
 * object must be back, and no lock misuse reported meanwhile
 * (tests/test_mm.h). */
static struct mm_struct *space(struct kunit *test, unsigned long len)
{
	struct mm_struct *mm = test_mm_create(test, 0);
	test_mm_map_anon(test, mm, BASE, len);
	return mm;
}

static u64 word_of(unsigned long page_nr, unsigned id) { return 0xa5000000ull << 8 | page_nr << 8 | id; }

/* Pages [0, pages) of BASE: worker i writes its own word (offset 8i) of
 * the pages it owns (every page if overlap, else page p when p % n == i);
 * with read_first it reads each page first (the zero page), so the write
 * is a copy-on-write of the zero page racing with the others' faults. */
struct fault_job {
	struct mm_struct *mm;
	unsigned long pages;
	bool overlap;
};

static int fault_fn(struct test_worker *w)
{
	struct fault_job *j = w->crew->ctx;
	unsigned n = w->crew->n;
	int bad = 0;
	kthread_use_mm(j->mm);
	for (unsigned long p = 0; p < j->pages; p++) {
		if (!j->overlap && p % n != w->id)
			continue;
		void *addr = (void *)(BASE + p * PAGE_SIZE + w->id * 8);
		u64 v = word_of(p, w->id), got = 1;
		if (w->id % 2 && copy_from_user(&got, addr, 8))
			bad++;
		if (copy_to_user(addr, &v, 8))
			bad++;
		test_crew_progress(w);
		if (p % 32 == 0)
			cond_resched();
	}
	kthread_unuse_mm(j->mm);
	return bad;
}

/* Checks every page of the job after the crew is done: present, writable,
 * a page of its own (never the zero page, never shared by two PTEs), with
 * every word its writers wrote; RSS counts exactly those pages. */
static void check_faulted(struct kunit *test, struct fault_job *j, unsigned n)
{
	unsigned long bad_pte = 0, bad_word = 0, dup = 0;
	static unsigned long pfns[1024];
	KUNIT_ASSERT_LE(test, j->pages, ARRAY_SIZE(pfns));
	for (unsigned long p = 0; p < j->pages; p++) {
		pte_t e = test_mm_pte(j->mm, BASE + p * PAGE_SIZE);
		if (!pte_present(e) || !pte_write(e) || is_zero_pfn(pte_pfn(e))) {
			bad_pte++;
			pfns[p] = 0;
			continue;
		}
		pfns[p] = pte_pfn(e);
		const u64 *words = page_address(pfn_to_page(pte_pfn(e)));
		for (unsigned i = 0; i < n; i++) {
			bool wrote = j->overlap || p % n == i;
			if (words[i] != (wrote ? word_of(p, i) : 0))
				bad_word++;
		}
		for (unsigned long q = 0; q < p; q++)
			if (pfns[q] == pfns[p])
				dup++;
	}
	KUNIT_EXPECT_EQ(test, bad_pte, 0);
	KUNIT_EXPECT_EQ(test, bad_word, 0);
	KUNIT_EXPECT_EQ(test, dup, 0);
	KUNIT_EXPECT_EQ(test, get_mm_counter(j->mm, MM_ANONPAGES), j->pages);
	/* Two PTE tables and the tables above them, each installed once. */
	KUNIT_EXPECT_EQ(test, j->mm->nr_ptes, (long)(j->pages * PAGE_SIZE / PMD_SIZE));
	KUNIT_EXPECT_EQ(test, j->mm->pgtables_bytes, (long)((j->mm->nr_ptes + 2) * PAGE_SIZE));
}

#define FAULT_PAGES 1024 /* two PTE tables */

/* Every CPU faults pages of one VMA in: each its own pages, or all of
 * them the same pages (the parameters keep the names the two cases had
 * before they were one). Each page is faulted at least once and counted
 * once. */
struct fault_mode {
	bool overlap;
	const char *name;
};
static const struct fault_mode fault_modes[] = {
	{ false, "faults_on_disjoint_pages_of_one_vma" },
	{ true, "faults_on_the_same_pages_from_every_cpu" },
};
KUNIT_ARRAY_PARAM_DESC(fault_modes, fault_modes, name);

static void faults_from_every_cpu(struct kunit *test)
{
	const struct fault_mode *m = test->param_value;
	static struct test_crew c;
	struct mm_struct *mm = space(test, FAULT_PAGES * PAGE_SIZE);
	struct fault_job j = { mm, FAULT_PAGES, m->overlap };
	test_crew_start(test, &c, fault_fn, &j, 0, 0);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	check_faulted(test, &j, c.n);
	KUNIT_EXPECT_GE(test, mm->page_faults, FAULT_PAGES);
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), FAULT_PAGES); /* no page counted twice */
	test_mm_destroy(test, mm);
}

/* MADV_DONTNEED (under the read lock) on every page while the other CPUs
 * fault them in: a worker reads back its own word as what it wrote or as
 * 0 (zapped in between), never anything else; afterwards RSS is exactly
 * the pages still mapped, and everything comes back at the end. */
#define ZAP_PAGES 512
#define ZAP_ROUNDS 40

static int fault_or_zap_fn(struct test_worker *w)
{
	struct fault_job *j = w->crew->ctx;
	int bad = 0;
	if (w->id % 2) {
		for (unsigned r = 0; r < ZAP_ROUNDS; r++) {
			int advice = r % 2 ? MADV_FREE : MADV_DONTNEED;
			if (do_madvise(j->mm, BASE, j->pages * PAGE_SIZE, advice))
				bad++;
			test_crew_progress(w);
			cond_resched();
		}
		return bad;
	}
	kthread_use_mm(j->mm);
	for (unsigned r = 0; r < ZAP_ROUNDS; r++) {
		for (unsigned long p = 0; p < j->pages; p += 7) {
			void *addr = (void *)(BASE + p * PAGE_SIZE + w->id * 8);
			u64 v = word_of(p, w->id) + r, got = 0;
			if (copy_to_user(addr, &v, 8) || copy_from_user(&got, addr, 8))
				bad++;
			else if (!test_word_is_v_or_torn(got, v))
				bad++;
		}
		test_crew_progress(w);
		cond_resched();
	}
	kthread_unuse_mm(j->mm);
	return bad;
}

static void madv_dontneed_beside_faults(struct kunit *test)
{
	static struct test_crew c;
	struct mm_struct *mm = space(test, ZAP_PAGES * PAGE_SIZE);
	struct fault_job j = { mm, ZAP_PAGES, true };
	test_crew_start(test, &c, fault_or_zap_fn, &j, 0, 0);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	unsigned long mapped = 0;
	for (unsigned long p = 0; p < ZAP_PAGES; p++) {
		pte_t e = test_mm_pte(mm, BASE + p * PAGE_SIZE);
		if (pte_present(e) && !is_zero_pfn(pte_pfn(e)))
			mapped++;
	}
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), mapped);
	test_mm_destroy(test, mm);
}

/* A writer of the mm (mprotect, munmap from another task) waits while a
 * reader holds the mmap_lock, and a reader's work (MADV_DONTNEED) does
 * not. */
struct mm_call {
	struct mm_struct *mm;
	int what; /* 0: mprotect read-only; 1: munmap the second half; 2: MADV_DONTNEED;
		   * 3: MADV_POPULATE_WRITE */
	volatile unsigned long done;
	int ret;
	struct task_struct *task;
};

static int mm_call_fn(void *data)
{
	struct mm_call *m = data;
	unsigned long len = 16 * PAGE_SIZE;
	switch (m->what) {
	case 0:
		m->ret = do_mprotect(m->mm, BASE, len, PROT_READ);
		break;
	case 1:
		m->ret = do_munmap(m->mm, BASE + len / 2, len / 2);
		break;
	case 2:
		m->ret = do_madvise(m->mm, BASE, len, MADV_DONTNEED);
		break;
	default:
		m->ret = do_madvise(m->mm, BASE, len, MADV_POPULATE_WRITE);
		break;
	}
	store(&m->done, 1);
	return 0;
}

static void start_mm_call(struct kunit *test, struct mm_call *m, struct mm_struct *mm, int what)
{
	*m = (struct mm_call){ .mm = mm, .what = what };
	m->task = kthread_run_on_cpu(mm_call_fn, m, test_other_cpu_or_this(), "mmcall/%u");
	KUNIT_ASSERT_NOT_NULL(test, m->task);
}

static void writers_wait_for_a_reader_of_the_mmap_lock(struct kunit *test)
{
	static struct mm_call m;
	struct mm_struct *mm = space(test, 16 * PAGE_SIZE);
	kthread_use_mm(mm);
	u64 v = 7;
	KUNIT_EXPECT_EQ(test, copy_to_user((void *)BASE, &v, 8), 0);
	kthread_unuse_mm(mm);

	mmap_read_lock(mm);
	/* A reader's work runs beside us: populate (as Linux's
	 * madvise_populate, under the read lock) faults every page in ... */
	start_mm_call(test, &m, mm, 3);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(load(&m.done), NULL));
	KUNIT_EXPECT_EQ(test, m.ret, 0);
	kthread_join(m.task);
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), 16);
	/* ... and MADV_DONTNEED zaps them all. */
	start_mm_call(test, &m, mm, 2);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(load(&m.done), NULL));
	KUNIT_EXPECT_EQ(test, m.ret, 0);
	kthread_join(m.task);
	KUNIT_EXPECT_EQ(test, get_mm_rss(mm), 0);

	/* mprotect queues behind us and changes nothing until we let go. */
	start_mm_call(test, &m, mm, 0);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(rwsem_is_contended(&mm->mmap_lock), NULL));
	KUNIT_EXPECT_FALSE(test, load(&m.done));
	KUNIT_EXPECT_TRUE(test, find_vma(mm, BASE)->vm_flags & VM_WRITE);
	/* A reader that comes now waits behind the writer. */
	KUNIT_EXPECT_FALSE(test, mmap_read_trylock(mm));
	mmap_read_unlock(mm);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(load(&m.done), NULL));
	KUNIT_EXPECT_EQ(test, m.ret, 0);
	kthread_join(m.task);

	mmap_read_lock(mm);
	KUNIT_EXPECT_FALSE(test, find_vma(mm, BASE)->vm_flags & VM_WRITE);
	/* munmap the same way. */
	start_mm_call(test, &m, mm, 1);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(rwsem_is_contended(&mm->mmap_lock), NULL));
	KUNIT_EXPECT_FALSE(test, load(&m.done));
	KUNIT_EXPECT_EQ(test, find_vma(mm, BASE)->vm_end, BASE + 16 * PAGE_SIZE);
	mmap_read_unlock(mm);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(load(&m.done), NULL));
	KUNIT_EXPECT_EQ(test, m.ret, 0);
	kthread_join(m.task);
	mmap_read_lock(mm);
	KUNIT_EXPECT_EQ(test, find_vma(mm, BASE)->vm_end, BASE + 8 * PAGE_SIZE);
	mmap_read_unlock(mm);
	KUNIT_EXPECT_FALSE(test, rwsem_is_locked(&mm->mmap_lock));
	test_mm_destroy(test, mm);
}

/* Split PTE locks: two PTE tables have two locks, each in its table's
 * struct page, neither the mm's page_table_lock; a CPU takes one while
 * another CPU holds the other. */
struct ptl_taker {
	struct mm_struct *mm;
	pmd_t *pmd;
	unsigned long addr;
	spinlock_t *ptl;
	volatile unsigned long done;
	struct task_struct *task;
};

static int ptl_taker_fn(void *data)
{
	struct ptl_taker *t = data;
	spinlock_t *ptl;
	pte_t *pte = pte_offset_map_lock(t->mm, t->pmd, t->addr, &ptl);
	if (pte) {
		t->ptl = ptl;
		pte_unmap_unlock(pte, ptl);
	}
	store(&t->done, 1);
	return 0;
}

static void two_pte_tables_have_two_locks(struct kunit *test)
{
	static struct ptl_taker t;
	struct mm_struct *mm = space(test, 2 * PMD_SIZE);
	unsigned long a1 = BASE + PAGE_SIZE, a2 = BASE + PMD_SIZE + PAGE_SIZE;
	mmap_read_lock(mm);
	struct vm_area_struct *vma = find_vma(mm, BASE);
	KUNIT_ASSERT_EQ(test, handle_mm_fault(vma, a1, FAULT_FLAG_WRITE), 0);
	KUNIT_ASSERT_EQ(test, handle_mm_fault(vma, a2, FAULT_FLAG_WRITE), 0);
	pmd_t *pmd1 = mm_find_pmd(mm, a1), *pmd2 = mm_find_pmd(mm, a2);
	KUNIT_ASSERT_NOT_NULL(test, pmd1);
	KUNIT_ASSERT_NOT_NULL(test, pmd2);
	spinlock_t *l1 = pte_lockptr(mm, pmd1), *l2 = pte_lockptr(mm, pmd2);
	KUNIT_EXPECT_PTR_NE(test, l1, l2);
	KUNIT_EXPECT_PTR_NE(test, l1, &mm->page_table_lock);
	KUNIT_EXPECT_PTR_EQ(test, l1, ptlock_ptr(pfn_to_page(pmd_pfn(pmdp_get(pmd1)))));
	KUNIT_EXPECT_PTR_EQ(test, l2, &pfn_to_page(pmd_pfn(pmdp_get(pmd2)))->ptl);

	spinlock_t *ptl1;
	pte_t *pte1 = pte_offset_map_lock(mm, pmd1, a1, &ptl1);
	KUNIT_ASSERT_NOT_NULL(test, pte1);
	KUNIT_EXPECT_PTR_EQ(test, ptl1, l1);
	KUNIT_EXPECT_TRUE(test, spin_is_locked(l1));
	KUNIT_EXPECT_FALSE(test, spin_is_locked(l2));
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&mm->page_table_lock));
	if (num_online_cpus() >= 2) {
		/* Another CPU takes the second table's lock while we hold the
		 * first's (it would spin for ever on one shared lock: we wait
		 * busily, holding a spinlock, with a hang guard). */
		t = (struct ptl_taker){ .mm = mm, .pmd = pmd2, .addr = a2 };
		t.task = kthread_run_on_cpu(ptl_taker_fn, &t, test_other_cpu_or_this(), "ptl/%u");
		KUNIT_EXPECT_NOT_NULL(test, t.task);
		if (t.task) {
			KUNIT_EXPECT_TRUE(test, kunit_wait_while_progressing(&t.done, 1, NULL));
			pte_unmap_unlock(pte1, ptl1);
			pte1 = NULL;
			kthread_join(t.task);
			KUNIT_EXPECT_PTR_EQ(test, t.ptl, l2);
		}
	}
	if (pte1)
		pte_unmap_unlock(pte1, ptl1);
	mmap_read_unlock(mm);
	test_mm_destroy(test, mm);
}

/* TLB: every CPU running the mm is in mm_cpumask and gets the flush of a
 * zap; a CPU that switched to another address space and back sees the
 * zap too (its CR3 reload dropped the old translation). */
struct tlb_job {
	struct mm_struct *mm;
	volatile unsigned long loaded, zapped;
	unsigned long before[NR_CPUS];
};

static int tlb_fn(struct test_worker *w)
{
	struct tlb_job *j = w->crew->ctx;
	unsigned long addr = BASE + w->id * PAGE_SIZE;
	u64 first = 0, second = 1;
	bool away = w->id == 1; /* this one switches away while the zap runs */
	int bad = 0;
	kthread_use_mm(j->mm);
	if (copy_from_user(&first, (void *)addr, 8) || first != w->id + 100)
		bad++;
	/* Every page's translation is now cached here. */
	for (unsigned i = 0; i < w->crew->n; i++)
		if (copy_from_user(&second, (void *)(BASE + i * PAGE_SIZE), 8))
			bad++;
	if (away)
		kthread_unuse_mm(j->mm);
	inc(&j->loaded);
	/* Loaded and not sleeping: a switch would flush the TLB itself. */
	while (!load(&j->zapped))
		cpu_relax();
	if (away)
		kthread_use_mm(j->mm);
	for (unsigned i = 0; i < w->crew->n; i++) {
		second = 1;
		if (copy_from_user(&second, (void *)(BASE + i * PAGE_SIZE), 8) || second != 0)
			bad++;
	}
	kthread_unuse_mm(j->mm);
	return bad;
}

static void tlb_zapped_action(void *j) { store(&((struct tlb_job *)j)->zapped, 1); }

static void tlb_flush_reaches_every_cpu_running_the_mm(struct kunit *test)
{
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
	static struct test_crew c;
	static struct tlb_job j;
	struct mm_struct *mm = space(test, NR_CPUS * PAGE_SIZE);
	kthread_use_mm(mm);
	unsigned n = num_online_cpus();
	for (unsigned i = 0; i < n; i++) {
		u64 v = i + 100;
		KUNIT_EXPECT_EQ(test, copy_to_user((void *)(BASE + i * PAGE_SIZE), &v, 8), 0);
	}
	kthread_unuse_mm(mm);
	/* Workers on the other CPUs only: this one zaps (and must not spin
	 * on its own CPU while a worker of it waits). */
	memset((void *)&j, 0, sizeof(j));
	j.mm = mm;
	unsigned cpu;
	for_each_online_cpu(cpu)
		j.before[cpu] = tlb_user_flushes(cpu);
	test_crew_start(test, &c, tlb_fn, &j, 0, TEST_CREW_OTHER_CPUS);
	/* However the case ends, the workers stop waiting for the zap. */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tlb_zapped_action, &j), 0);
	KUNIT_EXPECT_TRUE(test, kunit_wait_while_progressing(&j.loaded, c.n, NULL));
	for (unsigned i = 0; i < c.n; i++) {
		unsigned wcpu = c.w[i].cpu;
		KUNIT_EXPECT_TRUE(test, mm_cpumask(mm)->bits >> wcpu & 1);
	}
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, n * PAGE_SIZE, MADV_DONTNEED), 0);
	for (unsigned i = 0; i < c.n; i++) {
		unsigned wcpu = c.w[i].cpu;
		if (i != 1) /* the one that switched away had nothing to flush */
			KUNIT_EXPECT_GT(test, tlb_user_flushes(wcpu), j.before[wcpu]);
	}
	kunit_release_action(test, tlb_zapped_action, &j);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	test_mm_destroy(test, mm);
}

/* ---- refcounted PTE tables under fire (mm/pte_ref.h) --------------------------- */

/* Every CPU faults pages in and MADV_DONTNEEDs ranges of one mm at once,
 * with overlapping ranges: whole tables (the table goes), pieces of one
 * (it goes when the last piece does), ranges across two tables, so that
 * faults keep racing the free of the table they are entering (the
 * TRYGET_FAILED_ZERO retry) and zaps keep racing each other's last put.
 * After each batch, with nobody inside the mm, pte_ref_verify recomputes
 * every count from the entries, RSS is the pages mapped, and the tables
 * counted are the tables there; at the end everything comes back. Runs in
 * refcount mode (switched on for the case if the boot chose another). */
#define STRESS_TABLES 4
#define STRESS_BATCHES 8
#define STRESS_ROUNDS 48

struct stress_job {
	struct mm_struct *mm;
	unsigned batch;
};

static u64 xorshift(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int fault_and_zap_fn(struct test_worker *w)
{
	struct stress_job *j = w->crew->ctx;
	u64 seed = 0x9e3779b97f4a7c15ull * (w->id + 1) + j->batch * 0x100000001b3ull;
	int bad = 0;
	kthread_use_mm(j->mm);
	for (unsigned r = 0; r < STRESS_ROUNDS; r++) {
		u64 x = xorshift(&seed);
		unsigned long table = x % STRESS_TABLES, first = (x >> 8) % 512;
		unsigned long n = 1 + (x >> 20) % 64, step = 1 + (x >> 30) % 4;
		bool read = (x >> 40) & 1;
		for (unsigned long p = first; p < first + n && p < 512; p += step) {
			void *addr = (void *)(BASE + table * PMD_SIZE + p * PAGE_SIZE + w->id * 8);
			u64 v = word_of(p, w->id);
			if (read ? copy_from_user(&v, addr, 8) : copy_to_user(addr, &v, 8))
				bad++;
		}
		unsigned long start = BASE + table * PMD_SIZE, len = 0;
		switch ((x >> 50) % 4) {
		case 0: /* the whole table */
			len = PMD_SIZE;
			break;
		case 1: /* what this round touched: it may be all the table holds */
			start += first * PAGE_SIZE;
			len = min(n, 512 - first) * PAGE_SIZE;
			break;
		case 2: /* the second half of this table and the first of the next */
			if (table + 1 < STRESS_TABLES) {
				start += PMD_SIZE / 2;
				len = PMD_SIZE;
			}
			break;
		default:
			break;
		}
		if (len && do_madvise(j->mm, start, len, MADV_DONTNEED))
			bad++;
		test_crew_progress(w);
		if (r % 8 == 0)
			cond_resched();
	}
	kthread_unuse_mm(j->mm);
	return bad;
}

static void refcounted_tables_survive_faults_and_zaps_on_every_cpu(struct kunit *test)
{
	static struct test_crew c;
	if (test_pte_reclaim_mode(test, PTE_RECLAIM_REFCOUNT))
		kunit_skip(test, "refcount mode could not be switched on (a user mm exists)");
	struct mm_struct *mm = space(test, STRESS_TABLES * PMD_SIZE);
	unsigned long verify_errors = 0, rss_errors = 0, table_errors = 0;
	for (unsigned b = 0; b < STRESS_BATCHES; b++) {
		struct stress_job j = { mm, b };
		test_crew_start(test, &c, fault_and_zap_fn, &j, 0, 0);
		KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
		verify_errors += pte_ref_verify(mm);
		unsigned long mapped = 0, tables = 0;
		for (unsigned long t = 0; t < STRESS_TABLES; t++) {
			pmd_t *pmd = mm_find_pmd(mm, BASE + t * PMD_SIZE);
			if (!pmd || pmd_none(pmdp_get(pmd)))
				continue;
			tables++;
			for (unsigned long p = 0; p < 512; p++) {
				pte_t e = test_mm_pte(mm, BASE + t * PMD_SIZE + p * PAGE_SIZE);
				if (pte_present(e) && !is_zero_pfn(pte_pfn(e)))
					mapped++;
			}
		}
		rss_errors += get_mm_rss(mm) != mapped;
		table_errors += (unsigned long)mm->nr_ptes != tables;
		/* The PUD table, the PMD table unless the PMD extension freed it
		 * when every PTE table had gone (mm/pt_reclaim.c), the PTE tables. */
		unsigned long upper = mm_find_pmd(mm, BASE) ? 2 : 1;
		table_errors += mm->pgtables_bytes != (long)((tables + upper) * PAGE_SIZE);
	}
	KUNIT_EXPECT_EQ(test, verify_errors, 0);
	KUNIT_EXPECT_EQ(test, rss_errors, 0);
	KUNIT_EXPECT_EQ(test, table_errors, 0);
	test_mm_destroy(test, mm);
}

/* Page migration (mm/migrate.c) beside faults, writes, reads and
 * MADV_DONTNEED on every CPU: worker 0 moves random pages of the range to
 * random nodes with memory; the others read their own word of random
 * pages, write it and read it back, and now and then zap. A word read is
 * the one this worker wrote there, 0 (never written, or a zap came
 * between), or the written word with some bytes zero (a zap cut the copy
 * in two: test_word_is_v_or_torn), never anything else: no byte is lost
 * to a move and no page is freed while mapped. The counts
 * of every PTE table (refcount mode), the RSS and, at the end, every free
 * page must be right. */
#define MIGRATE_PAGES 256
struct migrate_job {
	struct mm_struct *mm;
	unsigned batch;
	unsigned long moved, busy;
};

/* The nodes with memory, and how many. */
static nodemask_t nodes_with_memory(unsigned *n)
{
	nodemask_t memory = NODE_MASK_NONE;
	for (unsigned nid = 0; nid < num_online_nodes(); nid++)
		if (node_has_memory((int)nid))
			node_set((int)nid, memory);
	*n = nodes_weight(memory);
	return memory;
}

/* Moves what is mapped at addr (a page, or a THP whole) to the k-th node
 * with memory, k taken from x, under the read lock. Moved (counted), busy
 * (a get_user_pages reference or a race: counted), or nothing there, the
 * zero page or no memory on the node are all fine; anything else is
 * reported and returns true. */
static bool move_to_some_node(struct mm_struct *mm, unsigned long addr, const nodemask_t *memory, unsigned nodes,
			      u64 x, unsigned long *moved, unsigned long *busy, const char *who)
{
	unsigned k = (unsigned)((x >> 20) % nodes);
	int nid;
	for_each_node_mask(nid, *memory)
		if (!k--)
			break;
	mmap_read_lock(mm);
	struct vm_area_struct *vma = find_vma(mm, addr);
	int ret = vma ? migrate_anon_page_to_node(vma, addr, nid) : -EFAULT;
	mmap_read_unlock(mm);
	if (ret == nid)
		(*moved)++;
	else if (ret == -EBUSY)
		(*busy)++;
	else if (ret != -ENOENT && ret != -EFAULT && ret != -ENOMEM) {
		pr_err("%s: moving %#lx to node %d gave %d\n", who, addr, nid, ret);
		return true;
	}
	return false;
}

/* Writes v at a (reading what is there first when read_first) and reads
 * it back: true, reported, if a copy failed or a word read is neither v,
 * 0 nor v torn by a zap. */
static bool write_and_check(void *a, u64 v, bool read_first, const char *who, unsigned id)
{
	u64 before = 0, got = 1;
	if ((read_first && copy_from_user(&before, a, 8)) || copy_to_user(a, &v, 8) || copy_from_user(&got, a, 8)) {
		pr_err("%s: worker %u: a user copy at %p failed\n", who, id, a);
		return true;
	}
	if (!test_word_is_v_or_torn(before, v) || !test_word_is_v_or_torn(got, v)) {
		pr_err("%s: worker %u at %p: read %#llx before writing %#llx, %#llx after\n", who, id, a,
		       (unsigned long long)before, (unsigned long long)v, (unsigned long long)got);
		return true;
	}
	return false;
}

static int migrate_race_fn(struct test_worker *w)
{
	struct migrate_job *j = w->crew->ctx;
	u64 seed = 0x2545f4914f6cdd1dull * (w->id + 1) + j->batch;
	unsigned nodes;
	nodemask_t memory = nodes_with_memory(&nodes);
	int bad = 0;
	/* About 1,600 rounds in all, whatever the CPU count (eight vCPUs on a
	 * 2-core host spin long on each other's locks). */
	unsigned rounds = 1600 / w->crew->n > 100 ? 1600 / w->crew->n : 100;
	kthread_use_mm(j->mm);
	for (unsigned r = 0; r < rounds; r++) {
		u64 x = xorshift(&seed);
		unsigned long p = x % MIGRATE_PAGES, addr = BASE + p * PAGE_SIZE;
		if (w->id == 0) {
			/* The mover. */
			bad += move_to_some_node(j->mm, addr, &memory, nodes, x, &j->moved, &j->busy, "migration stress");
		} else if ((x >> 40) % 16 == 0) {
			int err = do_madvise(j->mm, BASE + (p & ~7ul) * PAGE_SIZE, 8 * PAGE_SIZE, MADV_DONTNEED);
			if (err) {
				pr_err("migration stress: MADV_DONTNEED of page %lu gave %d\n", p & ~7ul, err);
				bad++;
			}
		} else {
			/* What is there first: this worker's word from before,
			 * or 0 (never written, or zapped): a page moved with
			 * its data, or not at all. */
			bad += write_and_check((void *)(addr + w->id * 8), word_of(p, w->id), true, "migration stress",
					       w->id);
		}
		test_crew_progress(w);
		if (r % 16 == 0)
			cond_resched();
	}
	kthread_unuse_mm(j->mm);
	return bad;
}

static void migration_beside_faults_and_zaps_on_every_cpu(struct kunit *test)
{
	static struct test_crew c;
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU");
	unsigned with_memory = 0;
	for (unsigned nid = 0; nid < num_online_nodes(); nid++)
		with_memory += node_has_memory((int)nid);
	if (with_memory < 2)
		kunit_skip(test, "one node with memory: nowhere to move a page");
	struct mm_struct *mm = space(test, MIGRATE_PAGES * PAGE_SIZE);
	unsigned long moved = 0, busy = 0, verify_errors = 0, rss_errors = 0;
	for (unsigned b = 0; b < 4; b++) {
		struct migrate_job j = { mm, b, 0, 0 };
		test_crew_start(test, &c, migrate_race_fn, &j, 0, 0);
		KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
		moved += j.moved;
		busy += j.busy;
		verify_errors += pte_ref_verify(mm);
		unsigned long mapped = 0;
		for (unsigned long p = 0; p < MIGRATE_PAGES; p++) {
			pte_t e = test_mm_pte(mm, BASE + p * PAGE_SIZE);
			if (pte_present(e) && !is_zero_pfn(pte_pfn(e)))
				mapped++;
		}
		rss_errors += get_mm_rss(mm) != mapped;
	}
	kunit_info(test, "%lu pages moved, %lu busy (a get_user_pages reference or a race)", moved, busy);
	KUNIT_EXPECT_GT(test, moved, 0);
	KUNIT_EXPECT_EQ(test, verify_errors, 0);
	KUNIT_EXPECT_EQ(test, rss_errors, 0);
	test_mm_destroy(test, mm);
}


/* THP (mm/huge_memory.c) on every CPU: workers write and read back their
 * own word of random pages of four MADV_HUGEPAGE 2 MiB ranges (so THP
 * faults race to install the same PMD), give back a whole range (the huge
 * PMD goes as one) or a part of one (split, then zapped), change the
 * protection of a part (split; RW and RWX, so writes stay allowed), and
 * worker 0 moves pages and THPs to other nodes. A word read is the
 * worker's, 0 or torn by a zap (test_word_is_v_or_torn). After each batch the page
 * tables must add up: RSS = 512 per huge PMD + the 4 KiB pages mapped,
 * nr_ptes = the PTE tables + one deposit per huge PMD, the refcounts
 * right (refcount mode), AnonHugePages = the huge PMDs; at the end every
 * page, table and deposit is back. */
#define THP_RANGES 4
struct thp_job {
	struct mm_struct *mm;
	unsigned batch;
	unsigned long moved, splits_seen;
};

static int thp_race_fn(struct test_worker *w)
{
	struct thp_job *j = w->crew->ctx;
	u64 seed = 0x7f4a7c159e3779b9ull * (w->id + 1) + j->batch * 0x1000193ull;
	unsigned nodes;
	nodemask_t memory = nodes_with_memory(&nodes);
	int bad = 0;
	/* About 800 rounds in all: a THP fault clears 2 MiB, a THP move
	 * copies 2 MiB, each slow under TCG. */
	unsigned rounds = 800 / w->crew->n > 60 ? 800 / w->crew->n : 60;
	kthread_use_mm(j->mm);
	for (unsigned r = 0; r < rounds; r++) {
		u64 x = xorshift(&seed);
		unsigned long t = x % THP_RANGES, p = (x >> 8) % 512;
		unsigned long range = BASE + t * PMD_SIZE, addr = range + p * PAGE_SIZE;
		unsigned what = (unsigned)((x >> 40) % 16);
		if (w->id == 0 && nodes >= 2 && what < 4) {
			unsigned long busy = 0;
			bad += move_to_some_node(j->mm, addr, &memory, nodes, x, &j->moved, &busy, "THP stress");
		} else if (what == 4 || what == 7 || what == 8) {
			if (do_madvise(j->mm, range, PMD_SIZE, MADV_DONTNEED)) {
				pr_err("THP stress: MADV_DONTNEED of range %lu failed\n", t);
				bad++;
			}
		} else if (what == 5) {
			unsigned long first = range + (p & ~7ul) * PAGE_SIZE;
			if (do_madvise(j->mm, first, 8 * PAGE_SIZE, MADV_DONTNEED)) {
				pr_err("THP stress: MADV_DONTNEED at %#lx failed\n", first);
				bad++;
			}
		} else if (what == 6) {
			unsigned long first = range + (p & ~3ul) * PAGE_SIZE;
			int err = do_mprotect(j->mm, first, 4 * PAGE_SIZE, (x >> 60) & 1 ? RW | PROT_EXEC : RW);
			if (err) {
				pr_err("THP stress: mprotect at %#lx gave %d\n", first, err);
				bad++;
			}
		} else {
			/* Mostly written first (a THP fault on a none PMD); now
			 * and then read first (the huge zero page, which the
			 * write then splits). */
			bad += write_and_check((void *)(addr + w->id * 8), word_of(p + t * 512, w->id),
					       (x >> 56) % 32 == 0, "THP stress", w->id);
		}
		test_crew_progress(w);
		if (r % 16 == 0)
			cond_resched();
	}
	kthread_unuse_mm(j->mm);
	return bad;
}

/* Whether addr's PMD maps a THP. */
static bool pmd_huge_at(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);
	return pmd && pmd_trans_huge(pmdp_get(pmd));
}

static void restore_thp_enabled(void *saved) { thp_enabled_mode = *(int *)saved; }

static void thp_faults_splits_and_zaps_on_every_cpu(struct kunit *test)
{
	static struct test_crew c;
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU");
	static int saved_enabled;
	saved_enabled = thp_enabled_mode;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_thp_enabled, &saved_enabled), 0);
	thp_enabled_mode = THP_ENABLED_MADVISE;
	/* The race's ranges, and one more it leaves alone (a none PMD for
	 * the split by hand below). */
	struct mm_struct *mm = space(test, (THP_RANGES + 1) * PMD_SIZE);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, BASE, (THP_RANGES + 1) * PMD_SIZE, MADV_HUGEPAGE), 0);
	unsigned long thps_before = nr_anon_thps(), allocs = all_vm_events(THP_FAULT_ALLOC);
	unsigned long splits = all_vm_events(THP_SPLIT_PMD);
	unsigned long moved = 0, verify_errors = 0, rss_errors = 0, table_errors = 0, thp_errors = 0;
	/* Three batches, and up to five more while no PMD was split yet: the
	 * splits come from the race, and on a machine where few THP faults
	 * succeed (memoryless: 4 in one run) three batches may split none. */
	for (unsigned b = 0; b < 3 || (b < 8 && all_vm_events(THP_SPLIT_PMD) == splits); b++) {
		struct thp_job j = { mm, b, 0, 0 };
		test_crew_start(test, &c, thp_race_fn, &j, 0, 0);
		KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
		moved += j.moved;
		verify_errors += pte_ref_verify(mm);
		unsigned long huge = 0, tables = 0, mapped = 0;
		for (unsigned long t = 0; t < THP_RANGES; t++) {
			pmd_t *pmd = mm_find_pmd(mm, BASE + t * PMD_SIZE);
			pmd_t val = pmd ? pmdp_get(pmd) : __pmd(0);
			if (pmd_none(val))
				continue;
			if (pmd_trans_huge(val)) {
				huge++;
				continue;
			}
			tables++;
			for (unsigned long p = 0; p < 512; p++) {
				pte_t e = test_mm_pte(mm, BASE + t * PMD_SIZE + p * PAGE_SIZE);
				if (pte_present(e) && !is_zero_pfn(pte_pfn(e)))
					mapped++;
			}
		}
		rss_errors += get_mm_rss(mm) != huge * HPAGE_PMD_NR + mapped;
		table_errors += (unsigned long)mm->nr_ptes != tables + huge;
		thp_errors += nr_anon_thps() - thps_before != huge;
		if (get_mm_rss(mm) != huge * HPAGE_PMD_NR + mapped || (unsigned long)mm->nr_ptes != tables + huge)
			kunit_info(test, "batch %u: %lu huge PMDs, %lu PTE tables with %lu pages; RSS %lu, nr_ptes %ld",
				   b, huge, tables, mapped, get_mm_rss(mm), mm->nr_ptes);
	}
	kunit_info(test, "%lu THP faults, %lu splits, %lu moves", all_vm_events(THP_FAULT_ALLOC) - allocs,
		   all_vm_events(THP_SPLIT_PMD) - splits, moved);
	if (all_vm_events(THP_SPLIT_PMD) == splits) {
		/* Few THP faults succeed here (a range keeps its PTE table
		 * after a whole-range MADV_DONTNEED, and a THP fault needs a
		 * none PMD), and a run may zap or move them all before a
		 * partial mprotect or MADV_DONTNEED comes: 4 faults and no
		 * split in 8 batches on a loaded host. Then one PMD is split
		 * by hand, so that the split path runs in every run: a THP
		 * the race left, else one faulted into the range it leaves
		 * alone (a none PMD) on a compacted node, mprotected in part. */
		unsigned long at = 0;
		for (unsigned long t = 0; t < THP_RANGES && !at; t++)
			if (pmd_huge_at(mm, BASE + t * PMD_SIZE))
				at = BASE + t * PMD_SIZE;
		if (!at) {
			unsigned long spare = BASE + THP_RANGES * PMD_SIZE;
			compact_node(numa_node_id());
			kthread_use_mm(mm);
			KUNIT_EXPECT_FALSE(test, write_and_check((void *)spare, word_of(THP_RANGES * 512, 0), false,
								 "THP split", 0));
			kthread_unuse_mm(mm);
			if (pmd_huge_at(mm, spare))
				at = spare;
		}
		kunit_info(test, "the race split no PMD: %s", at ? "one THP split by hand"
							    : "no THP to split by hand (the fault fell back)");
		if (at) {
			kthread_use_mm(mm);
			KUNIT_EXPECT_EQ(test, do_mprotect(mm, at, 4 * PAGE_SIZE, RW | PROT_EXEC), 0);
			kthread_unuse_mm(mm);
		}
	}
	KUNIT_EXPECT_GT(test, all_vm_events(THP_FAULT_ALLOC), allocs);
	KUNIT_EXPECT_GT(test, all_vm_events(THP_SPLIT_PMD), splits);
	KUNIT_EXPECT_EQ(test, verify_errors, 0);
	KUNIT_EXPECT_EQ(test, rss_errors, 0);
	KUNIT_EXPECT_EQ(test, table_errors, 0);
	KUNIT_EXPECT_EQ(test, thp_errors, 0);
	test_mm_destroy(test, mm);
	KUNIT_EXPECT_EQ(test, nr_anon_thps(), thps_before);
}

static struct kunit_case mm_smp_cases[] = {
	KUNIT_CASE(rwsem_trylock_semantics),
	KUNIT_CASE(rwsem_misuse_is_reported_and_survived),
	KUNIT_CASE(rwsem_writer_excludes_readers),
	KUNIT_CASE(rwsem_waiting_writer_is_not_overtaken),
	KUNIT_CASE(rwsem_every_cpu_hammers_one_lock),
	KUNIT_CASE_PARAM(faults_from_every_cpu, fault_modes_gen_params),
	KUNIT_CASE(madv_dontneed_beside_faults),
	KUNIT_CASE(writers_wait_for_a_reader_of_the_mmap_lock),
	KUNIT_CASE(two_pte_tables_have_two_locks),
	KUNIT_CASE(tlb_flush_reaches_every_cpu_running_the_mm),
	KUNIT_CASE(refcounted_tables_survive_faults_and_zaps_on_every_cpu),
	KUNIT_CASE(migration_beside_faults_and_zaps_on_every_cpu),
	KUNIT_CASE(thp_faults_splits_and_zaps_on_every_cpu),
	{}
};

static struct kunit_suite mm_smp_suite = { .name = "mm_smp", .test_cases = mm_smp_cases };
kunit_test_suite(mm_smp_suite);
