/* fail_page_alloc (see mm/fail_page_alloc.h): Linux's lib/fault-inject.c
 * should_fail_ex and mm/fail_page_alloc.c should_fail_alloc_page, without
 * debugfs (the fields are the knobs) and without stack-trace filters.
 * Portable: built on the host with the page allocator. */
#include "mm/fail_page_alloc.h"
#include "kernel/cmdline.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "kernel/sched.h"

struct fault_attr fail_page_alloc = {
	.interval = 1,
	.times = 1,
	.ignore_gfp_reclaim = true, /* Linux's default */
};
bool fail_page_alloc_armed;

static char fail_page_alloc_param[64];
kernel_param_string("fail_page_alloc", fail_page_alloc_param,
		    "<interval>,<probability>,<space>,<times>: make page allocations fail (Linux's fault injection)");

static bool parse_ulong(const char **s, unsigned long *out)
{
	const char *p = *s;
	unsigned long v = 0;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (unsigned long)(*p++ - '0');
	*out = v;
	*s = p;
	return true;
}

int setup_fault_attr(struct fault_attr *attr, const char *str)
{
	unsigned long interval, probability, space, times;
	bool neg = false;
	const char *s = str;
	if (!parse_ulong(&s, &interval) || *s++ != ',' || !parse_ulong(&s, &probability) || *s++ != ',' ||
	    !parse_ulong(&s, &space) || *s++ != ',')
		return -EINVAL;
	if (*s == '-') {
		neg = true;
		s++;
	}
	if (!parse_ulong(&s, &times) || *s || probability > 100 || (neg && times != 1))
		return -EINVAL;
	attr->interval = interval ? interval : 1;
	attr->probability = probability;
	attr->space = (long)space;
	attr->times = neg ? -1 : (long)times;
	attr->count = 0;
	return 0;
}

void fault_attr_arm(bool on)
{
	__atomic_store_n(&fail_page_alloc_armed, on, __ATOMIC_SEQ_CST);
}

static int fail_page_alloc_init(void)
{
	if (!fail_page_alloc_param[0])
		return 0;
	if (setup_fault_attr(&fail_page_alloc, fail_page_alloc_param)) {
		pr_warn("fail_page_alloc: '%s' is not <interval>,<probability>,<space>,<times>; off\n",
			fail_page_alloc_param);
		return -EINVAL;
	}
	pr_info("fail_page_alloc: interval %lu, probability %lu%%, space %ld, times %ld\n",
		fail_page_alloc.interval, fail_page_alloc.probability, fail_page_alloc.space,
		fail_page_alloc.times);
	fault_attr_arm(true);
	return 0;
}
late_initcall(fail_page_alloc_init);

/* A private generator: the decision must not disturb the kernel's own
 * random state, and must work on the host. */
static unsigned long fault_rng = 0x2545f4914f6cdd1dul;
static unsigned long fault_random_below(unsigned long n)
{
	unsigned long x = __atomic_load_n(&fault_rng, __ATOMIC_RELAXED), next;
	do {
		next = x ^ (x << 13);
		next ^= next >> 7;
		next ^= next << 17;
	} while (!__atomic_compare_exchange_n(&fault_rng, &x, next, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return next % n;
}

/* Linux's should_fail_ex for one candidate of size bytes. */
static bool should_fail(struct fault_attr *attr, long size)
{
	if (__atomic_load_n(&attr->times, __ATOMIC_RELAXED) == 0)
		return false;
	if (__atomic_load_n(&attr->space, __ATOMIC_RELAXED) > size) {
		__atomic_sub_fetch(&attr->space, size, __ATOMIC_RELAXED);
		return false;
	}
	if (attr->interval > 1) {
		unsigned long c = __atomic_add_fetch(&attr->count, 1, __ATOMIC_RELAXED);
		if (c % attr->interval)
			return false;
	}
	if (attr->probability <= fault_random_below(100))
		return false;
	long t = __atomic_load_n(&attr->times, __ATOMIC_RELAXED);
	while (t != -1) {
		if (t == 0)
			return false; /* another CPU took the last one */
		if (__atomic_compare_exchange_n(&attr->times, &t, t - 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			break;
	}
	__atomic_add_fetch(&attr->failures, 1, __ATOMIC_RELAXED);
	return true;
}

bool should_fail_alloc_page(gfp_t gfp, unsigned int order)
{
	struct fault_attr *attr = &fail_page_alloc;
	if (!__atomic_load_n(&fail_page_alloc_armed, __ATOMIC_ACQUIRE))
		return false;
	if (order < attr->min_order)
		return false;
	if (gfp & __GFP_NOFAIL)
		return false;
	if (attr->ignore_gfp_reclaim && (gfp & __GFP_DIRECT_RECLAIM))
		return false;
	if (attr->only_task && attr->only_task != current)
		return false;
	return should_fail(attr, (long)(4096ul << order));
}
