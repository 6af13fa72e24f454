/* Read faults of shared file and shmem mappings fault around, as Linux
 * 6.1's do_read_fault does for every VMA with vm_ops->map_pages
 * (mm/filemap_fault.c): the pages present in the aligned
 * fault_around_bytes window around the read are mapped too (the same
 * pfns as the cache or object has, one mapping each, counted in Mapped
 * and MM_SHMEMPAGES), with the VMA's protection (writable: tmpfs needs
 * no write notification) and clean; none past i_size, the VMA or the
 * window, none for a hole, and nothing allocated. A write through such
 * an entry is the file's (read(2) sees it) and dirties the entry; a
 * truncate unmaps them. Shared anonymous memory (MAP_SHARED |
 * MAP_ANONYMOUS, /dev/zero) does the same with its object's pages; a
 * System V segment does not (Linux's shm_vm_ops has no map_pages). Each
 * case runs in every pte_reclaim mode, with tests/test_mm.h's leak checks
 * (pages, slab objects, page tables, the tables' counts) when it ends. */
#include "tests/kunit.h"
#include "tests/test_file.h"
#include "tests/test_mm.h"
#include "fs/fs.h"
#include "fs/init.h"
#include "ipc/shm.h"
#include "lib/err.h"
#include "mm/filemap.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/page_alloc.h"
#include "mm/pte_ref.h"
#include "mm/rmap.h"
#include "mm/shmem.h"

#define BASE 0x0000360000000000ul  /* a PGD entry of its own */
#define BASE2 0x0000368000000000ul /* another mapping of the same file */
#define PATH "/tmp/shmem_fault_test"
#define WINDOW_BYTES 65536ul /* Linux's default fault_around_bytes */
#define WINDOW (WINDOW_BYTES >> PAGE_SHIFT)

/* ---- helpers ---- */

static struct page *mapped_page(struct mm_struct *mm, unsigned long addr)
{
	pte_t pte = test_mm_pte(mm, addr);
	return pte_present(pte) ? pfn_to_page(pte_pfn(pte)) : NULL;
}

static bool mapped_at(struct mm_struct *mm, unsigned long addr) { return !pte_none(test_mm_pte(mm, addr)); }

static struct page *cache_page(struct file *f, unsigned long index) { return test_cache_page(f->f_mapping, index); }

/* Whether addr maps page as a shared fault-around leaves it: present,
 * writable (the VMA is), clean, a file page mapped once. */
static bool maps_shared(struct mm_struct *mm, unsigned long addr, struct page *page)
{
	pte_t pte = test_mm_pte(mm, addr);
	return page && mapped_page(mm, addr) == page && pte_write(pte) && !pte_dirty(pte) && !PageAnon(page) &&
	       page_mapcount(page) == 1;
}

/* Of the npages pages at base, how many are mapped where want(i) says
 * (want(i) the page expected there, or NULL for none) and how many are
 * wrong; the first wrong one is named. */
static unsigned long check_mapped(struct kunit *test, struct mm_struct *mm, unsigned long base, unsigned long npages,
				  struct page *(*want)(void *arg, unsigned long i), void *arg)
{
	unsigned long wrong = 0;
	for (unsigned long i = 0; i < npages; i++) {
		struct page *page = want(arg, i);
		unsigned long addr = base + i * PAGE_SIZE;
		if (page ? !maps_shared(mm, addr, page) : mapped_at(mm, addr)) {
			if (!wrong++)
				kunit_info(test, "page %lu: %s", i, page ? "not mapped as expected" : "mapped");
		}
	}
	return wrong;
}

struct file_window {
	struct file *f;
	unsigned long first, last; /* the window's page offsets */
};

/* The file's page at i if fault-around should have mapped it: in the
 * window, present, below i_size. */
static struct page *file_window_page(void *arg, unsigned long i)
{
	struct file_window *w = arg;
	if (i < w->first || i > w->last || !filemap_index_in_size(w->f->f_inode, i))
		return NULL;
	return cache_page(w->f, i);
}

/* ---- cases ---- */

/* A read of a MAP_SHARED tmpfs file maps the present pages of its window
 * (below i_size, not the holes), each once, the cache's own, writable
 * and clean, without allocating; a write through one is the file's and
 * dirties its entry; truncates unmap them, first past the new end, then
 * all. The window is cut to the VMA. */
static void shared_file_read_maps_present_neighbours(struct kunit *test)
{
	test_set_fault_around(test, WINDOW_BYTES);
	struct mm_struct *mm;
	unsigned long mapped_before = nr_file_mapped_pages();
	struct file *f = test_file_mapped(test, PATH, &mm, BASE, 40, MAP_SHARED);
	/* Holes at 20 and 21, the end inside page 26. */
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 20 * PAGE_SIZE,
					    2 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 26 * PAGE_SIZE + 100), 0);
	/* A first read in page 0's window makes the PTE table. */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE), test_file_word(0, 0));
	struct file_window w0 = { f, 0, WINDOW - 1 };
	KUNIT_EXPECT_EQ(test, check_mapped(test, mm, BASE, 40, file_window_page, &w0), 0ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), WINDOW);

	unsigned long nrpages = f->f_mapping->nrpages, free = nr_free_pages();
	unsigned long addr = BASE + 17 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, addr + 8), test_file_word(17, 1));
	KUNIT_EXPECT_EQ(test, nr_free_pages(), free); /* nothing allocated */
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, nrpages);
	unsigned long first = 17 & ~(WINDOW - 1), expected = 0;
	struct file_window w = { f, first, first + WINDOW - 1 };
	for (unsigned long i = first; i < first + WINDOW; i++)
		expected += file_window_page(&w, i) != NULL;
	KUNIT_EXPECT_EQ(test, expected, 9ul); /* 16..26 but the holes */
	struct file_window both = { f, 0, first + WINDOW - 1 };
	KUNIT_EXPECT_EQ(test, check_mapped(test, mm, BASE, 40, file_window_page, &both), 0ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), WINDOW + expected);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - mapped_before, WINDOW + expected);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);

	/* A write through a faulted-around entry: the file has it, the
	 * entry is dirty, still the same page. */
	struct page *p18 = cache_page(f, 18);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, BASE + 18 * PAGE_SIZE + 16, 0x1818), 0);
	KUNIT_EXPECT_PTR_EQ(test, mapped_page(mm, BASE + 18 * PAGE_SIZE), p18);
	KUNIT_EXPECT_TRUE(test, pte_dirty(test_mm_pte(mm, BASE + 18 * PAGE_SIZE)));
	u64 v = 0;
	long long pos = 18 * PAGE_SIZE + 16;
	KUNIT_EXPECT_EQ(test, kernel_read(f, &v, sizeof(v), &pos), (long)sizeof(v));
	KUNIT_EXPECT_EQ(test, v, 0x1818ull);

	/* A hole read: its page made and mapped. */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 20 * PAGE_SIZE), 0ull);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, nrpages + 1);
	KUNIT_EXPECT_PTR_EQ(test, mapped_page(mm, BASE + 20 * PAGE_SIZE), cache_page(f, 20));

	/* The window cut to the VMA: a 6-page mapping from file page 2 at
	 * BASE2 maps its 6 pages and nothing of the next VMA (the same
	 * file from page 8, 6 pages on). */
	KUNIT_ASSERT_EQ(test, do_mmap_file(mm, f, BASE2, 6 * PAGE_SIZE, PROT_READ | PROT_WRITE,
					   MAP_SHARED | MAP_FIXED, 2), BASE2);
	KUNIT_ASSERT_EQ(test, do_mmap_file(mm, f, BASE2 + 6 * PAGE_SIZE, 6 * PAGE_SIZE, PROT_READ | PROT_WRITE,
					   MAP_SHARED | MAP_FIXED, 8), BASE2 + 6 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE2 + 3 * PAGE_SIZE), test_file_word(5, 0));
	for (unsigned long i = 0; i < 12; i++)
		KUNIT_EXPECT_PTR_EQ(test, mapped_page(mm, BASE2 + i * PAGE_SIZE), i < 6 ? cache_page(f, 2 + i) : NULL);
	KUNIT_EXPECT_EQ(test, page_mapcount(cache_page(f, 4)), 2);

	/* A truncate to 18 pages unmaps the entries past it, then to 0 all. */
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 18 * PAGE_SIZE), 0);
	for (unsigned long i = 16; i < 40; i++)
		KUNIT_EXPECT_EQ(test, mapped_at(mm, BASE + i * PAGE_SIZE), i < 18);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
	for (unsigned long i = 0; i < 40; i++)
		KUNIT_EXPECT_FALSE(test, mapped_at(mm, BASE + i * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), mapped_before);
	test_mm_destroy(test, mm);
}

/* A write fault maps its page alone; a read with fault-around turned off
 * (a window of one page) too; a read-only mapping's fault-around entries
 * are read-only. */
static void write_fault_and_one_page_window_map_one(struct kunit *test)
{
	test_set_fault_around(test, WINDOW_BYTES);
	struct mm_struct *mm;
	struct file *f = test_file_mapped(test, PATH, &mm, BASE, 16, MAP_SHARED);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, BASE + 5 * PAGE_SIZE, 5), 0);
	for (unsigned long i = 0; i < 16; i++)
		KUNIT_EXPECT_EQ(test, mapped_at(mm, BASE + i * PAGE_SIZE), i == 5);
	KUNIT_EXPECT_TRUE(test, pte_dirty(test_mm_pte(mm, BASE + 5 * PAGE_SIZE)));
	fault_around_bytes = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 9 * PAGE_SIZE), test_file_word(9, 0));
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 2ul);
	fault_around_bytes = WINDOW_BYTES;
	KUNIT_ASSERT_EQ(test, do_mmap_file(mm, f, BASE2, 16 * PAGE_SIZE, PROT_READ, MAP_SHARED | MAP_FIXED, 0), BASE2);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE2), test_file_word(0, 0));
	for (unsigned long i = 0; i < 16; i++) {
		pte_t pte = test_mm_pte(mm, BASE2 + i * PAGE_SIZE);
		KUNIT_EXPECT_TRUE(test, pte_present(pte) && !pte_write(pte) && pte_pfn(pte) == page_to_pfn(cache_page(f, i)));
	}
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 18ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 0ul);
	test_mm_destroy(test, mm);
}

struct object_window {
	struct shmem_object *obj;
	unsigned long first, last;
};

static struct page *object_window_page(void *arg, unsigned long i)
{
	struct object_window *w = arg;
	return i >= w->first && i <= w->last ? test_cache_page(w->obj->mapping, i) : NULL;
}

static void close_file(void *f) { fput(f); }

/* Shared anonymous memory (MAP_SHARED | MAP_ANONYMOUS, then /dev/zero's):
 * after MADV_DONTNEED took the entries, a read maps the object's present
 * pages of its window and none of its holes, allocating nothing; a write
 * through one is seen at the other mapping of the object. */
static void shared_anon_read_maps_present_neighbours(struct kunit *test)
{
	const struct pte_reclaim_mode_param *m = test->param_value;
	KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, m->mode), 0);
	test_set_fault_around(test, WINDOW_BYTES);
	struct file *zero = filp_open("/dev/zero", O_RDWR, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(zero));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, close_file, zero), 0);
	struct mm_struct *mm = test_mm_create(test, 0);
	for (int round = 0; round < 2; round++) {
		/* At BASE, aligned: page 3's window is pages 0..WINDOW-1. */
		unsigned long a = round ? do_mmap_file(mm, zero, BASE, 24 * PAGE_SIZE, PROT_READ | PROT_WRITE,
						       MAP_SHARED | MAP_FIXED, 0)
					: do_mmap(mm, BASE, 24 * PAGE_SIZE, PROT_READ | PROT_WRITE,
						  MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED);
		KUNIT_ASSERT_EQ(test, a, BASE);
		struct shmem_object *obj = find_vma(mm, a)->vm_shm;
		KUNIT_ASSERT_NOT_NULL(test, obj);
		/* Pages 0..9 and 12 made (written), then unmapped. */
		for (unsigned long i = 0; i < 13; i++)
			if (i < 10 || i == 12)
				KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, a + i * PAGE_SIZE, 0x100 + i), 0);
		KUNIT_EXPECT_EQ(test, do_madvise(mm, a, 24 * PAGE_SIZE, MADV_DONTNEED), 0);
		KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 0ul);
		/* Page 20's read makes the PTE table (its window: 16..23, all holes). */
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, a + 20 * PAGE_SIZE), 0ull);
		KUNIT_EXPECT_EQ(test, obj->mapping->nrpages, 12ul);
		unsigned long free = nr_free_pages(), mapped = nr_file_mapped_pages();
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, a + 3 * PAGE_SIZE), 0x103ull);
		KUNIT_EXPECT_EQ(test, nr_free_pages(), free);
		KUNIT_EXPECT_EQ(test, obj->mapping->nrpages, 12ul);
		struct object_window w = { obj, 0, WINDOW - 1 };
		unsigned long expected = 0;
		for (unsigned long i = 0; i < WINDOW; i++)
			expected += object_window_page(&w, i) != NULL;
		KUNIT_EXPECT_EQ(test, expected, 11ul);
		KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - mapped, expected);
		KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), expected + 1);
		KUNIT_EXPECT_EQ(test, check_mapped(test, mm, a, 16, object_window_page, &w), 0ul);
		/* Written through page 7's entry, seen at a second mapping
		 * (a fork's child, which copies no entry of shared memory). */
		KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, a + 7 * PAGE_SIZE + 8, 0x77), 0);
		KUNIT_EXPECT_TRUE(test, pte_dirty(test_mm_pte(mm, a + 7 * PAGE_SIZE)));
		struct mm_struct *child;
		KUNIT_ASSERT_EQ(test, dup_mm(mm, &child), 0);
		KUNIT_EXPECT_FALSE(test, mapped_at(child, a + 7 * PAGE_SIZE));
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(child, a + 7 * PAGE_SIZE + 8), 0x77ull);
		KUNIT_EXPECT_EQ(test, get_mm_counter(child, MM_SHMEMPAGES), expected);
		KUNIT_EXPECT_EQ(test, page_mapcount(test_cache_page(obj->mapping, 7)), 2);
		KUNIT_EXPECT_EQ(test, pte_ref_verify(child), 0ul);
		mmput(child);
		KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
		KUNIT_EXPECT_EQ(test, do_munmap(mm, a, 24 * PAGE_SIZE), 0);
		KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), mapped - 1); /* page 20 was mapped before */
	}
	test_mm_destroy(test, mm);
}

/* A System V segment's read maps its page alone, present neighbours or
 * not (Linux's shm_vm_ops has no map_pages). */
static void sysv_segment_read_maps_one(struct kunit *test)
{
	const struct pte_reclaim_mode_param *m = test->param_value;
	KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, m->mode), 0);
	test_set_fault_around(test, WINDOW_BYTES);
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	long id = ksys_shmget(IPC_PRIVATE, 16 * PAGE_SIZE, IPC_CREAT | 0600);
	KUNIT_ASSERT_GE(test, id, 0l);
	unsigned long a = 0;
	KUNIT_ASSERT_EQ(test, do_shmat((int)id, 0, 0, &a), 0l);
	KUNIT_EXPECT_EQ(test, ksys_shmctl((int)id, IPC_RMID, NULL), 0l);
	for (unsigned long i = 0; i < 16; i++)
		KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, a + i * PAGE_SIZE, i), 0);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, a, 16 * PAGE_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, a + 6 * PAGE_SIZE), 6ull);
	for (unsigned long i = 0; i < 16; i++)
		KUNIT_EXPECT_EQ(test, mapped_at(mm, a + i * PAGE_SIZE), i == 6);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 1ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, ksys_shmdt(a), 0l);
	test_mm_destroy(test, mm);
}

static struct kunit_case shmem_fault_cases[] = {
	KUNIT_CASE_PARAM(shared_file_read_maps_present_neighbours, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(write_fault_and_one_page_window_map_one, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(shared_anon_read_maps_present_neighbours, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(sysv_segment_read_maps_one, pte_reclaim_modes_gen_params),
	{}
};

static struct kunit_suite shmem_fault_suite = {
	.name = "shmem_fault",
	.test_cases = shmem_fault_cases,
};
kunit_test_suite(shmem_fault_suite);
