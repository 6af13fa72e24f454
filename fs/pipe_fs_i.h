/* Pipes and FIFOs, as Linux 6.1's include/linux/pipe_fs_i.h.
 *
 * A pipe is a ring of pipe_buffers, each holding part of one whole page:
 * head is where the next buffer is written, tail the one read next; both
 * only grow, and slot n is bufs[n & (ring_size - 1)] (ring_size a power of
 * two). The ring may hold max_usage buffers (16 pages = 64 KiB by
 * default; F_SETPIPE_SZ changes both). A write of at most PIPE_BUF bytes
 * goes whole into the last buffer or into one new page, under the pipe's
 * mutex, so it is never interleaved with another (fs/pipe.c).
 *
 * Locking: mutex guards everything but head and tail, which are also
 * changed under rd_wait's lock (so that ->poll may read them without the
 * mutex, as Linux's pipe_poll). Readers sleep on rd_wait (data, or no
 * writers left), writers on wr_wait (room, or no readers left); pollers on
 * either. The pipe lives as long as a file of it is open (files); a
 * FIFO's inode points at it (i_pipe) while it does, under
 * pipe_inode_lock. */
#ifndef FS_PIPE_FS_I_H
#define FS_PIPE_FS_I_H

#include "fs/fs.h"
#include "kernel/mutex.h"
#include "kernel/spinlock.h"
#include "kernel/wait.h"

#define PIPE_DEF_BUFFERS 16
/* Linux's include/uapi/linux/limits.h: writes up to this many bytes are
 * atomic. */
#define PIPE_BUF 4096

/* pipe_buffer flags (Linux's). */
#define PIPE_BUF_FLAG_PACKET 0x08    /* read as one packet (O_DIRECT) */
#define PIPE_BUF_FLAG_CAN_MERGE 0x10 /* a later write may append to it */

struct pipe_buffer {
	struct page *page;
	unsigned int offset, len;
	unsigned int flags;
};

struct pipe_inode_info {
	struct mutex mutex;
	wait_queue_head_t rd_wait, wr_wait;
	unsigned int head;
	unsigned int tail;
	unsigned int max_usage;   /* buffers the ring may hold */
	unsigned int ring_size;   /* slots in bufs (a power of two) */
	unsigned int readers;     /* files open for reading */
	unsigned int writers;     /* files open for writing */
	unsigned int files;       /* files of it open (and FIFO opens under way) */
	unsigned int r_counter;   /* opens for reading ever (fifo_open's wait) */
	unsigned int w_counter;   /* opens for writing ever */
	struct page *tmp_page;    /* a spare page the next write takes */
	struct pipe_buffer *bufs;
};

static inline bool pipe_empty(unsigned int head, unsigned int tail) { return head == tail; }
static inline unsigned int pipe_occupancy(unsigned int head, unsigned int tail) { return head - tail; }
static inline bool pipe_full(unsigned int head, unsigned int tail, unsigned int limit)
{
	return pipe_occupancy(head, tail) >= limit;
}

/* fs/pipe.c, for fs/pipe_open.c: a new pipe of PIPE_DEF_BUFFERS (no
 * file yet: files 0), and its end with its pages; put_pipe_info drops
 * one file of inode's pipe, the last frees it and clears i_pipe (under
 * pipe_inode_lock, Linux's inode->i_lock: one lock for every inode here);
 * pipe_lock/pipe_unlock take the pipe's mutex. */
struct pipe_inode_info *alloc_pipe_info(void);
void free_pipe_info(struct pipe_inode_info *pipe);
void put_pipe_info(struct inode *inode, struct pipe_inode_info *pipe);
void pipe_lock(struct pipe_inode_info *pipe);
void pipe_unlock(struct pipe_inode_info *pipe);
extern spinlock_t pipe_inode_lock;
/* For vmsplice (fs/splice.c), under the pipe's lock: Linux's
 * wait_for_space (0 once a buffer is free; -EPIPE with SIGPIPE with no
 * reader, -EAGAIN if nonblock, -ERESTARTSYS on a signal) and add_to_pipe
 * (buf, whose page reference it takes, at the head: its len, or -EPIPE
 * with SIGPIPE, -EAGAIN when full, the page then put). */
int pipe_wait_for_space(struct pipe_inode_info *pipe, bool nonblock);
long add_to_pipe(struct pipe_inode_info *pipe, const struct pipe_buffer *buf);
/* A read of the pipe's file filp into dst (user memory if user), which
 * waits for data unless nonblock (read(2) passes the file's O_NONBLOCK,
 * vmsplice its SPLICE_F_NONBLOCK). */
long pipe_read_to(struct file *filp, char *dst, size_t total_len, bool user, bool nonblock);

/* fs/pipe_open.c: the FIFO's open, pipefifo_fops's ->open. */
int fifo_open(struct inode *inode, struct file *filp);

/* fcntl's F_SETPIPE_SZ and F_GETPIPE_SZ (Linux's F_LINUX_SPECIFIC_BASE
 * 1024 + 7 and + 8). */
#define F_SETPIPE_SZ 1031
#define F_GETPIPE_SZ 1032

/* /proc/sys/fs/pipe-max-size: the most an unprivileged F_SETPIPE_SZ may
 * ask for (1 MiB, as Linux's default). */
extern unsigned int pipe_max_size;

/* Linux's round_pipe_size: size as a power-of-two number of pages (at
 * least one), 0 when above 2 GiB. */
unsigned int round_pipe_size(unsigned long size);
/* Linux's pipe_fcntl: F_SETPIPE_SZ (the new size in bytes, or -EINVAL,
 * -EPERM, -EBUSY, -ENOMEM) and F_GETPIPE_SZ; -EBADF for a file that is no
 * pipe or FIFO. */
long pipe_fcntl(struct file *file, unsigned int cmd, unsigned int arg);
/* The pipe of a pipe's or FIFO's open file (Linux's get_pipe_info), or
 * NULL. */
struct pipe_inode_info *get_pipe_info(struct file *file);

/* pipe2(2) on an explicit table (fs/pipe_open.c): fd[0] the read end, fd[1] the write
 * end, flags O_CLOEXEC, O_NONBLOCK, O_DIRECT (packet mode); 0 or -EINVAL,
 * -EMFILE, -ENOMEM. */
int files_pipe2(struct files_struct *files, int fd[2], int flags);

/* The open of a FIFO's inode (tmpfs's S_IFIFO nodes: mm/shmem.c). */
extern const struct file_operations pipefifo_fops;

#endif
