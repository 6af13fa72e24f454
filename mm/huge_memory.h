/* Transparent huge pages for anonymous memory (Linux's mm/huge_memory.c),
 * the huge pages the clearing mechanism (mm/clear_page.h) clears.
 *
 * A write fault on a none PMD whose aligned 2 MiB lies inside a private
 * anonymous VMA that may take it (the sysfs mode and MADV_HUGEPAGE /
 * MADV_NOHUGEPAGE, below) maps one order-9 page with a huge PMD: the page
 * comes from the node the NUMA policy gives (vma_alloc_folio, the home
 * node first), is cleared by clear_huge_page() and fenced before the PMD
 * is written, and a PTE table is deposited beside it (Linux's
 * pgtable_trans_huge_deposit) so that a later split never needs memory.
 * When no 2 MiB block is free the fault falls back to 4 KiB pages
 * (thp_fault_fallback). A read fault maps the huge zero page read-only
 * (with its deposit); a write there splits it into 4 KiB zero-page entries
 * and takes the 4 KiB path, as Linux.
 *
 * Splitting (Linux's __split_huge_pmd): a zap, a protection change, an
 * mremap or a get_user_pages that covers part of a huge PMD turns it into
 * the deposited PTE table of 512 entries with the PMD's protection. A THP
 * this PMD alone maps and holds is split too (split_page: 512 pages of
 * their own); one shared since a fork stays whole, its 4 KiB pages mapped
 * one by one with the head's reference and map counts (mm/rmap.h), as
 * Linux 6.1's PTE-mapped THP. In refcount mode the table starts with 512
 * references (its 512 non-none entries). The PMD is cleared and the TLB
 * flushed before the table goes in (x86 must not hold 2 MiB and 4 KiB
 * translations of the same address at once).
 *
 * fork (copy_huge_pmd) shares a THP: both PMDs write-protected, a map
 * count and a reference more; the first write on either side splits that
 * side's PMD (Linux's do_huge_pmd_wp_page: reuse when it is the THP's only
 * mapping, else split and copy the 4 KiB page written).
 *
 * Locking: the fault installs and the split replaces a huge PMD under
 * pmd_lockptr (mm->page_table_lock), the deposit list under the same lock;
 * callers hold mmap_lock for reading at least. */
#ifndef MM_HUGE_MEMORY_H
#define MM_HUGE_MEMORY_H

#include "mm/vmstat.h"

#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/pgtable.h"

struct seq_buf;
struct proc_node;

/* /sys/kernel/mm/transparent_hugepage/enabled: "always", "madvise"
 * (mmlab's default, as Debian's kernel: only VMAs with MADV_HUGEPAGE) or
 * "never"; set at boot by transparent_hugepage= with the same words
 * (Linux's setup_transparent_hugepage). */
enum thp_enabled { THP_ENABLED_ALWAYS, THP_ENABLED_MADVISE, THP_ENABLED_NEVER };
#define THP_ENABLED_DEFAULT THP_ENABLED_MADVISE
/* .../defrag: how hard a THP fault tries for a 2 MiB block. The modes
 * come down to whether the fault may enter the allocator's slow path
 * (direct compaction, then reclaim: __GFP_DIRECT_RECLAIM, with
 * __GFP_NORETRY) before falling back: always: yes; madvise: for
 * MADV_HUGEPAGE VMAs; defer, defer+madvise (the latter as madvise), never:
 * no (mm/huge_memory.c's thp_gfp; mmlab does not wake kswapd or
 * kcompactd for defer). */
enum thp_defrag { THP_DEFRAG_ALWAYS, THP_DEFRAG_DEFER, THP_DEFRAG_DEFER_MADVISE, THP_DEFRAG_MADVISE,
		  THP_DEFRAG_NEVER };
extern int thp_enabled_mode, thp_defrag_mode;
/* .../use_zero_page: whether read faults map the huge zero page (1, as
 * Linux's default). */
extern int thp_use_zero_page;

/* The huge zero page's pfn (~0ul when there is none): a huge PMD that maps
 * it is read-only, not counted in RSS, never freed, and splits into 4 KiB
 * zero-page entries (Linux's is_huge_zero_pmd). */
extern unsigned long huge_zero_pfn;
static inline bool is_huge_zero_pmd(pmd_t pmd) { return pmd_pfn(pmd) == READ_ONCE(huge_zero_pfn); }

/* /proc/vmstat's THP events are vm events (mm/vmstat.h: count_vm_event,
 * all_vm_events). */
/* Huge PMDs mapped now, system-wide (AnonHugePages, nr_anon_transparent_hugepages). */
unsigned long nr_anon_thps(void);

/* The fault result that sends handle_mm_fault on to the 4 KiB path. */
#define VM_FAULT_FALLBACK 0x000800
/* The series' FAULT_FLAG_UNCACHED: the fault is part of a populate of at
 * least clear_page_uncached_threshold() bytes (the bulk hint). */
#define FAULT_FLAG_UNCACHED 0x1000000

/* Linux's thp_vma_allowable_order for the PMD order: may the aligned 2 MiB
 * at haddr of vma be a huge PMD? */
bool thp_vma_allowable(struct vm_area_struct *vma, unsigned long haddr);
/* smaps' THPeligible (Linux's thp_vma_allowable_order outside a fault):
 * the modes allow it and the VMA holds at least one aligned 2 MiB. */
bool thp_vma_eligible(struct vm_area_struct *vma);
/* Linux's do_huge_pmd_anonymous_page, for a none PMD: 0 (mapped, or
 * another thread mapped something first), VM_FAULT_OOM, or
 * VM_FAULT_FALLBACK. */
vm_fault_t do_huge_pmd_anonymous_page(struct vm_area_struct *vma, pmd_t *pmd, unsigned long address,
				      unsigned int flags);

/* Linux's do_huge_pmd_wp_page: a write to the read-only huge PMD orig of
 * a writable VMA. The THP is made writable when nothing else holds it,
 * else the PMD is split and the write faults again on the 4 KiB path. */
vm_fault_t do_huge_pmd_wp_page(struct vm_area_struct *vma, pmd_t *pmd, unsigned long address, pmd_t orig);

/* Maps page (order 9, cleared and coherent) at haddr with a huge PMD:
 * the VMA's protection with dirty and accessed, minus clear_bits (tests
 * make PROT_NONE or read-only ones), a PTE table deposited, the pages
 * counted (Linux's map_anon_folio_pmd with the deposit of
 * __do_huge_pmd_anonymous_page). 0; -EEXIST when *pmd is not none; -ENOMEM
 * when there is no page for the deposit. */
int map_anon_folio_pmd(struct vm_area_struct *vma, pmd_t *pmd, unsigned long haddr, struct page *page,
		       u64 clear_bits);
/* AnonHugePages: a THP counts while a PMD maps it (mm/memory.c's
 * anon_page_mapped and anon_page_unmapped change it). */
void anon_thps_add(long n);

/* Linux's split_huge_pmd: if *pmd is a huge PMD, it becomes a PTE table
 * mapping the same pages with the same protection. Never fails (the table
 * was deposited at the fault). A THP this PMD alone maps and holds becomes
 * 512 pages of their own (split_page); one shared since a fork (another
 * PMD maps it, or a reference is held) stays whole, its pages mapped by
 * the PTEs (mm/rmap.h). Takes pmd_lockptr: not under it. */
void split_huge_pmd(struct mm_struct *mm, pmd_t *pmd, unsigned long address);
/* Linux's split_huge_page_to_list for an anonymous THP (mm/huge_memory_split.c
 * says how): head, isolated from the LRU by the caller (whose reference
 * is then the only one beyond the mappings'), becomes 512 pages of their
 * own, mapped where its pages were, in every process; head keeps the
 * caller's reference, the 511 others go to the tail of list, isolated
 * (a reference each, PG_lru clear, the head's LRU flags). caller: the mm
 * whose mmap_lock the caller holds, or NULL. 0 (thp_split_page), or
 * -EBUSY (a reference or a mapping out of reach: thp_split_page_failed,
 * the THP as it was), -EINVAL (not an isolated anonymous THP). Sleeps:
 * no spinlock held. */
int split_huge_page_to_list(struct page *head, struct list_head *list, struct mm_struct *caller);
/* fork: the child's *dst_pmd maps the THP or huge zero page *src_pmd maps,
 * both write-protected, with a PTE table deposited for the child's split
 * (Linux's copy_huge_pmd). 0, -ENOMEM, or -EAGAIN when *src_pmd is not
 * huge any more (the caller copies a PTE table). */
int copy_huge_pmd(struct mm_struct *dst_mm, struct mm_struct *src_mm, pmd_t *dst_pmd, pmd_t *src_pmd,
		  unsigned long addr);

/* mm/shmem_huge.c: Linux's finish_fault (or filemap_map_pmd) -> do_set_pmd,
 * for a none PMD where shmem_huge_vma_suitable (mm/shmem.h): the file's
 * page at address (made as shmem_is_huge says), mapped with one PMD when
 * it is part of a huge page that starts at haddr's offset
 * (thp_file_mapped; read-only in a private mapping). 0, the lookup's VM_FAULT_SIGBUS or VM_FAULT_OOM, or
 * VM_FAULT_FALLBACK (a small page: the PTE path maps it). */
vm_fault_t shmem_huge_pmd_fault(struct vm_area_struct *vma, pmd_t *pmd, unsigned long address, unsigned int flags);
/* Maps the tmpfs huge page head at haddr of vma with one PMD, consuming
 * the caller's reference on head (the mapping of Linux's do_set_pmd, and
 * of set_huge_pmd after a collapse: mm/khugepaged_file.c): true when
 * mapped, false (the reference put) when the PMD is not none any more or
 * head is not the file's page there now (a truncate). A write fault
 * (flags FAULT_FLAG_WRITE) maps it dirty. */
bool shmem_map_huge_pmd(struct vm_area_struct *vma, pmd_t *pmd, unsigned long haddr, struct page *head,
			unsigned int flags);
/* Before a write fault of vma at address goes on: a private mapping's
 * PMD there of a tmpfs huge page is split (it just goes), so that the
 * write copies one page by PTE (Linux's wp_huge_pmd for a file PMD);
 * any other PMD is left alone. */
void shmem_huge_pmd_cow_split(struct vm_area_struct *vma, pmd_t *pmd, unsigned long address);
/* A PMD mapping of the tmpfs huge page head went from mm (its reference
 * is the caller's to put, after the TLB flush). */
void shmem_pmd_unmapped(struct mm_struct *mm, struct page *head);

/* vma's range becomes [start, end) (a split or a merge moves a
 * boundary): a huge PMD the new boundary cuts through is split first
 * (Linux's vma_adjust_trans_huge). Under the mmap write lock. */
void vma_adjust_trans_huge(struct vm_area_struct *vma, unsigned long start, unsigned long end);

/* The PTE table deposited with a huge PMD (under pmd_lockptr). */
void pgtable_trans_huge_deposit(struct mm_struct *mm, pmd_t *pmd, struct page *table);
struct page *pgtable_trans_huge_withdraw(struct mm_struct *mm, pmd_t *pmd);

/* At exit, after every VMA was zapped: each huge PMD took its deposited
 * table back, so none is left; one that is is reported and freed. */
void thp_check_deposits(struct mm_struct *mm);

/* The sysfs files (registered in mm/huge_memory.c) and the /proc/vmstat lines. */
void thp_enabled_show(struct seq_buf *m, const struct proc_node *node);
long thp_enabled_write(const struct proc_node *node, const char *buf, size_t len);
void thp_defrag_show(struct seq_buf *m, const struct proc_node *node);
long thp_defrag_write(const struct proc_node *node, const char *buf, size_t len);
void thp_hpage_pmd_size_show(struct seq_buf *m, const struct proc_node *node);
void thp_use_zero_page_show(struct seq_buf *m, const struct proc_node *node);
long thp_use_zero_page_write(const struct proc_node *node, const char *buf, size_t len);
void thp_vmstat_show(struct seq_buf *m);
/* /sys/kernel/mm/transparent_hugepage (khugepaged's folder is in it). */
struct proc_dir_entry;
extern const struct proc_dir_entry thp_dir;

#endif
