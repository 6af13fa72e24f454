/* The ACPI parsers on crafted tables: what real firmware gets wrong (bad
 * checksums, a missing SRAT or SLIT, memory outside the memory map, too many
 * proximity domains, invalid distances) must be survived with a warning and
 * the documented fallback. The live tables are checked in topology_test.c. */
#include "arch/x86_64/page.h"
#include "drivers/acpi/tables.h"
#include "drivers/firmware/multiboot2.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "tests/kunit.h"

/* --- building tables ---------------------------------------------------- */

struct table_buf {
	u8 data[4096] __aligned(16);
	size_t len;
};

static struct table_buf srat_buf, slit_buf, madt_buf, xsdt_buf, rsdt_buf;
static struct acpi_rsdp rsdp_buf;

static u8 checksum_of(const void *p, size_t len)
{
	u8 sum = 0;
	for (size_t i = 0; i < len; i++)
		sum += ((const u8 *)p)[i];
	return (u8)(0 - sum);
}

static void table_begin(struct table_buf *t, const char *sig, u8 rev, size_t fixed_len)
{
	memset(t, 0, sizeof(*t));
	struct acpi_table_header *h = (void *)t->data;
	memcpy(h->signature, sig, 4);
	h->revision = rev;
	memcpy(h->oem_id, "MMLAB ", 6);
	memcpy(h->oem_table_id, "KUNIT   ", 8);
	t->len = fixed_len;
}

static void table_add(struct table_buf *t, const void *p, size_t len)
{
	memcpy(t->data + t->len, p, len);
	t->len += len;
}

static const struct acpi_table_header *table_end(struct table_buf *t)
{
	struct acpi_table_header *h = (void *)t->data;
	h->length = (u32)t->len;
	h->checksum = 0;
	h->checksum = checksum_of(h, t->len);
	return h;
}

static void srat_cpu(u32 pxm, u8 apic_id, bool enabled)
{
	struct acpi_srat_cpu_affinity e = {
		.h = { ACPI_SRAT_CPU_AFFINITY, sizeof(e) },
		.proximity_domain_lo = (u8)pxm,
		.apic_id = apic_id,
		.flags = enabled ? ACPI_SRAT_CPU_ENABLED : 0,
		.proximity_domain_hi = { (u8)(pxm >> 8), (u8)(pxm >> 16), (u8)(pxm >> 24) },
	};
	table_add(&srat_buf, &e, sizeof(e));
}

static void srat_mem(u32 pxm, u64 base, u64 len, u32 flags)
{
	struct acpi_srat_mem_affinity e = {
		.h = { ACPI_SRAT_MEMORY_AFFINITY, sizeof(e) },
		.proximity_domain = pxm,
		.base_address = base,
		.length = len,
		.flags = flags,
	};
	table_add(&srat_buf, &e, sizeof(e));
}

static void madt_lapic(u8 uid, u8 apic_id, u32 flags)
{
	struct acpi_madt_local_apic e = { { ACPI_MADT_LOCAL_APIC, sizeof(e) }, uid, apic_id, flags };
	table_add(&madt_buf, &e, sizeof(e));
}

static void madt_begin(void)
{
	table_begin(&madt_buf, "APIC", 4, sizeof(struct acpi_table_madt));
	((struct acpi_table_madt *)madt_buf.data)->lapic_address = 0xfee00000;
}

static void slit_build(unsigned n, const u8 *dist)
{
	table_begin(&slit_buf, "SLIT", 1, sizeof(struct acpi_table_slit));
	((struct acpi_table_slit *)slit_buf.data)->locality_count = n;
	table_add(&slit_buf, dist, n * n);
}

/* --- the machine the tables describe ------------------------------------ */

static struct memmap map;
static struct numa_topology topo;
static struct acpi_madt_info madt_info;
static struct acpi_tables tables;
static struct acpi_boot_cpu boot;
static char log[4096];

static void add_table(const struct acpi_table_header *h)
{
	tables.tables[tables.nr_tables++] = h;
}

static int acpi_test_init(struct kunit *test)
{
	(void)test;
	memset(&map, 0, sizeof(map));
	memset(&tables, 0, sizeof(tables));
	/* RAM 0-640K, 1M-2G, 4G-6G; a reserved PCI hole in between. */
	memmap_add(&map, 0, 0xa0000, MEMMAP_RAM);
	memmap_add(&map, MiB(1), GiB(2) - MiB(1), MEMMAP_RAM);
	memmap_add(&map, GiB(2), GiB(2), MEMMAP_RESERVED);
	memmap_add(&map, GiB(4), GiB(2), MEMMAP_RAM);
	memmap_sanitize(&map);
	madt_begin();
	madt_lapic(0, 0, ACPI_MADT_ENABLED);
	madt_lapic(1, 1, ACPI_MADT_ENABLED);
	table_begin(&srat_buf, "SRAT", 3, sizeof(struct acpi_table_srat));
	/* A machine with x2APIC unless a case says otherwise: the results
	 * must not depend on the CPU the tests run on. */
	boot = (struct acpi_boot_cpu){ .apic_id = 0, .x2apic = true, .phys_bits = 40 };
	return 0;
}

static void run_numa_init(void)
{
	struct printk_capture cap;
	printk_capture_begin(&cap, log, sizeof(log));
	acpi_numa_init_boot_cpu(&tables, &map, &boot, &topo, &madt_info);
	printk_capture_end(&cap);
}

#define EXPECT_LOG(test, text)                                                            \
	do {                                                                              \
		if (!strstr(log, text))                                                   \
			kunit_fail(test, false, __FILE__, __LINE__,                       \
				   "Expected a message containing \"%s\"; got:\n%s", text, log); \
	} while (0)

/* Checks the invariants numa.h promises, whatever the tables were. */
static void expect_consistent(struct kunit *test)
{
	u64 covered = 0;
	KUNIT_EXPECT_GE(test, topo.nr_nodes, 1);
	for (unsigned i = 0; i < topo.nr_memblks; i++) {
		KUNIT_EXPECT_LT(test, topo.memblks[i].nid, (int)topo.nr_nodes);
		KUNIT_EXPECT_EQ(test, memmap_ram_within(&map, topo.memblks[i].start, topo.memblks[i].end),
				topo.memblks[i].end - topo.memblks[i].start);
		covered += topo.memblks[i].end - topo.memblks[i].start;
	}
	KUNIT_EXPECT_EQ(test, covered, memmap_total(&map, MEMMAP_RAM));
	for (unsigned c = 0; c < topo.nr_cpus; c++) {
		KUNIT_EXPECT_GE(test, topo.cpus[c].nid, 0);
		KUNIT_EXPECT_LT(test, topo.cpus[c].nid, (int)topo.nr_nodes);
	}
	for (unsigned a = 0; a < topo.nr_nodes; a++)
		for (unsigned b = 0; b < topo.nr_nodes; b++) {
			if (a == b)
				KUNIT_EXPECT_EQ(test, topo.distance[a][b], LOCAL_DISTANCE);
			else
				KUNIT_EXPECT_GT(test, topo.distance[a][b], LOCAL_DISTANCE);
		}
}

/* --- tests ---------------------------------------------------------------- */

static void two_nodes_from_srat_and_slit(struct kunit *test)
{
	srat_cpu(0, 0, true);
	srat_cpu(1, 1, true);
	srat_mem(0, 0, GiB(1), ACPI_SRAT_MEM_ENABLED);
	srat_mem(1, GiB(1), GiB(1), ACPI_SRAT_MEM_ENABLED);
	srat_mem(1, GiB(4), GiB(2), ACPI_SRAT_MEM_ENABLED);
	static const u8 d[] = { 10, 21, 21, 10 };
	slit_build(2, d);
	add_table(table_end(&madt_buf));
	add_table(table_end(&srat_buf));
	add_table(table_end(&slit_buf));
	run_numa_init();

	KUNIT_EXPECT_TRUE(test, topo.have_srat);
	KUNIT_EXPECT_TRUE(test, topo.have_slit);
	KUNIT_ASSERT_EQ(test, topo.nr_nodes, 2);
	KUNIT_EXPECT_EQ(test, topo.nr_cpus, 2);
	KUNIT_EXPECT_EQ(test, topo.cpus[0].nid, 0);
	KUNIT_EXPECT_EQ(test, topo.cpus[1].nid, 1);
	KUNIT_EXPECT_TRUE(test, topo.cpus[0].boot_cpu);
	KUNIT_EXPECT_EQ(test, topo.nodes[0].declared_bytes, GiB(1));
	/* The 640K-1M hole is not RAM. */
	KUNIT_EXPECT_EQ(test, topo.nodes[0].ram_bytes, GiB(1) - MiB(1) + 0xa0000);
	KUNIT_EXPECT_EQ(test, topo.nodes[1].ram_bytes, GiB(3));
	KUNIT_EXPECT_EQ(test, topo.distance[0][1], 21);
	KUNIT_EXPECT_EQ(test, topo.distance[1][0], 21);
	KUNIT_EXPECT_EQ(test, topo.warnings, 0);
	expect_consistent(test);
}

static void no_srat_gives_one_node(struct kunit *test)
{
	add_table(table_end(&madt_buf));
	run_numa_init();
	EXPECT_LOG(test, "no SRAT; one node holds all memory and CPUs");
	KUNIT_EXPECT_FALSE(test, topo.have_srat);
	KUNIT_ASSERT_EQ(test, topo.nr_nodes, 1);
	KUNIT_EXPECT_EQ(test, topo.nodes[0].ram_bytes, memmap_total(&map, MEMMAP_RAM));
	KUNIT_EXPECT_EQ(test, topo.nodes[0].nr_cpus, 2);
	expect_consistent(test);
}

static void no_slit_gives_default_distances(struct kunit *test)
{
	srat_mem(0, 0, GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(1, GiB(4), GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_cpu(0, 0, true);
	srat_cpu(1, 1, true);
	add_table(table_end(&madt_buf));
	add_table(table_end(&srat_buf));
	run_numa_init();
	KUNIT_EXPECT_FALSE(test, topo.have_slit);
	KUNIT_ASSERT_EQ(test, topo.nr_nodes, 2);
	KUNIT_EXPECT_EQ(test, topo.distance[0][1], REMOTE_DISTANCE);
	KUNIT_EXPECT_EQ(test, topo.distance[1][1], LOCAL_DISTANCE);
	expect_consistent(test);
}

static void invalid_slit_is_ignored(struct kunit *test)
{
	srat_mem(0, 0, GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(1, GiB(4), GiB(2), ACPI_SRAT_MEM_ENABLED);
	add_table(table_end(&madt_buf));
	add_table(table_end(&srat_buf));
	static const u8 bad_local[] = { 20, 30, 30, 10 };
	slit_build(2, bad_local);
	add_table(table_end(&slit_buf));
	run_numa_init();
	EXPECT_LOG(test, "SLIT: distance 20 from locality 0 to 0 is invalid");
	KUNIT_EXPECT_FALSE(test, topo.have_slit);
	KUNIT_EXPECT_EQ(test, topo.distance[0][1], REMOTE_DISTANCE);

	tables.nr_tables = 2;
	static const u8 bad_remote[] = { 10, 5, 5, 10 };
	slit_build(2, bad_remote);
	add_table(table_end(&slit_buf));
	run_numa_init();
	EXPECT_LOG(test, "SLIT: distance 5 from locality 0 to 1 is invalid");
	KUNIT_EXPECT_FALSE(test, topo.have_slit);

	tables.nr_tables = 2;
	slit_build(2, bad_remote);
	((struct acpi_table_slit *)slit_buf.data)->locality_count = 100; /* longer than the table */
	add_table(table_end(&slit_buf));
	run_numa_init();
	EXPECT_LOG(test, "SLIT: 100 localities do not fit");
	KUNIT_EXPECT_FALSE(test, topo.have_slit);
	expect_consistent(test);
}

static void srat_memory_outside_the_map_is_ignored(struct kunit *test)
{
	srat_mem(0, 0, GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(1, GiB(4), GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(2, GiB(8), GiB(1), ACPI_SRAT_MEM_ENABLED); /* no RAM there */
	srat_mem(1, GiB(2), MiB(512), ACPI_SRAT_MEM_ENABLED); /* the PCI hole */
	add_table(table_end(&madt_buf));
	add_table(table_end(&srat_buf));
	run_numa_init();
	EXPECT_LOG(test, "SRAT: [0x200000000-0x23fffffff) of domain 2 is not RAM in the memory map, ignored");
	EXPECT_LOG(test, "SRAT: [0x80000000-0x9fffffff) of domain 1 is not RAM in the memory map, ignored");
	KUNIT_EXPECT_EQ(test, topo.nr_nodes, 2); /* domain 2 never became a node */
	KUNIT_EXPECT_EQ(test, topo.nodes[1].declared_bytes, GiB(2));
	expect_consistent(test);
}

static void disabled_and_hotplug_entries_are_ignored(struct kunit *test)
{
	srat_mem(0, 0, GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(1, GiB(4), GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(1, GiB(6), GiB(2), ACPI_SRAT_MEM_ENABLED | ACPI_SRAT_MEM_HOT_PLUGGABLE);
	srat_mem(0, GiB(4), GiB(2), 0); /* disabled: would overlap node 1 */
	srat_cpu(0, 0, true);
	srat_cpu(1, 1, false); /* disabled: CPU 1 is not placed */
	add_table(table_end(&madt_buf));
	add_table(table_end(&srat_buf));
	run_numa_init();
	EXPECT_LOG(test, "hot-pluggable range [0x180000000-0x1ffffffff) of domain 1 kept out of RAM");
	EXPECT_LOG(test, "the SRAT does not place CPU 1 (APIC id 1); using node 0");
	KUNIT_EXPECT_EQ(test, topo.cpus[1].nid, 0);
	KUNIT_EXPECT_EQ(test, topo.nodes[1].ram_bytes, GiB(2));
	expect_consistent(test);
}

static void too_many_domains_are_ignored(struct kunit *test)
{
	srat_mem(0, 0, GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(1, GiB(4), GiB(2), ACPI_SRAT_MEM_ENABLED);
	for (u32 pxm = 2; pxm <= MAX_NUMNODES; pxm++)
		srat_cpu(pxm, (u8)(pxm + 10), true);
	srat_cpu(0x01000000, 99, true); /* 4-byte domain number */
	add_table(table_end(&madt_buf));
	add_table(table_end(&srat_buf));
	run_numa_init();
	KUNIT_EXPECT_EQ(test, topo.nr_nodes, MAX_NUMNODES);
	EXPECT_LOG(test, "SRAT: proximity domain 16 for APIC id 26 is beyond 16 nodes, ignored");
	EXPECT_LOG(test, "SRAT: proximity domain 16777216 for APIC id 99 is beyond 16 nodes, ignored");
	expect_consistent(test);
}

static void memoryless_node_keeps_its_cpu(struct kunit *test)
{
	srat_cpu(0, 0, true);
	srat_cpu(1, 1, true);
	srat_mem(0, 0, GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(0, GiB(4), GiB(2), ACPI_SRAT_MEM_ENABLED);
	add_table(table_end(&madt_buf));
	add_table(table_end(&srat_buf));
	run_numa_init();
	KUNIT_ASSERT_EQ(test, topo.nr_nodes, 2);
	KUNIT_EXPECT_EQ(test, topo.cpus[1].nid, 1);
	KUNIT_EXPECT_EQ(test, topo.nodes[1].ram_bytes, 0);
	KUNIT_EXPECT_EQ(test, topo.nodes[1].nr_cpus, 1);
	KUNIT_EXPECT_EQ(test, topo.nodes[0].nr_cpus, 1);
	expect_consistent(test);
}

static void uncovered_ram_falls_back_to_one_node(struct kunit *test)
{
	srat_mem(0, 0, GiB(1), ACPI_SRAT_MEM_ENABLED); /* 5 GiB of RAM left over */
	add_table(table_end(&madt_buf));
	add_table(table_end(&srat_buf));
	run_numa_init();
	EXPECT_LOG(test, "falling back to one node");
	KUNIT_EXPECT_EQ(test, topo.nr_nodes, 1);
	KUNIT_EXPECT_FALSE(test, topo.have_srat);
	expect_consistent(test);
}

static void overlapping_nodes_are_refused(struct kunit *test)
{
	srat_mem(0, 0, GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(1, GiB(4), GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(2, GiB(5), GiB(1), ACPI_SRAT_MEM_ENABLED);
	add_table(table_end(&madt_buf));
	add_table(table_end(&srat_buf));
	run_numa_init();
	EXPECT_LOG(test, "overlaps another node, ignored");
	expect_consistent(test);
}

static void madt_entries(struct kunit *test)
{
	madt_begin();
	madt_lapic(0, 0, ACPI_MADT_ENABLED);
	madt_lapic(1, 4, 0);                        /* disabled */
	madt_lapic(2, 5, ACPI_MADT_ONLINE_CAPABLE); /* hot-pluggable, not present */
	madt_lapic(3, 0, ACPI_MADT_ENABLED);        /* duplicate APIC id */
	struct acpi_madt_local_x2apic x2 = { { ACPI_MADT_LOCAL_X2APIC, sizeof(x2) }, 0, 300,
					     ACPI_MADT_ENABLED, 7 };
	table_add(&madt_buf, &x2, sizeof(x2));
	struct acpi_madt_io_apic io = { { ACPI_MADT_IO_APIC, sizeof(io) }, 2, 0, 0xfec00000, 0 };
	table_add(&madt_buf, &io, sizeof(io));
	struct acpi_madt_interrupt_override ov = { { ACPI_MADT_INTERRUPT_OVERRIDE, sizeof(ov) },
						   0, 0, 2, 0 };
	table_add(&madt_buf, &ov, sizeof(ov));
	u8 broken[2] = { ACPI_MADT_LOCAL_APIC, 1 }; /* length shorter than a header */
	table_add(&madt_buf, broken, sizeof(broken));
	madt_lapic(9, 9, ACPI_MADT_ENABLED); /* after the broken entry: not reached */
	add_table(table_end(&madt_buf));
	run_numa_init();
	EXPECT_LOG(test, "MADT lists APIC ID 0 twice");
	EXPECT_LOG(test, "MADT entry type 0 has bad length 1; rest ignored");
	KUNIT_ASSERT_EQ(test, topo.nr_cpus, 2);
	KUNIT_EXPECT_EQ(test, topo.cpus[1].apic_id, 300);
	KUNIT_EXPECT_TRUE(test, topo.cpus[1].x2apic);
	KUNIT_EXPECT_EQ(test, madt_info.disabled_cpus, 2);
	KUNIT_EXPECT_EQ(test, madt_info.rejected_cpus, 1);
	KUNIT_EXPECT_EQ(test, madt_info.nr_ioapics, 1);
	KUNIT_EXPECT_EQ(test, madt_info.ioapics[0].address, 0xfec00000);
	KUNIT_EXPECT_EQ(test, madt_info.nr_overrides, 1);
	KUNIT_EXPECT_EQ(test, madt_info.overrides[0].gsi, 2);
	expect_consistent(test);
}

static void no_madt_means_boot_cpu_only(struct kunit *test)
{
	run_numa_init();
	EXPECT_LOG(test, "no MADT");
	KUNIT_EXPECT_EQ(test, topo.nr_cpus, 1);
	KUNIT_EXPECT_TRUE(test, topo.cpus[0].boot_cpu);
	expect_consistent(test);
}

/* RSDP -> XSDT/RSDT discovery and checksums. */
static void build_rsdp(u8 revision, bool with_xsdt)
{
	memset(&rsdp_buf, 0, sizeof(rsdp_buf));
	memcpy(rsdp_buf.signature, "RSD PTR ", 8);
	memcpy(rsdp_buf.oem_id, "MMLAB ", 6);
	rsdp_buf.revision = revision;
	rsdp_buf.rsdt_address = (u32)__pa(rsdt_buf.data);
	rsdp_buf.length = sizeof(rsdp_buf);
	rsdp_buf.xsdt_address = with_xsdt ? __pa(xsdt_buf.data) : 0;
	rsdp_buf.checksum = checksum_of(&rsdp_buf, 20);
	rsdp_buf.extended_checksum = checksum_of(&rsdp_buf, sizeof(rsdp_buf));
}

static bool scan(void)
{
	struct printk_capture cap;
	printk_capture_begin(&cap, log, sizeof(log));
	bool ok = acpi_scan_tables(&rsdp_buf, sizeof(rsdp_buf), &tables);
	printk_capture_end(&cap);
	return ok;
}

static void build_roots(void)
{
	const struct acpi_table_header *srat, *slit;
	srat_mem(0, 0, GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat = table_end(&srat_buf);
	static const u8 d[] = { 10 };
	slit_build(1, d);
	slit = table_end(&slit_buf);
	((struct acpi_table_header *)slit_buf.data)->checksum ^= 0x55; /* corrupt the SLIT */

	table_begin(&xsdt_buf, "XSDT", 1, sizeof(struct acpi_table_header));
	u64 x[3] = { __pa(madt_buf.data), __pa(srat), __pa(slit) };
	table_end(&madt_buf);
	table_add(&xsdt_buf, x, sizeof(x));
	table_end(&xsdt_buf);
	table_begin(&rsdt_buf, "RSDT", 1, sizeof(struct acpi_table_header));
	u32 r[2] = { (u32)__pa(madt_buf.data), (u32)__pa(srat) };
	table_add(&rsdt_buf, r, sizeof(r));
	table_end(&rsdt_buf);
}

static void xsdt_is_preferred_and_bad_tables_skipped(struct kunit *test)
{
	build_roots();
	build_rsdp(2, true);
	KUNIT_ASSERT_TRUE(test, scan());
	KUNIT_EXPECT_MEMEQ(test, tables.root->signature, "XSDT", 4);
	KUNIT_EXPECT_EQ(test, tables.nr_tables, 2);
	KUNIT_EXPECT_EQ(test, tables.bad_tables, 1);
	EXPECT_LOG(test, "ACPI: SLIT header Checksum 0x");
	EXPECT_LOG(test, "is bad (table at 0x");
	KUNIT_EXPECT_NOT_NULL(test, acpi_get_table(&tables, "SRAT"));
	KUNIT_EXPECT_NULL(test, acpi_get_table(&tables, "SLIT"));
}

static void rsdt_when_acpi_1_or_bad_extended_checksum(struct kunit *test)
{
	build_roots();
	build_rsdp(0, false);
	KUNIT_ASSERT_TRUE(test, scan());
	KUNIT_EXPECT_MEMEQ(test, tables.root->signature, "RSDT", 4);
	KUNIT_EXPECT_EQ(test, tables.nr_tables, 2);

	build_rsdp(2, true);
	rsdp_buf.extended_checksum ^= 1;
	KUNIT_ASSERT_TRUE(test, scan());
	EXPECT_LOG(test, "extended checksum or length is bad; using the RSDT");
	KUNIT_EXPECT_MEMEQ(test, tables.root->signature, "RSDT", 4);
}

static void bad_rsdp_and_bad_root(struct kunit *test)
{
	build_roots();
	build_rsdp(2, true);
	rsdp_buf.checksum ^= 1;
	KUNIT_EXPECT_FALSE(test, scan());
	EXPECT_LOG(test, "RSDP has a bad checksum");

	build_rsdp(2, true);
	((struct acpi_table_header *)xsdt_buf.data)->checksum ^= 1;
	((struct acpi_table_header *)rsdt_buf.data)->length = 10;
	KUNIT_EXPECT_FALSE(test, scan());
	EXPECT_LOG(test, "ACPI: XSDT header Checksum 0x");
	EXPECT_LOG(test, "ACPI: RSDT header Length 10 is bad (table at 0x");
	EXPECT_LOG(test, "no usable root table");

	memset(&rsdp_buf, 0, sizeof(rsdp_buf));
	KUNIT_EXPECT_FALSE(test, scan());
	EXPECT_LOG(test, "ACPI: no RSDP");
}

/* Without the loader's copy of the RSDP, a BIOS boot finds it by scanning
 * the EBDA and 0xE0000-0xFFFFF: it must be the same RSDP GRUB copied. */
static void bios_scan_finds_the_loaders_rsdp(struct kunit *test)
{
	if (boot_info.efi)
		kunit_skip(test, "UEFI boot: there is no BIOS area to scan");
	KUNIT_ASSERT_NOT_NULL(test, boot_info.rsdp);
	const struct acpi_rsdp *copy = boot_info.rsdp, *found = acpi_find_rsdp_bios();
	KUNIT_ASSERT_NOT_NULL(test, found);
	KUNIT_EXPECT_MEMEQ(test, found, copy, 20);
}

/* --- hostile MADTs --------------------------------------------------------- */

static void madt_x2apic(u32 uid, u32 apic_id, u32 flags)
{
	struct acpi_madt_local_x2apic e = { { ACPI_MADT_LOCAL_X2APIC, sizeof(e) }, 0, apic_id, flags,
					    uid };
	table_add(&madt_buf, &e, sizeof(e));
}

static void madt_lapic_override(u64 address)
{
	struct acpi_madt_local_apic_override e = { { ACPI_MADT_LOCAL_APIC_OVERRIDE, sizeof(e) }, 0,
						   address };
	table_add(&madt_buf, &e, sizeof(e));
}

static bool topo_has_apic_id(u32 apic_id)
{
	for (unsigned c = 0; c < topo.nr_cpus; c++)
		if (topo.cpus[c].apic_id == apic_id)
			return true;
	return false;
}

/* xAPIC mode: 8-bit destinations, 0xff the broadcast; no entry that cannot
 * be named reaches the CPU list (so smpboot never sends it INIT/SIPI). */
static void madt_ids_xapic_cannot_address_are_left_out(struct kunit *test)
{
	boot.x2apic = false;
	madt_lapic(2, 0xff, ACPI_MADT_ENABLED);
	madt_x2apic(3, 254, ACPI_MADT_ENABLED);
	madt_x2apic(4, 255, ACPI_MADT_ENABLED);
	madt_x2apic(5, 256, ACPI_MADT_ENABLED);
	madt_x2apic(6, 257, ACPI_MADT_ENABLED);
	madt_x2apic(7, 0xffffffff, ACPI_MADT_ENABLED);
	add_table(table_end(&madt_buf));
	run_numa_init();
	EXPECT_LOG(test, "MADT local APIC entry (UID 2): APIC ID 0xff is the broadcast id; CPU left out");
	EXPECT_LOG(test, "MADT local x2APIC entry (UID 4): APIC ID 0xff cannot be addressed in xAPIC mode");
	EXPECT_LOG(test, "MADT local x2APIC entry (UID 5): APIC ID 0x100 cannot be addressed in xAPIC mode");
	EXPECT_LOG(test, "MADT local x2APIC entry (UID 6): APIC ID 0x101 cannot be addressed");
	EXPECT_LOG(test, "MADT local x2APIC entry (UID 7): APIC ID 0xffffffff is beyond the 32768 APIC ids");
	KUNIT_EXPECT_EQ(test, topo.nr_cpus, 3); /* 0, 1 and x2APIC 254 */
	KUNIT_EXPECT_TRUE(test, topo_has_apic_id(254));
	KUNIT_EXPECT_EQ(test, madt_info.rejected_cpus, 5);
	for (unsigned c = 0; c < topo.nr_cpus; c++)
		KUNIT_EXPECT_TRUE(test, acpi_apic_id_usable(&boot, topo.cpus[c].apic_id));
	expect_consistent(test);
}

/* x2APIC mode: 32-bit ids, up to MAX_LOCAL_APIC; the xAPIC entry's 0xff
 * is still its broadcast (as Linux's acpi_parse_lapic). */
static void madt_ids_x2apic(struct kunit *test)
{
	madt_lapic(2, 0xff, ACPI_MADT_ENABLED);
	madt_x2apic(4, 255, ACPI_MADT_ENABLED);
	madt_x2apic(5, 256, ACPI_MADT_ENABLED);
	madt_x2apic(6, 257, ACPI_MADT_ENABLED);
	madt_x2apic(7, MAX_LOCAL_APIC, ACPI_MADT_ENABLED);
	madt_x2apic(8, 0xffffffff, ACPI_MADT_ENABLED);
	madt_x2apic(9, 256, ACPI_MADT_ENABLED); /* a duplicate across entry types too */
	madt_x2apic(10, 1, ACPI_MADT_ENABLED);
	add_table(table_end(&madt_buf));
	run_numa_init();
	EXPECT_LOG(test, "(UID 2): APIC ID 0xff is the broadcast id");
	EXPECT_LOG(test, "(UID 7): APIC ID 0x8000 is beyond the 32768 APIC ids");
	EXPECT_LOG(test, "(UID 8): APIC ID 0xffffffff is beyond");
	EXPECT_LOG(test, "MADT lists APIC ID 256 twice, second entry (UID 9) ignored");
	EXPECT_LOG(test, "MADT lists APIC ID 1 twice, second entry (UID 10) ignored");
	KUNIT_EXPECT_EQ(test, topo.nr_cpus, 5); /* 0, 1, 255, 256, 257 */
	KUNIT_EXPECT_TRUE(test, topo_has_apic_id(255));
	KUNIT_EXPECT_TRUE(test, topo_has_apic_id(257));
	KUNIT_EXPECT_EQ(test, madt_info.rejected_cpus, 5);
	expect_consistent(test);
}

/* The boot CPU's id comes from CPUID: missing from the MADT (or listed
 * disabled), it is added, not given another entry's id. */
static void boot_cpu_missing_from_madt_is_added(struct kunit *test)
{
	boot.apic_id = 3;
	madt_lapic(3, 3, 0); /* listed, but disabled */
	add_table(table_end(&madt_buf));
	run_numa_init();
	EXPECT_LOG(test, "the boot CPU's APIC ID 3 (from CPUID) is not an enabled CPU of the MADT; added");
	KUNIT_ASSERT_EQ(test, topo.nr_cpus, 3);
	unsigned boot_cpus = 0;
	for (unsigned c = 0; c < topo.nr_cpus; c++) {
		boot_cpus += topo.cpus[c].boot_cpu;
		if (topo.cpus[c].boot_cpu)
			KUNIT_EXPECT_EQ(test, topo.cpus[c].apic_id, 3);
	}
	KUNIT_EXPECT_EQ(test, boot_cpus, 1);
	expect_consistent(test);

	/* A full table: the last entry makes room. */
	madt_begin();
	for (u32 id = 0; id < NR_CPUS; id++)
		madt_x2apic(id, id + 100, ACPI_MADT_ENABLED);
	tables.nr_tables = 0;
	add_table(table_end(&madt_buf));
	boot.apic_id = 7;
	run_numa_init();
	EXPECT_LOG(test, "APIC ID 163 left out to make room for the boot CPU");
	KUNIT_EXPECT_EQ(test, topo.nr_cpus, NR_CPUS);
	KUNIT_EXPECT_EQ(test, topo.cpus[NR_CPUS - 1].apic_id, 7);
	KUNIT_EXPECT_TRUE(test, topo.cpus[NR_CPUS - 1].boot_cpu);
	expect_consistent(test);
}

static void set_lapic_header(u32 address)
{
	((struct acpi_table_madt *)madt_buf.data)->lapic_address = address;
}

/* The local APIC address: page-aligned, a page below the physical address
 * width, no RAM, ACPI data, NVS or unusable memory; else the architectural
 * default. */
static void lapic_address_is_checked(struct kunit *test)
{
	static const struct { u32 header; u64 override; bool has_override; u64 expect;
			      const char *msg; } cases[] = {
		{ 0x1000, 0, false, APIC_DEFAULT_PHYS_BASE,
		  "Local APIC Address (header) 0x1000 is RAM in the memory map; not used" },
		{ 0x200000, 0, false, APIC_DEFAULT_PHYS_BASE,
		  "Local APIC Address (header) 0x200000 is RAM in the memory map" },
		{ 0xfee00800, 0, false, APIC_DEFAULT_PHYS_BASE,
		  "Local APIC Address (header) 0xfee00800 is not page-aligned" },
		{ 0xfec10000, 0, false, 0xfec10000, NULL },
		{ 0xfec10000, 0xfed00000, true, 0xfed00000, NULL },
		{ 0xfec10000, 1ull << 40, true, 0xfec10000,
		  "Local APIC Address Override 0x10000000000 is beyond the CPU's physical address width" },
		{ 0xfec10000, 0xffff8000fee00000ull, true, 0xfec10000,
		  "Local APIC Address Override 0xffff8000fee00000 is beyond" },
		{ 0xfec10000, GiB(4) + PAGE_SIZE, true, 0xfec10000,
		  "Local APIC Address Override 0x100001000 is RAM" },
		{ 0, (1ull << 40) - PAGE_SIZE, true, (1ull << 40) - PAGE_SIZE,
		  "Local APIC Address (header) 0x0 is RAM" },
		{ 0x7ffff000, 0, false, APIC_DEFAULT_PHYS_BASE,
		  "Local APIC Address (header) 0x7ffff000 is ACPI data in the memory map; not used" },
		{ 0xfec10000, 0x7ffe0000, true, 0xfec10000,
		  "Local APIC Address Override 0x7ffe0000 is ACPI NVS in the memory map" },
		{ 0x7ff00000, 0, false, APIC_DEFAULT_PHYS_BASE,
		  "Local APIC Address (header) 0x7ff00000 is unusable (defective) memory" },
	};
	/* Firmware's memory at the top of the first RAM range, as a PC's:
	 * ACPI tables, NVS, and a defective stretch below them. */
	memmap_add(&map, 0x7fff0000, 0x10000, MEMMAP_ACPI);
	memmap_add(&map, 0x7ffe0000, 0x10000, MEMMAP_NVS);
	memmap_add(&map, 0x7ff00000, 0x10000, MEMMAP_UNUSABLE);
	memmap_sanitize(&map);
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		madt_begin();
		set_lapic_header(cases[i].header);
		madt_lapic(0, 0, ACPI_MADT_ENABLED);
		if (cases[i].has_override)
			madt_lapic_override(cases[i].override);
		tables.nr_tables = 0;
		add_table(table_end(&madt_buf));
		run_numa_init();
		if (madt_info.lapic_address != cases[i].expect)
			kunit_info(test, "case %u: header %#x, override %#llx", i, cases[i].header,
				   (unsigned long long)cases[i].override);
		KUNIT_EXPECT_EQ(test, madt_info.lapic_address, cases[i].expect);
		if (cases[i].msg)
			EXPECT_LOG(test, cases[i].msg);
		else
			KUNIT_EXPECT_EQ(test, topo.warnings, 0);
		if (cases[i].expect == APIC_DEFAULT_PHYS_BASE)
			EXPECT_LOG(test, "using the architectural local APIC address 0xfee00000");
	}
}

/* --- hostile SRATs --------------------------------------------------------- */

/* The same range twice on one node: counted once, nothing left out. */
static void srat_same_node_overlap_is_merged(struct kunit *test)
{
	srat_mem(0, 0, GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(0, 0, GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(0, GiB(1), GiB(1), ACPI_SRAT_MEM_ENABLED); /* inside */
	srat_mem(1, GiB(4), GiB(1) + MiB(512), ACPI_SRAT_MEM_ENABLED);
	srat_mem(1, GiB(5), GiB(1), ACPI_SRAT_MEM_ENABLED); /* straddles the end of the last */
	add_table(table_end(&madt_buf));
	add_table(table_end(&srat_buf));
	run_numa_init();
	EXPECT_LOG(test, "SRAT: [0x0-0x7fffffff) of domain 0 overlaps an earlier range of the same node; "
			 "merged, counted once");
	EXPECT_LOG(test, "SRAT: [0x140000000-0x17fffffff) of domain 1 overlaps an earlier range");
	KUNIT_EXPECT_TRUE(test, topo.have_srat);
	KUNIT_ASSERT_EQ(test, topo.nr_nodes, 2);
	KUNIT_EXPECT_EQ(test, topo.nodes[0].declared_bytes, GiB(2));
	KUNIT_EXPECT_EQ(test, topo.nodes[0].ram_bytes, GiB(2) - MiB(1) + 0xa0000);
	KUNIT_EXPECT_EQ(test, topo.nodes[1].declared_bytes, GiB(2));
	KUNIT_EXPECT_EQ(test, topo.nodes[1].ram_bytes, GiB(2));
	expect_consistent(test); /* every RAM byte in exactly one memblk */
}

/* A double count must not hide what the SRAT left out: 1 GiB listed twice
 * is 1 GiB, the RAM above it uncovered, so one node. */
static void srat_double_count_does_not_hide_uncovered_ram(struct kunit *test)
{
	srat_mem(0, 0, GiB(1), ACPI_SRAT_MEM_ENABLED);
	srat_mem(0, 0, GiB(1), ACPI_SRAT_MEM_ENABLED);
	srat_mem(1, GiB(4), GiB(2), ACPI_SRAT_MEM_ENABLED);
	add_table(table_end(&madt_buf));
	add_table(table_end(&srat_buf));
	run_numa_init();
	EXPECT_LOG(test, "overlaps an earlier range of the same node");
	EXPECT_LOG(test, "falling back to one node");
	KUNIT_EXPECT_FALSE(test, topo.have_srat);
	KUNIT_EXPECT_EQ(test, topo.nr_nodes, 1);
	expect_consistent(test);
}

/* Different nodes: the first entry wins, the later is refused whole. */
static void srat_other_node_overlap_first_wins(struct kunit *test)
{
	srat_mem(0, 0, GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(1, GiB(4), GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(2, GiB(1), GiB(1), ACPI_SRAT_MEM_ENABLED);
	add_table(table_end(&madt_buf));
	add_table(table_end(&srat_buf));
	run_numa_init();
	EXPECT_LOG(test, "SRAT: [0x40000000-0x7fffffff) of domain 2 overlaps another node, ignored "
			 "(the first entry wins)");
	KUNIT_EXPECT_TRUE(test, topo.have_srat);
	KUNIT_EXPECT_EQ(test, topo.nr_nodes, 2); /* the refused domain made no node */
	KUNIT_EXPECT_EQ(test, topo.nodes[0].ram_bytes, GiB(2) - MiB(1) + 0xa0000);
	expect_consistent(test);
}

/* The subtable walk itself: each type to its handler in table order, other
 * types skipped, a maximum, and a subtable length that is too short or
 * runs past the table's end stopping the walk before it reads there. */
struct seen_entries {
	u8 types[16];
	unsigned n;
};

static int record_entry(const struct acpi_subtable_header *header, void *arg, const unsigned long end)
{
	struct seen_entries *seen = arg;
	if ((unsigned long)header + header->length > end || seen->n == ARRAY_SIZE(seen->types))
		return -EINVAL;
	seen->types[seen->n++] = header->type;
	return 0;
}

static int refuse_entry(const struct acpi_subtable_header *header, void *arg, const unsigned long end)
{
	(void)header, (void)arg, (void)end;
	return 1;
}

static void parse_entries_array(struct kunit *test)
{
	static struct seen_entries seen;
	struct acpi_subtable_proc proc[] = {
		{ .id = ACPI_MADT_LOCAL_APIC, .handler = record_entry, .arg = &seen },
		{ .id = ACPI_MADT_IO_APIC, .handler = record_entry, .arg = &seen },
	};
	struct acpi_madt_io_apic io = { { ACPI_MADT_IO_APIC, sizeof(io) }, 1, 0, 0xfec00000, 0 };
	struct acpi_madt_local_x2apic x2 = { { ACPI_MADT_LOCAL_X2APIC, sizeof(x2) }, 0, 7, 1, 7 };
	madt_lapic(2, 2, ACPI_MADT_ENABLED);
	table_add(&madt_buf, &io, sizeof(io));
	table_add(&madt_buf, &x2, sizeof(x2));
	const struct acpi_table_header *h = table_end(&madt_buf);
	struct printk_capture cap;

	memset(&seen, 0, sizeof(seen));
	KUNIT_EXPECT_EQ(test, acpi_parse_entries_array("MADT", sizeof(struct acpi_table_madt), h, proc,
						       ARRAY_SIZE(proc), 0), 4);
	KUNIT_EXPECT_EQ(test, seen.n, 4);
	KUNIT_EXPECT_EQ(test, seen.types[2], ACPI_MADT_LOCAL_APIC);
	KUNIT_EXPECT_EQ(test, seen.types[3], ACPI_MADT_IO_APIC);
	KUNIT_EXPECT_EQ(test, proc[0].count, 3);
	KUNIT_EXPECT_EQ(test, proc[1].count, 1);

	/* The first two handled, all four counted. */
	memset(&seen, 0, sizeof(seen));
	printk_capture_begin(&cap, log, sizeof(log));
	int ret = acpi_parse_entries_array("MADT", sizeof(struct acpi_table_madt), h, proc,
					   ARRAY_SIZE(proc), 2);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, ret, 4);
	KUNIT_EXPECT_EQ(test, seen.n, 2);
	EXPECT_LOG(test, "MADT ignored 2 entries of 4 found");

	/* A handler's error ends the walk. */
	proc[1].handler = refuse_entry;
	KUNIT_EXPECT_EQ(test, acpi_parse_entries_array("MADT", sizeof(struct acpi_table_madt), h, proc,
						       ARRAY_SIZE(proc), 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, proc[1].count, 0);
	proc[1].handler = record_entry;

	/* The last subtable one byte longer than the table holds, then one
	 * shorter than a subtable header: what came before is handled, the
	 * rest is not read. */
	static const u8 lengths[] = { sizeof(x2) + 1, 1, 0 };
	for (unsigned i = 0; i < ARRAY_SIZE(lengths); i++) {
		((struct acpi_subtable_header *)(madt_buf.data + madt_buf.len - sizeof(x2)))->length =
			lengths[i];
		h = table_end(&madt_buf);
		memset(&seen, 0, sizeof(seen));
		printk_capture_begin(&cap, log, sizeof(log));
		ret = acpi_parse_entries_array("MADT", sizeof(struct acpi_table_madt), h, proc,
					       ARRAY_SIZE(proc), 0);
		printk_capture_end(&cap);
		KUNIT_EXPECT_EQ(test, ret, -EINVAL);
		KUNIT_EXPECT_EQ(test, seen.n, 4);
		char want[64];
		snprintf(want, sizeof(want), "MADT entry type %u has bad length %u; rest ignored",
			 ACPI_MADT_LOCAL_X2APIC, lengths[i]);
		EXPECT_LOG(test, want);
	}
}

/* A bad subtable length in the MADT or the SRAT: the entries before it are
 * taken, the warning names the table, the topology counts it. */
static void bad_subtable_length_ends_the_table(struct kunit *test)
{
	madt_lapic(2, 2, ACPI_MADT_ENABLED);
	madt_buf.data[madt_buf.len - sizeof(struct acpi_madt_local_apic) + 1] = 0xff;
	madt_lapic(3, 3, ACPI_MADT_ENABLED);
	srat_mem(0, 0, GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_mem(1, GiB(4), GiB(2), ACPI_SRAT_MEM_ENABLED);
	srat_buf.data[srat_buf.len - sizeof(struct acpi_srat_mem_affinity) + 1] = 0;
	add_table(table_end(&madt_buf));
	add_table(table_end(&srat_buf));
	run_numa_init();
	EXPECT_LOG(test, "ACPI: MADT entry type 0 has bad length 255; rest ignored");
	EXPECT_LOG(test, "SRAT: entry type 1 has bad length 0; rest ignored");
	KUNIT_EXPECT_EQ(test, topo.nr_cpus, 2);
	KUNIT_EXPECT_GE(test, topo.warnings, 2);
	/* Node 1's range was not read: its RAM is uncovered, so one node. */
	KUNIT_EXPECT_FALSE(test, topo.have_srat);
	expect_consistent(test);
}

static struct kunit_case acpi_cases[] = {
	KUNIT_CASE(two_nodes_from_srat_and_slit),
	KUNIT_CASE(no_srat_gives_one_node),
	KUNIT_CASE(no_slit_gives_default_distances),
	KUNIT_CASE(invalid_slit_is_ignored),
	KUNIT_CASE(srat_memory_outside_the_map_is_ignored),
	KUNIT_CASE(disabled_and_hotplug_entries_are_ignored),
	KUNIT_CASE(too_many_domains_are_ignored),
	KUNIT_CASE(memoryless_node_keeps_its_cpu),
	KUNIT_CASE(uncovered_ram_falls_back_to_one_node),
	KUNIT_CASE(overlapping_nodes_are_refused),
	KUNIT_CASE(madt_entries),
	KUNIT_CASE(no_madt_means_boot_cpu_only),
	KUNIT_CASE(xsdt_is_preferred_and_bad_tables_skipped),
	KUNIT_CASE(rsdt_when_acpi_1_or_bad_extended_checksum),
	KUNIT_CASE(bad_rsdp_and_bad_root),
	KUNIT_CASE(bios_scan_finds_the_loaders_rsdp),
	KUNIT_CASE(madt_ids_xapic_cannot_address_are_left_out),
	KUNIT_CASE(madt_ids_x2apic),
	KUNIT_CASE(boot_cpu_missing_from_madt_is_added),
	KUNIT_CASE(lapic_address_is_checked),
	KUNIT_CASE(srat_same_node_overlap_is_merged),
	KUNIT_CASE(srat_double_count_does_not_hide_uncovered_ram),
	KUNIT_CASE(srat_other_node_overlap_first_wins),
	KUNIT_CASE(parse_entries_array),
	KUNIT_CASE(bad_subtable_length_ends_the_table),
	{}
};
static struct kunit_suite acpi_suite = {
	.name = "acpi", .init = acpi_test_init, .test_cases = acpi_cases };
kunit_test_suite(acpi_suite);
