/* Huge pages of shared anonymous memory (MAP_SHARED | MAP_ANONYMOUS, a
 * MAP_SHARED mapping of /dev/zero, a System V segment), which live in
 * unnamed files of the internal tmpfs whose huge= is shmem_enabled's, as
 * Linux 6.1's on shm_mnt: each of shmem_enabled's six words makes the
 * first touch of an aligned 2 MiB a huge page or not exactly as Linux's
 * shmem_is_huge would (advise: with MADV_HUGEPAGE; deny: never; force:
 * always), mapped by one PMD (ShmemPmdMapped, thp_file_alloc,
 * thp_file_mapped, RssShmem 512 pages); smaps' THPeligible follows for
 * the two anonymous kinds and stays 0 for a segment (Linux's segment file
 * is no shmem_file). A mapping whose offsets do not line up with its
 * addresses gets the huge page by PTEs, and fault-around maps its
 * neighbours there. Every page, slab object and page table back after. */
#include "tests/kunit.h"
#include "tests/test_file.h"
#include "tests/test_mm.h"
#include "fs/fs.h"
#include "fs/init.h"
#include "ipc/shm.h"
#include "lib/err.h"
#include "mm/huge_memory.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pte_ref.h"
#include "mm/shmem.h"
#include "mm/vmstat.h"

#define BASE 0x0000370000000000ul /* a PGD entry of its own, 2 MiB aligned */
#define HPAGE (HPAGE_PMD_NR * PAGE_SIZE)
#define LEN (2 * HPAGE)

enum kind { SHARED_ANON, DEV_ZERO, SYSV, NR_KINDS };
static const char *const kind_name[NR_KINDS] = { "MAP_SHARED|MAP_ANONYMOUS", "/dev/zero", "SysV" };

static void close_file(void *f) { fput(f); }

/* LEN bytes of kind mapped at BASE in the current mm (madvise'd
 * MADV_HUGEPAGE if asked), or 0; a segment is removed at once (it goes
 * with its detach). */
static unsigned long map_kind(struct kunit *test, struct mm_struct *mm, enum kind k, struct file *zero, bool madvised)
{
	unsigned long a = 0;
	if (k == SHARED_ANON) {
		a = do_mmap(mm, BASE, LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED);
	} else if (k == DEV_ZERO) {
		a = do_mmap_file(mm, zero, BASE, LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, 0);
	} else {
		long id = ksys_shmget(IPC_PRIVATE, LEN, IPC_CREAT | 0600);
		KUNIT_EXPECT_GE(test, id, 0l);
		if (id < 0 || do_shmat((int)id, BASE, 0, &a))
			a = 0;
		if (id >= 0)
			KUNIT_EXPECT_EQ(test, ksys_shmctl((int)id, IPC_RMID, NULL), 0l);
	}
	KUNIT_EXPECT_EQ(test, a, BASE);
	if (a != BASE)
		return 0;
	if (madvised)
		KUNIT_EXPECT_EQ(test, do_madvise(mm, a, LEN, MADV_HUGEPAGE), 0);
	return a;
}

static void unmap_kind(struct kunit *test, struct mm_struct *mm, enum kind k, unsigned long a)
{
	if (k == SYSV)
		KUNIT_EXPECT_EQ(test, ksys_shmdt(a), 0l);
	else
		KUNIT_EXPECT_EQ(test, do_munmap(mm, a, LEN), 0);
}

struct setting {
	int huge;
	bool madvised;
	bool expected; /* Linux's shmem_is_huge for a 4 MiB object's first 2 MiB */
};

/* Every setting and kind: a write at the first page makes a huge page
 * (and a PMD maps it) exactly when Linux's would; a read of the second
 * 2 MiB too; the counters move by one huge page each; all of it goes with
 * the mapping. */
static void shmem_enabled_decides(struct kunit *test)
{
	static const struct setting settings[] = {
		{ SHMEM_HUGE_NEVER, false, false },	    { SHMEM_HUGE_ALWAYS, false, true },
		{ SHMEM_HUGE_WITHIN_SIZE, false, true },    { SHMEM_HUGE_ADVISE, false, false },
		{ SHMEM_HUGE_ADVISE, true, true },	    { SHMEM_HUGE_DENY, true, false },
		{ SHMEM_HUGE_FORCE, false, true },
	};
	test_set_shmem_huge(test, READ_ONCE(shmem_huge));
	struct file *zero = filp_open("/dev/zero", O_RDWR, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(zero));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, close_file, zero), 0);
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	for (unsigned s = 0; s < sizeof(settings) / sizeof(settings[0]); s++) {
		const struct setting *st = &settings[s];
		/* deny and force leave the internal instance's huge= as it
		 * was: never, so that force alone decides. */
		shmem_huge_set(SHMEM_HUGE_NEVER);
		shmem_huge_set(st->huge);
		for (enum kind k = 0; k < NR_KINDS; k++) {
			unsigned long thps = nr_shmem_thps(), pmdmapped = nr_shmem_pmdmapped();
			unsigned long allocs = all_vm_events(THP_FILE_ALLOC), mapped = all_vm_events(THP_FILE_MAPPED);
			unsigned long a = map_kind(test, mm, k, zero, st->madvised);
			if (!a)
				continue;
			struct vm_area_struct *vma = find_vma(mm, a);
			/* smaps' THPeligible: a segment's never (Linux). */
			KUNIT_EXPECT_EQ(test, thp_vma_eligible(vma), k != SYSV && st->expected);
			KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, a + 5 * PAGE_SIZE, 0x55), 0);
			KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, a + HPAGE + 8), 0ull);
			struct page *p = test_cache_page(vma->vm_shm->mapping, 5);
			KUNIT_ASSERT_NOT_NULL(test, p);
			bool huge = page_test_flag(compound_head(p), PG_shmem_thp);
			if (huge != st->expected)
				kunit_info(test, "shmem_enabled %d%s, %s: %s", st->huge, st->madvised ? " + MADV_HUGEPAGE" : "",
					   kind_name[k], huge ? "huge" : "small");
			KUNIT_EXPECT_EQ(test, huge, st->expected);
			unsigned long n = st->expected ? 2 : 0;
			KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(mm, a), st->expected ? compound_head(p) : NULL);
			KUNIT_EXPECT_EQ(test, nr_shmem_thps() - thps, n);
			KUNIT_EXPECT_EQ(test, nr_shmem_pmdmapped() - pmdmapped, n);
			KUNIT_EXPECT_EQ(test, all_vm_events(THP_FILE_ALLOC) - allocs, n);
			KUNIT_EXPECT_EQ(test, all_vm_events(THP_FILE_MAPPED) - mapped, n);
			/* The write maps its page alone, the read its window. */
			KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES),
					st->expected ? 2 * HPAGE_PMD_NR : 2ul);
			KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
			unmap_kind(test, mm, k, a);
			KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 0ul);
			KUNIT_EXPECT_EQ(test, nr_shmem_thps(), thps);
			KUNIT_EXPECT_EQ(test, nr_shmem_pmdmapped(), pmdmapped);
		}
	}
	test_mm_destroy(test, mm);
}

/* A mapping from offset 1 page: no 2 MiB of it lines up with the file's,
 * so the huge page a write makes is mapped by a PTE; a read beside it
 * faults around, mapping the huge page's pages of its window by PTEs (as
 * Linux's filemap_map_pages does where do_set_pmd cannot). */
static void unaligned_maps_huge_page_by_ptes(struct kunit *test)
{
	test_set_shmem_huge(test, SHMEM_HUGE_ALWAYS);
	test_set_fault_around(test, 65536);
	struct file *zero = filp_open("/dev/zero", O_RDWR, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(zero));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, close_file, zero), 0);
	struct mm_struct *mm = test_mm_create(test, 0);
	unsigned long thps = nr_shmem_thps();
	unsigned long a = do_mmap_file(mm, zero, BASE + PAGE_SIZE, LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, 0);
	KUNIT_ASSERT_EQ(test, a, BASE + PAGE_SIZE);
	struct vm_area_struct *vma = find_vma(mm, a);
	KUNIT_EXPECT_FALSE(test, thp_vma_eligible(vma)); /* its last 2 MiB is not aligned */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, a, 1), 0);
	struct page *p = test_cache_page(vma->vm_shm->mapping, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, page_test_flag(compound_head(p), PG_shmem_thp));
	KUNIT_EXPECT_EQ(test, nr_shmem_thps() - thps, 1ul);
	KUNIT_EXPECT_NULL(test, test_mm_pmd_page(mm, BASE));
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 1ul);
	/* The read at offset 1 (address BASE + 2 pages): the aligned
	 * window [BASE, BASE + 16 pages) starts before the VMA, and Linux
	 * 6.1's do_fault_around moves its start to the VMA's, keeping its
	 * length: offsets 0..15. */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, a + PAGE_SIZE), 0ull);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 65536ul >> PAGE_SHIFT);
	for (unsigned long i = 0; i < 65536 >> PAGE_SHIFT; i++)
		KUNIT_EXPECT_EQ(test, pte_pfn(test_mm_pte(mm, a + i * PAGE_SIZE)), page_to_pfn(p + i));
	KUNIT_EXPECT_EQ(test, page_mapcount(p + 3), 1);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, a, LEN), 0);
	KUNIT_EXPECT_EQ(test, nr_shmem_thps(), thps);
	test_mm_destroy(test, mm);
}

/* No address asked (Linux 6.1's shmem_get_unmapped_area): each kind's
 * 4 MiB lands on a 2 MiB boundary when shmem_enabled lets huge pages come
 * (always; advise too, which may give them later), and a write maps a
 * huge page by a PMD under always, none under never; a hint that is free
 * is taken as it is. Private anonymous memory keeps its own placement
 * (mm/mmap.c's thp_get_unmapped_area). */
static void placed_for_pmds(struct kunit *test)
{
	test_set_shmem_huge(test, READ_ONCE(shmem_huge));
	struct file *zero = filp_open("/dev/zero", O_RDWR, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(zero));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, close_file, zero), 0);
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	static const int words[] = { SHMEM_HUGE_ALWAYS, SHMEM_HUGE_ADVISE, SHMEM_HUGE_NEVER };
	for (unsigned w = 0; w < 3; w++) {
		shmem_huge_set(words[w]);
		for (enum kind k = 0; k < NR_KINDS; k++) {
			unsigned long a = 0;
			if (k == SHARED_ANON) {
				a = do_mmap(mm, 0, LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS);
			} else if (k == DEV_ZERO) {
				a = do_mmap_file(mm, zero, 0, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
			} else {
				long id = ksys_shmget(IPC_PRIVATE, LEN, IPC_CREAT | 0600);
				KUNIT_EXPECT_GE(test, id, 0l);
				if (id < 0 || do_shmat((int)id, 0, 0, &a))
					a = 0;
				if (id >= 0)
					KUNIT_EXPECT_EQ(test, ksys_shmctl((int)id, IPC_RMID, NULL), 0l);
			}
			KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(a) || !a);
			if (IS_ERR_VALUE(a) || !a)
				continue;
			if (words[w] != SHMEM_HUGE_NEVER)
				KUNIT_EXPECT_EQ(test, a & (HPAGE - 1), 0ul);
			KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, a + HPAGE + 8, 1), 0);
			struct page *pmd_page = test_mm_pmd_page(mm, a + HPAGE);
			if (words[w] == SHMEM_HUGE_ALWAYS)
				KUNIT_EXPECT_NOT_NULL(test, pmd_page);
			else
				KUNIT_EXPECT_NULL(test, pmd_page);
			if (pmd_page == NULL && words[w] == SHMEM_HUGE_ALWAYS)
				kunit_info(test, "%s at %#lx: no PMD", kind_name[k], a);
			unmap_kind(test, mm, k, a);
		}
	}
	/* A free hint is kept, aligned or not. */
	shmem_huge_set(SHMEM_HUGE_ALWAYS);
	unsigned long a = do_mmap(mm, BASE + PAGE_SIZE, LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS);
	KUNIT_EXPECT_EQ(test, a, BASE + PAGE_SIZE);
	if (a == BASE + PAGE_SIZE)
		KUNIT_EXPECT_EQ(test, do_munmap(mm, a, LEN), 0);
	/* Private anonymous memory: a 2 MiB multiple on a boundary, as before. */
	a = do_mmap(mm, 0, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
	KUNIT_EXPECT_EQ(test, a & (HPAGE - 1), 0ul);
	if (!IS_ERR_VALUE(a))
		KUNIT_EXPECT_EQ(test, do_munmap(mm, a, LEN), 0);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	test_mm_destroy(test, mm);
}

static struct kunit_case shmem_thp_anon_cases[] = {
	KUNIT_CASE(shmem_enabled_decides),
	KUNIT_CASE(unaligned_maps_huge_page_by_ptes),
	KUNIT_CASE(placed_for_pmds),
	{}
};

static struct kunit_suite shmem_thp_anon_suite = {
	.name = "shmem_thp_anon",
	.test_cases = shmem_thp_anon_cases,
};
kunit_test_suite(shmem_thp_anon_suite);
