/* The multiboot2 parser on crafted information structures: tags with bad
 * sizes, a missing end tag, a loader that gives only the EFI memory map. */
#include "drivers/firmware/multiboot2.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "tests/kunit.h"

static u8 mbi[1024] __aligned(8);
static size_t mbi_len;
static struct boot_info bi;
static struct memmap map;
static char log[1024];

static void begin(void)
{
	memset(mbi, 0, sizeof(mbi));
	mbi_len = 8;
}

static void *tag(u32 type, u32 size)
{
	u32 *t = (u32 *)(mbi + mbi_len);
	t[0] = type;
	t[1] = size;
	mbi_len += ALIGN_UP(size, 8u);
	return t;
}

static void finish(void)
{
	tag(MB2_TAG_END, 8);
	*(u32 *)mbi = (u32)mbi_len;
}

static bool parse(void)
{
	struct printk_capture cap;
	memset(&map, 0, sizeof(map));
	printk_capture_begin(&cap, log, sizeof(log));
	bool ok = multiboot2_parse(mbi, sizeof(mbi), &bi, &map);
	printk_capture_end(&cap);
	return ok;
}

static void add_mmap(void)
{
	u32 *t = tag(MB2_TAG_MMAP, 16 + 2 * 24);
	t[2] = 24; /* entry size */
	t[3] = 0;  /* entry version */
	u64 *e = (u64 *)(t + 4);
	e[0] = 0; e[1] = 0x9f000; ((u32 *)&e[2])[0] = MEMMAP_RAM;
	e[3] = 0x100000; e[4] = 0x7ff00000; ((u32 *)&e[5])[0] = MEMMAP_RAM;
}

static void well_formed(struct kunit *test)
{
	begin();
	char *c = tag(MB2_TAG_CMDLINE, 8 + 12);
	memcpy(c + 8, "ktest a=b c", 12);
	char *n = tag(MB2_TAG_BOOT_LOADER_NAME, 8 + 5);
	memcpy(n + 8, "GRUB", 5);
	add_mmap();
	u32 *m = tag(MB2_TAG_MODULE, 16 + 4);
	m[2] = 0x200000;
	m[3] = 0x201000;
	memcpy(&m[4], "mod", 4);
	char *r = tag(MB2_TAG_ACPI_OLD, 8 + 20);
	memcpy(r + 8, "RSD PTR ", 8);
	finish();
	KUNIT_ASSERT_TRUE(test, parse());
	KUNIT_EXPECT_STREQ(test, bi.cmdline, "ktest a=b c");
	KUNIT_EXPECT_STREQ(test, bi.loader_name, "GRUB");
	KUNIT_EXPECT_TRUE(test, bi.have_mmap);
	KUNIT_EXPECT_EQ(test, map.nr, 2);
	KUNIT_EXPECT_EQ(test, memmap_total(&map, MEMMAP_RAM), 0x9f000 + 0x7ff00000);
	KUNIT_ASSERT_EQ(test, bi.nr_modules, 1);
	KUNIT_EXPECT_EQ(test, bi.modules[0].start, 0x200000);
	KUNIT_EXPECT_STREQ(test, bi.modules[0].cmdline, "mod");
	KUNIT_EXPECT_NOT_NULL(test, bi.rsdp);
	KUNIT_EXPECT_FALSE(test, bi.rsdp_is_v2);
	KUNIT_EXPECT_FALSE(test, bi.efi);
	KUNIT_EXPECT_EQ(test, bi.bad_tags, 0);
}

static void bad_tag_size_stops_parsing(struct kunit *test)
{
	begin();
	add_mmap();
	tag(MB2_TAG_CMDLINE, 4); /* shorter than a tag header */
	finish();
	KUNIT_ASSERT_TRUE(test, parse());
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "tag type 1 at offset 72 has bad size 4; rest ignored"));
	KUNIT_EXPECT_EQ(test, bi.bad_tags, 1);
	KUNIT_EXPECT_TRUE(test, bi.have_mmap); /* what came before is kept */

	begin();
	u32 *t = tag(MB2_TAG_CMDLINE, 16);
	t[1] = 4000; /* runs past the end */
	finish();
	KUNIT_ASSERT_TRUE(test, parse());
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "has bad size 4000"));
	KUNIT_EXPECT_NULL(test, bi.cmdline);
}

static void unterminated_strings_and_missing_end(struct kunit *test)
{
	begin();
	char *c = tag(MB2_TAG_CMDLINE, 8 + 8);
	memcpy(c + 8, "12345678", 8); /* no NUL inside the tag */
	*(u32 *)mbi = (u32)mbi_len; /* and no end tag */
	KUNIT_ASSERT_TRUE(test, parse());
	KUNIT_EXPECT_NULL(test, bi.cmdline);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "no end tag"));
	KUNIT_EXPECT_EQ(test, bi.bad_tags, 1);
}

static void implausible_total_size(struct kunit *test)
{
	begin();
	finish();
	*(u32 *)mbi = 4;
	KUNIT_EXPECT_FALSE(test, parse());
	*(u32 *)mbi = 1u << 30;
	KUNIT_EXPECT_FALSE(test, parse());
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "implausible"));
}

static void efi_map_when_there_is_no_mmap(struct kunit *test)
{
	begin();
	u32 *t = tag(MB2_TAG_EFI_MMAP, 16 + 3 * 48);
	t[2] = 48; /* descriptor size (larger than the struct, as firmware does) */
	t[3] = 1;
	u8 *d = (u8 *)(t + 4);
	struct { u32 type, pad; u64 phys, virt, pages, attr; } *e;
	e = (void *)d;       *e = (typeof(*e)){ 7, 0, 0x100000, 0, 256, 0 };  /* conventional */
	e = (void *)(d + 48); *e = (typeof(*e)){ 4, 0, 0x200000, 0, 16, 0 };  /* boot data */
	e = (void *)(d + 96); *e = (typeof(*e)){ 10, 0, 0x210000, 0, 4, 0 };  /* ACPI NVS */
	finish();
	KUNIT_ASSERT_TRUE(test, parse());
	KUNIT_EXPECT_TRUE(test, bi.efi);
	KUNIT_EXPECT_TRUE(test, bi.have_mmap);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "using the EFI memory map"));
	memmap_sanitize(&map);
	KUNIT_ASSERT_EQ(test, map.nr, 2);
	KUNIT_EXPECT_EQ(test, map.entries[0].start, 0x100000);
	KUNIT_EXPECT_EQ(test, map.entries[0].end, 0x210000); /* merged */
	KUNIT_EXPECT_EQ(test, map.entries[1].type, MEMMAP_NVS);
}

static struct kunit_case multiboot2_cases[] = {
	KUNIT_CASE(well_formed),
	KUNIT_CASE(bad_tag_size_stops_parsing),
	KUNIT_CASE(unterminated_strings_and_missing_end),
	KUNIT_CASE(implausible_total_size),
	KUNIT_CASE(efi_map_when_there_is_no_mmap),
	{}
};
static struct kunit_suite multiboot2_suite = { .name = "multiboot2", .test_cases = multiboot2_cases };
kunit_test_suite(multiboot2_suite);
