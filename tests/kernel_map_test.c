/* The kernel-range mapping contract (mm/kernel_map.h) on the machine it
 * booted on: pages and physical ranges read back through their new address,
 * large entries where alignment allows, an unmap reaches every CPU's TLB,
 * emptied tables (and only those) go back, and every error leaves nothing
 * mapped and nothing allocated. Each case works in its own 1 GiB slot of
 * Linux's vmalloc area, reserved from vmalloc for the suite (get_vm_area:
 * nothing else maps there), so it starts with no tables below the
 * (preallocated) PUD table. */
#include "arch/x86_64/boot_paging.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/pgtable.h"
#include "arch/x86_64/tlb.h"
#include "kernel/smp.h"
#include "mm/kernel_map.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/vmalloc.h"
#include "tests/kunit.h"

#define NR_SLOTS 9
static struct vm_struct *test_area; /* NR_SLOTS GiB, 1 GiB-aligned */
#define TEST_AREA ((unsigned long)test_area->addr)
#define PROT (_PAGE_PRESENT | _PAGE_RW | _PAGE_NX)

static unsigned long slot(unsigned n) { return TEST_AREA + n * PUD_SIZE; }
static phys_addr_t phys_of(const struct page *p) { return (phys_addr_t)page_to_pfn(p) << PAGE_SHIFT; }

static unsigned long free_pages_now(void)
{
	struct kunit_resources r;
	kunit_resources_take(&r);
	unsigned long sum = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		sum += r.free[nid];
	return sum;
}

static bool mapped(unsigned long va)
{
	int level;
	return lookup_kernel_address(va, &level) != NULL;
}

static u64 read_at(unsigned long va) { return *(volatile u64 *)va; }

static void pages_read_back_and_unmap_gives_all_back(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	/* Three pages across a PMD boundary: one PMD table, two PTE tables. */
	unsigned long va = slot(0) + PMD_SIZE - PAGE_SIZE;
	struct page *pages[3];
	for (int i = 0; i < 3; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		*(u64 *)page_address(pages[i]) = 0x6b6d6170000ull + (u64)i;
		KUNIT_ASSERT_FALSE(test, mapped(va + i * PAGE_SIZE));
	}
	unsigned long free_before = free_pages_now();
	KUNIT_ASSERT_EQ(test, map_kernel_range(va, 3 * PAGE_SIZE, PROT, pages, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, free_before - free_pages_now(), 3);

	for (int i = 0; i < 3; i++) {
		int level = 0;
		pte_t *pte = lookup_kernel_address(va + i * PAGE_SIZE, &level);
		KUNIT_ASSERT_NOT_NULL(test, pte);
		KUNIT_EXPECT_EQ(test, level, 1);
		KUNIT_EXPECT_EQ(test, pte_val(*pte) & PTE_PFN_MASK, phys_of(pages[i]));
		KUNIT_EXPECT_EQ(test, read_at(va + i * PAGE_SIZE), 0x6b6d6170000ull + (u64)i);
	}
	/* Writable, and the same memory as the direct map shows. */
	*(volatile u64 *)(va + PAGE_SIZE + 8) = 0x77;
	KUNIT_EXPECT_EQ(test, ((u64 *)page_address(pages[1]))[1], 0x77);

	KUNIT_EXPECT_EQ(test, unmap_kernel_range(va, 3 * PAGE_SIZE), 0);
	for (int i = 0; i < 3; i++)
		KUNIT_EXPECT_FALSE(test, mapped(va + i * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, free_pages_now(), free_before);
	for (int i = 0; i < 3; i++)
		__free_page(pages[i]);
	kunit_expect_resources_back(test, &before);
}

static void phys_ranges_get_large_entries_where_aligned(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	struct page *block = alloc_pages(GFP_KERNEL, 9); /* 2 MiB, 2 MiB-aligned */
	KUNIT_ASSERT_NOT_NULL(test, block);
	phys_addr_t pa = phys_of(block);
	u64 *words = page_address(block);
	words[0] = 0x1111;
	words[(PMD_SIZE - 8) / 8] = 0x2222;
	unsigned long va = slot(1);
	int level = 0;

	/* Aligned, and allowed: one 2 MiB entry, no PTE table. */
	unsigned long free_before = free_pages_now();
	KUNIT_ASSERT_EQ(test, map_kernel_range_phys(va, PMD_SIZE, pa, PROT, PMD_SHIFT, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, free_before - free_pages_now(), 1); /* the PMD table */
	KUNIT_ASSERT_NOT_NULL(test, lookup_kernel_address(va + PAGE_SIZE, &level));
	KUNIT_EXPECT_EQ(test, level, 2);
	KUNIT_EXPECT_EQ(test, read_at(va), 0x1111);
	KUNIT_EXPECT_EQ(test, read_at(va + PMD_SIZE - 8), 0x2222);
	/* Part of a large entry cannot be unmapped: nothing changes. */
	KUNIT_EXPECT_EQ(test, unmap_kernel_range(va, PAGE_SIZE), -EINVAL);
	KUNIT_EXPECT_EQ(test, unmap_kernel_range(va + PAGE_SIZE, PMD_SIZE), -EINVAL);
	KUNIT_EXPECT_EQ(test, read_at(va), 0x1111);

	/* Not allowed (PAGE_SHIFT): 4 KiB entries. */
	unsigned long va2 = va + 2 * PMD_SIZE;
	KUNIT_ASSERT_EQ(test, map_kernel_range_phys(va2, PMD_SIZE, pa, PROT, PAGE_SHIFT, GFP_KERNEL), 0);
	KUNIT_ASSERT_NOT_NULL(test, lookup_kernel_address(va2, &level));
	KUNIT_EXPECT_EQ(test, level, 1);
	KUNIT_EXPECT_EQ(test, read_at(va2 + PMD_SIZE - 8), 0x2222);

	/* Allowed but not aligned (the address straddles two PMDs): 4 KiB. */
	unsigned long va3 = va + 4 * PMD_SIZE + PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, map_kernel_range_phys(va3, PMD_SIZE, pa, PROT, PMD_SHIFT, GFP_KERNEL), 0);
	KUNIT_ASSERT_NOT_NULL(test, lookup_kernel_address(va3 + PMD_SIZE - PAGE_SIZE, &level));
	KUNIT_EXPECT_EQ(test, level, 1);
	KUNIT_EXPECT_EQ(test, read_at(va3), 0x1111);

	KUNIT_EXPECT_EQ(test, unmap_kernel_range(va, 6 * PMD_SIZE), 0);
	KUNIT_EXPECT_FALSE(test, mapped(va));
	KUNIT_EXPECT_FALSE(test, mapped(va2));
	KUNIT_EXPECT_FALSE(test, mapped(va3 + PMD_SIZE - PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, free_pages_now(), free_before);
	__free_pages(block, 9);
	kunit_expect_resources_back(test, &before);
}

/* The first GiB of physical memory, read-only: one 1 GiB entry on a CPU
 * with PDPE1GB (no table at all below the PUD), 2 MiB entries otherwise. */
static void a_gigabyte_gets_one_entry_where_the_cpu_has_them(struct kunit *test)
{
	static const u64 marker = 0x67696761ull;
	struct kunit_resources before;
	kunit_resources_take(&before);
	unsigned long va = slot(7);
	bool gb = boot_cpu_has(X86_FEATURE_PDPE1GB);
	unsigned long free_before = free_pages_now();
	KUNIT_ASSERT_EQ(test, map_kernel_range_phys(va, PUD_SIZE, 0, _PAGE_PRESENT | _PAGE_NX, PUD_SHIFT,
						    GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, free_before - free_pages_now(), gb ? 0 : 1);
	int level = 0;
	KUNIT_ASSERT_NOT_NULL(test, lookup_kernel_address(va + PUD_SIZE - PAGE_SIZE, &level));
	KUNIT_EXPECT_EQ(test, level, gb ? 3 : 2);
	KUNIT_EXPECT_EQ(test, read_at(va + __pa(&marker)), marker);
	KUNIT_EXPECT_EQ(test, unmap_kernel_range(va, PMD_SIZE), gb ? -EINVAL : 0);
	KUNIT_EXPECT_EQ(test, unmap_kernel_range(va, PUD_SIZE), 0);
	KUNIT_EXPECT_FALSE(test, mapped(va + PUD_SIZE - PAGE_SIZE));
	kunit_expect_resources_back(test, &before);
}

/* What a CPU reads at an address, read on that CPU. */
struct tlb_probe {
	unsigned long va;
	u64 value;
};

static void read_probe(void *arg)
{
	struct tlb_probe *p = arg;
	p->value = read_at(p->va);
}

/* Every CPU caches a translation; after the unmap, a new page mapped at the
 * same address (no flush of its own: the range was unmapped) is what every
 * CPU reads, so the unmap's shootdown reached each of them. */
static void unmap_flushes_every_cpu(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	unsigned long va = slot(2);
	struct page *a = alloc_page(GFP_KERNEL), *b = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	*(u64 *)page_address(a) = 0xaaaa0001;
	*(u64 *)page_address(b) = 0xbbbb0002;
	KUNIT_ASSERT_EQ(test, map_kernel_range(va, PAGE_SIZE, PROT, &a, GFP_KERNEL), 0);

	unsigned long shootdowns[NR_CPUS];
	unsigned cpu;
	for_each_online_cpu(cpu) {
		struct tlb_probe p = { va, 0 };
		smp_call_function_single(cpu, read_probe, &p, true); /* caches the translation */
		KUNIT_EXPECT_EQ(test, p.value, 0xaaaa0001);
		shootdowns[cpu] = tlb_shootdowns_handled(cpu);
	}

	KUNIT_ASSERT_EQ(test, unmap_kernel_range(va, PAGE_SIZE), 0);
	KUNIT_EXPECT_FALSE(test, mapped(va));
	KUNIT_ASSERT_EQ(test, map_kernel_range(va, PAGE_SIZE, PROT, &b, GFP_KERNEL), 0);
	for_each_online_cpu(cpu) {
		struct tlb_probe p = { va, 0 };
		smp_call_function_single(cpu, read_probe, &p, true);
		KUNIT_EXPECT_EQ(test, p.value, 0xbbbb0002);
		KUNIT_EXPECT_EQ(test, tlb_shootdowns_handled(cpu), shootdowns[cpu] + 1);
	}
	KUNIT_EXPECT_EQ(test, unmap_kernel_range(va, PAGE_SIZE), 0);
	__free_page(a);
	__free_page(b);
	kunit_expect_resources_back(test, &before);
}

/* A PTE table goes when its last page is unmapped, a PMD table when its
 * last PTE table has gone; neither before. */
static void unmap_frees_only_emptied_tables(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	unsigned long va = slot(3);
	unsigned long at[3] = { va, va + PAGE_SIZE, va + PMD_SIZE };
	struct page *pages[3];
	for (int i = 0; i < 3; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		*(u64 *)page_address(pages[i]) = (u64)i + 1;
	}
	unsigned long free_before = free_pages_now();
	for (int i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, map_kernel_range(at[i], PAGE_SIZE, PROT, &pages[i], GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, free_before - free_pages_now(), 3); /* 1 PMD + 2 PTE tables */

	KUNIT_ASSERT_EQ(test, unmap_kernel_range(at[0], PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, free_before - free_pages_now(), 3); /* at[1] still uses it */
	KUNIT_EXPECT_EQ(test, read_at(at[1]), 2);
	KUNIT_ASSERT_EQ(test, unmap_kernel_range(at[1], PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, free_before - free_pages_now(), 2); /* its PTE table went */
	KUNIT_EXPECT_EQ(test, read_at(at[2]), 3);
	KUNIT_ASSERT_EQ(test, unmap_kernel_range(at[2], PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, free_pages_now(), free_before);
	/* Unmapping nothing is no error. */
	KUNIT_EXPECT_EQ(test, unmap_kernel_range(va, PUD_SIZE), 0);
	for (int i = 0; i < 3; i++)
		__free_page(pages[i]);
	kunit_expect_resources_back(test, &before);
}

/* The lower half of swapper_pg_dir (the AP trampoline's identity map
 * lives there) is no process's: an unmap that empties a PUD table there
 * gives it back and clears the PGD entry, so a map/unmap pair leaves
 * nothing behind. It used to keep the PUD table, as for the upper half,
 * whose PGD entries every process PGD copies. */
static void lower_half_unmap_gives_its_pud_table_back(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	const unsigned long va = 0x0000500000000000ul; /* a PGD entry nothing uses */
	pgd_t *pgd = &swapper_pg_dir[pgd_index(va)];
	KUNIT_ASSERT_TRUE(test, pgd_none(pgdp_get(pgd)));
	struct page *page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	unsigned long free_before = free_pages_now();
	KUNIT_ASSERT_EQ(test, map_kernel_range(va, PAGE_SIZE, PROT, &page, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, free_before - free_pages_now(), 3); /* PUD, PMD and PTE tables */
	KUNIT_EXPECT_TRUE(test, mapped(va));
	KUNIT_EXPECT_EQ(test, unmap_kernel_range(va, PAGE_SIZE), 0);
	KUNIT_EXPECT_FALSE(test, mapped(va));
	KUNIT_EXPECT_TRUE(test, pgd_none(pgdp_get(pgd)));
	KUNIT_EXPECT_EQ(test, free_pages_now(), free_before);
	__free_page(page);
	kunit_expect_resources_back(test, &before);
}

static void bad_arguments_are_einval(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	unsigned long va = slot(4);
	struct page *p = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	struct page *pages[2] = { p, NULL };

	KUNIT_EXPECT_EQ(test, map_kernel_range(va + 8, PAGE_SIZE, PROT, pages, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, map_kernel_range(va, PAGE_SIZE + 8, PROT, pages, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, map_kernel_range(va, 0, PROT, pages, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, map_kernel_range(va, PAGE_SIZE, PROT, NULL, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, map_kernel_range(va, 2 * PAGE_SIZE, PROT, pages, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, map_kernel_range(va, PAGE_SIZE, PROT & ~_PAGE_PRESENT, pages, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, map_kernel_range(va, PAGE_SIZE, PROT | _PAGE_USER, pages, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, map_kernel_range(va, PAGE_SIZE, PROT | _PAGE_PSE, pages, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, map_kernel_range(va, PAGE_SIZE, PROT | 0x5000, pages, GFP_KERNEL), -EINVAL);
	/* Non-canonical, across the hole, and wrapping past the top. */
	KUNIT_EXPECT_EQ(test, map_kernel_range(0x0000800000000000ul, PAGE_SIZE, PROT, pages, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, map_kernel_range_phys(0x00007ffffffff000ul, 2 * PAGE_SIZE, phys_of(p), PROT,
						    PAGE_SHIFT, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, map_kernel_range_phys(0xfffffffffffff000ul, 2 * PAGE_SIZE, phys_of(p), PROT,
						    PAGE_SHIFT, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, map_kernel_range_phys(va, PAGE_SIZE, phys_of(p) + 8, PROT, PAGE_SHIFT,
						    GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, map_kernel_range_phys(va, PAGE_SIZE, 1ull << 52, PROT, PAGE_SHIFT,
						    GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, unmap_kernel_range(va + 8, PAGE_SIZE), -EINVAL);
	KUNIT_EXPECT_EQ(test, unmap_kernel_range(va, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, unmap_kernel_range(0x0000800000000000ul, PAGE_SIZE), -EINVAL);
	int level;
	KUNIT_EXPECT_NULL(test, lookup_kernel_address(0x0000800000000000ul, &level));
	KUNIT_EXPECT_NULL(test, lookup_kernel_address(0xffffffffffffffff, &level)); /* the top page */
	KUNIT_EXPECT_FALSE(test, mapped(va));
	KUNIT_EXPECT_FALSE(test, mapped(va + PAGE_SIZE));
	__free_page(p);
	kunit_expect_resources_back(test, &before);
}

/* A range with a mapped page in it is refused whole: -EBUSY, nothing of it
 * mapped, no table left behind. */
static void mapped_page_in_range_is_ebusy(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	unsigned long va = slot(5);
	struct page *pages[4];
	for (int i = 0; i < 4; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
	}
	*(u64 *)page_address(pages[2]) = 0x0cc0;
	KUNIT_ASSERT_EQ(test, map_kernel_range(va + 2 * PAGE_SIZE, PAGE_SIZE, PROT, &pages[2], GFP_KERNEL), 0);
	unsigned long free_before = free_pages_now();
	KUNIT_EXPECT_EQ(test, map_kernel_range(va, 4 * PAGE_SIZE, PROT, pages, GFP_KERNEL), -EBUSY);
	KUNIT_EXPECT_FALSE(test, mapped(va));
	KUNIT_EXPECT_FALSE(test, mapped(va + PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, mapped(va + 3 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, read_at(va + 2 * PAGE_SIZE), 0x0cc0);
	/* Reaching into the next PMD does not leave its tables behind. */
	KUNIT_EXPECT_EQ(test, map_kernel_range_phys(va + 2 * PAGE_SIZE, PMD_SIZE, phys_of(pages[0]), PROT,
						    PAGE_SHIFT, GFP_KERNEL), -EBUSY);
	KUNIT_EXPECT_FALSE(test, mapped(va + PMD_SIZE));
	KUNIT_EXPECT_EQ(test, free_pages_now(), free_before);

	/* A large entry is as busy as the pages it covers, either way round. */
	struct page *block = alloc_pages(GFP_KERNEL, 9);
	KUNIT_ASSERT_NOT_NULL(test, block);
	unsigned long huge = va + 4 * PMD_SIZE;
	KUNIT_ASSERT_EQ(test, map_kernel_range_phys(huge, PMD_SIZE, phys_of(block), PROT, PMD_SHIFT, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, map_kernel_range(huge + PAGE_SIZE, PAGE_SIZE, PROT, pages, GFP_KERNEL), -EBUSY);
	KUNIT_EXPECT_EQ(test, map_kernel_range_phys(va, PMD_SIZE, phys_of(block), PROT, PMD_SHIFT, GFP_KERNEL),
			-EBUSY);
	KUNIT_EXPECT_FALSE(test, mapped(va));

	KUNIT_EXPECT_EQ(test, unmap_kernel_range(va, 5 * PMD_SIZE), 0);
	KUNIT_EXPECT_FALSE(test, mapped(va + 2 * PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, mapped(huge));
	__free_pages(block, 9);
	for (int i = 0; i < 4; i++)
		__free_page(pages[i]);
	kunit_expect_resources_back(test, &before);
}

/* Memory taken to the min watermark, in lists per order (through the
 * pages' lru, ours while allocated). */
struct held {
	struct list_head order[MAX_PAGE_ORDER + 1];
};

static void take_order(struct held *h, gfp_t gfp, unsigned o)
{
	struct page *p;
	while ((p = alloc_pages(gfp | __GFP_NOWARN | __GFP_UNTOUCHED, o)))
		list_add(&p->lru, &h->order[o]);
}

/* Largest blocks first (fast even under emulation); the last ones taken
 * are single pages, so that a test can give back exactly one. */
static void take_all_memory(struct held *h, gfp_t gfp)
{
	for (int o = MAX_PAGE_ORDER; o >= 0; o--) {
		INIT_LIST_HEAD(&h->order[o]);
		take_order(h, gfp, (unsigned)o);
	}
	for (unsigned o = 1; o <= MAX_PAGE_ORDER && list_empty(&h->order[0]); o++) {
		if (list_empty(&h->order[o]))
			continue;
		struct page *p = list_first_entry(&h->order[o], struct page, lru);
		list_del(&p->lru);
		__free_pages(p, o);
		take_order(h, gfp, 0);
	}
}

static void give_back(struct held *h)
{
	for (int o = 0; o <= MAX_PAGE_ORDER; o++)
		while (!list_empty(&h->order[o])) {
			struct page *p = list_first_entry(&h->order[o], struct page, lru);
			list_del(&p->lru);
			__free_pages(p, (unsigned)o);
		}
}

/* With no memory for its tables a GFP_NOWAIT mapping fails with -ENOMEM and
 * gives back the tables it did get; GFP_ATOMIC, which may use the reserves,
 * succeeds: the caller's flags reach the table allocation. */
static void no_table_memory_is_enomem(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	unsigned long va = slot(6);
	struct page *p = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	*(u64 *)page_address(p) = 0x0e0e;
	static struct held held;
	take_all_memory(&held, GFP_NOWAIT);
	const gfp_t nowait = GFP_NOWAIT | __GFP_NOWARN;

	int nothing = map_kernel_range(va, PAGE_SIZE, PROT, &p, nowait);
	/* One page free: the PMD table is had, the PTE table is not. */
	struct page *one = list_first_entry(&held.order[0], struct page, lru);
	list_del(&one->lru);
	__free_page(one);
	struct page *again = alloc_page(nowait);
	struct page *more = alloc_page(nowait);
	if (again)
		__free_page(again);
	int half = map_kernel_range(va, PAGE_SIZE, PROT, &p, nowait);
	struct page *back = alloc_page(nowait);
	if (back)
		list_add(&back->lru, &held.order[0]);
	/* The reserves below min are for GFP_ATOMIC. */
	int atomic = map_kernel_range(va, PAGE_SIZE, PROT, &p, GFP_ATOMIC | __GFP_NOWARN);
	bool reads = atomic == 0 && read_at(va) == 0x0e0e;
	give_back(&held);
	if (more)
		__free_page(more);

	KUNIT_EXPECT_EQ(test, nothing, -ENOMEM);
	KUNIT_EXPECT_NOT_NULL(test, again);
	KUNIT_EXPECT_NULL(test, more); /* so exactly one page was there */
	KUNIT_EXPECT_EQ(test, half, -ENOMEM);
	KUNIT_EXPECT_NOT_NULL(test, back); /* the PMD table's page came back */
	KUNIT_EXPECT_EQ(test, atomic, 0);
	KUNIT_EXPECT_TRUE(test, reads);
	KUNIT_EXPECT_EQ(test, unmap_kernel_range(va, PAGE_SIZE), 0);
	KUNIT_EXPECT_FALSE(test, mapped(va));
	__free_page(p);
	kunit_expect_resources_back(test, &before);
}

static struct kunit_case kernel_map_cases[] = {
	KUNIT_CASE(pages_read_back_and_unmap_gives_all_back),
	KUNIT_CASE(phys_ranges_get_large_entries_where_aligned),
	KUNIT_CASE(a_gigabyte_gets_one_entry_where_the_cpu_has_them),
	KUNIT_CASE(unmap_flushes_every_cpu),
	KUNIT_CASE(unmap_frees_only_emptied_tables),
	KUNIT_CASE(lower_half_unmap_gives_its_pud_table_back),
	KUNIT_CASE(bad_arguments_are_einval),
	KUNIT_CASE(mapped_page_in_range_is_ebusy),
	KUNIT_CASE(no_table_memory_is_enomem),
	{}
};
static int kernel_map_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	test_area = __get_vm_area_node(NR_SLOTS * PUD_SIZE, PUD_SIZE, VM_NO_GUARD, VMALLOC_START, VMALLOC_END,
				       NUMA_NO_NODE, GFP_KERNEL, __builtin_return_address(0));
	return test_area ? 0 : -ENOMEM;
}

static void kernel_map_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	free_vm_area(test_area);
	vm_unmap_aliases();
}

static struct kunit_suite kernel_map_suite = {
	.name = "kernel_map",
	.suite_init = kernel_map_suite_init,
	.suite_exit = kernel_map_suite_exit,
	.test_cases = kernel_map_cases,
};
kunit_test_suite(kernel_map_suite);
