/* The N_TTY line discipline (drivers/tty/n_tty.c), driven directly: bytes
 * go in as the receive path hands them over (the flip buffer, then
 * flush_to_ldisc), reads and writes go through a file open on the
 * terminal as a process's would, and the test driver keeps every byte the
 * terminal sends back (tests/test_tty.h). Each expectation is Linux 6.1's
 * behaviour for tty_std_termios (the echo strings are what Linux's
 * process_echoes writes). Waits are for events (a reader asleep on the
 * read queue); the only times measured are VTIME's lower bounds, which a
 * slow host cannot break. */
#include "tests/kunit.h"
#include "tests/test_tty.h"
#include "fs/poll.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/time.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/vmalloc.h"

/* The bytes the terminal sent since the last look, exactly. */
#define EXPECT_OUTPUT(test, t, s)                                      \
	do {                                                           \
		size_t out_len_;                                       \
		const char *out_ = test_tty_output(t, &out_len_);      \
		KUNIT_EXPECT_EQ(test, out_len_, strlen(s));            \
		KUNIT_EXPECT_STREQ(test, out_, s);                     \
	} while (0)

/* One read (non-blocking) gives exactly s. */
#define EXPECT_READ(test, t, s)                                        \
	do {                                                           \
		char rd_buf_[256];                                     \
		long rd_n_ = test_tty_read(t, rd_buf_, sizeof(rd_buf_) - 1, false); \
		KUNIT_EXPECT_EQ(test, rd_n_, (long)strlen(s));         \
		KUNIT_EXPECT_STREQ(test, rd_buf_, s);                  \
	} while (0)

static void canonical_line_and_echo(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	char buf[16];
	KUNIT_EXPECT_EQ(test, test_tty_read(t, buf, 8, false), -EAGAIN);
	test_tty_feeds(t, "hel");
	/* Half a line: nothing to read yet, but echoed as typed. */
	KUNIT_EXPECT_EQ(test, test_tty_read(t, buf, 8, false), -EAGAIN);
	test_tty_feeds(t, "lo\r");
	EXPECT_OUTPUT(test, t, "hello\r\n"); /* ICRNL, then ONLCR on the echo */
	EXPECT_READ(test, t, "hello\n");
	/* A line longer than the read comes in pieces, one read a line at most. */
	test_tty_feeds(t, "abcdef\nxy\n");
	KUNIT_EXPECT_EQ(test, test_tty_read(t, buf, 4, false), 4);
	EXPECT_READ(test, t, "ef\n");
	EXPECT_READ(test, t, "xy\n");
}

static void canonical_editing(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	test_tty_feeds(t, "abc\x7f" "d\n");
	EXPECT_OUTPUT(test, t, "abc\b \bd\r\n");
	EXPECT_READ(test, t, "abd\n");
	/* VKILL with ECHOK, ECHOKE and ECHOE: each character erased. */
	test_tty_feeds(t, "xyz\x15ok\n");
	EXPECT_OUTPUT(test, t, "xyz\b \b\b \b\b \bok\r\n");
	EXPECT_READ(test, t, "ok\n");
	/* VWERASE: the word before the cursor, then the spaces before it stay. */
	test_tty_feeds(t, "foo bar\x17" "baz\n");
	EXPECT_OUTPUT(test, t, "foo bar\b \b\b \b\b \bbaz\r\n");
	EXPECT_READ(test, t, "foo baz\n");
	/* Trailing blanks go with the word. */
	test_tty_feeds(t, "foo  \x17x\n");
	EXPECT_OUTPUT(test, t, "foo  \b \b\b \b\b \b\b \b\b \bx\r\n");
	EXPECT_READ(test, t, "x\n");
	/* A control character shown as ^A takes two erasures. */
	test_tty_feeds(t, "a\x01\x7f\n");
	EXPECT_OUTPUT(test, t, "a^A\b \b\b \b\r\n");
	EXPECT_READ(test, t, "a\n");
	/* Nothing to erase: nothing echoed. */
	test_tty_feeds(t, "\x7f\x15\x17");
	EXPECT_OUTPUT(test, t, "");
	/* A tab is erased back to its column. */
	test_tty_feeds(t, "ab\t\x7f\n");
	EXPECT_OUTPUT(test, t, "ab\t\b\b\b\b\b\b\r\n");
	EXPECT_READ(test, t, "ab\n");
	/* VREPRINT: the line again after "^R" and a newline. */
	test_tty_feeds(t, "ab\x01\x12");
	EXPECT_OUTPUT(test, t, "ab^A^R\r\nab^A");
	test_tty_feeds(t, "\n");
	EXPECT_OUTPUT(test, t, "\r\n");
	EXPECT_READ(test, t, "ab\x01\n");
	/* Without ECHOE, VERASE echoes itself (ECHOCTL: "^?"). */
	test_tty_set(t, ECHOE, 0, -1, -1);
	test_tty_feeds(t, "q\x7f\n");
	EXPECT_OUTPUT(test, t, "q^?\r\n");
	EXPECT_READ(test, t, "\n");
}

static void canonical_lnext(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	test_tty_feeds(t, "a\x16\x7f\n");
	EXPECT_OUTPUT(test, t, "a^\b^?\r\n");
	EXPECT_READ(test, t, "a\x7f\n");
	/* A quoted ^C, ^D and ^U are characters like any other. */
	test_tty_feeds(t, "\x16\x03\x16\x04\x16\x15\n");
	EXPECT_READ(test, t, "\x03\x04\x15\n");
}

static void canonical_eof(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	char buf[16];
	/* ^D at the start of a line: a read of 0 (end of file), no echo. */
	test_tty_feeds(t, "\x04");
	EXPECT_OUTPUT(test, t, "");
	KUNIT_EXPECT_EQ(test, test_tty_read(t, buf, 8, false), 0);
	KUNIT_EXPECT_EQ(test, test_tty_read(t, buf, 8, false), -EAGAIN);
	/* Mid-line: the line so far, without a newline. */
	test_tty_feeds(t, "ab\x04" "cd\n");
	KUNIT_EXPECT_EQ(test, n_tty_inq(&t->tty), 5); /* FIONREAD: the EOF is no byte */
	EXPECT_READ(test, t, "ab");
	EXPECT_READ(test, t, "cd\n");
	/* VEOL ends a line too, and is part of it. */
	t->tty.termios.c_cc[VEOL] = ';';
	test_tty_feeds(t, "x;");
	EXPECT_READ(test, t, "x;");
}

/* ---- non-canonical mode ---- */

struct reader {
	struct test_tty *t;
	size_t count;
	long ret;
	u64 elapsed_ns;
	bool done;
	char buf[64];
};

static int reader_fn(void *arg)
{
	struct reader *r = arg;
	u64 start = ktime_get_ns();
	r->ret = test_tty_read(r->t, r->buf, r->count, true);
	r->elapsed_ns = ktime_get_ns() - start;
	WRITE_ONCE(r->done, true);
	return 0;
}

/* Starts a blocking reader and waits until it sleeps on the read queue
 * (or has returned already). */
static struct task_struct *start_reader(struct kunit *test, struct reader *r)
{
	struct task_struct *k = kthread_run_on_cpu(reader_fn, r, smp_processor_id(), "tty_reader");
	KUNIT_ASSERT_NOT_NULL(test, k);
	u64 guard = ktime_get_ns() + KUNIT_HANG_GUARD_NS;
	while (!waitqueue_active(&r->t->tty.read_wait) && !READ_ONCE(r->done) &&
	       ktime_get_ns() < guard)
		schedule_timeout_uninterruptible(1);
	return k;
}

static void raw_min0_time0(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	test_tty_set(t, ICANON | ECHO, 0, 0, 0);
	char buf[16];
	/* A blocking read returns at once, with nothing. */
	KUNIT_EXPECT_EQ(test, test_tty_read(t, buf, 8, true), 0);
	test_tty_feeds(t, "xy");
	KUNIT_EXPECT_EQ(test, test_tty_read(t, buf, 8, true), 2);
	KUNIT_EXPECT_STREQ(test, buf, "xy");
	EXPECT_OUTPUT(test, t, "");
}

static void raw_min_n(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	test_tty_set(t, ICANON | ECHO, 0, 3, 0);
	/* Two bytes of three: the reader takes them and waits for the third. */
	test_tty_feeds(t, "ab");
	struct reader r = { .t = t, .count = 10 };
	struct task_struct *k = start_reader(test, &r);
	KUNIT_EXPECT_TRUE(test, waitqueue_active(&t->tty.read_wait));
	test_tty_feeds(t, "c");
	kthread_join(k);
	KUNIT_EXPECT_EQ(test, r.ret, 3);
	KUNIT_EXPECT_STREQ(test, r.buf, "abc");
	/* A read smaller than VMIN returns when it is full. */
	char buf[8];
	test_tty_feeds(t, "de");
	KUNIT_EXPECT_EQ(test, test_tty_read(t, buf, 2, true), 2);
	/* More than VMIN: all that is there. */
	test_tty_feeds(t, "fghijk");
	KUNIT_EXPECT_EQ(test, test_tty_read(t, buf, 7, true), 6);
}

static void raw_time_only(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	test_tty_set(t, ICANON | ECHO, 0, 0, 2);
	/* Nothing comes: 0 after VTIME (0.2 s) at the earliest. */
	struct reader r = { .t = t, .count = 10 };
	reader_fn(&r);
	KUNIT_EXPECT_EQ(test, r.ret, 0);
	KUNIT_EXPECT_GE(test, r.elapsed_ns, 190000000ull);
	/* A byte before the timer: returned as it comes. */
	struct reader r2 = { .t = t, .count = 10 };
	struct task_struct *k = start_reader(test, &r2);
	test_tty_feeds(t, "z");
	kthread_join(k);
	KUNIT_EXPECT_EQ(test, r2.ret, 1);
	KUNIT_EXPECT_STREQ(test, r2.buf, "z");
}

static void raw_min_and_time(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	test_tty_set(t, ICANON | ECHO, 0, 5, 1);
	/* Fewer than VMIN, then silence: what came, once the inter-byte
	 * timer (0.1 s) runs out. */
	test_tty_feeds(t, "ab");
	struct reader r = { .t = t, .count = 10 };
	reader_fn(&r);
	KUNIT_EXPECT_EQ(test, r.ret, 2);
	KUNIT_EXPECT_GE(test, r.elapsed_ns, 90000000ull);
	/* VMIN reached: at once. */
	test_tty_feeds(t, "abcdef");
	char buf[16];
	KUNIT_EXPECT_EQ(test, test_tty_read(t, buf, 10, true), 6);
	/* Nothing yet: the timer starts with the first byte only. */
	struct reader r2 = { .t = t, .count = 10 };
	struct task_struct *k = start_reader(test, &r2);
	KUNIT_EXPECT_TRUE(test, waitqueue_active(&t->tty.read_wait));
	test_tty_feeds(t, "q");
	kthread_join(k);
	KUNIT_EXPECT_EQ(test, r2.ret, 1);
	KUNIT_EXPECT_STREQ(test, r2.buf, "q");
}

/* ---- input and output processing ---- */

static void set_iflag(struct test_tty *t, tcflag_t iflag, tcflag_t oflag)
{
	mutex_lock(&t->tty.termios_rwsem);
	t->tty.termios.c_iflag = iflag;
	t->tty.termios.c_oflag = oflag;
	mutex_unlock(&t->tty.termios_rwsem);
}

static void crlf_translation(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	KUNIT_EXPECT_EQ(test, test_tty_write(t, "x\ny\tz", 5), 5);
	EXPECT_OUTPUT(test, t, "x\r\ny\tz");
	set_iflag(t, ICRNL | IXON, OPOST | ONLCR | XTABS);
	test_tty_write(t, "\nab\tc", 5);
	EXPECT_OUTPUT(test, t, "\r\nab      c");
	set_iflag(t, IGNCR, 0); /* OPOST off: output as written */
	test_tty_write(t, "x\ny", 3);
	EXPECT_OUTPUT(test, t, "x\ny");
	test_tty_feeds(t, "b\r\n");
	EXPECT_READ(test, t, "b\n");
	set_iflag(t, INLCR, OPOST | ONLCR);
	test_tty_set(t, ICANON | ECHO, 0, 1, 0);
	test_tty_feeds(t, "\n\r");
	EXPECT_READ(test, t, "\r\r");
}

static void echo_modes(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	test_tty_feeds(t, "\x01\x1b[A\t\n");
	EXPECT_OUTPUT(test, t, "^A^[[A\t\r\n");
	EXPECT_READ(test, t, "\x01\x1b[A\t\n");
	test_tty_set(t, ECHOCTL, 0, -1, -1);
	test_tty_feeds(t, "\x01\n");
	EXPECT_OUTPUT(test, t, "\x01\r\n");
	EXPECT_READ(test, t, "\x01\n");
	/* ECHONL without ECHO: the newline only. */
	test_tty_set(t, ECHO, ECHONL, -1, -1);
	test_tty_feeds(t, "secret\n");
	EXPECT_OUTPUT(test, t, "\r\n");
	EXPECT_READ(test, t, "secret\n");
	/* VKILL without ECHOKE: ^U, then a newline (ECHOK). */
	test_tty_set(t, ECHONL | ECHOKE, ECHO | ECHOCTL, -1, -1);
	test_tty_feeds(t, "ab\x15");
	EXPECT_OUTPUT(test, t, "ab^U\r\n");
}

/* ^S holds output until ^Q (IXON). */
static void flow_control(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	test_tty_feeds(t, "\x13");
	KUNIT_EXPECT_TRUE(test, READ_ONCE(t->tty.stopped));
	KUNIT_EXPECT_EQ(test, test_tty_write(t, "x", 1), -EAGAIN); /* the file is O_NONBLOCK */
	test_tty_feeds(t, "\x11");
	KUNIT_EXPECT_FALSE(test, READ_ONCE(t->tty.stopped));
	KUNIT_EXPECT_EQ(test, test_tty_write(t, "x", 1), 1);
	EXPECT_OUTPUT(test, t, "x");
	KUNIT_EXPECT_EQ(test, n_tty_inq(&t->tty), 0); /* neither is input */
}

/* Linux's n_tty_poll: EPOLLIN by the mode's rule, EPOLLOUT unless
 * stopped; a hangup makes the file hung up (EPOLLHUP, reads end of
 * file, writes -EIO). */
static void poll_and_hangup(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	const __poll_t out = EPOLLOUT | EPOLLWRNORM, in = EPOLLIN | EPOLLRDNORM;
	KUNIT_EXPECT_EQ(test, vfs_poll(t->file, NULL), out);
	test_tty_feeds(t, "ab");
	KUNIT_EXPECT_EQ(test, vfs_poll(t->file, NULL), out); /* half a line */
	test_tty_feeds(t, "\n");
	KUNIT_EXPECT_EQ(test, vfs_poll(t->file, NULL), in | out);
	test_tty_set(t, ICANON, 0, 5, 0); /* the line becomes raw input: 3 of VMIN 5 */
	KUNIT_EXPECT_EQ(test, vfs_poll(t->file, NULL), out);
	test_tty_feeds(t, "cd");
	KUNIT_EXPECT_EQ(test, vfs_poll(t->file, NULL), in | out);
	test_tty_set(t, 0, 0, 9, 1); /* with VTIME, one byte is enough */
	KUNIT_EXPECT_EQ(test, vfs_poll(t->file, NULL), in | out);
	test_tty_feeds(t, "\x13");
	KUNIT_EXPECT_EQ(test, vfs_poll(t->file, NULL), in);
	test_tty_feeds(t, "\x11");
	/* Bytes still in the flip buffer count: poll drains it first. */
	n_tty_flush_buffer(&t->tty);
	tty_insert_flip_string(&t->tty, (const unsigned char *)"x", 1);
	KUNIT_EXPECT_EQ(test, vfs_poll(t->file, NULL), in | out);
	tty_vhangup(&t->tty, false);
	KUNIT_EXPECT_EQ(test, vfs_poll(t->file, NULL), in | out | EPOLLERR | EPOLLHUP);
	char buf[8];
	KUNIT_EXPECT_EQ(test, test_tty_read(t, buf, 4, false), 0);
	KUNIT_EXPECT_EQ(test, test_tty_write(t, "x", 1), -EIO);
	KUNIT_EXPECT_EQ(test, t->file->f_op->unlocked_ioctl(t->file, TCFLSH, 0), -EIO);
	KUNIT_EXPECT_EQ(test, t->file->f_op->unlocked_ioctl(t->file, TIOCSPGRP, 0), -ENOTTY);
	/* A new open is a working file again. */
	struct file *f = tty_open_file(&t->tty, O_RDWR | O_NONBLOCK);
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_EQ(test, vfs_poll(f, NULL), out);
	fput(f);
}

/* ---- a full read buffer ---- */

static void full_buffer_canonical(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	test_tty_set(t, ECHO, 0, -1, -1);
	static char a[1000];
	memset(a, 'a', sizeof(a));
	for (int i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, test_tty_feed(t, a, sizeof(a)), sizeof(a));
	/* 4095 bytes fit beside the one kept free; then each byte overwrote
	 * the last, so that the newline still ends the line (Linux's
	 * n_tty_receive_buf_common). */
	KUNIT_EXPECT_EQ(test, t->tty.ldata.overflow_chars, 5000 - N_TTY_BUF_SIZE);
	test_tty_feeds(t, "\n");
	char *buf = vmalloc(8192);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	long n = test_tty_read(t, buf, 8191, false);
	KUNIT_EXPECT_EQ(test, n, N_TTY_BUF_SIZE);
	if (n == N_TTY_BUF_SIZE) {
		KUNIT_EXPECT_EQ(test, buf[N_TTY_BUF_SIZE - 1], '\n');
		KUNIT_EXPECT_EQ(test, buf[N_TTY_BUF_SIZE - 2], 'a');
	}
	vfree(buf);
}

static void full_buffer_raw(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	test_tty_set(t, ICANON | ECHO, 0, 1, 0);
	static char a[5000];
	memset(a, 'r', sizeof(a));
	/* n_tty takes 4095; one stays in the flip buffer. */
	KUNIT_EXPECT_EQ(test, test_tty_feed(t, a, TTY_FLIPBUF_SIZE), TTY_FLIPBUF_SIZE);
	KUNIT_EXPECT_EQ(test, n_tty_inq(&t->tty), N_TTY_BUF_SIZE - 1);
	/* The flip buffer takes 4095 more and drops the rest, counted. */
	KUNIT_EXPECT_EQ(test, test_tty_feed(t, a, sizeof(a)), TTY_FLIPBUF_SIZE - 1);
	KUNIT_EXPECT_EQ(test, t->tty.buf.buf_overrun, sizeof(a) - (TTY_FLIPBUF_SIZE - 1));
	char *buf = vmalloc(8192);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	long total = 0, n;
	while ((n = test_tty_read(t, buf, 8191, false)) > 0)
		total += n;
	KUNIT_EXPECT_EQ(test, n, -EAGAIN);
	KUNIT_EXPECT_EQ(test, total, 2 * TTY_FLIPBUF_SIZE - 1);
	vfree(buf);
}

/* ---- hostile input ---- */

/* Every byte value, 64 KiB of them, as fast as they come, into every
 * mode: nothing crashes, the buffer's counters stay in bounds, and in a
 * raw mode without processing every byte comes out in order. */
static void hostile_bytes(struct kunit *test)
{
	struct test_tty *t = test_tty_new(test);
	char *in = vmalloc(65536), *out = vmalloc(65536 + 1);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	for (int i = 0; i < 65536; i++)
		in[i] = (char)(i * 7 + (i >> 8));
	static const tcflag_t lmodes[] = {
		ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
		ICANON | ECHO | ECHONL | IEXTEN | NOFLSH,
		ISIG | ECHO | ECHOCTL,
		0,
	};
	for (unsigned m = 0; m < ARRAY_SIZE(lmodes); m++) {
		test_tty_set(t, ~0u, lmodes[m], 1, 0);
		set_iflag(t, ICRNL | IXON | IXANY | INLCR | ISTRIP, OPOST | ONLCR | XTABS);
		for (size_t off = 0; off < 65536;) {
			off += test_tty_feed(t, in + off, 65536 - off);
			/* Until -EAGAIN: an end-of-file line reads as 0. */
			while (test_tty_read(t, out, 65536, false) >= 0)
				;
		}
		struct n_tty_data *l = &t->tty.ldata;
		KUNIT_EXPECT_LE(test, l->read_head - l->read_tail, N_TTY_BUF_SIZE);
		/* canon_head means something in canonical mode only. */
		if (lmodes[m] & ICANON)
			KUNIT_EXPECT_LE(test, l->canon_head - l->read_tail, l->read_head - l->read_tail);
		test_tty_output(t, NULL);
		start_tty(&t->tty);
	}
	/* Raw, nothing processed: the bytes as sent. */
	test_tty_set(t, ~0u, 0, 1, 0);
	set_iflag(t, 0, 0);
	n_tty_flush_buffer(&t->tty);
	size_t got = 0;
	for (size_t off = 0; off < 65536;) {
		off += test_tty_feed(t, in + off, 65536 - off);
		long n;
		while ((n = test_tty_read(t, out + got, 65536 - got, false)) > 0)
			got += (size_t)n;
	}
	KUNIT_EXPECT_EQ(test, got, 65536);
	KUNIT_EXPECT_MEMEQ(test, out, in, 65536);
	/* A 64 KiB line: the first 4095 bytes and its end. */
	test_tty_set(t, 0, ICANON, -1, -1);
	memset(in, 'L', 65536);
	in[65535] = '\n';
	for (size_t off = 0; off < 65536;)
		off += test_tty_feed(t, in + off, 65536 - off);
	KUNIT_EXPECT_EQ(test, test_tty_read(t, out, 65536, false), N_TTY_BUF_SIZE);
	KUNIT_EXPECT_EQ(test, test_tty_read(t, out, 65536, false), -EAGAIN);
	vfree(in);
	vfree(out);
}

static struct kunit_case n_tty_cases[] = {
	KUNIT_CASE(canonical_line_and_echo),
	KUNIT_CASE(canonical_editing),
	KUNIT_CASE(canonical_lnext),
	KUNIT_CASE(canonical_eof),
	KUNIT_CASE(raw_min0_time0),
	KUNIT_CASE(raw_min_n),
	KUNIT_CASE(raw_time_only),
	KUNIT_CASE(raw_min_and_time),
	KUNIT_CASE(crlf_translation),
	KUNIT_CASE(echo_modes),
	KUNIT_CASE(flow_control),
	KUNIT_CASE(poll_and_hangup),
	KUNIT_CASE(full_buffer_canonical),
	KUNIT_CASE(full_buffer_raw),
	KUNIT_CASE(hostile_bytes),
	{},
};

static struct kunit_suite n_tty_suite = {
	.name = "n_tty",
	.test_cases = n_tty_cases,
};
kunit_test_suite(n_tty_suite);
