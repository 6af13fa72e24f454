/* RLIMIT_NPROC, held beside Linux's: getrlimit, setrlimit and prlimit64
 * round-trip it (and refuse a soft limit above the hard one), and fork
 * and pthread_create go past it for root, which Linux exempts (uid 0,
 * CAP_SYS_RESOURCE, CAP_SYS_ADMIN: copy_process); another user's fork gets
 * EAGAIN. mmlab runs every process as root, so only the exemption can be
 * seen there. */

#include <errno.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static void *thread_fn(void *arg) { return arg; }

int main(void)
{
	test_begin("rlimit_nproc");
	struct rlimit old, now;
	CHECK(getrlimit(RLIMIT_NPROC, &old) == 0);
	CHECK(old.rlim_cur > 0 && old.rlim_cur <= old.rlim_max);

	struct rlimit one = { 1, old.rlim_max };
	CHECK(setrlimit(RLIMIT_NPROC, &one) == 0);
	CHECK(getrlimit(RLIMIT_NPROC, &now) == 0);
	CHECK(now.rlim_cur == 1 && now.rlim_max == old.rlim_max);
	CHECK(syscall(SYS_prlimit64, 0, RLIMIT_NPROC, NULL, &now) == 0);
	CHECK(now.rlim_cur == 1 && now.rlim_max == old.rlim_max);
	struct rlimit bad = { old.rlim_max, 1 };
	CHECK_ERRNO(setrlimit(RLIMIT_NPROC, &bad), EINVAL);

	/* This process alone is already at the limit of 1. */
	bool root = geteuid() == 0;
	pid_t pid = fork();
	if (pid == 0)
		_exit(7);
	if (root) {
		int status = -1;
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 7);
		pthread_t t;
		void *ret = NULL;
		CHECK(pthread_create(&t, NULL, thread_fn, (void *)5) == 0 && pthread_join(t, &ret) == 0 &&
		      ret == (void *)5);
	} else {
		note("not root: the limit applies");
		CHECK(pid == -1 && errno == EAGAIN);
	}

	CHECK(setrlimit(RLIMIT_NPROC, &old) == 0);
	CHECK(getrlimit(RLIMIT_NPROC, &now) == 0);
	CHECK(now.rlim_cur == old.rlim_cur && now.rlim_max == old.rlim_max);
	return test_end();
}
