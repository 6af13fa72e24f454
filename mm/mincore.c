/* mincore(2): which pages of a range are resident, one byte per page
 * (Linux's mm/mincore.c: sys_mincore, do_mincore, mincore_pte_range).
 *
 * What "resident" means for the memory mmlab has (no swap), as Linux
 * answers for it:
 *   - a page not mapped (a none PTE, a missing table, a freed table) of
 *     anonymous memory: 0; of a file (private or shared mapping) or of
 *     shared anonymous memory: whether the page cache (the object) has
 *     the page (__mincore_unmapped_range, mincore_page);
 *   - a present PTE: 1, and that includes the shared zero page that a
 *     read fault maps (mincore_pte_range tests pte_present only, not
 *     vm_normal_page) and a PROT_NONE page (x86's pte_present counts
 *     _PAGE_PROTNONE);
 *   - a huge PMD: 1 for each of its pages (pmd_trans_huge_lock succeeds,
 *     memset(vec, 1)).
 * After MADV_DONTNEED anonymous pages read 0 again (their PTEs are none);
 * a file's stay 1 while its cache has them.
 *
 * Checks and errno, in Linux's order: start not page aligned -EINVAL; the
 * range not inside the user address space (access_ok: beyond TASK_SIZE,
 * or wrapping) -ENOMEM; vec not inside it -EFAULT; no memory for the
 * bounce page -EAGAIN; a part of the range no VMA covers -ENOMEM (the
 * bytes of the mapped part before it are written first, as Linux's loop
 * copies each chunk out as it goes); a vec that cannot be written
 * -EFAULT. A zero len returns 0 without looking at the mappings.
 *
 * Locking: each chunk of up to PAGE_SIZE pages is walked under mmap_lock
 * held for reading (the walk takes the PTE-table references, mm/pagewalk.c)
 * into a kernel page, and copied to the user after the lock is dropped (a
 * copy may fault, and the fault takes the lock). */
#include "mm/swap_state.h"
#include "mm/swapops.h"
#include "mm/pagewalk.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "kernel/syscall.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/page_alloc.h"
#include "mm/filemap.h"
#include "mm/rmap.h"
#include "mm/shmem.h"

struct mincore_walk {
	unsigned char *vec; /* one byte per page from start */
	unsigned long start;
};

static unsigned char *mincore_byte(struct mm_walk *walk, unsigned long addr)
{
	struct mincore_walk *mw = walk->private;
	return mw->vec + ((addr - mw->start) >> PAGE_SHIFT);
}

/* Linux's __mincore_unmapped_range: [addr, next) has no page mapped; a
 * VMA of a file (or of a shared anonymous object's unnamed tmpfs file,
 * Linux's vm_file) asks whether the page cache has each page (mincore_page), an
 * anonymous VMA has nothing in core. */
static void mincore_unmapped(struct mm_walk *walk, unsigned long addr, unsigned long next)
{
	struct vm_area_struct *vma = walk->vma;
	unsigned char *vec = mincore_byte(walk, addr);
	unsigned long nr = (next - addr) >> PAGE_SHIFT, pgoff = linear_page_index(vma, addr);
	struct address_space *mapping = vma->vm_file ? vma->vm_file->f_mapping
				       : vma->vm_shm ? vma->vm_shm->mapping : NULL;
	for (unsigned long i = 0; i < nr; i++, pgoff++) {
		struct page *page = mapping ? filemap_get_folio(mapping, pgoff) : NULL;
		vec[i] = page != NULL;
		if (page)
			put_page(page);
	}
}

static int mincore_pte_entry(pte_t pte, unsigned long addr, struct mm_walk *walk)
{
	if (pte_none(pte))
		mincore_unmapped(walk, addr, addr + PAGE_SIZE);
	else
		/* Linux's mincore_pte_range: a swap entry is resident when
		 * its page is in the swap cache. */
		*mincore_byte(walk, addr) = pte_present(pte) || (is_swap_pte(pte) &&
								 swap_cache_present(pte_to_swp_entry(pte)));
	return 0;
}

static int mincore_huge_pmd(pmd_t pmd, unsigned long addr, unsigned long next, struct mm_walk *walk)
{
	(void)pmd;
	memset(mincore_byte(walk, addr), 1, (next - addr) >> PAGE_SHIFT);
	return 0;
}

/* Linux's mincore_hugetlb: every 4 KiB of a huge page says whether it is
 * mapped. */
static int mincore_hugetlb(pte_t pte, unsigned long hmask, unsigned long addr, unsigned long next,
			   struct mm_walk *walk)
{
	(void)hmask;
	memset(mincore_byte(walk, addr), pte_present(pte) ? 1 : 0, (next - addr) >> PAGE_SHIFT);
	return 0;
}

static int mincore_unmapped_range(unsigned long addr, unsigned long next, int depth,
				  struct mm_walk *walk)
{
	(void)depth;
	mincore_unmapped(walk, addr, next);
	return 0;
}

static const struct mm_walk_ops mincore_walk_ops = {
	.pte_entry = mincore_pte_entry,
	.huge_pmd_entry = mincore_huge_pmd,
	.hugetlb_entry = mincore_hugetlb,
	.pte_hole = mincore_unmapped_range,
};

/* Linux's do_mincore: the pages of [addr, addr + pages) that the VMA
 * holding addr covers, into vec; their number, or -ENOMEM when no VMA
 * holds addr. Every VMA may be asked (can_do_mincore: the caller owns
 * every file here). */
static long do_mincore(struct mm_struct *mm, unsigned long addr, unsigned long pages,
		       unsigned char *vec)
{
	struct vm_area_struct *vma = find_vma(mm, addr);
	if (!vma || addr < vma->vm_start) /* vma_lookup */
		return -ENOMEM;
	unsigned long end = min(vma->vm_end, addr + (pages << PAGE_SHIFT));
	struct mincore_walk mw = { .vec = vec, .start = addr };
	int err = walk_page_range_vma(vma, addr, end, &mincore_walk_ops, &mw);
	if (err < 0)
		return err;
	return (long)((end - addr) >> PAGE_SHIFT);
}

long ksys_mincore(unsigned long start, size_t len, unsigned char *vec)
{
	struct mm_struct *mm = current->mm;
	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (!access_ok((void *)start, len))
		return -ENOMEM;
	/* This also avoids any overflow of a page-aligned len. */
	unsigned long pages = (len >> PAGE_SHIFT) + ((len & ~PAGE_MASK) != 0);
	if (!access_ok(vec, pages))
		return -EFAULT;
	if (!mm)
		return -ENOMEM; /* a kernel thread has no user mappings */
	struct page *tmp_page = alloc_pages(GFP_USER, 0);
	if (!tmp_page)
		return -EAGAIN;
	unsigned char *tmp = page_address(tmp_page);
	long ret = 0;
	while (pages) {
		/* At most PAGE_SIZE entries per round: the bounce page. */
		mmap_read_lock(mm);
		ret = do_mincore(mm, start, min(pages, PAGE_SIZE), tmp);
		mmap_read_unlock(mm);
		if (ret <= 0)
			break;
		if (copy_to_user(vec, tmp, (unsigned long)ret)) {
			ret = -EFAULT;
			break;
		}
		pages -= (unsigned long)ret;
		vec += ret;
		start += (unsigned long)ret << PAGE_SHIFT;
		ret = 0;
	}
	__free_page(tmp_page);
	return ret;
}

SYSCALL_DEFINE3(mincore, unsigned long, start, size_t, len, unsigned char __user *, vec)
{
	return ksys_mincore(start, len, vec);
}
