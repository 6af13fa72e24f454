/* The page-owner map (mm/page_owner_map.c): a page of each kind gets its
 * class, and the map read through /proc/mmlab/page_owner_map adds up,
 * node by node, to the kernel's own counters. */
#include "arch/x86_64/uaccess.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "fs/fs.h"
#include "mm/filemap.h"
#include "mm/huge_memory.h"
#include "mm/hugetlb.h"
#include "mm/memblock.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/page_alloc.h"
#include "mm/page_owner_map.h"
#include "mm/pgtable.h"
#include "mm/slab.h"
#include "mm/util.h"
#include "mm/vmalloc.h"
#include "tests/kunit.h"
#include "tests/test_file.h"
#include "tests/test_mm.h"

#define BASE 0x0000330000000000ul /* a PGD entry of its own, 2 MiB aligned */

static u8 owner_of(const void *kaddr) { return page_owner_of_pfn(page_to_pfn(virt_to_page(kaddr))); }

static void kernel_allocations(struct kunit *test)
{
	void *small = kmalloc(64, GFP_KERNEL);
	void *large = kmalloc(64 << 10, GFP_KERNEL); /* order 4: beyond the slabs */
	void *v = vmalloc(3 * PAGE_SIZE);
	struct page *page = alloc_pages(GFP_KERNEL, 0), *block = alloc_pages(GFP_KERNEL, 2);
	KUNIT_ASSERT_TRUE(test, small && large && v && page && block);
	KUNIT_EXPECT_EQ(test, owner_of(small), PAGE_OWNER_SLAB);
	KUNIT_EXPECT_EQ(test, owner_of(large), PAGE_OWNER_LARGE_KMALLOC);
	KUNIT_EXPECT_EQ(test, owner_of((char *)large + (64 << 10) - 1), PAGE_OWNER_LARGE_KMALLOC);
	for (int i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, page_owner_of_pfn(page_to_pfn(vmalloc_to_page((char *)v + i * PAGE_SIZE))),
				PAGE_OWNER_VMALLOC);
	KUNIT_EXPECT_EQ(test, page_owner_of_pfn(page_to_pfn(page)), PAGE_OWNER_KERNEL);
	KUNIT_EXPECT_EQ(test, page_owner_of_pfn(page_to_pfn(block) + 3), PAGE_OWNER_KERNEL);
	kfree(small);
	kfree(large);
	vfree(v);
	vm_unmap_aliases(); /* the lazily freed area's bookkeeping, too */
	__free_pages(page, 0);
	__free_pages(block, 2);
	/* Freed: an order-0 page goes to this CPU's list (or, drained, to the
	 * buddy lists); an order-2 block to the buddy lists, merged or not. */
	u8 b = page_owner_of_pfn(page_to_pfn(page));
	KUNIT_EXPECT_TRUE(test, b == PAGE_OWNER_PCP || page_owner_is_free(b));
	b = page_owner_of_pfn(page_to_pfn(block) + 3);
	KUNIT_EXPECT_TRUE(test, page_owner_is_free(b) && PAGE_OWNER_FREE_ORDER(b) >= 2);
	/* The kernel image, and what memblock allocated at boot. */
	KUNIT_EXPECT_EQ(test, owner_of((void *)kernel_allocations), PAGE_OWNER_KERNEL_IMAGE);
	for (unsigned long i = 0; i < memblock.reserved.cnt; i++) {
		const struct memblock_region *r = &memblock.reserved.regions[i];
		if (r->what && !strcmp(r->what, "memblock_alloc"))
			KUNIT_EXPECT_EQ(test, page_owner_of_pfn((r->base + r->size - 1) >> PAGE_SHIFT),
					PAGE_OWNER_MEMBLOCK);
	}
}

static void user_pages(struct kunit *test)
{
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	test_mm_map_anon(test, mm, BASE, 4 * PMD_SIZE);
	KUNIT_ASSERT_EQ(test, put_user_u64(1, (void *)BASE), 0);
	pte_t pte = test_mm_pte(mm, BASE);
	KUNIT_ASSERT_TRUE(test, pte_present(pte));
	KUNIT_EXPECT_EQ(test, page_owner_of_pfn(pte_pfn(pte)), PAGE_OWNER_ANON);
	pmd_t *pmd = mm_find_pmd(mm, BASE);
	KUNIT_ASSERT_NOT_NULL(test, pmd);
	KUNIT_EXPECT_EQ(test, page_owner_of_pfn(pmd_pfn(pmdp_get(pmd))), PAGE_OWNER_PAGE_TABLE);

	/* A transparent huge page, where a free 2 MiB block and THP allow. */
	int saved = thp_enabled_mode;
	thp_enabled_mode = THP_ENABLED_MADVISE;
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE + 2 * PMD_SIZE, PMD_SIZE, MADV_HUGEPAGE), 0);
	KUNIT_EXPECT_EQ(test, put_user_u64(1, (void *)(BASE + 2 * PMD_SIZE + PAGE_SIZE)), 0);
	thp_enabled_mode = saved;
	pmd = mm_find_pmd(mm, BASE + 2 * PMD_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, pmd);
	if (!pmd_trans_huge(pmdp_get(pmd))) {
		test_mm_destroy(test, mm);
		kunit_skip(test, "the fault got no huge page (no free 2 MiB block)");
	}
	unsigned long head = pmd_pfn(pmdp_get(pmd));
	KUNIT_EXPECT_EQ(test, page_owner_of_pfn(head), PAGE_OWNER_THP);
	KUNIT_EXPECT_EQ(test, page_owner_of_pfn(head + HPAGE_PMD_NR - 1), PAGE_OWNER_THP);
	test_mm_destroy(test, mm);
}

/* A tmpfs file's pages are page cache, mapped shared or not at all; a
 * private mapping's page stays the file's until a write copies it, and
 * the copy is anonymous. */
static void page_cache_pages(struct kunit *test)
{
	struct mm_struct *mm;
	struct file *f = test_file_mapped(test, "/tmp/page_owner_map_test", &mm, BASE, 4, MAP_SHARED);
	struct page *page = test_cache_page(f->f_mapping, 1);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_EQ(test, page_owner_of_pfn(page_to_pfn(page)), PAGE_OWNER_PAGE_CACHE);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + PAGE_SIZE), test_file_word(1, 0));
	pte_t pte = test_mm_pte(mm, BASE + PAGE_SIZE);
	KUNIT_ASSERT_TRUE(test, pte_present(pte));
	KUNIT_EXPECT_EQ(test, pte_pfn(pte), page_to_pfn(page));
	KUNIT_EXPECT_GE(test, page_mapcount(page), 1);
	/* Unmapped, it stays in the cache and in the class. */
	KUNIT_EXPECT_EQ(test, do_munmap(mm, BASE, 4 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, page_owner_of_pfn(page_to_pfn(page)), PAGE_OWNER_PAGE_CACHE);

	KUNIT_ASSERT_EQ(test, do_mmap_file(mm, f, BASE, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_FIXED, 0),
			BASE);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 2 * PAGE_SIZE), test_file_word(2, 0));
	pte = test_mm_pte(mm, BASE + 2 * PAGE_SIZE);
	KUNIT_ASSERT_TRUE(test, pte_present(pte));
	KUNIT_EXPECT_EQ(test, page_owner_of_pfn(pte_pfn(pte)), PAGE_OWNER_PAGE_CACHE);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, BASE + 2 * PAGE_SIZE, 7), 0);
	pte = test_mm_pte(mm, BASE + 2 * PAGE_SIZE);
	KUNIT_ASSERT_TRUE(test, pte_present(pte));
	KUNIT_EXPECT_NE(test, pte_pfn(pte), page_to_pfn(test_cache_page(f->f_mapping, 2)));
	KUNIT_EXPECT_EQ(test, page_owner_of_pfn(pte_pfn(pte)), PAGE_OWNER_ANON);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0); /* its pages back before the mm's check */
	test_mm_destroy(test, mm);
}

static void hugetlb_pages(struct kunit *test)
{
	struct hstate *h = &hstates[HSTATE_2M];
	if (!h->supported)
		kunit_skip(test, "no 2 MiB pages on this CPU");
	unsigned long pool = h->nr_huge_pages - h->surplus_huge_pages;
	if (set_max_huge_pages(h, pool + 1, NUMA_NO_NODE) != (long)(pool + 1)) {
		set_max_huge_pages(h, pool, NUMA_NO_NODE);
		kunit_skip(test, "no free 2 MiB block for a pool page");
	}
	bool reserve = false;
	int nid = 0;
	while (nid < MAX_NUMNODES - 1 && !h->free_huge_pages_node[nid])
		nid++;
	struct page *page = alloc_hugetlb_folio(h, nid, NULL, false, &reserve);
	KUNIT_EXPECT_NOT_NULL(test, page);
	if (page) {
		KUNIT_EXPECT_EQ(test, page_owner_of_pfn(page_to_pfn(page)), PAGE_OWNER_HUGETLB);
		KUNIT_EXPECT_EQ(test, page_owner_of_pfn(page_to_pfn(page) + 7), PAGE_OWNER_HUGETLB);
		put_page(page); /* back to the pool's free list */
		KUNIT_EXPECT_EQ(test, page_owner_of_pfn(page_to_pfn(page)), PAGE_OWNER_HUGETLB_FREE);
		KUNIT_EXPECT_EQ(test, page_owner_of_pfn(page_to_pfn(page) + 7), PAGE_OWNER_HUGETLB_FREE);
	}
	KUNIT_EXPECT_EQ(test, set_max_huge_pages(h, pool, NUMA_NO_NODE), (long)pool);
}

/* --- the map adds up to the counters ------------------------------------ */

struct census {
	unsigned long node[MAX_NUMNODES][256];
	unsigned long all[256];
};

struct counters {
	unsigned long nr_free[MAX_NUMNODES], pcp[MAX_NUMNODES];
	unsigned long slab, tables, anon, thps, vmalloc, file;
};

static void read_counters(struct counters *c)
{
	memset(c, 0, sizeof(*c));
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!page_owner_map_has_node(nid))
			continue;
		unsigned long total = node_free_pages(nid);
		c->nr_free[nid] = READ_ONCE(NODE_DATA(nid)->nr_free);
		c->pcp[nid] = total - c->nr_free[nid];
	}
	c->slab = nr_slab_pages();
	c->tables = nr_user_pagetable_pages();
	c->anon = nr_anon_pages();
	c->thps = nr_anon_thps();
	c->vmalloc = vmalloc_nr_pages();
	c->file = nr_file_pages();
}

/* The whole file through procfs, as a reader gets it, counted by node. */
static int take_census(struct census *s)
{
	struct proc_node file;
	int err = procfs_lookup(PAGE_OWNER_MAP_PATH, current, &file);
	if (err)
		return err;
	static char buf[16384];
	long pos = 0, got, data = -1;
	unsigned long off = 0; /* bytes of data seen */
	int nid = -1;
	unsigned long left = 0;
	memset(s, 0, sizeof(*s));
	while ((got = procfs_read_at(&file, buf, sizeof(buf), &pos, false)) > 0) {
		long i = 0;
		if (data < 0) {
			/* The header fits the first read. */
			for (long j = 0; j + 6 <= got && data < 0; j++)
				if (!memcmp(buf + j, "\ndata\n", 6))
					data = j + 6;
			if (data < 0)
				return -EINVAL;
			i = data;
		}
		for (; i < got; i++) {
			while (!left) {
				for (nid++; nid < MAX_NUMNODES && !page_owner_map_has_node(nid); nid++)
					;
				if (nid == MAX_NUMNODES)
					return -E2BIG;
				left = NODE_DATA(nid)->node_spanned_pages;
			}
			s->node[nid][(u8)buf[i]]++;
			s->all[(u8)buf[i]]++;
			left--;
			off++;
		}
	}
	return got < 0 ? (int)got : (left || nid < 0) ? -EIO : 0;
}

static unsigned long free_of(const unsigned long *n)
{
	unsigned long f = 0;
	for (unsigned b = PAGE_OWNER_FREE; b <= PAGE_OWNER_FREE + MAX_PAGE_ORDER; b++)
		f += n[b];
	return f;
}

/* The counters are atomics (no per-CPU deltas as Linux's vmstat keeps,
 * which lag by up to a threshold per CPU), so the map must match them
 * exactly when nothing allocates or frees while it is read; the other
 * CPUs' RCU callbacks and deferred frees can, so the census is taken
 * again until the counters before and after it agree. */
static void counts_agree_with_the_kernels_counters(struct kunit *test)
{
	static struct census s;
	struct counters before, after;
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	test_mm_map_anon(test, mm, BASE, 4 * PMD_SIZE);
	for (unsigned long a = BASE; a < BASE + PMD_SIZE; a += 2 * PAGE_SIZE)
		KUNIT_ASSERT_EQ(test, put_user_u64(a, (void *)a), 0);
	int saved = thp_enabled_mode;
	thp_enabled_mode = THP_ENABLED_MADVISE;
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE + 2 * PMD_SIZE, PMD_SIZE, MADV_HUGEPAGE), 0);
	KUNIT_EXPECT_EQ(test, put_user_u64(1, (void *)(BASE + 2 * PMD_SIZE)), 0);
	thp_enabled_mode = saved;

	int tries = 0;
	do {
		read_counters(&before);
		KUNIT_ASSERT_EQ(test, take_census(&s), 0);
		read_counters(&after);
	} while (memcmp(&before, &after, sizeof(before)) && ++tries < 10);
	KUNIT_EXPECT_LT(test, tries, 10);
	kunit_info(test, "census taken in %d tries: %lu anon, %lu THP, %lu table, %lu slab, %lu vmalloc, "
		   "%lu page cache pages",
		   tries + 1, s.all[PAGE_OWNER_ANON], s.all[PAGE_OWNER_THP], s.all[PAGE_OWNER_PAGE_TABLE],
		   s.all[PAGE_OWNER_SLAB], s.all[PAGE_OWNER_VMALLOC], s.all[PAGE_OWNER_PAGE_CACHE]);
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!page_owner_map_has_node(nid))
			continue;
		const unsigned long *n = s.node[nid];
		KUNIT_EXPECT_EQ(test, free_of(n), after.nr_free[nid]);
		KUNIT_EXPECT_EQ(test, n[PAGE_OWNER_PCP], after.pcp[nid]);
		unsigned long unmanaged = n[PAGE_OWNER_HOLE] + n[PAGE_OWNER_RESERVED] + n[PAGE_OWNER_KERNEL_IMAGE] +
					  n[PAGE_OWNER_MEMBLOCK];
		KUNIT_EXPECT_EQ(test, NODE_DATA(nid)->node_spanned_pages - unmanaged, NODE_DATA(nid)->managed_pages);
	}
	KUNIT_EXPECT_EQ(test, s.all[PAGE_OWNER_SLAB], after.slab);
	KUNIT_EXPECT_EQ(test, s.all[PAGE_OWNER_PAGE_TABLE], after.tables);
	KUNIT_EXPECT_EQ(test, s.all[PAGE_OWNER_ANON] + s.all[PAGE_OWNER_THP], after.anon);
	KUNIT_EXPECT_EQ(test, s.all[PAGE_OWNER_THP], after.thps * HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, s.all[PAGE_OWNER_VMALLOC], after.vmalloc);
	KUNIT_EXPECT_EQ(test, s.all[PAGE_OWNER_PAGE_CACHE], after.file);
	KUNIT_EXPECT_GE(test, s.all[PAGE_OWNER_ANON], HPAGE_PMD_NR / 2);
	test_mm_destroy(test, mm);
}

static void file_is_read_at_any_offset(struct kunit *test)
{
	struct proc_node file;
	KUNIT_ASSERT_EQ(test, procfs_lookup(PAGE_OWNER_MAP_PATH, current, &file), 0);
	KUNIT_EXPECT_TRUE(test, procfs_node_reads_at_offset(&file));
	char head[64];
	long pos = 0;
	KUNIT_ASSERT_EQ(test, procfs_read_at(&file, head, 22, &pos, false), 22l);
	KUNIT_EXPECT_EQ(test, memcmp(head, "mmlab page_owner_map 1", 22), 0);
	KUNIT_EXPECT_EQ(test, pos, 22l);
	/* Past the end: nothing. */
	pos = 1l << 50;
	KUNIT_EXPECT_EQ(test, procfs_read_at(&file, head, sizeof(head), &pos, false), 0l);
}

static struct kunit_case page_owner_map_cases[] = {
	KUNIT_CASE(kernel_allocations),
	KUNIT_CASE(user_pages),
	KUNIT_CASE(page_cache_pages),
	KUNIT_CASE(hugetlb_pages),
	KUNIT_CASE(counts_agree_with_the_kernels_counters),
	KUNIT_CASE(file_is_read_at_any_offset),
	{}
};

static struct kunit_suite page_owner_map_suite = {
	.name = "page_owner_map",
	.test_cases = page_owner_map_cases,
};
kunit_test_suite(page_owner_map_suite);
