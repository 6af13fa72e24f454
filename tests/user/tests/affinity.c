/* CPU affinity: sched_setaffinity/sched_getaffinity round trips and errnos,
 * getcpu after pinning to each online CPU, and /sys/devices/system/cpu's
 * lists. Raw syscall(2) and standard headers only, so the same source
 * builds on mmlab's test library, musl and glibc; every expectation holds
 * on Linux too (the user mask is compared only in its first 8 bytes: 64
 * CPUs, more than any machine of the matrix; Linux's copy may be longer;
 * a host with CPU ids above 63 is skipped).
 *
 * On Linux the program may start with fewer CPUs than are online (taskset,
 * a container's cpuset, which also refuses the others): there it pins
 * itself only to the CPUs of the mask it started with, and a mask wider
 * than the online CPUs gives at least that mask and no more than the
 * online CPUs. mmlab starts every program on all of them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_sched_setaffinity
#define SYS_sched_setaffinity 203
#endif
#ifndef SYS_sched_getaffinity
#define SYS_sched_getaffinity 204
#endif
#ifndef SYS_getcpu
#define SYS_getcpu 309
#endif

#define NO_SUCH_PID 0x3fffffff /* above Linux's largest pid_max (4194304) */
#define BAD_PTR ((void *)8)    /* in the never-mapped first page */

static unsigned long long online;    /* /sys/devices/system/cpu/online */
static unsigned long long possible;  /* /sys/devices/system/cpu/possible */
static unsigned long long usable;    /* online CPUs of the mask it started with */

/* Parses a Linux CPU list ("0-3,8\n") into a 64-bit mask; false if it is
 * malformed or names a CPU above 63. */
static bool parse_cpu_list(const char *s, unsigned long long *mask)
{
	*mask = 0;
	while (*s && *s != '\n') {
		unsigned a = 0, b;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			a = a * 10 + (unsigned)(*s++ - '0');
		b = a;
		if (*s == '-') {
			s++;
			if (*s < '0' || *s > '9')
				return false;
			b = 0;
			while (*s >= '0' && *s <= '9')
				b = b * 10 + (unsigned)(*s++ - '0');
		}
		if (b < a || b > 63)
			return false;
		for (unsigned c = a; c <= b; c++)
			*mask |= 1ull << c;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return false;
	}
	return *s == '\n' && s[1] == 0 && *mask;
}

static long setaff(long pid, unsigned long len, const void *mask)
{
	return syscall(SYS_sched_setaffinity, pid, len, mask);
}

static long getaff(long pid, unsigned long len, void *mask)
{
	return syscall(SYS_sched_getaffinity, pid, len, mask);
}

static unsigned long long current_mask(void)
{
	unsigned long long buf[16];
	memset(buf, 0, sizeof(buf));
	long n = getaff(0, sizeof(buf), buf);
	CHECKF(n >= 8 && n % 8 == 0 && n <= (long)sizeof(buf), "sched_getaffinity copied %ld bytes", n);
	return buf[0];
}

static void sysfs_lists(void)
{
	char text[256];
	CHECK(read_file("/sys/devices/system/cpu/online", text, sizeof(text)) > 0);
	CHECKF(parse_cpu_list(text, &online), "online is a CPU list: \"%s\"", text);
	CHECK(read_file("/sys/devices/system/cpu/possible", text, sizeof(text)) > 0);
	CHECKF(parse_cpu_list(text, &possible), "possible is a CPU list: \"%s\"", text);
	unsigned long long present;
	CHECK(read_file("/sys/devices/system/cpu/present", text, sizeof(text)) > 0);
	CHECKF(parse_cpu_list(text, &present), "present is a CPU list: \"%s\"", text);
	CHECK((online & ~present) == 0);
	CHECK((present & ~possible) == 0);
	note("online %#llx, possible %#llx", online, possible);
}

static void getaffinity_errors(void)
{
	unsigned long long buf[16];
	CHECK_ERRNO(getaff(0, 0, buf), EINVAL);  /* fewer bits than CPUs */
	CHECK_ERRNO(getaff(0, 12, buf), EINVAL); /* not a multiple of a long */
	CHECK_ERRNO(getaff(0, 8, BAD_PTR), EFAULT);
	CHECK_ERRNO(getaff(NO_SUCH_PID, 8, buf), ESRCH);
	CHECK_ERRNO(getaff(-1, 8, buf), ESRCH);
	/* The length checks come before the pid lookup. */
	CHECK_ERRNO(getaff(NO_SUCH_PID, 12, buf), EINVAL);
	/* Its own pid is itself; the mask has online CPUs only. */
	memset(buf, 0xff, sizeof(buf));
	long n = getaff(getpid(), sizeof(buf), buf);
	CHECK_CMP(n, >=, 8);
	CHECK(buf[0] != 0 && (buf[0] & ~online) == 0);
}

static void setaffinity_errors(void)
{
	unsigned long long before = current_mask(), empty = 0, high = 1ull << 63, one = online & -online;
	CHECK_ERRNO(setaff(0, 8, &empty), EINVAL);
	CHECK_ERRNO(setaff(0, 0, &one), EINVAL); /* nothing copied: empty */
	CHECK_ERRNO(setaff(0, 8, BAD_PTR), EFAULT);
	CHECK_ERRNO(setaff(NO_SUCH_PID, 8, &one), ESRCH);
	CHECK_ERRNO(setaff(-1, 8, &one), ESRCH);
	/* The mask is copied before the pid is looked up. */
	CHECK_ERRNO(setaff(NO_SUCH_PID, 8, BAD_PTR), EFAULT);
	if (!(possible >> 63 & 1))
		CHECK_ERRNO(setaff(0, 8, &high), EINVAL); /* no possible CPU in it */
	CHECK_CMP(current_mask(), ==, before); /* nothing changed */
}

static void pin_to_each_cpu(void)
{
	unsigned long long before = current_mask();
	int pinned = 0;
	for (unsigned cpu = 0; cpu < 64; cpu++) {
		if (!(usable >> cpu & 1))
			continue;
		unsigned long long mask = 1ull << cpu;
		unsigned got = ~0u, node = ~0u;
		CHECK_CMP(setaff(0, sizeof(mask), &mask), ==, 0);
		CHECK_CMP(current_mask(), ==, mask);
		CHECK_CMP(syscall(SYS_getcpu, &got, &node, NULL), ==, 0);
		CHECKF(got == cpu, "pinned to CPU %u, getcpu says %u (node %u)", cpu, got, node);
		CHECK(node != ~0u);
		syscall(SYS_sched_yield);
		got = ~0u;
		CHECK_CMP(syscall(SYS_getcpu, &got, NULL, NULL), ==, 0);
		CHECK_CMP(got, ==, cpu);
		pinned++;
	}
	/* A short mask is zero-extended: one byte naming the lowest CPU. */
	unsigned lowest = (unsigned)__builtin_ctzll(usable);
	if (lowest < 8) {
		unsigned char byte = (unsigned char)(1u << lowest);
		unsigned got = ~0u;
		CHECK_CMP(setaff(0, 1, &byte), ==, 0);
		CHECK_CMP(current_mask(), ==, 1ull << lowest);
		CHECK_CMP(syscall(SYS_getcpu, &got, NULL, NULL), ==, 0);
		CHECK_CMP(got, ==, lowest);
	}
	/* Bits beyond the possible CPUs are dropped, the others kept. */
	unsigned long long wide = online | (1ull << 63);
	CHECK_CMP(setaff(0, sizeof(wide), &wide), ==, 0);
	unsigned long long got_wide = current_mask();
	if (usable == online)
		CHECK_CMP(got_wide, ==, online);
	else /* a cpuset may keep some online CPUs out */
		CHECKF((got_wide & usable) == usable && (got_wide & ~online) == 0,
		       "a mask wider than the online CPUs gives at least the starting mask %#llx and no more "
		       "than online %#llx: %#llx", usable, online, got_wide);
	/* getcpu's pointers: EFAULT for a bad one, NULL ones are skipped. */
	CHECK_ERRNO(syscall(SYS_getcpu, BAD_PTR, NULL, NULL), EFAULT);
	CHECK_ERRNO(syscall(SYS_getcpu, NULL, BAD_PTR, NULL), EFAULT);
	CHECK_CMP(syscall(SYS_getcpu, NULL, NULL, NULL), ==, 0);
	CHECK_CMP(setaff(0, sizeof(before), &before), ==, 0);
	CHECK_CMP(current_mask(), ==, before);
	note("pinned to %d CPUs in turn", pinned);
}

int main(void)
{
	test_begin("affinity");
	if (cpu_ids() > 64)
		test_skip("%ld CPU ids: this program's masks hold 64", cpu_ids());
	sysfs_lists();
	if (!online)
		return test_end();
	usable = on_mmlab() ? online : current_mask() & online;
	if (usable != online)
		note("started on %#llx of the online CPUs %#llx (taskset, a cpuset): pinned to those only", usable,
		     online);
	getaffinity_errors();
	setaffinity_errors();
	pin_to_each_cpu();
	return test_end();
}
