/* The address range of every system call that takes one, checked as Linux
 * 6.1 checks it, the same on mmlab and on Linux: for each call a range that
 * wraps around the address space, one that ends exactly at TASK_SIZE, one
 * that runs a page past it, one that starts at it, one in the kernel half,
 * an unaligned start, zero lengths and a length that overflows when it is
 * rounded up to pages. Each expectation is Linux's errno, and the comment
 * beside a group names the Linux function whose check gives it (Linux
 * mostly open-codes these checks per call, in different orders and with
 * different errnos: that is what is held here).
 *
 * TASK_SIZE is the end of user space less a guard page: 2^47 - 4 KiB with
 * 4-level paging, 2^56 - 4 KiB with 5-level paging (Linux in QEMU's -cpu
 * max), asked of the kernel through user_va_bits().
 *
 * No call may change what the program has. The top user page, below
 * TASK_SIZE, is the stack's where the stack ends there (mmlab; Linux
 * without address randomisation), else a page mapped here: either way it
 * is mapped, and it is only given calls that leave it as it was (mprotect
 * to its own protection, MADV_WILLNEED, mlock undone by munlock,
 * MPOL_DEFAULT, reads). After each call the program checks that
 * /proc/self/maps, a sentinel mapping's bytes, the top page's bytes (the
 * part above the first frame, where the page is the stack's) and the
 * stack below this frame are what they were: a call that unmapped or
 * changed the stack from a range past TASK_SIZE shows there first. Where
 * the stack ends at TASK_SIZE, a munmap ending there is not tried (it
 * would take the stack's last page with it).
 *
 * Every call is made with syscall(2): the C libraries check or round some
 * arguments themselves (musl's mremap() refuses huge lengths, its
 * mprotect() rounds the start down). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "check.h"

#define P PAGE_4K
#define RW (PROT_READ | PROT_WRITE)
#define KERNEL_HALF 0xffff800000000000ul /* the first kernel address (4-level) */
#define LAST_PAGE 0xfffffffffffff000ul   /* a range from here wraps to 0 */
#define SENTINEL_PAGES 4
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif
#define MREMAP_MAYMOVE 1
#define MREMAP_FIXED 2
#define MPOL_DEFAULT 0
#define MPOL_BIND 2
#define MPOL_F_ADDR (1 << 1)
#define MPOL_F_MEMS_ALLOWED (1 << 2)
#define MPOL_MF_MOVE (1 << 1)
#ifndef SYS_set_mempolicy_home_node
#define SYS_set_mempolicy_home_node 450
#endif

static unsigned long task_size, top; /* top: the last user page, task_size - P */
static bool top_is_ours;
static char *sentinel;
/* The top page's bytes from sum_start on: where the page is the stack's,
 * only what lies above this process's first frame (argv, the environment,
 * the auxiliary vector and their strings), which nothing writes. */
static unsigned long top_sum, sum_start;
static int memory_node = -1; /* the first node this process may allocate on */
static char maps_before[65536], maps_now[65536];
static unsigned char scratch[2 * P] __attribute__((aligned(4096)));

static unsigned long sum_of(const void *p, size_t len)
{
	const unsigned char *b = p;
	unsigned long s = 0;
	for (size_t i = 0; i < len; i++)
		s = s * 31 + b[i];
	return s;
}

static void fill_sentinel(void)
{
	for (int i = 0; i < SENTINEL_PAGES; i++)
		memset(sentinel + i * P, 0xa0 + i, P);
}

/* What every call must leave as it was: the mappings, the sentinel's
 * bytes, the top page's bytes, and the stack 16 KiB below this frame.
 * Empty when all is well, else what changed. */
static const char *changed(void)
{
	volatile char deep[16384];
	deep[0] = deep[sizeof(deep) - 1] = 1;
	if (deep[0] + deep[sizeof(deep) - 1] != 2)
		return " (the stack lost its contents)";
	for (int i = 0; i < SENTINEL_PAGES; i++)
		if (!all_bytes(sentinel + i * P, P, (unsigned char)(0xa0 + i)))
			return " (the sentinel mapping changed)";
	if (maps_snapshot(maps_now, sizeof(maps_now)) < 0 || strcmp(maps_now, maps_before))
		return " (/proc/self/maps changed)";
	if (sum_of((void *)sum_start, task_size - sum_start) != top_sum)
		return " (the top user page changed)";
	return "";
}

static const char *result_name(long got)
{
	static char buf[32];
	if (got < 0)
		return errno_name((int)-got);
	snprintf(buf, sizeof(buf), "%#lx", (unsigned long)got);
	return buf;
}

/* One call's outcome beside Linux's: want >= 0 a return value, < 0 minus
 * an errno. With check, the program's memory must be as it was too. */
static bool expect_report(long ret, int err, long want, bool check, const char *call, int line)
{
	long got = ret == -1 ? -err : ret;
	const char *what = check ? changed() : "";
	return check_report(got == want && !*what, __FILE__, line, "%s = %s%s%s%s", call,
			    result_name(got), got == want ? "" : ", want ",
			    got == want ? "" : result_name(want), what);
}

#define EXPECT_(check, call, want)                                                    \
	({                                                                            \
		errno = 0;                                                            \
		long _r = (long)(call);                                               \
		int _e = errno;                                                       \
		expect_report(_r, _e, (want), (check), #call, __LINE__);              \
	})
/* The call gives want, and leaves the program's memory as it was. */
#define EXPECT(call, want) EXPECT_(true, call, want)
/* The call gives want; what it changed is undone by the next call. */
#define EXPECT_CHANGED(call, want) EXPECT_(false, call, want)

/* Shorthands for the ranges every call is given. */
#define WRAP_USER_LEN (0 - (unsigned long)sentinel + P) /* sentinel + it wraps to P */
#define S ((unsigned long)sentinel)
#define T task_size

static void mmap_fixed(void)
{
	/* do_mmap -> get_unmapped_area: len rounded up to 0 is ENOMEM, a
	 * range not below TASK_SIZE ENOMEM, then an unaligned address EINVAL
	 * (MAP_FIXED_NOREPLACE is MAP_FIXED there), then EEXIST over a
	 * mapping. None of these may map anything. */
#define MMAP_AT(a, l) syscall(SYS_mmap, (a), (l), RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0)
	EXPECT(MMAP_AT(LAST_PAGE, 2 * P), -ENOMEM);
	EXPECT(MMAP_AT(S, WRAP_USER_LEN), -ENOMEM);
	EXPECT(MMAP_AT(top, P), -EEXIST);
	EXPECT(MMAP_AT(top, 2 * P), -ENOMEM);
	EXPECT(MMAP_AT(T, P), -ENOMEM);
	EXPECT(MMAP_AT(KERNEL_HALF, P), -ENOMEM);
	EXPECT(MMAP_AT(S + 1, P), -EINVAL);
	EXPECT(MMAP_AT(S, 0), -EINVAL);
	EXPECT(MMAP_AT(S, ~0ul), -ENOMEM);
	EXPECT(MMAP_AT(S, T + P), -ENOMEM);
#undef MMAP_AT
}

static void munmap_ranges(void)
{
	/* do_mas_munmap: an unaligned start, a start past TASK_SIZE, a length
	 * past TASK_SIZE - start, or an empty range: EINVAL, nothing
	 * unmapped. */
	EXPECT(syscall(SYS_munmap, LAST_PAGE, 2 * P), -EINVAL);
	EXPECT(syscall(SYS_munmap, S, WRAP_USER_LEN), -EINVAL);
	EXPECT(syscall(SYS_munmap, top, 2 * P), -EINVAL);
	EXPECT(syscall(SYS_munmap, T, P), -EINVAL);
	EXPECT(syscall(SYS_munmap, T, 0), -EINVAL);
	EXPECT(syscall(SYS_munmap, KERNEL_HALF, P), -EINVAL);
	EXPECT(syscall(SYS_munmap, S + 1, P), -EINVAL);
	EXPECT(syscall(SYS_munmap, S, 0), -EINVAL);
	EXPECT(syscall(SYS_munmap, S, ~0ul), -EINVAL);
	EXPECT(syscall(SYS_munmap, S, T), -EINVAL);
	if (!top_is_ours) {
		check_skip("munmap of a range ending at TASK_SIZE: the stack's last page is there");
		return;
	}
	/* A range that ends exactly at TASK_SIZE is a range like any other. */
	EXPECT_CHANGED(syscall(SYS_munmap, top, P), 0);
	void *again = mmap((void *)top, P, RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	CHECK(again == (void *)top);
	if (again == (void *)top) {
		memset(again, 0x5c, P);
		CHECK(sum_of(again, P) == top_sum);
		CHECK(strcmp(maps_snapshot(maps_now, sizeof(maps_now)) < 0 ? "" : maps_now, maps_before) == 0);
	}
}

static void mprotect_ranges(void)
{
	/* do_mprotect_pkey: an unaligned start EINVAL; a zero length 0 (before
	 * anything else is looked at); start + PAGE_ALIGN(len) not above start
	 * ENOMEM (a wrap, or a length rounded up to 0); unknown prot bits
	 * EINVAL; then the VMAs: none at start ENOMEM, a hole ENOMEM after the
	 * VMAs before it were changed (here to the protection they have). */
	EXPECT(syscall(SYS_mprotect, LAST_PAGE, 2 * P, RW), -ENOMEM);
	EXPECT(syscall(SYS_mprotect, S, WRAP_USER_LEN, RW), -ENOMEM);
	EXPECT(syscall(SYS_mprotect, top, P, RW), 0);
	EXPECT(syscall(SYS_mprotect, top, 2 * P, RW), -ENOMEM);
	EXPECT(syscall(SYS_mprotect, T, P, RW), -ENOMEM);
	EXPECT(syscall(SYS_mprotect, T, 0, RW), 0);
	EXPECT(syscall(SYS_mprotect, KERNEL_HALF, P, RW), -ENOMEM);
	EXPECT(syscall(SYS_mprotect, KERNEL_HALF, 0, RW), 0);
	EXPECT(syscall(SYS_mprotect, S + 1, P, RW), -EINVAL);
	EXPECT(syscall(SYS_mprotect, S, 0, RW), 0);
	EXPECT(syscall(SYS_mprotect, S, ~0ul, RW), -ENOMEM);
	/* The order: the range before prot, prot before the VMAs. */
	EXPECT(syscall(SYS_mprotect, S, ~0ul, 0x1000ul), -ENOMEM);
	EXPECT(syscall(SYS_mprotect, KERNEL_HALF, P, 0x1000ul), -EINVAL);
	EXPECT(syscall(SYS_mprotect, LAST_PAGE, 2 * P, PROT_GROWSDOWN | PROT_GROWSUP | RW), -EINVAL);
}

static void madvise_ranges(void)
{
	/* do_madvise: an unknown advice, an unaligned start, a length that
	 * rounds up to 0, or a range that wraps: EINVAL; an empty range 0;
	 * then the VMAs: a part no VMA covers ENOMEM, after the advice was
	 * applied to the parts that are mapped. */
	EXPECT(syscall(SYS_madvise, LAST_PAGE, 2 * P, MADV_WILLNEED), -EINVAL);
	EXPECT(syscall(SYS_madvise, S, WRAP_USER_LEN, MADV_WILLNEED), -EINVAL);
	EXPECT(syscall(SYS_madvise, top, P, MADV_WILLNEED), 0);
	EXPECT(syscall(SYS_madvise, top, 2 * P, MADV_WILLNEED), -ENOMEM);
	EXPECT(syscall(SYS_madvise, T, P, MADV_WILLNEED), -ENOMEM);
	EXPECT(syscall(SYS_madvise, KERNEL_HALF, P, MADV_WILLNEED), -ENOMEM);
	EXPECT(syscall(SYS_madvise, KERNEL_HALF, 0, MADV_WILLNEED), 0);
	EXPECT(syscall(SYS_madvise, S + 1, P, MADV_WILLNEED), -EINVAL);
	EXPECT(syscall(SYS_madvise, S, 0, MADV_WILLNEED), 0);
	EXPECT(syscall(SYS_madvise, S, ~0ul, MADV_WILLNEED), -EINVAL);
	EXPECT(syscall(SYS_madvise, S, -P, MADV_WILLNEED), -EINVAL);
	EXPECT(syscall(SYS_madvise, top, 2 * P, 1000), -EINVAL); /* the advice first */
}

static void mlock_ranges(void)
{
	char why[160];
	if (!mlock_allowed(2 * P, why, sizeof(why))) {
		check_skip("mlock: %s", why);
		return;
	}
	long locked_kb = status_kb("VmLck");
	/* do_mlock: the start rounded down and the length up to pages
	 * (PAGE_ALIGN(len + offset), which can round to 0: nothing to do, 0);
	 * RLIMIT_MEMLOCK (ENOMEM, not reached here, except for a wrapping
	 * length without CAP_IPC_LOCK); apply_vma_lock_flags: a range that
	 * wraps EINVAL, an empty one 0, no VMA at start or a hole ENOMEM,
	 * after the VMAs before the hole were locked. munlock the same, with
	 * no limit. */
	bool wrap_allowed = mlock_allowed(WRAP_USER_LEN, why, sizeof(why));
	EXPECT(syscall(SYS_mlock, LAST_PAGE, 2 * P), -EINVAL);
	EXPECT(syscall(SYS_mlock, S, WRAP_USER_LEN), wrap_allowed ? -EINVAL : -ENOMEM);
	EXPECT_CHANGED(syscall(SYS_mlock, top, P), 0);
	EXPECT(syscall(SYS_munlock, top, P), 0);
	EXPECT_CHANGED(syscall(SYS_mlock, top, 2 * P), -ENOMEM);
	CHECK_CMP(status_kb("VmLck"), ==, locked_kb + (long)(P / 1024)); /* the top page */
	EXPECT(syscall(SYS_munlock, top, P), 0);
	EXPECT(syscall(SYS_mlock, T, P), -ENOMEM);
	EXPECT(syscall(SYS_mlock, KERNEL_HALF, P), -ENOMEM);
	EXPECT(syscall(SYS_mlock, KERNEL_HALF, 0), 0);
	EXPECT_CHANGED(syscall(SYS_mlock, S + 1, P), 0); /* two pages */
	CHECK_CMP(status_kb("VmLck"), ==, locked_kb + (long)(2 * P / 1024));
	EXPECT(syscall(SYS_munlock, S + 1, P), 0);
	EXPECT(syscall(SYS_mlock, S, 0), 0);
	EXPECT(syscall(SYS_mlock, S, ~0ul), 0);     /* rounds up to 0 */
	EXPECT(syscall(SYS_mlock, S + 1, ~0ul), 0); /* so does len + 1 */
	/* mlock2: the flags first, then do_mlock. */
	EXPECT(syscall(SYS_mlock2, LAST_PAGE, 2 * P, 2), -EINVAL);
	EXPECT(syscall(SYS_mlock2, T, P, MLOCK_ONFAULT), -ENOMEM);
	EXPECT(syscall(SYS_mlock2, KERNEL_HALF, P, 0), -ENOMEM);
	EXPECT_CHANGED(syscall(SYS_mlock2, top, P, MLOCK_ONFAULT), 0);
	EXPECT(syscall(SYS_munlock, top, P), 0);
	EXPECT_CHANGED(syscall(SYS_mlock2, top, 2 * P, 0), -ENOMEM);
	EXPECT(syscall(SYS_munlock, top, P), 0);
	/* munlock */
	EXPECT(syscall(SYS_munlock, LAST_PAGE, 2 * P), -EINVAL);
	EXPECT(syscall(SYS_munlock, S, WRAP_USER_LEN), -EINVAL);
	EXPECT(syscall(SYS_munlock, top, 2 * P), -ENOMEM);
	EXPECT(syscall(SYS_munlock, T, P), -ENOMEM);
	EXPECT(syscall(SYS_munlock, KERNEL_HALF, P), -ENOMEM);
	EXPECT(syscall(SYS_munlock, S + 1, P), 0);
	EXPECT(syscall(SYS_munlock, S, ~0ul), 0);
	CHECK_CMP(status_kb("VmLck"), ==, locked_kb);
}

static void msync_ranges(void)
{
	/* sys_msync: unknown flags, an unaligned start, MS_ASYNC with MS_SYNC
	 * EINVAL; a range that wraps ENOMEM; an empty one (a length rounded
	 * up to 0 too) 0; then a part no VMA covers ENOMEM. */
	EXPECT(syscall(SYS_msync, LAST_PAGE, 2 * P, MS_ASYNC), -ENOMEM);
	EXPECT(syscall(SYS_msync, S, WRAP_USER_LEN, MS_ASYNC), -ENOMEM);
	EXPECT(syscall(SYS_msync, top, P, MS_SYNC), 0);
	EXPECT(syscall(SYS_msync, top, 2 * P, MS_ASYNC), -ENOMEM);
	EXPECT(syscall(SYS_msync, top, 2 * P, MS_SYNC | MS_INVALIDATE), -ENOMEM);
	EXPECT(syscall(SYS_msync, T, P, MS_SYNC), -ENOMEM);
	EXPECT(syscall(SYS_msync, KERNEL_HALF, P, MS_ASYNC), -ENOMEM);
	EXPECT(syscall(SYS_msync, KERNEL_HALF, 0, MS_ASYNC), 0);
	EXPECT(syscall(SYS_msync, S + 1, P, MS_ASYNC), -EINVAL);
	EXPECT(syscall(SYS_msync, S, 0, MS_ASYNC), 0);
	EXPECT(syscall(SYS_msync, S, ~0ul, MS_ASYNC), 0);
	EXPECT(syscall(SYS_msync, S, -P, MS_ASYNC), -ENOMEM);
	EXPECT(syscall(SYS_msync, LAST_PAGE, 2 * P, MS_ASYNC | MS_SYNC), -EINVAL);
}

static void mincore_ranges(void)
{
	/* sys_mincore: an unaligned start EINVAL; access_ok(start, len)
	 * (the range inside [0, TASK_SIZE], a zero length included: a start
	 * in the kernel half is refused even so) ENOMEM; access_ok(vec, pages)
	 * EFAULT; then a part no VMA covers ENOMEM. */
	static unsigned char vec[4];
	EXPECT(syscall(SYS_mincore, LAST_PAGE, 2 * P, vec), -ENOMEM);
	EXPECT(syscall(SYS_mincore, S, WRAP_USER_LEN, vec), -ENOMEM);
	vec[0] = 0;
	EXPECT(syscall(SYS_mincore, top, P, vec), 0);
	CHECK(vec[0] & 1); /* the top page is resident */
	EXPECT(syscall(SYS_mincore, top, 2 * P, vec), -ENOMEM);
	EXPECT(syscall(SYS_mincore, top, P, KERNEL_HALF), -EFAULT);
	EXPECT(syscall(SYS_mincore, T, P, vec), -ENOMEM);
	EXPECT(syscall(SYS_mincore, T, 0, vec), 0);
	EXPECT(syscall(SYS_mincore, KERNEL_HALF, P, vec), -ENOMEM);
	EXPECT(syscall(SYS_mincore, KERNEL_HALF, 0, vec), -ENOMEM);
	EXPECT(syscall(SYS_mincore, S + 1, P, KERNEL_HALF), -EINVAL);
	EXPECT(syscall(SYS_mincore, S, 0, vec), 0);
	EXPECT(syscall(SYS_mincore, S, ~0ul, vec), -ENOMEM);
}

static void mremap_ranges(void)
{
	/* sys_mremap: flags, an unaligned addr, a new length rounded up to 0:
	 * EINVAL; no VMA at addr EFAULT; a shrink unmaps the tail through
	 * munmap's checks (EINVAL past TASK_SIZE, nothing unmapped), a call
	 * that keeps the size returns addr whatever the tail's range; a
	 * growth in place must stay below TASK_SIZE (vma_expandable ->
	 * get_unmapped_area), else ENOMEM without MREMAP_MAYMOVE; mremap_to:
	 * a new range not below TASK_SIZE EINVAL. */
#define MREMAP(a, o, n, f, na) syscall(SYS_mremap, (a), (o), (n), (f), (na))
	EXPECT(MREMAP(LAST_PAGE, P, P, 0, 0), -EFAULT);
	EXPECT(MREMAP(KERNEL_HALF, P, P, 0, 0), -EFAULT);
	EXPECT(MREMAP(T, P, P, 0, 0), -EFAULT);
	EXPECT(MREMAP(S + 1, P, P, 0, 0), -EINVAL);
	EXPECT(MREMAP(S, WRAP_USER_LEN, P, 0, 0), -EINVAL);
	EXPECT(MREMAP(S, -P, P, MREMAP_MAYMOVE, 0), -EINVAL);
	EXPECT(MREMAP(S, P, ~0ul, MREMAP_MAYMOVE, 0), -EINVAL);
	/* A growth to a new length past TASK_SIZE: Linux 6.1 finds no room
	 * (vma_to_resize: may_expand_vm, or get_unmapped_area) ENOMEM; Linux
	 * since its mremap rework (check_mremap_params) refuses such a new
	 * length before it looks for the VMA, EINVAL. Which one this kernel
	 * is shows with no VMA at addr: EFAULT from the first, EINVAL from
	 * the second. mmlab checks as 6.1. */
	long early = MREMAP(KERNEL_HALF, P, -P, 0, 0) == -1 ? errno : 0;
	if (on_mmlab())
		CHECK_CMP(early, ==, EFAULT);
	EXPECT(MREMAP(S, P, -P, MREMAP_MAYMOVE, 0), early == EINVAL ? -EINVAL : -ENOMEM);
	EXPECT(MREMAP(top, P, P, 0, 0), (long)top);
	EXPECT(MREMAP(top, 2 * P, 2 * P, 0, 0), (long)top);
	EXPECT(MREMAP(top, 2 * P, P, 0, 0), -EINVAL);
	EXPECT(MREMAP(top, P, 2 * P, 0, 0), -ENOMEM);
	EXPECT(MREMAP(S, P, P, MREMAP_MAYMOVE | MREMAP_FIXED, T), -EINVAL);
	EXPECT(MREMAP(S, P, 2 * P, MREMAP_MAYMOVE | MREMAP_FIXED, top), -EINVAL);
	EXPECT(MREMAP(S, P, P, MREMAP_MAYMOVE | MREMAP_FIXED, KERNEL_HALF), -EINVAL);
	EXPECT(MREMAP(S, P, P, MREMAP_MAYMOVE | MREMAP_FIXED, LAST_PAGE), -EINVAL);
#undef MREMAP
}

static void mempolicy_ranges(void)
{
	if (memory_node < 0) {
		check_skip("mbind, set_mempolicy_home_node, get_mempolicy: no node to name");
		return;
	}
	unsigned long mask = 1ul << memory_node;
	/* do_mbind: flags, an unaligned start EINVAL; start + PAGE_ALIGN(len)
	 * wrapping EINVAL, empty (a length rounded up to 0 too) 0; then
	 * queue_pages_range: no VMA in the range, or (but for MPOL_DEFAULT,
	 * MPOL_MF_DISCONTIG_OK) a hole, EFAULT before any policy changes. */
#define MBIND(s, l, mode, m) syscall(SYS_mbind, (s), (l), (mode), (m), 64ul, 0u)
	EXPECT(MBIND(LAST_PAGE, 2 * P, MPOL_DEFAULT, NULL), -EINVAL);
	EXPECT(MBIND(S, WRAP_USER_LEN, MPOL_BIND, &mask), -EINVAL);
	EXPECT(MBIND(top, P, MPOL_DEFAULT, NULL), 0);
	EXPECT(MBIND(top, 2 * P, MPOL_DEFAULT, NULL), 0);
	EXPECT(MBIND(top, 2 * P, MPOL_BIND, &mask), -EFAULT);
	EXPECT(MBIND(T, P, MPOL_DEFAULT, NULL), -EFAULT);
	EXPECT(MBIND(KERNEL_HALF, P, MPOL_DEFAULT, NULL), -EFAULT);
	EXPECT(MBIND(KERNEL_HALF, P, MPOL_BIND, &mask), -EFAULT);
	EXPECT(MBIND(KERNEL_HALF, 0, MPOL_BIND, &mask), 0);
	EXPECT(MBIND(S + 1, P, MPOL_BIND, &mask), -EINVAL);
	EXPECT(MBIND(S, 0, MPOL_BIND, &mask), 0);
	EXPECT(MBIND(S, ~0ul, MPOL_BIND, &mask), 0);
	EXPECT(MBIND(S, -P, MPOL_BIND, &mask), -EINVAL);
#undef MBIND
	/* set_mempolicy_home_node: an unaligned start, flags, a home node not
	 * online, a range that wraps: EINVAL; an empty one 0; else ENOENT
	 * when no VMA of the range has a policy (none has here). */
#define HOME(s, l, n, f) syscall(SYS_set_mempolicy_home_node, (s), (l), (n), (f))
	EXPECT(HOME(LAST_PAGE, 2 * P, memory_node, 0), -EINVAL);
	EXPECT(HOME(S, WRAP_USER_LEN, memory_node, 0), -EINVAL);
	EXPECT(HOME(top, P, memory_node, 0), -ENOENT);
	EXPECT(HOME(top, 2 * P, memory_node, 0), -ENOENT);
	EXPECT(HOME(T, P, memory_node, 0), -ENOENT);
	EXPECT(HOME(KERNEL_HALF, P, memory_node, 0), -ENOENT);
	EXPECT(HOME(S + 1, P, memory_node, 0), -EINVAL);
	EXPECT(HOME(S, 0, memory_node, 0), 0);
	EXPECT(HOME(S, ~0ul, memory_node, 0), 0);
	EXPECT(HOME(KERNEL_HALF, P, memory_node, 1), -EINVAL);
	EXPECT(HOME(KERNEL_HALF, P, 1ul << 20, 0), -EINVAL);
#undef HOME
	/* get_mempolicy(MPOL_F_ADDR): the VMA at addr (vma_lookup), else
	 * EFAULT; any byte of a page will do. */
	int mode = -1;
#define GETPOL(a) syscall(SYS_get_mempolicy, &mode, NULL, 0ul, (a), (unsigned long)MPOL_F_ADDR)
	EXPECT(GETPOL(top), 0);
	EXPECT(GETPOL(T - 1), 0);
	CHECK_CMP(mode, ==, MPOL_DEFAULT);
	EXPECT(GETPOL(T), -EFAULT);
	EXPECT(GETPOL(KERNEL_HALF), -EFAULT);
	EXPECT(GETPOL(LAST_PAGE), -EFAULT);
	EXPECT(GETPOL(S + 1), 0);
#undef GETPOL
}

static void move_pages_ranges(void)
{
	if (memory_node < 0) {
		check_skip("move_pages: no node to name");
		return;
	}
	/* do_pages_stat / do_pages_move: each address's VMA (vma_lookup), else
	 * that page's status is -EFAULT and the call goes on. */
	void *pages[5] = { (void *)top, (void *)(T - 1), (void *)T, (void *)KERNEL_HALF,
			   (void *)LAST_PAGE };
	int status[5], nodes[5];
	for (int i = 0; i < 5; i++)
		status[i] = 1000, nodes[i] = memory_node;
	EXPECT(syscall(SYS_move_pages, 0, 5ul, pages, NULL, status, 0), 0);
	CHECKF(status[0] >= 0 && status[1] == status[0] && status[2] == -EFAULT &&
		       status[3] == -EFAULT && status[4] == -EFAULT,
	       "move_pages' statuses: top page %d %d, TASK_SIZE %d, kernel %d, last page %d", status[0],
	       status[1], status[2], status[3], status[4]);
	/* A move of the addresses no VMA covers: each -EFAULT, nothing
	 * moved. */
	for (int i = 0; i < 5; i++)
		status[i] = 1000;
	EXPECT(syscall(SYS_move_pages, 0, 3ul, pages + 2, nodes, status, MPOL_MF_MOVE), 0);
	CHECKF(status[0] == -EFAULT && status[1] == -EFAULT && status[2] == -EFAULT,
	       "move_pages' moves: TASK_SIZE %d, kernel %d, last page %d", status[0], status[1],
	       status[2]);
}

static void process_vm_ranges(void)
{
	pid_t pid = getpid();
	struct iovec local = { scratch, P }, remote;
	/* process_vm_rw: flags; the local vector (import_iovec: a length
	 * negative as ssize_t EINVAL, a segment not inside [0, TASK_SIZE]
	 * EFAULT, a zero-length one included); the remote vector (a negative
	 * length EINVAL, no access_ok: another process's addresses); an empty
	 * remote total returns 0 before the pid is looked at; then each remote
	 * segment page by page (pin_user_pages_remote): a page no VMA covers
	 * ends the call, which returns the bytes moved before it, or EFAULT. */
#define READV(r) (remote = (r), syscall(SYS_process_vm_readv, pid, &local, 1ul, &remote, 1ul, 0ul))
#define WRITEV(l) (local = (l), syscall(SYS_process_vm_writev, pid, &local, 1ul, &remote, 1ul, 0ul))
	EXPECT(READV(((struct iovec){ (void *)top, P })), (long)P);
	EXPECT(READV(((struct iovec){ (void *)top, 2 * P })), (long)P);
	EXPECT(READV(((struct iovec){ (void *)T, P })), -EFAULT);
	EXPECT(READV(((struct iovec){ (void *)KERNEL_HALF, P })), -EFAULT);
	EXPECT(READV(((struct iovec){ (void *)LAST_PAGE, 2 * P })), -EFAULT);
	EXPECT(READV(((struct iovec){ sentinel, WRAP_USER_LEN })), -EINVAL);
	EXPECT(READV(((struct iovec){ sentinel + 1, 10 })), 10);
	EXPECT(READV(((struct iovec){ (void *)KERNEL_HALF, 0 })), 0);
	remote = (struct iovec){ (void *)KERNEL_HALF, 0 };
	EXPECT(syscall(SYS_process_vm_readv, -1, &local, 1ul, &remote, 1ul, 0ul), 0);
	/* The local side: the top page as the buffer read from. */
	remote = (struct iovec){ scratch, P };
	EXPECT(WRITEV(((struct iovec){ (void *)top, P })), (long)P);
	CHECK(sum_of(scratch + (sum_start - top), T - sum_start) == top_sum);
	EXPECT(WRITEV(((struct iovec){ (void *)top, 2 * P })), -EFAULT);
	EXPECT(WRITEV(((struct iovec){ (void *)T, P })), -EFAULT);
	EXPECT(WRITEV(((struct iovec){ (void *)KERNEL_HALF, P })), -EFAULT);
	EXPECT(WRITEV(((struct iovec){ (void *)KERNEL_HALF, 0 })), -EFAULT);
	EXPECT(WRITEV(((struct iovec){ (void *)LAST_PAGE, 2 * P })), -EFAULT);
	EXPECT(WRITEV(((struct iovec){ sentinel, WRAP_USER_LEN })), -EINVAL);
#undef READV
#undef WRITEV
}

static void remap_file_pages_ranges(void)
{
	/* sys_remap_file_pages: prot not 0, a range that is empty or wraps
	 * once start and size are rounded down to pages, or a pgoff that
	 * wraps: EINVAL; then no shared mapping at start: EINVAL. Private
	 * anonymous memory always ends there. */
#define REMAP(s, l, prot, off) syscall(SYS_remap_file_pages, (s), (l), (prot), (off), 0ul)
	EXPECT(REMAP(S, P, 0ul, 0ul), -EINVAL);
	EXPECT(REMAP(S, P, 1ul, 0ul), -EINVAL);
	EXPECT(REMAP(LAST_PAGE, 2 * P, 0ul, 0ul), -EINVAL);
	EXPECT(REMAP(top, 2 * P, 0ul, 0ul), -EINVAL);
	EXPECT(REMAP(KERNEL_HALF, P, 0ul, 0ul), -EINVAL);
	EXPECT(REMAP(S, P, 0ul, ~0ul), -EINVAL);
#undef REMAP
}

int main(int argc, char **argv)
{
	(void)argc;
	test_begin("range_checks");
	task_size = (1ul << user_va_bits()) - P;
	top = task_size - P;
	sentinel = mmap(NULL, SENTINEL_PAGES * P, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sentinel == MAP_FAILED)
		test_skip("no memory for the sentinel mapping");
	fill_sentinel();
	/* The top page: the stack's, or one of ours with bytes of its own. */
	void *t = mmap((void *)top, P, RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	top_is_ours = t == (void *)top;
	if (top_is_ours)
		memset(t, 0x5c, P);
	else if (t != MAP_FAILED)
		munmap(t, P); /* a kernel that took the address as a hint */
	else if (errno != EEXIST)
		test_skip("cannot map the top user page %#lx: %s", top, errno_name(errno));
	sum_start = top_is_ours || (unsigned long)argv < top ? top : (unsigned long)argv;
	top_sum = sum_of((void *)sum_start, T - sum_start);
	unsigned long allowed[16] = { 0 };
	if (syscall(SYS_get_mempolicy, NULL, allowed, 1024ul, 0ul, (unsigned long)MPOL_F_MEMS_ALLOWED) == 0)
		for (int n = 0; n < 1024 && memory_node < 0; n++)
			if (allowed[n / 64] & (1ul << (n % 64)))
				memory_node = n;
	note("TASK_SIZE %#lx (%d-bit user addresses); the top page is %s; sentinel %p", task_size,
	     user_va_bits(), top_is_ours ? "mapped here" : "the stack's", (void *)sentinel);
	/* Once, so that the stack is as deep as the checks will take it. */
	(void)changed();
	if (maps_snapshot(maps_before, sizeof(maps_before)) < 0)
		test_skip("cannot read /proc/self/maps");

	mmap_fixed();
	munmap_ranges();
	mprotect_ranges();
	madvise_ranges();
	mlock_ranges();
	msync_ranges();
	mincore_ranges();
	mremap_ranges();
	mempolicy_ranges();
	move_pages_ranges();
	process_vm_ranges();
	remap_file_pages_ranges();
	return test_end();
}
