/* The fault path's pieces shared between mm/memory.c (anonymous
 * memory) and mm/filemap_fault.c (file and shmem VMAs). Each
 * runs under the fault's mmap_lock (read), with vmf as handle_pte_fault
 * made it (mm/pte_ref.h). */
#ifndef MM_MEMORY_INTERNAL_H
#define MM_MEMORY_INTERNAL_H

#include "mm/memory.h"
#include "mm/pte_ref.h"

/* Installs entry where the fault read orig, unless another walker changed
 * the PTE (or the table went) meanwhile, or a truncate took the file's
 * page away (mm/truncate.h); page (may be NULL) is what entry maps,
 * counted only if installed (an anonymous page's first mapping, or a
 * file's or shmem object's page: vmf->page, or any page of a shared
 * VMA), its reference put otherwise. Returns whether it was installed. */
bool fault_install_pte(struct vm_fault *vmf, pte_t orig, pte_t entry, struct page *page);
/* The entry a fault maps page with at vmf->address (Linux's do_set_pte):
 * the VMA's protection, dirty for a write; the page-cache page of a
 * private mapping (page == vmf->page) read-only and clean. */
pte_t mk_fault_pte(struct vm_fault *vmf, struct page *page);
/* Linux's finish_fault: page mapped at the faulting address of a none
 * PTE (mk_fault_pte); whether it was. */
bool finish_fault(struct vm_fault *vmf, struct page *page);
/* Linux's do_fault: a none PTE of a file or shmem VMA, shared or private
 * (mm/filemap_fault.c). */
vm_fault_t do_fault(struct vm_fault *vmf);

/* A swap entry's fault (mm/memory_swap.c): the page back from the swap
 * cache or the disk, mapped where orig was. */
vm_fault_t do_swap_page(struct vm_fault *vmf, pte_t orig);
/* fork's copy of a swap entry into dst_mm (Linux's copy_nonpresent_pte):
 * the slot's reference more (swap_duplicate) and MM_SWAPENTS; 0, or
 * swap_duplicate's error: -ENOMEM when the count needs a continuation
 * page that GFP_ATOMIC could not give (copy_pte_range adds one with
 * GFP_KERNEL, no lock held, and copies again from there). */
int copy_swap_pte(struct mm_struct *dst_mm, pte_t pte);
/* AnonPages (Linux's NR_ANON_MAPPED) changed by nr: a page's first
 * mapping or last unmapping outside memory.c's own accounting. */
void anon_pages_add(long nr);

#endif
