/* The reverse map of anonymous memory: anon_vmas, their chains, the map
 * counts and rmap_walk (Linux's mm/rmap.c; mm/rmap.h has the rules).
 * Portable: the host test of the VMA layer runs it with its stubs. The
 * anon_vmas and their chains come from a slab cache each, as Linux's
 * (anon_vma_init: "anon_vma" and "anon_vma_chain" in /proc/slabinfo). */
#include "mm/rmap.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "mm/slab.h"
#include "mm/vma.h"
#include "mm/pgtable.h"
#include "fs/fs.h"
#include "mm/interval_tree.h"

static long anon_vmas_alive, avcs_alive;
static struct kmem_cache *anon_vma_cachep, *anon_vma_chain_cachep;

void anon_vma_init(void)
{
	anon_vma_cachep = kmem_cache_create("anon_vma", sizeof(struct anon_vma), 0, 0, NULL);
	anon_vma_chain_cachep = kmem_cache_create("anon_vma_chain", sizeof(struct anon_vma_chain), 0, 0, NULL);
	if (!anon_vma_cachep || !anon_vma_chain_cachep)
		panic("anon_vma_init: no slab cache for anon_vmas");
}

long nr_anon_vmas(void) { return __atomic_load_n(&anon_vmas_alive, __ATOMIC_RELAXED); }
long nr_anon_vma_chains(void) { return __atomic_load_n(&avcs_alive, __ATOMIC_RELAXED); }

long anon_vma_nr_chains(struct anon_vma *anon_vma)
{
	long n = 0;
	struct anon_vma_chain *avc;
	list_for_each_entry(avc, &anon_vma->head, same_anon_vma)
		n++;
	return n;
}

/* --- anon_vma and anon_vma_chain ----------------------------------------- */

static struct anon_vma *anon_vma_alloc(void)
{
	struct anon_vma *anon_vma = kmem_cache_alloc(anon_vma_cachep, GFP_KERNEL);
	if (!anon_vma)
		return NULL;
	anon_vma->refcount = 1;
	anon_vma->root = anon_vma->parent = anon_vma;
	init_rwsem(&anon_vma->rwsem);
	INIT_LIST_HEAD(&anon_vma->head);
	__atomic_add_fetch(&anon_vmas_alive, 1, __ATOMIC_RELAXED);
	return anon_vma;
}

/* Linux's put_anon_vma/__put_anon_vma: a non-root anon_vma holds a
 * reference on its root, dropped when it goes. */
static void put_anon_vma(struct anon_vma *anon_vma)
{
	while (anon_vma && __atomic_sub_fetch(&anon_vma->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
		struct anon_vma *root = anon_vma->root;
		if (!list_empty(&anon_vma->head))
			pr_err("BUG: anon_vma %p freed with VMAs on its chain list\n", (void *)anon_vma);
		kmem_cache_free(anon_vma_cachep, anon_vma);
		__atomic_sub_fetch(&anon_vmas_alive, 1, __ATOMIC_RELAXED);
		anon_vma = root == anon_vma ? NULL : root;
	}
}

static struct anon_vma_chain *anon_vma_chain_alloc(gfp_t gfp)
{
	struct anon_vma_chain *avc = kmem_cache_alloc(anon_vma_chain_cachep, gfp);
	if (avc)
		__atomic_add_fetch(&avcs_alive, 1, __ATOMIC_RELAXED);
	return avc;
}

static void anon_vma_chain_free(struct anon_vma_chain *avc)
{
	kmem_cache_free(anon_vma_chain_cachep, avc);
	__atomic_sub_fetch(&avcs_alive, 1, __ATOMIC_RELAXED);
}

/* Under the root's rwsem held for writing. */
static void anon_vma_chain_link(struct vm_area_struct *vma, struct anon_vma_chain *avc,
				struct anon_vma *anon_vma)
{
	avc->vma = vma;
	avc->anon_vma = anon_vma;
	list_add(&avc->same_vma, &vma->anon_vma_chain);
	list_add_tail(&avc->same_anon_vma, &anon_vma->head);
}

static void anon_vma_lock_write(struct anon_vma *anon_vma) { down_write(&anon_vma->root->rwsem); }
static void anon_vma_unlock_write(struct anon_vma *anon_vma) { up_write(&anon_vma->root->rwsem); }

/* Linux's lock_anon_vma_root/unlock_anon_vma_root: every chain of one VMA
 * leads to an anon_vma of the same tree, so a walk over a VMA's chains
 * takes the root's lock once instead of once per chain (a process 1,000
 * forks deep has 1,000 chains per VMA). root is the lock held so far
 * (NULL: none); a chain into another tree would switch locks. */
static struct anon_vma *lock_anon_vma_root(struct anon_vma *root, struct anon_vma *anon_vma)
{
	if (anon_vma->root != root) {
		if (root)
			up_write(&root->rwsem);
		root = anon_vma->root;
		down_write(&root->rwsem);
	}
	return root;
}

static void unlock_anon_vma_root(struct anon_vma *root)
{
	if (root)
		up_write(&root->rwsem);
}

/* Linux's __anon_vma_prepare: faults of several threads may reach a VMA
 * without an anon_vma at once (each under the read lock). What it needs is
 * allocated first; vma->anon_vma and its chain are set under the anon_vma
 * lock and mm->page_table_lock, and the loser's allocations are freed
 * unused. */
int anon_vma_prepare(struct vm_area_struct *vma)
{
	if (__atomic_load_n(&vma->anon_vma, __ATOMIC_ACQUIRE))
		return 0;
	struct mm_struct *mm = vma->vm_mm;
	struct anon_vma_chain *avc = anon_vma_chain_alloc(GFP_KERNEL);
	if (!avc)
		return -ENOMEM;
	/* The neighbours are stable: changing them takes the write lock. */
	struct anon_vma *anon_vma = find_mergeable_anon_vma(vma), *allocated = NULL;
	if (!anon_vma) {
		anon_vma = allocated = anon_vma_alloc();
		if (!allocated) {
			anon_vma_chain_free(avc);
			return -ENOMEM;
		}
	}
	anon_vma_lock_write(anon_vma);
	spin_lock(&mm->page_table_lock);
	if (!vma->anon_vma) {
		anon_vma_chain_link(vma, avc, anon_vma);
		__atomic_store_n(&vma->anon_vma, anon_vma, __ATOMIC_RELEASE);
		avc = NULL;
		allocated = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	anon_vma_unlock_write(anon_vma);
	if (avc)
		anon_vma_chain_free(avc);
	put_anon_vma(allocated);
	return 0;
}

int anon_vma_clone(struct vm_area_struct *dst, struct vm_area_struct *src)
{
	struct anon_vma_chain *pavc;
	struct anon_vma *root = NULL;
	if (!list_empty(&dst->anon_vma_chain))
		pr_err("BUG: anon_vma_clone into a VMA that has chains already\n");
	/* Oldest first, as Linux (list_for_each_entry_reverse): the copy's
	 * list ends up in the same order as src's. Each chain is allocated
	 * under the root's lock without waiting, as Linux does (reclaim walks
	 * the reverse map under these locks); failing that, the lock is
	 * dropped for an allocation that may wait. */
	list_for_each_entry_reverse(pavc, &src->anon_vma_chain, same_vma) {
		struct anon_vma_chain *avc = anon_vma_chain_alloc(GFP_NOWAIT | __GFP_NOWARN);
		if (!avc) {
			unlock_anon_vma_root(root);
			root = NULL;
			avc = anon_vma_chain_alloc(GFP_KERNEL);
			if (!avc) {
				unlink_anon_vmas(dst);
				return -ENOMEM;
			}
		}
		root = lock_anon_vma_root(root, pavc->anon_vma);
		anon_vma_chain_link(dst, avc, pavc->anon_vma);
	}
	unlock_anon_vma_root(root);
	dst->anon_vma = src->anon_vma;
	return 0;
}

int anon_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma)
{
	/* Nothing faulted in the parent's VMA: the child's first fault
	 * makes its anon_vma (Linux's early return). */
	if (!pvma->anon_vma)
		return 0;
	vma->anon_vma = NULL;
	INIT_LIST_HEAD(&vma->anon_vma_chain);
	if (anon_vma_clone(vma, pvma))
		return -ENOMEM;
	struct anon_vma *anon_vma = anon_vma_alloc();
	struct anon_vma_chain *avc = anon_vma ? anon_vma_chain_alloc(GFP_KERNEL) : NULL;
	if (!avc) {
		put_anon_vma(anon_vma);
		unlink_anon_vmas(vma);
		return -ENOMEM;
	}
	/* The new anon_vma joins the parent's tree: same root (and lock), a
	 * reference on the root so that it outlives its descendants. */
	anon_vma->root = pvma->anon_vma->root;
	anon_vma->parent = pvma->anon_vma;
	__atomic_add_fetch(&anon_vma->root->refcount, 1, __ATOMIC_RELAXED);
	vma->anon_vma = anon_vma;
	anon_vma_lock_write(anon_vma);
	anon_vma_chain_link(vma, avc, anon_vma);
	anon_vma_unlock_write(anon_vma);
	return 0;
}

void unlink_anon_vmas(struct vm_area_struct *vma)
{
	struct anon_vma_chain *avc, *next;
	struct anon_vma *root = NULL;
	/* Under the root's lock, taken once: each chain leaves its anon_vma's
	 * list; the chains of anon_vmas left with no VMA stay on the VMA's
	 * list for the second pass. */
	list_for_each_entry_safe(avc, next, &vma->anon_vma_chain, same_vma) {
		struct anon_vma *anon_vma = avc->anon_vma;
		root = lock_anon_vma_root(root, anon_vma);
		list_del(&avc->same_anon_vma);
		if (list_empty(&anon_vma->head))
			continue;
		list_del(&avc->same_vma);
		anon_vma_chain_free(avc);
	}
	unlock_anon_vma_root(root);
	/* Their last VMA gone, those anon_vmas lose their own reference (their
	 * pages were unmapped before, as Linux's free_pgtables order has it),
	 * outside the lock as in Linux: the last put may free the root. */
	list_for_each_entry_safe(avc, next, &vma->anon_vma_chain, same_vma) {
		put_anon_vma(avc->anon_vma);
		list_del(&avc->same_vma);
		anon_vma_chain_free(avc);
	}
	vma->anon_vma = NULL;
}

void anon_vma_move(struct vm_area_struct *dst, struct vm_area_struct *src)
{
	struct anon_vma_chain *avc, *next;
	struct anon_vma *root = NULL;
	if (!list_empty(&dst->anon_vma_chain))
		pr_err("BUG: anon_vma_move into a VMA that has chains already\n");
	list_for_each_entry_safe_reverse(avc, next, &src->anon_vma_chain, same_vma) {
		root = lock_anon_vma_root(root, avc->anon_vma);
		avc->vma = dst;
		list_del(&avc->same_vma);
		list_add(&avc->same_vma, &dst->anon_vma_chain);
	}
	unlock_anon_vma_root(root);
	dst->anon_vma = src->anon_vma;
	src->anon_vma = NULL;
}

/* --- map counts ------------------------------------------------------------ */

void page_add_new_anon_rmap(struct page *page, struct vm_area_struct *vma, unsigned long address, bool compound)
{
	page->mapping = (void *)((unsigned long)vma->anon_vma | PAGE_MAPPING_ANON);
	page->index = linear_page_index(vma, address);
	if (compound) {
		/* The page's own _mapcount stays -1: it counts PTEs. */
		page_set_flag(page, PG_anon_thp);
		*compound_mapcount_ptr(page) = 0;
		*nr_pages_mapped_ptr(page) = 0;
		return;
	}
	__atomic_store_n(&page->_mapcount, 0, __ATOMIC_RELAXED);
}

bool page_add_anon_rmap(struct page *page, struct vm_area_struct *vma, unsigned long address, bool exclusive)
{
	if (__atomic_add_fetch(&page->_mapcount, 1, __ATOMIC_ACQ_REL) > 0)
		return false;
	struct anon_vma *anon_vma = exclusive ? vma->anon_vma : vma->anon_vma->root;
	page->mapping = (void *)((unsigned long)anon_vma | PAGE_MAPPING_ANON);
	page->index = linear_page_index(vma, address);
	return true;
}

void page_dup_rmap(struct page *page, bool compound)
{
	__atomic_add_fetch(compound ? compound_mapcount_ptr(page) : &page->_mapcount, 1, __ATOMIC_RELAXED);
}

static void clear_anon_mapping(struct page *head)
{
	head->mapping = NULL;
	head->index = 0;
}

unsigned long page_remove_rmap(struct page *page, bool compound, bool *pmd_gone)
{
	struct page *head = compound_head(page);
	if (compound) {
		/* A PMD: the THP's 512 pages stop being mapped unless a PTE
		 * maps some of them (or another PMD all). */
		*pmd_gone = __atomic_sub_fetch(compound_mapcount_ptr(head), 1, __ATOMIC_ACQ_REL) < 0;
		if (!*pmd_gone)
			return 0;
		int by_ptes = __atomic_load_n(nr_pages_mapped_ptr(head), __ATOMIC_ACQUIRE);
		if (!by_ptes)
			clear_anon_mapping(head);
		return HPAGE_PMD_NR - (unsigned long)by_ptes;
	}
	if (__atomic_sub_fetch(&page->_mapcount, 1, __ATOMIC_ACQ_REL) >= 0)
		return 0;
	if (!PageAnonThp(head)) {
		/* Linux keeps folio->mapping until the free; here the last
		 * unmap clears it, so a page is never found through a stale
		 * anon_vma. */
		clear_anon_mapping(page);
		return 1;
	}
	/* A THP's 4 KiB page: unmapped now, unless a PMD maps the THP. */
	int left = __atomic_sub_fetch(nr_pages_mapped_ptr(head), 1, __ATOMIC_ACQ_REL);
	if (thp_entire_mapcount(head))
		return 0;
	if (!left)
		clear_anon_mapping(head);
	return 1;
}

bool thp_remap_as_ptes(struct page *head)
{
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++) {
		struct page *sub = head + i;
		if (i && !page_test_flag(sub, PG_anon_tail)) {
			sub->private = i;
			page_set_flag(sub, PG_anon_tail);
		}
		if (__atomic_add_fetch(&sub->_mapcount, 1, __ATOMIC_RELAXED) == 0)
			__atomic_add_fetch(nr_pages_mapped_ptr(head), 1, __ATOMIC_RELAXED);
	}
	/* 512 PTE mappings' references for the PMD's one. */
	__atomic_add_fetch(&head->_refcount, (int)HPAGE_PMD_NR - 1, __ATOMIC_RELAXED);
	return __atomic_sub_fetch(compound_mapcount_ptr(head), 1, __ATOMIC_ACQ_REL) < 0;
}

void thp_prep_free(struct page *head)
{
	page_clear_flag(head, PG_anon_thp);
	clear_anon_mapping(head);
	head[1].mapping = NULL;
	head[1].index = 0;
	for (unsigned long i = 1; i < HPAGE_PMD_NR; i++) {
		if (!page_test_flag(head + i, PG_anon_tail))
			break; /* never mapped by PTEs: no tail was marked */
		page_clear_flag(head + i, PG_anon_tail);
		head[i].private = 0;
	}
}

bool thp_subpage_exclusive(struct page *page)
{
	struct page *head = compound_head(page);
	if (thp_entire_mapcount(head) || page_mapcount(page) != 1)
		return false;
	/* No reference beyond the mappings' (a get_user_pages pin, say). */
	long mappings = 0;
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++)
		mappings += __atomic_load_n(&head[i]._mapcount, __ATOMIC_RELAXED) + 1;
	return __atomic_load_n(&head->_refcount, __ATOMIC_ACQUIRE) == mappings;
}

/* --- rmap_walk --------------------------------------------------------------- */

/* Linux's rmap_walk_anon: every VMA on the page's anon_vma's chain list
 * whose range holds the page's index. */
void rmap_walk(struct page *page, struct rmap_walk_control *rwc)
{
	struct anon_vma *anon_vma = page_anon_vma(page);
	if (!anon_vma)
		return;
	unsigned long pgoff = page_anon_index(page);
	if (!rwc->try_lock) {
		down_read(&anon_vma->root->rwsem);
	} else if (!down_read_trylock(&anon_vma->root->rwsem)) {
		rwc->contended = true;
		return;
	}
	struct anon_vma_chain *avc;
	list_for_each_entry(avc, &anon_vma->head, same_anon_vma) {
		struct vm_area_struct *vma = avc->vma;
		unsigned long pages = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
		if (pgoff < vma->vm_pgoff || pgoff - vma->vm_pgoff >= pages)
			continue;
		unsigned long address = vma->vm_start + ((pgoff - vma->vm_pgoff) << PAGE_SHIFT);
		if (!rwc->rmap_one(page, vma, address, rwc->arg))
			break;
	}
	up_read(&anon_vma->root->rwsem);
}

void rmap_walk_file(struct page *page, struct rmap_walk_control *rwc)
{
	struct address_space *mapping = compound_head(page)->mapping;
	if (!mapping || ((unsigned long)mapping & PAGE_MAPPING_ANON))
		return;
	unsigned long index = page->index;
	if (!rwc->try_lock) {
		down_read(&mapping->i_mmap_rwsem);
	} else if (!down_read_trylock(&mapping->i_mmap_rwsem)) {
		rwc->contended = true;
		return;
	}
	struct vm_area_struct *vma;
	vma_interval_tree_foreach(vma, &mapping->i_mmap, index, index) {
		unsigned long address = vma->vm_start + ((index - vma->vm_pgoff) << PAGE_SHIFT);
		if (!rwc->rmap_one(page, vma, address, rwc->arg))
			break;
	}
	up_read(&mapping->i_mmap_rwsem);
}
