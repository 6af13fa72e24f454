/* What the oom and swap_oom programs share: a child's oom_score_adj, and
 * waiting for an OOM victim without a clock. How long an OOM takes is the
 * machine's business (seconds alone, minutes on a loaded host filling
 * gigabytes under TCG), so the wait ends on what happened, never on time;
 * a real hang is the runner's timeout. */
#ifndef USER_OOM_WAIT_H
#define USER_OOM_WAIT_H

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* /proc/self/oom_score_adj set to adj: whether it took. */
static inline bool set_oom_score_adj(int adj)
{
	char v[8];
	snprintf(v, sizeof(v), "%d", adj);
	return write_file("/proc/self/oom_score_adj", v);
}

/* The victims the OOM killer has taken since boot (/proc/vmstat oom_kill). */
static inline long oom_kills(void) { return vmstat_value("oom_kill"); }

/* Whether pid, which the OOM killer must take (or has taken) as the
 * kills-th victim counted by oom_kills(), died of SIGKILL. Waits for it,
 * unless the kill cannot be coming: the process whose allocations were to
 * make the OOM finished them (it wrote a byte on trigger_fd; -1: it is
 * already done) while oom_kills() is still below kills. pid is then
 * killed here and reaped, and the answer is false. */
static inline bool oom_killed(pid_t pid, int trigger_fd, long kills)
{
	int status = 0;
	for (;;) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
		struct pollfd p = { .fd = trigger_fd, .events = POLLIN };
		if (trigger_fd < 0 || poll(&p, 1, 100) == 1)
			break;
	}
	/* The trigger is done: its kill was sent, or never will be. */
	if (oom_kills() < kills) {
		note("no OOM kill came: the allocations that were to make it all succeeded (oom_kill %ld, %ld expected)",
		     oom_kills(), kills);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return false;
	}
	if (waitpid(pid, &status, 0) != pid)
		return false;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

#endif
