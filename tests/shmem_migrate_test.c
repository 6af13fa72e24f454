/* Moving shmem pages between nodes (mm/migrate_shmem.c): move_pages,
 * mbind's MPOL_MF_MOVE and migrate_pages(2) on pages of a MAP_SHARED
 * anonymous object and of a memfd. The page keeps its contents and its
 * place (the object's slot, the page cache at its index), every mapping
 * of it maps the new page (one in a forked child too), a page mapped
 * more than once moves only with MPOL_MF_MOVE_ALL (-EACCES without, as
 * Linux's add_page_for_migration), a page pinned by get_user_pages stays
 * (-EBUSY), and the counts (Shmem, RssShmem, Mapped) do not change. Nodes
 * come from the machine; on one node every case skips. Each case runs on
 * a test mm (tests/test_mm.h), whose end checks that every page and slab
 * object is back. */
#include "tests/kunit.h"
#include "tests/test_file.h"
#include "tests/test_mm.h"
#include "tests/test_cpu.h"
#include "tests/test_migrate.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fdtable.h"
#include "fs/fs.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "mm/filemap.h"
#include "mm/gup.h"
#include "mm/migrate.h"
#include "mm/mmap_lock.h"
#include "mm/pte_ref.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "kernel/smp.h"
#include "mm/mempolicy.h"
#include "mm/mmap.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/vma.h"

#define UBASE 0x0000300000000000ul /* 16 pages: names and arrays */
#define ARG (UBASE + 8 * PG)	   /* move_pages' arrays, an mbind mask */
#define MBASE 0x0000310000000000ul
#define CBASE 0x0000320000000000ul /* a second mapping of the same pages */
#define PG PAGE_SIZE
#define MAXNODE 65

static long map(unsigned long addr, unsigned long len, unsigned long flags, long fd, unsigned long off)
{
	return test_sys6(__NR_mmap, addr, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED, (unsigned long)fd, off);
}

static long move_one(unsigned long addr, int node, int flags, int *status)
{
	return test_move_one(ARG, addr, node, flags, status);
}

/* The page mapped at addr in mm (its PTE's), or NULL. */
static struct page *mapped_page(struct mm_struct *mm, unsigned long addr)
{
	pte_t e = test_mm_pte(mm, addr);
	return pte_present(e) ? pfn_to_page(pte_pfn(e)) : NULL;
}

static long make_memfd(struct kunit *test, unsigned long pages)
{
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)UBASE, "mig", 4), 0);
	long fd = test_sys6(__NR_memfd_create, UBASE, 0, 0, 0, 0, 0);
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_ASSERT_EQ(test, test_sys6(__NR_ftruncate, (unsigned long)fd, pages * PG, 0, 0, 0, 0), 0);
	return fd;
}

static struct page *cache_page(long fd, unsigned long index)
{
	struct file *f = fget(current->files, (unsigned int)fd);
	struct page *p = f ? filemap_get_folio(f->f_mapping, index) : NULL;
	if (p)
		put_page(p); /* the page cache keeps it: only its identity is wanted */
	if (f)
		fput(f);
	return p;
}

/* The case's process (test_mm_enter_space) with a memfd of pages pages
 * mapped MAP_SHARED at MBASE; skips on a machine with one node with
 * memory, else two of them in *a and *b. Returns the descriptor. */
static long enter_with_memfd(struct kunit *test, unsigned long pages, int *a, int *b)
{
	if (!test_two_nodes(a, b))
		kunit_skip(test, "one node with memory");
	test_mm_enter_space(test, UBASE, 16);
	long fd = make_memfd(test, pages);
	KUNIT_ASSERT_EQ(test, map(MBASE, pages * PG, MAP_SHARED, fd, 0), (long)MBASE);
	return fd;
}

/* A memfd page mapped once moves: move_pages' status is the target, the
 * page cache and the mapping hold the new page, which has the data; the
 * counts stay. Mapped a second time (a second mapping here), it moves
 * only with MPOL_MF_MOVE_ALL, and then both mappings map the new page. */
static void memfd_page_moves(struct kunit *test)
{
	int a, b;
	long fd = enter_with_memfd(test, 2, &a, &b);
	struct mm_struct *mm = current->mm;
	int st;
	KUNIT_EXPECT_EQ(test, move_one(MBASE, a, 0, &st), 0l);
	KUNIT_EXPECT_EQ(test, st, -ENOENT); /* not faulted yet */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, MBASE, 0x5a5a), 0);
	KUNIT_EXPECT_EQ(test, move_one(MBASE, a, 0, &st), 0l);
	KUNIT_EXPECT_EQ(test, st, a);
	unsigned long shmem = nr_shmem_pages(), mapped = nr_file_mapped_pages();
	unsigned long rss = get_mm_counter(mm, MM_SHMEMPAGES);
	struct page *old = cache_page(fd, 0);
	KUNIT_EXPECT_EQ(test, move_one(MBASE, b, 0, &st), 0l);
	KUNIT_EXPECT_EQ(test, st, b);
	struct page *now = cache_page(fd, 0);
	KUNIT_EXPECT_PTR_NE(test, now, old);
	KUNIT_ASSERT_NOT_NULL(test, now);
	KUNIT_EXPECT_EQ(test, page_to_nid(now), b);
	KUNIT_EXPECT_PTR_EQ(test, mapped_page(mm, MBASE), now);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, MBASE), 0x5a5aul);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), mapped);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), rss);
	KUNIT_EXPECT_EQ(test, page_mapcount(now), 1);

	/* A second mapping of the page: -EACCES without MOVE_ALL. */
	KUNIT_ASSERT_EQ(test, map(CBASE, PG, MAP_SHARED, fd, 0), (long)CBASE);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, CBASE), 0x5a5aul);
	KUNIT_EXPECT_EQ(test, page_mapcount(now), 2);
	KUNIT_EXPECT_EQ(test, move_one(MBASE, a, 0, &st), 0l);
	KUNIT_EXPECT_EQ(test, st, -EACCES);
	KUNIT_EXPECT_PTR_EQ(test, cache_page(fd, 0), now);
	KUNIT_EXPECT_EQ(test, move_one(CBASE, a, MPOL_MF_MOVE_ALL, &st), 0l);
	KUNIT_EXPECT_EQ(test, st, a);
	struct page *moved = cache_page(fd, 0);
	KUNIT_ASSERT_NOT_NULL(test, moved);
	KUNIT_EXPECT_EQ(test, page_to_nid(moved), a);
	KUNIT_EXPECT_PTR_EQ(test, mapped_page(mm, MBASE), moved);
	KUNIT_EXPECT_PTR_EQ(test, mapped_page(mm, CBASE), moved);
	KUNIT_EXPECT_EQ(test, page_mapcount(moved), 2);
	/* Still one page behind both. */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, CBASE, 0x77), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, MBASE), 0x77ul);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), mapped);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_munmap, MBASE, 2 * PG, 0, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_munmap, CBASE, PG, 0, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_close, (unsigned long)fd, 0, 0, 0, 0, 0), 0);
}

/* A page of a MAP_SHARED anonymous object that a forked child maps too:
 * MPOL_MF_MOVE passes it over (no error, even under MPOL_MF_STRICT:
 * Linux's migrate_page_add skips a shared page), MPOL_MF_MOVE_ALL moves it
 * and the child's mapping follows. A get_user_pages pin keeps it where it
 * is (-EBUSY). */
static void anon_object_page_moves_for_every_mapper(struct kunit *test)
{
	int a, b;
	if (!test_two_nodes(&a, &b))
		kunit_skip(test, "one node with memory");
	/* The child's read maps page 0 alone (fault-around would map its
	 * present neighbour, page 1, too). */
	test_set_fault_around(test, PAGE_SIZE);
	test_mm_enter_space(test, UBASE, 16);
	struct mm_struct *mm = current->mm;
	nodemask_t at_a = nodemask_of_node(a), at_b = nodemask_of_node(b);
	KUNIT_ASSERT_EQ(test, map(MBASE, 2 * PG, MAP_SHARED | MAP_ANONYMOUS, -1, 0), (long)MBASE);
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)ARG, &at_a.bits[0], 8), 0);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_mbind, MBASE, 2 * PG, MPOL_BIND, ARG, MAXNODE, 0), 0);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, MBASE, 1), 0);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, MBASE + PG, 2), 0);
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(mm, &child), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(child, MBASE), 1ul); /* the child maps page 0 */
	struct page *p0 = mapped_page(mm, MBASE), *p1 = mapped_page(mm, MBASE + PG);
	KUNIT_ASSERT_NOT_NULL(test, p0);
	KUNIT_ASSERT_NOT_NULL(test, p1);
	KUNIT_EXPECT_EQ(test, page_mapcount(p0), 2);
	/* To b with MOVE | STRICT: page 1 moves, page 0 (shared) stays, 0. */
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)ARG, &at_b.bits[0], 8), 0);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_mbind, MBASE, 2 * PG, MPOL_BIND, ARG, MAXNODE, MPOL_MF_MOVE | MPOL_MF_STRICT),
			0);
	KUNIT_EXPECT_PTR_EQ(test, mapped_page(mm, MBASE), p0);
	struct page *n1 = mapped_page(mm, MBASE + PG);
	KUNIT_ASSERT_NOT_NULL(test, n1);
	KUNIT_EXPECT_EQ(test, page_to_nid(n1), b);
	KUNIT_EXPECT_PTR_EQ(test, test_cache_page(find_vma(mm, MBASE)->vm_shm->mapping, 1), n1);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, MBASE + PG), 2ul);
	/* A pin keeps page 0 even with MOVE_ALL. */
	struct page *pin;
	KUNIT_ASSERT_EQ(test, get_user_pages_fast(MBASE, 1, 0, &pin), 1l);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_mbind, MBASE, PG, MPOL_BIND, ARG, MAXNODE, MPOL_MF_MOVE_ALL | MPOL_MF_STRICT),
			-EIO);
	KUNIT_EXPECT_PTR_EQ(test, mapped_page(mm, MBASE), p0);
	KUNIT_EXPECT_PTR_EQ(test, mapped_page(child, MBASE), p0);
	put_page(pin);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_mbind, MBASE, PG, MPOL_BIND, ARG, MAXNODE, MPOL_MF_MOVE_ALL | MPOL_MF_STRICT),
			0);
	struct page *n0 = mapped_page(mm, MBASE);
	KUNIT_ASSERT_NOT_NULL(test, n0);
	KUNIT_EXPECT_EQ(test, page_to_nid(n0), b);
	KUNIT_EXPECT_PTR_EQ(test, mapped_page(child, MBASE), n0);
	KUNIT_EXPECT_EQ(test, page_mapcount(n0), 2);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(child, MBASE, 9), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, MBASE), 9ul);
	mmput(child);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_munmap, MBASE, 2 * PG, 0, 0, 0, 0), 0);
}

/* ---- forked readers ---- */

#define READERS 2
#define READER_MOVES 100

struct readers_job {
	struct mm_struct *mm[READERS]; /* forked children mapping the page at MBASE */
	u64 gen;		       /* the generation last written to word 0 */
	u64 buf[READERS][PG / 8];
	unsigned long reads[READERS];
};

/* Word i > 0 of the page: what the parent wrote there. */
static u64 reader_tag(unsigned long i) { return i * 0x9e3779b97f4a7c15ull + 0x6d6967; }

/* A forked reader: reads the whole page over and over (faulting on the
 * migration entries the moves leave in its mm), until told to stop, and
 * then once more. Word 0 must never go back (an old copy of the page
 * read after a move) and must end at the last generation written; the
 * other words must be what the parent wrote (nothing torn). */
static int reader_fn(struct test_worker *w)
{
	struct readers_job *j = w->crew->ctx;
	u64 *buf = j->buf[w->id], last = 0;
	int bad = 0;
	kthread_use_mm(j->mm[w->id]);
	for (bool stop = false; !stop && !bad;) {
		stop = test_crew_should_stop(w);
		u64 gen = __atomic_load_n(&j->gen, __ATOMIC_ACQUIRE);
		if (copy_from_user(buf, (void *)MBASE, PG)) {
			bad++;
			break;
		}
		__atomic_add_fetch(&j->reads[w->id], 1, __ATOMIC_RELAXED);
		if (buf[0] < last || (stop && buf[0] != gen)) {
			pr_err("shmem migration readers: reader %u read generation %llu after %llu (now %llu)\n", w->id,
			       (unsigned long long)buf[0], (unsigned long long)last, (unsigned long long)gen);
			bad++;
		}
		last = buf[0];
		for (unsigned long i = 1; i < PG / 8; i++)
			if (buf[i] != reader_tag(i)) {
				pr_err("shmem migration readers: reader %u word %lu is %#llx\n", w->id, i,
				       (unsigned long long)buf[i]);
				bad++;
				break;
			}
		test_crew_progress(w);
		cond_resched(); /* the other reader may share this CPU (two CPUs) */
	}
	kthread_unuse_mm(j->mm[w->id]);
	return bad;
}

/* The page of a MAP_SHARED anonymous mapping that forked readers keep
 * reading on other CPUs moves from node to node with MPOL_MF_MOVE_ALL
 * (the mm selftest migration's shared_anon): every move succeeds (the
 * readers' faults on the migration entries take no reference on the
 * page), move_pages' status and the object's page say the target, every
 * reader's mapping follows, and the readers never see an old or torn
 * copy. The map count is the readers' and the parent's mappings at the
 * end, and everything comes back. */
static void anon_page_moves_under_forked_readers(struct kunit *test)
{
	static struct test_crew c;
	static struct readers_job j;
	int node[2];
	if (!test_two_nodes(&node[0], &node[1]))
		kunit_skip(test, "one node with memory");
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU");
	test_mm_enter_space(test, UBASE, 16);
	struct mm_struct *mm = current->mm;
	KUNIT_ASSERT_EQ(test, map(MBASE, PG, MAP_SHARED | MAP_ANONYMOUS, -1, 0), (long)MBASE);
	memset(&j, 0, sizeof(j));
	for (unsigned long i = 1; i < PG / 8; i++)
		KUNIT_ASSERT_EQ(test, test_mm_write_u64(mm, MBASE + i * 8, reader_tag(i)), 0);
	KUNIT_ASSERT_EQ(test, test_mm_write_u64(mm, MBASE, 0), 0);
	for (int r = 0; r < READERS; r++) {
		KUNIT_ASSERT_EQ(test, dup_mm(mm, &j.mm[r]), 0);
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(j.mm[r], MBASE + 8), reader_tag(1)); /* mapped there */
	}
	struct vm_area_struct *vma = find_vma(mm, MBASE);
	KUNIT_ASSERT_NOT_NULL(test, vma);
	struct address_space *mapping = vma->vm_shm->mapping;
	test_crew_start(test, &c, reader_fn, &j, READERS, TEST_CREW_OTHER_CPUS_OR_THIS);
	unsigned long failed = 0;
	for (int k = 0; k < READER_MOVES; k++) {
		int target = node[(k + 1) % 2], st;
		/* Each reader reads again before the move: they read beside
		 * every move, not only before the first or after the last. */
		unsigned long seen[READERS];
		for (int r = 0; r < READERS; r++)
			seen[r] = __atomic_load_n(&j.reads[r], __ATOMIC_RELAXED);
		KUNIT_ASSERT_TRUE(test, TEST_WAIT_UNTIL(__atomic_load_n(&j.reads[0], __ATOMIC_RELAXED) > seen[0] &&
								__atomic_load_n(&j.reads[1], __ATOMIC_RELAXED) > seen[1],
							&c.progress));
		long r = move_one(MBASE, target, MPOL_MF_MOVE_ALL, &st);
		if (r != 0 || st != target) {
			if (failed++ < 3)
				kunit_info(test, "move %d to node %d: %ld, status %d", k, target, r, st);
			continue;
		}
		struct page *p = test_cache_page(mapping, 0);
		KUNIT_EXPECT_TRUE(test, p && page_to_nid(p) == target);
		KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, MBASE, (u64)k + 1), 0);
		__atomic_store_n(&j.gen, (u64)k + 1, __ATOMIC_RELEASE);
	}
	KUNIT_EXPECT_EQ(test, failed, 0ul);
	test_crew_stop(&c);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0ul);
	kunit_info(test, "%d moves; the readers read the page %lu and %lu times, and faulted %lu and %lu times",
		   READER_MOVES, j.reads[0], j.reads[1], j.mm[0]->page_faults, j.mm[1]->page_faults);
	struct page *p = test_cache_page(mapping, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	int mapped = mapped_page(mm, MBASE) == p;
	for (int r = 0; r < READERS; r++) {
		KUNIT_EXPECT_PTR_EQ(test, mapped_page(j.mm[r], MBASE), p);
		mapped += mapped_page(j.mm[r], MBASE) == p;
	}
	KUNIT_EXPECT_EQ(test, page_mapcount(p), mapped);
	KUNIT_EXPECT_EQ(test, mapped, READERS + 1);
	for (int r = 0; r < READERS; r++)
		mmput(j.mm[r]);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_munmap, MBASE, PG, 0, 0, 0, 0), 0);
}

/* migrate_pages(2) moves the process's shmem pages too (MOVE_ALL, as
 * Linux's kernel_migrate_pages gives a CAP_SYS_NICE caller). */
static void migrate_pages_moves_shmem(struct kunit *test)
{
	int a, b;
	long fd = enter_with_memfd(test, 4, &a, &b);
	struct mm_struct *mm = current->mm;
	nodemask_t at_a = nodemask_of_node(a), at_b = nodemask_of_node(b);
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)ARG, &at_a.bits[0], 8), 0);
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)(ARG + 8), &at_b.bits[0], 8), 0);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_mbind, MBASE, 4 * PG, MPOL_BIND, ARG, MAXNODE, 0), 0);
	for (unsigned long i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, MBASE + i * PG, i + 100), 0);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_migrate_pages, 0, MAXNODE, ARG, ARG + 8, 0, 0), 0);
	for (unsigned long i = 0; i < 4; i++) {
		struct page *p = cache_page(fd, i);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, page_to_nid(p), b);
		KUNIT_EXPECT_PTR_EQ(test, mapped_page(mm, MBASE + i * PG), p);
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, MBASE + i * PG), i + 100);
	}
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_munmap, MBASE, 4 * PG, 0, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_close, (unsigned long)fd, 0, 0, 0, 0, 0), 0);
}

/* ---- the stress case ---- */

#define STRESS_PAGES 16

struct stress_job {
	struct mm_struct *mm[2]; /* the parent's and a forked child's, both mapping the memfd at MBASE */
	unsigned long rounds;
	unsigned long moved, busy;
};

static u64 next_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Worker 0 reads a word of a random page of the object (so that its mm
 * maps it) and moves the page to a random node with MPOL_MF_MOVE_ALL
 * (both mms may map it); the others, in one mm or the
 * other, write their own word of a random page and read it back (theirs,
 * or 0 when a hole was punched there meanwhile), and now and then zap
 * their mm's mapping of eight pages (MADV_DONTNEED) or punch a hole of
 * one page in the file (MADV_REMOVE: every mapping loses it, and its
 * contents; a hole between two bytes of a copy tears the word:
 * test_word_is_v_or_torn). */
static int stress_fn(struct test_worker *w)
{
	struct stress_job *j = w->crew->ctx;
	struct mm_struct *mm = j->mm[w->id % 2];
	u64 seed = 0x9e3779b97f4a7c15ull * (w->id + 1);
	nodemask_t mem = node_states_memory();
	unsigned nodes = (unsigned)nodes_weight(mem);
	int bad = 0;
	kthread_use_mm(mm);
	for (unsigned long r = 0; r < j->rounds; r++) {
		u64 x = next_rand(&seed);
		unsigned long p = x % STRESS_PAGES, addr = MBASE + p * PG;
		if (w->id == 0) {
			int nid = -1, k = (int)((x >> 32) % nodes);
			for_each_node_mask(nid, mem)
				if (!k--)
					break;
			/* Faulted in here first: on a two-CPU machine no other
			 * worker uses this mm. */
			u64 word;
			bool split;
			if (copy_from_user(&word, (void *)addr, 8))
				bad++;
			mmap_read_lock(mm);
			struct vm_area_struct *vma = find_vma(mm, addr);
			int ret = vma ? migrate_anon_at(vma, addr, alloc_migration_target, &nid, &split, MPOL_MF_MOVE_ALL)
				      : -EFAULT;
			mmap_read_unlock(mm);
			if (ret == nid)
				__atomic_add_fetch(&j->moved, 1, __ATOMIC_RELAXED);
			else if (ret == -EBUSY)
				__atomic_add_fetch(&j->busy, 1, __ATOMIC_RELAXED);
			else if (ret != -ENOENT) {
				pr_err("shmem migration stress: page %lu to node %d gave %d\n", p, nid, ret);
				bad++;
			}
		} else if ((x >> 40) % 32 == 0) {
			int err = do_madvise(mm, MBASE + (p & ~7ul) * PG, 8 * PG, MADV_DONTNEED);
			bad += err != 0;
		} else if ((x >> 40) % 32 == 1) {
			int err = do_madvise(mm, addr, PG, MADV_REMOVE);
			bad += err != 0;
		} else {
			u64 v = (p << 32) | w->id, before = 0, got = 1;
			void *a = (void *)(addr + w->id * 8);
			if (copy_from_user(&before, a, 8) || copy_to_user(a, &v, 8) || copy_from_user(&got, a, 8) ||
			    !test_word_is_v_or_torn(before, v) || !test_word_is_v_or_torn(got, v)) {
				pr_err("shmem migration stress: worker %u page %lu: read %#llx, wrote %#llx, read %#llx\n",
				       w->id, p, (unsigned long long)before, (unsigned long long)v, (unsigned long long)got);
				bad++;
			}
		}
		test_crew_progress(w);
		if (r % 16 == 0)
			cond_resched();
	}
	kthread_unuse_mm(mm);
	return bad;
}

/* The page of the object at index: the memfd's page cache's (fd >= 0), or
 * the anonymous object's that mm maps at MBASE. */
static struct page *slot_page(struct mm_struct *mm, long fd, unsigned long index)
{
	if (fd >= 0)
		return cache_page(fd, index);
	struct vm_area_struct *vma = find_vma(mm, MBASE);
	return vma && vma->vm_shm ? test_cache_page(vma->vm_shm->mapping, index) : NULL;
}

/* Every present PTE of mm over the object maps the page the object has
 * at its index; returns how many do not, and adds each mapping to
 * mapped[index]. */
static unsigned long stale_mappings(struct mm_struct *mm, long fd, unsigned long *mapped)
{
	unsigned long stale = 0;
	for (unsigned long i = 0; i < STRESS_PAGES; i++) {
		pte_t e = test_mm_pte(mm, MBASE + i * PG);
		if (!pte_present(e))
			continue;
		mapped[i]++;
		if (pfn_to_page(pte_pfn(e)) != slot_page(mm, fd, i))
			stale++;
	}
	return stale;
}

/* Moves beside faults, zaps and holes on every CPU, with two mms mapping
 * a memfd or a MAP_SHARED anonymous object. Afterwards: no PTE maps a page
 * other than the object's at its offset, each page's map count is the
 * number of PTEs mapping it, RssShmem the number of present PTEs, the
 * PTE-table counts right, and at the end everything is back. In each
 * pte_reclaim mode (the entries a move clears drop their table's count in
 * refcount mode). */
static void stress(struct kunit *test, bool anon)
{
	static struct test_crew c;
	int a, b;
	if (!test_two_nodes(&a, &b))
		kunit_skip(test, "one node with memory");
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU");
	const struct pte_reclaim_mode_param *m = test->param_value;
	KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, m->mode), 0);
	test_mm_enter_space(test, UBASE, 16);
	struct mm_struct *mm = current->mm;
	long fd = anon ? -1 : make_memfd(test, STRESS_PAGES);
	KUNIT_ASSERT_EQ(test, map(MBASE, STRESS_PAGES * PG, MAP_SHARED | (anon ? MAP_ANONYMOUS : 0), fd, 0),
			(long)MBASE);
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(mm, &child), 0);
	struct stress_job j = { { mm, child }, 0, 0, 0 };
	j.rounds = 1600 / num_online_cpus() > 100 ? 1600 / num_online_cpus() : 100;
	test_crew_start(test, &c, stress_fn, &j, 0, 0);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	kunit_info(test, "%lu moves ended on their target node, %lu busy", j.moved, j.busy);
	KUNIT_EXPECT_GT(test, j.moved, 0);
	unsigned long mapped[STRESS_PAGES] = { 0 }, present[2];
	for (int m = 0; m < 2; m++) {
		unsigned long before = 0;
		for (unsigned long i = 0; i < STRESS_PAGES; i++)
			before += mapped[i];
		KUNIT_EXPECT_EQ(test, stale_mappings(j.mm[m], fd, mapped), 0ul);
		present[m] = 0;
		for (unsigned long i = 0; i < STRESS_PAGES; i++)
			present[m] += mapped[i];
		present[m] -= before;
		KUNIT_EXPECT_EQ(test, get_mm_counter(j.mm[m], MM_SHMEMPAGES), present[m]);
		KUNIT_EXPECT_EQ(test, pte_ref_verify(j.mm[m]), 0ul);
	}
	for (unsigned long i = 0; i < STRESS_PAGES; i++) {
		struct page *p = slot_page(mm, fd, i);
		if (p)
			KUNIT_EXPECT_EQ(test, (unsigned long)page_mapcount(p), mapped[i]);
		else
			KUNIT_EXPECT_EQ(test, mapped[i], 0ul);
	}
	mmput(child);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_munmap, MBASE, STRESS_PAGES * PG, 0, 0, 0, 0), 0);
	if (fd >= 0)
		KUNIT_EXPECT_EQ(test, test_sys6(__NR_close, (unsigned long)fd, 0, 0, 0, 0, 0), 0);
}

static void memfd_moves_beside_faults_zaps_and_holes(struct kunit *test) { stress(test, false); }
static void anon_moves_beside_faults_zaps_and_holes(struct kunit *test) { stress(test, true); }

static struct kunit_case shmem_migrate_cases[] = {
	KUNIT_CASE(memfd_page_moves),
	KUNIT_CASE(anon_object_page_moves_for_every_mapper),
	KUNIT_CASE(anon_page_moves_under_forked_readers),
	KUNIT_CASE(migrate_pages_moves_shmem),
	KUNIT_CASE_PARAM(memfd_moves_beside_faults_zaps_and_holes, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(anon_moves_beside_faults_zaps_and_holes, pte_reclaim_modes_gen_params),
	{},
};

static struct kunit_suite shmem_migrate_suite = { .name = "shmem_migrate", .test_cases = shmem_migrate_cases };
kunit_test_suite(shmem_migrate_suite);
