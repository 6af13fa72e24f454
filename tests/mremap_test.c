/* mremap(2) on real address spaces (mm/mremap.c): every errno in Linux's
 * order, shrinking and growing in place, moves with and without
 * MREMAP_FIXED, MREMAP_DONTUNMAP, and the page tables under a move: a PTE
 * table that moves whole is the same page hanging off the new PMD
 * (pte_to_pmd says so), a range inside a table moves entry by entry, a
 * huge PMD moves whole, and a move that cannot finish is undone.
 *
 * Each case checks what a user sees (contents through copy_*_user,
 * errnos, RSS, total_vm, VmPTE, the VMAs), that pte_ref_verify() finds
 * every PTE table's count equal to its entries (nothing until the
 * refcount lands, then the real check), and, once the mm is gone, that
 * free pages, slab objects and page-table pages came back. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "arch/x86_64/pgtable.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "mm/fail_page_alloc.h"
#include "mm/huge_memory.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mremap.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pte_ref.h"
#include "mm/util.h"

#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define BASE 0x0000240000000000ul /* a PGD entry of its own, 1 GiB aligned */
#define P PAGE_SIZE
#define MAYMOVE MREMAP_MAYMOVE
#define FIXED (MREMAP_FIXED | MREMAP_MAYMOVE)
#define DONTUNMAP (MREMAP_DONTUNMAP | MREMAP_MAYMOVE)

struct space {
	struct mm_struct *mm;
};

/* A fresh mm, the current task's until space_destroy (or the end of the
 * case however it ends); when it goes, the counts of every PTE table must
 * match its entries, and the pages, slab objects and page-table pages it
 * used must be back (tests/test_mm.h). */
static void space_init(struct kunit *test, struct space *s)
{
	s->mm = test_mm_create(test, TEST_MM_CURRENT);
}

static void space_destroy(struct kunit *test, struct space *s) { test_mm_destroy(test, s->mm); }

static unsigned long map(struct kunit *test, struct space *s, unsigned long addr, unsigned long len,
			 unsigned long flags)
{
	unsigned long a = do_mmap(s->mm, addr, len, RW, ANON | MAP_FIXED | flags);
	KUNIT_EXPECT_EQ(test, a, addr);
	return a;
}

/* Writes seed + i into the first word of page i of [addr, addr + n pages). */
static void fill(struct kunit *test, unsigned long addr, unsigned long n, u64 seed)
{
	for (unsigned long i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, put_user_u64(seed + i, (void *)(addr + i * P)), 0);
}

/* How many of the n pages from addr do not hold what fill() wrote (a page
 * that cannot be read counts too). */
static unsigned long mismatches(unsigned long addr, unsigned long n, u64 seed)
{
	unsigned long bad = 0;
	for (unsigned long i = 0; i < n; i++) {
		u64 v;
		if (get_user_u64(&v, (void *)(addr + i * P)) || v != seed + i)
			bad++;
	}
	return bad;
}

/* Reads of the n pages from addr that fail (unmapped) or give non-zero. */
static unsigned long nonzero(unsigned long addr, unsigned long n)
{
	unsigned long bad = 0;
	for (unsigned long i = 0; i < n; i++) {
		u64 v;
		if (get_user_u64(&v, (void *)(addr + i * P)) || v)
			bad++;
	}
	return bad;
}

static bool readable(unsigned long addr)
{
	u64 v;
	return get_user_u64(&v, (void *)addr) == 0;
}

/* The PMD entry of addr, NULL if a level above it is missing. */
static pmd_t *pmd_of(struct mm_struct *mm, unsigned long addr)
{
	return mm_find_pmd(mm, addr);
}

/* The PTE table page that maps addr, NULL if none. */
static struct page *table_of(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = pmd_of(mm, addr);
	if (!pmd)
		return NULL;
	pmd_t val = pmdp_get(pmd);
	if (pmd_none(val) || pmd_trans_huge(val))
		return NULL;
	return pfn_to_page(pmd_pfn(val));
}

static unsigned long remap(struct space *s, unsigned long addr, unsigned long old_len,
			   unsigned long new_len, unsigned long flags, unsigned long new_addr)
{
	return do_mremap(s->mm, addr, old_len, new_len, flags, new_addr);
}

static long sys_mremap(unsigned long addr, unsigned long old_len, unsigned long new_len,
		       unsigned long flags, unsigned long new_addr)
{
	const unsigned long args[6] = { addr, old_len, new_len, flags, new_addr, 0 };
	return do_syscall_64(__NR_mremap, args);
}

static void restore_max_map_count(void *saved)
{
	sysctl_max_map_count = (int)(long)saved;
}

/* Every refusal, in Linux's order of checks, and nothing changed by any. */
static void errnos_in_linux_order(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	unsigned long a = map(test, &s, BASE, 4 * P, MAP_POPULATE);
	unsigned long b = map(test, &s, BASE + 8 * P, 4 * P, MAP_POPULATE);
	fill(test, a, 4, 0x100);
	fill(test, b, 4, 0x200);
	unsigned long committed = vm_memory_committed();
#define EXPECT_ERR(call, err) KUNIT_EXPECT_EQ(test, (long)(call), (long)-(err))
	/* check_mremap_params, before any lock. */
	EXPECT_ERR(remap(&s, a, 4 * P, 4 * P, 8, 0), EINVAL);         /* unknown flag */
	EXPECT_ERR(remap(&s, a + 1, 4 * P, 4 * P, 0, 0), EINVAL);     /* addr unaligned */
	EXPECT_ERR(remap(&s, a, 4 * P, 0, MAYMOVE, 0), EINVAL);       /* new_len 0 */
	EXPECT_ERR(remap(&s, a, 4 * P, -P + 1, MAYMOVE, 0), EINVAL);  /* rounds up to 0 */
	EXPECT_ERR(remap(&s, a, 4 * P, 4 * P, FIXED, BASE + 64 * P + 8), EINVAL);
	EXPECT_ERR(remap(&s, a, 4 * P, 4 * P, MREMAP_FIXED, BASE + 64 * P), EINVAL);
	EXPECT_ERR(remap(&s, a, 4 * P, 4 * P, MREMAP_DONTUNMAP, BASE + 64 * P), EINVAL);
	EXPECT_ERR(remap(&s, a, 4 * P, 8 * P, DONTUNMAP, 0), EINVAL); /* DONTUNMAP resizes */
	/* The flags win over a bad address: -EINVAL before -EFAULT. */
	EXPECT_ERR(remap(&s, BASE + 5 * P, P, P, MREMAP_FIXED, BASE + 64 * P), EINVAL);
	/* No VMA at addr. */
	EXPECT_ERR(remap(&s, BASE + 5 * P, P, 2 * P, MAYMOVE, 0), EFAULT);
	EXPECT_ERR(remap(&s, BASE + 5 * P, P, P, FIXED, BASE + 64 * P), EFAULT);
	/* mremap_to: the destination's range, then the overlap. */
	EXPECT_ERR(remap(&s, a, 4 * P, 4 * P, FIXED, TASK_SIZE - 2 * P), EINVAL);
	EXPECT_ERR(remap(&s, a, 4 * P, 4 * P, FIXED, a + 2 * P), EINVAL);
	EXPECT_ERR(remap(&s, a, 4 * P, 4 * P, FIXED, a - 2 * P), EINVAL);
	EXPECT_ERR(remap(&s, a, 2 * P, 4 * P, DONTUNMAP | MREMAP_FIXED, a + P), EINVAL);
	/* remap_is_valid: old_len 0 of a private mapping, then an old range
	 * that leaves its VMA. */
	EXPECT_ERR(remap(&s, a, 0, 4 * P, MAYMOVE, 0), EINVAL);
	EXPECT_ERR(remap(&s, a, 0, 4 * P, FIXED, BASE + 64 * P), EINVAL);
	EXPECT_ERR(remap(&s, a, 6 * P, 8 * P, MAYMOVE, 0), EFAULT);
	EXPECT_ERR(remap(&s, a + 2 * P, 4 * P, 4 * P, FIXED, BASE + 64 * P), EFAULT);
	/* Growth blocked by b, and not allowed to move. */
	EXPECT_ERR(remap(&s, a, 4 * P, 12 * P, 0, 0), ENOMEM);
	/* The destination below mmap_min_addr: get_unmapped_area's -EPERM. */
	EXPECT_ERR(remap(&s, a, 4 * P, 4 * P, FIXED, PAGE_SIZE), EPERM);
	/* vm.max_map_count: a move needs room for both ranges to split. */
	void *saved = (void *)(long)sysctl_max_map_count;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_max_map_count, saved), 0);
	sysctl_max_map_count = s.mm->map_count + 3;
	EXPECT_ERR(remap(&s, a, 4 * P, 4 * P, FIXED, BASE + 64 * P), ENOMEM); /* check_mremap_params */
	EXPECT_ERR(remap(&s, a, 4 * P, 16 * P, MAYMOVE, 0), ENOMEM);           /* prep_move_vma */
	kunit_release_action(test, restore_max_map_count, saved);
	/* Through the system call, on current->mm. */
	KUNIT_EXPECT_EQ(test, sys_mremap(a, 4 * P, 4 * P, 16, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys_mremap(BASE + 5 * P, P, 2 * P, 0, 0), -EFAULT);
	KUNIT_EXPECT_EQ(test, sys_mremap(a, 4 * P, 4 * P, 0, 0), (long)a); /* no change asked */
#undef EXPECT_ERR
	/* Nothing moved, nothing charged. */
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 2);
	KUNIT_EXPECT_EQ(test, s.mm->total_vm, 8);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 8);
	KUNIT_EXPECT_EQ(test, vm_memory_committed(), committed);
	KUNIT_EXPECT_EQ(test, mismatches(a, 4, 0x100), 0);
	KUNIT_EXPECT_EQ(test, mismatches(b, 4, 0x200), 0);
	KUNIT_EXPECT_FALSE(test, readable(BASE + 64 * P));
	space_destroy(test, &s);
}

/* Shrinking unmaps the tail in place (lengths round up to pages); the
 * tail may cover several VMAs and holes, as munmap's would. */
static void shrink_unmaps_the_tail(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	unsigned long a = map(test, &s, BASE, 8 * P, MAP_POPULATE);
	fill(test, a, 8, 0x300);
	unsigned long committed = vm_memory_committed();
	KUNIT_EXPECT_EQ(test, remap(&s, a, 8 * P, 5 * P, 0, 0), a);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 5);
	KUNIT_EXPECT_EQ(test, s.mm->total_vm, 5);
	KUNIT_EXPECT_EQ(test, mismatches(a, 5, 0x300), 0);
	KUNIT_EXPECT_FALSE(test, readable(a + 5 * P));
	KUNIT_EXPECT_LE(test, vm_memory_committed(), committed); /* munmap uncharges, never charges */
	KUNIT_EXPECT_EQ(test, remap(&s, a, 5 * P - 100, 3 * P + 1, 0, 0), a); /* 5 -> 4 pages */
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 4);
	KUNIT_EXPECT_EQ(test, s.mm->total_vm, 4);
	/* A tail over a hole and the next VMA: both go. */
	unsigned long b = map(test, &s, BASE + 6 * P, 2 * P, MAP_POPULATE);
	KUNIT_EXPECT_EQ(test, remap(&s, a, 8 * P, 2 * P, 0, 0), a);
	KUNIT_EXPECT_FALSE(test, readable(b));
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 1);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 2);
	KUNIT_EXPECT_EQ(test, mismatches(a, 2, 0x300), 0);
	/* Same size: nothing to do. */
	KUNIT_EXPECT_EQ(test, remap(&s, a, 2 * P, 2 * P, 0, 0), a);
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, a, 2 * P), 0);
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(s.mm), 0);
	space_destroy(test, &s);
}

/* Growing in place when the gap allows: the VMA grows, the growth is
 * charged (VM_ACCOUNT), the new pages are zero, and a VMA it comes to
 * touch merges in when the rules allow (vma_merge_extend). */
static void grow_in_place_charges_and_merges(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	unsigned long a = map(test, &s, BASE, 4 * P, 0); /* never faulted: no anon_vma */
	unsigned long c = map(test, &s, BASE + 8 * P, 4 * P, MAP_POPULATE);
	fill(test, c, 4, 0x400);
	unsigned long committed = vm_memory_committed();
	KUNIT_EXPECT_EQ(test, remap(&s, a, 4 * P, 6 * P, 0, 0), a);
	KUNIT_EXPECT_EQ(test, vm_memory_committed(), committed + 2);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 2);
	KUNIT_EXPECT_EQ(test, s.mm->total_vm, 10);
	struct vm_area_struct *vma = find_vma(s.mm, a);
	KUNIT_EXPECT_EQ(test, vma->vm_end, a + 6 * P);
	/* Up to c: one VMA (a has no anon_vma, so it takes c's). */
	KUNIT_EXPECT_EQ(test, remap(&s, a, 6 * P, 8 * P, 0, 0), a);
	KUNIT_EXPECT_EQ(test, vm_memory_committed(), committed + 4);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 1);
	KUNIT_EXPECT_EQ(test, s.mm->total_vm, 12);
	vma = find_vma(s.mm, a);
	KUNIT_EXPECT_EQ(test, vma->vm_start, a);
	KUNIT_EXPECT_EQ(test, vma->vm_end, c + 4 * P);
	KUNIT_EXPECT_NOT_NULL(test, vma->anon_vma);
	KUNIT_EXPECT_EQ(test, nonzero(a, 8), 0);
	KUNIT_EXPECT_EQ(test, mismatches(c, 4, 0x400), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 4); /* the zero page is not counted */
	/* Part of a VMA that does not end it cannot grow in place: with
	 * MREMAP_MAYMOVE the part moves, the rest stays. */
	unsigned long r = remap(&s, a, 2 * P, 4 * P, MAYMOVE, 0);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(r));
	KUNIT_EXPECT_NE(test, r, a);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 2);
	KUNIT_EXPECT_EQ(test, s.mm->total_vm, 14);
	KUNIT_EXPECT_FALSE(test, readable(a));
	KUNIT_EXPECT_EQ(test, mismatches(c, 4, 0x400), 0);
	space_destroy(test, &s);
}

/* A locked mapping that grows has its growth faulted in (mm_populate). */
static void locked_growth_is_populated(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	unsigned long a = map(test, &s, BASE, 2 * P, MAP_LOCKED);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 2);
	KUNIT_EXPECT_EQ(test, remap(&s, a, 2 * P, 6 * P, 0, 0), a);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 6);
	map(test, &s, a + 6 * P, P, 0); /* blocks growth in place */
	unsigned long r = remap(&s, a, 6 * P, 10 * P, MAYMOVE, 0);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(r));
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 10);
	space_destroy(test, &s);
}

/* A growth the gap cannot take moves (MREMAP_MAYMOVE): the pages go with
 * the mapping, the old range is unmapped, only the growth is charged. */
static void move_to_a_free_range(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	unsigned long a = map(test, &s, BASE, 4 * P, MAP_POPULATE);
	map(test, &s, BASE + 4 * P, 4 * P, 0);
	fill(test, a, 4, 0x500);
	unsigned long rss = get_mm_rss(s.mm), committed = vm_memory_committed();
	unsigned long hiwater = s.mm->hiwater_vm;
	unsigned long r = remap(&s, a, 4 * P, 8 * P, MAYMOVE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(r));
	KUNIT_EXPECT_NE(test, r, a);
	KUNIT_EXPECT_EQ(test, mismatches(r, 4, 0x500), 0);
	KUNIT_EXPECT_EQ(test, nonzero(r + 4 * P, 4), 0);
	KUNIT_EXPECT_FALSE(test, readable(a));
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), rss);
	KUNIT_EXPECT_EQ(test, s.mm->total_vm, 12);
	/* Linux restores hiwater_vm after the move's transient peak (new_len
	 * counted before old_len is taken off), even below total_vm. */
	KUNIT_EXPECT_EQ(test, s.mm->hiwater_vm, hiwater);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 2);
	KUNIT_EXPECT_EQ(test, vm_memory_committed(), committed + 4);
	struct vm_area_struct *vma = find_vma(s.mm, r);
	KUNIT_EXPECT_EQ(test, vma->vm_start, r);
	KUNIT_EXPECT_EQ(test, vma->vm_end, r + 8 * P);
	KUNIT_EXPECT_EQ(test, vma->vm_flags & (VM_ACCOUNT | VM_READ | VM_WRITE),
			VM_ACCOUNT | VM_READ | VM_WRITE);
	KUNIT_EXPECT_NOT_NULL(test, vma->anon_vma);
	space_destroy(test, &s);
}

/* MREMAP_FIXED: what was at the destination goes first (as MAP_FIXED),
 * the moved piece keeps its flags, protection and anon_vma. */
static void move_fixed_replaces_the_destination(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	unsigned long a = map(test, &s, BASE, 8 * P, MAP_POPULATE);
	unsigned long d = map(test, &s, BASE + 64 * P, 8 * P, MAP_POPULATE);
	fill(test, a, 8, 0x600);
	fill(test, d, 8, 0x700);
	KUNIT_ASSERT_EQ(test, do_mprotect(s.mm, a + 2 * P, 4 * P, PROT_READ), 0);
	struct anon_vma *anon = find_vma(s.mm, a)->anon_vma;
	KUNIT_EXPECT_EQ(test, remap(&s, a + 2 * P, 4 * P, 4 * P, FIXED, d + 2 * P), d + 2 * P);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 12);
	KUNIT_EXPECT_EQ(test, s.mm->total_vm, 12);
	KUNIT_EXPECT_EQ(test, mismatches(d, 2, 0x700), 0);
	KUNIT_EXPECT_EQ(test, mismatches(d + 2 * P, 4, 0x602), 0);
	KUNIT_EXPECT_EQ(test, mismatches(d + 6 * P, 2, 0x706), 0);
	KUNIT_EXPECT_EQ(test, mismatches(a, 2, 0x600), 0);
	KUNIT_EXPECT_EQ(test, mismatches(a + 6 * P, 2, 0x606), 0);
	KUNIT_EXPECT_FALSE(test, readable(a + 2 * P));
	/* Still read-only where it went. */
	KUNIT_EXPECT_EQ(test, put_user_u64(1, (void *)(d + 2 * P)), -EFAULT);
	struct vm_area_struct *moved = find_vma(s.mm, d + 2 * P);
	KUNIT_EXPECT_EQ(test, moved->vm_start, d + 2 * P);
	KUNIT_EXPECT_EQ(test, moved->vm_end, d + 6 * P);
	KUNIT_EXPECT_EQ(test, moved->vm_flags & VM_WRITE, 0);
	KUNIT_EXPECT_PTR_EQ(test, moved->anon_vma, anon);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 5);
	space_destroy(test, &s);
}

/* MREMAP_DONTUNMAP: the pages move, the old VMA stays, empty, keeping
 * VM_ACCOUNT (its charge is its own) but (moved whole) not its anon_vma;
 * the new one is charged in full. */
static void dontunmap_leaves_the_old_vma_empty(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	unsigned long a = map(test, &s, BASE, 4 * P, MAP_POPULATE);
	fill(test, a, 4, 0x800);
	unsigned long committed = vm_memory_committed();
	unsigned long r = remap(&s, a, 4 * P, 4 * P, DONTUNMAP, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(r));
	KUNIT_EXPECT_NE(test, r, a);
	KUNIT_EXPECT_EQ(test, vm_memory_committed(), committed + 4);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 2);
	KUNIT_EXPECT_EQ(test, s.mm->total_vm, 8);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 4);
	KUNIT_EXPECT_EQ(test, mismatches(r, 4, 0x800), 0);
	struct vm_area_struct *old = find_vma(s.mm, a);
	KUNIT_ASSERT_NOT_NULL(test, old);
	KUNIT_EXPECT_EQ(test, old->vm_start, a);
	KUNIT_EXPECT_EQ(test, old->vm_end, a + 4 * P);
	KUNIT_EXPECT_EQ(test, old->vm_flags & VM_ACCOUNT, VM_ACCOUNT);
	KUNIT_EXPECT_NULL(test, old->anon_vma);
	KUNIT_EXPECT_NOT_NULL(test, find_vma(s.mm, r)->anon_vma);
	KUNIT_EXPECT_EQ(test, nonzero(a, 4), 0); /* empty: faults give zeroes */
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 4);
	/* With MREMAP_FIXED, half of it, over a mapped destination. */
	unsigned long d = map(test, &s, BASE + 64 * P, 2 * P, MAP_POPULATE);
	KUNIT_EXPECT_EQ(test, remap(&s, r + 2 * P, 2 * P, 2 * P, DONTUNMAP | MREMAP_FIXED, d), d);
	KUNIT_EXPECT_EQ(test, mismatches(d, 2, 0x802), 0);
	KUNIT_EXPECT_EQ(test, mismatches(r, 2, 0x800), 0);
	KUNIT_EXPECT_EQ(test, nonzero(r + 2 * P, 2), 0);
	/* The part that stayed keeps the anon_vma (only a whole VMA moved
	 * loses it). */
	KUNIT_EXPECT_NOT_NULL(test, find_vma(s.mm, r)->anon_vma);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 4);
	space_destroy(test, &s);
}

/* A range that covers a whole PTE table at PMD-aligned old and new
 * addresses moves the table itself: the same page hangs off the new PMD,
 * pte_to_pmd() names the new PMD, the old PMD is none, no entry moved one
 * by one, and VmPTE counts the same tables (a PMD table in another
 * 1 GiB comes and the old one goes). Zero-page entries move too. */
static void whole_table_moves_as_a_table(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	unsigned long a = map(test, &s, BASE, PMD_SIZE, 0);
	fill(test, a, 1, 0x900);
	fill(test, a + 100 * P, 1, 0x910);
	fill(test, a + 511 * P, 1, 0x920);
	KUNIT_EXPECT_TRUE(test, readable(a + 200 * P)); /* the zero page */
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 3);
	long vmpte = mm_pgtables_bytes(s.mm);
	KUNIT_EXPECT_EQ(test, vmpte, 3 * (long)P); /* PUD, PMD, PTE tables */
	struct page *table = table_of(s.mm, a);
	KUNIT_ASSERT_NOT_NULL(test, table);
	struct mremap_stats before, after;
	mremap_stats_read(&before);

	unsigned long d = BASE + 4 * PMD_SIZE; /* the same PMD table */
	KUNIT_EXPECT_EQ(test, remap(&s, a, PMD_SIZE, PMD_SIZE, FIXED, d), d);
	mremap_stats_read(&after);
	KUNIT_EXPECT_EQ(test, after.tables_moved - before.tables_moved, 1);
	KUNIT_EXPECT_EQ(test, after.ptes_moved - before.ptes_moved, 0);
	KUNIT_EXPECT_PTR_EQ(test, table_of(s.mm, d), table);
	pmd_t *new_pmd = pmd_of(s.mm, d);
	pte_t *pte = pte_offset_map(new_pmd, d + 100 * P);
	KUNIT_ASSERT_NOT_NULL(test, pte);
	KUNIT_EXPECT_PTR_EQ(test, pte_to_pmd(pte), new_pmd);
	pte_unmap(pte);
	KUNIT_EXPECT_TRUE(test, pmd_none(pmdp_get(pmd_of(s.mm, a))));
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(s.mm), vmpte);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 1);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 3);
	KUNIT_EXPECT_EQ(test, mismatches(d, 1, 0x900), 0);
	KUNIT_EXPECT_EQ(test, mismatches(d + 100 * P, 1, 0x910), 0);
	KUNIT_EXPECT_EQ(test, mismatches(d + 511 * P, 1, 0x920), 0);
	KUNIT_EXPECT_EQ(test, nonzero(d + 200 * P, 1), 0);
	KUNIT_EXPECT_FALSE(test, readable(a + 100 * P));
	KUNIT_EXPECT_EQ(test, pte_ref_verify(s.mm), 0);

	/* Into another 1 GiB: a new PMD table, the old one freed. */
	unsigned long e = BASE + PUD_SIZE + 2 * PMD_SIZE;
	mremap_stats_read(&before);
	KUNIT_EXPECT_EQ(test, remap(&s, d, PMD_SIZE, PMD_SIZE, FIXED, e), e);
	mremap_stats_read(&after);
	KUNIT_EXPECT_EQ(test, after.tables_moved - before.tables_moved, 1);
	KUNIT_EXPECT_EQ(test, after.ptes_moved - before.ptes_moved, 0);
	KUNIT_EXPECT_PTR_EQ(test, table_of(s.mm, e), table);
	new_pmd = pmd_of(s.mm, e);
	pte = pte_offset_map(new_pmd, e);
	KUNIT_ASSERT_NOT_NULL(test, pte);
	KUNIT_EXPECT_PTR_EQ(test, pte_to_pmd(pte), new_pmd);
	pte_unmap(pte);
	KUNIT_EXPECT_NULL(test, pmd_of(s.mm, d)); /* its PMD table went */
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(s.mm), vmpte);
	KUNIT_EXPECT_EQ(test, mismatches(e + 100 * P, 1, 0x910), 0);

	/* A 4 MiB range: two tables move, one a table at a time. */
	unsigned long f = BASE + 8 * PMD_SIZE;
	map(test, &s, f, 2 * PMD_SIZE, 0);
	fill(test, f + 5 * P, 1, 0x930);
	fill(test, f + PMD_SIZE + 5 * P, 1, 0x940);
	mremap_stats_read(&before);
	unsigned long g = BASE + 16 * PMD_SIZE;
	KUNIT_EXPECT_EQ(test, remap(&s, f, 2 * PMD_SIZE, 2 * PMD_SIZE, FIXED, g), g);
	mremap_stats_read(&after);
	KUNIT_EXPECT_EQ(test, after.tables_moved - before.tables_moved, 2);
	KUNIT_EXPECT_EQ(test, mismatches(g + 5 * P, 1, 0x930), 0);
	KUNIT_EXPECT_EQ(test, mismatches(g + PMD_SIZE + 5 * P, 1, 0x940), 0);

	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, e, PMD_SIZE), 0);
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, g, 2 * PMD_SIZE), 0);
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(s.mm), 0);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 0);
	space_destroy(test, &s);
}

/* A range inside one table moves entry by entry (move_ptes), within the
 * same table or into another; the source table goes with its VMA. */
static void range_inside_a_table_moves_entry_by_entry(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	unsigned long a = map(test, &s, BASE + 8 * P, 4 * P, 0);
	fill(test, a, 3, 0xa00); /* the fourth page stays none */
	struct page *table = table_of(s.mm, a);
	KUNIT_ASSERT_NOT_NULL(test, table);
	struct mremap_stats before, after;
	mremap_stats_read(&before);
	unsigned long d = BASE + 300 * P; /* the same table */
	KUNIT_EXPECT_EQ(test, remap(&s, a, 4 * P, 4 * P, FIXED, d), d);
	mremap_stats_read(&after);
	KUNIT_EXPECT_EQ(test, after.tables_moved - before.tables_moved, 0);
	KUNIT_EXPECT_EQ(test, after.tables_walked - before.tables_walked, 1);
	KUNIT_EXPECT_EQ(test, after.ptes_moved - before.ptes_moved, 3);
	KUNIT_EXPECT_PTR_EQ(test, table_of(s.mm, d), table);
	KUNIT_EXPECT_EQ(test, mismatches(d, 3, 0xa00), 0);
	KUNIT_EXPECT_EQ(test, nonzero(d + 3 * P, 1), 0);
	KUNIT_EXPECT_FALSE(test, readable(a));
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 1);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(s.mm), 0);

	/* Across a table boundary into another table: two walks, one per
	 * source table part. */
	unsigned long e = BASE + 2 * PMD_SIZE - 2 * P;
	mremap_stats_read(&before);
	KUNIT_EXPECT_EQ(test, remap(&s, d, 4 * P, 4 * P, FIXED, e), e);
	mremap_stats_read(&after);
	KUNIT_EXPECT_EQ(test, after.tables_moved - before.tables_moved, 0);
	KUNIT_EXPECT_EQ(test, after.tables_walked - before.tables_walked, 2);
	KUNIT_EXPECT_EQ(test, after.ptes_moved - before.ptes_moved, 4); /* the 4th: a zero page */
	KUNIT_EXPECT_EQ(test, mismatches(e, 3, 0xa00), 0);
	KUNIT_EXPECT_NULL(test, table_of(s.mm, d)); /* nothing maps there now: freed */
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 2);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 3);
	KUNIT_EXPECT_EQ(test, pte_ref_verify(s.mm), 0);
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, e, 4 * P), 0);
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(s.mm), 0);
	space_destroy(test, &s);
}

/* The merge rules of a move (copy_vma): a faulted VMA keeps its page
 * offsets, so it does not merge with a fresh mapping beside its new place
 * but does rejoin its other half when moved back; a never-faulted one
 * takes the offsets of its new place and merges like a fresh mapping. */
static void moves_merge_as_linux(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	unsigned long a = map(test, &s, BASE, 8 * P, MAP_POPULATE);
	fill(test, a, 8, 0xb00);
	unsigned long d = BASE + 100 * P;
	KUNIT_EXPECT_EQ(test, remap(&s, a + 4 * P, 4 * P, 4 * P, FIXED, d), d);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 2);
	map(test, &s, d + 4 * P, 4 * P, 0);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 3); /* offsets differ */
	KUNIT_EXPECT_EQ(test, do_munmap(s.mm, d + 4 * P, 4 * P), 0);
	KUNIT_EXPECT_EQ(test, remap(&s, d, 4 * P, 4 * P, FIXED, a + 4 * P), a + 4 * P);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 1); /* whole again */
	KUNIT_EXPECT_EQ(test, mismatches(a, 8, 0xb00), 0);

	unsigned long b = map(test, &s, BASE + 200 * P, 4 * P, 0);
	KUNIT_EXPECT_EQ(test, remap(&s, b, 4 * P, 4 * P, FIXED, BASE + 300 * P), BASE + 300 * P);
	map(test, &s, BASE + 304 * P, 4 * P, 0);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 2);
	struct vm_area_struct *vma = find_vma(s.mm, BASE + 300 * P);
	KUNIT_EXPECT_EQ(test, vma->vm_end, BASE + 308 * P);
	/* Moved next to a faulted VMA whose offsets follow on: it merges
	 * there (never faulted, it fits any neighbour). */
	KUNIT_EXPECT_EQ(test, remap(&s, BASE + 300 * P, 8 * P, 8 * P, FIXED, a + 8 * P), a + 8 * P);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 1);
	KUNIT_EXPECT_EQ(test, find_vma(s.mm, a)->vm_end, a + 16 * P);
	space_destroy(test, &s);
}

/* Maps an order-9 page with a huge PMD at addr (2 MiB aligned, inside a
 * VMA, none before), as a THP fault maps one (map_anon_folio_pmd: the
 * pages counted, a PTE table deposited). */
static void map_huge(struct kunit *test, struct space *s, unsigned long addr)
{
	pud_t *pud = pud_alloc(s->mm, pgd_offset(s->mm, addr), addr);
	KUNIT_ASSERT_NOT_NULL(test, pud);
	pmd_t *pmd = pmd_alloc(s->mm, pud, addr);
	KUNIT_ASSERT_NOT_NULL(test, pmd);
	KUNIT_ASSERT_TRUE(test, pmd_none(pmdp_get(pmd)));
	struct page *page = alloc_pages(GFP_KERNEL | __GFP_ZERO, HPAGE_PMD_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, page);
	*(u64 *)page_address(page) = addr;
	KUNIT_ASSERT_EQ(test, map_anon_folio_pmd(find_vma(s->mm, addr), pmd, addr, page, 0), 0);
}

/* A huge PMD the move covers whole moves as one entry; one it covers in
 * part is split first (its deposited table takes its 512 entries), and
 * the entries move one by one (Linux's move_page_tables). */
static void huge_pmd_moves_whole_or_split(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	unsigned long a = map(test, &s, BASE + PMD_SIZE - 4 * P, PMD_SIZE + 4 * P, 0);
	fill(test, a, 4, 0xc00);
	map_huge(test, &s, BASE + PMD_SIZE);
	unsigned long rss = get_mm_rss(s.mm);
	KUNIT_EXPECT_EQ(test, rss, HPAGE_PMD_NR + 4);
	struct mremap_stats before, after;

	/* Mutually aligned: the PTEs, then the huge PMD whole. */
	unsigned long good = BASE + 8 * PMD_SIZE - 4 * P;
	mremap_stats_read(&before);
	KUNIT_EXPECT_EQ(test, remap(&s, a, PMD_SIZE + 4 * P, PMD_SIZE + 4 * P, FIXED, good), good);
	mremap_stats_read(&after);
	KUNIT_EXPECT_EQ(test, after.huge_pmds_moved - before.huge_pmds_moved, 1);
	KUNIT_EXPECT_EQ(test, after.ptes_moved - before.ptes_moved, 4);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), rss);
	KUNIT_EXPECT_EQ(test, mismatches(good, 4, 0xc00), 0);
	u64 v = 0;
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)(BASE + 8 * PMD_SIZE)), 0);
	KUNIT_EXPECT_EQ(test, v, BASE + PMD_SIZE); /* the same huge page */
	KUNIT_EXPECT_TRUE(test, pmd_trans_huge(pmdp_get(pmd_of(s.mm, BASE + 8 * PMD_SIZE))));
	KUNIT_EXPECT_FALSE(test, readable(BASE + PMD_SIZE));

	/* Mutually misaligned: the huge PMD is met part way (a 4-page
	 * extent), split, and its entries move. */
	unsigned long bad = BASE + 16 * PMD_SIZE - 8 * P;
	unsigned long splits = all_vm_events(THP_SPLIT_PMD);
	static char captured[1024];
	struct printk_capture cap;
	printk_capture_begin(&cap, captured, sizeof(captured));
	mremap_stats_read(&before);
	unsigned long r = remap(&s, good, PMD_SIZE + 4 * P, PMD_SIZE + 4 * P, FIXED, bad);
	mremap_stats_read(&after);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, r, bad);
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SPLIT_PMD), splits + 1);
	KUNIT_EXPECT_EQ(test, after.huge_pmds_moved - before.huge_pmds_moved, 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), rss);
	KUNIT_EXPECT_EQ(test, s.mm->map_count, 1);
	KUNIT_EXPECT_EQ(test, mismatches(bad, 4, 0xc00), 0);
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)(bad + 4 * P)), 0);
	KUNIT_EXPECT_EQ(test, v, BASE + PMD_SIZE);
	KUNIT_EXPECT_FALSE(test, readable(good));
	KUNIT_EXPECT_NULL(test, strstr(captured, "BUG"));
	space_destroy(test, &s); /* the split pages are freed by the exit's zap */
}

static struct fault_attr saved_attr;

static void injection_off(void *unused)
{
	(void)unused;
	fault_attr_arm(false);
	fail_page_alloc = saved_attr;
}

/* Every page allocation of this task fails once `pages` pages went through. */
static void injection_on(struct kunit *test, unsigned long pages)
{
	saved_attr = fail_page_alloc;
	fail_page_alloc = (struct fault_attr){ .probability = 100, .interval = 1, .times = -1,
					       .space = (long)(pages * P), .only_task = current };
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, injection_off, NULL), 0);
	fault_attr_arm(true);
}

/* Pages every 128 KiB of a 4-table range, moved back and forth between two
 * places 1 MiB out of step, so that every step moves entries one by one,
 * each source table is read by two steps and each destination table is
 * new. Memory is cut off after 0, 1, 2, ... pages: each mremap either
 * fails with -ENOMEM and leaves every page where it was, or moves them
 * all. In refcount mode a source table is freed when its last entry
 * leaves, so a move that allocated as it went (Linux's way) and then
 * moved back when memory ran out would need a table again, and with none
 * to be had the pages were lost with the new VMA: prepare_move takes
 * everything before the first entry moves. */
static void a_move_short_of_memory_loses_nothing(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	const unsigned long len = 4 * PMD_SIZE, stride = 32 * P, n = len / stride;
	const unsigned long place[2] = { BASE, BASE + 64 * PMD_SIZE + PMD_SIZE / 2 };
	unsigned long at = 0, failed = 0, moved = 0;
	map(test, &s, place[0], len, MAP_NORESERVE);
	for (unsigned long i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, put_user_u64(0x5eed + i, (void *)(place[0] + i * stride)), 0);
	unsigned long rss = get_mm_rss(s.mm);
	for (unsigned long pages = 0; pages <= 12; pages++) {
		unsigned long to = place[at ^ 1];
		injection_on(test, pages);
		unsigned long r = remap(&s, place[at], len, len, FIXED, to);
		kunit_release_action(test, injection_off, NULL);
		if (r == to) {
			at ^= 1;
			moved++;
		} else {
			KUNIT_EXPECT_EQ(test, (long)r, -ENOMEM);
			failed++;
		}
		unsigned long wrong = 0;
		for (unsigned long i = 0; i < n; i++) {
			u64 v = 0;
			wrong += get_user_u64(&v, (void *)(place[at] + i * stride)) || v != 0x5eed + i;
		}
		if (wrong)
			kunit_info(test, "after a cut-off at %lu pages: %lu pages wrong", pages, wrong);
		KUNIT_EXPECT_EQ(test, wrong, 0);
		KUNIT_EXPECT_FALSE(test, readable(place[at ^ 1]));
		KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), rss);
		KUNIT_EXPECT_EQ(test, s.mm->map_count, 1);
		KUNIT_EXPECT_EQ(test, pte_ref_verify(s.mm), 0);
	}
	kunit_info(test, "%lu moves refused for memory, %lu done", failed, moved);
	KUNIT_EXPECT_GT(test, failed, 0);
	KUNIT_EXPECT_GT(test, moved, 0);
	space_destroy(test, &s);
}

static struct kunit_case mremap_cases[] = {
	KUNIT_CASE(errnos_in_linux_order),
	KUNIT_CASE(shrink_unmaps_the_tail),
	KUNIT_CASE(grow_in_place_charges_and_merges),
	KUNIT_CASE(locked_growth_is_populated),
	KUNIT_CASE(move_to_a_free_range),
	KUNIT_CASE(move_fixed_replaces_the_destination),
	KUNIT_CASE(dontunmap_leaves_the_old_vma_empty),
	KUNIT_CASE(whole_table_moves_as_a_table),
	KUNIT_CASE(range_inside_a_table_moves_entry_by_entry),
	KUNIT_CASE(moves_merge_as_linux),
	KUNIT_CASE(huge_pmd_moves_whole_or_split),
	KUNIT_CASE(a_move_short_of_memory_loses_nothing),
	{}
};

static struct kunit_suite mremap_suite = {
	.name = "mremap",
	.test_cases = mremap_cases,
};
kunit_test_suite(mremap_suite);
