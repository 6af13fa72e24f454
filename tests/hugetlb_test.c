/* hugetlb's pools (mm/hugetlb.c): a pool set through its files grows node
 * by node in turn over the nodes with memory and shrinks back, every page
 * returning to the buddy allocator; a node's file sets that node's share;
 * /proc/meminfo and the nodes' meminfo count the pool; the files exist
 * for the sizes the CPU can map, and refuse what Linux refuses. Counts
 * are derived from the machine: the nodes with memory, and whether a
 * 1 GiB page can be had at all. */
#include "tests/kunit.h"
#include "arch/x86_64/cpufeature.h"
#include "kernel/printk.h"
#include "kernel/procfs.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "mm/hugetlb.h"
#include "mm/util.h"
#include "mm/numa.h"

static long write_file(const char *path, const char *text)
{
	struct proc_node node;
	int err = procfs_lookup(path, current, &node);
	if (err)
		return err;
	return procfs_write(&node, text, strlen(text));
}

static long read_number(const char *path)
{
	char *buf;
	size_t len;
	if (procfs_generate(path, current, &buf, &len))
		return -1;
	u64 v;
	bool ok = len && buf[len - 1] == '\n' && !parse_u64(buf, len - 1, &v);
	kvfree(buf);
	return ok ? (long)v : -1;
}

static const char *const H2M = "/sys/kernel/mm/hugepages/hugepages-2048kB/";

static long h2m(const char *file)
{
	char path[128];
	snprintf(path, sizeof(path), "%s%s", H2M, file);
	return read_number(path);
}

static void pool_grows_over_the_nodes_and_shrinks_back(struct kunit *test)
{
	struct hstate *h = &hstates[HSTATE_2M];
	if (h->nr_huge_pages)
		kunit_skip(test, "the command line made a pool of %lu", h->nr_huge_pages);
	struct kunit_resources before;
	kunit_resources_take(&before);
	unsigned with_memory = 0;
	for (unsigned nid = 0; nid < num_online_nodes(); nid++)
		with_memory += node_has_memory((int)nid);
	unsigned long want = 3ul * with_memory;
	char text[32];
	snprintf(text, sizeof(text), "%lu\n", want);
	char path[128];
	snprintf(path, sizeof(path), "%snr_hugepages", H2M);
	KUNIT_EXPECT_EQ(test, write_file(path, text), (long)strlen(text));
	KUNIT_EXPECT_EQ(test, h2m("nr_hugepages"), (long)want);
	KUNIT_EXPECT_EQ(test, h2m("free_hugepages"), (long)want);
	KUNIT_EXPECT_EQ(test, h2m("resv_hugepages"), 0l);
	KUNIT_EXPECT_EQ(test, h2m("surplus_hugepages"), 0l);
	/* Round robin over the nodes with memory: three each. */
	for (unsigned nid = 0; nid < num_online_nodes(); nid++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/hugepages/hugepages-2048kB/nr_hugepages", nid);
		KUNIT_EXPECT_EQ(test, read_number(path), node_has_memory((int)nid) ? 3l : 0l);
	}
	if (default_hstate_idx == HSTATE_2M) {
		KUNIT_EXPECT_EQ(test, read_number("/proc/sys/vm/nr_hugepages"), (long)want);
		char mi[512];
		struct seq_buf m = { .buffer = mi, .size = sizeof(mi) - 1 };
		memset(mi, 0, sizeof(mi));
		hugetlb_report_meminfo(&m);
		char line[64];
		snprintf(line, sizeof(line), "HugePages_Total:   %5lu\n", want);
		KUNIT_EXPECT_NOT_NULL(test, strstr(mi, line));
		snprintf(line, sizeof(line), "HugePages_Free:    %5lu\n", want);
		KUNIT_EXPECT_NOT_NULL(test, strstr(mi, line));
		KUNIT_EXPECT_NOT_NULL(test, strstr(mi, "Hugepagesize:       2048 kB\n"));
		snprintf(line, sizeof(line), "Hugetlb:        %8lu kB\n", want * 2048);
		KUNIT_EXPECT_NOT_NULL(test, strstr(mi, line));
	}
	/* Down by one, then to none: every page back to the allocator. */
	snprintf(path, sizeof(path), "%snr_hugepages", H2M);
	KUNIT_EXPECT_EQ(test, write_file(path, "1"), 1l);
	KUNIT_EXPECT_EQ(test, h2m("nr_hugepages"), 1l);
	KUNIT_EXPECT_EQ(test, write_file(path, "0"), 1l);
	KUNIT_EXPECT_EQ(test, h2m("nr_hugepages"), 0l);
	kunit_expect_resources_back(test, &before);
}

/* A node's file sets that node's share alone. */
static void a_node_file_sets_that_node(struct kunit *test)
{
	if (hstates[HSTATE_2M].nr_huge_pages)
		kunit_skip(test, "the command line made a pool");
	struct kunit_resources before;
	kunit_resources_take(&before);
	int nid = -1;
	for (unsigned n = num_online_nodes(); n-- > 0;)
		if (node_has_memory((int)n)) {
			nid = (int)n;
			break;
		}
	KUNIT_ASSERT_GE(test, nid, 0);
	char path[128];
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages", nid);
	KUNIT_EXPECT_EQ(test, write_file(path, "2\n"), 2l);
	KUNIT_EXPECT_EQ(test, read_number(path), 2l);
	KUNIT_EXPECT_EQ(test, h2m("nr_hugepages"), 2l);
	KUNIT_EXPECT_EQ(test, (long)hstates[HSTATE_2M].nr_huge_pages_node[nid], 2l);
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/free_hugepages", nid);
	KUNIT_EXPECT_EQ(test, read_number(path), 2l);
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages", nid);
	KUNIT_EXPECT_EQ(test, write_file(path, "0"), 1l);
	KUNIT_EXPECT_EQ(test, h2m("nr_hugepages"), 0l);
	kunit_expect_resources_back(test, &before);
}

/* What the files refuse; which sizes exist. */
static void files_refuse_what_linux_refuses(struct kunit *test)
{
	char path[128];
	long pool = h2m("nr_hugepages");
	snprintf(path, sizeof(path), "%snr_hugepages", H2M);
	KUNIT_EXPECT_EQ(test, write_file(path, "many"), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, write_file(path, "-1"), (long)-EINVAL);
	snprintf(path, sizeof(path), "%snr_overcommit_hugepages", H2M);
	KUNIT_EXPECT_EQ(test, write_file(path, "1"), (long)-EINVAL); /* no surplus without MAP_HUGETLB */
	KUNIT_EXPECT_EQ(test, write_file(path, "0"), 1l);
	KUNIT_EXPECT_EQ(test, h2m("nr_hugepages"), pool);
	struct proc_node node;
	KUNIT_EXPECT_EQ(test, procfs_lookup("/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", current, &node),
			boot_cpu_has(X86_FEATURE_PDPE1GB) ? 0 : -ENOENT);
	KUNIT_EXPECT_EQ(test, procfs_lookup("/sys/kernel/mm/hugepages/hugepages-4kB/nr_hugepages", current, &node),
			-ENOENT);
}

/* 1 GiB pages come from the buddy allocator's order 18: as many as free
 * order-18 blocks allow (none on most of the matrix's machines). */
static void gigantic_pool_takes_what_order_18_has(struct kunit *test)
{
	struct hstate *h = &hstates[HSTATE_1G];
	if (!h->supported)
		kunit_skip(test, "no PDPE1GB: 1 GiB pages cannot be mapped");
	if (h->nr_huge_pages)
		kunit_skip(test, "the command line made a pool");
	struct kunit_resources before;
	kunit_resources_take(&before);
	long got = set_max_huge_pages(h, 1, NUMA_NO_NODE);
	kunit_info(test, "a pool of one 1 GiB page: %ld", got);
	KUNIT_EXPECT_GE(test, got, 0l);
	KUNIT_EXPECT_LE(test, got, 1l);
	unsigned long sum = 0;
	for (unsigned n = 0; n < num_online_nodes(); n++)
		sum += h->nr_huge_pages_node[n];
	KUNIT_EXPECT_EQ(test, sum, (unsigned long)got);
	if (got == 1) {
		char mi[512];
		struct seq_buf m = { .buffer = mi, .size = sizeof(mi) - 1 };
		memset(mi, 0, sizeof(mi));
		hugetlb_report_meminfo(&m);
		KUNIT_EXPECT_NOT_NULL(test, strstr(mi, "Hugetlb:         1048576 kB\n"));
	}
	KUNIT_EXPECT_EQ(test, set_max_huge_pages(h, 0, NUMA_NO_NODE), 0l);
	kunit_expect_resources_back(test, &before);
}

static struct kunit_case hugetlb_cases[] = {
	KUNIT_CASE(pool_grows_over_the_nodes_and_shrinks_back),
	KUNIT_CASE(a_node_file_sets_that_node),
	KUNIT_CASE(files_refuse_what_linux_refuses),
	KUNIT_CASE(gigantic_pool_takes_what_order_18_has),
	{},
};

static struct kunit_suite hugetlb_suite = { .name = "hugetlb", .test_cases = hugetlb_cases };
kunit_test_suite(hugetlb_suite);
