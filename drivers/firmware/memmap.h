/* The firmware memory map, cleaned up: sorted, no zero-length entries, no
 * overlaps (where entries disagree the more restrictive type wins), adjacent
 * entries of one type merged. Everything that later hands out memory starts
 * from the RAM entries of this map. */
#ifndef DRIVERS_FIRMWARE_MEMMAP_H
#define DRIVERS_FIRMWARE_MEMMAP_H

#include "kernel/types.h"

enum memmap_type {
	MEMMAP_RAM = 1,
	MEMMAP_RESERVED = 2,
	MEMMAP_ACPI = 3,     /* ACPI tables, reclaimable once parsed */
	MEMMAP_NVS = 4,      /* ACPI non-volatile storage */
	MEMMAP_UNUSABLE = 5, /* defective RAM */
};

#define MEMMAP_MAX_ENTRIES 256

struct memmap_entry {
	u64 start, end; /* [start, end) */
	u32 type;
};

struct memmap {
	struct memmap_entry entries[MEMMAP_MAX_ENTRIES];
	unsigned nr;
	unsigned dropped; /* entries that did not fit */
};

extern struct memmap boot_memmap;

/* Records [start, start + len). Zero-length and wrapping entries are reported
 * and dropped. The map may stay unsorted and overlapping until sanitize. */
void memmap_add(struct memmap *map, u64 start, u64 len, u32 type);
/* Sorts, resolves overlaps and merges; returns the number of overlaps found
 * (each one is reported). */
unsigned memmap_sanitize(struct memmap *map);
u64 memmap_total(const struct memmap *map, u32 type);
/* Highest end address of any RAM entry. */
u64 memmap_ram_end(const struct memmap *map);
/* Bytes of [start, end) that are RAM in the map. */
u64 memmap_ram_within(const struct memmap *map, u64 start, u64 end);
/* Bytes of [start, end) that the map gives the type. */
u64 memmap_type_within(const struct memmap *map, u64 start, u64 end, u32 type);
const char *memmap_type_name(u32 type);
void memmap_print(const struct memmap *map);

#endif
