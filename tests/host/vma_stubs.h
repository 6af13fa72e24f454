/* What the host test of the VMA layer (vma_test.c) puts in place of
 * mm/memory.c, mm/mmu_gather.c and kmalloc (vma_stubs.c): each stub records
 * its call, and a model of the present pages checks that what the VMA code
 * unmaps and zaps is what it should. Plus the invariant check of an mm's
 * VMA tree and list. */
#ifndef TESTS_HOST_VMA_STUBS_H
#define TESTS_HOST_VMA_STUBS_H

#include "mm/mmap.h"
#include "tests/host/ktest.h"

enum stub_call_kind {
	CALL_GATHER,      /* tlb_gather_mmu */
	CALL_GATHER_FULL, /* tlb_gather_mmu_fullmm */
	CALL_FINISH,      /* tlb_finish_mmu */
	CALL_UNMAP,       /* unmap_page_range(start, end) */
	CALL_FREE_PGD,    /* free_pgd_range(start, end, floor, ceiling) */
	CALL_ZAP,         /* zap_page_range(start, start + size) */
	CALL_CHPROT,      /* change_protection(start, end, prot) */
	CALL_POPULATE,    /* populate_vma_range(start, end), prot: the write argument */
};

struct stub_call {
	enum stub_call_kind kind;
	unsigned long start, end, floor, ceiling;
	pgprot_t prot;
	unsigned long vm_flags; /* of the VMA passed, at the call */
};

#define MAX_STUB_CALLS 4096
extern struct stub_call stub_calls[MAX_STUB_CALLS];
extern int nr_stub_calls;
/* Calls of kind since the last stub_reset(). */
int stub_count(enum stub_call_kind kind);
/* The n-th call of kind (0-based), or NULL. */
const struct stub_call *stub_find(enum stub_call_kind kind, int n);

/* The commit count the stubs of mm/util.c keep (pages). */
extern long stub_committed;

/* Failure injection: the next `kmalloc_fail_in`-th allocation that may
 * wait fails (1: the next one; 0: none), and one that may not fails while
 * the next that may would; populate_vma_range fails when set. */
extern int kmalloc_fail_in;
extern bool populate_fails;
/* kmalloc'ed objects not freed yet. */
extern long stub_live_objects;
/* Problems the stubs found (a call outside its VMA, a gather misused);
 * printed as they happen. */
extern int stub_errors;

/* Forgets the calls recorded. */
void stub_reset(void);
/* Forgets everything: calls, present pages, injections, errors. */
void stub_reset_all(void);
/* The model: pages made present by populate_vma_range, removed by
 * unmap_page_range and zap_page_range. */
bool stub_page_present(unsigned long addr);
unsigned long stub_present_pages(void);

/* A fresh mm as mm_alloc makes it (no page tables here). */
struct mm_struct *test_mm_alloc(void);
/* exit_mmap, then free. */
void test_mm_free(struct mm_struct *mm);

/* Checks every invariant of mm's VMAs (red-black properties, order, list,
 * subtree gaps, counters, no mergeable neighbours except the data segment
 * and the heap at start_brk, anon_vma refcounts, present pages only inside
 * VMAs); reports failures on t. Returns true if all hold. */
bool check_mm(struct ktest *t, struct mm_struct *mm);
/* How many distinct anon_vmas mm's VMAs point to. */
unsigned long mm_nr_anon_vmas(struct mm_struct *mm);

#endif
