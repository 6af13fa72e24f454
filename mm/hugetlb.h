/* hugetlb's pools of huge pages (Linux's mm/hugetlb.c), one per size:
 * 2 MiB (order 9) and, where the CPU can map it (PDPE1GB), 1 GiB (order
 * 18, from the buddy allocator's largest order). Each pool holds whole
 * allocations of its order, per node, taken from and given back to the
 * buddy allocator as its size is set:
 *
 *   hugepagesz=2M|1G hugepages=N|<node>:N,... default_hugepagesz=2M|1G
 *                                   the command line, read by the one
 *                                   parser (kernel/cmdline.h) in Linux's
 *                                   order (hugepages= sets the size named
 *                                   by the hugepagesz= before it, else the
 *                                   default) and with Linux's warnings
 *                                   (mm/hugetlb_cmdline.c)
 *   /proc/sys/vm/nr_hugepages       the default size's pool
 *   /sys/kernel/mm/hugepages/hugepages-<kB>kB/nr_hugepages, free_hugepages,
 *       resv_hugepages, surplus_hugepages, nr_overcommit_hugepages
 *   /sys/devices/system/node/node<N>/hugepages/hugepages-<kB>kB/
 *       nr_hugepages, free_hugepages, surplus_hugepages
 *   /proc/meminfo HugePages_*, Hugepagesize, Hugetlb, and the nodes' meminfo
 *
 * A pool grows node by node in turn over the nodes with memory (Linux's
 * alloc_pool_huge_folio over N_MEMORY), each page from its own node only,
 * until every node refuses; it shrinks by freeing free pages, node by node
 * in turn. Pages in a pool are not cleared: a huge page is cleared when it
 * is faulted in (mm/clear_page.h).
 *
 * Mappings (mm/hugetlb_vma.c): mmap(MAP_ANONYMOUS|MAP_PRIVATE|MAP_HUGETLB)
 * and mappings of hugetlbfs files (fs/hugetlbfs/hugetlbfs.h, whose
 * reservations are per file) take their pages from a pool. The mapping reserves one page per huge page
 * it covers at mmap (resv_huge_pages; -ENOMEM when free - resv cannot cover
 * it, after trying surplus pages), unless MAP_NORESERVE; a fault consumes
 * the reservation of its page and a page with it. Surplus pages
 * (nr_overcommit_hugepages) are taken from the buddy allocator when the
 * pool is short, at mmap for a reservation or at a fault without one, and
 * go back to it when freed. Linux's invariants, kept under hugetlb_lock:
 *   free_huge_pages >= resv_huge_pages (but for the moment between a zap
 *       restoring a reservation and the page reaching the free list),
 *   surplus_huge_pages <= nr_overcommit_huge_pages when it was taken,
 *   nr_huge_pages - surplus_huge_pages is the persistent pool nr_hugepages
 *       sets (the file shows nr_huge_pages, surplus included, as Linux).
 *
 * A page in use has PG_hugetlb on its head and PG_hugetlb_tail on each of
 * its other pages (private: the distance to the head), so a reference to
 * any 4 KiB of it (get_user_pages) is a reference to the whole
 * (compound_head, Linux's folio); its last put_page gives it back to its
 * pool (free_huge_folio).
 *
 * Locking: hugetlb_lock (a spinlock) guards the counts and the free lists;
 * pages are allocated and freed outside it; resize_lock (a mutex) lets one
 * set_max_huge_pages run at a time. */
#ifndef MM_HUGETLB_H
#define MM_HUGETLB_H

#include "lib/list.h"
#include "kernel/types.h"
#include "mm/numa.h"

struct seq_buf;
struct proc_node;

struct hstate {
	unsigned order;
	bool supported;                          /* the CPU can map it */
	unsigned long nr_huge_pages, free_huge_pages;
	unsigned long nr_huge_pages_node[MAX_NUMNODES], free_huge_pages_node[MAX_NUMNODES];
	unsigned long resv_huge_pages, surplus_huge_pages, nr_overcommit_huge_pages;
	unsigned long surplus_huge_pages_node[MAX_NUMNODES];
	struct list_head hugepage_freelists[MAX_NUMNODES];
	int next_nid_to_alloc, next_nid_to_free;
};

enum { HSTATE_2M, HSTATE_1G, HUGE_MAX_HSTATE };
extern struct hstate hstates[HUGE_MAX_HSTATE];
extern int default_hstate_idx;

static inline unsigned long huge_page_size(const struct hstate *h) { return 4096ul << h->order; }
static inline unsigned long huge_page_mask(const struct hstate *h) { return ~(huge_page_size(h) - 1); }
static inline unsigned long pages_per_huge_page(const struct hstate *h) { return 1ul << h->order; }
/* A page mapped by a PUD (1 GiB). Linux calls a page gigantic when it is
 * beyond the buddy allocator's largest order; mmlab's buddy allocator goes
 * up to 1 GiB (order 18), so the word means the 1 GiB size here, with
 * Linux's rules for it: no surplus pages, nr_overcommit_hugepages refused. */
static inline bool hstate_is_gigantic(const struct hstate *h) { return h->order >= 18; }

/* The hstate of a size in bytes, or NULL. */
struct hstate *size_to_hstate(unsigned long size);

/* Sets the pool of h to count pages: on node nid alone, or (NUMA_NO_NODE)
 * over every node with memory. Returns the pool's size afterwards (fewer
 * than asked when memory ran out), or -EINVAL for a size the CPU cannot
 * map. Linux's set_max_huge_pages. */
long set_max_huge_pages(struct hstate *h, unsigned long count, int nid);

/* The hstate of MAP_HUGETLB's size bits (flags >> MAP_HUGE_SHIFT &
 * MAP_HUGE_MASK: log2 of the size, 0 for the default), or NULL (Linux's
 * hstate_sizelog). */
struct hstate *hstate_sizelog(unsigned sizelog);

/* Linux's hugetlb_acct_memory: delta > 0 reserves delta pages (surplus
 * pages allocated when the pool is short and nr_overcommit_hugepages
 * allows): 0 or -ENOMEM, nothing reserved then; delta < 0 gives -delta
 * reservations back, and the surplus pages no longer needed with them. */
int hugetlb_acct_memory(struct hstate *h, long delta);

/* A page of h for a fault (Linux's alloc_hugetlb_folio and
 * dequeue_hugetlb_folio_nodemask): the nearest free page to nid within
 * mask (NULL: any; preferred_many: mask first, then any), one of the
 * reserved ones if *reserve (the fault's page has a reservation), else
 * only beyond them; failing that a surplus page. *reserve says on return
 * whether a reservation was consumed. Refcount 1, not cleared. NULL when
 * there is none: the fault's SIGBUS. */
struct page *alloc_hugetlb_folio(struct hstate *h, int nid, const nodemask_t *mask, bool preferred_many,
				 bool *reserve);
/* A zap of a private page whose mapping holds reservations gives the
 * reservation back, so that the page freed cannot be taken by another
 * mapping before this one faults again (Linux 6.8's "mm/hugetlb: restore
 * the reservation if needed"); not while there are surplus pages, as
 * Linux. true if it was given back (resv_huge_pages + 1). */
bool hugetlb_restore_reserve(struct hstate *h);
/* Gives page (its last reference gone) back to its pool, or to the buddy
 * allocator if it is surplus (Linux's free_huge_folio); restore_reserve:
 * the reservation its fault consumed comes back with it. */
void free_huge_folio(struct page *page, bool restore_reserve);
/* Calls fn(head, pages, arg) for every page on the pools' free lists,
 * under hugetlb_lock: fn must not sleep or allocate. For the page-owner
 * map (mm/page_owner_map.c): a free pool page keeps a reference, as one
 * in use does, so only the free lists tell them apart. */
void hugetlb_for_each_free_page(void (*fn)(struct page *head, unsigned long pages, void *arg), void *arg);

/* What hugepagesz=, hugepages= and default_hugepagesz= ask of the pools,
 * in the variables of Linux's mm/hugetlb.c as its __setup handlers leave
 * them: the sizes named so far (hugetlb_add_hstate; nr_added is
 * hugetlb_max_hstate), the size the next hugepages= sets (parsed_hstate),
 * whether the last size named was good (parsed_valid_hugepagesz), the
 * counts of each size in total and per node (max_huge_pages,
 * max_huge_pages_node), and a hugepages= read before any size was named
 * (default_hstate_max_huge_pages, default_hugepages_in_node). */
struct hugetlb_cmdline {
	bool added[HUGE_MAX_HSTATE];
	unsigned nr_added;
	int parsed_hstate;                  /* -1 until a size is named */
	bool parsed_valid_hugepagesz, parsed_default_hugepagesz;
	int default_hstate_idx;
	unsigned long max_huge_pages[HUGE_MAX_HSTATE];
	unsigned long max_huge_pages_node[HUGE_MAX_HSTATE][MAX_NUMNODES];
	unsigned long default_hstate_max_huge_pages;
	unsigned long default_hugepages_in_node[MAX_NUMNODES];
	const unsigned long *last_mhp;      /* the count the last hugepages= set */
};
#define HUGETLB_CMDLINE_INIT \
	{ .parsed_hstate = -1, .parsed_valid_hugepagesz = true, .default_hstate_idx = HSTATE_2M }

/* The command-line handlers write into req (reset) from now on, until
 * hugetlb_cmdline_end points them back at the boot's: so a test can
 * parse_params a text and read what it asks, without a boot. */
void hugetlb_cmdline_begin(struct hugetlb_cmdline *req);
void hugetlb_cmdline_end(void);
/* Once every word is read (Linux's hugetlb_init): a node count for a node
 * that is not online is refused, the default size is 2 MiB unless
 * default_hugepagesz= named one, and a hugepages= read before any size is
 * the default size's count (over the one given after hugepagesz=, with
 * Linux's warning). Then max_huge_pages[i] is what the pool of hstates[i]
 * is set to, node by node from max_huge_pages_node[i] when
 * hugetlb_cmdline_node_specific (Linux's node_specific_alloc). */
void hugetlb_cmdline_finish(struct hugetlb_cmdline *req);
bool hugetlb_cmdline_node_specific(const struct hugetlb_cmdline *req, int idx);
/* At boot (hugetlb_init): the boot's request finished, the default size
 * set, and each supported size's pool set to what it asks (with Linux's
 * warning when memory runs short). */
void hugetlb_boot_pools(void);
/* Whether a huge page of size bytes can be mapped: 2 MiB, and 1 GiB on a
 * CPU with PDPE1GB (Linux's arch_hugetlb_valid_size). Valid from the
 * command line on (the CPU's features are known by then). */
bool arch_hugetlb_valid_size(unsigned long size);

/* Every pool's pages, in 4 KiB pages (Linux's hugetlb_total_pages): the
 * overcommit limit leaves them out (mm/util.c's vm_commit_limit). */
unsigned long hugetlb_total_pages(void);

/* /proc/meminfo's lines and a node's. */
void hugetlb_report_meminfo(struct seq_buf *m);
void hugetlb_report_node_meminfo(struct seq_buf *m, int nid);

#endif
