/* Firmware memory map handling (see memmap.h for the invariant). */
#include "drivers/firmware/memmap.h"
#include "kernel/printk.h"
#include "lib/string.h"

struct memmap boot_memmap;

const char *memmap_type_name(u32 type)
{
	switch (type) {
	case MEMMAP_RAM: return "usable";
	case MEMMAP_RESERVED: return "reserved";
	case MEMMAP_ACPI: return "ACPI data";
	case MEMMAP_NVS: return "ACPI NVS";
	case MEMMAP_UNUSABLE: return "unusable";
	default: return "unknown";
	}
}

/* Higher wins where entries overlap: never hand out memory that any entry
 * says is not free RAM. Unknown types count as reserved. */
static int type_rank(u32 type)
{
	switch (type) {
	case MEMMAP_RAM: return 0;
	case MEMMAP_ACPI: return 1;
	case MEMMAP_NVS: return 2;
	case MEMMAP_RESERVED: return 3;
	case MEMMAP_UNUSABLE: return 4;
	default: return 3;
	}
}

void memmap_add(struct memmap *map, u64 start, u64 len, u32 type)
{
	if (len == 0) {
		pr_warn("memmap: zero-length entry at %#llx (type %u) ignored\n",
			(unsigned long long)start, type);
		return;
	}
	if (start + len < start) {
		pr_warn("memmap: entry at %#llx length %#llx wraps around, ignored\n",
			(unsigned long long)start, (unsigned long long)len);
		return;
	}
	if (type < MEMMAP_RAM || type > MEMMAP_UNUSABLE)
		type = MEMMAP_RESERVED;
	if (map->nr == MEMMAP_MAX_ENTRIES) {
		map->dropped++;
		pr_warn("memmap: more than %u entries; [%#llx-%#llx) dropped\n", MEMMAP_MAX_ENTRIES,
			(unsigned long long)start, (unsigned long long)(start + len));
		return;
	}
	map->entries[map->nr++] = (struct memmap_entry){ start, start + len, type };
}

static void sort_by_start(struct memmap_entry *e, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		struct memmap_entry x = e[i];
		unsigned j = i;
		while (j > 0 && (e[j - 1].start > x.start ||
				 (e[j - 1].start == x.start && e[j - 1].end > x.end))) {
			e[j] = e[j - 1];
			j--;
		}
		e[j] = x;
	}
}

unsigned memmap_sanitize(struct memmap *map)
{
	static struct memmap_entry in[MEMMAP_MAX_ENTRIES];
	static u64 points[2 * MEMMAP_MAX_ENTRIES];
	unsigned n = map->nr, overlaps = 0, np = 0;

	sort_by_start(map->entries, n);
	for (unsigned i = 0; i + 1 < n; i++) {
		for (unsigned j = i + 1; j < n && map->entries[j].start < map->entries[i].end; j++) {
			overlaps++;
			pr_warn("memmap: [%#llx-%#llx) %s overlaps [%#llx-%#llx) %s; the overlap is %s\n",
				(unsigned long long)map->entries[i].start,
				(unsigned long long)map->entries[i].end,
				memmap_type_name(map->entries[i].type),
				(unsigned long long)map->entries[j].start,
				(unsigned long long)map->entries[j].end,
				memmap_type_name(map->entries[j].type),
				memmap_type_name(type_rank(map->entries[i].type) >=
							 type_rank(map->entries[j].type)
						 ? map->entries[i].type
						 : map->entries[j].type));
		}
	}

	/* Sweep over every boundary: each elementary interval takes the
	 * highest-ranked type covering it. */
	memcpy(in, map->entries, n * sizeof(in[0]));
	for (unsigned i = 0; i < n; i++) {
		points[np++] = in[i].start;
		points[np++] = in[i].end;
	}
	for (unsigned i = 1; i < np; i++) {
		u64 x = points[i];
		unsigned j = i;
		while (j > 0 && points[j - 1] > x) {
			points[j] = points[j - 1];
			j--;
		}
		points[j] = x;
	}

	unsigned out = 0;
	for (unsigned p = 0; p + 1 < np; p++) {
		u64 a = points[p], b = points[p + 1];
		if (a == b)
			continue;
		int best = -1;
		u32 type = 0;
		for (unsigned i = 0; i < n && in[i].start <= a; i++) {
			if (in[i].end > a && type_rank(in[i].type) > best) {
				best = type_rank(in[i].type);
				type = in[i].type;
			}
		}
		if (best < 0)
			continue; /* a hole */
		if (out > 0 && map->entries[out - 1].end == a && map->entries[out - 1].type == type) {
			map->entries[out - 1].end = b;
			continue;
		}
		map->entries[out++] = (struct memmap_entry){ a, b, type };
	}
	map->nr = out;
	return overlaps;
}

u64 memmap_total(const struct memmap *map, u32 type)
{
	u64 sum = 0;
	for (unsigned i = 0; i < map->nr; i++)
		if (map->entries[i].type == type)
			sum += map->entries[i].end - map->entries[i].start;
	return sum;
}

u64 memmap_ram_end(const struct memmap *map)
{
	u64 end = 0;
	for (unsigned i = 0; i < map->nr; i++)
		if (map->entries[i].type == MEMMAP_RAM && map->entries[i].end > end)
			end = map->entries[i].end;
	return end;
}

u64 memmap_ram_within(const struct memmap *map, u64 start, u64 end)
{
	return memmap_type_within(map, start, end, MEMMAP_RAM);
}

u64 memmap_type_within(const struct memmap *map, u64 start, u64 end, u32 type)
{
	u64 sum = 0;
	for (unsigned i = 0; i < map->nr; i++) {
		const struct memmap_entry *e = &map->entries[i];
		if (e->type != type)
			continue;
		u64 a = max(e->start, start), b = min(e->end, end);
		if (a < b)
			sum += b - a;
	}
	return sum;
}

void memmap_print(const struct memmap *map)
{
	pr_info("Memory map (%u entries):\n", map->nr);
	for (unsigned i = 0; i < map->nr; i++) {
		const struct memmap_entry *e = &map->entries[i];
		u64 size = e->end - e->start;
		pr_info("  [mem %#018llx-%#018llx] %-9s %6llu %s\n", (unsigned long long)e->start,
			(unsigned long long)e->end - 1, memmap_type_name(e->type),
			(unsigned long long)(size >= MiB(1) ? size >> 20 : size >> 10),
			size >= MiB(1) ? "MiB" : "KiB");
	}
	pr_info("  usable RAM: %llu MiB\n", (unsigned long long)(memmap_total(map, MEMMAP_RAM) >> 20));
}
