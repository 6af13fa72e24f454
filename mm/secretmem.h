/* memfd_secret(2) (Linux's mm/secretmem.c and include/linux/secretmem.h):
 * memory only the process that maps it can reach. Its pages are taken out
 * of the kernel's direct map when they are faulted in, so that not even a
 * kernel bug reading through the direct map can see them, and every path
 * by which the kernel would reach them through a user mapping refuses:
 * get_user_pages (-EFAULT: process_vm_readv, /proc/<pid>/mem), the
 * lockless walk of gup_fast, read and write of the file (-EINVAL),
 * migration (-EBUSY). */
#ifndef MM_SECRETMEM_H
#define MM_SECRETMEM_H

#include "kernel/types.h"

struct address_space;
struct page;
struct vm_area_struct;

/* Whether vma maps a secretmem file. */
bool vma_is_secretmem(const struct vm_area_struct *vma);
/* Whether page is a secretmem file's page (Linux's page_is_secretmem):
 * read from page->mapping without a lock, for the lockless GUP walk. */
bool page_is_secretmem(struct page *page);
/* Whether mapping is a secretmem file's. */
bool secretmem_mapping(const struct address_space *mapping);
/* Whether a secretmem file is open (Linux's secretmem_active). */
bool secretmem_active(void);

/* The fault (Linux's secretmem_fault): the page at address of vma, made
 * zeroed and taken out of the direct map if absent, with a reference for
 * the caller's mapping; NULL with *ret VM_FAULT_SIGBUS past the file's
 * end, VM_FAULT_OOM without memory. mm/shmem.c calls it for a MAP_SHARED
 * mapping whose page cache is a secretmem file's. */
struct page *secretmem_get_page(struct address_space *mapping, struct vm_area_struct *vma, unsigned long address,
				unsigned int *ret);

#endif
