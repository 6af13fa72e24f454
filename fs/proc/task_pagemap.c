/* /proc/self/pagemap and /proc/<pid>/pagemap: a 64-bit entry per virtual
 * page (Documentation/admin-guide/mm/pagemap.rst), Linux 6.12's format
 * and pagemap_read (in Linux's fs/proc/task_mmu.c, beside maps and smaps:
 * fs/proc/task_mmu.c here). Registered by fs/proc/base.c.
 *
 * Invariant: every entry comes from the task's page tables at read time,
 * walked through mm/pagewalk.c under the mm's mmap_lock held for reading,
 * into a kernel buffer; the copy to user memory (which may fault, and so
 * take the lock again) happens after it is dropped. */
#include "fs/proc/internal.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/cred.h"
#include "kernel/sched.h"
#include "mm/hugetlb.h"
#include "mm/hugetlb_vma.h"
#include "mm/memory.h"
#include "mm/mmap_lock.h"
#include "mm/pagewalk.h"
#include "mm/rmap.h"
#include "mm/slab.h"
#include "mm/swapops.h"
/* Linux's pagemap entry (Documentation/admin-guide/mm/pagemap.rst). */
#define PM_ENTRY_BYTES 8ul
#define PM_PFRAME_BITS 55
#define PM_PFRAME_MASK ((1ull << PM_PFRAME_BITS) - 1)
#define PM_SOFT_DIRTY (1ull << 55)
#define PM_MMAP_EXCLUSIVE (1ull << 56)
#define PM_FILE (1ull << 61)
#define PM_SWAP (1ull << 62)
#define PM_PRESENT (1ull << 63)
#define PM_END_OF_BUFFER 1
/* One walk covers at most a PMD's worth of pages (Linux's
 * PAGEMAP_WALK_SIZE), so the buffer is one page of entries. */
#define PAGEMAP_WALK_SIZE PMD_SIZE
#define PAGEMAP_WALK_MASK PMD_MASK

struct pagemapread {
	unsigned long pos, len; /* in entries */
	u64 *buffer;
	bool show_pfn;
};

static int add_to_pagemap(u64 pme, struct pagemapread *pm)
{
	pm->buffer[pm->pos++] = pme;
	return pm->pos >= pm->len ? PM_END_OF_BUFFER : 0;
}

static u64 make_pme(u64 frame, u64 flags) { return (frame & PM_PFRAME_MASK) | flags; }

/* Linux's pagemap_pte_hole: no page, nothing set. mmlab has no soft-dirty
 * tracking, so bit 55 is never set: Linux built without
 * CONFIG_MEM_SOFT_DIRTY. A kernel with it (Debian's) marks every new VMA
 * VM_SOFTDIRTY, and then every entry inside a VMA, hole or page, reads
 * PM_SOFT_DIRTY until clear_refs 4 clears it: compare pagemaps with bit 55
 * masked. */
static int pagemap_pte_hole(unsigned long addr, unsigned long next, int depth, struct mm_walk *walk)
{
	(void)depth;
	int err = 0;
	for (; addr < next && !err; addr += PAGE_SIZE)
		err = add_to_pagemap(make_pme(0, 0), walk->private);
	return err;
}

/* Linux's pte_to_pagemap_entry: a present PTE (PROT_NONE included) gives
 * PM_PRESENT and its PFN; PM_MMAP_EXCLUSIVE when it maps a normal page
 * mapped once (not the zero page, which vm_normal_page does not return).
 * A swap entry gives PM_SWAP; a shared anonymous page is PM_FILE (not anonymous to Linux). */
static int pagemap_pte_entry(pte_t pte, unsigned long addr, struct mm_walk *walk)
{
	(void)addr;
	struct pagemapread *pm = walk->private;
	u64 frame = 0, flags = 0;
	if (is_swap_pte(pte)) {
		/* Linux's: PM_SWAP, and the type and offset where the frame
		 * goes (shown as the PFN is, with CAP_SYS_ADMIN). */
		swp_entry_t entry = pte_to_swp_entry(pte);
		if (pm->show_pfn)
			frame = swp_type(entry) | ((u64)swp_offset(entry) << MAX_SWAPFILES_SHIFT);
		flags |= PM_SWAP;
	} else if (pte_present(pte)) {
		if (pm->show_pfn)
			frame = pte_pfn(pte);
		flags |= PM_PRESENT;
		struct page *page = vm_normal_page(pte);
		if (page && page_mapcount(page) == 1)
			flags |= PM_MMAP_EXCLUSIVE;
		if (page && !vma_page_anon(walk->vma, page))
			flags |= PM_FILE; /* a shmem or page-cache page (Linux's !PageAnon) */
	}
	return add_to_pagemap(make_pme(frame, flags), pm);
}

/* The entries of [addr, next) inside a huge page (a huge PMD, or a hugetlb
 * page of size ~mask + 1) whose head is pfn: each 4 KiB page of it gets
 * its own entry, with its own PFN (the head's plus its index). */
static int pagemap_huge_entries(struct pagemapread *pm, bool present, unsigned long pfn, unsigned long mask,
				unsigned long addr, unsigned long next, bool file)
{
	u64 frame = 0, flags = 0;
	if (present) {
		flags |= PM_PRESENT;
		if (file)
			flags |= PM_FILE;
		if (page_mapcount(pfn_to_page(pfn)) == 1) /* the head's, as Linux's pagemap_pmd_range */
			flags |= PM_MMAP_EXCLUSIVE;
		if (pm->show_pfn)
			frame = pfn + ((addr & ~mask) >> PAGE_SHIFT);
	}
	int err = 0;
	for (; addr < next && !err; addr += PAGE_SIZE) {
		err = add_to_pagemap(make_pme(frame, flags), pm);
		if (pm->show_pfn && (flags & PM_PRESENT))
			frame++;
	}
	return err;
}

/* Linux's pagemap_pmd_range for a huge PMD. */
static int pagemap_huge_pmd(pmd_t pmd, unsigned long addr, unsigned long next, struct mm_walk *walk)
{
	/* A tmpfs huge page is a file page (Linux's !PageAnon: PM_FILE). */
	bool file = pmd_present(pmd) && page_test_flag(pfn_to_page(pmd_pfn(pmd)), PG_shmem_thp);
	return pagemap_huge_entries(walk->private, pmd_present(pmd), pmd_pfn(pmd), PMD_MASK, addr, next, file);
}

/* Linux's pagemap_hugetlb_range: the same, for a hugetlb page. */
static int pagemap_hugetlb(pte_t pte, unsigned long hmask, unsigned long addr, unsigned long next,
			   struct mm_walk *walk)
{
	return pagemap_huge_entries(walk->private, pte_present(pte), pte_pfn(pte), hmask, addr, next, false);
}

static const struct mm_walk_ops pagemap_walk_ops = {
	.pte_entry = pagemap_pte_entry,
	.huge_pmd_entry = pagemap_huge_pmd,
	.hugetlb_entry = pagemap_hugetlb,
	.pte_hole = pagemap_pte_hole,
};

/* Linux's pagemap_read: entry n is the page at virtual address n *
 * PAGE_SIZE; the offset and count must be multiples of 8 (-EINVAL), and
 * only [0, TASK_SIZE) has entries (a read beyond gives 0 bytes, one
 * across it stops there). The range is walked a PMD's worth at a time
 * under mmap_lock held for reading, into a kernel buffer copied out after
 * the lock is dropped (the copy may fault). The PFN is shown to a reader
 * with CAP_SYS_ADMIN only; Linux asks the capability of whoever opened
 * the file (file_ns_capable on f_cred), mmlab the reader's (its files
 * keep no creds). */
long pagemap_read(const struct proc_node *node, char *dst, size_t count, long *ppos, bool user)
{
	struct mm_struct *mm = node->mm;
	struct pagemapread pm;
	long ret = 0, copied = 0;
	if (!mm)
		return 0;
	if ((unsigned long)*ppos % PM_ENTRY_BYTES || count % PM_ENTRY_BYTES)
		return -EINVAL;
	if (!count)
		return 0;
	pm.show_pfn = capable(CAP_SYS_ADMIN);
	pm.len = PAGEMAP_WALK_SIZE >> PAGE_SHIFT;
	pm.buffer = kmalloc(pm.len * PM_ENTRY_BYTES, GFP_KERNEL);
	if (!pm.buffer)
		return -ENOMEM;

	unsigned long svpfn = (unsigned long)*ppos / PM_ENTRY_BYTES;
	unsigned long end_vaddr = TASK_SIZE, start_vaddr = end_vaddr;
	/* Watch out for wraparound. */
	if (svpfn <= (~0ul >> PAGE_SHIFT)) {
		start_vaddr = svpfn << PAGE_SHIFT;
		unsigned long end = start_vaddr + ((count / PM_ENTRY_BYTES) << PAGE_SHIFT);
		if (end >= start_vaddr && end < TASK_SIZE)
			end_vaddr = end;
	}
	/* Ensure the address is inside the task. */
	if (start_vaddr > TASK_SIZE)
		start_vaddr = end_vaddr;

	while (count && start_vaddr < end_vaddr) {
		pm.pos = 0;
		unsigned long end = (start_vaddr + PAGEMAP_WALK_SIZE) & PAGEMAP_WALK_MASK;
		if (end < start_vaddr || end > end_vaddr) /* overflow? */
			end = end_vaddr;
		mmap_read_lock(mm);
		ret = walk_page_range(mm, start_vaddr, end, &pagemap_walk_ops, &pm);
		mmap_read_unlock(mm);
		start_vaddr = end;

		size_t len = min(count, PM_ENTRY_BYTES * pm.pos);
		if (user ? copy_to_user(dst, pm.buffer, len) : (memcpy(dst, pm.buffer, len), 0)) {
			ret = -EFAULT;
			break;
		}
		copied += (long)len;
		dst += len;
		count -= len;
	}
	if (ret != -EFAULT) {
		*ppos += copied;
		ret = copied;
	}
	kfree(pm.buffer);
	return ret;
}
