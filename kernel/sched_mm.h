/* The allocation scope API (Linux's include/linux/sched/mm.h, Michal
 * Hocko's scope API of 4.11-4.12: commits 7dea19f9ee63 "mm: introduce
 * memalloc_nofs_{save,restore} API" and 1682e1b9 (noio), documented in
 * Documentation/core-api/gfp_mask-from-fs-io.rst).
 *
 * A task marks a section "no file system" (memalloc_nofs_save) or "no I/O"
 * (memalloc_noio_save); every allocation inside it, whatever gfp its
 * caller passed, is treated as GFP_NOFS / GFP_NOIO by the page allocator's
 * slow path before it reclaims (current_gfp_context), so code that cannot
 * pass a gfp down (page-table allocation, library code) is still safe.
 * memalloc_noreclaim_save marks the reclaimer itself (PF_MEMALLOC): no
 * direct reclaim from inside it.
 *
 * Nesting: save returns the previous state of its flag, restore puts that
 * back, so pairs nest (an inner restore does not end an outer scope).
 * The flags are the current task's own: only it reads or writes them, so
 * no lock. NOIO is the stronger: it implies NOFS. */
#ifndef KERNEL_SCHED_MM_H
#define KERNEL_SCHED_MM_H

#include "kernel/sched.h"
#include "mm/gfp.h"

/* Before the scheduler has a current task, there is no scope. */
static inline unsigned int current_pflags(void)
{
	struct task_struct *t = current;
	return t ? READ_ONCE(t->flags) : 0;
}

static inline gfp_t current_gfp_context(gfp_t flags)
{
	unsigned int pflags = current_pflags();
	if (unlikely(pflags & (PF_MEMALLOC_NOIO | PF_MEMALLOC_NOFS))) {
		if (pflags & PF_MEMALLOC_NOIO)
			flags &= ~(__GFP_IO | __GFP_FS);
		else
			flags &= ~__GFP_FS;
	}
	return flags;
}

/* Linux's memalloc_flags_save/restore: the bits of flags that were clear
 * are set, and returned so that restore clears only those. */
static inline unsigned int memalloc_flags_save(unsigned int flags)
{
	struct task_struct *t = current;
	if (!t)
		return 0;
	unsigned int old = ~t->flags & flags;
	t->flags |= flags;
	return old;
}

static inline void memalloc_flags_restore(unsigned int old)
{
	struct task_struct *t = current;
	if (t)
		t->flags &= ~old;
}

static inline unsigned int memalloc_nofs_save(void) { return memalloc_flags_save(PF_MEMALLOC_NOFS); }
static inline void memalloc_nofs_restore(unsigned int flags) { memalloc_flags_restore(flags); }
static inline unsigned int memalloc_noio_save(void) { return memalloc_flags_save(PF_MEMALLOC_NOIO); }
static inline void memalloc_noio_restore(unsigned int flags) { memalloc_flags_restore(flags); }
/* Linux's current_is_kswapd. */
static inline bool current_is_kswapd(void) { return current_pflags() & PF_KSWAPD; }
static inline unsigned int memalloc_noreclaim_save(void) { return memalloc_flags_save(PF_MEMALLOC); }
static inline void memalloc_noreclaim_restore(unsigned int flags) { memalloc_flags_restore(flags); }

/* The scope that makes allocations which cannot take a gfp (page tables)
 * behave as gfp asks: Linux 7.0's memalloc_apply_gfp_scope (Uladzislau
 * Rezki's "support non-blocking GFP flags" series; before it, 5.17's
 * __vmalloc_area_node had the nofs/noio part inline, from Michal Hocko's series):
 * non-blocking -> noreclaim, NOFS -> nofs, NOIO -> noio. Returns a cookie
 * for memalloc_restore_scope (0: nothing applied). */
static inline unsigned int memalloc_apply_gfp_scope(gfp_t gfp)
{
	if (!gfpflags_allow_blocking(gfp))
		return memalloc_noreclaim_save();
	if ((gfp & (__GFP_FS | __GFP_IO)) == __GFP_IO)
		return memalloc_nofs_save();
	if ((gfp & (__GFP_FS | __GFP_IO)) == 0)
		return memalloc_noio_save();
	return 0;
}

static inline void memalloc_restore_scope(unsigned int flags)
{
	if (flags)
		memalloc_flags_restore(flags);
}

#endif
