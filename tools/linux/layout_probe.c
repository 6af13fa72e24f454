/* layout_probe: run by the Linux guest's init (run=layout_probe) on a machine
 * whose SRAT is one of the hostile generator's NUMA layout classes
 * (tools/linux/compare-layouts.sh boots it). It prints, as lines starting
 * "layout: ", what Linux made of the layout, and checks where Linux places
 * memory bound to each node:
 *
 *   - the nodes: /sys/devices/system/node/{possible,online,has_memory,
 *     has_normal_memory,has_cpu} and each node's distance row;
 *   - the SRAT Linux was given (/sys/firmware/acpi/tables/SRAT): its Memory
 *     Affinity ranges per proximity domain, and the node Linux made of each
 *     domain (from its "SRAT: Node N PXM P" and "SRAT: PXM P -> APIC a ->
 *     Node N" lines; acpi_map_pxm_to_node numbers domains in the order the
 *     table first names them, CPU entries first, so node != pxm in general);
 *   - each node's MemTotal and MemFree (nodeN/meminfo), /proc/buddyinfo and
 *     /proc/zoneinfo's spanned, present and managed pages per zone;
 *   - the kernel log's lines about NUMA, SRAT, nodes and zones ("dmesg: ");
 *   - placement: for each node with memory, in a child process (a node with
 *     no free page gets the child killed, not the probe), an anonymous
 *     mapping bound to the node (mbind MPOL_BIND, no transparent huge
 *     pages) is touched page by page; move_pages(2) with no target says
 *     which node each page is on, and /proc/self/pagemap (root: the PFNs)
 *     where it is, which must lie wholly in SRAT ranges of that node's
 *     domains.
 *
 * The last line is "layout: summary ...". Exit status 0 if every page was
 * on its node and in its node's ranges, 1 otherwise. Built static (musl), no
 * libnuma: mbind and move_pages are raw system calls. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE ((uint64_t)4096)
#define MAX_NODES 64
#define MAX_RANGES 512
#define MPOL_BIND 2
#define PLACE_PAGES 16384 /* 64 MiB */

struct range {
	uint32_t pxm;
	uint64_t base, len;
	bool enabled;
};

static struct range ranges[MAX_RANGES];
static unsigned nranges;
static int pxm_node[256]; /* -1: unknown */
static char *klog;

static void read_file(const char *path, char *buf, size_t size)
{
	buf[0] = 0;
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(buf, size, "(%s)", strerror(errno));
		return;
	}
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

/* "0-2,5" -> mask. */
static uint64_t parse_list(const char *s)
{
	uint64_t m = 0;
	while (*s && isdigit((unsigned char)*s)) {
		char *e;
		unsigned a = (unsigned)strtoul(s, &e, 10), b = a;
		if (*e == '-')
			b = (unsigned)strtoul(e + 1, &e, 10);
		for (unsigned i = a; i <= b && i < MAX_NODES; i++)
			m |= 1ull << i;
		s = *e == ',' ? e + 1 : e;
	}
	return m;
}

static void read_srat(void)
{
	static uint8_t t[65536];
	int fd = open("/sys/firmware/acpi/tables/SRAT", O_RDONLY);
	if (fd < 0) {
		printf("layout: srat none (%s)\n", strerror(errno));
		return;
	}
	ssize_t n = 0, r;
	while ((r = read(fd, t + n, sizeof(t) - (size_t)n)) > 0)
		n += r;
	close(fd);
	int first_node = 0;
	for (ssize_t off = 48; off + 2 <= n;) {
		uint8_t type = t[off], len = t[off + 1];
		if (len < 2 || off + len > n)
			break;
		uint32_t pxm = 0;
		if (type == 0 && len >= 16) /* Processor Local APIC Affinity */
			pxm = t[off + 2] | (uint32_t)t[off + 9] << 8 | (uint32_t)t[off + 10] << 16 |
			      (uint32_t)t[off + 11] << 24;
		if (type == 1 && len >= 40) { /* Memory Affinity */
			memcpy(&pxm, t + off + 2, 4);
			struct range *g = &ranges[nranges < MAX_RANGES ? nranges++ : MAX_RANGES - 1];
			uint32_t lo, hi, flags;
			g->pxm = pxm;
			memcpy(&lo, t + off + 8, 4), memcpy(&hi, t + off + 12, 4);
			g->base = (uint64_t)hi << 32 | lo;
			memcpy(&lo, t + off + 16, 4), memcpy(&hi, t + off + 20, 4);
			g->len = (uint64_t)hi << 32 | lo;
			memcpy(&flags, t + off + 28, 4);
			g->enabled = flags & 1;
		}
		/* acpi_map_pxm_to_node's numbering, in case the log lost a line. */
		if ((type == 0 || type == 1) && pxm < 256 && pxm_node[pxm] < 0)
			pxm_node[pxm] = -2 - first_node++;
		off += len;
	}
}

/* The kernel log, and the node Linux gave each domain from its SRAT lines. */
static void read_klog(void)
{
	int size = klogctl(10, NULL, 0); /* SYSLOG_ACTION_SIZE_BUFFER */
	if (size <= 0)
		size = 1 << 20;
	klog = calloc(1, (size_t)size + 1);
	int n = klogctl(3, klog, size); /* SYSLOG_ACTION_READ_ALL */
	klog[n > 0 ? n : 0] = 0;
	for (char *l = klog; *l;) {
		char *e = strchr(l, '\n');
		unsigned node, pxm, apic;
		char *s;
		if ((s = strstr(l, "SRAT: Node ")) && sscanf(s, "SRAT: Node %u PXM %u", &node, &pxm) == 2 &&
		    pxm < 256)
			pxm_node[pxm] = (int)node;
		if ((s = strstr(l, "SRAT: PXM ")) &&
		    sscanf(s, "SRAT: PXM %u -> APIC 0x%x -> Node %u", &pxm, &apic, &node) == 3 && pxm < 256)
			pxm_node[pxm] = (int)node;
		if (!e)
			break;
		l = e + 1;
	}
}

static int node_of_pxm(uint32_t pxm)
{
	if (pxm >= 256)
		return -1;
	return pxm_node[pxm] >= 0 ? pxm_node[pxm] : pxm_node[pxm] <= -2 ? -2 - pxm_node[pxm] : -1;
}

static void print_klog(void)
{
	static const char *const words[] = { "NUMA", "SRAT", "node", "Node", "zone", "Zone",
					     "memoryless", "Initmem", "e820", "Movable", "NODE_DATA",
					     "mempolicy", "zonelist", "RAMDISK", "Freeing", "Memory:",
					     NULL };
	unsigned printed = 0;
	for (char *l = klog; *l;) {
		char *e = strchr(l, '\n');
		if (e)
			*e = 0;
		for (int i = 0; words[i]; i++)
			if (strstr(l, words[i])) {
				printf("dmesg: %s\n", l);
				printed++;
				break;
			}
		if (!e)
			break;
		*e = '\n';
		l = e + 1;
	}
	printf("layout: dmesg %u lines above\n", printed);
}

static void print_meminfo(int node)
{
	char path[128], line[256];
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	FILE *f = fopen(path, "r");
	unsigned long total = 0, freek = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *s;
		if ((s = strstr(line, "MemTotal:")))
			total = strtoul(s + 9, NULL, 10);
		if ((s = strstr(line, "MemFree:")))
			freek = strtoul(s + 8, NULL, 10);
	}
	fclose(f);
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/distance", node);
	read_file(path, line, sizeof(line));
	printf("layout: node %d MemTotal %lu kB MemFree %lu kB distance %s\n", node, total, freek, line);
}

static void print_zones(void)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	char line[256], zone[32] = "";
	int node = -1;
	unsigned long spanned = 0, present = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long v;
		if (sscanf(line, "Node %d, zone %31s", &node, zone) == 2)
			continue;
		if (sscanf(line, " spanned %lu", &v) == 1)
			spanned = v;
		else if (sscanf(line, " present %lu", &v) == 1)
			present = v;
		else if (sscanf(line, " managed %lu", &v) == 1 && (spanned || present || v))
			printf("layout: zone node %d %-7s spanned %lu present %lu managed %lu\n", node, zone,
			       spanned, present, v);
	}
	fclose(f);
	f = fopen("/proc/buddyinfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		printf("layout: buddyinfo %s\n", line);
	}
	fclose(f);
}

/* Bytes of [pa, pa + PAGE) in the SRAT ranges of domains that are node n. */
static uint64_t in_node(uint64_t pa, int n)
{
	uint64_t in = 0;
	for (unsigned i = 0; i < nranges; i++) {
		const struct range *g = &ranges[i];
		if (!g->enabled || node_of_pxm(g->pxm) != n)
			continue;
		uint64_t a = pa > g->base ? pa : g->base, b = pa + PAGE < g->base + g->len ? pa + PAGE : g->base + g->len;
		if (b > a)
			in += b - a;
	}
	return in;
}

/* The child's work: PLACE_PAGES pages bound to node n. Exit 0 if all right. */
static int place(int n, unsigned long pages)
{
	size_t len = pages * PAGE;
	int adj = open("/proc/self/oom_score_adj", O_WRONLY);
	if (adj >= 0) /* the OOM killer's first choice, if the node cannot give the pages */
		(void)!write(adj, "1000", 4), close(adj);
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("layout: place node %d: mmap: %s\n", n, strerror(errno));
		return 2;
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	unsigned long mask[MAX_NODES / 64 + 1] = { 0 };
	mask[n / 64] = 1ul << (n % 64);
	if (syscall(SYS_mbind, p, len, MPOL_BIND, mask, (unsigned long)MAX_NODES + 1, 0)) {
		printf("layout: place node %d: mbind: %s\n", n, strerror(errno));
		return 2;
	}
	for (size_t i = 0; i < len; i += PAGE)
		p[i] = 1;
	void **addr = calloc(pages, sizeof(*addr));
	int *status = calloc(pages, sizeof(*status));
	for (unsigned long i = 0; i < pages; i++)
		addr[i] = p + i * PAGE;
	if (syscall(SYS_move_pages, 0, pages, addr, NULL, status, 0)) {
		printf("layout: place node %d: move_pages: %s\n", n, strerror(errno));
		return 2;
	}
	int fd = open("/proc/self/pagemap", O_RDONLY);
	unsigned long on_node = 0, in_ranges = 0, other = 0, straddling = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	char first_wrong[160] = "";
	for (unsigned long i = 0; i < pages; i++) {
		uint64_t e = 0;
		if (pread(fd, &e, 8, (off_t)(((uintptr_t)p / PAGE + i) * 8)) != 8 || !(e >> 63)) {
			snprintf(first_wrong, sizeof(first_wrong), "page %lu: no pagemap entry", i);
			continue;
		}
		uint64_t pa = (e & ((1ull << 55) - 1)) * PAGE;
		if (!pa) { /* no PFN: not root */
			snprintf(first_wrong, sizeof(first_wrong), "page %lu: pagemap gives no PFN", i);
			continue;
		}
		lo = pa < lo ? pa : lo, hi = pa > hi ? pa : hi;
		on_node += status[i] == n;
		uint64_t bytes_in = in_node(pa, n);
		bool in = bytes_in == PAGE;
		in_ranges += in;
		straddling += bytes_in && !in;
		if (!in || status[i] != n) {
			other++;
			if (other <= 4) { /* the first few, as they come */
				int pxm = -1;
				for (unsigned k = 0; k < nranges; k++)
					if (pa >= ranges[k].base && pa < ranges[k].base + ranges[k].len)
						pxm = (int)ranges[k].pxm;
				printf("layout: place node %d: wrong page %lu at 0x%" PRIx64 " (move_pages: node %d; "
				       "SRAT pxm %d at its start; %" PRIu64 " of its bytes in node %d's ranges)\n",
				       n, i, pa, status[i], pxm, bytes_in, n);
			}
		}
	}
	close(fd);
	printf("layout: place node %d: %lu pages, move_pages on node %d: %lu, wholly in node %d's SRAT ranges: "
	       "%lu (%lu partly), physical 0x%" PRIx64 "-0x%" PRIx64 " %s\n",
	       n, pages, n, on_node, n, in_ranges, straddling, lo == UINT64_MAX ? 0 : lo, hi + PAGE,
	       on_node == pages && in_ranges == pages ? "ok" : "WRONG");
	if (first_wrong[0])
		printf("layout: place node %d: %s\n", n, first_wrong);
	return on_node == pages && in_ranges == pages ? 0 : 1;
}

int main(void)
{
	char buf[512];
	struct utsname u;
	setvbuf(stdout, NULL, _IOLBF, 0);
	uname(&u);
	printf("layout: kernel %s %s\n", u.release, u.version);
	for (int i = 0; i < 256; i++)
		pxm_node[i] = -1;
	read_srat();
	read_klog();
	static const char *const lists[] = { "possible", "online", "has_memory", "has_normal_memory",
					     "has_cpu", NULL };
	uint64_t has_memory = 0;
	for (int i = 0; lists[i]; i++) {
		char path[128];
		snprintf(path, sizeof(path), "/sys/devices/system/node/%s", lists[i]);
		read_file(path, buf, sizeof(buf));
		printf("layout: nodes %s %s\n", lists[i], buf);
		if (!strcmp(lists[i], "has_memory"))
			has_memory = parse_list(buf);
	}
	read_file("/sys/devices/system/cpu/online", buf, sizeof(buf));
	printf("layout: cpus online %s\n", buf);

	/* The SRAT per domain. */
	printf("layout: srat %u memory ranges\n", nranges);
	for (uint32_t pxm = 0; pxm < 256; pxm++) {
		uint64_t bytes = 0;
		unsigned k = 0;
		uint64_t lo = UINT64_MAX, hi = 0;
		for (unsigned i = 0; i < nranges; i++)
			if (ranges[i].pxm == pxm && ranges[i].enabled) {
				bytes += ranges[i].len, k++;
				lo = ranges[i].base < lo ? ranges[i].base : lo;
				hi = ranges[i].base + ranges[i].len > hi ? ranges[i].base + ranges[i].len : hi;
			}
		if (k)
			printf("layout: srat pxm %u -> node %d%s: %u ranges, %" PRIu64
			       " bytes (span 0x%" PRIx64 "-0x%" PRIx64 ")\n",
			       pxm, node_of_pxm(pxm), pxm_node[pxm] >= 0 ? "" : " (from the table's order)", k,
			       bytes, lo, hi);
	}
	for (int n = 0; n < MAX_NODES; n++) {
		char path[128];
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", n);
		if (access(path, F_OK) == 0)
			print_meminfo(n);
	}
	print_zones();
	print_klog();

	/* Never the OOM killer's choice while a child asks a small node for
	 * more than it has (a bound allocation kills a task, not the call). */
	int adj = open("/proc/self/oom_score_adj", O_WRONLY);
	if (adj >= 0)
		(void)!write(adj, "-1000", 5), close(adj);
	unsigned checked = 0, right = 0;
	for (int n = 0; n < MAX_NODES; n++) {
		if (!(has_memory >> n & 1))
			continue;
		checked++;
		/* Half the node's free memory, at most PLACE_PAGES, at least one page. */
		char path[128], line[256];
		unsigned long pages = PLACE_PAGES, free_kb = 0;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", n);
		FILE *f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (strstr(line, "MemFree:"))
				free_kb = strtoul(strstr(line, "MemFree:") + 8, NULL, 10);
		if (f)
			fclose(f);
		if (free_kb / 8 < pages)
			pages = free_kb / 8 ? free_kb / 8 : 1;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0)
			_exit(place(n, pages));
		int st = 0;
		waitpid(pid, &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			right++;
		else if (WIFSIGNALED(st))
			printf("layout: place node %d: killed by signal %d\n", n, WTERMSIG(st));
	}
	/* Where the kernel image lies (KASLR moves it each boot), and what the
	 * OOM killer said about a node that could not give its pages. */
	FILE *io = fopen("/proc/iomem", "r");
	while (io && fgets(buf, sizeof(buf), io))
		if (strstr(buf, "Kernel "))
			printf("layout: iomem %s", buf + strspn(buf, " "));
	if (io)
		fclose(io);
	free(klog);
	read_klog();
	for (char *l = klog, *e; l && *l; l = e ? e + 1 : NULL) {
		if ((e = strchr(l, '\n')))
			*e = 0;
		if (strstr(l, "invoked oom-killer") || strstr(l, "oom-kill:") || strstr(l, "Out of memory"))
			printf("dmesg: %s\n", l);
		if (!e)
			break;
	}
	read_file("/sys/devices/system/node/has_memory", buf, sizeof(buf));
	printf("layout: summary booted; nodes with memory %s; placement right on %u of %u nodes\n", buf, right,
	       checked);
	return right == checked ? 0 : 1;
}
