/* A terminal for tests: tests/test_tty.h. */
#include "tests/test_tty.h"
#include "fs/fs.h"
#include "kernel/pid.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/slab.h"

static void capture_write(struct tty_struct *tty, const unsigned char *buf, size_t n)
{
	struct test_tty *t = tty->driver_data;
	unsigned long flags;
	spin_lock_irqsave(&t->out_lock, flags);
	for (size_t i = 0; i < n && t->out_len < TEST_TTY_OUT_MAX - 1; i++)
		t->out[t->out_len++] = (char)buf[i];
	t->out[t->out_len] = 0;
	t->out_total += n;
	spin_unlock_irqrestore(&t->out_lock, flags);
}

static const struct tty_operations capture_ops = { .write = capture_write };

static void test_tty_free(void *p)
{
	struct test_tty *t = p;
	test_tty_clear_pgrp(t);
	if (t->file)
		fput(t->file);
	tty_free_struct(&t->tty);
	kfree(t);
}

struct test_tty *test_tty_new(struct kunit *test)
{
	struct test_tty *t = kzalloc(sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	spin_lock_init(&t->out_lock);
	tty_init_struct(&t->tty, "ttytest", &capture_ops, t);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_tty_free, t), 0);
	t->file = tty_open_file(&t->tty, O_RDWR | O_NONBLOCK);
	KUNIT_ASSERT_NOT_NULL(test, t->file);
	return t;
}

const char *test_tty_output(struct test_tty *t, size_t *len)
{
	static char copy[TEST_TTY_OUT_MAX];
	unsigned long flags;
	spin_lock_irqsave(&t->out_lock, flags);
	memcpy(copy, t->out, t->out_len + 1);
	if (len)
		*len = t->out_len;
	t->out_len = 0;
	t->out[0] = 0;
	spin_unlock_irqrestore(&t->out_lock, flags);
	return copy;
}

size_t test_tty_feed(struct test_tty *t, const char *s, size_t n)
{
	size_t took = tty_insert_flip_string(&t->tty, (const unsigned char *)s, n);
	flush_to_ldisc(&t->tty);
	return took;
}

long test_tty_read(struct test_tty *t, char *buf, size_t n, bool block)
{
	long pos = 0;
	if (block)
		t->file->f_flags &= ~O_NONBLOCK;
	long ret = t->file->f_op->read(t->file, buf, n, &pos, false);
	t->file->f_flags |= O_NONBLOCK;
	buf[ret > 0 ? ret : 0] = 0;
	return ret;
}

long test_tty_write(struct test_tty *t, const char *s, size_t n)
{
	long pos = 0;
	return t->file->f_op->write(t->file, s, n, &pos, false);
}

void test_tty_set(struct test_tty *t, tcflag_t lflag_clear, tcflag_t lflag_set, int vmin, int vtime)
{
	struct tty_struct *tty = &t->tty;
	mutex_lock(&tty->termios_rwsem);
	struct termios old = tty->termios;
	tty->termios.c_lflag = (tty->termios.c_lflag & ~lflag_clear) | lflag_set;
	if (vmin >= 0)
		tty->termios.c_cc[VMIN] = (cc_t)vmin;
	if (vtime >= 0)
		tty->termios.c_cc[VTIME] = (cc_t)vtime;
	n_tty_set_termios(tty, &old);
	mutex_unlock(&tty->termios_rwsem);
}

void test_tty_set_pgrp(struct kunit *test, struct test_tty *t, struct task_struct *root, int pgrp)
{
	(void)test;
	test_tty_clear_pgrp(t);
	get_task_struct(root);
	spin_lock(&t->tty.ctrl_lock);
	t->tty.session_root = root;
	t->tty.session = t->tty.pgrp = pgrp;
	spin_unlock(&t->tty.ctrl_lock);
}

void test_tty_clear_pgrp(struct test_tty *t)
{
	spin_lock(&t->tty.ctrl_lock);
	struct task_struct *root = t->tty.session_root;
	t->tty.session_root = NULL;
	t->tty.session = t->tty.pgrp = 0;
	spin_unlock(&t->tty.ctrl_lock);
	if (root)
		put_task_struct(root);
}
