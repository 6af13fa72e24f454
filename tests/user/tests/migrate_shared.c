/* A page of shared anonymous memory (MAP_SHARED | MAP_ANONYMOUS) that
 * forked readers keep reading moves back and forth between two nodes
 * with move_pages(2) and MPOL_MF_MOVE_ALL, as in Linux's mm selftest
 * migration (shared_anon): every move ends with the page on its target
 * (move_pages' status, and where the page is afterwards, asked of the
 * parent and of each reader), and no reader ever sees an old copy of the
 * page (a generation word the parent bumps after each move never goes
 * back, and ends at the last one written) or a torn one (the other words
 * stay what the parent wrote).
 *
 * Linux calls migration best effort: move_pages returns 1 (the page not
 * moved) when something held the page at that moment. Linux 6.1 clears
 * each PTE before it sets the migration entry (ptep_clear_flush), and a
 * reader that faults in between looks the page up and sleeps on its lock
 * holding a reference, so that the move can find one reference too many;
 * under QEMU's TCG the readers fault in that window again and again, and
 * whole runs of tries fail. So each move is tried up to 10 times and
 * then given up, and on Linux only what a move that succeeded did is
 * checked. mmlab never clears the entry on the way to a migration entry
 * and its readers' faults take no reference on the page: there every
 * move succeeds at the first try.
 * Skipped with fewer than two nodes with memory, or without the right to
 * MPOL_MF_MOVE_ALL (CAP_SYS_NICE). */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "check.h"
#include "migrate_workload.h"

#define MPOL_MF_MOVE_ALL (1 << 2)
#define READERS 2
#define MOVES 200
#define TRIES 10 /* for one move, before going on to the next */
#define WORDS (MW_PAGE / 8)

/* The second page: what the parent tells the readers and they answer. */
struct control {
	volatile uint64_t stop, final;
	volatile uint64_t reads[READERS];
};

static void nap(void) { nanosleep(&(struct timespec){ .tv_nsec = 20000 }, NULL); }

/* A reader: the whole page, over and over, until told to stop, then once
 * more. Exit 0 if every read was right, 1 if not. */
static int reader(const volatile uint64_t *data, struct control *ctl, int id)
{
	uint64_t last = 0;
	for (;;) {
		bool stop = ctl->stop;
		uint64_t gen = data[0];
		if (gen < last || (stop && gen != ctl->final)) {
			printf("reader %d: generation %llu after %llu\n", id, (unsigned long long)gen,
			       (unsigned long long)last);
			return 1;
		}
		last = gen;
		for (unsigned long i = 1; i < WORDS; i++)
			if (data[i] != mw_tag(i)) {
				printf("reader %d: word %lu is %#llx\n", id, i, (unsigned long long)data[i]);
				return 1;
			}
		__atomic_add_fetch(&ctl->reads[id], 1, __ATOMIC_RELAXED);
		if (stop)
			return 0;
		/* A nap between reads, not a spin: a reader that spun on (or
		 * yielded, which returns at once on a CPU of its own) kept its
		 * CPU busy, and under QEMU's single-threaded TCG, where the
		 * vCPUs take turns on one host thread, the parent's CPU waited
		 * for the readers' turns to end before each move: 200 moves
		 * took 3-5 s, 88% of the instructions the readers' loops. A
		 * napping CPU idles; the reads still come between the moves
		 * and beside them. */
		nap();
	}
}

/* The node of the page at p in process pid (move_pages without nodes). */
static int node_of(pid_t pid, void *p)
{
	int st = -1000;
	long r = syscall(279, pid, 1ul, &p, NULL, &st, 0);
	return r ? -1000 : st;
}

int main(void)
{
	test_begin("migrate_shared");
	int n[2];
	if (!mw_pick_nodes(&n[0], &n[1]))
		test_skip("fewer than two nodes with memory");
	uint64_t *data = mmap(NULL, 2 * MW_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(data != MAP_FAILED);
	if (data == MAP_FAILED)
		return test_end();
	struct control *ctl = (struct control *)((char *)data + MW_PAGE);
	for (unsigned long i = 1; i < WORDS; i++)
		data[i] = mw_tag(i);
	data[0] = 0;
	void *page = data;
	int st = -1000, to = n[0];
	errno = 0;
	long r = mw_move_pages(1, &page, &to, &st, MPOL_MF_MOVE_ALL);
	if (r < 0 && errno == EPERM)
		test_skip("MPOL_MF_MOVE_ALL needs CAP_SYS_NICE");
	CHECK_CMP(r, ==, 0);
	CHECK_CMP(st, ==, n[0]);

	pid_t pids[READERS];
	for (int i = 0; i < READERS; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			_exit(reader(data, ctl, i));
		}
		CHECK(pids[i] > 0);
		if (pids[i] < 0)
			return test_end();
	}

	/* Each move after every reader has read the page again: they read
	 * beside every move. */
	long retried = 0, gave_up = 0, errors = 0, misplaced = 0;
	for (int k = 0; k < MOVES && !errors; k++) {
		uint64_t seen[READERS];
		for (int i = 0; i < READERS; i++)
			seen[i] = ctl->reads[i];
		for (int i = 0; i < READERS; i++)
			while (ctl->reads[i] == seen[i])
				nap();
		to = n[(k + 1) % 2];
		for (int t = 0;; t++) {
			st = -1000;
			r = mw_move_pages(1, &page, &to, &st, MPOL_MF_MOVE_ALL);
			if (r == 0)
				break;
			if (r < 0) {
				note("move %d to node %d: %s", k, to, errno_name(errno));
				errors++;
				break;
			}
			if (t == TRIES - 1) {
				gave_up++;
				break;
			}
			retried++;
		}
		if (r != 0)
			continue;
		if (st != to || node_of(0, page) != to)
			misplaced++;
		data[0] = (uint64_t)k + 1;
	}
	ctl->final = data[0];
	note("%d moves between nodes %d and %d: %ld tries again, %ld given up after %d tries; the readers read "
	     "the page %llu and %llu times",
	     MOVES, n[0], n[1], retried, gave_up, TRIES, (unsigned long long)ctl->reads[0],
	     (unsigned long long)ctl->reads[1]);
	CHECK_CMP(errors, ==, 0);
	CHECK_CMP(misplaced, ==, 0);
	if (on_mmlab()) {
		CHECK_CMP(retried, ==, 0);
		CHECK_CMP(gave_up, ==, 0);
	}
	/* Every reader maps the page where the parent's mapping has it. */
	int here = node_of(0, page);
	CHECK(here == n[0] || here == n[1]);
	for (int i = 0; i < READERS; i++)
		CHECK_CMP(node_of(pids[i], page), ==, here);
	ctl->stop = 1;
	for (int i = 0; i < READERS; i++) {
		int status = -1;
		CHECK_CMP(waitpid(pids[i], &status, 0), ==, pids[i]);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	CHECK(munmap(data, 2 * MW_PAGE) == 0);
	return test_end();
}
