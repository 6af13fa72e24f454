/* Physical memory bring-up at boot (see mm_init.c for the order). */
#ifndef MM_MM_INIT_H
#define MM_MM_INIT_H

/* Needs the NUMA topology and memblock set up by the boot code: every
 * node's RAM (numa_memblks_to_memblock) and every range the boot left in
 * use reserved. */
void mm_init(void);
/* memblock reservations, per-node memory, buddyinfo, NUMA counters. */
void mm_report(void);

#endif
