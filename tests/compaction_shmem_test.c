/* Compaction of page-cache pages (mm/compaction_isolate.c takes them,
 * mm/migrate_shmem.c's migrate_isolated_shmem_page moves them): the pages
 * of a MAP_SHARED anonymous object that two processes map, and of a memfd
 * (a tmpfs file) that no one maps, laid out alternately in a fragmented
 * run of pageblocks (tests/compaction_layout.h). Compaction must move as
 * many as the scanners' rule says and free the blocks it says; each page
 * moved takes the old one's place in its file's page cache and in every
 * mapping (the parent's and the child's entries name the cache's page),
 * keeps its data, and the counts do not change (Shmem, Mapped, each mm's
 * RssShmem). A page pinned as get_user_pages pins (an extra reference)
 * stays where it is. The case's process (test_mm_enter_space) and its
 * leak check give back every page, table and slab object. */
#include "tests/kunit.h"
#include "tests/compaction_layout.h"
#include "tests/test_mm.h"
#include "tests/test_cpu.h"
#include "tests/test_migrate.h"
#include "fs/fdtable.h"
#include "fs/fs.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/filemap.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/mmu_context.h"
#include "mm/page_alloc.h"
#include "mm/vmscan.h"
#include "mm/migrate.h"
#include "mm/page.h"
#include "mm/pte_ref.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/vmstat.h"

#define UBASE 0x0000300000000000ul /* the case's process's own pages: memfd_create's name */
#define SBASE 0x0000310000000000ul /* the shared anonymous object */
#define MBASE 0x0000320000000000ul /* the memfd, while its pages are written */
#define PG PAGE_SIZE

static u64 pattern(unsigned long i)
{
	return 0x5eed000000000000ull ^ (i * 0x9e3779b97f4a7c15ull);
}

/* Page i of the layout: the object's page i / 2 for an even i, the
 * memfd's page i / 2 for an odd one. */
struct shmem_layout {
	struct address_space *object, *memfd;
};

static struct page *cache_page(struct address_space *mapping, unsigned long index)
{
	struct page *p = filemap_get_folio(mapping, index);
	if (p)
		put_page(p); /* the page cache keeps it: only its identity is wanted */
	return p;
}

static struct page *shmem_page_of(const struct layout *L, unsigned long i)
{
	const struct shmem_layout *S = L->priv;
	return cache_page(i % 2 ? S->memfd : S->object, i / 2);
}

static struct page *mapped_page(struct mm_struct *mm, unsigned long addr)
{
	pte_t e = test_mm_pte(mm, addr);
	return pte_present(e) ? pfn_to_page(pte_pfn(e)) : NULL;
}

static long map(unsigned long addr, unsigned long len, unsigned long flags, long fd)
{
	return test_sys6(__NR_mmap, addr, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED, (unsigned long)fd, 0);
}

static void put_child(void *mm)
{
	mmput(mm);
}

static struct file *memfd_file;
static void put_memfd_file(void *unused)
{
	(void)unused;
	fput(memfd_file);
}

/* The case's process with the object and the memfd made and written
 * (page k of each holds pattern of its layout index), a child (fork's
 * copy) that maps the object too and has faulted every page of it, and
 * the layout placed. */
static struct mm_struct *make_shmem_layout(struct kunit *test, struct layout *L, struct shmem_layout *S,
					   unsigned nblocks, int pin_block)
{
	test_set_shmem_huge(test, SHMEM_HUGE_NEVER); /* 4 KiB pages: a THP is not compaction's */
	layout_begin(test, L, nblocks, pin_block, NO_BLOCK);
	test_mm_enter_space(test, UBASE, 1);
	struct mm_struct *mm = current->mm;
	L->mm = mm;
	L->npages = (unsigned long)nblocks * PER_BLOCK + (pin_block != NO_BLOCK);
	unsigned long per_file = (L->npages + 1) / 2;
	KUNIT_ASSERT_EQ(test, map(SBASE, per_file * PG, MAP_SHARED | MAP_ANONYMOUS, -1), (long)SBASE);
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)UBASE, "cmp", 4), 0ul);
	long fd = test_sys6(__NR_memfd_create, UBASE, 0, 0, 0, 0, 0);
	KUNIT_ASSERT_GE(test, fd, 0l);
	KUNIT_ASSERT_EQ(test, test_sys6(__NR_ftruncate, (unsigned long)fd, per_file * PG, 0, 0, 0, 0), 0l);
	KUNIT_ASSERT_EQ(test, map(MBASE, per_file * PG, MAP_SHARED, fd), (long)MBASE);
	for (unsigned long i = 0; i < L->npages; i++)
		KUNIT_ASSERT_EQ(test, test_mm_write_u64(mm, (i % 2 ? MBASE : SBASE) + i / 2 * PG, pattern(i)), 0);
	/* The memfd's pages stay in its page cache, mapped by no one. */
	KUNIT_ASSERT_EQ(test, test_sys6(__NR_munmap, MBASE, per_file * PG, 0, 0, 0, 0), 0l);
	memfd_file = fget(current->files, (unsigned int)fd);
	KUNIT_ASSERT_NOT_NULL(test, memfd_file);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, put_memfd_file, NULL), 0);
	struct vm_area_struct *vma = find_vma(mm, SBASE);
	KUNIT_ASSERT_TRUE(test, vma && vma->vm_shm);
	*S = (struct shmem_layout){ .object = vma->vm_shm->mapping, .memfd = memfd_file->f_mapping };
	L->priv = S;
	L->page_of = shmem_page_of;
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(mm, &child), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, put_child, child), 0);
	for (unsigned long i = 0; i < L->npages; i += 2)
		KUNIT_ASSERT_EQ(test, test_mm_read_u64(child, SBASE + i / 2 * PG), pattern(i));
	layout_place(test, L);
	return child;
}

struct shmem_counts {
	unsigned long shmem, mapped, rss, child_rss;
};

static struct shmem_counts shmem_counts(struct mm_struct *mm, struct mm_struct *child)
{
	return (struct shmem_counts){ nr_shmem_pages(), nr_file_mapped_pages(), get_mm_counter(mm, MM_SHMEMPAGES),
				      get_mm_counter(child, MM_SHMEMPAGES) };
}

/* Every page of the layout: in its cache with its data, on the layout's
 * node; an object page mapped by both processes, both entries the
 * cache's page, its map count 2; a memfd page mapped by no one. */
static void expect_shmem_pages(struct kunit *test, const struct layout *L, struct mm_struct *child)
{
	unsigned long bad = 0, elsewhere = 0, unmapped = 0, not_shared = 0, mapped_memfd = 0;
	for (unsigned long i = 0; i < L->npages; i++) {
		struct page *p = L->page_of(L, i);
		if (!p) {
			bad++;
			continue;
		}
		bad += *(u64 *)page_address(p) != pattern(i);
		elsewhere += page_to_nid(p) != L->nid;
		if (i % 2) {
			mapped_memfd += page_mapcount(p) != 0;
			continue;
		}
		unsigned long addr = SBASE + i / 2 * PG;
		unmapped += mapped_page(L->mm, addr) != p || mapped_page(child, addr) != p;
		not_shared += page_mapcount(p) != 2;
		bad += test_mm_read_u64(L->mm, addr) != pattern(i) || test_mm_read_u64(child, addr) != pattern(i);
	}
	KUNIT_EXPECT_EQ(test, bad, 0ul);
	KUNIT_EXPECT_EQ(test, elsewhere, 0ul);
	KUNIT_EXPECT_EQ(test, unmapped, 0ul);
	KUNIT_EXPECT_EQ(test, not_shared, 0ul);
	KUNIT_EXPECT_EQ(test, mapped_memfd, 0ul);
}

/* Three blocks, a pinned object page in block 0: compaction moves the
 * pages of blocks 0 and 1 into block 2's free pages, block 1 becomes a
 * free order-9 block, block 0 keeps the pinned page; every moved page is
 * in its cache and its mappings with its data; the counts stay. */
static void shmem_and_tmpfs_pages_move_with_every_mapping(struct kunit *test)
{
	static struct layout L;
	static struct shmem_layout S;
	struct mm_struct *child = make_shmem_layout(test, &L, &S, 3, 0);
	struct page *p = alloc_pages_node(L.nid, TAKE_GFP, pageblock_order);
	KUNIT_EXPECT_NULL(test, p);
	if (p)
		hold_block(p);
	unsigned long pinned_pfn = page_to_pfn(L.pinned);
	struct shmem_counts before = shmem_counts(L.mm, child);
	unsigned long want_free, want_moved = layout_model(&L, &want_free);
	struct compact_range_result r;
	compact_range(L.nid, L.lo, L.lo + L.nblocks * pageblock_nr_pages, -1, 0, &r);
	kunit_info(test, "node %d pfn %#lx: result %d, %lu scanned, %lu free scanned, %lu isolated, %lu moved", L.nid,
		   L.lo, r.result, r.migrate_scanned, r.free_scanned, r.isolated, r.migrated);
	report_blocks(test, &L);
	KUNIT_EXPECT_EQ(test, r.result, COMPACT_COMPLETE);
	KUNIT_EXPECT_EQ(test, r.migrated, want_moved);
	KUNIT_EXPECT_EQ(test, want_moved, 2ul * PER_BLOCK);
	KUNIT_EXPECT_EQ(test, take_run_blocks(&L), want_free);
	KUNIT_EXPECT_EQ(test, want_free, 1ul << 1);
	/* The pinned page stayed, in its cache and both mappings. */
	KUNIT_EXPECT_EQ(test, page_to_pfn(L.page_of(&L, L.npages - 1)), pinned_pfn);
	expect_shmem_pages(test, &L, child);
	struct shmem_counts after = shmem_counts(L.mm, child);
	KUNIT_EXPECT_EQ(test, after.shmem, before.shmem);
	KUNIT_EXPECT_EQ(test, after.mapped, before.mapped);
	KUNIT_EXPECT_EQ(test, after.rss, before.rss);
	KUNIT_EXPECT_EQ(test, after.child_rss, before.child_rss);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(L.mm), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(child), 0ul);
}

/* A request that may not enter the file system (GFP_NOFS) compacts
 * anonymous pages only (Linux's isolate_migratepages_block): none of the
 * layout's pages moves, and none is isolated. */
static void a_nofs_compaction_leaves_page_cache_pages(struct kunit *test)
{
	static struct layout L;
	static struct shmem_layout S;
	struct mm_struct *child = make_shmem_layout(test, &L, &S, 2, NO_BLOCK);
	struct compact_range_result r;
	compact_range(L.nid, L.lo, L.lo + L.nblocks * pageblock_nr_pages, -1, COMPACT_RANGE_NOFS, &r);
	KUNIT_EXPECT_EQ(test, r.isolated, 0ul);
	KUNIT_EXPECT_EQ(test, r.migrated, 0ul);
	KUNIT_EXPECT_EQ(test, take_run_blocks(&L), 0ul);
	expect_shmem_pages(test, &L, child);
	/* The same run without the restriction: block 0 empties. */
	compact_range(L.nid, L.lo, L.lo + L.nblocks * pageblock_nr_pages, -1, 0, &r);
	unsigned long want_free, want_moved = layout_model(&L, &want_free);
	KUNIT_EXPECT_EQ(test, r.migrated, want_moved);
	KUNIT_EXPECT_EQ(test, take_run_blocks(&L), want_free);
	expect_shmem_pages(test, &L, child);
}

/* Compaction of the run beside faults, writes and zaps (MADV_DONTNEED)
 * of the object's pages by workers on every other CPU in the parent's
 * mm (tests/test_mm.c's stress workers): a fault meets migration entries
 * and waits, or maps the cache's page, old or new (shmem_page_current);
 * a word read is always the page's own value (a zap of a shared mapping
 * drops no data); the tables' counts stay exact, and every page ends
 * in its cache with its data. */
#define STRESS_ROUNDS 4

static unsigned long stress_pages;

static int stress_access(unsigned long addr, unsigned long index, unsigned long seed, unsigned long n)
{
	(void)n;
	u64 v;
	if ((seed >> 24) % 2) {
		if (get_user_u64(&v, (void *)addr))
			return 1;
		return v != pattern(2 * index);
	}
	return put_user_u64(pattern(2 * index), (void *)addr) != 0;
}

static int stress_worker(struct test_worker *w)
{
	return test_mm_stress_worker(w, SBASE, stress_pages, stress_access);
}

static struct test_crew stress_crew;

static void shmem_compaction_beside_faults_and_zaps_on_every_cpu(struct kunit *test)
{
	static struct layout L;
	static struct shmem_layout S;
	struct mm_struct *child = make_shmem_layout(test, &L, &S, 3, NO_BLOCK);
	stress_pages = L.npages / 2;
	test_crew_start(test, &stress_crew, stress_worker, L.mm, 0, TEST_CREW_OTHER_CPUS_OR_THIS);
	unsigned long migrated = compact_beside_crew(test, &L, &stress_crew, STRESS_ROUNDS);
	KUNIT_EXPECT_GT(test, migrated, 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(L.mm), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(child), 0ul);
	/* Fault every page back into the parent: then each is mapped by
	 * both processes again, as expect_shmem_pages wants. */
	for (unsigned long i = 0; i < L.npages; i += 2)
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(L.mm, SBASE + i / 2 * PG), pattern(i));
	expect_shmem_pages(test, &L, child);
}

/* A page-cache page that leaves its cache while compaction holds it
 * isolated (a truncate, or its file's end) is not moved: the move sees no
 * mapping (page_mapping_get), says -EBUSY and leaves the target page
 * untouched, and the putback frees the page. The second page goes with
 * its inode: the file closed while the page is isolated, its eviction
 * passes mapping_free_barrier (no holder), and the move after it finds
 * the mapping gone without touching the freed address_space. */
static struct page *isolate_cache_page(struct kunit *test, struct address_space *mapping, unsigned long index)
{
	struct page *page = filemap_get_folio(mapping, index);
	KUNIT_ASSERT_NOT_NULL(test, page);
	int err = isolate_lru_page(page);
	put_page(page); /* the isolation holds its own */
	KUNIT_ASSERT_EQ(test, err, 0);
	return page;
}

static void expect_not_moved(struct kunit *test, struct page *old)
{
	struct page *new = alloc_page(GFP_HIGHUSER_MOVABLE);
	KUNIT_ASSERT_NOT_NULL(test, new);
	KUNIT_EXPECT_EQ(test, migrate_isolated_page(old, new), -EBUSY);
	KUNIT_EXPECT_NULL(test, new->mapping);
	KUNIT_EXPECT_EQ(test, page_ref_count(new), 1);
	KUNIT_EXPECT_EQ(test, page_ref_count(old), 1); /* the isolation's alone */
	__free_page(new);
	putback_lru_page(old); /* the last reference: the page is freed */
}

static void a_page_leaving_its_cache_while_isolated_is_not_moved(struct kunit *test)
{
	test_set_shmem_huge(test, SHMEM_HUGE_NEVER);
	test_mm_enter_space(test, UBASE, 1);
	struct mm_struct *mm = current->mm;
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)UBASE, "cut", 4), 0ul);
	long fd = test_sys6(__NR_memfd_create, UBASE, 0, 0, 0, 0, 0);
	KUNIT_ASSERT_GE(test, fd, 0l);
	KUNIT_ASSERT_EQ(test, test_sys6(__NR_ftruncate, (unsigned long)fd, 4 * PG, 0, 0, 0, 0), 0l);
	KUNIT_ASSERT_EQ(test, map(MBASE, 4 * PG, MAP_SHARED, fd), (long)MBASE);
	for (unsigned long i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, test_mm_write_u64(mm, MBASE + i * PG, pattern(i)), 0);
	KUNIT_ASSERT_EQ(test, test_sys6(__NR_munmap, MBASE, 4 * PG, 0, 0, 0, 0), 0l);
	struct file *f = fget(current->files, (unsigned int)fd);
	KUNIT_ASSERT_NOT_NULL(test, f);
	struct address_space *mapping = f->f_mapping;

	/* Truncated below page 2 while page 3 is isolated. */
	struct page *old = isolate_cache_page(test, mapping, 3);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_ftruncate, (unsigned long)fd, 2 * PG, 0, 0, 0, 0), 0l);
	KUNIT_EXPECT_NULL(test, old->mapping);
	expect_not_moved(test, old);

	/* Page 1 isolated, then the file's last reference goes. */
	old = isolate_cache_page(test, mapping, 1);
	KUNIT_EXPECT_EQ(test, test_sys6(__NR_close, (unsigned long)fd, 0, 0, 0, 0, 0), 0l);
	fput(f); /* the inode is evicted and freed here */
	KUNIT_EXPECT_NULL(test, old->mapping);
	expect_not_moved(test, old);
}

static struct kunit_case compaction_shmem_cases[] = {
	KUNIT_CASE(shmem_and_tmpfs_pages_move_with_every_mapping),
	KUNIT_CASE(a_nofs_compaction_leaves_page_cache_pages),
	KUNIT_CASE(shmem_compaction_beside_faults_and_zaps_on_every_cpu),
	KUNIT_CASE(a_page_leaving_its_cache_while_isolated_is_not_moved),
	{},
};

static struct kunit_suite compaction_shmem_suite = { .name = "compaction_shmem",
						     .test_cases = compaction_shmem_cases };
kunit_test_suite(compaction_shmem_suite);
