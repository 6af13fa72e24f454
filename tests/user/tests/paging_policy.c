/* A page reference trace played over anonymous memory while only about K
 * page frames are left to it, in the style of OSTEP's paging-policy.py,
 * on the runner's swap disk (common/swap_disk.h): what the kernel's
 * replacement policy (reclaim_policy=lru|fifo|clock on mmlab, Linux 6.1's
 * own LRU on Linux) makes of it, to hold beside the simulator's figures
 * (tools/paging_policy.py, which regenerates the same trace). The
 * walk-through and the measured table: docs/reclaim.md, "Replacement
 * policies for teaching".
 *
 * K frames: the program binds its memory to one node (MPOL_BIND, the
 * highest node with memory), and mlocks a filler there that leaves the
 * node's free memory at about its min watermark (computed from
 * min_free_kbytes as both kernels do) plus K pages. The trace's pages
 * then compete for what is above the watermarks. What it actually got is measured, not assumed: every 32
 * references mincore(2) counts the trace's resident pages, and the
 * smallest, mean and largest counts are reported.
 *
 * Each reference asks mincore(2) first whether its page is resident (a
 * hit) or not (a miss: first touch, or on the disk), then checks every
 * byte of the page (its first word counts its accesses, the others are
 * derived from its number) and writes it. A hit that still faulted
 * (getrusage's ru_minflt) found its page in the swap cache: reported as
 * swapcache_hits, and counted as the page entering the LRU again. Misses, getrusage's major
 * faults and vmstat's pswpin/pswpout are reported.
 *
 * The traces (the same generator as tools/paging_policy.py's):
 *   hotscan   rounds of H = K/8 hot pages, S/2 pages of a cold set of 2K
 *             pages taken in a cycle, the hot pages again, S/2 more cold
 *             ones (S = K/8): every policy misses the cold pages; FIFO
 *             also loses the hot ones, LRU and CLOCK keep them (a hot
 *             page is used again after S/2 + H references, far fewer
 *             than a clock's turn over K pages);
 *   locality  2K pages, 80% of the references to the first 20% of them,
 *             drawn with splitmix64 from the seed (OSTEP's 80-20 workload).
 * Options: --frames K --trace hotscan|locality --seed S --rounds R, or on
 * mmlab's command line paging_policy.frames=K ... (make run CMDLINE=...).
 *
 * What is checked, on the hotscan trace (never equality with the
 * simulator: reclaim works in batches, above watermarks, and shares the
 * node with the kernel's pages):
 *   - every byte read back is right; the trace did make pages go to swap;
 *   - the policy is the booted one: /proc/sys/vm/reclaim_policy on mmlab
 *     (Linux 6.1 has none: its LRU);
 *   - shown, not checked (how reclaim's passes fall against the uses is
 *     the scheduler's business): "long hits", hits on a page more than
 *     Kmax pages entered after it (Kmax: the largest resident count seen,
 *     plus the 32 references between two counts), which FIFO cannot
 *     have, among the hot references made after Kmax/S + 1 rounds; LRU
 *     keeps the hot pages on its active list, CLOCK gives second chances;
 *   - LRU activates the hot pages (the node's Active(anon), counted with
 *     the resident pages, grows by half of them at least at some point: a
 *     deep pass of kswapd can empty the lists, the active one too, before
 *     the end); FIFO and CLOCK activate nothing for references (it never
 *     grows by a quarter of them).
 * Runs in a child (the parent turns swap on before and off after the
 * child's exit freed its entries). */
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "numa_policy.h"
#include "swap_disk.h"

#define PAGE 4096ul
#define SAMPLE 32 /* references between two counts of the resident pages */

static int opt_argc;
static char **opt_argv;
static char cmdline[4096];

/* --name V or --name=V in argv, else paging_policy.name=V on /proc/cmdline
 * (a copy), else def. */
static const char *option(const char *name, const char *def)
{
	char key[64];
	snprintf(key, sizeof(key), "--%s", name);
	for (int i = 1; i < opt_argc; i++) {
		size_t n = strlen(key);
		if (!strcmp(opt_argv[i], key) && i + 1 < opt_argc)
			return opt_argv[i + 1];
		if (!strncmp(opt_argv[i], key, n) && opt_argv[i][n] == '=')
			return opt_argv[i] + n + 1;
	}
	snprintf(key, sizeof(key), "paging_policy.%s=", name);
	for (char *w = cmdline; (w = strstr(w, key)); w++) {
		if (w != cmdline && w[-1] != ' ')
			continue;
		w += strlen(key);
		return strndup(w, strcspn(w, " \n")); /* each option its own copy */
	}
	return def;
}

/* splitmix64 (Steele, Lea, Flood 2014): tools/paging_policy.py has the
 * same. */
static uint64_t rng_state;
static uint64_t next_random(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct trace {
	const char *kind;
	unsigned long frames, rounds, seed;
	unsigned long pages, hot, scan, refs;
	uint32_t *ref;
	uint64_t hash; /* FNV-1a over the page numbers as 4 little-endian bytes */
};

static bool make_trace(struct trace *t)
{
	unsigned long k = t->frames;
	t->hot = k / 8;
	t->scan = k / 8;
	t->refs = t->rounds * (2 * t->hot + t->scan);
	t->ref = malloc(t->refs * sizeof(*t->ref));
	if (!t->ref)
		return false;
	unsigned long n = 0;
	if (!strcmp(t->kind, "hotscan")) {
		unsigned long cold = 2 * k;
		t->pages = t->hot + cold;
		for (unsigned long r = 0; r < t->rounds; r++)
			for (unsigned long half = 0; half < 2; half++) {
				for (unsigned long h = 0; h < t->hot; h++)
					t->ref[n++] = (uint32_t)h;
				for (unsigned long j = half * t->scan / 2; j < (half + 1) * t->scan / 2; j++)
					t->ref[n++] = (uint32_t)(t->hot + (r * t->scan + j) % cold);
			}
	} else if (!strcmp(t->kind, "locality")) {
		t->pages = 2 * k;
		unsigned long hot = t->pages / 5;
		rng_state = t->seed;
		for (; n < t->refs; n++)
			t->ref[n] = (uint32_t)(next_random() % 100 < 80 ? next_random() % hot
									 : hot + next_random() % (t->pages - hot));
		t->hot = 0; /* no hot-set checks: the draw decides */
	} else {
		return false;
	}
	t->hash = 0xcbf29ce484222325ull;
	for (unsigned long i = 0; i < t->refs; i++)
		for (int b = 0; b < 4; b++)
			t->hash = (t->hash ^ ((t->ref[i] >> (8 * b)) & 0xff)) * 0x100000001b3ull;
	return true;
}

static long node_kb(int nid, const char *field)
{
	static char buf[8192];
	char path[96], key[64];
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", nid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	snprintf(key, sizeof(key), "Node %d %s", nid, field);
	char *l = strstr(buf, key);
	return l ? strtol(l + strlen(key), NULL, 10) : -1;
}

static long sysctl_long(const char *path)
{
	char buf[64];
	return read_file(path, buf, sizeof(buf)) > 0 ? strtol(buf, NULL, 10) : -1;
}

/* The node's min watermark in kB as both kernels compute it
 * (__setup_per_zone_wmarks: the node's share of min_free_kbytes by its
 * pages), from its MemTotal against the machine's; *high gets the high
 * one, two steps of max(min / 4, managed * watermark_scale_factor /
 * 10000) above it. */
static long min_watermark_kb(int nid, long *high)
{
	long mfk = sysctl_long("/proc/sys/vm/min_free_kbytes"), wsf = sysctl_long("/proc/sys/vm/watermark_scale_factor");
	long node_total = node_kb(nid, "MemTotal:"), total = meminfo_kb("MemTotal");
	if (mfk < 0 || node_total <= 0 || total <= 0)
		return -1;
	if (wsf < 0)
		wsf = 10;
	long min = (long)((long long)mfk * node_total / total);
	long step = min / 4 > node_total * wsf / 10000 ? min / 4 : node_total * wsf / 10000;
	*high = min + 2 * step;
	return min;
}

static long majflt(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_majflt;
}

static long minflt(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_minflt;
}

static inline uint64_t word_of(unsigned long page, unsigned long i) { return (page * 0x9e3779b97f4a7c15ull) ^ (i * 0x100000001b3ull); }

/* The policy in force and what the kernel is, for the report. */
static const char *policy_in_force(char *buf, size_t size, bool *mglru)
{
	*mglru = false;
	if (read_file("/proc/sys/vm/reclaim_policy", buf, size) > 0) {
		buf[strcspn(buf, "\n")] = 0;
		return buf;
	}
	char lg[32];
	if (read_file("/sys/kernel/mm/lru_gen/enabled", lg, sizeof(lg)) > 0 && strtol(lg, NULL, 0) & 1)
		*mglru = true;
	snprintf(buf, size, "%s", *mglru ? "mglru" : "lru");
	return buf;
}

/* How many of the n pages at p are mapped (pagemap's PM_PRESENT). */
static unsigned long mapped_pages(const void *p, unsigned long n, uint64_t *pm)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	unsigned long mapped = 0;
	if (fd >= 0 && pread(fd, pm, n * 8, (off_t)((uintptr_t)p / PAGE * 8)) == (ssize_t)(n * 8))
		for (unsigned long i = 0; i < n; i++)
			mapped += pm[i] >> 63;
	if (fd >= 0)
		close(fd);
	return mapped;
}

/* Filler chunks, mlocked on the bound node, unmapped at the end. */
static struct {
	void *p;
	size_t len;
} fillers[16];
static int nr_fillers;

/* len more bytes of filler (in 2 MiB pages where the kernel gives them,
 * MADV_HUGEPAGE: a fault per 2 MiB, not per 4 KiB), mlocked. */
static bool add_filler(size_t len)
{
	if (!CHECKF(nr_fillers < 16, "at most 16 filler chunks"))
		return false;
	void *p = map_aligned_2m(len, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	if (!CHECKF(p != NULL, "mmap of %zu kB of filler%s%s", len / 1024, p ? "" : ": ", p ? "" : errno_name(errno)))
		return false;
	madvise(p, len, MADV_HUGEPAGE);
	fillers[nr_fillers].p = p;
	fillers[nr_fillers++].len = len;
	int err = mlock(p, len) ? errno : 0;
	return CHECKF(!err, "mlock of %zu kB of filler%s%s", len / 1024, err ? ": " : "", err ? errno_name(err) : "");
}

static int child(void)
{
	char policy[32];
	bool mglru;
	policy_in_force(policy, sizeof(policy), &mglru);
	bool mmlab = on_mmlab();
	if (mmlab)
		CHECKF(!strcmp(policy, "lru") || !strcmp(policy, "fifo") || !strcmp(policy, "clock"),
		       "/proc/sys/vm/reclaim_policy names a policy: '%s'", policy);
	struct trace t = {
		.kind = option("trace", "hotscan"),
		.frames = strtoul(option("frames", "512"), NULL, 0),
		.rounds = strtoul(option("rounds", "32"), NULL, 0),
		.seed = strtoul(option("seed", "1"), NULL, 0),
	};
	if (t.frames < 64 || t.frames > 65536 || t.rounds < 2 || t.rounds > 1000 || !make_trace(&t))
		test_skip("no trace for trace=%s frames=%lu rounds=%lu (frames 64..65536, rounds 2..1000; "
			  "hotscan or locality)", t.kind, t.frames, t.rounds);

	/* One node: the highest with memory. */
	read_topology();
	int nid = 63 - __builtin_clzl(has_memory);
	unsigned long mask = 1ul << nid;
	if (set_mempolicy(MPOL_BIND, &mask, MAXNODE)) {
		CHECKF(false, "set_mempolicy(MPOL_BIND, node %d): %s", nid, errno_name(errno));
		return test_end();
	}
	run_on_node(nid);

	/* The filler: mlocked, it leaves about K pages above the min mark,
	 * where allocations stop and reclaim must free before they go on
	 * (kswapd, woken at the low mark, frees up to the high one). */
	long high = 0, min = min_watermark_kb(nid, &high), free0 = node_kb(nid, "MemFree:");
	long reserve = min + (long)(t.frames * PAGE / 1024) + 512; /* + 512 kB: page tables, the swap cache */
	/* What reclaim could take from the node before the trace's pages:
	 * its LRU lists but the unevictable one (on Linux the page cache,
	 * the initramfs's tmpfs pages, which swap is on for now). The filler
	 * takes their room too: its faults push them out. */
	long others = 0;
	static const char *const lists[] = { "Active(anon):", "Inactive(anon):", "Active(file):", "Inactive(file):" };
	for (int l = 0; l < 4; l++)
		others += node_kb(nid, lists[l]) > 0 ? node_kb(nid, lists[l]) : 0;
	size_t filler_len = free0 + others > reserve ? (size_t)(free0 + others - reserve) * 1024 / PAGE * PAGE : 0;
	char why[160];
	if (min < 0 || free0 < 0)
		test_skip("no node meminfo or watermark sysctls: K cannot be set");
	if (filler_len && !mlock_allowed((size_t)(free0 + others) * 1024, why, sizeof(why)))
		test_skip("the filler cannot be mlocked: %s", why);
	long long tf = now_ns();
	if (filler_len && !add_filler(filler_len))
		return test_end();
	long free1 = node_kb(nid, "MemFree:");
	note("node %d: MemFree %ld kB, on its LRU lists %ld kB, watermarks about min %ld kB, high %ld kB; filler "
	     "%zu kB mlocked in %lld ms; MemFree now %ld kB", nid, free0, others, min, high, filler_len / 1024,
	     (now_ns() - tf) / 1000000, free1);

	/* The trace's pages: 4 KiB pages only (a THP is never swapped here). */
	size_t len = t.pages * PAGE;
	unsigned char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		CHECKF(false, "mmap of %lu trace pages: %s", t.pages, errno_name(errno));
		return test_end();
	}
	madvise(mem, len, MADV_NOHUGEPAGE);
	unsigned char *vec = malloc(t.pages);
	uint64_t *version = calloc(t.pages, sizeof(*version));
	unsigned long *inserted = calloc(t.pages, sizeof(*inserted));
	if (!vec || !version || !inserted)
		test_skip("no memory for the bookkeeping");

	/* The node may hold other memory reclaim can take before the
	 * trace's (Linux: the page cache, the initramfs's tmpfs pages once
	 * swap is on). Calibration: every trace page written once; while
	 * more than K + K/8 of them stayed mapped, more filler, as much as
	 * the excess, and again. Mapped, not resident: Linux writes to swap
	 * asynchronously, and a page under writeback, unmapped, still counts
	 * as resident for mincore until a later pass frees it. Then MADV_DONTNEED empties the region: the
	 * trace starts with no page, as the simulator's memory. */
	unsigned long resident = 0;
	uint64_t *pm = malloc(t.pages * sizeof(*pm));
	if (!pm)
		test_skip("no memory for the bookkeeping");
	for (int round = 0; round < 8; round++) {
		for (unsigned long p = 0; p < t.pages; p++)
			mem[p * PAGE] = 1;
		resident = mapped_pages(mem, t.pages, pm);
		note("calibration %d: %lu of %lu trace pages mapped", round + 1, resident, t.pages);
		if (resident <= t.frames + t.frames / 8)
			break;
		if (!add_filler((resident - t.frames) * PAGE))
			return test_end();
		filler_len += (resident - t.frames) * PAGE;
	}
	int dontneed = madvise(mem, len, MADV_DONTNEED) ? errno : 0;
	CHECKF(!dontneed, "MADV_DONTNEED empties the trace's pages%s%s", dontneed ? ": " : "",
	       dontneed ? errno_name(dontneed) : "");

	long act0 = node_kb(nid, "Active(anon):"), maj0 = majflt(), min0 = minflt();
	long in0 = vmstat_value("pswpin"), out0 = vmstat_value("pswpout");
	unsigned long misses = 0, hot_misses = 0, insertions = 0, bad = 0, samples = 0, cache_hits = 0;
	unsigned long kmin = ~0ul, kmax = 0, ksum = 0;
	long act_max = 0; /* the node's Active(anon) growth, at its largest */
	/* Each hit's distance in insertions since its page entered, kept to
	 * judge against Kmax once it is known. */
	unsigned long *hit_age = malloc(t.refs * sizeof(*hit_age));
	unsigned long nr_hits = 0;
	if (!hit_age)
		test_skip("no memory for the bookkeeping");
	long long t0 = now_ns();
	for (unsigned long i = 0; i < t.refs; i++) {
		if (i % SAMPLE == 0 && mincore(mem, len, vec) == 0) {
			unsigned long r = 0;
			for (unsigned long p = 0; p < t.pages; p++)
				r += vec[p] & 1;
			kmax = r > kmax ? r : kmax;
			long a = node_kb(nid, "Active(anon):") - act0;
			act_max = a > act_max ? a : act_max;
			/* The smallest and the mean once memory is full: as many
			 * pages entered as the trace has, or half of it played. */
			if (insertions >= t.pages || i >= t.refs / 2) {
				kmin = r < kmin ? r : kmin;
				ksum += r;
				samples++;
			}
		}
		unsigned long p = t.ref[i];
		unsigned char v = 0;
		uint64_t *w = (uint64_t *)(mem + p * PAGE);
		bool hit = mincore(w, PAGE, &v) == 0 && (v & 1);
		long faults = hit ? minflt() : 0;
		if (hit) {
			hit_age[nr_hits++] = insertions - inserted[p];
		} else {
			misses++;
			hot_misses += p < t.hot;
			inserted[p] = ++insertions;
		}
		/* Every byte: the first word counts the accesses, the rest is the
		 * page's own (zero before the first write). */
		bool ok = w[0] == version[p];
		for (unsigned long k = 1; ok && k < PAGE / 8; k++)
			ok = w[k] == (version[p] ? word_of(p, k) : 0);
		bad += !ok;
		if (!version[p])
			for (unsigned long k = 1; k < PAGE / 8; k++)
				w[k] = word_of(p, k);
		w[0] = ++version[p];
		/* A hit that faulted: the page was in the swap cache, unmapped
		 * (on its way out, or read ahead on Linux); the fault mapped it
		 * again and reclaim puts it back at the head of its list, as a
		 * page entering it. */
		if (hit && minflt() != faults) {
			cache_hits++;
			inserted[p] = ++insertions;
		}
	}
	long long ns = now_ns() - t0;
	long act = node_kb(nid, "Active(anon):") - act0;
	act_max = act > act_max ? act : act_max;
	long maj = majflt() - maj0, mnr = minflt() - min0;
	long in = vmstat_value("pswpin") - in0, out = vmstat_value("pswpout") - out0;
	unsigned long kbound = kmax + SAMPLE, long_hits = 0, hot_refs_after = 0;
	/* The hot references made once Kmax pages could have entered since
	 * the hot pages did: from round ceil(Kbound / S) + 1 on. */
	unsigned long settle = t.scan ? (kbound + t.scan - 1) / t.scan + 1 : t.rounds;
	if (settle < t.rounds)
		hot_refs_after = 2 * t.hot * (t.rounds - settle);
	for (unsigned long h = 0; h < nr_hits; h++)
		long_hits += hit_age[h] > kbound;

	printf("paging_policy: kernel=%s policy=%s trace=%s frames=%lu seed=%lu rounds=%lu pages=%lu refs=%lu "
	       "hash=%016llx resident_min=%lu resident_mean=%lu resident_max=%lu misses=%lu hot_misses=%lu "
	       "long_hits=%lu swapcache_hits=%lu majflt=%ld minflt=%ld pswpin=%ld pswpout=%ld active_anon_max_kb=%ld ms=%lld\n",
	       mmlab ? "mmlab" : "linux", policy, t.kind, t.frames, t.seed, t.rounds, t.pages, t.refs,
	       (unsigned long long)t.hash, samples ? kmin : 0, samples ? ksum / samples : 0, kmax, misses, hot_misses,
	       long_hits, cache_hits, maj, mnr, in, out, act_max, ns / 1000000);

	CHECKF(bad == 0, "every byte of every page right at each of %lu references (%lu pages wrong)", t.refs, bad);
	CHECKF(misses >= t.pages && misses <= t.refs, "misses %lu: at least the %lu first touches, at most the %lu references",
	       misses, t.pages, t.refs);
	CHECKF(out > 0 && kmax < t.pages, "the trace did not fit: pages went to swap (pswpout +%ld), at most %lu of %lu resident",
	       out, kmax, t.pages);
	if (strcmp(t.kind, "hotscan")) {
		note("trace %s: figures only (the policy checks need the hotscan trace)", t.kind);
	} else if (!hot_refs_after) {
		check_skip("Kmax %lu leaves no round in which FIFO must have lost the hot pages (%lu rounds of %lu new "
			   "pages): more rounds or fewer frames", kmax, t.rounds, t.scan);
	} else {
		/* What each does with the hot references made after the
		 * settling rounds: FIFO cannot keep a page past Kmax
		 * insertions, LRU keeps the hot pages on its active list,
		 * CLOCK gives each a second chance. How many survive is shown,
		 * not checked: it depends on how reclaim's passes fall against
		 * the uses, which the scheduler decides. kswapd frees the high
		 * watermark's worth in one pass, and a pass at a low priority
		 * can empty the inactive list (and then age the active one
		 * into it) or take the clock's hand round the whole list
		 * twice, clearing a hot page's bit and then taking it before
		 * its next use (one pass took the trace from 531 resident
		 * pages to 20); and under FIFO a page reclaim had to keep (no
		 * I/O allowed to the allocation that reclaimed, a swap-out
		 * that could not unmap it) goes back to the list's head, a new
		 * life. Of 2,816 such references, LRU showed 534 to 2,987,
		 * CLOCK 170 to 3,002, and FIFO 0 in every run but one, on a
		 * host loaded with five other jobs: 191. LRU and CLOCK differ
		 * in the activations, checked below. */
		printf("figure: %s: %lu of the %lu hot references after round %lu hit pages more than Kmax+%d = %lu "
		       "insertions old (fifo: none expected; lru: the hot set kept; clock: second chances)\n",
		       policy, long_hits, hot_refs_after, settle, SAMPLE, kbound);
		if (mglru)
			check_skip("the multi-gen LRU counts generations as Active, not activations");
		else if (!mmlab)
			/* Linux 6.1 activates an anonymous page seen referenced
			 * by two scans (folio_check_references), and puts a
			 * refault of the working set straight on the active
			 * list: how many, over a trace this short, is how its
			 * scans fall (one run grew it by 108 kB of 256). */
			note("lru: the node's Active(anon) grew by up to %ld kB (%ld kB at the end) for %lu hot pages",
			     act_max, act, t.hot);
		else if (!strcmp(policy, "lru"))
			CHECKF(act_max * 1024 >= (long)(t.hot / 2 * PAGE),
			       "lru: the node's Active(anon) grew by up to %ld kB (%ld kB at the end), at least half the "
			       "%lu hot pages", act_max, act, t.hot);
		else
			CHECKF(act_max * 1024 < (long)(t.hot / 4 * PAGE),
			       "%s: the node's Active(anon) grew by up to %ld kB, less than a quarter of the %lu hot pages "
			       "(nothing activated for its references)", policy, act_max, t.hot);
	}
	munmap(mem, len);
	for (int f = 0; f < nr_fillers; f++)
		munmap(fillers[f].p, fillers[f].len);
	return test_end();
}

int main(int argc, char **argv)
{
	test_begin("paging_policy");
	opt_argc = argc;
	opt_argv = argv;
	read_file("/proc/cmdline", cmdline, sizeof(cmdline));
	return swap_run_child(child, "child");
}
