/* Stubs of mm/memory.c, mm/mmu_gather.c and kmalloc for the host test of
 * the VMA layer, and the invariant check of an mm (see vma_stubs.h).
 *
 * The present pages are a sorted list of disjoint intervals: populate adds
 * to it, unmap and zap cut from it. Each stub checks the contract of the
 * function it replaces (the range inside the VMA and page aligned, a
 * gather open around unmap_page_range and free_pgd_range). */
#include "tests/host/vma_stubs.h"
#include "fs/file.h"
#include "kernel/sched.h"
#include "mm/madvise_cold.h"
#include "mm/huge_memory.h"
#include "mm/hugetlb.h"
#include "mm/hugetlb_vma.h"
#include "mm/khugepaged.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmu_gather.h"
#include "mm/oom.h"
#include "mm/pt_reclaim.h"
#include "mm/slab.h"
#include "mm/shmem.h"
#include "mm/util.h"
#include "mm/vma.h"
#include "tests/host/shim.h"

#include <stdlib.h>
#include <string.h>

struct stub_call stub_calls[MAX_STUB_CALLS];
int nr_stub_calls;
int kmalloc_fail_in;
bool populate_fails;
long stub_live_objects;
int stub_errors;

/* The syscalls act on current->mm (the shim's host task, which has none);
 * nothing calls them on the host, and no VMA here maps a file. */
struct file;
struct file *fget(struct files_struct *files, unsigned int fd); /* fs/fs.h's, which the host's dev_t hides */
void fput(struct file *f);
struct file *fget(struct files_struct *files, unsigned int fd)
{
	(void)files;
	(void)fd;
	return NULL;
}
void fput(struct file *f) { (void)f; }

#define stub_bug(...)                                                                      \
	do {                                                                               \
		printk(KERN_ALWAYS "stub: " __VA_ARGS__);                                  \
		stub_errors++;                                                             \
	} while (0)

static struct { unsigned long start, end; } present[8192];
static int nr_present;
static int gathers_open;

static void record(enum stub_call_kind kind, const struct vm_area_struct *vma, unsigned long start,
		   unsigned long end, unsigned long floor, unsigned long ceiling, pgprot_t prot)
{
	if (nr_stub_calls == MAX_STUB_CALLS)
		return; /* long random runs: only the cases that look keep few */
	stub_calls[nr_stub_calls++] = (struct stub_call){
		kind, start, end, floor, ceiling, prot, vma ? vma->vm_flags : 0 };
}

int stub_count(enum stub_call_kind kind)
{
	int n = 0;
	for (int i = 0; i < nr_stub_calls; i++)
		n += stub_calls[i].kind == kind;
	return n;
}

const struct stub_call *stub_find(enum stub_call_kind kind, int n)
{
	for (int i = 0; i < nr_stub_calls; i++)
		if (stub_calls[i].kind == kind && n-- == 0)
			return &stub_calls[i];
	return NULL;
}

void stub_reset(void)
{
	nr_stub_calls = 0;
}

void stub_reset_all(void)
{
	nr_stub_calls = 0;
	nr_present = 0;
	kmalloc_fail_in = 0;
	populate_fails = false;
	stub_errors = 0;
	gathers_open = 0;
}

static void present_remove(unsigned long start, unsigned long end)
{
	static __typeof__(present) kept;
	int n = 0;
	for (int i = 0; i < nr_present; i++) {
		unsigned long s = present[i].start, e = present[i].end;
		if (e <= start || s >= end) {
			kept[n++] = present[i];
			continue;
		}
		if (s < start)
			kept[n].start = s, kept[n].end = start, n++;
		if (e > end && n < (int)ARRAY_SIZE(kept))
			kept[n].start = end, kept[n].end = e, n++;
	}
	memcpy(present, kept, (size_t)n * sizeof(present[0]));
	nr_present = n;
}

static void present_add(unsigned long start, unsigned long end)
{
	present_remove(start, end);
	if (nr_present + 1 >= (int)ARRAY_SIZE(present)) {
		stub_bug("too many present intervals\n");
		return;
	}
	int i = 0;
	while (i < nr_present && present[i].start < start)
		i++;
	memmove(&present[i + 1], &present[i], (size_t)(nr_present - i) * sizeof(present[0]));
	present[i].start = start;
	present[i].end = end;
	nr_present++;
}

bool stub_page_present(unsigned long addr)
{
	for (int i = 0; i < nr_present; i++)
		if (present[i].start <= addr && addr < present[i].end)
			return true;
	return false;
}

unsigned long stub_present_pages(void)
{
	unsigned long n = 0;
	for (int i = 0; i < nr_present; i++)
		n += (present[i].end - present[i].start) >> PAGE_SHIFT;
	return n;
}

static void check_inside(const char *what, const struct vm_area_struct *vma, unsigned long start,
			 unsigned long end)
{
	if (!vma || start >= end || (start | end) & ~PAGE_MASK || start < vma->vm_start ||
	    end > vma->vm_end)
		stub_bug("%s(%#lx, %#lx) outside its VMA [%#lx, %#lx)\n", what, start, end,
			 vma ? vma->vm_start : 0, vma ? vma->vm_end : 0);
}

/* ---- kernel/rwsem.c: the mmap_lock ----------------------------------------- */

/* One thread: a lock that would have to wait is a bug of the code under
 * test (a missing unlock, or a lock taken twice). */
unsigned long rwsem_bugs;

void down_read(struct rw_semaphore *sem)
{
	if (sem->count < 0)
		stub_bug("down_read of an rwsem held for writing\n");
	sem->count++;
}
int down_read_trylock(struct rw_semaphore *sem)
{
	if (sem->count < 0)
		return 0;
	sem->count++;
	return 1;
}
void up_read(struct rw_semaphore *sem)
{
	if (sem->count <= 0)
		stub_bug("up_read of an rwsem no reader holds\n");
	else
		sem->count--;
}
void down_write(struct rw_semaphore *sem)
{
	if (sem->count)
		stub_bug("down_write of an rwsem held (count %ld)\n", sem->count);
	sem->count = -1;
}
int down_write_trylock(struct rw_semaphore *sem)
{
	if (sem->count)
		return 0;
	sem->count = -1;
	return 1;
}
void up_write(struct rw_semaphore *sem)
{
	if (sem->count != -1)
		stub_bug("up_write of an rwsem not held for writing\n");
	sem->count = 0;
}
void downgrade_write(struct rw_semaphore *sem)
{
	if (sem->count != -1)
		stub_bug("downgrade_write of an rwsem not held for writing\n");
	sem->count = 1;
}

/* ---- mm/huge_memory.c ---------------------------------------------------- */

/* No huge PMDs on the host: no deposits to check, none for a VMA
 * boundary to split. */
void thp_check_deposits(struct mm_struct *mm) { (void)mm; }
/* No OOM killer on the host: no mm is ever queued for its reaper. */
void oom_reaper_mm_exited(struct mm_struct *mm) { (void)mm; }
void vma_adjust_trans_huge(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	(void)vma; /* the VMA's new bounds, which may reach past its old ones */
	(void)start;
	(void)end;
}

/* ---- mm/khugepaged.c ------------------------------------------------------ */

/* No khugepaged on the host: nothing registers, nothing collapses
 * (MADV_COLLAPSE is refused as for memory khugepaged cannot take). */
void khugepaged_enter_vma(struct vm_area_struct *vma, unsigned long vm_flags)
{
	(void)vma;
	(void)vm_flags;
}
int madvise_collapse(struct vm_area_struct *vma, struct vm_area_struct **prev, unsigned long start,
		     unsigned long end)
{
	check_inside("madvise_collapse", vma, start, end);
	*prev = vma;
	return -EINVAL;
}

/* ---- mm/madvise_cold.c ---------------------------------------------------- */

/* No pages on the host: nothing to deactivate or page out; a locked VMA
 * is refused as the kernel's is. */
int madvise_cold_or_pageout(struct vm_area_struct *vma, unsigned long start, unsigned long end, int behavior)
{
	(void)behavior;
	check_inside("madvise_cold_or_pageout", vma, start, end);
	return vma->vm_flags & VM_LOCKED ? -EINVAL : 0;
}

/* ---- mm/memory.c -------------------------------------------------------- */

pgprot_t vm_get_page_prot(unsigned long vm_flags)
{
	return 0x1000 | (vm_flags & 0xf);
}

void unmap_page_range(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long addr,
		      unsigned long end)
{
	if (!gathers_open || tlb->mm != vma->vm_mm)
		stub_bug("unmap_page_range outside a gather of its mm\n");
	check_inside("unmap_page_range", vma, addr, end);
	record(CALL_UNMAP, vma, addr, end, 0, 0, 0);
	present_remove(addr, end);
}

void zap_page_range(struct vm_area_struct *vma, unsigned long start, unsigned long size)
{
	check_inside("zap_page_range", vma, start, start + size);
	record(CALL_ZAP, vma, start, start + size, 0, 0, 0);
	present_remove(start, start + size);
}

/* MADV_DONTNEED's zap: the same as zap_page_range here (no page tables). */
void zap_page_range_dontneed(struct vm_area_struct *vma, unsigned long start, unsigned long size)
{
	zap_page_range(vma, start, size);
}

/* mm/pt_reclaim.c's mode and PMD extension: no page tables here (off:
 * madvise's trigger for the extension never fires). */
enum pte_reclaim_mode pte_reclaim_mode = PTE_RECLAIM_OFF;

void try_to_free_pmd_tables(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	(void)mm;
	(void)start;
	(void)end;
}

/* free_pgd_range may free every table that covers only addresses in
 * [floor, ceiling) (ceiling 0: the top of the user half), rounding addr
 * down and end up to table boundaries within those bounds. So what keeps a
 * neighbour's tables is floor and ceiling, not [addr, end): no live VMA may
 * reach into [floor, ceiling), i.e. floor at or above the end of the VMA
 * below addr (0 only if there is none) and ceiling at or below the start
 * of the VMA above end (0 only if there is none). exit_mmap (fullmm) frees
 * everything with its VMAs still linked. */
void free_pgd_range(struct mmu_gather *tlb, unsigned long addr, unsigned long end,
		    unsigned long floor, unsigned long ceiling)
{
	if (!gathers_open)
		stub_bug("free_pgd_range outside a gather\n");
	if (addr >= end || addr < floor || (ceiling && end > ceiling) || (ceiling && floor >= ceiling))
		stub_bug("free_pgd_range(%#lx, %#lx, floor %#lx, ceiling %#lx)\n", addr, end, floor,
			 ceiling);
	if (!tlb->fullmm)
		for (struct vm_area_struct *v = find_vma(tlb->mm, floor);
		     v && (!ceiling || v->vm_start < ceiling); v = v->vm_next)
			if (v->vm_end > floor) {
				stub_bug("free_pgd_range(%#lx, %#lx, floor %#lx, ceiling %#lx): live VMA "
					 "[%#lx, %#lx) in [floor, ceiling)\n", addr, end, floor, ceiling,
					 v->vm_start, v->vm_end);
				break;
			}
	record(CALL_FREE_PGD, NULL, addr, end, floor, ceiling, 0);
}

unsigned long change_protection(struct vm_area_struct *vma, unsigned long start, unsigned long end,
				pgprot_t newprot)
{
	check_inside("change_protection", vma, start, end);
	if (newprot != vm_get_page_prot(vma->vm_flags))
		stub_bug("change_protection with %#llx for flags %#lx\n", (unsigned long long)newprot,
			 vma->vm_flags);
	record(CALL_CHPROT, vma, start, end, 0, 0, newprot);
	return 0;
}

/* Records write (true: faulted as writes) in the call's prot. Write
 * faults give the VMA an anon_vma, as mm/memory.c's do (anon_vma_prepare
 * is mm/vma.c's own); read faults map the zero page and do not. */
int populate_vma_range(struct vm_area_struct *vma, unsigned long start, unsigned long end,
		       bool write)
{
	check_inside("populate_vma_range", vma, start, end);
	record(CALL_POPULATE, vma, start, end, 0, 0, write);
	if (populate_fails)
		return -ENOMEM;
	if (write && start < end && anon_vma_prepare(vma))
		return -ENOMEM; /* VM_FAULT_OOM */
	present_add(start, end);
	return 0;
}

/* ---- mm/mmu_gather.c ------------------------------------------------------ */

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm)
{
	memset(tlb, 0, sizeof(*tlb));
	tlb->mm = mm;
	gathers_open++;
	record(CALL_GATHER, NULL, 0, 0, 0, 0, 0);
}

void tlb_gather_mmu_fullmm(struct mmu_gather *tlb, struct mm_struct *mm)
{
	memset(tlb, 0, sizeof(*tlb));
	tlb->mm = mm;
	tlb->fullmm = true;
	gathers_open++;
	record(CALL_GATHER_FULL, NULL, 0, 0, 0, 0, 0);
}

void tlb_finish_mmu(struct mmu_gather *tlb)
{
	if (gathers_open-- <= 0 || !tlb->mm)
		stub_bug("tlb_finish_mmu without a gather\n");
	tlb->mm = NULL;
	record(CALL_FINISH, NULL, 0, 0, 0, 0, 0);
}

/* ---- commit accounting (mm/util.c) ------------------------------------------ */

/* The count only, with no policy (OVERCOMMIT_ALWAYS): what the VMA code
 * charges and uncharges is checked against the VM_ACCOUNT pages it holds
 * (vma_random.c); the policy is tested in the kernel (tests/mmap_test.c). */
int sysctl_overcommit_memory = OVERCOMMIT_ALWAYS;
long stub_committed;

int security_vm_enough_memory_mm(struct mm_struct *mm, long pages)
{
	(void)mm;
	stub_committed += pages;
	return 0;
}

void vm_acct_memory(long pages) { stub_committed += pages; }
void vm_unacct_memory(long pages) { stub_committed -= pages; }

/* ---- mm/mlock.c's limits ----------------------------------------------------- */

/* The host task has no RLIMIT_MEMLOCK (a kernel thread's: infinite), as
 * the kernel's rlimit() says for a task without a process: every lock is
 * allowed; the limits are tested in the kernel (tests/cred_test.c) and by
 * the user programs. */
bool can_do_mlock(void) { return true; }
bool mlock_future_ok(struct mm_struct *mm, unsigned long flags, unsigned long bytes)
{
	(void)mm, (void)flags, (void)bytes;
	return true;
}

/* ---- kmalloc --------------------------------------------------------------- */

void *kmalloc(size_t size, gfp_t gfp)
{
	/* An allocation that may not wait fails whenever the next one that
	 * may would, without counting: a caller that retries with waiting
	 * allowed (anon_vma_clone, as Linux's) meets the injected failure. */
	if (!(gfp & __GFP_DIRECT_RECLAIM) && kmalloc_fail_in == 1)
		return NULL;
	if (kmalloc_fail_in && --kmalloc_fail_in == 0)
		return NULL;
	void *p = malloc(size ? size : 1);
	if (p)
		stub_live_objects++;
	return p;
}

void *kzalloc(size_t size, gfp_t gfp)
{
	void *p = kmalloc(size, gfp);
	if (p)
		memset(p, 0, size);
	return p;
}

void kfree(const void *p)
{
	if (!p)
		return;
	stub_live_objects--;
	free((void *)p);
}

/* A cache is its object size here; its objects are kmalloc's, with the
 * same failure injection. */
struct kmem_cache {
	unsigned int size;
};

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align,
				     unsigned long flags, void (*ctor)(void *))
{
	(void)name, (void)align, (void)flags, (void)ctor;
	struct kmem_cache *s = malloc(sizeof(*s));
	if (s)
		s->size = size;
	return s;
}

void *kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp) { return kmalloc(s->size, gfp); }
void kmem_cache_free(struct kmem_cache *s, void *obj) { (void)s, kfree(obj); }

/* ---- mms and their invariants --------------------------------------------- */

struct mm_struct *test_mm_alloc(void)
{
	struct mm_struct *mm = calloc(1, sizeof(*mm));
	if (!mm)
		abort();
	mm->mm_rb = RB_ROOT;
	init_rwsem(&mm->mmap_lock);
	mm->mmap_base = MMAP_BASE;
	mm->mm_users = mm->mm_count = 1;
	return mm;
}

void test_mm_free(struct mm_struct *mm)
{
	exit_mmap(mm);
	free(mm);
}

struct walk {
	struct ktest *t;
	struct vm_area_struct *last; /* in-order predecessor */
	unsigned long start_brk;
	int count;
	bool ok;
};

#define WALK_FAIL(w, ...)                                                                  \
	do {                                                                               \
		ktest_fail((w)->t, __FILE__, __LINE__, __VA_ARGS__);                       \
		(w)->ok = false;                                                           \
	} while (0)

/* Returns the black height of the subtree, checking it on the way. */
static int walk_node(struct walk *w, struct rb_node *rb, struct rb_node *parent)
{
	if (!rb)
		return 1;
	struct vm_area_struct *vma = rb_entry(rb, struct vm_area_struct, vm_rb);
	bool black = rb->__rb_parent_color & 1;
	if (rb_parent(rb) != parent)
		WALK_FAIL(w, "VMA [%#lx, %#lx): wrong parent pointer", vma->vm_start, vma->vm_end);
	if (!black && ((rb->rb_left && !(rb->rb_left->__rb_parent_color & 1)) ||
		       (rb->rb_right && !(rb->rb_right->__rb_parent_color & 1))))
		WALK_FAIL(w, "red VMA [%#lx, %#lx) has a red child", vma->vm_start, vma->vm_end);
	int lh = walk_node(w, rb->rb_left, rb);
	/* In order: this one after the left subtree. */
	struct vm_area_struct *prev = w->last;
	if (vma->vm_prev != prev || (prev && prev->vm_next != vma))
		WALK_FAIL(w, "VMA [%#lx, %#lx): list links disagree with the tree", vma->vm_start,
			  vma->vm_end);
	if (prev && prev->vm_end > vma->vm_start)
		WALK_FAIL(w, "VMAs [%#lx, %#lx) and [%#lx, %#lx) overlap or are out of order",
			  prev->vm_start, prev->vm_end, vma->vm_start, vma->vm_end);
	/* Except at start_brk: the heap's first VMA never merges with the
	 * data segment below it (Linux's brk). Touching VMAs with the same
	 * flags may stay apart only when their anon_vmas differ (Linux 6.12
	 * keeps even one with and one without apart, see is_mergeable_anon_vma
	 * in mm/vma.c). */
	if (prev && prev->vm_end == vma->vm_start && prev->vm_flags == vma->vm_flags &&
	    prev->anon_vma == vma->anon_vma && !(w->start_brk && vma->vm_start == w->start_brk))
		WALK_FAIL(w, "VMAs [%#lx, %#lx) and [%#lx, %#lx) touch with the same flags %#lx",
			  prev->vm_start, prev->vm_end, vma->vm_start, vma->vm_end, vma->vm_flags);
	if (vma->vm_start >= vma->vm_end || (vma->vm_start | vma->vm_end) & ~PAGE_MASK ||
	    vma->vm_end > TASK_SIZE)
		WALK_FAIL(w, "bad VMA bounds [%#lx, %#lx)", vma->vm_start, vma->vm_end);
	if (vma->vm_page_prot != vm_get_page_prot(vma->vm_flags))
		WALK_FAIL(w, "VMA [%#lx, %#lx): vm_page_prot does not follow the flags", vma->vm_start,
			  vma->vm_end);
	w->last = vma;
	w->count++;
	int rh = walk_node(w, rb->rb_right, rb);
	if (lh != rh)
		WALK_FAIL(w, "VMA [%#lx, %#lx): black heights %d and %d", vma->vm_start, vma->vm_end, lh, rh);
	/* The gap cache. */
	unsigned long gap = vma->vm_start - (prev ? prev->vm_end : 0), sub = gap;
	struct vm_area_struct *l = rb_entry_safe(rb->rb_left, struct vm_area_struct, vm_rb);
	struct vm_area_struct *r = rb_entry_safe(rb->rb_right, struct vm_area_struct, vm_rb);
	if (l && l->rb_subtree_gap > sub)
		sub = l->rb_subtree_gap;
	if (r && r->rb_subtree_gap > sub)
		sub = r->rb_subtree_gap;
	if (vma->rb_subtree_gap != sub)
		WALK_FAIL(w, "VMA [%#lx, %#lx): rb_subtree_gap %#lx, should be %#lx", vma->vm_start,
			  vma->vm_end, vma->rb_subtree_gap, sub);
	return lh + black;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;
	return x < y ? -1 : x > y;
}

/* The distinct anon_vmas of mm's VMAs; with w, checks the reverse map's
 * links without fork: each VMA with an anon_vma has one chain, to it;
 * each anon_vma has refcount 1 and one chain per VMA pointing to it. */
static unsigned long walk_anon_vmas(struct walk *w, struct mm_struct *mm)
{
	size_t n = 0;
	for (struct vm_area_struct *v = find_vma(mm, 0); v; v = v->vm_next) {
		n += v->anon_vma != NULL;
		if (!w)
			continue;
		if (!v->anon_vma && !list_empty(&v->anon_vma_chain))
			WALK_FAIL(w, "a VMA without an anon_vma has chains");
		if (v->anon_vma && (!list_is_singular(&v->anon_vma_chain) ||
				    list_first_entry(&v->anon_vma_chain, struct anon_vma_chain, same_vma)->anon_vma !=
					    v->anon_vma))
			WALK_FAIL(w, "a VMA's chain does not link it to its anon_vma alone");
	}
	if (!n)
		return 0;
	struct anon_vma **all = malloc(n * sizeof(*all));
	if (!all)
		abort();
	size_t i = 0;
	for (struct vm_area_struct *v = find_vma(mm, 0); v; v = v->vm_next)
		if (v->anon_vma)
			all[i++] = v->anon_vma;
	qsort(all, n, sizeof(*all), cmp_ptr);
	unsigned long distinct = 0;
	for (i = 0; i < n;) {
		size_t j = i;
		while (j < n && all[j] == all[i])
			j++;
		size_t chains = 0;
		struct anon_vma_chain *avc;
		list_for_each_entry(avc, &all[i]->head, same_anon_vma)
			chains++;
		if (w && (all[i]->refcount != 1 || chains != j - i))
			WALK_FAIL(w, "an anon_vma has refcount %d and %zu chains, %zu VMAs point to it",
				  all[i]->refcount, chains, j - i);
		distinct++;
		i = j;
	}
	free(all);
	return distinct;
}

unsigned long mm_nr_anon_vmas(struct mm_struct *mm)
{
	return walk_anon_vmas(NULL, mm);
}

bool check_mm(struct ktest *t, struct mm_struct *mm)
{
	struct walk w = { .t = t, .ok = true, .start_brk = mm->start_brk };
	struct rb_node *root = mm->mm_rb.rb_node;
	if (root && !(root->__rb_parent_color & 1))
		WALK_FAIL(&w, "the root is red");
	walk_node(&w, root, NULL);
	if (w.last && w.last->vm_next)
		WALK_FAIL(&w, "the last VMA has a vm_next");
	unsigned long pages = 0;
	for (struct vm_area_struct *v = w.last ? find_vma(mm, 0) : NULL; v; v = v->vm_next) {
		pages += (v->vm_end - v->vm_start) >> PAGE_SHIFT;
		if (v->vm_mm != mm)
			WALK_FAIL(&w, "VMA [%#lx, %#lx) has the wrong vm_mm", v->vm_start, v->vm_end);
	}
	if (w.count != mm->map_count)
		WALK_FAIL(&w, "map_count %d, %d VMAs in the tree", mm->map_count, w.count);
	if (pages != mm->total_vm)
		WALK_FAIL(&w, "total_vm %lu, the VMAs cover %lu pages", mm->total_vm, pages);
	if (mm->hiwater_vm < mm->total_vm)
		WALK_FAIL(&w, "hiwater_vm %lu below total_vm %lu", mm->hiwater_vm, mm->total_vm);
	if (mm->highest_vm_end != (w.last ? w.last->vm_end : 0))
		WALK_FAIL(&w, "highest_vm_end %#lx, the last VMA ends at %#lx", mm->highest_vm_end,
			  w.last ? w.last->vm_end : 0);
	for (int i = 0; i < nr_present; i++)
		for (unsigned long a = present[i].start; a < present[i].end; a += PAGE_SIZE) {
			struct vm_area_struct *v = find_vma(mm, a);
			if (!v || v->vm_start > a) {
				WALK_FAIL(&w, "page %#lx is present outside every VMA", a);
				break;
			}
		}
	walk_anon_vmas(&w, mm);
	if (stub_errors)
		WALK_FAIL(&w, "%d stub errors", stub_errors);
	return w.ok;
}

/* hugetlb (mm/hugetlb_vma.c) is not in the host build: the model has a
 * 2 MiB size with an empty pool, so MAP_HUGETLB of that size fails its
 * reservation (-ENOMEM, as Linux with vm.nr_hugepages = 0), any other
 * size is -EINVAL, and no VMA is ever a hugetlb one. */
static struct hstate host_hstate_2m = { .order = 9, .supported = true };
int hugetlb_mmap_prepare(unsigned long flags, unsigned long *addr, unsigned long *len, struct hstate **h)
{
	unsigned sizelog = (flags >> MAP_HUGE_SHIFT) & MAP_HUGE_MASK;
	if (sizelog && sizelog != 21)
		return -EINVAL;
	*len = (*len + (2ul << 20) - 1) & ~((2ul << 20) - 1);
	if ((flags & MAP_FIXED) && (*addr & ((2ul << 20) - 1)))
		return -EINVAL;
	*h = &host_hstate_2m;
	return 0;
}
/* Any free range will do: no hugetlb VMA is ever made here. */
unsigned long hugetlb_get_unmapped_area(struct mm_struct *mm, unsigned long addr, unsigned long len,
					unsigned long flags, unsigned long sz)
{
	(void)sz;
	return get_unmapped_area(mm, addr, len, flags);
}
/* fs/hugetlbfs: no file here is a hugetlbfs one; a MAP_HUGETLB's file
 * would fail its reservation at mmap with the empty pool, so the setup
 * gives that mmap's -ENOMEM (before a MAP_FIXED unmaps anything, where
 * the kernel's unmaps first: the random tests make no hugetlb mapping). */
bool is_file_hugepages(const struct file *file);
bool is_file_hugepages(const struct file *file)
{
	(void)file;
	return false;
}
int hugetlb_mmap_align(struct hstate *h, unsigned long flags, unsigned long *addr, unsigned long *len)
{
	(void)h, (void)flags, (void)addr, (void)len;
	panic("hugetlb_mmap_align on the host: no hugetlbfs file here");
}
/* A SHM_HUGETLB segment's attach opens its file (mm/mmap.c): the host
 * model has no segments. */
struct path;
struct file *dentry_open(const struct path *path, int flags);
struct file *dentry_open(const struct path *path, int flags)
{
	(void)path, (void)flags;
	panic("dentry_open on the host: no SHM_HUGETLB segment here");
}
struct file *hugetlb_file_setup(const char *name, size_t size, unsigned long acctflag, int creat_flags,
				int page_size_log);
struct file *hugetlb_file_setup(const char *name, size_t size, unsigned long acctflag, int creat_flags,
				int page_size_log)
{
	(void)name, (void)size, (void)acctflag, (void)creat_flags, (void)page_size_log;
	return (struct file *)(long)-ENOMEM;
}
void resv_map_get(struct resv_map *resv) { (void)resv; }
void resv_map_put(struct resv_map *resv) { (void)resv; }
unsigned long mmap_min_addr = DEFAULT_MMAP_MIN_ADDR; /* mm/util.c's */

/* MADV_REMOVE's: the random tests do not give that advice. */
long vfs_fallocate(struct file *f, int mode, long offset, long len);
long vfs_fallocate(struct file *f, int mode, long offset, long len)
{
	(void)f, (void)mode, (void)offset, (void)len;
	panic("vfs_fallocate on the host: no MADV_REMOVE here");
}
void hugetlb_vm_op_close(struct vm_area_struct *vma) { (void)vma; }
int hugetlb_vm_op_split(const struct vm_area_struct *vma, unsigned long addr)
{
	(void)vma, (void)addr;
	return 0;
}
struct hstate *hstate_vma(const struct vm_area_struct *vma)
{
	(void)vma;
	panic("hstate_vma on the host: no hugetlb VMA here");
}
