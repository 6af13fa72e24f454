/* Benchmark: order-9 (2 MiB) allocations on fragmented memory, without
 * and with compaction, the same program on mmlab and on Linux 6.1
 * (docs/compaction.md, "Figures").
 *
 * The workload:
 *   1. most of the free memory (MemFree less 32 MiB) is written in 4 KiB
 *      pages (MADV_NOHUGEPAGE), so that every pageblock the program
 *      touches holds its pages;
 *   2. /proc/self/pagemap says where each page is; in every other
 *      pageblock (2 MiB of physical memory: pfn / 512 odd) every page of
 *      the program but the first is given back (MADV_DONTNEED): about half
 *      the memory is free again, and none of the blocks it came from is
 *      whole;
 *   3. K attempts at a THP (K: half the number of blocks given back, so
 *      that the free memory could serve every one): K regions of 2 MiB,
 *      2 MiB aligned, MADV_HUGEPAGE, each touched once, first with
 *      transparent_hugepage/defrag "never" (the fault takes a free 2 MiB
 *      block if there is one, and neither reclaims nor compacts), the
 *      regions unmapped, then with "madvise" (a MADV_HUGEPAGE fault may
 *      compact: Linux's GFP_TRANSHUGE_LIGHT | __GFP_DIRECT_RECLAIM, mmlab's
 *      direct compaction for a costly order).
 * For each pass it prints the THPs the faults got (/proc/vmstat
 * thp_fault_alloc, thp_fault_fallback), the compaction counters
 * (compact_stall, compact_success, compact_fail, compact_migrate_scanned,
 * compact_free_scanned, compact_daemon_wake) and the time of the K faults:
 * under QEMU's -icount shift=0 a nanosecond is one guest instruction, so
 * the time is the instructions the faults took, compaction included.
 * Free blocks of order 9 and above before each pass (/proc/buddyinfo) are
 * printed too: a THP served from one needed no compaction.
 *
 * kcompactd's proactive compaction is turned off (compaction_proactiveness
 * 0) so that only the faults compact, and THP is enabled for MADV_HUGEPAGE
 * ranges ("madvise": Linux turns THP off on a machine of less than 512 MiB,
 * as single's 512 MiB less the firmware's is); every setting is put back
 * at the end. The program changes the machine's settings, so it runs only on a
 * machine of its own: on mmlab, or on Linux as a child of init (the
 * linux-* topologies' /init); elsewhere (the host's bench-user-linux) it
 * says so and does nothing. Needs CAP_SYS_ADMIN for pagemap's frame
 * numbers. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#define PAGE 4096ul
#define BLOCK_PAGES 512ul
#define MARGIN (32ul << 20)
#define PFN_MASK ((1ull << 55) - 1)

static const char *const ENABLED = "/sys/kernel/mm/transparent_hugepage/enabled";
static const char *const DEFRAG = "/sys/kernel/mm/transparent_hugepage/defrag";
static const char *const PROACTIVE = "/proc/sys/vm/compaction_proactiveness";

/* The word in brackets of a THP choice file ("always [madvise] never"). */
static bool chosen_word(const char *path, char *out, size_t size)
{
	char buf[256];
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	char *a = strchr(buf, '['), *b = a ? strchr(a, ']') : NULL;
	if (!a || !b || (size_t)(b - a) >= size)
		return false;
	memcpy(out, a + 1, (size_t)(b - a - 1));
	out[b - a - 1] = 0;
	return true;
}

/* Free blocks of order 9 and above, every node and zone (/proc/buddyinfo:
 * mmlab's columns go to order 18, Linux's to 10). */
static long free_order9_blocks(void)
{
	static char buf[16384];
	if (read_file("/proc/buddyinfo", buf, sizeof(buf)) <= 0)
		return -1;
	long n = 0;
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		char *z = strstr(line, "zone");
		if (z) {
			z += 4;
			while (*z == ' ')
				z++;
			while (*z && *z != ' ')
				z++; /* the zone's name */
			char *end;
			for (int order = 0;; order++) {
				long v = strtol(z, &end, 10);
				if (end == z)
					break;
				if (order >= 9)
					n += v << (order - 9);
				z = end;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return n;
}

static const char *const counters[] = { "thp_fault_alloc",    "thp_fault_fallback",      "compact_stall",
					"compact_success",    "compact_fail",            "compact_migrate_scanned",
					"compact_free_scanned", "compact_daemon_wake" };
#define NCOUNTERS (sizeof(counters) / sizeof(counters[0]))

static void read_counters(long *v)
{
	for (unsigned i = 0; i < NCOUNTERS; i++)
		v[i] = vmstat_value(counters[i]);
}

/* One pass: k THP faults with defrag set to mode. */
static int pass(const char *mode, unsigned long k)
{
	if (!write_file(DEFRAG, mode)) {
		printf("bench: compaction_frag: cannot set defrag to %s: %s\n", mode, errno_name(errno));
		return 1;
	}
	long blocks = free_order9_blocks();
	char *r = map_aligned_2m(k << 21, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	if (!r) {
		printf("bench: compaction_frag: no room for %lu regions of 2 MiB\n", k);
		return 1;
	}
	madvise(r, k << 21, MADV_HUGEPAGE);
	long before[NCOUNTERS], after[NCOUNTERS];
	read_counters(before);
	/* Each fault timed alone, and sorted by what it did: a THP with a
	 * direct compaction (compact_stall moved), a THP without one, a
	 * fallback to 4 KiB. The counters are read between the faults,
	 * outside the time. */
	long long t = 0, sum[3] = { 0 };
	long cnt[3] = { 0 };
	for (unsigned long i = 0; i < k; i++) {
		long stall0 = vmstat_value("compact_stall"), thp0 = vmstat_value("thp_fault_alloc");
		long long t0 = now_ns();
		r[i << 21] = 1;
		long long dt = now_ns() - t0;
		int kind = vmstat_value("thp_fault_alloc") == thp0 ? 2 : vmstat_value("compact_stall") != stall0 ? 0 : 1;
		t += dt;
		sum[kind] += dt;
		cnt[kind]++;
	}
	read_counters(after);
	long got = after[0] - before[0];
	printf("bench: compaction_frag: defrag %s: %ld of %lu THP faults got a 2 MiB page (%ld fell back), "
	       "%ld free blocks of order >= 9 before\n",
	       mode, got, k, after[1] - before[1], blocks);
	printf("bench: compaction_frag: defrag %s: compact_stall %ld, compact_success %ld, compact_fail %ld, "
	       "compact_migrate_scanned %ld, compact_free_scanned %ld, compact_daemon_wake %ld\n",
	       mode, after[2] - before[2], after[3] - before[3], after[4] - before[4], after[5] - before[5],
	       after[6] - before[6], after[7] - before[7]);
	printf("bench: compaction_frag: defrag %s: the %lu faults: %lld ns (%lld per fault)\n", mode, k, t,
	       t / (long long)k);
	static const char *const what[] = { "THP after a direct compaction", "THP without compaction",
					    "fallback to 4 KiB" };
	for (int i = 0; i < 3; i++)
		if (cnt[i])
			printf("bench: compaction_frag: defrag %s: %ld faults %s: %lld ns per fault\n", mode, cnt[i],
			       what[i], sum[i] / cnt[i]);
	munmap(r, k << 21);
	return 0;
}

int main(void)
{
	if (!on_mmlab() && getppid() != 1) {
		printf("bench: compaction_frag: skipped: it changes THP and compaction settings, so it runs only on "
		       "mmlab or on a Linux test machine (a child of its init)\n");
		return 0;
	}
	char defrag0[32], enabled0[32], proactive0[32] = "";
	if (!chosen_word(DEFRAG, defrag0, sizeof(defrag0)) || !chosen_word(ENABLED, enabled0, sizeof(enabled0))) {
		printf("bench: compaction_frag: skipped: no %s\n", DEFRAG);
		return 0;
	}
	read_file(PROACTIVE, proactive0, sizeof(proactive0));
	write_file(PROACTIVE, "0");
	if (!strcmp(enabled0, "never"))
		write_file(ENABLED, "madvise");

	unsigned long len = ((unsigned long)meminfo_kb("MemFree") << 10) - MARGIN;
	len &= ~(PAGE - 1);
	unsigned long n = len / PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t *pfns = malloc(n * sizeof(*pfns));
	unsigned char *kept = NULL;
	int ret = 1;
	if (p == MAP_FAILED || !pfns) {
		printf("bench: compaction_frag: no memory for %lu pages\n", n);
		goto out;
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	long long t0 = now_ns();
	for (unsigned long i = 0; i < n; i++)
		p[i * PAGE] = 1;
	long long fill_ns = now_ns() - t0;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0 || pread(fd, pfns, n * sizeof(*pfns), (off_t)((unsigned long)p / PAGE * 8)) !=
			      (ssize_t)(n * sizeof(*pfns))) {
		printf("bench: compaction_frag: pagemap: %s\n", errno_name(errno));
		goto out;
	}
	close(fd);
	/* Every other pageblock, but the first page of ours met in it. */
	unsigned long freed = 0, blocks_freed = 0, no_pfn = 0;
	uint64_t max_block = 0;
	for (unsigned long i = 0; i < n; i++)
		if ((pfns[i] >> 63) && (pfns[i] & PFN_MASK) / BLOCK_PAGES > max_block)
			max_block = (pfns[i] & PFN_MASK) / BLOCK_PAGES;
	kept = calloc(max_block + 1, 1);
	if (!kept)
		goto out;
	for (unsigned long i = 0; i < n; i++) {
		uint64_t pfn = pfns[i] & PFN_MASK;
		if (!(pfns[i] >> 63) || !pfn) {
			no_pfn++;
			continue;
		}
		uint64_t block = pfn / BLOCK_PAGES;
		if (!(block & 1))
			continue;
		if (!kept[block]) {
			kept[block] = 1;
			blocks_freed++;
			continue;
		}
		if (!madvise(p + i * PAGE, PAGE, MADV_DONTNEED))
			freed++;
	}
	if (no_pfn) {
		printf("bench: compaction_frag: pagemap gave no frame for %lu of %lu pages (CAP_SYS_ADMIN?)\n",
		       no_pfn, n);
		goto out;
	}
	unsigned long k = blocks_freed / 2;
	printf("bench: compaction_frag: %lu pages written (%lld ns), %lu given back from %lu pageblocks (all but "
	       "one page each); MemFree %ld kB; %lu THP attempts per pass\n",
	       n, fill_ns, freed, blocks_freed, meminfo_kb("MemFree"), k);
	if (!k)
		goto out;
	ret = pass("never", k) || pass("madvise", k);
out:
	write_file(DEFRAG, defrag0);
	write_file(ENABLED, enabled0);
	if (proactive0[0])
		write_file(PROACTIVE, proactive0);
	if (p != MAP_FAILED)
		munmap(p, len);
	free(pfns);
	free(kept);
	return ret;
}
