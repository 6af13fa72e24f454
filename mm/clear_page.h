/* Clearing huge and gigantic pages: which routine, and in what order.
 *
 * Two designs sit side by side here, as mmlab's mission asks:
 *
 *   - Ankur Arora's 2021 series, "Use uncached stores while clearing huge
 *     pages" (v2, 2021-10-20, never merged;
 *     https://lore.kernel.org/all/20211020170305.376118-1-ankur.a.arora@oracle.com/): an
 *     extent at or above clear_page_uncached_threshold (the last-level
 *     cache's size) is cleared with non-temporal stores (MOVNTI, or AMD's
 *     CLZERO), which do not read the lines first and are meant not to
 *     evict the cache's useful contents (docs/huge_pages.md measures how
 *     far that holds), then fenced before the PMD that exposes it;
 *     below the threshold, ordinary stores, the faulting subpage last so
 *     its lines are still cached when the fault returns (Linux's
 *     process_huge_page, 2017);
 *   - what Linux merged instead in 2026 (clear_pages() under
 *     folio_zero_user): the whole extent in one REP STOSB, in batches of up
 *     to 32 MiB, the faulting page's neighbourhood last, and the CPU left to
 *     choose how to store (AMD Zen stops allocating lines for long string
 *     stores by itself). mmlab calls it the "extent" method.
 *
 * The routines are arch/x86_64/clear_page.asm; the choice (the policy) is
 * mm/clear_page.c, portable C that the host tests drive with recording
 * routines in place of the assembly (tests/host/clear_page_test.c).
 *
 * The fence rule. MOVNTI and CLZERO are weakly ordered: until an SFENCE,
 * another CPU that reaches the page through a freshly written PTE can
 * still read the old bytes. The series marked such memory with a sparse
 * address space, __incoherent; mmlab uses C types instead, so the
 * compiler refuses the mistakes:
 *   - struct incoherent_addr is the destination of an uncached clear: it
 *     is not a pointer, so it cannot be passed to memset or dereferenced;
 *   - clear_huge_page() returns a struct incoherent_page, not the struct
 *     page *, and the only way back to a struct page * (which is what
 *     map_anon_folio_pmd takes) is clear_page_uncached_make_coherent(),
 *     which fences when the clear was uncached.
 * With CONFIG_DEBUG_VM, set_pte_at()/set_pmd_at() also check at run time
 * that this CPU has no uncached clear left unfenced (clear_page_pending). */
#ifndef MM_CLEAR_PAGE_H
#define MM_CLEAR_PAGE_H

#include "arch/x86_64/clear_page.h"
#include "kernel/percpu.h"
#include "kernel/types.h"

struct page;

enum clear_page_method {
	CLEAR_PAGE_AUTO,   /* chosen per extent: see clear_page_resolve() */
	CLEAR_PAGE_ORIG,   /* cached, 8-byte MOVs, page by page, target last */
	CLEAR_PAGE_REP,    /* cached, REP STOSQ, page by page, target last */
	CLEAR_PAGE_ERMS,   /* cached, REP STOSB, page by page, target last */
	CLEAR_PAGE_MOVNT,  /* uncached, MOVNTI over the extent, fenced per 32 MiB */
	CLEAR_PAGE_CLZERO, /* uncached, CLZERO over the extent, fenced per 32 MiB */
	CLEAR_PAGE_EXTENT, /* the 2026 method: REP STOSB over the extent */
	NR_CLEAR_PAGE_METHODS
};

/* "auto", "orig", ... "extent": the command line's and the sysctl's words. */
const char *clear_page_method_name(enum clear_page_method m);
int clear_page_parse_method(const char *s, size_t len, enum clear_page_method *out);
static inline bool clear_page_method_uncached(enum clear_page_method m)
{
	return m == CLEAR_PAGE_MOVNT || m == CLEAR_PAGE_CLZERO;
}

/* What the CPU offers, found by the arch at boot (arch/x86_64/cpufeature.c
 * reads CPUID) and handed to clear_page_setup(). */
struct clear_page_cpu {
	bool erms;       /* X86_FEATURE_ERMS */
	bool clzero;     /* X86_FEATURE_CLZERO */
	bool movnt_slow; /* X86_FEATURE_MOVNT_SLOW: MOVNTI loses (Skylake) */
	bool zen;        /* AMD family 17h or later: long REP STOSB does not allocate */
	u64 llc_bytes;   /* one last-level cache, as CPUID describes it; 0:
			  * unknown, or a size no such CPU has (the arch
			  * code does not believe it, and says so) */
	u64 llc_claimed; /* what CPUID said, believed or not */
	const char *llc_source; /* which CPUID leaf said so */
};

/* The threshold when nothing better is known: the series' default. */
#define CLEAR_PAGE_DEFAULT_THRESHOLD (8ull << 20)
/* The largest threshold a user may set (clear_huge_page_threshold_kb):
 * the size of a 1 GiB page times 64, beyond which no extent is uncached. */
#define CLEAR_PAGE_MAX_THRESHOLD (64ull << 30)

/* The policy's state, set by clear_page_setup() and changed by the
 * command line (clear_page=, clear_huge_page_threshold_kb=) and the sysctls
 * /proc/sys/vm/clear_huge_page_method and clear_huge_page_threshold_kb. */
struct clear_page_policy {
	enum clear_page_method method; /* as set: AUTO or a forced method */
	enum clear_page_method cached; /* what auto uses below the threshold */
	enum clear_page_method uncached; /* what auto uses at or above it (may be cached) */
	u64 threshold;                 /* bytes: clear_page_uncached_threshold */
	bool threshold_set;            /* given by the user, not derived */
	struct clear_page_cpu cpu;
};
extern struct clear_page_policy clear_page_policy;

/* Fills clear_page_policy from what the CPU has. */
void clear_page_setup(const struct clear_page_cpu *cpu);
/* One console line: the method, auto's two choices, the threshold and
 * where the cache size came from. */
void clear_page_report(void);
/* Sets the method: -EINVAL for one this CPU cannot run (clzero without
 * CLZERO). */
int clear_page_set_method(enum clear_page_method m);
/* Sets the threshold, in bytes (0 puts back the derived one); -EINVAL
 * outside [PAGE_SIZE, CLEAR_PAGE_MAX_THRESHOLD]. */
int clear_page_set_threshold(u64 bytes);

/* clear_page_uncached_threshold(): the extent from which stores go
 * uncached (the series' name). */
static inline u64 clear_page_uncached_threshold(void) { return clear_page_policy.threshold; }

/* The method for an extent of `bytes` (a huge page, or with the bulk
 * hint the whole range being populated): the forced method, or auto's
 * choice. Never AUTO. */
enum clear_page_method clear_page_resolve(u64 bytes);

/* --- uncached stores and their fence ------------------------------------- */

/* struct incoherent_addr (the series' __incoherent: memory an uncached
 * clear wrote, not yet fenced) is the arch's: arch/x86_64/clear_page.h. */

/* A page (any order) cleared by clear_huge_page(): possibly incoherent. */
struct incoherent_page {
	struct page *page_;
	bool uncached_;
};

/* Clears npages at dst with an uncached method (MOVNT or CLZERO), leaving
 * this CPU with a pending fence (clear_page_pending). */
void clear_pages_uncached(struct incoherent_addr dst, unsigned long npages, enum clear_page_method m);
/* The SFENCE: every uncached clear before it is visible before any store
 * after it. */
void clear_page_fence(void);

/* Uncached clears on this CPU since its last fence (kept per CPU: the
 * policy fences before every cond_resched(), so a pending clear never
 * moves to another CPU with its task). */
DECLARE_PER_CPU(unsigned long, clear_page_pending);
static inline unsigned long clear_page_pending_count(void) { return this_cpu_read(clear_page_pending); }

/* The run-time half of the fence rule, called by set_pte_at()/set_pmd_at()
 * (mm/pgtable.h) with CONFIG_DEBUG_VM (make DEBUG_VM=0 leaves it out): an
 * entry written while this CPU has an unfenced uncached clear could expose
 * a page whose zeroes other CPUs do not see yet. Reported as a BUG with
 * the address, then fenced, so the page is right from there on. */
void clear_page_report_incoherent(unsigned long addr);
static inline void clear_page_check_coherent(unsigned long addr)
{
#ifdef CONFIG_DEBUG_VM
	if (__builtin_expect(clear_page_pending_count() != 0, 0))
		clear_page_report_incoherent(addr);
#else
	(void)addr;
#endif
}

/* --- clearing a huge page ------------------------------------------------ */

/* Hints for clear_huge_page(). */
#define CLEAR_HUGE_BULK 0x1u /* part of a range populated at once (the series'
			      * FOLL_HINT_BULK/FAULT_FLAG_UNCACHED) */

/* Batches between two cond_resched(): Linux's PROCESS_PAGES_NON_PREEMPT_BATCH
 * (32 MiB), for the extent and uncached methods. The cached methods go page
 * by page and call cond_resched() after each 4 KiB, as process_huge_page. */
#define CLEAR_PAGE_BATCH_PAGES ((32ul << 20) >> PAGE_SHIFT)
/* The neighbourhood of the faulting page that the extent method clears
 * last (Linux's folio_zero_user: FOLIO_ZERO_LOCALITY_RADIUS). */
#define CLEAR_PAGE_LOCALITY_RADIUS 2

/* Clears the 2^order pages at kaddr (mapped at user address base; the
 * fault was at addr_hint) with the method clear_page_resolve() gives for
 * bulk_bytes (the whole populated range, with CLEAR_HUGE_BULK) or the
 * page's own size. Returns the method used. The portable core of
 * clear_huge_page(). */
enum clear_page_method clear_huge_extent(void *kaddr, unsigned order, unsigned long addr_hint,
					 unsigned flags, u64 bulk_bytes);

/* Linux's folio_zero_user()/clear_huge_page() and clear_gigantic_page()
 * (one function: the order tells them apart): clears page, 2^order pages,
 * never through __GFP_ZERO. The result must go through
 * clear_page_uncached_make_coherent() before any PTE or PMD maps it. */
struct incoherent_page clear_huge_page(struct page *page, unsigned order, unsigned long addr_hint,
				       unsigned flags, u64 bulk_bytes);
/* The fence (when the clear was uncached) and the page back. */
struct page *clear_page_uncached_make_coherent(struct incoherent_page p);

/* Statistics, per method: extents cleared and pages (4 KiB) cleared;
 * fences issued; fence assertions that fired. /proc/vmstat shows them as
 * clear_huge_page_<method>[_pages], clear_huge_page_cached and _uncached
 * (the methods summed by kind), clear_huge_page_fences and
 * clear_huge_page_incoherent. Kept per CPU and summed by the reader, as
 * Linux's vm_event_states (count_vm_events): only the CPU itself adds to
 * its copy, from process context, so a plain add loses nothing, and a
 * clear pays no locked instruction (two cost a warm 4 KiB clear a third of
 * its speed, measured natively: docs/huge_pages.md). One cache line each,
 * so CPUs do not share one. */
struct clear_page_stats {
	unsigned long extents[NR_CLEAR_PAGE_METHODS];
	unsigned long pages[NR_CLEAR_PAGE_METHODS];
	unsigned long fences;
	unsigned long incoherent; /* clear_page_report_incoherent() reports: 0 unless a bug */
} __aligned(64);
/* The counters summed over the CPUs (Linux's all_vm_events). Exact when
 * no CPU is clearing, like every unlocked reader of statistics here. */
struct clear_page_stats clear_page_stats_sum(void);

#endif
