/* Swap-in readahead (mm/swap_readahead.h says what and why), after Linux
 * 6.1's mm/swap_state.c: swapin_nr_pages and __swapin_nr_pages,
 * swap_cluster_readahead, swap_ra_info and swap_vma_readahead,
 * lookup_swap_cache's hit accounting, and the knobs page-cluster and
 * /sys/kernel/mm/swap/vma_ra_enabled.
 *
 * How a window is read (Linux's __read_swap_cache_async per slot, then
 * swap_readpage): each slot that some swap entry still names and no page
 * of the cache holds gets a new page (under the VMA's policy at the
 * faulting address, as Linux's) and the slot's SWAP_HAS_CACHE
 * (swapcache_prepare); slots that follow each other on the disk are read
 * in one bio (swap_read_pages, up to the disk's max_segments and
 * SWAP_RA_BATCH pages), synchronously. Linux adds each page to the swap
 * cache locked before its read starts and lets the reads run while the
 * fault waits for its own page; mmlab adds the pages once their bio is
 * done, so the cache never holds a page whose data is not there yet (a
 * fault meanwhile finds the slot's SWAP_HAS_CACHE taken and tries again,
 * as for a single read). Each page then enters the cache (the slot's
 * shadow going to workingset_refault, mm/workingset.h) and the LRU;
 * every page but the faulting one is PG_readahead and counts swap_ra.
 *
 * Hits: the first fault that finds a PG_readahead page clears the flag
 * and counts swap_ra_hit, and a hit for the policy's next window: the
 * global swapin_readahead_hits for clusters, the VMA's
 * swap_readahead_info for the VMA policy.
 *
 * Locking: none of its own. The cluster window's state is three racy
 * globals (as Linux's static and atomics); the VMA's is one word of the
 * VMA, written under the fault's mmap_lock for reading (racy between
 * threads, as Linux's). PTEs are copied from the faulting table, which
 * the fault's reference keeps (mm/pgtable.h), without its lock: a PTE
 * that changes meanwhile only costs a useless read. */
#include "mm/swap_readahead.h"
#include "block/blkdev.h"
#include "fs/proc/proc_fs.h"
#include "kernel/psi.h"
#include "kernel/sched.h"
#include "kernel/sysctl.h"
#include "mm/mempolicy.h"
#include "mm/mm_types.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/pte_ref.h"
#include "mm/swap.h"
#include "mm/swap_state.h"
#include "mm/swapops.h"
#include "mm/vmstat.h"
#include "mm/workingset.h"

/* Linux's swap_setup: 3 (8 pages) on any machine of 16 MiB or more. */
int page_cluster = 3;
/* Linux 6.1 takes any value >= 0 (a shift past 31 is then undefined);
 * later kernels cap it at 31 (page_cluster_max, 6.12's kernel/sysctl.c),
 * as mmlab does. */
static const int page_cluster_max = 31;
SYSCTL_ENTRY_NAMED(proc_sys_vm_dir, page_cluster, "page-cluster", .data = &page_cluster, .maxlen = sizeof(int),
		   .proc_handler = proc_dointvec_minmax, .extra1 = SYSCTL_ZERO, .extra2 = &page_cluster_max);

bool enable_vma_readahead = true;
static int nr_rotate_swap;

/* The most pages one bio of a window reads (the VMA window's largest,
 * 2^SWAP_RA_ORDER_CEILING); the disk's max_segments may allow fewer. */
#define SWAP_RA_BATCH 32
#define SWAP_RA_ORDER_CEILING 5

bool swap_use_vma_readahead(void)
{
	return READ_ONCE(enable_vma_readahead) && !__atomic_load_n(&nr_rotate_swap, __ATOMIC_RELAXED);
}

void swap_readahead_area_on(struct swap_info_struct *si)
{
	if (bdev_nonrot(si->bdev))
		si->flags |= SWP_SOLIDSTATE;
	else
		__atomic_add_fetch(&nr_rotate_swap, 1, __ATOMIC_RELAXED);
}

void swap_readahead_area_off(struct swap_info_struct *si)
{
	if (!(si->flags & SWP_SOLIDSTATE))
		__atomic_sub_fetch(&nr_rotate_swap, 1, __ATOMIC_RELAXED);
}

/* The cluster policy's state (Linux's swapin_readahead_hits, and
 * swapin_nr_pages' prev_offset and last_readahead_pages). */
static int swapin_readahead_hits;
static unsigned long prev_offset;
static int last_readahead_pages;

void swapin_readahead_state(unsigned int *last_pages, unsigned int *hits)
{
	*last_pages = (unsigned int)READ_ONCE(last_readahead_pages);
	*hits = (unsigned int)READ_ONCE(swapin_readahead_hits);
}

unsigned int __swapin_nr_pages(unsigned long prev, unsigned long offset, int hits, int max_pages, int prev_win)
{
	/* Linux: "please don't ask what the + 2 means, it just happens to
	 * work well". */
	unsigned int pages = (unsigned int)hits + 2;
	if (pages == 2) {
		/* No hits to judge by: read ahead only after an adjacent
		 * fault, so that a random pattern reads one page. */
		if (offset != prev + 1 && offset != prev - 1)
			pages = 1;
	} else {
		unsigned int roundup = 4;
		while (roundup < pages)
			roundup <<= 1;
		pages = roundup;
	}
	if (pages > (unsigned int)max_pages)
		pages = (unsigned int)max_pages;
	/* Don't shrink readahead too fast. */
	unsigned int last_ra = (unsigned int)prev_win / 2;
	if (pages < last_ra)
		pages = last_ra;
	return pages;
}

/* Linux's swapin_nr_pages: the cluster window for a fault at offset. */
static unsigned long swapin_nr_pages(unsigned long offset)
{
	int max_pages = 1 << READ_ONCE(page_cluster);
	if (max_pages <= 1)
		return 1;
	int hits = __atomic_exchange_n(&swapin_readahead_hits, 0, __ATOMIC_RELAXED);
	unsigned int pages = __swapin_nr_pages(READ_ONCE(prev_offset), offset, hits, max_pages,
					       READ_ONCE(last_readahead_pages));
	if (!hits)
		WRITE_ONCE(prev_offset, offset);
	WRITE_ONCE(last_readahead_pages, (int)pages);
	return pages;
}

/* The VMA policy's word (Linux's SWAP_RA_* macros): the page address, the
 * window in bits 6..11 and the hits in bits 0..5. */
#define SWAP_RA_WIN_SHIFT (PAGE_SHIFT / 2)
#define SWAP_RA_HITS_MASK ((1ul << SWAP_RA_WIN_SHIFT) - 1)
#define SWAP_RA_HITS_MAX SWAP_RA_HITS_MASK
#define SWAP_RA_WIN_MASK (~PAGE_MASK & ~SWAP_RA_HITS_MASK)
#define SWAP_RA_HITS(v) ((v) & SWAP_RA_HITS_MASK)
#define SWAP_RA_WIN(v) (((v) & SWAP_RA_WIN_MASK) >> SWAP_RA_WIN_SHIFT)
#define SWAP_RA_ADDR(v) ((v) & PAGE_MASK)
#define SWAP_RA_VAL(addr, win, hits) \
	(((addr) & PAGE_MASK) | (((win) << SWAP_RA_WIN_SHIFT) & SWAP_RA_WIN_MASK) | ((hits) & SWAP_RA_HITS_MASK))
/* A VMA's first fault starts from 4 hits: a small window. */
static inline unsigned long get_swap_ra_val(const struct vm_area_struct *vma)
{
	unsigned long v = READ_ONCE(vma->swap_readahead_info);
	return v ? v : 4;
}

struct page *swap_cache_get_page(swp_entry_t entry, struct vm_area_struct *vma, unsigned long addr)
{
	struct page *page = lookup_swap_cache(entry);
	if (!page)
		return NULL;
	bool vma_ra = swap_use_vma_readahead();
	bool readahead = __atomic_fetch_and(&page->flags, ~(1ul << PG_readahead), __ATOMIC_RELAXED) &
			 (1ul << PG_readahead);
	if (vma && vma_ra) {
		unsigned long ra_val = get_swap_ra_val(vma);
		unsigned long win = SWAP_RA_WIN(ra_val), hits = SWAP_RA_HITS(ra_val);
		if (readahead && hits < SWAP_RA_HITS_MAX)
			hits++;
		WRITE_ONCE(vma->swap_readahead_info, SWAP_RA_VAL(addr, win, hits));
	}
	if (readahead) {
		count_vm_event(SWAP_RA_HIT);
		if (!vma || !vma_ra)
			__atomic_add_fetch(&swapin_readahead_hits, 1, __ATOMIC_RELAXED);
	}
	return page;
}

/* A window being read: the run of consecutive slots gathered so far,
 * and what became of the faulting slot. */
enum target_state { TARGET_UNTRIED, TARGET_READ, TARGET_NOMEM, TARGET_BUSY, TARGET_GONE, TARGET_IOERR };
struct swap_ra_batch {
	struct vm_area_struct *vma;
	unsigned long addr;      /* the faulting address: every page's policy */
	swp_entry_t target;
	struct page *target_page; /* with the caller's reference, once read */
	enum target_state state;
	unsigned int max;        /* pages per bio */
	unsigned int nr;
	swp_entry_t first;
	struct page *pages[SWAP_RA_BATCH];
};

/* The run read in one bio, each page then into the swap cache and onto
 * the LRU (Linux's __read_swap_cache_async's tail and swap_readpage). */
static void swap_ra_flush(struct swap_ra_batch *b)
{
	if (!b->nr)
		return;
	/* The read is a memory stall (PSI) and an I/O wait (submit_bio_wait).
	 * Linux 6.1's swap_readpage marks only a workingset refault, the page
	 * having been active before it was evicted, which it knows before
	 * the read (the shadow comes out of the swap cache as the page goes
	 * in); mmlab adds the pages to the cache after their read, so it
	 * counts every swap-in read. */
	unsigned long pflags;
	psi_memstall_enter(&pflags);
	int err = swap_read_pages(b->pages, b->nr, b->first);
	psi_memstall_leave(&pflags);
	for (unsigned int i = 0; i < b->nr; i++) {
		struct page *page = b->pages[i];
		swp_entry_t entry = swp_entry(swp_type(b->first), swp_offset(b->first) + i);
		bool target = entry.val == b->target.val;
		if (err) {
			put_swap_folio(entry);
			put_page(page);
			if (target)
				b->state = TARGET_IOERR;
			continue;
		}
		if (!target) {
			page_set_flag(page, PG_readahead); /* nobody else sees the page yet */
			count_vm_event(SWAP_RA);
		}
		void *shadow;
		add_to_swap_cache(page, entry, &shadow);
		if (shadow)
			workingset_refault(page, shadow);
		folio_add_lru(page);
		if (target) {
			b->target_page = page;
			b->state = TARGET_READ;
		} else {
			put_page(page); /* the cache holds it */
		}
	}
	b->nr = 0;
}

/* One slot of the window: a page for it joins the run, if some entry
 * still names the slot and no page of the cache holds it. */
static void swap_ra_add(struct swap_ra_batch *b, swp_entry_t entry)
{
	bool target = entry.val == b->target.val;
	if (b->nr && (swp_offset(entry) != swp_offset(b->first) + b->nr || swp_type(entry) != swp_type(b->first) ||
		      b->nr == b->max))
		swap_ra_flush(b);
	/* Linux's __read_swap_cache_async skips a slot no entry names (its
	 * __swp_swapcount); one the cache holds is found, not read. */
	unsigned char count = swap_count_of(entry);
	if (!target && (!(count & ~SWAP_HAS_CACHE) || (count & SWAP_HAS_CACHE) || count == SWAP_MAP_BAD))
		return;
	struct page *page = vma_alloc_page(GFP_HIGHUSER_MOVABLE, b->vma, b->addr);
	if (!page) {
		if (target)
			b->state = TARGET_NOMEM;
		return;
	}
	int err = swapcache_prepare(entry);
	if (err) {
		put_page(page);
		if (target)
			b->state = err == -EEXIST ? TARGET_BUSY : TARGET_GONE;
		return;
	}
	if (!b->nr)
		b->first = entry;
	b->pages[b->nr++] = page;
}

static void swap_ra_init(struct swap_ra_batch *b, swp_entry_t entry, struct vm_fault *vmf)
{
	b->vma = vmf->vma;
	b->addr = vmf->address;
	b->target = entry;
	b->target_page = NULL;
	b->state = TARGET_UNTRIED;
	b->nr = 0;
	struct swap_info_struct *si = swp_swap_info(entry);
	unsigned int segs = si ? si->bdev->bd_disk->queue.limits.max_segments : 1;
	b->max = segs < SWAP_RA_BATCH ? (segs ? segs : 1) : SWAP_RA_BATCH;
}

/* The faulting page once the window is read (Linux's closing
 * read_swap_cache_async): read with it, or found in the cache after all
 * (another fault read it meanwhile), or the reason there is none. */
static struct page *swap_ra_finish(struct swap_ra_batch *b, vm_fault_t *ret)
{
	swap_ra_flush(b);
	*ret = VM_FAULT_MAJOR;
	if (b->state == TARGET_READ)
		return b->target_page;
	struct page *page = lookup_swap_cache(b->target);
	if (page)
		return page;
	switch (b->state) {
	case TARGET_NOMEM:
		*ret = VM_FAULT_OOM;
		break;
	case TARGET_IOERR:
		*ret = VM_FAULT_SIGBUS;
		break;
	case TARGET_BUSY: {
		/* Another fault is reading it, or reclaim is taking it out
		 * of the cache: again, from the PTE. Linux waits on the page's
		 * lock, a memory stall when the page is a refault
		 * (folio_wait_bit_common's "thrashing"). */
		unsigned long pflags;
		psi_memstall_enter(&pflags);
		schedule();
		psi_memstall_leave(&pflags);
		*ret = 0;
		break;
	}
	default: /* the slot was freed: the PTE changed */
		*ret = 0;
		break;
	}
	return NULL;
}

/* Linux's swap_cluster_readahead: the aligned block of swapin_nr_pages()
 * slots around entry's (the header's slot 0 and slots past the area's
 * end left out). */
static struct page *swap_cluster_readahead(swp_entry_t entry, struct vm_fault *vmf, vm_fault_t *ret)
{
	struct swap_ra_batch b;
	swap_ra_init(&b, entry, vmf);
	struct swap_info_struct *si = swp_swap_info(entry);
	unsigned long offset = swp_offset(entry), mask = swapin_nr_pages(offset) - 1;
	unsigned long start = offset & ~mask, end = offset | mask;
	if (!start)
		start++;
	if (si && end >= si->max)
		end = si->max - 1;
	if (!mask || !si)
		start = end = offset;
	for (unsigned long o = start; o <= end; o++)
		swap_ra_add(&b, swp_entry(swp_type(entry), o));
	return swap_ra_finish(&b, ret);
}

/* Linux's swap_ra_clamp_pfn: [lpfn, rpfn) within the VMA and the PTE
 * table of faddr. */
static void swap_ra_clamp_pfn(struct vm_area_struct *vma, unsigned long faddr, long lpfn, long rpfn,
			      unsigned long *start, unsigned long *end)
{
	long lo = (long)(vma->vm_start >> PAGE_SHIFT), pmd_lo = (long)((faddr & PMD_MASK) >> PAGE_SHIFT);
	long hi = (long)(vma->vm_end >> PAGE_SHIFT), pmd_hi = (long)(((faddr & PMD_MASK) + PMD_SIZE) >> PAGE_SHIFT);
	long s = lpfn, e = rpfn;
	if (s < lo)
		s = lo;
	if (s < pmd_lo)
		s = pmd_lo;
	if (e > hi)
		e = hi;
	if (e > pmd_hi)
		e = pmd_hi;
	*start = (unsigned long)s;
	*end = (unsigned long)e;
}

/* Linux's swap_ra_info and swap_vma_readahead: the window's PTEs copied,
 * each swap entry among them read (the faulting one included). */
static struct page *swap_vma_readahead(swp_entry_t fentry, struct vm_fault *vmf, vm_fault_t *ret)
{
	struct vm_area_struct *vma = vmf->vma;
	struct swap_ra_batch b;
	swap_ra_init(&b, fentry, vmf);
	unsigned int order = (unsigned int)READ_ONCE(page_cluster);
	unsigned int max_win = 1u << (order < SWAP_RA_ORDER_CEILING ? order : SWAP_RA_ORDER_CEILING);
	unsigned int win = 1;
	if (max_win > 1) {
		unsigned long faddr = vmf->address, fpfn = faddr >> PAGE_SHIFT;
		unsigned long ra_val = get_swap_ra_val(vma);
		unsigned long pfn = SWAP_RA_ADDR(ra_val) >> PAGE_SHIFT;
		win = __swapin_nr_pages(pfn, fpfn, (int)SWAP_RA_HITS(ra_val), (int)max_win,
					(int)SWAP_RA_WIN(ra_val));
		WRITE_ONCE(vma->swap_readahead_info, SWAP_RA_VAL(faddr, (unsigned long)win, 0ul));
		if (win > 1) {
			unsigned long start, end;
			long f = (long)fpfn, w = (long)win;
			/* Follow the faults' direction; centred without one. */
			if (fpfn == pfn + 1)
				swap_ra_clamp_pfn(vma, faddr, f, f + w, &start, &end);
			else if (pfn == fpfn + 1)
				swap_ra_clamp_pfn(vma, faddr, f - w + 1, f + 1, &start, &end);
			else
				swap_ra_clamp_pfn(vma, faddr, f - (w - 1) / 2, f + w - (w - 1) / 2, &start, &end);
			pte_t ptes[1u << SWAP_RA_ORDER_CEILING];
			unsigned long nr_pte = end - start;
			pte_t *pte = pte_offset_map(vmf->pmd, start << PAGE_SHIFT);
			if (!pte)
				nr_pte = 0;
			for (unsigned long i = 0; i < nr_pte; i++)
				ptes[i] = ptep_get(pte + i);
			if (pte)
				pte_unmap(pte);
			for (unsigned long i = 0; i < nr_pte; i++) {
				if (!is_swap_pte(ptes[i]))
					continue;
				swap_ra_add(&b, pte_to_swp_entry(ptes[i]));
			}
		}
	}
	if (b.state == TARGET_UNTRIED && !b.target_page) {
		/* Not in the window's PTEs (window 1, or the PTE changed):
		 * the faulting slot alone. */
		bool in_run = false;
		for (unsigned int i = 0; i < b.nr; i++)
			in_run |= swp_offset(b.first) + i == swp_offset(fentry) && swp_type(b.first) == swp_type(fentry);
		if (!in_run)
			swap_ra_add(&b, fentry);
	}
	return swap_ra_finish(&b, ret);
}

struct page *swapin_readahead(swp_entry_t entry, struct vm_fault *vmf, vm_fault_t *ret)
{
	return swap_use_vma_readahead() ? swap_vma_readahead(entry, vmf, ret)
					: swap_cluster_readahead(entry, vmf, ret);
}

/* /sys/kernel/mm/swap/vma_ra_enabled: "true" or "false"; a write takes
 * kstrtobool's words (y/Y/t/T/1/on, n/N/f/F/0/off). */
static int kstrtobool(const char *s, size_t len, bool *res)
{
	if (!len)
		return -EINVAL;
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*res = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*res = false;
		return 0;
	case 'o': case 'O':
		if (len > 1 && (s[1] == 'n' || s[1] == 'N')) {
			*res = true;
			return 0;
		}
		if (len > 1 && (s[1] == 'f' || s[1] == 'F')) {
			*res = false;
			return 0;
		}
		break;
	}
	return -EINVAL;
}

static void vma_ra_enabled_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	seq_buf_printf(m, "%s\n", READ_ONCE(enable_vma_readahead) ? "true" : "false");
}

static long vma_ra_enabled_write(const struct proc_node *node, const char *buf, size_t len)
{
	(void)node;
	bool v;
	int err = kstrtobool(buf, len, &v);
	if (err)
		return err;
	WRITE_ONCE(enable_vma_readahead, v);
	return (long)len;
}

static const struct proc_dir_entry swap_sysfs_dir __proc_entry = {
	.parent = &sys_kernel_mm_dir, .name = "swap", .mode = S_IFDIR | 0555,
};
PROC_FILE_RW(vma_ra_enabled_file, swap_sysfs_dir, "vma_ra_enabled", vma_ra_enabled_show, vma_ra_enabled_write);
