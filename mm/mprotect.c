/* mprotect(2): new access rights for the VMAs of a range, with Linux's
 * checks in Linux's order (do_mprotect_pkey, without protection keys).
 *
 * The range must be mapped throughout: a hole gives -ENOMEM, but the VMAs
 * before the hole have been changed already (as Linux). Each VMA piece
 * gets its flags through vma_modify_flags (split where the range ends
 * inside a VMA, merged with a neighbour that ends up with the same flags),
 * then change_protection() rewrites the present PTEs of that piece. */
#include "mm/mmap.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "mm/memory.h"
#include "mm/hugetlb_vma.h"
#include "mm/mmap_lock.h"
#include "mm/util.h"
#include "mm/vma.h"

#ifndef PROT_SEM
#define PROT_SEM 0x8 /* accepted and ignored, as on x86 Linux */
#endif

static unsigned long calc_vm_prot_bits(unsigned long prot)
{
	return (prot & PROT_READ ? VM_READ : 0) | (prot & PROT_WRITE ? VM_WRITE : 0) |
	       (prot & PROT_EXEC ? VM_EXEC : 0);
}

/* Gives [start, end) of vma the flags newflags; returns the VMA that holds
 * the range afterwards, or NULL: -ENOMEM (no memory for a split, or the
 * overcommit policy refused the charge of a range becoming writable). */
static struct vm_area_struct *mprotect_fixup(struct mm_struct *mm, struct vm_area_struct *vma,
					     unsigned long start, unsigned long end,
					     unsigned long newflags)
{
	mmap_assert_write_locked(mm);
	unsigned long oldflags = vma->vm_flags;
	if (newflags == oldflags)
		return vma;
	/* Linux's mprotect_fixup: private memory becoming writable for the
	 * first time is charged (VM_ACCOUNT), as a writable mmap would be;
	 * the charge goes again when it loses write access before any page
	 * was faulted in (no anon_vma), and only then. All VMAs here are
	 * anonymous. */
	long nrpages = (long)((end - start) >> PAGE_SHIFT), charged = 0;
	if (newflags & VM_WRITE) {
		if (!(oldflags & (VM_ACCOUNT | VM_WRITE | VM_HUGETLB | VM_SHARED | VM_NORESERVE))) {
			charged = nrpages;
			if (security_vm_enough_memory_mm(mm, charged))
				return NULL;
			newflags |= VM_ACCOUNT;
		}
	} else if ((oldflags & VM_ACCOUNT) && !vma->anon_vma) {
		newflags &= ~VM_ACCOUNT;
	}
	vma = vma_modify_flags(mm, vma, start, end, newflags);
	if (!vma) {
		vm_unacct_memory(charged);
		return NULL;
	}
	if ((oldflags & VM_ACCOUNT) && !(newflags & VM_ACCOUNT))
		vm_unacct_memory(nrpages);
	change_protection(vma, start, end, vma->vm_page_prot);
	/* A locked private mapping becoming writable: fault the pages in
	 * writable now, as mlock promises no faults later. */
	if ((oldflags & (VM_WRITE | VM_SHARED | VM_LOCKED)) == VM_LOCKED && (newflags & VM_WRITE) &&
	    !(newflags & VM_LOCKONFAULT)) /* populate_vma_page_range leaves those to their faults */
		populate_vma_range(vma, start, end, true);
	return vma;
}

static int mprotect_locked(struct mm_struct *mm, unsigned long start, unsigned long end,
			   unsigned long prot, unsigned long grows, bool user);

/* user: a program's own call, which MDWE may refuse (see mmap_pgoff_locked
 * in mm/mmap.c for why exec's loader is not checked). */
static int mprotect_common(struct mm_struct *mm, unsigned long start, unsigned long len, unsigned long prot,
			   bool user)
{
	const unsigned long grows = prot & (PROT_GROWSDOWN | PROT_GROWSUP);
	prot &= ~(PROT_GROWSDOWN | PROT_GROWSUP);
	if (grows == (PROT_GROWSDOWN | PROT_GROWSUP))
		return -EINVAL;
	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (!len)
		return 0;
	len = PAGE_ALIGN(len);
	unsigned long end = start + len;
	if (end <= start)
		return -ENOMEM;
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM))
		return -EINVAL;

	/* Linux's do_mprotect_pkey: the VMA walk and every change under the
	 * write lock, taken after the argument checks. */
	mmap_write_lock(mm);
	int error = mprotect_locked(mm, start, end, prot, grows, user);
	mmap_write_unlock(mm);
	return error;
}

int do_mprotect(struct mm_struct *mm, unsigned long start, unsigned long len, unsigned long prot)
{
	return mprotect_common(mm, start, len, prot, false);
}

static int mprotect_locked(struct mm_struct *mm, unsigned long start, unsigned long end,
			   unsigned long prot, unsigned long grows, bool user)
{
	struct vm_area_struct *vma = find_vma(mm, start);
	if (!vma || vma->vm_start >= end)
		return -ENOMEM;
	if (grows & PROT_GROWSDOWN) {
		/* From the start of the (stack) VMA. */
		start = vma->vm_start;
		if (!(vma->vm_flags & VM_GROWSDOWN))
			return -EINVAL;
	} else {
		if (vma->vm_start > start)
			return -ENOMEM;
		/* x86 has no VM_GROWSUP VMAs. */
		if (grows & PROT_GROWSUP)
			return -EINVAL;
	}

	unsigned long nstart = start, tmp = vma->vm_start;
	int error = 0;
	while (vma && vma->vm_start < end) {
		if (vma->vm_start != tmp) {
			error = -ENOMEM; /* a hole */
			break;
		}
		unsigned long newflags = calc_vm_prot_bits(prot) | (vma->vm_flags & ~VM_ACCESS_FLAGS);
		/* Each VM_MAY* bit is its VM_* bit shifted left by 4. */
		if ((newflags & ~(newflags >> 4)) & VM_ACCESS_FLAGS) {
			error = -EACCES;
			break;
		}
		if (user && map_deny_write_exec(mm, vma->vm_flags, newflags)) {
			error = -EACCES;
			break;
		}
		tmp = min(vma->vm_end, end);
		/* A hugetlb VMA splits only at its page size (Linux's
		 * __split_vma -> hugetlb_vm_op_split). */
		error = hugetlb_vm_op_split(vma, nstart) ?: hugetlb_vm_op_split(vma, tmp);
		if (error)
			break;
		vma = mprotect_fixup(mm, vma, nstart, tmp, newflags);
		if (!vma) {
			error = -ENOMEM;
			break;
		}
		/* The piece may have merged with what follows. */
		tmp = vma->vm_end;
		nstart = tmp;
		vma = vma->vm_next;
	}
	if (!error && tmp < end)
		error = -ENOMEM;
	return error;
}

SYSCALL_DEFINE3(mprotect, unsigned long, start, unsigned long, len, unsigned long, prot)
{
	return mprotect_common(current->mm, start, len, prot, true);
}
