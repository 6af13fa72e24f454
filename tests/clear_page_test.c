/* The huge-page clearing routines on the machine itself (mm/clear_page.h):
 * every method, forced in turn, clears every byte of a 2 MiB page the
 * buddy allocator handed over dirty, whatever the faulting subpage; CLZERO
 * is refused exactly when CPUID lacks it; an uncached clear leaves a fence
 * pending until clear_page_uncached_make_coherent(), and a user entry
 * written before that is reported (CONFIG_DEBUG_VM) and fenced; the
 * threshold is what CPUID says about the last-level cache, unless the
 * command line gave one; the sysctls take the words and sizes they
 * document and refuse the rest. Speed is not measured here: TCG runs every
 * store at the same cost (make bench measures natively). */
#include "tests/kunit.h"
#include "tests/test_proc.h"
#include "arch/x86_64/cacheinfo.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpufeature.h"
#include "kernel/printk.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "mm/clear_page.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"

static struct page *dirty_huge_page(struct kunit *test)
{
	struct page *page = alloc_pages(GFP_KERNEL, HPAGE_PMD_ORDER);
	if (!page)
		kunit_skip(test, "no free order-9 block");
	memset(page_address(page), 0xa5, PMD_SIZE);
	return page;
}

/* Bytes that are not zero, counted word by word. */
static unsigned long nonzero_words(const void *p, unsigned long bytes)
{
	const unsigned long *w = p;
	unsigned long n = 0;
	for (unsigned long i = 0; i < bytes / sizeof(*w); i++)
		n += w[i] != 0;
	return n;
}

static void every_method_clears_every_byte(struct kunit *test)
{
	/* The order of the stores is the host test's (tests/host/
	 * clear_page_test.c); here, that the bytes are zero on this CPU: one
	 * faulting subpage in the middle per method (2 MiB each under TCG). */
	static const unsigned long targets[] = { 300 };
	struct kunit_resources before;
	kunit_resources_take(&before);
	struct page *page = dirty_huge_page(test);
	enum clear_page_method saved = clear_page_policy.method;
	for (unsigned m = CLEAR_PAGE_AUTO; m < NR_CLEAR_PAGE_METHODS; m++) {
		int err = clear_page_set_method(m);
		if (m == CLEAR_PAGE_CLZERO && !boot_cpu_has(X86_FEATURE_CLZERO)) {
			KUNIT_EXPECT_EQ(test, err, -EINVAL);
			kunit_info(test, "clzero: refused, this CPU has no CLZERO");
			continue;
		}
		KUNIT_ASSERT_EQ(test, err, 0);
		for (unsigned k = 0; k < ARRAY_SIZE(targets); k++) {
			memset(page_address(page), 0xa5, PMD_SIZE);
			unsigned long hint = 0x7f0000000000ul + targets[k] * PAGE_SIZE + 8;
			struct incoherent_page ip = clear_huge_page(page, HPAGE_PMD_ORDER, hint, 0, 0);
			struct page *back = clear_page_uncached_make_coherent(ip);
			KUNIT_EXPECT_PTR_EQ(test, back, page);
			KUNIT_EXPECT_EQ(test, clear_page_pending_count(), 0ul);
			KUNIT_EXPECT_EQ(test, nonzero_words(page_address(page), PMD_SIZE), 0ul);
		}
	}
	clear_page_set_method(saved);
	__free_pages(page, HPAGE_PMD_ORDER);
	kunit_expect_resources_back(test, &before);
}

static void uncached_clear_is_fenced_by_make_coherent(struct kunit *test)
{
	struct page *page = dirty_huge_page(test);
	enum clear_page_method saved = clear_page_policy.method;
	KUNIT_ASSERT_EQ(test, clear_page_set_method(CLEAR_PAGE_MOVNT), 0);
	unsigned long fences = clear_page_stats_sum().fences;
	struct incoherent_page ip = clear_huge_page(page, HPAGE_PMD_ORDER, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, clear_page_pending_count(), 1ul);
	KUNIT_EXPECT_EQ(test, clear_page_stats_sum().fences, fences);
	clear_page_uncached_make_coherent(ip);
	KUNIT_EXPECT_EQ(test, clear_page_pending_count(), 0ul);
	KUNIT_EXPECT_EQ(test, clear_page_stats_sum().fences, fences + 1);
	/* A cached clear has nothing to fence. */
	KUNIT_ASSERT_EQ(test, clear_page_set_method(CLEAR_PAGE_ERMS), 0);
	ip = clear_huge_page(page, HPAGE_PMD_ORDER, 0, 0, 0);
	clear_page_uncached_make_coherent(ip);
	KUNIT_EXPECT_EQ(test, clear_page_stats_sum().fences, fences + 1);
	clear_page_set_method(saved);
	__free_pages(page, HPAGE_PMD_ORDER);
}

/* The debug check of set_pte_at(): a PTE written with a clear unfenced is
 * reported and the fence is issued then. The entry is written into a
 * scratch table, never one the MMU walks. */
static void entry_written_before_the_fence_is_reported(struct kunit *test)
{
#ifndef CONFIG_DEBUG_VM
	kunit_skip(test, "built with DEBUG_VM=0");
#else
	struct page *page = dirty_huge_page(test);
	enum clear_page_method saved = clear_page_policy.method;
	KUNIT_ASSERT_EQ(test, clear_page_set_method(CLEAR_PAGE_MOVNT), 0);
	pte_t scratch = __pte(0);
	char buf[512];
	struct printk_capture cap;
	printk_capture_begin(&cap, buf, sizeof(buf));
	struct incoherent_page ip = clear_huge_page(page, HPAGE_PMD_ORDER, 0, 0, 0);
	set_pte_at(NULL, 0x123000, &scratch, __pte(page_to_phys(page) | _PAGE_PRESENT));
	printk_capture_end(&cap);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "BUG: clear_page: a user mapping at 0x123000"));
	KUNIT_EXPECT_EQ(test, clear_page_pending_count(), 0ul);
	clear_page_uncached_make_coherent(ip);
	/* Fenced first: no report. */
	ip = clear_huge_page(page, HPAGE_PMD_ORDER, 0, 0, 0);
	clear_page_uncached_make_coherent(ip);
	printk_capture_begin(&cap, buf, sizeof(buf));
	set_pte_at(NULL, 0x123000, &scratch, __pte(page_to_phys(page) | _PAGE_PRESENT));
	printk_capture_end(&cap);
	KUNIT_EXPECT_NULL(test, strstr(buf, "BUG"));
	clear_page_set_method(saved);
	__free_pages(page, HPAGE_PMD_ORDER);
#endif
}

static void kernel_cpuid(u32 leaf, u32 subleaf, struct cpuid_regs *r)
{
	cpuid_count(leaf, subleaf, &r->eax, &r->ebx, &r->ecx, &r->edx);
}

static void threshold_comes_from_cpuid(struct kunit *test)
{
	struct clear_page_cpu cpu;
	clear_page_cpu_from_cpuid(kernel_cpuid, &cpu);
	kunit_info(test, "CPUID: %s says %llu KiB (%s); erms %d clzero %d; threshold %llu KiB",
		   cpu.llc_source ? cpu.llc_source : "no leaf", (unsigned long long)(cpu.llc_claimed >> 10),
		   cpu.llc_bytes ? "believed" : "not believed", cpu.erms, cpu.clzero,
		   (unsigned long long)(clear_page_uncached_threshold() >> 10));
	KUNIT_EXPECT_EQ(test, cpu.clzero, boot_cpu_has(X86_FEATURE_CLZERO));
	KUNIT_EXPECT_EQ(test, cpu.erms, boot_cpu_has(X86_FEATURE_ERMS));
	if (clear_page_policy.threshold_set)
		kunit_skip(test, "the command line set the threshold");
	KUNIT_EXPECT_EQ(test, clear_page_uncached_threshold(),
			cpu.llc_bytes ? cpu.llc_bytes : CLEAR_PAGE_DEFAULT_THRESHOLD);
	/* auto's uncached choice follows the CPU. */
	enum clear_page_method want = cpu.clzero ? CLEAR_PAGE_CLZERO
				      : !boot_cpu_has(X86_FEATURE_MOVNT_SLOW) ? CLEAR_PAGE_MOVNT
				      : clear_page_policy.cached;
	KUNIT_EXPECT_EQ(test, clear_page_policy.uncached, want);
}

/* A write to /proc/sys/vm/<name>, as write(2) answers it: len or an errno. */
static long vm_sysctl_write(const char *name, const char *text, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/sys/vm/%s", name);
	int err = procfs_write_path(path, current, text, len);
	return err ? err : (long)len;
}

/* /proc/sys/vm/<name>'s content, into out. */
static void vm_sysctl_read(struct kunit *test, const char *name, char *out, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/sys/vm/%s", name);
	char *text = test_proc_read(test, path);
	strlcpy(out, text, size);
	test_proc_free(test, text);
}

static void sysctls_take_their_words(struct kunit *test)
{
	enum clear_page_method saved = clear_page_policy.method;
	bool saved_set = clear_page_policy.threshold_set;
	u64 saved_threshold = clear_page_policy.threshold;
	char out[64];

	KUNIT_EXPECT_EQ(test, vm_sysctl_write("clear_huge_page_method", "extent\n", 7), 7l);
	vm_sysctl_read(test, "clear_huge_page_method", out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, "extent\n");
	KUNIT_EXPECT_EQ(test, vm_sysctl_write("clear_huge_page_method", "fast\n", 5), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, clear_page_policy.method, CLEAR_PAGE_EXTENT);
	KUNIT_EXPECT_EQ(test, vm_sysctl_write("clear_huge_page_method", "clzero", 6),
			boot_cpu_has(X86_FEATURE_CLZERO) ? 6l : (long)-EINVAL);

	KUNIT_EXPECT_EQ(test, vm_sysctl_write("clear_huge_page_threshold_kb", "3\n", 2), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, vm_sysctl_write("clear_huge_page_threshold_kb", "-1", 2), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, vm_sysctl_write("clear_huge_page_threshold_kb", "", 0), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, vm_sysctl_write("clear_huge_page_threshold_kb", "2048\n", 5), 5l);
	vm_sysctl_read(test, "clear_huge_page_threshold_kb", out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, "2048\n");
	/* 2 MiB is now at the threshold: auto goes uncached for one page. */
	KUNIT_EXPECT_EQ(test, vm_sysctl_write("clear_huge_page_method", "auto", 4), 4l);
	KUNIT_EXPECT_EQ(test, clear_page_resolve(PMD_SIZE), clear_page_policy.uncached);
	KUNIT_EXPECT_EQ(test, clear_page_resolve(PMD_SIZE - PAGE_SIZE), clear_page_policy.cached);
	KUNIT_EXPECT_EQ(test, vm_sysctl_write("clear_huge_page_threshold_kb", "0", 1), 1l);
	KUNIT_EXPECT_FALSE(test, clear_page_policy.threshold_set);

	clear_page_set_method(saved);
	if (saved_set)
		clear_page_set_threshold(saved_threshold);
}

static struct kunit_case clear_page_cases[] = {
	KUNIT_CASE(every_method_clears_every_byte),
	KUNIT_CASE(uncached_clear_is_fenced_by_make_coherent),
	KUNIT_CASE(entry_written_before_the_fence_is_reported),
	KUNIT_CASE(threshold_comes_from_cpuid),
	KUNIT_CASE(sysctls_take_their_words),
	{},
};

static struct kunit_suite clear_page_suite = { .name = "clear_page", .test_cases = clear_page_cases };
kunit_test_suite(clear_page_suite);
