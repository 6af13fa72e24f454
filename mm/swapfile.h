/* Swap areas (Linux 6.1's mm/swapfile.c and the swap parts of
 * include/linux/swap.h and swapops.h): a block device given to swapon(2)
 * whose first page holds Linux's swap header (mkswap's), and the map of
 * its slots, one byte per page of the area.
 *
 * A swap entry (swp_entry_t) names one slot: the area's type (its index
 * in swap_info[], 0..MAX_SWAPFILES-1) and the page offset in the area;
 * offset 0 is the header, never handed out. swap_map[offset] is the
 * number of references to the slot (page-table entries, a tmpfs file's
 * page-cache entry: mm/shmem_swap.c) plus SWAP_HAS_CACHE while a page of
 * the swap cache holds the slot's data; past SWAP_MAP_MAX the count goes
 * on in continuation pages (COUNT_CONTINUED: mm/swapfile_cont.c); 0 is a
 * free slot, SWAP_MAP_BAD one never used (the header, the header's bad
 * pages).
 *
 * Locking: swap_lock, one spinlock for every area's fields and maps
 * (Linux has swap_lock for the list of areas, si->lock per area and a
 * lock per cluster of 256 slots: mmlab's areas are small and few). It is
 * never held across I/O or an allocation that may sleep. */
#ifndef MM_SWAPFILE_H
#define MM_SWAPFILE_H

#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/types.h"
#include "mm/gfp.h"

struct block_device;
struct file;

/* Linux's swp_entry_t: the type in the top MAX_SWAPFILES_SHIFT bits of an
 * xarray value (58..62), the offset below (include/linux/swapops.h). The
 * page-table form is the architecture's (arch/x86_64/pgtable.h). */
typedef struct {
	unsigned long val;
} swp_entry_t;

#define MAX_SWAPFILES_SHIFT 5
#define SWP_TYPE_SHIFT (63 - MAX_SWAPFILES_SHIFT)
#define SWP_OFFSET_MASK ((1ul << SWP_TYPE_SHIFT) - 1)
/* Linux 6.1 keeps the top types of the 32 for its special entries
 * (device-private 4, migration 3, hwpoison 1, PTE marker 1, with
 * Debian's configuration): 23 areas. mmlab's migration entries are not
 * swap entries (arch/x86_64/pgtable.h), but the limit is Linux's. */
#define MAX_SWAPFILES 23

static inline swp_entry_t swp_entry(unsigned long type, unsigned long offset)
{
	return (swp_entry_t){ (type << SWP_TYPE_SHIFT) | (offset & SWP_OFFSET_MASK) };
}
static inline unsigned int swp_type(swp_entry_t entry) { return (unsigned int)(entry.val >> SWP_TYPE_SHIFT); }
static inline unsigned long swp_offset(swp_entry_t entry) { return entry.val & SWP_OFFSET_MASK; }

/* swapon(2)'s flags (include/linux/swap.h). */
#define SWAP_FLAG_PREFER 0x8000
#define SWAP_FLAG_PRIO_MASK 0x7fff
#define SWAP_FLAG_PRIO_SHIFT 0
#define SWAP_FLAG_DISCARD 0x10000
#define SWAP_FLAG_DISCARD_ONCE 0x20000
#define SWAP_FLAG_DISCARD_PAGES 0x40000
#define SWAP_FLAGS_VALID \
	(SWAP_FLAG_PRIO_MASK | SWAP_FLAG_PREFER | SWAP_FLAG_DISCARD | SWAP_FLAG_DISCARD_ONCE | SWAP_FLAG_DISCARD_PAGES)

/* The header in the area's first page (Linux's union swap_header, as
 * mkswap writes it): bootbits, then version 1, last_page (the area's last
 * usable page), nr_badpages and badpages[], and the magic in the page's
 * last 10 bytes. */
#define SWAP_HEADER_PAGE_SIZE 4096
#define MAX_SWAP_BADPAGES ((SWAP_HEADER_PAGE_SIZE - 1024 - 512 - 10) / sizeof(u32))
union swap_header {
	struct {
		char reserved[SWAP_HEADER_PAGE_SIZE - 10];
		char magic[10]; /* "SWAPSPACE2" */
	} magic;
	struct {
		char bootbits[1024];
		u32 version;
		u32 last_page;
		u32 nr_badpages;
		unsigned char sws_uuid[16];
		unsigned char sws_volume[16];
		u32 padding[117];
		u32 badpages[1];
	} info;
};

/* swap_map's values (include/linux/swap.h). */
#define SWAP_MAP_MAX 0x3e  /* the most references a slot can count */
#define SWAP_MAP_BAD 0x3f  /* never used */
#define SWAP_HAS_CACHE 0x40 /* a swap-cache page holds the slot */
#define COUNT_CONTINUED 0x80 /* the count goes on in continuation pages (mm/swapfile_cont.c) */
#define SWAP_CONT_MAX 0x7f   /* the most a continuation page's byte counts */

/* si->flags (Linux's). */
enum {
	SWP_USED = 1 << 0,    /* the slot in swap_info[] is taken */
	SWP_WRITEOK = 1 << 1, /* on: slots may be handed out */
	SWP_SOLIDSTATE = 1 << 4, /* its disk is not rotational (bdev_nonrot) */
	SWP_BLKDEV = 1 << 6,  /* a block device (mmlab takes nothing else) */
};

/* Linux's struct swap_info_struct, the fields mmlab uses. Under
 * swap_lock but bdev, swap_file and swap_map's pointer, which are set
 * before SWP_WRITEOK and kept until swapoff is done with the area. */
struct swap_info_struct {
	unsigned long flags;
	signed short prio;          /* higher areas are used first */
	signed char type;           /* index in swap_info[] */
	unsigned int max;           /* slots, the header's included */
	unsigned char *swap_map;    /* one count per slot (vzalloc'd) */
	unsigned int lowest_bit;    /* the lowest slot that may be free */
	unsigned int highest_bit;   /* the highest */
	unsigned int pages;         /* usable slots: max - 1 - bad ones */
	unsigned int inuse_pages;   /* slots in use */
	unsigned int cluster_next;  /* where the next search starts */
	unsigned int gen;           /* which swapon this is (a task's run of slots names it) */

	struct block_device *bdev;
	struct file *swap_file;     /* what swapon opened (closed by swapoff) */
	/* Count continuations (mm/swapfile_cont.c): a list of pages per
	 * page of swap_map (next NULL: none yet), and how many pages. */
	struct list_head *cont_heads;
	unsigned long cont_pages;
};

extern spinlock_t swap_lock;
extern struct swap_info_struct *swap_info[MAX_SWAPFILES];
/* Free usable slots of every area that is on (Linux's nr_swap_pages). */
extern long nr_swap_pages;
/* Usable slots of every area that is on (mm/vmscan.c's, Linux's). */
extern long total_swap_pages;

/* Linux's vm_swap_full: more than half the swap in use (swap-in then
 * frees a slot it may, rather than keep the page's copy there). */
static inline bool vm_swap_full(void)
{
	return READ_ONCE(nr_swap_pages) * 2 < READ_ONCE(total_swap_pages);
}

/* swapon(2) and swapoff(2) of a kernel path, past the flags and
 * capability checks (for the kernel's tests): 0 or -errno. */
long ksys_swapon(const char *name, int swap_flags);
long ksys_swapoff(const char *name);

/* The number of swap areas that are on, and si_swapinfo's pair (pages):
 * free and total slots, an area being turned off counted as Linux does
 * (its slots still in use are neither free nor gone yet). */
void si_swapinfo(unsigned long *freeswap, unsigned long *totalswap);
unsigned int nr_swapfiles_on(void);

/* Linux's get_swap_pages for one page: a free slot of the highest
 * priority area that has one (areas of equal priority in turn), marked
 * SWAP_HAS_CACHE; {0} when there is none. Cheap, never sleeps. mmlab's
 * search is Linux's scan_swap_map_slots without clusters: first free
 * slot from cluster_next (Linux 6.1 keeps per-CPU clusters of 256 slots
 * on a non-rotational disk; a virtio disk is rotational to it), taken a
 * run of SWAP_SLOTS_CACHE_SIZE (64) slots per task at a time, as Linux's
 * per-CPU slot cache takes its batches: the pages one reclaimer swaps out
 * in a row get slots in a row on the disk, where readahead finds them
 * together, however many reclaimers (kswapd of each node, direct
 * reclaim) swap at once. Per task, not per CPU: mmlab's swap-out sleeps
 * on each write, and another reclaimer on the CPU runs meanwhile. Unlike
 * Linux's cache, the run holds no slot: a slot is taken only when handed
 * out. */
swp_entry_t get_swap_page(void);
/* The slot's count: references, and SWAP_HAS_CACHE (for tests and
 * /proc); 0 for an entry of no area that is on. */
unsigned char swap_count_of(swp_entry_t entry);
/* Linux's swap_duplicate: one reference more (fork copying an entry,
 * swap-out's each mapping): past SWAP_MAP_MAX the count goes on in a
 * continuation page, added with GFP_ATOMIC when needed. 0, -ENOMEM when
 * that page cannot be had (fork then adds one with GFP_KERNEL outside
 * its locks and tries again: add_swap_count_continuation), -ENOENT for a
 * free slot, -EINVAL for a bad entry. */
int swap_duplicate(swp_entry_t entry);
/* Linux's add_swap_count_continuation: a continuation page for entry's
 * slot (of gfp, allocated before swap_lock is taken) when its count is
 * at a maximum and none has room: 0 (added, or not needed any more), or
 * -ENOMEM. mm/swapfile_cont.c. */
int add_swap_count_continuation(swp_entry_t entry, gfp_t gfp);
/* Linux's swp_swapcount: the references to entry's slot, continuations
 * included (smaps' SwapPss divides by it); 0 for a free or bad one. */
unsigned long swp_swapcount(swp_entry_t entry);
/* mm/swapfile_cont.c's side of swapfile.c, under swap_lock: the count
 * byte count (SWAP_MAP_MAX to increment, or COUNT_CONTINUED or
 * SWAP_MAP_MAX | COUNT_CONTINUED) carried into or borrowed from the
 * continuation pages (Linux's swap_count_continued): for an increment,
 * whether it was (false: a page more is needed); for a decrement,
 * whether a higher digit is still non-zero. The heads' array made at
 * swapon, every page freed at swapoff. */
bool swap_count_continued_locked(struct swap_info_struct *si, unsigned long offset, unsigned char count);
int alloc_swap_count_heads(struct swap_info_struct *si);
void free_swap_count_continuations(struct swap_info_struct *si);
/* Linux's swapcache_prepare: SWAP_HAS_CACHE taken for a swap-in (0), or
 * -EEXIST when a swap-cache page holds it already, -ENOENT when free. */
int swapcache_prepare(swp_entry_t entry);
/* One reference fewer (swap_free), SWAP_HAS_CACHE dropped
 * (put_swap_folio); the slot is free when both are gone. */
void swap_free(swp_entry_t entry);
void put_swap_folio(swp_entry_t entry);
/* The area of an entry that is on (SWP_WRITEOK or being turned off), or
 * NULL (Linux's get_swap_device, without its percpu reference: an area
 * is kept by the swap entries that name it, which swapoff takes back
 * before it frees the area). */
struct swap_info_struct *swp_swap_info(swp_entry_t entry);

/* The mms that may hold swap entries (Linux's init_mm.mmlist): mm joins
 * when reclaim or fork puts its first entry there, and leaves at its
 * teardown (mmput). swapoff visits each. */
struct mm_struct;
void swap_mmlist_add(struct mm_struct *mm);
void swap_mmlist_del(struct mm_struct *mm);
/* swapoff's: every page of area type (off already) back in memory and
 * every slot free (mm/swap_unuse.c): 0, -ENOMEM, -EINTR or -EBUSY. */
int try_to_unuse(unsigned int type);

#endif
