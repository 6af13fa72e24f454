/* The flip buffer between a tty driver's interrupt and the line
 * discipline (Linux's drivers/tty/tty_buffer.c): the interrupt handler
 * stores what the UART received (tty_insert_flip_string) and pushes it
 * (tty_flip_buffer_push); a worker thread, "tty_flip" (Linux's
 * flush_to_ldisc work on system_unbound_wq), hands it to n_tty outside
 * the interrupt, where a character may echo, wake readers and send
 * signals. What n_tty cannot take yet (its read buffer is full) stays
 * here until a reader makes room (tty_buffer_restart_work); what does not
 * fit here is dropped and counted in buf_overrun, as Linux's
 * tty_insert_flip_char failing counts icount.buf_overrun.
 *
 * Invariant: buf.tail <= buf.head <= buf.tail + TTY_FLIPBUF_SIZE. Locking:
 * buf.lock (interrupts off: the interrupt handler takes it) guards the
 * ring and the worker's list; buf.flush_lock makes one flush_to_ldisc at
 * a time consume the ring (the worker's and a reader's). */
#include "drivers/tty/tty_struct.h"
#include "arch/x86_64/irqflags.h"
#include "kernel/printk.h"
#include "kernel/sched.h"

static DEFINE_SPINLOCK(work_lock);
static LIST_HEAD(work_list);
static DECLARE_WAIT_QUEUE_HEAD(work_wait);
static struct task_struct *flip_worker;
/* The tty the worker is flushing (under work_lock): tty_buffer_cancel_work
 * waits until it is another. */
static struct tty_struct *flip_current;
static DECLARE_WAIT_QUEUE_HEAD(flip_done_wait);

size_t tty_insert_flip_string(struct tty_struct *tty, const unsigned char *chars, size_t n)
{
	struct tty_bufhead *b = &tty->buf;
	unsigned long flags;
	spin_lock_irqsave(&b->lock, flags);
	size_t room = TTY_FLIPBUF_SIZE - (b->head - b->tail);
	size_t take = n < room ? n : room;
	for (size_t i = 0; i < take; i++)
		b->data[(b->head + i) % TTY_FLIPBUF_SIZE] = chars[i];
	b->head += take;
	b->received += take;
	b->buf_overrun += n - take;
	spin_unlock_irqrestore(&b->lock, flags);
	return take;
}

/* Queues tty for the worker (any context). */
static void queue_flip_work(struct tty_struct *tty)
{
	unsigned long flags;
	spin_lock_irqsave(&work_lock, flags);
	if (!tty->buf.queued) {
		tty->buf.queued = true;
		list_add_tail(&tty->buf.work, &work_list);
	}
	spin_unlock_irqrestore(&work_lock, flags);
	wake_up(&work_wait);
}

void tty_flip_buffer_push(struct tty_struct *tty)
{
	if (READ_ONCE(flip_worker))
		queue_flip_work(tty);
	else
		wake_up_all(&tty->read_wait); /* no worker yet: a reader drains it */
}

void tty_buffer_restart_work(struct tty_struct *tty)
{
	unsigned long flags;
	spin_lock_irqsave(&tty->buf.lock, flags);
	bool held = tty->buf.head != tty->buf.tail;
	spin_unlock_irqrestore(&tty->buf.lock, flags);
	if (held)
		tty_flip_buffer_push(tty);
}

void flush_to_ldisc(struct tty_struct *tty)
{
	struct tty_bufhead *b = &tty->buf;
	unsigned char chunk[256];
	mutex_lock(&b->flush_lock);
	for (;;) {
		unsigned long flags;
		spin_lock_irqsave(&b->lock, flags);
		size_t n = b->head - b->tail;
		if (n > sizeof(chunk))
			n = sizeof(chunk);
		for (size_t i = 0; i < n; i++)
			chunk[i] = b->data[(b->tail + i) % TTY_FLIPBUF_SIZE];
		spin_unlock_irqrestore(&b->lock, flags);
		if (!n)
			break;
		size_t took = n_tty_receive_buf(tty, chunk, n);
		spin_lock_irqsave(&b->lock, flags);
		/* A flush (TCIFLUSH) in between emptied the ring: nothing to
		 * consume. */
		if (b->head - b->tail >= took)
			b->tail += took;
		spin_unlock_irqrestore(&b->lock, flags);
		if (took < n)
			break; /* n_tty is full: a reader restarts us */
		cond_resched();
	}
	mutex_unlock(&b->flush_lock);
}

void tty_buffer_flush(struct tty_struct *tty)
{
	unsigned long flags;
	spin_lock_irqsave(&tty->buf.lock, flags);
	tty->buf.tail = tty->buf.head;
	spin_unlock_irqrestore(&tty->buf.lock, flags);
}

/* The tty leaves the worker's list (tty_free_struct). */
void tty_buffer_cancel_work(struct tty_struct *tty)
{
	unsigned long flags;
	spin_lock_irqsave(&work_lock, flags);
	if (tty->buf.queued) {
		list_del(&tty->buf.work);
		tty->buf.queued = false;
	}
	spin_unlock_irqrestore(&work_lock, flags);
	wait_event(flip_done_wait, READ_ONCE(flip_current) != tty);
}

static bool work_pending(void)
{
	unsigned long flags;
	spin_lock_irqsave(&work_lock, flags);
	bool pending = !list_empty(&work_list);
	spin_unlock_irqrestore(&work_lock, flags);
	return pending;
}

static int flip_worker_fn(void *unused)
{
	(void)unused;
	for (;;) {
		wait_event(work_wait, work_pending());
		unsigned long flags;
		spin_lock_irqsave(&work_lock, flags);
		struct tty_struct *tty = NULL;
		if (!list_empty(&work_list)) {
			tty = container_of(work_list.next, struct tty_struct, buf.work);
			list_del(&tty->buf.work);
			tty->buf.queued = false;
			flip_current = tty;
		}
		spin_unlock_irqrestore(&work_lock, flags);
		if (tty) {
			flush_to_ldisc(tty);
			spin_lock_irqsave(&work_lock, flags);
			flip_current = NULL;
			spin_unlock_irqrestore(&work_lock, flags);
			wake_up_all(&flip_done_wait);
		}
	}
	return 0;
}

int tty_buffer_init_worker(void)
{
	if (flip_worker)
		return 0;
	struct task_struct *t = kthread_create_on_cpu(flip_worker_fn, NULL, 0, "tty_flip");
	if (!t)
		return -ENOMEM;
	WRITE_ONCE(flip_worker, t);
	wake_up_process(t);
	return 0;
}
