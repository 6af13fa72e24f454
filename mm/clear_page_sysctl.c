/* The kernel's side of the huge-page clearing policy (mm/clear_page.h):
 * the CPU's facts at boot, the command line and /proc/sys/vm. The policy
 * itself stays portable in mm/clear_page.c.
 *
 *   clear_page=auto|orig|rep|erms|movnt|clzero|extent    (command line)
 *   clear_huge_page_threshold_kb=N                        (command line)
 *   /proc/sys/vm/clear_huge_page_method                   (same words)
 *   /proc/sys/vm/clear_huge_page_threshold_kb             (0: back to the
 *                                                          derived one)
 * A value this CPU cannot honour (clzero without CLZERO, a threshold
 * outside [4, CLEAR_PAGE_MAX_THRESHOLD / 1024] KiB) is refused: a warning
 * at boot, -EINVAL from the sysctl; the previous value stays. */
#include "mm/clear_page.h"
#include "kernel/sysctl.h"
#include "arch/x86_64/cacheinfo.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpufeature.h"
#include "kernel/cmdline.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "kernel/sysctl.h"
#include "lib/string.h"

static void kernel_cpuid(u32 leaf, u32 subleaf, struct cpuid_regs *r)
{
	cpuid_count(leaf, subleaf, &r->eax, &r->ebx, &r->ecx, &r->edx);
}

static char clear_page_param[16];
kernel_param_string("clear_page", clear_page_param,
		    "huge page clearing: auto (default), orig, rep, erms, movnt, clzero or extent");
static int clear_page_threshold_kb_param;
kernel_param_int("clear_huge_page_threshold_kb", clear_page_threshold_kb_param, 0, 0x7fffffff,
		 "extent (KiB) from which auto clears with uncached stores; default: the last-level cache");

static int clear_page_init(void)
{
	struct clear_page_cpu cpu;
	clear_page_cpu_from_cpuid(kernel_cpuid, &cpu);
	/* The same quirk table, through the feature bit the rest of the kernel sees. */
	cpu.movnt_slow = boot_cpu_has(X86_FEATURE_MOVNT_SLOW);
	if (clear_page_threshold_kb_param &&
	    clear_page_set_threshold((u64)clear_page_threshold_kb_param << 10))
		pr_warn("clear_page: clear_huge_page_threshold_kb=%d refused (4 to %llu); the derived threshold stays\n",
			clear_page_threshold_kb_param, (unsigned long long)(CLEAR_PAGE_MAX_THRESHOLD >> 10));
	clear_page_setup(&cpu);
	if (clear_page_param[0]) {
		enum clear_page_method m;
		if (clear_page_parse_method(clear_page_param, strlen(clear_page_param), &m))
			pr_warn("clear_page: unknown method \"%s\" (expected auto, orig, rep, erms, movnt, clzero "
				"or extent); auto stays\n", clear_page_param);
		else if (clear_page_set_method(m))
			pr_warn("clear_page: this CPU has no CLZERO: clear_page=%s refused, auto stays\n",
				clear_page_param);
	}
	clear_page_report();
	return 0;
}
late_initcall(clear_page_init);

/* /proc/sys/vm/clear_huge_page_method: the method's word (auto, orig,
 * rep, erms, movnt, clzero or extent); -EINVAL for another word, or for
 * clzero on a CPU without it. */
static int clear_huge_page_method_handler(const struct ctl_table *table, bool write, struct seq_buf *m,
					  const char *buf, size_t len)
{
	(void)table;
	if (!write) {
		seq_buf_printf(m, "%s\n", clear_page_method_name(READ_ONCE(clear_page_policy.method)));
		return 0;
	}
	enum clear_page_method method;
	int err = clear_page_parse_method(buf, len, &method);
	return err ? err : clear_page_set_method(method);
}

/* /proc/sys/vm/clear_huge_page_threshold_kb: where auto turns to the
 * uncached clearing, in KiB (0: back to the cache size); -EINVAL for what
 * clear_page_set_threshold refuses or past CLEAR_PAGE_MAX_THRESHOLD. */
static int clear_huge_page_threshold_kb_handler(const struct ctl_table *table, bool write,
						struct seq_buf *m, const char *buf, size_t len)
{
	(void)table;
	if (!write) {
		seq_buf_printf(m, "%llu\n", (unsigned long long)(clear_page_uncached_threshold() >> 10));
		return 0;
	}
	size_t n = len;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == 0))
		n--;
	u64 kb;
	if (!n || parse_u64(buf, n, &kb) || kb > CLEAR_PAGE_MAX_THRESHOLD >> 10)
		return -EINVAL;
	return clear_page_set_threshold(kb << 10);
}

SYSCTL_ENTRY(proc_sys_vm_dir, clear_huge_page_method, .proc_handler = clear_huge_page_method_handler);
SYSCTL_ENTRY(proc_sys_vm_dir, clear_huge_page_threshold_kb,
	     .proc_handler = clear_huge_page_threshold_kb_handler);
