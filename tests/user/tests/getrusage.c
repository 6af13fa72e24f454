/* getrusage(2) and the page-fault counters, as a program sees them, the
 * same on mmlab and on Linux:
 *   - a who other than RUSAGE_SELF, RUSAGE_CHILDREN and RUSAGE_THREAD is
 *     EINVAL, a bad pointer EFAULT;
 *   - RUSAGE_CHILDREN is all zero: no child was ever waited for;
 *   - writing N fresh 4 KiB pages (MADV_NOHUGEPAGE) adds exactly N minor
 *     faults to RUSAGE_SELF and RUSAGE_THREAD, and no major one; writing
 *     them again adds none; MAP_POPULATE of M pages adds M (the kernel
 *     faults them in for the caller, and both kernels count those);
 *     /proc/vmstat's pgfault grows by at least N;
 *   - a thread's faults count in its own RUSAGE_THREAD and in the
 *     process's RUSAGE_SELF, and stay there after it exits;
 *   - ru_maxrss is the peak RSS in KiB: at least VmHWM read just before,
 *     at least what was written, and no lower after a munmap;
 *   - /proc/self/stat has Linux's 52 fields, which agree with getrusage,
 *     status and what the program sees of its own code, stack and argv;
 *   - CPU time: a spin in user mode makes ru_utime grow, a sleep makes
 *     ru_nvcsw grow; the times never go back; the CPU-time clocks of
 *     clock_gettime agree with getrusage, and clock_getres knows them. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#ifndef RUSAGE_THREAD
#define RUSAGE_THREAD 1
#endif
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)

static struct rusage usage(int who)
{
	struct rusage r;
	memset(&r, 0xa5, sizeof(r));
	if (getrusage(who, &r))
		printf("# getrusage(%d): %s\n", who, errno_name(errno));
	return r;
}

static long long cpu_us(const struct rusage *r)
{
	return (long long)(r->ru_utime.tv_sec + r->ru_stime.tv_sec) * 1000000 + r->ru_utime.tv_usec +
	       r->ru_stime.tv_usec;
}

/* Fresh pages with no THP, so that each write is one fault on both kernels. */
static char *map_small(size_t pages, int flags)
{
	char *p = mmap(NULL, pages * PAGE_4K, RW, ANON | flags, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, pages * PAGE_4K, MADV_NOHUGEPAGE);
	return p;
}

/* /proc/self/stat, Linux's 52 fields, beside getrusage and status: the
 * counts between a getrusage before and one after, the sizes status
 * gives, the code, stack and argument bounds around what this program
 * sees of itself. */
static void check_proc_stat(char **argv)
{
	static char text[4096];
	long rss_before = status_kb("VmRSS");
	struct rusage before = usage(RUSAGE_SELF);
	long len = read_file("/proc/self/stat", text, sizeof(text));
	struct rusage after = usage(RUSAGE_SELF);
	long vmsize = status_kb("VmSize"), rss_after = status_kb("VmRSS");
	if (!CHECK(len > 0))
		return;
	CHECK(text[len - 1] == '\n');
	note("/proc/self/stat: %.*s", (int)strcspn(text, "\n"), text);
	/* The name may hold anything: the fields after it start past the
	 * last ')'. */
	char *close = strrchr(text, ')');
	if (!CHECK(close != NULL && close[1] == ' '))
		return;
	unsigned long long f[53] = { 0 };
	int n = 3;
	char state = close[2];
	for (char *q = close + 3; *q == ' ' && n < 53; n++) {
		char *end;
		f[n + 1] = strtoull(q + 1, &end, 10); /* -1 (tpgid) reads as 2^64 - 1 */
		if (end == q + 1)
			break;
		q = end;
	}
	CHECK_CMP(n, ==, 52);
	CHECK_CMP(atol(text), ==, getpid());
	CHECK(state == 'R');
	CHECK_CMP(f[10], >=, (unsigned long long)before.ru_minflt);
	CHECK_CMP(f[10], <=, (unsigned long long)after.ru_minflt);
	/* Major faults: none on mmlab (everything is in memory); Linux takes
	 * one where a page of the program's file is not in the page cache
	 * (as the host's memory pressure left it), so there the field only
	 * agrees with getrusage around it. */
	if (on_mmlab())
		CHECK_CMP(f[12], ==, 0);
	CHECK_CMP(f[12], >=, (unsigned long long)before.ru_majflt);
	CHECK_CMP(f[12], <=, (unsigned long long)after.ru_majflt);
	CHECK_CMP(f[9] & 0x00200000, ==, 0); /* not PF_KTHREAD */
	long ticks_before = (long)(cpu_us(&before) / 10000), ticks_after = (long)(cpu_us(&after) / 10000);
	CHECK_CMP((long)(f[14] + f[15]), >=, ticks_before - 1);
	CHECK_CMP((long)(f[14] + f[15]), <=, ticks_after + 1);
	CHECK_CMP((long long)f[18], ==, 20); /* priority: SCHED_OTHER at nice 0 */
	CHECK_CMP((long long)f[19], ==, 0);
	CHECK_CMP(f[20], ==, 1);
	struct timespec boot;
	clock_gettime(CLOCK_BOOTTIME, &boot);
	CHECK_CMP(f[22], >=, 1); /* started after boot */
	CHECK_CMP(f[22], <=, (unsigned long long)boot.tv_sec * 100 + boot.tv_nsec / 10000000);
	CHECK_CMP(f[23], ==, (unsigned long long)vmsize * 1024);
	long slack = on_mmlab() ? 0 : 64 * 4 * cpus_online();
	CHECK_CMP((long)f[24] * 4, >=, rss_before - slack);
	CHECK_CMP((long)f[24] * 4, <=, rss_after + slack);
	struct rlimit rss;
	getrlimit(RLIMIT_RSS, &rss);
	CHECK_CMP(f[25], ==, (unsigned long long)rss.rlim_cur);
	uintptr_t code = (uintptr_t)check_proc_stat;
	CHECK(f[26] <= code && code < f[27]);
	int local;
	CHECK_CMP(f[28], >, (unsigned long long)(uintptr_t)&local);
	/* Signals as rt_sigaction stored them (main ignores SIGPIPE and
	 * catches SIGUSR1 before this), and status says the same. */
	CHECK_CMP(f[33] & (1ull << (SIGPIPE - 1)), !=, 0);
	CHECK_CMP(f[34] & (1ull << (SIGUSR1 - 1)), !=, 0);
	CHECK_CMP(f[34] & (1ull << (SIGPIPE - 1)), ==, 0);
	static char status[4096];
	if (CHECK(read_file("/proc/self/status", status, sizeof(status)) > 0)) {
		char *ign = strstr(status, "SigIgn:\t"), *cgt = strstr(status, "SigCgt:\t");
		CHECK(ign && (strtoull(ign + 8, NULL, 16) & 0x7fffffffull) == f[33]);
		CHECK(cgt && (strtoull(cgt + 8, NULL, 16) & 0x7fffffffull) == f[34]);
	}
	CHECK_CMP(f[38], ==, 17); /* SIGCHLD */
	/* The CPU it last ran on: a CPU id (not sysconf(): musl counts the
	 * affinity mask, which a host may have narrowed). */
	CHECK_CMP(f[39], <, (unsigned long long)cpu_ids());
	CHECK(f[45] > 0 && f[45] <= f[46] && f[46] <= f[47]);
	uintptr_t arg0 = (uintptr_t)argv[0];
	CHECK(f[48] <= arg0 && arg0 < f[49]);
	CHECK(f[49] <= f[50] && f[50] <= f[51]);
	CHECK_CMP(f[52], ==, 0);
}

static void on_usr1(int sig) { (void)sig; }

static long thread_faults = -1, thread_total = -1;

static void *thread_main(void *arg)
{
	char *p = arg;
	struct rusage a = usage(RUSAGE_THREAD);
	for (int i = 0; i < 32; i++)
		p[i * PAGE_4K] = 1;
	struct rusage b = usage(RUSAGE_THREAD);
	thread_faults = b.ru_minflt - a.ru_minflt;
	thread_total = b.ru_minflt;
	return NULL;
}

int main(int argc, char **argv)
{
	(void)argc;
	test_begin("getrusage");
	struct rusage r;
	CHECK_ERRNO(getrusage(2, &r), EINVAL);
	CHECK_ERRNO(getrusage(-2, &r), EINVAL);
	CHECK_ERRNO(getrusage(RUSAGE_SELF, (struct rusage *)8), EFAULT);
	CHECK_ERRNO(getrusage(RUSAGE_SELF, (struct rusage *)0xffffffff80000000ul), EFAULT);

	/* The kernel's struct rusage ends at ru_nivcsw; the C library's may
	 * go on with reserved words, which no kernel writes. */
	struct rusage c = usage(RUSAGE_CHILDREN), zero;
	memset(&zero, 0, sizeof(zero));
	size_t kernel_size = offsetof(struct rusage, ru_nivcsw) + sizeof(c.ru_nivcsw);
	CHECK(memcmp(&c, &zero, kernel_size) == 0);

	/* Faults: N fresh pages written, then written again. */
	enum { N = 64 };
	char *p = map_small(N, 0);
	if (!CHECK(p != NULL))
		return test_end();
	long pgfault0 = vmstat_value("pgfault");
	struct rusage s0 = usage(RUSAGE_SELF), t0 = usage(RUSAGE_THREAD);
	for (int i = 0; i < N; i++)
		p[i * PAGE_4K] = 1;
	struct rusage s1 = usage(RUSAGE_SELF), t1 = usage(RUSAGE_THREAD);
	CHECK_CMP(s1.ru_minflt - s0.ru_minflt, ==, N);
	CHECK_CMP(t1.ru_minflt - t0.ru_minflt, ==, N);
	CHECK_CMP(s1.ru_majflt - s0.ru_majflt, ==, 0);
	CHECK_CMP(vmstat_value("pgfault") - pgfault0, >=, N);
	for (int i = 0; i < N; i++)
		p[i * PAGE_4K] = 2;
	struct rusage s2 = usage(RUSAGE_SELF);
	CHECK_CMP(s2.ru_minflt - s1.ru_minflt, ==, 0);

	/* MAP_POPULATE: the kernel's faults on our behalf count as ours. */
	enum { M = 16 };
	bool small = thp_small_sizes(); /* asked before the figures: it may print */
	struct rusage s3 = usage(RUSAGE_SELF);
	char *q = mmap(NULL, M * PAGE_4K, RW, ANON | MAP_POPULATE, -1, 0);
	struct rusage s4 = usage(RUSAGE_SELF);
	if (CHECK(q != MAP_FAILED)) {
		/* Multi-size THP (thp_small_sizes()) may populate several
		 * pages a fault, and MAP_POPULATE gives no chance to ask for
		 * 4 KiB pages first. */
		if (small)
			check_skip("MAP_POPULATE's %d faults: multi-size THP may take fewer (%ld here)", M,
				   s4.ru_minflt - s3.ru_minflt);
		else
			CHECK_CMP(s4.ru_minflt - s3.ru_minflt, ==, M);
		munmap(q, M * PAGE_4K);
	}

	signal(SIGPIPE, SIG_IGN);
	signal(SIGUSR1, on_usr1);
	check_proc_stat(argv);

	/* A thread: its faults are its own and the process's. */
	char *tp = map_small(32, 0);
	if (CHECK(tp != NULL)) {
		struct rusage before = usage(RUSAGE_SELF), main0 = usage(RUSAGE_THREAD);
		pthread_t th;
		if (CHECK(pthread_create(&th, NULL, thread_main, tp) == 0)) {
			pthread_join(th, NULL);
			/* The join returns at the thread's CLEARTID wake, before it
			 * leaves the group: wait until it has (at most 10 s), so
			 * that its faults are counted as an exited thread's. */
			CHECK_CMP(threads_settled(1, 10000), ==, 1);
			struct rusage main1 = usage(RUSAGE_THREAD), after = usage(RUSAGE_SELF);
			CHECK_CMP(thread_faults, ==, 32);
			/* The process's faults: the main thread's own and all
			 * the gone thread's (those after its last count too:
			 * its exit touches nothing new on either kernel). */
			CHECK_CMP(after.ru_minflt - before.ru_minflt, >=,
				  main1.ru_minflt - main0.ru_minflt + thread_total);
			CHECK_CMP(after.ru_minflt - before.ru_minflt, <=,
				  main1.ru_minflt - main0.ru_minflt + thread_total + 4);
		}
		munmap(tp, 32 * PAGE_4K);
	}

	/* Peak RSS: 4 MiB written. mmlab's counters are exact, so ru_maxrss
	 * is VmHWM there. Linux's are not: up to 6.1 per-thread caches lag by
	 * up to 63 pages (see rss_kb() in check.h); since 6.2 per-CPU
	 * counters, which getrusage reads without summing while newer
	 * kernels' /proc/self/status sums them (seen 80 KiB apart on a host
	 * Linux 6.18), so there the floor is VmHWM less 64 pages a CPU. */
	size_t big = 1024;
	char *b = map_small(big, 0);
	if (CHECK(b != NULL)) {
		touch_pages(b, big * PAGE_4K, 3);
		long hwm = status_kb("VmHWM");
		struct rusage m = usage(RUSAGE_SELF);
		long slack = on_mmlab() ? 0 : 64 * 4 * cpus_online();
		CHECK_CMP(m.ru_maxrss, >=, hwm - slack);
		if (on_mmlab())
			CHECK_CMP(m.ru_maxrss, ==, hwm);
		CHECK_CMP(m.ru_maxrss, >=, (long)(big * 4) - slack - 63 * 4);
		CHECK_CMP(usage(RUSAGE_THREAD).ru_maxrss, >=, hwm - slack);
		munmap(b, big * PAGE_4K);
		CHECK_CMP(usage(RUSAGE_SELF).ru_maxrss, >=, m.ru_maxrss);
	}

	/* CPU time: spin until it shows (ticks sample it: at most a few
	 * ticks' worth of spinning on either kernel), for at most 10 s. */
	struct rusage u0 = usage(RUSAGE_SELF);
	long long deadline = now_ns() + 10000000000ll;
	volatile unsigned long spins = 0;
	struct rusage u1 = u0;
	while (u1.ru_utime.tv_sec == u0.ru_utime.tv_sec && u1.ru_utime.tv_usec == u0.ru_utime.tv_usec &&
	       now_ns() < deadline) {
		for (int i = 0; i < 100000; i++)
			spins++;
		u1 = usage(RUSAGE_SELF);
	}
	CHECK_CMP(cpu_us(&u1), >, cpu_us(&u0));
	CHECK_CMP(u1.ru_utime.tv_usec, <, 1000000);
	CHECK_CMP(u1.ru_stime.tv_usec, <, 1000000);
	struct rusage th1 = usage(RUSAGE_THREAD), u2 = usage(RUSAGE_SELF);
	CHECK_CMP(cpu_us(&th1), <=, cpu_us(&u2));
	CHECK_CMP(cpu_us(&u2), >=, cpu_us(&u1));

	/* The CPU-time clocks read the same time: the process's is at least
	 * what getrusage said before it, the thread's at most the process's
	 * (mmlab's step by ticks, clock_getres says so; Linux's by 1 ns). */
	struct timespec cp, ct, res;
	struct rusage u3 = usage(RUSAGE_SELF);
	CHECK(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ct) == 0);
	CHECK(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cp) == 0);
	CHECK_CMP(cp.tv_sec * 1000000ll + cp.tv_nsec / 1000, >=, cpu_us(&u3));
	CHECK_CMP(ct.tv_sec * 1000000000ll + ct.tv_nsec, <=, cp.tv_sec * 1000000000ll + cp.tv_nsec);
	CHECK(clock_getres(CLOCK_PROCESS_CPUTIME_ID, &res) == 0);
	CHECK_CMP(res.tv_sec, ==, 0);
	CHECK_CMP(res.tv_nsec, >, 0);
	CHECK_CMP(res.tv_nsec, <=, 10000000);
	CHECK(clock_getres(CLOCK_MONOTONIC, NULL) == 0);
	CHECK_ERRNO(clock_getres(99, &res), EINVAL);
	CHECK_ERRNO(clock_getres(CLOCK_MONOTONIC, (struct timespec *)8), EFAULT);

	/* A sleep is a voluntary switch. */
	struct rusage v0 = usage(RUSAGE_SELF);
	struct timespec ts = { 0, 20000000 };
	nanosleep(&ts, NULL);
	CHECK_CMP(usage(RUSAGE_SELF).ru_nvcsw, >, v0.ru_nvcsw);

	munmap(p, N * PAGE_4K);
	return test_end();
}
