/* The per-node buddy allocator (see page_alloc.h for the invariants).
 *
 * Layers, from the bottom:
 *  - free lists: add_to_free_list / del_page_from_free_list keep a node's
 *    counters and its bitmap of non-empty orders (free_mask) exact;
 *  - the buddy layer: __rmqueue_smallest splits the smallest block that
 *    fits, __free_one_page merges a block with its buddies;
 *  - per-CPU lists for order 0, refilled and drained in batches;
 *  - the allocation policy: preferred node, fallback by distance,
 *    watermarks, and the slow path (drain, shrink, retry per GFP flags);
 *  - checks on every free and every allocation ("BUG: Bad page state").
 *
 * Locking: a node's free lists and counters are protected by its lock; a
 * CPU's per-CPU lists by running on that CPU with interrupts off. This file
 * is portable C: it is also built and tested on the host (MMLAB_HOST). */
#include "mm/page_alloc.h"
#include "kernel/cmdline.h"
#include "kernel/ksyms.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#ifdef MMLAB_HOST
static inline void cond_resched(void) {}
#else
#include "kernel/sched.h"
#endif

pg_data_t *node_data[MAX_NUMNODES];
u8 mem_section_present[NR_MEM_SECTIONS / 8];
bool page_poisoning;
unsigned long bad_page_reports;
#ifndef MMLAB_HOST
kernel_param_flag("page_poison", page_poisoning,
		  "fill free pages with 0xaa and check the pattern when they are allocated");
#endif

/* Per-CPU list sizes: big enough that alloc/free loops stay off the node
 * lock, small enough that little memory hides in them. */
#define PCP_BATCH 63
#define PCP_HIGH (6 * PCP_BATCH)

#define BIT(n) (1ul << (n))
/* The fast paths are inlined into alloc_pages_node and __free_pages; what
 * is rare stays out of line so the fast paths need no saved registers. */
#ifndef __always_inline /* glibc's <sys/cdefs.h> has one (host builds) */
#define __always_inline inline __attribute__((always_inline))
#endif
#define __noinline __attribute__((noinline))

/* --- free lists --------------------------------------------------------- */

static inline void set_buddy_order(struct page *page, unsigned int order)
{
	page->private = order;
	page->flags |= BIT(PG_buddy);
}

static inline void add_to_free_list(struct page *page, pg_data_t *pgdat, unsigned int order)
{
	struct free_area *area = &pgdat->free_area[order];
	set_buddy_order(page, order);
	list_add(&page->lru, &area->free_list);
	area->nr_free++;
	pgdat->nr_free += 1ul << order;
	pgdat->free_mask |= BIT(order);
}

static inline void del_page_from_free_list(struct page *page, pg_data_t *pgdat, unsigned int order)
{
	struct free_area *area = &pgdat->free_area[order];
	list_del(&page->lru);
	page->flags &= ~BIT(PG_buddy);
	page->private = 0;
	area->nr_free--;
	pgdat->nr_free -= 1ul << order;
	if (list_empty(&area->free_list))
		pgdat->free_mask &= ~BIT(order);
}

/* --- bad pages ---------------------------------------------------------- */

static const char *const pageflag_names[NR_PAGEFLAGS] = {
	[PG_reserved] = "reserved", [PG_buddy] = "buddy", [PG_pcp] = "pcp",
	[PG_head] = "head", [PG_slab] = "slab", [PG_table] = "table",
	[PG_large_kmalloc] = "large_kmalloc", [PG_bad] = "bad",
};

static void describe_flags(unsigned long flags, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	for (int f = 0; f < NR_PAGEFLAGS; f++)
		if (flags >> f & 1)
			len += snprintf(buf + len, len < size ? size - len : 0, "%s%s", len ? "|" : "",
					pageflag_names[f]);
	if (!len)
		snprintf(buf, size, "none");
}

static void print_caller(const char *what, unsigned long addr)
{
#ifdef MMLAB_HOST
	printk(KERN_ERR "  %s %#lx\n", what, addr);
#else
	u64 off, size;
	const char *name = addr ? ksym_lookup(addr, &off, &size) : NULL;
	if (name)
		printk(KERN_ERR "  %s %s+0x%lx\n", what, name, (unsigned long)off);
	else
		printk(KERN_ERR "  %s %#lx\n", what, addr);
#endif
}

/* Reports a page that fails a check. The caller decides what happens to it;
 * the report says which. */
static void bad_page(struct page *page, const char *reason, unsigned long caller, const char *fate)
{
	char flags[96];
	describe_flags(page->flags & PAGE_FLAGS_MASK, flags, sizeof(flags));
	bad_page_reports++;
	printk(KERN_ERR "BUG: Bad page state: pfn %#lx node %d: %s\n", page_to_pfn(page),
	       page_to_nid(page), reason);
	printk(KERN_ERR "  flags %#lx(%s) refcount %d mapcount %d private %lu; %s\n",
	       page->flags & PAGE_FLAGS_MASK, flags, page->_refcount, page->_mapcount, page->private,
	       fate);
	print_caller("last freed by", page->freed_by);
	if (caller)
		print_caller("now called from", caller);
}

/* Takes a free page that failed its check out of circulation for good. */
static void retire_page(struct page *page, pg_data_t *pgdat)
{
	page->flags = (page->flags & ~PAGE_FLAGS_MASK) | BIT(PG_bad);
	pgdat->nr_bad_pages++;
}

/* What a page about to be freed must look like; returns the reason it is
 * not, or NULL. */
static const char *free_page_problem(struct page *page, unsigned int order)
{
	unsigned long fl = page->flags & PAGE_FLAGS_MASK;

	if (fl & (BIT(PG_buddy) | BIT(PG_pcp)))
		return "freed twice: the page is already free";
	if (fl & BIT(PG_bad))
		return "freed a page that was taken out of circulation";
	if (fl & BIT(PG_reserved))
		return "freed a reserved page";
	if (fl & BIT(PG_table))
		return "freed while still marked as a page-table page";
	if (fl & BIT(PG_slab))
		return "freed while still owned by the slab allocator";
	if (fl & BIT(PG_large_kmalloc))
		return "freed while still a large kmalloc";
	if (order > 0 && !(fl & BIT(PG_head)))
		return "freed with order > 0 but it does not head an allocation of that order";
	if ((fl & BIT(PG_head)) && page->private != order)
		return "freed with the wrong order";
	if (page_ref_count(page) != 1)
		return page_ref_count(page) > 1 ? "freed while still referenced (refcount > 1)"
						: "freed with refcount 0 (already freed?)";
	if (page->_mapcount != -1)
		return "freed while still mapped in a page table";
	if (page_to_pfn(page) & ((1ul << order) - 1))
		return "freed at an address not aligned to its order";
	if (fl != (order ? BIT(PG_head) : 0))
		return "freed with unexpected page flags";
	return NULL;
}

/* The other pages of a block must be plain too. Checking them costs a
 * pass over 2^order struct pages, so (as Linux's debug checks) it is done
 * in the debug mode, page_poison=on. */
static const char *free_tail_problem(struct page *page, unsigned int order, struct page **bad)
{
	for (unsigned long i = 1; i < (1ul << order); i++) {
		struct page *t = page + i;
		*bad = t;
		if (t->flags & PAGE_FLAGS_MASK)
			return "a tail page of the block still has flags set";
		if (t->_refcount != 0)
			return "a tail page of the block is still referenced";
		if (t->_mapcount != -1)
			return "a tail page of the block is still mapped";
	}
	return NULL;
}

static inline bool free_pages_prepare(struct page *page, unsigned int order, unsigned long caller)
{
	/* Fast check: an order-0 page holds no flags; a head holds PG_head. */
	unsigned long expect = order ? BIT(PG_head) : 0;
	if (unlikely((page->flags & PAGE_FLAGS_MASK) != expect || page->_refcount != 1 ||
		     page->_mapcount != -1 || (order && page->private != order) ||
		     (page_to_pfn(page) & ((1ul << order) - 1)))) {
		const char *why = free_page_problem(page, order);
		if (why) {
			bad_page(page, why, caller, "the page was not freed");
			return false;
		}
	}
	if (unlikely(page_poisoning) && order) {
		struct page *tail;
		const char *why = free_tail_problem(page, order, &tail);
		if (why) {
			bad_page(tail, why, caller, "the block was not freed");
			return false;
		}
	}
	page->flags &= ~PAGE_FLAGS_MASK;
	page->private = 0;
	page->_refcount = 0;
	page->_mapcount = -1; /* with _refcount: see prep_new_page */
	page->freed_by = caller;
	if (unlikely(page_poisoning))
		memset(page_address(page), PAGE_POISON, PAGE_SIZE << order);
	return true;
}

/* A page just taken from a free list: anything set that should not be means
 * memory corruption (or a use after free). */
static bool check_new_page(struct page *page)
{
	if (likely((page->flags & PAGE_FLAGS_MASK) == 0 && page->_refcount == 0 &&
		   page->_mapcount == -1))
		return true;
	bad_page(page, "corrupted while free", 0, "it is taken out of circulation");
	return false;
}

static void check_poison(struct page *page, unsigned int order)
{
	const u8 *p = page_address(page);
	const u64 *w = (const u64 *)p, pattern = 0x0101010101010101ull * PAGE_POISON;
	size_t n = PAGE_SIZE << order, nw = n / 8, first = 0;
	/* Eight bytes at a time; the byte that differs is found afterwards. */
	while (first < nw && w[first] == pattern)
		first++;
	if (first == nw)
		return;
	for (size_t i = first * 8; i < n; i++) {
		if (p[i] != PAGE_POISON) {
			char reason[96];
			snprintf(reason, sizeof(reason),
				 "poison overwritten at offset %#zx (0x%02x): written after it was freed", i,
				 p[i]);
			bad_page(pfn_to_page(page_to_pfn(page) + i / PAGE_SIZE), reason, 0,
				 "the page is handed out anyway");
			return;
		}
	}
}

/* --- the buddy layer ---------------------------------------------------- */

/* Puts the upper halves of a block of order high back until the lower part
 * has order low. */
static inline void expand(pg_data_t *pgdat, struct page *page, unsigned int low, unsigned int high)
{
	/* The halves' flags are written, not read: the tail pages of a free
	 * block hold only the node bits (a read here would miss the cache at
	 * every level). nr_free is the caller's. */
	unsigned long mask = 0, node_bits = page->flags & ~PAGE_FLAGS_MASK;
	while (high > low) {
		high--;
		struct page *half = page + (1ul << high);
		struct free_area *area = &pgdat->free_area[high];
		half->private = high;
		half->flags = node_bits | BIT(PG_buddy);
		list_add(&half->lru, &area->free_list);
		area->nr_free++;
		mask |= BIT(high);
	}
	pgdat->free_mask |= mask;
}

static __always_inline struct page *rmqueue_smallest(pg_data_t *pgdat, unsigned int order)
{
	unsigned long mask = pgdat->free_mask >> order << order;
	if (!mask)
		return NULL;
	unsigned int current_order = (unsigned int)__builtin_ctzl(mask);
	struct page *page = list_first_entry(&pgdat->free_area[current_order].free_list, struct page, lru);
	struct free_area *area = &pgdat->free_area[current_order];
	list_del(&page->lru);
	page->flags &= ~BIT(PG_buddy);
	page->private = 0;
	area->nr_free--;
	if (list_empty(&area->free_list))
		pgdat->free_mask &= ~BIT(current_order);
	expand(pgdat, page, order, current_order);
	pgdat->nr_free -= 1ul << order;
	return page;
}

/* The buddy of a free block may only be merged with when it is itself a free
 * block of the same order on the same node. */
static inline bool page_is_buddy(const struct page *buddy, unsigned int order, unsigned long node_bits)
{
	return buddy->flags == (node_bits | BIT(PG_buddy)) && buddy->private == order;
}

static __always_inline void free_one_page(struct page *page, unsigned long pfn, pg_data_t *pgdat, unsigned int order)
{
	unsigned long node_bits = page->flags & ~PAGE_FLAGS_MASK;

	/* Merging moves pages between orders, not in or out: nr_free changes
	 * by this block only. */
	pgdat->nr_free += 1ul << order;
	while (order < MAX_PAGE_ORDER) {
		unsigned long buddy_pfn = pfn ^ (1ul << order);
		/* Below section size the buddy is in pfn's own section. */
		if (order >= PFN_SECTION_SHIFT && !pfn_valid(buddy_pfn))
			break;
		struct page *buddy = page + ((long)buddy_pfn - (long)pfn);
		if (!page_is_buddy(buddy, order, node_bits))
			break;
		/* A merged buddy becomes a tail page: only its node bits,
		 * private 0; its stale lru links are never read. */
		struct free_area *area = &pgdat->free_area[order];
		buddy->lru.next->prev = buddy->lru.prev;
		buddy->lru.prev->next = buddy->lru.next;
		buddy->flags = node_bits;
		buddy->private = 0; /* what a fresh page must show (and PTE tables reuse) */
		area->nr_free--;
		if (list_empty(&area->free_list))
			pgdat->free_mask &= ~BIT(order);
		unsigned long combined = pfn & buddy_pfn;
		page += (long)combined - (long)pfn;
		pfn = combined;
		order++;
	}
	struct free_area *area = &pgdat->free_area[order];
	set_buddy_order(page, order);
	list_add(&page->lru, &area->free_list);
	area->nr_free++;
	pgdat->free_mask |= BIT(order);
}

/* The buddy layer for the benchmarks and host tests (page_alloc.h); the
 * allocator itself uses the inlined versions. */
struct page *__rmqueue_smallest(pg_data_t *pgdat, unsigned int order)
{
	return rmqueue_smallest(pgdat, order);
}

void __free_one_page(struct page *page, unsigned long pfn, pg_data_t *pgdat, unsigned int order)
{
	free_one_page(page, pfn, pgdat, order);
}

/* --- per-CPU lists ------------------------------------------------------ */

/* Moves up to count pages between a per-CPU list and the buddy lists. */
static int rmqueue_bulk(pg_data_t *pgdat, struct per_cpu_pages *pcp, int count)
{
	int moved = 0;
	spin_lock(&pgdat->lock);
	/* Whole aligned blocks (up to the largest power of two in count) at a
	 * time: one split instead of one per page, and the pages go back
	 * together so they merge again when drained. Pages are checked when
	 * the per-CPU list hands them out. */
	unsigned int order = (unsigned int)(8 * sizeof(long) - 1 - __builtin_clzl((unsigned long)count));
	while (moved < count) {
		while (order && ((1 << order) > count - moved || !(pgdat->free_mask >> order)))
			order--;
		struct page *page = rmqueue_smallest(pgdat, order);
		if (!page)
			break;
		for (unsigned long i = 0; i < (1ul << order); i++) {
			page[i].flags |= BIT(PG_pcp);
			list_add_tail(&page[i].lru, &pcp->list);
		}
		moved += 1 << order;
	}
	spin_unlock(&pgdat->lock);
	pcp->count += moved;
	return moved;
}

static void free_pcppages_bulk(pg_data_t *pgdat, struct per_cpu_pages *pcp, int count)
{
	spin_lock(&pgdat->lock);
	while (count-- > 0 && !list_empty(&pcp->list)) {
		/* The coldest pages (at the tail) go back first. */
		struct page *page = list_entry(pcp->list.prev, struct page, lru);
		list_del(&page->lru);
		pcp->count--;
		page->flags &= ~BIT(PG_pcp);
		free_one_page(page, page_to_pfn(page), pgdat, 0);
	}
	spin_unlock(&pgdat->lock);
}

static __always_inline struct page *rmqueue_pcplist(pg_data_t *pgdat)
{
	unsigned long flags;
	struct page *page;

	local_irq_save(flags);
	struct per_cpu_pages *pcp = &pgdat->pcp[smp_processor_id()];
	for (;;) {
		if (unlikely(list_empty(&pcp->list)) && !rmqueue_bulk(pgdat, pcp, pcp->batch)) {
			local_irq_restore(flags);
			return NULL;
		}
		page = list_first_entry(&pcp->list, struct page, lru);
		list_del(&page->lru);
		pcp->count--;
		page->flags &= ~BIT(PG_pcp);
		if (likely(check_new_page(page)))
			break;
		spin_lock(&pgdat->lock);
		retire_page(page, pgdat);
		spin_unlock(&pgdat->lock);
	}
	local_irq_restore(flags);
	return page;
}

static __always_inline void free_unref_page(struct page *page, pg_data_t *pgdat)
{
	unsigned long flags;

	local_irq_save(flags);
	struct per_cpu_pages *pcp = &pgdat->pcp[smp_processor_id()];
	page->flags |= BIT(PG_pcp);
	list_add(&page->lru, &pcp->list);
	if (unlikely(++pcp->count > pcp->high))
		free_pcppages_bulk(pgdat, pcp, pcp->batch);
	local_irq_restore(flags);
}

/* CPUs whose per-CPU lists may hold pages. */
static inline unsigned possible_cpus(void)
{
	unsigned n = numa_topology.nr_cpus;
	return n ? (n < NR_CPUS ? n : NR_CPUS) : 1;
}

/* This CPU's lists only: a per-CPU list is touched by its own CPU alone,
 * with interrupts off, never by another CPU. */
static void drain_local_pages(void *unused)
{
	(void)unused;
	unsigned long flags;
	local_irq_save(flags);
	unsigned cpu = smp_processor_id();
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (pgdat && pgdat->pcp[cpu].count)
			free_pcppages_bulk(pgdat, &pgdat->pcp[cpu], pgdat->pcp[cpu].count);
	}
	local_irq_restore(flags);
}

/* Every CPU drains its own lists (through an IPI and a wait). Only for
 * callers that may block with interrupts on: waiting for another CPU with
 * interrupts off could wait for a CPU that waits for us. */
void drain_all_pages(void)
{
	if (irqs_disabled()) {
		drain_local_pages(NULL);
		return;
	}
	on_each_cpu(drain_local_pages, NULL, true);
}

/* --- allocation policy -------------------------------------------------- */

enum {
	ALLOC_WMARK_MIN = WMARK_MIN,
	ALLOC_WMARK_LOW = WMARK_LOW,
	ALLOC_WMARK_MASK = 3,
	ALLOC_HIGH = 4,   /* __GFP_HIGH: may go halfway below min */
	ALLOC_HARDER = 8, /* atomic: may go a quarter below min */
};

static inline bool watermark_ok(const pg_data_t *pgdat, unsigned int order, int alloc_flags)
{
	long min = (long)pgdat->watermark[alloc_flags & ALLOC_WMARK_MASK];
	if (alloc_flags & ALLOC_HIGH)
		min -= min / 2;
	if (alloc_flags & ALLOC_HARDER)
		min -= min / 4;
	/* As Linux's __zone_watermark_ok: enough pages is not enough for
	 * order > 0, a block that large must exist (and a failing request
	 * then takes no lock). */
	if (order && !(pgdat->free_mask >> order))
		return false;
	return (long)pgdat->nr_free - (long)(1ul << order) + 1 > min;
}

static inline void numa_statistics(int preferred, int nid)
{
	pg_data_t *pgdat = node_data[nid];
	if (nid == preferred) {
		pgdat->numa_stat[NUMA_HIT]++;
	} else {
		pgdat->numa_stat[NUMA_MISS]++;
		node_data[preferred]->numa_stat[NUMA_FOREIGN]++;
	}
	pgdat->numa_stat[nid == numa_node_id() ? NUMA_LOCAL : NUMA_OTHER]++;
}

static __always_inline struct page *rmqueue(pg_data_t *pgdat, unsigned int order)
{
	if (order == 0)
		return rmqueue_pcplist(pgdat);

	unsigned long flags;
	struct page *page;
	spin_lock_irqsave(&pgdat->lock, flags);
	for (;;) {
		page = rmqueue_smallest(pgdat, order);
		if (!page || likely(check_new_page(page)))
			break;
		/* Only the head was checked: give back the rest, keep it out. */
		retire_page(page, pgdat);
		for (unsigned int o = 0; o < order; o++)
			free_one_page(page + (1ul << o), page_to_pfn(page) + (1ul << o), pgdat, o);
	}
	spin_unlock_irqrestore(&pgdat->lock, flags);
	return page;
}

/* The nodes to try, nearest first: the preferred node's fallback list, or
 * only the preferred node itself for __GFP_THISNODE. */
static __always_inline struct page *get_page_from_freelist(gfp_t gfp, unsigned int order, int nid, int alloc_flags)
{
	pg_data_t *pref = node_data[nid];
	const int *nodes = pref->fallback;
	int nr = pref->nr_fallback;

	if (gfp & __GFP_THISNODE) {
		if (!pref->managed_pages)
			return NULL;
		nodes = &pref->node_id;
		nr = 1;
	}
	for (int i = 0; i < nr; i++) {
		pg_data_t *pgdat = node_data[nodes[i]];
		if (!watermark_ok(pgdat, order, alloc_flags))
			continue;
		struct page *page = rmqueue(pgdat, order);
		if (page) {
			numa_statistics(nodes[0], pgdat->node_id);
			return page;
		}
	}
	return NULL;
}

static DEFINE_SPINLOCK(shrinker_lock);
static LIST_HEAD(shrinker_list);

int register_shrinker(struct shrinker *s)
{
	spin_lock(&shrinker_lock);
	list_add_tail(&s->list, &shrinker_list);
	spin_unlock(&shrinker_lock);
	return 0;
}

void unregister_shrinker(struct shrinker *s)
{
	spin_lock(&shrinker_lock);
	list_del(&s->list);
	spin_unlock(&shrinker_lock);
}

/* A CPU already inside shrink_slab (a shrinker that allocates under
 * pressure) does not enter it again: no reclaim recursion. */
static bool in_shrink_slab[NR_CPUS];

unsigned long shrink_slab(gfp_t gfp, int nid)
{
	unsigned long freed = 0;
	struct shrinker *s;
	unsigned cpu = smp_processor_id();

	if (in_shrink_slab[cpu])
		return 0;
	in_shrink_slab[cpu] = true;
	/* The list does not change while shrinkers run: (un)registering waits
	 * for the lock. Shrinkers may allocate and free, not sleep. */
	spin_lock(&shrinker_lock);
	list_for_each_entry(s, &shrinker_list, list) {
		struct shrink_control sc = { .gfp_mask = gfp, .nid = nid };
		unsigned long count = s->count_objects(s, &sc);
		if (!count || count == SHRINK_STOP)
			continue;
		sc.nr_to_scan = count;
		unsigned long r = s->scan_objects(s, &sc);
		if (r != SHRINK_STOP)
			freed += r;
	}
	spin_unlock(&shrinker_lock);
	in_shrink_slab[cpu] = false;
	return freed;
}

#define MAX_RECLAIM_RETRIES 16

static void warn_alloc(gfp_t gfp, unsigned int order, int nid)
{
	char mode[160], line[300];
	size_t len = 0;

	gfp_flags_string(gfp, mode, sizeof(mode));
	line[0] = 0;
	for (int n = 0; n < MAX_NUMNODES; n++)
		if (node_data[n] && node_data[n]->managed_pages)
			len += snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0,
					" node%d:%lu", n, node_free_pages(n));
	pr_warn("page allocation failure: order:%u, mode:%#x(%s), nid:%d, free pages:%s\n", order,
		gfp, mode, nid, line);
}

static __noinline struct page *alloc_pages_slowpath(gfp_t gfp, unsigned int order, int nid)
{
	int alloc_flags = ALLOC_WMARK_MIN;
	if (gfp & __GFP_HIGH)
		alloc_flags |= ALLOC_HIGH;
	if (gfp & __GFP_ATOMIC)
		alloc_flags |= ALLOC_HARDER;

	/* Below low but above min is what min is for (kswapd would be woken
	 * here; mmlab has none, so direct reclaim does its work). */
	struct page *page = get_page_from_freelist(gfp, order, nid, alloc_flags);
	if (page)
		return page;

	unsigned int no_progress = 0;
	for (unsigned long loops = 0;; loops++) {
		/* Pages sitting in per-CPU lists count for nothing above. */
		/* Not for non-blocking high-order requests (as in Linux, only
		 * direct reclaim drains for them): order-0 pages on per-CPU
		 * lists rarely complete a large block, and a GFP_NOWAIT
		 * failure should cost no more than its checks. */
		if (gfpflags_allow_blocking(gfp)) {
			drain_all_pages();
			page = get_page_from_freelist(gfp, order, nid, alloc_flags);
		} else if (order == 0) {
			drain_local_pages(NULL);
			page = get_page_from_freelist(gfp, order, nid, alloc_flags);
		}
		if (page || !gfpflags_allow_blocking(gfp))
			return page;

		unsigned long reclaimed = shrink_slab(gfp, nid);
		page = get_page_from_freelist(gfp, order, nid, alloc_flags);
		if (page)
			return page;

		if (gfp & __GFP_NOFAIL) {
			/* As Linux: a request that must not fail may use half
			 * of the reserve below min once reclaim did not help,
			 * and lets other tasks run (and free) between tries. */
			page = get_page_from_freelist(gfp, order, nid, alloc_flags | ALLOC_HIGH);
			if (page)
				return page;
			if (loops == 1000)
				pr_warn("page allocation stalls: order:%u, mode:%#x, retrying (__GFP_NOFAIL)\n",
					order, gfp);
			cond_resched();
			continue;
		}
		if (gfp & __GFP_NORETRY)
			return NULL;
		if (order > PAGE_ALLOC_COSTLY_ORDER && !(gfp & __GFP_RETRY_MAYFAIL))
			return NULL;
		if (reclaimed)
			no_progress = 0;
		else if (++no_progress > MAX_RECLAIM_RETRIES)
			return NULL;
	}
}

static inline void prep_new_page(struct page *page, unsigned int order, gfp_t gfp)
{
	page->_refcount = 1;
	/* _mapcount is -1 already; storing it with _refcount makes one 8-byte
	 * store, which the next check's 8-byte load of both fields can be
	 * forwarded from. After a lone 4-byte store that load waits for the
	 * store to reach the cache: a stall on every alloc/free pair. */
	page->_mapcount = -1;
	if (order) {
		page->flags |= BIT(PG_head);
		page->private = order;
	}
	if (unlikely(page_poisoning))
		check_poison(page, order);
	if (gfp & __GFP_ZERO)
		memset(page_address(page), 0, PAGE_SIZE << order);
}

static __noinline struct page *__alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	if (unlikely(order > MAX_PAGE_ORDER)) {
		if (!(gfp & __GFP_NOWARN))
			pr_warn("page allocation of order %u is above the maximum order %d\n", order,
				MAX_PAGE_ORDER);
		return NULL;
	}
	if (nid == NUMA_NO_NODE)
		nid = numa_node_id();
	if (unlikely(nid < 0 || nid >= MAX_NUMNODES || !node_data[nid])) {
		pr_warn("page allocation on node %d, which does not exist\n", nid);
		return NULL;
	}
	struct page *page = get_page_from_freelist(gfp, order, nid, ALLOC_WMARK_LOW);
	if (unlikely(!page))
		page = alloc_pages_slowpath(gfp, order, nid);
	if (likely(page))
		prep_new_page(page, order, gfp);
	else if (!(gfp & __GFP_NOWARN))
		warn_alloc(gfp, order, nid);
	return page;
}

/* The common case first, small enough to need no saved registers: order 0
 * from the preferred node's own per-CPU list, above its low watermark,
 * with the checks of check_new_page. Anything else (other orders, empty
 * list, fallback, watermarks, __GFP_ZERO, poisoning, a bad page) takes
 * the full path. */
struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	if (nid == NUMA_NO_NODE)
		nid = numa_node_id();
	if (likely(order == 0 && (unsigned)nid < MAX_NUMNODES && !(gfp & __GFP_ZERO) && !page_poisoning)) {
		pg_data_t *pgdat = node_data[nid];
		if (likely(pgdat && pgdat->nr_fallback && pgdat->fallback[0] == nid &&
			   pgdat->nr_free > pgdat->watermark[WMARK_LOW])) {
			unsigned long flags;
			local_irq_save(flags);
			struct per_cpu_pages *pcp = &pgdat->pcp[smp_processor_id()];
			struct page *page = list_first_entry(&pcp->list, struct page, lru);
			if (likely(!list_empty(&pcp->list) && (page->flags & PAGE_FLAGS_MASK) == BIT(PG_pcp) &&
				   page->_refcount == 0 && page->_mapcount == -1)) {
				list_del(&page->lru);
				pcp->count--;
				page->flags &= ~BIT(PG_pcp);
				page->_refcount = 1;
				page->_mapcount = -1; /* with _refcount: see prep_new_page */
				numa_statistics(nid, nid);
				local_irq_restore(flags);
				return page;
			}
			local_irq_restore(flags);
		}
	}
	return __alloc_pages_node(nid, gfp, order);
}

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	return alloc_pages_node(NUMA_NO_NODE, gfp, order);
}

static __always_inline void __free_pages_caller(struct page *page, unsigned int order, unsigned long caller)
{
	if (unlikely(!free_pages_prepare(page, order, caller)))
		return;
	pg_data_t *pgdat = node_data[page_to_nid(page)];
	if (order == 0) {
		free_unref_page(page, pgdat);
		return;
	}
	unsigned long flags;
	spin_lock_irqsave(&pgdat->lock, flags);
	free_one_page(page, page_to_pfn(page), pgdat, order);
	spin_unlock_irqrestore(&pgdat->lock, flags);
}

static __noinline void free_pages_slow(struct page *page, unsigned int order, unsigned long caller)
{
	__free_pages_caller(page, order, caller);
}

/* The common case, as alloc_pages_node's: an order-0 page that passes the
 * free checks goes onto a per-CPU list that has room. */
void __free_pages(struct page *page, unsigned int order)
{
	unsigned long caller = (unsigned long)__builtin_return_address(0);
	if (likely(order == 0 && (page->flags & PAGE_FLAGS_MASK) == 0 && page->_refcount == 1 &&
		   page->_mapcount == -1 && !page_poisoning)) {
		pg_data_t *pgdat = node_data[page_to_nid(page)];
		unsigned long flags;
		local_irq_save(flags);
		struct per_cpu_pages *pcp = &pgdat->pcp[smp_processor_id()];
		if (likely(pcp->count < pcp->high)) {
			page->private = 0;
			page->_refcount = 0;
			page->_mapcount = -1; /* with _refcount: see prep_new_page */
			page->freed_by = caller;
			page->flags |= BIT(PG_pcp);
			list_add(&page->lru, &pcp->list);
			pcp->count++;
			local_irq_restore(flags);
			return;
		}
		local_irq_restore(flags);
	}
	free_pages_slow(page, order, caller);
}

void free_pages(unsigned long addr, unsigned int order)
{
	if (addr)
		__free_pages_caller(virt_to_page((void *)addr), order,
				    (unsigned long)__builtin_return_address(0));
}

void put_page(struct page *page)
{
	if (page->_refcount > 1) {
		page->_refcount--;
		return;
	}
	__free_pages_caller(page, PageHead(page) ? (unsigned int)page->private : 0,
			    (unsigned long)__builtin_return_address(0));
}

unsigned long __get_free_pages(gfp_t gfp, unsigned int order)
{
	struct page *page = alloc_pages(gfp, order);
	return page ? (unsigned long)page_address(page) : 0;
}

unsigned long get_zeroed_page(gfp_t gfp)
{
	return __get_free_pages(gfp | __GFP_ZERO, 0);
}

/* --- setup -------------------------------------------------------------- */

void page_alloc_init_node(pg_data_t *pgdat, int nid, unsigned long start_pfn, unsigned long end_pfn)
{
	memset(pgdat, 0, sizeof(*pgdat));
	pgdat->node_id = nid;
	spin_lock_init(&pgdat->lock);
	for (int o = 0; o < NR_PAGE_ORDERS; o++)
		INIT_LIST_HEAD(&pgdat->free_area[o].free_list);
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		INIT_LIST_HEAD(&pgdat->pcp[cpu].list);
		pgdat->pcp[cpu].batch = PCP_BATCH;
		pgdat->pcp[cpu].high = PCP_HIGH;
	}
	pgdat->node_start_pfn = start_pfn;
	pgdat->node_spanned_pages = end_pfn > start_pfn ? end_pfn - start_pfn : 0;
	node_data[nid] = pgdat;
}

/* Nodes with memory, by distance from nid, then by node id. */
static void build_fallback_list(pg_data_t *pgdat)
{
	int nid = pgdat->node_id, n = 0;
	for (int other = 0; other < MAX_NUMNODES; other++)
		if (node_data[other] && node_data[other]->node_present_pages)
			pgdat->fallback[n++] = other;
	for (int i = 1; i < n; i++) {
		int x = pgdat->fallback[i], j = i;
		while (j > 0 && node_distance(nid, pgdat->fallback[j - 1]) > node_distance(nid, x)) {
			pgdat->fallback[j] = pgdat->fallback[j - 1];
			j--;
		}
		pgdat->fallback[j] = x;
	}
	pgdat->nr_fallback = n;
}

void build_all_fallback_lists(void)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (node_data[nid])
			build_fallback_list(node_data[nid]);
}

void free_boot_range(unsigned long start_pfn, unsigned long end_pfn)
{
	unsigned long pfn = start_pfn;
	while (pfn < end_pfn) {
		unsigned int order = pfn ? (unsigned int)__builtin_ctzl(pfn) : MAX_PAGE_ORDER;
		if (order > MAX_PAGE_ORDER)
			order = MAX_PAGE_ORDER;
		while ((1ul << order) > end_pfn - pfn)
			order--;
		struct page *page = pfn_to_page(pfn);
		pg_data_t *pgdat = node_data[page_to_nid(page)];
		for (unsigned long i = 0; i < (1ul << order); i++) {
			page[i].flags &= ~PAGE_FLAGS_MASK;
			page[i]._refcount = 0;
		}
		/* As every later free does: the first allocation checks it. */
		if (unlikely(page_poisoning))
			memset(page_address(page), PAGE_POISON, PAGE_SIZE << order);
		spin_lock(&pgdat->lock);
		free_one_page(page, pfn, pgdat, order);
		pgdat->managed_pages += 1ul << order;
		spin_unlock(&pgdat->lock);
		pfn += 1ul << order;
	}
}

static unsigned long int_sqrt(unsigned long x)
{
	unsigned long r = 0;
	for (unsigned long bit = 1ul << 62; bit; bit >>= 2) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

/* As Linux: min_free_kbytes = sqrt(16 * lowmem_kbytes), clamped to
 * [128 KiB, 256 MiB], shared between nodes by size; low and high sit a
 * quarter and a half of min above it. */
void setup_watermarks(void)
{
	unsigned long managed = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (node_data[nid])
			managed += node_data[nid]->managed_pages;
	unsigned long min_kbytes = int_sqrt(managed * (PAGE_SIZE / 1024) * 16);
	min_kbytes = min_kbytes < 128 ? 128 : min_kbytes > 262144 ? 262144 : min_kbytes;
	unsigned long min_pages = min_kbytes / (PAGE_SIZE / 1024);
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (!pgdat)
			continue;
		unsigned long m = managed ? min_pages * pgdat->managed_pages / managed : 0;
		pgdat->watermark[WMARK_MIN] = m;
		pgdat->watermark[WMARK_LOW] = m + m / 4;
		pgdat->watermark[WMARK_HIGH] = m + m / 2;
	}
}

/* --- statistics --------------------------------------------------------- */

unsigned long node_free_pages(int nid)
{
	pg_data_t *pgdat = nid >= 0 && nid < MAX_NUMNODES ? node_data[nid] : NULL;
	if (!pgdat)
		return 0;
	unsigned long n = pgdat->nr_free;
	for (unsigned cpu = 0; cpu < possible_cpus(); cpu++)
		n += (unsigned long)pgdat->pcp[cpu].count;
	return n;
}

unsigned long nr_free_pages(void)
{
	unsigned long n = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		n += node_free_pages(nid);
	return n;
}

unsigned long node_free_blocks(int nid, unsigned int order)
{
	if (nid < 0 || nid >= MAX_NUMNODES || !node_data[nid] || order > MAX_PAGE_ORDER)
		return 0;
	return node_data[nid]->free_area[order].nr_free;
}

void show_buddyinfo(void)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (!pgdat || !pgdat->managed_pages)
			continue;
		char line[NR_PAGE_ORDERS * 8 + 8];
		size_t len = 0;
		for (int o = 0; o < NR_PAGE_ORDERS; o++)
			len += snprintf(line + len, sizeof(line) - len, " %6lu", pgdat->free_area[o].nr_free);
		pr_info("Node %d, zone   Normal%s\n", nid, line);
	}
}

void show_numastat(void)
{
	static const char *const names[NR_NUMA_STAT_ITEMS] = {
		"numa_hit", "numa_miss", "numa_foreign", "local_node", "other_node" };
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (!pgdat)
			continue;
		char line[160];
		size_t len = 0;
		for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++)
			len += snprintf(line + len, sizeof(line) - len, " %s %lu", names[i], pgdat->numa_stat[i]);
		pr_info("node%d numastat:%s\n", nid, line);
	}
}

void show_free_areas(void)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = node_data[nid];
		if (!pgdat)
			continue;
		pr_info("Node %d: MemTotal %lu kB, MemFree %lu kB, managed %lu kB, "
			"watermarks min %lu low %lu high %lu pages, spans pfn %#lx-%#lx%s\n",
			nid, pgdat->node_present_pages * (PAGE_SIZE / 1024),
			node_free_pages(nid) * (PAGE_SIZE / 1024), pgdat->managed_pages * (PAGE_SIZE / 1024),
			pgdat->watermark[WMARK_MIN], pgdat->watermark[WMARK_LOW], pgdat->watermark[WMARK_HIGH],
			pgdat->node_start_pfn, pgdat->node_start_pfn + pgdat->node_spanned_pages,
			pgdat->node_present_pages ? "" : " (memoryless)");
	}
}

const char *gfp_flags_string(gfp_t gfp, char *buf, size_t size)
{
	static const struct { gfp_t mask; const char *name; } combos[] = {
		{ GFP_KERNEL, "GFP_KERNEL" }, { GFP_ATOMIC, "GFP_ATOMIC" }, { GFP_NOFS, "GFP_NOFS" },
		{ GFP_NOIO, "GFP_NOIO" }, { GFP_NOWAIT, "GFP_NOWAIT" },
	};
	static const struct { gfp_t bit; const char *name; } bits[] = {
		{ __GFP_MOVABLE, "__GFP_MOVABLE" }, { __GFP_RECLAIMABLE, "__GFP_RECLAIMABLE" },
		{ __GFP_HIGH, "__GFP_HIGH" }, { __GFP_IO, "__GFP_IO" }, { __GFP_FS, "__GFP_FS" },
		{ __GFP_ZERO, "__GFP_ZERO" }, { __GFP_ATOMIC, "__GFP_ATOMIC" },
		{ __GFP_DIRECT_RECLAIM, "__GFP_DIRECT_RECLAIM" },
		{ __GFP_KSWAPD_RECLAIM, "__GFP_KSWAPD_RECLAIM" }, { __GFP_NOWARN, "__GFP_NOWARN" },
		{ __GFP_RETRY_MAYFAIL, "__GFP_RETRY_MAYFAIL" }, { __GFP_NOFAIL, "__GFP_NOFAIL" },
		{ __GFP_NORETRY, "__GFP_NORETRY" }, { __GFP_COMP, "__GFP_COMP" },
		{ __GFP_NOMEMALLOC, "__GFP_NOMEMALLOC" }, { __GFP_HARDWALL, "__GFP_HARDWALL" },
		{ __GFP_THISNODE, "__GFP_THISNODE" }, { __GFP_ACCOUNT, "__GFP_ACCOUNT" },
	};
	size_t len = 0;
	gfp_t rest = gfp;
	buf[0] = 0;
	/* The first (largest) composite that is fully present names the base. */
	for (size_t i = 0; i < ARRAY_SIZE(combos); i++) {
		if ((gfp & combos[i].mask) == combos[i].mask) {
			len += snprintf(buf + len, len < size ? size - len : 0, "%s", combos[i].name);
			rest &= ~combos[i].mask;
			break;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(bits); i++)
		if (rest & bits[i].bit)
			len += snprintf(buf + len, len < size ? size - len : 0, "%s%s", len ? "|" : "",
					bits[i].name);
	if (!len)
		snprintf(buf, size, "none");
	return buf;
}
