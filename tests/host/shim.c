/* The host shim (see shim.h). This file is the only one that includes libc
 * headers next to the kernel's: the portable mm code sees only the kernel's
 * declarations, which have libc's signatures. */
#include "tests/host/shim.h"
#include "mm/hugetlb.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/swap.h"
#include "arch/x86_64/traps.h"
#include "kernel/ksyms.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The tick never runs on the host: lib/ratelimit.c reads jiffies. */
volatile u64 jiffies;

/* ---- printk ------------------------------------------------------------ */

int console_loglevel = LOGLEVEL_DEFAULT;
unsigned long host_printk_bytes;

static const char *line_prefix;
static bool at_line_start = true;
static struct printk_capture *capture;

void host_printk_init(void)
{
	const char *e = getenv("MMLAB_LOGLEVEL");
	if (e && *e)
		console_loglevel = atoi(e);
	setvbuf(stdout, NULL, _IOLBF, 0);
}

const char *printk_set_line_prefix(const char *prefix)
{
	const char *old = line_prefix;
	line_prefix = prefix;
	return old;
}

void printk_capture_begin(struct printk_capture *cap, char *buf, size_t size)
{
	cap->buf = buf;
	cap->size = size;
	cap->len = 0;
	if (size)
		buf[0] = 0;
	cap->outer = capture;
	capture = cap;
}

void printk_capture_end(struct printk_capture *cap)
{
	capture = cap->outer;
}

static void console_emit(const char *s, size_t len)
{
	host_printk_bytes += len;
	if (capture) {
		for (size_t i = 0; i < len && capture->len + 1 < capture->size; i++)
			capture->buf[capture->len++] = s[i];
		if (capture->size)
			capture->buf[capture->len] = 0;
		return;
	}
	fwrite(s, 1, len, stdout);
}

/* Every console line gets the line prefix (KTAP "    # " while a case runs). */
static void console_write(const char *s, size_t len)
{
	while (len) {
		if (at_line_start && line_prefix && !capture)
			console_emit(line_prefix, strlen(line_prefix));
		const char *nl = memchr(s, '\n', len);
		size_t n = nl ? (size_t)(nl - s) + 1 : len;
		console_emit(s, n);
		at_line_start = nl != NULL;
		s += n;
		len -= n;
	}
}

int vprintk(const char *fmt, va_list ap)
{
	int level = MESSAGE_LOGLEVEL_DEFAULT;
	bool always = false;
	if (fmt[0] == KERN_SOH[0] && fmt[1]) {
		if (fmt[1] == '!')
			always = true;
		else if (fmt[1] >= '0' && fmt[1] <= '7')
			level = fmt[1] - '0';
		fmt += 2;
	}
	char buf[1024];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n < 0)
		return n;
	size_t len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
	/* Captures see everything, as the kernel's do: a test that checks a
	 * message must not depend on the log level. */
	if (always || capture || level <= console_loglevel)
		console_write(buf, len);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

/* ---- panic ------------------------------------------------------------- */

void panic_exit(void)
{
	fflush(stdout);
	abort();
}

void panic(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	capture = NULL;
	printk(KERN_EMERG "\nKernel panic: %s\n", buf);
	fprintf(stderr, "Kernel panic: %s\n", buf);
	panic_exit();
}

/* ---- strings libc lacks -------------------------------------------------- */

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);
	if (size) {
		size_t c = n < size - 1 ? n : size - 1;
		memcpy(dst, src, c);
		dst[c] = 0;
	}
	return n;
}

size_t strlcat(char *dst, const char *src, size_t size)
{
	size_t d = strnlen(dst, size);
	if (d == size)
		return size + strlen(src);
	return d + strlcpy(dst + d, src, size - d);
}

/* ---- "physical memory" -------------------------------------------------- */

struct page *host_vmemmap;
u8 *host_phys_base;
/* mm/page_alloc.c defines it; programs without the page allocator (the
 * memblock test) get this one. */
__attribute__((weak)) u8 mem_section_present[NR_MEM_SECTIONS / 8];
u64 host_phys_bytes;
static bool mem_mmapped;
static size_t vmemmap_bytes;
unsigned long host_vmemmap_pages;

#define HOST_MMAP_THRESHOLD GiB(1)

void host_mem_free(void)
{
	if (!host_phys_base)
		return;
	if (mem_mmapped) {
		munmap(host_phys_base, host_phys_bytes);
		munmap(host_vmemmap, vmemmap_bytes);
	} else {
		free(host_phys_base);
		free(host_vmemmap);
	}
	host_phys_base = NULL;
	host_vmemmap = NULL;
	host_phys_bytes = 0;
	memset(mem_section_present, 0, sizeof(mem_section_present));
}

static void *map_noreserve(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

void host_mem_init(u64 bytes)
{
	host_mem_free();
	bytes = ALIGN_UP(bytes, PAGE_SIZE);
	unsigned long pages = bytes >> PAGE_SHIFT;
	/* The vmemmap is populated per section, as in the kernel: a buddy pfn
	 * past the end of memory but inside its section has a struct page. */
	unsigned long sections = (pages + PAGES_PER_SECTION - 1) >> PFN_SECTION_SHIFT;
	host_vmemmap_pages = sections << PFN_SECTION_SHIFT;
	vmemmap_bytes = host_vmemmap_pages * sizeof(struct page);
	mem_mmapped = bytes > HOST_MMAP_THRESHOLD;
	if (mem_mmapped) {
		host_phys_base = map_noreserve(bytes);
		host_vmemmap = map_noreserve(vmemmap_bytes);
	} else {
		host_phys_base = aligned_alloc(PAGE_SIZE, bytes);
		host_vmemmap = calloc(host_vmemmap_pages, sizeof(struct page));
		if (!host_phys_base || !host_vmemmap) {
			fprintf(stderr, "host_mem_init: out of memory for %llu bytes\n",
				(unsigned long long)bytes);
			exit(2);
		}
	}
	host_phys_bytes = bytes;
	for (unsigned long s = 0; s < sections; s++)
		mem_section_present[s / 8] |= (u8)(1u << (s % 8));
}

/* ---- NUMA topology ------------------------------------------------------ */

void host_numa_setup(const struct host_mm_config *cfg)
{
	struct numa_topology *t = &numa_topology;
	numa_topology_reset(t);
	t->nr_nodes = cfg->nr_nodes;
	t->have_srat = t->have_slit = true;
	u64 base = 0;
	for (unsigned i = 0; i < cfg->nr_ranges && t->nr_memblks < MAX_NUMA_MEMBLKS; i++) {
		const struct numa_memblk *b = &cfg->ranges[i];
		t->memblks[t->nr_memblks++] = *b;
		t->nodes[b->nid].declared_bytes += b->end - b->start;
		t->nodes[b->nid].ram_bytes += b->end - b->start;
	}
	for (unsigned n = 0; n < cfg->nr_nodes; n++) {
		t->nodes[n].pxm = n;
		t->nodes[n].nr_cpus = 1;
		if (!cfg->nr_ranges) {
			t->nodes[n].declared_bytes = t->nodes[n].ram_bytes = cfg->node_bytes[n];
			if (cfg->node_bytes[n])
				t->memblks[t->nr_memblks++] =
					(struct numa_memblk){ base, base + cfg->node_bytes[n], (int)n };
			base += cfg->node_bytes[n];
		}
		t->cpus[t->nr_cpus++] = (struct numa_cpu){
			.apic_id = n, .acpi_uid = n, .nid = (int)n, .boot_cpu = n == 0 };
	}
	unsigned nn = cfg->nr_nodes;
	for (unsigned a = 0; a < MAX_NUMNODES; a++)
		for (unsigned b = 0; b < MAX_NUMNODES; b++) {
			unsigned d = a > b ? a - b : b - a;
			if (nn && a < nn && b < nn && nn - d < d)
				d = nn - d;
			t->distance[a][b] = (u8)(a == b ? LOCAL_DISTANCE : LOCAL_DISTANCE + 10 * d);
		}
	numa_publish_cpus(t);
}

/* ---- the CPU, as the shadow headers see it ------------------------------- */

/* One per-CPU area: the variables themselves (include/arch/x86_64/percpu.h). */
unsigned long __per_cpu_offset[NR_CPUS];
unsigned cpu_number;
static struct task_struct host_task = { .pid = 1 };
struct task_struct *current_task = &host_task;
bool host_irqs_disabled;

/* Nothing else to run: the caller carries on. */
/* A test may watch every cond_resched() (the clear_page policy's batches). */
void (*host_cond_resched_hook)(void);
bool cond_resched(void)
{
	if (host_cond_resched_hook)
		host_cond_resched_hook();
	return false;
}

/* No kernel symbol table on the host: reports print bare addresses. */
const char *ksym_lookup(u64 addr, u64 *offset, u64 *size)
{
	(void)addr;
	*offset = *size = 0;
	return NULL;
}

void show_backtrace(u64 rip, u64 rbp)
{
	(void)rbp;
	printk(KERN_ERR "  (no backtrace on the host; called from %#llx)\n", (unsigned long long)rip);
}

/* A call "on every CPU" runs here once as each CPU of the topology
 * (cpu_number set to it), then the caller's CPU is restored. */
void on_each_cpu(smp_call_func_t fn, void *info, bool wait)
{
	(void)wait;
	unsigned self = cpu_number, n = nr_cpu_ids ? nr_cpu_ids : 1;
	for (unsigned cpu = 0; cpu < n; cpu++) {
		cpu_number = cpu;
		fn(info);
	}
	cpu_number = self;
}

/* Every CPU counts as online (cpu_online, for_each_online_cpu); the calls
 * below reach only the topology's (nr_cpu_ids). */
struct cpumask cpu_online_mask = { ~0ull };

/* The same for the CPUs of mask but the caller's. */
void smp_call_function_many(const struct cpumask *mask, smp_call_func_t fn, void *info, bool wait)
{
	(void)wait;
	unsigned self = cpu_number, n = nr_cpu_ids ? nr_cpu_ids : 1;
	for (unsigned cpu = 0; cpu < n; cpu++) {
		if (cpu == self || !(mask->bits >> cpu & 1))
			continue;
		cpu_number = cpu;
		fn(info);
	}
	cpu_number = self;
}

/* mm/hugetlb.c is not in the host build: no page here is ever a hugetlb
 * page, so put_page never gives one back to a pool. */
void free_huge_folio(struct page *page, bool restore_reserve)
{
	(void)restore_reserve;
	panic("free_huge_folio(%p) on the host: no hugetlb pool here", (void *)page);
}

/* No THP is ever mapped on the host (no page tables), so put_page never
 * finds one to take the marks off. Weak: the host VMA test links
 * mm/rmap.c's. */
__attribute__((weak)) void thp_prep_free(struct page *head)
{
	panic("thp_prep_free(%p) on the host: no THP is mapped here", (void *)head);
}

/* Nor is there a tmpfs page cache on the host. */
void shmem_thp_prep_free(struct page *head)
{
	panic("shmem_thp_prep_free(%p) on the host: no tmpfs here", (void *)head);
}

/* The LRU lists are the kernel's (mm/swap.c): the host's pages never
 * join them, so put_page never finds one there. */
void page_cache_release(struct page *page)
{
	panic("page_cache_release(%p) on the host: no LRU here", (void *)page);
}

