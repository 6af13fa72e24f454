/* A terminal (Linux's include/linux/tty.h, tty_driver.h, tty_flip.h and
 * the n_tty half of tty_ldisc.h, as much as one serial line needs): the
 * tty_struct, its driver's methods, the flip buffer between the driver's
 * interrupt and the line discipline, and the n_tty line discipline's
 * state. The pieces: drivers/tty/tty_buffer.c (flip buffer and its
 * worker), n_tty.c and n_tty_read.c (the line discipline), tty_ioctl.c
 * (termios), tty_jobctrl.c (sessions, process groups, the controlling terminal),
 * tty_io.c (files, device nodes, hangup), serial/8250.c (the UARTs).
 *
 * Locking, outermost first:
 *   atomic_read_lock  (mutex) one reader in n_tty_read at a time
 *   atomic_write_lock (mutex) one write() whole (Linux's)
 *   termios_rwsem     (mutex; Linux's rw_semaphore) termios, winsize
 *   ldisc_lock        (spinlock) struct n_tty_data and the echo output;
 *                     the receive path (the flip worker) and readers
 *   ctrl_lock         (spinlock) pgrp, session, session_root, stopped
 *   tasklist_lock     (kernel/signal.h), taken by the signal senders
 *   port.lock         (spinlock, interrupts off) the flip buffer
 * Signals a received character raises are sent after ldisc_lock is
 * dropped. */
#ifndef DRIVERS_TTY_TTY_STRUCT_H
#define DRIVERS_TTY_TTY_STRUCT_H

#include "drivers/tty/termios.h"
#include "fs/fs.h"
#include "kernel/mutex.h"
#include "kernel/spinlock.h"
#include "kernel/wait.h"
#include "lib/list.h"

struct tty_struct;
struct task_struct;
struct file;

/* Linux's N_TTY_BUF_SIZE: the line discipline's read buffer. */
#define N_TTY_BUF_SIZE 4096
/* The flip buffer's room (Linux's is a chain of buffers up to 64 KiB,
 * TTYB_DEFAULT_MEM_LIMIT): what the interrupt can hold for the worker. */
#define TTY_FLIPBUF_SIZE 4096

/* Linux's tty_operations, the two methods a serial line needs: write
 * sends bytes now (the 8250 polls its transmitter; nothing is queued, so
 * TIOCOUTQ is always 0), write_room is what it takes at once. */
struct tty_operations {
	void (*write)(struct tty_struct *tty, const unsigned char *buf, size_t n);
};

/* Linux's tty_bufhead: a ring the interrupt fills (tty_insert_flip_char)
 * and the worker empties into the line discipline (flush_to_ldisc).
 * Bytes that find it full are dropped and counted (buf_overrun, Linux's
 * icount.buf_overrun). */
struct tty_bufhead {
	spinlock_t lock;
	unsigned char data[TTY_FLIPBUF_SIZE];
	size_t head, tail;           /* free-running; head - tail bytes held */
	unsigned long buf_overrun;   /* bytes dropped: the buffer was full */
	unsigned long received;      /* bytes taken in */
	bool queued;                 /* on the worker's list */
	struct list_head work;       /* the worker's list (tty_buffer.c) */
	struct mutex flush_lock;     /* one flush_to_ldisc at a time */
};

/* Linux's struct n_tty_data, under ldisc_lock. The read buffer is a ring
 * indexed by free-running counters: [read_tail, canon_head) holds
 * complete lines (canonical mode), [canon_head, read_head) the line being
 * edited; read_flags marks each line's end. */
struct n_tty_data {
	size_t read_head, canon_head, read_tail;
	unsigned long read_flags[N_TTY_BUF_SIZE / 64];
	unsigned char read_buf[N_TTY_BUF_SIZE];
	bool lnext, icanon, erasing, push;
	unsigned int column, canon_column;  /* output columns (echo, OPOST) */
	unsigned long overflow_chars;       /* bytes a full canonical line overwrote */
	/* Signals raised while receiving, sent once ldisc_lock is dropped:
	 * a bit per signal number. */
	unsigned long pending_sigs;
};

struct tty_struct {
	const char *name;               /* "ttyS0" */
	unsigned int major, minor;      /* its device number (0:0: none) */
	const struct tty_operations *ops;
	void *driver_data;
	struct mutex atomic_read_lock, atomic_write_lock, termios_rwsem;
	struct termios termios;          /* termios_rwsem */
	struct winsize winsize;          /* termios_rwsem */
	spinlock_t ldisc_lock;
	struct n_tty_data ldata;
	/* Linux's tty->ctrl (under ctrl_lock): the foreground process group
	 * and the session whose controlling terminal this is (0: none), as
	 * ids of the process tree of session_root (a task reference: every
	 * mmlab process tree numbers its own processes, as a pid namespace);
	 * stopped: output held by ^S or TCOOFF. */
	spinlock_t ctrl_lock;
	int pgrp, session;
	struct task_struct *session_root;
	bool stopped;
	/* The open files (struct tty_file_private, under files_lock): a
	 * hangup turns each into a hung-up file. */
	spinlock_t files_lock;
	struct list_head tty_files;
	int hangups;                     /* hangups so far (tests) */
	struct wait_queue_head read_wait, write_wait;
	struct tty_bufhead buf;
};

/* tty_io.c: a terminal with tty_std_termios and the given driver; a
 * terminal lives as long as the kernel (Linux frees one with its last
 * close; the serial lines here never go), or until tty_free (tests). */
void tty_init_struct(struct tty_struct *tty, const char *name, const struct tty_operations *ops,
		     void *driver_data);
void tty_free_struct(struct tty_struct *tty);
/* A file open on tty (as an open of its device node does, without the
 * controlling-terminal step), or NULL when memory is short. */
struct file *tty_open_file(struct tty_struct *tty, unsigned int flags);
/* The tty behind a terminal file, or NULL for any other file. */
struct tty_struct *file_tty(struct file *f);
/* Whether f is a terminal file a hangup has cut off (Linux's
 * tty_hung_up_p); false for NULL and other files. */
bool tty_hung_up_p(struct file *f);
/* Device number major:minor opens tty (console: /dev/console too). */
int tty_register_device(struct tty_struct *tty, unsigned int major, unsigned int minor, bool console);
/* /dev/tty, /dev/console and the flip worker (the 8250 driver's
 * initcall calls it first). */
int tty_init(void);
/* Linux's tty_vhangup: every open file of tty reads end of file and
 * fails writes and ioctls with -EIO from now on; the session loses its
 * controlling terminal, its leader gets SIGHUP and SIGCONT, and the
 * foreground group SIGHUP when exit_session (the leader's exit). */
void tty_vhangup(struct tty_struct *tty, bool exit_session);

/* tty_buffer.c: the flip buffer. tty_insert_flip_string takes what fits
 * (any context, interrupts included) and counts the rest in
 * buf_overrun; tty_flip_buffer_push hands it to the worker; flush_to_ldisc
 * is the worker's step, callable directly (tests). */
size_t tty_insert_flip_string(struct tty_struct *tty, const unsigned char *chars, size_t n);
void tty_flip_buffer_push(struct tty_struct *tty);
void flush_to_ldisc(struct tty_struct *tty);
/* Kicks the worker for tty when a reader made room (Linux's
 * tty_buffer_restart_work). */
void tty_buffer_restart_work(struct tty_struct *tty);
/* Drops what the flip buffer holds (TCIFLUSH: Linux's tty_buffer_flush). */
void tty_buffer_flush(struct tty_struct *tty);
/* tty leaves the worker: not queued, not being flushed, on return. */
void tty_buffer_cancel_work(struct tty_struct *tty);
/* Starts the worker thread (once). */
int tty_buffer_init_worker(void);

/* n_tty.c: the line discipline. */
void n_tty_open(struct tty_struct *tty);
/* Takes up to n received bytes; returns how many it took (fewer when the
 * read buffer is full and no line ends in it: the rest waits in the
 * flip buffer). Sends the signals ISIG characters raise. */
size_t n_tty_receive_buf(struct tty_struct *tty, const unsigned char *cp, size_t n);
long n_tty_read(struct tty_struct *tty, struct file *f, char *dst, size_t count, bool user);
long n_tty_write(struct tty_struct *tty, struct file *f, const char *src, size_t count, bool user);
/* After termios changed (Linux's n_tty_set_termios): canonical mode
 * switched on or off, a flush (TCSETSF) done by the caller. */
void n_tty_set_termios(struct tty_struct *tty, const struct termios *old);
/* TCIFLUSH's half in the line discipline (Linux's n_tty_flush_buffer). */
void n_tty_flush_buffer(struct tty_struct *tty);
/* Bytes a read would get now (FIONREAD: Linux's inq_canon in canonical
 * mode: complete lines only). */
size_t n_tty_inq(struct tty_struct *tty);
/* Linux's n_tty_poll's readiness: input a read would take without
 * sleeping, per the mode. */
bool n_tty_input_available(struct tty_struct *tty);
/* Linux's n_tty_poll: the EPOLL* events of f (fs/poll.h). */
struct poll_table_struct;
__poll_t n_tty_poll(struct tty_struct *tty, struct file *f, struct poll_table_struct *wait);
/* start_tty / stop_tty (^Q/^S, TCOON/TCOOFF). */
void start_tty(struct tty_struct *tty);
void stop_tty(struct tty_struct *tty);
/* Output of bytes through the driver, OPOST applied when opost. */
void n_tty_output(struct tty_struct *tty, const unsigned char *s, size_t n, bool opost);

/* tty_jobctrl.c */
/* Linux's __tty_check_change: 0 when current may act on tty (it is not
 * current's controlling terminal, or current is in its foreground
 * group); -EIO when current's group is orphaned or sig is ignored or
 * blocked (SIGTTIN only: an ignored SIGTTOU lets the caller go on);
 * otherwise sig goes to current's group and -ERESTARTSYS. */
int __tty_check_change(struct tty_struct *tty, int sig);
int tty_check_change(struct tty_struct *tty);
/* Sends sig to the foreground process group (ISIG, SIGWINCH); false when
 * there is none. */
bool tty_signal_pgrp(struct tty_struct *tty, int sig);
/* The job-control ioctls (TIOCSCTTY, TIOCNOTTY, TIOCGPGRP, TIOCSPGRP,
 * TIOCGSID); -ENOIOCTLCMD for any other. */
#define ENOIOCTLCMD 515
long tty_jobctrl_ioctl(struct tty_struct *tty, struct file *f, unsigned int cmd, unsigned long arg);
/* The first open by a session leader without one makes tty its
 * controlling terminal (Linux's tty_open_proc_set_tty). */
void tty_open_proc_set_tty(struct file *f, struct tty_struct *tty);
/* current's controlling terminal, or NULL (/dev/tty). */
struct tty_struct *get_current_tty(void);
/* Linux's disassociate_ctty: setsid (on_exit false: the leader... only
 * drops it) and a session leader's exit (on_exit: the terminal is hung
 * up). Called by kernel/sys.c and kernel/exit.c. */
void disassociate_ctty(bool on_exit);
/* The session half of a hangup (Linux's tty_signal_session_leader):
 * tty_io.c's tty_vhangup calls it. */
void tty_hangup_session(struct tty_struct *tty, bool exit_session);
/* /proc/<pid>/stat's tty_nr (new_encode_dev of the controlling
 * terminal's number, 0 without one) and tpgid (its foreground group, 0
 * if none, -1 without a terminal), as Linux's do_task_stat. */
void proc_tty_ids(struct signal_struct *sig, unsigned int *tty_nr, int *tpgid);
/* Linux's proc_clear_tty for a new process tree root and at setsid:
 * current has no controlling terminal. */
void proc_clear_tty(struct task_struct *p);

/* tty_ioctl.c: the termios and size ioctls, -ENOIOCTLCMD for others. */
long tty_mode_ioctl(struct tty_struct *tty, struct file *f, unsigned int cmd, unsigned long arg);

#endif
