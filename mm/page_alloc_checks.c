/* The page allocator's checks and what they report ("BUG: Bad page state"),
 * and page poisoning (page_poison=on).
 *
 * Every free and every allocation checks the page when the checks are on
 * (is_check_pages_enabled: CONFIG_DEBUG_VM or page_poison=on); the fast halves
 * (free_pages_prepare, check_new_page) are inline in page_alloc_internal.h,
 * and this file says what was wrong and whose call it was. The invariant it
 * keeps: a page whose struct page fails a check is never put (back) on a
 * free list. A bad free is reported and refused; a page found corrupted on
 * a free list is reported and retired (PG_bad, counted in nr_bad_pages),
 * never handed out or merged again. With poisoning on, every free page
 * holds PAGE_POISON in all its bytes, so a write after free is reported
 * when the page is next allocated (and the page is handed out anyway: its
 * struct page is sound). */
#include "kernel/cmdline.h"
#include "kernel/ksyms.h"
#include "kernel/printk.h"
#include "mm/page_alloc_internal.h"

bool page_poisoning;
unsigned long bad_page_reports;
kernel_param_flag("page_poison", page_poisoning,
		  "fill free pages with 0xaa and check the pattern when they are allocated");

static const char *const pageflag_names[NR_PAGEFLAGS] = {
	[PG_reserved] = "reserved", [PG_buddy] = "buddy", [PG_pcp] = "pcp",
	[PG_head] = "head", [PG_slab] = "slab", [PG_table] = "table",
	[PG_large_kmalloc] = "large_kmalloc", [PG_bad] = "bad", [PG_hugetlb] = "hugetlb",
	[PG_hugetlb_tail] = "hugetlb_tail", [PG_anon_thp] = "anon_thp", [PG_anon_tail] = "anon_tail",
	[PG_shmem_thp] = "shmem_thp", [PG_shmem_tail] = "shmem_tail", [PG_lru] = "lru",
	[PG_active] = "active", [PG_referenced] = "referenced", [PG_unevictable] = "unevictable",
	[PG_swapbacked] = "swapbacked", [PG_mlocked] = "mlocked", [PG_swapcache] = "swapcache",
	[PG_dirty] = "dirty", [PG_readahead] = "readahead", [PG_workingset] = "workingset",
	[PG_poison_kept] = "poison_kept",
};

static void describe_flags(unsigned long flags, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	for (int f = 0; f < NR_PAGEFLAGS; f++)
		if (flags >> f & 1)
			len += snprintf(buf + len, len < size ? size - len : 0, "%s%s", len ? "|" : "",
					pageflag_names[f]);
	if (!len)
		snprintf(buf, size, "none");
}

static void print_caller(const char *what, unsigned long addr)
{
	u64 off, size;
	const char *name = addr ? ksym_lookup(addr, &off, &size) : NULL;
	if (name)
		printk(KERN_ERR "  %s %s+0x%lx\n", what, name, (unsigned long)off);
	else
		printk(KERN_ERR "  %s %#lx\n", what, addr);
}

/* Reports a page that fails a check. The caller decides what happens to it;
 * the report says which. */
void bad_page(struct page *page, const char *reason, unsigned long caller, const char *fate)
{
	char flags[96];
	describe_flags(page->flags & PAGE_FLAGS_MASK, flags, sizeof(flags));
	bad_page_reports++;
	printk(KERN_ERR "BUG: Bad page state: pfn %#lx node %d: %s\n", page_to_pfn(page),
	       page_to_nid(page), reason);
	printk(KERN_ERR "  flags %#lx(%s) refcount %d mapcount %d private %lu; %s\n",
	       page->flags & PAGE_FLAGS_MASK, flags, page->_refcount, page->_mapcount, page->private,
	       fate);
	print_caller("last freed by", page->freed_by);
	if (caller)
		print_caller("now called from", caller);
}

/* Takes a free page that failed its check out of circulation for good. */
void retire_page(struct page *page, pg_data_t *pgdat)
{
	page->flags = (page->flags & ~PAGE_FLAGS_MASK) | BIT(PG_bad);
	pgdat->nr_bad_pages++;
}

/* What a page about to be freed must look like; returns the reason it is
 * not, or NULL. */
const char *free_page_problem(struct page *page, unsigned int order)
{
	unsigned long fl = page->flags & PAGE_FLAGS_MASK;

	if (fl & (BIT(PG_buddy) | BIT(PG_pcp)))
		return "freed twice: the page is already free";
	if (fl & BIT(PG_bad))
		return "freed a page that was taken out of circulation";
	if (fl & BIT(PG_reserved))
		return "freed a reserved page";
	if (fl & BIT(PG_table))
		return "freed while still marked as a page-table page";
	if (fl & BIT(PG_slab))
		return "freed while still owned by the slab allocator";
	if (fl & BIT(PG_large_kmalloc))
		return "freed while still a large kmalloc";
	if (order > 0 && !(fl & BIT(PG_head)))
		return "freed with order > 0 but it does not head an allocation of that order";
	if ((fl & BIT(PG_head)) && page->private != order)
		return "freed with the wrong order";
	if (page_ref_count(page) != 1)
		return page_ref_count(page) > 1 ? "freed while still referenced (refcount > 1)"
						: "freed with refcount 0 (already freed?)";
	if (page->_mapcount != -1)
		return "freed while still mapped in a page table";
	if (page->mapping)
		return "freed with a non-NULL mapping (still in a page cache or an anon_vma?)";
	if (page_to_pfn(page) & ((1ul << order) - 1))
		return "freed at an address not aligned to its order";
	if ((fl & ~poison_kept_flag(page)) != (order ? BIT(PG_head) : 0))
		return "freed with unexpected page flags";
	return NULL;
}

/* The other pages of a block must be plain too. Checking them costs a
 * pass over 2^order struct pages, so (as Linux's debug checks) it is done
 * in the debug mode, page_poison=on. */
const char *free_tail_problem(struct page *page, unsigned int order, struct page **bad)
{
	for (unsigned long i = 1; i < (1ul << order); i++) {
		struct page *t = page + i;
		*bad = t;
		if (t->flags & PAGE_FLAGS_MASK)
			return "a tail page of the block still has flags set";
		if (t->_refcount != 0)
			return "a tail page of the block is still referenced";
		if (t->_mapcount != -1)
			return "a tail page of the block is still mapped";
	}
	return NULL;
}

void check_poison(struct page *page, unsigned int order)
{
	const u8 *p = page_address(page);
	const u64 *w = (const u64 *)p, pattern = 0x0101010101010101ull * PAGE_POISON;
	size_t n = PAGE_SIZE << order, nw = n / 8, first = 0;
	/* 64 bytes at a time while every word matches (one test for eight
	 * words), then eight; the byte that differs is found afterwards. */
	while (first + 8 <= nw) {
		u64 d = (w[first] ^ pattern) | (w[first + 1] ^ pattern) | (w[first + 2] ^ pattern) |
			(w[first + 3] ^ pattern) | (w[first + 4] ^ pattern) | (w[first + 5] ^ pattern) |
			(w[first + 6] ^ pattern) | (w[first + 7] ^ pattern);
		if (d)
			break;
		first += 8;
	}
	while (first < nw && w[first] == pattern)
		first++;
	if (first == nw)
		return;
	for (size_t i = first * 8; i < n; i++) {
		if (p[i] != PAGE_POISON) {
			char reason[96];
			snprintf(reason, sizeof(reason),
				 "poison overwritten at offset %#zx (0x%02x): written after it was freed", i,
				 p[i]);
			bad_page(pfn_to_page(page_to_pfn(page) + i / PAGE_SIZE), reason, 0,
				 "the page is handed out anyway");
			return;
		}
	}
}
