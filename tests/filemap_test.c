/* The file side of the reverse map (mm/interval_tree.h, mm/truncate.h):
 * the VMAs that map a tmpfs file or a shared anonymous object are in its
 * i_mmap after mmap, split, mremap and fork and leave it with munmap and
 * exit; truncating a file two address spaces map unmaps the pages cut off
 * from both and frees them (a touch there faults: SIGBUS for a process),
 * with the page before the end kept and its tail zeroed; a hole punched
 * (fallocate, MADV_REMOVE) reads back as zeros; Mapped and RssShmem move
 * as Linux's do; and truncate beside faults and MADV_DONTNEED on every
 * CPU, through a shared and a private mapping, leaves every PTE table's count exact (pte_ref_verify) in every
 * pte_reclaim mode. Each case's mms are tests/test_mm.h's (everything back
 * when the case ends) and its files are removed by a deferred action. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "tests/test_cpu.h"
#include "tests/test_file.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fs.h"
#include "fs/init.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/filemap.h"
#include "mm/interval_tree.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmu_context.h"
#include "mm/mremap.h"
#include "mm/page_alloc.h"
#include "kernel/syscall.h"
#include "mm/pte_ref.h"
#include "mm/shmem.h"
#include "mm/slab.h"

#define RW (PROT_READ | PROT_WRITE)
#define BASE 0x0000340000000000ul  /* a PGD entry of its own */
#define BASE2 0x0000348000000000ul /* mremap's destination, another PUD */
#define PATH "/tmp/filemap_test"

/* ---- helpers ---- */

static void close_file(void *arg) { filp_close(arg); }

static bool mapped_at(struct mm_struct *mm, unsigned long addr) { return !pte_none(test_mm_pte(mm, addr)); }

/* The VMAs of a tree meeting offsets [first, last], checked on the way:
 * in order of vm_pgoff, each node's rb_subtree_last its subtree's
 * largest last offset. *bad counts what is wrong. */
static unsigned long subtree_check(struct rb_node *rb, unsigned long *bad)
{
	if (!rb)
		return 0;
	struct vm_area_struct *v = rb_entry(rb, struct vm_area_struct, shared.rb);
	unsigned long last = v->vm_pgoff + ((v->vm_end - v->vm_start) >> PAGE_SHIFT) - 1;
	unsigned long l = subtree_check(rb->rb_left, bad), r = subtree_check(rb->rb_right, bad);
	unsigned long max = last > l ? last : l;
	max = max > r ? max : r;
	if (v->shared.rb_subtree_last != max || !v->shared.linked)
		(*bad)++;
	return max;
}

static unsigned long tree_count(struct rb_root *root, struct rw_semaphore *rwsem, unsigned long first,
				unsigned long last, unsigned long *bad)
{
	unsigned long n = 0, prev = 0;
	down_read(rwsem);
	subtree_check(root->rb_node, bad);
	for (struct rb_node *rb = rb_first(root); rb; rb = rb_next(rb)) {
		struct vm_area_struct *v = rb_entry(rb, struct vm_area_struct, shared.rb);
		if (v->vm_pgoff < prev)
			(*bad)++;
		prev = v->vm_pgoff;
	}
	/* The query answers what a scan of every node would. */
	unsigned long brute = 0;
	for (struct rb_node *rb = rb_first(root); rb; rb = rb_next(rb)) {
		struct vm_area_struct *v = rb_entry(rb, struct vm_area_struct, shared.rb);
		unsigned long vlast = v->vm_pgoff + ((v->vm_end - v->vm_start) >> PAGE_SHIFT) - 1;
		brute += v->vm_pgoff <= last && vlast >= first;
	}
	struct vm_area_struct *v;
	vma_interval_tree_foreach(v, root, first, last)
		n++;
	up_read(rwsem);
	if (n != brute)
		(*bad)++;
	return n;
}

static unsigned long file_vmas(struct file *f, unsigned long first, unsigned long last, unsigned long *bad)
{
	struct address_space *mapping = f->f_mapping;
	return tree_count(&mapping->i_mmap, &mapping->i_mmap_rwsem, first, last, bad);
}

/* The one VMA meeting offset pgoff, or NULL (none or several). */
static struct vm_area_struct *file_vma_at(struct file *f, unsigned long pgoff)
{
	struct address_space *mapping = f->f_mapping;
	struct vm_area_struct *v, *found = NULL;
	unsigned n = 0;
	down_read(&mapping->i_mmap_rwsem);
	vma_interval_tree_foreach(v, &mapping->i_mmap, pgoff, pgoff) {
		found = v;
		n++;
	}
	up_read(&mapping->i_mmap_rwsem);
	return n == 1 ? found : NULL;
}

/* ---- cases ---- */

/* mmap links the VMA, a split (mprotect) puts both pieces in at their
 * offsets, mremap moves one, fork adds the child's copies, munmap and
 * exit take them out; a private mapping is in the tree too (truncate
 * unmaps its copies), and a shared anonymous object has a tree of its
 * own. The tree's order and cached ends are checked at every step, and
 * each query against a scan of every node. */
static void i_mmap_follows_the_vmas(struct kunit *test)
{
	struct file *f = test_file_make(test, PATH);
	struct file *zero = filp_open("/dev/zero", O_RDWR, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(zero));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, close_file, zero), 0);
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	test_file_fill(test, f, 16);
	unsigned long bad = 0;
	KUNIT_EXPECT_EQ(test, file_vmas(f, 0, ~0ul, &bad), 0ul);
	KUNIT_ASSERT_EQ(test, do_mmap_file(mm, f, BASE, 16 * PAGE_SIZE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
	KUNIT_EXPECT_EQ(test, file_vmas(f, 0, ~0ul, &bad), 1ul);
	KUNIT_EXPECT_EQ(test, file_vmas(f, 16, ~0ul, &bad), 0ul);
	/* Split in three. */
	KUNIT_EXPECT_EQ(test, do_mprotect(mm, BASE + 4 * PAGE_SIZE, 4 * PAGE_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_EQ(test, file_vmas(f, 0, ~0ul, &bad), 3ul);
	struct vm_area_struct *mid = file_vma_at(f, 5);
	KUNIT_ASSERT_NOT_NULL(test, mid);
	KUNIT_EXPECT_EQ(test, mid->vm_start, BASE + 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, mid->vm_end, BASE + 8 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, file_vmas(f, 3, 4, &bad), 2ul);
	/* Back to one protection: the pieces merge again (the same file at
	 * offsets that follow on, as Linux's vma_merge): one VMA in the tree. */
	KUNIT_EXPECT_EQ(test, do_mprotect(mm, BASE + 4 * PAGE_SIZE, 4 * PAGE_SIZE, RW), 0);
	KUNIT_EXPECT_EQ(test, file_vmas(f, 0, ~0ul, &bad), 1ul);
	/* mremap the tail piece elsewhere: same offsets, new addresses. */
	struct mm_struct *was = test_mm_enter(mm);
	const unsigned long args[6] = { BASE + 8 * PAGE_SIZE, 8 * PAGE_SIZE, 8 * PAGE_SIZE,
					MREMAP_MAYMOVE | MREMAP_FIXED, BASE2 };
	long moved = do_syscall_64(__NR_mremap, args);
	test_mm_leave(mm, was);
	KUNIT_EXPECT_EQ(test, moved, (long)BASE2);
	struct vm_area_struct *tail = file_vma_at(f, 10);
	KUNIT_ASSERT_NOT_NULL(test, tail);
	KUNIT_EXPECT_EQ(test, tail->vm_start, BASE2);
	KUNIT_EXPECT_EQ(test, tail->vm_pgoff, 8ul);
	KUNIT_EXPECT_EQ(test, file_vmas(f, 0, ~0ul, &bad), 2ul); /* the head stayed */
	/* A private mapping of offsets 2..5. */
	unsigned long p = do_mmap_file(mm, f, 0, 4 * PAGE_SIZE, PROT_READ, MAP_PRIVATE, 2);
	KUNIT_ASSERT_LT(test, p, TASK_SIZE);
	KUNIT_EXPECT_EQ(test, file_vmas(f, 0, ~0ul, &bad), 3ul);
	KUNIT_EXPECT_EQ(test, file_vmas(f, 6, 7, &bad), 1ul);
	/* fork: every VMA twice. */
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(mm, &child), 0);
	KUNIT_EXPECT_EQ(test, file_vmas(f, 0, ~0ul, &bad), 6ul);
	KUNIT_EXPECT_EQ(test, file_vmas(f, 10, 10, &bad), 2ul);
	/* The parent unmaps everything; the child's stay until it goes. */
	KUNIT_EXPECT_EQ(test, do_munmap(mm, BASE, 8 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, BASE2, 8 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, p, 4 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, file_vmas(f, 0, ~0ul, &bad), 3ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(child), 0ul);
	mmput(child);
	KUNIT_EXPECT_EQ(test, file_vmas(f, 0, ~0ul, &bad), 0ul);
	/* Shared anonymous memory: the tree of its object.s file. */
	unsigned long a = do_mmap(mm, 0, 8 * PAGE_SIZE, RW, MAP_SHARED | MAP_ANONYMOUS);
	KUNIT_ASSERT_LT(test, a, TASK_SIZE);
	struct shmem_object *obj = find_vma(mm, a)->vm_shm;
	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_EXPECT_EQ(test, tree_count(&obj->mapping->i_mmap, &obj->mapping->i_mmap_rwsem, 0, ~0ul, &bad), 1ul);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, a + 2 * PAGE_SIZE, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, tree_count(&obj->mapping->i_mmap, &obj->mapping->i_mmap_rwsem, 0, ~0ul, &bad), 2ul);
	KUNIT_EXPECT_EQ(test, tree_count(&obj->mapping->i_mmap, &obj->mapping->i_mmap_rwsem, 2, 2, &bad), 0ul);
	/* /dev/zero's mmap method replaces the file (shmem_zero_setup for a
	 * shared mapping, none for a private one): the VMA ends in its
	 * object's tree or in none, never in the device's. */
	unsigned long zs = do_mmap_file(mm, zero, 0, 2 * PAGE_SIZE, RW, MAP_SHARED, 0);
	unsigned long zp = do_mmap_file(mm, zero, 0, 2 * PAGE_SIZE, RW, MAP_PRIVATE, 0);
	KUNIT_ASSERT_LT(test, zs, TASK_SIZE);
	KUNIT_ASSERT_LT(test, zp, TASK_SIZE);
	struct shmem_object *zobj = find_vma(mm, zs)->vm_shm;
	KUNIT_ASSERT_NOT_NULL(test, zobj);
	KUNIT_EXPECT_EQ(test, tree_count(&zobj->mapping->i_mmap, &zobj->mapping->i_mmap_rwsem, 0, ~0ul, &bad), 1ul);
	KUNIT_EXPECT_FALSE(test, vma_in_i_mmap(find_vma(mm, zp)));
	KUNIT_EXPECT_EQ(test, file_vmas(zero, 0, ~0ul, &bad), 0ul);
	KUNIT_EXPECT_EQ(test, bad, 0ul);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
	test_mm_destroy(test, mm);
}

/* A file two address spaces map shared, every page touched in both:
 * Mapped counts each page once, RssShmem each mapping. Truncated to 3
 * pages and 100 bytes, both lose pages 4..7 (their PTEs none, a touch
 * faults), keep 0..3 with page 3's tail zeroed, and the pages cut off are
 * out of the page cache and freed (the leak check); grown again, the
 * file reads zeros past the old end. */
static void truncate_unmaps_every_mm(struct kunit *test)
{
	struct mm_struct *a;
	struct file *f = test_file_mapped(test, PATH, &a, BASE, 8, MAP_SHARED);
	unsigned long file_before = nr_file_pages(), mapped_before = nr_file_mapped_pages();
	struct mm_struct *b;
	KUNIT_ASSERT_EQ(test, dup_mm(a, &b), 0);
	for (unsigned long i = 0; i < 8; i++) {
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + i * PAGE_SIZE + 8), i << 16 | 1);
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(b, BASE + i * PAGE_SIZE + 16), i << 16 | 2);
	}
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - mapped_before, 8ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(a, MM_SHMEMPAGES), 8ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(b, MM_SHMEMPAGES), 8ul);

	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 3 * PAGE_SIZE + 100), 0);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 4ul);
	KUNIT_EXPECT_EQ(test, file_before - nr_file_pages(), 4ul);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - mapped_before, 4ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(a, MM_SHMEMPAGES), 4ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(b, MM_SHMEMPAGES), 4ul);
	for (unsigned long i = 0; i < 8; i++) {
		KUNIT_EXPECT_EQ(test, mapped_at(a, BASE + i * PAGE_SIZE), i < 4);
		KUNIT_EXPECT_EQ(test, mapped_at(b, BASE + i * PAGE_SIZE), i < 4);
	}
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 5 * PAGE_SIZE), ~0ull);  /* past the end */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(b, BASE + 4 * PAGE_SIZE), ~0ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(b, BASE + 3 * PAGE_SIZE + 88), 3ul << 16 | 11); /* before the end */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 3 * PAGE_SIZE + 200), 0ull);          /* the zeroed tail */
	KUNIT_EXPECT_EQ(test, pte_ref_verify(a), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(b), 0ul);

	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 8 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(a, BASE + 6 * PAGE_SIZE + 8), 0ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(b, BASE + 6 * PAGE_SIZE + 8), 0ull); /* the same new page */
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - mapped_before, 5ul);
	mmput(b);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), mapped_before);
	KUNIT_EXPECT_EQ(test, get_mm_counter(a, MM_SHMEMPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, file_before - nr_file_pages(), 8ul);
	test_mm_destroy(test, a);
}

/* A hole takes the pages it covers whole out of the file without writing
 * them, and zeroes only the parts of the pages it covers in part (Linux's
 * shmem_undo_range: partial_start, partial_end): whoever still holds such
 * a page (a get_user_pages pin, a mapping on another CPU not yet zapped)
 * goes on reading what was there, never a page cleared under it. A lone
 * page, a run of pages from a page boundary, and half a page. */
static void punch_leaves_whole_pages_unwritten(struct kunit *test)
{
	struct file *f = test_file_make(test, PATH);
	test_file_fill(test, f, 6);
	struct page *held[6];
	for (unsigned long i = 0; i < 6; i++) {
		held[i] = test_cache_page(f->f_mapping, i);
		KUNIT_ASSERT_NOT_NULL(test, held[i]);
		get_page(held[i]);
	}
	const int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, mode, PAGE_SIZE, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, mode, 3 * PAGE_SIZE, 2 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, mode, 5 * PAGE_SIZE + PAGE_SIZE / 2, PAGE_SIZE / 2), 0);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 3ul); /* 0, 2 and 5 stay */
	unsigned long wrong[6] = { 0 };
	for (unsigned long i = 0; i < 6; i++) {
		const u64 *w = page_address(held[i]);
		for (unsigned long k = 0; k < PAGE_SIZE / 8; k++) {
			bool zeroed = i == 5 && k >= PAGE_SIZE / 16;
			wrong[i] += w[k] != (zeroed ? 0 : test_file_word(i, k));
		}
		put_page(held[i]);
	}
	for (unsigned long i = 0; i < 6; i++) {
		if (wrong[i])
			kunit_info(test, "page %lu: %lu words not what the hole should leave", i, wrong[i]);
		KUNIT_EXPECT_EQ(test, wrong[i], 0ul);
	}
}

/* A hole punched in a file (fallocate) and in shared anonymous memory
 * (MADV_REMOVE) reads back as zeros in every shared mapping, the pages
 * wholly inside it gone from the file or object; MADV_REMOVE follows
 * Linux's order of checks. */
static void punch_hole_and_madv_remove(struct kunit *test)
{
	struct file *f = test_file_make(test, PATH);
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	test_file_fill(test, f, 8);
	unsigned long mapped_before = nr_file_mapped_pages();
	KUNIT_ASSERT_EQ(test, do_mmap_file(mm, f, BASE, 8 * PAGE_SIZE, RW, MAP_SHARED | MAP_FIXED, 0), BASE);
	unsigned long second = do_mmap_file(mm, f, 0, 8 * PAGE_SIZE, PROT_READ, MAP_SHARED, 0);
	KUNIT_ASSERT_LT(test, second, TASK_SIZE);
	for (unsigned long i = 0; i < 8; i++) {
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + i * PAGE_SIZE), i << 16);
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, second + i * PAGE_SIZE), i << 16);
	}
	/* [1.5 pages, 5 pages): 2..4 go, page 1's second half is zeroed. */
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 3 * PAGE_SIZE / 2,
					    7 * PAGE_SIZE / 2), 0);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 5ul);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - mapped_before, 5ul);
	for (unsigned long i = 2; i < 5; i++) {
		KUNIT_EXPECT_FALSE(test, mapped_at(mm, second + i * PAGE_SIZE));
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, second + i * PAGE_SIZE), 0ull);
		KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + i * PAGE_SIZE + 64), 0ull);
	}
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + PAGE_SIZE + 8), 1ul << 16 | 1);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, second + 3 * PAGE_SIZE / 2 + 8), 0ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 5 * PAGE_SIZE), 5ul << 16);
	/* MADV_REMOVE: -EACCES on the read-only mapping, a hole through the
	 * writable one (page 6 of the file). */
	KUNIT_EXPECT_EQ(test, do_madvise(mm, second + 6 * PAGE_SIZE, PAGE_SIZE, MADV_REMOVE), -EACCES);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, BASE + 6 * PAGE_SIZE, PAGE_SIZE, MADV_REMOVE), 0);
	KUNIT_EXPECT_FALSE(test, mapped_at(mm, second + 6 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, second + 6 * PAGE_SIZE + 8), 0ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, BASE + 7 * PAGE_SIZE + 8), 7ul << 16 | 1);
	/* Private anonymous memory: -EINVAL; a private file mapping: -EACCES. */
	unsigned long anon = do_mmap(mm, 0, 2 * PAGE_SIZE, RW, MAP_PRIVATE | MAP_ANONYMOUS);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, anon, PAGE_SIZE, MADV_REMOVE), -EINVAL);
	unsigned long priv = do_mmap_file(mm, f, 0, PAGE_SIZE, RW, MAP_PRIVATE, 0);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, priv, PAGE_SIZE, MADV_REMOVE), -EACCES);
	/* Shared anonymous memory: its object loses the pages. */
	unsigned long shmem_before = nr_shmem_pages();
	unsigned long s = do_mmap(mm, 0, 4 * PAGE_SIZE, RW, MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE);
	KUNIT_ASSERT_LT(test, s, TASK_SIZE);
	struct shmem_object *obj = find_vma(mm, s)->vm_shm;
	KUNIT_EXPECT_EQ(test, obj->mapping->nrpages, 4ul);
	for (unsigned long i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, put_user_u64(100 + i, (void *)(s + i * PAGE_SIZE)), 0);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, s + PAGE_SIZE, 2 * PAGE_SIZE, MADV_REMOVE), 0);
	KUNIT_EXPECT_EQ(test, obj->mapping->nrpages, 2ul);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages() - shmem_before, 2ul);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, s), 100ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, s + PAGE_SIZE), 0ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, s + 2 * PAGE_SIZE), 0ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, s + 3 * PAGE_SIZE), 103ull);
	KUNIT_EXPECT_EQ(test, obj->mapping->nrpages, 4ul); /* the reads made them again */
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages() - mapped_before, 4ul); /* the object's */
	test_mm_destroy(test, mm);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), mapped_before);
}

/* Truncate beside faults on every CPU: workers read and write pages of a
 * shared mapping of the file (a touch past the end faults, as expected)
 * and MADV_DONTNEED ranges of it, while this CPU truncates the file to a
 * changing size and grows it back, again and again. Afterwards no page
 * past the end is mapped, the tables' counts are exact in every
 * pte_reclaim mode, and, the file emptied and the mm gone, nothing
 * leaks. */
#define STRESS_PAGES 1024 /* two PTE tables */
#define STRESS_ROUNDS 64

/* A read or a write; past the end either faults (-EFAULT), as expected. */
static int stress_access(unsigned long addr, unsigned long index, unsigned long seed, unsigned long n)
{
	u64 v;
	if ((seed >> 24) % 2)
		(void)get_user_u64(&v, (void *)addr);
	else
		(void)put_user_u64(index << 16 | (n & 0xffff), (void *)addr);
	return 0;
}

static int stress_worker(struct test_worker *w)
{
	return test_mm_stress_worker(w, BASE, STRESS_PAGES, stress_access);
}

static struct test_crew stress_crew;

static void truncate_beside_faults(struct kunit *test, unsigned long flags)
{
	unsigned long mapped_before = nr_file_mapped_pages();
	struct mm_struct *mm;
	struct file *f = test_file_mapped(test, PATH, &mm, BASE, STRESS_PAGES, flags);
	unsigned long file_before = nr_file_pages();
	test_crew_start(test, &stress_crew, stress_worker, mm, 0, TEST_CREW_OTHER_CPUS_OR_THIS);
	/* Each step waits for the workers to make some accesses, so that
	 * every truncate and every growth meets faults (a wait on progress,
	 * not on time). */
	unsigned long size = 0;
	for (int k = 0; k < STRESS_ROUNDS; k++) {
		size = (unsigned long)(k * 389 + 17) % STRESS_PAGES;
		unsigned long p = stress_crew.progress;
		KUNIT_ASSERT_TRUE(test, TEST_WAIT_UNTIL(stress_crew.progress >= p + 64, &stress_crew.progress));
		KUNIT_EXPECT_EQ(test, test_file_set_size(f, (long)(size * PAGE_SIZE)), 0);
		if (k + 1 == STRESS_ROUNDS)
			break;
		p = stress_crew.progress;
		KUNIT_ASSERT_TRUE(test, TEST_WAIT_UNTIL(stress_crew.progress >= p + 64, &stress_crew.progress));
		KUNIT_EXPECT_EQ(test, test_file_set_size(f, STRESS_PAGES * PAGE_SIZE), 0);
	}
	test_crew_stop(&stress_crew);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &stress_crew), 0ul);
	kunit_info(test, "%lu accesses and zaps by %u workers beside %d truncates", stress_crew.progress,
		   stress_crew.n, STRESS_ROUNDS);
	KUNIT_EXPECT_GT(test, stress_crew.progress, 0ul);
	/* The last truncate left size pages: nothing past them is mapped. */
	unsigned long beyond = 0;
	for (unsigned long i = size; i < STRESS_PAGES; i++)
		beyond += mapped_at(mm, BASE + i * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, beyond, 0ul);
	KUNIT_EXPECT_LE(test, f->f_mapping->nrpages, size);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 0ul); /* a private mapping's copies */
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), mapped_before);
	KUNIT_EXPECT_EQ(test, file_before - nr_file_pages(), (unsigned long)STRESS_PAGES);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	test_mm_destroy(test, mm);
}

static void truncate_beside_faults_on_every_cpu(struct kunit *test) { truncate_beside_faults(test, MAP_SHARED); }

/* The same through a private mapping (mm/filemap_fault.c): its reads map
 * the cache's pages (fault-around too), its writes copy them, and the
 * truncates unmap both past the end. */
static void truncate_beside_private_faults_on_every_cpu(struct kunit *test)
{
	truncate_beside_faults(test, MAP_PRIVATE);
}

/* The page cache's insertion race: a worker on every CPU, released
 * together (a barrier), writes every page of a shared mapping of a file
 * that is all holes, each in its own order, so that several faults find
 * the same hole at once and each allocates a page; one page per index
 * must win (the others' freed), and every PTE must map the cache's page.
 * Then the file is truncated to nothing and grown back (holes again), for
 * another round. Nothing is left at the end. */
#define FILL_PAGES 128
#define FILL_ROUNDS 4

static int fill_worker(struct test_worker *w)
{
	unsigned long step = 2 * w->id + 1; /* odd: a permutation of the pages */
	test_crew_barrier(w);
	for (unsigned long k = 0; k < FILL_PAGES; k++) {
		unsigned long i = (k * step + w->id * 37) % FILL_PAGES;
		if (put_user_u64(i << 16 | w->id, (void *)(BASE + i * PAGE_SIZE)))
			return 1;
		test_crew_progress(w);
	}
	return 0;
}

static int fill_worker_in_mm(struct test_worker *w)
{
	kthread_use_mm(w->crew->ctx);
	int err = fill_worker(w);
	kthread_unuse_mm(w->crew->ctx);
	return err;
}

static struct test_crew fill_crew;

static void faults_fill_holes_on_every_cpu(struct kunit *test)
{
	unsigned long mapped_before = nr_file_mapped_pages();
	const struct pte_reclaim_mode_param *m = test->param_value;
	KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, m->mode), 0);
	struct file *f = test_file_make(test, PATH);
	struct mm_struct *mm = test_mm_create(test, 0);
	unsigned long file_before = nr_file_pages();
	KUNIT_ASSERT_EQ(test, do_mmap_file(mm, f, BASE, FILL_PAGES * PAGE_SIZE, RW, MAP_SHARED | MAP_FIXED, 0),
			BASE);
	for (int round = 0; round < FILL_ROUNDS; round++) {
		KUNIT_ASSERT_EQ(test, test_file_set_size(f, FILL_PAGES * PAGE_SIZE), 0);
		KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 0ul);
		test_crew_start(test, &fill_crew, fill_worker_in_mm, mm, 0, 0);
		KUNIT_EXPECT_EQ(test, test_crew_finish(test, &fill_crew), 0ul);
		/* One page per index, the one every PTE maps, holding what
		 * one of the workers wrote there. */
		unsigned long wrong = 0;
		for (unsigned long i = 0; i < FILL_PAGES; i++) {
			struct page *page = filemap_get_folio(f->f_mapping, i);
			pte_t pte = test_mm_pte(mm, BASE + i * PAGE_SIZE);
			u64 v = page ? *(u64 *)page_address(page) : 0;
			if (!page || pte_none(pte) || pte_pfn(pte) != page_to_pfn(page) || v >> 16 != i ||
			    (v & 0xffff) >= fill_crew.n) {
				if (!wrong++)
					kunit_info(test, "round %d, page %lu: %s, pte %#llx, word %#llx", round, i,
						   page ? "cached" : "not cached", (unsigned long long)pte_val(pte),
						   (unsigned long long)v);
			}
			if (page)
				put_page(page);
		}
		KUNIT_EXPECT_EQ(test, wrong, 0ul);
		KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, (unsigned long)FILL_PAGES);
		KUNIT_EXPECT_EQ(test, nr_file_pages() - file_before, (unsigned long)FILL_PAGES);
		KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), (unsigned long)FILL_PAGES);
		KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
		KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
		KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_SHMEMPAGES), 0ul);
	}
	kunit_info(test, "%d rounds of %u workers filling %d holes", FILL_ROUNDS, fill_crew.n, FILL_PAGES);
	KUNIT_EXPECT_EQ(test, nr_file_pages(), file_before);
	KUNIT_EXPECT_EQ(test, nr_file_mapped_pages(), mapped_before);
	test_mm_destroy(test, mm);
}

/* fork beside truncate: workers on the other CPUs truncate a file and
 * grow it back while this CPU writes to a private mapping of it (copies
 * the truncate unmaps: even_cows) and forks it again and again, so the
 * child's VMA is in the file's i_mmap while its entries are being copied
 * and a truncate may zap them at once. Every child's tables' counts are
 * exact (pte_ref_verify), in every pte_reclaim mode; the file emptied, no
 * private copy is left. */
#define FORK_ROUNDS 32

static int truncate_worker(struct test_worker *w)
{
	struct file *f = w->crew->ctx;
	unsigned long seed = 0x2545f4914f6cdd1dul * (w->id + 1);
	int err = 0;
	while (!test_crew_should_stop(w)) {
		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		if (test_file_set_size(f, (long)(((seed >> 33) % STRESS_PAGES) * PAGE_SIZE)) ||
		    test_file_set_size(f, STRESS_PAGES * PAGE_SIZE))
			err = 1;
		test_crew_progress(w);
		cond_resched();
	}
	return err;
}

static struct test_crew truncate_crew;

static void fork_beside_truncate_on_every_cpu(struct kunit *test)
{
	struct mm_struct *mm;
	struct file *f = test_file_mapped(test, PATH, &mm, BASE, STRESS_PAGES, MAP_PRIVATE);
	test_crew_start(test, &truncate_crew, truncate_worker, f, 0, TEST_CREW_OTHER_CPUS_OR_THIS);
	unsigned long bad = 0;
	for (int k = 0; k < FORK_ROUNDS; k++) {
		/* Copies again where the truncates took them (a write past the
		 * end of the moment faults: -EFAULT, as expected). */
		for (unsigned long i = (unsigned long)k % 7; i < STRESS_PAGES; i += 7)
			(void)test_mm_write_u64(mm, BASE + i * PAGE_SIZE, i);
		unsigned long p = truncate_crew.progress;
		struct mm_struct *child;
		KUNIT_ASSERT_EQ(test, dup_mm(mm, &child), 0);
		/* The counts are checked with no truncate running (they
		 * hold the inode's i_rwsem for writing): a zap in progress
		 * holds a walker's reference the check would count. */
		down_read(&f->f_inode->i_rwsem);
		bad += pte_ref_verify(child);
		up_read(&f->f_inode->i_rwsem);
		mmput(child);
		KUNIT_ASSERT_TRUE(test, TEST_WAIT_UNTIL(truncate_crew.progress > p, &truncate_crew.progress));
	}
	test_crew_stop(&truncate_crew);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &truncate_crew), 0ul);
	kunit_info(test, "%lu truncates beside %d forks", truncate_crew.progress, FORK_ROUNDS);
	KUNIT_EXPECT_EQ(test, bad, 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	KUNIT_EXPECT_EQ(test, test_file_set_size(f, 0), 0);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 0ul);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(mm), 0ul);
	test_mm_destroy(test, mm);
}

static struct kunit_case filemap_cases[] = {
	KUNIT_CASE(i_mmap_follows_the_vmas),
	KUNIT_CASE_PARAM(truncate_unmaps_every_mm, pte_reclaim_modes_gen_params),
	KUNIT_CASE(punch_hole_and_madv_remove),
	KUNIT_CASE(punch_leaves_whole_pages_unwritten),
	KUNIT_CASE_PARAM(truncate_beside_faults_on_every_cpu, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(truncate_beside_private_faults_on_every_cpu, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(faults_fill_holes_on_every_cpu, pte_reclaim_modes_gen_params),
	KUNIT_CASE_PARAM(fork_beside_truncate_on_every_cpu, pte_reclaim_modes_gen_params),
	{}
};

static struct kunit_suite filemap_suite = {
	.name = "filemap",
	.test_cases = filemap_cases,
};
kunit_test_suite(filemap_suite);
