/* The swap area and its entries (mm/swapfile.c, mm/swapops.h,
 * arch/x86_64/pgtable.h), on the swap machine (tests/topologies/swap.topo:
 * /dev/vda made a swap area by mkswap):
 *   - swap PTEs in Linux's x86_64 layout, told apart from migration and
 *     present entries (no disk needed);
 *   - swapon of the disk: total_swap_pages the header's last_page, the
 *     slot counts (SWAP_HAS_CACHE, swap_duplicate up to SWAP_MAP_MAX and
 *     on through two count continuation pages, and back, every count
 *     read by swp_swapcount; swapcache_prepare's -EEXIST, a free slot's
 *     -ENOENT), nr_swap_pages back when every slot is free, the
 *     continuation pages back at swapoff;
 *   - swapoff refused (-EBUSY) while a slot is held by no process and no
 *     page (what try_to_unuse cannot bring back), the area left on with
 *     its slots; then off once freed; free pages and slab objects back;
 *   - in each pte_reclaim mode, an mm's pages out with MADV_PAGEOUT, in
 *     by faults, out again and in by swapoff: the PTEs swap entries and
 *     back, MM_SWAPENTS, the data, and pte_ref_verify after each step
 *     (a swap entry is a non-none entry: its table's count never moves).
 *   - fork 100 times of an mm whose pages are out: the slots count past
 *     SWAP_MAP_MAX in continuation pages, every child reads the data.
 * The user programs swap_* check swap-out, swap-in, fork and swapoff
 * with pages out, on mmlab and Linux 6.1. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/pte_ref.h"
#include "kernel/unistd.h"
#include "block/blkdev.h"
#include "fs/init.h"
#include "lib/err.h"
#include "mm/migrate.h"
#include "mm/mmu_context.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/swap_state.h"
#include "mm/swapops.h"
#include "mm/vmalloc.h"
#include "mm/vmscan.h"

static void swap_entry_encoding(struct kunit *test)
{
	static const unsigned long types[] = { 0, 1, MAX_SWAPFILES - 1 };
	static const unsigned long offsets[] = { 1, 12345, (1ul << 50) - 2 };
	for (unsigned i = 0; i < 3; i++)
		for (unsigned j = 0; j < 3; j++) {
			/* (1 << 50) - 2 is the largest offset an area can have
			 * (mm/swapfile.c's read_swap_header). */
			swp_entry_t e = swp_entry(types[i], offsets[j]);
			pte_t pte = swp_entry_to_pte(e);
			KUNIT_EXPECT_TRUE(test, is_swap_pte(pte));
			KUNIT_EXPECT_FALSE(test, pte_present(pte));
			KUNIT_EXPECT_FALSE(test, is_migration_entry(pte));
			/* Present, PSE (bit 7) and PROT_NONE (bit 8) clear. */
			KUNIT_EXPECT_EQ(test, pte_val(pte) & (_PAGE_PRESENT | _PAGE_PSE | _PAGE_PROTNONE), 0);
			KUNIT_EXPECT_EQ(test, pte_to_swp_entry(pte).val, e.val);
			KUNIT_EXPECT_EQ(test, swp_type(e), types[i]);
			KUNIT_EXPECT_EQ(test, swp_offset(e), offsets[j]);
		}
	/* Linux's layout, bit by bit: type 1, offset 1 is the type in bit 59
	 * and the inverted offset in bits 9-58 (bit 9 clear, 10-58 set). */
	u64 want = (1ull << 59) | (((1ull << 59) - 1) & ~((1ull << 10) - 1));
	KUNIT_EXPECT_EQ(test, pte_val(swp_entry_to_pte(swp_entry(1, 1))), want);
	/* A migration entry of a present user PTE is not a swap entry. */
	pte_t present = pfn_pte(0x1234, _PAGE_PRESENT | _PAGE_RW | _PAGE_USER | _PAGE_ACCESSED | _PAGE_DIRTY);
	pte_t mig = make_migration_entry(present);
	KUNIT_EXPECT_TRUE(test, is_migration_entry(mig));
	KUNIT_EXPECT_FALSE(test, is_swap_pte(mig));
	KUNIT_EXPECT_FALSE(test, is_swap_pte(present));
	KUNIT_EXPECT_EQ(test, pte_val(migration_entry_to_pte(mig, 0x1234)), pte_val(present));
}

/* The disk's header's last_page, or a skip. */
static unsigned long swap_disk_last_page(struct kunit *test)
{
	struct file *f = filp_open("/dev/vda", O_RDONLY, 0);
	if (IS_ERR(f))
		kunit_skip(test, "no /dev/vda (%ld): not the swap machine", PTR_ERR(f));
	union swap_header *h = kmalloc(sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	long long pos = 0;
	long n = kernel_read(f, h, sizeof(*h), &pos);
	filp_close(f);
	unsigned long last = h->info.last_page;
	bool swap = n == (long)sizeof(*h) && !memcmp(h->magic.magic, "SWAPSPACE2", 10) && h->info.version == 1;
	kfree(h);
	if (!swap)
		kunit_skip(test, "/dev/vda has no swap header: not the swap machine");
	if (total_swap_pages)
		kunit_skip(test, "a swap area is on already");
	return last;
}

static void slot_counts(struct kunit *test)
{
	unsigned long last = swap_disk_last_page(test);
	/* A first swapon may grow the kernel's page tables for its vmalloc
	 * ranges (the swap map, the cache's array), which are never freed:
	 * one round before counting, so what is counted is a round's. */
	KUNIT_ASSERT_EQ(test, ksys_swapon("/dev/vda", 0), 0);
	KUNIT_ASSERT_EQ(test, ksys_swapoff("/dev/vda"), 0);
	vm_unmap_aliases(); /* the swap map's and cache's vmalloc ranges wait on the lazy purge list */
	unsigned long free0 = nr_free_pages(), objs0 = slab_objects_in_use();
	KUNIT_ASSERT_EQ(test, ksys_swapon("/dev/vda", SWAP_FLAG_PREFER | 3), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)total_swap_pages, last);
	KUNIT_EXPECT_EQ(test, (unsigned long)nr_swap_pages, last);
	KUNIT_EXPECT_EQ(test, ksys_swapon("/dev/vda", 0), -EBUSY);
	swp_entry_t e = get_swap_page();
	KUNIT_EXPECT_NE(test, e.val, 0);
	KUNIT_EXPECT_TRUE(test, swp_offset(e) >= 1 && swp_offset(e) <= last);
	KUNIT_EXPECT_EQ(test, swap_count_of(e), SWAP_HAS_CACHE);
	KUNIT_EXPECT_EQ(test, (unsigned long)nr_swap_pages, last - 1);
	KUNIT_EXPECT_EQ(test, swapcache_prepare(e), -EEXIST);
	KUNIT_EXPECT_EQ(test, swap_duplicate(e), 0);
	KUNIT_EXPECT_EQ(test, swap_count_of(e), SWAP_HAS_CACHE | 1);
	put_swap_folio(e);
	KUNIT_EXPECT_EQ(test, swap_count_of(e), 1);
	KUNIT_EXPECT_EQ(test, swapcache_prepare(e), 0);
	put_swap_folio(e);
	for (int i = 1; i < SWAP_MAP_MAX; i++)
		KUNIT_EXPECT_EQ(test, swap_duplicate(e), 0);
	KUNIT_EXPECT_EQ(test, swap_count_of(e), SWAP_MAP_MAX);
	KUNIT_EXPECT_EQ(test, swp_swapcount(e), (unsigned long)SWAP_MAP_MAX);
	/* Past SWAP_MAP_MAX: count continuations (mm/swapfile_cont.c). The
	 * first page holds digits up to SWAP_CONT_MAX in units of
	 * SWAP_MAP_MAX + 1, so a count past 62 + 127 * 63 needs a second. */
	struct swap_info_struct *si = swap_info[swp_type(e)];
	const unsigned long one_page = SWAP_MAP_MAX + (unsigned long)SWAP_CONT_MAX * (SWAP_MAP_MAX + 1);
	const unsigned long many = one_page + 1000;
	bool ok = true;
	for (unsigned long n = SWAP_MAP_MAX; n < many && ok; n++) {
		ok = swap_duplicate(e) == 0 && swp_swapcount(e) == n + 1;
		if (n + 1 == SWAP_MAP_MAX + 1) {
			KUNIT_EXPECT_EQ(test, swap_count_of(e), COUNT_CONTINUED);
			KUNIT_EXPECT_EQ(test, si->cont_pages, 1ul);
		}
		if (n + 1 == one_page)
			KUNIT_EXPECT_EQ(test, si->cont_pages, 1ul);
	}
	KUNIT_EXPECT_TRUE(test, ok);
	KUNIT_EXPECT_EQ(test, swp_swapcount(e), many);
	KUNIT_EXPECT_EQ(test, si->cont_pages, 2ul);
	/* Down again, one by one: every count on the way read back. */
	for (unsigned long n = many; n > SWAP_MAP_MAX && ok; n--) {
		swap_free(e);
		ok = swp_swapcount(e) == n - 1;
	}
	KUNIT_EXPECT_TRUE(test, ok);
	KUNIT_EXPECT_EQ(test, swap_count_of(e), SWAP_MAP_MAX);
	for (int i = 0; i < SWAP_MAP_MAX; i++)
		swap_free(e);
	KUNIT_EXPECT_EQ(test, swap_count_of(e), 0);
	KUNIT_EXPECT_EQ(test, si->cont_pages, 2ul); /* kept until swapoff, as Linux's */
	KUNIT_EXPECT_EQ(test, swap_duplicate(e), -ENOENT);
	KUNIT_EXPECT_EQ(test, (unsigned long)nr_swap_pages, last);
	KUNIT_EXPECT_EQ(test, swap_duplicate(swp_entry(MAX_SWAPFILES - 1, 1)), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksys_swapoff("/dev/vda"), 0);
	KUNIT_EXPECT_EQ(test, total_swap_pages, 0);
	KUNIT_EXPECT_EQ(test, nr_swap_pages, 0);
	vm_unmap_aliases();
	KUNIT_EXPECT_EQ(test, slab_objects_in_use(), objs0);
	KUNIT_EXPECT_EQ(test, nr_free_pages(), free0);
}

static void swapoff_refused_while_held(struct kunit *test)
{
	unsigned long last = swap_disk_last_page(test);
	vm_unmap_aliases(); /* the swap map's and cache's vmalloc ranges wait on the lazy purge list */
	unsigned long free0 = nr_free_pages(), objs0 = slab_objects_in_use();
	KUNIT_ASSERT_EQ(test, ksys_swapon("/dev/vda", 0), 0);
	swp_entry_t e = get_swap_page();
	KUNIT_ASSERT_NE(test, e.val, 0);
	KUNIT_EXPECT_EQ(test, swap_duplicate(e), 0);
	/* No mm names it and no page holds its cache flag: try_to_unuse
	 * cannot give it back. The area goes back on, as it was. */
	KUNIT_EXPECT_EQ(test, ksys_swapoff("/dev/vda"), -EBUSY);
	KUNIT_EXPECT_EQ(test, (unsigned long)total_swap_pages, last);
	KUNIT_EXPECT_EQ(test, (unsigned long)nr_swap_pages, last - 1);
	KUNIT_EXPECT_EQ(test, swap_count_of(e), SWAP_HAS_CACHE | 1);
	swap_free(e);
	put_swap_folio(e);
	KUNIT_EXPECT_EQ(test, ksys_swapoff("/dev/vda"), 0);
	KUNIT_EXPECT_EQ(test, total_swap_pages, 0);
	vm_unmap_aliases();
	KUNIT_EXPECT_EQ(test, slab_objects_in_use(), objs0);
	KUNIT_EXPECT_EQ(test, nr_free_pages(), free0);
}

#define BASE 0x40000000ul
#define NPAGES 16

static unsigned long swap_entries_at(struct mm_struct *mm)
{
	unsigned long n = 0;
	mmap_read_lock(mm);
	for (unsigned long i = 0; i < NPAGES; i++)
		n += is_swap_pte(test_mm_pte(mm, BASE + i * PAGE_SIZE));
	mmap_read_unlock(mm);
	return n;
}

static void all_data_back(struct kunit *test, struct mm_struct *mm)
{
	for (unsigned long i = 0; i < NPAGES; i++)
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + i * PAGE_SIZE), 0x5a5a0000ull + i);
}

/* However the case ends, the area goes off (before the mm's cleanup and
 * its leak check: the actions run in reverse). */
static void swapoff_action(void *ctx)
{
	(void)ctx;
	if (total_swap_pages)
		ksys_swapoff("/dev/vda");
}

/* The case's mm (a leak snapshot taken before swapon: the area's own
 * allocations, made by swapon and given back by swapoff, are not the
 * mm's), the disk's area on until the case ends, NPAGES pages written at
 * BASE and pushed out with MADV_PAGEOUT. */
static struct mm_struct *mm_paged_out(struct kunit *test)
{
	swap_disk_last_page(test);
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	KUNIT_ASSERT_EQ(test, ksys_swapon("/dev/vda", 0), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, swapoff_action, NULL), 0);
	test_mm_map_anon(test, mm, BASE, NPAGES * PAGE_SIZE);
	for (unsigned long i = 0; i < NPAGES; i++)
		KUNIT_ASSERT_EQ(test, test_mm_write_u64(mm, BASE + i * PAGE_SIZE, 0x5a5a0000ull + i), 0);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, NPAGES * PAGE_SIZE, MADV_PAGEOUT), 0);
	return mm;
}

static void pageout_swapin_swapoff_keep_table_counts(struct kunit *test)
{
	const struct pte_reclaim_mode_param *m = test->param_value;
	KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, m->mode), 0);
	struct mm_struct *mm = mm_paged_out(test);
	KUNIT_EXPECT_EQ(test, swap_entries_at(mm), (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SWAPENTS), (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	all_data_back(test, mm); /* swap-in by faults */
	KUNIT_EXPECT_EQ(test, swap_entries_at(mm), 0ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SWAPENTS), 0ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE, NPAGES * PAGE_SIZE, MADV_PAGEOUT), 0);
	KUNIT_EXPECT_EQ(test, swap_entries_at(mm), (unsigned long)NPAGES);
	KUNIT_EXPECT_EQ(test, ksys_swapoff("/dev/vda"), 0); /* swap-in by try_to_unuse */
	KUNIT_EXPECT_EQ(test, swap_entries_at(mm), 0ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SWAPENTS), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, total_swap_pages, 0);
	all_data_back(test, mm);
	test_mm_destroy(test, mm);
}

/* fork of an mm whose pages are out, 100 times: each child's entries
 * are references more to the same slots, past SWAP_MAP_MAX into count
 * continuations (Linux's copy_pte_range and add_swap_count_continuation;
 * before them mmlab's fork failed with -ENOMEM at the 62nd child). Every
 * child holds the entries and reads the data back; when the children go
 * the counts come back down to the parent's one. */
#define FORKS 100
static void fork_past_swap_map_max(struct kunit *test)
{
	struct mm_struct *mm = mm_paged_out(test);
	KUNIT_ASSERT_EQ(test, swap_entries_at(mm), (unsigned long)NPAGES);
	swp_entry_t e = pte_to_swp_entry(test_mm_pte(mm, BASE));
	struct mm_struct **children = kcalloc(FORKS, sizeof(*children), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, children);
	int made = 0;
	while (made < FORKS && dup_mm(mm, &children[made]) == 0)
		made++;
	KUNIT_EXPECT_EQ(test, made, FORKS);
	KUNIT_EXPECT_EQ(test, swp_swapcount(e), (unsigned long)made + 1);
	KUNIT_EXPECT_EQ(test, swap_count_of(e) & COUNT_CONTINUED, made + 1 > SWAP_MAP_MAX ? COUNT_CONTINUED : 0);
	for (int c = 0; c < made; c++) {
		KUNIT_EXPECT_EQ(test, get_mm_counter(children[c], MM_SWAPENTS), (unsigned long)NPAGES);
		KUNIT_EXPECT_EQ(test, pte_ref_verify(children[c]), 0ul);
	}
	/* The last child and one past SWAP_MAP_MAX read every page back. */
	all_data_back(test, children[made - 1]);
	all_data_back(test, children[SWAP_MAP_MAX]);
	KUNIT_EXPECT_EQ(test, swp_swapcount(e), (unsigned long)made - 1);
	for (int c = 0; c < made; c++)
		mmput(children[c]);
	kfree(children);
	KUNIT_EXPECT_EQ(test, swp_swapcount(e), 1ul);
	KUNIT_EXPECT_EQ(test, swap_entries_at(mm), (unsigned long)NPAGES);
	all_data_back(test, mm);
	KUNIT_EXPECT_EQ(test, swap_entries_at(mm), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
}

static struct kunit_case swap_cases[] = {
	KUNIT_CASE(swap_entry_encoding),
	KUNIT_CASE(slot_counts),
	KUNIT_CASE(swapoff_refused_while_held),
	KUNIT_CASE_PARAM(pageout_swapin_swapoff_keep_table_counts, pte_reclaim_modes_gen_params),
	KUNIT_CASE(fork_past_swap_map_max),
	{}
};

static struct kunit_suite swap_suite = {
	.name = "swap",
	.test_cases = swap_cases,
};
kunit_test_suite(swap_suite);
