/* TLB flushing, local and across CPUs (shootdown). Kernel mappings are
 * global (CR4.PGE), so a full local flush toggles PGE; a range of up to
 * TLB_FLUSH_ALL_THRESHOLD pages is flushed page by page with INVLPG. */
#ifndef ARCH_X86_64_TLB_H
#define ARCH_X86_64_TLB_H

#include "kernel/types.h"

#define TLB_FLUSH_ALL_THRESHOLD 32

void __flush_tlb_one_kernel(unsigned long addr);
void __flush_tlb_all(void);
/* Every online CPU stops using translations of [start, end) before this
 * returns (the caller has already changed the page tables). */
void flush_tlb_kernel_range(unsigned long start, unsigned long end);
/* Shootdowns this CPU has handled (tests, benchmarks). */
unsigned long tlb_shootdowns_handled(unsigned cpu);

#endif
