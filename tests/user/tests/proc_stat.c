/* /proc/stat as top reads it: the cpu line (ten columns: user nice system
 * idle iowait irq softirq steal guest guest_nice, in USER_HZ), one cpuN
 * line per online CPU whose columns add up to the cpu line's (within the
 * rounding of each to whole ticks, when every possible CPU is online),
 * then intr, ctxt, btime, processes, procs_running, procs_blocked and
 * softirq, in that order. After a fork and a wait: processes grew by the
 * child at least, ctxt grew, no CPU time column went down; procs_running
 * counts the reader; btime is in the past. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define COLUMNS 10

struct figures {
	unsigned long long cpu[COLUMNS], sum[COLUMNS];
	int cpu_lines;
	unsigned long long intr, ctxt, btime, processes, procs_running, procs_blocked;
	bool order_ok;
};

static char buf[1 << 16];

static void read_stat(struct figures *f)
{
	static const char *const keys[] = { "intr", "ctxt", "btime", "processes", "procs_running",
					    "procs_blocked", "softirq" };
	unsigned long long softirq, *vals[] = { &f->intr, &f->ctxt, &f->btime, &f->processes,
						&f->procs_running, &f->procs_blocked, &softirq };
	memset(f, 0, sizeof(*f));
	CHECK(read_file("/proc/stat", buf, sizeof(buf)) > 0);
	char *line = buf, *next;
	unsigned k = 0;
	f->order_ok = !strncmp(buf, "cpu  ", 5);
	for (; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		char *s = line;
		if (!strncmp(s, "cpu", 3)) {
			bool total = s[3] == ' ';
			if (!total) {
				f->order_ok &= atoi(s + 3) >= 0 && k == 0;
				f->cpu_lines++;
			}
			s = strchr(s, ' ');
			for (int i = 0; i < COLUMNS && s; i++) {
				unsigned long long v = strtoull(s, &s, 10);
				*(total ? &f->cpu[i] : &f->sum[i]) += v;
			}
			continue;
		}
		if (k < sizeof(keys) / sizeof(keys[0]) && !strncmp(s, keys[k], strlen(keys[k])) &&
		    s[strlen(keys[k])] == ' ') {
			*vals[k] = strtoull(s + strlen(keys[k]), NULL, 10);
			k++;
		}
		/* Linux may add lines of its own after these. */
	}
	f->order_ok &= k == sizeof(keys) / sizeof(keys[0]);
}

static bool all_possible_online(void)
{
	char possible[64] = "", online[64] = "";
	read_file("/sys/devices/system/cpu/possible", possible, sizeof(possible));
	read_file("/sys/devices/system/cpu/online", online, sizeof(online));
	return possible[0] && !strcmp(possible, online);
}

int main(void)
{
	struct figures a, b;
	test_begin("proc_stat");
	read_stat(&a);
	CHECK(a.order_ok);
	CHECK_CMP(a.cpu_lines, ==, sysconf(_SC_NPROCESSORS_ONLN));
	if (all_possible_online()) {
		/* Linux rounds the sum's nanoseconds and each CPU's apart. */
		for (int i = 0; i < COLUMNS; i++)
			CHECKF(a.sum[i] <= a.cpu[i] + a.cpu_lines && a.cpu[i] <= a.sum[i] + a.cpu_lines,
			       "column %d: cpu %llu, cpuN lines %llu", i, a.cpu[i], a.sum[i]);
	} else {
		check_skip("a possible CPU is offline: the cpu line counts it, no cpuN line shows it");
	}
	CHECK_CMP(a.procs_running, >=, 1);
	CHECK_CMP(a.btime, >, 0);
	CHECK_CMP(a.btime, <=, (unsigned long long)time(NULL));

	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	CHECK_CMP(pid, >, 0);
	int status;
	CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
	read_stat(&b);
	CHECK(b.order_ok);
	CHECK_CMP(b.processes, >=, a.processes + 1);
	CHECK_CMP(b.ctxt, >, a.ctxt);
	CHECK_CMP(b.intr, >=, a.intr);
	for (int i = 0; i < COLUMNS; i++)
		CHECKF(b.cpu[i] >= a.cpu[i], "column %d: %llu then %llu", i, a.cpu[i], b.cpu[i]);
	CHECK_CMP(b.btime + 1, >=, a.btime); /* Linux's may move by a second as the clock is steered */
	return test_end();
}
