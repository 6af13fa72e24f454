/* The XArray (Linux's include/linux/xarray.h, lib/xarray.c): an array of
 * pointers indexed by an unsigned long, kept as a radix tree of 64-slot
 * nodes, with three marks (search tags) per entry. The page cache indexes
 * a file's pages with one (mm/filemap.c); docs/page_cache.md draws it.
 *
 * Entries, encoded in the low bits as Linux's (so a pointer the xarray
 * holds is 4-byte aligned):
 *   ...00  a pointer the user stored (NULL: nothing there);
 *   ...x1  a value entry, xa_mk_value(v): an integer of up to 63 bits;
 *   ...10  internal: a node (above 4096), a sibling (0..62), the retry
 *          entry (256), the zero entry (257) or an errno (-4095..-1).
 * A user never stores an internal entry.
 *
 * A node covers 64^(shift/6 + 1) indices: slot i of a node at shift s
 * holds the entry (or the node below) for indices
 * [base + i << s, base + (i + 1) << s). A tree of height h has its root
 * at shift 6 * (h - 1); the root may be a single entry (index 0 only) or
 * NULL. Each node keeps, per mark, a bitmap of the slots that are marked
 * or lead to a marked entry below, so a marked search skips unmarked
 * subtrees; a mark on an entry at index 0 held with no node is kept in
 * xa_flags.
 *
 * Multi-index entries (Linux's CONFIG_XARRAY_MULTI: one entry plus
 * sibling slots for an aligned range) are not built: a large folio is
 * stored once per index (Linux's page cache before multi-index folios,
 * 5.x), so the sibling encoding is reserved here and never made.
 *
 * Locking, as Linux's: writers hold xa_lock (xa_store and the other
 * normal calls take it themselves; the xas_ calls want it held, or are
 * run by the sole owner). Readers may instead hold rcu_read_lock: nodes
 * are freed after a grace period (call_rcu), and an entry moved by a
 * shrinking tree leaves XA_RETRY_ENTRY behind, so xa_load under RCU sees
 * either the old or the new entry, never freed memory. A node is
 * allocated under the lock with GFP_NOWAIT; when that fails the store
 * reports -ENOMEM in the xa_state, and xas_nomem allocates one with the
 * caller's gfp with the lock dropped (if the gfp may sleep), then the
 * caller retries. */
#ifndef LIB_XARRAY_H
#define LIB_XARRAY_H

#include "kernel/rcu.h"
#include "kernel/spinlock.h"
#include "kernel/types.h"
#include "lib/err.h"
#include "mm/gfp.h"

#ifndef ULONG_MAX
#define ULONG_MAX (~0UL)
#endif

/* Value entries: integers stored in the array, not pointers. */
static inline void *xa_mk_value(unsigned long v) { return (void *)((v << 1) | 1); }
static inline unsigned long xa_to_value(const void *entry) { return (unsigned long)entry >> 1; }
static inline bool xa_is_value(const void *entry) { return (unsigned long)entry & 1; }

/* Internal entries: the xarray's own, never a user's. */
static inline void *xa_mk_internal(unsigned long v) { return (void *)((v << 2) | 2); }
static inline unsigned long xa_to_internal(const void *entry) { return (unsigned long)entry >> 2; }
static inline bool xa_is_internal(const void *entry) { return ((unsigned long)entry & 3) == 2; }
/* An errno as an entry (what xa_store returns when it could not store). */
static inline bool xa_is_err(const void *entry)
{
	return unlikely(xa_is_internal(entry) && entry >= xa_mk_internal(-4095));
}
static inline int xa_err(void *entry)
{
	return xa_is_err(entry) ? (int)((long)entry >> 2) : 0;
}
/* Left in a slot whose entry moved (the tree shrank): a reader restarts. */
#define XA_RETRY_ENTRY xa_mk_internal(256)
/* Reserves a slot: reads as NULL, but the slot is occupied. */
#define XA_ZERO_ENTRY xa_mk_internal(257)
static inline bool xa_is_zero(const void *entry) { return entry == XA_ZERO_ENTRY; }
static inline bool xa_is_retry(const void *entry) { return entry == XA_RETRY_ENTRY; }
static inline bool xa_is_sibling(const void *entry)
{
	return xa_is_internal(entry) && entry < xa_mk_internal(63);
}
/* An internal entry that is a node: above 4096, so no sibling, retry,
 * zero or errno. */
static inline bool xa_is_node(const void *entry)
{
	return xa_is_internal(entry) && (unsigned long)entry > 4096;
}
/* Whether an entry is something other than a user's entry or NULL. */
static inline bool xa_is_advanced(const void *entry) { return xa_is_internal(entry) && entry <= XA_RETRY_ENTRY; }

typedef unsigned int xa_mark_t;
#define XA_MARK_0 ((xa_mark_t)0U)
#define XA_MARK_1 ((xa_mark_t)1U)
#define XA_MARK_2 ((xa_mark_t)2U)
#define XA_PRESENT ((xa_mark_t)8U)
#define XA_MARK_MAX XA_MARK_2
#define XA_MAX_MARKS 3

/* Above every gfp bit: the marks of an entry held at the head (no node),
 * as Linux's XA_FLAGS_MARK. */
#define XA_FLAGS_MARK_SHIFT 26
#define XA_FLAGS_MARK(mark) ((gfp_t)(1U << (XA_FLAGS_MARK_SHIFT + (mark))))
#define XA_FLAGS_MARK_MASK (XA_FLAGS_MARK(0) | XA_FLAGS_MARK(1) | XA_FLAGS_MARK(2))

struct xarray {
	spinlock_t xa_lock;
	gfp_t xa_flags;
	void *xa_head; /* NULL, an entry at index 0, or the root node */
};

#define XARRAY_INIT(name, flags) { .xa_lock = __SPIN_LOCK_UNLOCKED, .xa_flags = (flags), .xa_head = NULL }
#define DEFINE_XARRAY(name) struct xarray name = XARRAY_INIT(name, 0)

static inline void xa_init_flags(struct xarray *xa, gfp_t flags)
{
	spin_lock_init(&xa->xa_lock);
	xa->xa_flags = flags;
	xa->xa_head = NULL;
}
static inline void xa_init(struct xarray *xa) { xa_init_flags(xa, 0); }
/* Nothing stored (an xarray whose every entry was erased is empty again:
 * its nodes went). */
static inline bool xa_empty(const struct xarray *xa) { return READ_ONCE(xa->xa_head) == NULL; }
/* Whether any entry carries mark. */
static inline bool xa_marked(const struct xarray *xa, xa_mark_t mark)
{
	return xa->xa_flags & XA_FLAGS_MARK(mark);
}

/* Linux's xa_lock: Linux's page cache takes xa_lock_irq, since the end of
 * writeback clears a mark from an interrupt. Nothing here touches an
 * xarray from an interrupt, so the plain lock is all it needs. */
#define xa_lock(xa) spin_lock(&(xa)->xa_lock)
#define xa_unlock(xa) spin_unlock(&(xa)->xa_lock)
#define xa_lock_held(xa) spin_is_locked(&(xa)->xa_lock)

#define XA_CHUNK_SHIFT 6
#define XA_CHUNK_SIZE (1UL << XA_CHUNK_SHIFT)
#define XA_CHUNK_MASK (XA_CHUNK_SIZE - 1)
#define XA_MARK_LONGS ((XA_CHUNK_SIZE + 63) / 64)

/* A node (Linux's struct xa_node, radix_tree_node's cache). count: the
 * non-NULL slots; nr_values: the value entries among them; offset: its
 * slot in its parent; array: its xarray (XA_RCU_FREE once freed). */
struct xa_node {
	unsigned char shift;
	unsigned char offset;
	unsigned char count;
	unsigned char nr_values;
	struct xa_node *parent;
	struct xarray *array;
	struct rcu_head rcu_head;
	void *slots[XA_CHUNK_SIZE];
	unsigned long marks[XA_MAX_MARKS][XA_MARK_LONGS];
};

static inline struct xa_node *xa_to_node(const void *entry) { return (struct xa_node *)((unsigned long)entry - 2); }
static inline void *xa_mk_node(const struct xa_node *node) { return (void *)((unsigned long)node | 2); }

/* The normal API: each call takes xa_lock (or rcu_read_lock to read). */
void *xa_load(struct xarray *xa, unsigned long index);
/* Stores entry at index (NULL erases): the entry that was there, or an
 * errno entry (xa_err: -EINVAL for an internal entry, -ENOMEM). */
void *xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
void *__xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
/* Erases index: the entry that was there. Never allocates. */
void *xa_erase(struct xarray *xa, unsigned long index);
void *__xa_erase(struct xarray *xa, unsigned long index);
/* Stores entry only where nothing is (a reserved slot counts as something):
 * 0, -EBUSY, -ENOMEM or -EINVAL. */
int xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
int __xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
/* Stores entry if old is there: the entry that was there (old on
 * success), or an errno entry. */
void *xa_cmpxchg(struct xarray *xa, unsigned long index, void *old, void *entry, gfp_t gfp);
void *__xa_cmpxchg(struct xarray *xa, unsigned long index, void *old, void *entry, gfp_t gfp);
/* The first entry at an index in [*indexp, max] (with mark filter, or any
 * present entry: XA_PRESENT), *indexp set to its index; NULL if none. */
void *xa_find(struct xarray *xa, unsigned long *indexp, unsigned long max, xa_mark_t filter);
/* The same, from the index after *indexp (NULL if *indexp is max). */
void *xa_find_after(struct xarray *xa, unsigned long *indexp, unsigned long max, xa_mark_t filter);
bool xa_get_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);
/* Marks the entry at index (nothing if none is there). */
void xa_set_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);
void xa_clear_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);
void __xa_set_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);
void __xa_clear_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);
/* Every node goes (after a grace period) and the array is empty; the
 * entries are the caller's to free first. */
void xa_destroy(struct xarray *xa);

static inline int xa_reserve(struct xarray *xa, unsigned long index, gfp_t gfp)
{
	return xa_err(xa_cmpxchg(xa, index, NULL, XA_ZERO_ENTRY, gfp));
}
static inline void xa_release(struct xarray *xa, unsigned long index)
{
	xa_cmpxchg(xa, index, XA_ZERO_ENTRY, NULL, 0);
}

#define xa_for_each_range(xa, index, entry, start, last)                            \
	for (index = start, entry = xa_find(xa, &index, last, XA_PRESENT); entry;    \
	     entry = xa_find_after(xa, &index, last, XA_PRESENT))
#define xa_for_each_start(xa, index, entry, start) xa_for_each_range(xa, index, entry, start, ULONG_MAX)
#define xa_for_each(xa, index, entry) xa_for_each_start(xa, index, entry, 0)
#define xa_for_each_marked(xa, index, entry, filter)                                 \
	for (index = 0, entry = xa_find(xa, &index, ULONG_MAX, filter); entry;        \
	     entry = xa_find_after(xa, &index, ULONG_MAX, filter))

/* The advanced API (Linux's xa_state): a cursor into one xarray, carrying
 * where the last operation left it and any error, so a sequence of calls
 * under one lock walks the tree once. xa_node is a node, NULL (the entry
 * is at the head), or one of the special values below; xa_alloc holds
 * nodes xas_nomem allocated for the next store (a chain through
 * ->parent). */
struct xa_state {
	struct xarray *xa;
	unsigned long xa_index;
	unsigned char xa_shift;
	unsigned char xa_sibs;
	unsigned char xa_offset;
	unsigned char xa_pad;
	struct xa_node *xa_node;
	struct xa_node *xa_alloc;
};

#define XA_ERROR(errno) ((struct xa_node *)(((unsigned long)(errno) << 2) | 2UL))
#define XAS_BOUNDS ((struct xa_node *)1UL)  /* past the end of the walk */
#define XAS_RESTART ((struct xa_node *)3UL) /* walk again from the head */

#define __XA_STATE(array, index, shift, sibs)                                             \
	{ .xa = array, .xa_index = index, .xa_shift = shift, .xa_sibs = sibs, .xa_offset = 0, \
	  .xa_pad = 0, .xa_node = XAS_RESTART, .xa_alloc = NULL }
#define XA_STATE(name, array, index) struct xa_state name = __XA_STATE(array, index, 0, 0)

#define xas_lock(xas) xa_lock((xas)->xa)
#define xas_unlock(xas) xa_unlock((xas)->xa)

static inline int xas_error(const struct xa_state *xas) { return xa_err(xas->xa_node); }
static inline void xas_set_err(struct xa_state *xas, long err) { xas->xa_node = XA_ERROR(err); }
static inline bool xas_invalid(const struct xa_state *xas) { return (unsigned long)xas->xa_node & 3; }
static inline bool xas_valid(const struct xa_state *xas) { return !xas_invalid(xas); }
static inline bool xas_is_node(const struct xa_state *xas) { return xas_valid(xas) && xas->xa_node; }
/* Back to the head: the next call walks again from the top. */
static inline void xas_reset(struct xa_state *xas) { xas->xa_node = XAS_RESTART; }
/* A new index (any error forgotten). */
static inline void xas_set(struct xa_state *xas, unsigned long index)
{
	xas->xa_index = index;
	xas->xa_node = XAS_RESTART;
}
static inline bool xas_retry(struct xa_state *xas, const void *entry)
{
	if (xa_is_zero(entry))
		return true;
	if (!xa_is_retry(entry))
		return false;
	xas_reset(xas);
	return true;
}

/* The entry at xas's index (NULL if none), xas left at its slot. */
void *xas_load(struct xa_state *xas);
/* Stores entry at xas's index (allocating nodes; an error in xas if that
 * failed): the entry that was there. Storing NULL erases, clears the
 * entry's marks and frees nodes left empty. */
void *xas_store(struct xa_state *xas, void *entry);
/* After a -ENOMEM in xas: allocates a node with gfp for the retry and
 * returns true; false when there was nothing to retry (the spare nodes
 * are freed then) or the allocation failed too (xas keeps -ENOMEM). */
bool xas_nomem(struct xa_state *xas, gfp_t gfp);
/* The same, called with xa_lock held: drops it around a sleeping
 * allocation. */
bool __xas_nomem(struct xa_state *xas, gfp_t gfp);
/* Frees the nodes xas_nomem allocated and no store used. */
void xas_destroy(struct xa_state *xas);
/* The first present entry at an index in [xas->xa_index, max] (from the
 * index after the last one found, on a later call); NULL when none, with
 * xas past the end (XAS_BOUNDS). */
void *xas_find(struct xa_state *xas, unsigned long max);
/* The same for entries carrying mark. */
void *xas_find_marked(struct xa_state *xas, unsigned long max, xa_mark_t mark);
/* The entry at the next index (xas_load of xa_index + 1), walking across
 * node boundaries without going back to the head. */
void *xas_next(struct xa_state *xas);
bool xas_get_mark(const struct xa_state *xas, xa_mark_t mark);
/* Marks the entry xas is at, and the path to it; xas must be at an
 * entry (xas_load first). */
void xas_set_mark(const struct xa_state *xas, xa_mark_t mark);
void xas_clear_mark(const struct xa_state *xas, xa_mark_t mark);
/* Clears every mark of the entry xas is at. */
void xas_init_marks(const struct xa_state *xas);
/* Lets the caller drop the lock in a walk: the next xas_find goes on
 * from the index after this one. */
void xas_pause(struct xa_state *xas);
/* The entry at xas's slot again (for a check after taking a reference). */
static inline void *xas_reload(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;
	if (node)
		return rcu_dereference(node->slots[xas->xa_offset]);
	return rcu_dereference(xas->xa->xa_head);
}

#define xas_for_each(xas, entry, max)                                                \
	for (entry = xas_find(xas, max); entry; entry = xas_find(xas, max))
#define xas_for_each_marked(xas, entry, max, mark)                                  \
	for (entry = xas_find_marked(xas, max, mark); entry; entry = xas_find_marked(xas, max, mark))

/* The node cache (Linux's radix_tree_init): at boot, after the slab. */
void radix_tree_init(void);
/* Nodes allocated and not yet freed, those waiting for their grace
 * period included (tests: every node comes back). */
unsigned long xa_nodes_in_use(void);
/* Nodes out of their tree, waiting for their grace period to be freed
 * (tests wait for them: rcu_barrier). */
unsigned long xa_nodes_rcu_pending(void);

#endif
