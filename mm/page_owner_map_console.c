/* The page-owner map on the serial console: one coloured character per
 * cell of pages (ANSI colours, as WeensyOS draws its memory), a line per
 * stretch of each node, a legend, and each node's totals beside the
 * kernel's own counters; then, for the host tool (tools/memmap/), the
 * file /proc/mmlab/page_owner_map itself, run-length encoded between two
 * marker lines.
 *
 * Boot with page_owner_map to see it once the kernel is up, or
 * page_owner_map=tour to see it again after each boot program (the
 * steps of make tour). The map is read through the file's own read
 * method, so the console shows what a reader of the file gets. */
#include "mm/page_owner_map.h"
#include "fs/proc/proc_fs.h"
#include "kernel/cmdline.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/huge_memory.h"
#include "mm/hugetlb.h"
#include "mm/memory.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/slab.h"
#include "mm/util.h"
#include "mm/vmalloc.h"

/* What the console draws for each class: a character and an ANSI SGR
 * colour. A free page is drawn as its block's order in base 19 (0-9,
 * a-i), green, bright from order 9 (a 2 MiB block) up. */
static const struct { char ch; const char *sgr; } look[NR_PAGE_OWNER_CLASSES] = {
	[PAGE_OWNER_HOLE] = { ' ', "0" },
	[PAGE_OWNER_RESERVED] = { 'R', "37" },
	[PAGE_OWNER_KERNEL_IMAGE] = { 'K', "1;35" },
	[PAGE_OWNER_MEMBLOCK] = { 'M', "35" },
	[PAGE_OWNER_BAD] = { 'X', "1;41" },
	[PAGE_OWNER_PCP] = { 'p', "1;32" },
	[PAGE_OWNER_SLAB] = { 'S', "1;33" },
	[PAGE_OWNER_PAGE_TABLE] = { 'T', "1;36" },
	[PAGE_OWNER_VMALLOC] = { 'V', "1;34" },
	[PAGE_OWNER_ANON] = { 'U', "1;31" },
	[PAGE_OWNER_THP] = { 'H', "31" },
	[PAGE_OWNER_HUGETLB] = { 'G', "1;44" },
	[PAGE_OWNER_HUGETLB_FREE] = { 'g', "34" },
	[PAGE_OWNER_LARGE_KMALLOC] = { 'L', "33" },
	[PAGE_OWNER_KERNEL] = { 'k', "37" },
	[PAGE_OWNER_PAGE_CACHE] = { 'C', "36" },
};

static char cell_char(u8 b)
{
	if (page_owner_is_free(b))
		return "0123456789abcdefghi"[PAGE_OWNER_FREE_ORDER(b)];
	return b < NR_PAGE_OWNER_CLASSES ? look[b].ch : '?';
}

static const char *cell_sgr(u8 b)
{
	if (page_owner_is_free(b))
		return PAGE_OWNER_FREE_ORDER(b) >= HPAGE_PMD_ORDER ? "1;32" : "2;32";
	return b < NR_PAGE_OWNER_CLASSES ? look[b].sgr : "0";
}

/* Characters a line; the whole machine takes about MAP_LINES lines. */
#define MAP_COLS 64
#define MAP_LINES 64

/* Counts of each byte value over a node. */
struct node_totals {
	unsigned long n[256];
};

static unsigned long kb(unsigned long pages) { return pages << (PAGE_SHIFT - 10); }

/* The node's map bytes [rel, rel + len) of its span, through the file. */
static bool read_node_bytes(const struct proc_node *file, unsigned long data_start, unsigned long rel,
			    u8 *buf, unsigned long len)
{
	long pos = (long)(data_start + rel);
	while (len) {
		long got = procfs_read_at(file, (char *)buf, len, &pos, false);
		if (got <= 0)
			return false;
		buf += got;
		len -= (unsigned long)got;
	}
	return true;
}

/* Where the data starts: just after the header's "data\n" line. */
static long find_data_start(const struct proc_node *file)
{
	char hdr[4096];
	long pos = 0, got = procfs_read_at(file, hdr, sizeof(hdr) - 1, &pos, false);
	if (got <= 0)
		return -1;
	hdr[got] = 0;
	const char *d = strstr(hdr, "\ndata\n");
	return d ? d + 6 - hdr : -1;
}

static void print_legend(void)
{
	char line[512], name[24];
	for (u8 first = 1; first < NR_PAGE_OWNER_CLASSES; first += 8) {
		size_t len = (size_t)snprintf(line, sizeof(line), "  %s", first == 1 ? "legend:" : "       ");
		for (u8 b = first; b < NR_PAGE_OWNER_CLASSES && b < first + 8; b++)
			len += (size_t)snprintf(line + len, sizeof(line) - len, " \033[%sm%c\033[0m %s",
						look[b].sgr, look[b].ch, page_owner_name(b, name, sizeof(name)));
		pr_info("%s\n", line);
	}
	pr_info("          \033[2;32m0\033[0m-\033[2;32m8\033[0m free block of order 0-8, "
		"\033[1;32m9\033[0m-\033[1;32mi\033[0m of order 9-18 (2 MiB-1 GiB), blank: no RAM of the node\n");
}

/* The node's map as text lines of MAP_COLS cells of pages_per_cell
 * pages, each cell drawn as its most common owner; adds up its bytes. */
static bool print_node(const struct proc_node *file, unsigned long data_start, unsigned long node_off, int nid,
		       unsigned long pages_per_cell, u8 *buf, struct node_totals *t)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long span = pgdat->node_spanned_pages, per_line = pages_per_cell * MAP_COLS;
	static unsigned counts[256];
	char line[MAP_COLS * 12 + 64];
	for (unsigned long start = 0; start < span; start += per_line) {
		unsigned long len = min(per_line, span - start);
		if (!read_node_bytes(file, data_start, node_off + start, buf, len))
			return false;
		char label[8] = "";
		if (!start)
			snprintf(label, sizeof(label), "N%d", nid);
		size_t l = (size_t)snprintf(line, sizeof(line), "  %-4s %#012lx |", label,
					    (pgdat->node_start_pfn + start) << PAGE_SHIFT);
		const char *sgr = NULL;
		for (unsigned long c = 0; c * pages_per_cell < len; c++) {
			memset(counts, 0, sizeof(counts));
			unsigned long end = min((c + 1) * pages_per_cell, len);
			u8 best = buf[c * pages_per_cell];
			for (unsigned long i = c * pages_per_cell; i < end; i++) {
				t->n[buf[i]]++;
				if (++counts[buf[i]] > counts[best])
					best = buf[i];
			}
			if (sgr != cell_sgr(best)) {
				sgr = cell_sgr(best);
				l += (size_t)snprintf(line + l, sizeof(line) - l, "\033[%sm", sgr);
			}
			line[l++] = cell_char(best);
		}
		l += (size_t)snprintf(line + l, sizeof(line) - l, "\033[0m|");
		line[l] = 0;
		pr_info("%s\n", line);
		cond_resched();
	}
	return true;
}

/* Each node's totals from the map, beside the kernel's counters:
 * MemTotal (pages given to the buddy allocator) and MemFree per node
 * (node<N>/meminfo), then the machine's Slab, PageTables, AnonPages,
 * AnonHugePages, VmallocUsed and hugetlb pool (/proc/meminfo). */
static void print_totals(const struct node_totals *t)
{
	unsigned long sum[256] = { 0 };
	char line[768], name[24];
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!page_owner_map_has_node(nid))
			continue;
		unsigned long free = 0, unmanaged = 0, all = 0;
		for (unsigned b = 0; b < 256; b++) {
			sum[b] += t[nid].n[b];
			all += t[nid].n[b];
			if (page_owner_is_free((u8)b) || b == PAGE_OWNER_PCP)
				free += t[nid].n[b];
		}
		unmanaged = t[nid].n[PAGE_OWNER_HOLE] + t[nid].n[PAGE_OWNER_RESERVED] +
			    t[nid].n[PAGE_OWNER_KERNEL_IMAGE] + t[nid].n[PAGE_OWNER_MEMBLOCK];
		pr_info("  node %d: map MemTotal %lu kB MemFree %lu kB; kernel MemTotal %lu kB MemFree %lu kB\n", nid,
			kb(all - unmanaged), kb(free), kb(NODE_DATA(nid)->managed_pages), kb(node_free_pages(nid)));
		size_t l = (size_t)snprintf(line, sizeof(line), "  node %d kB:", nid);
		for (unsigned b = 1; b < 256; b++)
			if (t[nid].n[b] && !page_owner_is_free((u8)b))
				l += (size_t)snprintf(line + l, sizeof(line) - l, " %s %lu",
						      page_owner_name((u8)b, name, sizeof(name)), kb(t[nid].n[b]));
		pr_info("%s\n", line);
	}
	unsigned long huge = 0;
	for (int h = 0; h < HUGE_MAX_HSTATE; h++)
		huge += hstates[h].nr_huge_pages * pages_per_huge_page(&hstates[h]);
	pr_info("  all nodes, map / kernel (kB): Slab %lu / %lu, PageTables %lu / %lu, AnonPages %lu / %lu, "
		"AnonHugePages %lu / %lu, VmallocUsed %lu / %lu, hugetlb pools %lu / %lu\n",
		kb(sum[PAGE_OWNER_SLAB]), kb(nr_slab_pages()), kb(sum[PAGE_OWNER_PAGE_TABLE]),
		kb(nr_user_pagetable_pages()), kb(sum[PAGE_OWNER_ANON] + sum[PAGE_OWNER_THP]), kb(nr_anon_pages()),
		kb(sum[PAGE_OWNER_THP]), kb(nr_anon_thps() * HPAGE_PMD_NR), kb(sum[PAGE_OWNER_VMALLOC]),
		kb(vmalloc_nr_pages()), kb(sum[PAGE_OWNER_HUGETLB] + sum[PAGE_OWNER_HUGETLB_FREE]), kb(huge));
}

/* Run-length output: hex tokens BYTE or BYTE*COUNT, about 100
 * characters a line. */
struct rle_out {
	char line[128];
	size_t len;
	int byte;
	unsigned long count;
};

static void rle_flush_line(struct rle_out *r)
{
	if (!r->len)
		return;
	r->line[r->len] = 0;
	pr_info("memmap-rle:%s\n", r->line);
	r->len = 0;
}

static void rle_flush_run(struct rle_out *r)
{
	char tok[32];
	if (!r->count)
		return;
	int n = r->count == 1 ? snprintf(tok, sizeof(tok), " %x", r->byte)
			      : snprintf(tok, sizeof(tok), " %x*%lx", r->byte, r->count);
	if (r->len + (size_t)n > 100)
		rle_flush_line(r);
	memcpy(r->line + r->len, tok, (size_t)n);
	r->len += (size_t)n;
	r->count = 0;
}

/* The file's bytes, run-length encoded, between "memmap: begin" and
 * "memmap: end" lines, for the host tool. */
static void dump_file(const struct proc_node *file, const char *title, u8 *buf, unsigned long size)
{
	static struct rle_out r;
	long pos = 0, got;
	r.len = 0;
	r.count = 0;
	pr_info("memmap: begin %s (%s): run-length hex BYTE[*COUNT]\n", PAGE_OWNER_MAP_PATH, title);
	while ((got = procfs_read_at(file, (char *)buf, size, &pos, false)) > 0) {
		for (long i = 0; i < got; i++) {
			if (r.count && buf[i] == r.byte) {
				r.count++;
				continue;
			}
			rle_flush_run(&r);
			r.byte = buf[i];
			r.count = 1;
		}
		cond_resched();
	}
	rle_flush_run(&r);
	rle_flush_line(&r);
	pr_info("memmap: end%s\n", got < 0 ? " (read error)" : "");
}

void page_owner_map_print(const char *title, bool dump)
{
	struct proc_node file;
	static struct node_totals totals[MAX_NUMNODES];
	long data_start;
	if (procfs_lookup(PAGE_OWNER_MAP_PATH, current, &file) || (data_start = find_data_start(&file)) < 0) {
		pr_err("memmap: cannot read %s\n", PAGE_OWNER_MAP_PATH);
		return;
	}
	unsigned long total = 0, pages_per_cell = 1;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (page_owner_map_has_node(nid))
			total += NODE_DATA(nid)->node_spanned_pages;
	while (pages_per_cell * MAP_COLS * MAP_LINES < total)
		pages_per_cell *= 2;
	unsigned long size = max(pages_per_cell * MAP_COLS, PAGE_OWNER_STRETCH);
	u8 *buf = kvmalloc(size, GFP_KERNEL);
	if (!buf) {
		pr_err("memmap: no memory for the map\n");
		return;
	}
	memset(totals, 0, sizeof(totals));
	pr_info("memmap: %s: the owner of every page frame (%s), a character = %lu pages (%lu KiB), "
		"the most common owner among them\n", title, PAGE_OWNER_MAP_PATH, pages_per_cell,
		kb(pages_per_cell));
	unsigned long off = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!page_owner_map_has_node(nid))
			continue;
		if (!print_node(&file, (unsigned long)data_start, off, nid, pages_per_cell, buf, &totals[nid]))
			pr_err("memmap: node %d: read failed\n", nid);
		off += NODE_DATA(nid)->node_spanned_pages;
	}
	print_legend();
	print_totals(totals);
	if (dump)
		dump_file(&file, title, buf, size);
	kvfree(buf);
}

/* --- the command-line word ----------------------------------------------- */

enum { SHOW_NEVER, SHOW_BOOT, SHOW_TOUR };
static int show_when = SHOW_NEVER;
static const char *const show_words[] = { "off", "boot", "tour" };

static int setup_page_owner_map(const char *val)
{
	if (!val) {
		show_when = SHOW_BOOT;
		return 0;
	}
	for (int i = 0; i < 3; i++)
		if (!strcmp(val, show_words[i])) {
			show_when = i;
			return 0;
		}
	return -EINVAL;
}

static void show_page_owner_map(char *buf, size_t size) { snprintf(buf, size, "%s", show_words[show_when]); }

kernel_param_setup("page_owner_map", setup_page_owner_map, show_page_owner_map, "boot, tour or off",
		   "print the map of page owners (/proc/mmlab/page_owner_map) once booted (a bare word: "
		   "boot), and with tour also after each boot program");

/* After the boot report and before the boot programs (a late initcall,
 * after those of mm that set up what the map reads). */
static int page_owner_map_at_boot(void)
{
	if (show_when != SHOW_NEVER)
		page_owner_map_print("after boot", true);
	return 0;
}
late_initcall_sync(page_owner_map_at_boot);

void page_owner_map_after_program(const char *name)
{
	char title[96];
	if (show_when != SHOW_TOUR)
		return;
	snprintf(title, sizeof(title), "after %s", name);
	page_owner_map_print(title, true);
}
