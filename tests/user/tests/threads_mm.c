/* Threads sharing one address space, working on ONE anonymous mapping:
 * N = min(4, online CPUs) threads (at least 2), each pinned to a CPU of its
 * own when the affinity mask has enough (sched_getcpu() and getcpu(2) must
 * agree with the pin). The mapping holds a 16-page slot per thread and 8
 * pages every thread writes into (distinct words of the same pages: faults
 * on overlapping pages). Every round, with pthread barriers between the
 * phases, so that no thread ever touches memory another may have unmapped
 * or protected at that moment:
 *   1. each thread writes tagged words in every page of its slot (pages
 *      discarded, unmapped or new since the last round fault again; a
 *      range remapped in the last round must read zero first) and its
 *      words in every shared page;
 *   2. each thread reads back its neighbour's slot and every thread's words
 *      in the shared pages;
 *   3. each thread, on its neighbour's slot: madvise(MADV_DONTNEED) of 3
 *      pages, mprotect(PROT_READ) of 2, munmap of 2 (ranges move with the
 *      round: the one VMA is split and merged at different places); one
 *      thread discards one shared page; meanwhile each thread discards and
 *      re-faults 3 pages of its own slot that nobody else touches;
 *   4. each thread checks its own slot: discarded pages read zero,
 *      protected pages keep their data and refuse a store (pread(2) into
 *      them fails with EFAULT, no fault taken), unmapped pages are gone
 *      (EFAULT), everything else holds exactly what was written; the shared
 *      pages likewise; and it is still on its CPU;
 *   5. then makes its slot whole again (mprotect RW, mmap MAP_FIXED over
 *      the hole) while the others may already be writing the next round.
 * At the end: the whole mapping, touched by main, unmaps to exactly its
 * size in RSS; VmPTE is sane; RSS is back near where it started.
 * Rounds: --rounds N (default 40 per thread: under QEMU TCG each round's
 * three barriers and its TLB shootdowns cost cross-CPU wakeups, about 80 ms
 * a round on 4 CPUs with the host otherwise idle and several times that
 * when make test boots two machines at once, on mmlab and Linux 6.1 alike). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define MAXT 4
#define SLOT_PAGES 16
#define SHARED_PAGES 8
#define WORDS 8          /* tagged 64-bit words per page ... */
#define WORD_STRIDE 512  /* ... one every 512 bytes */
#define PG PAGE_4K

#define DN_LEN 3         /* pages discarded in a neighbour's slot */
#define PR_LEN 2         /* pages write-protected */
#define UM_LEN 2         /* pages unmapped */
#define SAFE_FIRST 13    /* pages 13-15: the owner's own, re-faulted in phase 3 */

static int nthreads;
static long rounds;
static bool pinned;
static int cpu_of[MAXT];
static char *region;
static size_t region_len;
static int probe_fd;
static pthread_barrier_t barrier;

struct stats {
	long data_bad, zero_bad, prot_bad, unmap_bad, remap_bad, sys_fail, cpu_bad;
	long checked_words, checked_zero_pages;
	int pin_ret, cpu_after_pin, getcpu_after_pin, cpu_at_end;
	char first[200];
};
static struct stats stats[MAXT];

static char *slot(int t)
{
	return region + (size_t)t * SLOT_PAGES * PG;
}

static char *shared_page(int p)
{
	return region + (size_t)nthreads * SLOT_PAGES * PG + (size_t)p * PG;
}

/* The ranges of round r, in pages of a slot: [dn, dn + 3) in 0-5,
 * [pr, pr + 2) in 6-8, [um, um + 2) in 9-12. */
static int dn_of(long r) { return (int)(r % 4); }
static int pr_of(long r) { return 6 + (int)(r % 2); }
static int um_of(long r) { return 9 + (int)(r % 3); }

static uint64_t tag(long r, int t, int page, int k)
{
	return 1ULL << 63 | (uint64_t)(r + 1) << 24 | (uint64_t)t << 20 | (uint64_t)page << 8 |
	       (uint64_t)k;
}

static volatile uint64_t *word(char *page, int k, int t)
{
	return (volatile uint64_t *)(page + k * WORD_STRIDE + t * 8);
}

static void fail(struct stats *s, long *counter, const char *what, long r, int page)
{
	(*counter)++;
	if (!s->first[0])
		snprintf(s->first, sizeof(s->first), "round %ld page %d: %s", r, page, what);
}

static void write_page(char *page, long r, int t, int pnum, int salt)
{
	for (int k = 0; k < WORDS; k++)
		*word(page, k, 0) = tag(r, t, pnum, k + salt);
}

static bool page_holds(char *page, long r, int t, int pnum, int salt, struct stats *s)
{
	bool ok = true;
	for (int k = 0; k < WORDS; k++) {
		ok &= *word(page, k, 0) == tag(r, t, pnum, k + salt);
		s->checked_words++;
	}
	return ok;
}

static bool page_zero(const char *page, struct stats *s)
{
	const volatile uint64_t *w = (const volatile uint64_t *)page;
	uint64_t any = 0;
	for (size_t i = 0; i < PG / 8; i++)
		any |= w[i];
	s->checked_zero_pages++;
	return any == 0;
}

/* A discarded shared page reads zero, except where the other threads may
 * already have written their words of the next round. */
static bool shared_page_zero(const char *page, int t, struct stats *s)
{
	const volatile uint64_t *w = (const volatile uint64_t *)page;
	uint64_t any = 0;
	for (size_t i = 0; i < PG / 8; i++) {
		size_t slot_word = i % (WORD_STRIDE / 8); /* word(page, k, u) is u here */
		if (slot_word < (size_t)nthreads && slot_word != (size_t)t)
			continue;
		any |= w[i];
	}
	s->checked_zero_pages++;
	return any == 0;
}

/* Whether a byte can be stored at p, asked of the kernel (pread(2) of one
 * byte of /proc/meminfo into p) instead of touching p: false with EFAULT
 * when p is unmapped or read-only. Only called on pages expected to refuse;
 * if one does not, the byte it got does not matter (the page is checked no
 * further this round). */
static bool storable(void *p, int *err)
{
	errno = 0;
	ssize_t n = pread(probe_fd, p, 1, 0);
	*err = errno;
	return n == 1;
}

static bool in_range(int p, int start, int len)
{
	return p >= start && p < start + len;
}

static void *body(void *arg)
{
	int t = (int)(long)arg;
	struct stats *s = &stats[t];
	int v = (t + 1) % nthreads; /* the neighbour whose slot t works on */
	char *mine = slot(t), *theirs = slot(v);

	if (pinned) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu_of[t], &set);
		s->pin_ret = sched_setaffinity(0, sizeof(set), &set);
		s->cpu_after_pin = sched_getcpu();
		unsigned c = ~0u;
		s->getcpu_after_pin = syscall(SYS_getcpu, &c, NULL, NULL) == 0 ? (int)c : -1;
	}
	pthread_barrier_wait(&barrier);

	for (long r = 0; r < rounds; r++) {
		/* 1: write my slot and my words of the shared pages. */
		if (r > 0) {
			int um = um_of(r - 1);
			for (int p = um; p < um + UM_LEN; p++) {
				if (!page_zero(mine + p * PG, s))
					fail(s, &s->remap_bad, "page remapped over a hole is not zero", r, p);
			}
		}
		for (int p = 0; p < SLOT_PAGES; p++)
			write_page(mine + p * PG, r, t, p, 0);
		for (int p = 0; p < SHARED_PAGES; p++) {
			for (int k = 0; k < WORDS; k++)
				*word(shared_page(p), k, t) = tag(r, t, 100 + p, k);
		}
		pthread_barrier_wait(&barrier);

		/* 2: read back my neighbour's slot and everybody's shared words. */
		for (int p = 0; p < SLOT_PAGES; p++) {
			if (!page_holds(theirs + p * PG, r, v, p, 0, s))
				fail(s, &s->data_bad, "neighbour's page does not hold what it wrote", r, p);
		}
		for (int p = 0; p < SHARED_PAGES; p++) {
			for (int u = 0; u < nthreads; u++) {
				for (int k = 0; k < WORDS; k++) {
					s->checked_words++;
					if (*word(shared_page(p), k, u) != tag(r, u, 100 + p, k))
						fail(s, &s->data_bad, "shared page word differs", r, 100 + p);
				}
			}
		}
		pthread_barrier_wait(&barrier);

		/* 3: discard, protect and unmap ranges of my neighbour's slot;
		 * re-fault my own safe pages meanwhile. */
		int dn = dn_of(r), pr = pr_of(r), um = um_of(r);
		if (madvise(theirs + dn * PG, DN_LEN * PG, MADV_DONTNEED) != 0)
			fail(s, &s->sys_fail, "madvise(MADV_DONTNEED) failed", r, dn);
		if (mprotect(theirs + pr * PG, PR_LEN * PG, PROT_READ) != 0)
			fail(s, &s->sys_fail, "mprotect(PROT_READ) failed", r, pr);
		if (munmap(theirs + um * PG, UM_LEN * PG) != 0)
			fail(s, &s->sys_fail, "munmap failed", r, um);
		int discard = (int)(r % SHARED_PAGES);
		if (t == r % nthreads && madvise(shared_page(discard), PG, MADV_DONTNEED) != 0)
			fail(s, &s->sys_fail, "madvise(MADV_DONTNEED) of a shared page failed", r, 100 + discard);
		if (madvise(mine + SAFE_FIRST * PG, (SLOT_PAGES - SAFE_FIRST) * PG, MADV_DONTNEED) != 0)
			fail(s, &s->sys_fail, "madvise(MADV_DONTNEED) of my own pages failed", r, SAFE_FIRST);
		for (int p = SAFE_FIRST; p < SLOT_PAGES; p++)
			write_page(mine + p * PG, r, t, p, 32);
		pthread_barrier_wait(&barrier);

		/* 4: my slot as my neighbour left it. */
		int mdn = dn_of(r), mpr = pr_of(r), mum = um_of(r); /* same ranges: same round */
		for (int p = 0; p < SLOT_PAGES; p++) {
			char *page = mine + p * PG;
			int err;
			if (in_range(p, mdn, DN_LEN)) {
				if (!page_zero(page, s))
					fail(s, &s->zero_bad, "page not zero after MADV_DONTNEED", r, p);
			} else if (in_range(p, mum, UM_LEN)) {
				if (storable(page, &err) || err != EFAULT)
					fail(s, &s->unmap_bad, "unmapped page still accepts a store (no EFAULT)", r, p);
			} else if (in_range(p, mpr, PR_LEN)) {
				if (!page_holds(page, r, t, p, 0, s))
					fail(s, &s->data_bad, "write-protected page lost its data", r, p);
				if (storable(page, &err) || err != EFAULT)
					fail(s, &s->prot_bad, "read-only page accepts a store (no EFAULT)", r, p);
			} else if (p >= SAFE_FIRST) {
				if (!page_holds(page, r, t, p, 32, s))
					fail(s, &s->data_bad, "re-faulted own page does not hold what I wrote", r, p);
			} else if (!page_holds(page, r, t, p, 0, s)) {
				fail(s, &s->data_bad, "page does not hold what I wrote", r, p);
			}
		}
		for (int p = 0; p < SHARED_PAGES; p++) {
			if (p == discard) {
				if (!shared_page_zero(shared_page(p), t, s))
					fail(s, &s->zero_bad, "shared page not zero after MADV_DONTNEED", r, 100 + p);
				continue;
			}
			for (int k = 0; k < WORDS; k++) {
				s->checked_words++;
				if (*word(shared_page(p), k, t) != tag(r, t, 100 + p, k))
					fail(s, &s->data_bad, "my word in a shared page differs", r, 100 + p);
			}
		}
		if (pinned && sched_getcpu() != cpu_of[t])
			fail(s, &s->cpu_bad, "running on another CPU than pinned to", r, -1);

		/* 5: make my slot whole again (mprotect RW, mmap MAP_FIXED
		 * over the hole). No barrier before the next round: nobody
		 * else touches my slot, or my words of the shared pages, until
		 * everyone has passed the next round's first barrier. */
		if (mprotect(mine + mpr * PG, PR_LEN * PG, PROT_READ | PROT_WRITE) != 0)
			fail(s, &s->sys_fail, "mprotect(PROT_READ|PROT_WRITE) failed", r, mpr);
		if (mmap(mine + mum * PG, UM_LEN * PG, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != mine + mum * PG)
			fail(s, &s->sys_fail, "mmap(MAP_FIXED) over the hole failed", r, mum);
	}
	s->cpu_at_end = sched_getcpu();
	return NULL;
}

int main(int argc, char **argv)
{
	test_begin("threads_mm");
	rounds = arg_long(argc, argv, "--rounds", 40);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t allowed;
	CPU_ZERO(&allowed);
	CHECK(sched_getaffinity(0, sizeof(allowed), &allowed) == 0);
	int navail = CPU_COUNT(&allowed);
	nthreads = (int)(online < MAXT ? online : MAXT);
	if (nthreads < 2)
		nthreads = 2; /* one CPU: still two threads, unpinned */
	pinned = navail >= nthreads;
	for (int c = 0, t = 0; c < CPU_SETSIZE && t < nthreads; c++) {
		if (CPU_ISSET(c, &allowed))
			cpu_of[t++] = c;
	}
	note("%ld CPUs online, %d allowed: %d threads, %s, %ld rounds", online, navail, nthreads,
	     pinned ? "each pinned to its own CPU" : "not pinned", rounds);

	probe_fd = open("/proc/meminfo", O_RDONLY);
	CHECK(probe_fd >= 0);
	long rss0 = rss_kb();
	region_len = ((size_t)nthreads * SLOT_PAGES + SHARED_PAGES) * PG;
	region = mmap(NULL, region_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(region != MAP_FAILED))
		return test_end();
	CHECK(pthread_barrier_init(&barrier, NULL, (unsigned)nthreads) == 0);

	long long t0 = now_ns();
	pthread_t th[MAXT];
	int created = 0;
	for (int t = 0; t < nthreads; t++) {
		if (pthread_create(&th[t], NULL, body, (void *)(long)t) != 0)
			break;
		created++;
	}
	if (!CHECK_CMP(created, ==, nthreads)) {
		/* The barrier can never fill: the threads made are stuck in it. */
		return test_end();
	}
	for (int t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	note("%d threads x %ld rounds in %lld ms", nthreads, rounds, (now_ns() - t0) / 1000000);

	struct stats sum = { 0 };
	int pin_ok = 0, end_ok = 0;
	for (int t = 0; t < nthreads; t++) {
		struct stats *s = &stats[t];
		sum.data_bad += s->data_bad;
		sum.zero_bad += s->zero_bad;
		sum.prot_bad += s->prot_bad;
		sum.unmap_bad += s->unmap_bad;
		sum.remap_bad += s->remap_bad;
		sum.sys_fail += s->sys_fail;
		sum.cpu_bad += s->cpu_bad;
		sum.checked_words += s->checked_words;
		sum.checked_zero_pages += s->checked_zero_pages;
		if (s->first[0])
			note("thread %d: first problem: %s", t, s->first);
		if (pinned) {
			bool ok = s->pin_ret == 0 && s->cpu_after_pin == cpu_of[t] &&
				  s->getcpu_after_pin == cpu_of[t];
			pin_ok += ok;
			end_ok += s->cpu_at_end == cpu_of[t];
			if (!ok)
				note("thread %d: pin to CPU %d: sched_setaffinity %d, sched_getcpu %d, getcpu %d",
				     t, cpu_of[t], s->pin_ret, s->cpu_after_pin, s->getcpu_after_pin);
		}
	}
	if (pinned) {
		CHECKF(pin_ok == nthreads,
		       "every thread pinned to its own CPU: sched_getcpu() and getcpu(2) agree (%d/%d)", pin_ok,
		       nthreads);
		CHECKF(sum.cpu_bad == 0 && end_ok == nthreads,
		       "every thread stayed on its CPU through all rounds (%ld rounds off, %d/%d at the end)",
		       sum.cpu_bad, end_ok, nthreads);
	}
	CHECKF(sum.sys_fail == 0, "madvise/mprotect/munmap/mmap(MAP_FIXED) on each other's ranges all succeed (%ld failed)",
	       sum.sys_fail);
	CHECKF(sum.data_bad == 0, "data read back exactly: %ld words checked, %ld differ", sum.checked_words,
	       sum.data_bad);
	CHECKF(sum.zero_bad == 0 && sum.remap_bad == 0,
	       "pages read zero after MADV_DONTNEED and after a remap: %ld pages checked, %ld + %ld not zero",
	       sum.checked_zero_pages, sum.zero_bad, sum.remap_bad);
	CHECKF(sum.prot_bad == 0, "pages write-protected by another thread refuse stores (%ld did not)",
	       sum.prot_bad);
	CHECKF(sum.unmap_bad == 0, "pages unmapped by another thread are gone (%ld were not)", sum.unmap_bad);

	/* The one mapping, whole again: every page writable; main touches
	 * all, and unmapping it gives back exactly its size. */
	touch_pages(region, region_len, 0x5c);
	bool kept = true;
	for (size_t off = 0; off < region_len; off += PG)
		kept &= region[off] == 0x5c;
	CHECKF(kept, "after all rounds every page of the mapping is mapped and writable");
	long pte_peak = status_kb("VmPTE"), vmsize = status_kb("VmSize");
	long rss_mapped = rss_kb();
	CHECK(munmap(region, region_len) == 0);
	long rss_unmapped = rss_kb();
	long region_kb = (long)(region_len / KiB);
	CHECKF(rss_mapped - rss_unmapped == region_kb,
	       "RSS drops by the mapping's %ld kB when it is unmapped (%ld -> %ld kB)", region_kb,
	       rss_mapped, rss_unmapped);
	long pte_end = status_kb("VmPTE");
	note("VmPTE %ld kB with the mapping, %ld kB without; VmSize %ld kB", pte_peak, pte_end, vmsize);
	/* Page tables: at most one page per level per 2 MiB of address space,
	 * plus a few per mapping boundary: generous, but far below a leak of
	 * one table per round. */
	CHECKF(pte_peak > 0 && pte_peak <= 4 * (vmsize / 2048 + 64),
	       "VmPTE %ld kB is sane for VmSize %ld kB", pte_peak, vmsize);
	CHECKF(pte_end >= 0 && pte_end <= pte_peak, "VmPTE does not grow by unmapping (%ld -> %ld kB)",
	       pte_peak, pte_end);
	long rss_end = rss_kb();
	CHECKF(rss_end - rss0 <= 1024, "RSS at the end within 1 MiB of the start (%ld -> %ld kB; thread stacks)",
	       rss0, rss_end);
	pthread_barrier_destroy(&barrier);
	close(probe_fd);
	return test_end();
}
