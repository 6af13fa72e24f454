/* The topology the kernel built from this machine's ACPI tables, compared
 * with what the machine was configured to be. The expectations come on the
 * command line (each topology file of the test matrix carries its own), so a
 * wrong SRAT/SLIT/MADT parse fails here on any machine a user boots:
 *
 *   expect.nodes=4 expect.cpus=4
 *   expect.node_mem=1024,1024,1024,0   MiB per node, in node order
 *   expect.node_cpus=1,1,1,1           CPUs per node
 *   expect.dist=10,20/20,10            SLIT rows separated by '/'
 *   expect.srat=1 expect.slit=0        whether the tables exist
 *
 * A case whose expectation is not given is skipped, saying so. */
#include "drivers/acpi/tables.h"
#include "kernel/cmdline.h"
#include "drivers/firmware/memmap.h"
#include "drivers/firmware/multiboot2.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/numa.h"
#include "tests/expect.h"
#include "tests/kunit.h"

/* Parses "a,b,c" into out; returns the count, or -1 (with a failure) if the
 * text is malformed. */
static int parse_list(struct kunit *test, const char *name, const char *s, u64 *out, int max)
{
	int n = expect_parse_list(s, out, max);
	if (n < 0)
		kunit_fail(test, true, __FILE__, __LINE__, "%s: malformed list \"%s\"", name, s);
	return n;
}

static void require(struct kunit *test, bool given, const char *param)
{
	if (!given)
		kunit_skip(test, "no %s on the command line", param);
}

static void node_count(struct kunit *test)
{
	require(test, expect_nodes >= 0, "expect.nodes");
	KUNIT_EXPECT_EQ(test, num_online_nodes(), expect_nodes);
}

static void cpu_count(struct kunit *test)
{
	require(test, expect_cpus >= 0, "expect.cpus");
	/* expect.cpus is the machine's CPUs: the present ones. The possible
	 * ones are the MADT's, which may also list a CPU that never answered
	 * (smp_boot_secondaries left it out of cpu_present_mask). */
	unsigned present = 0;
	for (unsigned c = 0; c < num_possible_cpus(); c++)
		present += cpu_present(c);
	KUNIT_EXPECT_EQ(test, present, expect_cpus);
	KUNIT_EXPECT_GE(test, num_possible_cpus(), present);
	unsigned boot = 0;
	for (unsigned c = 0; c < numa_topology.nr_cpus; c++)
		boot += numa_topology.cpus[c].boot_cpu;
	KUNIT_EXPECT_EQ(test, boot, 1); /* we run on one of the listed CPUs */
}

static void tables_present(struct kunit *test)
{
	require(test, expect_srat >= 0 || expect_slit >= 0, "expect.srat or expect.slit");
	if (expect_srat >= 0) {
		KUNIT_EXPECT_EQ(test, acpi_get_table(&acpi_tables, "SRAT") != NULL, expect_srat);
		KUNIT_EXPECT_EQ(test, numa_topology.have_srat, expect_srat);
	}
	if (expect_slit >= 0) {
		KUNIT_EXPECT_EQ(test, acpi_get_table(&acpi_tables, "SLIT") != NULL, expect_slit);
		KUNIT_EXPECT_EQ(test, numa_topology.have_slit, expect_slit);
	}
	KUNIT_EXPECT_NOT_NULL(test, acpi_get_table(&acpi_tables, "APIC"));
	KUNIT_EXPECT_EQ(test, acpi_tables.bad_tables, 0);
}

static void memory_per_node(struct kunit *test)
{
	u64 mib[MAX_NUMNODES];
	require(test, expect_node_mem[0], "expect.node_mem");
	int n = parse_list(test, "expect.node_mem", expect_node_mem, mib, MAX_NUMNODES);
	KUNIT_ASSERT_EQ(test, n, (int)num_online_nodes());
	for (int nid = 0; nid < n; nid++) {
		const struct numa_node_info *ni = &numa_topology.nodes[nid];
		u64 want = MiB(mib[nid]);
		/* Rounded to the nearest MiB: QEMU's node 0 lacks the 640K-1M hole. */
		if (numa_topology.have_srat)
			KUNIT_EXPECT_EQ(test, (ni->declared_bytes + MiB(1) / 2) >> 20, mib[nid]);
		KUNIT_EXPECT_LE(test, ni->ram_bytes, want + MiB(1));
		KUNIT_EXPECT_GE(test, ni->ram_bytes + FIRMWARE_RESERVE_SLACK, want);
		if (want == 0)
			KUNIT_EXPECT_EQ(test, ni->ram_bytes, 0);
	}
}

static void memory_ranges_belong_to_their_node(struct kunit *test)
{
	u64 total = 0, per_node[MAX_NUMNODES] = { 0 };
	for (unsigned i = 0; i < numa_topology.nr_memblks; i++) {
		const struct numa_memblk *b = &numa_topology.memblks[i];
		KUNIT_EXPECT_LT(test, b->start, b->end);
		KUNIT_EXPECT_LT(test, b->nid, (int)num_online_nodes());
		KUNIT_EXPECT_EQ(test, memmap_ram_within(&boot_memmap, b->start, b->end),
				b->end - b->start);
		for (unsigned j = 0; j < i; j++) {
			const struct numa_memblk *o = &numa_topology.memblks[j];
			KUNIT_EXPECT_TRUE(test, b->end <= o->start || o->end <= b->start);
		}
		total += b->end - b->start;
		per_node[b->nid] += b->end - b->start;
	}
	KUNIT_EXPECT_EQ(test, total, memmap_total(&boot_memmap, MEMMAP_RAM));
	for (unsigned nid = 0; nid < num_online_nodes(); nid++)
		KUNIT_EXPECT_EQ(test, per_node[nid], node_ram_bytes(nid));
}

static void cpus_per_node(struct kunit *test)
{
	u64 want[MAX_NUMNODES];
	require(test, expect_node_cpus[0], "expect.node_cpus");
	int n = parse_list(test, "expect.node_cpus", expect_node_cpus, want, MAX_NUMNODES);
	KUNIT_ASSERT_EQ(test, n, (int)num_online_nodes());
	for (int nid = 0; nid < n; nid++) {
		unsigned count = 0;
		for (unsigned c = 0; c < num_possible_cpus(); c++)
			count += cpu_to_node(c) == nid;
		KUNIT_EXPECT_EQ(test, count, want[nid]);
		KUNIT_EXPECT_EQ(test, numa_topology.nodes[nid].nr_cpus, want[nid]);
	}
}

static void distances(struct kunit *test)
{
	u64 row[MAX_NUMNODES];
	require(test, expect_dist[0], "expect.dist");
	const char *s = expect_dist;
	int a = 0;
	while (*s) {
		char buf[128];
		const char *end = strchr(s, '/');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		KUNIT_ASSERT_LT(test, len, sizeof(buf));
		memcpy(buf, s, len);
		buf[len] = 0;
		int n = parse_list(test, "expect.dist", buf, row, MAX_NUMNODES);
		KUNIT_ASSERT_EQ(test, n, (int)num_online_nodes());
		for (int b = 0; b < n; b++)
			KUNIT_EXPECT_EQ(test, node_distance(a, b), row[b]);
		a++;
		s = end ? end + 1 : s + len;
	}
	KUNIT_EXPECT_EQ(test, a, (int)num_online_nodes());
}

static void boot_information(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, boot_info.have_mmap);
	KUNIT_EXPECT_NOT_NULL(test, boot_info.rsdp);
	KUNIT_EXPECT_EQ(test, boot_info.bad_tags, 0);
	KUNIT_EXPECT_GT(test, boot_memmap.nr, 0);
	expect_boot_ram(test, memmap_total(&boot_memmap, MEMMAP_RAM));
	if (boot_info.efi)
		KUNIT_EXPECT_NOT_NULL(test, boot_info.efi_mmap);
}

static struct kunit_case topology_cases[] = {
	KUNIT_CASE(node_count),
	KUNIT_CASE(cpu_count),
	KUNIT_CASE(tables_present),
	KUNIT_CASE(memory_per_node),
	KUNIT_CASE(memory_ranges_belong_to_their_node),
	KUNIT_CASE(cpus_per_node),
	KUNIT_CASE(distances),
	KUNIT_CASE(boot_information),
	{}
};
static struct kunit_suite topology_suite = { .name = "topology", .test_cases = topology_cases };
kunit_test_suite(topology_suite);
