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
 *     and splits a tmpfs huge page first (thp_split_page);
 *   - races made deterministic by shmem_swap_hook, the swap-out done by
 *     hand (isolated, shmem_swap_out): a truncate between the entry's
 *     publication and the write (the page stays in the swap cache at its
 *     slot, the write's reference held; the header never written); a
 *     swapoff pass (shmem_unuse) before the publication (the file still
 *     found by swapoff after it); a swap-in, read or found in the swap
 *     cache, keeps the page off the LRU until it has left the swap cache.
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
#include "mm/swapops.h"
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

/* The file at PATH with pages pages written (a leak-check snapshot taken
 * first), the disk's area on until the case ends; skips without the disk. */
static struct file *filled_file_swap_on(struct kunit *test, unsigned long pages)
{
	swap_disk_or_skip(test);
	struct file *f = test_file_make(test, PATH);
	test_mm_create(test, 0); /* the leak check's snapshot */
	test_file_fill(test, f, pages);
	swap_on(test);
	return f;
}

/* Reclaim's own path: a tmpfs page nobody maps, made old, is on the anon
 * inactive list (swap-backed); a scan of the whole list writes it out. */
static void reclaim_takes_unmapped_tmpfs_page(struct kunit *test)
{
	struct file *f = filled_file_swap_on(test, 4);
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

/* A hook's doings, for the case to check after (the hook runs inside
 * shmem_swap_out or shmem_swapin, where a failed assertion cannot stop
 * it). */
static struct {
	struct file *f;
	enum shmem_swap_step step; /* where the hook acts */
	int calls;
	swp_entry_t entry;
	bool in_cache_after;      /* the page still in the swap cache at entry */
	unsigned char count_after; /* entry's count after the action */
	int unuse_err;
	int isolated[SHMEM_SWAPIN_HANDED_OVER + 1]; /* isolate_lru_page's answers, 1 + errno */
	struct page *extra;        /* a reference held past the write */
} hk;

static void hook_off(void *ctx)
{
	(void)ctx;
	WRITE_ONCE(shmem_swap_hook, NULL);
}

static void hook_on(struct kunit *test, void (*fn)(enum shmem_swap_step, struct page *, swp_entry_t))
{
	WRITE_ONCE(shmem_swap_hook, fn);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, hook_off, NULL), 0);
}

/* Reclaim's steps by hand on the page at index: isolated (as
 * isolate_lru_folios), shmem_swap_out, then freed (its isolation's
 * reference the last) or put back. */
static enum swap_out_result swap_out_by_hand(struct kunit *test, struct address_space *mapping, unsigned long index)
{
	struct page *page = test_cache_page(mapping, index);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, isolate_lru_page(page), 0);
	enum swap_out_result r = shmem_swap_out(page);
	if (r == SWAP_OUT_FREED)
		put_page(page);
	else
		putback_lru_page(page);
	return r;
}

/* The first 10 bytes at the end of the area's first page: the header's
 * magic, read from the disk (the area off). */
static bool swap_header_intact(void)
{
	struct file *f = filp_open("/dev/vda", O_RDONLY, 0);
	if (IS_ERR(f))
		return false;
	char magic[10];
	long long pos = PAGE_SIZE - sizeof(magic);
	long n = kernel_read(f, magic, sizeof(magic), &pos);
	filp_close(f);
	return n == (long)sizeof(magic) && !memcmp(magic, "SWAPSPACE2", sizeof(magic));
}

static void truncate_at_write(enum shmem_swap_step step, struct page *page, swp_entry_t entry)
{
	if (step != SHMEM_SWAP_OUT_WRITE || hk.calls++)
		return;
	hk.entry = entry;
	test_file_set_size(hk.f, 0); /* shmem_free_swap -> free_swap_and_cache */
	hk.in_cache_after = PageSwapCache(page) && page_swap_entry(page).val == entry.val;
	hk.count_after = swap_count_of(entry);
}

/* A truncate between the swap entry's publication and the write frees
 * the file's reference on the slot, not the write's: the page stays in
 * the swap cache at its slot while it is written (out of it, the write
 * would read slot 0 from the page and write over the area's header),
 * and the slot is free once the swap-out is done. */
static void truncate_while_written(struct kunit *test)
{
	struct file *f = filled_file_swap_on(test, 1);
	long slots0 = nr_swap_pages;
	memset(&hk, 0, sizeof(hk));
	hk.f = f;
	hook_on(test, truncate_at_write);
	KUNIT_EXPECT_EQ(test, swap_out_by_hand(test, f->f_mapping, 0), SWAP_OUT_FREED);
	hook_off(NULL);
	KUNIT_EXPECT_EQ(test, hk.calls, 1);
	KUNIT_EXPECT_TRUE(test, hk.in_cache_after);
	KUNIT_EXPECT_EQ(test, hk.count_after, (unsigned char)(SWAP_HAS_CACHE | 1)); /* the write's */
	KUNIT_EXPECT_EQ(test, swap_count_of(hk.entry), (unsigned char)0);
	KUNIT_EXPECT_EQ(test, nr_swap_pages, slots0);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_swapped, 0ul);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_blocks, 0ul);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 0ul);
	KUNIT_EXPECT_EQ(test, ksys_swapoff("/dev/vda"), 0);
	KUNIT_EXPECT_TRUE(test, swap_header_intact());
}

static void unuse_at_publish(enum shmem_swap_step step, struct page *page, swp_entry_t entry)
{
	(void)page;
	if (step != SHMEM_SWAP_OUT_PUBLISH || hk.calls++)
		return;
	hk.entry = entry;
	hk.unuse_err = shmem_unuse(swp_type(entry)); /* a swapoff's pass over the files */
}

/* A swapoff pass over the swapped files (collect_swapped_inodes drops a
 * listed file with i_swapped 0) just before a file's first page goes
 * out: the file must still be listed after the swap-out, for swapoff to
 * bring the page back. */
static void swapoff_pass_before_publish(struct kunit *test)
{
	struct file *f = filled_file_swap_on(test, 2);
	memset(&hk, 0, sizeof(hk));
	hook_on(test, unuse_at_publish);
	KUNIT_EXPECT_EQ(test, swap_out_by_hand(test, f->f_mapping, 1), SWAP_OUT_FREED);
	hook_off(NULL);
	KUNIT_EXPECT_EQ(test, hk.calls, 1);
	KUNIT_EXPECT_EQ(test, hk.unuse_err, 0);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_swapped, 1ul);
	KUNIT_EXPECT_NOT_NULL(test, f->f_inode->i_swaplist.next); /* on shmem_swaplist */
	KUNIT_EXPECT_EQ(test, ksys_swapoff("/dev/vda"), 0);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_swapped, 0ul);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 2ul);
	KUNIT_EXPECT_EQ(test, bad_file_words(f, 1), 0ul);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
}

static void isolate_at_swapin(enum shmem_swap_step step, struct page *page, swp_entry_t entry)
{
	(void)entry;
	if (step == SHMEM_SWAP_OUT_WRITE && !hk.extra) {
		/* A reference past the write: the page stays in the swap
		 * cache (remove_mapping_swapcache refuses), for a swap-in to
		 * find there. */
		get_page(page);
		hk.extra = page;
		return;
	}
	if (step != SHMEM_SWAPIN_CACHED && step != SHMEM_SWAPIN_HANDED_OVER)
		return;
	hk.calls++;
	/* Reclaim's isolation (isolate_lru_folios) would take it here if it
	 * were on the LRU. */
	int err = isolate_lru_page(page);
	hk.isolated[step] = 1 + err;
	if (!err)
		putback_lru_page(page);
}

/* A swap-in keeps its page off the LRU from its lookup (or its read)
 * until it has left the swap cache, so that reclaim cannot take it as an
 * unmapped swap-cache page before the handover, nor as a tmpfs page
 * still in the swap cache after it; on the LRU after. Both ways: read
 * from the slot, and found in the swap cache. */
static void swapin_keeps_page_isolated(struct kunit *test)
{
	struct file *f = filled_file_swap_on(test, 2);
	long slots0 = nr_swap_pages;
	memset(&hk, 0, sizeof(hk));
	hk.extra = (struct page *)1; /* no extra reference: page 0 leaves the swap cache */
	hook_on(test, isolate_at_swapin);
	KUNIT_EXPECT_EQ(test, swap_out_by_hand(test, f->f_mapping, 0), SWAP_OUT_FREED);
	hk.extra = NULL; /* page 1 stays in the swap cache */
	KUNIT_EXPECT_EQ(test, swap_out_by_hand(test, f->f_mapping, 1), SWAP_OUT_KEEP);
	KUNIT_ASSERT_NOT_NULL(test, hk.extra);
	struct page *cached = hk.extra;
	KUNIT_EXPECT_TRUE(test, PageSwapCache(cached));
	put_page(cached); /* on the LRU, in the swap cache: the cache holds it */
	KUNIT_EXPECT_EQ(test, f->f_inode->i_swapped, 2ul);
	for (unsigned long i = 0; i < 2; i++) {
		hk.calls = 0;
		hk.isolated[SHMEM_SWAPIN_CACHED] = hk.isolated[SHMEM_SWAPIN_HANDED_OVER] = 0;
		KUNIT_EXPECT_EQ(test, bad_file_words(f, i), 0ul); /* page 0 read, page 1 found */
		KUNIT_EXPECT_EQ(test, hk.calls, 2);
		KUNIT_EXPECT_EQ(test, hk.isolated[SHMEM_SWAPIN_CACHED], 1 - EBUSY);
		KUNIT_EXPECT_EQ(test, hk.isolated[SHMEM_SWAPIN_HANDED_OVER], 1 - EBUSY);
		struct page *page = test_cache_page(f->f_mapping, i);
		KUNIT_ASSERT_NOT_NULL(test, page);
		KUNIT_EXPECT_TRUE(test, page_test_flag(page, PG_lru));
		KUNIT_EXPECT_FALSE(test, PageSwapCache(page));
		if (i == 1)
			KUNIT_EXPECT_PTR_EQ(test, page, cached);
	}
	hook_off(NULL);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_swapped, 0ul);
	KUNIT_EXPECT_EQ(test, nr_swap_pages, slots0);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
}

static struct kunit_case swap_shmem_cases[] = {
	KUNIT_CASE_PARAM(shmem_file_out_and_back, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(shared_anon_out_and_back, pte_reclaim_modes_gen_params),
	KUNIT_CASE(reclaim_takes_unmapped_tmpfs_page),
	KUNIT_CASE(reclaim_splits_tmpfs_huge_page),
	KUNIT_CASE(truncate_while_written),
	KUNIT_CASE(swapoff_pass_before_publish),
	KUNIT_CASE(swapin_keeps_page_isolated),
	{}
};

static struct kunit_suite swap_shmem_suite = {
	.name = "swap_shmem",
	.test_cases = swap_shmem_cases,
};
kunit_test_suite(swap_shmem_suite);
