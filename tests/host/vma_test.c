/* Host tests of the VMA layer (mm/vma.c, mm/mmap.c, mm/mprotect.c,
 * mm/madvise.c) under ASan+UBSan, with mm/memory.c, the mmu_gather and
 * kmalloc replaced by recording stubs (vma_stubs.c): every errno of mmap,
 * munmap, mprotect, madvise and brk against Linux's, in Linux's order of
 * checks; splits and merges; MAP_FIXED replacing; which ranges get
 * unmapped, zapped, re-protected and populated; the floors and ceilings
 * given to free_pgd_range. Every case ends with the full invariant check
 * of the mm (check_mm) and with every VMA freed. The rbtree cases are in
 * vma_rbtree.c, the randomized ones in vma_random.c. */
#include "tests/host/vma_test.h"
#include "tests/host/shim.h"
#include "tests/host/vma_rbtree.h"

#include <stdlib.h>
#include <string.h>

struct mm_struct *mm;
#define A 0x10000000ul /* a quiet place for MAP_FIXED mappings */

void map_fixed(struct ktest *t, unsigned long addr, unsigned long pages, unsigned long prot,
	       unsigned long extra_flags)
{
	KTEST_ASSERT_EQ(t, MMAP(addr, P(pages), prot, ANON | MAP_FIXED | extra_flags), addr);
}

unsigned long flags_at(unsigned long addr)
{
	struct vm_area_struct *v = find_vma(mm, addr);
	return v && v->vm_start <= addr ? v->vm_flags : 0;
}

static void init_case(struct ktest *t)
{
	(void)t;
	if (mm)
		test_mm_free(mm);
	mm = test_mm_alloc();
	sysctl_max_map_count = DEFAULT_MAX_MAP_COUNT;
	stub_reset_all();
}

/* The end of every case: invariants, then nothing left allocated. */
static void finish(struct ktest *t)
{
	check_mm(t, mm);
	test_mm_free(mm);
	mm = NULL;
	KTEST_EXPECT_EQ(t, stub_live_objects, 0);
	KTEST_EXPECT_EQ(t, stub_errors, 0);
}

static void mmap_errnos_in_linux_order(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, MMAP(0, 0, RW, ANON), -EINVAL);
	KTEST_EXPECT_EQ(t, MMAP(0, 0, RW, MAP_ANONYMOUS), -EINVAL); /* len before type */
	KTEST_EXPECT_EQ(t, MMAP(0, ~0ul, RW, ANON), -ENOMEM);       /* aligns up to 0 */
	KTEST_EXPECT_EQ(t, MMAP(0, -PAGE_SIZE + 1, RW, ANON), -ENOMEM);
	KTEST_EXPECT_EQ(t, MMAP(0, TASK_SIZE + PAGE_SIZE, RW, ANON), -ENOMEM);
	KTEST_EXPECT_EQ(t, MMAP(A + 0x123, P(1), RW, ANON | MAP_FIXED), -EINVAL);
	KTEST_EXPECT_EQ(t, MMAP(A + 0x123, P(1), RW, ANON | MAP_FIXED_NOREPLACE), -EINVAL);
	KTEST_EXPECT_EQ(t, MMAP(TASK_SIZE - P(1), P(2), RW, ANON | MAP_FIXED), -ENOMEM);
	KTEST_EXPECT_EQ(t, MMAP(TASK_SIZE + 1, P(1), RW, ANON | MAP_FIXED), -ENOMEM); /* before EINVAL */
	KTEST_EXPECT_EQ(t, MMAP(0x1000, P(1), RW, ANON | MAP_FIXED), -EPERM);       /* < mmap_min_addr */
	KTEST_EXPECT_EQ(t, MMAP(0, P(1), RW, ANON | MAP_FIXED), -EPERM);
	KTEST_EXPECT_EQ(t, MMAP(0x1000, P(1), RW, MAP_ANONYMOUS | MAP_FIXED), -EPERM); /* before type */
	KTEST_EXPECT_EQ(t, MMAP(0, P(1), RW, MAP_ANONYMOUS), -EINVAL);               /* no type */
	KTEST_EXPECT_EQ(t, MMAP(0, P(1), RW, MAP_SHARED_VALIDATE | MAP_ANONYMOUS), -EINVAL);
	KTEST_EXPECT_EQ(t, MMAP(0, P(1), RW, 0x0f | MAP_ANONYMOUS), -EINVAL);
	KTEST_EXPECT_EQ(t, MMAP(0, P(1), RW, MAP_SHARED | MAP_ANONYMOUS | MAP_GROWSDOWN), -EINVAL);
	KTEST_EXPECT_EQ(t, MMAP(0, P(1), RW, ANON | MAP_HUGETLB), -ENOMEM);
	KTEST_EXPECT_EQ(t, MMAP(0, P(1), RW, ANON | MAP_HUGETLB | (22 << MAP_HUGE_SHIFT)), -EINVAL); /* no 4 MiB size */
	KTEST_EXPECT_EQ(t, mm->map_count, 0);
	KTEST_EXPECT_EQ(t, nr_stub_calls, 0);
	/* NOREPLACE's -EEXIST comes before the type check. */
	map_fixed(t, A, 4, RW, 0);
	KTEST_EXPECT_EQ(t, MMAP(A + P(3), P(2), RW, MAP_ANONYMOUS | MAP_FIXED_NOREPLACE), -EEXIST);
	KTEST_EXPECT_EQ(t, MMAP(A + P(3), P(2), RW, ANON | MAP_FIXED_NOREPLACE), -EEXIST);
	KTEST_EXPECT_EQ(t, MMAP(A - P(1), P(1), PROT_READ, ANON | MAP_FIXED_NOREPLACE), A - P(1));
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	/* Too many mappings. */
	sysctl_max_map_count = 1;
	KTEST_EXPECT_EQ(t, MMAP(0, P(1), RW, ANON), -ENOMEM);
	finish(t);
}

static void mmap_ignores_unknown_bits_as_linux(struct ktest *t)
{
	/* mmap never validates prot (only mprotect does) nor, without
	 * MAP_SHARED_VALIDATE, the flags. */
	long a = MMAP(0, P(1), RW | 0x10 | PROT_GROWSDOWN, ANON);
	KTEST_ASSERT_GE(t, a, 0);
	KTEST_EXPECT_EQ(t, flags_at(a), VM_RW | VM_ACCOUNT); /* accountable_mapping */
	a = MMAP(0, P(1), PROT_READ, ANON | MAP_DENYWRITE | MAP_EXECUTABLE | 0x400000);
	KTEST_ASSERT_GE(t, a, 0);
	KTEST_EXPECT_EQ(t, flags_at(a), VM_R);
	finish(t);
}

static void mmap_flags_become_vm_flags(struct ktest *t)
{
	/* Private writable memory is accounted (VM_ACCOUNT, Linux's
	 * accountable_mapping in mmap_region) unless MAP_NORESERVE. */
	map_fixed(t, A, 1, PROT_NONE, 0);
	KTEST_EXPECT_EQ(t, flags_at(A), VM_MAY);
	map_fixed(t, A + P(2), 1, RW | PROT_EXEC, 0);
	KTEST_EXPECT_EQ(t, flags_at(A + P(2)), VM_RW | VM_EXEC | VM_ACCOUNT);
	map_fixed(t, A + P(4), 1, RW, MAP_NORESERVE);
	KTEST_EXPECT_EQ(t, flags_at(A + P(4)), VM_RW | VM_NORESERVE);
	map_fixed(t, A + P(6), 1, RW, MAP_STACK);
	KTEST_EXPECT_EQ(t, flags_at(A + P(6)), VM_RW | VM_NOHUGEPAGE | VM_ACCOUNT);
	map_fixed(t, A + P(8), 1, RW, MAP_GROWSDOWN);
	KTEST_EXPECT_EQ(t, flags_at(A + P(8)), VM_RW | VM_GROWSDOWN | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, find_vma(mm, A + P(8))->vm_page_prot,
			vm_get_page_prot(VM_RW | VM_GROWSDOWN | VM_ACCOUNT));
	KTEST_EXPECT_EQ(t, stub_count(CALL_POPULATE), 0);

	/* MAP_POPULATE of private writable memory faults it in as writes
	 * (populate_vma_page_range's FOLL_WRITE), of read-only memory as
	 * reads. */
	map_fixed(t, A + P(10), 3, RW, MAP_POPULATE);
	const struct stub_call *c = stub_find(CALL_POPULATE, 0);
	KTEST_ASSERT_NOT_NULL(t, c);
	KTEST_EXPECT_EQ(t, c->start, A + P(10));
	KTEST_EXPECT_EQ(t, c->end, A + P(13));
	KTEST_EXPECT_EQ(t, c->prot, true);
	KTEST_EXPECT_EQ(t, stub_present_pages(), 3);
	map_fixed(t, A + P(14), 3, RW, MAP_POPULATE | MAP_NONBLOCK);
	KTEST_EXPECT_EQ(t, stub_count(CALL_POPULATE), 1);
	map_fixed(t, A + P(18), 2, RW, MAP_LOCKED);
	KTEST_EXPECT_EQ(t, flags_at(A + P(18)), VM_RW | VM_LOCKED | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, stub_count(CALL_POPULATE), 2);
	KTEST_EXPECT_EQ(t, stub_find(CALL_POPULATE, 1)->prot, true);
	map_fixed(t, A + P(24), 2, PROT_READ, MAP_POPULATE);
	KTEST_ASSERT_EQ(t, stub_count(CALL_POPULATE), 3);
	KTEST_EXPECT_EQ(t, stub_find(CALL_POPULATE, 2)->prot, false);
	KTEST_EXPECT_EQ(t, stub_find(CALL_POPULATE, 2)->start, A + P(24));
	/* A populate failure does not fail mmap (mm_populate ignores it). */
	populate_fails = true;
	map_fixed(t, A + P(21), 2, RW, MAP_POPULATE);
	KTEST_EXPECT_EQ(t, mm->total_vm, 17);
	KTEST_EXPECT_EQ(t, mm->hiwater_vm, 17);
	finish(t);
}

static void mmap_hint_then_top_down(struct ktest *t)
{
	/* No hint: right below mmap_base, and the next one below it merges. */
	KTEST_EXPECT_EQ(t, MMAP(0, P(4), RW, ANON), MMAP_BASE - P(4));
	KTEST_EXPECT_EQ(t, MMAP(0, P(2), RW, ANON), MMAP_BASE - P(6));
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	/* A free hint is taken, rounded down to a page. */
	KTEST_EXPECT_EQ(t, MMAP(A + 0x123, P(2), RW, ANON), A);
	/* A hint below mmap_min_addr becomes mmap_min_addr. */
	KTEST_EXPECT_EQ(t, MMAP(0x1000, P(1), RW, ANON), mmap_min_addr);
	/* A taken hint, or one that runs past TASK_SIZE, is ignored. */
	KTEST_EXPECT_EQ(t, MMAP(A + P(1), P(1), PROT_READ, ANON), MMAP_BASE - P(7));
	KTEST_EXPECT_EQ(t, MMAP(TASK_SIZE - P(1), P(2), PROT_READ, ANON), MMAP_BASE - P(9));
	/* Above mmap_base there is room (the stack's place) for a hint. */
	KTEST_EXPECT_EQ(t, MMAP(TASK_SIZE - P(2), P(2), PROT_READ, ANON), TASK_SIZE - P(2));
	KTEST_EXPECT_EQ(t, mm->highest_vm_end, TASK_SIZE);
	/* NOREPLACE: the exact place or -EEXIST, nothing changed. */
	KTEST_EXPECT_EQ(t, MMAP(A + P(2), P(1), PROT_READ, ANON | MAP_FIXED_NOREPLACE), A + P(2));
	int before = mm->map_count;
	KTEST_EXPECT_EQ(t, MMAP(A, P(8), PROT_READ, ANON | MAP_FIXED_NOREPLACE), -EEXIST);
	KTEST_EXPECT_EQ(t, mm->map_count, before);
	KTEST_EXPECT_EQ(t, flags_at(A), VM_RW | VM_ACCOUNT);
	finish(t);
}

static void search_falls_back_bottom_up(struct ktest *t)
{
	/* Nothing fits below mmap_base: bottom-up from TASK_UNMAPPED_BASE. */
	mm->mmap_base = mmap_min_addr + P(16);
	KTEST_EXPECT_EQ(t, MMAP(0, P(8), RW, ANON), mmap_min_addr + P(8));
	KTEST_EXPECT_EQ(t, MMAP(0, P(32), RW, ANON), TASK_UNMAPPED_BASE);
	KTEST_EXPECT_EQ(t, MMAP(0, P(32), PROT_READ, ANON), TASK_UNMAPPED_BASE + P(32));
	/* MAP_32BIT: bottom-up within [1 GiB, 2 GiB). */
	KTEST_EXPECT_EQ(t, MMAP(0, P(1), RW, ANON | MAP_32BIT), 0x40000000);
	KTEST_EXPECT_EQ(t, MMAP(0, P(1), PROT_READ, ANON | MAP_32BIT), 0x40001000);
	map_fixed(t, 0x40000000, 0x40000, PROT_NONE, 0);
	KTEST_EXPECT_EQ(t, MMAP(0, P(1), RW, ANON | MAP_32BIT), -ENOMEM);
	/* Everything taken: -ENOMEM. */
	map_fixed(t, mmap_min_addr, (TASK_SIZE - mmap_min_addr) >> PAGE_SHIFT, PROT_NONE, 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, MMAP(0, P(1), RW, ANON), -ENOMEM);
	KTEST_EXPECT_EQ(t, get_unmapped_area(mm, 0, P(1), 0), -ENOMEM);
	KTEST_EXPECT_EQ(t, get_unmapped_area(mm, 0, TASK_SIZE + 1, 0), -ENOMEM);
	finish(t);
}

static void map_fixed_replaces_what_is_there(struct ktest *t)
{
	map_fixed(t, A, 8, RW, MAP_POPULATE);
	stub_reset();
	map_fixed(t, A + P(3), 2, PROT_READ, 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 3);
	KTEST_EXPECT_EQ(t, mm->total_vm, 8);
	KTEST_EXPECT_EQ(t, stub_count(CALL_UNMAP), 1);
	const struct stub_call *u = stub_find(CALL_UNMAP, 0), *f = stub_find(CALL_FREE_PGD, 0);
	KTEST_ASSERT_NOT_NULL(t, u);
	KTEST_ASSERT_NOT_NULL(t, f);
	KTEST_EXPECT_EQ(t, u->start, A + P(3));
	KTEST_EXPECT_EQ(t, u->end, A + P(5));
	KTEST_EXPECT_EQ(t, f->start, A + P(3));
	KTEST_EXPECT_EQ(t, f->end, A + P(5));
	KTEST_EXPECT_EQ(t, f->floor, A + P(3));
	KTEST_EXPECT_EQ(t, f->ceiling, A + P(5));
	KTEST_EXPECT_FALSE(t, stub_page_present(A + P(3)));
	KTEST_EXPECT_TRUE(t, stub_page_present(A + P(5)));
	/* The same flags again: one VMA. */
	map_fixed(t, A + P(3), 2, RW, 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	/* Across several VMAs and holes. */
	map_fixed(t, A + P(10), 2, PROT_READ, 0);
	map_fixed(t, A + P(14), 2, PROT_NONE, 0);
	stub_reset();
	map_fixed(t, A + P(6), 12, PROT_READ | PROT_EXEC, 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, stub_count(CALL_UNMAP), 3);
	KTEST_EXPECT_EQ(t, stub_count(CALL_GATHER), 1);
	KTEST_EXPECT_EQ(t, stub_count(CALL_FINISH), 1);
	KTEST_EXPECT_EQ(t, mm->total_vm, 18);
	/* A failed allocation leaves the old mapping as it was. */
	kmalloc_fail_in = 1;
	KTEST_EXPECT_EQ(t, MMAP(A + P(2), P(2), PROT_NONE, ANON | MAP_FIXED), -ENOMEM);
	KTEST_EXPECT_EQ(t, flags_at(A + P(2)), VM_RW | VM_ACCOUNT);
	kmalloc_fail_in = 2; /* the split */
	KTEST_EXPECT_EQ(t, MMAP(A + P(2), P(2), PROT_NONE, ANON | MAP_FIXED), -ENOMEM);
	KTEST_EXPECT_EQ(t, flags_at(A + P(2)), VM_RW | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	finish(t);
}

static void munmap_errnos(struct ktest *t)
{
	map_fixed(t, A, 4, RW, 0);
	stub_reset();
	KTEST_EXPECT_EQ(t, do_munmap(mm, A + 1, P(1)), -EINVAL);
	KTEST_EXPECT_EQ(t, do_munmap(mm, A, 0), -EINVAL);
	KTEST_EXPECT_EQ(t, do_munmap(mm, TASK_SIZE + P(1), P(1)), -EINVAL);
	KTEST_EXPECT_EQ(t, do_munmap(mm, TASK_SIZE, 1), -EINVAL);
	KTEST_EXPECT_EQ(t, do_munmap(mm, A, TASK_SIZE), -EINVAL);
	KTEST_EXPECT_EQ(t, do_munmap(mm, A, -PAGE_SIZE), -EINVAL);
	KTEST_EXPECT_EQ(t, nr_stub_calls, 0);
	/* Nothing mapped there: success, and nothing done. */
	KTEST_EXPECT_EQ(t, do_munmap(mm, A + P(4), P(100)), 0);
	KTEST_EXPECT_EQ(t, do_munmap(mm, 0, P(16)), 0);
	KTEST_EXPECT_EQ(t, nr_stub_calls, 0);
	/* A length of one byte is a page. */
	KTEST_EXPECT_EQ(t, do_munmap(mm, A + P(3), 1), 0);
	KTEST_EXPECT_EQ(t, mm->highest_vm_end, A + P(3));
	KTEST_EXPECT_EQ(t, mm->total_vm, 3);
	/* All of the user half at once. */
	KTEST_EXPECT_EQ(t, do_munmap(mm, 0, TASK_SIZE), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 0);
	finish(t);
}

static void munmap_partial_and_multiple_vmas(struct ktest *t)
{
	map_fixed(t, A, 4, PROT_READ, MAP_POPULATE);
	map_fixed(t, A + P(4), 4, RW, MAP_POPULATE);
	map_fixed(t, A + P(8), 4, PROT_NONE, 0);
	map_fixed(t, A + P(16), 2, RW, 0);
	map_fixed(t, A - P(4), 2, RW, 0);
	stub_reset();
	/* Half of the first, all of the second, half of the third. */
	KTEST_EXPECT_EQ(t, do_munmap(mm, A + P(2), P(8)), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 4);
	KTEST_EXPECT_EQ(t, mm->total_vm, 8);
	KTEST_EXPECT_EQ(t, stub_count(CALL_GATHER), 1);
	KTEST_EXPECT_EQ(t, stub_count(CALL_FINISH), 1);
	KTEST_ASSERT_EQ(t, stub_count(CALL_UNMAP), 3);
	KTEST_EXPECT_EQ(t, stub_find(CALL_UNMAP, 0)->start, A + P(2));
	KTEST_EXPECT_EQ(t, stub_find(CALL_UNMAP, 0)->end, A + P(4));
	KTEST_EXPECT_EQ(t, stub_find(CALL_UNMAP, 1)->start, A + P(4));
	KTEST_EXPECT_EQ(t, stub_find(CALL_UNMAP, 2)->end, A + P(10));
	const struct stub_call *f = stub_find(CALL_FREE_PGD, 0);
	KTEST_ASSERT_NOT_NULL(t, f);
	KTEST_EXPECT_EQ(t, f->start, A + P(2));
	KTEST_EXPECT_EQ(t, f->end, A + P(10));
	KTEST_EXPECT_EQ(t, f->floor, A + P(2));    /* the first VMA's new end */
	KTEST_EXPECT_EQ(t, f->ceiling, A + P(10)); /* the third's new start */
	KTEST_EXPECT_EQ(t, stub_present_pages(), 2);
	KTEST_EXPECT_EQ(t, flags_at(A + P(1)), VM_R);
	KTEST_EXPECT_EQ(t, flags_at(A + P(10)), VM_MAY);
	/* The tail of one VMA. */
	stub_reset();
	KTEST_EXPECT_EQ(t, do_munmap(mm, A + P(1), P(1)), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 4);
	KTEST_EXPECT_EQ(t, stub_find(CALL_FREE_PGD, 0)->floor, A + P(1));
	KTEST_EXPECT_EQ(t, stub_find(CALL_FREE_PGD, 0)->ceiling, A + P(10));
	/* Over holes and several VMAs with room around. */
	stub_reset();
	KTEST_EXPECT_EQ(t, do_munmap(mm, A - P(8), P(19)), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	f = stub_find(CALL_FREE_PGD, 0);
	KTEST_EXPECT_EQ(t, f->floor, 0);              /* nothing below */
	KTEST_EXPECT_EQ(t, f->ceiling, A + P(11));    /* the rest of the third */
	/* The last ones: no neighbours at all. */
	stub_reset();
	KTEST_EXPECT_EQ(t, do_munmap(mm, A, P(32)), 0);
	f = stub_find(CALL_FREE_PGD, 0);
	KTEST_EXPECT_EQ(t, f->floor, 0);
	KTEST_EXPECT_EQ(t, f->ceiling, 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 0);
	KTEST_EXPECT_EQ(t, mm->highest_vm_end, 0);
	KTEST_EXPECT_EQ(t, mm->hiwater_vm, 16);
	/* The middle of one VMA: it splits in two. */
	map_fixed(t, A, 10, RW, 0);
	stub_reset();
	KTEST_EXPECT_EQ(t, do_munmap(mm, A + P(4), P(2)), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, stub_find(CALL_FREE_PGD, 0)->floor, A + P(4));
	KTEST_EXPECT_EQ(t, stub_find(CALL_FREE_PGD, 0)->ceiling, A + P(6));
	KTEST_EXPECT_EQ(t, mm->total_vm, 8);
	finish(t);
}

static void munmap_failures_change_nothing(struct ktest *t)
{
	map_fixed(t, A, 8, RW, 0);
	kmalloc_fail_in = 1;
	KTEST_EXPECT_EQ(t, do_munmap(mm, A + P(2), P(2)), -ENOMEM);
	kmalloc_fail_in = 2;
	KTEST_EXPECT_EQ(t, do_munmap(mm, A + P(2), P(2)), -ENOMEM);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, mm->total_vm, 8);
	KTEST_EXPECT_EQ(t, stub_count(CALL_UNMAP), 0);
	/* At the map-count limit a VMA cannot be cut in three, but its
	 * head or tail can go (Linux lets the count pass the limit). */
	sysctl_max_map_count = 1;
	KTEST_EXPECT_EQ(t, do_munmap(mm, A + P(2), P(2)), -ENOMEM);
	KTEST_EXPECT_EQ(t, do_munmap(mm, A, P(1)), 0);
	KTEST_EXPECT_EQ(t, do_munmap(mm, A + P(7), P(1)), 0);
	KTEST_EXPECT_EQ(t, mm->total_vm, 6);
	finish(t);
}

/* The mprotect cases write their memory first (MAP_POPULATE of private
 * writable memory faults it in as writes, which gives the VMA its
 * anon_vma), so that VM_ACCOUNT stays when it becomes read-only:
 * mprotect_fixup drops it only from anonymous VMAs without an anon_vma
 * (see the anon_vma cases further down). */
static void mprotect_errnos(struct ktest *t)
{
	map_fixed(t, A, 4, RW, MAP_POPULATE);
	stub_reset();
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + 1, P(1), PROT_READ), -EINVAL);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + 1, 0, PROT_READ), -EINVAL); /* alignment first */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, 0, PROT_READ), 0);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, 0, 0, 0x1234), 0);              /* len 0 before prot */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, P(1), 0x10), -EINVAL);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, P(1), PROT_GROWSDOWN | PROT_GROWSUP), -EINVAL);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, -PAGE_SIZE, 0x10), -ENOMEM); /* wraps: before prot */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, ~0ul, PROT_READ), -ENOMEM);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, P(1), PROT_READ | PROT_GROWSUP), -EINVAL);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, P(1), PROT_READ | PROT_GROWSDOWN), -EINVAL);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(8), P(1), PROT_READ), -ENOMEM);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(8), P(1), PROT_READ | PROT_GROWSUP), -ENOMEM);
	KTEST_EXPECT_EQ(t, nr_stub_calls, 0);
	KTEST_EXPECT_EQ(t, flags_at(A), VM_RW | VM_ACCOUNT);
	/* PROT_SEM is accepted (and means nothing). */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, P(4), PROT_READ | 0x8), 0);
	KTEST_EXPECT_EQ(t, flags_at(A), VM_R | VM_ACCOUNT);
	finish(t);
}

static void mprotect_holes_give_enomem_after_the_mapped_part(struct ktest *t)
{
	map_fixed(t, A, 4, RW, MAP_POPULATE);
	map_fixed(t, A + P(6), 4, RW, MAP_POPULATE);
	stub_reset();
	/* From a hole: nothing changes. */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(4), P(6), PROT_READ), -ENOMEM);
	KTEST_EXPECT_EQ(t, flags_at(A + P(6)), VM_RW | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, stub_count(CALL_CHPROT), 0);
	/* A hole in the middle: the part before it changed. */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(2), P(8), PROT_READ), -ENOMEM);
	KTEST_EXPECT_EQ(t, flags_at(A + P(1)), VM_RW | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, flags_at(A + P(2)), VM_R | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, flags_at(A + P(6)), VM_RW | VM_ACCOUNT);
	KTEST_ASSERT_EQ(t, stub_count(CALL_CHPROT), 1);
	KTEST_EXPECT_EQ(t, stub_find(CALL_CHPROT, 0)->start, A + P(2));
	KTEST_EXPECT_EQ(t, stub_find(CALL_CHPROT, 0)->end, A + P(4));
	KTEST_EXPECT_EQ(t, stub_find(CALL_CHPROT, 0)->prot, vm_get_page_prot(VM_R | VM_ACCOUNT));
	/* A hole at the end. */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(6), P(5), PROT_NONE), -ENOMEM);
	KTEST_EXPECT_EQ(t, flags_at(A + P(9)), VM_MAY | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, mm->map_count, 3);
	finish(t);
}

static void mprotect_splits_and_merges(struct ktest *t)
{
	map_fixed(t, A, 10, RW, MAP_POPULATE);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(3), P(2), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 3);
	KTEST_EXPECT_EQ(t, flags_at(A + P(3)), VM_R | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, flags_at(A + P(5)), VM_RW | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(3), P(2), RW), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	/* Head, then the rest with the same rights: one VMA again. */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, P(2), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(2), P(8), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, flags_at(A), VM_R | VM_ACCOUNT);
	/* Tail into the next VMA, head into the previous one: the new
	 * mapping, written, took the anon_vma of the one below it (they
	 * differ only in access rights: find_mergeable_anon_vma), so Linux
	 * merges them either way. */
	map_fixed(t, A + P(10), 2, RW, MAP_POPULATE);
	KTEST_EXPECT_EQ(t, find_vma(mm, A + P(10))->anon_vma, find_vma(mm, A)->anon_vma);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(8), P(2), RW), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, find_vma(mm, A + P(8))->vm_start, A + P(8));
	KTEST_EXPECT_EQ(t, find_vma(mm, A + P(8))->vm_end, A + P(12));
	KTEST_EXPECT_EQ(t, flags_at(A + P(8)), VM_RW | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(8), P(1), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, find_vma(mm, A)->vm_end, A + P(9));
	/* A whole VMA after one with the new rights: they merge. */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(9), P(3), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	/* A split without memory, or past the map-count limit. */
	stub_reset();
	kmalloc_fail_in = 2;
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(4), P(1), RW), -ENOMEM);
	sysctl_max_map_count = 2;
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(4), P(1), RW), -ENOMEM);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, stub_count(CALL_CHPROT), 0);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, P(1), RW), 0); /* one split is fine */
	KTEST_EXPECT_EQ(t, mm->total_vm, 12);
	finish(t);
}

static void mprotect_growsdown_starts_at_the_vma(struct ktest *t)
{
	map_fixed(t, A, 4, RW, MAP_GROWSDOWN | MAP_POPULATE);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(2), P(2), PROT_READ | PROT_GROWSDOWN), 0);
	KTEST_EXPECT_EQ(t, flags_at(A), VM_R | VM_GROWSDOWN | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	/* From a hole below it, too. */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A - P(2), P(3), RW | PROT_GROWSDOWN), 0);
	KTEST_EXPECT_EQ(t, flags_at(A), VM_RW | VM_GROWSDOWN | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, flags_at(A + P(1)), VM_R | VM_GROWSDOWN | VM_ACCOUNT);
	finish(t);
}

static void madvise_errnos(struct ktest *t)
{
	map_fixed(t, A, 4, RW, 0);
	map_fixed(t, A + P(4), 2, RW, MAP_LOCKED);
	stub_reset();
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, P(1), 12345), -EINVAL);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + 1, 0, 12345), -EINVAL);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + 1, P(1), MADV_DONTNEED), -EINVAL);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + 1, 0, MADV_DONTNEED), -EINVAL); /* alignment first */
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(100), 0, MADV_DONTNEED), 0);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, ~0ul, MADV_DONTNEED), -EINVAL);   /* len overflow */
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, -A, MADV_NORMAL), -EINVAL);      /* wraps to 0 */
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, -A - P(1), MADV_NORMAL), -ENOMEM); /* to the top: a hole */
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(8), P(1), MADV_DONTNEED), -ENOMEM);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(8), P(1), MADV_WILLNEED), -ENOMEM);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, P(1), MADV_REMOVE), -EINVAL);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(4), P(1), MADV_DONTNEED), -EINVAL); /* VM_LOCKED */
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(4), P(1), MADV_FREE), -EINVAL);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(4), P(1), MADV_COLD), -EINVAL);
	KTEST_EXPECT_EQ(t, stub_count(CALL_ZAP), 0);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(4), P(1), 24 /* MADV_DONTNEED_LOCKED */), 0);
	KTEST_EXPECT_EQ(t, stub_count(CALL_ZAP), 1);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, P(4), MADV_WILLNEED), 0);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, P(4), MADV_COLD), 0);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, P(4), MADV_PAGEOUT), 0);
	/* Advice that stops the walk: its error, not the hole's. */
	KTEST_EXPECT_EQ(t, do_madvise(mm, A - P(1), P(3), MADV_REMOVE), -EINVAL);
	finish(t);
}

static void madvise_dontneed_zaps_around_holes(struct ktest *t)
{
	map_fixed(t, A, 4, RW, MAP_POPULATE);
	map_fixed(t, A + P(6), 4, PROT_READ, MAP_POPULATE);
	map_fixed(t, A + P(12), 2, RW, MAP_POPULATE);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(2), P(10), MADV_DONTNEED), -ENOMEM);
	KTEST_ASSERT_EQ(t, stub_count(CALL_ZAP), 2);
	KTEST_EXPECT_EQ(t, stub_find(CALL_ZAP, 0)->start, A + P(2));
	KTEST_EXPECT_EQ(t, stub_find(CALL_ZAP, 0)->end, A + P(4));
	KTEST_EXPECT_EQ(t, stub_find(CALL_ZAP, 1)->start, A + P(6));
	KTEST_EXPECT_EQ(t, stub_find(CALL_ZAP, 1)->end, A + P(10));
	KTEST_EXPECT_TRUE(t, stub_page_present(A + P(1)));
	KTEST_EXPECT_FALSE(t, stub_page_present(A + P(2)));
	KTEST_EXPECT_EQ(t, mm->map_count, 3); /* VMAs stay */
	/* MADV_FREE frees at once here. */
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(12), P(2), MADV_FREE), 0);
	KTEST_EXPECT_EQ(t, stub_present_pages(), 2);
	/* A hole at the start only. */
	KTEST_EXPECT_EQ(t, do_madvise(mm, A - P(2), P(4), MADV_DONTNEED), -ENOMEM);
	KTEST_EXPECT_EQ(t, stub_present_pages(), 0);
	finish(t);
}

/* sysctl_max_map_count limits splits only (Linux's split_vma): at the
 * limit, a piece that merges into its neighbour still changes, one that
 * needs a split is refused with nothing changed (-ENOMEM from mprotect,
 * -EAGAIN from madvise). */
static void merges_need_no_room_under_max_map_count(struct ktest *t)
{
	map_fixed(t, A, 4, PROT_READ, 0);
	map_fixed(t, A + P(4), 6, RW, 0);
	KTEST_ASSERT_EQ(t, mm->map_count, 2);
	sysctl_max_map_count = 2;
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(6), P(1), PROT_READ), -ENOMEM);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(6), P(1), MADV_HUGEPAGE), -EAGAIN);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, flags_at(A + P(6)), VM_RW | VM_ACCOUNT);
	/* The head of the second VMA joins the first. */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(4), P(1), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, find_vma(mm, A)->vm_end, A + P(5));
	KTEST_EXPECT_EQ(t, flags_at(A + P(4)), VM_R);
	/* At one below the count (mmap may pass the limit by one): the tail
	 * still cannot split off, the whole VMA still merges. */
	sysctl_max_map_count = 1;
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(9), P(1), MADV_HUGEPAGE), -EAGAIN);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(5), P(5), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, find_vma(mm, A)->vm_end, A + P(10));
	finish(t);
}

static void madvise_flags_split_and_merge(struct ktest *t)
{
	map_fixed(t, A, 10, RW, 0);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(3), P(3), MADV_HUGEPAGE), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 3);
	KTEST_EXPECT_EQ(t, flags_at(A + P(3)), VM_RW | VM_ACCOUNT | VM_HUGEPAGE);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, P(10), MADV_HUGEPAGE), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(5), P(5), MADV_NOHUGEPAGE), 0);
	KTEST_EXPECT_EQ(t, flags_at(A + P(9)), VM_RW | VM_ACCOUNT | VM_NOHUGEPAGE);
	KTEST_EXPECT_EQ(t, flags_at(A + P(4)), VM_RW | VM_ACCOUNT | VM_HUGEPAGE);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	/* Over a hole: applied to the mapped parts, then -ENOMEM. */
	map_fixed(t, A + P(12), 2, RW, 0);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, P(14), MADV_NOHUGEPAGE), -ENOMEM);
	KTEST_EXPECT_EQ(t, flags_at(A), VM_RW | VM_ACCOUNT | VM_NOHUGEPAGE);
	KTEST_EXPECT_EQ(t, flags_at(A + P(12)), VM_RW | VM_ACCOUNT | VM_NOHUGEPAGE);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	/* The other flag advice. */
	static const struct { int advice; unsigned long set, clear; } advice[] = {
		{ MADV_SEQUENTIAL, VM_SEQ_READ, 0 },
		{ MADV_RANDOM, VM_RAND_READ, VM_SEQ_READ },
		{ MADV_NORMAL, 0, VM_RAND_READ },
		{ MADV_DONTFORK, VM_DONTCOPY, 0 },
		{ MADV_DOFORK, 0, VM_DONTCOPY },
		{ 18 /* MADV_WIPEONFORK */, VM_WIPEONFORK, 0 },
		{ 19 /* MADV_KEEPONFORK */, 0, VM_WIPEONFORK },
		{ MADV_DONTDUMP, VM_DONTDUMP, 0 },
		{ MADV_DODUMP, 0, VM_DONTDUMP },
	};
	for (size_t i = 0; i < ARRAY_SIZE(advice); i++) {
		unsigned long before = flags_at(A + P(1));
		KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(1), P(1), advice[i].advice), 0);
		KTEST_EXPECT_EQ(t, flags_at(A + P(1)), (before | advice[i].set) & ~advice[i].clear);
	}
	KTEST_EXPECT_EQ(t, mm->map_count, 2); /* back to the same flags: merged */
	/* A split without memory: -EAGAIN, nothing changed. */
	kmalloc_fail_in = 1;
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(1), P(1), MADV_HUGEPAGE), -EAGAIN);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	finish(t);
}

static void madvise_populate(struct ktest *t)
{
	map_fixed(t, A, 4, RW, 0);
	map_fixed(t, A + P(4), 2, PROT_READ, 0);
	map_fixed(t, A + P(6), 2, PROT_NONE, 0);
	/* Linux's madvise_populate: write = behavior == MADV_POPULATE_WRITE,
	 * handed to faultin_page_range (FOLL_WRITE or not). */
	stub_reset();
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, P(4), 23 /* MADV_POPULATE_WRITE */), 0);
	KTEST_EXPECT_EQ(t, stub_present_pages(), 4);
	KTEST_ASSERT_EQ(t, stub_count(CALL_POPULATE), 1);
	KTEST_EXPECT_EQ(t, stub_find(CALL_POPULATE, 0)->prot, true);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, P(6), 23), -EINVAL);
	stub_reset();
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, P(6), 22 /* MADV_POPULATE_READ */), 0);
	/* Reads, also of the writable VMA: never-written pages get the zero
	 * page. */
	KTEST_ASSERT_EQ(t, stub_count(CALL_POPULATE), 2);
	KTEST_EXPECT_EQ(t, stub_find(CALL_POPULATE, 0)->start, A);
	KTEST_EXPECT_EQ(t, stub_find(CALL_POPULATE, 0)->end, A + P(4));
	KTEST_EXPECT_EQ(t, stub_find(CALL_POPULATE, 0)->prot, false);
	KTEST_EXPECT_EQ(t, stub_find(CALL_POPULATE, 1)->start, A + P(4));
	KTEST_EXPECT_EQ(t, stub_find(CALL_POPULATE, 1)->prot, false);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(4), P(4), 22), -EINVAL);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A - P(1), P(2), 22), -ENOMEM);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(5), P(8), 22), -EINVAL);
	populate_fails = true;
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, P(1), 22), -ENOMEM);
	KTEST_EXPECT_EQ(t, stub_present_pages(), 6);
	finish(t);
}

static void brk_grows_shrinks_and_refuses_collisions(struct ktest *t)
{
	const unsigned long B = 0x600000;
	map_fixed(t, B - P(1), 1, RW, 0); /* the bss before it */
	mm->start_brk = mm->brk = B;
	KTEST_EXPECT_EQ(t, do_brk(mm, B - 1), B);         /* below start_brk */
	KTEST_EXPECT_EQ(t, do_brk(mm, B + 100), B + 100);
	KTEST_EXPECT_EQ(t, mm->brk, B + 100);
	/* do_brk_flags: VM_DATA_DEFAULT_FLAGS | VM_ACCOUNT, the bss's flags,
	 * but [heap] is a VMA of its own (brk_keeps_the_heap_its_own_vma). */
	KTEST_EXPECT_EQ(t, flags_at(B), VM_RW | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, flags_at(B - P(1)), VM_RW | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, find_vma(mm, B)->vm_start, B);
	KTEST_EXPECT_EQ(t, do_brk(mm, B + P(3)), B + P(3));
	KTEST_EXPECT_EQ(t, find_vma(mm, B)->vm_end, B + P(3));
	KTEST_EXPECT_EQ(t, mm->map_count, 2); /* the heap grew in place */
	KTEST_EXPECT_EQ(t, do_brk(mm, B + P(3) - 5), B + P(3) - 5); /* same page */
	KTEST_EXPECT_EQ(t, find_vma(mm, B)->vm_end, B + P(3));
	stub_reset();
	KTEST_EXPECT_EQ(t, do_brk(mm, B + P(1) + 1), B + P(1) + 1);
	KTEST_EXPECT_EQ(t, find_vma(mm, B)->vm_end, B + P(2));
	KTEST_ASSERT_EQ(t, stub_count(CALL_UNMAP), 1);
	KTEST_EXPECT_EQ(t, stub_find(CALL_UNMAP, 0)->start, B + P(2));
	/* A mapping above: the break stops a page below it. */
	map_fixed(t, B + P(16), 1, PROT_READ, 0);
	KTEST_EXPECT_EQ(t, do_brk(mm, B + P(15) + 1), B + P(1) + 1);
	KTEST_EXPECT_EQ(t, do_brk(mm, B + P(15)), B + P(15));
	KTEST_EXPECT_EQ(t, do_brk(mm, ~0ul), B + P(15));
	KTEST_EXPECT_EQ(t, do_brk(mm, TASK_SIZE + P(1)), B + P(15));
	KTEST_EXPECT_EQ(t, mm->brk, B + P(15));
	/* Back to the start: the brk pages are gone, the bss stays. */
	KTEST_EXPECT_EQ(t, do_brk(mm, B), B);
	KTEST_EXPECT_EQ(t, find_vma(mm, B - P(1))->vm_end, B);
	KTEST_EXPECT_EQ(t, mm->total_vm, 2);
	/* Nothing mapped in [newbrk, oldbrk) (the break moved over a hole):
	 * Linux's brk finds no VMA there (vma_find) and keeps the old break. */
	mm->brk = B + P(4);
	KTEST_EXPECT_EQ(t, do_brk(mm, B), B + P(4));
	KTEST_EXPECT_EQ(t, mm->brk, B + P(4));
	/* A foreign mapping in [newbrk, oldbrk) is unmapped with the rest,
	 * as by Linux's do_vmi_align_munmap(newbrk, oldbrk). */
	map_fixed(t, B + P(1), 2, PROT_READ, 0);
	KTEST_EXPECT_EQ(t, do_brk(mm, B), B);
	KTEST_EXPECT_EQ(t, flags_at(B + P(1)), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, mm->total_vm, 2);
	finish(t);
}

/* Linux's brk() looks for the VMA to grow with vma_prev_limit(&vmi,
 * mm->start_brk): none while the gap at the old break begins at or below
 * start_brk, so the first brk never merges with a data VMA ending at
 * start_brk even with identical flags (an ELF bss has VM_DATA_DEFAULT_FLAGS
 * | VM_ACCOUNT, as the heap); do_brk_flags only expands that VMA
 * (VMG_FLAG_JUST_EXPAND), never a mapping above. */
static void brk_keeps_the_heap_its_own_vma(struct ktest *t)
{
	const unsigned long S = 0x800000;
	map_fixed(t, S - P(4), 4, RW, 0); /* data + bss, ending at start_brk */
	mm->start_brk = mm->brk = S;
	KTEST_EXPECT_EQ(t, do_brk(mm, S + P(2)), S + P(2));
	KTEST_ASSERT_EQ(t, mm->map_count, 2);
	struct vm_area_struct *heap = find_vma(mm, S), *data = find_vma(mm, S - P(1));
	KTEST_EXPECT_EQ(t, heap->vm_start, S);
	KTEST_EXPECT_EQ(t, heap->vm_end, S + P(2));
	KTEST_EXPECT_EQ(t, data->vm_end, S);
	KTEST_EXPECT_EQ(t, heap->vm_flags, data->vm_flags);
	KTEST_EXPECT_EQ(t, heap->vm_flags, VM_RW | VM_ACCOUNT);
	/* Growing expands the heap's own VMA. */
	KTEST_EXPECT_EQ(t, do_brk(mm, S + P(5) - 1), S + P(5) - 1);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, find_vma(mm, S)->vm_start, S);
	KTEST_EXPECT_EQ(t, find_vma(mm, S)->vm_end, S + P(5));
	KTEST_EXPECT_EQ(t, find_vma(mm, S - P(1))->vm_end, S);
	check_mm(t, mm);
	/* Down to start_brk and up again: a new heap VMA, still its own. */
	KTEST_EXPECT_EQ(t, do_brk(mm, S), S);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, do_brk(mm, S + P(1)), S + P(1));
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, find_vma(mm, S)->vm_start, S);
	/* Once one VMA reaches across start_brk to the break (here a MAP_FIXED
	 * mapping over the bss's end and the heap, merged with the rest of
	 * the bss), brk grows that VMA: vma_prev_limit returns it, as its end
	 * is above start_brk, whatever its start. */
	map_fixed(t, S - P(1), 2, RW, 0);
	KTEST_ASSERT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, do_brk(mm, S + P(3)), S + P(3));
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, find_vma(mm, S)->vm_start, S - P(4));
	KTEST_EXPECT_EQ(t, find_vma(mm, S)->vm_end, S + P(3));
	KTEST_EXPECT_EQ(t, mm->total_vm, 7);
	finish(t);
}

/* VM_ACCOUNT takes part in merging (Linux's is_mergeable_vma compares all
 * flags but VM_SOFTDIRTY). Written RW memory made read-only keeps it
 * (mprotect_fixup drops it only where no anon_vma exists yet), so it does
 * not merge with a fresh read-only mapping next to it: three VMAs, as
 * Linux gives. */
static void vm_account_decides_merges(struct ktest *t)
{
	map_fixed(t, A, 4, RW, MAP_POPULATE); /* written: an anon_vma in Linux */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(2), P(2), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, flags_at(A + P(2)), VM_R | VM_ACCOUNT);
	map_fixed(t, A + P(4), 2, PROT_READ, 0);
	KTEST_EXPECT_EQ(t, flags_at(A + P(4)), VM_R);
	KTEST_EXPECT_EQ(t, mm->map_count, 3);
	KTEST_EXPECT_EQ(t, find_vma(mm, A + P(2))->vm_end, A + P(4));
	/* Two fresh read-only mappings do merge. */
	map_fixed(t, A + P(6), 2, PROT_READ, 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 3);
	KTEST_EXPECT_EQ(t, find_vma(mm, A + P(4))->vm_end, A + P(8));
	/* Writable again: no new charge, the old flags, one VMA with the
	 * RW part. */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(2), P(2), RW), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, flags_at(A + P(3)), VM_RW | VM_ACCOUNT);
	/* Read-only memory made writable for the first time is charged now
	 * (mprotect_fixup sets VM_ACCOUNT), so it merges with the
	 * accounted RW VMA. */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(4), P(4), RW), 0);
	KTEST_EXPECT_EQ(t, flags_at(A + P(4)), VM_RW | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, find_vma(mm, A)->vm_end, A + P(8));
	finish(t);
}

/* MAP_NORESERVE: Linux's do_mmap sets VM_NORESERVE (overcommit is not
 * OVERCOMMIT_NEVER by default), so accountable_mapping is false: no
 * VM_ACCOUNT, and no merge with an accounted neighbour of otherwise equal
 * rights. mprotect never charges VM_NORESERVE memory either. */
static void map_noreserve_is_not_accounted(struct ktest *t)
{
	map_fixed(t, A, 2, RW, 0);
	map_fixed(t, A + P(2), 2, RW, MAP_NORESERVE);
	KTEST_EXPECT_EQ(t, flags_at(A), VM_RW | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, flags_at(A + P(2)), VM_RW | VM_NORESERVE);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, find_vma(mm, A)->vm_end, A + P(2));
	/* Another NORESERVE mapping next to it merges with it. */
	map_fixed(t, A + P(4), 1, RW, MAP_NORESERVE);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, find_vma(mm, A + P(2))->vm_end, A + P(5));
	/* Read-only NORESERVE memory made writable stays unaccounted. */
	map_fixed(t, A + P(8), 2, PROT_READ, MAP_NORESERVE);
	KTEST_EXPECT_EQ(t, flags_at(A + P(8)), VM_R | VM_NORESERVE);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(8), P(2), RW), 0);
	KTEST_EXPECT_EQ(t, flags_at(A + P(8)), VM_RW | VM_NORESERVE);
	/* And filling the hole between with NORESERVE memory joins them all,
	 * but not with the accounted VMA below. */
	map_fixed(t, A + P(5), 3, RW, MAP_NORESERVE);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, find_vma(mm, A + P(2))->vm_start, A + P(2));
	KTEST_EXPECT_EQ(t, find_vma(mm, A + P(2))->vm_end, A + P(10));
	finish(t);
}

/* A locked private mapping made writable is faulted in as writes
 * (mprotect_fixup's populate_vma_page_range, FOLL_WRITE for private
 * writable VMAs). */
static void mprotect_of_locked_memory_populates_as_writes(struct ktest *t)
{
	map_fixed(t, A, 4, PROT_READ, MAP_LOCKED);
	KTEST_ASSERT_EQ(t, stub_count(CALL_POPULATE), 1);
	KTEST_EXPECT_EQ(t, stub_find(CALL_POPULATE, 0)->prot, false); /* read-only: reads */
	stub_reset();
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(1), P(2), RW), 0);
	KTEST_ASSERT_EQ(t, stub_count(CALL_POPULATE), 1);
	const struct stub_call *c = stub_find(CALL_POPULATE, 0);
	KTEST_EXPECT_EQ(t, c->start, A + P(1));
	KTEST_EXPECT_EQ(t, c->end, A + P(3));
	KTEST_EXPECT_EQ(t, c->prot, true);
	KTEST_EXPECT_EQ(t, flags_at(A + P(1)), VM_RW | VM_LOCKED | VM_ACCOUNT);
	finish(t);
}

/* A write fault in [addr, addr + n pages), as the kernel's: the VMA gets
 * its anon_vma (the stub of populate_vma_range calls anon_vma_prepare). */
static int write_to(unsigned long addr, unsigned long pages)
{
	return populate_vma_range(find_vma(mm, addr), addr, addr + P(pages), true);
}

static struct anon_vma *anon_vma_at(unsigned long addr)
{
	return find_vma(mm, addr)->anon_vma;
}

/* The anon_vma cases (Linux 6.12: mprotect_fixup, is_mergeable_anon_vma,
 * dup_anon_vma, find_mergeable_anon_vma; no fork here, so a VMA's
 * anon_vma_chain has one entry exactly when it has an anon_vma). */

/* mprotect_fixup drops VM_ACCOUNT when an anonymous VMA without an
 * anon_vma (never written) loses VM_WRITE, so an RW mapping made
 * read-only merges with a read-only neighbour, new or already there. */
static void mprotect_of_untouched_memory_drops_vm_account(struct ktest *t)
{
	map_fixed(t, A, 4, RW, 0); /* never written */
	KTEST_ASSERT_EQ(t, do_mprotect(mm, A, P(4), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, flags_at(A), VM_R);
	map_fixed(t, A + P(4), 2, PROT_READ, 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_NULL(t, anon_vma_at(A));
	/* A read fault maps the zero page: still no anon_vma. */
	map_fixed(t, A + P(8), 2, RW, 0);
	KTEST_EXPECT_EQ(t, populate_vma_range(find_vma(mm, A + P(8)), A + P(8), A + P(10), false), 0);
	KTEST_EXPECT_NULL(t, anon_vma_at(A + P(8)));
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(8), P(2), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, flags_at(A + P(8)), VM_R);
	/* The neighbour there first: the changed VMA merges into it. */
	map_fixed(t, A + P(6), 2, RW, 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 3);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(6), P(2), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, flags_at(A + P(9)), VM_R);
	/* Made writable again, it is charged again. */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, P(10), RW), 0);
	KTEST_EXPECT_EQ(t, flags_at(A), VM_RW | VM_ACCOUNT);
	finish(t);
}

/* Written memory keeps its charge (Linux cannot tell how much of it is
 * in use), so it does not merge with a read-only neighbour. */
static void mprotect_of_written_memory_keeps_vm_account(struct ktest *t)
{
	map_fixed(t, A, 4, RW, 0);
	KTEST_EXPECT_EQ(t, write_to(A + P(1), 1), 0); /* one page is enough */
	KTEST_EXPECT_NOT_NULL(t, anon_vma_at(A));
	KTEST_ASSERT_EQ(t, do_mprotect(mm, A, P(4), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, flags_at(A), VM_R | VM_ACCOUNT);
	map_fixed(t, A + P(4), 2, PROT_READ, 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	/* Unmapping the written page does not give the anon_vma back. */
	KTEST_EXPECT_EQ(t, do_munmap(mm, A + P(1), P(1)), 0);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, P(1), RW), 0);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, P(1), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, flags_at(A), VM_R | VM_ACCOUNT);
	finish(t);
}

/* Two mappings written apart get anon_vmas of their own, and touching VMAs
 * with different anon_vmas never merge, whatever their flags. */
static void different_anon_vmas_do_not_merge(struct ktest *t)
{
	map_fixed(t, A, 2, RW, MAP_POPULATE);
	map_fixed(t, A + P(4), 2, RW, MAP_POPULATE); /* no neighbour to share with */
	struct anon_vma *x = anon_vma_at(A), *y = anon_vma_at(A + P(4));
	KTEST_ASSERT_NOT_NULL(t, x);
	KTEST_ASSERT_NOT_NULL(t, y);
	KTEST_EXPECT_NE(t, x, y);
	/* The hole filled: the new range joins the VMA below only (prev and
	 * next are not compatible with each other). */
	map_fixed(t, A + P(2), 2, RW, 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, find_vma(mm, A)->vm_end, A + P(4));
	KTEST_EXPECT_EQ(t, flags_at(A + P(4)), flags_at(A));
	/* One of them read-only and back (VM_ACCOUNT kept: it was written):
	 * the same flags again, still two VMAs. */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(4), P(2), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, flags_at(A + P(4)), VM_R | VM_ACCOUNT);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(4), P(2), RW), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	/* Both, across the boundary: three pieces, then two again. */
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(2), P(4), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 3);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(2), P(4), RW), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, anon_vma_at(A + P(2)), x);
	KTEST_EXPECT_EQ(t, anon_vma_at(A + P(4)), y);
	finish(t);
}

/* find_mergeable_anon_vma: a VMA first written next to one that differs
 * only in access rights and has an anon_vma takes that one, so the two
 * merge once their rights agree again. */

static void write_next_to_a_compatible_vma_shares_its_anon_vma(struct ktest *t)
{
	map_fixed(t, A, 2, RW, MAP_POPULATE);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, P(2), PROT_READ), 0); /* R, VM_ACCOUNT kept */
	map_fixed(t, A + P(2), 2, RW, 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 2);
	KTEST_EXPECT_EQ(t, write_to(A + P(3), 1), 0);
	KTEST_EXPECT_EQ(t, anon_vma_at(A + P(2)), anon_vma_at(A));
	KTEST_EXPECT_EQ(t, anon_vma_nr_chains(anon_vma_at(A)), 2);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A, P(2), RW), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, anon_vma_nr_chains(anon_vma_at(A)), 1);
	/* Flags that differ in more than access rights: no sharing. */
	map_fixed(t, A + P(4), 2, RW, MAP_NORESERVE);
	KTEST_EXPECT_EQ(t, write_to(A + P(4), 1), 0);
	KTEST_EXPECT_NE(t, anon_vma_at(A + P(4)), anon_vma_at(A));
	finish(t);
}

/* Linux 6.12's is_mergeable_anon_vma with the neighbour's (empty)
 * anon_vma_chain: a range without an anon_vma merges into a neighbour
 * with one (which it then shares), a range with one does not merge into a
 * neighbour without. */
static void merges_between_anon_vma_and_none_as_linux_6_12(struct ktest *t)
{
	map_fixed(t, A, 4, RW, 0);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(2), P(2), MADV_HUGEPAGE), 0);
	KTEST_EXPECT_EQ(t, write_to(A + P(2), 1), 0); /* the flags differ: a new one */
	struct anon_vma *x = anon_vma_at(A + P(2));
	KTEST_ASSERT_NOT_NULL(t, x);
	KTEST_EXPECT_NULL(t, anon_vma_at(A));
	KTEST_EXPECT_EQ(t, do_madvise(mm, A, P(2), MADV_HUGEPAGE), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, anon_vma_at(A), x);
	KTEST_EXPECT_EQ(t, anon_vma_nr_chains(x), 1);
	/* The other way round. */
	map_fixed(t, A + P(8), 4, RW, 0);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(10), P(2), MADV_HUGEPAGE), 0);
	KTEST_EXPECT_EQ(t, write_to(A + P(8), 1), 0);
	KTEST_EXPECT_EQ(t, do_madvise(mm, A + P(8), P(2), MADV_HUGEPAGE), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 3);
	KTEST_EXPECT_EQ(t, flags_at(A + P(8)), flags_at(A + P(10)));
	KTEST_EXPECT_NULL(t, anon_vma_at(A + P(10)));
	finish(t);
}

/* Split halves share the anon_vma (one reference each) and merge back;
 * the last VMA to go frees it (finish checks nothing is left). */
static void split_vmas_share_the_anon_vma_and_merge_back(struct ktest *t)
{
	map_fixed(t, A, 6, RW, MAP_POPULATE);
	struct anon_vma *x = anon_vma_at(A);
	KTEST_ASSERT_NOT_NULL(t, x);
	KTEST_EXPECT_EQ(t, anon_vma_nr_chains(x), 1);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(2), P(2), PROT_READ), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 3);
	KTEST_EXPECT_EQ(t, anon_vma_at(A + P(2)), x);
	KTEST_EXPECT_EQ(t, anon_vma_at(A + P(4)), x);
	KTEST_EXPECT_EQ(t, anon_vma_nr_chains(x), 3);
	KTEST_EXPECT_EQ(t, do_mprotect(mm, A + P(2), P(2), RW), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, anon_vma_nr_chains(x), 1);
	/* A hole punched and filled again: the halves and the new range
	 * become one VMA. */
	KTEST_EXPECT_EQ(t, do_munmap(mm, A + P(2), P(2)), 0);
	KTEST_EXPECT_EQ(t, anon_vma_nr_chains(x), 2);
	map_fixed(t, A + P(2), 2, RW, 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 1);
	KTEST_EXPECT_EQ(t, anon_vma_nr_chains(x), 1);
	finish(t);
}

/* No memory for the anon_vma: the fault fails (VM_FAULT_OOM, -ENOMEM from
 * populate) and the VMA stays without one. */
static void anon_vma_prepare_without_memory_fails_the_fault(struct ktest *t)
{
	map_fixed(t, A, 2, RW, 0);
	kmalloc_fail_in = 1;
	KTEST_EXPECT_EQ(t, write_to(A, 1), -ENOMEM);
	KTEST_EXPECT_NULL(t, anon_vma_at(A));
	KTEST_EXPECT_FALSE(t, stub_page_present(A));
	KTEST_EXPECT_EQ(t, write_to(A, 1), 0);
	KTEST_EXPECT_NOT_NULL(t, anon_vma_at(A));
	finish(t);
}

static void exit_mmap_frees_everything(struct ktest *t)
{
	map_fixed(t, A, 4, RW, MAP_POPULATE);
	map_fixed(t, A + P(8), 4, PROT_READ, MAP_POPULATE);
	KTEST_EXPECT_GE(t, MMAP(0, P(3), RW, ANON | MAP_POPULATE), 0);
	stub_reset();
	exit_mmap(mm);
	KTEST_EXPECT_EQ(t, stub_count(CALL_GATHER_FULL), 1);
	KTEST_EXPECT_EQ(t, stub_count(CALL_GATHER), 0);
	KTEST_EXPECT_EQ(t, stub_count(CALL_UNMAP), 3);
	KTEST_EXPECT_EQ(t, stub_count(CALL_FINISH), 1);
	const struct stub_call *f = stub_find(CALL_FREE_PGD, 0);
	KTEST_ASSERT_NOT_NULL(t, f);
	KTEST_EXPECT_EQ(t, f->start, A);
	KTEST_EXPECT_EQ(t, f->end, MMAP_BASE);
	KTEST_EXPECT_EQ(t, f->floor, 0);
	KTEST_EXPECT_EQ(t, f->ceiling, 0);
	KTEST_EXPECT_EQ(t, stub_present_pages(), 0);
	KTEST_EXPECT_EQ(t, mm->map_count, 0);
	KTEST_EXPECT_EQ(t, mm->total_vm, 0);
	KTEST_EXPECT_EQ(t, stub_live_objects, 0);
	KTEST_EXPECT_NULL(t, find_vma(mm, 0));
	/* An empty mm: nothing to do. */
	stub_reset();
	exit_mmap(mm);
	KTEST_EXPECT_EQ(t, nr_stub_calls, 0);
	finish(t);
}

static const struct ktest_case vma_cases[] = {
	KTEST_CASE(mmap_errnos_in_linux_order),
	KTEST_CASE(mmap_ignores_unknown_bits_as_linux),
	KTEST_CASE(mmap_flags_become_vm_flags),
	KTEST_CASE(mmap_hint_then_top_down),
	KTEST_CASE(search_falls_back_bottom_up),
	KTEST_CASE(map_fixed_replaces_what_is_there),
	KTEST_CASE(munmap_errnos),
	KTEST_CASE(munmap_partial_and_multiple_vmas),
	KTEST_CASE(munmap_failures_change_nothing),
	KTEST_CASE(mprotect_errnos),
	KTEST_CASE(mprotect_holes_give_enomem_after_the_mapped_part),
	KTEST_CASE(mprotect_splits_and_merges),
	KTEST_CASE(mprotect_growsdown_starts_at_the_vma),
	KTEST_CASE(madvise_errnos),
	KTEST_CASE(madvise_dontneed_zaps_around_holes),
	KTEST_CASE(merges_need_no_room_under_max_map_count),
	KTEST_CASE(madvise_flags_split_and_merge),
	KTEST_CASE(madvise_populate),
	KTEST_CASE(brk_grows_shrinks_and_refuses_collisions),
	KTEST_CASE(brk_keeps_the_heap_its_own_vma),
	KTEST_CASE(vm_account_decides_merges),
	KTEST_CASE(map_noreserve_is_not_accounted),
	KTEST_CASE(mprotect_of_locked_memory_populates_as_writes),
	KTEST_CASE(mprotect_of_untouched_memory_drops_vm_account),
	KTEST_CASE(mprotect_of_written_memory_keeps_vm_account),
	KTEST_CASE(different_anon_vmas_do_not_merge),
	KTEST_CASE(write_next_to_a_compatible_vma_shares_its_anon_vma),
	KTEST_CASE(merges_between_anon_vma_and_none_as_linux_6_12),
	KTEST_CASE(split_vmas_share_the_anon_vma_and_merge_back),
	KTEST_CASE(anon_vma_prepare_without_memory_fails_the_fault),
	KTEST_CASE(exit_mmap_frees_everything),
};

int main(void)
{
	static struct ktest_case all[64];
	size_t n = 0;
	anon_vma_init();
	for (size_t i = 0; i < nr_vma_rbtree_cases; i++)
		all[n++] = vma_rbtree_cases[i];
	for (size_t i = 0; i < ARRAY_SIZE(vma_cases); i++)
		all[n++] = vma_cases[i];
	for (size_t i = 0; i < nr_vma_random_cases; i++)
		all[n++] = vma_random_cases[i];
	int rc = ktest_run_suite("host_vma", all, n, init_case);
	if (mm)
		test_mm_free(mm);
	return rc;
}
