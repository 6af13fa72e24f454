/* Swap-in readahead and workingset shadows (mm/swap_readahead.c,
 * mm/workingset.c), on the swap machine (tests/topologies/swap.topo):
 *   - the window arithmetic (__swapin_nr_pages): one page for a fault
 *     that follows no other, two for an adjacent one, rounded up to a
 *     power of two from the hits, capped at the largest window, and
 *     shrinking to no less than half the last window (no disk needed);
 *   - cluster readahead (the disk rotational, as virtio's is): after two
 *     adjacent faults, the slots read ahead hold swap-cache pages that
 *     are PG_readahead, clean, on the LRU, mapped by no one, their PTEs
 *     still swap entries, as many as swap_ra counted less the hits;
 *     pswpin the faults' reads and swap_ra; a fault on one is
 *     a hit (swap_ra_hit) and clears PG_readahead; the pages never used
 *     go with the mapping (the swap cache empty again, every slot free,
 *     free pages back: test_mm's leak check);
 *   - page-cluster 0: one page per fault, swap_ra still; the pages read
 *     stay in the swap cache mapped read-only, a write takes one out and
 *     makes it writable, and MADV_PAGEOUT then writes that one alone;
 *   - VMA readahead (the disk said non-rotational before swapon): a read
 *     in address order reads every page once (pswpin), the pages read
 *     ahead all used (swap_ra_hit == swap_ra);
 *   - workingset: MADV_PAGEOUT leaves a shadow in each slot (its node,
 *     its age, distinct per page, its PG_workingset); the refault counts
 *     workingset_refault_anon and, within the node's workingset, comes
 *     back active (workingset_activate_anon) and a workingset page
 *     restored (workingset_restore_anon); a freed slot keeps no shadow. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "block/blkdev.h"
#include "fs/init.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/mm_inline.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/slab.h"
#include "mm/swap.h"
#include "mm/swap_readahead.h"
#include "mm/swap_state.h"
#include "mm/swapops.h"
#include "mm/vmscan.h"
#include "mm/vmstat.h"
#include "mm/workingset.h"

#define BASE 0x40000000ul
#define ACTIVE_BASE 0x50000000ul
#define NPAGES 32

static void window_arithmetic(struct kunit *test)
{
	/* No hits: one page, unless the fault is next to the last one. */
	KUNIT_EXPECT_EQ(test, __swapin_nr_pages(10, 20, 0, 8, 0), 1u);
	KUNIT_EXPECT_EQ(test, __swapin_nr_pages(10, 11, 0, 8, 0), 2u);
	KUNIT_EXPECT_EQ(test, __swapin_nr_pages(10, 9, 0, 8, 0), 2u);
	/* Hits + 2, rounded up to a power of two from 4, capped. */
	KUNIT_EXPECT_EQ(test, __swapin_nr_pages(10, 20, 1, 8, 0), 4u);
	KUNIT_EXPECT_EQ(test, __swapin_nr_pages(10, 20, 2, 8, 0), 4u);
	KUNIT_EXPECT_EQ(test, __swapin_nr_pages(10, 20, 3, 8, 0), 8u);
	KUNIT_EXPECT_EQ(test, __swapin_nr_pages(10, 20, 6, 8, 0), 8u);
	KUNIT_EXPECT_EQ(test, __swapin_nr_pages(10, 20, 7, 8, 0), 8u);
	KUNIT_EXPECT_EQ(test, __swapin_nr_pages(10, 20, 7, 32, 0), 16u);
	KUNIT_EXPECT_EQ(test, __swapin_nr_pages(10, 11, 5, 1, 0), 1u);
	/* Shrinking: no less than half the last window. */
	KUNIT_EXPECT_EQ(test, __swapin_nr_pages(10, 20, 0, 8, 8), 4u);
	KUNIT_EXPECT_EQ(test, __swapin_nr_pages(10, 20, 0, 8, 4), 2u);
	KUNIT_EXPECT_EQ(test, __swapin_nr_pages(10, 20, 0, 8, 2), 1u);
	KUNIT_EXPECT_EQ(test, __swapin_nr_pages(10, 20, 1, 8, 16), 8u);
}

/* The settings a case changes, put back however it ends. */
struct ra_saved {
	int page_cluster;
	bool vma_ra;
	bool nonrot;
	struct block_device *bdev;
};
static struct ra_saved saved;

static void restore_settings(void *ctx)
{
	(void)ctx;
	WRITE_ONCE(page_cluster, saved.page_cluster);
	WRITE_ONCE(enable_vma_readahead, saved.vma_ra);
	if (saved.bdev)
		saved.bdev->bd_disk->queue.nonrot = saved.nonrot;
}

static void swapoff_action(void *ctx)
{
	(void)ctx;
	if (total_swap_pages)
		ksys_swapoff("/dev/vda");
}

/* The swap disk's block device (the case is skipped elsewhere), its
 * settings saved for restore_settings. */
static struct block_device *swap_bdev_or_skip(struct kunit *test)
{
	struct file *f = filp_open("/dev/vda", O_RDONLY, 0);
	if (IS_ERR(f))
		kunit_skip(test, "no /dev/vda (%ld): not the swap machine", PTR_ERR(f));
	struct block_device *bdev = S_ISBLK(f->f_inode->i_mode) ? f->private_data : NULL;
	union swap_header *h = kmalloc(sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	long long pos = 0;
	long n = kernel_read(f, h, sizeof(*h), &pos);
	filp_close(f);
	bool swap = n == (long)sizeof(*h) && !memcmp(h->magic.magic, "SWAPSPACE2", 10);
	kfree(h);
	if (!swap || !bdev)
		kunit_skip(test, "/dev/vda has no swap header: not the swap machine");
	if (total_swap_pages)
		kunit_skip(test, "a swap area is on already");
	saved = (struct ra_saved){ READ_ONCE(page_cluster), READ_ONCE(enable_vma_readahead), bdev->bd_disk->queue.nonrot,
				   bdev };
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, restore_settings, NULL), 0);
	return bdev;
}

static u64 value_of(unsigned long i) { return 0x7a7a0000ull + i; }

/* An mm with NPAGES pages written and pushed out (the area on, nonrot as
 * asked before swapon), its VMA in *vmap. */
static struct mm_struct *paged_out_mm(struct kunit *test, bool nonrot, struct vm_area_struct **vmap)
{
	struct block_device *bdev = swap_bdev_or_skip(test);
	bdev->bd_disk->queue.nonrot = nonrot;
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	KUNIT_ASSERT_EQ(test, ksys_swapon("/dev/vda", 0), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, swapoff_action, NULL), 0);
	struct vm_area_struct *vma = test_mm_map_anon(test, mm, BASE, NPAGES * PAGE_SIZE);
	if (vmap)
		*vmap = vma;
	for (unsigned long i = 0; i < NPAGES; i++)
		KUNIT_ASSERT_EQ(test, test_mm_write_u64(mm, BASE + i * PAGE_SIZE, value_of(i)), 0);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, BASE, NPAGES * PAGE_SIZE, MADV_PAGEOUT), 0);
	for (unsigned long i = 0; i < NPAGES; i++)
		KUNIT_ASSERT_TRUE(test, is_swap_pte(test_mm_pte(mm, BASE + i * PAGE_SIZE)));
	return mm;
}

static swp_entry_t entry_at(struct mm_struct *mm, unsigned long i)
{
	return pte_to_swp_entry(test_mm_pte(mm, BASE + i * PAGE_SIZE));
}

/* Pages i in [from, NPAGES) still swapped out whose slot has a page in
 * the swap cache; each checked as a page read ahead and unused. */
static unsigned long readahead_pages_in_cache(struct kunit *test, struct mm_struct *mm, unsigned long from)
{
	unsigned long n = 0;
	for (unsigned long i = from; i < NPAGES; i++) {
		pte_t pte = test_mm_pte(mm, BASE + i * PAGE_SIZE);
		if (!is_swap_pte(pte))
			continue;
		struct page *page = lookup_swap_cache(pte_to_swp_entry(pte));
		if (!page)
			continue;
		n++;
		KUNIT_EXPECT_TRUE(test, PageSwapCache(page));
		KUNIT_EXPECT_TRUE(test, page_test_flag(page, PG_readahead));
		KUNIT_EXPECT_FALSE(test, page_test_flag(page, PG_dirty));
		KUNIT_EXPECT_TRUE(test, page_test_flag(page, PG_lru));
		KUNIT_EXPECT_EQ(test, page_mapcount(page), 0);
		KUNIT_EXPECT_EQ(test, swap_count_of(pte_to_swp_entry(pte)), SWAP_HAS_CACHE | 1);
		put_page(page);
	}
	return n;
}

static void cluster_readahead_pages_in_cache_unmapped(struct kunit *test)
{
	struct mm_struct *mm = paged_out_mm(test, false, NULL);
	KUNIT_ASSERT_FALSE(test, swap_use_vma_readahead());
	WRITE_ONCE(page_cluster, 3);
	/* Cluster readahead reads the disk's neighbours: this case needs
	 * the pages in slots that follow each other (a fresh area's first
	 * fit hands them out so). */
	for (unsigned long i = 1; i < NPAGES; i++)
		KUNIT_ASSERT_EQ(test, swp_offset(entry_at(mm, i)), swp_offset(entry_at(mm, 0)) + i);
	unsigned long cached0 = total_swapcache_pages(), ra0 = all_vm_events(SWAP_RA);
	unsigned long hit0 = all_vm_events(SWAP_RA_HIT), in0 = all_vm_events(PSWPIN);
	/* Two adjacent faults: the second reads ahead if the first did not
	 * (the window's state is global: an earlier reader may have left it
	 * open). Each fault is a read or a hit; each page read ahead and not
	 * hit since waits in the cache. */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE), value_of(0));
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + PAGE_SIZE), value_of(1));
	unsigned long ra = all_vm_events(SWAP_RA) - ra0, hits = all_vm_events(SWAP_RA_HIT) - hit0;
	KUNIT_EXPECT_GE(test, ra, 1ul);
	KUNIT_EXPECT_LE(test, ra, 2 * 7ul); /* 2^page-cluster less the faulting page, twice */
	KUNIT_EXPECT_LE(test, hits, 1ul);   /* the second fault's, at most */
	KUNIT_EXPECT_EQ(test, all_vm_events(PSWPIN) - in0, 2 - hits + ra);
	unsigned long in_cache = readahead_pages_in_cache(test, mm, 2);
	KUNIT_EXPECT_EQ(test, in_cache, ra - hits);
	/* ... and the two pages read stay there too, mapped read-only. */
	KUNIT_EXPECT_EQ(test, total_swapcache_pages() - cached0, ra - hits + 2);
	/* A fault on the first one read ahead: a hit, from the cache. */
	unsigned long j = 2;
	while (j < NPAGES && !swap_cache_present(entry_at(mm, j)))
		j++;
	KUNIT_ASSERT_LT(test, j, (unsigned long)NPAGES);
	unsigned long in1 = all_vm_events(PSWPIN), hit1 = all_vm_events(SWAP_RA_HIT);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + j * PAGE_SIZE), value_of(j));
	KUNIT_EXPECT_EQ(test, all_vm_events(SWAP_RA_HIT) - hit1, 1ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(PSWPIN), in1);
	pte_t pte = test_mm_pte(mm, BASE + j * PAGE_SIZE);
	KUNIT_ASSERT_TRUE(test, pte_present(pte));
	KUNIT_EXPECT_FALSE(test, page_test_flag(pfn_to_page(pte_pfn(pte)), PG_readahead));
	/* The rest never used: they go with the mapping. */
	KUNIT_EXPECT_EQ(test, do_munmap(mm, BASE, NPAGES * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, total_swapcache_pages(), cached0);
	KUNIT_EXPECT_EQ(test, (unsigned long)nr_swap_pages, (unsigned long)total_swap_pages);
}

static void page_cluster_zero_reads_one_page_per_fault(struct kunit *test)
{
	struct mm_struct *mm = paged_out_mm(test, false, NULL);
	WRITE_ONCE(page_cluster, 0);
	unsigned long ra0 = all_vm_events(SWAP_RA), in0 = all_vm_events(PSWPIN);
	for (unsigned long i = 0; i < NPAGES; i++) {
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + i * PAGE_SIZE), value_of(i));
		KUNIT_EXPECT_EQ(test, all_vm_events(PSWPIN) - in0, i + 1);
	}
	KUNIT_EXPECT_EQ(test, all_vm_events(SWAP_RA), ra0);
	/* Read faults leave the pages in the cache, mapped read-only
	 * (Linux's should_try_to_free_swap); a write takes one out. */
	KUNIT_EXPECT_EQ(test, total_swapcache_pages(), (unsigned long)NPAGES);
	pte_t pte = test_mm_pte(mm, BASE);
	KUNIT_EXPECT_TRUE(test, pte_present(pte) && !pte_write(pte));
	swp_entry_t e0 = page_swap_entry(pfn_to_page(pte_pfn(pte)));
	KUNIT_EXPECT_EQ(test, swap_count_of(e0), SWAP_HAS_CACHE);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, BASE, value_of(0)), 0);
	pte = test_mm_pte(mm, BASE);
	KUNIT_EXPECT_TRUE(test, pte_present(pte) && pte_write(pte));
	KUNIT_EXPECT_FALSE(test, PageSwapCache(pfn_to_page(pte_pfn(pte))));
	KUNIT_EXPECT_EQ(test, swap_count_of(e0), 0);
	KUNIT_EXPECT_EQ(test, total_swapcache_pages(), (unsigned long)NPAGES - 1);
	/* Out again: the clean ones go without a write, the written one
	 * with one. */
	unsigned long out0 = all_vm_events(PSWPOUT);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, NPAGES * PAGE_SIZE, MADV_PAGEOUT), 0);
	KUNIT_EXPECT_EQ(test, all_vm_events(PSWPOUT) - out0, 1ul);
	KUNIT_EXPECT_EQ(test, total_swapcache_pages(), 0ul);
	for (unsigned long i = 0; i < NPAGES; i++)
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + i * PAGE_SIZE), value_of(i));
}

static void vma_readahead_follows_the_faults(struct kunit *test)
{
	struct vm_area_struct *vma;
	struct mm_struct *mm = paged_out_mm(test, true, &vma);
	WRITE_ONCE(enable_vma_readahead, true);
	KUNIT_ASSERT_TRUE(test, swap_use_vma_readahead());
	WRITE_ONCE(page_cluster, 3);
	unsigned long ra0 = all_vm_events(SWAP_RA), hit0 = all_vm_events(SWAP_RA_HIT);
	unsigned long in0 = all_vm_events(PSWPIN);
	for (unsigned long i = 0; i < NPAGES; i++)
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + i * PAGE_SIZE), value_of(i));
	unsigned long ra = all_vm_events(SWAP_RA) - ra0;
	/* Every page read once, the VMA's window never past the VMA; every
	 * page read ahead used by the reads that followed. */
	KUNIT_EXPECT_EQ(test, all_vm_events(PSWPIN) - in0, (unsigned long)NPAGES);
	KUNIT_EXPECT_GE(test, ra, (unsigned long)NPAGES / 2);
	KUNIT_EXPECT_EQ(test, all_vm_events(SWAP_RA_HIT) - hit0, ra);
	unsigned long info = READ_ONCE(vma->swap_readahead_info);
	KUNIT_EXPECT_EQ(test, info & PAGE_MASK, BASE + (NPAGES - 1) * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, total_swapcache_pages(), (unsigned long)NPAGES); /* read faults keep them */
}

static void workingset_shadow_and_refault(struct kunit *test)
{
	swap_bdev_or_skip(test);
	restore_settings(NULL);
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	KUNIT_ASSERT_EQ(test, ksys_swapon("/dev/vda", 0), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, swapoff_action, NULL), 0);
	WRITE_ONCE(page_cluster, 0); /* each refault its own */
	/* Active pages, for the workingset the refault distance is held
	 * against: twice the pages going out. */
	test_mm_map_anon(test, mm, ACTIVE_BASE, 2 * NPAGES * PAGE_SIZE);
	for (unsigned long i = 0; i < 2 * NPAGES; i++) {
		KUNIT_ASSERT_EQ(test, test_mm_write_u64(mm, ACTIVE_BASE + i * PAGE_SIZE, i), 0);
		folio_activate(pfn_to_page(pte_pfn(test_mm_pte(mm, ACTIVE_BASE + i * PAGE_SIZE))));
	}
	test_mm_map_anon(test, mm, BASE, NPAGES * PAGE_SIZE);
	int nid[NPAGES];
	for (unsigned long i = 0; i < NPAGES; i++) {
		KUNIT_ASSERT_EQ(test, test_mm_write_u64(mm, BASE + i * PAGE_SIZE, value_of(i)), 0);
		struct page *page = pfn_to_page(pte_pfn(test_mm_pte(mm, BASE + i * PAGE_SIZE)));
		nid[i] = page_to_nid(page);
		/* Page 0 as reclaim's aging leaves a page it deactivated. */
		if (i == 0)
			__atomic_or_fetch(&page->flags, 1ul << PG_workingset, __ATOMIC_RELAXED);
	}
	KUNIT_ASSERT_EQ(test, do_madvise(mm, BASE, NPAGES * PAGE_SIZE, MADV_PAGEOUT), 0);
	unsigned long prev_eviction = 0;
	for (unsigned long i = 0; i < NPAGES; i++) {
		void *shadow = swap_cache_shadow(entry_at(mm, i));
		KUNIT_ASSERT_NOT_NULL(test, shadow);
		int snid;
		unsigned long eviction;
		bool ws;
		unpack_shadow(shadow, &snid, &eviction, &ws);
		KUNIT_EXPECT_EQ(test, snid, nid[i]);
		KUNIT_EXPECT_EQ(test, ws, i == 0);
		if (i && nid[i] == nid[i - 1])
			KUNIT_EXPECT_GT(test, eviction, prev_eviction); /* one age per page evicted */
		prev_eviction = eviction;
	}
	/* Page 0's refault: its distance is the pages evicted or activated on
	 * its node since, within the active pages above. */
	swp_entry_t e0 = entry_at(mm, 0);
	void *shadow0 = swap_cache_shadow(e0);
	struct lruvec *lruvec = node_lruvec(NODE_DATA(nid[0]));
	unsigned long distance = workingset_refault_distance(shadow0);
	unsigned long ws_size = READ_ONCE(lruvec->nr_pages[LRU_ACTIVE_ANON]) +
				READ_ONCE(lruvec->nr_pages[LRU_ACTIVE_FILE]) + READ_ONCE(lruvec->nr_pages[LRU_INACTIVE_FILE]);
	KUNIT_EXPECT_LE(test, distance, ws_size);
	unsigned long refault0 = all_vm_events(WORKINGSET_REFAULT_ANON);
	unsigned long activate0 = all_vm_events(WORKINGSET_ACTIVATE_ANON);
	unsigned long restore0 = all_vm_events(WORKINGSET_RESTORE_ANON);
	/* A write: the page is mapped writable, its own. */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, BASE, value_of(0)), 0);
	KUNIT_EXPECT_EQ(test, all_vm_events(WORKINGSET_REFAULT_ANON) - refault0, 1ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(WORKINGSET_ACTIVATE_ANON) - activate0, 1ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(WORKINGSET_RESTORE_ANON) - restore0, 1ul);
	struct page *page = pfn_to_page(pte_pfn(test_mm_pte(mm, BASE)));
	KUNIT_EXPECT_TRUE(test, page_test_flag(page, PG_active));
	KUNIT_EXPECT_TRUE(test, page_test_flag(page, PG_workingset));
	/* Its slot freed (the page was the mapping's alone): no shadow. */
	KUNIT_EXPECT_EQ(test, swap_count_of(e0), 0);
	KUNIT_EXPECT_NULL(test, swap_cache_shadow(e0));
	/* Page 1 was no workingset page: a refault without restore. */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + PAGE_SIZE), value_of(1));
	KUNIT_EXPECT_EQ(test, all_vm_events(WORKINGSET_REFAULT_ANON) - refault0, 2ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(WORKINGSET_RESTORE_ANON) - restore0, 1ul);
	/* The rest unmapped: their slots freed, their shadows with them. */
	swp_entry_t e2 = entry_at(mm, 2);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, BASE, NPAGES * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, swap_count_of(e2), 0);
	KUNIT_EXPECT_NULL(test, swap_cache_shadow(e2));
}

static struct kunit_case swap_readahead_cases[] = {
	KUNIT_CASE(window_arithmetic),
	KUNIT_CASE(cluster_readahead_pages_in_cache_unmapped),
	KUNIT_CASE(page_cluster_zero_reads_one_page_per_fault),
	KUNIT_CASE(vma_readahead_follows_the_faults),
	KUNIT_CASE(workingset_shadow_and_refault),
	{}
};

static struct kunit_suite swap_readahead_suite = {
	.name = "swap_readahead",
	.test_cases = swap_readahead_cases,
};
kunit_test_suite(swap_readahead_suite);
