/* /proc/meminfo (Linux's fs/proc/meminfo.c), in Linux 6.12's format.
 *
 * Invariant: every field prints either a true figure of this kernel or the
 * 0 (or constant) Linux prints when it lacks the feature, never an
 * invention; each such field is named in a comment where it is printed. */
#include "fs/proc/proc_fs.h"
#include "arch/x86_64/boot_paging.h"
#include "kernel/sched.h"
#include "mm/swap.h"
#include "mm/swapfile.h"
#include "mm/swap_state.h"
#include "mm/huge_memory.h"
#include "mm/hugetlb.h"
#include "mm/kernel_map.h"
#include "mm/memory.h"
#include "mm/page_alloc.h"
#include "mm/shmem.h"
#include "mm/slab.h"
#include "mm/util.h"
#include "mm/vmalloc.h"

/* Linux's show_val_kb: a label padded by hand, pages as "%8lu kB". */
static void show_val_kb(struct seq_buf *m, const char *label, unsigned long pages)
{
	seq_buf_printf(m, "%s%8lu kB\n", label, pages << (PAGE_SHIFT - 10));
}

/* Linux's totalreserve_pages is the high watermarks (plus lowmem reserves,
 * which one zone per node does not have). */
static unsigned long totalreserve_pages(void)
{
	unsigned long n = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (NODE_DATA(nid))
			n += NODE_DATA(nid)->watermark[WMARK_HIGH];
	return n;
}

/* Stacks of the threads kthread_create made (16 KiB each); the boot stack
 * and the idle tasks' start-up stacks are not counted. */
static unsigned long kernel_stack_kb(void) { return nr_kthreads() * (THREAD_SIZE >> 10); }

/* Linux's VMALLOC_TOTAL for 4-level paging (32 TiB - 1 at
 * 0xffffc90000000000): mm/vmalloc.h keeps Linux's addresses. */
#define VMALLOC_TOTAL (VMALLOC_END - VMALLOC_START)

static void meminfo_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	unsigned long total = totalram_pages();
	/* Free pages including the per-CPU lists (Linux's NR_FREE_PAGES leaves
	 * those out); this is nr_free_pages(), what the allocator calls free. */
	unsigned long free = nr_free_pages();
	unsigned long reserve = totalreserve_pages();
	/* No page cache and no reclaimable slab: available is free less the
	 * reserve, as si_mem_available() computes it then. */
	unsigned long available = free > reserve ? free - reserve : 0;
	/* Pages in slabs; none is reclaimable (no shrinker frees objects), so
	 * all of it is SUnreclaim. Unlike Linux, large kmallocs are not in it
	 * (mm/slab.h). */
	unsigned long slab = nr_slab_pages();

	show_val_kb(m, "MemTotal:       ", total);
	show_val_kb(m, "MemFree:        ", free);
	show_val_kb(m, "MemAvailable:   ", available);
	/* No page cache on block devices: Buffers is 0. The only page
	 * cache is shmem's (tmpfs files and shared anonymous memory), which
	 * Linux counts in Cached too. */
	show_val_kb(m, "Buffers:        ", 0);
	show_val_kb(m, "Cached:         ", nr_shmem_pages());
	show_val_kb(m, "SwapCached:     ", total_swapcache_pages());
	/* The LRU lists (mm/swap.c): anonymous and tmpfs pages on the anon
	 * lists, as Linux's; no file system with a backing store, so the
	 * file lists are empty. */
	unsigned long lru[NR_LRU_LISTS];
	for (int i = 0; i < NR_LRU_LISTS; i++)
		lru[i] = global_lru_pages((enum lru_list)i);
	show_val_kb(m, "Active:         ", lru[LRU_ACTIVE_ANON] + lru[LRU_ACTIVE_FILE]);
	show_val_kb(m, "Inactive:       ", lru[LRU_INACTIVE_ANON] + lru[LRU_INACTIVE_FILE]);
	show_val_kb(m, "Active(anon):   ", lru[LRU_ACTIVE_ANON]);
	show_val_kb(m, "Inactive(anon): ", lru[LRU_INACTIVE_ANON]);
	show_val_kb(m, "Active(file):   ", lru[LRU_ACTIVE_FILE]);
	show_val_kb(m, "Inactive(file): ", lru[LRU_INACTIVE_FILE]);
	show_val_kb(m, "Unevictable:    ", lru[LRU_UNEVICTABLE]);
	show_val_kb(m, "Mlocked:        ", global_mlocked_pages());
	unsigned long swap_free, swap_total;
	si_swapinfo(&swap_free, &swap_total); /* mm/swapfile.c */
	show_val_kb(m, "SwapTotal:      ", swap_total);
	show_val_kb(m, "SwapFree:       ", swap_free);
	show_val_kb(m, "Zswap:          ", 0);
	show_val_kb(m, "Zswapped:       ", 0);
	show_val_kb(m, "Dirty:          ", 0);
	show_val_kb(m, "Writeback:      ", 0);
	show_val_kb(m, "AnonPages:      ", nr_anon_pages());
	show_val_kb(m, "Mapped:         ", nr_file_mapped_pages()); /* Linux's NR_FILE_MAPPED (mm/shmem.h) */
	show_val_kb(m, "Shmem:          ", nr_shmem_pages()); /* tmpfs and shared anonymous memory (mm/shmem.h) */
	show_val_kb(m, "KReclaimable:   ", 0);
	show_val_kb(m, "Slab:           ", slab);
	show_val_kb(m, "SReclaimable:   ", 0);
	show_val_kb(m, "SUnreclaim:     ", slab);
	seq_buf_printf(m, "KernelStack:    %8lu kB\n", kernel_stack_kb());
	show_val_kb(m, "PageTables:     ", nr_user_pagetable_pages());
	show_val_kb(m, "SecPageTables:  ", 0);
	show_val_kb(m, "NFS_Unstable:   ", 0);
	show_val_kb(m, "Bounce:         ", 0);
	show_val_kb(m, "WritebackTmp:   ", 0);
	/* mm/util.c: vm.overcommit_ratio (or _kbytes) of RAM, no swap, no
	 * hugetlb; the pages charged to VM_ACCOUNT mappings. */
	show_val_kb(m, "CommitLimit:    ", vm_commit_limit());
	show_val_kb(m, "Committed_AS:   ", vm_memory_committed());
	seq_buf_printf(m, "VmallocTotal:   %8lu kB\n", VMALLOC_TOTAL >> 10);
	show_val_kb(m, "VmallocUsed:    ", vmalloc_nr_pages()); /* Linux's vmalloc_nr_pages() */
	show_val_kb(m, "VmallocChunk:   ", 0); /* Linux prints 0 since 5.3 */
	show_val_kb(m, "Percpu:         ", 0);
	seq_buf_printf(m, "HardwareCorrupted: %5lu kB\n", 0ul);
	/* Transparent huge pages mapped by huge PMDs (mm/huge_memory.c). */
	show_val_kb(m, "AnonHugePages:  ", nr_anon_thps() * HPAGE_PMD_NR);
	show_val_kb(m, "ShmemHugePages: ", nr_shmem_thps() * HPAGE_PMD_NR); /* tmpfs's (mm/shmem_huge.c) */
	show_val_kb(m, "ShmemPmdMapped: ", nr_shmem_pmdmapped() * HPAGE_PMD_NR);
	show_val_kb(m, "FileHugePages:  ", 0);
	show_val_kb(m, "FilePmdMapped:  ", 0);
	show_val_kb(m, "Unaccepted:     ", 0);
	/* The hugetlb pools (mm/hugetlb.c): the default size's counts. */
	hugetlb_report_meminfo(m);
	/* The direct map is [0, direct_map_end), built of pages of one size,
	 * some split since (set_direct_map_invalid_noflush: secretmem), as
	 * Linux's direct_pages_count. */
	unsigned long dm_kb = (unsigned long)(direct_map_end >> 10), split_2m, split_1g;
	direct_map_split_counts(&split_2m, &split_1g);
	bool gb = direct_map_page_size == (1ul << 30);
	unsigned long kb_1g = gb ? dm_kb - (split_1g << 20) : 0;
	unsigned long kb_2m = (gb ? split_1g << 20 : dm_kb) - (split_2m << 11);
	seq_buf_printf(m, "DirectMap4k:    %8lu kB\n", split_2m << 11);
	seq_buf_printf(m, "DirectMap2M:    %8lu kB\n", kb_2m);
	if (gb) /* Linux prints this line only with gbpages */
		seq_buf_printf(m, "DirectMap1G:    %8lu kB\n", kb_1g);
}

PROC_FILE(meminfo_entry, proc_root_dir, "meminfo", meminfo_show);
