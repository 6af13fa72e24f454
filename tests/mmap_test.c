/* The VMA layer on real address spaces (mm_alloc, real page tables and
 * pages): mmap with MAP_POPULATE, munmap, MAP_FIXED, mprotect, madvise,
 * brk and the system calls, checked through what a user sees (the mm's
 * counters, the contents of user memory through copy_*_user, errnos) and
 * through the free page count, which must come back exactly once the mm
 * is gone (each case checks it; the framework's free_pages_restored checks
 * the suite as a whole). */
#include "tests/kunit.h"
#include "mm/hugetlb.h"
#include "tests/test_mm.h"
#include "arch/x86_64/pgtable.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/rmap.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define BASE 0x0000200000000000ul /* a PGD entry of its own */

struct space {
	struct mm_struct *mm;
};

/* A fresh mm, made the current task's (faults, user copies and system
 * calls go to it) until space_destroy or the end of the case; when it
 * goes, every page and slab object (VMAs, anon_vmas) must be back
 * (tests/test_mm.h). */
static void space_init(struct kunit *test, struct space *s)
{
	s->mm = test_mm_create(test, TEST_MM_CURRENT);
	KUNIT_EXPECT_EQ(test, s->mm->mmap_base, MMAP_BASE);
	KUNIT_EXPECT_EQ(test, s->mm->map_count, 0);
}

static void space_destroy(struct kunit *test, struct space *s) { test_mm_destroy(test, s->mm); }

static long sys(unsigned long nr, unsigned long a0, unsigned long a1, unsigned long a2,
		unsigned long a3, unsigned long a4, unsigned long a5)
{
	const unsigned long args[6] = { a0, a1, a2, a3, a4, a5 };
	return do_syscall_64(nr, args);
}

static void populate_then_munmap_gives_everything_back(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	unsigned long a = do_mmap(s.mm, 0, 16 * PAGE_SIZE, RW, ANON | MAP_POPULATE);
	KUNIT_ASSERT_EQ(test, a, MMAP_BASE - 16 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 16);
	KUNIT_EXPECT_EQ(test, s.mm->total_vm, 16);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 1);
	KUNIT_EXPECT_GT(test, mm_pgtables_bytes(s.mm), 0);
	/* A hole in the middle: two VMAs, the hole's pages gone. */
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, a + 4 * PAGE_SIZE, 4 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 12);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 2);
	KUNIT_EXPECT_EQ(test, s.mm->total_vm, 12);
	/* The rest: no neighbours, so every page table goes too. */
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, a, 16 * PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 0);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 0);
	KUNIT_EXPECT_EQ(test, s.mm->total_vm, 0);
	KUNIT_EXPECT_EQ(test, s.mm->hiwater_vm, 16);
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(s.mm), 0);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 0);
	space_destroy(test, &s);
}

static void map_fixed_replaces_the_pages(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	KUNIT_ASSERT_EQ(test, do_mmap(s.mm, BASE, 8 * PAGE_SIZE, RW, ANON | MAP_FIXED | MAP_POPULATE), BASE);
	const u64 pattern = 0x5a5a5a5a12345678ull;
	for (int i = 0; i < 8; i++)
		KUNIT_ASSERT_EQ(test, put_user_u64(pattern + i, (void *)(BASE + i * PAGE_SIZE)), 0);
	/* New memory over the middle: zeroes there, the old data around it. */
	KUNIT_ASSERT_EQ(test, do_mmap(s.mm, BASE + 2 * PAGE_SIZE, 4 * PAGE_SIZE, PROT_READ, ANON | MAP_FIXED),
			BASE + 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 4);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 3);
	u64 v = 1;
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)(BASE + 3 * PAGE_SIZE)), 0);
	KUNIT_EXPECT_EQ(test, v, 0);
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)(BASE + 7 * PAGE_SIZE)), 0);
	KUNIT_EXPECT_EQ(test, v, pattern + 7);
	/* Read-only: a write fails, until mprotect allows it. */
	KUNIT_EXPECT_EQ(test, put_user_u64(1, (void *)(BASE + 3 * PAGE_SIZE)), -EFAULT);
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, BASE + 2 * PAGE_SIZE, 4 * PAGE_SIZE, RW), 0);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 1); /* merged back */
	KUNIT_EXPECT_EQ(test, put_user_u64(1, (void *)(BASE + 3 * PAGE_SIZE)), 0);
	/* And read-only again over populated pages: the PTEs lose write. */
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, BASE, 8 * PAGE_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_EQ(test, put_user_u64(1, (void *)BASE), -EFAULT);
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)BASE), 0);
	KUNIT_EXPECT_EQ(test, v, pattern);
	space_destroy(test, &s);
}

static void madvise_dontneed_and_free_give_zeroes(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	KUNIT_ASSERT_EQ(test, do_mmap(s.mm, BASE, 6 * PAGE_SIZE, RW, ANON | MAP_FIXED | MAP_POPULATE), BASE);
	KUNIT_ASSERT_EQ(test, do_mmap(s.mm, BASE + 8 * PAGE_SIZE, 2 * PAGE_SIZE, RW, ANON | MAP_FIXED), BASE + 8 * PAGE_SIZE);
	for (int i = 0; i < 6; i++)
		KUNIT_ASSERT_EQ(test, put_user_u64(0x1111 + i, (void *)(BASE + i * PAGE_SIZE)), 0);
	KUNIT_ASSERT_EQ(test, put_user_u64(0x2222, (void *)(BASE + 8 * PAGE_SIZE)), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 7);
	/* Over the hole: the mapped parts are zapped, then -ENOMEM. */
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + 4 * PAGE_SIZE, 6 * PAGE_SIZE, MADV_DONTNEED), -ENOMEM);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 4);
	u64 v = 1;
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)(BASE + 4 * PAGE_SIZE)), 0);
	KUNIT_EXPECT_EQ(test, v, 0);
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)(BASE + 8 * PAGE_SIZE)), 0);
	KUNIT_EXPECT_EQ(test, v, 0);
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)(BASE + 3 * PAGE_SIZE)), 0);
	KUNIT_EXPECT_EQ(test, v, 0x1111 + 3);
	/* MADV_FREE frees at once here. */
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE, 2 * PAGE_SIZE, MADV_FREE), 0);
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)BASE), 0);
	KUNIT_EXPECT_EQ(test, v, 0);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 2);
	/* An unmapped page faults for the kernel's copies too. */
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)(BASE + 6 * PAGE_SIZE)), -EFAULT);
	space_destroy(test, &s);
}

static void system_calls_act_on_current_mm(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	long a = sys(__NR_mmap, 0, 3 * PAGE_SIZE, RW, ANON | MAP_POPULATE, -1ul, 0);
	KUNIT_ASSERT_EQ(test, a, (long)(MMAP_BASE - 3 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 3);
	KUNIT_EXPECT_EQ(test, sys(__NR_mmap, 0, PAGE_SIZE, RW, ANON, -1ul, 1), -EINVAL); /* offset */
	KUNIT_EXPECT_EQ(test, sys(__NR_mmap, 0, PAGE_SIZE, RW, MAP_PRIVATE, -1ul, 0), -EBADF);
	KUNIT_EXPECT_EQ(test, sys(__NR_mmap, 0, 0, RW, MAP_PRIVATE, -1ul, 0), -EBADF); /* fd first */
	KUNIT_EXPECT_EQ(test, sys(__NR_mmap, 0, PAGE_SIZE, RW, MAP_PRIVATE, 1, 0), -EBADF); /* not open here */
	/* With a descriptor table (the console: fd 0 for reading, fd 1 for
	 * writing), an open file that cannot be mapped (-ENODEV), after
	 * do_mmap's check that the descriptor may be read (-EACCES for fd 1);
	 * the fd's high bits are ignored, as fget's. */
	struct files_struct *files = files_alloc(""), *saved = current->files;
	KUNIT_ASSERT_NOT_NULL(test, files);
	current->files = files;
	long console = sys(__NR_mmap, 0, PAGE_SIZE, RW, MAP_PRIVATE, 0, 0);
	long high = sys(__NR_mmap, 0, PAGE_SIZE, RW, MAP_PRIVATE, (1ul << 32) | 0, 0);
	long write_only = sys(__NR_mmap, 0, PAGE_SIZE, RW, MAP_PRIVATE, 1, 0);
	long closed = sys(__NR_mmap, 0, PAGE_SIZE, RW, MAP_PRIVATE, 7, 0);
	current->files = saved;
	files_release(files);
	KUNIT_EXPECT_EQ(test, console, -ENODEV);
	KUNIT_EXPECT_EQ(test, high, -ENODEV);
	KUNIT_EXPECT_EQ(test, write_only, -EACCES);
	KUNIT_EXPECT_EQ(test, closed, -EBADF);
	/* Shared hugetlb memory is a file on the kernel's hugetlbfs,
	 * reserving its page at mmap: made when the 2 MiB pool has a page
	 * beyond its reserved ones (or may take a surplus one), else
	 * -ENOMEM (tests/hugetlbfs_test.c sets a pool for it). */
	struct hstate *h = &hstates[HSTATE_2M];
	bool room = h->free_huge_pages > h->resv_huge_pages || h->nr_overcommit_huge_pages > h->surplus_huge_pages;
	long shared = sys(__NR_mmap, 0, 2ul << 20, RW, MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1ul, 0);
	if (room) {
		KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(shared));
		if (!IS_ERR_VALUE(shared))
			KUNIT_EXPECT_EQ(test, sys(__NR_munmap, (unsigned long)shared, 2ul << 20, 0, 0, 0, 0), 0);
	} else {
		KUNIT_EXPECT_EQ(test, shared, -ENOMEM);
	}
	KUNIT_EXPECT_EQ(test, sys(__NR_mprotect, a, PAGE_SIZE, PROT_READ, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 2);
	KUNIT_EXPECT_EQ(test, sys(__NR_mprotect, a + 1, PAGE_SIZE, PROT_READ, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_madvise, a, 3 * PAGE_SIZE, MADV_DONTNEED, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_madvise, a, PAGE_SIZE, 999, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, a, 3 * PAGE_SIZE, 0, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, a, 0, 0, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 0);
	/* brk: the loader sets start_brk; here the test does. */
	s.mm->start_brk = s.mm->brk = BASE;
	KUNIT_EXPECT_EQ(test, sys(__NR_brk, 0, 0, 0, 0, 0, 0), (long)BASE); /* query */
	KUNIT_EXPECT_EQ(test, sys(__NR_brk, BASE + 5000, 0, 0, 0, 0, 0), (long)(BASE + 5000));
	KUNIT_EXPECT_EQ(test, put_user_u64(7, (void *)(BASE + PAGE_SIZE)), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 1);
	KUNIT_EXPECT_EQ(test, sys(__NR_brk, BASE + 100, 0, 0, 0, 0, 0), (long)(BASE + 100));
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 0);
	KUNIT_EXPECT_EQ(test, s.mm->total_vm, 1);
	space_destroy(test, &s);
}

/* Process exit with mappings everywhere: mmput's exit_mmap frees all. */
static void exit_with_mappings_frees_every_page(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	KUNIT_ASSERT_EQ(test, do_mmap(s.mm, BASE, 64 * PAGE_SIZE, RW, ANON | MAP_FIXED | MAP_POPULATE), BASE);
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, BASE + 16 * PAGE_SIZE, 16 * PAGE_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + 40 * PAGE_SIZE, 8 * PAGE_SIZE, MADV_HUGEPAGE), 0);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 5);
	/* Far apart: tables in several PGD entries. */
	KUNIT_ASSERT_EQ(test, do_mmap(s.mm, mmap_min_addr, PAGE_SIZE, RW, ANON | MAP_FIXED | MAP_POPULATE),
			mmap_min_addr);
	KUNIT_ASSERT_EQ(test, do_mmap(s.mm, STACK_TOP - USER_STACK_SIZE, USER_STACK_SIZE, RW,
				      ANON | MAP_FIXED_NOREPLACE | MAP_GROWSDOWN),
			STACK_TOP - USER_STACK_SIZE);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, STACK_TOP - 4 * PAGE_SIZE, 4 * PAGE_SIZE, 23 /* MADV_POPULATE_WRITE */), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 64 + 1 + 4);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 7);
	space_destroy(test, &s);
}

/* MADV_POPULATE_READ faults as reads (Linux's madvise_populate without
 * FOLL_WRITE): never-written pages of a writable mapping get the shared
 * zero page, read-only, and RSS stays 0; MADV_POPULATE_WRITE gives each
 * page a page of its own. */
static void madvise_populate_read_maps_the_zero_page(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	KUNIT_ASSERT_EQ(test, do_mmap(s.mm, BASE, 8 * PAGE_SIZE, RW, ANON | MAP_FIXED), BASE);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE, 8 * PAGE_SIZE, 22 /* MADV_POPULATE_READ */), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 0);
	for (int i = 0; i < 8; i++) {
		pmd_t *pmd = mm_find_pmd(s.mm, BASE + i * PAGE_SIZE);
		pte_t *pte = pmd ? pte_offset_map(pmd, BASE + i * PAGE_SIZE) : NULL;
		KUNIT_ASSERT_NOT_NULL(test, pte);
		KUNIT_EXPECT_TRUE(test, pte_present(*pte));
		KUNIT_EXPECT_EQ(test, pte_pfn(*pte), page_to_pfn(zero_page));
		KUNIT_EXPECT_FALSE(test, pte_write(*pte));
	}
	u64 v = 1;
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)(BASE + 7 * PAGE_SIZE)), 0);
	KUNIT_EXPECT_EQ(test, v, 0);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE, 8 * PAGE_SIZE, 23 /* MADV_POPULATE_WRITE */), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 8);
	for (int i = 0; i < 8; i++) {
		pmd_t *pmd = mm_find_pmd(s.mm, BASE + i * PAGE_SIZE);
		pte_t *pte = pmd ? pte_offset_map(pmd, BASE + i * PAGE_SIZE) : NULL;
		KUNIT_ASSERT_NOT_NULL(test, pte);
		KUNIT_EXPECT_NE(test, pte_pfn(*pte), page_to_pfn(zero_page));
		KUNIT_EXPECT_TRUE(test, pte_write(*pte));
	}
	KUNIT_EXPECT_EQ(test, *(u64 *)page_address(zero_page), 0);
	space_destroy(test, &s);
}

/* The heap stays a VMA of its own above an ELF-like RW data VMA that ends
 * at start_brk with the same flags (Linux's brk: vma_prev_limit(&vmi,
 * mm->start_brk) finds nothing to grow below the first break). */
static void brk_after_a_data_vma_gives_two_vmas(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	const unsigned long data = BASE + 16 * PAGE_SIZE, start_brk = data + 4 * PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, do_mmap(s.mm, data, 4 * PAGE_SIZE, RW, ANON | MAP_FIXED), data);
	s.mm->start_brk = s.mm->brk = start_brk;
	KUNIT_EXPECT_EQ(test, sys(__NR_brk, start_brk + 3 * PAGE_SIZE, 0, 0, 0, 0, 0),
			(long)(start_brk + 3 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 2);
	struct vm_area_struct *d = find_vma(s.mm, data), *heap = find_vma(s.mm, start_brk);
	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_ASSERT_NOT_NULL(test, heap);
	KUNIT_EXPECT_EQ(test, d->vm_end, start_brk);
	KUNIT_EXPECT_EQ(test, heap->vm_start, start_brk);
	KUNIT_EXPECT_EQ(test, heap->vm_end, start_brk + 3 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, heap->vm_flags, d->vm_flags);
	/* Growing again grows the heap's VMA; both are usable memory. */
	KUNIT_EXPECT_EQ(test, sys(__NR_brk, start_brk + 5 * PAGE_SIZE, 0, 0, 0, 0, 0),
			(long)(start_brk + 5 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 2);
	KUNIT_EXPECT_EQ(test, put_user_u64(1, (void *)(start_brk - 8)), 0);
	KUNIT_EXPECT_EQ(test, put_user_u64(2, (void *)start_brk), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 2);
	KUNIT_EXPECT_EQ(test, s.mm->total_vm, 9);
	space_destroy(test, &s);
}

/* A VMA gets its anon_vma with its first anonymous page: a write fault
 * (a new page, or the zero page replaced), never a read fault (the zero
 * page). Until then, losing write access drops VM_ACCOUNT (Linux's
 * mprotect_fixup); afterwards it stays. Every anon_vma is freed with the
 * mm (the slab objects in use come back). */
static void write_faults_give_the_vma_an_anon_vma(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	const unsigned long a = BASE, b = BASE + 8 * PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, do_mmap(s.mm, a, 4 * PAGE_SIZE, RW, ANON | MAP_FIXED), a);
	KUNIT_ASSERT_EQ(test, do_mmap(s.mm, b, 4 * PAGE_SIZE, RW, ANON | MAP_FIXED), b);
	struct vm_area_struct *va = find_vma(s.mm, a), *vb = find_vma(s.mm, b);
	KUNIT_ASSERT_NOT_NULL(test, va);
	KUNIT_ASSERT_NOT_NULL(test, vb);
	KUNIT_EXPECT_NULL(test, va->anon_vma);
	/* Reads map the zero page: no anon_vma. */
	u64 v = 1;
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)a), 0);
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)b), 0);
	KUNIT_EXPECT_EQ(test, v, 0);
	KUNIT_EXPECT_NULL(test, va->anon_vma);
	KUNIT_EXPECT_NULL(test, vb->anon_vma);
	/* A write to a none PTE (do_anonymous_page). */
	KUNIT_EXPECT_EQ(test, put_user_u64(7, (void *)(a + PAGE_SIZE)), 0);
	KUNIT_EXPECT_NOT_NULL(test, va->anon_vma);
	/* A write to the zero page read before (do_wp_page). */
	KUNIT_EXPECT_EQ(test, put_user_u64(8, (void *)b), 0);
	KUNIT_EXPECT_NOT_NULL(test, vb->anon_vma);
	KUNIT_EXPECT_PTR_NE(test, va->anon_vma, vb->anon_vma);
	/* Read-only: the written VMA keeps VM_ACCOUNT, an untouched one (read
	 * faults only) loses it. */
	const unsigned long c = BASE + 16 * PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, do_mmap(s.mm, c, 2 * PAGE_SIZE, RW, ANON | MAP_FIXED), c);
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)c), 0);
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, a, 4 * PAGE_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, c, 2 * PAGE_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_TRUE(test, find_vma(s.mm, a)->vm_flags & VM_ACCOUNT);
	KUNIT_EXPECT_FALSE(test, find_vma(s.mm, c)->vm_flags & VM_ACCOUNT);
	KUNIT_EXPECT_NULL(test, find_vma(s.mm, c)->anon_vma);
	/* Split pieces share theirs. */
	KUNIT_EXPECT_EQ(test, do_mprotect(s.mm, b + PAGE_SIZE, PAGE_SIZE, PROT_READ), 0);
	KUNIT_EXPECT_PTR_EQ(test, find_vma(s.mm, b + 2 * PAGE_SIZE)->anon_vma, vb->anon_vma);
	KUNIT_EXPECT_EQ(test, anon_vma_nr_chains(vb->anon_vma), 3);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 5);
	space_destroy(test, &s); /* pages and slab objects (the anon_vmas) come back */
}

static struct kunit_case mmap_cases[] = {
	KUNIT_CASE(populate_then_munmap_gives_everything_back),
	KUNIT_CASE(map_fixed_replaces_the_pages),
	KUNIT_CASE(madvise_dontneed_and_free_give_zeroes),
	KUNIT_CASE(system_calls_act_on_current_mm),
	KUNIT_CASE(exit_with_mappings_frees_every_page),
	KUNIT_CASE(madvise_populate_read_maps_the_zero_page),
	KUNIT_CASE(brk_after_a_data_vma_gives_two_vmas),
	KUNIT_CASE(write_faults_give_the_vma_an_anon_vma),
	{}
};

static struct kunit_suite mmap_suite = {
	.name = "mmap",
	.test_cases = mmap_cases,
};
kunit_test_suite(mmap_suite);
