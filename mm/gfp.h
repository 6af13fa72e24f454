/* GFP ("get free pages") flags with Linux's bit values (Linux 5.15-6.1), so
 * that a mode printed by mmlab reads the same as one printed by Linux. */
#ifndef MM_GFP_H
#define MM_GFP_H

#include "kernel/types.h"

typedef unsigned int gfp_t;

#define ___GFP_DMA 0x01u
#define ___GFP_HIGHMEM 0x02u
#define ___GFP_DMA32 0x04u
#define ___GFP_MOVABLE 0x08u
#define ___GFP_RECLAIMABLE 0x10u
#define ___GFP_HIGH 0x20u
#define ___GFP_IO 0x40u
#define ___GFP_FS 0x80u
#define ___GFP_ZERO 0x100u
#define ___GFP_ATOMIC 0x200u
#define ___GFP_DIRECT_RECLAIM 0x400u
#define ___GFP_KSWAPD_RECLAIM 0x800u
#define ___GFP_WRITE 0x1000u
#define ___GFP_NOWARN 0x2000u
#define ___GFP_RETRY_MAYFAIL 0x4000u
#define ___GFP_NOFAIL 0x8000u
#define ___GFP_NORETRY 0x10000u
#define ___GFP_MEMALLOC 0x20000u
#define ___GFP_COMP 0x40000u
#define ___GFP_NOMEMALLOC 0x80000u
#define ___GFP_HARDWALL 0x100000u
#define ___GFP_THISNODE 0x200000u
#define ___GFP_ACCOUNT 0x400000u
#define ___GFP_UNTOUCHED 0x800000u

#define __GFP_DMA ((gfp_t)___GFP_DMA)
#define __GFP_HIGHMEM ((gfp_t)___GFP_HIGHMEM)
#define __GFP_DMA32 ((gfp_t)___GFP_DMA32)
#define __GFP_MOVABLE ((gfp_t)___GFP_MOVABLE)
#define __GFP_RECLAIMABLE ((gfp_t)___GFP_RECLAIMABLE)
#define __GFP_HIGH ((gfp_t)___GFP_HIGH)   /* may dip into the reserves below min */
#define __GFP_IO ((gfp_t)___GFP_IO)       /* may start I/O */
#define __GFP_FS ((gfp_t)___GFP_FS)       /* may call into the file system */
#define __GFP_ZERO ((gfp_t)___GFP_ZERO)   /* return zeroed memory */
#define __GFP_ATOMIC ((gfp_t)___GFP_ATOMIC)
#define __GFP_DIRECT_RECLAIM ((gfp_t)___GFP_DIRECT_RECLAIM) /* may reclaim (and sleep) */
#define __GFP_KSWAPD_RECLAIM ((gfp_t)___GFP_KSWAPD_RECLAIM)
#define __GFP_RECLAIM (__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM)
#define __GFP_NOWARN ((gfp_t)___GFP_NOWARN)           /* no failure message */
#define __GFP_RETRY_MAYFAIL ((gfp_t)___GFP_RETRY_MAYFAIL) /* retry hard, then fail */
#define __GFP_NOFAIL ((gfp_t)___GFP_NOFAIL)           /* never fail: retry forever */
#define __GFP_NORETRY ((gfp_t)___GFP_NORETRY)         /* one light reclaim, then fail */
#define __GFP_COMP ((gfp_t)___GFP_COMP)
#define __GFP_NOMEMALLOC ((gfp_t)___GFP_NOMEMALLOC)
#define __GFP_HARDWALL ((gfp_t)___GFP_HARDWALL)
#define __GFP_THISNODE ((gfp_t)___GFP_THISNODE)       /* this node or nothing */
#define __GFP_ACCOUNT ((gfp_t)___GFP_ACCOUNT)
/* mmlab's: the caller will neither read nor write the pages (a test that
 * takes memory away to see what its absence does). With page poisoning on,
 * the pattern the last free wrote stays as it is: not checked now, not
 * written again when the pages are freed, checked by the next allocation
 * without this flag, so a write to them while they were free is still
 * found. Filling and checking a node's worth of memory that nobody touches
 * is most of a poisoned machine's time under emulation. The same shape as
 * Linux's __GFP_SKIP_KASAN, which marks the page (PG_skip_kasan_poison) so
 * that its free skips KASAN's poisoning. Ignored with __GFP_ZERO. */
#define __GFP_UNTOUCHED ((gfp_t)___GFP_UNTOUCHED)

#define GFP_ATOMIC (__GFP_HIGH | __GFP_ATOMIC | __GFP_KSWAPD_RECLAIM)
#define GFP_KERNEL (__GFP_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_NOWAIT (__GFP_KSWAPD_RECLAIM)
#define GFP_NOIO (__GFP_RECLAIM)
#define GFP_NOFS (__GFP_RECLAIM | __GFP_IO)
#define GFP_USER (__GFP_RECLAIM | __GFP_IO | __GFP_FS | __GFP_HARDWALL)
/* User pages (Linux's, without the KASAN bits mmlab has no use for): the
 * zone bits choose nothing here (one zone per node), they only read the
 * same as Linux's in a printed mode. */
#define GFP_HIGHUSER (GFP_USER | __GFP_HIGHMEM)
#define GFP_HIGHUSER_MOVABLE (GFP_HIGHUSER | __GFP_MOVABLE)
/* A THP: no reclaim at all (LIGHT), or direct reclaim but never kswapd. */
#define GFP_TRANSHUGE_LIGHT ((GFP_HIGHUSER_MOVABLE | __GFP_COMP | __GFP_NOMEMALLOC | __GFP_NOWARN) & ~__GFP_RECLAIM)
#define GFP_TRANSHUGE (GFP_TRANSHUGE_LIGHT | __GFP_DIRECT_RECLAIM)

#define GFP_DMA __GFP_DMA
#define GFP_DMA32 __GFP_DMA32
#define GFP_KERNEL_ACCOUNT (GFP_KERNEL | __GFP_ACCOUNT)

/* What an allocation's own nested allocations inherit (Linux's
 * mm/internal.h GFP_RECLAIM_MASK): how hard to try and in which context,
 * never where from (no zone, node or movability bits). */
#define GFP_RECLAIM_MASK (__GFP_RECLAIM | __GFP_HIGH | __GFP_IO | __GFP_FS | __GFP_NOWARN |      \
			  __GFP_RETRY_MAYFAIL | __GFP_NOFAIL | __GFP_NORETRY | __GFP_NOMEMALLOC)

static inline bool gfpflags_allow_blocking(gfp_t gfp) { return gfp & __GFP_DIRECT_RECLAIM; }

/* "GFP_KERNEL|__GFP_ZERO" style text for messages; returns buf. */
const char *gfp_flags_string(gfp_t gfp, char *buf, size_t size);

#endif
