/* A pipe's reads, writes, poll and close, and F_SETPIPE_SZ/F_GETPIPE_SZ
 * (Linux 6.1's fs/pipe.c; the ring is described in fs/pipe_fs_i.h, and how
 * a pipe's files come to be, pipe2 and a FIFO's open, in fs/pipe_open.c).
 *
 * A write appends to the last buffer when its bytes (those past its last
 * whole page) fit there, and otherwise takes a fresh page per buffer; a
 * write of at most PIPE_BUF (one page) therefore needs one buffer and
 * waits for room before it copies anything, so it lands whole, never
 * interleaved with another writer's (the pipe's mutex is held from the
 * first byte to the last). A longer write may be split where it had to
 * wait. A read takes what is there (at most one packet in O_DIRECT packet
 * mode) and waits only when the pipe is empty and has writers: end of
 * file once the last writer is gone. A write with no reader left is
 * -EPIPE, with SIGPIPE sent to the writer. O_NONBLOCK makes the waits
 * -EAGAIN. A signal ends a wait with -ERESTARTSYS when nothing was moved.
 *
 * The pages are allocated per buffer as the data comes (one spare kept,
 * tmp_page) and freed as they are read and with the pipe: none is held by
 * an empty pipe but the spare.
 *
 * Readers and writers wait exclusively, as Linux's: a wakeup wakes one
 * of them (and every poller), which hands it on to the next when it leaves
 * data or room behind (wake_next_reader, wake_next_writer).
 *
 * mmlab's differences: readv and writev move each segment by its own read or write (fs/read_write.c), so
 * a writev is atomic per segment, not as a whole; there are no per-user
 * pipe-user-pages limits (fs.pipe-user-pages-soft/hard) and no
 * notification pipes (O_NOTIFICATION_PIPE: -EINVAL). */
#include "fs/pipe_fs_i.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fdtable.h"
#include "fs/internal.h"
#include "fs/poll.h"
#include "kernel/cred.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "kernel/sysctl.h"
#include "lib/seq_buf.h"
#include "lib/string.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

#define FIONREAD 0x541B

unsigned int pipe_max_size = 1048576;

DEFINE_SPINLOCK(pipe_inode_lock);

void pipe_lock(struct pipe_inode_info *pipe) { mutex_lock(&pipe->mutex); }
void pipe_unlock(struct pipe_inode_info *pipe) { mutex_unlock(&pipe->mutex); }

struct pipe_inode_info *alloc_pipe_info(void)
{
	struct pipe_inode_info *pipe = kzalloc(sizeof(*pipe), GFP_KERNEL_ACCOUNT);
	if (!pipe)
		return NULL;
	pipe->bufs = kcalloc(PIPE_DEF_BUFFERS, sizeof(struct pipe_buffer), GFP_KERNEL_ACCOUNT);
	if (!pipe->bufs) {
		kfree(pipe);
		return NULL;
	}
	mutex_init(&pipe->mutex);
	init_waitqueue_head(&pipe->rd_wait);
	init_waitqueue_head(&pipe->wr_wait);
	pipe->r_counter = pipe->w_counter = 1;
	pipe->max_usage = PIPE_DEF_BUFFERS;
	pipe->ring_size = PIPE_DEF_BUFFERS;
	return pipe;
}

/* A buffer's page goes: the pipe's own is freed, a vmsplice'd user page
 * only loses the pipe's reference. */
static void pipe_buf_release(struct pipe_buffer *buf)
{
	put_page(buf->page);
	buf->page = NULL;
}

void free_pipe_info(struct pipe_inode_info *pipe)
{
	for (unsigned int i = 0; i < pipe->ring_size; i++)
		if (pipe->bufs[i].page)
			pipe_buf_release(&pipe->bufs[i]);
	if (pipe->tmp_page)
		__free_page(pipe->tmp_page);
	kfree(pipe->bufs);
	kfree(pipe);
}

/* Linux's put_pipe_info: one file fewer; the last frees the pipe. */
void put_pipe_info(struct inode *inode, struct pipe_inode_info *pipe)
{
	bool kill = false;
	spin_lock(&pipe_inode_lock);
	if (!--pipe->files) {
		inode->i_pipe = NULL;
		kill = true;
	}
	spin_unlock(&pipe_inode_lock);
	if (kill)
		free_pipe_info(pipe);
}

/* The ring's tail or head moves (under rd_wait's lock: pipe_poll reads
 * them without the mutex). */
static void pipe_set_index(struct pipe_inode_info *pipe, unsigned int *index, unsigned int value)
{
	unsigned long flags;
	spin_lock_irqsave(&pipe->rd_wait.lock, flags);
	WRITE_ONCE(*index, value);
	spin_unlock_irqrestore(&pipe->rd_wait.lock, flags);
}

static bool pipe_readable(const struct pipe_inode_info *pipe)
{
	unsigned int head = READ_ONCE(pipe->head), tail = READ_ONCE(pipe->tail);
	return !pipe_empty(head, tail) || !READ_ONCE(pipe->writers);
}

static bool pipe_writable(const struct pipe_inode_info *pipe)
{
	unsigned int head = READ_ONCE(pipe->head), tail = READ_ONCE(pipe->tail);
	return !pipe_full(head, tail, READ_ONCE(pipe->max_usage)) || !READ_ONCE(pipe->readers);
}

long pipe_read_to(struct file *filp, char *dst, size_t total_len, bool user, bool nonblock)
{
	struct pipe_inode_info *pipe = filp->private_data;
	if (!total_len)
		return 0;
	long ret = 0;
	bool was_full, wake_next_reader = false;
	pipe_lock(pipe);
	/* Writers are woken only if the pipe was full when the read began. */
	was_full = pipe_full(pipe->head, pipe->tail, pipe->max_usage);
	for (;;) {
		unsigned int head = pipe->head, tail = pipe->tail, mask = pipe->ring_size - 1;
		if (!pipe_empty(head, tail)) {
			struct pipe_buffer *buf = &pipe->bufs[tail & mask];
			size_t chars = buf->len;
			if (chars > total_len)
				chars = total_len;
			if (file_copy_out(dst + ret, (char *)page_address(buf->page) + buf->offset, chars, user)) {
				if (!ret)
					ret = -EFAULT;
				break;
			}
			ret += (long)chars;
			buf->offset += (unsigned int)chars;
			buf->len -= (unsigned int)chars;
			/* A packet is read whole or cut: the rest of it goes. */
			if (buf->flags & PIPE_BUF_FLAG_PACKET) {
				total_len = chars;
				buf->len = 0;
			}
			if (!buf->len) {
				pipe_buf_release(buf);
				pipe_set_index(pipe, &pipe->tail, ++tail);
			}
			total_len -= chars;
			if (!total_len)
				break; /* the common case: the read is satisfied */
			if (!pipe_empty(head, tail)) /* more to take */
				continue;
		}
		if (!pipe->writers)
			break; /* end of file, or what was there */
		if (ret)
			break;
		if (nonblock) {
			ret = -EAGAIN;
			break;
		}
		pipe_unlock(pipe);
		if (was_full)
			wake_up_interruptible_sync_poll(&pipe->wr_wait, EPOLLOUT | EPOLLWRNORM);
		if (wait_event_interruptible_exclusive(pipe->rd_wait, pipe_readable(pipe)) < 0)
			return -ERESTARTSYS;
		pipe_lock(pipe);
		was_full = pipe_full(pipe->head, pipe->tail, pipe->max_usage);
		wake_next_reader = true;
	}
	if (pipe_empty(pipe->head, pipe->tail))
		wake_next_reader = false;
	pipe_unlock(pipe);
	if (was_full)
		wake_up_interruptible_sync_poll(&pipe->wr_wait, EPOLLOUT | EPOLLWRNORM);
	if (wake_next_reader)
		wake_up_interruptible_sync_poll(&pipe->rd_wait, EPOLLIN | EPOLLRDNORM);
	return ret;
}

static long pipe_read(struct file *filp, char *dst, size_t total_len, long *pos, bool user)
{
	(void)pos;
	return pipe_read_to(filp, dst, total_len, user, filp->f_flags & O_NONBLOCK);
}

/* The writer gets SIGPIPE (Linux's send_sig(SIGPIPE, current, 0)). */
static void pipe_broken(void) { send_sig(SIGPIPE, current); }

static long pipe_write(struct file *filp, const char *src, size_t total_len, long *pos, bool user)
{
	(void)pos;
	struct pipe_inode_info *pipe = filp->private_data;
	if (!total_len)
		return 0;
	long ret = 0;
	size_t done = 0;
	bool was_empty, wake_next_writer = false;
	pipe_lock(pipe);
	if (!pipe->readers) {
		pipe_broken();
		ret = -EPIPE;
		goto out;
	}
	/* The bytes past the last whole page go into the last buffer if
	 * they fit there: small writes merge, large ones stay page-aligned. */
	unsigned int head = pipe->head;
	was_empty = pipe_empty(head, pipe->tail);
	size_t chars = total_len & (PAGE_SIZE - 1);
	if (chars && !was_empty) {
		struct pipe_buffer *buf = &pipe->bufs[(head - 1) & (pipe->ring_size - 1)];
		size_t offset = buf->offset + buf->len;
		if ((buf->flags & PIPE_BUF_FLAG_CAN_MERGE) && offset + chars <= PAGE_SIZE) {
			if (file_copy_in((char *)page_address(buf->page) + offset, src, chars, user)) {
				ret = -EFAULT;
				goto out;
			}
			buf->len += (unsigned int)chars;
			done = chars;
			ret = (long)chars;
			if (done == total_len)
				goto out;
		}
	}
	for (;;) {
		if (!pipe->readers) {
			pipe_broken();
			if (!ret)
				ret = -EPIPE;
			break;
		}
		head = pipe->head;
		if (!pipe_full(head, pipe->tail, pipe->max_usage)) {
			struct page *page = pipe->tmp_page;
			if (!page) {
				page = alloc_page(GFP_KERNEL_ACCOUNT);
				if (!page) {
					ret = ret ? ret : -ENOMEM;
					break;
				}
				pipe->tmp_page = page;
			}
			size_t n = total_len - done < PAGE_SIZE ? total_len - done : PAGE_SIZE;
			if (file_copy_in(page_address(page), src + done, n, user)) {
				if (!ret)
					ret = -EFAULT;
				break;
			}
			/* Copied: the page joins the ring (Linux inserts it
			 * first and lets a reader see an empty buffer if the
			 * copy faults; here a fault leaves the ring as it was). */
			struct pipe_buffer *buf = &pipe->bufs[head & (pipe->ring_size - 1)];
			buf->page = page;
			buf->offset = 0;
			buf->len = (unsigned int)n;
			buf->flags = (filp->f_flags & O_DIRECT) ? PIPE_BUF_FLAG_PACKET : PIPE_BUF_FLAG_CAN_MERGE;
			pipe->tmp_page = NULL;
			pipe_set_index(pipe, &pipe->head, head + 1);
			done += n;
			ret = (long)done;
			if (done == total_len)
				break;
		}
		if (!pipe_full(pipe->head, pipe->tail, pipe->max_usage))
			continue;
		/* Full: wait for room, unless we may not. */
		if (filp->f_flags & O_NONBLOCK) {
			if (!ret)
				ret = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			if (!ret)
				ret = -ERESTARTSYS;
			break;
		}
		pipe_unlock(pipe);
		if (was_empty)
			wake_up_interruptible_sync_poll(&pipe->rd_wait, EPOLLIN | EPOLLRDNORM);
		wait_event_interruptible_exclusive(pipe->wr_wait, pipe_writable(pipe));
		pipe_lock(pipe);
		was_empty = pipe_empty(pipe->head, pipe->tail);
		wake_next_writer = true;
	}
out:
	if (pipe_full(pipe->head, pipe->tail, pipe->max_usage))
		wake_next_writer = false;
	pipe_unlock(pipe);
	/* Linux wakes the readers only if the pipe was empty, or always once
	 * someone polled it (epoll's edge-triggered users); a poller here
	 * is woken by every write, as a Linux pipe that was polled. */
	wake_up_interruptible_sync_poll(&pipe->rd_wait, EPOLLIN | EPOLLRDNORM);
	if (wake_next_writer)
		wake_up_interruptible_sync_poll(&pipe->wr_wait, EPOLLOUT | EPOLLWRNORM);
	return ret;
}

int pipe_wait_for_space(struct pipe_inode_info *pipe, bool nonblock)
{
	for (;;) {
		if (!pipe->readers) {
			pipe_broken();
			return -EPIPE;
		}
		if (!pipe_full(pipe->head, pipe->tail, pipe->max_usage))
			return 0;
		if (nonblock)
			return -EAGAIN;
		if (signal_pending(current))
			return -ERESTARTSYS;
		pipe_unlock(pipe);
		wait_event_interruptible(pipe->wr_wait, pipe_writable(pipe));
		pipe_lock(pipe);
	}
}

long add_to_pipe(struct pipe_inode_info *pipe, const struct pipe_buffer *buf)
{
	long ret;
	if (!pipe->readers) {
		pipe_broken();
		ret = -EPIPE;
	} else if (pipe_full(pipe->head, pipe->tail, pipe->max_usage)) {
		ret = -EAGAIN;
	} else {
		unsigned int head = pipe->head;
		pipe->bufs[head & (pipe->ring_size - 1)] = *buf;
		pipe_set_index(pipe, &pipe->head, head + 1);
		return buf->len;
	}
	put_page(buf->page);
	return ret;
}

static long pipe_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct pipe_inode_info *pipe = filp->private_data;
	if (cmd != FIONREAD)
		return -ENOTTY; /* Linux's -ENOIOCTLCMD, which the user sees so */
	int count = 0;
	pipe_lock(pipe);
	for (unsigned int tail = pipe->tail; tail != pipe->head; tail++)
		count += (int)pipe->bufs[tail & (pipe->ring_size - 1)].len;
	pipe_unlock(pipe);
	return put_user_u32((u32)count, (void *)arg) ? -EFAULT : 0;
}

/* Linux's pipe_poll: the queues first, then the racy look at head and
 * tail (a change after it wakes the poller). A FIFO reader opened
 * O_NONBLOCK before any writer came is not told POLLHUP until one has
 * come and gone (f_version). */
static __poll_t pipe_poll(struct file *filp, poll_table *wait)
{
	struct pipe_inode_info *pipe = filp->private_data;
	if (filp->f_mode & FMODE_READ)
		poll_wait(filp, &pipe->rd_wait, wait);
	if (filp->f_mode & FMODE_WRITE)
		poll_wait(filp, &pipe->wr_wait, wait);
	unsigned int head = READ_ONCE(pipe->head), tail = READ_ONCE(pipe->tail);
	__poll_t mask = 0;
	if (filp->f_mode & FMODE_READ) {
		if (!pipe_empty(head, tail))
			mask |= EPOLLIN | EPOLLRDNORM;
		if (!READ_ONCE(pipe->writers) && filp->f_version != READ_ONCE(pipe->w_counter))
			mask |= EPOLLHUP;
	}
	if (filp->f_mode & FMODE_WRITE) {
		if (!pipe_full(head, tail, READ_ONCE(pipe->max_usage)))
			mask |= EPOLLOUT | EPOLLWRNORM;
		/* Linux gives EPOLLERR to a FIFO's writer too, as a pipe's. */
		if (!READ_ONCE(pipe->readers))
			mask |= EPOLLERR;
	}
	return mask;
}

static void pipe_release(struct inode *inode, struct file *file)
{
	struct pipe_inode_info *pipe = file->private_data;
	pipe_lock(pipe);
	if (file->f_mode & FMODE_READ)
		pipe->readers--;
	if (file->f_mode & FMODE_WRITE)
		pipe->writers--;
	/* The last reader or writer, but not the other side: wake the other
	 * side (end of file, EPIPE, POLLHUP, POLLERR). */
	if (!pipe->readers != !pipe->writers) {
		wake_up_interruptible_all(&pipe->rd_wait);
		wake_up_interruptible_all(&pipe->wr_wait);
	}
	pipe_unlock(pipe);
	put_pipe_info(inode, pipe);
	iput(inode);
}

const struct file_operations pipefifo_fops = {
	.open = fifo_open, .read = pipe_read, .write = pipe_write, .llseek = no_llseek,
	.release = pipe_release, .poll = pipe_poll, .unlocked_ioctl = pipe_ioctl,
	.mode = S_IFIFO | 0600, .blksize = PAGE_SIZE,
};

struct pipe_inode_info *get_pipe_info(struct file *file)
{
	return file->f_op == &pipefifo_fops ? file->private_data : NULL;
}

/* ---- F_SETPIPE_SZ ---- */

unsigned int round_pipe_size(unsigned long size)
{
	if (size > (1ul << 31))
		return 0;
	if (size < PAGE_SIZE)
		return PAGE_SIZE;
	unsigned long p = PAGE_SIZE;
	while (p < size)
		p <<= 1;
	return (unsigned int)p;
}

/* Linux's pipe_resize_ring: the buffers in use move to the front of a new
 * ring of nr_slots; -EBUSY if they do not fit. */
static int pipe_resize_ring(struct pipe_inode_info *pipe, unsigned int nr_slots)
{
	struct pipe_buffer *bufs = kcalloc(nr_slots, sizeof(*bufs), GFP_KERNEL_ACCOUNT);
	if (!bufs)
		return -ENOMEM;
	unsigned long flags;
	spin_lock_irqsave(&pipe->rd_wait.lock, flags);
	unsigned int head = pipe->head, tail = pipe->tail, mask = pipe->ring_size - 1;
	unsigned int n = pipe_occupancy(head, tail);
	if (nr_slots < n) {
		spin_unlock_irqrestore(&pipe->rd_wait.lock, flags);
		kfree(bufs);
		return -EBUSY;
	}
	for (unsigned int i = 0; i < n; i++)
		bufs[i] = pipe->bufs[(tail + i) & mask];
	struct pipe_buffer *old = pipe->bufs;
	pipe->bufs = bufs;
	pipe->ring_size = nr_slots;
	if (pipe->max_usage > nr_slots)
		pipe->max_usage = nr_slots;
	WRITE_ONCE(pipe->tail, 0);
	WRITE_ONCE(pipe->head, n);
	spin_unlock_irqrestore(&pipe->rd_wait.lock, flags);
	kfree(old);
	wake_up_interruptible(&pipe->wr_wait); /* maybe more room for writers */
	return 0;
}

/* Linux's pipe_set_size: growing past pipe-max-size needs
 * CAP_SYS_RESOURCE; shrinking below the buffers in use is -EBUSY. */
static long pipe_set_size(struct pipe_inode_info *pipe, unsigned int arg)
{
	unsigned int size = round_pipe_size(arg);
	unsigned int nr_slots = size >> PAGE_SHIFT;
	if (!nr_slots)
		return -EINVAL;
	if (nr_slots > pipe->max_usage && size > READ_ONCE(pipe_max_size) && !capable(CAP_SYS_RESOURCE))
		return -EPERM;
	int ret = pipe_resize_ring(pipe, nr_slots);
	if (ret < 0)
		return ret;
	pipe->max_usage = nr_slots;
	return (long)pipe->max_usage * PAGE_SIZE;
}

long pipe_fcntl(struct file *file, unsigned int cmd, unsigned int arg)
{
	struct pipe_inode_info *pipe = get_pipe_info(file);
	if (!pipe)
		return -EBADF;
	long ret;
	pipe_lock(pipe);
	if (cmd == F_SETPIPE_SZ)
		ret = pipe_set_size(pipe, arg);
	else if (cmd == F_GETPIPE_SZ)
		ret = (long)pipe->max_usage * PAGE_SIZE;
	else
		ret = -EINVAL;
	pipe_unlock(pipe);
	return ret;
}

/* /proc/sys/fs/pipe-max-size (Linux's proc_dopipe_max_size): a value
 * written is rounded as F_SETPIPE_SZ rounds (0 and above 2 GiB:
 * -EINVAL). */
static int proc_dopipe_max_size(const struct ctl_table *table, bool write, struct seq_buf *m, const char *buf,
				size_t len)
{
	unsigned int *value = table->data;
	if (!write) {
		seq_buf_printf(m, "%u\n", READ_ONCE(*value));
		return 0;
	}
	s64 v;
	if (proc_get_long(buf, len, false, &v))
		return -EINVAL;
	unsigned int size = round_pipe_size((unsigned long)v);
	if (!size)
		return -EINVAL;
	WRITE_ONCE(*value, size);
	return 0;
}

static const struct ctl_table ctl_pipe_max_size = {
	.procname = "pipe-max-size", .data = &pipe_max_size, .maxlen = sizeof(unsigned int),
	.proc_handler = proc_dopipe_max_size,
};
static const struct proc_dir_entry ctl_entry_pipe_max_size __proc_entry = {
	.parent = &proc_sys_fs_dir, .name = "pipe-max-size", .mode = S_IFREG | 0644, .show = proc_sys_show,
	.write = proc_sys_write, .data = &ctl_pipe_max_size,
};
