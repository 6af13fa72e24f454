/* poll 7, select 23, pselect6 270 and ppoll 271 (Linux 6.1's fs/select.c).
 *
 * A poller asks each file's ->poll method what is ready (vfs_poll,
 * fs/poll.h). On its first pass the method also queues one entry of the
 * poller's (struct poll_table_entry, in its struct poll_wqueues) on each
 * wait queue it names (__pollwait); when nothing is ready the poller
 * sleeps until one of those queues is woken with events it asked for
 * (pollwake sets pwq->triggered and wakes it), the deadline passes, or a
 * signal comes; then it asks every file again, without queueing more.
 * Once something is ready (or a zero timeout) nothing more is queued, and
 * at the end every entry is taken off its queue and its file reference
 * dropped (poll_freewait). No pass spins: between passes the poller
 * sleeps.
 *
 * Deadlines are monotonic nanoseconds (ktime_get_ns), Linux's timespec64
 * end_time: 0 means "do not wait", no deadline waits without a bound.
 * The sleep is schedule_hrtimeout's (Linux's schedule_hrtimeout_range
 * with select_estimate_accuracy's slack; mmlab's timers have none).
 *
 * Signals, as Linux: a poller woken by a signal returns -ERESTARTNOHAND
 * (a handler runs: -EINTR; none: the call starts again). poll keeps its
 * deadline in restart_block (do_restart_poll); ppoll, select and pselect6
 * write the time left back to the caller's timespec/timeval
 * (poll_select_finish) so that a restart waits only the rest; if that
 * write faults the call returns -EINTR instead of restarting. Linux's
 * STICKY_TIMEOUTS personality (no write-back) does not exist here.
 * ppoll's and pselect6's mask is in force while they sleep and is put
 * back on return, or, when a handler is to run, after it
 * (restore_saved_sigmask, kernel/signal_wait.c). */
#include "arch/x86_64/uaccess.h"
#include "fs/fdtable.h"
#include "fs/poll.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "kernel/time.h"
#include "lib/string.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/util.h"

#define BITS_PER_LONG 64

#define NSEC_PER_MSEC 1000000ll
#define NSEC_PER_USEC 1000ll
#define USEC_PER_SEC 1000000ll

/* ---- the poller's wait-queue entries ---- */

struct poll_table_page {
	struct poll_table_page *next;
	struct poll_table_entry *entry; /* the next free one */
	struct poll_table_entry entries[];
};

#define POLL_TABLE_FULL(table) ((unsigned long)((table)->entry + 1) > PAGE_SIZE + (unsigned long)(table))

static void __pollwait(struct file *filp, wait_queue_head_t *wait_address, poll_table *p);

void poll_initwait(struct poll_wqueues *pwq)
{
	init_poll_funcptr(&pwq->pt, __pollwait);
	pwq->polling_task = current;
	pwq->triggered = 0;
	pwq->error = 0;
	pwq->table = NULL;
	pwq->inline_index = 0;
}

static void free_poll_entry(struct poll_table_entry *entry)
{
	remove_wait_queue(entry->wait_address, &entry->wait);
	fput(entry->filp);
}

void poll_freewait(struct poll_wqueues *pwq)
{
	for (int i = 0; i < pwq->inline_index; i++)
		free_poll_entry(pwq->inline_entries + i);
	struct poll_table_page *p = pwq->table;
	while (p) {
		struct poll_table_entry *entry = p->entry;
		while (entry > p->entries)
			free_poll_entry(--entry);
		struct poll_table_page *old = p;
		p = p->next;
		free_page((unsigned long)old);
	}
	pwq->table = NULL;
	pwq->inline_index = 0;
}

static struct poll_table_entry *poll_get_entry(struct poll_wqueues *p)
{
	if (p->inline_index < N_INLINE_POLL_ENTRIES)
		return p->inline_entries + p->inline_index++;
	struct poll_table_page *table = p->table;
	if (!table || POLL_TABLE_FULL(table)) {
		struct poll_table_page *new_table = (struct poll_table_page *)__get_free_pages(GFP_KERNEL, 0);
		if (!new_table) {
			p->error = -ENOMEM;
			return NULL;
		}
		new_table->entry = new_table->entries;
		new_table->next = table;
		p->table = new_table;
		table = new_table;
	}
	return table->entry++;
}

/* A wakeup of a queue the poller is on: wakes it unless the waker said
 * which events happened and the poller asked for none of them. Called
 * under the queue's lock. */
static int pollwake(wait_queue_entry_t *wait, void *key)
{
	struct poll_table_entry *entry = container_of(wait, struct poll_table_entry, wait);
	if (key && !(key_to_poll(key) & entry->key))
		return 0;
	struct poll_wqueues *pwq = wait->private;
	/* Paired with the barrier in poll_schedule_timeout: what the waker
	 * wrote before the wakeup is seen once triggered is. */
	__atomic_store_n(&pwq->triggered, 1, __ATOMIC_RELEASE);
	return wake_up_process(pwq->polling_task);
}

static void __pollwait(struct file *filp, wait_queue_head_t *wait_address, poll_table *p)
{
	struct poll_wqueues *pwq = container_of(p, struct poll_wqueues, pt);
	struct poll_table_entry *entry = poll_get_entry(pwq);
	if (!entry)
		return;
	entry->filp = get_file(filp);
	entry->wait_address = wait_address;
	entry->key = p->_key;
	init_waitqueue_func_entry(&entry->wait, pollwake);
	entry->wait.private = pwq;
	add_wait_queue(wait_address, &entry->wait);
}

int poll_schedule_timeout(struct poll_wqueues *pwq, int state, u64 *expires)
{
	int rc = -EINTR;
	set_current_state(state);
	if (!__atomic_load_n(&pwq->triggered, __ATOMIC_ACQUIRE)) {
		if (expires)
			rc = schedule_hrtimeout(*expires);
		else
			schedule_timeout(MAX_SCHEDULE_TIMEOUT);
	}
	__set_current_state(TASK_RUNNING);
	/* Ready for the next pass: a wakeup from now on is seen by it
	 * (a full barrier, Linux's smp_store_mb). */
	__atomic_store_n(&pwq->triggered, 0, __ATOMIC_SEQ_CST);
	return rc;
}

/* ---- timeouts ---- */

/* Linux's poll_select_set_timeout: the deadline sec + nsec from now (0
 * for a zero timeout: do not wait), -EINVAL for a timespec that is none. */
static int poll_select_set_timeout(u64 *to, s64 sec, s64 nsec)
{
	if (sec < 0 || nsec < 0 || nsec >= NSEC_PER_SEC)
		return -EINVAL;
	if (!sec && !nsec) {
		*to = 0;
		return 0;
	}
	u64 ns = (u64)sec > (KTIME_MAX - (u64)nsec) / NSEC_PER_SEC ? KTIME_MAX : (u64)sec * NSEC_PER_SEC + (u64)nsec;
	*to = ktime_add_safe(ktime_get_ns(), ns);
	return 0;
}

enum poll_time_type { PT_TIMEVAL, PT_TIMESPEC };

struct __kernel_old_timeval {
	long tv_sec;
	long tv_usec;
};

/* Linux's set_user_sigmask: the caller's mask saved (put back by
 * poll_select_finish or after the handler), umask in force. */
static int set_user_sigmask(const sigset_t __user *umask, size_t sigsetsize)
{
	if (!umask)
		return 0;
	if (sigsetsize != sizeof(sigset_t))
		return -EINVAL;
	sigset_t kmask;
	if (copy_from_user(&kmask, umask, sizeof(kmask)))
		return -EFAULT;
	if (!current->sighand) /* a kernel thread (a test): it has no mask */
		return -EINVAL;
	current->restore_sigmask = true;
	current->saved_sigmask = current->blocked;
	set_current_blocked(&kmask);
	return 0;
}

/* Linux's poll_select_finish: the mask back unless a handler is to run
 * first, and the time left written to p (none for a zero timeout). */
static int poll_select_finish(u64 *end_time, void __user *p, enum poll_time_type pt_type, int ret)
{
	if (ret != -ERESTARTNOHAND)
		restore_saved_sigmask();
	if (!p || !*end_time)
		return ret;
	u64 now = ktime_get_ns();
	u64 left = *end_time > now ? *end_time - now : 0;
	if (pt_type == PT_TIMEVAL) {
		struct __kernel_old_timeval rtv = { (long)(left / NSEC_PER_SEC),
						    (long)(left % NSEC_PER_SEC / NSEC_PER_USEC) };
		if (!copy_to_user(p, &rtv, sizeof(rtv)))
			return ret;
	} else {
		struct __kernel_timespec rts = { (long long)(left / NSEC_PER_SEC), (long long)(left % NSEC_PER_SEC) };
		if (!copy_to_user(p, &rts, sizeof(rts)))
			return ret;
	}
	/* The time left could not be written: a restart would wait the
	 * whole timeout again, so the call is not restarted. */
	if (ret == -ERESTARTNOHAND)
		ret = -EINTR;
	return ret;
}

/* The user's timespec as a deadline in *to: -EFAULT, -EINVAL or 0. */
static int get_timespec_deadline(u64 *to, const struct __kernel_timespec __user *tsp)
{
	struct __kernel_timespec ts;
	if (copy_from_user(&ts, tsp, sizeof(ts)))
		return -EFAULT;
	return poll_select_set_timeout(to, ts.tv_sec, ts.tv_nsec);
}

/* ppoll's and pselect6's start: the deadline tsp gives (*to stays NULL
 * without one), then the mask in force while they wait. */
static int poll_select_begin(u64 *end_time, u64 **to, const struct __kernel_timespec __user *tsp,
			     const sigset_t __user *sigmask, size_t sigsetsize)
{
	if (tsp) {
		*to = end_time;
		int ret = get_timespec_deadline(end_time, tsp);
		if (ret)
			return ret;
	}
	return set_user_sigmask(sigmask, sigsetsize);
}

/* RLIMIT_NOFILE's soft limit (Linux's rlimit()). */
static unsigned long nofile_rlimit(void)
{
	struct signal_struct *sig = current->signal;
	return sig ? READ_ONCE(sig->rlim[RLIMIT_NOFILE].rlim_cur) : NR_OPEN_DEFAULT;
}

/* ---- poll and ppoll ---- */

/* One pollfd: its revents (Linux's do_pollfd). A negative fd is skipped
 * (revents 0), one not open is POLLNVAL. */
static __poll_t do_pollfd(struct files_struct *files, struct pollfd *pollfd, poll_table *pwait)
{
	__poll_t mask = 0;
	int fd = pollfd->fd;
	if (fd >= 0) {
		struct file *f = fget(files, (unsigned int)fd);
		mask = EPOLLNVAL;
		if (f) {
			__poll_t filter = (unsigned short)pollfd->events | EPOLLERR | EPOLLHUP;
			pwait->_key = filter;
			mask = vfs_poll(f, pwait) & filter;
			fput(f);
		}
	}
	pollfd->revents = (short)mask;
	return mask;
}

static int do_poll(struct files_struct *files, struct pollfd *fds, unsigned int nfds, struct poll_wqueues *wait,
		   u64 *end_time)
{
	poll_table *pt = &wait->pt;
	bool timed_out = false;
	int count = 0;
	if (end_time && !*end_time) { /* the no-wait case */
		pt->_qproc = NULL;
		timed_out = true;
	}
	for (;;) {
		for (unsigned int i = 0; i < nfds; i++) {
			/* Something found: no more entries are queued (they
			 * would be taken off again at once). */
			if (do_pollfd(files, &fds[i], pt)) {
				count++;
				pt->_qproc = NULL;
			}
		}
		/* Every queue is known now: later passes only ask. */
		pt->_qproc = NULL;
		if (!count) {
			count = wait->error;
			if (signal_pending(current))
				count = -ERESTARTNOHAND;
		}
		if (count || timed_out)
			break;
		if (!poll_schedule_timeout(wait, TASK_INTERRUPTIBLE, end_time))
			timed_out = true;
	}
	return count;
}

int files_poll(struct files_struct *files, struct pollfd *fds, unsigned int nfds, u64 *end_time)
{
	struct poll_wqueues table;
	poll_initwait(&table);
	int fdcount = do_poll(files, fds, nfds, &table, end_time);
	poll_freewait(&table);
	return fdcount;
}

/* Linux's do_sys_poll: the user's array copied in, polled, and every
 * revents written back (also when interrupted: all 0 then). */
static int do_sys_poll(struct pollfd __user *ufds, unsigned int nfds, u64 *end_time)
{
	if (nfds > nofile_rlimit())
		return -EINVAL;
	struct pollfd *fds = NULL;
	if (nfds) {
		fds = kvmalloc(sizeof(*fds) * nfds, GFP_KERNEL);
		if (!fds)
			return -ENOMEM;
		if (copy_from_user(fds, ufds, sizeof(*fds) * nfds)) {
			kvfree(fds);
			return -EFAULT;
		}
	}
	int err = files_poll(current->files, fds, nfds, end_time);
	for (unsigned int i = 0; i < nfds; i++) {
		if (copy_to_user(&ufds[i].revents, &fds[i].revents, sizeof(fds[i].revents))) {
			err = -EFAULT;
			break;
		}
	}
	kvfree(fds);
	return err;
}

static long do_restart_poll(struct restart_block *restart_block)
{
	struct pollfd __user *ufds = restart_block->poll.ufds;
	unsigned int nfds = restart_block->poll.nfds;
	u64 end_time = restart_block->poll.end_time;
	int ret = do_sys_poll(ufds, nfds, restart_block->poll.has_timeout ? &end_time : NULL);
	if (ret == -ERESTARTNOHAND) {
		restart_block->fn = do_restart_poll;
		ret = -ERESTART_RESTARTBLOCK;
	}
	return ret;
}

SYSCALL_DEFINE3(poll, struct pollfd __user *, ufds, unsigned int, nfds, int, timeout_msecs)
{
	u64 end_time, *to = NULL;
	if (timeout_msecs >= 0) {
		to = &end_time;
		poll_select_set_timeout(to, timeout_msecs / 1000, NSEC_PER_MSEC * (timeout_msecs % 1000));
	}
	int ret = do_sys_poll(ufds, nfds, to);
	if (ret == -ERESTARTNOHAND) {
		/* Restarted after a signal with no handler: on to the same
		 * deadline (a handler makes it -EINTR). */
		struct restart_block *restart_block = &current->restart_block;
		restart_block->poll.ufds = ufds;
		restart_block->poll.nfds = nfds;
		restart_block->poll.has_timeout = to != NULL;
		restart_block->poll.end_time = to ? end_time : 0;
		restart_block->fn = do_restart_poll;
		ret = -ERESTART_RESTARTBLOCK;
	}
	return ret;
}

SYSCALL_DEFINE5(ppoll, struct pollfd __user *, ufds, unsigned int, nfds, struct __kernel_timespec __user *, tsp,
		const sigset_t __user *, sigmask, size_t, sigsetsize)
{
	u64 end_time = 0, *to = NULL;
	int ret = poll_select_begin(&end_time, &to, tsp, sigmask, sigsetsize);
	if (ret)
		return ret;
	ret = do_sys_poll(ufds, nfds, to);
	return poll_select_finish(&end_time, tsp, PT_TIMESPEC, ret);
}

/* ---- select and pselect6 ---- */

/* The descriptor sets: mmlab's table has NR_OPEN_DEFAULT (64) fds, so each
 * set is one word (Linux's fd_set_bits, for a table of 64). */
typedef struct {
	unsigned long in, out, ex;
	unsigned long res_in, res_out, res_ex;
} fd_set_bits;

#define POLLIN_SET (EPOLLRDNORM | EPOLLRDBAND | EPOLLIN | EPOLLHUP | EPOLLERR)
#define POLLOUT_SET (EPOLLWRBAND | EPOLLWRNORM | EPOLLOUT | EPOLLERR)
#define POLLEX_SET (EPOLLPRI)

/* Linux's max_select_fd: one past the highest fd in a set, or -EBADF if
 * a set names one that is not open. */
static int max_select_fd(struct files_struct *files, unsigned int n, const fd_set_bits *fds)
{
	unsigned long set = fds->in | fds->out | fds->ex;
	if (n < BITS_PER_LONG)
		set &= (1ul << n) - 1;
	if (!set)
		return 0;
	spin_lock(&files->file_lock);
	unsigned long open_fds = files->open_fds;
	spin_unlock(&files->file_lock);
	if (set & ~open_fds)
		return -EBADF;
	return BITS_PER_LONG - __builtin_clzl(set);
}

static void wait_key_set(poll_table *wait, unsigned long in, unsigned long out, unsigned long bit)
{
	wait->_key = POLLEX_SET;
	if (in & bit)
		wait->_key |= POLLIN_SET;
	if (out & bit)
		wait->_key |= POLLOUT_SET;
}

static int do_select(struct files_struct *files, unsigned int n, fd_set_bits *fds, u64 *end_time)
{
	int retval = max_select_fd(files, n, fds);
	if (retval < 0)
		return retval;
	n = (unsigned int)retval;
	struct poll_wqueues table;
	poll_initwait(&table);
	poll_table *wait = &table.pt;
	bool timed_out = false;
	if (end_time && !*end_time) {
		wait->_qproc = NULL;
		timed_out = true;
	}
	retval = 0;
	for (;;) {
		unsigned long in = fds->in, out = fds->out, ex = fds->ex;
		unsigned long res_in = 0, res_out = 0, res_ex = 0;
		for (unsigned int i = 0; i < n; i++) {
			unsigned long bit = 1ul << i;
			if (!((in | out | ex) & bit))
				continue;
			struct file *f = fget(files, i);
			if (!f)
				continue; /* closed since max_select_fd: Linux skips it too */
			wait_key_set(wait, in, out, bit);
			__poll_t mask = vfs_poll(f, wait);
			fput(f);
			if ((mask & POLLIN_SET) && (in & bit)) {
				res_in |= bit;
				retval++;
				wait->_qproc = NULL;
			}
			if ((mask & POLLOUT_SET) && (out & bit)) {
				res_out |= bit;
				retval++;
				wait->_qproc = NULL;
			}
			if ((mask & POLLEX_SET) && (ex & bit)) {
				res_ex |= bit;
				retval++;
				wait->_qproc = NULL;
			}
		}
		fds->res_in = res_in;
		fds->res_out = res_out;
		fds->res_ex = res_ex;
		wait->_qproc = NULL;
		if (retval || timed_out || signal_pending(current))
			break;
		if (table.error) {
			retval = table.error;
			break;
		}
		if (!poll_schedule_timeout(&table, TASK_INTERRUPTIBLE, end_time))
			timed_out = true;
	}
	poll_freewait(&table);
	return retval;
}

/* The bytes of a set of n bits the user's fd_set holds (Linux's
 * FDS_BYTES: whole longs). */
static size_t fds_bytes(unsigned int n) { return (n + BITS_PER_LONG - 1) / BITS_PER_LONG * sizeof(long); }

static int get_fd_set(unsigned int n, const void __user *ufdset, unsigned long *fdset)
{
	*fdset = 0;
	if (ufdset && n)
		return copy_from_user(fdset, ufdset, fds_bytes(n)) ? -EFAULT : 0;
	return 0;
}

static bool set_fd_set(unsigned int n, void __user *ufdset, const unsigned long *fdset)
{
	return ufdset && n && copy_to_user(ufdset, fdset, fds_bytes(n));
}

/* Linux's core_sys_select: n is cut to the table's size; the sets are
 * written back only when the call does not fail. */
static int core_sys_select(int n, void __user *inp, void __user *outp, void __user *exp, u64 *end_time)
{
	if (n < 0)
		return -EINVAL;
	unsigned int nr = (unsigned int)n > NR_OPEN_DEFAULT ? NR_OPEN_DEFAULT : (unsigned int)n;
	fd_set_bits fds;
	int ret;
	if ((ret = get_fd_set(nr, inp, &fds.in)) || (ret = get_fd_set(nr, outp, &fds.out)) ||
	    (ret = get_fd_set(nr, exp, &fds.ex)))
		return ret;
	ret = do_select(current->files, nr, &fds, end_time);
	if (ret < 0)
		return ret;
	if (!ret && signal_pending(current))
		return -ERESTARTNOHAND;
	if (set_fd_set(nr, inp, &fds.res_in) || set_fd_set(nr, outp, &fds.res_out) ||
	    set_fd_set(nr, exp, &fds.res_ex))
		ret = -EFAULT;
	return ret;
}

SYSCALL_DEFINE5(select, int, n, void __user *, inp, void __user *, outp, void __user *, exp,
		struct __kernel_old_timeval __user *, tvp)
{
	u64 end_time = 0, *to = NULL;
	if (tvp) {
		struct __kernel_old_timeval tv;
		if (copy_from_user(&tv, tvp, sizeof(tv)))
			return -EFAULT;
		to = &end_time;
		if (poll_select_set_timeout(to, tv.tv_sec + tv.tv_usec / USEC_PER_SEC,
					    (tv.tv_usec % USEC_PER_SEC) * NSEC_PER_USEC))
			return -EINVAL;
	}
	int ret = core_sys_select(n, inp, outp, exp, to);
	return poll_select_finish(&end_time, tvp, PT_TIMEVAL, ret);
}

/* pselect6's sixth argument: the mask's address and size (Linux's
 * struct sigset_argpack). */
struct sigset_argpack {
	const sigset_t __user *p;
	size_t size;
};

SYSCALL_DEFINE6(pselect6, int, n, void __user *, inp, void __user *, outp, void __user *, exp,
		struct __kernel_timespec __user *, tsp, void __user *, sig)
{
	struct sigset_argpack x = { NULL, 0 };
	if (sig && copy_from_user(&x, sig, sizeof(x)))
		return -EFAULT;
	u64 end_time = 0, *to = NULL;
	int ret = poll_select_begin(&end_time, &to, tsp, x.p, x.size);
	if (ret)
		return ret;
	ret = core_sys_select(n, inp, outp, exp, to);
	return poll_select_finish(&end_time, tsp, PT_TIMESPEC, ret);
}
