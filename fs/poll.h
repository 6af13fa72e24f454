/* Polling a file for readiness, as Linux's include/linux/poll.h and
 * include/uapi/linux/eventpoll.h / asm-generic/poll.h.
 *
 * A file that can block says what it is ready for through its ->poll
 * method (struct file_operations, fs/fs.h): it calls poll_wait() on each
 * wait queue whose wakeup could change the answer, then returns the
 * EPOLL* bits true now. poll_wait calls the table's _qproc, which (for
 * poll, ppoll, select and pselect6: fs/select.c's __pollwait) hangs an
 * entry of the poller's on that queue; a waker that calls
 * wake_up_poll(queue, events) (or plain wake_up) runs the entry's
 * pollwake, which wakes the poller if the events touch what it asked for
 * (_key). A table whose _qproc is NULL (a second pass, or a zero
 * timeout) only asks: nothing is queued.
 *
 * A file without ->poll is always ready for reading and writing
 * (DEFAULT_POLLMASK), as in Linux: regular tmpfs files, /dev/zero,
 * procfs files. */
#ifndef FS_POLL_H
#define FS_POLL_H

#include "fs/fs.h"
#include "kernel/types.h"
#include "kernel/wait.h"

/* The EPOLL* bits of a __poll_t (fs/fs.h) have the values of the user's
 * POLL* on x86_64, so Linux's mangle_poll/demangle_poll are the identity
 * here. */
#define EPOLLIN 0x00000001u
#define EPOLLPRI 0x00000002u
#define EPOLLOUT 0x00000004u
#define EPOLLERR 0x00000008u
#define EPOLLHUP 0x00000010u
#define EPOLLNVAL 0x00000020u
#define EPOLLRDNORM 0x00000040u
#define EPOLLRDBAND 0x00000080u
#define EPOLLWRNORM 0x00000100u
#define EPOLLWRBAND 0x00000200u
#define EPOLLMSG 0x00000400u
#define EPOLLRDHUP 0x00002000u

/* The user's struct pollfd's bits (asm-generic/poll.h). */
#define POLLIN 0x0001
#define POLLPRI 0x0002
#define POLLOUT 0x0004
#define POLLERR 0x0008
#define POLLHUP 0x0010
#define POLLNVAL 0x0020
#define POLLRDNORM 0x0040
#define POLLRDBAND 0x0080
#define POLLWRNORM 0x0100
#define POLLWRBAND 0x0200
#define POLLMSG 0x0400
#define POLLREMOVE 0x1000
#define POLLRDHUP 0x2000

#define DEFAULT_POLLMASK (EPOLLIN | EPOLLOUT | EPOLLRDNORM | EPOLLWRNORM)

struct pollfd {
	int fd;
	short events;
	short revents;
};

/* A wakeup's events travel as its key (Linux's poll_to_key/key_to_poll). */
static inline void *poll_to_key(__poll_t m) { return (void *)(unsigned long)m; }
static inline __poll_t key_to_poll(void *m) { return (__poll_t)(unsigned long)m; }

struct poll_table_struct;
typedef void (*poll_queue_proc)(struct file *, wait_queue_head_t *, struct poll_table_struct *);

/* Linux's poll_table: _qproc queues the poller on a wait queue (NULL:
 * nothing to queue), _key the events it waits for. */
typedef struct poll_table_struct {
	poll_queue_proc _qproc;
	__poll_t _key;
} poll_table;

/* A ->poll method's call for each queue that may wake the poller. */
static inline void poll_wait(struct file *filp, wait_queue_head_t *wait_address, poll_table *p)
{
	if (p && p->_qproc && wait_address)
		p->_qproc(filp, wait_address, p);
}

/* Whether a poller may queue itself (Linux's poll_does_not_wait). */
static inline bool poll_does_not_wait(const poll_table *p) { return p == NULL || p->_qproc == NULL; }

/* The events a poller waits for (~0: all, for a NULL table). */
static inline __poll_t poll_requested_events(const poll_table *p) { return p ? p->_key : ~(__poll_t)0; }

static inline void init_poll_funcptr(poll_table *pt, poll_queue_proc qproc)
{
	pt->_qproc = qproc;
	pt->_key = ~(__poll_t)0; /* all events enabled */
}

/* Linux's vfs_poll: the file's events now (DEFAULT_POLLMASK without a
 * ->poll method), queueing the poller on pt if pt's _qproc is set. */
static inline __poll_t vfs_poll(struct file *file, struct poll_table_struct *pt)
{
	if (!file->f_op->poll)
		return DEFAULT_POLLMASK;
	return file->f_op->poll(file, pt);
}

/* One queue a poller is on (Linux's poll_table_entry): the file (a
 * reference, so the queue outlives the poll even if the fd is closed),
 * the queue and the poller's entry on it, and the events that wake it. */
struct poll_table_entry {
	struct file *filp;
	__poll_t key;
	wait_queue_entry_t wait;
	wait_queue_head_t *wait_address;
};

struct poll_table_page;

/* Linux's N_INLINE_POLL_ENTRIES: entries in the poller's own frame
 * before whole pages are taken for more. */
#define N_INLINE_POLL_ENTRIES 8

/* A poller's state (Linux's struct poll_wqueues): its table, the task,
 * whether a wakeup came since it last looked (triggered), the first
 * error (-ENOMEM when an entry could not be had), and its entries. */
struct poll_wqueues {
	poll_table pt;
	struct poll_table_page *table;
	struct task_struct *polling_task;
	int triggered;
	int error;
	int inline_index;
	struct poll_table_entry inline_entries[N_INLINE_POLL_ENTRIES];
};

/* fs/select.c. poll_initwait readies pwq for the current task;
 * poll_freewait takes every entry off its queue and drops its file. */
void poll_initwait(struct poll_wqueues *pwq);
void poll_freewait(struct poll_wqueues *pwq);
/* Sleeps (state TASK_INTERRUPTIBLE) unless a wakeup came since the last
 * call, until *expires (monotonic ns; NULL: no bound): 0 when the time
 * ran out, -EINTR otherwise (Linux's poll_schedule_timeout). */
int poll_schedule_timeout(struct poll_wqueues *pwq, int state, u64 *expires);

/* poll(2) on files's descriptors with kernel pollfds (revents filled):
 * the number of fds with events, 0 when *end_time (monotonic ns; 0: do
 * not wait; NULL: no bound) passed, -ERESTARTNOHAND when a signal came
 * first, -ENOMEM. fds at or above nfds > RLIMIT_NOFILE is the caller's
 * check (-EINVAL). Linux's do_poll over do_sys_poll's copied list. */
int files_poll(struct files_struct *files, struct pollfd *fds, unsigned int nfds, u64 *end_time);

#endif
