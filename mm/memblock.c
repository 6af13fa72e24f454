/* memblock: see memblock.h. Portable (also built for host tests): it only
 * does arithmetic on physical ranges; memblock_alloc_node() turns an address
 * into a pointer through page_address(). */
#include "mm/memblock.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "mm/numa.h"
#include "mm/page.h"

struct memblock memblock = {
	.memory = { .name = "memory" },
	.reserved = { .name = "reserved" },
};

void memblock_reset(void)
{
	memset(&memblock, 0, sizeof(memblock));
	memblock.memory.name = "memory";
	memblock.reserved.name = "reserved";
}

static void remove_region(struct memblock_type *t, unsigned long i)
{
	memmove(&t->regions[i], &t->regions[i + 1], (t->cnt - i - 1) * sizeof(t->regions[0]));
	t->cnt--;
}

/* Inserts [base, base + size), merging with neighbours that touch or
 * overlap it and are of the same node (memory) or any (reserved). */
static int add_range(struct memblock_type *t, phys_addr_t base, phys_addr_t size, int nid,
		     const char *what, bool merge_any_node)
{
	if (!size)
		return 0;
	if (base + size < base)
		return -EINVAL;
	if (t->cnt == MEMBLOCK_MAX_REGIONS) {
		pr_err("memblock: no room for %s [%#llx-%#llx)\n", t->name, (unsigned long long)base,
		       (unsigned long long)(base + size));
		return -ENOMEM;
	}
	unsigned long i = 0;
	while (i < t->cnt && t->regions[i].base < base)
		i++;
	memmove(&t->regions[i + 1], &t->regions[i], (t->cnt - i) * sizeof(t->regions[0]));
	t->regions[i] = (struct memblock_region){ base, size, nid, what };
	t->cnt++;

	/* Merge around i until nothing touches. */
	for (unsigned long j = i > 0 ? i - 1 : 0; j + 1 < t->cnt;) {
		struct memblock_region *a = &t->regions[j], *b = &t->regions[j + 1];
		bool overlap = a->base + a->size > b->base, touch = a->base + a->size == b->base;
		/* Reserved ranges keep their labels apart unless they overlap. */
		bool same_kind = merge_any_node ? (a->what == b->what || (a->what && b->what && !strcmp(a->what, b->what)))
						: a->nid == b->nid;
		if (overlap || (touch && same_kind)) {
			phys_addr_t end = max(a->base + a->size, b->base + b->size);
			a->size = end - a->base;
			if (!a->what)
				a->what = b->what;
			remove_region(t, j + 1);
		} else if (j > i) {
			break;
		} else {
			j++;
		}
	}
	t->total_size = 0;
	for (unsigned long k = 0; k < t->cnt; k++)
		t->total_size += t->regions[k].size;
	return 0;
}

int memblock_add_node(phys_addr_t base, phys_addr_t size, int nid)
{
	return add_range(&memblock.memory, base, size, nid, NULL, false);
}

int memblock_reserve(phys_addr_t base, phys_addr_t size, const char *what)
{
	return add_range(&memblock.reserved, base, size, NUMA_NO_NODE, what, true);
}

bool memblock_is_reserved(phys_addr_t addr)
{
	for (unsigned long i = 0; i < memblock.reserved.cnt; i++) {
		const struct memblock_region *r = &memblock.reserved.regions[i];
		if (addr >= r->base && addr - r->base < r->size)
			return true;
	}
	return false;
}

int memblock_nid_of(phys_addr_t addr)
{
	for (unsigned long i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];
		if (addr >= r->base && addr - r->base < r->size)
			return r->nid;
	}
	return NUMA_NO_NODE;
}

bool memblock_is_memory(phys_addr_t addr)
{
	return memblock_nid_of(addr) != NUMA_NO_NODE;
}

/* Walks memory minus reserved, in address order. */
void memblock_for_each_free_range(void (*fn)(phys_addr_t, phys_addr_t, int, void *), void *arg)
{
	const struct memblock_type *res = &memblock.reserved;
	for (unsigned long i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *m = &memblock.memory.regions[i];
		phys_addr_t cur = m->base, end = m->base + m->size;
		for (unsigned long j = 0; j < res->cnt && cur < end; j++) {
			phys_addr_t rb = res->regions[j].base, re = rb + res->regions[j].size;
			if (re <= cur)
				continue;
			if (rb >= end)
				break;
			if (rb > cur)
				fn(cur, rb, m->nid, arg);
			cur = max(cur, re);
		}
		if (cur < end)
			fn(cur, end, m->nid, arg);
	}
}

struct alloc_search {
	phys_addr_t size, align, min_addr, max_addr, found;
	int nid;
};

static void consider_range(phys_addr_t start, phys_addr_t end, int nid, void *arg)
{
	struct alloc_search *s = arg;
	if (s->nid != NUMA_NO_NODE && nid != s->nid)
		return;
	start = max(start, s->min_addr);
	end = min(end, s->max_addr);
	if (end <= start || end - start < s->size)
		return;
	phys_addr_t cand = ALIGN_DOWN(end - s->size, s->align);
	/* Ranges come in address order: the last fit is the highest. */
	if (cand >= start && cand + s->size <= end && cand >= s->found)
		s->found = cand;
}

phys_addr_t memblock_phys_alloc_range(phys_addr_t size, phys_addr_t align, phys_addr_t min_addr,
				      phys_addr_t max_addr, int nid, bool exact_nid)
{
	if (memblock.frozen) {
		pr_err("memblock: allocation of %llu bytes after the buddy allocator took over\n",
		       (unsigned long long)size);
		return 0;
	}
	if (!align)
		align = 8;
	size = ALIGN_UP(size, (phys_addr_t)8);
	/* Address 0 is never handed out, so 0 can mean failure. */
	if (min_addr < PAGE_SIZE)
		min_addr = PAGE_SIZE;
	struct alloc_search s = { size, align, min_addr, max_addr, 0, nid };
	memblock_for_each_free_range(consider_range, &s);
	if (!s.found && nid != NUMA_NO_NODE && !exact_nid) {
		s.nid = NUMA_NO_NODE;
		memblock_for_each_free_range(consider_range, &s);
	}
	if (!s.found)
		return 0;
	if (memblock_reserve(s.found, size, "memblock_alloc"))
		return 0;
	return s.found;
}

phys_addr_t memblock_phys_alloc_node(phys_addr_t size, phys_addr_t align, int nid)
{
	return memblock_phys_alloc_range(size, align, 0, ~(phys_addr_t)0, nid, false);
}

void *memblock_alloc_node(phys_addr_t size, phys_addr_t align, int nid)
{
	phys_addr_t pa = memblock_phys_alloc_node(size, align, nid);
	if (!pa)
		return NULL;
	void *p = page_address(pfn_to_page(pa >> PAGE_SHIFT));
	p = (u8 *)p + (pa & (PAGE_SIZE - 1));
	memset(p, 0, size);
	return p;
}

struct free_sum {
	int nid;
	phys_addr_t sum;
};

static void add_free(phys_addr_t start, phys_addr_t end, int nid, void *arg)
{
	struct free_sum *f = arg;
	if (f->nid == NUMA_NO_NODE || f->nid == nid)
		f->sum += end - start;
}

phys_addr_t memblock_free_bytes_node(int nid)
{
	struct free_sum f = { nid, 0 };
	memblock_for_each_free_range(add_free, &f);
	return f.sum;
}

void memblock_print(void)
{
	pr_info("memblock: %lu memory ranges (%llu MiB), %lu reserved (%llu KiB):\n",
		memblock.memory.cnt, (unsigned long long)(memblock.memory.total_size >> 20),
		memblock.reserved.cnt, (unsigned long long)(memblock.reserved.total_size >> 10));
	for (unsigned long i = 0; i < memblock.reserved.cnt; i++) {
		const struct memblock_region *r = &memblock.reserved.regions[i];
		pr_info("  reserved [%#012llx-%#012llx] %8llu KiB %s\n", (unsigned long long)r->base,
			(unsigned long long)(r->base + r->size - 1), (unsigned long long)(r->size >> 10),
			r->what ? r->what : "");
	}
}
