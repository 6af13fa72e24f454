/* Private file mappings as Linux's (mm/filemap_fault.c): a read maps the
 * file's page-cache page itself, read-only, counted as a file page
 * (_mapcount, Mapped, MM_SHMEMPAGES); the process sees the file's later
 * writes there until its own first write, which maps an anonymous copy
 * (MM_ANONPAGES); get_user_pages for writing copies too, mprotect
 * never makes the cache's page writable, and a migration leaves it where
 * it is (-EBUSY: mmlab moves anonymous pages only). A hole punched unmaps the cache
 * pages and keeps the copies, a truncate unmaps both (even_cows); fork
 * shares the cache pages as they are, mremap moves them as they are;
 * fault-around maps the present
 * pages of the 64 KiB window around a read, and nothing else. Each case
 * runs in every pte_reclaim mode where page tables fill and empty, with
 * tests/test_mm.h's leak checks (pages, slab objects, page tables, the
 * tables' counts) when it ends. */
#include "tests/kunit.h"
#include "tests/test_file.h"
#include "tests/test_mm.h"
#include "fs/fs.h"
#include "fs/init.h"
#include "mm/filemap.h"
#include "mm/gup.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/migrate.h"
#include "mm/mmap_lock.h"
#include "mm/numa.h"
#include "mm/mremap.h"
#include "mm/page_alloc.h"
#include "mm/pte_ref.h"
#include "mm/rmap.h"
#include "mm/shmem.h"

#define BASE 0x0000350000000000ul  /* a PGD entry of its own */
#define BASE2 0x0000358000000000ul /* another mapping of the same file */
#define PATH "/tmp/filemap_private_test"

/* ---- helpers ---- */

/* The file's page at index (a reference dropped at once: the file keeps
 * it while the case looks), or NULL. */
static struct page *cache_page(struct file *f, unsigned long index)
{
	struct page *page = filemap_get_folio(f->f_mapping, index);
	if (page)
		put_page(page);
	return page;
}

/* The page a present PTE maps at addr, or NULL. */
static struct page *mapped_page(struct mm_struct *mm, unsigned long addr)
{
	pte_t pte = test_mm_pte(mm, addr);
	return pte_present(pte) ? pfn_to_page(pte_pfn(pte)) : NULL;
}

static bool mapped_at(struct mm_struct *mm, unsigned long addr) { return !pte_none(test_mm_pte(mm, addr)); }

/* One word written into the file at (page, word) by write(2). */
static void file_write_word(struct kunit *test, struct file *f, unsigned long page, unsigned long word, u64 v)
{
	long long pos = (long long)(page * PAGE_SIZE + word * 8);
	KUNIT_ASSERT_EQ(test, kernel_write(f, &v, sizeof(v), &pos), (long)sizeof(v));
}

/* Whether addr in mm maps f's page at index itself: present, read-only,
 * the cache's pfn, a file page. */
static bool maps_cache_page(struct mm_struct *mm, unsigned long addr, struct file *f, unsigned long index)
{
	struct page *page = mapped_page(mm, addr), *cached = cache_page(f, index);
	return page && page == cached && !pte_write(test_mm_pte(mm, addr)) && !PageAnon(page);
}

/* Whether addr in mm maps an anonymous page of its own (not f's page at
 * index), writable. */
static bool maps_own_copy(struct mm_struct *mm, unsigned long addr, struct file *f, unsigned long index)
{
	struct page *page = mapped_page(mm, addr);
	return page && page != cache_page(f, index) && PageAnon(page) && pte_write(test_mm_pte(mm, addr)) &&
	       page_mapcount(page) == 1;
}

/* A 4-page file mapped private at BASE, one page per fault: page 0 read
 * (the cache's page mapped), page 1 written (0x11 in its copy). */
static struct file *read_one_write_one(struct kunit *test, struct mm_struct **mm)
{
	test_set_fault_around(test, PAGE_SIZE);
	struct file *f = test_file_mapped(test, PATH, mm, BASE, 4, MAP_PRIVATE);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(*mm, BASE), test_file_word(0, 0));
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(*mm, BASE + PAGE_SIZE, 0x11), 0);
	return f;
}

/* ---- cases ---- */

/* A read maps the cache page (same pfn, read-only, counted as a file
 * page: Mapped, MM_SHMEMPAGES); write(2) to the file shows through it;
 * the first write through the mapping copies the page (anonymous,
 * writable, MM_ANONPAGES; the cache page loses the mapping), and later
 * writes to the file no longer show. A write to an untouched page copies
 * at once (do_cow_fault); get_user_pages(FOLL_WRITE) copies as a write
 * does; mprotect back to writable leaves the cache page read-only. */
static void read_maps_the_cache_page_write_copies(struct kunit *test)
{
	test_set_fault_around(test, PAGE_SIZE); /* one page per fault: exact counts */
	struct mm_struct *mm;
	unsigned long mapped_before = nr_file_mapped_pages();
	struct file *f = test_file_mapped(test, PATH, &mm, BASE, 8, MAP_PRIVATE);
	unsigned long file_before = nr_file_pages(), anon_before = nr_anon_pages();
	unsigned long a2 = BASE + 2 * PAGE_SIZE;

	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, a2 + 8), test_file_word(2, 1));
	KUNIT_EXPECT_TRUE(test, maps_cache_page(mm, a2, f, 2));
	KUNIT_EXPECT_EQ(test, page_mapcount(cache_page(f, 2)), 1);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 1ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - mapped_before, 1ul);
	KUNIT_EXPECT_EQ(test, nr_file_pages(), file_before);

	/* The file's change shows: the mapping is the cache's page. */
	file_write_word(test, f, 2, 5, 0x5555);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, a2 + 5 * 8), 0x5555ull);

	/* The first write copies. */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, a2 + 7 * 8, 0x7777), 0);
	KUNIT_EXPECT_TRUE(test, maps_own_copy(mm, a2, f, 2));
	KUNIT_EXPECT_TRUE(test, pte_dirty(test_mm_pte(mm, a2)));
	KUNIT_EXPECT_EQ(test, page_mapcount(cache_page(f, 2)), 0);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 1ul);
	KUNIT_EXPECT_EQ(test, nr_anon_pages() - anon_before, 1ul);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), mapped_before);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, a2 + 5 * 8), 0x5555ull); /* copied */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, a2 + 7 * 8), 0x7777ull);
	KUNIT_EXPECT_EQ(test, *(u64 *)((char *)page_address(cache_page(f, 2)) + 7 * 8), test_file_word(2, 7));
	/* Later changes of the file no longer show. */
	file_write_word(test, f, 2, 5, 0x6666);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, a2 + 5 * 8), 0x5555ull);

	/* A write to a none PTE: a copy at once, the cache page unmapped. */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, BASE + 4 * PAGE_SIZE, 0x4444), 0);
	KUNIT_EXPECT_TRUE(test, maps_own_copy(mm, BASE + 4 * PAGE_SIZE, f, 4));
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 4 * PAGE_SIZE + 8), test_file_word(4, 1));
	KUNIT_EXPECT_EQ(test, page_mapcount(cache_page(f, 4)), 0);

	/* get_user_pages for writing: the fast walk refuses the read-only
	 * cache page, the locked walk's write fault copies it. */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 6 * PAGE_SIZE), test_file_word(6, 0));
	KUNIT_EXPECT_TRUE(test, maps_cache_page(mm, BASE + 6 * PAGE_SIZE, f, 6));
	struct mm_struct *was = test_mm_enter(mm);
	struct page *got = NULL;
	long n = get_user_pages_fast(BASE + 6 * PAGE_SIZE, 1, FOLL_WRITE, &got);
	test_mm_leave(mm, was);
	KUNIT_EXPECT_EQ(test, n, 1l);
	if (n == 1) {
		KUNIT_EXPECT_TRUE(test, got != cache_page(f, 6) && PageAnon(got));
		KUNIT_EXPECT_TRUE(test, got == mapped_page(mm, BASE + 6 * PAGE_SIZE));
		put_page(got);
	}
	KUNIT_EXPECT_TRUE(test, maps_own_copy(mm, BASE + 6 * PAGE_SIZE, f, 6));

	/* move_pages/mbind's move of the cache page: mmlab moves anonymous
	 * pages only, so it stays, -EBUSY (Linux moves a file page mapped
	 * once); the copy moves. */
	int nid = -1;
	for (int n = 0; n < MAX_NUMNODES && nid < 0; n++)
		if (node_has_memory(n) && n != page_to_nid(cache_page(f, 6)) && n != page_to_nid(cache_page(f, 7)))
			nid = n;
	if (nid >= 0) {
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 7 * PAGE_SIZE), test_file_word(7, 0));
		mmap_read_lock(mm);
		int moved_cache = migrate_anon_page_to_node(find_vma(mm, BASE), BASE + 7 * PAGE_SIZE, nid);
		int moved_copy = migrate_anon_page_to_node(find_vma(mm, BASE), BASE + 6 * PAGE_SIZE, nid);
		mmap_read_unlock(mm);
		KUNIT_EXPECT_EQ(test, moved_cache, -EBUSY);
		KUNIT_EXPECT_TRUE(test, maps_cache_page(mm, BASE + 7 * PAGE_SIZE, f, 7));
		KUNIT_EXPECT_EQ(test, moved_copy, nid);
		KUNIT_EXPECT_TRUE(test, maps_own_copy(mm, BASE + 6 * PAGE_SIZE, f, 6));
		KUNIT_EXPECT_EQ(test, page_to_nid(mapped_page(mm, BASE + 6 * PAGE_SIZE)), nid);
	} else {
		kunit_info(test, "one node with memory: no migration to try");
	}

	/* mprotect read-only and back: the copies are writable again (mapped
	 * once), the cache page stays read-only. */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 3 * PAGE_SIZE), test_file_word(3, 0));
	KUNIT_EXPECT_EQ(test, do_mprotect(mm, BASE, 8 * PAGE_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_FALSE(test, pte_write(test_mm_pte(mm, a2)));
	KUNIT_EXPECT_EQ(test, do_mprotect(mm, BASE, 8 * PAGE_SIZE, PROT_READ | PROT_WRITE), 0);
	KUNIT_EXPECT_TRUE(test, maps_own_copy(mm, a2, f, 2));
	KUNIT_EXPECT_TRUE(test, maps_cache_page(mm, BASE + 3 * PAGE_SIZE, f, 3));
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, BASE + 3 * PAGE_SIZE, 0x3333), 0);
	KUNIT_EXPECT_TRUE(test, maps_own_copy(mm, BASE + 3 * PAGE_SIZE, f, 3));
	KUNIT_EXPECT_EQ(test, *(u64 *)page_address(cache_page(f, 3)), test_file_word(3, 0));

	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 4ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0); /* every copy goes too (even_cows) */
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, nr_anon_pages(), anon_before);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), mapped_before);
	test_mm_destroy(test, mm);
}

/* A hole punched (fallocate) unmaps a private mapping's cache pages, so
 * it reads the hole's zeros there, and keeps its copies (Linux's
 * should_zap_page without even_cows); a truncate then unmaps both past
 * the new end (even_cows), and a touch there is SIGBUS. */
static void hole_keeps_copies_truncate_takes_them(struct kunit *test)
{
	test_set_fault_around(test, PAGE_SIZE);
	struct mm_struct *mm;
	unsigned long mapped_before = nr_file_mapped_pages();
	struct file *f = test_file_mapped(test, PATH, &mm, BASE, 8, MAP_PRIVATE);
	for (unsigned long i = 0; i < 8; i++) {
		if (i % 2)
			KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, BASE + i * PAGE_SIZE, 0x100 + i), 0);
		else
			KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + i * PAGE_SIZE), test_file_word(i, 0));
	}
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 4ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 4ul);
	/* Pages 2..5 go from the file. */
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2 * PAGE_SIZE,
					    4 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 4ul);
	KUNIT_EXPECT_FALSE(test, mapped_at(mm, BASE + 2 * PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, mapped_at(mm, BASE + 4 * PAGE_SIZE));
	KUNIT_EXPECT_TRUE(test, maps_own_copy(mm, BASE + 3 * PAGE_SIZE, f, 3));
	KUNIT_EXPECT_TRUE(test, maps_own_copy(mm, BASE + 5 * PAGE_SIZE, f, 5));
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 2ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 4ul);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - mapped_before, 2ul);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 3 * PAGE_SIZE), 0x103ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 2 * PAGE_SIZE + 8), 0ull); /* the hole */
	KUNIT_EXPECT_TRUE(test, maps_cache_page(mm, BASE + 2 * PAGE_SIZE, f, 2));   /* a new page (shmem_fault) */
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);

	/* Truncate to 3 pages: pages 3..7 unmapped, copies and cache pages
	 * alike; a touch there faults. */
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 3 * PAGE_SIZE), 0);
	for (unsigned long i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, mapped_at(mm, BASE + i * PAGE_SIZE), i < 3);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 1ul); /* page 1's copy */
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 2ul);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 5 * PAGE_SIZE), ~0ull);
	KUNIT_EXPECT_NE(test, test_mm_write_u64(mm, BASE + 4 * PAGE_SIZE, 1), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + PAGE_SIZE), 0x101ull);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES) + get_mm_counter(mm, MM_SHMEMPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), mapped_before);
	test_mm_destroy(test, mm);
}

/* fork: a private file VMA with an anon_vma has its entries copied, the
 * cache pages shared as they are (read-only, a mapping and a reference
 * more, MM_SHMEMPAGES in the child) and the copies shared copy-on-write;
 * one without an anon_vma has none copied (Linux's vma_needs_copy) and
 * the child's reads find the cache pages. Both see the file's writes at
 * the cache pages; the child's write copies for the child alone. */
static void fork_shares_cache_pages(struct kunit *test)
{
	struct mm_struct *mm;
	unsigned long mapped_before = nr_file_mapped_pages();
	struct file *f = read_one_write_one(test, &mm);
	KUNIT_ASSERT_EQ(test, do_mmap_file(mm, f, BASE2, 4 * PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_FIXED, 0), BASE2);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE2), test_file_word(0, 0));
	KUNIT_EXPECT_EQ(test, page_mapcount(cache_page(f, 0)), 2);
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(mm, &child), 0);
	KUNIT_EXPECT_TRUE(test, maps_cache_page(child, BASE, f, 0));
	KUNIT_EXPECT_FALSE(test, mapped_at(child, BASE2)); /* no anon_vma: not copied */
	KUNIT_EXPECT_EQ(test, page_mapcount(cache_page(f, 0)), 3);
	KUNIT_EXPECT_EQ(test, get_mm_counter(child, MM_SHMEMPAGES), 1ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(child, MM_ANONPAGES), 1ul);
	struct page *copy = mapped_page(mm, BASE + PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, copy && copy == mapped_page(child, BASE + PAGE_SIZE) && page_mapcount(copy) == 2);
	KUNIT_EXPECT_FALSE(test, pte_write(test_mm_pte(mm, BASE + PAGE_SIZE)));
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - mapped_before, 1ul);

	file_write_word(test, f, 0, 3, 0x3030);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(child, BASE + 3 * 8), 0x3030ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(child, BASE2 + 3 * 8), 0x3030ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 3 * 8), 0x3030ull);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(child, BASE + 4 * 8, 0x4040), 0);
	KUNIT_EXPECT_TRUE(test, maps_own_copy(child, BASE, f, 0));
	KUNIT_EXPECT_TRUE(test, maps_cache_page(mm, BASE, f, 0));
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 4 * 8), test_file_word(0, 4));
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(child, BASE + PAGE_SIZE), 0x11ull);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(child), 0ul);
	mmput(child);
	KUNIT_EXPECT_EQ(test, page_mapcount(cache_page(f, 0)), 2);
	KUNIT_EXPECT_EQ(test, page_mapcount(copy), 1);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), mapped_before);
	test_mm_destroy(test, mm);
}

/* mremap moves both kinds of entry as they are: the cache pages (the
 * same pfns, still read-only, still file pages) and the copies; the
 * counts do not move; the file's later change shows at the new address,
 * and a truncate finds the moved entries through i_mmap (the VMA keeps
 * its offset). */
static void mremap_moves_cache_pages_and_copies(struct kunit *test)
{
	struct mm_struct *mm;
	unsigned long mapped_before = nr_file_mapped_pages();
	struct file *f = read_one_write_one(test, &mm);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 2 * PAGE_SIZE), test_file_word(2, 0));
	struct page *copy = mapped_page(mm, BASE + PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, do_mremap(mm, BASE, 4 * PAGE_SIZE, 4 * PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, BASE2),
			BASE2);
	KUNIT_EXPECT_FALSE(test, mapped_at(mm, BASE));
	KUNIT_EXPECT_TRUE(test, maps_cache_page(mm, BASE2, f, 0));
	KUNIT_EXPECT_TRUE(test, maps_cache_page(mm, BASE2 + 2 * PAGE_SIZE, f, 2));
	KUNIT_EXPECT_TRUE(test, maps_own_copy(mm, BASE2 + PAGE_SIZE, f, 1));
	KUNIT_EXPECT_PTR_EQ(test, mapped_page(mm, BASE2 + PAGE_SIZE), copy);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 2ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 1ul);
	KUNIT_EXPECT_EQ(test, page_mapcount(cache_page(f, 0)), 1);
	file_write_word(test, f, 2, 1, 0x2121);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE2 + 2 * PAGE_SIZE + 8), 0x2121ull);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, BASE2 + 2 * PAGE_SIZE, 0x22), 0);
	KUNIT_EXPECT_TRUE(test, maps_own_copy(mm, BASE2 + 2 * PAGE_SIZE, f, 2));
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, PAGE_SIZE), 0);
	for (unsigned long i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, mapped_at(mm, BASE2 + i * PAGE_SIZE), i < 1);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), mapped_before);
	test_mm_destroy(test, mm);
}

/* Fault-around: a read maps the pages the cache has in the aligned
 * fault_around_bytes window around it (cut to the VMA, the PTE table and
 * i_size), read-only, never making one (the holes stay unmapped, the
 * cache's page count unchanged); a read of a hole then makes its page
 * (shmem_fault). The expectation comes from the cache itself. */
static void fault_around_maps_present_pages(struct kunit *test)
{
	test_set_fault_around(test, 65536);
	const unsigned long window = 65536 >> PAGE_SHIFT;
	struct mm_struct *mm;
	struct file *f = test_file_mapped(test, PATH, &mm, BASE, 40, MAP_PRIVATE);
	/* Holes at 20 and 21, the end inside page 26. */
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 20 * PAGE_SIZE,
					    2 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 26 * PAGE_SIZE + 100), 0);
	unsigned long nrpages = f->f_mapping->nrpages;
	unsigned long mapped_before = nr_file_mapped_pages();

	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 17 * PAGE_SIZE), test_file_word(17, 0));
	unsigned long expected = 0, wrong = 0;
	for (unsigned long i = 0; i < 40; i++) {
		bool in_window = i / window == 17 / window;
		bool want = in_window && cache_page(f, i) && filemap_index_in_size(f->f_inode, i);
		expected += want;
		if (want ? !maps_cache_page(mm, BASE + i * PAGE_SIZE, f, i) : mapped_at(mm, BASE + i * PAGE_SIZE)) {
			if (!wrong++)
				kunit_info(test, "page %lu: %s", i, want ? "not mapped" : "mapped");
		}
	}
	KUNIT_EXPECT_EQ(test, wrong, 0ul);
	KUNIT_EXPECT_EQ(test, expected, 9ul); /* 16..26 but the holes */
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), expected);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - mapped_before, expected);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, nrpages);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	/* A hole: its page made and mapped, its neighbours already are. */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 20 * PAGE_SIZE), 0ull);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, nrpages + 1);
	KUNIT_EXPECT_TRUE(test, maps_cache_page(mm, BASE + 20 * PAGE_SIZE, f, 20));
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), expected + 1);
	/* The window cut to the VMA: a mapping from file page 3 at BASE2
	 * (aligned) maps pages 3..3 + window - 1 from a read of its first. */
	KUNIT_ASSERT_EQ(test, do_mmap_file(mm, f, BASE2, 8 * PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_FIXED, 3),
			BASE2);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE2 + 4 * PAGE_SIZE), test_file_word(7, 0));
	for (unsigned long i = 0; i < 8; i++)
		KUNIT_EXPECT_TRUE(test, maps_cache_page(mm, BASE2 + i * PAGE_SIZE, f, 3 + i));
	/* A write fault does no fault-around. */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, BASE + 2 * PAGE_SIZE, 1), 0);
	KUNIT_EXPECT_FALSE(test, mapped_at(mm, BASE + 1 * PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, mapped_at(mm, BASE + 3 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES) + get_mm_counter(mm, MM_SHMEMPAGES), 0ul);
	test_mm_destroy(test, mm);
}

static struct kunit_case filemap_private_cases[] = {
	KUNIT_CASE_PARAM(read_maps_the_cache_page_write_copies, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(hole_keeps_copies_truncate_takes_them, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(fork_shares_cache_pages, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(mremap_moves_cache_pages_and_copies, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(fault_around_maps_present_pages, pte_reclaim_modes_gen_params),
	{}
};

static struct kunit_suite filemap_private_suite = {
	.name = "filemap_private",
	.test_cases = filemap_private_cases,
};
kunit_test_suite(filemap_private_suite);
