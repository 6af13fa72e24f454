/* sysinfo(2), /proc/loadavg, times(2), time(2), gettimeofday(2) and the
 * identity calls, the same on mmlab and on Linux:
 *   - sysinfo reports memory in bytes (mem_unit 1 on a 64-bit kernel):
 *     totalram is MemTotal, freeram MemFree give or take what moved in
 *     between (on mmlab; at most totalram on Linux), no more swap free than there is; uptime is CLOCK_BOOTTIME
 *     rounded up; procs counts at least this process; its load averages
 *     are /proc/loadavg's, whose line has Linux's shape (three averages,
 *     runnable/all tasks with at least this one running, the last pid,
 *     no lower than ours on mmlab; on Linux, where pids wrap past
 *     pid_max while other processes start, a pid below pid_max);
 *   - times gives the CPU time getrusage gives, in clock_t ticks, none for
 *     children, and a clock that never goes back (a NULL buffer too);
 *   - time and gettimeofday agree with CLOCK_REALTIME, and fault on a bad
 *     pointer;
 *   - getuid, geteuid, getgid and getegid are what the auxiliary vector
 *     said; getppid is not our own pid (0 on mmlab: the kernel started us). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static long ts_sec(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return ts.tv_sec;
}

int main(void)
{
	test_begin("sysinfo");

	/* sysinfo and /proc/meminfo. */
	struct sysinfo si;
	long free_before = meminfo_kb("MemFree");
	long boot0 = ts_sec(CLOCK_BOOTTIME);
	if (!CHECK(sysinfo(&si) == 0))
		return test_end();
	long boot1 = ts_sec(CLOCK_BOOTTIME);
	long free_after = meminfo_kb("MemFree");
	CHECK_ERRNO(sysinfo((struct sysinfo *)8), EFAULT);
	CHECK_CMP(si.mem_unit, ==, 1);
	CHECK_CMP((long)(si.totalram / 1024), ==, meminfo_kb("MemTotal"));
	/* freeram is MemFree of the moment: between the two reads around it
	 * on mmlab, where only this program allocates (4 MiB of slack for
	 * the kernel's own); a Linux host may move by gigabytes meanwhile. */
	long lo = free_before < free_after ? free_before : free_after;
	long hi = free_before < free_after ? free_after : free_before;
	if (on_mmlab()) {
		CHECK_CMP((long)(si.freeram / 1024), >=, lo - 4096);
		CHECK_CMP((long)(si.freeram / 1024), <=, hi + 4096);
	}
	CHECK_CMP(si.freeram, >, 0);
	CHECK_CMP(si.freeram, <=, si.totalram);
	CHECK_CMP(si.freeswap, <=, si.totalswap);
	CHECK_CMP((long)(si.totalswap / 1024), ==, meminfo_kb("SwapTotal"));
	CHECK_CMP(si.uptime, >=, boot0);
	CHECK_CMP(si.uptime, <=, boot1 + 1);
	CHECK_CMP(si.procs, >=, 1);

	/* /proc/loadavg, and sysinfo's averages beside it. */
	char text[256];
	if (CHECK(read_file("/proc/loadavg", text, sizeof(text)) > 0)) {
		unsigned a[3], b[3], running, total;
		int last;
		char end;
		int n = sscanf(text, "%u.%2u %u.%2u %u.%2u %u/%u %d%c", &a[0], &b[0], &a[1], &b[1], &a[2], &b[2],
			       &running, &total, &last, &end);
		CHECKF(n == 10 && end == '\n', "/proc/loadavg is \"%.*s\"", (int)strcspn(text, "\n"), text);
		CHECK_CMP(running, >=, 1);
		CHECK_CMP(total, >=, running);
		/* The last pid handed out: ours or a later one. On Linux other
		 * processes keep starting, and past kernel.pid_max (32768 on
		 * many hosts) the numbers wrap around, so a later pid may be
		 * lower than ours: there it is only a pid below pid_max. */
		if (on_mmlab()) {
			CHECK_CMP(last, >=, getpid());
		} else {
			char max_text[32];
			long pid_max = read_file("/proc/sys/kernel/pid_max", max_text, sizeof(max_text)) > 0
					       ? atol(max_text) : 0;
			CHECKF(last >= 1 && (pid_max <= 0 || last < pid_max),
			       "/proc/loadavg's last pid %d is a pid (pid_max %ld; ours %d)", last, pid_max, (int)getpid());
		}
		struct sysinfo s2;
		CHECK(sysinfo(&s2) == 0);
		for (int i = 0; i < 3 && n == 10; i++) {
			/* The same average, rounded to hundredths in the file; an
			 * update may fall in between (every 5 s). */
			long file = a[i] * 100 + b[i];
			long sys = (long)((s2.loads[i] * 100 + 32768) >> 16);
			long was = (long)((si.loads[i] * 100 + 32768) >> 16);
			CHECKF((file >= sys - 1 && file <= sys + 1) || (file >= was - 1 && file <= was + 1),
			       "loadavg %d: /proc/loadavg %ld, sysinfo %ld (before: %ld) hundredths", i, file, sys,
			       was);
		}
	}

	/* times. */
	struct tms t0, t1;
	long hz = sysconf(_SC_CLK_TCK);
	CHECK_CMP(hz, ==, 100);
	clock_t c0 = times(&t0);
	CHECK(c0 != (clock_t)-1);
	struct rusage ru;
	volatile unsigned long spin = 0;
	for (int i = 0; i < 3000000; i++)
		spin++;
	clock_t c1 = times(&t1);
	getrusage(RUSAGE_SELF, &ru);
	CHECK_CMP(c1, >=, c0);
	CHECK_CMP(t1.tms_utime + t1.tms_stime, >=, t0.tms_utime + t0.tms_stime);
	CHECK_CMP(t1.tms_cutime, ==, 0);
	CHECK_CMP(t1.tms_cstime, ==, 0);
	long ru_ticks = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * hz +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / (1000000 / hz);
	CHECK_CMP(t1.tms_utime + t1.tms_stime, <=, ru_ticks + 1);
	CHECK(syscall(SYS_times, NULL) != -1);
	CHECK_ERRNO(syscall(SYS_times, (void *)8), EFAULT);

	/* time and gettimeofday, by the system call (the C library may take
	 * them from clock_gettime). */
	long r0 = ts_sec(CLOCK_REALTIME);
	long tt = -1;
	long t = syscall(SYS_time, &tt);
	long r1 = ts_sec(CLOCK_REALTIME);
	/* Linux's time() reads the seconds the tick last stored, so it may
	 * be a second behind clock_gettime just after a second turns. */
	CHECK_CMP(t, >=, r0 - 1);
	CHECK_CMP(t, <=, r1);
	CHECK_CMP(tt, ==, t);
	CHECK_CMP(syscall(SYS_time, NULL), >=, t);
	CHECK_ERRNO(syscall(SYS_time, (void *)8), EFAULT);
	struct timeval tv;
	struct timezone tz = { -1, -1 };
	CHECK(syscall(SYS_gettimeofday, &tv, &tz) == 0);
	CHECK_CMP(tv.tv_sec, >=, r1);
	CHECK_CMP(tv.tv_sec, <=, ts_sec(CLOCK_REALTIME));
	CHECK_CMP(tv.tv_usec, <, 1000000);
	if (on_mmlab())
		CHECK(tz.tz_minuteswest == 0 && tz.tz_dsttime == 0);
	CHECK(syscall(SYS_gettimeofday, NULL, NULL) == 0);
	CHECK_ERRNO(syscall(SYS_gettimeofday, (void *)8, NULL), EFAULT);
	CHECK_ERRNO(syscall(SYS_gettimeofday, &tv, (void *)8), EFAULT);

	/* Who we are. */
	CHECK_CMP(syscall(SYS_getuid), ==, (long)getauxval(AT_UID));
	CHECK_CMP(syscall(SYS_geteuid), ==, (long)getauxval(AT_EUID));
	CHECK_CMP(syscall(SYS_getgid), ==, (long)getauxval(AT_GID));
	CHECK_CMP(syscall(SYS_getegid), ==, (long)getauxval(AT_EGID));
	long ppid = syscall(SYS_getppid);
	CHECK_CMP(ppid, >=, 0);
	CHECK_CMP(ppid, !=, getpid());
	if (on_mmlab())
		CHECK_CMP(ppid, ==, 0);
	return test_end();
}
