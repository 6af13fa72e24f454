/* Huge pages of tmpfs files (mm/shmem_huge.c): on a huge=always instance
 * the first touch of a file's 2 MiB makes one order-9 page holding all 512
 * indices, which two mms map (by 4 KiB PTEs) and read alike in every
 * pte_reclaim mode; within_size, advise, never and shmem_enabled's deny
 * and force decide as Linux 6.1's shmem_is_huge; a hole punched inside
 * splits it and keeps every other byte; a pinned one is zeroed instead of
 * split; truncate splits and frees; ShmemHugePages, thp_file_alloc and
 * st_blksize follow. Each case mounts its own instance (detached when it
 * ends), empties its file before its mm goes, and the mm's leak check
 * sees every page and slab object back. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "fs/fs.h"
#include "fs/init.h"
#include "fs/mount.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fdtable.h"
#include "kernel/syscall.h"
#include "mm/filemap.h"
#include "mm/memfd.h"
#include "mm/gup.h"
#include "mm/huge_memory.h"
#include "mm/mmap.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/pte_ref.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "mm/slab.h"
#include "mm/vmstat.h"

#define RW (PROT_READ | PROT_WRITE)
#define BASE 0x0000360000000000ul /* a PGD entry of its own, 2 MiB aligned */
#define UBASE 0x0000368000000000ul /* a page for system calls' strings */
#define DIR "/tmp/shmem_thp_test"
#define HPAGE (HPAGE_PMD_NR * PAGE_SIZE)

/* A tmpfs mounted with opts and a new file on it, before the case's mm
 * (so that its leak check counts them); shmem_enabled put back after. */
static struct file *huge_file(struct kunit *test, const char *opts)
{
	const struct pte_reclaim_mode_param *m = test->param_value;
	if (m)
		KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, m->mode), 0);
	test_set_shmem_huge(test, READ_ONCE(shmem_huge));
	struct file *f = test_tmpfs_file(test, DIR, opts);
	return f;
}

/* The page at index of f's cache (no reference kept), or NULL. */
static struct page *cache_page(struct file *f, unsigned long index)
{
	struct page *p = filemap_get_folio(f->f_mapping, index);
	if (p)
		put_page(p);
	return p;
}

static bool is_huge(struct page *p) { return p && page_test_flag(compound_head(p), PG_shmem_thp); }

/* 512 pages at indices [first, first + 512) of f written through the
 * page cache, the word w of page i holding i << 16 | w. */
static void fill(struct kunit *test, struct file *f, unsigned long first)
{
	u64 *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	long long pos = (long long)(first * PAGE_SIZE);
	for (unsigned long i = first; i < first + HPAGE_PMD_NR; i++) {
		for (unsigned w = 0; w < PAGE_SIZE / 8; w++)
			buf[w] = i << 16 | w;
		if (kernel_write(f, buf, PAGE_SIZE, &pos) != PAGE_SIZE)
			break;
	}
	kfree(buf);
	KUNIT_ASSERT_EQ(test, pos, (long long)((first + HPAGE_PMD_NR) * PAGE_SIZE));
}

static u64 word_at(struct file *f, unsigned long index, unsigned w)
{
	struct page *p = filemap_get_folio(f->f_mapping, index);
	if (!p)
		return ~0ull;
	u64 v = ((u64 *)page_address(p))[w];
	put_page(p);
	return v;
}

/* The start of most cases: a huge=always file, an mm, the count of
 * huge pages before, and the file's first 2 MiB written (one huge page). */
static struct file *filled_huge_file(struct kunit *test, struct mm_struct **a, unsigned long *thps)
{
	struct file *f = huge_file(test, "huge=always");
	*a = test_mm_create(test, 0);
	*thps = nr_shmem_thps();
	fill(test, f, 0);
	return f;
}

/* The end of a case: a's PTE tables' counts exact, the file emptied
 * (every page out of the cache) before a goes and its leak check runs. */
static void case_end(struct kunit *test, struct file *f, struct mm_struct *a)
{
	KUNIT_EXPECT_EQ(test, pte_ref_verify(a), 0ul);
	KUNIT_EXPECT_EQ(test, test_set_size(f, 0), 0);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 0ul);
	test_mm_destroy(test, a);
}

/* huge=always: a write fault in one mm makes one huge page of all 512
 * indices, counted in ShmemHugePages and thp_file_alloc, and maps it with
 * a PMD (ShmemPmdMapped, thp_file_mapped, RssShmem 512 pages, no PTE
 * table); a second mm (fork) maps the same page with a PMD of its own
 * and reads what the first wrote; an mm mapping it at an offset that is
 * not 2 MiB aligned gets 4 KiB PTEs of the same pages; st_blksize says
 * 2 MiB; munmap of part of the PMD drops it (the rest faults back by
 * PTEs); truncate to 0 frees it all. */
static void always_one_huge_page_two_mms(struct kunit *test)
{
	struct file *f = huge_file(test, "huge=always");
	struct mm_struct *a = test_mm_create(test, 0), *b, *c = test_mm_create(test, TEST_MM_NO_LEAK_CHECK);
	unsigned long thps = nr_shmem_thps(), allocs = all_vm_events(THP_FILE_ALLOC);
	unsigned long mapped = all_vm_events(THP_FILE_MAPPED), pmdmapped = nr_shmem_pmdmapped();
	unsigned long file_mapped = nr_file_mapped_pages();
	unsigned long file_before = nr_file_pages();
	KUNIT_ASSERT_EQ(test, test_set_size(f, 2 * HPAGE), 0);
	KUNIT_ASSERT_EQ(test, do_mmap_file(a, f, BASE, 2 * HPAGE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(a, BASE + 5 * PAGE_SIZE + 8, 0x5151), 0);
	struct page *p = cache_page(f, 5);
	KUNIT_ASSERT_TRUE(test, is_huge(p));
	struct page *head = compound_head(p);
	KUNIT_EXPECT_EQ(test, head->index, 0ul);
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i += 73)
		KUNIT_EXPECT_PTR_EQ(test, cache_page(f, i), head + i);
	KUNIT_EXPECT_NULL(test, cache_page(f, HPAGE_PMD_NR)); /* the second 2 MiB: untouched */
	KUNIT_EXPECT_EQ(test, nr_shmem_thps() - thps, 1ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_FILE_ALLOC) - allocs, 1ul);
	KUNIT_EXPECT_EQ(test, nr_file_pages() - file_before, HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_blocks, HPAGE_PMD_NR * (PAGE_SIZE / 512));
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(a, BASE), head);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_FILE_MAPPED) - mapped, 1ul);
	KUNIT_EXPECT_EQ(test, nr_shmem_pmdmapped() - pmdmapped, 1ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(a, MM_SHMEMPAGES), HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - file_mapped, HPAGE_PMD_NR); /* Mapped: all 512 */
	struct kstat st;
	KUNIT_EXPECT_EQ(test, vfs_getattr(&f->f_path, &st), 0);
	KUNIT_EXPECT_EQ(test, st.blksize, (long)HPAGE);

	KUNIT_ASSERT_EQ(test, dup_mm(a, &b), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(b, BASE + 5 * PAGE_SIZE + 8), 0x5151ull);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(b, BASE), head);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(b, BASE + 511 * PAGE_SIZE, 0x1ff), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 511 * PAGE_SIZE), 0x1ffull);
	KUNIT_EXPECT_EQ(test, *shmem_thp_pmd_mapcount_ptr(head), 2l);
	KUNIT_EXPECT_EQ(test, nr_shmem_pmdmapped() - pmdmapped, 1ul); /* one page, two PMDs */
	/* At offset 1 page: no 2 MiB of the mapping lines up with the file's. */
	KUNIT_ASSERT_EQ(test, do_mmap_file(c, f, BASE, HPAGE, RW, MAP_SHARED | MAP_FIXED, 1), BASE);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(c, BASE + 4 * PAGE_SIZE + 8), 0x5151ull);
	KUNIT_EXPECT_NULL(test, test_mm_pmd_page(c, BASE));
	KUNIT_EXPECT_EQ(test, pte_pfn(test_mm_pte(c, BASE + 4 * PAGE_SIZE)), page_to_pfn(head + 5));
	KUNIT_EXPECT_EQ(test, page_mapcount(head + 5), 3);
	/* Fault-around maps the huge page's present pages of the window by
	 * PTEs, as no PMD can (Linux's filemap_map_pages): here the whole
	 * aligned window, inside the VMA and the file. */
	KUNIT_EXPECT_EQ(test, get_mm_counter(c, MM_SHMEMPAGES), fault_around_bytes >> PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - file_mapped, HPAGE_PMD_NR); /* counted already */
	/* A part unmapped: the PMD goes, the rest faults back by PTEs. */
	KUNIT_EXPECT_EQ(test, do_munmap(b, BASE, PAGE_SIZE), 0);
	KUNIT_EXPECT_NULL(test, test_mm_pmd_page(b, BASE));
	KUNIT_EXPECT_EQ(test, get_mm_counter(b, MM_SHMEMPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(b, BASE + 5 * PAGE_SIZE + 8), 0x5151ull);
	KUNIT_EXPECT_EQ(test, pte_pfn(test_mm_pte(b, BASE + 5 * PAGE_SIZE)), page_to_pfn(head + 5));
	KUNIT_EXPECT_EQ(test, *shmem_thp_pmd_mapcount_ptr(head), 1l);
	KUNIT_EXPECT_EQ(test, nr_shmem_thps() - thps, 1ul); /* still one */
	KUNIT_EXPECT_EQ(test, pte_ref_verify(a), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(b), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(c), 0ul);
	mmput(b);
	KUNIT_EXPECT_EQ(test, test_set_size(f, 0), 0);
	KUNIT_EXPECT_NULL(test, test_mm_pmd_page(a, BASE));
	KUNIT_EXPECT_EQ(test, get_mm_counter(a, MM_SHMEMPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(c, MM_SHMEMPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, nr_shmem_pmdmapped(), pmdmapped);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), file_mapped);
	KUNIT_EXPECT_EQ(test, nr_shmem_thps(), thps);
	KUNIT_EXPECT_EQ(test, nr_file_pages(), file_before);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_blocks, 0ul);
	test_mm_destroy(test, c);
	test_mm_destroy(test, a);
}

/* get_user_pages takes a reference through the PMD, which stays; a
 * MADV_DONTNEED of the whole PMD drops it and the page cache keeps the
 * page; mprotect of the whole PMD keeps it (read-only, then a write makes
 * it writable again in place); of a part drops it, and the pages come
 * back by PTEs with each part's protection. */
static void gup_madvise_mprotect(struct kunit *test)
{
	struct file *f = huge_file(test, "huge=always");
	struct mm_struct *a = test_mm_create(test, 0);
	fill(test, f, 0);
	KUNIT_ASSERT_EQ(test, do_mmap_file(a, f, BASE, HPAGE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 3 * PAGE_SIZE + 8), 3ul << 16 | 1);
	struct page *head = compound_head(cache_page(f, 0));
	KUNIT_ASSERT_PTR_EQ(test, test_mm_pmd_page(a, BASE), head);
	int refs = page_ref_count(head);
	struct page *got[2] = { NULL, NULL };
	struct mm_struct *was = test_mm_enter(a);
	long n = get_user_pages_fast(BASE + 7 * PAGE_SIZE, 2, FOLL_WRITE, got);
	test_mm_leave(a, was);
	KUNIT_EXPECT_EQ(test, n, 2l);
	KUNIT_EXPECT_PTR_EQ(test, got[0], head + 7);
	KUNIT_EXPECT_PTR_EQ(test, got[1], head + 8);
	KUNIT_EXPECT_EQ(test, page_ref_count(head), refs + 2);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(a, BASE), head); /* not split */
	for (int i = 0; i < 2; i++)
		if (got[i])
			put_page(got[i]);
	unsigned long file_mapped = nr_file_mapped_pages();
	KUNIT_EXPECT_EQ(test, do_madvise(a, BASE, HPAGE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, file_mapped - nr_file_mapped_pages(), HPAGE_PMD_NR);
	KUNIT_EXPECT_NULL(test, test_mm_pmd_page(a, BASE));
	KUNIT_EXPECT_EQ(test, get_mm_counter(a, MM_SHMEMPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, page_ref_count(head), refs - 1); /* the PMD's went */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 3 * PAGE_SIZE + 8), 3ul << 16 | 1);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(a, BASE), head);
	KUNIT_EXPECT_EQ(test, do_mprotect(a, BASE, HPAGE, PROT_READ), 0);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(a, BASE), head);
	KUNIT_EXPECT_NE(test, test_mm_write_u64(a, BASE, 7), 0); /* read-only now */
	KUNIT_EXPECT_EQ(test, do_mprotect(a, BASE, HPAGE, RW), 0);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(a, BASE + 8, 7), 0);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(a, BASE), head);
	KUNIT_EXPECT_EQ(test, word_at(f, 0, 1), 7ull);
	KUNIT_EXPECT_EQ(test, do_mprotect(a, BASE + HPAGE / 2, HPAGE / 2, PROT_READ), 0);
	KUNIT_EXPECT_NULL(test, test_mm_pmd_page(a, BASE));
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(a, BASE + 16, 9), 0);
	/* A page by a PTE, then the whole by a PMD elsewhere: 512 in Mapped. */
	struct mm_struct *b = test_mm_create(test, TEST_MM_NO_LEAK_CHECK);
	file_mapped = nr_file_mapped_pages();
	KUNIT_ASSERT_EQ(test, do_mmap_file(b, f, BASE, HPAGE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(b, BASE + 8), 7ull);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(b, BASE), head);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - file_mapped, HPAGE_PMD_NR - 1);
	test_mm_destroy(test, b);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), file_mapped);
	KUNIT_EXPECT_NE(test, test_mm_write_u64(a, BASE + HPAGE / 2, 9), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 300 * PAGE_SIZE), 300ul << 16);
	KUNIT_EXPECT_EQ(test, *shmem_thp_pmd_mapcount_ptr(head), 0l);
	case_end(test, f, a);
}

/* A hole of one page punched inside a mapped huge page splits it: the
 * page in the hole goes and reads zeros, the other 511 stay as pages of
 * their own with their bytes, through the mapping as through the cache. */
static void punch_inside_splits(struct kunit *test)
{
	struct mm_struct *a;
	unsigned long thps;
	struct file *f = filled_huge_file(test, &a, &thps);
	KUNIT_ASSERT_TRUE(test, is_huge(cache_page(f, 0)));
	KUNIT_ASSERT_EQ(test, do_mmap_file(a, f, BASE, HPAGE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i += 100)
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + i * PAGE_SIZE + 16), i << 16 | 2);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(a, BASE), compound_head(cache_page(f, 0)));
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 100 * PAGE_SIZE, PAGE_SIZE),
			0l);
	KUNIT_EXPECT_EQ(test, nr_shmem_thps(), thps);
	KUNIT_EXPECT_NULL(test, cache_page(f, 100));
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, HPAGE_PMD_NR - 1);
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i += 99) {
		if (i == 100)
			continue;
		struct page *p = cache_page(f, i);
		KUNIT_EXPECT_TRUE(test, p && !is_huge(p) && compound_head(p) == p && page_ref_count(p) >= 1);
		KUNIT_EXPECT_EQ(test, word_at(f, i, 7), i << 16 | 7);
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + i * PAGE_SIZE + 24), i << 16 | 3);
	}
	KUNIT_EXPECT_NULL(test, test_mm_pmd_page(a, BASE)); /* split: by PTEs now */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 100 * PAGE_SIZE + 8), 0ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 101 * PAGE_SIZE + 8), 101ull << 16 | 1);
	case_end(test, f, a);
}

/* A MAP_PRIVATE mapping's read maps the huge page by a read-only PMD
 * (Linux 6.1's do_read_fault -> filemap_map_pmd -> do_set_pmd); a write
 * splits it and copies one page, leaving the file alone, and the others
 * come back by PTEs; mprotect never makes the PMD writable; fork leaves
 * it to the child's faults; a hole punched inside unmaps the file's pages
 * from it too, so the split goes ahead, and the copy stays. In every
 * pte_reclaim mode. */
static void private_mapping_pmd_then_copy(struct kunit *test)
{
	struct mm_struct *a;
	unsigned long thps;
	struct file *f = filled_huge_file(test, &a, &thps);
	struct page *head = compound_head(cache_page(f, 0));
	KUNIT_ASSERT_TRUE(test, is_huge(head));
	unsigned long pmdmapped = nr_shmem_pmdmapped(), mapped = all_vm_events(THP_FILE_MAPPED);
	unsigned long file_mapped = nr_file_mapped_pages();
	KUNIT_ASSERT_EQ(test, do_mmap_file(a, f, BASE, 2 * HPAGE, RW, MAP_PRIVATE | MAP_FIXED, 0), BASE);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 40 * PAGE_SIZE + 8), 40ul << 16 | 1);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(a, BASE), head);
	KUNIT_EXPECT_EQ(test, nr_shmem_pmdmapped() - pmdmapped, 1ul);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_FILE_MAPPED) - mapped, 1ul);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - file_mapped, HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, get_mm_counter(a, MM_SHMEMPAGES), HPAGE_PMD_NR);
	/* mprotect of the whole PMD, away and back: still read-only, so the
	 * write below copies. */
	KUNIT_EXPECT_EQ(test, do_mprotect(a, BASE, HPAGE, PROT_READ), 0);
	KUNIT_EXPECT_EQ(test, do_mprotect(a, BASE, HPAGE, RW), 0);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(a, BASE), head);
	/* The write: the PMD goes, one page is copied. */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(a, BASE + 41 * PAGE_SIZE + 8, 0xc0), 0);
	KUNIT_EXPECT_NULL(test, test_mm_pmd_page(a, BASE));
	KUNIT_EXPECT_NE(test, pte_pfn(test_mm_pte(a, BASE + 41 * PAGE_SIZE)), page_to_pfn(head + 41));
	KUNIT_EXPECT_EQ(test, word_at(f, 41, 1), 41ul << 16 | 1);
	KUNIT_EXPECT_EQ(test, nr_shmem_pmdmapped(), pmdmapped);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), file_mapped);
	KUNIT_EXPECT_EQ(test, get_mm_counter(a, MM_SHMEMPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(a, MM_ANONPAGES), 1ul);
	KUNIT_EXPECT_EQ(test, *shmem_thp_pmd_mapcount_ptr(head), 0l);
	/* The rest reads the file by PTEs. */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 40 * PAGE_SIZE + 8), 40ul << 16 | 1);
	KUNIT_EXPECT_EQ(test, pte_pfn(test_mm_pte(a, BASE + 40 * PAGE_SIZE)), page_to_pfn(head + 40));
	/* fork, with an anon_vma now (so the VMA is copied, Linux's
	 * vma_needs_copy): a second huge page's PMD is left to the child's
	 * faults, which map it again; the copy is the child's too. */
	fill(test, f, HPAGE_PMD_NR);
	struct page *head2 = compound_head(cache_page(f, HPAGE_PMD_NR));
	KUNIT_ASSERT_TRUE(test, is_huge(head2));
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + HPAGE + 8), (u64)HPAGE_PMD_NR << 16 | 1);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(a, BASE + HPAGE), head2);
	struct mm_struct *b;
	KUNIT_ASSERT_EQ(test, dup_mm(a, &b), 0);
	KUNIT_EXPECT_NULL(test, test_mm_pmd_page(b, BASE + HPAGE));
	/* the parent's PTE-mapped cache pages, not the PMD's 512 */
	KUNIT_EXPECT_EQ(test, get_mm_counter(b, MM_SHMEMPAGES), get_mm_counter(a, MM_SHMEMPAGES) - HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(b, BASE + 41 * PAGE_SIZE + 8), 0xc0ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(b, BASE + HPAGE + 3 * PAGE_SIZE + 8), (u64)(HPAGE_PMD_NR + 3) << 16 | 1);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(b, BASE + HPAGE), head2);
	KUNIT_EXPECT_EQ(test, *shmem_thp_pmd_mapcount_ptr(head2), 2l);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(b), 0ul);
	mmput(b);
	KUNIT_EXPECT_EQ(test, *shmem_thp_pmd_mapcount_ptr(head2), 1l);
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 200 * PAGE_SIZE, PAGE_SIZE),
			0l);
	KUNIT_EXPECT_EQ(test, nr_shmem_thps(), thps + 1); /* the first split, the second whole */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 41 * PAGE_SIZE + 8), 0xc0ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 40 * PAGE_SIZE + 8), 40ul << 16 | 1);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 200 * PAGE_SIZE + 8), 0ull);
	case_end(test, f, a);
}

/* A huge page someone holds cannot be split: a hole punched in it is
 * zeroed in place and all 512 pages stay, still one huge page. */
static void pinned_is_zeroed_not_split(struct kunit *test)
{
	struct mm_struct *a;
	unsigned long thps;
	struct file *f = filled_huge_file(test, &a, &thps);
	struct page *pin = filemap_get_folio(f->f_mapping, 300);
	KUNIT_ASSERT_TRUE(test, is_huge(pin));
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 10 * PAGE_SIZE,
					    3 * PAGE_SIZE),
			0l);
	KUNIT_EXPECT_EQ(test, nr_shmem_thps() - thps, 1ul);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, word_at(f, 9, 5), 9ul << 16 | 5);
	KUNIT_EXPECT_EQ(test, word_at(f, 10, 5), 0ull);
	KUNIT_EXPECT_EQ(test, word_at(f, 12, 511), 0ull);
	KUNIT_EXPECT_EQ(test, word_at(f, 13, 5), 13ul << 16 | 5);
	/* Truncated inside it while still held: zeroed past the end, kept. */
	KUNIT_EXPECT_EQ(test, test_set_size(f, 200 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, word_at(f, 250, 1), 0ull);
	KUNIT_EXPECT_EQ(test, word_at(f, 199, 1), 199ul << 16 | 1);
	put_page(pin);
	/* Unheld, the next truncate inside splits it and frees the rest. */
	KUNIT_EXPECT_EQ(test, test_set_size(f, 100 * PAGE_SIZE + 5), 0);
	KUNIT_EXPECT_EQ(test, nr_shmem_thps(), thps);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 101ul);
	KUNIT_EXPECT_EQ(test, word_at(f, 99, 2), 99ul << 16 | 2);
	case_end(test, f, a);
}

/* The rules of shmem_is_huge, each seen as the page a write fault makes. */
static bool fault_makes_huge(struct kunit *test, struct mm_struct *mm, struct file *f, unsigned long index)
{
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, BASE + index * PAGE_SIZE, 1), 0);
	return is_huge(cache_page(f, index));
}

static void within_size_advise_never_deny_force(struct kunit *test)
{
	struct file *f = huge_file(test, "huge=within_size");
	struct mm_struct *a = test_mm_create(test, 0);
	struct super_block *sb = f->f_inode->i_sb;
	KUNIT_ASSERT_EQ(test, test_set_size(f, HPAGE + HPAGE / 2), 0); /* 1.5 huge pages */
	KUNIT_ASSERT_EQ(test, do_mmap_file(a, f, BASE, 4 * HPAGE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
	/* within_size: the first 2 MiB lies inside i_size, the second not. */
	KUNIT_EXPECT_TRUE(test, fault_makes_huge(test, a, f, 3));
	KUNIT_EXPECT_FALSE(test, fault_makes_huge(test, a, f, HPAGE_PMD_NR + 3));
	struct kstat st;
	KUNIT_EXPECT_EQ(test, vfs_getattr(&f->f_path, &st), 0);
	KUNIT_EXPECT_EQ(test, st.blksize, (long)HPAGE); /* index 0's 2 MiB fits */
	/* ...unless the mapping asks (MADV_HUGEPAGE), as advise. */
	KUNIT_ASSERT_EQ(test, test_set_size(f, 4 * HPAGE), 0);
	KUNIT_ASSERT_EQ(test, do_madvise(a, BASE + 3 * HPAGE, HPAGE, MADV_NOHUGEPAGE), 0);
	KUNIT_EXPECT_FALSE(test, fault_makes_huge(test, a, f, 3 * HPAGE_PMD_NR));
	KUNIT_EXPECT_EQ(test, test_set_size(f, HPAGE), 0);
	SHMEM_SB(sb)->huge = SHMEM_HUGE_ADVISE;
	KUNIT_ASSERT_EQ(test, test_set_size(f, 4 * HPAGE), 0);
	KUNIT_EXPECT_EQ(test, vfs_getattr(&f->f_path, &st), 0);
	KUNIT_EXPECT_EQ(test, st.blksize, (long)PAGE_SIZE);
	KUNIT_EXPECT_FALSE(test, fault_makes_huge(test, a, f, 2 * HPAGE_PMD_NR));
	KUNIT_ASSERT_EQ(test, do_madvise(a, BASE + HPAGE, HPAGE, MADV_HUGEPAGE), 0);
	KUNIT_EXPECT_TRUE(test, fault_makes_huge(test, a, f, HPAGE_PMD_NR + 7));
	/* never, and force over it; deny over always. */
	KUNIT_EXPECT_EQ(test, test_set_size(f, 0), 0);
	KUNIT_ASSERT_EQ(test, test_set_size(f, 4 * HPAGE), 0);
	SHMEM_SB(sb)->huge = SHMEM_HUGE_NEVER;
	KUNIT_EXPECT_FALSE(test, fault_makes_huge(test, a, f, HPAGE_PMD_NR)); /* MADV_HUGEPAGE too */
	shmem_huge_set(SHMEM_HUGE_FORCE);
	KUNIT_EXPECT_TRUE(test, fault_makes_huge(test, a, f, 0));
	KUNIT_EXPECT_FALSE(test, fault_makes_huge(test, a, f, 3 * HPAGE_PMD_NR)); /* MADV_NOHUGEPAGE wins */
	SHMEM_SB(sb)->huge = SHMEM_HUGE_ALWAYS;
	shmem_huge_set(SHMEM_HUGE_DENY);
	KUNIT_EXPECT_FALSE(test, fault_makes_huge(test, a, f, 2 * HPAGE_PMD_NR));
	KUNIT_EXPECT_EQ(test, vfs_getattr(&f->f_path, &st), 0);
	KUNIT_EXPECT_EQ(test, st.blksize, (long)PAGE_SIZE);
	case_end(test, f, a);
}

/* A write(2) over a huge=always file's hole makes a huge page unless a
 * page is in its 2 MiB already, or size= has no room for 512 pages (then
 * 4 KiB ones, as Linux falls back). */
static void write_falls_back_where_it_must(struct kunit *test)
{
	struct file *f = huge_file(test, "huge=always,size=3m");
	struct mm_struct *a = test_mm_create(test, 0);
	long long pos = 5 * PAGE_SIZE;
	u64 v = 42;
	KUNIT_EXPECT_EQ(test, kernel_write(f, &v, sizeof(v), &pos), (long)sizeof(v));
	KUNIT_EXPECT_TRUE(test, is_huge(cache_page(f, 5)));
	pos = (long long)HPAGE + 5 * PAGE_SIZE; /* 1 MiB left of size=: too little */
	KUNIT_EXPECT_EQ(test, kernel_write(f, &v, sizeof(v), &pos), (long)sizeof(v));
	KUNIT_EXPECT_FALSE(test, is_huge(cache_page(f, HPAGE_PMD_NR + 5)));
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, HPAGE_PMD_NR + 1);
	case_end(test, f, a);
}

/* shmem_enabled: Linux's six words, the one in force in brackets; it
 * sets the internal instance's huge= (memfd's pages), but not with deny
 * or force. */
static void shmem_enabled_sets_the_internal_instance(struct kunit *test)
{
	test_set_shmem_huge(test, READ_ONCE(shmem_huge));
	struct super_block *sb = shmem_internal_sb();
	KUNIT_ASSERT_NOT_NULL(test, sb);
	shmem_huge_set(SHMEM_HUGE_WITHIN_SIZE);
	KUNIT_EXPECT_EQ(test, SHMEM_SB(sb)->huge, SHMEM_HUGE_WITHIN_SIZE);
	shmem_huge_set(SHMEM_HUGE_DENY);
	KUNIT_EXPECT_EQ(test, SHMEM_SB(sb)->huge, SHMEM_HUGE_WITHIN_SIZE);
	KUNIT_EXPECT_EQ(test, shmem_huge, SHMEM_HUGE_DENY);
	shmem_huge_set(SHMEM_HUGE_NEVER);
	KUNIT_EXPECT_EQ(test, SHMEM_SB(sb)->huge, SHMEM_HUGE_NEVER);
}

static long sys6(unsigned long nr, unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3,
		 unsigned long a4, unsigned long a5)
{
	const unsigned long args[6] = { a0, a1, a2, a3, a4, a5 };
	return do_syscall_64(nr, args);
}

/* shmem_enabled "always" gives the internal instance huge pages: a
 * memfd's first write makes one, a shared read-only mapping maps it with
 * a PMD; once unmapped, F_SEAL_WRITE waits for a pin on any of its pages
 * (-EBUSY while one is held) and then seals (Linux's memfd_tag_pins
 * counts the 512 cache references of a huge page). */
static void memfd_huge_page_and_write_seal(struct kunit *test)
{
	test_set_shmem_huge(test, READ_ONCE(shmem_huge));
	shmem_huge_set(SHMEM_HUGE_ALWAYS);
	test_mm_enter_space(test, UBASE, 1);
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)UBASE, "thp", 4), 0);
	long fd = sys6(__NR_memfd_create, UBASE, MFD_ALLOW_SEALING, 0, 0, 0, 0);
	KUNIT_ASSERT_GE(test, fd, 0l);
	KUNIT_EXPECT_EQ(test, sys6(__NR_ftruncate, (unsigned long)fd, HPAGE, 0, 0, 0, 0), 0l);
	struct file *f = fget(current->files, (unsigned int)fd);
	KUNIT_ASSERT_NOT_NULL(test, f);
	long long pos = 3 * PAGE_SIZE;
	u64 v = 0x33;
	KUNIT_EXPECT_EQ(test, kernel_write(f, &v, sizeof(v), &pos), (long)sizeof(v));
	struct page *p = cache_page(f, 3);
	KUNIT_ASSERT_TRUE(test, is_huge(p));
	struct page *head = compound_head(p);
	KUNIT_EXPECT_EQ(test, sys6(__NR_mmap, BASE, HPAGE, PROT_READ, MAP_SHARED | MAP_FIXED, (unsigned long)fd, 0),
			(long)BASE);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(current->mm, BASE + 3 * PAGE_SIZE), 0x33ull);
	KUNIT_EXPECT_PTR_EQ(test, test_mm_pmd_page(current->mm, BASE), head);
	/* Linux 6.1: a shared mapping, even read-only, refuses the seal. */
	KUNIT_EXPECT_EQ(test, sys6(__NR_fcntl, (unsigned long)fd, F_ADD_SEALS, F_SEAL_WRITE, 0, 0, 0), (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, sys6(__NR_munmap, BASE, HPAGE, 0, 0, 0, 0), 0l);
	get_page(head + 100); /* a pin */
	KUNIT_EXPECT_EQ(test, sys6(__NR_fcntl, (unsigned long)fd, F_ADD_SEALS, F_SEAL_WRITE, 0, 0, 0), (long)-EBUSY);
	put_page(head + 100);
	KUNIT_EXPECT_EQ(test, sys6(__NR_fcntl, (unsigned long)fd, F_ADD_SEALS, F_SEAL_WRITE, 0, 0, 0), 0l);
	pos = 0;
	KUNIT_EXPECT_EQ(test, kernel_write(f, &v, sizeof(v), &pos), (long)-EPERM);
	fput(f);
	KUNIT_EXPECT_EQ(test, sys6(__NR_close, (unsigned long)fd, 0, 0, 0, 0, 0), 0l);
}

static struct kunit_case shmem_thp_cases[] = {
	KUNIT_CASE_PARAM(always_one_huge_page_two_mms, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(punch_inside_splits, pte_reclaim_modes_gen_params),
	KUNIT_CASE(gup_madvise_mprotect),
	KUNIT_CASE_PARAM(private_mapping_pmd_then_copy, pte_reclaim_modes_gen_params),
	KUNIT_CASE(pinned_is_zeroed_not_split),
	KUNIT_CASE(within_size_advise_never_deny_force),
	KUNIT_CASE(write_falls_back_where_it_must),
	KUNIT_CASE(shmem_enabled_sets_the_internal_instance),
	KUNIT_CASE(memfd_huge_page_and_write_seal),
	{}
};

static struct kunit_suite shmem_thp_suite = {
	.name = "shmem_thp",
	.test_cases = shmem_thp_cases,
};
kunit_test_suite(shmem_thp_suite);
