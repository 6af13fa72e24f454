/* Physical memory bring-up at boot (see mm_init.c for the order). */
#ifndef MM_MM_INIT_H
#define MM_MM_INIT_H

/* Needs the NUMA topology, the memory map and the ACPI tables. */
void mm_init(void);
/* memblock reservations, per-node memory, buddyinfo, NUMA counters. */
void mm_report(void);

#endif
