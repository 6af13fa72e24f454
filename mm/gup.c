/* get_user_pages (see mm/gup.h): the lockless walk (gup_fast, Linux's
 * mm/gup.c gup_fast_pgd_range..gup_fast_pte_range) and the locked walk it
 * falls back to (__get_user_pages under mmap_read_lock, faulting pages in),
 * put together as Linux's gup_fast_fallback; the locked walk alone on
 * another process's mm (get_user_pages_remote), and access_remote_vm,
 * which copies through it (procfs's cmdline and environ, and
 * /proc/<pid>/mem, whose FOLL_FORCE reaches what the VMA's protection
 * forbids: check_vma_flags and can_follow_write_pte).
 *
 * Invariant: every page in pages[] on return holds one reference taken
 * while a PTE of the walked mm mapped it, with the access asked for; it is
 * freed only by the last put_page (the mmu_gather drops the mapping's
 * reference with put_page too), whatever happens to the mapping meanwhile.
 *
 * Why the lockless walk is safe, and why mmlab's differs from Linux x86's:
 *   - Page-table pages. The walk holds neither mmap_lock nor a PTE lock, so
 *     a PTE table (or a PMD table) may be unhooked and freed while we read
 *     it: by the refcount's last pte_put (free_user_pte_table), by the scan
 *     of MADV_DONTNEED, or by munmap's free_pgtables. Every one of those
 *     frees the table only after an RCU grace period (call_rcu, or the
 *     mmu_gather's table batch, Linux's tlb_remove_table_rcu), and the walk
 *     runs inside rcu_read_lock(): a table we reached stays a page-table
 *     page (stale perhaps, never reused) until we leave. (munmap's
 *     free_pgtables goes through the mmu_gather's RCU table batch, patch 15
 *     of Qi Zheng's series (docs/pte_tables.md), so a process_vm_readv racing a munmap of the same range by
 *     another thread cannot read a freed table; only the exit of an mm
 *     that no task uses any more frees its tables at once, and no walk
 *     can be inside those.) Linux x86 instead
 *     disables interrupts for the whole walk (local_irq_save in gup_fast),
 *     which holds off the TLB-shootdown IPI the freer waits for, and THP's
 *     split/collapse IPIs; on kernels where the irq-off region is itself
 *     an RCU-sched read side it covers the RCU table free too. mmlab has no
 *     THP to split, and the point of the lockless walk is the RCU-deferred free of
 *     PTE tables: so the walk runs with interrupts ON and only RCU keeps
 *     the tables, which makes it the user that exercises that guarantee
 *     (an IPI, a TLB flush, even a whole MADV_DONTNEED and free of the
 *     table may happen between our read of the PMD and of the PTE).
 *   - Data pages. Those are freed by the mmu_gather right after the TLB
 *     flush, not after a grace period. Linux relies on every free of any
 *     page being a refcount drop (folio_put), so a speculative reference
 *     on a page that was freed and reused meanwhile is harmless and undone
 *     by the re-check; mmlab's allocator is not built for that (a page's
 *     owner frees it expecting refcount 1, and the free checks report
 *     anything else). So the few instructions that read a PTE, take the
 *     page's reference and re-read the PTE run with interrupts off: a page
 *     whose PTE we read present cannot reach the free (which waits for the
 *     TLB-flush IPI to this CPU, whose CR3 holds this mm) before the
 *     reference is taken, and the re-check still drops the reference when
 *     the PTE or PMD changed meanwhile (Linux's gup_fast_pte_range). The
 *     walk between PTEs, and down the upper levels, keeps interrupts on.
 *
 * Locking: the lockless walk reads each entry once (READ_ONCE through
 * p?dp_get) and decides from the value read; the locked walk takes
 * mmap_read_lock (the VMAs) and each table with pte_tryget_map_lock, as
 * mm/pte_ref.h's contract says for walkers under the read lock. */
#include "mm/gup.h"
#include "mm/secretmem.h"
#include "arch/x86_64/irqflags.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/spinlock.h"
#include "lib/string.h"
#include "mm/huge_memory.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/pte_ref.h"
#include "mm/hugetlb_vma.h"

#ifndef EOVERFLOW
#define EOVERFLOW 75 /* Linux's value; kernel/types.h does not carry it yet */
#endif

/* A word of a freed page with page_poison=on. */
#define POISON_WORD (0x0101010101010101ull * PAGE_POISON)

static struct gup_stats gup_stats;

void gup_get_stats(struct gup_stats *s)
{
	const unsigned long *from = (const unsigned long *)&gup_stats;
	unsigned long *to = (unsigned long *)s;
	for (size_t i = 0; i < sizeof(*s) / sizeof(unsigned long); i++)
		to[i] = __atomic_load_n(&from[i], __ATOMIC_RELAXED);
}

static void stats_add(const struct gup_stats *local)
{
	const unsigned long *from = (const unsigned long *)local;
	unsigned long *to = (unsigned long *)&gup_stats;
	for (size_t i = 0; i < sizeof(*local) / sizeof(unsigned long); i++)
		if (from[i])
			__atomic_add_fetch(&to[i], from[i], __ATOMIC_RELAXED);
}

/* --- page references ---------------------------------------------------- */

/* Linux's try_get_page/folio_try_get: a reference unless the count is zero
 * (a free page: zero in the buddy and per-CPU lists). */
static bool try_get_page(struct page *page)
{
	/* A THP's 4 KiB page: the reference is the whole's. */
	return get_page_unless_zero(compound_head(page));
}

/* Linux's pte_access_permitted (x86): present, user, and writable for a
 * write. */
static bool pte_access_permitted(pte_t pte, bool write)
{
	u64 need = _PAGE_PRESENT | _PAGE_USER | (write ? _PAGE_RW : 0);
	return (pte_val(pte) & need) == need;
}

/* --- the lockless walk ---------------------------------------------------- */

struct gup_fast_walk {
	unsigned int flags;
	struct page **pages;
	unsigned long nr;    /* pages taken */
	struct gup_stats st; /* this call's share */
};

/* An upper-level entry as the walk reads it: go down (true), or stop. */
static bool upper_entry_ok(struct gup_fast_walk *w, u64 val)
{
	if (val == POISON_WORD) {
		w->st.poisoned++;
		return false;
	}
	if (!val)
		return false;
	/* Upper-level user entries are none or _PAGE_TABLE (mm/pgtable.c);
	 * anything else is not ours to follow. */
	if ((val & (_PAGE_PRESENT | _PAGE_USER)) != (_PAGE_PRESENT | _PAGE_USER) ||
	    !pfn_valid((val & PTE_PFN_MASK) >> PAGE_SHIFT)) {
		w->st.bad_entries++;
		return false;
	}
	return true;
}

/* Linux's gup_fast_pte_range. pmd is the value read from *pmdp; the table
 * is reached through that value (pte_offset_map on a copy, as Linux does),
 * never through a second read. Returns whether every page of [addr, end)
 * was taken. */
static bool gup_fast_pte_range(struct gup_fast_walk *w, pmd_t pmd, pmd_t *pmdp, unsigned long addr,
			       unsigned long end)
{
	bool write = w->flags & FOLL_WRITE;
	pte_t *ptem = pte_offset_map(&pmd, addr), *ptep = ptem;
	if (!ptem)
		return false;
	bool ok = true;
	do {
		struct page *page = NULL;
		unsigned long irq;
		/* Interrupts off from the read of the PTE to the re-check:
		 * the page cannot be freed before its reference is taken
		 * (see the top of the file). */
		local_irq_save(irq);
		pte_t pte = ptep_get(ptep);
		if (pte_val(pte) == POISON_WORD)
			w->st.poisoned++;
		else if (pte_access_permitted(pte, write) && pfn_valid(pte_pfn(pte)))
			page = pfn_to_page(pte_pfn(pte));
		if (page && !try_get_page(page)) {
			w->st.raced++; /* free: the PTE cannot still map it */
			page = NULL;
		} else if (page && page_is_secretmem(page)) {
			/* Linux's gup_fast_pte_range: left to the slow walk,
			 * which refuses it (check_vma_flags). */
			local_irq_restore(irq);
			put_page(page);
			page = NULL;
			ok = false;
			break;
		} else if (page && (pmd_val(pmd) != pmd_val(pmdp_get(pmdp)) ||
				    pte_val(pte) != pte_val(ptep_get(ptep)))) {
			local_irq_restore(irq);
			w->st.raced++;
			put_page(page);
			page = NULL;
			ok = false;
			break;
		}
		local_irq_restore(irq);
		if (!page) {
			ok = false;
			break;
		}
		w->pages[w->nr++] = page;
		w->st.fast_pages++;
	} while (ptep++, addr += PAGE_SIZE, addr != end);
	pte_unmap(ptem);
	return ok;
}

static bool gup_fast_pmd_range(struct gup_fast_walk *w, pud_t pud, unsigned long addr,
			       unsigned long end)
{
	pmd_t *pmdp = pmd_offset(&pud, addr); /* through the value read */
	unsigned long next;
	do {
		pmd_t pmd = pmdp_get(pmdp);
		next = pmd_addr_end(addr, end);
		if (pmd_val(pmd) == POISON_WORD) {
			w->st.poisoned++;
			return false;
		}
		/* A huge PMD: the locked walk takes it (a THP is split first,
		 * a hugetlb page goes through follow_hugetlb_page). */
		if (pmd_none(pmd) || pmd_trans_huge(pmd))
			return false;
		if (!upper_entry_ok(w, pmd_val(pmd)))
			return false;
		if (!gup_fast_pte_range(w, pmd, pmdp, addr, next))
			return false;
	} while (pmdp++, addr = next, addr != end);
	return true;
}

static bool gup_fast_pud_range(struct gup_fast_walk *w, pgd_t pgd, unsigned long addr,
			       unsigned long end)
{
	pud_t *pudp = pud_offset(&pgd, addr);
	unsigned long next;
	do {
		pud_t pud = pudp_get(pudp);
		next = pud_addr_end(addr, end);
		/* A 1 GiB hugetlb page: the locked walk takes it
		 * (follow_hugetlb_page). */
		if (pud_val(pud) & _PAGE_PSE)
			return false;
		if (!upper_entry_ok(w, pud_val(pud)))
			return false;
		if (!gup_fast_pmd_range(w, pud, addr, next))
			return false;
	} while (pudp++, addr = next, addr != end);
	return true;
}

/* Linux's gup_fast: the walk of [start, end) of current->mm, stopping at
 * the first page it cannot take; returns the pages taken. */
static unsigned long gup_fast(unsigned long start, unsigned long end, unsigned int flags,
			      struct page **pages)
{
	struct mm_struct *mm = current->mm;
	struct gup_fast_walk w = { .flags = flags, .pages = pages };
	w.st.fast_calls = 1;
	/* No mmap_lock, no PTE lock, interrupts on: only the RCU read side
	 * keeps the tables we reach from being reused (top of the file). */
	rcu_read_lock();
	pgd_t *pgdp = pgd_offset(mm, start);
	unsigned long addr = start, next;
	bool ok = true;
	do {
		pgd_t pgd = pgdp_get(pgdp);
		next = pgd_addr_end(addr, end);
		if (!upper_entry_ok(&w, pgd_val(pgd)) || !gup_fast_pud_range(&w, pgd, addr, next)) {
			ok = false;
			break;
		}
	} while (pgdp++, addr = next, addr != end);
	rcu_read_unlock();
	if (!ok)
		w.st.fast_stops = 1;
	stats_add(&w.st);
	return w.nr;
}

/* --- the locked walk ------------------------------------------------------ */

/* Linux's check_vma_flags (6.1): a write needs VM_WRITE, a read VM_READ;
 * FOLL_FORCE (a debugger's access: /proc/<pid>/mem, ptrace's PEEK/POKE)
 * overrides both, but a forced write only on a private mapping that could
 * be made writable (is_cow_mapping: the write lands in an anonymous copy,
 * never in the file or the shared memory behind it), and a forced read
 * only where the VMA could be made readable (VM_MAYREAD). mmlab refuses
 * two more: a forced access to a PROT_NONE VMA (Linux follows the page
 * behind a PROT_NONE entry, which mmlab's faults never map), and a forced
 * write to a read-only private hugetlb mapping (mmlab's hugetlb faults
 * have no copy-on-write that leaves the entry read-only). */
static int check_vma_flags(struct vm_area_struct *vma, unsigned int flags)
{
	unsigned long vm_flags = vma->vm_flags;
	if (!(vm_flags & VM_ACCESS_FLAGS))
		return -EFAULT; /* PROT_NONE, forced or not: see above */
	if (vma_is_secretmem(vma))
		return -EFAULT; /* its pages are out of the direct map (mm/secretmem.h) */
	if (flags & FOLL_WRITE) {
		if (vm_flags & VM_WRITE)
			return 0;
		if (!(flags & FOLL_FORCE) || !is_cow_mapping(vm_flags) || is_vm_hugetlb_page(vma))
			return -EFAULT;
	} else if (!(vm_flags & VM_READ)) {
		if (!(flags & FOLL_FORCE) || !(vm_flags & VM_MAYREAD))
			return -EFAULT;
	}
	return 0;
}

/* Linux's can_follow_write_pte (6.1, after David Hildenbrand's "mm/gup:
 * fix FOLL_FORCE COW security issue and remove FOLL_COW", 5535be309971):
 * a write may go through a read-only PTE only when FOLL_FORCE asked for
 * it, on a private VMA without VM_WRITE, and the page is an anonymous
 * page this mapping alone holds: the copy the forced write fault made (or
 * a page it found exclusive and reused). The PTE itself stays read-only,
 * so the process's own writes still fault. Before that patch Linux
 * remembered "this fault broke the COW" in FOLL_COW and trusted a dirty
 * PTE; Dirty COW (CVE-2016-5195) raced MADV_DONTNEED between the fault
 * and the retry so that the retry followed the file's page instead. */
static bool can_follow_write_pte(pte_t pte, struct page *page, struct vm_area_struct *vma, unsigned int flags)
{
	if (pte_write(pte))
		return true;
	if (!(flags & FOLL_FORCE))
		return false;
	if (vma->vm_flags & (VM_MAYSHARE | VM_SHARED))
		return false;
	if (!(vma->vm_flags & VM_MAYWRITE) || (vma->vm_flags & VM_WRITE))
		return false;
	if (!page || vma->vm_shm || is_zero_pfn(page_to_pfn(page)))
		return false;
	return anon_page_exclusive(page);
}

/* Linux's follow_page_pte: the page mapped at addr with the access asked
 * for, with a reference taken under the PTE lock; NULL when it must be
 * faulted in first; *err set for what a fault cannot fix. */
static struct page *follow_page_pte(struct vm_area_struct *vma, unsigned long addr, unsigned int flags,
				    int *err)
{
	struct mm_struct *mm = vma->vm_mm;
	pmd_t *pmd = mm_find_pmd(mm, addr);
	if (!pmd)
		return NULL;
	/* A THP: a reference to one of its pages splits the PMD first, and
	 * the PTE path takes it (on the THP's head when fork shared it and
	 * it stays whole: mm/rmap.h). */
	pmd_t val = pmdp_get(pmd);
	if (pmd_trans_huge(val) && pfn_valid(pmd_pfn(val)) && page_test_flag(pfn_to_page(pmd_pfn(val)), PG_shmem_thp)) {
		/* A tmpfs huge page stays mapped by its PMD (a split would
		 * only clear it, and the fault would map it again): the
		 * reference is taken under the PMD lock, on the head, as
		 * Linux's follow_trans_huge_pmd does. */
		spinlock_t *pl = pmd_lockptr(mm, pmd);
		struct page *page = NULL;
		spin_lock(pl);
		val = pmdp_get(pmd);
		if (pmd_trans_huge(val) && pmd_accessible(val) && (!(flags & FOLL_WRITE) || pmd_write(val))) {
			page = pfn_to_page(pmd_pfn(val) + ((addr & ~PMD_MASK) >> PAGE_SHIFT));
			get_page(page);
		}
		spin_unlock(pl);
		return page; /* NULL: the fault path decides */
	}
	if (pmd_trans_huge(val))
		split_huge_pmd(mm, pmd, addr);
	spinlock_t *ptl;
	pte_t *pte = pte_tryget_map_lock(mm, pmd, addr, &ptl);
	if (!pte)
		return NULL;
	pte_t entry = ptep_get(pte);
	struct page *page = NULL;
	struct page *mapped = pfn_valid(pte_pfn(entry)) ? pfn_to_page(pte_pfn(entry)) : NULL;
	if (pte_access_permitted(entry, false) &&
	    (!(flags & FOLL_WRITE) || can_follow_write_pte(entry, mapped, vma, flags))) {
		if (mapped) {
			/* Mapped, under its PTE lock: its count is at least
			 * the mapping's one, so a plain atomic increment will
			 * do. */
			page = pfn_to_page(pte_pfn(entry));
			__atomic_add_fetch(&compound_head(page)->_refcount, 1, __ATOMIC_ACQ_REL);
		} else {
			/* Present with no struct page: Linux's
			 * vm_normal_page gives NULL and follow_pfn_pte
			 * -EFAULT when a reference is asked for. A fault
			 * would find nothing to do, and we would loop. */
			*err = -EFAULT;
		}
	}
	pte_unmap_unlock(pte, ptl);
	pte_put(mm, pmd, addr);
	return page;
}

/* Linux's __get_user_pages, for mm with its mmap_read_lock held: find
 * the VMA, check the access, take the page or fault it in (as a write for
 * FOLL_WRITE, breaking the zero page's copy-on-write) and look again.
 * Returns the pages taken, or the errno of the first page. */
static long __get_user_pages(struct mm_struct *mm, unsigned long start, unsigned long nr_pages,
			     unsigned int gup_flags, struct page **pages)
{
	struct vm_area_struct *vma = NULL;
	struct gup_stats st = { .slow_calls = 1 };
	unsigned long i = 0;
	long ret = 0;
	mmap_assert_locked(mm);
	start &= PAGE_MASK;
	while (i < nr_pages) {
		unsigned long addr = start + i * PAGE_SIZE;
		/* Linux's __get_user_pages: a dying task stops here (a fault
		 * loop against another thread's zaps could go on). */
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (!vma || addr >= vma->vm_end) {
			vma = find_vma(mm, addr);
			if (!vma || addr < vma->vm_start) {
				ret = -EFAULT;
				break;
			}
			ret = check_vma_flags(vma, gup_flags);
			if (ret)
				break;
		}
		int err = 0;
		struct page *page = is_vm_hugetlb_page(vma)
					    ? follow_hugetlb_page(vma, addr, gup_flags & FOLL_WRITE, &err)
					    : follow_page_pte(vma, addr, gup_flags, &err);
		if (err) {
			ret = err;
			break;
		}
		if (!page) {
			vm_fault_t f = handle_mm_fault(vma, addr, gup_flags & FOLL_WRITE ? FAULT_FLAG_WRITE : 0);
			st.slow_faults++;
			/* Linux's vm_fault_to_errno. */
			if (f & VM_FAULT_OOM) {
				ret = -ENOMEM;
				break;
			}
			if (f & VM_FAULT_ERROR) {
				ret = -EFAULT;
				break;
			}
			cond_resched();
			continue; /* look again: another thread may have zapped it */
		}
		pages[i++] = page;
	}
	st.slow_pages = i;
	stats_add(&st);
	return i ? (long)i : ret;
}

long get_user_pages(unsigned long start, unsigned long nr_pages, unsigned int gup_flags,
		    struct page **pages)
{
	return __get_user_pages(current->mm, start, nr_pages, gup_flags, pages);
}

long get_user_pages_remote(struct mm_struct *mm, unsigned long start, unsigned long nr_pages,
			   unsigned int gup_flags, struct page **pages)
{
	if (gup_flags & ~(FOLL_WRITE | FOLL_GET | FOLL_FORCE))
		return -EINVAL;
	if (start >= TASK_SIZE)
		return -EFAULT;
	return __get_user_pages(mm, start, nr_pages, gup_flags | FOLL_GET, pages);
}

int access_remote_vm(struct mm_struct *mm, unsigned long addr, void *buf, int len, unsigned int gup_flags)
{
	char *p = buf;
	bool write = gup_flags & FOLL_WRITE;
	if (len <= 0)
		return 0;
	mmap_read_lock(mm);
	while (len) {
		struct page *page;
		/* One page at a time, as Linux's __access_remote_vm: the
		 * walk faults it in when it is not there yet (and, for a
		 * write, breaks its copy-on-write first). */
		if (get_user_pages_remote(mm, addr, 1, gup_flags & (FOLL_WRITE | FOLL_FORCE), &page) <= 0)
			break; /* no VMA, no access, or no memory */
		unsigned long offset = addr & (PAGE_SIZE - 1);
		int n = (int)min((unsigned long)len, PAGE_SIZE - offset);
		char *kaddr = (char *)page_address(page) + offset;
		/* Linux's copy_to_user_page/copy_from_user_page: x86's caches
		 * are coherent with instruction fetch, a plain copy will do.
		 * (Linux then set_page_dirty_lock()s a written page; mmlab
		 * has no writeback to tell.) */
		if (write)
			memcpy(kaddr, p, (size_t)n);
		else
			memcpy(p, kaddr, (size_t)n);
		put_page(page);
		len -= n;
		p += n;
		addr += (unsigned long)n;
	}
	mmap_read_unlock(mm);
	return (int)(p - (char *)buf);
}

/* --- the entry points ------------------------------------------------------ */

/* Linux's gup_fast_fallback. */
static long gup_fast_fallback(unsigned long start, unsigned long nr_pages, unsigned int gup_flags,
			      struct page **pages)
{
	if (gup_flags & ~(FOLL_WRITE | FOLL_GET | FOLL_FAST_ONLY))
		return -EINVAL;
	if (!current->mm)
		return -EFAULT;
	start &= PAGE_MASK;
	unsigned long len = nr_pages << PAGE_SHIFT, end;
	if (nr_pages > (~0ul >> PAGE_SHIFT) || __builtin_add_overflow(start, len, &end))
		return -EOVERFLOW;
	if (end > TASK_SIZE)
		return -EFAULT;
	if (!nr_pages)
		return 0;
	unsigned long nr_pinned = gup_fast(start, end, gup_flags, pages);
	if (nr_pinned == nr_pages || (gup_flags & FOLL_FAST_ONLY))
		return (long)nr_pinned;
	/* The rest under the lock, faulting pages in. */
	struct mm_struct *mm = current->mm;
	mmap_read_lock(mm);
	long ret = get_user_pages(start + nr_pinned * PAGE_SIZE, nr_pages - nr_pinned,
				  gup_flags & ~FOLL_FAST_ONLY, pages + nr_pinned);
	mmap_read_unlock(mm);
	if (ret < 0)
		return nr_pinned ? (long)nr_pinned : ret;
	return ret + (long)nr_pinned;
}

long get_user_pages_fast(unsigned long start, unsigned long nr_pages, unsigned int gup_flags,
			 struct page **pages)
{
	return gup_fast_fallback(start, nr_pages, gup_flags | FOLL_GET, pages);
}

long get_user_pages_fast_only(unsigned long start, unsigned long nr_pages, unsigned int gup_flags,
			      struct page **pages)
{
	return gup_fast_fallback(start, nr_pages, gup_flags | FOLL_GET | FOLL_FAST_ONLY, pages);
}
