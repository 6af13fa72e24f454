/* hugetlb mappings (Linux's mm/hugetlb.c mapping half): mappings of
 * hugetlbfs files, MAP_HUGETLB's among them (an "anon_hugepage" file of
 * the kernel's instance, fs/hugetlbfs/hugetlbfs.h, as Linux's
 * ksys_mmap_pgoff makes it), mapped by the huge pages of a pool
 * (mm/hugetlb.h), a PMD entry per 2 MiB page and a PUD entry per 1 GiB
 * page, with no PTE table under either.
 *
 *   mmap(addr, len, prot, MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB
 *        [|MAP_HUGE_2MB|MAP_HUGE_1GB][|MAP_NORESERVE], -1, 0)
 *
 * The size comes from flags bits 26-31 (log2; 0: default_hugepagesz), an
 * unknown or unmappable size is -EINVAL; len is rounded up to the page
 * size, a MAP_FIXED address must be aligned to it (-EINVAL), and the gap
 * search finds an aligned range. One reservation per page is taken at
 * mmap (-ENOMEM when the pool, with its surplus, cannot cover them), none
 * with MAP_NORESERVE (whatever the overcommit mode, as Linux). hugetlb
 * memory is not in the commit charge, RSS or Rss: it shows in
 * HugetlbPages, Private_Hugetlb and the pools' counts.
 *
 * A VMA of it (VM_HUGETLB) is handled whole by this file wherever a
 * generic walker would go through PTE tables (Linux's is_vm_hugetlb_page
 * branches): the fault (hugetlb_fault: a read allocates too, no zero
 * page; no page left is SIGBUS), the zap (pages back to the pool after
 * the TLB flush), mprotect, the page walk (hugetlb_entry) and
 * get_user_pages. It is split only at a multiple of its page size
 * (hugetlb_vm_op_split: munmap, mprotect, madvise and mbind of an
 * unaligned part are -EINVAL), never merged, never grown by mremap; its
 * reservations follow its pieces (hugetlb_vm_op_close gives back those of
 * a piece unmapped). fork shares a private mapping's pages read-only
 * until a write copies one (hugetlb_wp).
 *
 * Every such VMA maps its file (files on a mount, and the kernel's for
 * MAP_HUGETLB, MFD_HUGETLB and SHM_HUGETLB): a shared one has no map of
 * its own (vm_resv_map NULL: the file holds its reservations) and maps the
 * file's pages, made by its faults; a private one has its map, maps the
 * file's page read-only where there is one and copies it at the first
 * write, and has pages of its own elsewhere (MAP_HUGETLB's file has none).
 *
 * Locking: entries are written under mm->page_table_lock, the reservation
 * bits under their map's lock, the pool counts under hugetlb_lock; the
 * mmap_lock as for any VMA. */
#ifndef MM_HUGETLB_VMA_H
#define MM_HUGETLB_VMA_H

#include "mm/memory.h"
#include "mm/mm_types.h"

struct hstate;
struct mmu_gather;

struct hstate *hstate_vma(const struct vm_area_struct *vma);

/* mmap's part before the VMA: the hstate of flags, len rounded up to its
 * size, a fixed addr checked and a hint rounded up. 0, -EINVAL or -ENOMEM. */
int hugetlb_mmap_prepare(unsigned long flags, unsigned long *addr, unsigned long *len, struct hstate **h);
/* Its part after the hstate, for MAP_HUGETLB and a hugetlbfs file alike. */
int hugetlb_mmap_align(struct hstate *h, unsigned long flags, unsigned long *addr, unsigned long *len);
/* Linux's hugetlb_reserve_pages for a private mapping of len bytes at
 * addr: the map with one reservation per page (none with VM_NORESERVE in
 * vm_flags). NULL with *err = -ENOMEM when the pool cannot cover it. */
struct resv_map *hugetlb_reserve_pages(struct hstate *h, unsigned long addr, unsigned long len,
				       unsigned long vm_flags, int *err);
/* A private mapping of a hugetlbfs file (its mmap method): the VMA's map,
 * indexed by the file's huge-page offsets, with a reservation per page
 * unless VM_NORESERVE. 0 or -ENOMEM. */
int hugetlb_vma_reserve_private(struct vm_area_struct *vma, struct hstate *h);
/* Where a mapping of len bytes of huge pages of size sz goes (mmap, after
 * hugetlb_mmap_prepare): the address or a negative errno. */
unsigned long hugetlb_get_unmapped_area(struct mm_struct *mm, unsigned long addr, unsigned long len,
					unsigned long flags, unsigned long sz);
/* A split VMA's new piece shares the map (Linux's hugetlb_vm_op_open). */
void resv_map_get(struct resv_map *resv);
/* Drops a reference without giving back any reservation (a copy of a VMA
 * that was never used). */
void resv_map_put(struct resv_map *resv);
/* fork: the child's copy of a private hugetlb VMA holds no reservations
 * (Linux's hugetlb_dup_vma_private: only the mapping's creator owns
 * them); its reference on the parent's map becomes a map of its own with
 * none. 0 or -ENOMEM. */
int hugetlb_dup_vma_private(struct vm_area_struct *vma);
/* fork: the child maps the parent's huge pages, both read-only for a
 * private writable mapping, so that the first write copies
 * (copy_hugetlb_page_range). 0 or -ENOMEM. */
int copy_hugetlb_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma);
/* A VMA going away (mm/vma.c's vm_area_free). */
void hugetlb_vm_op_close(struct vm_area_struct *vma);
/* Linux's hugetlb_vm_op_split (vm_ops->may_split): may vma be cut at
 * addr? 0 (any VMA but a hugetlb one at an unaligned address) or -EINVAL. */
int hugetlb_vm_op_split(const struct vm_area_struct *vma, unsigned long addr);

/* The fault at address of a hugetlb VMA (handle_mm_fault sends it here). */
vm_fault_t hugetlb_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags);
/* Whether the page at addr is mapped as populate wants it. */
bool hugetlb_populated(struct vm_area_struct *vma, unsigned long addr, bool write);
/* The zap of [start, end) (huge-page aligned) of vma: each page to tlb,
 * which gives it back to its pool after the flush (Linux's
 * __unmap_hugepage_range). */
void __unmap_hugepage_range(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long start,
			    unsigned long end);
/* mprotect's change of the entries of [start, end); returns the 4 KiB
 * pages changed. */
unsigned long hugetlb_change_protection(struct vm_area_struct *vma, unsigned long start, unsigned long end,
					pgprot_t newprot);
/* Entries are written under the mm's page_table_lock (Linux's
 * huge_pte_lock: the PMD lock, which is that lock here, or for a PUD the
 * mm's). */
static inline spinlock_t *huge_pte_lockptr(struct mm_struct *mm) { return &mm->page_table_lock; }
/* The entry mapping the huge page at addr (0 if none), for the walk; the
 * caller holds huge_pte_lockptr(). */
u64 huge_ptep_get_locked(struct vm_area_struct *vma, unsigned long addr);
/* get_user_pages' look-up: the 4 KiB page at addr with a reference on the
 * whole huge page, NULL when it must be faulted in first. */
struct page *follow_hugetlb_page(struct vm_area_struct *vma, unsigned long addr, bool write, int *err);

#endif
