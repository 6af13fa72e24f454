/* The page-owner map (mm/page_owner_map.h): who has each page frame, one
 * byte a page, and the file /proc/mmlab/page_owner_map that serves it.
 *
 * Invariant: a page's byte is decided by the one function classify(),
 * for the file, the console map and the tests alike, with the rules of
 * the gdb helper mm-page.
 *
 * Locking and consistency: a stretch of PAGE_OWNER_STRETCH pages (16 MiB)
 * is classified under its node's lock (irqsave), which the buddy free
 * lists change under: within a stretch every free block is seen whole or
 * not at all, and the free pages of a node that no CPU is allocating from
 * add up to node_free_pages(). The other owners are recorded in the
 * struct page without that lock (slab, page tables, user mappings, per-CPU
 * lists, which only their own CPU changes): each such byte is what the
 * page was at the moment it was read. vmalloc's pages are marked after the
 * stretch, under vmap_area_lock, and the hugetlb pools' free pages under
 * hugetlb_lock. The file is read at an offset (as
 * /proc/<pid>/pagemap), a stretch at a time: a 16 GiB machine has 4 M
 * pages, more than procfs generates whole (1 MiB), so a reader sees each
 * stretch at its own moment, never one snapshot of the whole machine. */
#include "mm/page_owner_map.h"
#include "arch/x86_64/uaccess.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/hugetlb.h"
#include "mm/memblock.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/rmap.h"
#include "mm/slab.h"
#include "mm/vmalloc.h"

static const char *const class_names[NR_PAGE_OWNER_CLASSES] = {
	[PAGE_OWNER_HOLE] = "hole",
	[PAGE_OWNER_RESERVED] = "reserved",
	[PAGE_OWNER_KERNEL_IMAGE] = "kernel_image",
	[PAGE_OWNER_MEMBLOCK] = "memblock",
	[PAGE_OWNER_BAD] = "bad",
	[PAGE_OWNER_PCP] = "free_pcp",
	[PAGE_OWNER_SLAB] = "slab",
	[PAGE_OWNER_PAGE_TABLE] = "page_table",
	[PAGE_OWNER_VMALLOC] = "vmalloc",
	[PAGE_OWNER_ANON] = "anon",
	[PAGE_OWNER_THP] = "thp",
	[PAGE_OWNER_HUGETLB] = "hugetlb",
	[PAGE_OWNER_HUGETLB_FREE] = "hugetlb_free",
	[PAGE_OWNER_LARGE_KMALLOC] = "large_kmalloc",
	[PAGE_OWNER_KERNEL] = "kernel",
	[PAGE_OWNER_PAGE_CACHE] = "page_cache",
};

#define PG_BIT(f) (1ul << (f))

_Static_assert(MAX_PAGE_ORDER == 18, "page_owner_is_free() knows the orders");

const char *page_owner_name(u8 byte, char *buf, size_t size)
{
	if (byte < NR_PAGE_OWNER_CLASSES)
		return class_names[byte];
	if (!page_owner_is_free(byte))
		return NULL;
	snprintf(buf, size, "free_order_%u", PAGE_OWNER_FREE_ORDER(byte));
	return buf;
}

bool page_owner_map_has_node(int nid)
{
	return node_has_memory(nid) && NODE_DATA(nid)->node_spanned_pages;
}

/* A reserved page: which memblock reservation it lies in decides. */
static u8 reserved_class(unsigned long pfn)
{
	phys_addr_t a = (phys_addr_t)pfn << PAGE_SHIFT;
	if (!memblock_is_memory(a))
		return PAGE_OWNER_HOLE; /* a pfn of a populated section that is not RAM */
	for (unsigned long i = 0; i < memblock.reserved.cnt; i++) {
		const struct memblock_region *r = &memblock.reserved.regions[i];
		if (a < r->base || a - r->base >= r->size)
			continue;
		if (r->what && !strcmp(r->what, "kernel image"))
			return PAGE_OWNER_KERNEL_IMAGE;
		if (r->what && !strcmp(r->what, "memblock_alloc"))
			return PAGE_OWNER_MEMBLOCK;
		return PAGE_OWNER_RESERVED;
	}
	return PAGE_OWNER_RESERVED;
}

/* The head of the block of order >= the alignment tried that covers pfn,
 * with the flag (PG_buddy, PG_pcp or PG_head) that marks such a head: a page
 * inside a free block or an allocation of order > 0 has no flag of its
 * own (page.py's _free_block_head and _compound_head). */
static bool block_head(unsigned long pfn, enum pageflags flag, unsigned long *head, unsigned *order)
{
	for (unsigned o = 1; o <= MAX_PAGE_ORDER; o++) {
		unsigned long h = pfn & ~((1ul << o) - 1);
		if (h == pfn)
			continue;
		if (!pfn_valid(h))
			return false;
		struct page *hp = pfn_to_page(h);
		if (page_test_flag(hp, flag) && hp->private >= o && hp->private <= MAX_PAGE_ORDER) {
			*head = h;
			*order = (unsigned)hp->private;
			return true;
		}
	}
	return false;
}

/* The class of an allocation of order > 0 whose head is hp. */
static u8 compound_class(const struct page *hp, unsigned order)
{
	if (page_test_flag(hp, PG_large_kmalloc))
		return PAGE_OWNER_LARGE_KMALLOC;
	if (page_test_flag(hp, PG_slab))
		return PAGE_OWNER_SLAB;
	if (page_test_flag(hp, PG_anon_thp)) /* mapped by a PMD or, after fork, by PTEs (mm/rmap.h) */
		return PAGE_OWNER_THP;
	if (page_test_flag(hp, PG_shmem_thp)) /* a tmpfs file's huge page (mm/shmem_huge.c) */
		return PAGE_OWNER_PAGE_CACHE;
	if (page_in_page_cache(hp))
		return PAGE_OWNER_PAGE_CACHE;
	if (hp->_mapcount >= 0)
		return order == HPAGE_PMD_ORDER ? PAGE_OWNER_THP : PAGE_OWNER_ANON;
	return PAGE_OWNER_KERNEL;
}

/* Writes the bytes of pfn and maybe the pages after it that share its
 * owner (a whole free block or allocation), at most end - pfn; returns
 * how many. Under the node's lock. */
static unsigned long classify(int nid, unsigned long pfn, unsigned long end, u8 *out)
{
	unsigned long n = 1;
	u8 b;
	if (!pfn_valid(pfn)) {
		/* No struct pages: up to the next section. */
		n = min(end, (pfn | (PAGES_PER_SECTION - 1)) + 1) - pfn;
		memset(out, PAGE_OWNER_HOLE, n);
		return n;
	}
	struct page *page = pfn_to_page(pfn);
	unsigned long fl = page->flags & PAGE_FLAGS_MASK;
	unsigned long head;
	unsigned order;
	if (page_to_nid(page) != nid)
		b = PAGE_OWNER_HOLE;
	else if (fl & PG_BIT(PG_bad))
		b = PAGE_OWNER_BAD;
	else if (fl & PG_BIT(PG_reserved))
		b = reserved_class(pfn);
	else if (fl & PG_BIT(PG_buddy)) {
		b = PAGE_OWNER_FREE + (u8)page->private;
		n = 1ul << page->private;
	} else if (fl & PG_BIT(PG_pcp)) {
		b = PAGE_OWNER_PCP; /* a page, or a THP-order block (private: its order) */
		n = 1ul << page->private;
	} else if (fl & PG_BIT(PG_slab))
		b = PAGE_OWNER_SLAB;
	else if (fl & PG_BIT(PG_table))
		b = PAGE_OWNER_PAGE_TABLE;
	else if (fl & PG_BIT(PG_anon_tail)) {
		b = PAGE_OWNER_THP; /* a THP's page mapped by a PTE after fork */
	} else if (fl & PG_BIT(PG_shmem_tail))
		b = PAGE_OWNER_PAGE_CACHE; /* a page of a tmpfs file's huge page */
	else if (fl & (PG_BIT(PG_hugetlb) | PG_BIT(PG_hugetlb_tail)))
		b = PAGE_OWNER_HUGETLB; /* the free ones are marked after (mark_hugetlb_free) */
	else if (fl & PG_BIT(PG_head)) {
		b = compound_class(page, (unsigned)page->private);
		n = 1ul << page->private;
	} else if (fl & PG_BIT(PG_large_kmalloc))
		b = PAGE_OWNER_LARGE_KMALLOC;
	else if (page_in_page_cache(page))
		b = PAGE_OWNER_PAGE_CACHE; /* mapped (shared, or private not yet written) or not */
	else if (page->_mapcount >= 0)
		b = PAGE_OWNER_ANON;
	else if (!page_ref_count(page) && block_head(pfn, PG_buddy, &head, &order)) {
		b = PAGE_OWNER_FREE + (u8)order;
		n = head + (1ul << order) - pfn;
	} else if (!page_ref_count(page) && block_head(pfn, PG_pcp, &head, &order)) {
		/* Inside a THP-order block on a per-CPU list whose head an
		 * earlier stretch of the census saw. */
		b = PAGE_OWNER_PCP;
		n = head + (1ul << order) - pfn;
	} else if (block_head(pfn, PG_head, &head, &order)) {
		b = compound_class(pfn_to_page(head), order);
		n = head + (1ul << order) - pfn;
	} else
		b = PAGE_OWNER_KERNEL; /* vmalloc's are marked after (mark_vmalloc) */
	n = min(n, end - pfn);
	memset(out, b, n);
	return n;
}

struct vmalloc_marks {
	unsigned long pfn, nr;
	u8 *out;
};

static void mark_vmalloc(struct page *page, void *arg)
{
	struct vmalloc_marks *m = arg;
	unsigned long i = page_to_pfn(page) - m->pfn;
	/* Only a page the rules left unowned: one that changed hands since
	 * (freed and reused) keeps what the stretch saw. */
	if (i < m->nr && m->out[i] == PAGE_OWNER_KERNEL)
		m->out[i] = PAGE_OWNER_VMALLOC;
}

/* A free pool page holds a reference as one in use does: only the pool's
 * free lists say which is which. */
static void mark_hugetlb_free(struct page *head, unsigned long pages, void *arg)
{
	struct vmalloc_marks *m = arg;
	unsigned long first = page_to_pfn(head);
	for (unsigned long p = max(first, m->pfn); p < first + pages && p < m->pfn + m->nr; p++)
		if (m->out[p - m->pfn] == PAGE_OWNER_HUGETLB)
			m->out[p - m->pfn] = PAGE_OWNER_HUGETLB_FREE;
}

void page_owner_map_fill(int nid, unsigned long pfn, unsigned long nr, u8 *out)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	while (nr) {
		unsigned long len = min(nr, PAGE_OWNER_STRETCH), end = pfn + len, flags;
		spin_lock_irqsave(&pgdat->lock, flags);
		for (unsigned long p = pfn; p < end;)
			p += classify(nid, p, end, out + (p - pfn));
		spin_unlock_irqrestore(&pgdat->lock, flags);
		struct vmalloc_marks m = { pfn, len, out };
		vmalloc_for_each_page(mark_vmalloc, &m);
		hugetlb_for_each_free_page(mark_hugetlb_free, &m);
		pfn += len;
		out += len;
		nr -= len;
		cond_resched();
	}
}

u8 page_owner_of_pfn(unsigned long pfn)
{
	u8 b = PAGE_OWNER_HOLE;
	if (pfn_valid(pfn) && page_owner_map_has_node(page_to_nid(pfn_to_page(pfn))))
		page_owner_map_fill(page_to_nid(pfn_to_page(pfn)), pfn, 1, &b);
	return b;
}

/* --- the file ------------------------------------------------------------ */

/* The header into m: what the bytes mean and where each node's are. */
static void print_header(struct seq_buf *m)
{
	char name[24];
	seq_buf_printf(m, "mmlab page_owner_map 1\npage_size %lu\n", PAGE_SIZE);
	for (unsigned b = 0; b < 256; b++)
		if (page_owner_name((u8)b, name, sizeof(name)))
			seq_buf_printf(m, "class %u %s\n", b, page_owner_name((u8)b, name, sizeof(name)));
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (page_owner_map_has_node(nid))
			seq_buf_printf(m, "node %d start_pfn %#lx pages %lu\n", nid, NODE_DATA(nid)->node_start_pfn,
				       NODE_DATA(nid)->node_spanned_pages);
	seq_buf_printf(m, "data\n");
}

/* A read ends after this many map bytes (the rest is the next read's):
 * it bounds how long one read(2) holds the CPU. */
#define READ_MAX (64ul * PAGE_OWNER_STRETCH)

static long page_owner_map_read(const struct proc_node *node, char *dst, size_t count, long *pos, bool user)
{
	(void)node;
	if (*pos < 0)
		return -EINVAL;
	char *buf = kmalloc(PAGE_OWNER_STRETCH, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	struct seq_buf m = { buf, PAGE_OWNER_STRETCH - 1, 0 };
	print_header(&m);
	unsigned long hlen = m.len, off = (unsigned long)*pos, copied = 0;
	long ret = 0;
	if (seq_buf_has_overflowed(&m)) {
		kfree(buf);
		return -ENOMEM; /* cannot happen below 128 nodes */
	}
	while (count && copied < READ_MAX) {
		size_t len = 0;
		const char *src = buf;
		if (off < hlen) {
			/* The header, generated again for each read: once it is
			 * out, the buffer holds data. */
			len = min(count, hlen - off);
			src = buf + off;
		} else {
			unsigned long rel = off - hlen;
			int nid = 0;
			for (; nid < MAX_NUMNODES; nid++) {
				if (!page_owner_map_has_node(nid))
					continue;
				if (rel < NODE_DATA(nid)->node_spanned_pages)
					break;
				rel -= NODE_DATA(nid)->node_spanned_pages;
			}
			if (nid == MAX_NUMNODES)
				break; /* the end of the file */
			len = min(min(count, PAGE_OWNER_STRETCH), NODE_DATA(nid)->node_spanned_pages - rel);
			page_owner_map_fill(nid, NODE_DATA(nid)->node_start_pfn + rel, len, (u8 *)buf);
		}
		if (user ? copy_to_user(dst, src, len) : (memcpy(dst, src, len), 0)) {
			ret = -EFAULT;
			break;
		}
		dst += len;
		count -= len;
		off += len;
		copied += len;
	}
	kfree(buf);
	if (ret && !copied)
		return ret;
	*pos = (long)off;
	return (long)copied;
}

static const struct proc_dir_entry proc_mmlab_dir __proc_entry = {
	.parent = &proc_root_dir, .name = "mmlab", .mode = S_IFDIR | 0555,
};

/* A write prints the map now, on the console with its dump, titled by
 * what was written (its first line): a program takes a picture of memory
 * while it holds what it made (tests/user/aux/tour_*.c, make tour). */
static long page_owner_map_write(const struct proc_node *node, const char *buf, size_t len)
{
	(void)node;
	char title[96];
	size_t n = 0;
	while (n < len && n < sizeof(title) - 1 && buf[n] != '\n') {
		title[n] = buf[n] >= ' ' && buf[n] < 127 ? buf[n] : '?';
		n++;
	}
	title[n] = 0;
	if (!n)
		return -EINVAL;
	page_owner_map_print(title, true);
	return (long)len;
}

static const struct proc_dir_entry page_owner_map_entry __proc_entry = {
	.parent = &proc_mmlab_dir, .name = "page_owner_map", .mode = S_IFREG | 0644,
	.read = page_owner_map_read, .write = page_owner_map_write,
};
