/* What Linux's mm/vmstat.c prints about fragmentation: /proc/pagetypeinfo
 * (the free blocks per order of each migrate type, and the pageblocks of
 * each type), and debugfs's extfrag/unusable_index and
 * extfrag/extfrag_index, with fragmentation_index, which compaction asks.
 *
 * Where mmlab differs: a node has one zone, printed as "Normal" as in
 * /proc/buddyinfo (mm/vmstat.c says why); the rows have a column per
 * order up to MAX_PAGE_ORDER (19, where Linux has 11); and mmlab has no
 * debugfs, so the extfrag files are served at Linux's paths,
 * /sys/kernel/debug/extfrag/, as part of sysfs's tree. */
#include "fs/proc/proc_fs.h"
#include "mm/page_alloc.h"
#include "mm/vmstat.h"

/* Linux's contig_page_info: the free pages and blocks of a node, and the
 * blocks that could serve a request of suitable_order. */
struct contig_page_info {
	unsigned long free_pages;
	unsigned long free_blocks_total;
	unsigned long free_blocks_suitable;
};

static void fill_contig_page_info(const pg_data_t *pgdat, unsigned int suitable_order, struct contig_page_info *info)
{
	info->free_pages = info->free_blocks_total = info->free_blocks_suitable = 0;
	for (unsigned int order = 0; order <= MAX_PAGE_ORDER; order++) {
		/* Read once without the lock, as Linux's data_race read. */
		unsigned long blocks = READ_ONCE(pgdat->free_area[order].nr_free);
		info->free_blocks_total += blocks;
		info->free_pages += blocks << order;
		if (order >= suitable_order)
			info->free_blocks_suitable += blocks << (order - suitable_order);
	}
}

/* Linux's __fragmentation_index, in thousandths: -1000 when a block of the
 * order is free (the request would not fail), else towards 0 when it
 * would fail for lack of memory and towards 1000 when for fragmentation. */
static int __fragmentation_index(unsigned int order, const struct contig_page_info *info)
{
	unsigned long requested = 1ul << order;
	if (order > MAX_PAGE_ORDER || !info->free_blocks_total)
		return 0;
	if (info->free_blocks_suitable)
		return -1000;
	return (int)(1000 - (1000 + info->free_pages * 1000 / requested) / info->free_blocks_total);
}

int fragmentation_index(const pg_data_t *pgdat, unsigned int order)
{
	struct contig_page_info info;
	fill_contig_page_info(pgdat, order, &info);
	return __fragmentation_index(order, &info);
}

unsigned int extfrag_for_order(const pg_data_t *pgdat, unsigned int order)
{
	struct contig_page_info info;
	fill_contig_page_info(pgdat, order, &info);
	if (!info.free_pages)
		return 0;
	return (unsigned int)((info.free_pages - (info.free_blocks_suitable << order)) * 100 / info.free_pages);
}

/* Linux's unusable_free_index: the share of free memory, in thousandths,
 * in blocks too small for the order. */
static int unusable_free_index(unsigned int order, const struct contig_page_info *info)
{
	if (!info->free_pages)
		return 1000;
	return (int)((info->free_pages - (info->free_blocks_suitable << order)) * 1000 / info->free_pages);
}

/* --- /proc/pagetypeinfo ------------------------------------------------- */

/* Linux's pagetypeinfo_showfree_print: the lists walked under the lock, a
 * count capped at 100000 (printed ">100000"), as Linux caps it. */
static void pagetypeinfo_showfree(struct seq_buf *m, pg_data_t *pgdat)
{
	for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
		seq_buf_printf(m, "Node %4d, zone %8s, type %12s ", pgdat->node_id, "Normal", migratetype_names[mt]);
		for (unsigned int order = 0; order <= MAX_PAGE_ORDER; order++) {
			unsigned long count = 0, flags;
			bool overflow = false;
			struct list_head *pos;
			spin_lock_irqsave(&pgdat->lock, flags);
			list_for_each(pos, &pgdat->free_area[order].free_list[mt]) {
				if (++count >= 100000) {
					overflow = true;
					break;
				}
			}
			spin_unlock_irqrestore(&pgdat->lock, flags);
			seq_buf_printf(m, "%s%6lu ", overflow ? ">" : "", count);
		}
		seq_buf_puts(m, "\n");
	}
}

/* Linux's pagetypeinfo_showblockcount_print: every pageblock of the span
 * that has a struct page of the node, by its type. */
static void pagetypeinfo_showblockcount(struct seq_buf *m, const pg_data_t *pgdat)
{
	unsigned long count[MIGRATE_TYPES] = { 0 };
	unsigned long start = pgdat->node_start_pfn, end = start + pgdat->node_spanned_pages;
	for (unsigned long pfn = start & ~(pageblock_nr_pages - 1); pfn < end; pfn += pageblock_nr_pages) {
		unsigned long first = pfn < start ? start : pfn;
		if (!pfn_valid(first) || page_to_nid(pfn_to_page(first)) != pgdat->node_id)
			continue;
		int mt = get_pfnblock_migratetype(pgdat, first);
		if (mt < MIGRATE_TYPES)
			count[mt]++;
	}
	seq_buf_printf(m, "Node %d, zone %8s ", pgdat->node_id, "Normal");
	for (int mt = 0; mt < MIGRATE_TYPES; mt++)
		seq_buf_printf(m, "%12lu ", count[mt]);
	seq_buf_puts(m, "\n");
}

/* Linux's pagetypeinfo_show, node by node (a node with memory only). */
static void pagetypeinfo_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!node_has_memory(nid))
			continue;
		pg_data_t *pgdat = NODE_DATA(nid);
		seq_buf_printf(m, "Page block order: %d\n", pageblock_order);
		seq_buf_printf(m, "Pages per block:  %lu\n", pageblock_nr_pages);
		seq_buf_puts(m, "\n");
		seq_buf_printf(m, "%-43s ", "Free pages count per migrate type at order");
		for (int order = 0; order <= MAX_PAGE_ORDER; order++)
			seq_buf_printf(m, "%6d ", order);
		seq_buf_puts(m, "\n");
		pagetypeinfo_showfree(m, pgdat);
		seq_buf_printf(m, "\n%-23s", "Number of blocks type ");
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			seq_buf_printf(m, "%12s ", migratetype_names[mt]);
		seq_buf_puts(m, "\n");
		pagetypeinfo_showblockcount(m, pgdat);
	}
}

/* Linux's is 0400 (root only); mmlab's reader is root. */
static const struct proc_dir_entry pagetypeinfo_entry __proc_entry = {
	.parent = &proc_root_dir, .name = "pagetypeinfo", .mode = S_IFREG | 0400, .show = pagetypeinfo_show,
};

/* --- /sys/kernel/debug/extfrag ------------------------------------------ */

static const struct proc_dir_entry extfrag_dir __proc_entry = {
	.parent = &sys_kernel_debug_dir, .name = "extfrag", .mode = S_IFDIR | 0555,
};

/* A line per node with memory, an index per order, as Linux's
 * unusable_show_print and extfrag_show_print. */
static void frag_index_show(struct seq_buf *m, bool extfrag)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!node_has_memory(nid))
			continue;
		const pg_data_t *pgdat = NODE_DATA(nid);
		seq_buf_printf(m, "Node %d, zone %8s ", nid, "Normal");
		for (unsigned int order = 0; order <= MAX_PAGE_ORDER; order++) {
			struct contig_page_info info;
			fill_contig_page_info(pgdat, order, &info);
			if (extfrag) {
				int index = __fragmentation_index(order, &info);
				seq_buf_printf(m, "%2d.%03d ", index / 1000, index < 0 ? -index % 1000 : index % 1000);
			} else {
				int index = unusable_free_index(order, &info);
				seq_buf_printf(m, "%d.%03d ", index / 1000, index % 1000);
			}
		}
		seq_buf_puts(m, "\n");
	}
}

static void unusable_index_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	frag_index_show(m, false);
}

static void extfrag_index_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	frag_index_show(m, true);
}

/* Linux's debugfs files are 0444. */
PROC_FILE(unusable_index_entry, extfrag_dir, "unusable_index", unusable_index_show);
PROC_FILE(extfrag_index_entry, extfrag_dir, "extfrag_index", extfrag_index_show);
