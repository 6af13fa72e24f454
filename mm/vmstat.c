/* /proc/vmstat's event counters (mm/vmstat.h), and the two files Linux's
 * mm/vmstat.c prints: /proc/vmstat and /proc/buddyinfo. */
#include "mm/vmstat.h"
#include "mm/swap_state.h"
#include "mm/shmem.h"
#include "fs/proc/proc_fs.h"
#include "mm/clear_page.h"
#include "mm/huge_memory.h"
#include "mm/memory.h"
#include "mm/page_alloc.h"
#include "mm/swap.h"

struct vm_event_state vm_event_states[NR_CPUS];

unsigned long all_vm_events(enum vm_event_item item)
{
	unsigned long sum = 0;
	for (unsigned cpu = 0; cpu < NR_CPUS; cpu++)
		sum += READ_ONCE(vm_event_states[cpu].event[item]);
	return sum;
}

/* One line per node with memory, as frag_show() prints a populated zone.
 * We have one zone per node and call it Normal; Linux would say DMA32 for
 * memory below 4 GiB. Linux prints NR_PAGE_ORDERS (11) columns; we print
 * all of ours, orders 0..MAX_PAGE_ORDER (19 columns, up to 1 GiB). The
 * counts are the buddy lists only (per-CPU lists are not in them, as in
 * Linux), read under the node's lock so that a line is one moment. */
static void buddyinfo_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = NODE_DATA(nid);
		unsigned long counts[NR_PAGE_ORDERS], flags;
		if (!node_has_memory(nid))
			continue;
		spin_lock_irqsave(&pgdat->lock, flags);
		for (int o = 0; o < NR_PAGE_ORDERS; o++)
			counts[o] = pgdat->free_area[o].nr_free;
		spin_unlock_irqrestore(&pgdat->lock, flags);
		seq_buf_printf(m, "Node %d, zone %8s ", nid, "Normal");
		for (int o = 0; o < NR_PAGE_ORDERS; o++)
			seq_buf_printf(m, "%6lu ", counts[o]);
		seq_buf_puts(m, "\n");
	}
}

PROC_FILE(buddyinfo_entry, proc_root_dir, "buddyinfo", buddyinfo_show);

/* /proc/vmstat: Linux's format ("name value" per line, mm/vmstat.c's
 * names), with the counters mmlab keeps: a subset of Linux's lines, in
 * Linux's order, then mmlab's own clearing counters (mm/clear_page.h:
 * extents and 4 KiB pages cleared by each method, and the fences), which
 * Linux does not have. */
static void vmstat_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	/* nr_mapped: file (here shmem) pages mapped by a PTE, right after
	 * nr_anon_pages as in Linux. */
	static const char *const lru_names[NR_LRU_LISTS] = {
		[LRU_INACTIVE_ANON] = "inactive_anon", [LRU_ACTIVE_ANON] = "active_anon",
		[LRU_INACTIVE_FILE] = "inactive_file", [LRU_ACTIVE_FILE] = "active_file",
		[LRU_UNEVICTABLE] = "unevictable",
	};
	unsigned long lru[NR_LRU_LISTS];
	for (int i = 0; i < NR_LRU_LISTS; i++)
		lru[i] = global_lru_pages((enum lru_list)i);
	/* Linux's zone counters (one zone per node: the same figures as the
	 * node's), nr_mlock, then the node counters. */
	seq_buf_printf(m, "nr_free_pages %lu\n", nr_free_pages());
	for (int i = 0; i < NR_LRU_LISTS; i++)
		seq_buf_printf(m, "nr_zone_%s %lu\n", lru_names[i], lru[i]);
	seq_buf_printf(m, "nr_mlock %lu\n", global_mlocked_pages());
	for (int i = 0; i < NR_LRU_LISTS; i++)
		seq_buf_printf(m, "nr_%s %lu\n", lru_names[i], lru[i]);
	/* Linux's workingset node counters, in its order; the file ones stay
	 * 0 (no file page is reclaimed here), workingset_nodes and
	 * workingset_nodereclaim are not shown (no xarray nodes of shadows:
	 * mm/workingset.c). */
	seq_buf_printf(m, "workingset_refault_anon %lu\nworkingset_refault_file 0\n",
		       all_vm_events(WORKINGSET_REFAULT_ANON));
	seq_buf_printf(m, "workingset_activate_anon %lu\nworkingset_activate_file 0\n",
		       all_vm_events(WORKINGSET_ACTIVATE_ANON));
	seq_buf_printf(m, "workingset_restore_anon %lu\nworkingset_restore_file 0\n",
		       all_vm_events(WORKINGSET_RESTORE_ANON));
	seq_buf_printf(m, "nr_anon_pages %lu\nnr_mapped %lu\nnr_page_table_pages %lu\nnr_swapcached %lu\n",
		       nr_anon_pages(), nr_file_mapped_pages(), nr_user_pagetable_pages(), total_swapcache_pages());
	static const char *const numa_names[NR_NUMA_STAT_ITEMS] = {
		[NUMA_HIT] = "numa_hit", [NUMA_MISS] = "numa_miss", [NUMA_FOREIGN] = "numa_foreign",
		[NUMA_INTERLEAVE_HIT] = "numa_interleave", [NUMA_LOCAL] = "numa_local", [NUMA_OTHER] = "numa_other",
	};
	for (int i = 0; i < NR_NUMA_STAT_ITEMS; i++) {
		unsigned long sum = 0;
		for (unsigned nid = 0; nid < num_online_nodes(); nid++)
			sum += node_numa_event_state((int)nid, (enum numa_stat_item)i);
		seq_buf_printf(m, "%s %lu\n", numa_names[i], sum);
	}
	/* The events in Linux's order (vmstat_text). */
	static const struct {
		const char *name;
		enum vm_event_item item;
	} events[] = {
		{ "pswpin", PSWPIN }, { "pswpout", PSWPOUT },
		{ "allocstall_normal", ALLOCSTALL }, { "pgactivate", PGACTIVATE }, { "pgdeactivate", PGDEACTIVATE },
		{ "pgfault", PGFAULT }, { "pgmajfault", PGMAJFAULT }, { "pgrefill", PGREFILL },
		{ "pgsteal_kswapd", PGSTEAL_KSWAPD }, { "pgsteal_direct", PGSTEAL_DIRECT },
		{ "pgscan_kswapd", PGSCAN_KSWAPD }, { "pgscan_direct", PGSCAN_DIRECT }, { "oom_kill", OOM_KILL },
		{ "compact_migrate_scanned", COMPACTMIGRATE_SCANNED },
		{ "compact_free_scanned", COMPACTFREE_SCANNED }, { "compact_isolated", COMPACTISOLATED },
		{ "compact_stall", COMPACTSTALL }, { "compact_fail", COMPACTFAIL },
		{ "compact_success", COMPACTSUCCESS }, { "compact_daemon_wake", KCOMPACTD_WAKE },
		{ "compact_daemon_migrate_scanned", KCOMPACTD_MIGRATE_SCANNED },
		{ "compact_daemon_free_scanned", KCOMPACTD_FREE_SCANNED },
		{ "unevictable_pgs_culled", UNEVICTABLE_PGCULLED },
		{ "unevictable_pgs_scanned", UNEVICTABLE_PGSCANNED },
		{ "unevictable_pgs_rescued", UNEVICTABLE_PGRESCUED },
		{ "unevictable_pgs_mlocked", UNEVICTABLE_PGMLOCKED },
		{ "unevictable_pgs_munlocked", UNEVICTABLE_PGMUNLOCKED },
		{ "unevictable_pgs_cleared", UNEVICTABLE_PGCLEARED },
	};
	for (unsigned i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		seq_buf_printf(m, "%s %lu\n", events[i].name, all_vm_events(events[i].item));
	thp_vmstat_show(m);
	seq_buf_printf(m, "swap_ra %lu\nswap_ra_hit %lu\n", all_vm_events(SWAP_RA), all_vm_events(SWAP_RA_HIT));
	struct clear_page_stats clear = clear_page_stats_sum();
	for (unsigned i = CLEAR_PAGE_ORIG; i < NR_CLEAR_PAGE_METHODS; i++)
		seq_buf_printf(m, "clear_huge_page_%s %lu\nclear_huge_page_%s_pages %lu\n",
			       clear_page_method_name(i), clear.extents[i], clear_page_method_name(i),
			       clear.pages[i]);
	/* The paths summed (docs/huge_pages.md's names): cached = orig + rep + erms,
	 * uncached = movnt + clzero; extent is its own line above. Then the
	 * fences, and the fence assertion's reports (0 unless a bug). */
	unsigned long cached = 0, uncached = 0;
	for (unsigned i = CLEAR_PAGE_ORIG; i < NR_CLEAR_PAGE_METHODS; i++) {
		if (clear_page_method_uncached(i))
			uncached += clear.extents[i];
		else if (i != CLEAR_PAGE_EXTENT)
			cached += clear.extents[i];
	}
	seq_buf_printf(m, "clear_huge_page_cached %lu\nclear_huge_page_uncached %lu\n", cached, uncached);
	seq_buf_printf(m, "clear_huge_page_fences %lu\nclear_huge_page_incoherent %lu\n", clear.fences,
		       clear.incoherent);
	/* mmlab's own too: the allocations served from another migrate
	 * type's lists and the pageblocks that changed type in them (Linux
	 * shows them only as mm_page_alloc_extfrag trace events). */
	unsigned long fallback = 0, change_ownership = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = NODE_DATA(nid);
		if (pgdat) {
			fallback += READ_ONCE(pgdat->nr_extfrag_fallback);
			change_ownership += READ_ONCE(pgdat->nr_extfrag_change_ownership);
		}
	}
	seq_buf_printf(m, "extfrag_fallback %lu\nextfrag_change_ownership %lu\n", fallback, change_ownership);
}

PROC_FILE(vmstat_entry, proc_root_dir, "vmstat", vmstat_show);
