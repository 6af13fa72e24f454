/* Transparent huge pages for anonymous memory: the fault, the deposit, the
 * split, the sysfs knobs and the counters (mm/huge_memory.h has the rules).
 * Follows Linux's mm/huge_memory.c (do_huge_pmd_anonymous_page,
 * __do_huge_pmd_anonymous_page, __split_huge_pmd_locked) and, for the
 * clearing, Ankur Arora's 2021 series ("clear_huge_page: use uncached
 * path", "gup: add FOLL_HINT_BULK, FAULT_FLAG_UNCACHED"). */
#include "mm/huge_memory.h"
#include "mm/swap.h"
#include "mm/khugepaged.h"
#include "fs/proc/proc_fs.h"
#include "arch/x86_64/cpu.h"
#include "kernel/cmdline.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "mm/clear_page.h"
#include "mm/mempolicy.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/pte_ref.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"

int thp_enabled_mode = THP_ENABLED_DEFAULT;
int thp_defrag_mode = THP_DEFRAG_MADVISE;
int thp_use_zero_page = 1;

static long anon_thps;

unsigned long nr_anon_thps(void) { return (unsigned long)__atomic_load_n(&anon_thps, __ATOMIC_RELAXED); }

/* --- may this VMA take a huge page here? ------------------------------------ */

bool thp_vma_allowable(struct vm_area_struct *vma, unsigned long haddr)
{
	int mode = READ_ONCE(thp_enabled_mode);
	/* A hugetlb VMA is not anonymous memory to THP (Linux's
	 * vma_is_anonymous is false for it): never a THP. */
	if (mode == THP_ENABLED_NEVER || (vma->vm_flags & (VM_NOHUGEPAGE | VM_SHARED | VM_HUGETLB)))
		return false;
	if (vma->vm_file) /* a private file mapping: the file's 4 KiB pages, or copies made one at a time */
		return false;
	/* PR_SET_THP_DISABLE: none for the whole mm, madvised or not (Linux's
	 * vma_thp_disabled). */
	if (mm_flag_test(vma->vm_mm, MMF_DISABLE_THP))
		return false;
	if (mode == THP_ENABLED_MADVISE && !(vma->vm_flags & VM_HUGEPAGE))
		return false;
	return haddr >= vma->vm_start && haddr + PMD_SIZE <= vma->vm_end;
}

bool thp_vma_eligible(struct vm_area_struct *vma)
{
	/* A tmpfs file's mapping, shared or private, and shared anonymous
	 * memory (Linux's vm_file there is an unnamed tmpfs file): huge= and
	 * shmem_enabled decide (Linux's hugepage_vma_check ->
	 * shmem_huge_enabled). A System V segment's vm_file is no
	 * shmem_file in Linux (shm_file_operations): never eligible there,
	 * though its faults may map huge pages. */
	if ((vma->vm_file && shmem_file(vma->vm_file)) || (!vma->vm_file && vma->vm_shm && !vma->vm_shm->attach_ops))
		return shmem_vma_eligible(vma);
	unsigned long first = (vma->vm_start + PMD_SIZE - 1) & PMD_MASK;
	return first >= vma->vm_start && first + PMD_SIZE <= vma->vm_end && thp_vma_allowable(vma, first);
}

/* Linux's vma_thp_gfp_mask: the defrag mode decides whether the fault may
 * reclaim before it falls back; a THP never warns when it fails. */
static gfp_t thp_gfp(struct vm_area_struct *vma)
{
	bool madvised = vma->vm_flags & VM_HUGEPAGE;
	gfp_t light = (GFP_HIGHUSER_MOVABLE & ~__GFP_RECLAIM) | __GFP_NOWARN | __GFP_NORETRY;
	switch (READ_ONCE(thp_defrag_mode)) {
	case THP_DEFRAG_ALWAYS:
		return GFP_HIGHUSER_MOVABLE | __GFP_NOWARN | __GFP_NORETRY;
	case THP_DEFRAG_MADVISE:
	case THP_DEFRAG_DEFER_MADVISE:
		return madvised ? (GFP_HIGHUSER_MOVABLE | __GFP_NOWARN | __GFP_NORETRY) : light;
	default:
		return light;
	}
}

/* --- the huge zero page ------------------------------------------------------ */

/* Linux's huge_zero_folio: 2 MiB of zeroes that read faults map read-only.
 * Linux allocates it at the first such fault and a shrinker frees it under
 * memory pressure; mmlab allocates it once at boot and keeps it, so that
 * no fault of a test changes what the test counts as free. */
static struct page *huge_zero_page;
unsigned long huge_zero_pfn = ~0ul;

static int huge_zero_page_init(void)
{
	struct page *z = alloc_pages(GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY, HPAGE_PMD_ORDER);
	if (!z) {
		count_vm_event(THP_ZERO_PAGE_ALLOC_FAILED);
		pr_info("THP: no 2 MiB block for the huge zero page: read faults map 4 KiB zero pages\n");
		return 0;
	}
	huge_zero_page = clear_page_uncached_make_coherent(clear_huge_page(z, HPAGE_PMD_ORDER, 0, 0, 0));
	WRITE_ONCE(huge_zero_pfn, page_to_pfn(z));
	count_vm_event(THP_ZERO_PAGE_ALLOC);
	return 0;
}
late_initcall(huge_zero_page_init);

/* Maps the huge zero page read-only at a none PMD (Linux's
 * set_huge_zero_folio, with the deposit of do_huge_pmd_anonymous_page): not
 * counted in RSS, as the 4 KiB zero page is not. 0, or VM_FAULT_FALLBACK
 * when there is no huge zero page or no table to deposit. */
static vm_fault_t map_huge_zero_page(struct vm_area_struct *vma, pmd_t *pmd, unsigned long haddr)
{
	struct mm_struct *mm = vma->vm_mm;
	if (!huge_zero_page || !READ_ONCE(thp_use_zero_page))
		return VM_FAULT_FALLBACK;
	struct page *table = pte_alloc_one(mm);
	if (!table)
		return VM_FAULT_FALLBACK;
	pmd_t entry = __pmd(page_to_phys(huge_zero_page) | (vma->vm_page_prot & ~_PAGE_RW) | _PAGE_PSE |
			    _PAGE_ACCESSED);
	spinlock_t *ptl = pmd_lockptr(mm, pmd);
	spin_lock(ptl);
	if (pmd_none(pmdp_get(pmd))) {
		pgtable_trans_huge_deposit(mm, pmd, table);
		set_pmd_at(mm, haddr, pmd, entry);
		table = NULL;
	}
	spin_unlock(ptl);
	if (table)
		pte_free(mm, table);
	return 0;
}

/* --- the deposit -------------------------------------------------------------- */

/* The table's pt_pad words are free while it is not installed (they hold
 * the rcu_head only once it is being freed). */
static struct list_head *deposit_link(struct page *table) { return (struct list_head *)table->pt_pad; }

_Static_assert(sizeof(struct list_head) <= sizeof(((struct page *)0)->pt_pad),
	       "a list_head fits in a page-table page's pt_pad words");

void pgtable_trans_huge_deposit(struct mm_struct *mm, pmd_t *pmd, struct page *table)
{
	(void)pmd;
	list_add(deposit_link(table), &mm->pmd_huge_pte);
	mm_account_pgtable(mm, 1, true); /* Linux's mm_inc_nr_ptes at the deposit */
}

struct page *pgtable_trans_huge_withdraw(struct mm_struct *mm, pmd_t *pmd)
{
	(void)pmd;
	if (list_empty(&mm->pmd_huge_pte))
		return NULL;
	struct list_head *l = mm->pmd_huge_pte.next;
	list_del(l);
	return container_of((void *)l, struct page, pt_pad);
}

void thp_check_deposits(struct mm_struct *mm)
{
	unsigned long n = 0;
	struct page *table;
	spin_lock(&mm->page_table_lock);
	while ((table = pgtable_trans_huge_withdraw(mm, NULL))) {
		mm_account_pgtable(mm, -1, true);
		pte_free(mm, table);
		n++;
	}
	spin_unlock(&mm->page_table_lock);
	if (n)
		pr_err("BUG: exit_mmap: %lu deposited PTE tables left without a huge PMD: freed\n", n);
}

/* --- the fault ------------------------------------------------------------------ */

vm_fault_t do_huge_pmd_anonymous_page(struct vm_area_struct *vma, pmd_t *pmd, unsigned long address,
				      unsigned int flags)
{
	unsigned long haddr = address & PMD_MASK;
	/* A read maps the huge zero page (use_zero_page, as Linux). */
	if (!(flags & FAULT_FLAG_WRITE))
		return map_huge_zero_page(vma, pmd, haddr);
	if (anon_vma_prepare(vma))
		return VM_FAULT_OOM;
	khugepaged_enter_vma(vma, vma->vm_flags); /* as Linux: a later split may be collapsed again */
	struct page *page = vma_alloc_folio(thp_gfp(vma), HPAGE_PMD_ORDER, vma, haddr);
	if (!page) {
		count_vm_event(THP_FAULT_FALLBACK);
		return VM_FAULT_FALLBACK;
	}
	/* Cleared here, never by __GFP_ZERO: the fence must come before the
	 * PMD (mm/clear_page.h), and the bulk hint is the fault's to give. */
	struct incoherent_page cleared =
		clear_huge_page(page, HPAGE_PMD_ORDER, address, flags & FAULT_FLAG_UNCACHED ? CLEAR_HUGE_BULK : 0,
				clear_page_uncached_threshold());
	page = clear_page_uncached_make_coherent(cleared);
	int err = map_anon_folio_pmd(vma, pmd, address & PMD_MASK, page, 0);
	if (err) {
		/* -EEXIST: another thread mapped a table or a huge page here
		 * first, and the access retries; -ENOMEM: no table to deposit. */
		__free_pages(page, HPAGE_PMD_ORDER);
		return err == -ENOMEM ? VM_FAULT_OOM : 0;
	}
	count_vm_event(THP_FAULT_ALLOC);
	return 0;
}

int map_anon_folio_pmd(struct vm_area_struct *vma, pmd_t *pmd, unsigned long haddr, struct page *page,
		       u64 clear_bits)
{
	struct mm_struct *mm = vma->vm_mm;
	struct page *table = pte_alloc_one(mm);
	if (!table)
		return -ENOMEM;
	pmd_t entry = __pmd((page_to_phys(page) | vma->vm_page_prot | _PAGE_PSE | _PAGE_DIRTY | _PAGE_ACCESSED) &
			    ~clear_bits);
	spinlock_t *ptl = pmd_lockptr(mm, pmd);
	spin_lock(ptl);
	if (!pmd_none(pmdp_get(pmd))) {
		spin_unlock(ptl);
		pte_free(mm, table);
		return -EEXIST;
	}
	pgtable_trans_huge_deposit(mm, pmd, table);
	anon_page_mapped(vma, page, haddr, HPAGE_PMD_NR);
	set_pmd_at(mm, haddr, pmd, entry);
	spin_unlock(ptl);
	return 0;
}

void anon_thps_add(long n) { __atomic_add_fetch(&anon_thps, n, __ATOMIC_RELAXED); }

int copy_huge_pmd(struct mm_struct *dst_mm, struct mm_struct *src_mm, pmd_t *dst_pmd, pmd_t *src_pmd,
		  unsigned long addr)
{
	struct page *table = pte_alloc_one(dst_mm);
	if (!table)
		return -ENOMEM;
	spinlock_t *ptl = pmd_lockptr(src_mm, src_pmd);
	spin_lock(ptl);
	pmd_t val = pmdp_get(src_pmd);
	if (!pmd_trans_huge(val)) {
		spin_unlock(ptl);
		pte_free(dst_mm, table);
		return -EAGAIN;
	}
	if (!is_huge_zero_pmd(val)) {
		anon_page_dup(dst_mm, pfn_to_page(pmd_pfn(val)), HPAGE_PMD_NR);
		if (pmd_write(val)) {
			/* Atomically: the CPU may set the dirty bit meanwhile. */
			__atomic_fetch_and(&src_pmd->pmd, ~(u64)_PAGE_RW, __ATOMIC_RELAXED);
			val = __pmd(pmd_val(val) & ~_PAGE_RW);
		}
	}
	/* The child's page_table_lock is its own, and nobody sees the child
	 * yet. */
	pgtable_trans_huge_deposit(dst_mm, dst_pmd, table);
	set_pmd_at(dst_mm, addr & PMD_MASK, dst_pmd, val);
	spin_unlock(ptl);
	return 0;
}

vm_fault_t do_huge_pmd_wp_page(struct vm_area_struct *vma, pmd_t *pmd, unsigned long address, pmd_t orig)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long haddr = address & PMD_MASK;
	spinlock_t *ptl = pmd_lockptr(mm, pmd);
	spin_lock(ptl);
	if (pmd_val(pmdp_get(pmd)) != pmd_val(orig)) {
		spin_unlock(ptl); /* changed meanwhile: the access faults again */
		return 0;
	}
	struct page *page = pfn_to_page(pmd_pfn(orig));
	if (vma->vm_shm) {
		/* A tmpfs huge page is written in place (Linux's
		 * wp_huge_pmd -> do_huge_pmd_wp_page is for anonymous
		 * memory; a shared file's PMD was read-only because an
		 * mprotect took the write bit). */
		set_pmd_at(mm, haddr, pmd, __pmd(pmd_val(orig) | _PAGE_RW | _PAGE_DIRTY | _PAGE_ACCESSED));
		spin_unlock(ptl);
		flush_tlb_mm_range(mm, haddr, haddr + PMD_SIZE);
		return 0;
	}
	if (!is_huge_zero_pmd(orig) && __atomic_load_n(&page->_refcount, __ATOMIC_ACQUIRE) == 1) {
		/* Ours alone (one reference: this PMD's, so no other mapping
		 * and no pin; get_user_pages splits a THP first): reused, as
		 * Linux reuses an exclusive anonymous THP. */
		set_pmd_at(mm, haddr, pmd, __pmd(pmd_val(orig) | _PAGE_RW | _PAGE_DIRTY | _PAGE_ACCESSED));
		spin_unlock(ptl);
		invlpg(address);
		return 0;
	}
	spin_unlock(ptl);
	/* The huge zero page, or a THP another process maps too since a
	 * fork: split, and the write faults again on the 4 KiB path, which
	 * copies the page written (Linux's fallback). */
	split_huge_pmd(mm, pmd, address);
	return 0;
}

/* --- the split ------------------------------------------------------------------ */

/* The last step of every split, under the PMD lock, with table's 512
 * entries written: not 2 MiB and 4 KiB translations at once (x86), so the
 * PMD goes, the TLB forgets it, then the table comes (Linux's
 * pmdp_invalidate and pmd_populate). */
static void install_split_table(struct mm_struct *mm, pmd_t *pmd, unsigned long haddr, struct page *table)
{
	pmdp_get_and_clear(mm, haddr, pmd);
	flush_tlb_mm_range(mm, haddr, haddr + PMD_SIZE);
	pte_ref_init(table, pmd, (int)HPAGE_PMD_NR); /* its 512 non-none entries */
	__atomic_thread_fence(__ATOMIC_RELEASE); /* the entries before the PMD that shows them */
	set_pmd(pmd, __pmd(page_to_phys(table) | _PAGE_TABLE));
}

/* Linux's __split_huge_zero_page_pmd: 512 entries of the 4 KiB zero page,
 * read-only as the PMD was; under the PMD lock. */
static void split_huge_zero_pmd(struct mm_struct *mm, pmd_t *pmd, unsigned long haddr, pmd_t old)
{
	struct page *table = pgtable_trans_huge_withdraw(mm, pmd);
	if (!table) {
		pmdp_get_and_clear(mm, haddr, pmd);
		flush_tlb_mm_range(mm, haddr, haddr + PMD_SIZE);
		pr_err("BUG: huge zero PMD at %#lx has no deposited PTE table: unmapped instead\n", haddr);
		return;
	}
	u64 bits = pmd_val(old) & ~(PTE_PFN_MASK | _PAGE_PSE);
	pte_t *ptes = page_address(table);
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++)
		ptes[i] = pfn_pte(page_to_pfn(zero_page), bits);
	install_split_table(mm, pmd, haddr, table);
}

void split_huge_pmd(struct mm_struct *mm, pmd_t *pmd, unsigned long address)
{
	unsigned long haddr = address & PMD_MASK;
	spinlock_t *ptl = pmd_lockptr(mm, pmd);
	spin_lock(ptl);
	pmd_t old = pmdp_get(pmd);
	if (!pmd_trans_huge(old)) {
		spin_unlock(ptl); /* split (or zapped) by someone else first */
		return;
	}
	unsigned long pfn = pmd_pfn(old);
	if (is_huge_zero_pmd(old)) {
		split_huge_zero_pmd(mm, pmd, haddr, old);
		spin_unlock(ptl);
		count_vm_event(THP_SPLIT_PMD);
		return;
	}
	struct page *page = pfn_valid(pfn) ? pfn_to_page(pfn) : NULL;
	if (page && page_test_flag(page, PG_shmem_thp)) {
		/* A tmpfs huge page (Linux's __split_huge_pmd_locked for a
		 * file VMA): the PMD just goes, no table deposited to put in
		 * its place; the next touch faults the pages in again. */
		pmdp_get_and_clear(mm, haddr, pmd);
		spin_unlock(ptl);
		flush_tlb_mm_range(mm, haddr, haddr + PMD_SIZE);
		shmem_pmd_unmapped(mm, page);
		put_page(page); /* the PMD's reference, after the flush */
		count_vm_event(THP_SPLIT_PMD);
		return;
	}
	if (!page || !PageHead(page) || page->private != HPAGE_PMD_ORDER) {
		spin_unlock(ptl);
		pr_err("BUG: huge PMD at %#lx maps pfn %#lx, not an order-9 page: not split\n", haddr, pfn);
		return;
	}
	struct page *table = pgtable_trans_huge_withdraw(mm, pmd);
	if (!table) {
		spin_unlock(ptl);
		pr_err("BUG: huge PMD at %#lx has no deposited PTE table: not split\n", haddr);
		return;
	}
	/* Every entry keeps the PMD's bits but the huge one: present or
	 * PROT_NONE, writable or not, dirty, accessed, NX. */
	u64 bits = pmd_val(old) & ~(PTE_PFN_MASK | _PAGE_PSE);
	pte_t *ptes = page_address(table);
	/* Exclusive: this PMD's reference alone, frozen to 0 (Linux's
	 * folio_ref_freeze) so that no LRU scan takes one while the THP's
	 * single LRU entry becomes 512 (lru_split_folio). */
	if (thp_entire_mapcount(page) != 1 || __atomic_load_n(nr_pages_mapped_ptr(page), __ATOMIC_ACQUIRE) ||
	    !__atomic_compare_exchange_n(&page->_refcount, &(int){ 1 }, 0, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED)) {
		/* Shared: the THP stays whole, its pages mapped one by one. */
		for (unsigned long i = 0; i < HPAGE_PMD_NR; i++)
			ptes[i] = pfn_pte(pfn + i, bits);
		if (thp_remap_as_ptes(page))
			anon_thps_add(-1);
		install_split_table(mm, pmd, haddr, table);
		spin_unlock(ptl);
		count_vm_event(THP_SPLIT_PMD);
		return;
	}
	void *mapping = page->mapping;
	unsigned long index = page->index;
	thp_prep_free(page); /* no longer a THP: 512 pages of their own */
	split_page(page, HPAGE_PMD_ORDER);
	lru_split_folio(page, HPAGE_PMD_NR);
	__atomic_store_n(&page->_refcount, 1, __ATOMIC_RELEASE);
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i++) {
		ptes[i] = pfn_pte(pfn + i, bits);
		/* Each 4 KiB page is its own now, in the same anon_vma. */
		page[i].mapping = mapping;
		page[i].index = index + i;
		page[i]._mapcount = 0;
	}
	install_split_table(mm, pmd, haddr, table);
	spin_unlock(ptl);
	anon_thps_add(-1);
	count_vm_event(THP_SPLIT_PMD);
}

/* Linux's split_huge_pmd_address: the huge PMD covering address, if any. */
static void split_huge_pmd_address(struct vm_area_struct *vma, unsigned long address)
{
	pmd_t *pmd = mm_find_pmd(vma->vm_mm, address);
	if (pmd && pmd_trans_huge(pmdp_get(pmd)))
		split_huge_pmd(vma->vm_mm, pmd, address);
}

/* A boundary b of vma's new range that is not 2 MiB aligned, inside a
 * 2 MiB the VMA held whole: a huge PMD there would be mapped by two VMAs. */
static bool boundary_cuts_pmd(struct vm_area_struct *vma, unsigned long b)
{
	unsigned long h = b & PMD_MASK;
	return (b & ~PMD_MASK) && h >= vma->vm_start && h + PMD_SIZE <= vma->vm_end;
}

void vma_adjust_trans_huge(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	if (vma->vm_flags & VM_HUGETLB)
		return; /* its splits are at its page size (hugetlb_vm_op_split) */
	if (start != vma->vm_start && boundary_cuts_pmd(vma, start))
		split_huge_pmd_address(vma, start);
	if (end != vma->vm_end && boundary_cuts_pmd(vma, end))
		split_huge_pmd_address(vma, end);
}

/* --- sysfs and /proc/vmstat ---------------------------------------------------- */

static const char *const enabled_words[] = { "always", "madvise", "never" };
static const char *const defrag_words[] = { "always", "defer", "defer+madvise", "madvise", "never" };

/* Linux's format: every word, the one in force in brackets. */
static void show_choice(struct seq_buf *m, const char *const *words, int n, int cur)
{
	for (int i = 0; i < n; i++)
		seq_buf_printf(m, i == cur ? "%s[%s]" : "%s%s", i ? " " : "", words[i]);
	seq_buf_printf(m, "\n");
}

/* Linux's sysfs_streq: the word, optionally followed by one newline. */
static int match_choice(const char *const *words, int n, const char *buf, size_t len)
{
	if (len && buf[len - 1] == '\n')
		len--;
	for (int i = 0; i < n; i++)
		if (strlen(words[i]) == len && !memcmp(words[i], buf, len))
			return i;
	return -EINVAL;
}

void thp_enabled_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	show_choice(m, enabled_words, 3, READ_ONCE(thp_enabled_mode));
}

long thp_enabled_write(const struct proc_node *node, const char *buf, size_t len)
{
	(void)node;
	int i = match_choice(enabled_words, 3, buf, len);
	if (i < 0)
		return i;
	WRITE_ONCE(thp_enabled_mode, i);
	khugepaged_wake(); /* it sleeps while the mode is never */
	return (long)len;
}

/* transparent_hugepage=always|madvise|never sets the mode the enabled file
 * shows and the fault path follows, as Linux's setup_transparent_hugepage;
 * any other value is refused with Linux's warning (and the parser's, which
 * says what is expected) and the mode stays. */
static int setup_transparent_hugepage(const char *str)
{
	for (int i = 0; str && i < 3; i++)
		if (!strcmp(str, enabled_words[i])) {
			WRITE_ONCE(thp_enabled_mode, i);
			return 0;
		}
	pr_warn("transparent_hugepage= cannot parse, ignored\n");
	return -EINVAL;
}

static void show_transparent_hugepage(char *buf, size_t size)
{
	snprintf(buf, size, "%s", enabled_words[READ_ONCE(thp_enabled_mode)]);
}
kernel_param_setup("transparent_hugepage", setup_transparent_hugepage, show_transparent_hugepage,
		   "always, madvise or never", "which anonymous mappings get transparent huge pages "
		   "(also /sys/kernel/mm/transparent_hugepage/enabled)");

void thp_defrag_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	show_choice(m, defrag_words, 5, READ_ONCE(thp_defrag_mode));
}

long thp_defrag_write(const struct proc_node *node, const char *buf, size_t len)
{
	(void)node;
	int i = match_choice(defrag_words, 5, buf, len);
	if (i < 0)
		return i;
	WRITE_ONCE(thp_defrag_mode, i);
	return (long)len;
}

void thp_use_zero_page_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	seq_buf_printf(m, "%d\n", READ_ONCE(thp_use_zero_page));
}

/* Linux's use_zero_page_store: kstrtoul, then 0 or 1 only. */
long thp_use_zero_page_write(const struct proc_node *node, const char *buf, size_t len)
{
	(void)node;
	size_t n = len;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == 0))
		n--;
	if (n != 1 || (buf[0] != '0' && buf[0] != '1'))
		return -EINVAL;
	WRITE_ONCE(thp_use_zero_page, buf[0] - '0');
	return (long)len;
}

void thp_hpage_pmd_size_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	seq_buf_printf(m, "%lu\n", PMD_SIZE);
}

/* /sys/kernel/mm/transparent_hugepage. */
const struct proc_dir_entry thp_dir __proc_entry = {
	.parent = &sys_kernel_mm_dir, .name = "transparent_hugepage", .mode = S_IFDIR | 0555,
};
PROC_FILE_RW(thp_defrag_file, thp_dir, "defrag", thp_defrag_show, thp_defrag_write);
PROC_FILE_RW(thp_enabled_file, thp_dir, "enabled", thp_enabled_show, thp_enabled_write);
PROC_FILE(thp_hpage_pmd_size_file, thp_dir, "hpage_pmd_size", thp_hpage_pmd_size_show);

/* shmem_enabled (Linux's shmem_enabled_show/store): the huge= of the
 * kernel's internal tmpfs instance (memfd_create, SysV shm: mm/shmem_huge.c),
 * or deny (no huge page on any instance) or force (huge pages on every
 * one). Linux's words in its order, with their SHMEM_HUGE_* values. */
static const char *const shmem_enabled_words[] = { "always", "within_size", "advise", "never", "deny", "force" };
static const int shmem_enabled_values[] = { SHMEM_HUGE_ALWAYS, SHMEM_HUGE_WITHIN_SIZE, SHMEM_HUGE_ADVISE,
					    SHMEM_HUGE_NEVER,  SHMEM_HUGE_DENY,	       SHMEM_HUGE_FORCE };
static void thp_shmem_enabled_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	int cur = READ_ONCE(shmem_huge), i = 0;
	while (i < 5 && shmem_enabled_values[i] != cur)
		i++;
	show_choice(m, shmem_enabled_words, 6, i);
}
static long thp_shmem_enabled_write(const struct proc_node *node, const char *buf, size_t len)
{
	(void)node;
	int i = match_choice(shmem_enabled_words, 6, buf, len);
	if (i < 0)
		return i;
	shmem_huge_set(shmem_enabled_values[i]);
	return (long)len;
}
PROC_FILE_RW(thp_shmem_enabled_file, thp_dir, "shmem_enabled", thp_shmem_enabled_show, thp_shmem_enabled_write);
PROC_FILE_RW(thp_use_zero_page_file, thp_dir, "use_zero_page", thp_use_zero_page_show, thp_use_zero_page_write);

void thp_vmstat_show(struct seq_buf *m)
{
	seq_buf_printf(m, "nr_shmem_hugepages %lu\nnr_shmem_pmdmapped %lu\n", nr_shmem_thps(),
		       nr_shmem_pmdmapped());
	seq_buf_printf(m, "nr_anon_transparent_hugepages %lu\n", nr_anon_thps());
	seq_buf_printf(m, "thp_fault_alloc %lu\nthp_fault_fallback %lu\n", all_vm_events(THP_FAULT_ALLOC),
		       all_vm_events(THP_FAULT_FALLBACK));
	seq_buf_printf(m, "thp_collapse_alloc %lu\nthp_collapse_alloc_failed %lu\n", all_vm_events(THP_COLLAPSE_ALLOC),
		       all_vm_events(THP_COLLAPSE_ALLOC_FAILED));
	seq_buf_printf(m, "thp_file_alloc %lu\nthp_file_fallback %lu\nthp_file_mapped %lu\n",
		       all_vm_events(THP_FILE_ALLOC), all_vm_events(THP_FILE_FALLBACK), all_vm_events(THP_FILE_MAPPED));
	seq_buf_printf(m, "thp_split_page %lu\nthp_split_page_failed %lu\n", all_vm_events(THP_SPLIT_PAGE),
		       all_vm_events(THP_SPLIT_PAGE_FAILED));
	seq_buf_printf(m, "thp_split_pmd %lu\n", all_vm_events(THP_SPLIT_PMD));
	seq_buf_printf(m, "thp_scan_exceed_none_pte %lu\nthp_scan_exceed_swap_pte %lu\nthp_scan_exceed_share_pte %lu\n",
		       all_vm_events(THP_SCAN_EXCEED_NONE_PTE), all_vm_events(THP_SCAN_EXCEED_SWAP_PTE),
		       all_vm_events(THP_SCAN_EXCEED_SHARED_PTE));
	seq_buf_printf(m, "thp_zero_page_alloc %lu\nthp_zero_page_alloc_failed %lu\n",
		       all_vm_events(THP_ZERO_PAGE_ALLOC), all_vm_events(THP_ZERO_PAGE_ALLOC_FAILED));
	seq_buf_printf(m, "thp_swpout %lu\nthp_swpout_fallback %lu\n", all_vm_events(THP_SWPOUT),
		       all_vm_events(THP_SWPOUT_FALLBACK));
}
