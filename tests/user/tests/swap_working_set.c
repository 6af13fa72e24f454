/* A working set half as large again as the machine's memory, on the
 * runner's swap disk (common/swap_disk.h), pushed through swap by
 * reclaim itself (no MADV_PAGEOUT):
 *   - 1.5 x MemTotal of private anonymous memory written page by page,
 *     then every byte checked in order, then 8192 pages in a random
 *     order (each page's bytes derived from its index, so a page read
 *     back from the wrong slot or half written shows);
 *   - pswpout and pswpin grew (the set cannot fit), the major faults
 *     (ru_majflt) grew on both kernels;
 *   - 64 mlocked pages never went to swap: pagemap shows each present,
 *     none PM_SWAP, all along.
 * Runs in a child (the parent turns swap on before and off after the
 * child's exit freed its entries). Sized from /proc/meminfo, refused
 * when SwapFree could not hold the excess with a margin. */
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "swap_disk.h"

#define PAGE 4096ul
#define LOCKED 64
#define RANDOM 8192

static inline uint64_t word_of(size_t page, size_t i) { return (page * 0x9e3779b97f4a7c15ull) ^ (i * 0x100000001b3ull); }

static void write_page(unsigned char *p, size_t page)
{
	uint64_t *w = (uint64_t *)(p + page * PAGE);
	for (size_t i = 0; i < PAGE / 8; i++)
		w[i] = word_of(page, i);
}

static bool page_ok(const unsigned char *p, size_t page)
{
	const uint64_t *w = (const uint64_t *)(p + page * PAGE);
	for (size_t i = 0; i < PAGE / 8; i++)
		if (w[i] != word_of(page, i))
			return false;
	return true;
}

/* The locked pages all present, none swapped. */
static bool locked_resident(const void *p)
{
	uint64_t e[LOCKED];
	bool ok = pagemap_read(p, LOCKED, e);
	for (int i = 0; ok && i < LOCKED; i++)
		ok = (e[i] & PM_PRESENT) && !(e[i] & PM_SWAP);
	return ok;
}

static long majflt(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_majflt;
}

/* The counters' growth over a phase (what == NULL: the start of the
 * first), noted: what the figures in docs/swap.md are made of. */
static void phase_note(const char *what)
{
	static const char *const names[] = { "pswpout", "pswpin", "swap_ra", "swap_ra_hit", "workingset_refault_anon",
					     "workingset_activate_anon" };
	enum { N = sizeof(names) / sizeof(names[0]) };
	static long last[N], last_maj;
	long now[N];
	for (int i = 0; i < N; i++)
		now[i] = vmstat_value(names[i]);
	long maj = majflt();
	if (what)
		note("%s: pswpout +%ld, pswpin +%ld, major faults +%ld, swap_ra +%ld, swap_ra_hit +%ld, "
		     "workingset_refault_anon +%ld, workingset_activate_anon +%ld", what, now[0] - last[0],
		     now[1] - last[1], maj - last_maj, now[2] - last[2], now[3] - last[3], now[4] - last[4],
		     now[5] - last[5]);
	for (int i = 0; i < N; i++)
		last[i] = now[i];
	last_maj = maj;
}

static int child(void)
{
	long total_kb = meminfo_kb("MemTotal"), swapfree_kb = meminfo_kb("SwapFree");
	size_t pages = (size_t)(total_kb / 4) * 3 / 2;
	note("MemTotal %ld kB, SwapFree %ld kB: a working set of %zu pages (%zu MiB)", total_kb, swapfree_kb, pages,
	     pages >> 8);
	if (swapfree_kb < total_kb)
		test_skip("SwapFree %ld kB cannot take half of MemTotal %ld kB with a margin", swapfree_kb, total_kb);
	unsigned char *locked = mmap(NULL, LOCKED * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool have_locked = locked != MAP_FAILED && mlock(locked, LOCKED * PAGE) == 0;
	if (have_locked)
		memset(locked, 0x5a, LOCKED * PAGE);
	else
		check_skip("64 mlocked pages: %s", errno_name(errno));
	unsigned char *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				-1, 0);
	if (!CHECKF(p != MAP_FAILED, "mmap of %zu pages: %s", pages, errno_name(errno)))
		return test_end();
	long out0 = vmstat_value("pswpout"), in0 = vmstat_value("pswpin"), maj0 = majflt();
	phase_note(NULL);
	for (size_t i = 0; i < pages; i++)
		write_page(p, i);
	phase_note("writes");
	CHECKF(vmstat_value("pswpout") > out0, "writing %zu pages pushed some out (pswpout +%ld)", pages,
	       vmstat_value("pswpout") - out0);
	if (have_locked)
		CHECKF(locked_resident(locked), "the mlocked pages stayed present, none swapped, after the writes");
	size_t bad = 0;
	for (size_t i = 0; i < pages; i++)
		bad += !page_ok(p, i);
	CHECKF(bad == 0, "every byte read back in order (%zu bad pages)", bad);
	phase_note("reads in order");
	/* RANDOM pages in a random order (a full-period LCG over a power of
	 * two, indexes beyond the set skipped: each page at most once):
	 * every byte of each checked. Not all of them: under TCG a random
	 * page costs a swap-in and a swap-out, and Linux's init gives a
	 * program 60 s. */
	size_t span = 1;
	while (span < pages)
		span <<= 1;
	size_t x = 12345 % span, seen = 0;
	bad = 0;
	for (size_t n = 0; n < span && seen < RANDOM; n++) {
		x = (x * 1103515245 + 12345) & (span - 1);
		if (x < pages) {
			bad += !page_ok(p, x);
			seen++;
		}
	}
	CHECKF(bad == 0 && seen == RANDOM, "every byte of %zu pages read back in a random order (%zu bad)", seen, bad);
	phase_note("random reads");
	CHECKF(vmstat_value("pswpin") > in0, "reading back brought pages in (pswpin +%ld)", vmstat_value("pswpin") - in0);
	CHECKF(majflt() > maj0, "with major faults (ru_majflt +%ld)", majflt() - maj0);
	if (have_locked) {
		CHECKF(locked_resident(locked), "the mlocked pages stayed present, none swapped, after the reads");
		CHECKF(locked[0] == 0x5a && locked[LOCKED * PAGE - 1] == 0x5a, "and kept their bytes");
	}
	note("pswpout +%ld, pswpin +%ld, major faults +%ld", vmstat_value("pswpout") - out0,
	     vmstat_value("pswpin") - in0, majflt() - maj0);
	munmap(p, pages * PAGE);
	return test_end();
}

int main(void)
{
	test_begin("swap_working_set");
	return swap_run_child(child, "child");
}
