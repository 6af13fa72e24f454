/* struct page: one per 4 KiB page frame of RAM, 64 bytes at most, kept in the
 * virtually contiguous vmemmap so that pfn <-> page is an addition.
 *
 * The vmemmap is populated per 128 MiB section, only for sections that hold
 * RAM, with each section's struct pages on the section's own node;
 * pfn_valid() says whether a pfn has a struct page. Pfns inside a populated
 * section that are not RAM are PG_reserved forever.
 *
 * What the union holds depends on the page's use:
 *  - free in the buddy allocator (PG_buddy): lru links it into a free list,
 *    private is the order of the free block it heads;
 *  - free in a per-CPU list (PG_pcp): lru links it there;
 *  - allocated with order > 0 (PG_head): private is the allocation order,
 *    checked when it is freed;
 *  - a user page (anonymous, mapped by user page tables: a 4 KiB page or
 *    the head of a THP): mapping names its anon_vma (mm/rmap.h) with the
 *    PAGE_MAPPING_ANON bit set, index its page offset (linear_page_index),
 *    both set when it is first mapped and cleared when its last mapping
 *    goes; private stays a THP head's order; _user_lru links it into its
 *    node's LRU lists while PG_lru (a THP by its head only);
 *  - a slab (PG_slab): the slab fields;
 *  - a page-table page (PG_table): a reference count and a back-pointer to
 *    the PMD entry that maps it (used by the refcounted PTE tables), and
 *    the table's split PTE lock (Linux's ptdesc->ptl with
 *    USE_SPLIT_PTE_PTLOCKS and ALLOC_SPLIT_PTLOCKS off: it fits in place). */
#ifndef MM_PAGE_H
#define MM_PAGE_H

#include "lib/list.h"
#include "kernel/spinlock.h"
#include "kernel/types.h"

#define PAGE_SHIFT 12
#define PAGE_SIZE (1ul << PAGE_SHIFT)

enum pageflags {
	PG_reserved,  /* never handed to the buddy allocator (holes, kernel, firmware) */
	PG_buddy,     /* heads a free block in a buddy free list */
	PG_pcp,       /* free, in a per-CPU list */
	PG_head,      /* first page of an allocation of order > 0 */
	PG_slab,      /* owned by the slab allocator */
	PG_table,     /* a page-table page */
	PG_large_kmalloc, /* a kmalloc too big for the slabs */
	PG_bad,       /* failed a bad-page check: out of circulation */
	PG_hugetlb,   /* heads a page of a hugetlb pool in use (mm/hugetlb.h) */
	PG_hugetlb_tail, /* another page of one: private is its distance to the head */
	PG_anon_thp,  /* heads an order-9 anonymous page mapped as a THP (mm/rmap.h) */
	PG_anon_tail, /* another page of one whose pages are mapped one by one too:
		       * private is its distance to the head */
	PG_shmem_thp, /* heads an order-9 page in a tmpfs file's page cache (mm/shmem_huge.c) */
	PG_shmem_tail, /* another page of one: private is its distance to the head */
	/* Reclaim's (Linux's names and meanings; mm/mm_inline.h, mm/swap.c):
	 * a user page (4 KiB, or a THP's head, one entry for the whole) */
	PG_lru,        /* on its node's LRU lists (_user_lru links it) */
	PG_active,     /* on an active list, not an inactive one */
	PG_referenced, /* referenced once since it was last aged (folio_mark_accessed) */
	PG_unevictable, /* on the unevictable "list" (counted, not linked: mlocked) */
	PG_swapbacked, /* backed by swap, not a file: anonymous and tmpfs pages,
			* on the anon lists as Linux's (folio_is_file_lru) */
	PG_mlocked,    /* mapped by a VM_LOCKED VMA (mm/mlock.c) */
	PG_swapcache,  /* in the swap cache (mm/swap_state.h): private is its swap entry */
	PG_dirty,      /* a swap-cache page whose data its slot does not hold yet: it
			* must be written before it may go (Linux's PG_dirty, for the
			* swap cache only: mmlab has no other page to write back) */
	PG_readahead,  /* read ahead of a swap-in fault, not used since (Linux's
			* PG_readahead, mm/swap_readahead.c) */
	PG_workingset, /* was active when last deactivated: its refault is a
			* restore (Linux's PG_workingset, mm/workingset.c) */
	PG_poison_kept, /* allocated __GFP_UNTOUCHED with page poisoning on: the
			 * block still holds the last free's pattern, which its
			 * free leaves for the next allocation to check (mm/gfp.h) */
	NR_PAGEFLAGS
};

/* The node id lives in the top bits of flags, as in Linux. */
#define NODES_PGSHIFT 56
#define PAGE_FLAGS_MASK ((1ul << NODES_PGSHIFT) - 1)

struct kmem_cache;

struct page {
	unsigned long flags;
	union {
		struct { /* buddy, per-CPU lists, allocated compound heads */
			struct list_head lru;
			unsigned long private;
		};
		struct { /* a user page: Linux's folio->mapping and ->index */
			unsigned long _user_lru[2]; /* lru: on an LRU list (PG_lru,
						     * mm/mm_inline.h); on the
						     * unevictable one [1] holds
						     * the mlock_count, as Linux 6.1 */
			unsigned long _user_private; /* private (a THP head's order) */
			union {
				void *mapping;      /* anon_vma | PAGE_MAPPING_ANON */
				int compound_mapcount; /* a THP's second page: its PMD
							* mappings - 1 (Linux's
							* folio_entire_mapcount) */
			};
			union {
				unsigned long index; /* page offset in the anonymous range */
				int nr_pages_mapped; /* a THP's second page: its 4 KiB
						      * pages mapped by PTEs (Linux's
						      * folio->_nr_pages_mapped) */
			};
		};
		struct { /* slab (every page of it; see mm/slab.c), laid out as
			  * Linux's struct slab: five words */
			struct kmem_cache *slab_cache;
			struct list_head slab_list; /* head: in its cache node's lists */
			void *freelist;             /* head: the first free object */
			unsigned short inuse, objects; /* head; a tail page has objects == 0 */
			union {
				unsigned int slab_pad;      /* tail: its distance from the head */
				unsigned int slab_free_map; /* head of a slab of at most 32
							     * objects: bit i set while
							     * object i is free */
			};
		};
		struct { /* page-table page */
			unsigned long pt_pad[2]; /* room for an rcu_head (the RCU free of tables) */
			void *pmd;            /* the PMD entry that maps this PTE table */
			int pt_refcount;      /* non-none entries + walkers */
			int pt_pad2;          /* free: the pt_share count may go here */
			spinlock_t ptl;       /* the PTE lock of this table (ptlock_ptr) */
		};
	};
	int _refcount;
	int _mapcount; /* -1: not mapped in any user page table */
	unsigned long freed_by; /* return address of the last free, for reports */
};

/* 64 bytes, no more and no less: a power of two, so the struct pages of a
 * 128 MiB section fill exactly one 2 MiB page of the vmemmap. The union is
 * five words (the slab's), as in Linux; there is no spare room left. */
_Static_assert(sizeof(struct page) == 64, "struct page must be 64 bytes");
_Static_assert(sizeof(spinlock_t) == sizeof(unsigned long), "the PTE lock takes one word");

static inline bool page_test_flag(const struct page *p, enum pageflags f) { return p->flags >> f & 1; }
static inline void page_set_flag(struct page *p, enum pageflags f) { p->flags |= 1ul << f; }
static inline void page_clear_flag(struct page *p, enum pageflags f) { p->flags &= ~(1ul << f); }

#define PageReserved(p) page_test_flag(p, PG_reserved)
#define PageBuddy(p) page_test_flag(p, PG_buddy)
#define PageHead(p) page_test_flag(p, PG_head)
#define PageSlab(p) page_test_flag(p, PG_slab)
#define PageTable(p) page_test_flag(p, PG_table)
#define PageHugetlb(p) page_test_flag(p, PG_hugetlb)
#define PageHugetlbTail(p) page_test_flag(p, PG_hugetlb_tail)

/* The head of the hugetlb page or THP that page is part of, else page
 * itself (Linux's compound_head, for the kinds of page mmlab shares as a
 * whole: mm/hugetlb.h, a THP whose 4 KiB pages are mapped one by one
 * somewhere, mm/rmap.h, and a huge page of a tmpfs file, mm/shmem_huge.c). */
static inline struct page *compound_head(struct page *page)
{
	return page->flags & ((1ul << PG_hugetlb_tail) | (1ul << PG_anon_tail) | (1ul << PG_shmem_tail))
		       ? page - page->private
		       : page;
}

/* The PMDs mapping a tmpfs huge page (PG_shmem_thp on head), kept in the
 * second page's first lru word: free in a tail page, whose mapping and
 * index are its own page-cache ones (mm/shmem_huge.c). */
static inline long *shmem_thp_pmd_mapcount_ptr(struct page *head) { return (long *)&head[1]._user_lru[0]; }
/* Its pages mapped by at least one PTE, plus SHMEM_THP_COMPOUND_MAPPED
 * while a PMD maps it (Linux's folio->_nr_pages_mapped), in the second
 * lru word: what Mapped counts (mm/shmem.c). */
#define SHMEM_THP_COMPOUND_MAPPED 0x800000l
static inline long *shmem_thp_nr_pages_mapped_ptr(struct page *head) { return (long *)&head[1]._user_lru[1]; }

static inline int page_to_nid(const struct page *p) { return (int)(p->flags >> NODES_PGSHIFT); }
static inline void set_page_node(struct page *p, int nid)
{
	p->flags = (p->flags & PAGE_FLAGS_MASK) | ((unsigned long)nid << NODES_PGSHIFT);
}
static inline int page_ref_count(const struct page *p) { return p->_refcount; }
static inline void set_page_count(struct page *p, int v) { p->_refcount = v; }
/* A reference to the whole page p is part of (a hugetlb page, a THP). */
static inline void get_page(struct page *p) { __atomic_add_fetch(&compound_head(p)->_refcount, 1, __ATOMIC_RELAXED); }
/* Linux's get_page_unless_zero (folio_try_get): a reference on p itself
 * unless its count is zero (free in the buddy or per-CPU lists, or its
 * last reference going). */
static inline bool get_page_unless_zero(struct page *p)
{
	int c = __atomic_load_n(&p->_refcount, __ATOMIC_RELAXED);
	do {
		if (c <= 0)
			return false;
	} while (!__atomic_compare_exchange_n(&p->_refcount, &c, c + 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	return true;
}

/* Sections: the granularity at which the vmemmap is populated. */
#define SECTION_SIZE_BITS 27 /* 128 MiB */
#define PFN_SECTION_SHIFT (SECTION_SIZE_BITS - PAGE_SHIFT)
#define PAGES_PER_SECTION (1ul << PFN_SECTION_SHIFT)
#define MAX_PHYSMEM_BITS 46
#define NR_MEM_SECTIONS (1ul << (MAX_PHYSMEM_BITS - SECTION_SIZE_BITS))

extern u8 mem_section_present[NR_MEM_SECTIONS / 8];

static inline bool pfn_valid(unsigned long pfn)
{
	unsigned long s = pfn >> PFN_SECTION_SHIFT;
	return s < NR_MEM_SECTIONS && (mem_section_present[s / 8] >> (s % 8) & 1);
}

/* Where the vmemmap and the direct map are is the architecture's
 * (arch/x86_64/page.h; host builds put both in the shim's buffers). */
#include "arch/x86_64/page.h"
#define vmemmap ((struct page *)VMEMMAP_START)
static inline void *page_address(const struct page *p)
{
	return __va((phys_addr_t)(p - vmemmap) << PAGE_SHIFT);
}
/* For direct-map and kernel-image addresses. */
static inline struct page *virt_to_page(const void *v) { return vmemmap + (__pa(v) >> PAGE_SHIFT); }

/* As unsigned addresses, not a pointer difference: a logical shift, which
 * folds into the shift of a pageblock or section index (pfn >> k). */
static inline unsigned long page_to_pfn(const struct page *p)
{
	return ((unsigned long)p - (unsigned long)vmemmap) / sizeof(struct page);
}
static inline struct page *pfn_to_page(unsigned long pfn) { return vmemmap + pfn; }
/* The physical address of the frame (what a page-table entry holds). */
static inline phys_addr_t page_to_phys(const struct page *p) { return (phys_addr_t)page_to_pfn(p) << PAGE_SHIFT; }

#endif
