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
	PGMAJFAULT, /* faults that waited for I/O: a swap-in's read (mm/memory_swap.c) */
	PSWPIN,     /* pages read from swap (mm/swap_state.c) */
	PSWPOUT,    /* pages written to swap */
	SWAP_RA,    /* pages read ahead of a swap-in fault (mm/swap_readahead.c) */
	SWAP_RA_HIT, /* of those, found in the swap cache by a later fault */
	/* mm/workingset.c's, node counters in Linux (summed here: /proc/vmstat
	 * shows the sum); anon only, mmlab reclaims no file page */
	WORKINGSET_REFAULT_ANON,  /* pages read back into a slot holding a shadow */
	WORKINGSET_ACTIVATE_ANON, /* of them, activated: refault distance within the workingset */
	WORKINGSET_RESTORE_ANON,  /* of those, active before their eviction */
	THP_FAULT_ALLOC,    /* mm/huge_memory.c */
	THP_FAULT_FALLBACK,
	THP_COLLAPSE_ALLOC,        /* mm/khugepaged_collapse.c: a THP for a collapse */
	THP_COLLAPSE_ALLOC_FAILED, /* none could be had */
	THP_SPLIT_PAGE,        /* mm/huge_memory_split.c: a THP made 512 pages of their own */
	THP_SPLIT_PAGE_FAILED, /* a split given up (a reference or mapping out of reach) */
	THP_SPLIT_PMD,
	THP_SCAN_EXCEED_NONE_PTE,  /* khugepaged left a PMD: max_ptes_none */
	THP_SCAN_EXCEED_SWAP_PTE,  /* max_ptes_swap */
	THP_SCAN_EXCEED_SHARED_PTE, /* max_ptes_shared */
	THP_ZERO_PAGE_ALLOC,
	THP_ZERO_PAGE_ALLOC_FAILED,
	THP_FILE_ALLOC,     /* mm/shmem_huge.c: a tmpfs file's huge page */
	THP_FILE_FALLBACK,  /* none could be had: 4 KiB pages instead */
	THP_FILE_MAPPED,    /* one mapped by a PMD */
	THP_SWPOUT,          /* a THP written to swap whole (never: no THP swap here, as Linux's
			      * on a rotational disk, which has no swap clusters) */
	THP_SWPOUT_FALLBACK, /* a PMD-mapped THP split to go to swap page by page (mm/vmscan.c) */
	/* Reclaim's (mm/swap.c, mm/vmscan.c, mm/mlock.c, mm/oom_kill.c),
	 * counted in pages as Linux's */
	ALLOCSTALL,         /* direct reclaim entered (Linux's allocstall_normal: one zone) */
	PGACTIVATE,         /* pages moved to an active list */
	PGDEACTIVATE,       /* pages moved to an inactive list */
	PGREFILL,           /* pages scanned on the active lists */
	PGSTEAL_KSWAPD,     /* pages reclaimed by kswapd */
	PGSTEAL_DIRECT,     /* pages reclaimed by direct reclaim */
	PGSCAN_KSWAPD,      /* inactive pages scanned by kswapd */
	PGSCAN_DIRECT,      /* inactive pages scanned by direct reclaim */
	OOM_KILL,           /* tasks the OOM killer killed */
	/* Compaction's (mm/compaction.c, mm/kcompactd.c), Linux's */
	COMPACTMIGRATE_SCANNED, /* pages the migration scanner looked at */
	COMPACTFREE_SCANNED,    /* pages the free scanner looked at */
	COMPACTISOLATED,        /* pages isolated, by both scanners */
	COMPACTSTALL,           /* direct compactions */
	COMPACTFAIL,            /* of them, not followed by a successful allocation */
	COMPACTSUCCESS,         /* of them, followed by one */
	KCOMPACTD_WAKE,         /* kcompactd runs */
	KCOMPACTD_MIGRATE_SCANNED, /* of the scanned pages above, kcompactd's */
	KCOMPACTD_FREE_SCANNED,
	UNEVICTABLE_PGCULLED,  /* put on the unevictable list by the LRU code */
	UNEVICTABLE_PGSCANNED, /* looked at by an unevictable list's rescue */
	UNEVICTABLE_PGRESCUED, /* taken back off the unevictable list */
	UNEVICTABLE_PGMLOCKED, /* pages mlocked */
	UNEVICTABLE_PGMUNLOCKED, /* pages munlocked */
	UNEVICTABLE_PGCLEARED, /* mlocked pages freed (unmapped without munlock) */
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

static inline void count_vm_events(enum vm_event_item item, unsigned long delta)
{
	vm_event_states[smp_processor_id()].event[item] += delta;
}

/* The counter summed over the CPUs (Linux's all_vm_events). Exact when no
 * CPU is counting. */
unsigned long all_vm_events(enum vm_event_item item);

/* Linux's fragmentation_index (mm/vmstat_frag.c), in thousandths: -1000
 * when pgdat has a free block of the order, else from 0 (a request would
 * fail for lack of memory) to 1000 (for fragmentation). */
struct pglist_data;
int fragmentation_index(const struct pglist_data *pgdat, unsigned int order);
/* Linux's extfrag_for_order: the share (0..100) of pgdat's free pages in
 * blocks smaller than order (0 with none free), which proactive
 * compaction's fragmentation score is made of. */
unsigned int extfrag_for_order(const struct pglist_data *pgdat, unsigned int order);

#endif
