/* A user address space (struct mm_struct) and its regions (struct
 * vm_area_struct), with Linux's names and flag values.
 *
 * Invariants:
 *   - the VMAs of an mm never overlap, are page aligned, are non-empty and
 *     lie below TASK_SIZE; they are kept in mm->mm_rb ordered by address;
 *     map_count is their number, total_vm the pages they cover;
 *   - a user page is mapped in a PTE only while a VMA covers its address;
 *     page tables may outlive the VMAs above them until free_pgd_range();
 *   - pgtables_bytes counts the page-table pages below the PGD (PUD, PMD and
 *     PTE tables) of this mm, nr_ptes its PTE tables alone;
 *   - rss[MM_ANONPAGES] counts the anonymous pages mapped (the shared zero
 *     page is not counted, as in Linux);
 *   - a VMA's anon_vma is NULL until an anonymous page is first faulted
 *     into it (a write: the zero page of a read fault does not count) or
 *     fork copies it; a VMA is on the chain list of every anon_vma whose
 *     pages it may map (mm/rmap.h).
 *
 * Locking (what protects what; threads of one process fault, madvise and
 * map on several CPUs at once, and kernel threads may use an mm with
 * kthread_use_mm):
 *   - mm->mmap_lock (a sleeping rwsem, mm/mmap_lock.h): the VMA tree and
 *     list (mm_rb, vm_next/vm_prev, map_count, highest_vm_end), every
 *     VMA's bounds, vm_flags and vm_page_prot, total_vm/hiwater_vm,
 *     brk/start_brk and the code/data/stack bounds, and the existence of
 *     the upper page-table pages (PUD, PMD tables): those are only freed
 *     (free_pgtables) under the write lock, so a walker holding it for
 *     reading may walk down to a PMD entry without further locks. A PTE
 *     table is kept by the mmap_lock alone in the off and scan modes of
 *     mm/pt_reclaim.h (scan frees one under the read lock only with the
 *     PMD and PTE locks held); in refcount mode (mm/pte_ref.h) the last
 *     put of its count frees it under either lock, so a walker under the
 *     read lock enters it with a reference (pte_tryget_map[_lock], the
 *     fault's pte_alloc) and the free waits for an RCU grace period.
 *     Empty PMD tables also go under the write lock, taken with a
 *     trylock after MADV_DONTNEED (mm/pt_reclaim.c's PMD extension).
 *     Taken for writing by mmap, munmap, mremap, mprotect,
 *     brk, the madvise advice that changes vm_flags, exit_mmap; for
 *     reading by page faults (kernel uaccess faults included), populate
 *     (MAP_POPULATE after downgrading, MADV_POPULATE_*), MADV_DONTNEED/
 *     FREE/WILLNEED/COLD/PAGEOUT (Linux's madvise_need_mmap_write) and the
 *     /proc/<pid>/{maps,status,statm,smaps...} readers;
 *   - mm->page_table_lock (spinlock): turning a none PGD/PUD/PMD entry
 *     into a table (__pud_alloc, __pmd_alloc, pmd_install, which also
 *     takes its reference on a table another walker installed), clearing
 *     the PMD of a refcounted PTE table whose count reached zero
 *     (free_user_pte_table, which re-checks the count under it), every
 *     change of a huge PMD (Linux's pmd_lockptr without split PMD locks), and a
 *     VMA's anon_vma going from NULL to set (anon_vma_prepare, under the
 *     read lock);
 *   - the PTE lock (split, one spinlock per PTE table, in its struct
 *     page: pte_lockptr/ptlock_ptr, mm/pgtable.h): the 512 entries of that
 *     table. A PTE is read without it only to decide what to try; it is
 *     changed only under it, after checking it still holds what was read
 *     (pte_same);
 *   - atomic, no lock: a PTE table's pt_refcount (mm/pte_ref.h: raised
 *     from zero never, by pte_try_get only inside rcu_read_lock), rss_stat,
 *     pgtables_bytes, nr_ptes, page_faults,
 *     hiwater_rss, mm_users/mm_count, mm_cpumask bits, an anon_vma's
 *     refcount, a user page's _mapcount and _refcount;
 *   - an anon_vma tree's root rwsem (mm/rmap.h): the chain lists of every
 *     anon_vma of the tree, taken for writing when a VMA joins or leaves
 *     one (anon_vma_prepare, anon_vma_clone, anon_vma_fork,
 *     unlink_anon_vmas), for reading by rmap_walk;
 *   - the TLB: a CPU running the mm has its bit in mm_cpumask (set before
 *     it loads CR3, never cleared) and gets every flush of the mm's
 *     ranges; a CPU that loaded another mm meanwhile skips the flush, and
 *     reloading CR3 when it switches back drops every user translation (no
 *     PCIDs).
 * Order: mmap_lock -> anon_vma rwsem -> page_table_lock -> PTE lock; a
 * PTE lock is never held with page_table_lock taken inside it (the zap of
 * a huge PMD takes page_table_lock with no PTE lock held), and two PTE
 * locks are held at once only by mremap's move_ptes, source then
 * destination, under the mmap write lock (no other walker can take two,
 * so the order cannot invert; Linux's move_ptes does the same), and by
 * fork's copy_pte_range, the child's then the parent's (the child's mm
 * is not yet visible to anyone, so nobody else takes its locks); fork
 * holds both mms' mmap_locks for writing, the parent's first.
 * The page allocator's and slab's locks are taken inside any of them only
 * through a free that cannot sleep; allocations that may sleep happen
 * before a spinlock is taken (pte_alloc_one, alloc_anon_page), and a full
 * mmu_gather is flushed (IPIs, waiting for other CPUs) only after the PTE
 * lock is dropped. Run-queue locks come last (a rwsem's waker calls
 * wake_up_process under the rwsem's wait_lock, never under an mm lock
 * except that wait_lock). Nothing sleeps under page_table_lock or a PTE
 * lock; mmap_lock is held across sleeps (allocation, TLB flush waits). */
#ifndef MM_MM_TYPES_H
#define MM_MM_TYPES_H

#include "arch/x86_64/pgtable.h"
#include "lib/rbtree.h"
#include "kernel/rwsem.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/types.h"

/* The user half of the address space: [0, TASK_SIZE). As Linux, the last
 * page below the canonical hole is never mapped. */
#define TASK_SIZE 0x00007ffffffff000ul
#define STACK_TOP TASK_SIZE           /* the user stack's VMA ends here */
#define USER_STACK_SIZE (8ul << 20)   /* the stack VMA's size (RLIMIT_STACK's default) */
/* Top-down mmap without a hint starts below a gap for the stack: Linux's
 * mmap_base() gap is the stack limit plus the 1 MiB stack guard gap,
 * clamped to at least 128 MiB (so 128 MiB with the default 8 MiB stack),
 * without randomisation, so runs are reproducible (Linux's with
 * `setarch -R`). */
#define MMAP_MIN_GAP (128ul << 20)
#define MMAP_BASE (TASK_SIZE - (USER_STACK_SIZE + (1ul << 20) > MMAP_MIN_GAP ? \
				USER_STACK_SIZE + (1ul << 20) : MMAP_MIN_GAP))
/* vm.mmap_min_addr (mm/util.c): no mapping below it; Linux's default. */
#define DEFAULT_MMAP_MIN_ADDR 65536ul
extern unsigned long mmap_min_addr;

/* vm_flags, Linux's values. */
#define VM_NONE 0x00000000ul
#define VM_READ 0x00000001ul
#define VM_WRITE 0x00000002ul
#define VM_EXEC 0x00000004ul
#define VM_SHARED 0x00000008ul
#define VM_MAYREAD 0x00000010ul
#define VM_MAYWRITE 0x00000020ul
#define VM_MAYEXEC 0x00000040ul
#define VM_MAYSHARE 0x00000080ul
#define VM_GROWSDOWN 0x00000100ul
#define VM_LOCKED 0x00002000ul
#define VM_LOCKONFAULT 0x00080000ul /* mlock2(MLOCK_ONFAULT), mlockall(MCL_ONFAULT) */
#define VM_LOCKED_MASK (VM_LOCKED | VM_LOCKONFAULT)
#define VM_SEQ_READ 0x00008000ul    /* MADV_SEQUENTIAL */
#define VM_RAND_READ 0x00010000ul   /* MADV_RANDOM */
#define VM_DONTCOPY 0x00020000ul    /* MADV_DONTFORK: not copied into a child */
#define VM_ACCOUNT 0x00100000ul
#define VM_NORESERVE 0x00200000ul
#define VM_HUGETLB 0x00400000ul     /* MAP_HUGETLB: mapped by huge pages of a pool (mm/hugetlb.h) */
#define VM_WIPEONFORK 0x02000000ul  /* MADV_WIPEONFORK */
#define VM_DONTDUMP 0x04000000ul    /* MADV_DONTDUMP */
#define VM_HUGEPAGE 0x20000000ul
#define VM_NOHUGEPAGE 0x40000000ul
#define VM_ACCESS_FLAGS (VM_READ | VM_WRITE | VM_EXEC)

typedef u64 pgprot_t;

struct mm_struct;
struct resv_map;
struct shmem_object;

/* What the anonymous pages of one or more VMAs belong to: the reverse
 * map (Linux's struct anon_vma, mm/rmap.h). A page's mapping names the
 * anon_vma of the VMA that first faulted it; every VMA that may map the
 * page (the pieces of a split, the copies fork made in children) is
 * linked to that anon_vma by an anon_vma_chain, so rmap_walk finds every
 * PTE mapping the page from the page alone. fork gives each child VMA an
 * anon_vma of its own (for the pages it will fault or copy) under the
 * parent's, sharing the parent's root (and so its lock). It also decides,
 * as in Linux, which VMAs may merge (not two with different ones:
 * is_mergeable_anon_vma in mm/vma.c) and whether mprotect may drop
 * VM_ACCOUNT (only while there is none). */
struct anon_vma {
	struct anon_vma *root;   /* the first ancestor: its rwsem locks the whole tree */
	struct rw_semaphore rwsem; /* the root's: every chain list of the tree (W), rmap_walk (R) */
	int refcount;            /* 1 while its chain list is not empty, + 1 per anon_vma
				  * whose root it is; freed at 0; atomic */
	struct anon_vma *parent; /* the parent VMA's anon_vma at fork (itself for a root) */
	/* The anon_vma_chains of the VMAs that may map its pages (Linux's
	 * rb_root, an interval tree by page offset; a list here: rmap_walk
	 * checks each VMA's range itself). */
	struct list_head head;
};

/* One link between a VMA and an anon_vma whose pages it may map (Linux's
 * struct anon_vma_chain). */
struct anon_vma_chain {
	struct vm_area_struct *vma;
	struct anon_vma *anon_vma;
	struct list_head same_vma;      /* in vma->anon_vma_chain (under mmap_lock) */
	struct list_head same_anon_vma; /* in anon_vma->head (under the root's rwsem) */
};

struct vm_area_struct {
	unsigned long vm_start; /* first byte */
	unsigned long vm_end;   /* first byte after */
	struct mm_struct *vm_mm;
	unsigned long vm_flags;   /* VM_* */
	pgprot_t vm_page_prot;    /* PTE bits for pages of this VMA (vm_get_page_prot) */
	/* Linux's vm_pgoff for anonymous memory: vm_start >> PAGE_SHIFT when
	 * mmap made it, kept by a VMA that mremap moves after its first fault
	 * (copy_vma), so that only pieces that were once one mapping merge
	 * again (mm/vma.c compares it; vma_set_range keeps it in step). */
	unsigned long vm_pgoff;
	struct rb_node vm_rb;     /* in vm_mm->mm_rb, by address */
	/* The neighbours in address order (NULL at the ends), so that the gap
	 * below a VMA and the walks of munmap/mprotect/madvise cost O(1) per
	 * step (mm/mmap.c keeps them in step with the tree). */
	struct vm_area_struct *vm_next, *vm_prev;
	/* The largest free gap below this VMA in its subtree (Linux's
	 * rb_subtree_gap before the maple tree), for the gap search. */
	unsigned long rb_subtree_gap;
	/* NULL until the first anonymous page is faulted in (anon_vma_prepare,
	 * mm/rmap.c) or fork gave it one (anon_vma_fork): where its new
	 * anonymous pages go. */
	struct anon_vma *anon_vma;
	/* Its anon_vma_chains (same_vma): one per anon_vma whose pages it may
	 * map, its own first (empty while anon_vma is NULL). */
	struct list_head anon_vma_chain;
	/* mbind's policy for this range (mm/mempolicy.h), a reference; NULL:
	 * the task's policy applies. Pieces of a split VMA share it. */
	struct mempolicy *vm_policy;
	/* A VM_HUGETLB VMA's page size and reservations (Linux keeps its
	 * resv_map in vm_private_data and the size in the file's hstate), a
	 * reference; NULL for any other VMA. Pieces of a split VMA share it. */
	struct resv_map *vm_resv_map;
	/* A MAP_SHARED anonymous mapping's pages (mm/shmem.h: Linux's
	 * vma->vm_file of shmem_zero_setup), a reference; NULL for any other
	 * VMA. Pieces of a split VMA and fork's copies share it. */
	struct shmem_object *vm_shm;
	/* The file a file mapping maps (a reference, Linux's vm_file: tmpfs
	 * files, fs/fs.h), vm_pgoff its page offset at vm_start; NULL for
	 * anonymous memory. A MAP_SHARED one also has the file's shmem object
	 * in vm_shm (its pages are the file's page cache); a MAP_PRIVATE one
	 * is anonymous memory whose pages start as copies of the file's
	 * (mm/memory.c). Pieces of a split VMA and fork's copies each hold
	 * one. */
	struct file *vm_file;
	/* Its node in the interval tree of the file or shmem object it maps
	 * (Linux's vma->shared, mm/interval_tree.h): linked while it is in
	 * the tree, rb_subtree_last the largest last page offset of its
	 * subtree. Guarded by that tree's i_mmap_rwsem. */
	struct {
		struct rb_node rb;
		unsigned long rb_subtree_last;
		bool linked;
	} shared;
	/* The VMA-based swap readahead's state (Linux's swap_readahead_info,
	 * mm/swap_readahead.c): the last fault's page address, the window it
	 * read and the readahead hits since, in one word; 0 before the first
	 * swap-in. Read and written racily, as Linux's atomic_long. */
	unsigned long swap_readahead_info;
};

static inline bool is_vm_hugetlb_page(const struct vm_area_struct *vma) { return vma->vm_flags & VM_HUGETLB; }
/* Linux's vma_is_shared_maywrite: a shared mapping that is or may be made
 * writable (its file's i_mmap_writable counts it, fs/fs.h). */
static inline bool vma_is_shared_maywrite(const struct vm_area_struct *vma)
{
	return (vma->vm_flags & (VM_SHARED | VM_MAYWRITE)) == (VM_SHARED | VM_MAYWRITE);
}

/* RSS by kind (Linux's): private anonymous pages, and pages of shared
 * anonymous memory (mm/shmem.h); and the swap entries in the mm's page
 * tables (MM_SWAPENTS: VmSwap, oom_badness), not RSS. */
enum mm_counter { MM_ANONPAGES, MM_SHMEMPAGES, MM_SWAPENTS, NR_MM_COUNTERS };

struct mm_struct {
	pgd_t *pgd;                /* the PGD page (direct-map address) */
	struct rb_root mm_rb;      /* the VMAs by address */
	int map_count;             /* number of VMAs */
	unsigned long highest_vm_end; /* end of the highest VMA */
	struct rw_semaphore mmap_lock; /* the VMAs and vm_flags (see Locking above) */
	spinlock_t page_table_lock;    /* installing tables, huge PMDs, anon_vma */
	/* PTE tables deposited by THP faults, one per huge PMD, taken back by
	 * the split or the zap of one (Linux's pmd_huge_pte, a list through
	 * the tables' pt_pad words); under page_table_lock. */
	struct list_head pmd_huge_pte;
	/* On the list of mms that may hold swap entries (Linux's mmlist,
	 * under mmlist_lock: mm/swapfile.c), from its first one until
	 * mmput's teardown; swapoff walks it. */
	struct list_head mmlist;
	struct cpumask cpu_bitmap; /* CPUs that have run it (mm_cpumask) */
	int mm_users;              /* tasks using it */
	int mm_count;              /* references to the struct itself */
	unsigned long total_vm;    /* pages mapped by VMAs */
	unsigned long hiwater_vm;  /* peak total_vm */
	unsigned long hiwater_rss; /* peak rss */
	long rss_stat[NR_MM_COUNTERS];
	long hugetlb_usage;        /* pages of 4 KiB mapped by hugetlb pages (HugetlbPages;
				    * not RSS, as Linux's); atomic */
	long pgtables_bytes;       /* PUD+PMD+PTE table pages, in bytes (VmPTE) */
	long nr_ptes;              /* PTE table pages */
	unsigned long pte_tables_reclaimed; /* emptied PTE tables freed while mapped
				    * (refcount or scan mode); atomic; the
				    * PMD extension's trigger (mm/pt_reclaim.c) */
	/* A range whose PMD extension lost its write trylock (0, 0: none),
	 * under page_table_lock: the next MADV_DONTNEED scans it too, so an
	 * empty PMD table is not left for good because another thread held
	 * mmap_lock at the one moment it could have gone. */
	unsigned long pmd_reclaim_start, pmd_reclaim_end;
	unsigned long mmap_base;   /* where the top-down gap search starts */
	unsigned long def_flags;   /* VM_LOCKED (VM_LOCKONFAULT) for every new mapping after
				    * mlockall(MCL_FUTURE); under mmap_lock */
	unsigned long start_code, end_code, start_data, end_data;
	unsigned long start_brk, brk, start_stack;
	/* The argument and environment strings on the stack (exec's
	 * create_elf_tables): /proc/<pid>/stat's arg_start..env_end. */
	unsigned long arg_start, arg_end, env_start, env_end;
	unsigned long page_faults; /* handled faults (minor: no I/O here); atomic */
	/* MMF_* (Linux's mm->flags): the dumpable mode and what prctl set
	 * for the address space; atomic bit operations, no lock. */
	unsigned long flags;
};

/* mm->flags, Linux's bits (include/linux/sched/coredump.h, mm_types.h):
 * the low two bits are the dumpable mode (prctl PR_SET_DUMPABLE's
 * SUID_DUMP_*); MMF_DISABLE_THP is PR_SET_THP_DISABLE, MMF_HAS_MDWE and
 * MMF_HAS_MDWE_NO_INHERIT are PR_SET_MDWE's two flags. */
#define MMF_DUMPABLE_BITS 2
#define MMF_DUMPABLE_MASK ((1ul << MMF_DUMPABLE_BITS) - 1)
#define SUID_DUMP_DISABLE 0
#define SUID_DUMP_USER 1
#define MMF_OOM_SKIP 21        /* of no interest to the OOM killer: reaped, or its exit freed it */
#define MMF_UNSTABLE 22        /* the oom_reaper unmapped memory under it (Linux's) */
#define MMF_DISABLE_THP 24
#define MMF_OOM_REAP_QUEUED 26 /* queued for the oom_reaper (Linux 6.1's bit) */
#define MMF_HAS_MDWE 28
#define MMF_HAS_MDWE_NO_INHERIT 29
/* What a new mm takes from the one it comes from (fork, exec: Linux's
 * MMF_INIT_MASK, of the bits mmlab has). */
#define MMF_INIT_MASK (MMF_DUMPABLE_MASK | (1ul << MMF_DISABLE_THP) | (1ul << MMF_HAS_MDWE))

static inline bool mm_flag_test(const struct mm_struct *mm, int bit)
{
	return __atomic_load_n(&mm->flags, __ATOMIC_RELAXED) >> bit & 1;
}
static inline void mm_flag_set(struct mm_struct *mm, int bit)
{
	__atomic_or_fetch(&mm->flags, 1ul << bit, __ATOMIC_RELAXED);
}
static inline void mm_flag_clear(struct mm_struct *mm, int bit)
{
	__atomic_and_fetch(&mm->flags, ~(1ul << bit), __ATOMIC_RELAXED);
}
/* Linux's mmf_init_flags: MDWE with PR_MDWE_NO_INHERIT stops here. */
static inline unsigned long mmf_init_flags(unsigned long flags)
{
	if (flags & (1ul << MMF_HAS_MDWE_NO_INHERIT))
		flags &= ~((1ul << MMF_HAS_MDWE) | (1ul << MMF_HAS_MDWE_NO_INHERIT));
	return flags & MMF_INIT_MASK;
}
static inline int get_dumpable(const struct mm_struct *mm)
{
	return (int)(__atomic_load_n(&mm->flags, __ATOMIC_RELAXED) & MMF_DUMPABLE_MASK);
}
static inline void set_dumpable(struct mm_struct *mm, int value)
{
	unsigned long old = __atomic_load_n(&mm->flags, __ATOMIC_RELAXED), new;
	do
		new = (old & ~MMF_DUMPABLE_MASK) | (unsigned long)value;
	while (!__atomic_compare_exchange_n(&mm->flags, &old, new, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}
/* Linux's map_deny_write_exec: under MDWE (PR_MDWE_REFUSE_EXEC_GAIN), a
 * mapping may not be writable and executable at once, nor become
 * executable when it was not (old: its flags before, new: after; the same
 * for a new mapping). */
static inline bool map_deny_write_exec(const struct mm_struct *mm, unsigned long old, unsigned long new)
{
	if (!mm_flag_test(mm, MMF_HAS_MDWE))
		return false;
	if ((new & VM_EXEC) && (new & VM_WRITE))
		return true;
	return !(old & VM_EXEC) && (new & VM_EXEC);
}

static inline struct cpumask *mm_cpumask(struct mm_struct *mm) { return &mm->cpu_bitmap; }
static inline unsigned long get_mm_counter(const struct mm_struct *mm, int member)
{
	long v = __atomic_load_n(&mm->rss_stat[member], __ATOMIC_RELAXED);
	return v < 0 ? 0 : (unsigned long)v;
}
static inline void add_mm_counter(struct mm_struct *mm, int member, long value)
{
	__atomic_add_fetch(&mm->rss_stat[member], value, __ATOMIC_RELAXED);
}
static inline unsigned long get_mm_rss(const struct mm_struct *mm)
{
	return get_mm_counter(mm, MM_ANONPAGES) + get_mm_counter(mm, MM_SHMEMPAGES);
}
/* A page mapped: the counter, and the peak (VmHWM) raised to the new rss.
 * Linux raises it lazily, before rss falls (update_hiwater_rss), and
 * /proc shows the larger of the two; here it is raised as rss grows, an
 * atomic max, faults on several CPUs racing. */
static inline void add_mm_rss_counter(struct mm_struct *mm, int member, long nr)
{
	add_mm_counter(mm, member, nr);
	if (nr <= 0)
		return;
	unsigned long rss = get_mm_rss(mm);
	unsigned long peak = __atomic_load_n(&mm->hiwater_rss, __ATOMIC_RELAXED);
	while (rss > peak && !__atomic_compare_exchange_n(&mm->hiwater_rss, &peak, rss, false,
							   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}
static inline unsigned long mm_pgtables_bytes(const struct mm_struct *mm)
{
	return (unsigned long)__atomic_load_n(&mm->pgtables_bytes, __ATOMIC_RELAXED);
}

#endif
