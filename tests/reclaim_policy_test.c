/* The three replacement policies of reclaim_policy= (mm/reclaim_policy.c,
 * folio_check_references in mm/vmscan.c), each on a small list built for
 * the purpose: eight pages of one mm, faulted in order on a node whose
 * anon lists were empty, so the node's inactive list holds them alone,
 * page 0 at the tail. The inactive scan (shrink_inactive_list) runs one
 * page at a time with a scan_control naming the policy, and each page it
 * swaps out is a victim, in order: the victims' PTEs become swap entries
 * on the swap machine's disk (tests/topologies/swap.topo; elsewhere the
 * case skips). The references between the scans are reads through the
 * mm (the CPU sets the accessed bit); before the first scan every
 * accessed bit the faults set is cleared (folio_referenced):
 *
 *   pass 1: pages 0 and 2 read, the scan runs until four victims;
 *   pass 2: the pages of 0, 2 and 6 still resident read again, the scan
 *           runs until the inactive list is empty.
 *
 *            pass 1     pass 2     left on the active list
 *   lru      1 3 4 5    7 6        0 2  (a second look found them used)
 *   fifo     0 1 2 3    4 5 6 7    -    (the accessed bits never read)
 *   clock    1 3 4 5    7 6 0 2    -    (each used page passed over once
 *                                        per reference, then taken)
 *
 * The orders follow from the policies' definitions in mm/vmscan.c, not
 * from the machine. The booted policy, whatever the topology, is what the
 * one parser made of the command line, and /proc/sys/vm/reclaim_policy
 * says it; a word that names no policy is refused and logged. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "arch/x86_64/uaccess.h"
#include "fs/init.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/mm_inline.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/page_alloc.h"
#include "mm/reclaim_policy.h"
#include "mm/rmap.h"
#include "mm/swapfile.h"
#include "mm/swapops.h"
#include "mm/vmalloc.h"
#include "mm/vmscan.h"
#include "mm/slab.h"
#include "tests/test_migrate.h"

#define BASE 0x0000350000000000ul /* a PGD entry of its own */
#define ARG (BASE - PAGE_SIZE)    /* mbind's node mask */
#define NPAGES 8

/* The victims of each pass and the pages left on the active list, as
 * page numbers. */
struct policy_order {
	enum reclaim_policy policy;
	const char *desc;
	const char *pass1, *pass2, *active;
};

static const struct policy_order orders[] = {
	{ RECLAIM_POLICY_LRU, "lru", "1 3 4 5", "7 6", "0 2" },
	{ RECLAIM_POLICY_FIFO, "fifo", "0 1 2 3", "4 5 6 7", "" },
	{ RECLAIM_POLICY_CLOCK, "clock", "1 3 4 5", "7 6 0 2", "" },
};
KUNIT_ARRAY_PARAM_DESC(orders, orders, desc);

/* The swap machine's disk, or a skip. */
static void swap_disk_or_skip(struct kunit *test)
{
	struct file *f = filp_open("/dev/vda", O_RDONLY, 0);
	if (IS_ERR(f))
		kunit_skip(test, "no /dev/vda (%ld): not the swap machine", PTR_ERR(f));
	char *page = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	long long pos = 0;
	long n = kernel_read(f, page, PAGE_SIZE, &pos);
	filp_close(f);
	bool swap = n == (long)PAGE_SIZE && !memcmp(page + PAGE_SIZE - 10, "SWAPSPACE2", 10);
	kfree(page);
	if (!swap)
		kunit_skip(test, "/dev/vda has no swap header: not the swap machine");
	if (total_swap_pages)
		kunit_skip(test, "a swap area is on already");
}

static void swapoff_action(void *ctx)
{
	(void)ctx;
	if (total_swap_pages)
		ksys_swapoff("/dev/vda");
}

static unsigned long addr_of(int i) { return BASE + (unsigned long)i * PAGE_SIZE; }

static pte_t pte_of(struct mm_struct *mm, int i)
{
	mmap_read_lock(mm);
	pte_t e = test_mm_pte(mm, addr_of(i));
	mmap_read_unlock(mm);
	return e;
}

/* Scans the tail of the inactive list one page at a time under the
 * policy until want victims (or the list is empty), writing the pages
 * swapped out into victims ("1 3 4 5"); out[i] records page i gone. */
static void scan_for_victims(struct kunit *test, struct mm_struct *mm, struct lruvec *lruvec,
			     enum reclaim_policy policy, int want, bool out[NPAGES], char *victims, size_t size)
{
	int found = 0;
	size_t len = 0;
	victims[0] = 0;
	for (int scans = 0; found < want && scans < 4 * NPAGES; scans++) {
		if (!READ_ONCE(lruvec->nr_pages[LRU_INACTIVE_ANON]))
			break;
		struct scan_control sc = {
			.gfp_mask = GFP_KERNEL, .priority = DEF_PRIORITY, .may_swap = true, .policy = policy,
		};
		unsigned long reclaimed = shrink_inactive_list(1, lruvec, &sc, LRU_INACTIVE_ANON);
		KUNIT_EXPECT_EQ(test, sc.nr_scanned, 1ul);
		int gone = 0;
		for (int i = 0; i < NPAGES; i++)
			if (!out[i] && is_swap_pte(pte_of(mm, i))) {
				out[i] = true;
				len += snprintf(victims + len, size - len, "%s%d", found++ ? " " : "", i);
				gone++;
			}
		/* One page scanned: at most one victim, and it is freed. */
		KUNIT_EXPECT_EQ(test, (unsigned long)gone, reclaimed);
	}
}

static void read_resident(struct kunit *test, struct mm_struct *mm, const bool out[NPAGES], const int *pages, int n)
{
	for (int k = 0; k < n; k++)
		if (!out[pages[k]])
			KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, addr_of(pages[k])), 0x900d0000ull + (u64)pages[k]);
}

static void victim_order(struct kunit *test)
{
	const struct policy_order *o = test->param_value;
	swap_disk_or_skip(test);
	int nid = test_quiet_lru_node();
	if (nid < 0)
		kunit_skip(test, "no node with empty anon lists");
	struct lruvec *lruvec = node_lruvec(NODE_DATA(nid));
	/* A first swapon may grow the kernel's page tables for its vmalloc
	 * ranges, never freed: a round before the mm's leak snapshot. */
	KUNIT_ASSERT_EQ(test, ksys_swapon("/dev/vda", 0), 0);
	KUNIT_ASSERT_EQ(test, ksys_swapoff("/dev/vda"), 0);
	vm_unmap_aliases();
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	KUNIT_ASSERT_EQ(test, ksys_swapon("/dev/vda", 0), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, swapoff_action, NULL), 0);
	test_mm_map_anon(test, mm, ARG, PAGE_SIZE);
	test_mm_map_anon(test, mm, BASE, NPAGES * PAGE_SIZE);
	unsigned long mask = 1ul << nid;
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)ARG, &mask, sizeof(mask)), 0);
	KUNIT_ASSERT_EQ(test, test_sys6(__NR_mbind, BASE, NPAGES * PAGE_SIZE, MPOL_BIND, ARG, 64, 0), 0);
	for (int i = 0; i < NPAGES; i++)
		KUNIT_ASSERT_EQ(test, test_mm_write_u64(mm, addr_of(i), 0x900d0000ull + (u64)i), 0);
	/* The list is the eight pages, page 0 at the tail; no accessed bit
	 * or mark left from the faults. */
	KUNIT_ASSERT_EQ(test, lruvec->nr_pages[LRU_INACTIVE_ANON], (unsigned long)NPAGES);
	for (int i = 0; i < NPAGES; i++) {
		pte_t pte = pte_of(mm, i);
		KUNIT_ASSERT_TRUE(test, pte_present(pte));
		struct page *p = pfn_to_page(pte_pfn(pte));
		KUNIT_ASSERT_EQ(test, page_to_nid(p), nid);
		struct list_head *e = lruvec->lists[LRU_INACTIVE_ANON].prev;
		for (int k = 0; k < i; k++)
			e = e->prev;
		KUNIT_ASSERT_PTR_EQ(test, lru_to_folio(e), p);
		unsigned long vm_flags;
		folio_referenced(p, &vm_flags);
		__atomic_and_fetch(&p->flags, ~(1ul << PG_referenced), __ATOMIC_RELAXED);
	}

	bool out[NPAGES] = { false };
	char victims[64], active[64];
	static const int used1[] = { 0, 2 }, used2[] = { 0, 2, 6 };
	read_resident(test, mm, out, used1, 2);
	scan_for_victims(test, mm, lruvec, o->policy, 4, out, victims, sizeof(victims));
	KUNIT_EXPECT_STREQ(test, victims, o->pass1);
	read_resident(test, mm, out, used2, 3);
	scan_for_victims(test, mm, lruvec, o->policy, NPAGES, out, victims, sizeof(victims));
	KUNIT_EXPECT_STREQ(test, victims, o->pass2);
	/* What was not taken is on the active list, only under lru. */
	size_t len = 0;
	unsigned long nr_active = 0;
	active[0] = 0;
	for (int i = 0; i < NPAGES; i++) {
		pte_t pte = pte_of(mm, i);
		if (pte_present(pte) && page_test_flag(pfn_to_page(pte_pfn(pte)), PG_active))
			len += snprintf(active + len, sizeof(active) - len, "%s%d", nr_active++ ? " " : "", i);
	}
	KUNIT_EXPECT_STREQ(test, active, o->active);
	KUNIT_EXPECT_EQ(test, lruvec->nr_pages[LRU_ACTIVE_ANON], nr_active);
	KUNIT_EXPECT_EQ(test, lruvec->nr_pages[LRU_INACTIVE_ANON], 0ul);
	/* swapoff brings every page back (try_to_unuse), each with its data. */
	KUNIT_EXPECT_EQ(test, ksys_swapoff("/dev/vda"), 0);
	for (int i = 0; i < NPAGES; i++) {
		KUNIT_EXPECT_TRUE(test, pte_present(pte_of(mm, i)));
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, addr_of(i)), 0x900d0000ull + (u64)i);
	}
	test_mm_destroy(test, mm);
}

/* The policy of the last reclaim_policy= word of the command line that
 * names one, else lru. */
static enum reclaim_policy policy_asked(void)
{
	enum reclaim_policy asked = RECLAIM_POLICY_LRU;
	const char *key = "reclaim_policy=";
	for (const char *w = boot_command_line; (w = strstr(w, key)); w += strlen(key)) {
		if (w != boot_command_line && w[-1] != ' ')
			continue;
		const char *v = w + strlen(key);
		size_t len = 0;
		while (v[len] && v[len] != ' ')
			len++;
		for (int p = 0; p < NR_RECLAIM_POLICIES; p++) {
			const char *name = reclaim_policy_name((enum reclaim_policy)p);
			if (len == strlen(name) && !strncmp(v, name, len))
				asked = (enum reclaim_policy)p;
		}
	}
	return asked;
}

static char policy_log[1024];

/* reclaim_policy= through the one parser (the registered option alone). */
static unsigned parse_policy(struct kunit *test, const char *text, struct param_counts *counts)
{
	size_t nr;
	const struct kernel_param *all = kernel_params(&nr);
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(all[i].name, "reclaim_policy")) {
			struct printk_capture cap;
			printk_capture_begin(&cap, policy_log, sizeof(policy_log));
			unsigned problems = parse_params(text, &all[i], 1, counts);
			printk_capture_end(&cap);
			return problems;
		}
	KUNIT_ASSERT_TRUE(test, !"reclaim_policy is a registered option");
	return 0;
}

static void booted_policy_is_the_command_lines(struct kunit *test)
{
	enum reclaim_policy booted = reclaim_policy;
	kunit_info(test, "reclaim_policy %s", reclaim_policy_name(booted));
	KUNIT_EXPECT_EQ(test, booted, policy_asked());
	/* The file says it. */
	struct file *f = filp_open("/proc/sys/vm/reclaim_policy", O_RDONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	char buf[32] = "";
	long long pos = 0;
	long n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f);
	char want[32];
	snprintf(want, sizeof(want), "%s\n", reclaim_policy_name(booted));
	KUNIT_EXPECT_EQ(test, n, (long)strlen(want));
	KUNIT_EXPECT_STREQ(test, buf, want);
	/* Read-only: a write is refused, at the open or at the write, and
	 * changes nothing. */
	f = filp_open("/proc/sys/vm/reclaim_policy", O_WRONLY, 0);
	if (!IS_ERR(f)) {
		pos = 0;
		KUNIT_EXPECT_LT(test, kernel_write(f, "fifo\n", 5, &pos), 0l);
		filp_close(f);
	}
	KUNIT_EXPECT_EQ(test, reclaim_policy, booted);
	/* Words that name no policy are refused and logged; the policy
	 * stays. */
	struct param_counts counts;
	KUNIT_EXPECT_EQ(test, parse_policy(test, "reclaim_policy=lifo reclaim_policy reclaim_policy=LRU", &counts), 3u);
	KUNIT_EXPECT_EQ(test, counts.refused, 3u);
	KUNIT_EXPECT_EQ(test, reclaim_policy, booted);
	char line[128];
	snprintf(line, sizeof(line), "bad value 'lifo' for 'reclaim_policy' (expected lru, fifo or clock); keeping %s",
		 reclaim_policy_name(booted));
	KUNIT_EXPECT_NOT_NULL(test, strstr(policy_log, line));
	/* The booted policy's own word is taken (and changes nothing). */
	snprintf(line, sizeof(line), "reclaim_policy=%s", reclaim_policy_name(booted));
	KUNIT_EXPECT_EQ(test, parse_policy(test, line, &counts), 0u);
	KUNIT_EXPECT_EQ(test, counts.applied, 1u);
	KUNIT_EXPECT_EQ(test, reclaim_policy, booted);
}

static struct kunit_case reclaim_policy_cases[] = {
	KUNIT_CASE(booted_policy_is_the_command_lines),
	KUNIT_CASE_PARAM(victim_order, orders_gen_params),
	{},
};

static struct kunit_suite reclaim_policy_suite = { .name = "reclaim_policy", .test_cases = reclaim_policy_cases };
kunit_test_suite(reclaim_policy_suite);
