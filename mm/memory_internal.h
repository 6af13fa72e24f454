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

#endif
