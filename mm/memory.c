/* User page tables: the walk and its on-demand allocation (__pte_alloc,
 * pmd_install), anonymous page faults, and the teardown (unmap_page_range,
 * free_pgd_range) that hands pages and tables to an mmu_gather.
 *
 * Invariants (see also mm/memory.h):
 *   - a PTE is none (0), present, or PROT_NONE (_PAGE_PROTNONE: a page is
 *     behind it but every access faults);
 *   - a present PTE maps an anonymous page with _mapcount 0, counted in
 *     MM_ANONPAGES and nr_anon_pages(), or the zero page, never writable;
 *   - page-table pages below the PGD have PG_table and are counted in
 *     mm->pgtables_bytes (and nr_ptes at the PTE level) and in
 *     nr_user_pagetable_pages() while installed;
 *   - upper-level user entries are _PAGE_TABLE (present, writable, user):
 *     the leaf PTE alone decides what an access may do.
 * Installing a table takes mm->page_table_lock (pmd_install); the rest runs
 * in the mm's own task (mm/mm_types.h). */
#include "mm/memory.h"
#include "arch/x86_64/boot_paging.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/pgtable.h"
#include "arch/x86_64/tlb.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "mm/mmap.h"
#include "mm/mmu_gather.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

struct page *zero_page;
static unsigned long zero_pfn;
static long user_pagetable_pages;
static long anon_pages;

unsigned long nr_user_pagetable_pages(void) { return (unsigned long)__atomic_load_n(&user_pagetable_pages, __ATOMIC_RELAXED); }
unsigned long nr_anon_pages(void) { return (unsigned long)__atomic_load_n(&anon_pages, __ATOMIC_RELAXED); }

static inline phys_addr_t page_to_phys(const struct page *p) { return (phys_addr_t)page_to_pfn(p) << PAGE_SHIFT; }

pgprot_t vm_get_page_prot(unsigned long vm_flags)
{
	if (!(vm_flags & VM_ACCESS_FLAGS))
		return _PAGE_PROTNONE | _PAGE_ACCESSED;
	/* x86 cannot map write-only or execute-only: both can be read. */
	pgprot_t prot = _PAGE_PRESENT | _PAGE_USER | _PAGE_ACCESSED;
	if (vm_flags & VM_WRITE)
		prot |= _PAGE_RW;
	if (!(vm_flags & VM_EXEC) && boot_cpu_has(X86_FEATURE_NX))
		prot |= _PAGE_NX;
	return prot;
}

/* --- page-table pages --------------------------------------------------- */

static struct page *pgtable_alloc_one(void)
{
	struct page *p = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
	if (p)
		page_set_flag(p, PG_table);
	return p;
}

/* A table that never got installed (lost a race, or the caller failed). */
static void pgtable_free_uninstalled(struct page *p)
{
	page_clear_flag(p, PG_table);
	__free_page(p);
}

static void mm_account_table(struct mm_struct *mm, long delta, bool pte_level)
{
	__atomic_add_fetch(&mm->pgtables_bytes, delta * (long)PAGE_SIZE, __ATOMIC_RELAXED);
	if (pte_level)
		__atomic_add_fetch(&mm->nr_ptes, delta, __ATOMIC_RELAXED);
	__atomic_add_fetch(&user_pagetable_pages, delta, __ATOMIC_RELAXED);
}

/* Installs a PUD or PMD table in an empty upper entry (PGD or PUD). */
static int upper_table_alloc(struct mm_struct *mm, u64 *entry)
{
	struct page *new = pgtable_alloc_one();
	if (!new)
		return -ENOMEM;
	spin_lock(&mm->page_table_lock);
	if (!*entry) {
		mm_account_table(mm, 1, false);
		WRITE_ONCE(*entry, page_to_phys(new) | _PAGE_TABLE);
		new = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	if (new)
		pgtable_free_uninstalled(new);
	return 0;
}

enum pmd_installed_type pmd_install(struct mm_struct *mm, pmd_t *pmd, struct page **new)
{
	enum pmd_installed_type ret = INSTALLED_PTE;
	spin_lock(&mm->page_table_lock);
	if (pmd_none(*pmd)) {
		mm_account_table(mm, 1, true);
		(*new)->pmd = pmd; /* the PMD entry that maps this PTE table */
		WRITE_ONCE(*pmd, page_to_phys(*new) | _PAGE_TABLE);
		*new = NULL;
	} else if (pmd_trans_huge(*pmd)) {
		ret = INSTALLED_HUGE_PMD;
	}
	spin_unlock(&mm->page_table_lock);
	return ret;
}

int __pte_alloc(struct mm_struct *mm, pmd_t *pmd)
{
	struct page *new = pgtable_alloc_one();
	if (!new)
		return -ENOMEM;
	int ret = pmd_install(mm, pmd, &new);
	if (new)
		pgtable_free_uninstalled(new);
	return ret;
}

pmd_t *walk_to_pmd(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgd = &mm->pgd[pgd_index(addr)];
	if (pgd_none(*pgd))
		return NULL;
	pud_t *pud = &entry_table(*pgd)[pud_index(addr)];
	if (pud_none(*pud))
		return NULL;
	return &entry_table(*pud)[pmd_index(addr)];
}

pte_t *walk_to_pte(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = walk_to_pmd(mm, addr);
	if (!pmd || pmd_none(*pmd) || pmd_trans_huge(*pmd))
		return NULL;
	return &entry_table(*pmd)[pte_index(addr)];
}

pte_t *pte_alloc_walk(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgd = &mm->pgd[pgd_index(addr)];
	if (pgd_none(*pgd) && upper_table_alloc(mm, pgd))
		return NULL;
	pud_t *pud = &entry_table(*pgd)[pud_index(addr)];
	if (pud_none(*pud) && upper_table_alloc(mm, pud))
		return NULL;
	pmd_t *pmd = &entry_table(*pud)[pmd_index(addr)];
	if (pmd_none(*pmd)) {
		/* The return value says what the PMD holds now: no need to
		 * read it again (the point of the 2021 change). */
		int ret = __pte_alloc(mm, pmd);
		if (ret < 0 || ret == INSTALLED_HUGE_PMD)
			return NULL;
	} else if (pmd_trans_huge(*pmd)) {
		return NULL;
	}
	return &entry_table(*pmd)[pte_index(addr)];
}

/* The next size-aligned boundary after addr, or end if that comes first
 * (the step of every range walk; the comparison is done minus one so that
 * a boundary that wraps to 0 at the top still counts as past end). */
static unsigned long range_next(unsigned long addr, unsigned long end, unsigned long size)
{
	unsigned long boundary = (addr + size) & ~(size - 1);
	return boundary - 1 < end - 1 ? boundary : end;
}

/* --- TLB ---------------------------------------------------------------- */

static void flush_tlb_mm_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	flush_tlb_user_range(mm_cpumask(mm), __pa(mm->pgd), start, end);
}

/* --- faults ------------------------------------------------------------- */

static struct page *alloc_anon_page(void)
{
	return alloc_pages(GFP_USER | __GFP_ZERO, 0);
}

static void anon_page_mapped(struct mm_struct *mm, struct page *page)
{
	page->_mapcount = 0;
	add_mm_counter(mm, MM_ANONPAGES, 1);
	__atomic_add_fetch(&anon_pages, 1, __ATOMIC_RELAXED);
	unsigned long rss = get_mm_rss(mm);
	if (rss > mm->hiwater_rss)
		mm->hiwater_rss = rss;
}

static void anon_page_unmapped(struct mm_struct *mm, struct page *page)
{
	page->_mapcount = -1;
	add_mm_counter(mm, MM_ANONPAGES, -1);
	__atomic_sub_fetch(&anon_pages, 1, __ATOMIC_RELAXED);
}

/* A fault on a none PTE: a read maps the zero page, a write a new zeroed
 * page. */
static vm_fault_t do_anonymous_page(struct vm_area_struct *vma, unsigned long address, pte_t *pte,
				    unsigned int flags)
{
	if (!(flags & FAULT_FLAG_WRITE)) {
		WRITE_ONCE(*pte, ((u64)zero_pfn << PAGE_SHIFT) | (vma->vm_page_prot & ~_PAGE_RW));
		return 0;
	}
	/* The first anonymous page of the VMA: it needs an anon_vma (the
	 * zero page above does not, as in Linux). */
	if (anon_vma_prepare(vma))
		return VM_FAULT_OOM;
	struct page *page = alloc_anon_page();
	if (!page)
		return VM_FAULT_OOM;
	anon_page_mapped(vma->vm_mm, page);
	WRITE_ONCE(*pte, page_to_phys(page) | vma->vm_page_prot | _PAGE_DIRTY);
	(void)address;
	return 0;
}

/* A write to a present read-only PTE of a writable VMA: the zero page is
 * replaced by a page of its own (copy-on-write of zeros); a page of our own
 * made read-only by an earlier protection just gets its write bit. */
static vm_fault_t do_wp_page(struct vm_area_struct *vma, unsigned long address, pte_t *pte)
{
	pte_t old = *pte;
	if (pte_pfn(old) == zero_pfn) {
		if (anon_vma_prepare(vma))
			return VM_FAULT_OOM;
		struct page *page = alloc_anon_page();
		if (!page)
			return VM_FAULT_OOM;
		anon_page_mapped(vma->vm_mm, page);
		WRITE_ONCE(*pte, page_to_phys(page) | vma->vm_page_prot | _PAGE_DIRTY);
	} else {
		WRITE_ONCE(*pte, old | _PAGE_RW | _PAGE_DIRTY);
	}
	/* The old read-only translation may be cached on any CPU of the mm. */
	flush_tlb_mm_range(vma->vm_mm, address, address + PAGE_SIZE);
	return 0;
}

vm_fault_t handle_mm_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags)
{
	struct mm_struct *mm = vma->vm_mm;
	address &= PAGE_MASK;
	pte_t *pte = pte_alloc_walk(mm, address);
	if (!pte)
		return VM_FAULT_OOM;
	mm->page_faults++;
	pte_t entry = *pte;
	if (pte_none(entry))
		return do_anonymous_page(vma, address, pte, flags);
	if (!(entry & _PAGE_PRESENT))
		return VM_FAULT_SIGSEGV; /* PROT_NONE: the VMA check let it through wrongly */
	if ((flags & FAULT_FLAG_WRITE) && !pte_write(entry)) {
		if (!(vma->vm_flags & VM_WRITE))
			return VM_FAULT_SIGSEGV;
		return do_wp_page(vma, address, pte);
	}
	/* Spurious: the PTE already allows it (a stale TLB entry from before a
	 * protection upgrade on this CPU). */
	invlpg(address);
	return 0;
}

int populate_vma_range(struct vm_area_struct *vma, unsigned long start, unsigned long end,
		       bool write)
{
	unsigned n = 0;
	for (unsigned long a = start & PAGE_MASK; a < end; a += PAGE_SIZE) {
		pte_t *pte = walk_to_pte(vma->vm_mm, a);
		if (pte && pte_present(*pte) && (!write || pte_write(*pte)))
			continue;
		if (!(vma->vm_flags & VM_ACCESS_FLAGS))
			continue; /* PROT_NONE: nothing to fault in */
		if (handle_mm_fault(vma, a, write ? FAULT_FLAG_WRITE : 0) & VM_FAULT_ERROR)
			return -ENOMEM;
		if (++n % 512 == 0)
			cond_resched();
	}
	return 0;
}

/* --- teardown ----------------------------------------------------------- */

static void zap_pte_range(struct mmu_gather *tlb, struct vm_area_struct *vma, pmd_t *pmd,
			  unsigned long addr, unsigned long end)
{
	pte_t *pte = &entry_table(*pmd)[pte_index(addr)];
	for (; addr != end; addr += PAGE_SIZE, pte++) {
		pte_t entry = *pte;
		if (pte_none(entry))
			continue;
		WRITE_ONCE(*pte, 0);
		if (pte_pfn(entry) == zero_pfn) {
			tlb_flush_range_add(tlb, addr, PAGE_SIZE);
			continue;
		}
		struct page *page = pfn_to_page(pte_pfn(entry));
		anon_page_unmapped(vma->vm_mm, page);
		tlb_remove_page(tlb, page, addr);
	}
}

void unmap_page_range(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long addr,
		      unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long next;
	for (; addr < end; addr = next) {
		next = range_next(addr, end, PGDIR_SIZE);
		pgd_t *pgd = &mm->pgd[pgd_index(addr)];
		if (pgd_none(*pgd))
			continue;
		for (unsigned long a = addr, n; a < next; a = n) {
			n = range_next(a, next, PUD_SIZE);
			pud_t *pud = &entry_table(*pgd)[pud_index(a)];
			if (pud_none(*pud))
				continue;
			for (unsigned long b = a, m; b < n; b = m) {
				m = range_next(b, n, PMD_SIZE);
				pmd_t *pmd = &entry_table(*pud)[pmd_index(b)];
				if (pmd_none(*pmd) || pmd_trans_huge(*pmd))
					continue;
				zap_pte_range(tlb, vma, pmd, b, m);
			}
		}
		cond_resched();
	}
}

void zap_page_range(struct vm_area_struct *vma, unsigned long start, unsigned long size)
{
	struct mmu_gather tlb;
	tlb_gather_mmu(&tlb, vma->vm_mm);
	unmap_page_range(&tlb, vma, start, start + size);
	tlb_finish_mmu(&tlb);
}

/* free_pgd_range and its levels follow Linux's floor/ceiling rules: a table
 * is freed only when every address it covers lies inside [floor, ceiling),
 * i.e. no neighbouring VMA can still need it. */
static void free_pte_range(struct mmu_gather *tlb, struct mm_struct *mm, pmd_t *pmd,
			   unsigned long addr)
{
	struct page *table = virt_to_page(entry_table(*pmd));
	WRITE_ONCE(*pmd, 0);
	mm_account_table(mm, -1, true);
	tlb_remove_table(tlb, table, addr & PMD_MASK, PMD_SIZE);
}

/* After its entries are gone: frees the table *entry points to (a PMD
 * table under a PUD entry, size PUD_SIZE, or a PUD table under a PGD
 * entry, size PGDIR_SIZE) if all it covers, [start rounded down to size,
 * + size), lies in [floor, ceiling) as far as this range can tell
 * (Linux's test, the same at each level). */
static void free_upper_table(struct mmu_gather *tlb, struct mm_struct *mm, u64 *entry,
			     unsigned long start, unsigned long end, unsigned long floor,
			     unsigned long ceiling, unsigned long size)
{
	unsigned long mask = ~(size - 1);
	start &= mask;
	if (start < floor)
		return;
	if (ceiling) {
		ceiling &= mask;
		if (!ceiling)
			return;
	}
	if (end - 1 > ceiling - 1)
		return;
	struct page *table = virt_to_page(entry_table(*entry));
	WRITE_ONCE(*entry, 0);
	mm_account_table(mm, -1, false);
	tlb_remove_table(tlb, table, start, size);
}

static void free_pmd_range(struct mmu_gather *tlb, struct mm_struct *mm, pud_t *pud,
			   unsigned long addr, unsigned long end, unsigned long floor,
			   unsigned long ceiling)
{
	unsigned long start = addr, next;
	for (; addr < end; addr = next) {
		next = range_next(addr, end, PMD_SIZE);
		pmd_t *pmd = &entry_table(*pud)[pmd_index(addr)];
		if (!pmd_none(*pmd))
			free_pte_range(tlb, mm, pmd, addr);
	}
	free_upper_table(tlb, mm, pud, start, end, floor, ceiling, PUD_SIZE);
}

static void free_pud_range(struct mmu_gather *tlb, struct mm_struct *mm, pgd_t *pgd,
			   unsigned long addr, unsigned long end, unsigned long floor,
			   unsigned long ceiling)
{
	unsigned long start = addr, next;
	for (; addr < end; addr = next) {
		next = range_next(addr, end, PUD_SIZE);
		pud_t *pud = &entry_table(*pgd)[pud_index(addr)];
		if (!pud_none(*pud))
			free_pmd_range(tlb, mm, pud, addr, next, floor, ceiling);
	}
	free_upper_table(tlb, mm, pgd, start, end, floor, ceiling, PGDIR_SIZE);
}

void free_pgd_range(struct mmu_gather *tlb, unsigned long addr, unsigned long end,
		    unsigned long floor, unsigned long ceiling)
{
	struct mm_struct *mm = tlb->mm;
	/* Only PTE tables wholly inside [floor, ceiling) may go: round the
	 * range inwards to PMD boundaries where a neighbour shares them. */
	addr &= PMD_MASK;
	if (addr < floor) {
		addr += PMD_SIZE;
		if (!addr)
			return;
	}
	if (ceiling) {
		ceiling &= PMD_MASK;
		if (!ceiling)
			return;
	}
	if (end - 1 > ceiling - 1)
		end -= PMD_SIZE;
	if (addr > end - 1)
		return;
	unsigned long next;
	for (; addr < end; addr = next) {
		next = range_next(addr, end, PGDIR_SIZE);
		pgd_t *pgd = &mm->pgd[pgd_index(addr)];
		if (!pgd_none(*pgd))
			free_pud_range(tlb, mm, pgd, addr, next, floor, ceiling);
	}
}

unsigned long change_protection(struct vm_area_struct *vma, unsigned long start, unsigned long end,
				pgprot_t newprot)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long changed = 0, next;
	for (unsigned long a = start; a < end; a = next) {
		/* Missing tables are skipped whole, at whatever level they miss:
		 * a huge sparse mapping costs what it has mapped. */
		pgd_t *pgd = &mm->pgd[pgd_index(a)];
		if (pgd_none(*pgd)) {
			next = range_next(a, end, PGDIR_SIZE);
			continue;
		}
		pud_t *pud = &entry_table(*pgd)[pud_index(a)];
		if (pud_none(*pud)) {
			next = range_next(a, end, PUD_SIZE);
			continue;
		}
		next = range_next(a, end, PMD_SIZE);
		pmd_t *pmd = &entry_table(*pud)[pmd_index(a)];
		if (pmd_none(*pmd) || pmd_trans_huge(*pmd))
			continue;
		pte_t *pte = &entry_table(*pmd)[pte_index(a)];
		for (unsigned long b = a; b < next; b += PAGE_SIZE, pte++) {
			pte_t old = *pte;
			if (!pte_present(old))
				continue;
			pte_t new = (old & (PTE_PFN_MASK | _PAGE_DIRTY)) | newprot;
			if (pte_pfn(old) == zero_pfn)
				new &= ~(pgprot_t)_PAGE_RW;
			if (new != old) {
				WRITE_ONCE(*pte, new);
				changed++;
			}
		}
		cond_resched();
	}
	if (changed)
		flush_tlb_mm_range(mm, start, end);
	return changed;
}

/* --- address spaces ----------------------------------------------------- */

struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = kmalloc(sizeof(*mm), GFP_KERNEL | __GFP_ZERO);
	if (!mm)
		return NULL;
	struct page *pgd = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
	if (!pgd) {
		kfree(mm);
		return NULL;
	}
	mm->pgd = page_address(pgd);
	/* The kernel half: entries that never change (memory_init made them
	 * all), so a copy made now stays right. */
	memcpy(mm->pgd + PTRS_PER_TABLE / 2, swapper_pg_dir + PTRS_PER_TABLE / 2,
	       PTRS_PER_TABLE / 2 * sizeof(u64));
	mm->mm_rb = RB_ROOT;
	spin_lock_init(&mm->page_table_lock);
	mm->mm_users = 1;
	mm->mm_count = 1;
	mm->mmap_base = MMAP_BASE;
	return mm;
}

void mmput(struct mm_struct *mm)
{
	if (__atomic_sub_fetch(&mm->mm_users, 1, __ATOMIC_ACQ_REL))
		return;
	/* Stop using its page tables before they go. */
	if ((read_cr3() & PTE_PFN_MASK) == __pa(mm->pgd))
		switch_mm(mm, NULL);
	exit_mmap(mm);
	if (mm->pgtables_bytes || mm->nr_ptes || get_mm_rss(mm))
		pr_err("BUG: mm %p freed with %ld bytes of page tables, %ld PTE tables, %lu pages\n",
		       (void *)mm, mm->pgtables_bytes, mm->nr_ptes, get_mm_rss(mm));
	for (int i = 0; i < PTRS_PER_TABLE / 2; i++)
		if (mm->pgd[i])
			pr_err("BUG: mm %p freed with PGD entry %d still set\n", (void *)mm, i);
	__free_page(virt_to_page(mm->pgd));
	kfree(mm);
}

void switch_mm(struct mm_struct *prev, struct mm_struct *next)
{
	(void)prev;
	u64 *pgd = next ? next->pgd : swapper_pg_dir;
	if (next)
		__atomic_fetch_or(&mm_cpumask(next)->bits, 1ull << smp_processor_id(), __ATOMIC_SEQ_CST);
	if ((read_cr3() & PTE_PFN_MASK) != __pa(pgd))
		write_cr3(__pa(pgd));
}

void kthread_use_mm(struct mm_struct *mm)
{
	struct task_struct *tsk = current;
	if (tsk->mm)
		panic("BUG: kthread_use_mm by %s, which has an mm already", tsk->comm);
	/* Interrupts off: the scheduler must see task and CR3 agree. */
	unsigned long irq;
	local_irq_save(irq);
	tsk->mm = mm;
	switch_mm(NULL, mm);
	local_irq_restore(irq);
}

void kthread_unuse_mm(struct mm_struct *mm)
{
	struct task_struct *tsk = current;
	if (tsk->mm != mm)
		panic("BUG: kthread_unuse_mm by %s of an mm it does not use", tsk->comm);
	unsigned long irq;
	local_irq_save(irq);
	tsk->mm = NULL;
	switch_mm(mm, NULL);
	local_irq_restore(irq);
}

void memory_init(void)
{
	/* Every kernel-half PGD entry gets its PUD table now, so the entries
	 * that process PGDs copy never change afterwards. */
	unsigned made = 0;
	for (int i = PTRS_PER_TABLE / 2; i < PTRS_PER_TABLE; i++) {
		if (swapper_pg_dir[i])
			continue;
		struct page *p = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
		if (!p)
			panic("memory_init: no page for the kernel PGD's entry %d", i);
		swapper_pg_dir[i] = page_to_phys(p) | _PAGE_PRESENT | _PAGE_RW;
		made++;
	}
	struct page *z = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
	if (!z)
		panic("memory_init: no zero page");
	zero_page = z;
	zero_pfn = page_to_pfn(z);
	pr_info("memory: zero page at pfn %#lx; %u kernel PGD entries preallocated\n", zero_pfn, made);
}
