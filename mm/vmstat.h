/* Event counters of /proc/vmstat (Linux's vm_event_item and
 * count_vm_event): kept per CPU, added to by plain increments on the
 * counting CPU (the kernel is not preemptible, and no interrupt handler
 * counts these), summed by the reader. */
#ifndef MM_VMSTAT_H
#define MM_VMSTAT_H

#include "kernel/smp.h"
#include "kernel/topology.h"
#include "kernel/types.h"

enum vm_event_item {
	PGFAULT,    /* handle_mm_fault calls, failed ones included (Linux's) */
	PGMAJFAULT, /* faults that waited for I/O: none, with no I/O here */
	THP_FAULT_ALLOC,    /* mm/huge_memory.c */
	THP_FAULT_FALLBACK,
	THP_SPLIT_PMD,
	THP_ZERO_PAGE_ALLOC,
	THP_ZERO_PAGE_ALLOC_FAILED,
	THP_FILE_ALLOC,     /* mm/shmem_huge.c: a tmpfs file's huge page */
	THP_FILE_FALLBACK,  /* none could be had: 4 KiB pages instead */
	THP_FILE_MAPPED,    /* one mapped by a PMD */
	NR_VM_EVENT_ITEMS
};

struct vm_event_state {
	unsigned long event[NR_VM_EVENT_ITEMS];
} __aligned(64); /* a CPU's counters on a cache line of their own */

extern struct vm_event_state vm_event_states[NR_CPUS];

static inline void count_vm_event(enum vm_event_item item)
{
	vm_event_states[smp_processor_id()].event[item]++;
}

/* The counter summed over the CPUs (Linux's all_vm_events). Exact when no
 * CPU is counting. */
unsigned long all_vm_events(enum vm_event_item item);

/* Linux's fragmentation_index (mm/vmstat_frag.c), in thousandths: -1000
 * when pgdat has a free block of the order, else from 0 (a request would
 * fail for lack of memory) to 1000 (for fragmentation). */
struct pglist_data;
int fragmentation_index(const struct pglist_data *pgdat, unsigned int order);

#endif
