/* tmpfs pages to swap and back (mm/shmem_swap.c), on the swap machine
 * (tests/topologies/swap.topo):
 *   - a MAP_SHARED tmpfs file's pages pushed out by MADV_PAGEOUT: the
 *     PTEs gone (their tables' counts with them, pte_ref_verify), the page
 *     cache's entries swap entries (i_swapped), Shmem down and the slots
 *     taken; back by a fault and by read(2) (every word checked); a
 *     truncate frees the slots past the end; swapoff brings the rest back
 *     into the page cache (shmem_unuse), every word checked;
 *   - shared anonymous memory (MAP_SHARED | MAP_ANONYMOUS, an unlinked
 *     file of the internal tmpfs): out, back by faults, out again, back by
 *     swapoff, every word checked, smaps' count (shmem_swap_usage);
 *   - reclaim itself (shrink_inactive_list) takes a tmpfs page no one
 *     maps from the anon inactive list, where swap-backed pages live,
 *     and splits a tmpfs huge page first (thp_split_page).
 * In each pte_reclaim mode where the case is a parameter; the case's
 * pages, tables and slab objects are back at its end (tests/test_mm.h),
 * after the area went off. */
#include "tests/kunit.h"
#include "tests/test_file.h"
#include "tests/test_mm.h"
#include "fs/fs.h"
#include "fs/init.h"
#include "lib/err.h"
#include "lib/string.h"
#include "kernel/sched_mm.h"
#include "kernel/unistd.h"
#include "mm/filemap.h"
#include "mm/mm_inline.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/pte_ref.h"
#include "mm/shmem.h"
#include "mm/shmem_swap.h"
#include "mm/swap_state.h"
#include "mm/swapfile.h"
#include "mm/vmscan.h"
#include "mm/vmstat.h"

#define PATH "/tmp/swap_shmem_file"
#define BASE 0x0000340000000000ul
#define NPAGES 16ul

static void swapoff_action(void *ctx)
{
	(void)ctx;
	if (total_swap_pages)
		ksys_swapoff("/dev/vda");
}

/* A skip, before the case makes anything, where /dev/vda is not a swap
 * area (every machine but swap). */
static void swap_disk_or_skip(struct kunit *test)
{
	struct file *f = filp_open("/dev/vda", O_RDONLY, 0);
	if (IS_ERR(f))
		kunit_skip(test, "no /dev/vda (%ld): not the swap machine", PTR_ERR(f));
	char magic[10];
	long long pos = PAGE_SIZE - sizeof(magic);
	long n = kernel_read(f, magic, sizeof(magic), &pos);
	filp_close(f);
	if (n != (long)sizeof(magic) || memcmp(magic, "SWAPSPACE2", sizeof(magic)))
		kunit_skip(test, "/dev/vda has no swap header: not the swap machine");
}

/* The swap area on for the rest of the case (off before the mm's and
 * the file's cleanup: the actions run in reverse), or a skip. */
static void swap_on(struct kunit *test)
{
	if (total_swap_pages)
		kunit_skip(test, "a swap area is on already");
	int err = ksys_swapon("/dev/vda", 0);
	if (err)
		kunit_skip(test, "no swap area on /dev/vda (%ld): not the swap machine", (long)err);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, swapoff_action, NULL), 0);
}

/* Pages of [BASE, BASE + n pages) of mm whose PTE is none. */
static unsigned long none_ptes(struct mm_struct *mm, unsigned long n)
{
	unsigned long none = 0;
	mmap_read_lock(mm);
	for (unsigned long i = 0; i < n; i++)
		none += pte_none(test_mm_pte(mm, BASE + i * PAGE_SIZE));
	mmap_read_unlock(mm);
	return none;
}

/* Words of page i of the file, read with read(2), that are not the
 * pattern (test_file_word). */
static unsigned long bad_file_words(struct file *f, unsigned long i)
{
	static u64 buf[PAGE_SIZE / 8];
	long long pos = (long long)(i * PAGE_SIZE);
	if (kernel_read(f, buf, PAGE_SIZE, &pos) != (long)PAGE_SIZE)
		return PAGE_SIZE / 8;
	unsigned long bad = 0;
	for (unsigned long w = 0; w < PAGE_SIZE / 8; w++)
		bad += buf[w] != test_file_word(i, w);
	return bad;
}

static void shmem_file_out_and_back(struct kunit *test)
{
	swap_disk_or_skip(test);
	struct mm_struct *mm;
	struct file *f = test_file_mapped(test, PATH, &mm, BASE, NPAGES, MAP_SHARED);
	struct inode *inode = f->f_inode;
	swap_on(test);
	for (unsigned long i = 0; i < NPAGES; i++) /* mapped, each page */
		KUNIT_ASSERT_EQ(test, test_mm_read_u64(mm, BASE + i * PAGE_SIZE), test_file_word(i, 0));
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), NPAGES);
	unsigned long shmem0 = nr_shmem_pages(), slots0 = (unsigned long)nr_swap_pages, blocks0 = inode->i_blocks;
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, NPAGES * PAGE_SIZE, MADV_PAGEOUT), 0);
	KUNIT_EXPECT_EQ(test, inode->i_swapped, NPAGES);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 0ul);
	KUNIT_EXPECT_EQ(test, shmem0 - nr_shmem_pages(), NPAGES);
	KUNIT_EXPECT_EQ(test, slots0 - (unsigned long)nr_swap_pages, NPAGES);
	KUNIT_EXPECT_EQ(test, inode->i_blocks, blocks0); /* still the file's */
	KUNIT_EXPECT_EQ(test, none_ptes(mm, NPAGES), NPAGES);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_NULL(test, test_cache_page(f->f_mapping, 3));
	KUNIT_EXPECT_EQ(test, shmem_swap_usage(f->f_mapping, 0, ~0ul), NPAGES * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, shmem_swap_usage(f->f_mapping, 2, 5), 4 * PAGE_SIZE);

	/* Back by a fault, and by read(2). */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 3 * PAGE_SIZE + 8), test_file_word(3, 1));
	KUNIT_EXPECT_EQ(test, inode->i_swapped, NPAGES - 1);
	KUNIT_EXPECT_EQ(test, bad_file_words(f, 5), 0ul);
	KUNIT_EXPECT_EQ(test, inode->i_swapped, NPAGES - 2);
	KUNIT_EXPECT_EQ(test, shmem0 - nr_shmem_pages(), NPAGES - 2);
	KUNIT_EXPECT_EQ(test, slots0 - (unsigned long)nr_swap_pages, NPAGES - 2);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);

	/* A truncate to 10 pages: the slots of 10..15 go with them, and
	 * i_blocks; 0..9 but 3 and 5 are still out. */
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 10 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, inode->i_swapped, 8ul);
	KUNIT_EXPECT_EQ(test, slots0 - (unsigned long)nr_swap_pages, 8ul);
	KUNIT_EXPECT_EQ(test, inode->i_blocks, blocks0 - 6 * (PAGE_SIZE / 512));

	/* swapoff: the rest back in the page cache, every word right. */
	KUNIT_EXPECT_EQ(test, ksys_swapoff("/dev/vda"), 0);
	KUNIT_EXPECT_EQ(test, inode->i_swapped, 0ul);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 10ul);
	KUNIT_EXPECT_EQ(test, shmem0 - nr_shmem_pages(), 6ul);
	unsigned long bad = 0;
	for (unsigned long i = 0; i < 10; i++)
		bad += bad_file_words(f, i);
	KUNIT_EXPECT_EQ(test, bad, 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0); /* its pages back before the leak check */
}

static void shared_anon_out_and_back(struct kunit *test)
{
	swap_disk_or_skip(test);
	const struct pte_reclaim_mode_param *m = test->param_value;
	if (m)
		KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, m->mode), 0);
	struct mm_struct *mm = test_mm_create(test, 0);
	swap_on(test);
	KUNIT_ASSERT_EQ(test, do_mmap(mm, BASE, NPAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED),
			BASE);
	struct shmem_object *obj = find_vma(mm, BASE)->vm_shm;
	KUNIT_ASSERT_NOT_NULL(test, obj);
	struct inode *inode = obj->mapping->host;
	for (unsigned long i = 0; i < NPAGES; i++)
		for (unsigned long w = 0; w < PAGE_SIZE / 8; w += 7)
			KUNIT_ASSERT_EQ(test, test_mm_write_u64(mm, BASE + i * PAGE_SIZE + w * 8, test_file_word(i, w)),
					0);
	for (int round = 0; round < 2; round++) {
		KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, NPAGES * PAGE_SIZE, MADV_PAGEOUT), 0);
		KUNIT_EXPECT_EQ(test, inode->i_swapped, NPAGES);
		KUNIT_EXPECT_EQ(test, none_ptes(mm, NPAGES), NPAGES);
		KUNIT_EXPECT_EQ(test, shmem_swap_usage(obj->mapping, 0, ~0ul), NPAGES * PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
		if (round) /* the second time back by swapoff, unmapped */
			KUNIT_EXPECT_EQ(test, ksys_swapoff("/dev/vda"), 0);
		unsigned long bad = 0;
		for (unsigned long i = 0; i < NPAGES; i++)
			for (unsigned long w = 0; w < PAGE_SIZE / 8; w++)
				bad += test_mm_read_u64(mm, BASE + i * PAGE_SIZE + w * 8) !=
				       (w % 7 ? 0 : test_file_word(i, w));
		KUNIT_EXPECT_EQ(test, bad, 0ul);
		KUNIT_EXPECT_EQ(test, inode->i_swapped, 0ul);
		KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), NPAGES);
		KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	}
}

/* Reclaim's own path: a tmpfs page nobody maps, made old, is on the anon
 * inactive list (swap-backed); a scan of the whole list writes it out. */
static void reclaim_takes_unmapped_tmpfs_page(struct kunit *test)
{
	swap_disk_or_skip(test);
	struct file *f = test_file_make(test, PATH);
	struct mm_struct *mm = test_mm_create(test, 0); /* the leak check's snapshot */
	(void)mm;
	test_file_fill(test, f, 4);
	swap_on(test);
	struct page *page = test_cache_page(f->f_mapping, 2);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_TRUE(test, page_test_flag(page, PG_swapbacked));
	KUNIT_EXPECT_FALSE(test, folio_is_file_lru(page)); /* Linux's: on the anon lists */
	unsigned long out0 = all_vm_events(PSWPOUT);
	struct lruvec *lruvec = folio_lruvec(page);
	struct scan_control sc = { .nr_to_reclaim = ~0ul, .gfp_mask = GFP_KERNEL, .priority = 0, .may_swap = true };
	unsigned int noreclaim = memalloc_noreclaim_save();
	/* Twice: a page may need a second look (PG_referenced from its write). */
	for (int i = 0; i < 2 && f->f_mapping->nrpages; i++) {
		shrink_inactive_list(READ_ONCE(lruvec->nr_pages[LRU_ACTIVE_ANON]), lruvec, &sc, LRU_ACTIVE_ANON);
		shrink_inactive_list(READ_ONCE(lruvec->nr_pages[LRU_INACTIVE_ANON]), lruvec, &sc, LRU_INACTIVE_ANON);
	}
	memalloc_noreclaim_restore(noreclaim);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_swapped, 4ul);
	KUNIT_EXPECT_GE(test, all_vm_events(PSWPOUT) - out0, 4ul);
	unsigned long bad = 0;
	for (unsigned long i = 0; i < 4; i++)
		bad += bad_file_words(f, i);
	KUNIT_EXPECT_EQ(test, bad, 0ul);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_swapped, 0ul);
	/* Out again, and truncated while out: the slots go with the file's
	 * pages. */
	noreclaim = memalloc_noreclaim_save();
	for (int i = 0; i < 2 && f->f_mapping->nrpages; i++) {
		shrink_inactive_list(READ_ONCE(lruvec->nr_pages[LRU_ACTIVE_ANON]), lruvec, &sc, LRU_ACTIVE_ANON);
		shrink_inactive_list(READ_ONCE(lruvec->nr_pages[LRU_INACTIVE_ANON]), lruvec, &sc, LRU_INACTIVE_ANON);
	}
	memalloc_noreclaim_restore(noreclaim);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_swapped, 4ul);
	unsigned long slots0 = (unsigned long)nr_swap_pages; /* the scans took others' too */
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_swapped, 0ul);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_blocks, 0ul);
	KUNIT_EXPECT_EQ(test, (unsigned long)nr_swap_pages, slots0 + 4);
}

/* Reclaim's scan meets a tmpfs huge page: split first (Linux's
 * shrink_folio_list "Split shmem folio": thp_split_page), its 512 pages
 * to swap in the same pass; every word read back. */
static void reclaim_splits_tmpfs_huge_page(struct kunit *test)
{
	swap_disk_or_skip(test);
	struct file *f = test_tmpfs_file(test, "/tmp/swap_shmem_huge", "huge=always");
	struct mm_struct *mm = test_mm_create(test, 0); /* the leak check's snapshot */
	(void)mm;
	test_file_fill(test, f, HPAGE_PMD_NR);
	struct page *page = test_cache_page(f->f_mapping, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	if (!page_test_flag(page, PG_shmem_thp)) {
		KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
		kunit_skip(test, "no huge page for the file (no free 2 MiB block)");
	}
	swap_on(test);
	unsigned long split0 = all_vm_events(THP_SPLIT_PAGE), huge0 = nr_shmem_thps();
	struct lruvec *lruvec = folio_lruvec(page);
	struct scan_control sc = { .nr_to_reclaim = ~0ul, .gfp_mask = GFP_KERNEL, .priority = 0, .may_swap = true };
	unsigned int noreclaim = memalloc_noreclaim_save();
	for (int i = 0; i < 3 && f->f_mapping->nrpages; i++) {
		shrink_inactive_list(READ_ONCE(lruvec->nr_pages[LRU_ACTIVE_ANON]), lruvec, &sc, LRU_ACTIVE_ANON);
		shrink_inactive_list(READ_ONCE(lruvec->nr_pages[LRU_INACTIVE_ANON]), lruvec, &sc, LRU_INACTIVE_ANON);
	}
	memalloc_noreclaim_restore(noreclaim);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SPLIT_PAGE) - split0, 1ul);
	KUNIT_EXPECT_EQ(test, huge0 - nr_shmem_thps(), 1ul);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_swapped, HPAGE_PMD_NR);
	unsigned long bad = 0;
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++)
		bad += bad_file_words(f, i);
	KUNIT_EXPECT_EQ(test, bad, 0ul);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_swapped, 0ul);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
}

static struct kunit_case swap_shmem_cases[] = {
	KUNIT_CASE_PARAM(shmem_file_out_and_back, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(shared_anon_out_and_back, pte_reclaim_modes_gen_params),
	KUNIT_CASE(reclaim_takes_unmapped_tmpfs_page),
	KUNIT_CASE(reclaim_splits_tmpfs_huge_page),
	{}
};

static struct kunit_suite swap_shmem_suite = {
	.name = "swap_shmem",
	.test_cases = swap_shmem_cases,
};
kunit_test_suite(swap_shmem_suite);
