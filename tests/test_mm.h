/* An address space for a test case: the fixture every mm test builds on.
 *
 *   struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
 *   test_mm_map_anon(test, mm, BASE, len);
 *   ... faults, user copies, system calls on mm ...
 *   test_mm_destroy(test, mm);  // or let the case end
 *
 * test_mm_create takes a leak snapshot (free pages per node, slab objects,
 * user page-table pages, lock misuse reports), makes an mm and registers
 * its cleanup as a deferred action (kunit_add_action), so it runs however
 * the case ends, after what the case registered later: the mm stops being
 * the current task's, the PTE tables' counts are checked against their
 * entries (pte_ref_verify), the last user goes (exit_mmap), and everything
 * the snapshot counted must be back. A leak, a wrong count or a lock
 * misuse fails the case as an expectation. */
#ifndef TESTS_TEST_MM_H
#define TESTS_TEST_MM_H

#include "tests/kunit.h"
#include "mm/pgtable.h"
#include "mm/pt_reclaim.h"

struct mm_struct;
struct vm_area_struct;

/* test_mm_create's flags. */
#define TEST_MM_CURRENT 0x1   /* the current task's (kthread_use_mm) until destroyed */
/* No leak snapshot: for an mm made while another of the case's lives on
 * past it, or whose pages the case hands on (each snapshot counts what
 * the other mms hold at its time). */
#define TEST_MM_NO_LEAK_CHECK 0x2

/* Snapshot, mm_alloc, cleanup action; ASSERTs that each succeeds (at most
 * TEST_MM_MAX mms of a case alive at once). */
#define TEST_MM_MAX 4
struct mm_struct *test_mm_create(struct kunit *test, unsigned flags);
/* Maps [addr, addr + len) private anonymous read-write (MAP_FIXED) in mm
 * and returns its VMA; ASSERTs that the mapping is made. */
struct vm_area_struct *test_mm_map_anon(struct kunit *test, struct mm_struct *mm, unsigned long addr,
					unsigned long len);
/* A process's view for system calls made with do_syscall_64 from the
 * case: a new mm (TEST_MM_CURRENT, with its leak snapshot) with npages
 * private anonymous pages at addr, and a new file table (no console
 * prefix) made current; the runner thread's own table is put back and the
 * case's released when the case ends, before the mm goes. */
void test_mm_enter_space(struct kunit *test, unsigned long addr, unsigned long npages);
/* Runs mm's cleanup now (the checks included), so the case can look at
 * the system after it; nothing happens if the cleanup already ran. */
void test_mm_destroy(struct kunit *test, struct mm_struct *mm);
/* mm (made with TEST_MM_CURRENT) stops being the current task's now,
 * before the rest of its cleanup. */
void test_mm_unuse(struct kunit *test, struct mm_struct *mm);
/* The case's reference to mm goes now (as the cleanup drops it, its
 * tables' counts checked first), while what the leak snapshot counted is
 * checked only at test_mm_destroy or when the case ends: for pages that
 * outlive their mm (a reference taken by get_user_pages). */
void test_mm_put(struct kunit *test, struct mm_struct *mm);

/* User accesses in mm, whichever mm is current: test_mm_enter makes mm
 * the current task's (kthread_use_mm) and returns the one it replaced,
 * test_mm_leave puts that back. */
struct mm_struct *test_mm_enter(struct mm_struct *mm);
void test_mm_leave(struct mm_struct *mm, struct mm_struct *was);
/* A 64-bit store or load at addr in mm, as the process's would fault:
 * put_user's error, or the value read (~0 when the load faults). */
int test_mm_write_u64(struct mm_struct *mm, unsigned long addr, u64 v);
u64 test_mm_read_u64(struct mm_struct *mm, unsigned long addr);

/* One step of a stress case's worker (tests/fork_test.c,
 * tests/filemap_test.c): *seed moves on; one time in 16 the step is a
 * MADV_DONTNEED of 1 to 32 pages of [base, base + npages pages) from a
 * random page, and returns its result (0, or a negative errno);
 * otherwise it returns 1 and *index is a random page (below npages) for
 * the worker's own access. */
int test_mm_stress_step(struct mm_struct *mm, unsigned long base, unsigned long npages, unsigned long *seed,
			unsigned long *index);
/* A stress case's worker (tests/test_cpu.h's crew, its ctx the mm): in
 * the mm until the crew is stopped, step after step, the access steps
 * done by access(the page's address, its index, the seed, a count of
 * the worker's steps); 1 when a MADV_DONTNEED or an access (nonzero)
 * failed, else 0. */
struct test_worker;
int test_mm_stress_worker(struct test_worker *w, unsigned long base, unsigned long npages,
			  int (*access)(unsigned long addr, unsigned long index, unsigned long seed, unsigned long n));

/* A word read back beside zaps, holes or truncates of its page: each
 * byte is v's or zero. The user copies (copy_to_user, copy_from_user) are
 * rep movsb, on Linux too: a zap or a hole between two of their bytes
 * sends the rest to a new (zero) page while the bytes before it went to
 * the old one, and a read can straddle one the same way. Any other byte
 * is a lost, misplaced or stale write. A move (migration) never tears a
 * word: the old page is copied after no CPU can write it any more. */
static inline bool test_word_is_v_or_torn(u64 got, u64 v)
{
	for (unsigned i = 0; i < 64; i += 8) {
		u8 b = (u8)(got >> i);
		if (b && b != (u8)(v >> i))
			return false;
	}
	return true;
}

/* The PTE of addr in mm, or none when no PTE table covers it (the caller
 * holds the mmap_lock or is the mm's only user). */
pte_t test_mm_pte(struct mm_struct *mm, unsigned long addr);

/* The page a huge PMD of mm maps at addr, or NULL when none does. */
struct page *test_mm_pmd_page(struct mm_struct *mm, unsigned long addr);

/* shmem_enabled (mm/shmem.h's shmem_huge_set, the internal instance's
 * huge= with it) for the rest of the case, the value before put back
 * when it ends. */
void test_set_shmem_huge(struct kunit *test, int huge);

/* A tmpfs mounted at dir (made) with options opts, and a new file "f" on
 * it, open for reading and writing; when the case ends the file is
 * closed and unlinked, the instance detached and dir removed. Made
 * before a case's mms, it is not counted by their leak checks. */
struct file;
struct file *test_tmpfs_file(struct kunit *test, const char *dir, const char *opts);
/* Truncates or extends f to size bytes (notify_change, as truncate(2)). */
int test_set_size(struct file *f, long size);
/* khugepaged scanning often (10 ms between passes, and after a failed
 * allocation) and two full scans from now waited for: every listed mm
 * was scanned whole at least once after the call. The caller puts the
 * sleeps back. */
void test_khugepaged_two_full_scans(void);

/* A node with memory and nothing on its anon or unevictable lists, or -1:
 * where a case's pages are the only ones reclaim can find. */
int test_quiet_lru_node(void);

/* fault_around_bytes (mm/memory.h) for the rest of the case, the value
 * before put back when it ends. */
void test_set_fault_around(struct kunit *test, unsigned long bytes);

/* Switches the pte_reclaim mode for the rest of the case (before its
 * first mm: the mode changes only while no user mm lives), and puts back
 * the one in force before when the case ends, after its mms are gone.
 * Returns pte_reclaim_set_mode's error (-EBUSY while a user mm lives),
 * and then changes nothing. */
int test_pte_reclaim_mode(struct kunit *test, enum pte_reclaim_mode mode);

/* The pte_reclaim modes as a case's parameter, each described by its
 * name: KUNIT_CASE_PARAM(case, pte_reclaim_modes_gen_params), and the
 * case reads test->param_value as a struct pte_reclaim_mode_param. */
struct pte_reclaim_mode_param {
	enum pte_reclaim_mode mode;
	const char *name;
};
const void *pte_reclaim_modes_gen_params(const void *prev, char *desc);

#endif
