/* The terminal around the line discipline: ISIG's signals reaching a
 * real foreground process group (drivers/tty/n_tty.c, tty_jobctrl.c), and
 * the whole input path of the serial port, from the UART's receive
 * interrupt through the I/O APIC, the flip buffer and its worker to a
 * reader (drivers/tty/serial/8250.c, arch/x86_64/io_apic.c), driven by
 * the 16550's loopback: with MCR LOOP set, what the UART sends comes back
 * as received and nothing leaves on the line.
 *
 * The loopback runs on ttyS0, which is also the kernel's console: the
 * case holds the console lock while loopback is on (no printk can go
 * out, and be lost, in between), with the port's interrupt routed to its
 * own CPU, which keeps interrupts on. Each byte waits for the previous
 * one to be taken from the FIFO; the only bound is a hang guard. */
#include "tests/kunit.h"
#include "tests/test_cpu.h"
#include "tests/test_tty.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/serial.h"
#include "drivers/tty/serial/8250.h"
#include "fs/fs.h"
#include "fs/programs.h"
#include "kernel/printk.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/mmu_context.h"

#define SPIN_FLAG_ADDR 0x200000000ul
#define HANG_GUARD_NS 20000000000ull

static struct task_struct *spawn_spinner(struct kunit *test)
{
	if (!find_user_program("spin"))
		kunit_skip(test, "the ISO has no program spin");
	char addr[24];
	snprintf(addr, sizeof(addr), "%#lx", SPIN_FLAG_ADDR);
	const char *const argv[] = { "spin", addr, NULL };
	struct process_spawn_args args = { .name = "spin", .path = "/bin/spin", .argv = argv,
					   .cpu = test_other_cpu_or_this() };
	int err = 0;
	struct task_struct *p = process_spawn(&args, &err);
	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

/* ^C and ^\ kill the foreground group's spinner with SIGINT and SIGQUIT,
 * echoed as ^C and ^\, the line typed so far flushed (kept with NOFLSH). */
static void isig_kills_foreground_group(struct kunit *test)
{
	static const struct { char c; int sig; const char *echo; } keys[] = {
		{ '\x03', SIGINT, "abc^C" },
		{ '\x1c', SIGQUIT, "abc^\\" },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(keys); i++) {
		struct test_tty *t = test_tty_new(test);
		struct task_struct *p = spawn_spinner(test);
		test_tty_set_pgrp(test, t, p, p->tgid);
		char in[4] = { 'a', 'b', 'c', keys[i].c };
		test_tty_feed(t, in, 4);
		test_tty_clear_pgrp(t);
		struct process_result res;
		process_wait(p, &res);
		KUNIT_EXPECT_TRUE(test, res.killed);
		KUNIT_EXPECT_EQ(test, res.signal, keys[i].sig);
		KUNIT_EXPECT_STREQ(test, test_tty_output(t, NULL), keys[i].echo);
		KUNIT_EXPECT_EQ(test, t->tty.ldata.read_head, t->tty.ldata.read_tail);
	}
	/* NOFLSH: the signal, and the line stays. */
	struct test_tty *t = test_tty_new(test);
	test_tty_set(t, 0, NOFLSH, -1, -1);
	struct task_struct *p = spawn_spinner(test);
	test_tty_set_pgrp(test, t, p, p->tgid);
	test_tty_feeds(t, "ab\x03" "c\n");
	test_tty_clear_pgrp(t);
	struct process_result res;
	process_wait(p, &res);
	KUNIT_EXPECT_EQ(test, res.signal, SIGINT);
	char buf[16];
	KUNIT_EXPECT_EQ(test, test_tty_read(t, buf, 15, false), 4);
	KUNIT_EXPECT_STREQ(test, buf, "abc\n");
	/* No foreground group: ^C flushes and echoes, and signals nobody. */
	test_tty_set(t, NOFLSH, 0, -1, -1);
	test_tty_output(t, NULL);
	test_tty_feeds(t, "xy\x03");
	KUNIT_EXPECT_STREQ(test, test_tty_output(t, NULL), "xy^C");
	KUNIT_EXPECT_EQ(test, t->tty.ldata.read_head, t->tty.ldata.read_tail);
}

/* ^Z stops the foreground group (SIGTSTP): tty_fg's child, in a group
 * that is not orphaned; tty_fg reports the stop in its exit status. */
static void isig_suspends_foreground_group(struct kunit *test)
{
	if (!find_user_program("tty_fg"))
		kunit_skip(test, "the ISO has no program tty_fg");
	struct test_tty *t = test_tty_new(test);
	char addr[24];
	snprintf(addr, sizeof(addr), "%#lx", SPIN_FLAG_ADDR);
	const char *const argv[] = { "tty_fg", addr, NULL };
	struct process_spawn_args args = { .name = "tty_fg", .path = "/bin/tty_fg", .argv = argv,
					   .cpu = test_other_cpu_or_this(), .want_mm = true };
	int err = 0;
	struct task_struct *p = process_spawn(&args, &err);
	KUNIT_ASSERT_NOT_NULL(test, p);
	struct mm_struct *mm = process_started_mm(p);
	int child = -1;
	u64 guard = ktime_get_ns() + HANG_GUARD_NS;
	while (mm && (child = kunit_user_flag(mm, SPIN_FLAG_ADDR, 0)) <= 0 && READ_ONCE(p->mm) &&
	       ktime_get_ns() < guard)
		schedule_timeout_uninterruptible(1);
	if (mm)
		mmput(mm);
	KUNIT_EXPECT_GT(test, child, 0);
	if (child > 0) {
		test_tty_set_pgrp(test, t, p, child);
		test_tty_feeds(t, "\x1a");
		test_tty_clear_pgrp(t);
	}
	KUNIT_EXPECT_STREQ(test, test_tty_output(t, NULL), child > 0 ? "^Z" : "");
	struct process_result res;
	process_wait(p, &res);
	KUNIT_EXPECT_FALSE(test, res.killed);
	KUNIT_EXPECT_EQ(test, res.exit_code, 100 + SIGTSTP);
}

/* ---- the serial port, by loopback ---- */

struct loopback {
	struct uart_8250_port *up;
	struct termios saved;
	struct file *f;
};

static void loopback_end(void *arg)
{
	struct loopback *lb = arg;
	struct tty_struct *tty = &lb->up->tty;
	if (lb->f)
		fput(lb->f);
	mutex_lock(&tty->termios_rwsem);
	struct termios old = tty->termios;
	tty->termios = lb->saved;
	n_tty_set_termios(tty, &old);
	mutex_unlock(&tty->termios_rwsem);
	tty_buffer_flush(tty);
	n_tty_flush_buffer(tty);
}

/* ttyS0 with the given modes (ECHO never: an echo would come back as
 * input), emptied, and a file to read it; put back as it was when the
 * case ends. */
static struct loopback *loopback_begin(struct kunit *test, tcflag_t iflag, tcflag_t lflag)
{
	static struct loopback lb;
	lb.up = serial8250_port(0);
	KUNIT_ASSERT_NOT_NULL(test, lb.up);
	struct tty_struct *tty = &lb.up->tty;
	if (READ_ONCE(tty->session))
		kunit_skip(test, "ttyS0 is the controlling terminal of a session");
	mutex_lock(&tty->termios_rwsem);
	lb.saved = tty->termios;
	struct termios old = tty->termios;
	tty->termios.c_iflag = iflag;
	tty->termios.c_lflag = lflag;
	tty->termios.c_cc[VMIN] = 1;
	tty->termios.c_cc[VTIME] = 0;
	n_tty_set_termios(tty, &old);
	mutex_unlock(&tty->termios_rwsem);
	tty_buffer_flush(tty);
	n_tty_flush_buffer(tty);
	lb.f = tty_open_file(tty, O_RDONLY);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, loopback_end, &lb), 0);
	KUNIT_ASSERT_NOT_NULL(test, lb.f);
	return &lb;
}

static unsigned long bytes_in(struct uart_8250_port *up)
{
	return READ_ONCE(up->tty.buf.received) + READ_ONCE(up->tty.buf.buf_overrun);
}

/* Each byte sent waits for the previous one to come back; returns how
 * many did (n unless one never arrived). Loopback is on, the console
 * lock held: no printk, no assertion. */
static size_t send_each_locked(struct uart_8250_port *up, const unsigned char *s, size_t n)
{
	size_t done = 0;
	for (; done < n; done++) {
		unsigned long seen = bytes_in(up);
		serial_putc_port(up->line, s[done]);
		u64 guard = ktime_get_ns() + HANG_GUARD_NS;
		while (bytes_in(up) == seen && ktime_get_ns() < guard)
			__builtin_ia32_pause();
		if (bytes_in(up) == seen)
			break;
	}
	return done;
}

/* Sends flood (as fast as the transmitter takes it: the FIFO may
 * overflow, the UART's overrun) and then s byte by byte through the UART
 * in loopback, its interrupt on this CPU and the console lock held
 * throughout (a printk in between would be lost into the loopback);
 * returns how many of s came back into the flip buffer. */
static size_t loopback_run(struct uart_8250_port *up, const unsigned char *flood, size_t nflood,
			   const unsigned char *s, size_t n)
{
	bool moved = serial8250_move_irq(up, lapic_id());
	bool took = printk_console_lock();
	serial8250_set_loopback(up, true);
	for (size_t i = 0; i < nflood; i++)
		serial_putc_port(up->line, flood[i]);
	size_t done = send_each_locked(up, s, n);
	serial8250_set_loopback(up, false);
	printk_console_unlock(took);
	if (moved)
		serial8250_restore_irq(up);
	return done;
}

static size_t loopback_send(struct uart_8250_port *up, const unsigned char *s, size_t n)
{
	return loopback_run(up, NULL, 0, s, n);
}

static long loopback_read(struct loopback *lb, char *buf, size_t n)
{
	long pos = 0;
	return lb->f->f_op->read(lb->f, buf, n, &pos, false);
}

/* A line typed on the serial port reaches a reader: the receive
 * interrupt (counted, when the port has one), ICRNL, the canonical
 * line. */
static void serial_line_by_loopback(struct kunit *test)
{
	struct loopback *lb = loopback_begin(test, ICRNL, ICANON);
	unsigned long irqs = lb->up->interrupts;
	static const char line[] = "typed on ttyS0\r";
	KUNIT_EXPECT_EQ(test, loopback_send(lb->up, (const unsigned char *)line, sizeof(line) - 1),
			sizeof(line) - 1);
	if (lb->up->irq_mode)
		KUNIT_EXPECT_GT(test, lb->up->interrupts, irqs);
	else
		kunit_info(test, "ttyS0 is polled from the tick (no usable I/O APIC)");
	char buf[64] = { 0 };
	KUNIT_EXPECT_EQ(test, loopback_read(lb, buf, sizeof(buf) - 1), (long)sizeof(line) - 1);
	KUNIT_EXPECT_STREQ(test, buf, "typed on ttyS0\n");
}

/* Every byte value through the UART, raw: each arrives, in order. */
static void serial_all_bytes_by_loopback(struct kunit *test)
{
	struct loopback *lb = loopback_begin(test, 0, 0);
	unsigned char out[256];
	for (int i = 0; i < 256; i++)
		out[i] = (unsigned char)i;
	unsigned long overruns = lb->up->tty.buf.buf_overrun;
	KUNIT_EXPECT_EQ(test, loopback_send(lb->up, out, sizeof(out)), sizeof(out));
	KUNIT_EXPECT_EQ(test, lb->up->tty.buf.buf_overrun, overruns);
	unsigned char in[256];
	size_t got = 0;
	while (got < sizeof(in)) {
		long n = loopback_read(lb, (char *)in + got, sizeof(in) - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	KUNIT_EXPECT_EQ(test, got, sizeof(in));
	KUNIT_EXPECT_MEMEQ(test, in, out, sizeof(in));
}

/* Every byte value, 1 KiB of them, as fast as the UART sends: what the
 * FIFO could not hold is the UART's overrun (counted); all else arrives
 * in order, nothing is lost after the UART (the flip and read buffers
 * have room), and a marker sent after it comes back whole. */
static void serial_flood_by_loopback(struct kunit *test)
{
	struct loopback *lb = loopback_begin(test, 0, 0);
	static unsigned char out[1024];
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (unsigned char)(i * 13);
	unsigned long uart_overruns = lb->up->overrun, buf_overruns = lb->up->tty.buf.buf_overrun;
	KUNIT_EXPECT_EQ(test, loopback_run(lb->up, out, sizeof(out), (const unsigned char *)"END", 3), 3);
	KUNIT_EXPECT_EQ(test, lb->up->tty.buf.buf_overrun, buf_overruns);
	static char in[sizeof(out) + 4];
	size_t got = 0;
	lb->f->f_flags |= O_NONBLOCK;
	long n;
	while (got < sizeof(in) && (n = loopback_read(lb, in + got, sizeof(in) - got)) > 0)
		got += (size_t)n;
	KUNIT_ASSERT_GE(test, got, 3);
	KUNIT_EXPECT_EQ(test, memcmp(in + got - 3, "END", 3), 0);
	if (lb->up->overrun == uart_overruns) {
		KUNIT_EXPECT_EQ(test, got, sizeof(out) + 3);
		KUNIT_EXPECT_MEMEQ(test, in, out, min(got, sizeof(out)));
	} else {
		kunit_info(test, "the UART overran %lu time(s); %zu of %zu bytes came", lb->up->overrun - uart_overruns,
			   got - 3, sizeof(out));
		KUNIT_EXPECT_LT(test, got, sizeof(out) + 3);
	}
}

static struct kunit_case tty_cases[] = {
	KUNIT_CASE(isig_kills_foreground_group),
	KUNIT_CASE(isig_suspends_foreground_group),
	KUNIT_CASE(serial_line_by_loopback),
	KUNIT_CASE(serial_all_bytes_by_loopback),
	KUNIT_CASE(serial_flood_by_loopback),
	{},
};

static struct kunit_suite tty_suite = {
	.name = "tty",
	.test_cases = tty_cases,
};
kunit_test_suite(tty_suite);
