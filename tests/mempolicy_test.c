/* Memory policies when nodes run out (mm/mempolicy.c): a node is filled
 * with pages held by the test, then a fault under a policy shows where the
 * allocator goes. PREFERRED_MANY whose home node is full takes the mask's
 * node nearest to the home node; BIND whose whole mask is full fails the
 * fault (a user process would be killed with "out of memory"; the
 * kernel's user copy just fails) and never leaves the mask; a memoryless
 * home node starts at its nearest node with memory. Expectations come from
 * the machine's SLIT (node_distance) and which nodes have memory; a
 * machine without enough nodes skips. Every case gives back its pages,
 * tables and slab objects. */
#include "tests/kunit.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/printk.h"
#include "fs/programs.h"
#include "kernel/process.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "kernel/smp.h"
#include "kernel/unistd.h"
#include "mm/memory.h"
#include "mm/mempolicy.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/numa.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/vma.h"

#define BASE 0x0000310000000000ul
#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)

/* Pages taken from one node until it has none above its watermark. */
struct hog {
	struct list_head pages;
	unsigned long n;
};

static void hog_fill(struct hog *h, int nid)
{
	INIT_LIST_HEAD(&h->pages);
	h->n = 0;
	nodemask_t only = nodemask_of_node(nid);
	for (;;) {
		struct page *p = __alloc_pages(GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY | __GFP_UNTOUCHED, 0, nid,
					       &only);
		if (!p)
			break;
		list_add(&p->lru, &h->pages);
		h->n++;
	}
}

static void hog_release(struct hog *h)
{
	while (!list_empty(&h->pages)) {
		struct page *p = list_first_entry(&h->pages, struct page, lru);
		list_del(&p->lru);
		__free_page(p);
	}
}

/* The node of the page mapped at addr (present, not the zero page). */
static int node_at(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);
	pte_t *pte = pmd ? pte_offset_map(pmd, addr) : NULL;
	if (!pte)
		return -1;
	pte_t e = ptep_get(pte);
	pte_unmap(pte);
	return pte_present(e) && !is_zero_pfn(pte_pfn(e)) ? page_to_nid(pfn_to_page(pte_pfn(e))) : -1;
}

/* An mm with one page-sized VMA at BASE under pol (a reference of ours
 * that the VMA takes over). */
static struct mm_struct *mm_with_policy(struct kunit *test, struct mempolicy *pol)
{
	struct mm_struct *mm = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, mm);
	KUNIT_ASSERT_EQ(test, do_mmap(mm, BASE, PAGE_SIZE, RW, ANON | MAP_FIXED), BASE);
	mmap_write_lock(mm);
	struct vm_area_struct *vma = find_vma(mm, BASE);
	vma->vm_policy = pol;
	mmap_write_unlock(mm);
	return mm;
}

static struct mempolicy *policy(unsigned short mode, nodemask_t nodes, int home)
{
	struct mempolicy *pol = kzalloc(sizeof(*pol), GFP_KERNEL);
	if (pol) {
		pol->refcnt = 1;
		pol->mode = mode;
		pol->nodes = nodes;
		pol->home_node = home;
	}
	return pol;
}

/* Writes a word at BASE in mm, faulting the page in: 0 or -EFAULT. */
static int touch(struct mm_struct *mm)
{
	u64 v = 0x1234;
	kthread_use_mm(mm);
	int err = copy_to_user((void *)BASE, &v, sizeof(v)) ? -EFAULT : 0;
	kthread_unuse_mm(mm);
	return err;
}

/* Of the nodes in mask other than from, the nearest to from (lowest id on a
 * tie is not assumed: *tied says whether another node is as near). */
static int nearest(int from, nodemask_t mask, bool *tied)
{
	int best = -1, nid;
	*tied = false;
	for_each_node_mask(nid, mask) {
		if (nid == from)
			continue;
		if (best < 0 || node_distance(from, nid) < node_distance(from, best)) {
			best = nid;
			*tied = false;
		} else if (node_distance(from, nid) == node_distance(from, best)) {
			*tied = true;
		}
	}
	return best;
}

static void preferred_many_full_home_falls_back_by_distance(struct kunit *test)
{
	nodemask_t mem = NODE_MASK_NONE;
	for (unsigned nid = 0; nid < num_online_nodes(); nid++)
		if (node_has_memory((int)nid))
			node_set((int)nid, mem);
	if (nodes_weight(mem) < 3)
		kunit_skip(test, "fewer than three nodes with memory");
	struct kunit_resources before;
	kunit_resources_take(&before);
	int home = first_node(mem);
	bool tied;
	int want = nearest(home, mem, &tied);
	static struct hog h;
	hog_fill(&h, home);
	kunit_info(test, "node %d filled (%lu pages held); nearest with memory: node %d%s", home, h.n, want,
		   tied ? " (tied)" : "");
	struct mm_struct *mm = mm_with_policy(test, policy(MPOL_PREFERRED_MANY, mem, home));
	KUNIT_EXPECT_EQ(test, touch(mm), 0);
	int got = node_at(mm, BASE);
	if (tied)
		KUNIT_EXPECT_EQ(test, node_distance(home, got), node_distance(home, want));
	else
		KUNIT_EXPECT_EQ(test, got, want);
	mmput(mm);
	hog_release(&h);
	kunit_expect_resources_back(test, &before);
}

static void bind_with_full_mask_fails_the_fault(struct kunit *test)
{
	int full = -1, other = -1;
	for (unsigned nid = 0; nid < num_online_nodes(); nid++) {
		/* Pages the allocator manages (the home node's mm comes
		 * from the other node when full's are held). */
		if (!node_has_memory((int)nid) || !node_data[nid]->managed_pages)
			continue;
		if (full < 0)
			full = (int)nid;
		else if (other < 0)
			other = (int)nid;
	}
	if (other < 0)
		kunit_skip(test, "fewer than two nodes with memory");
	struct kunit_resources before;
	kunit_resources_take(&before);
	static struct hog h;
	hog_fill(&h, full);
	/* Home node elsewhere: still never outside the mask. */
	struct mm_struct *mm = mm_with_policy(test, policy(MPOL_BIND, nodemask_of_node(full), other));
	KUNIT_EXPECT_EQ(test, touch(mm), -EFAULT);
	KUNIT_EXPECT_EQ(test, node_at(mm, BASE), -1);
	mmput(mm);
	/* With room again, the same policy's fault succeeds there. */
	hog_release(&h);
	mm = mm_with_policy(test, policy(MPOL_BIND, nodemask_of_node(full), other));
	KUNIT_EXPECT_EQ(test, touch(mm), 0);
	KUNIT_EXPECT_EQ(test, node_at(mm, BASE), full);
	mmput(mm);
	kunit_expect_resources_back(test, &before);
}

static void memoryless_home_node_starts_at_its_nearest(struct kunit *test)
{
	int memless = -1;
	nodemask_t mem = NODE_MASK_NONE;
	for (unsigned nid = 0; nid < num_online_nodes(); nid++) {
		if (node_has_memory((int)nid))
			node_set((int)nid, mem);
		else if (memless < 0)
			memless = (int)nid;
	}
	if (memless < 0)
		kunit_skip(test, "no memoryless node");
	struct kunit_resources before;
	kunit_resources_take(&before);
	bool tied;
	int want = nearest(memless, mem, &tied);
	struct mm_struct *mm = mm_with_policy(test, policy(MPOL_BIND, mem, memless));
	KUNIT_EXPECT_EQ(test, touch(mm), 0);
	int got = node_at(mm, BASE);
	kunit_info(test, "home node %d (no memory): page on node %d, nearest %d%s", memless, got, want,
		   tied ? " (tied)" : "");
	KUNIT_EXPECT_EQ(test, node_distance(memless, got), node_distance(memless, want));
	mmput(mm);
	kunit_expect_resources_back(test, &before);
}

/* A user process whose whole MPOL_BIND mask is full is killed by the OOM
 * killer (SIGKILL, its report naming the memory-policy constraint and the
 * mask) and never given a page outside its mask; the
 * kernel carries on and gets everything back. The node is filled by the
 * test (a hog), the process is started on this CPU, whose node has memory
 * for its image, and binds itself to the full node (tests/user/aux/
 * bind_touch.c), printing the node of each MiB it gets: with 4 MiB left
 * on the node, the first MiB must be there, and the rest never elsewhere. */
static void user_process_with_its_bind_mask_full_is_killed(struct kunit *test)
{
	if (!find_user_program("bind_touch"))
		kunit_skip(test, "the ISO has no program bind_touch");
	int here = numa_node_id(), full = -1;
	if (!node_has_memory(here))
		kunit_skip(test, "this CPU's node %d has no memory for the program", here);
	for (unsigned nid = 0; nid < num_online_nodes() && full < 0; nid++)
		if ((int)nid != here && node_has_memory((int)nid))
			full = (int)nid;
	if (full < 0)
		kunit_skip(test, "no second node with memory");
	struct kunit_resources before;
	kunit_resources_take(&before);
	struct hog h;
	hog_fill(&h, full);
	/* 4 MiB back, so the process gets some pages on the node before it
	 * runs out, and shows where they were. */
	for (int i = 0; i < 1024 && !list_empty(&h.pages); i++) {
		struct page *p = list_first_entry(&h.pages, struct page, lru);
		list_del(&p->lru);
		__free_page(p);
		h.n--;
	}
	char node_arg[8];
	snprintf(node_arg, sizeof(node_arg), "%d", full);
	const char *const argv[] = { "bind_touch", node_arg, "64", NULL };
	static char captured[8192];
	struct printk_capture cap;
	struct process_result res;
	int err = 0;
	printk_capture_begin(&cap, captured, sizeof(captured));
	bool ran = process_run("bind_touch", argv, smp_processor_id(), &res, &err);
	printk_capture_end(&cap);
	unsigned long held = h.n;
	hog_release(&h);
	kunit_info(test, "node %d filled (%lu pages held); the process: %s", full, held,
		   ran ? (res.killed ? res.reason : res.last_line) : "did not start");
	KUNIT_ASSERT_TRUE(test, ran);
	KUNIT_EXPECT_TRUE(test, res.killed);
	KUNIT_EXPECT_NOT_NULL(test, strstr(res.reason, "SIGKILL"));
	char first[48];
	snprintf(first, sizeof(first), "bind_touch: MiB 0 on node %d\n", full);
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, first));
	KUNIT_EXPECT_NULL(test, strstr(captured, "LEFT THE MASK"));
	KUNIT_EXPECT_NULL(test, strstr(captured, "survived"));
	char summary[96];
	snprintf(summary, sizeof(summary), "oom-kill:constraint=CONSTRAINT_MEMORY_POLICY,nodemask=%d,task=bind_touch",
		 full);
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, summary));
	const char *line = strstr(captured, "Out of memory: Killed process ");
	KUNIT_ASSERT_NOT_NULL(test, line);
	KUNIT_EXPECT_NOT_NULL(test, strstr(line, "(bind_touch) total-vm:"));
	kunit_expect_resources_back(test, &before);
}

static struct kunit_case mempolicy_cases[] = {
	KUNIT_CASE(preferred_many_full_home_falls_back_by_distance),
	KUNIT_CASE(bind_with_full_mask_fails_the_fault),
	KUNIT_CASE(memoryless_home_node_starts_at_its_nearest),
	KUNIT_CASE(user_process_with_its_bind_mask_full_is_killed),
	{},
};

static struct kunit_suite mempolicy_suite = { .name = "mempolicy", .test_cases = mempolicy_cases };
kunit_test_suite(mempolicy_suite);
