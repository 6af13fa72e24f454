/* The OOM killer's knob and score, held beside Linux's
 * (fs/proc/base.c oom_score_adj_write/__set_oom_adj, proc_oom_score,
 * mm/oom_kill.c oom_badness):
 *   - /proc/self/oom_score_adj takes -1000..1000 (kstrtoint: a sign,
 *     digits, a newline); out of range or not a number is EINVAL;
 *   - a write with CAP_SYS_RESOURCE sets the value and the floor
 *     (oom_score_adj_min) below which a process without it may not go
 *     (EACCES), though it may raise it and come back down to the floor;
 *   - fork inherits the value and the floor;
 *   - /proc/self/oom_score: (1000 + badness * 1000 / totalpages) * 2 / 3,
 *     badness the process's pages plus oom_score_adj thousandths of the
 *     machine's pages: 500 more of adj is about 333 more of score;
 *     OOM_SCORE_ADJ_MIN (-1000) makes it 0 (never killed).
 * Only this process's own value and its child's are written, and put back
 * as they were: safe on any machine. The parts that lower the value need
 * CAP_SYS_RESOURCE and are skipped without it. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define CAP_SYS_RESOURCE 24

static long read_long(const char *path)
{
	char buf[64];
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -99999;
	return strtol(buf, NULL, 10);
}

/* The write's result: 0, or the errno. */
static int write_adj(const char *text)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY);
	if (fd < 0)
		return errno;
	ssize_t n = write(fd, text, strlen(text));
	int err = n < 0 ? errno : 0;
	close(fd);
	return err;
}

static int set_adj(int v)
{
	char text[16];
	snprintf(text, sizeof(text), "%d\n", v);
	return write_adj(text);
}

static long adj(void) { return read_long("/proc/self/oom_score_adj"); }
static long score(void) { return read_long("/proc/self/oom_score"); }

static void ranges(void)
{
	long start = adj();
	CHECK(start >= -1000 && start <= 1000);
	CHECK_CMP(write_adj("1001"), ==, EINVAL);
	CHECK_CMP(write_adj("-1001"), ==, EINVAL);
	CHECK_CMP(write_adj("12abc"), ==, EINVAL);
	CHECK_CMP(write_adj("abc"), ==, EINVAL);
	CHECK_CMP(adj(), ==, start);
	/* Raising needs nothing. */
	if (start <= 1000 - 1) {
		CHECK_CMP(set_adj((int)start + 1), ==, 0);
		CHECK_CMP(adj(), ==, start + 1);
	}
}

/* With CAP_SYS_RESOURCE: the floor set to 100, then a child without it
 * may go up and back to 100, not below; the score follows adj; -1000
 * scores 0. */
static void floor_and_score(long start)
{
	if (!has_cap(CAP_SYS_RESOURCE)) {
		check_skip("no CAP_SYS_RESOURCE: the floor and the score's low values are not settable");
		return;
	}
	CHECK_CMP(set_adj(100), ==, 0);
	pid_t pid = fork();
	if (pid == 0) {
		test_begin("oom_score_adj child");
		CHECK_CMP(adj(), ==, 100); /* inherited */
		CHECK(drop_cap(CAP_SYS_RESOURCE));
		CHECK(!has_cap(CAP_SYS_RESOURCE));
		CHECK_CMP(set_adj(500), ==, 0);
		CHECK_CMP(adj(), ==, 500);
		CHECK_CMP(set_adj(100), ==, 0);
		CHECK_CMP(set_adj(99), ==, EACCES);
		CHECK_CMP(set_adj(-1000), ==, EACCES);
		CHECK_CMP(adj(), ==, 100);
		_exit(checks_failed() ? 1 : 0);
	}
	CHECK(pid > 0);
	CHECK_CMP(wait_status_of(pid), ==, 0);

	CHECK_CMP(set_adj(0), ==, 0);
	long s0 = score();
	CHECK_CMP(set_adj(500), ==, 0);
	long s500 = score();
	CHECK_CMP(set_adj(1000), ==, 0);
	long s1000 = score();
	printf("scores: adj 0 %ld, adj 500 %ld, adj 1000 %ld\n", s0, s500, s1000);
	/* 500 thousandths of the machine's pages, as oom_badness counts them
	 * (adj * (totalpages / 1000), totalpages = RAM + swap), in the score's
	 * 2/3 scale: 333 on a machine of millions of pages, less on a small
	 * one; give or take the integer divisions and a page or two of this
	 * process's. */
	long total = (meminfo_kb("MemTotal") + meminfo_kb("SwapTotal")) / 4;
	long want = total > 0 ? 500 * (total / 1000) * 1000 / total * 2 / 3 : 333;
	CHECK(s500 > s0);
	CHECKF(s1000 - s500 >= want - 2 && s1000 - s500 <= want + 2, "adj 1000 - adj 500: %ld, %ld wanted (%ld pages)",
	       s1000 - s500, want, total);
	CHECK(s0 >= 0 && s0 < 1000);
	CHECK_CMP(set_adj(-1000), ==, 0);
	CHECK_CMP(score(), ==, 0);
	CHECK_CMP(set_adj((int)start), ==, 0);
	CHECK_CMP(adj(), ==, start);
}

int main(void)
{
	test_begin("oom_score_adj");
	long start = adj();
	ranges();
	floor_and_score(start);
	/* Back as it was where a raise could not be undone without the
	 * capability: lowering needs it. */
	if (adj() != start && has_cap(CAP_SYS_RESOURCE))
		CHECK_CMP(set_adj((int)start), ==, 0);
	return test_end();
}
