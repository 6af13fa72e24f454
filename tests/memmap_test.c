/* The memory-map sanitizer on maps that firmware really produces: unsorted,
 * overlapping, zero-length, adjacent pieces. */
#include "drivers/firmware/memmap.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "tests/expect.h"
#include "tests/kunit.h"

static struct memmap map;
static char log[2048];

static unsigned sanitize(void)
{
	struct printk_capture cap;
	printk_capture_begin(&cap, log, sizeof(log));
	unsigned n = memmap_sanitize(&map);
	printk_capture_end(&cap);
	return n;
}

static void add(u64 start, u64 len, u32 type)
{
	struct printk_capture cap;
	printk_capture_begin(&cap, log, sizeof(log));
	memmap_add(&map, start, len, type);
	printk_capture_end(&cap);
}

static int reset(struct kunit *test)
{
	(void)test;
	memset(&map, 0, sizeof(map));
	return 0;
}

#define EXPECT_ENTRY(test, i, s, e, t)                                       \
	do {                                                                 \
		KUNIT_EXPECT_EQ(test, map.entries[i].start, s);              \
		KUNIT_EXPECT_EQ(test, map.entries[i].end, e);                \
		KUNIT_EXPECT_EQ(test, map.entries[i].type, t);               \
	} while (0)

static void sorts_and_merges(struct kunit *test)
{
	add(0x200000, 0x100000, MEMMAP_RAM);
	add(0x0, 0x9f000, MEMMAP_RAM);
	add(0x100000, 0x100000, MEMMAP_RAM); /* adjacent to the first */
	KUNIT_EXPECT_EQ(test, sanitize(), 0);
	KUNIT_ASSERT_EQ(test, map.nr, 2);
	EXPECT_ENTRY(test, 0, 0, 0x9f000, MEMMAP_RAM);
	EXPECT_ENTRY(test, 1, 0x100000, 0x300000, MEMMAP_RAM);
	KUNIT_EXPECT_EQ(test, memmap_total(&map, MEMMAP_RAM), 0x9f000 + 0x200000);
	KUNIT_EXPECT_EQ(test, memmap_ram_end(&map), 0x300000);
}

static void zero_length_and_wrapping_entries_are_dropped(struct kunit *test)
{
	add(0x1000, 0, MEMMAP_RAM);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "zero-length entry at 0x1000"));
	add(0xfffffffffffff000ull, 0x2000, MEMMAP_RAM);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "wraps around"));
	KUNIT_EXPECT_EQ(test, map.nr, 0);
}

static void overlaps_resolve_to_the_restrictive_type(struct kunit *test)
{
	add(0x0, 0x1000000, MEMMAP_RAM);           /* 0 - 16 MiB RAM */
	add(0x800000, 0x100000, MEMMAP_RESERVED);  /* 8 - 9 MiB reserved inside */
	add(0xf00000, 0x200000, MEMMAP_ACPI);      /* 15 - 17 MiB, sticks out */
	add(0x400000, 0x1000, 42);                 /* unknown type: reserved */
	KUNIT_EXPECT_EQ(test, sanitize(), 3);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "overlaps"));
	KUNIT_ASSERT_EQ(test, map.nr, 6);
	EXPECT_ENTRY(test, 0, 0x0, 0x400000, MEMMAP_RAM);
	EXPECT_ENTRY(test, 1, 0x400000, 0x401000, MEMMAP_RESERVED);
	EXPECT_ENTRY(test, 2, 0x401000, 0x800000, MEMMAP_RAM);
	EXPECT_ENTRY(test, 3, 0x800000, 0x900000, MEMMAP_RESERVED);
	EXPECT_ENTRY(test, 4, 0x900000, 0xf00000, MEMMAP_RAM);
	EXPECT_ENTRY(test, 5, 0xf00000, 0x1100000, MEMMAP_ACPI);
	KUNIT_EXPECT_EQ(test, memmap_ram_within(&map, 0, 0x1100000), 0xf00000 - 0x101000);
}

static void identical_duplicates_collapse(struct kunit *test)
{
	add(0x100000, 0x100000, MEMMAP_RAM);
	add(0x100000, 0x100000, MEMMAP_RAM);
	KUNIT_EXPECT_EQ(test, sanitize(), 1);
	KUNIT_ASSERT_EQ(test, map.nr, 1);
	EXPECT_ENTRY(test, 0, 0x100000, 0x200000, MEMMAP_RAM);
}

static void boot_map_is_clean(struct kunit *test)
{
	const struct memmap *m = &boot_memmap;
	KUNIT_ASSERT_GT(test, m->nr, 0);
	expect_boot_ram(test, memmap_total(m, MEMMAP_RAM));
	for (unsigned i = 0; i < m->nr; i++) {
		KUNIT_EXPECT_LT(test, m->entries[i].start, m->entries[i].end);
		if (i) {
			KUNIT_EXPECT_LE(test, m->entries[i - 1].end, m->entries[i].start);
			if (m->entries[i - 1].end == m->entries[i].start)
				KUNIT_EXPECT_NE(test, m->entries[i - 1].type, m->entries[i].type);
		}
	}
}

static struct kunit_case memmap_cases[] = {
	KUNIT_CASE(sorts_and_merges),
	KUNIT_CASE(zero_length_and_wrapping_entries_are_dropped),
	KUNIT_CASE(overlaps_resolve_to_the_restrictive_type),
	KUNIT_CASE(identical_duplicates_collapse),
	KUNIT_CASE(boot_map_is_clean),
	{}
};
static struct kunit_suite memmap_suite = {
	.name = "memmap", .init = reset, .test_cases = memmap_cases };
kunit_test_suite(memmap_suite);
