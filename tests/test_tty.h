/* A terminal for tests (tests/test_tty.c): a tty_struct whose driver
 * keeps what is written to it (the echo and the output) in a buffer, and
 * a file open on it, both given back when the case ends
 * (kunit_add_action). Used by tests/n_tty_test.c and tests/tty_test.c. */
#ifndef TESTS_TEST_TTY_H
#define TESTS_TEST_TTY_H

#include "tests/kunit.h"
#include "drivers/tty/tty_struct.h"

#define TEST_TTY_OUT_MAX 8192

struct test_tty {
	struct tty_struct tty;
	spinlock_t out_lock;
	char out[TEST_TTY_OUT_MAX];
	size_t out_len;       /* bytes kept (at most TEST_TTY_OUT_MAX) */
	unsigned long out_total; /* bytes written */
	struct file *file;    /* O_RDWR | O_NONBLOCK */
};

/* A new test terminal with tty_std_termios and its file. */
struct test_tty *test_tty_new(struct kunit *test);
/* What the driver got since the last call, as a C string (NUL bytes
 * kept, *len its length when len is not NULL); emptied. */
const char *test_tty_output(struct test_tty *t, size_t *len);
/* Feeds bytes as the receive path does: through the flip buffer and
 * flush_to_ldisc, here, at once. Returns what the flip buffer took. */
size_t test_tty_feed(struct test_tty *t, const char *s, size_t n);
#define test_tty_feeds(t, s) test_tty_feed(t, s, sizeof(s) - 1)
/* A read of up to n bytes through the file (non-blocking unless block),
 * into buf (NUL-terminated; buf has n + 1 bytes). */
long test_tty_read(struct test_tty *t, char *buf, size_t n, bool block);
long test_tty_write(struct test_tty *t, const char *s, size_t n);
/* Changes the termios as TCSETS would (no job control check). */
void test_tty_set(struct test_tty *t, tcflag_t lflag_clear, tcflag_t lflag_set, int vmin, int vtime);
/* Makes group pgrp of root's tree the terminal's session and foreground
 * group (root's reference taken); undone when the case ends or by
 * test_tty_clear_pgrp. */
void test_tty_set_pgrp(struct kunit *test, struct test_tty *t, struct task_struct *root, int pgrp);
void test_tty_clear_pgrp(struct test_tty *t);

#endif
