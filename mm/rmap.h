/* The reverse map of anonymous memory (Linux's mm/rmap.c): from a page
 * back to every PTE that maps it, in every process.
 *
 * A page's mapping is the anon_vma of the VMA that first faulted it (with
 * PAGE_MAPPING_ANON set, Linux's encoding) and its index its page offset
 * there (linear_page_index: vm_pgoff + the page's distance from vm_start,
 * which mremap and splits keep in step). Every VMA that may map the page
 * is on that anon_vma's chain list: the pieces of the VMA (a split clones
 * the chain) and, after fork, each child's copy (anon_vma_fork clones the
 * parent's chain and adds an anon_vma of the child's own, whose parent is
 * the parent VMA's). rmap_walk visits each of those VMAs at the address
 * the page's index gives there.
 *
 * Map counts (Linux's): _mapcount is the number of PTEs and PMDs mapping
 * the page, minus one (-1: not mapped); a page first mapped by a fault
 * gets mapping and index (page_add_new_anon_rmap), fork's copy adds a
 * mapping (page_dup_rmap), every unmap removes one (page_remove_rmap),
 * and the last clears mapping. Each mapping also holds one reference
 * (_refcount), dropped by put_page after the TLB flush (mm/mmu_gather.h).
 *
 * Locking: the root anon_vma's rwsem, written by whatever changes a chain
 * list (under the mmap_lock of the VMA's mm), read by rmap_walk; an
 * anon_vma is freed only when its chain list is empty and no descendant
 * names it as root (refcount), so a walker holding a VMA of it, or a
 * mapped page and the root lock, finds it alive. _mapcount changes under
 * the lock of the page table whose entry changes (atomically: two mms'
 * locks may change the same page's count). */
#ifndef MM_RMAP_H
#define MM_RMAP_H

#include "mm/mm_types.h"
#include "mm/page.h"

#define PAGE_MAPPING_ANON 0x1ul

/* Linux's linear_page_index for anonymous memory. */
static inline unsigned long linear_page_index(const struct vm_area_struct *vma, unsigned long address)
{
	return vma->vm_pgoff + ((address - vma->vm_start) >> PAGE_SHIFT);
}

/* The anon_vma a mapped anonymous page belongs to, or NULL (a THP's 4 KiB
 * page: its head's). */
static inline struct anon_vma *page_anon_vma(const struct page *page)
{
	unsigned long m = (unsigned long)compound_head((struct page *)page)->mapping;
	return m & PAGE_MAPPING_ANON ? (struct anon_vma *)(m & ~PAGE_MAPPING_ANON) : NULL;
}
/* Linux's PageAnon: whether a mapped page is anonymous (its mapping an
 * anon_vma), not a file's page-cache page (mapping the address_space,
 * shared anonymous memory's unnamed file's too). A private file
 * mapping holds both kinds (mm/memory.c): the cache's pages read-only,
 * its own copies after a write. Only meaningful while the page is mapped
 * (the last unmap of an anonymous page clears its mapping). */
static inline bool PageAnon(const struct page *page)
{
	return (unsigned long)compound_head((struct page *)page)->mapping & PAGE_MAPPING_ANON;
}
/* Whether page (or the huge page it is part of) is in a file's page
 * cache: its mapping an address_space, not an anon_vma (Linux's
 * folio_mapping being non-NULL). Meaningful for any page, mapped or not,
 * since every page not in a page cache or an anon_vma has mapping NULL:
 * the page allocator refuses a free with a non-NULL one
 * (mm/page_alloc_checks.c, Linux's free_page_is_bad). */
static inline bool page_in_page_cache(const struct page *page)
{
	unsigned long m = (unsigned long)READ_ONCE(compound_head((struct page *)page)->mapping);
	return m && !(m & PAGE_MAPPING_ANON);
}
/* Whether page, mapped by vma, is anonymous: never in a shared VMA (its
 * object's or file's pages; their mapping word is not looked at), by
 * PageAnon in a private one. */
static inline bool vma_page_anon(const struct vm_area_struct *vma, const struct page *page)
{
	return !vma->vm_shm && PageAnon(page);
}
/* Its page offset (the head's, plus its place in the THP). */
static inline unsigned long page_anon_index(const struct page *page)
{
	const struct page *head = compound_head((struct page *)page);
	return head->index + (unsigned long)(page - head);
}

/* A THP (PG_anon_thp on its head) is mapped whole by PMDs, counted in
 * its second page's compound_mapcount (Linux's entire mapcount), and its
 * 4 KiB pages one by one by PTEs, each counted in its own _mapcount:
 * after fork shares a THP, a split of one process's PMD (a write, a
 * partial munmap or mprotect) maps its pages by PTEs while the other
 * process keeps the PMD. Then the tails point to the head
 * (PG_anon_tail), every mapping's reference is the head's, and the THP
 * stays whole until its last reference goes. */
static inline bool PageAnonThp(const struct page *head) { return page_test_flag(head, PG_anon_thp); }
static inline int *compound_mapcount_ptr(struct page *head) { return &head[1].compound_mapcount; }
static inline int thp_entire_mapcount(struct page *head)
{
	return __atomic_load_n(compound_mapcount_ptr(head), __ATOMIC_RELAXED) + 1;
}

/* How many page-table entries map page (Linux's page_mapcount): its own
 * PTEs, plus the PMDs mapping the THP (or tmpfs huge page) it is part of. */
static inline int page_mapcount(const struct page *page)
{
	int n = __atomic_load_n(&page->_mapcount, __ATOMIC_RELAXED) + 1;
	struct page *head = compound_head((struct page *)page);
	if (PageAnonThp(head))
		n += thp_entire_mapcount(head);
	else if (page_test_flag(head, PG_shmem_thp))
		n += (int)__atomic_load_n(shmem_thp_pmd_mapcount_ptr(head), __ATOMIC_RELAXED);
	return n;
}

/* The PTEs mapping page itself, without its THP's PMDs. */
static inline int page_mapcount_own(const struct page *page)
{
	return __atomic_load_n(&page->_mapcount, __ATOMIC_RELAXED) + 1;
}

/* The mappings of the THP head: its PMDs and every PTE of its pages
 * (Linux's folio_mapcount). */
static inline int thp_total_mapcount(struct page *head)
{
	int n = thp_entire_mapcount(head);
	for (unsigned long i = 0; i < (1ul << 9); i++)
		n += page_mapcount_own(head + i);
	return n;
}

/* A page first mapped, by vma at address (a fault, a THP fault, a
 * migration's new page): mapped once, in vma's anon_vma; compound: a
 * THP's head, mapped by a PMD. */
void page_add_new_anon_rmap(struct page *page, struct vm_area_struct *vma, unsigned long address, bool compound);
/* A swap-in maps page (4 KiB) by vma at address (Linux's
 * page_add_anon_rmap from do_swap_page): one mapping more; the first
 * sets the page's anon_vma, vma's own when the page is exclusive to it,
 * else the root of vma's (which every process fork made from it links
 * to, so the reverse map finds the other mappings the page may get from
 * their swap entries). Returns whether this was the first mapping. */
bool page_add_anon_rmap(struct page *page, struct vm_area_struct *vma, unsigned long address, bool exclusive);
/* One more entry maps page (fork's copy of a PTE, or of a PMD: compound). */
void page_dup_rmap(struct page *page, bool compound);
/* One entry less maps page (a PMD: compound); the last mapping of the
 * page (of the THP, for a THP's) clears its mapping. Returns how many
 * 4 KiB pages stopped being mapped at all (AnonPages' change); *pmd_gone
 * (for compound) says whether that was the THP's last PMD. */
unsigned long page_remove_rmap(struct page *page, bool compound, bool *pmd_gone);
static inline int *nr_pages_mapped_ptr(struct page *head) { return &head[1].nr_pages_mapped; }
/* A shared THP's PMD becomes a PTE table mapping its pages (under the PMD
 * lock): the tails point to the head, each page gains a mapping and the
 * head a reference for it, the PMD loses its mapping and reference; no
 * page changes being mapped. Returns whether that was the THP's last
 * PMD. */
bool thp_remap_as_ptes(struct page *head);
/* The THP goes (its last reference): the marks of a THP come off, so it
 * is freed as the order-9 block it was allocated as. */
void thp_prep_free(struct page *head);
/* Whether the 4 KiB page of a THP is this PTE's alone (no other mapping
 * of it, no PMD, no reference beyond the mappings'): a write may reuse it. */
bool thp_subpage_exclusive(struct page *page);

/* Gives vma an anon_vma before its first anonymous page (Linux's
 * anon_vma_prepare): a touching neighbour's that could merge with it
 * (find_mergeable_anon_vma, mm/vma.c), or a new one; 0, or -ENOMEM. Under
 * the mmap_lock, read at least. */
int anon_vma_prepare(struct vm_area_struct *vma);
/* dst (a copy of src: a split piece, mremap's new VMA) joins every
 * anon_vma src is on (Linux's anon_vma_clone); 0 or -ENOMEM (dst on
 * none then). dst's chain list must be empty. */
int anon_vma_clone(struct vm_area_struct *dst, struct vm_area_struct *src);
/* fork: vma, the child's copy of pvma, joins pvma's anon_vmas and gets
 * one of its own under pvma's (Linux's anon_vma_fork); 0 or -ENOMEM. */
int anon_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma);
/* vma leaves every anon_vma it is on (Linux's unlink_anon_vmas); an
 * anon_vma left with no VMA is freed. */
void unlink_anon_vmas(struct vm_area_struct *vma);
/* src is going away and dst takes over its pages (a merge in which dst,
 * without an anon_vma, grows over all of src): src's chains become
 * dst's, with no allocation. */
void anon_vma_move(struct vm_area_struct *dst, struct vm_area_struct *src);

/* Linux's rmap_walk_control, reduced: rmap_one is called for each VMA
 * that may map page, with the address the page has there; it returns
 * false to stop the walk. */
struct rmap_walk_control {
	void *arg;
	bool (*rmap_one)(struct page *page, struct vm_area_struct *vma, unsigned long address, void *arg);
	/* Reclaim's walk (Linux's): the lock is tried, never waited for;
	 * contended says a walk did not happen for it. */
	bool try_lock;
	bool contended;
};
/* Visits every VMA that may map the anonymous page page (mapped, and
 * kept so by the caller: a reference and a mapping that cannot go), with
 * the root anon_vma's rwsem held for reading. */
void rmap_walk(struct page *page, struct rmap_walk_control *rwc);
/* The same for a page of a file or of a shmem object (not PageAnon):
 * every VMA of its mapping's i_mmap covering its index, with the
 * i_mmap_rwsem held for reading (Linux's rmap_walk_file). */
void rmap_walk_file(struct page *page, struct rmap_walk_control *rwc);
/* Linux's folio_referenced (mm/vmscan.c): how many of the page's mappings had the
 * accessed bit set, each one cleared and its TLB entry flushed
 * (ptep_clear_flush_young); *vm_flags gets VM_LOCKED when a locked VMA
 * maps it (the walk stops there, the page is mlocked). -1 when a lock
 * could not be had without waiting: counted as referenced, as Linux. */
int folio_referenced(struct page *page, unsigned long *vm_flags);
/* The VMAs linked to anon_vma (its chain list), under no lock: for tests
 * of a quiet mm. */
long anon_vma_nr_chains(struct anon_vma *anon_vma);
/* For tests and /proc: the anon_vmas alive and the chains. */
long nr_anon_vmas(void);
/* The slab caches of anon_vmas and their chains (boot, after the slab). */
void anon_vma_init(void);
long nr_anon_vma_chains(void);

#endif
