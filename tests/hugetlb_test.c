/* hugetlb's pools (mm/hugetlb.c): a pool set through its files grows node
 * by node in turn over the nodes with memory and shrinks back, every page
 * returning to the buddy allocator; a node's file sets that node's share;
 * /proc/meminfo and the nodes' meminfo count the pool; the files exist
 * for the sizes the CPU can map, and refuse what Linux refuses. Counts
 * are derived from the machine: the nodes with memory, and whether a
 * 1 GiB page can be had at all. */
#include "tests/kunit.h"
#include "tests/test_hugetlb.h"
#include "tests/test_mm.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/printk.h"
#include "fs/proc/proc_fs.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "kernel/unistd.h"
#include "mm/clear_page.h"
#include "mm/gup.h"
#include "mm/hugetlb.h"
#include "mm/hugetlb_vma.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/mremap.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
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

/* Whether node nid can give n pages of 2 MiB now: blocks of order 9 and
 * up for them. The pool grows over the nodes with memory in turn, and a
 * node that cannot give one (its RAM all kept, or in smaller blocks) is
 * passed for the next, as Linux's alloc_pool_huge_folio does. */
static bool node_gives_2m_pages(int nid, unsigned long n)
{
	if (!node_has_memory(nid) || !node_data[nid]->managed_pages)
		return false;
	unsigned long blocks = 0;
	for (unsigned order = 9; order <= MAX_PAGE_ORDER; order++)
		blocks += node_free_blocks(nid, order) << (order - 9);
	return blocks >= n;
}

static void pool_grows_over_the_nodes_and_shrinks_back(struct kunit *test)
{
	struct hstate *h = &hstates[HSTATE_2M];
	test_hugetlb_empty_pool(test, h);
	struct kunit_resources before;
	kunit_resources_take(&before);
	unsigned with_memory = 0;
	bool gives[MAX_NUMNODES];
	for (unsigned nid = 0; nid < num_online_nodes(); nid++)
		with_memory += gives[nid] = node_gives_2m_pages((int)nid, 3);
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
		KUNIT_EXPECT_EQ(test, read_number(path), gives[nid] ? 3l : 0l);
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
	test_hugetlb_empty_pool(test, &hstates[HSTATE_2M]);
	struct kunit_resources before;
	kunit_resources_take(&before);
	int nid = -1;
	for (unsigned n = num_online_nodes(); n-- > 0;)
		if (node_gives_2m_pages((int)n, 2)) {
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
	KUNIT_EXPECT_EQ(test, write_file(path, "x"), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, h2m("nr_overcommit_hugepages"), 0l);
	if (hstates[HSTATE_1G].supported) /* no surplus gigantic pages, as Linux */
		KUNIT_EXPECT_EQ(test, write_file("/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_overcommit_hugepages", "1"),
				(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, h2m("nr_hugepages"), pool);
	struct proc_node node;
	KUNIT_EXPECT_EQ(test, procfs_lookup("/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", current, &node),
			boot_cpu_has(X86_FEATURE_PDPE1GB) ? 0 : -ENOENT);
	KUNIT_EXPECT_EQ(test, procfs_lookup("/sys/kernel/mm/hugepages/hugepages-4kB/nr_hugepages", current, &node),
			-ENOENT);
}

/* Whether a node has a free order-18 block now (what the kernel found;
 * page_alloc's gigantic_pages checks it against expect.gigantic_nodes). */
static bool gigantic_block_free(void)
{
	for (int nid = 0; nid < (int)num_online_nodes(); nid++)
		if (node_has_memory(nid) && node_free_blocks(nid, 18))
			return true;
	return false;
}

/* 1 GiB pages come from the buddy allocator's order 18: one exactly when
 * a node has a free order-18 block (none on most of the matrix's
 * machines; pci-hole-6g's expect.gigantic_nodes=1 has one). */
static void gigantic_pool_takes_what_order_18_has(struct kunit *test)
{
	struct hstate *h = &hstates[HSTATE_1G];
	if (!h->supported)
		kunit_skip(test, "no PDPE1GB: 1 GiB pages cannot be mapped");
	test_hugetlb_empty_pool(test, h);
	struct kunit_resources before;
	kunit_resources_take(&before);
	bool possible = gigantic_block_free();
	long got = set_max_huge_pages(h, 1, NUMA_NO_NODE);
	kunit_info(test, "a pool of one 1 GiB page: %ld", got);
	KUNIT_EXPECT_EQ(test, got, possible ? 1l : 0l);
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

/* --- MAP_HUGETLB mappings ------------------------------------------------------ */

#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define SZ2M (2ul << 20)

/* An mm of the current task's, and a 2 MiB pool of pool pages (from
 * whichever nodes have them), for one case; everything comes back at the
 * end. */
struct hspace {
	struct mm_struct *mm;
	struct kunit_resources before;
};

static void hspace_init(struct kunit *test, struct hspace *s, unsigned long pool)
{
	struct hstate *h = &hstates[HSTATE_2M];
	test_hugetlb_empty_pool(test, h);
	kunit_resources_take(&s->before);
	test_hugetlb_set_pool(test, h, pool);
	s->mm = test_mm_create(test, TEST_MM_CURRENT);
}

static void hspace_destroy(struct kunit *test, struct hspace *s)
{
	struct hstate *h = &hstates[HSTATE_2M];
	test_mm_destroy(test, s->mm);
	/* The mm's exit gave every page and reservation back. */
	test_hugetlb_expect_pool_back(test, h);
	rcu_barrier(); /* page tables go after a grace period */
	kunit_expect_resources_back(test, &s->before);
}

static u64 entry_at(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);
	return pmd ? pmd_val(pmdp_get(pmd)) : 0;
}

/* mmap reserves a page per huge page; a fault consumes the reservation of
 * its page and maps a cleared page with a PMD entry (no PTE table, not in
 * RSS, in HugetlbPages); a read faults a page in too; munmap of an aligned
 * part gives back that part's reservations and pages, exit the rest. */
static void map_hugetlb_reserves_faults_and_gives_back(struct kunit *test)
{
	struct hspace s;
	hspace_init(test, &s, 4);
	struct hstate *h = &hstates[HSTATE_2M];
	unsigned long a = do_mmap(s.mm, 0, 3 * SZ2M - 5, RW, ANON | MAP_HUGETLB | MAP_HUGE_2MB);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(a));
	KUNIT_EXPECT_EQ(test, a & (SZ2M - 1), 0ul); /* aligned, the length rounded up */
	struct vm_area_struct *vma = find_vma(s.mm, a);
	KUNIT_ASSERT_NOT_NULL(test, vma);
	KUNIT_EXPECT_EQ(test, vma->vm_end - vma->vm_start, 3 * SZ2M);
	KUNIT_EXPECT_TRUE(test, vma->vm_flags & VM_HUGETLB);
	KUNIT_EXPECT_FALSE(test, vma->vm_flags & VM_ACCOUNT); /* not in the commit charge */
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 3ul);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 4ul);
	KUNIT_EXPECT_EQ(test, h2m("resv_hugepages"), 3l);
	/* A write fault: the first page. */
	KUNIT_EXPECT_EQ(test, put_user_u64(0x1234, (void *)(a + 8)), 0);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 2ul);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 3ul);
	u64 e = entry_at(s.mm, a);
	KUNIT_EXPECT_TRUE(test, (e & (_PAGE_PRESENT | _PAGE_PSE | _PAGE_RW)) == (_PAGE_PRESENT | _PAGE_PSE | _PAGE_RW));
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 0l); /* no PTE table */
	KUNIT_EXPECT_EQ(test, get_mm_counter(s.mm, MM_ANONPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, s.mm->hugetlb_usage, 512l);
	struct page *head = pfn_to_page((e & PTE_PFN_MASK) >> PAGE_SHIFT);
	KUNIT_EXPECT_TRUE(test, PageHugetlb(head));
	KUNIT_EXPECT_TRUE(test, compound_head(head + 300) == head);
	/* The rest of the page reads back zero; the word written is there. */
	u64 v = 0;
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)(a + 8)), 0);
	KUNIT_EXPECT_EQ(test, v, 0x1234ull);
	KUNIT_EXPECT_EQ(test, kunit_user_nonzero_pages(a + PAGE_SIZE, 511, 1), 0ul);
	/* A read fault maps a page too (no zero page for hugetlb). */
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)(a + 2 * SZ2M)), 0);
	KUNIT_EXPECT_EQ(test, v, 0ull);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 2ul);
	/* One free page beyond the reserved one: two more cannot be had. */
	KUNIT_EXPECT_EQ(test, (long)do_mmap(s.mm, 0, 2 * SZ2M, RW, ANON | MAP_HUGETLB), (long)-ENOMEM);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	/* munmap of the unfaulted middle page: its reservation goes. */
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, a + SZ2M, SZ2M), 0);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 2ul);
	/* munmap of the first page: back to the pool, after the flush. */
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, a, SZ2M), 0);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 3ul);
	KUNIT_EXPECT_EQ(test, s.mm->hugetlb_usage, 512l);
	KUNIT_EXPECT_FALSE(test, PageHugetlbTail(head));
	KUNIT_EXPECT_EQ(test, head->_refcount, 1);
	hspace_destroy(test, &s); /* the third page goes at exit */
}

/* What Linux refuses, in its words. */
static void map_hugetlb_refuses_what_linux_refuses(struct kunit *test)
{
	struct hspace s;
	hspace_init(test, &s, 2);
	struct hstate *h = &hstates[HSTATE_2M];
	KUNIT_EXPECT_EQ(test, (long)do_mmap(s.mm, 0, SZ2M, RW, ANON | MAP_HUGETLB | (22 << MAP_HUGE_SHIFT)),
			(long)-EINVAL); /* no 4 MiB size */
	KUNIT_EXPECT_EQ(test, (long)do_mmap(s.mm, 0x40000000ul + PAGE_SIZE, SZ2M, RW, ANON | MAP_HUGETLB | MAP_FIXED),
			(long)-EINVAL); /* a fixed address must be aligned */
	if (!hstates[HSTATE_1G].supported)
		KUNIT_EXPECT_EQ(test, (long)do_mmap(s.mm, 0, SZ2M, RW, ANON | MAP_HUGETLB | MAP_HUGE_1GB), (long)-EINVAL);
	/* Shared: a file on the kernel's hugetlbfs, reserving its page;
	 * the reservation goes with the file at munmap. */
	unsigned long sh = do_mmap(s.mm, 0, SZ2M, RW, MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(sh));
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, sh, SZ2M), 0);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	unsigned long a = do_mmap(s.mm, 0, 2 * SZ2M, RW, ANON | MAP_HUGETLB);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(a));
	/* Split only at the page size. */
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, a + PAGE_SIZE, PAGE_SIZE), -EINVAL);
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, a, PAGE_SIZE, PROT_READ), -EINVAL);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, a, PAGE_SIZE, MADV_DONTDUMP), -EINVAL);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, a, SZ2M, MADV_FREE), -EINVAL);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, a + PAGE_SIZE, SZ2M, MADV_DONTNEED), -EINVAL);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 1);
	/* mremap: no growth, no move; a shrink in place is fine. */
	KUNIT_EXPECT_EQ(test, (long)do_mremap(s.mm, a, 2 * SZ2M, 3 * SZ2M, MREMAP_MAYMOVE, 0), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, (long)do_mremap(s.mm, a, 2 * SZ2M, SZ2M + 1, 0, 0), (long)a); /* rounded: no change */
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 2ul);
	KUNIT_EXPECT_EQ(test, (long)do_mremap(s.mm, a, 2 * SZ2M, SZ2M, 0, 0), (long)a);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	/* MAP_FIXED over the mapping, with no page to spare: the old one
	 * goes first, and its reservation serves the new one. */
	KUNIT_EXPECT_EQ(test, (long)do_mmap(s.mm, a, SZ2M, RW, ANON | MAP_HUGETLB | MAP_FIXED), (long)a);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 1);
	/* mprotect of the whole page, then a write is refused. */
	KUNIT_EXPECT_EQ(test, put_user_u64(1, (void *)a), 0);
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, a, SZ2M, PROT_READ), 0);
	KUNIT_EXPECT_FALSE(test, entry_at(s.mm, a) & _PAGE_RW);
	KUNIT_EXPECT_EQ(test, hugetlb_fault(find_vma(s.mm, a), a, FAULT_FLAG_WRITE), (vm_fault_t)VM_FAULT_SIGSEGV);
	/* Writable again: hugetlb is never charged to the commit count. */
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, a, SZ2M, RW), 0);
	KUNIT_EXPECT_FALSE(test, find_vma(s.mm, a)->vm_flags & VM_ACCOUNT);
	KUNIT_EXPECT_TRUE(test, entry_at(s.mm, a) & _PAGE_RW);
	hspace_destroy(test, &s);
}

/* MADV_DONTNEED of a faulted page gives the page back with its
 * reservation (Linux 6.8), so the mapping can fault it again even when
 * another mapping wants every other page; the end of the range is rounded
 * down to the page size. */
static void dontneed_keeps_the_reservation(struct kunit *test)
{
	struct hspace s;
	hspace_init(test, &s, 2);
	struct hstate *h = &hstates[HSTATE_2M];
	unsigned long a = do_mmap(s.mm, 0, SZ2M, RW, ANON | MAP_HUGETLB);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(a));
	KUNIT_EXPECT_EQ(test, put_user_u64(7, (void *)a), 0);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, a, SZ2M - PAGE_SIZE + 1, MADV_DONTNEED), 0); /* the VMA's end */
	KUNIT_EXPECT_EQ(test, entry_at(s.mm, a), 0ull);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 2ul);
	unsigned long b = do_mmap(s.mm, 0, 2 * SZ2M, RW, ANON | MAP_HUGETLB);
	KUNIT_EXPECT_EQ(test, (long)b, (long)-ENOMEM); /* one of the two is ours */
	b = do_mmap(s.mm, 0, SZ2M, RW, ANON | MAP_HUGETLB);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(b));
	KUNIT_EXPECT_EQ(test, put_user_u64(8, (void *)b), 0);
	u64 v = 1;
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)a), 0);
	KUNIT_EXPECT_EQ(test, v, 0ull);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 0ul);
	/* The page is ours again: a NORESERVE mapping finds none free
	 * beyond the reservation (SIGBUS) until b gives its page back. */
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, a, SZ2M, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	unsigned long c = do_mmap(s.mm, 0, 2 * SZ2M, RW, ANON | MAP_HUGETLB | MAP_NORESERVE);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(c));
	KUNIT_EXPECT_EQ(test, put_user_u64(9, (void *)c), -EFAULT);
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, b, SZ2M), 0);
	KUNIT_EXPECT_EQ(test, put_user_u64(9, (void *)c), 0);
	/* A range that ends inside the VMA is rounded down: only the whole
	 * pages in it go. */
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, c, SZ2M - PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)c), 0);
	KUNIT_EXPECT_EQ(test, v, 9ull);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, c, SZ2M + PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 2ul); /* a's (reserved) and c's */
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul); /* NORESERVE: nothing restored */
	hspace_destroy(test, &s);
}

/* MAP_NORESERVE reserves nothing: a fault with no page left is SIGBUS
 * (populate's -EFAULT); surplus pages (nr_overcommit_hugepages) cover a
 * reservation the pool cannot, and go back to the buddy allocator when
 * their mapping does. */
static void noreserve_sigbus_and_surplus_pages(struct kunit *test)
{
	struct hspace s;
	hspace_init(test, &s, 1);
	struct hstate *h = &hstates[HSTATE_2M];
	unsigned long a = do_mmap(s.mm, 0, 2 * SZ2M, RW, ANON | MAP_HUGETLB | MAP_NORESERVE);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(a));
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	mmap_read_lock(s.mm);
	struct vm_area_struct *vma = find_vma(s.mm, a);
	KUNIT_EXPECT_EQ(test, populate_vma_range(vma, a, a + 2 * SZ2M, true), -EFAULT);
	KUNIT_EXPECT_EQ(test, hugetlb_fault(vma, a + SZ2M, FAULT_FLAG_WRITE), (vm_fault_t)VM_FAULT_SIGBUS);
	mmap_read_unlock(s.mm);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 0ul); /* the first page got the one */
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, a, 2 * SZ2M), 0);
	/* Surplus: two pages over a pool of one. */
	char path[128];
	snprintf(path, sizeof(path), "%snr_overcommit_hugepages", H2M);
	KUNIT_EXPECT_EQ(test, write_file(path, "2\n"), 2l);
	KUNIT_EXPECT_EQ(test, h2m("nr_overcommit_hugepages"), 2l);
	a = do_mmap(s.mm, 0, 3 * SZ2M, RW, ANON | MAP_HUGETLB);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(a));
	KUNIT_EXPECT_EQ(test, h->nr_huge_pages, 3ul);
	KUNIT_EXPECT_EQ(test, h->surplus_huge_pages, 2ul);
	KUNIT_EXPECT_EQ(test, h2m("surplus_hugepages"), 2l);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 3ul);
	KUNIT_EXPECT_EQ(test, (long)do_mmap(s.mm, 0, SZ2M, RW, ANON | MAP_HUGETLB), (long)-ENOMEM); /* over the limit */
	KUNIT_EXPECT_EQ(test, put_user_u64(1, (void *)a), 0);
	/* Two unfaulted pages unmapped: their reservations go, and free
	 * pages with them, as many as are surplus on their node (surplus is a
	 * count per node, not a mark on a page, as Linux's: which free pages
	 * go depends on the nodes the three came from). */
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, a + SZ2M, 2 * SZ2M), 0);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	KUNIT_EXPECT_LE(test, h->surplus_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, h->nr_huge_pages, 1 + h->surplus_huge_pages);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, h->nr_huge_pages - 1);
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, a, SZ2M), 0);
	KUNIT_EXPECT_EQ(test, h->nr_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, write_file(path, "0"), 1l);
	hspace_destroy(test, &s);
}

/* A populate clears through the policy with the bulk hint, fenced before
 * the entries; every byte is zero; and get_user_pages holds the whole
 * huge page: it stays out of the pool until the last put_page of its
 * 4 KiB part. */
static void populate_clears_and_gup_holds_the_page(struct kunit *test)
{
	struct hspace s;
	hspace_init(test, &s, 2);
	struct hstate *h = &hstates[HSTATE_2M];
	unsigned long before = 0;
	for (unsigned m = 0; m < NR_CLEAR_PAGE_METHODS; m++)
		before += clear_page_stats_sum().pages[m];
	unsigned long a = do_mmap(s.mm, 0, 2 * SZ2M, RW, ANON | MAP_HUGETLB | MAP_POPULATE);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(a));
	unsigned long after = 0;
	for (unsigned m = 0; m < NR_CLEAR_PAGE_METHODS; m++)
		after += clear_page_stats_sum().pages[m];
	KUNIT_EXPECT_GE(test, after - before, 1024ul); /* both pages, through the policy */
	KUNIT_EXPECT_EQ(test, clear_page_pending_count(), 0ul);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 0ul);
	KUNIT_EXPECT_EQ(test, kunit_user_nonzero_pages(a, 1024, 1), 0ul);
	struct page *p = NULL;
	KUNIT_ASSERT_EQ(test, get_user_pages_fast(a + SZ2M + 5 * PAGE_SIZE, 1, FOLL_WRITE, &p), 1l);
	struct page *head = pfn_to_page((entry_at(s.mm, a + SZ2M) & PTE_PFN_MASK) >> PAGE_SHIFT);
	KUNIT_EXPECT_TRUE(test, p == head + 5);
	KUNIT_EXPECT_EQ(test, head->_refcount, 2);
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, a + SZ2M, SZ2M), 0);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 0ul); /* still held */
	put_page(p);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 1ul);
	hspace_destroy(test, &s);
}

/* A 1 GiB page (PDPE1GB, a free order-18 block): mapped by a PUD entry,
 * cleared whole, given back at munmap. */
static void gigantic_page_maps_with_a_pud(struct kunit *test)
{
	struct hstate *h = &hstates[HSTATE_1G];
	if (!h->supported)
		kunit_skip(test, "no PDPE1GB");
	test_hugetlb_empty_pool(test, h);
	if (!gigantic_block_free())
		kunit_skip(test, "no free 1 GiB block on this machine");
	struct kunit_resources before;
	kunit_resources_take(&before);
	KUNIT_ASSERT_EQ(test, set_max_huge_pages(h, 1, NUMA_NO_NODE), 1l);
	struct mm_struct *mm = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, mm);
	kthread_use_mm(mm);
	unsigned long a = do_mmap(mm, 0, 4096, RW, ANON | MAP_HUGETLB | MAP_HUGE_1GB | MAP_POPULATE);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(a));
	if (!IS_ERR_VALUE(a)) {
		KUNIT_EXPECT_EQ(test, a & ((1ul << 30) - 1), 0ul);
		KUNIT_EXPECT_EQ(test, h->free_huge_pages, 0ul);
		pud_t *pud = pud_offset(pgd_offset(mm, a), a);
		KUNIT_EXPECT_TRUE(test, pud_val(pudp_get(pud)) & _PAGE_PSE);
		KUNIT_EXPECT_NULL(test, mm_find_pmd(mm, a));
		KUNIT_EXPECT_EQ(test, mm->hugetlb_usage, 262144l);
		/* Every 61st 4 KiB page and the last read back zero. */
		KUNIT_EXPECT_EQ(test, kunit_user_nonzero_pages(a, 262144, 61), 0ul);
		KUNIT_EXPECT_EQ(test, kunit_user_nonzero_pages(a + (1ul << 30) - PAGE_SIZE, 1, 1), 0ul);
		struct page *p = NULL;
		KUNIT_EXPECT_EQ(test, get_user_pages_fast(a + 12345 * PAGE_SIZE, 1, 0, &p), 1l);
		if (p)
			put_page(p);
		KUNIT_EXPECT_EQ(test, do_munmap(mm, a, 1ul << 30), 0);
		KUNIT_EXPECT_EQ(test, h->free_huge_pages, 1ul);
	}
	kthread_unuse_mm(mm);
	mmput(mm);
	KUNIT_EXPECT_EQ(test, set_max_huge_pages(h, 0, NUMA_NO_NODE), 0l);
	rcu_barrier();
	kunit_expect_resources_back(test, &before);
}

static struct kunit_case hugetlb_cases[] = {
	KUNIT_CASE(pool_grows_over_the_nodes_and_shrinks_back),
	KUNIT_CASE(a_node_file_sets_that_node),
	KUNIT_CASE(files_refuse_what_linux_refuses),
	KUNIT_CASE(gigantic_pool_takes_what_order_18_has),
	KUNIT_CASE(map_hugetlb_reserves_faults_and_gives_back),
	KUNIT_CASE(map_hugetlb_refuses_what_linux_refuses),
	KUNIT_CASE(dontneed_keeps_the_reservation),
	KUNIT_CASE(noreserve_sigbus_and_surplus_pages),
	KUNIT_CASE(populate_clears_and_gup_holds_the_page),
	KUNIT_CASE(gigantic_page_maps_with_a_pud),
	{},
};

static struct kunit_suite hugetlb_suite = { .name = "hugetlb", .test_cases = hugetlb_cases };
kunit_test_suite(hugetlb_suite);
