/* Shared by the host_vma suite's files: the mm under test (fresh for every
 * case), shorthands, and the case lists of vma_random.c. */
#ifndef TESTS_HOST_VMA_TEST_H
#define TESTS_HOST_VMA_TEST_H

#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/vma.h" /* sysctl_max_map_count */
#include "tests/host/ktest.h"
#include "tests/host/vma_stubs.h"

extern struct mm_struct *mm;

#define P(n) ((unsigned long)(n) * PAGE_SIZE)
#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define VM_MAY (VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC)
#define VM_RW (VM_READ | VM_WRITE | VM_MAY)
#define VM_R (VM_READ | VM_MAY)

/* do_mmap's result as a signed number, to compare with -errno. */
#define MMAP(addr, len, prot, flags) ((long)do_mmap(mm, (addr), (len), (prot), (flags)))
/* MAP_FIXED private anonymous memory of n pages at addr; asserts success. */
void map_fixed(struct ktest *t, unsigned long addr, unsigned long pages, unsigned long prot,
	       unsigned long extra_flags);
/* The flags of the VMA holding addr, or 0 if none does. */
unsigned long flags_at(unsigned long addr);

extern const struct ktest_case vma_random_cases[];
extern const size_t nr_vma_random_cases;

#endif
