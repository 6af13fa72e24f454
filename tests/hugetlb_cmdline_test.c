/* hugetlb's command line (mm/hugetlb_cmdline.c): hugepagesz=, hugepages= and
 * default_hugepagesz= read by the one parser (kernel/cmdline.c), word by
 * word in order, with Linux's rules and warnings: texts are parsed into a
 * request of the test's own (hugetlb_cmdline_begin), so no boot is needed
 * to see what pools a line asks for. Then the boot's own pools against
 * what its command line asks. What a case expects of 1 GiB pages and of
 * node counts comes from the machine: whether the CPU maps 1 GiB pages,
 * and how many nodes are online. */
#include "tests/kunit.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "fs/proc/proc_fs.h"
#include "lib/string.h"
#include "mm/hugetlb.h"
#include "mm/numa.h"
#include "mm/page_alloc.h"

static struct hugetlb_cmdline req;
static char log[2048];
static struct param_counts counts;

/* text through the one parser against every registered option, into req,
 * then Linux's hugetlb_init rules (hugetlb_cmdline_finish). */
static unsigned parse(const char *text)
{
	size_t nr;
	const struct kernel_param *all = kernel_params(&nr);
	struct printk_capture cap;
	printk_capture_begin(&cap, log, sizeof(log));
	hugetlb_cmdline_begin(&req);
	unsigned problems = parse_params(text, all, nr, &counts);
	hugetlb_cmdline_finish(&req);
	hugetlb_cmdline_end();
	printk_capture_end(&cap);
	return problems;
}

static bool have_1g(void) { return hstates[HSTATE_1G].supported; }

static void sizes_and_counts_in_order(struct kunit *test)
{
	unsigned problems = parse("hugepagesz=2M hugepages=32 hugepagesz=1G hugepages=1");
	KUNIT_EXPECT_EQ(test, counts.unknown, 0u);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 32ul);
	KUNIT_EXPECT_EQ(test, req.default_hstate_idx, (int)HSTATE_2M);
	KUNIT_EXPECT_FALSE(test, hugetlb_cmdline_node_specific(&req, HSTATE_2M));
	if (have_1g()) {
		KUNIT_EXPECT_EQ(test, problems, 0u);
		KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_1G], 1ul);
	} else {
		/* The size is refused, and the count after it with it. */
		KUNIT_EXPECT_EQ(test, problems, 2u);
		KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_1G], 0ul);
		KUNIT_EXPECT_NOT_NULL(test, strstr(log, "HugeTLB: unsupported hugepagesz=1G"));
		KUNIT_EXPECT_NOT_NULL(test, strstr(log, "HugeTLB: hugepages=1 does not follow a valid hugepagesz, "
						       "ignoring"));
	}
	/* Sizes in other words. */
	KUNIT_EXPECT_EQ(test, parse("hugepagesz=2048K hugepages=3"), 0u);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 3ul);
	KUNIT_EXPECT_EQ(test, parse("hugepagesz=2097152 hugepages=0x10"), 1u); /* counts are decimal */
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 0ul);
	KUNIT_EXPECT_EQ(test, parse(""), 0u);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 0ul);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_1G], 0ul);
}

/* hugepages= before any hugepagesz= is the default size's, whichever it
 * turns out to be; over a count given to 2M after it, with Linux's
 * warning. */
static void count_before_any_size_is_the_default_sizes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, parse("hugepages=7"), 0u);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 7ul);
	KUNIT_EXPECT_EQ(test, req.default_hstate_idx, (int)HSTATE_2M);

	KUNIT_EXPECT_EQ(test, parse("hugepages=8 hugepagesz=2M hugepages=4"), 0u);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 8ul);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "HugeTLB: Ignoring hugepages=4 associated with 2.00 MiB page size"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "HugeTLB: Using hugepages=8 for number of default huge pages"));

	if (!have_1g())
		return;
	KUNIT_EXPECT_EQ(test, parse("hugepages=2 default_hugepagesz=1G hugepagesz=2M hugepages=5"), 0u);
	KUNIT_EXPECT_EQ(test, req.default_hstate_idx, (int)HSTATE_1G);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_1G], 2ul);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 5ul);
	/* default_hugepagesz= names a size: the hugepages= after it are its. */
	KUNIT_EXPECT_EQ(test, parse("default_hugepagesz=1G hugepages=3"), 0u);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_1G], 3ul);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 0ul);
}

/* A size or a count given twice is refused as Linux refuses it, but for
 * hugepagesz= naming the default size before any count for it. */
static void repeats_are_refused_as_linux(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, parse("hugepagesz=2M hugepages=3 hugepagesz=2M hugepages=5"), 2u);
	KUNIT_EXPECT_EQ(test, counts.refused, 2u);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 3ul);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "HugeTLB: hugepagesz=2M specified twice, ignoring"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "HugeTLB: hugepages=5 does not follow a valid hugepagesz, ignoring"));
	/* Refused for what they are, not as bad values. */
	KUNIT_EXPECT_NULL(test, strstr(log, "bad value"));

	KUNIT_EXPECT_EQ(test, parse("hugepagesz=2M hugepages=3 hugepages=4"), 1u);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 3ul);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "HugeTLB: hugepages= specified twice without interleaving "
					       "hugepagesz=, ignoring hugepages=4"));

	KUNIT_EXPECT_EQ(test, parse("default_hugepagesz=2M hugepagesz=2M hugepages=6"), 0u);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 6ul);

	KUNIT_EXPECT_EQ(test, parse("default_hugepagesz=2M hugepages=6 hugepagesz=2M hugepages=9"), 2u);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 6ul);

	KUNIT_EXPECT_EQ(test, parse("default_hugepagesz=2M default_hugepagesz=2M"), 1u);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "HugeTLB: default_hugepagesz previously specified, ignoring 2M"));
}

/* Bad values: refused with Linux's message and the parser's (what the
 * option expects); the size or count they were for asks for nothing. */
static void bad_values_are_refused(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, parse("hugepagesz=3M hugepages=2"), 2u);
	KUNIT_EXPECT_EQ(test, counts.refused, 2u);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "HugeTLB: unsupported hugepagesz=3M"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "bad value '3M' for 'hugepagesz' (expected 2M, or 1G"));
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 0ul);

	static const char *const bad_sizes[] = { "hugepagesz=2Mx", "hugepagesz=", "hugepagesz", "hugepagesz=M",
						 "hugepagesz=99999999999999999999G", "default_hugepagesz=4K" };
	for (size_t i = 0; i < ARRAY_SIZE(bad_sizes); i++) {
		unsigned problems = parse(bad_sizes[i]);
		if (problems != 1 || counts.refused != 1)
			kunit_info(test, "%s: %u problems, %u refused", bad_sizes[i], problems, counts.refused);
		KUNIT_EXPECT_EQ(test, problems, 1u);
		KUNIT_EXPECT_EQ(test, counts.refused, 1u);
		KUNIT_EXPECT_EQ(test, req.default_hstate_idx, (int)HSTATE_2M);
	}

	static const char *const bad_counts[] = { "hugepages=abc", "hugepages=", "hugepages", "hugepages=-1",
						  "hugepages=5x", "hugepages=0:1,5", "hugepages=0:", "hugepages=:3",
						  "hugepages=99:1", "hugepages=0:1x" };
	for (size_t i = 0; i < ARRAY_SIZE(bad_counts); i++) {
		unsigned problems = parse(bad_counts[i]);
		const char *said = strstr(log, "HugeTLB: Invalid hugepages parameter");
		if (problems != 1 || !said || req.max_huge_pages[HSTATE_2M])
			kunit_info(test, "%s: %u problems, %lu pages asked", bad_counts[i], problems,
				   req.max_huge_pages[HSTATE_2M]);
		KUNIT_EXPECT_EQ(test, problems, 1u);
		KUNIT_EXPECT_NOT_NULL(test, said);
		KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 0ul);
		KUNIT_EXPECT_FALSE(test, hugetlb_cmdline_node_specific(&req, HSTATE_2M));
	}
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "(expected N, or <node>:N,<node>:N...)"));

	/* A bad count after a good size: that size asks nothing, the next
	 * size is read as usual. */
	KUNIT_EXPECT_EQ(test, parse("hugepagesz=2M hugepages=0:2,x"), 1u);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 0ul);
	KUNIT_EXPECT_FALSE(test, hugetlb_cmdline_node_specific(&req, HSTATE_2M));
}

/* hugepages=<node>:N,...: each node its own count (and the pool's total
 * their sum); a node that is not online is refused when the nodes are
 * known, as Linux refuses it. */
static void node_counts(struct kunit *test)
{
	int online = (int)num_online_nodes();
	KUNIT_EXPECT_EQ(test, parse("hugepages=0:2"), 0u);
	KUNIT_EXPECT_TRUE(test, hugetlb_cmdline_node_specific(&req, HSTATE_2M));
	KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 2ul);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages_node[HSTATE_2M][0], 2ul);

	/* A trailing comma is Linux's too. */
	KUNIT_EXPECT_EQ(test, parse("hugepagesz=2M hugepages=0:1,"), 0u);
	KUNIT_EXPECT_EQ(test, req.max_huge_pages_node[HSTATE_2M][0], 1ul);

	char text[96];
	if (online >= 2) {
		snprintf(text, sizeof(text), "hugepagesz=2M hugepages=0:1,%d:3", online - 1);
		KUNIT_EXPECT_EQ(test, parse(text), 0u);
		KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 4ul);
		KUNIT_EXPECT_EQ(test, req.max_huge_pages_node[HSTATE_2M][0], 1ul);
		KUNIT_EXPECT_EQ(test, req.max_huge_pages_node[HSTATE_2M][online - 1], 3ul);
	}
	if (online < MAX_NUMNODES) {
		snprintf(text, sizeof(text), "hugepages=0:1,%d:2", online);
		KUNIT_EXPECT_EQ(test, parse(text), 0u); /* a good word: refused once the nodes are known */
		snprintf(text, sizeof(text), "HugeTLB: Invalid hugepages parameter %d:2 (node %d is not online)",
			 online, online);
		KUNIT_EXPECT_NOT_NULL(test, strstr(log, text));
		KUNIT_EXPECT_EQ(test, req.max_huge_pages[HSTATE_2M], 0ul);
		KUNIT_EXPECT_FALSE(test, hugetlb_cmdline_node_specific(&req, HSTATE_2M));
	}
}

/* --- the boot's pools ------------------------------------------------------- */

/* The registered hugetlb options alone: the boot line parsed again
 * through them changes nothing else. */
static struct kernel_param hugetlb_params[3];

static size_t find_hugetlb_params(void)
{
	size_t nr, n = 0;
	const struct kernel_param *all = kernel_params(&nr);
	for (size_t i = 0; i < nr && n < ARRAY_SIZE(hugetlb_params); i++)
		if (!strcmp(all[i].name, "hugepagesz") || !strcmp(all[i].name, "hugepages") ||
		    !strcmp(all[i].name, "default_hugepagesz"))
			hugetlb_params[n++] = all[i];
	return n;
}

/* Whether a node with memory has a free block of order now. */
static bool block_free(unsigned order)
{
	for (int nid = 0; nid < (int)num_online_nodes(); nid++)
		if (node_has_memory(nid) && node_free_blocks(nid, order))
			return true;
	return false;
}

/* Each pool is what this boot's command line asks, as the one parser reads
 * it: node by node for <node>:N, else spread over the nodes with memory in
 * turn (a memoryless node gets none). A pool may come out short only when
 * no block of its order is left (1 GiB pages, on most machines). */
static void boot_pools_are_what_the_command_line_asked(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, find_hugetlb_params(), ARRAY_SIZE(hugetlb_params));
	struct printk_capture cap;
	printk_capture_begin(&cap, log, sizeof(log));
	hugetlb_cmdline_begin(&req);
	parse_params(boot_command_line, hugetlb_params, ARRAY_SIZE(hugetlb_params), NULL);
	hugetlb_cmdline_finish(&req);
	hugetlb_cmdline_end();
	printk_capture_end(&cap);

	KUNIT_EXPECT_EQ(test, default_hstate_idx, req.default_hstate_idx);
	unsigned with_memory = 0;
	for (int nid = 0; nid < (int)num_online_nodes(); nid++)
		with_memory += node_has_memory(nid);
	for (int i = 0; i < HUGE_MAX_HSTATE; i++) {
		struct hstate *h = &hstates[i];
		unsigned long total = req.max_huge_pages[i];
		kunit_info(test, "%lu kB pages: %lu asked, %lu in the pool", huge_page_size(h) >> 10, total,
			   h->nr_huge_pages);
		if (!h->supported) {
			KUNIT_EXPECT_EQ(test, total, 0ul);
			KUNIT_EXPECT_EQ(test, h->nr_huge_pages, 0ul);
			continue;
		}
		KUNIT_EXPECT_EQ(test, h->free_huge_pages, h->nr_huge_pages); /* none in use now */
		KUNIT_EXPECT_EQ(test, h->surplus_huge_pages, 0ul);
		if (h->nr_huge_pages < total) {
			/* Short: only when no block of its order is left. */
			KUNIT_EXPECT_FALSE(test, block_free(h->order));
			continue;
		}
		KUNIT_EXPECT_EQ(test, h->nr_huge_pages, total);
		for (int nid = 0, k = 0; nid < (int)num_online_nodes(); nid++) {
			unsigned long want = 0;
			if (hugetlb_cmdline_node_specific(&req, i))
				want = req.max_huge_pages_node[i][nid];
			else if (node_has_memory(nid))
				want = total / with_memory + ((unsigned)k++ < total % with_memory);
			if (h->nr_huge_pages_node[nid] != want)
				kunit_info(test, "node %d: %lu pages, %lu asked", nid, h->nr_huge_pages_node[nid],
					   want);
			KUNIT_EXPECT_EQ(test, h->nr_huge_pages_node[nid], want);
		}
	}
}

static struct kunit_case hugetlb_cmdline_cases[] = {
	KUNIT_CASE(sizes_and_counts_in_order),
	KUNIT_CASE(count_before_any_size_is_the_default_sizes),
	KUNIT_CASE(repeats_are_refused_as_linux),
	KUNIT_CASE(bad_values_are_refused),
	KUNIT_CASE(node_counts),
	KUNIT_CASE(boot_pools_are_what_the_command_line_asked),
	{},
};

static struct kunit_suite hugetlb_cmdline_suite = { .name = "hugetlb_cmdline", .test_cases = hugetlb_cmdline_cases };
kunit_test_suite(hugetlb_cmdline_suite);
