/* Pipes and poll from the kernel's side (fs/pipe.c, fs/select.c), on a
 * file table of the case's own with kernel buffers (files_pipe2,
 * files_read, files_write, files_poll):
 *   - PIPE_BUF atomicity: a writer on every CPU writes records of PIPE_BUF
 *     bytes while the case reads in pieces of another size; every record
 *     comes out whole and each writer's in order;
 *   - the reader gone: a write is -EPIPE, and a writer asleep on a full
 *     pipe wakes with what it wrote (SIGPIPE goes to a user writer: a
 *     kernel thread ignores signals, so tests/user/tests/pipe.c checks it);
 *   - O_NONBLOCK's -EAGAIN, and a pipe fills to exactly F_GETPIPE_SZ;
 *   - F_SETPIPE_SZ's rounding and -EBUSY (its -EPERM needs a caller
 *     without CAP_SYS_RESOURCE: the user program's);
 *   - exclusive waits: a byte written to a pipe three readers sleep on
 *     wakes one of them;
 *   - poll: a poller sleeps (it is seen in TASK_INTERRUPTIBLE) until a
 *     write wakes it; POLLHUP and POLLERR as Linux's; a timeout passes
 *     (never early); more pipes than the inline poll entries (a page of
 *     them) and every entry off its queue afterwards. (A signal ending a
 *     poll needs a user task: tests/user/tests/poll.c.)
 * Every case gives back the pages and slab objects it took after making
 * its file table (the table itself goes when the case ends). */
#include "tests/kunit.h"
#include "tests/test_cpu.h"
#include "fs/fdtable.h"
#include "fs/pipe_fs_i.h"
#include "fs/poll.h"
#include "kernel/signal.h"
#include "kernel/time.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/slab.h"

static void files_release_action(void *files) { files_release(files); }

static struct files_struct *new_files(struct kunit *test)
{
	struct files_struct *f = files_alloc("");
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, files_release_action, f), 0);
	return f;
}

/* A case's file table with a pipe in it (fds[0] to read, fds[1] to
 * write), the resources counted in *before after the table was made. */
static struct files_struct *new_pipe(struct kunit *test, struct kunit_resources *before, int fds[2])
{
	struct files_struct *files = new_files(test);
	kunit_resources_take(before);
	KUNIT_ASSERT_EQ(test, files_pipe2(files, fds, 0), 0);
	return files;
}

static struct pipe_inode_info *pipe_of(struct files_struct *files, int fd)
{
	struct file *f = fget(files, (unsigned int)fd);
	struct pipe_inode_info *pipe = f ? get_pipe_info(f) : NULL;
	fdput(f);
	return pipe; /* the case holds the fd: the pipe stays */
}

/* ---- PIPE_BUF atomicity ---- */

#define RECORDS_PER_WRITER 48

struct atomic_run {
	struct files_struct *files;
	int wfd;
	unsigned long finished;
};

/* A record: PIPE_BUF bytes, each word (writer << 32 | sequence). */
static int record_writer(struct test_worker *w)
{
	struct atomic_run *run = w->crew->ctx;
	u64 *rec = kmalloc(PIPE_BUF, GFP_KERNEL);
	int err = rec ? 0 : 1;
	for (unsigned long seq = 0; rec && seq < RECORDS_PER_WRITER; seq++) {
		for (size_t i = 0; i < PIPE_BUF / sizeof(u64); i++)
			rec[i] = (u64)w->id << 32 | seq;
		if (files_write(run->files, (unsigned int)run->wfd, rec, PIPE_BUF) != PIPE_BUF) {
			err = 1;
			break;
		}
		test_crew_progress(w);
	}
	kfree(rec);
	/* The last writer out closes the write end: the reader's EOF. */
	if (__atomic_add_fetch(&run->finished, 1, __ATOMIC_ACQ_REL) == w->crew->n)
		files_close(run->files, (unsigned int)run->wfd);
	return err;
}

static void pipe_buf_writes_are_atomic(struct kunit *test)
{
	static struct test_crew c;
	static struct atomic_run run;
	run.files = new_files(test);
	struct kunit_resources before;
	kunit_resources_take(&before);
	run.finished = 0;
	int fds[2];
	KUNIT_ASSERT_EQ(test, files_pipe2(run.files, fds, 0), 0);
	run.wfd = fds[1];
	test_crew_start(test, &c, record_writer, &run, 0, 0);
	unsigned writers = c.n;
	unsigned long next[TEST_CREW_MAX] = { 0 };
	u64 *rec = kmalloc(PIPE_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	size_t have = 0;
	unsigned long torn = 0, out_of_order = 0, records = 0;
	for (;;) {
		/* Pieces of 1500 bytes: reads cut across the writers' buffers. */
		size_t want = PIPE_BUF - have < 1500 ? PIPE_BUF - have : 1500;
		long n = files_read(run.files, (unsigned int)fds[0], (char *)rec + have, want);
		if (n <= 0) {
			KUNIT_EXPECT_EQ(test, n, 0);
			break;
		}
		have += (size_t)n;
		if (have < PIPE_BUF)
			continue;
		have = 0;
		records++;
		bool whole = true;
		for (size_t i = 1; i < PIPE_BUF / sizeof(u64); i++)
			whole = whole && rec[i] == rec[0];
		torn += !whole;
		unsigned id = (unsigned)(rec[0] >> 32);
		if (id >= writers || (rec[0] & 0xffffffffu) != next[id])
			out_of_order++;
		else
			next[id]++;
	}
	kfree(rec);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	KUNIT_EXPECT_EQ(test, have, 0);
	KUNIT_EXPECT_EQ(test, records, (unsigned long)writers * RECORDS_PER_WRITER);
	KUNIT_EXPECT_EQ(test, torn, 0);
	KUNIT_EXPECT_EQ(test, out_of_order, 0);
	files_close(run.files, (unsigned int)fds[0]);
	kunit_expect_resources_back(test, &before);
}

/* ---- the reader goes ---- */

struct blocked_write {
	struct files_struct *files;
	int wfd;
	long size; /* what is written: twice the pipe */
	long ret;
};

static int big_writer(struct test_worker *w)
{
	struct blocked_write *bw = w->crew->ctx;
	char *buf = kzalloc((size_t)bw->size, GFP_KERNEL);
	bw->ret = buf ? files_write(bw->files, (unsigned int)bw->wfd, buf, (size_t)bw->size) : -ENOMEM;
	kfree(buf);
	return 0;
}

static void reader_exit_breaks_pipe(struct kunit *test)
{
	struct kunit_resources before;
	int fds[2];
	struct files_struct *files = new_pipe(test, &before, fds);
	struct pipe_inode_info *pipe = pipe_of(files, fds[0]);
	KUNIT_ASSERT_NOT_NULL(test, pipe);
	long size = (long)pipe->max_usage * PAGE_SIZE;
	static struct test_crew c;
	static struct blocked_write bw;
	bw = (struct blocked_write){ files, fds[1], 2 * size, 0 };
	test_crew_start(test, &c, big_writer, &bw, 1, TEST_CREW_OTHER_CPUS_OR_THIS);
	/* The writer filled the pipe and sleeps for room. */
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(pipe_full(READ_ONCE(pipe->head), READ_ONCE(pipe->tail),
							  pipe->max_usage) &&
							READ_ONCE(c.w[0].task->__state) == TASK_INTERRUPTIBLE,
						NULL));
	KUNIT_EXPECT_EQ(test, files_close(files, (unsigned int)fds[0]), 0);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	KUNIT_EXPECT_EQ(test, bw.ret, size); /* what went in before the reader left */
	char c1 = 'x';
	KUNIT_EXPECT_EQ(test, files_write(files, (unsigned int)fds[1], &c1, 1), -EPIPE);
	files_close(files, (unsigned int)fds[1]);
	kunit_expect_resources_back(test, &before);
}

/* ---- O_NONBLOCK and sizes ---- */

static void nonblocking_fills_to_size(struct kunit *test)
{
	struct files_struct *files = new_files(test);
	struct kunit_resources before;
	kunit_resources_take(&before);
	int fds[2];
	KUNIT_ASSERT_EQ(test, files_pipe2(files, fds, O_NONBLOCK), 0);
	char buf[300];
	memset(buf, 'n', sizeof(buf));
	KUNIT_EXPECT_EQ(test, files_read(files, (unsigned int)fds[0], buf, sizeof(buf)), -EAGAIN);
	struct file *wf = fget(files, (unsigned int)fds[1]);
	KUNIT_ASSERT_NOT_NULL(test, wf);
	long size = pipe_fcntl(wf, F_GETPIPE_SZ, 0);
	fdput(wf);
	KUNIT_EXPECT_EQ(test, size, PIPE_DEF_BUFFERS * PAGE_SIZE);
	long total = 0, n;
	while ((n = files_write(files, (unsigned int)fds[1], buf, sizeof(buf))) > 0)
		total += n;
	KUNIT_EXPECT_EQ(test, n, -EAGAIN);
	/* 300-byte writes merge into pages, but never split: the last
	 * page keeps what no whole record fits in. */
	KUNIT_EXPECT_EQ(test, total, (size / PAGE_SIZE) * (PAGE_SIZE / 300 * 300));
	/* Closed with the pages full: every page comes back. */
	files_close(files, (unsigned int)fds[0]);
	files_close(files, (unsigned int)fds[1]);
	kunit_expect_resources_back(test, &before);
}

static void set_pipe_size_rules(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, round_pipe_size(0), PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, round_pipe_size(PAGE_SIZE + 1), 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, round_pipe_size(5 * PAGE_SIZE), 8 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, round_pipe_size(1ul << 31), 1ul << 31);
	KUNIT_EXPECT_EQ(test, round_pipe_size((1ul << 31) + 1), 0);
	struct files_struct *files = new_files(test);
	struct kunit_resources before;
	kunit_resources_take(&before);
	int fds[2];
	KUNIT_ASSERT_EQ(test, files_pipe2(files, fds, O_NONBLOCK), 0);
	struct file *wf = fget(files, (unsigned int)fds[1]);
	KUNIT_ASSERT_NOT_NULL(test, wf);
	KUNIT_EXPECT_EQ(test, pipe_fcntl(wf, F_SETPIPE_SZ, 5 * PAGE_SIZE), 8 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, pipe_fcntl(wf, F_GETPIPE_SZ, 0), 8 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, pipe_fcntl(wf, F_SETPIPE_SZ, 0x80000001u), -EINVAL);
	static char page[PAGE_SIZE];
	for (int i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, files_write(files, (unsigned int)fds[1], page, PAGE_SIZE), PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, pipe_fcntl(wf, F_SETPIPE_SZ, 2 * PAGE_SIZE), -EBUSY);
	KUNIT_EXPECT_EQ(test, pipe_fcntl(wf, F_SETPIPE_SZ, 3 * PAGE_SIZE), 4 * PAGE_SIZE);
	/* The three pages moved to the new ring and read back; one more
	 * fits, then the pipe is full. */
	KUNIT_EXPECT_EQ(test, files_write(files, (unsigned int)fds[1], page, PAGE_SIZE), PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, files_write(files, (unsigned int)fds[1], page, 1), -EAGAIN);
	long got = 0, n;
	while ((n = files_read(files, (unsigned int)fds[0], page, PAGE_SIZE)) > 0)
		got += n;
	KUNIT_EXPECT_EQ(test, got, 4 * PAGE_SIZE);
	struct file *rf = fget(files, 0); /* the console: no pipe */
	KUNIT_EXPECT_EQ(test, pipe_fcntl(rf, F_GETPIPE_SZ, 0), -EBADF);
	fdput(rf);
	fdput(wf);
	files_close(files, (unsigned int)fds[0]);
	files_close(files, (unsigned int)fds[1]);
	kunit_expect_resources_back(test, &before);
}

/* ---- poll ---- */

/* ---- exclusive waits ---- */

struct blocked_reads {
	struct files_struct *files;
	int rfd;
	unsigned long got; /* bytes the readers took */
};

static int one_byte_reader(struct test_worker *w)
{
	struct blocked_reads *br = w->crew->ctx;
	char b;
	long n = files_read(br->files, (unsigned int)br->rfd, &b, 1);
	if (n > 0)
		__atomic_add_fetch(&br->got, (unsigned long)n, __ATOMIC_RELAXED);
	return n < 0;
}

/* Three readers asleep on an empty pipe, and one byte written: one reader
 * is woken, not three (Linux's exclusive waits: pipe_read's
 * wait_event_interruptible_exclusive). The readers share this CPU, and
 * this kernel does not preempt, so none can run between the write's
 * wakeup and the look at their states: a woken one is TASK_RUNNING, the
 * others still asleep. Closing the write end then wakes them all (end of
 * file). */
static void one_write_wakes_one_reader(struct kunit *test)
{
	struct kunit_resources before;
	int fds[2];
	struct files_struct *files = new_pipe(test, &before, fds);
	static struct test_crew c;
	static struct blocked_reads br;
	br = (struct blocked_reads){ files, fds[0], 0 };
	unsigned cpu = smp_processor_id();
	test_crew_start_on(test, &c, one_byte_reader, &br, &cpu, 1, 3);
	KUNIT_EXPECT_TRUE(test, TEST_WAIT_UNTIL(READ_ONCE(c.w[0].task->__state) == TASK_INTERRUPTIBLE &&
							READ_ONCE(c.w[1].task->__state) == TASK_INTERRUPTIBLE &&
							READ_ONCE(c.w[2].task->__state) == TASK_INTERRUPTIBLE,
						NULL));
	KUNIT_EXPECT_EQ(test, files_write(files, (unsigned int)fds[1], "x", 1), 1);
	unsigned woken = 0;
	for (unsigned i = 0; i < 3; i++)
		woken += READ_ONCE(c.w[i].task->__state) == TASK_RUNNING;
	KUNIT_EXPECT_EQ(test, woken, 1u);
	files_close(files, (unsigned int)fds[1]);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	KUNIT_EXPECT_EQ(test, br.got, 1ul);
	files_close(files, (unsigned int)fds[0]);
	kunit_expect_resources_back(test, &before);
}

struct poll_waker {
	struct files_struct *files;
	int wfd;
	struct task_struct *poller;
	bool saw_sleeping;
};

/* Writes once the poller is asleep. */
static int waker_fn(struct test_worker *w)
{
	struct poll_waker *pw = w->crew->ctx;
	pw->saw_sleeping = TEST_WAIT_UNTIL(READ_ONCE(pw->poller->__state) == TASK_INTERRUPTIBLE, NULL);
	return files_write(pw->files, (unsigned int)pw->wfd, "w", 1) == 1 ? 0 : 1;
}

static void poll_sleeps_until_written(struct kunit *test)
{
	struct kunit_resources before;
	int fds[2];
	struct files_struct *files = new_pipe(test, &before, fds);
	static struct test_crew c;
	static struct poll_waker pw;
	pw = (struct poll_waker){ files, fds[1], current, false };
	test_crew_start(test, &c, waker_fn, &pw, 1, TEST_CREW_OTHER_CPUS_OR_THIS);
	struct pollfd p[2] = { { fds[0], POLLIN, 0 }, { fds[1], POLLIN, 0 } };
	KUNIT_EXPECT_EQ(test, files_poll(files, p, 2, NULL), 1);
	KUNIT_EXPECT_EQ(test, p[0].revents, POLLIN);
	KUNIT_EXPECT_EQ(test, p[1].revents, 0); /* a write end is never readable */
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	KUNIT_EXPECT_TRUE(test, pw.saw_sleeping);
	struct pipe_inode_info *pipe = pipe_of(files, fds[0]);
	KUNIT_EXPECT_FALSE(test, waitqueue_active(&pipe->rd_wait)); /* the poller's entry is gone */
	files_close(files, (unsigned int)fds[0]);
	files_close(files, (unsigned int)fds[1]);
	kunit_expect_resources_back(test, &before);
}

static void poll_hup_and_err(struct kunit *test)
{
	struct files_struct *files = new_files(test);
	struct kunit_resources before;
	kunit_resources_take(&before);
	int a[2], b[2];
	KUNIT_ASSERT_EQ(test, files_pipe2(files, a, 0), 0);
	KUNIT_ASSERT_EQ(test, files_pipe2(files, b, 0), 0);
	KUNIT_EXPECT_EQ(test, files_write(files, (unsigned int)a[1], "d", 1), 1);
	files_close(files, (unsigned int)a[1]); /* a: data, no writers */
	files_close(files, (unsigned int)b[0]); /* b: no readers */
	u64 now = 0;
	struct pollfd p[3] = { { a[0], POLLIN, 0 }, { b[1], POLLOUT, 0 }, { a[1], POLLIN, 0 } };
	KUNIT_EXPECT_EQ(test, files_poll(files, p, 3, &now), 3);
	KUNIT_EXPECT_EQ(test, p[0].revents, POLLIN | POLLHUP);
	KUNIT_EXPECT_EQ(test, p[1].revents, POLLOUT | POLLERR);
	KUNIT_EXPECT_EQ(test, p[2].revents, POLLNVAL);
	char c1;
	KUNIT_EXPECT_EQ(test, files_read(files, (unsigned int)a[0], &c1, 1), 1);
	KUNIT_EXPECT_EQ(test, files_read(files, (unsigned int)a[0], &c1, 1), 0); /* end of file */
	p[0].events = 0; /* POLLHUP is reported unasked */
	KUNIT_EXPECT_EQ(test, files_poll(files, p, 1, &now), 1);
	KUNIT_EXPECT_EQ(test, p[0].revents, POLLHUP);
	files_close(files, (unsigned int)a[0]);
	files_close(files, (unsigned int)b[1]);
	kunit_expect_resources_back(test, &before);
}

/* A poll of more pipes than fit inline (a page of entries) times out no
 * earlier than asked, and leaves no entry behind on any queue. */
#define MANY_PIPES 12
static void poll_timeout_many(struct kunit *test)
{
	struct files_struct *files = new_files(test);
	struct kunit_resources before;
	kunit_resources_take(&before);
	int fds[MANY_PIPES][2];
	struct pollfd p[MANY_PIPES];
	for (int i = 0; i < MANY_PIPES; i++) {
		KUNIT_ASSERT_EQ(test, files_pipe2(files, fds[i], 0), 0);
		p[i] = (struct pollfd){ fds[i][0], POLLIN, 0 };
	}
	u64 deadline = ktime_get_ns() + 20 * 1000000ull;
	u64 end = deadline;
	KUNIT_EXPECT_EQ(test, files_poll(files, p, MANY_PIPES, &end), 0);
	KUNIT_EXPECT_GE(test, ktime_get_ns(), deadline);
	for (int i = 0; i < MANY_PIPES; i++) {
		KUNIT_EXPECT_EQ(test, p[i].revents, 0);
		KUNIT_EXPECT_FALSE(test, waitqueue_active(&pipe_of(files, fds[i][0])->rd_wait));
		files_close(files, (unsigned int)fds[i][0]);
		files_close(files, (unsigned int)fds[i][1]);
	}
	kunit_expect_resources_back(test, &before);
}

static struct kunit_case pipe_cases[] = {
	KUNIT_CASE(pipe_buf_writes_are_atomic),
	KUNIT_CASE(reader_exit_breaks_pipe),
	KUNIT_CASE(nonblocking_fills_to_size),
	KUNIT_CASE(set_pipe_size_rules),
	KUNIT_CASE(one_write_wakes_one_reader),
	KUNIT_CASE(poll_sleeps_until_written),
	KUNIT_CASE(poll_hup_and_err),
	KUNIT_CASE(poll_timeout_many),
	{}
};

static struct kunit_suite pipe_suite = { .name = "pipe", .test_cases = pipe_cases };
kunit_test_suite(pipe_suite);
