/* Address-space layout and the system calls on it: the search for a free
 * range (x86_64's arch_get_unmapped_area_topdown over the augmented VMA
 * tree), mmap, munmap, brk and exit, with Linux's semantics and errno
 * values, in the order Linux checks them. The VMA tree itself is
 * mm/vma.c.
 *
 * Anonymous memory, private and shared (mm/shmem.h), and tmpfs files,
 * shared or private (mmap_file_locked); no stack guard gap (VM_GROWSDOWN
 * is recorded, stacks do not grow), no address randomisation (runs are
 * reproducible). VM_ACCOUNT memory is charged to the commit count under
 * the overcommit policy (mm/util.h) where Linux charges it: mmap_region
 * (mmap and brk) charges, munmap_range and exit_mmap uncharge. */
#include "mm/mmap.h"
#include "mm/vma.h"
#include "fs/fs.h"
#include "fs/mount.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "mm/huge_memory.h"
#include "mm/khugepaged.h"
#include "mm/hugetlb.h"
#include "mm/hugetlb_vma.h"
#include "fs/hugetlbfs/hugetlbfs.h"
#include "lib/err.h"
#include "mm/memory.h"
#include "mm/interval_tree.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_gather.h"
#include "mm/oom.h"
#include "mm/shmem.h"
#include "mm/util.h"

/* ---- the gap search -------------------------------------------------------- */

/* The lowest address a where [a, a + length) is free and inside
 * [low_limit, high_limit), or -ENOMEM. The tree walk goes left first and
 * enters a subtree only if its largest gap could hold length. */
unsigned long unmapped_area(struct mm_struct *mm, unsigned long length, unsigned long low_limit,
			    unsigned long high_limit)
{
	if (low_limit < mmap_min_addr)
		low_limit = mmap_min_addr;
	if (high_limit < length || high_limit - length < low_limit)
		return -ENOMEM;
	/* A gap [gap_start, gap_end) fits if gap_start <= last and
	 * gap_end >= first_end (and it is long enough). */
	unsigned long last = high_limit - length, first_end = low_limit + length;
	unsigned long gap_start, gap_end;
	struct vm_area_struct *vma = rb_vma(mm->mm_rb.rb_node);
	if (!vma || vma->rb_subtree_gap < length)
		goto check_highest;
	for (;;) {
		gap_end = vma->vm_start;
		struct vm_area_struct *left = rb_vma(vma->vm_rb.rb_left);
		if (gap_end >= first_end && left && left->rb_subtree_gap >= length) {
			vma = left;
			continue;
		}
		gap_start = vma->vm_prev ? vma->vm_prev->vm_end : 0;
check_current:
		if (gap_start > last)
			return -ENOMEM;
		if (gap_end >= first_end && gap_end - gap_start >= length)
			goto found;
		struct vm_area_struct *right = rb_vma(vma->vm_rb.rb_right);
		if (right && right->rb_subtree_gap >= length) {
			vma = right;
			continue;
		}
		/* Up to the first ancestor we reached from its left. */
		for (;;) {
			struct rb_node *from = &vma->vm_rb;
			if (!rb_parent(from))
				goto check_highest;
			vma = rb_vma(rb_parent(from));
			if (from == vma->vm_rb.rb_left) {
				gap_start = vma->vm_prev->vm_end;
				gap_end = vma->vm_start;
				goto check_current;
			}
		}
	}
check_highest:
	gap_start = mm->highest_vm_end;
	if (gap_start > last)
		return -ENOMEM;
found:
	return gap_start < low_limit ? low_limit : gap_start;
}

/* The highest such address (the walk goes right first). */
unsigned long unmapped_area_topdown(struct mm_struct *mm, unsigned long length, unsigned long low_limit,
				    unsigned long high_limit)
{
	if (low_limit < mmap_min_addr)
		low_limit = mmap_min_addr;
	if (high_limit < length || high_limit - length < low_limit)
		return -ENOMEM;
	unsigned long last = high_limit - length, first_end = low_limit + length;
	unsigned long gap_start, gap_end;
	/* The gap above the last VMA is in no node. */
	if (mm->highest_vm_end <= last)
		return last;
	struct vm_area_struct *vma = rb_vma(mm->mm_rb.rb_node);
	if (!vma || vma->rb_subtree_gap < length)
		return -ENOMEM;
	for (;;) {
		gap_start = vma->vm_prev ? vma->vm_prev->vm_end : 0;
		struct vm_area_struct *right = rb_vma(vma->vm_rb.rb_right);
		if (gap_start <= last && right && right->rb_subtree_gap >= length) {
			vma = right;
			continue;
		}
check_current:
		gap_end = vma->vm_start;
		if (gap_end < first_end)
			return -ENOMEM;
		if (gap_start <= last && gap_end - gap_start >= length)
			return (gap_end > high_limit ? high_limit : gap_end) - length;
		struct vm_area_struct *left = rb_vma(vma->vm_rb.rb_left);
		if (left && left->rb_subtree_gap >= length) {
			vma = left;
			continue;
		}
		/* Up to the first ancestor we reached from its right. */
		for (;;) {
			struct rb_node *from = &vma->vm_rb;
			if (!rb_parent(from))
				return -ENOMEM;
			vma = rb_vma(rb_parent(from));
			if (from == vma->vm_rb.rb_right) {
				gap_start = vma->vm_prev ? vma->vm_prev->vm_end : 0;
				goto check_current;
			}
		}
	}
}

/* A hint is taken if [addr, addr + len) is free and below limit. */
bool hint_fits(struct mm_struct *mm, unsigned long addr, unsigned long len, unsigned long limit)
{
	if (!addr || limit - len < addr)
		return false;
	struct vm_area_struct *vma = find_vma(mm, addr);
	return !vma || addr + len <= vma->vm_start;
}

/* x86_64's arch_get_unmapped_area_topdown, falling back to its
 * arch_get_unmapped_area. */
static unsigned long search_unmapped_area(struct mm_struct *mm, unsigned long hint,
					  unsigned long len, unsigned long flags)
{
	if (!(flags & MAP_32BIT)) {
		if (hint_fits(mm, hint & PAGE_MASK, len, TASK_SIZE))
			return hint & PAGE_MASK;
		unsigned long addr = unmapped_area_topdown(mm, len, PAGE_SIZE, mm->mmap_base);
		if (!IS_ERR_VALUE(addr))
			return addr;
	}
	/* Bottom-up: a failed mmap very likely kills the program, so look
	 * above mmap_base too before giving up (as Linux). */
	unsigned long begin = TASK_UNMAPPED_BASE, end = TASK_SIZE;
	if (flags & MAP_32BIT) {
		begin = 0x40000000ul;
		end = 0x80000000ul;
	}
	if (len > end)
		return -ENOMEM;
	if (hint_fits(mm, PAGE_ALIGN(hint), len, end))
		return PAGE_ALIGN(hint);
	return unmapped_area(mm, len, begin, end);
}

/* Linux's __thp_get_unmapped_area for private anonymous memory (6.7's
 * "mm: align larger anonymous mappings on THP boundaries", limited to
 * multiples of PMD_SIZE in 6.12 and to calls without a hint): a search for
 * len + 2 MiB, the result moved up to the next 2 MiB boundary (or, when it
 * is aligned already, to the top of the padded gap, as Linux does for a
 * top-down layout). 0 when no padded gap exists: the plain search goes on. */
static unsigned long thp_get_unmapped_area(struct mm_struct *mm, unsigned long len)
{
	if (len > TASK_SIZE - PMD_SIZE)
		return 0;
	unsigned long ret = unmapped_area_topdown(mm, len + PMD_SIZE, PAGE_SIZE, mm->mmap_base);
	if (IS_ERR_VALUE(ret))
		return 0;
	unsigned long off_sub = (0 - ret) & (PMD_SIZE - 1);
	return off_sub ? ret + off_sub : ret + PMD_SIZE;
}

unsigned long arch_get_unmapped_area(struct mm_struct *mm, unsigned long addr, unsigned long len,
				     unsigned long flags)
{
	if (len > TASK_SIZE)
		return -ENOMEM;
	if (flags & MAP_FIXED)
		return addr;
	return search_unmapped_area(mm, addr, len, flags);
}

/* Linux's __get_unmapped_area's checks of what the search (or a file's
 * method) gave. */
static unsigned long check_unmapped_area(unsigned long addr, unsigned long len)
{
	if (IS_ERR_VALUE(addr))
		return addr;
	if (addr > TASK_SIZE - len)
		return -ENOMEM;
	if (addr & ~PAGE_MASK)
		return -EINVAL;
	if (addr < mmap_min_addr)
		return -EPERM; /* security_mmap_addr without CAP_SYS_RAWIO */
	return addr;
}

unsigned long get_unmapped_area(struct mm_struct *mm, unsigned long addr, unsigned long len,
				unsigned long flags)
{
	if (len > TASK_SIZE)
		return -ENOMEM;
	unsigned long thp = 0;
	if (!(flags & (MAP_FIXED | MAP_32BIT | MAP_SHARED)) && !addr && !(len & (PMD_SIZE - 1)))
		thp = thp_get_unmapped_area(mm, len);
	return check_unmapped_area(thp ? thp : arch_get_unmapped_area(mm, addr, len, flags), len);
}

unsigned long get_unmapped_area_file(struct mm_struct *mm, struct file *file, unsigned long addr,
				     unsigned long len, unsigned long pgoff, unsigned long flags)
{
	if (len > TASK_SIZE)
		return -ENOMEM;
	if (file && file->f_op->get_unmapped_area)
		addr = file->f_op->get_unmapped_area(mm, file, addr, len, pgoff, flags);
	else if (file)
		addr = arch_get_unmapped_area(mm, addr, len, flags);
	else if (flags & MAP_SHARED)
		/* Linux: "mmap_region() will call shmem_zero_setup() to create
		 * a file, so use shmem's get_unmapped_area in case it can be
		 * huge"; its offsets start at 0. */
		addr = shmem_get_unmapped_area(mm, NULL, addr, len, 0, flags);
	else
		return get_unmapped_area(mm, addr, len, flags);
	return check_unmapped_area(addr, len);
}

/* ---- munmap ---------------------------------------------------------------- */

/* Linux's do_vmi_munmap: the range is checked before anything is
 * touched (aligned, below TASK_SIZE, not wrapping, not empty), so no
 * caller can unmap past what it was given. */
int do_munmap_locked(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	mmap_assert_write_locked(mm);
	if ((start & ~PAGE_MASK) || start > TASK_SIZE || len > TASK_SIZE - start)
		return -EINVAL;
	unsigned long end = start + PAGE_ALIGN(len);
	if (end == start)
		return -EINVAL;
	return munmap_range(mm, start, end);
}

int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	/* Linux's __vm_munmap: the whole change under the write lock. */
	mmap_write_lock(mm);
	int ret = do_munmap_locked(mm, start, len);
	mmap_write_unlock(mm);
	return ret;
}

/* ---- mmap ------------------------------------------------------------------ */

/* Maps [addr, addr + len) with vm_flags, replacing what is there. The
 * heap (brk) only ever grows the VMA that ends at the old break, and only
 * once the break is above start_brk: the first brk never merges with the
 * data segment ending at start_brk, and brk never merges with a mapping
 * above it, so [heap] stays a VMA of its own, as Linux's brk() and
 * do_brk_flags keep it (vma_prev_limit(&vmi, mm->start_brk) finds no VMA
 * when the gap at the old break begins at or below start_brk; a VMA that
 * reaches past start_brk, whatever its start, is grown). */
/* The VM_ACCOUNT pages of the VMAs in [start, end). */
static unsigned long accounted_pages(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	unsigned long n = 0;
	for (struct vm_area_struct *vma = find_vma(mm, start); vma && vma->vm_start < end;
	     vma = vma->vm_next)
		if (vma->vm_flags & VM_ACCOUNT)
			n += (min(end, vma->vm_end) - max(start, vma->vm_start)) >> PAGE_SHIFT;
	return n;
}

unsigned long mmap_region(struct mm_struct *mm, unsigned long addr, unsigned long len,
			  unsigned long vm_flags, bool brk, struct file *file, unsigned long pgoff)
{
	mmap_assert_write_locked(mm);
	unsigned long end = addr + len;
	/* Linux's __mmap_region: a private writable mapping is charged its
	 * pages less those of the accounted mappings it replaces (their
	 * charge passes to it), before anything changes; -ENOMEM leaves the
	 * old mappings as they were. Here munmap_range uncharges the replaced
	 * ones as any unmap does, so their share is added back first. */
	long charged = 0, replaced = 0;
	if (vm_flags & VM_ACCOUNT) {
		replaced = (long)accounted_pages(mm, addr, end);
		charged = (long)(len >> PAGE_SHIFT) - replaced;
		if (charged && security_vm_enough_memory_mm(mm, charged))
			return -ENOMEM;
		vm_acct_memory(replaced);
	}
	/* Allocated first: a failure must not leave the old mappings gone. */
	struct vm_area_struct *new = vm_area_alloc();
	if (!new) {
		vm_unacct_memory(charged + replaced);
		return -ENOMEM;
	}
	int err = munmap_range(mm, addr, end);
	if (err) {
		vm_area_free(new);
		vm_unacct_memory(charged + replaced);
		return err;
	}
	struct vm_area_struct *prev;
	struct rb_node **link, *parent;
	find_vma_links(mm, addr, end, &prev, &link, &parent);
	struct vm_area_struct *next = prev ? prev->vm_next : rb_vma(rb_first(&mm->mm_rb));
	struct vm_area_struct *merge_prev = prev, *merge_next = next;
	if (brk) {
		if (prev && prev->vm_end <= mm->start_brk)
			merge_prev = NULL;
		merge_next = NULL;
	}
	/* A file mapping is a VMA of its own (Linux merges one with the same
	 * file at offsets that follow on; mmlab's new ranges do not try). */
	if (!file && vma_merge_new(mm, merge_prev, merge_next, addr, end, vm_flags)) {
		vm_area_free(new);
	} else {
		new->vm_start = addr;
		new->vm_end = end;
		if (file) {
			new->vm_file = get_file(file);
			new->vm_pgoff = pgoff;
		}
		vma_set_flags(new, vm_flags);
		vma_link(mm, new, prev, link, parent);
	}
	vm_stat_account(mm, (long)(len >> PAGE_SHIFT));
	return addr;
}

int __mm_populate(struct mm_struct *mm, unsigned long start, unsigned long len, bool ignore_errors)
{
	mmap_assert_locked(mm);
	unsigned long end = start + len;
	for (struct vm_area_struct *vma = find_vma(mm, start); vma && vma->vm_start < end;
	     vma = vma->vm_next) {
		/* populate_vma_page_range: "don't page populate if vma has
		 * VM_LOCKONFAULT". */
		if (vma->vm_flags & VM_LOCKONFAULT)
			continue;
		int ret = populate_vma_range(vma, max(start, vma->vm_start), min(end, vma->vm_end),
					     (vma->vm_flags & (VM_WRITE | VM_SHARED)) == VM_WRITE);
		if (ret && !ignore_errors)
			return ret;
	}
	return 0;
}

/* Linux's mm_populate: the errors ignored (mmap, brk). */
static void mm_populate(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	__mm_populate(mm, start, len, true);
}

static unsigned long calc_vm_prot_bits(unsigned long prot)
{
	return (prot & PROT_READ ? VM_READ : 0) | (prot & PROT_WRITE ? VM_WRITE : 0) |
	       (prot & PROT_EXEC ? VM_EXEC : 0);
}

/* Linux's do_mmap, in its order of checks, under the write lock. file: a
 * file mapping of an open descriptor. Unknown prot and flag bits are
 * ignored, as Linux's mmap ignores them (only mprotect validates prot).
 * *populate is set when the new range is to be faulted in (after the
 * caller downgraded the lock). */
/* Linux's do_mmap for a file, in its order: the access the mapping needs
 * of the descriptor (-EACCES: any mapping reads, a shared writable one
 * writes), then a file that cannot be mapped (-ENODEV: no mmap method:
 * the console, procfs); the VMA (charged as an anonymous one would be
 * when private and writable), then the file's mmap method (tmpfs: a
 * shared mapping's pages are the file's page cache, mm/shmem.c). A shared
 * mapping of a read-only descriptor can never be made writable
 * (VM_MAYWRITE cleared). */
static unsigned long mmap_file_locked(struct mm_struct *mm, unsigned long addr, unsigned long len,
				      unsigned long prot, unsigned long flags, struct file *file,
				      unsigned long pgoff, unsigned long vm_flags, bool *populate)
{
	switch (flags & MAP_TYPE) {
	case MAP_SHARED:
	case MAP_SHARED_VALIDATE:
		if ((prot & PROT_WRITE) && !(file->f_mode & FMODE_WRITE))
			return -EACCES;
		vm_flags |= VM_SHARED | VM_MAYSHARE;
		if (!(file->f_mode & FMODE_WRITE))
			vm_flags &= ~VM_MAYWRITE;
		/* fall through */
	case MAP_PRIVATE:
		if (!(file->f_mode & FMODE_READ))
			return -EACCES;
		/* Linux's path_noexec: no executable mapping of a file on a
		 * noexec mount (secretmem's), and none made so later. */
		if (file->f_path.mnt && (file->f_path.mnt->mnt_flags & MNT_NOEXEC)) {
			if (vm_flags & VM_EXEC)
				return -EPERM;
			vm_flags &= ~VM_MAYEXEC;
		}
		if (!file->f_op->mmap)
			return -ENODEV;
		if (vm_flags & VM_GROWSDOWN)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (pgoff + (len >> PAGE_SHIFT) < pgoff)
		return -EOVERFLOW;
	/* hugetlb honours MAP_NORESERVE in every overcommit mode, and its
	 * pool reserves instead of the commit charge (Linux's do_mmap and
	 * accountable_mapping). */
	bool hugetlb = is_file_hugepages(file);
	if ((flags & MAP_NORESERVE) && (hugetlb || READ_ONCE(sysctl_overcommit_memory) != OVERCOMMIT_NEVER))
		vm_flags |= VM_NORESERVE;
	if (hugetlb)
		vm_flags |= VM_HUGETLB;
	else if ((vm_flags & (VM_WRITE | VM_NORESERVE | VM_SHARED)) == VM_WRITE)
		vm_flags |= VM_ACCOUNT;
	addr = mmap_region(mm, addr, len, vm_flags, false, file, pgoff);
	if (IS_ERR_VALUE(addr))
		return addr;
	struct vm_area_struct *vma = find_vma(mm, addr);
	/* Linux calls the method before it links the VMA, and a method may
	 * replace vm_file (/dev/zero's: shmem_zero_setup, or none for a
	 * private mapping): the VMA, linked here already, leaves its file's
	 * i_mmap for the call and joins the tree of what it maps afterwards
	 * (mm/interval_tree.h; no page is mapped in it yet). */
	unlink_file_vma(vma);
	int err = file->f_op->mmap(file, vma);
	/* The VMA's count in i_mmap_writable (fs/fs.h) is taken after the
	 * method, which may have cleared VM_MAYWRITE (a write-sealed memfd,
	 * mm/memfd.c) or replaced the file (/dev/zero): Linux 6.7's order
	 * ("mm: perform the mapping_map_writable() check after call_mmap()",
	 * Lorenzo Stoakes); 6.1 takes it before, for every VM_SHARED one. A
	 * VMA that did not get it must not give it back when it goes. */
	if (!err && vma->vm_file && vma_is_shared_maywrite(vma))
		err = mapping_map_writable(vma->vm_file->f_mapping);
	if (err) {
		vma->vm_flags &= ~VM_MAYWRITE;
		munmap_range(mm, addr, addr + len);
		return (unsigned long)(long)err;
	}
	vma_link_file(vma);
	/* Linux 6.1's mmap_region: a shmem mapping that shmem_enabled or
	 * huge= lets khugepaged collapse lists its mm now (anonymous VMAs
	 * wait for their anon_vma: hugepage_madvise, the THP fault). */
	khugepaged_enter_vma(vma, vma->vm_flags);
	if (hugetlb) /* mmap_region: never VM_LOCKED, though MAP_LOCKED still populates */
		vma_set_flags(vma, vma->vm_flags & ~VM_LOCKED_MASK);
	if ((vm_flags & VM_LOCKED) || (flags & (MAP_POPULATE | MAP_NONBLOCK)) == MAP_POPULATE)
		*populate = true;
	return addr;
}

/* shm: a System V segment's object that a MAP_SHARED anonymous mapping
 * maps instead of a new one (do_mmap_shmem_locked). */
static unsigned long mmap_pgoff_locked(struct mm_struct *mm, unsigned long addr, unsigned long len,
				       unsigned long prot, unsigned long flags, struct file *file,
				       unsigned long pgoff, struct shmem_object *shm, bool user, bool *populate)
{
	mmap_assert_write_locked(mm);
	*populate = false;
	/* ksys_mmap_pgoff: MAP_HUGETLB's size and rounding come first; a
	 * hugetlbfs file's size is its own (whatever MAP_HUGETLB says), a
	 * file that is not hugetlbfs cannot take MAP_HUGETLB. */
	struct hstate *h = NULL;
	if (file && is_file_hugepages(file)) {
		h = hstate_file(file);
		int err = hugetlb_mmap_align(h, flags, &addr, &len);
		if (err)
			return (unsigned long)err;
	} else if (flags & MAP_HUGETLB) {
		if (file)
			return -EINVAL;
		int err = hugetlb_mmap_prepare(flags, &addr, &len, &h);
		if (err)
			return (unsigned long)err;
	}
	if (!len)
		return -EINVAL;
	if (flags & MAP_FIXED_NOREPLACE)
		flags |= MAP_FIXED;
	if (!(flags & MAP_FIXED)) {
		/* round_hint_to_min */
		addr &= PAGE_MASK;
		if (addr && addr < mmap_min_addr)
			addr = PAGE_ALIGN(mmap_min_addr);
	}
	len = PAGE_ALIGN(len);
	if (!len)
		return -ENOMEM;
	if (mm->map_count > sysctl_max_map_count)
		return -ENOMEM;
	/* mm->def_flags: VM_LOCKED after mlockall(MCL_FUTURE). */
	unsigned long vm_flags = calc_vm_prot_bits(prot) | mm->def_flags | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
	if (flags & MAP_GROWSDOWN)
		vm_flags |= VM_GROWSDOWN;
	if (flags & MAP_LOCKED)
		vm_flags |= VM_LOCKED; /* populated below */
	if (flags & MAP_STACK)
		vm_flags |= VM_NOHUGEPAGE; /* Linux 6.7+ with THP */

	addr = h ? hugetlb_get_unmapped_area(mm, addr, len, flags, huge_page_size(h))
		 : get_unmapped_area_file(mm, file, addr, len, pgoff, flags);
	if (IS_ERR_VALUE(addr))
		return addr;
	if ((flags & MAP_FIXED_NOREPLACE) && find_vma_intersection(mm, addr, addr + len))
		return -EEXIST;
	/* Locked memory (MAP_LOCKED, or mlockall(MCL_FUTURE)'s def_flags)
	 * within RLIMIT_MEMLOCK unless CAP_IPC_LOCK: Linux's do_mmap. */
	if ((flags & MAP_LOCKED) && !can_do_mlock())
		return -EPERM;
	if (!mlock_future_ok(mm, vm_flags, len))
		return -EAGAIN;

	unsigned long type = flags & MAP_TYPE;
	if (file) {
		/* MDWE, as below for anonymous memory. */
		if (user && map_deny_write_exec(mm, vm_flags, vm_flags))
			return -EACCES;
		return mmap_file_locked(mm, addr, len, prot, flags, file, pgoff, vm_flags, populate);
	}
	switch (type) {
	case MAP_SHARED:
		if (vm_flags & VM_GROWSDOWN)
			return -EINVAL;
		vm_flags |= VM_SHARED | VM_MAYSHARE;
		break;
	case MAP_PRIVATE:
		break;
	default:
		/* MAP_SHARED_VALIDATE too: Linux rejects it for anonymous memory. */
		return -EINVAL;
	}
	/* Linux's do_mmap: "We honor MAP_NORESERVE if allowed to overcommit",
	 * i.e. in every mode but OVERCOMMIT_NEVER; for hugetlb always. */
	if ((flags & MAP_NORESERVE) && (h || READ_ONCE(sysctl_overcommit_memory) != OVERCOMMIT_NEVER))
		vm_flags |= VM_NORESERVE;
	/* Linux's accountable_mapping(): private writable memory is charged
	 * to the commit count (mmap_region) unless VM_NORESERVE; hugetlb never
	 * (its pool reserves). */
	if (!h && (vm_flags & (VM_WRITE | VM_NORESERVE | VM_SHARED)) == VM_WRITE)
		vm_flags |= VM_ACCOUNT;
	/* Linux's mmap_region opens with the MDWE check: a new mapping may
	 * not be writable and executable (mm/mm_types.h). Only a program's
	 * own calls are checked: exec's loader (do_mmap) maps a segment
	 * writable to copy it in and then gives it its protection, where
	 * Linux maps it once with that protection (and refuses a writable
	 * and executable one, which mmlab loads). */
	if (user && map_deny_write_exec(mm, vm_flags, vm_flags))
		return -EACCES;
	if (h) {
		/* Linux's ksys_mmap_pgoff: an unlinked file on the kernel's
		 * hugetlbfs instance of the size, reserved at mmap as any
		 * file's mapping (shared: the file's offsets; private: the
		 * mapping's pages, which are its own). */
		struct file *hfile = hugetlb_file_setup(HUGETLB_ANON_FILE, len, VM_NORESERVE, HUGETLB_ANONHUGE_INODE,
							(int)((flags >> MAP_HUGE_SHIFT) & MAP_HUGE_MASK));
		if (IS_ERR(hfile))
			return (unsigned long)PTR_ERR(hfile);
		addr = mmap_file_locked(mm, addr, len, prot, flags, hfile, 0, vm_flags, populate);
		fput(hfile); /* the VMA holds its own */
		return addr;
	}
	/* Linux's shmem_zero_setup: the object (its commit charged, shared
	 * writable or not, unless VM_NORESERVE) before the VMA; the VMA is
	 * the object's from offset 0 and never merges. */
	struct shmem_object *segment = shm;
	if (segment) {
		if (!(prot & PROT_WRITE))
			vm_flags &= ~VM_MAYWRITE; /* SHM_RDONLY: a file opened O_RDONLY */
	} else if (vm_flags & VM_SHARED) {
		int err;
		shm = shmem_object_alloc(mm, "dev/zero", len, vm_flags & VM_NORESERVE, &err);
		if (!shm)
			return (unsigned long)err;
	}
	addr = mmap_region(mm, addr, len, vm_flags, false, NULL, 0);
	if (shm) {
		if (IS_ERR_VALUE(addr)) {
			if (!segment)
				shmem_put(shm);
			return addr;
		}
		struct vm_area_struct *vma = find_vma(mm, addr);
		vma->vm_shm = shm;
		vma->vm_pgoff = 0;
		if (segment) /* the segment's reference stays its own */
			shmem_get(shm);
		vma_link_file(vma); /* into the i_mmap of the object's file */
		khugepaged_enter_vma(vma, vma->vm_flags); /* as above */
	}
	if (!IS_ERR_VALUE(addr) &&
	    ((vm_flags & VM_LOCKED) || (flags & (MAP_POPULATE | MAP_NONBLOCK)) == MAP_POPULATE))
		*populate = true;
	return addr;
}

/* Linux's vm_mmap_pgoff: the mapping under the write lock, then, for
 * MAP_POPULATE/MAP_LOCKED, the faults under the read lock, so the other
 * threads' faults are not held up by ours. Linux drops the write lock and
 * mm_populate takes the read lock afresh (looking the VMAs up again);
 * mmlab downgrades instead, so the new VMA cannot change under the
 * populate: a deliberate difference, stricter than Linux's. */
static unsigned long mmap_pgoff(struct mm_struct *mm, unsigned long addr, unsigned long len,
				unsigned long prot, unsigned long flags, struct file *file, unsigned long pgoff,
				bool user)
{
	bool populate;
	mmap_write_lock(mm);
	unsigned long ret = mmap_pgoff_locked(mm, addr, len, prot, flags, file, pgoff, NULL, user, &populate);
	if (!populate) {
		mmap_write_unlock(mm);
		return ret;
	}
	mmap_write_downgrade(mm);
	mm_populate(mm, ret, PAGE_ALIGN(len));
	mmap_read_unlock(mm);
	return ret;
}

unsigned long do_mmap(struct mm_struct *mm, unsigned long addr, unsigned long len,
		      unsigned long prot, unsigned long flags)
{
	return mmap_pgoff(mm, addr, len, prot, flags, NULL, 0, false);
}

unsigned long do_mmap_file(struct mm_struct *mm, struct file *file, unsigned long addr, unsigned long len,
			   unsigned long prot, unsigned long flags, unsigned long pgoff)
{
	return mmap_pgoff(mm, addr, len, prot, flags, file, pgoff, false);
}

unsigned long do_mmap_shmem_locked(struct mm_struct *mm, unsigned long addr, unsigned long len,
				   unsigned long prot, unsigned long flags, struct shmem_object *shm,
				   bool *populate)
{
	/* A program's own call (shmat): MDWE applies, as in Linux's mmap_region. */
	if (!is_file_hugepages(shm->file))
		return mmap_pgoff_locked(mm, addr, len, prot, flags | MAP_SHARED | MAP_ANONYMOUS, NULL, 0, shm, true,
					 populate);
	/* A SHM_HUGETLB segment: its hugetlbfs file mapped shared, through
	 * a file of the attach's own, read-only for SHM_RDONLY (Linux's
	 * alloc_file_clone in do_shmat), so that mprotect cannot make the
	 * mapping writable; the VMA points to the segment's object too, for
	 * the attach count (shmem_get) and shmdt. */
	struct file *file = dentry_open(&shm->file->f_path, prot & PROT_WRITE ? O_RDWR : O_RDONLY);
	if (IS_ERR(file))
		return (unsigned long)PTR_ERR(file);
	addr = mmap_pgoff_locked(mm, addr, len, prot, flags | MAP_SHARED, file, 0, NULL, true, populate);
	fput(file); /* the VMA holds its own */
	if (!IS_ERR_VALUE(addr)) {
		find_vma(mm, addr)->vm_shm = shm;
		shmem_get(shm);
	}
	return addr;
}

/* ---- brk ------------------------------------------------------------------- */

/* Linux's brk(): all of it under the write lock (brk and start_brk are
 * the lock's too). */
static unsigned long do_brk_locked(struct mm_struct *mm, unsigned long brk)
{
	mmap_assert_write_locked(mm);
	unsigned long origbrk = mm->brk;
	if (brk < mm->start_brk)
		return origbrk;
	unsigned long newbrk = PAGE_ALIGN(brk), oldbrk = PAGE_ALIGN(mm->brk);
	if (oldbrk == newbrk) {
		mm->brk = brk;
		return brk;
	}
	if (brk <= mm->brk) {
		/* Shrinking: only the brk area's own pages go. */
		struct vm_area_struct *vma = find_vma(mm, newbrk);
		if (!vma || vma->vm_start >= oldbrk)
			return origbrk;
		if (munmap_range(mm, newbrk, oldbrk))
			return origbrk;
		mm->brk = brk;
		return brk;
	}
	/* Growing (newbrk may have wrapped past the top: the checks of
	 * get_unmapped_area with MAP_FIXED catch it). */
	unsigned long len = newbrk - oldbrk;
	if (IS_ERR_VALUE(get_unmapped_area(mm, oldbrk, len, MAP_FIXED)))
		return origbrk;
	/* A page of room must stay below the next mapping. */
	struct vm_area_struct *next = find_vma(mm, oldbrk);
	if (next && newbrk + PAGE_SIZE > next->vm_start)
		return origbrk;
	if (mm->map_count > sysctl_max_map_count)
		return origbrk;
	unsigned long flags = VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC | VM_ACCOUNT | mm->def_flags;
	if (IS_ERR_VALUE(mmap_region(mm, oldbrk, len, flags, true, NULL, 0)))
		return origbrk;
	mm->brk = brk;
	return brk;
}

unsigned long do_brk(struct mm_struct *mm, unsigned long brk)
{
	mmap_write_lock(mm);
	unsigned long oldbrk = PAGE_ALIGN(mm->brk), ret = do_brk_locked(mm, brk);
	/* Linux's brk: after mlockall(MCL_FUTURE) the new heap is faulted
	 * in (populate = def_flags & VM_LOCKED), under the read lock. */
	unsigned long newbrk = PAGE_ALIGN(mm->brk);
	if (!(mm->def_flags & VM_LOCKED) || newbrk <= oldbrk) {
		mmap_write_unlock(mm);
		return ret;
	}
	mmap_write_downgrade(mm);
	mm_populate(mm, oldbrk, newbrk - oldbrk);
	mmap_read_unlock(mm);
	return ret;
}

/* ---- exit ------------------------------------------------------------------ */

/* The last user is gone, so nobody else can hold or take the lock (procfs
 * resolves only the reader's own process, which is a user of its mm); it
 * is taken for the assertions of the functions below (Linux's exit_mmap
 * takes the read lock, then the write lock for the removal of the VMAs).
 * When /proc/<pid> of other processes comes, its readers must hold the mm
 * (get_task_mm/mmput) first. */
void exit_mmap(struct mm_struct *mm)
{
	mmap_write_lock(mm);
	struct vm_area_struct *first = rb_vma(rb_first(&mm->mm_rb)), *vma;
	if (!first) {
		mm_flag_set(mm, MMF_OOM_SKIP);
		mmap_write_unlock(mm);
		oom_reaper_mm_exited(mm);
		return;
	}
	/* Out of the files' i_mmap first, so that no truncate walks these
	 * tables from now on: the full-mm gather frees the PTE tables this
	 * zap empties (refcount mode) without an RCU grace period, trusting
	 * that nobody else can reach them (mm/mmu_gather.c). Linux unlinks in
	 * free_pgtables, after the zap. */
	for (vma = first; vma; vma = vma->vm_next)
		unlink_file_vma(vma);
	struct mmu_gather tlb;
	unsigned long nr_accounted = 0;
	tlb_gather_mmu_fullmm(&tlb, mm);
	for (vma = first; vma; vma = vma->vm_next) {
		unmap_page_range(&tlb, vma, vma->vm_start, vma->vm_end);
		if (vma->vm_flags & VM_ACCOUNT)
			nr_accounted += (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
	}
	/* floor FIRST_USER_ADDRESS (0), ceiling USER_PGTABLES_CEILING (0: the top). */
	free_pgtables(&tlb, first, NULL, 0, 0);
	tlb_finish_mmu(&tlb);
	/* Linux's exit_mmap: the memory is back, so the OOM killer may look
	 * past this mm now (Linux sets it after the unmap, between its read
	 * and write locks; here the write lock is held throughout, so the
	 * reaper, which checks the bit under the read lock, never walks a
	 * torn-down mm). */
	mm_flag_set(mm, MMF_OOM_SKIP);
	thp_check_deposits(mm);
	for (vma = first; vma;) {
		struct vm_area_struct *n = vma->vm_next;
		vm_area_free(vma);
		vma = n;
	}
	vm_unacct_memory((long)nr_accounted); /* Linux's exit_mmap */
	mm->mm_rb = RB_ROOT;
	mm->map_count = 0;
	mm->total_vm = 0;
	mm->highest_vm_end = 0;
	mmap_write_unlock(mm);
	oom_reaper_mm_exited(mm);
}

/* ---- system calls ---------------------------------------------------------- */

SYSCALL_DEFINE6(mmap, unsigned long, addr, unsigned long, len, unsigned long, prot,
		unsigned long, flags, unsigned long, fd, unsigned long, off)
{
	if (off & ~PAGE_MASK)
		return -EINVAL;
	/* Linux's fget() takes the low 32 bits of fd and fails on a
	 * descriptor that is not open; the file is held for the call. */
	struct file *file = NULL;
	if (!(flags & MAP_ANONYMOUS) && !(file = fget(current->files, (unsigned int)fd)))
		return -EBADF;
	long ret = (long)mmap_pgoff(current->mm, addr, len, prot, flags, file, off >> PAGE_SHIFT, true);
	if (file)
		fput(file);
	return ret;
}

SYSCALL_DEFINE2(munmap, unsigned long, addr, unsigned long, len)
{
	return do_munmap(current->mm, addr, len);
}

/* Linux's remap_file_pages (deprecated, emulated by Linux with a fresh
 * mapping of the file): only a VM_SHARED file mapping can be remapped, and
 * mmlab has none, so every call ends in one of Linux's -EINVALs. Its checks
 * are kept in its order all the same (prot not 0; start and size rounded
 * down to pages, a range that is empty or wraps; a pgoff that wraps; no
 * shared mapping at start), so that no input gets another errno than
 * Linux's: -ENOSYS would be one. Linux's once-per-boot warning is left out
 * (the console carries KTAP). */
SYSCALL_DEFINE5(remap_file_pages, unsigned long, start, unsigned long, size, unsigned long, prot,
		unsigned long, pgoff, unsigned long, flags)
{
	(void)flags; /* only MAP_NONBLOCK, which Linux ignores too */
	if (prot)
		return -EINVAL;
	start &= PAGE_MASK;
	size &= PAGE_MASK;
	if (start + size <= start)
		return -EINVAL;
	if (pgoff + (size >> PAGE_SHIFT) < pgoff)
		return -EINVAL;
	/* vma_lookup(start) would find no VM_SHARED mapping. */
	return -EINVAL;
}

SYSCALL_DEFINE1(brk, unsigned long, brk)
{
	return (long)do_brk(current->mm, brk);
}
