/* hugetlb's pools (mm/hugetlb.h has the interface and the rules). Follows
 * Linux's mm/hugetlb.c: set_max_huge_pages, alloc_pool_huge_folio,
 * remove_pool_hugetlb_folio, hugetlb_report_meminfo and the sysfs files. */
#include "mm/hugetlb.h"
#include "drivers/base/node.h"
#include "kernel/sysctl.h"
#include "arch/x86_64/cpufeature.h"
#include "kernel/init.h"
#include "kernel/mutex.h"
#include "kernel/printk.h"
#include "kernel/sysctl.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "lib/string.h"
#include "mm/nodemask.h"
#include "mm/page.h"
#include "mm/page_alloc.h"

struct hstate hstates[HUGE_MAX_HSTATE] = {
	[HSTATE_2M] = { .order = 9 },
	[HSTATE_1G] = { .order = 18 },
};
int default_hstate_idx = HSTATE_2M;
static DEFINE_SPINLOCK(hugetlb_lock);
/* One resize at a time (Linux's hstate resize_lock): two writers of
 * nr_hugepages must not both grow towards their own target. */
static struct mutex resize_lock;

struct hstate *hstate_sizelog(unsigned sizelog)
{
	if (!sizelog)
		return &hstates[default_hstate_idx];
	if (sizelog >= 64)
		return NULL;
	struct hstate *h = size_to_hstate(1ul << sizelog);
	return h && h->supported ? h : NULL;
}

struct hstate *size_to_hstate(unsigned long size)
{
	for (int i = 0; i < HUGE_MAX_HSTATE; i++)
		if (huge_page_size(&hstates[i]) == size)
			return &hstates[i];
	return NULL;
}

/* The next node with memory after *next (round robin), updated. */
static int next_node_with_memory(int *next)
{
	for (unsigned tries = 0; tries < MAX_NUMNODES; tries++) {
		int nid = (*next)++ % (int)num_online_nodes();
		if (*next >= (int)num_online_nodes())
			*next = 0;
		if (node_has_memory(nid))
			return nid;
	}
	return NUMA_NO_NODE;
}

/* A page of h's order from the buddy allocator, nid first (within mask
 * when given), marked as a pool page: PG_hugetlb on the head, the others
 * pointing at it (compound_head). Outside hugetlb_lock. */
static struct page *alloc_buddy_hugetlb(struct hstate *h, int nid, const nodemask_t *mask)
{
	/* Movable as Linux's htlb_alloc_mask: a pool page can migrate
	 * (mm/migrate_hugetlb.c), a gigantic one is not made to
	 * (hugepage_movable_supported). */
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY | (hstate_is_gigantic(h) ? 0 : __GFP_MOVABLE);
	struct page *page = __alloc_pages(gfp, h->order, nid, mask);
	if (!page)
		return NULL;
	page_set_flag(page, PG_hugetlb);
	for (unsigned long i = 1; i < pages_per_huge_page(h); i++) {
		page_set_flag(page + i, PG_hugetlb_tail);
		page[i].private = i;
		if (!(i & 0xffff))
			cond_resched(); /* 1 GiB: 262,143 struct pages */
	}
	return page;
}

/* The marks off, and the page back to the buddy allocator (Linux's
 * update_and_free_hugetlb_folio). Outside hugetlb_lock. */
static void release_to_buddy(struct hstate *h, struct page *page)
{
	page_clear_flag(page, PG_hugetlb);
	for (unsigned long i = 1; i < pages_per_huge_page(h); i++) {
		page_clear_flag(page + i, PG_hugetlb_tail);
		page[i].private = 0;
	}
	page->_mapcount = -1;
	__free_pages(page, h->order);
}

/* Under hugetlb_lock: a page onto its node's free list, and off it. */
static void enqueue_hugetlb_folio(struct hstate *h, struct page *page)
{
	int nid = page_to_nid(page);
	list_add(&page->lru, &h->hugepage_freelists[nid]);
	h->free_huge_pages++;
	h->free_huge_pages_node[nid]++;
}

static struct page *dequeue_hugetlb_folio_node(struct hstate *h, int nid)
{
	if (list_empty(&h->hugepage_freelists[nid]))
		return NULL;
	struct page *page = list_first_entry(&h->hugepage_freelists[nid], struct page, lru);
	list_del(&page->lru);
	h->free_huge_pages--;
	h->free_huge_pages_node[nid]--;
	return page;
}

/* Under hugetlb_lock: a page newly in the pool is counted, as a surplus
 * one or a persistent one. */
static void account_new_page(struct hstate *h, int nid, bool surplus)
{
	h->nr_huge_pages++;
	h->nr_huge_pages_node[nid]++;
	if (surplus) {
		h->surplus_huge_pages++;
		h->surplus_huge_pages_node[nid]++;
	}
}

/* Under hugetlb_lock: a page leaving the pool is uncounted. */
static void uncount_page(struct hstate *h, int nid, bool surplus)
{
	h->nr_huge_pages--;
	h->nr_huge_pages_node[nid]--;
	if (surplus) {
		h->surplus_huge_pages--;
		h->surplus_huge_pages_node[nid]--;
	}
}

/* One page of h from node nid only, into the pool as a persistent free
 * page; true if the pool got it. */
static bool alloc_pool_page(struct hstate *h, int nid)
{
	nodemask_t only = nodemask_of_node(nid);
	struct page *page = alloc_buddy_hugetlb(h, nid, &only);
	if (!page)
		return false;
	spin_lock(&hugetlb_lock);
	account_new_page(h, nid, false);
	enqueue_hugetlb_folio(h, page);
	spin_unlock(&hugetlb_lock);
	return true;
}

/* One free page of h off node nid, back to the buddy allocator, if no
 * reservation needs it; true if there was one. */
static bool free_pool_page(struct hstate *h, int nid)
{
	spin_lock(&hugetlb_lock);
	if (h->free_huge_pages <= h->resv_huge_pages) {
		spin_unlock(&hugetlb_lock);
		return false;
	}
	struct page *page = dequeue_hugetlb_folio_node(h, nid);
	if (!page) {
		spin_unlock(&hugetlb_lock);
		return false;
	}
	uncount_page(h, nid, h->surplus_huge_pages_node[nid]);
	spin_unlock(&hugetlb_lock);
	release_to_buddy(h, page);
	return true;
}

static unsigned long persistent_huge_pages(const struct hstate *h)
{
	return h->nr_huge_pages - h->surplus_huge_pages;
}

long set_max_huge_pages(struct hstate *h, unsigned long count, int nid)
{
	if (!h->supported)
		return -EINVAL;
	if (nid != NUMA_NO_NODE && (nid < 0 || nid >= (int)num_online_nodes()))
		return -EINVAL;
	mutex_lock(&resize_lock);
	spin_lock(&hugetlb_lock);
	/* Linux: a node's target is that node's persistent count within the
	 * persistent total. */
	if (nid != NUMA_NO_NODE) {
		unsigned long others = persistent_huge_pages(h) -
				       (h->nr_huge_pages_node[nid] - h->surplus_huge_pages_node[nid]);
		count = count > ~0ul - others ? ~0ul : count + others;
	}
	/* Growing: surplus pages in use become persistent first (Linux's
	 * adjust_pool_surplus), then new pages come from the buddy allocator. */
	while (h->surplus_huge_pages && count > persistent_huge_pages(h)) {
		bool adjusted = false;
		for (int n = 0; n < MAX_NUMNODES && !adjusted; n++)
			if (h->surplus_huge_pages_node[n] && (nid == NUMA_NO_NODE || n == nid)) {
				h->surplus_huge_pages_node[n]--;
				h->surplus_huge_pages--;
				adjusted = true;
			}
		if (!adjusted)
			break; /* Linux's adjust_pool_surplus found none */
	}
	unsigned misses = 0;
	while (count > persistent_huge_pages(h)) {
		spin_unlock(&hugetlb_lock);
		int n = nid != NUMA_NO_NODE ? nid : next_node_with_memory(&h->next_nid_to_alloc);
		bool got = n != NUMA_NO_NODE && alloc_pool_page(h, n);
		cond_resched();
		spin_lock(&hugetlb_lock);
		if (got)
			misses = 0;
		else if (n == NUMA_NO_NODE || nid != NUMA_NO_NODE || ++misses >= num_online_nodes())
			break; /* every node refused in turn */
	}
	/* Shrinking: never below the pages in use and the reserved ones
	 * (Linux's min_count); free pages go back first, then pages in use
	 * beyond the count become surplus, to go when they are freed. */
	unsigned long min_count = h->resv_huge_pages + h->nr_huge_pages - h->free_huge_pages;
	unsigned long target = count > min_count ? count : min_count;
	misses = 0;
	while (target < persistent_huge_pages(h)) {
		spin_unlock(&hugetlb_lock);
		int n = nid != NUMA_NO_NODE ? nid : next_node_with_memory(&h->next_nid_to_free);
		bool freed = n != NUMA_NO_NODE && free_pool_page(h, n);
		cond_resched();
		spin_lock(&hugetlb_lock);
		if (freed)
			misses = 0;
		else if (n == NUMA_NO_NODE || nid != NUMA_NO_NODE || ++misses >= num_online_nodes())
			break; /* no free page left to give back */
	}
	while (count < persistent_huge_pages(h)) {
		int n = nid;
		if (n == NUMA_NO_NODE)
			for (n = 0; n < MAX_NUMNODES; n++)
				if (h->nr_huge_pages_node[n] > h->surplus_huge_pages_node[n])
					break;
		if (n >= MAX_NUMNODES || h->nr_huge_pages_node[n] <= h->surplus_huge_pages_node[n])
			break;
		h->surplus_huge_pages++;
		h->surplus_huge_pages_node[n]++;
	}
	long ret = (long)(nid == NUMA_NO_NODE ? h->nr_huge_pages : h->nr_huge_pages_node[nid]);
	spin_unlock(&hugetlb_lock);
	mutex_unlock(&resize_lock);
	return ret;
}

/* --- reservations and surplus pages ------------------------------------------- */

/* Under hugetlb_lock, dropped and taken again: the free surplus pages no
 * reservation needs go back to the buddy allocator (Linux's
 * return_unused_surplus_pages). */
static void return_unused_surplus_pages(struct hstate *h)
{
	int next = h->next_nid_to_free;
	for (unsigned misses = 0; h->surplus_huge_pages && h->free_huge_pages > h->resv_huge_pages &&
				  misses < MAX_NUMNODES;) {
		int nid = next++ % MAX_NUMNODES;
		struct page *page = h->surplus_huge_pages_node[nid] ? dequeue_hugetlb_folio_node(h, nid) : NULL;
		if (!page) {
			misses++;
			continue;
		}
		misses = 0;
		uncount_page(h, nid, true);
		spin_unlock(&hugetlb_lock);
		release_to_buddy(h, page);
		spin_lock(&hugetlb_lock);
	}
}

/* Under hugetlb_lock, dropped while allocating: one surplus page from the
 * buddy allocator (nid first, within mask), if nr_overcommit_hugepages
 * allows one more. As Linux's alloc_surplus_hugetlb_folio, the limit is
 * checked again once the page is there (another caller may have taken
 * the last surplus meanwhile: then the page goes back), and the page is
 * counted in one go, so no count is ever provisional. Returns it (not on
 * a free list), or NULL. */
static struct page *alloc_surplus_hugetlb_folio(struct hstate *h, int nid, const nodemask_t *mask)
{
	/* Linux: no surplus gigantic pages (hstate_is_gigantic). */
	if (hstate_is_gigantic(h) || h->surplus_huge_pages >= h->nr_overcommit_huge_pages)
		return NULL;
	spin_unlock(&hugetlb_lock);
	struct page *page = alloc_buddy_hugetlb(h, nid, mask);
	spin_lock(&hugetlb_lock);
	if (page && h->surplus_huge_pages >= h->nr_overcommit_huge_pages) {
		spin_unlock(&hugetlb_lock);
		release_to_buddy(h, page);
		spin_lock(&hugetlb_lock);
		return NULL;
	}
	if (page)
		account_new_page(h, page_to_nid(page), true);
	return page;
}

bool hugetlb_restore_reserve(struct hstate *h)
{
	spin_lock(&hugetlb_lock);
	bool ok = !h->surplus_huge_pages;
	if (ok)
		h->resv_huge_pages++;
	spin_unlock(&hugetlb_lock);
	return ok;
}

int hugetlb_acct_memory(struct hstate *h, long delta)
{
	int ret = 0;
	spin_lock(&hugetlb_lock);
	if (delta < 0) {
		h->resv_huge_pages -= (unsigned long)-delta;
		return_unused_surplus_pages(h);
		spin_unlock(&hugetlb_lock);
		return 0;
	}
	/* Linux's gather_surplus_pages: as many surplus pages as the free
	 * ones fall short of the reservations, each onto the free list. */
	int next = 0;
	while ((long)(h->resv_huge_pages + (unsigned long)delta) - (long)h->free_huge_pages > 0) {
		int nid = next_node_with_memory(&next);
		struct page *page = nid == NUMA_NO_NODE ? NULL : alloc_surplus_hugetlb_folio(h, nid, NULL);
		if (!page) {
			ret = -ENOMEM;
			break;
		}
		enqueue_hugetlb_folio(h, page);
	}
	if (!ret)
		h->resv_huge_pages += (unsigned long)delta;
	else
		return_unused_surplus_pages(h); /* the ones this call added */
	spin_unlock(&hugetlb_lock);
	return ret;
}

/* Under hugetlb_lock: the nearest free page to nid, on a node of mask
 * (NULL: any), by the fallback order of nid (Linux's
 * dequeue_hugetlb_folio_nodemask over the zonelist). */
static struct page *dequeue_hugetlb_folio_nodemask(struct hstate *h, int nid, const nodemask_t *mask)
{
	pg_data_t *pref = NODE_DATA(nid);
	for (int i = 0; i < pref->nr_fallback; i++) {
		int n = pref->fallback[i];
		if (mask && !node_isset(n, *mask))
			continue;
		struct page *page = dequeue_hugetlb_folio_node(h, n);
		if (page)
			return page;
	}
	return NULL;
}

struct page *alloc_hugetlb_folio(struct hstate *h, int nid, const nodemask_t *mask, bool preferred_many,
				 bool *reserve)
{
	struct page *page = NULL;
	bool use_reserve = *reserve;
	*reserve = false;
	spin_lock(&hugetlb_lock);
	/* Without a reservation only the free pages beyond the reserved ones
	 * may go (Linux's dequeue_hugetlb_folio_vma). */
	if (use_reserve || h->free_huge_pages > h->resv_huge_pages) {
		page = dequeue_hugetlb_folio_nodemask(h, nid, mask);
		if (!page && preferred_many)
			page = dequeue_hugetlb_folio_nodemask(h, nid, NULL);
	}
	if (page && use_reserve) {
		h->resv_huge_pages--;
		*reserve = true;
	}
	/* None on the nodes allowed: a surplus page (the reservation, if
	 * any, stays for a page elsewhere, as Linux's). */
	if (!page)
		page = alloc_surplus_hugetlb_folio(h, nid, preferred_many ? NULL : mask);
	spin_unlock(&hugetlb_lock);
	if (page) {
		page->_refcount = 1;
		page->_mapcount = -1;
	}
	return page;
}

void free_huge_folio(struct page *page, bool restore_reserve)
{
	struct hstate *h = NULL;
	for (int i = 0; i < HUGE_MAX_HSTATE; i++)
		if (page->private == hstates[i].order)
			h = &hstates[i];
	int nid = page_to_nid(page);
	page->_mapcount = -1;
	spin_lock(&hugetlb_lock);
	if (restore_reserve)
		h->resv_huge_pages++;
	if (h->surplus_huge_pages_node[nid]) {
		/* A surplus page goes back to the buddy allocator. */
		uncount_page(h, nid, true);
		spin_unlock(&hugetlb_lock);
		release_to_buddy(h, page);
		return;
	}
	enqueue_hugetlb_folio(h, page);
	spin_unlock(&hugetlb_lock);
}

void hugetlb_for_each_free_page(void (*fn)(struct page *head, unsigned long pages, void *arg), void *arg)
{
	spin_lock(&hugetlb_lock);
	for (int i = 0; i < HUGE_MAX_HSTATE; i++)
		for (int nid = 0; nid < MAX_NUMNODES; nid++) {
			struct page *page;
			list_for_each_entry(page, &hstates[i].hugepage_freelists[nid], lru)
				fn(page, pages_per_huge_page(&hstates[i]), arg);
		}
	spin_unlock(&hugetlb_lock);
}

/* Linux's arch_hugetlb_valid_size on x86: 2 MiB, and 1 GiB where the CPU
 * maps it (PDPE1GB) and the buddy allocator has the order. */
bool arch_hugetlb_valid_size(unsigned long size)
{
	if (size == huge_page_size(&hstates[HSTATE_2M]))
		return true;
	return size == huge_page_size(&hstates[HSTATE_1G]) && boot_cpu_has(X86_FEATURE_PDPE1GB) &&
	       18 <= MAX_PAGE_ORDER;
}

static int hugetlb_init(void)
{
	mutex_init(&resize_lock);
	for (int i = 0; i < HUGE_MAX_HSTATE; i++)
		hstates[i].supported = arch_hugetlb_valid_size(huge_page_size(&hstates[i]));
	for (int i = 0; i < HUGE_MAX_HSTATE; i++)
		for (int n = 0; n < MAX_NUMNODES; n++)
			INIT_LIST_HEAD(&hstates[i].hugepage_freelists[n]);
	/* The pools the command line asks for (mm/hugetlb_cmdline.c). */
	hugetlb_boot_pools();
	for (int i = 0; i < HUGE_MAX_HSTATE; i++) {
		struct hstate *h = &hstates[i];
		if (h->supported)
			pr_info("hugetlb: %lu kB pages: %lu in the pool%s\n", huge_page_size(h) >> 10,
				h->nr_huge_pages, i == default_hstate_idx ? " (the default size)" : "");
	}
	return 0;
}
late_initcall(hugetlb_init);

/* --- meminfo ------------------------------------------------------------------ */

unsigned long hugetlb_total_pages(void)
{
	unsigned long n = 0;
	for (int i = 0; i < HUGE_MAX_HSTATE; i++)
		n += READ_ONCE(hstates[i].nr_huge_pages) * pages_per_huge_page(&hstates[i]);
	return n;
}

void hugetlb_report_meminfo(struct seq_buf *m)
{
	const struct hstate *h = &hstates[default_hstate_idx];
	unsigned long total = 0;
	spin_lock(&hugetlb_lock);
	for (int i = 0; i < HUGE_MAX_HSTATE; i++)
		total += hstates[i].nr_huge_pages * huge_page_size(&hstates[i]);
	seq_buf_printf(m,
		       "HugePages_Total:   %5lu\nHugePages_Free:    %5lu\nHugePages_Rsvd:    %5lu\n"
		       "HugePages_Surp:    %5lu\nHugepagesize:   %8lu kB\n",
		       h->nr_huge_pages, h->free_huge_pages, h->resv_huge_pages, h->surplus_huge_pages,
		       huge_page_size(h) >> 10);
	spin_unlock(&hugetlb_lock);
	seq_buf_printf(m, "Hugetlb:        %8lu kB\n", total >> 10);
}

void hugetlb_report_node_meminfo(struct seq_buf *m, int nid)
{
	const struct hstate *h = &hstates[default_hstate_idx];
	seq_buf_printf(m, "Node %d HugePages_Total: %5lu\nNode %d HugePages_Free:  %5lu\nNode %d HugePages_Surp:  %5lu\n",
		       nid, READ_ONCE(h->nr_huge_pages_node[nid]), nid, READ_ONCE(h->free_huge_pages_node[nid]), nid,
		       READ_ONCE(h->surplus_huge_pages_node[nid]));
}

/* --- the files ------------------------------------------------------------------- */

static struct hstate *node_hstate(const struct proc_node *node) { return &hstates[node->hstate]; }

/* A count of the files: the hstate's, or (a node's file) the node's. */
static void show_count(struct seq_buf *m, const struct proc_node *node, const unsigned long *total,
		       const unsigned long *per_node)
{
	seq_buf_printf(m, "%lu\n", node->nid == NUMA_NO_NODE ? READ_ONCE(*total) : READ_ONCE(per_node[node->nid]));
}

static void nr_hugepages_show(struct seq_buf *m, const struct proc_node *node)
{
	const struct hstate *h = node_hstate(node);
	show_count(m, node, &h->nr_huge_pages, h->nr_huge_pages_node);
}

static void free_hugepages_show(struct seq_buf *m, const struct proc_node *node)
{
	const struct hstate *h = node_hstate(node);
	show_count(m, node, &h->free_huge_pages, h->free_huge_pages_node);
}

static void resv_hugepages_show(struct seq_buf *m, const struct proc_node *node)
{
	seq_buf_printf(m, "%lu\n", READ_ONCE(node_hstate(node)->resv_huge_pages));
}

static void surplus_hugepages_show(struct seq_buf *m, const struct proc_node *node)
{
	const struct hstate *h = node_hstate(node);
	show_count(m, node, &h->surplus_huge_pages, h->surplus_huge_pages_node);
}

static void nr_overcommit_hugepages_show(struct seq_buf *m, const struct proc_node *node)
{
	seq_buf_printf(m, "%lu\n", READ_ONCE(node_hstate(node)->nr_overcommit_huge_pages));
}

/* Linux's kstrtoul for these files: digits (base 10, or 0x), one
 * trailing newline. */
static int parse_count(const char *buf, size_t len, unsigned long *out)
{
	if (len && buf[len - 1] == '\n')
		len--;
	u64 v;
	if (!len || parse_u64(buf, len, &v))
		return -EINVAL;
	*out = (unsigned long)v;
	return 0;
}

/* Linux's __nr_hugepages_store_common: the pool set as far as memory
 * allows; the write itself succeeds (a short pool is read back). */
static long nr_hugepages_write(const struct proc_node *node, const char *buf, size_t len)
{
	unsigned long count;
	if (parse_count(buf, len, &count))
		return -EINVAL;
	long r = set_max_huge_pages(node_hstate(node), count, node->nid);
	return r < 0 ? r : (long)len;
}

/* Linux's nr_overcommit_hugepages_store: any count, but none for a
 * gigantic size (no surplus gigantic pages). Lowering it below the surplus
 * in use takes nothing away: those go as they are freed. */
static long nr_overcommit_hugepages_write(const struct proc_node *node, const char *buf, size_t len)
{
	struct hstate *h = node_hstate(node);
	unsigned long count;
	if (hstate_is_gigantic(h))
		return -EINVAL;
	if (parse_count(buf, len, &count))
		return -EINVAL;
	spin_lock(&hugetlb_lock);
	h->nr_overcommit_huge_pages = count;
	spin_unlock(&hugetlb_lock);
	return (long)len;
}

/* /proc/sys/vm/nr_hugepages: the default size's pool (Linux's
 * hugetlb_sysctl_handler: proc_doulongvec_minmax into a copy, then the
 * pool set as far as memory allows). */
static int hugetlb_sysctl_handler(const struct ctl_table *table, bool write, struct seq_buf *m,
				  const char *buf, size_t len)
{
	struct hstate *h = &hstates[default_hstate_idx];
	unsigned long count = READ_ONCE(h->nr_huge_pages);
	struct ctl_table copy = *table;
	copy.data = &count;
	int err = proc_doulongvec_minmax(&copy, write, m, buf, len);
	if (err || !write)
		return err;
	long r = set_max_huge_pages(h, count, NUMA_NO_NODE);
	return r < 0 ? (int)r : 0;
}

/* The files: /sys/kernel/mm/hugepages/hugepages-<kB>kB/ and
 * /sys/devices/system/node/node<N>/hugepages/hugepages-<kB>kB/, one
 * directory for each size the CPU can map (node->hstate is its index,
 * node->nid the node for the per-node ones, NUMA_NO_NODE for the global),
 * and /proc/sys/vm/nr_hugepages, the default size's (above). */
static bool hstate_dir_match(const char *s, size_t len, struct task_struct *task, struct proc_node *node)
{
	(void)task;
	for (int i = 0; i < HUGE_MAX_HSTATE; i++) {
		char name[32];
		int n = snprintf(name, sizeof(name), "hugepages-%lukB", huge_page_size(&hstates[i]) >> 10);
		if (hstates[i].supported && (size_t)n == len && !memcmp(s, name, len)) {
			node->hstate = i;
			return true;
		}
	}
	return false;
}

static bool hstate_dir_list(unsigned int i, struct task_struct *task, char *name, size_t size)
{
	(void)task;
	for (int h = 0; h < HUGE_MAX_HSTATE; h++)
		if (hstates[h].supported && i-- == 0) {
			snprintf(name, size, "hugepages-%lukB", huge_page_size(&hstates[h]) >> 10);
			return true;
		}
	return false;
}

static const struct proc_dir_entry hugepages_dir __proc_entry = {
	.parent = &sys_kernel_mm_dir, .name = "hugepages", .mode = S_IFDIR | 0555,
};
static const struct proc_dir_entry hstate_dir __proc_entry = {
	.parent = &hugepages_dir, .match = hstate_dir_match, .list = hstate_dir_list, .mode = S_IFDIR | 0555,
};
static const struct proc_dir_entry node_hugepages_dir __proc_entry = {
	.parent = &node_dir, .name = "hugepages", .mode = S_IFDIR | 0555,
};
static const struct proc_dir_entry node_hstate_dir __proc_entry = {
	.parent = &node_hugepages_dir, .match = hstate_dir_match, .list = hstate_dir_list, .mode = S_IFDIR | 0555,
};

PROC_FILE(hstate_free, hstate_dir, "free_hugepages", free_hugepages_show);
PROC_FILE_RW(hstate_nr, hstate_dir, "nr_hugepages", nr_hugepages_show, nr_hugepages_write);
PROC_FILE_RW(hstate_nr_overcommit, hstate_dir, "nr_overcommit_hugepages", nr_overcommit_hugepages_show,
	       nr_overcommit_hugepages_write);
PROC_FILE(hstate_resv, hstate_dir, "resv_hugepages", resv_hugepages_show);
PROC_FILE(hstate_surplus, hstate_dir, "surplus_hugepages", surplus_hugepages_show);
PROC_FILE(node_hstate_free, node_hstate_dir, "free_hugepages", free_hugepages_show);
PROC_FILE_RW(node_hstate_nr, node_hstate_dir, "nr_hugepages", nr_hugepages_show, nr_hugepages_write);
PROC_FILE(node_hstate_surplus, node_hstate_dir, "surplus_hugepages", surplus_hugepages_show);

SYSCTL_ENTRY(proc_sys_vm_dir, nr_hugepages, .maxlen = sizeof(unsigned long),
	     .proc_handler = hugetlb_sysctl_handler);
