/* fork(2) as the C library calls it (musl: SIGCHLD; glibc, in the
 * fork_basic_glibc build: CLONE_CHILD_SETTID|CLONE_CHILD_CLEARTID|SIGCHLD),
 * held beside Linux's: the child has its own copy of the parent's memory
 * (globals, heap, stack, a private mapping), so a write on either side is
 * not seen by the other, while a MAP_SHARED|MAP_ANONYMOUS page stays
 * shared; its pid and parent; its own descriptor table (a close in the
 * child leaves the parent's open); the signal actions and mask copied, and
 * nothing pending; a chain of 250 forks (each child forks the next and
 * passes its status back) and a fan of 1,000 children alive at once, each
 * reaped with its status. (The chain was 1,000 deep: its cost grows with
 * the square of the depth on both kernels, each child's fork copying the
 * anon_vma chain of all its ancestors, some 3 million anon_vma_chain
 * objects a run; the fan now holds the 1,000 live processes the deep
 * chain had.) */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define FAN 1000
#define CHAIN 250

static int global = 1;
static volatile int usr1_seen;

static void on_usr1(int sig) { (void)sig; usr1_seen = 1; }

static int wait_status(pid_t pid)
{
	int status = -1;
	if (waitpid(pid, &status, 0) != pid)
		return -1000 - errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

static void copies(void)
{
	int local = 2;
	char *heap = malloc(4096);
	char *priv = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(heap && priv != MAP_FAILED);
	/* Shared anonymous memory must be there (both kernels have it); if
	 * it is not, that fails, and the rest goes on without it. */
	int scratch = 0;
	CHECKF(shared != MAP_FAILED, "MAP_SHARED|MAP_ANONYMOUS mapped");
	if (shared == MAP_FAILED)
		shared = &scratch;
	memset(heap, 'h', 4096);
	memset(priv, 'p', 4096);
	*shared = 0;
	pid_t me = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		/* The child: the parent's values, then its own. */
		int bad = global != 1 || local != 2 || heap[100] != 'h' || priv[100] != 'p' || getppid() != me ||
			  getpid() == me;
		global = 10;
		local = 20;
		heap[100] = 'H';
		priv[100] = 'P';
		*shared = 42;
		_exit(bad ? 1 : (global == 10 && heap[100] == 'H' ? 0 : 2));
	}
	CHECK_CMP(pid, >, 0);
	CHECK_CMP(wait_status(pid), ==, 0);
	/* Ours untouched; the shared page shows the child's write. */
	CHECK(global == 1 && local == 2 && heap[100] == 'h' && priv[100] == 'p');
	if (shared == &scratch) {
		free(heap);
		munmap(priv, 4096);
		return;
	}
	CHECK_CMP(*shared, ==, 42);
	/* And the other way: the parent writes after the fork. */
	pid = fork();
	if (pid == 0) {
		while (*(volatile int *)shared != 43)
			;
		_exit(global == 1 && priv[0] == 'p' ? 0 : 1);
	}
	global = 5;
	priv[0] = 'x';
	__atomic_store_n(shared, 43, __ATOMIC_SEQ_CST);
	CHECK_CMP(wait_status(pid), ==, 0);
	global = 1;
	free(heap);
	munmap(priv, 4096);
	munmap(shared, 4096);
}

static void files_and_signals(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR2);
	CHECK(sigprocmask(SIG_BLOCK, &block, &old) == 0);
	/* Pending for the parent only: the child starts with nothing. */
	CHECK(kill(getpid(), SIGUSR2) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t mask, pend;
		sigprocmask(SIG_BLOCK, NULL, &mask);
		sigpending(&pend);
		if (!sigismember(&mask, SIGUSR2) || sigismember(&pend, SIGUSR2))
			_exit(1);
		/* The handler was copied: it runs here. */
		raise(SIGUSR1);
		if (!usr1_seen)
			_exit(2);
		/* Closing stdin here leaves the parent's open. */
		close(0);
		_exit(0);
	}
	CHECK_CMP(wait_status(pid), ==, 0);
	CHECK(!usr1_seen);
	struct stat st;
	CHECK(fstat(0, &st) == 0);
	/* Discard the pending SIGUSR2 and put things back. */
	sa.sa_handler = SIG_IGN;
	CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
	CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
	sa.sa_handler = SIG_DFL;
	CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
}

static void chain_and_fan(void)
{
	if (!nproc_room(FAN))
		return;
	/* A chain: each child forks the next and passes on its status. */
	int depth = 0;
	for (;;) {
		if (depth == CHAIN)
			_exit(42); /* the deepest: its status climbs back up */
		pid_t pid = fork();
		if (pid < 0 && depth > 0)
			_exit(200);
		if (!CHECKF(pid >= 0, "fork at depth 0: errno %s", errno_name(errno)))
			break;
		if (pid == 0) {
			depth++;
			continue;
		}
		int st = wait_status(pid);
		if (depth > 0)
			_exit(st);
		CHECK_CMP(st, ==, 42);
		break;
	}
	/* A fan: every child waits for the end of a pipe the parent closes
	 * once all are made, so that all 1,000 live at once. */
	int ok = 0, gate[2];
	pid_t pids[FAN];
	if (!CHECKF(pipe(gate) == 0, "pipe: errno %s", errno_name(errno)))
		return;
	for (int i = 0; i < FAN; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			char c;
			close(gate[1]);
			while (read(gate[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(i & 0x7f);
		}
	}
	close(gate[1]);
	close(gate[0]);
	for (int i = 0; i < FAN; i++)
		ok += pids[i] > 0 && wait_status(pids[i]) == (i & 0x7f);
	CHECK_CMP(ok, ==, FAN);
}

int main(void)
{
	test_begin("fork_basic");
	copies();
	files_and_signals();
	chain_and_fan();
	return test_end();
}
