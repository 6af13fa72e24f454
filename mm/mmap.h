/* The VMAs of an address space: lookup, the gap search, mmap, munmap,
 * mprotect, brk and madvise, with Linux's semantics and errno values.
 *
 * The do_* functions act on an explicit mm (a process's, or one a test
 * built); the system calls (mmap 9, mprotect 10, munmap 11, brk 12,
 * madvise 28) call them on current->mm. Each takes mm->mmap_lock itself,
 * as Linux's vm_mmap, vm_munmap, do_mprotect_pkey, brk and do_madvise do
 * (the caller must not hold it): for writing, except do_madvise for the
 * advice that only zaps or faults in (for reading). exit_mmap takes it for
 * writing too. Errors are negative Linux errnos;
 * do_mmap returns the address or a negative errno cast to unsigned long
 * (IS_ERR_VALUE). */
#ifndef MM_MMAP_H
#define MM_MMAP_H

#include "arch/x86_64/page.h"
#include "kernel/unistd.h" /* PROT_*, MAP_*, MADV_* */
#include "mm/mm_types.h"

/* The first VMA with vm_end > addr, or NULL. */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);
/* The first VMA overlapping [start, end), or NULL. */
struct vm_area_struct *find_vma_intersection(struct mm_struct *mm, unsigned long start,
					     unsigned long end);
/* Neighbours in address order, or NULL. */
struct vm_area_struct *vma_next(struct vm_area_struct *vma);
struct vm_area_struct *vma_prev(struct vm_area_struct *vma);
#define for_each_vma(mm, vma) for (vma = find_vma(mm, 0); vma; vma = vma_next(vma))

/* A free range of len bytes: at addr if it is free (a hint), else the
 * highest gap below mm->mmap_base that fits (top-down, as x86_64 Linux),
 * else the lowest one from TASK_UNMAPPED_BASE up (MAP_32BIT: within
 * [1 GiB, 2 GiB), bottom-up). Returns the address or -ENOMEM. With
 * MAP_FIXED, addr itself is checked, as Linux's __get_unmapped_area:
 * -ENOMEM past TASK_SIZE, -EINVAL unaligned, -EPERM below mmap_min_addr
 * (what a process without CAP_SYS_RAWIO gets). */
unsigned long get_unmapped_area(struct mm_struct *mm, unsigned long addr, unsigned long len,
				unsigned long flags);
/* mm->get_unmapped_area (x86_64's arch_get_unmapped_area_topdown): the
 * search above, without the checks, and addr itself with MAP_FIXED; no
 * THP alignment. A file's get_unmapped_area method builds on it. */
unsigned long arch_get_unmapped_area(struct mm_struct *mm, unsigned long addr, unsigned long len,
				     unsigned long flags);
/* Linux's get_unmapped_area(file, addr, len, pgoff, flags): file's
 * get_unmapped_area method where it has one (tmpfs and memfd, /dev/zero),
 * the mm's search for any other file, shmem_get_unmapped_area for shared
 * anonymous memory (file NULL, MAP_SHARED: offsets from 0), and
 * get_unmapped_area above for private anonymous memory; then the same
 * checks. */
struct file;
unsigned long get_unmapped_area_file(struct mm_struct *mm, struct file *file, unsigned long addr,
				     unsigned long len, unsigned long pgoff, unsigned long flags);

/* mmap(2) of private anonymous memory (prot PROT_*, flags MAP_*); returns
 * the address or a negative errno. do_mmap and do_mprotect are the
 * kernel's own (exec's loader): MDWE checks only the system calls. */
unsigned long do_mmap(struct mm_struct *mm, unsigned long addr, unsigned long len,
		      unsigned long prot, unsigned long flags);
/* The same for an open file (tmpfs), at page offset pgoff, with mmap(2)'s
 * checks of the file (Linux's do_mmap with a file): the kernel's own
 * mappings of files, and the tests'. */
struct file;
unsigned long do_mmap_file(struct mm_struct *mm, struct file *file, unsigned long addr, unsigned long len,
			   unsigned long prot, unsigned long flags, unsigned long pgoff);
/* Linux's do_shmat's do_mmap of the segment's file (ipc/shm.c), with
 * mmap_lock held for writing: a MAP_SHARED mapping of shm, a System V
 * segment's shmem object, from its offset 0 (the new VMA's reference
 * counts an attach); not writable ever if prot has no PROT_WRITE (a
 * file opened O_RDONLY). *populate as mmap's (MAP_LOCKED). */
struct shmem_object;
unsigned long do_mmap_shmem_locked(struct mm_struct *mm, unsigned long addr, unsigned long len,
				   unsigned long prot, unsigned long flags, struct shmem_object *shm,
				   bool *populate);
int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len);
/* The same with mmap_lock held for writing (Linux's do_vmi_munmap). */
int do_munmap_locked(struct mm_struct *mm, unsigned long start, unsigned long len);
int do_mprotect(struct mm_struct *mm, unsigned long start, unsigned long len, unsigned long prot);
int do_madvise(struct mm_struct *mm, unsigned long start, unsigned long len, int behavior);
/* brk(2): returns the new break (the old one when the request fails). */
unsigned long do_brk(struct mm_struct *mm, unsigned long brk);

/* Linux's __mm_populate: faults in [start, start + len) VMA by VMA (not
 * the VM_LOCKONFAULT ones), under the mmap_lock held for reading at least;
 * 0, or the first populate_vma_range error unless ignore_errors. */
/* mm/mlock.c (Linux's): whether the caller may lock memory at all
 * (RLIMIT_MEMLOCK not 0, or CAP_IPC_LOCK); the pages of mm's VM_LOCKED
 * VMAs (Linux's mm->locked_vm), of all or of [start, start + len); and
 * whether bytes more with flags (VM_LOCKED) stay within RLIMIT_MEMLOCK
 * (or the caller has CAP_IPC_LOCK). The mmap_lock is held for the
 * counts. */
bool can_do_mlock(void);
unsigned long mm_locked_vm(struct mm_struct *mm);
unsigned long count_mm_mlocked_page_nr(struct mm_struct *mm, unsigned long start, unsigned long len);
bool mlock_future_ok(struct mm_struct *mm, unsigned long flags, unsigned long bytes);

int __mm_populate(struct mm_struct *mm, unsigned long start, unsigned long len, bool ignore_errors);

/* Exit: unmaps and frees every VMA and every user page table. */
void exit_mmap(struct mm_struct *mm);

#ifndef IS_ERR_VALUE
#define IS_ERR_VALUE(x) ((unsigned long)(x) >= (unsigned long)-4095)
#endif

/* Where the bottom-up search starts (x86_64 Linux's legacy mmap base,
 * TASK_UNMAPPED_BASE, without randomisation). */
#define TASK_UNMAPPED_BASE (((TASK_SIZE / 3) + PAGE_SIZE - 1) & PAGE_MASK)
/* vm.max_map_count: more VMAs than this and mmap/split fail (-ENOMEM). */
#define DEFAULT_MAX_MAP_COUNT 65530
extern int sysctl_max_map_count;

#ifndef PAGE_ALIGN
#define PAGE_ALIGN(x) (((x) + PAGE_SIZE - 1) & PAGE_MASK)
#endif

#endif
