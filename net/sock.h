/* Sockets (Linux's include/linux/net.h, include/net/sock.h and
 * include/net/af_unix.h, reduced to what mmlab has: AF_UNIX sockets that
 * are made connected in pairs by socketpair(2), or made alone by
 * socket(2) and never connected, since mmlab has no unix socket names).
 *
 * net/socket.c is the system-call side (socket, socketpair, send*, recv*,
 * shutdown, getsockopt, and read/write/close through the file), Linux's
 * net/socket.c; net/unix/af_unix.c the protocol, Linux's af_unix.c.
 *
 * A message (struct sk_buff) holds its bytes and a reference to the
 * socket that sent it, whose sk_wmem_alloc it is counted in until the
 * reader frees it: a sender sleeps while its sk_wmem_alloc is at its
 * sk_sndbuf (Linux's sock_alloc_send_pskb), and each freed message wakes
 * it (sock_wfree). Locking: sk_receive_queue, sk_shutdown, sk_err and
 * peer are under the receiving socket's lock (a spinlock: nothing sleeps
 * under it); iolock (a mutex) serialises readers, the only ones that take
 * messages off the queue, so a reader copies the queue's first message to
 * user memory (which may fault) without the spinlock. */
#ifndef NET_SOCK_H
#define NET_SOCK_H

#include "kernel/mutex.h"
#include "kernel/spinlock.h"
#include "kernel/types.h"
#include "kernel/wait.h"
#include "lib/list.h"

/* Linux's values (include/linux/socket.h, include/linux/net.h). */
#define AF_UNIX 1
#define AF_MAX 46 /* Linux 6.1's: the families beyond are -EAFNOSUPPORT at once */
#define SOCK_STREAM 1
#define SOCK_DGRAM 2
#define SOCK_RAW 3
#define SOCK_SEQPACKET 5
#define SOCK_MAX 11
#define SOCK_TYPE_MASK 0xf
#define SOCK_CLOEXEC 02000000 /* O_CLOEXEC */
#define SOCK_NONBLOCK 04000   /* O_NONBLOCK */

#define MSG_OOB 0x1
#define MSG_PEEK 0x2
#define MSG_TRUNC 0x20
#define MSG_DONTWAIT 0x40
#define MSG_EOR 0x80
#define MSG_WAITALL 0x100
#define MSG_NOSIGNAL 0x4000
#define MSG_CMSG_CLOEXEC 0x40000000

#define SHUT_RD 0
#define SHUT_WR 1
#define SHUT_RDWR 2
#define RCV_SHUTDOWN 1
#define SEND_SHUTDOWN 2
#define SHUTDOWN_MASK 3

#define SOL_SOCKET 1
#define SO_TYPE 3
#define SO_ERROR 4
#define SO_SNDBUF 7
#define SO_RCVBUF 8
#define SO_PROTOCOL 38
#define SO_DOMAIN 39

/* net.core.wmem_default and rmem_default (Linux's SK_WMEM_MAX on a 64-bit
 * kernel): a new socket's SO_SNDBUF and SO_RCVBUF. */
#define SK_WMEM_DEFAULT 212992
#define SK_RMEM_DEFAULT 212992

struct sock;

struct sk_buff {
	struct list_head list; /* on the receiver's sk_receive_queue */
	struct sock *sk;       /* the sender, holding a reference, charged truesize */
	size_t len;            /* bytes of data */
	size_t consumed;       /* a stream's bytes already read */
	size_t truesize;       /* what sk's sk_wmem_alloc counts for it */
	char data[];
};

struct sock {
	int refcount;      /* the file's, the peer's link, each message's (atomic) */
	int type;          /* SOCK_STREAM, SOCK_DGRAM or SOCK_SEQPACKET */
	bool connected;    /* made by socketpair (Linux's TCP_ESTABLISHED state) */
	spinlock_t lock;   /* the fields below up to iolock */
	struct sock *peer; /* NULL once it closed (or never, for socket(2)'s) */
	struct list_head sk_receive_queue;
	unsigned int sk_shutdown; /* RCV_SHUTDOWN, SEND_SHUTDOWN */
	int sk_err;               /* a pending error for SO_ERROR (positive) */
	bool dead;                /* its file is closed (Linux's SOCK_DEAD) */
	struct mutex iolock;      /* readers */
	long sk_wmem_alloc;       /* truesize of its messages not yet read (atomic) */
	int sk_sndbuf, sk_rcvbuf;
	wait_queue_head_t wait;   /* readers (data, EOF) and writers (room) */
	unsigned long ino;        /* its inode's number: "socket:[ino]" */
};

/* The kernel side of a message (Linux's struct msghdr with its iov_iter):
 * the caller's buffers, walked by memcpy_from_msg/memcpy_to_msg. */
struct kvec_iter {
	void *base;
	size_t len;
};
struct msghdr {
	struct kvec_iter *iov;
	unsigned long nr_segs;
	unsigned long seg;   /* the segment the next copy starts in */
	size_t seg_off;      /* and where in it */
	bool user;           /* the buffers are user memory */
	unsigned int msg_flags; /* recvmsg's result flags (MSG_TRUNC) */
};

/* net/unix/af_unix.c */
struct sock *unix_create(int type);
int unix_socketpair(struct sock *a, struct sock *b);
void unix_release(struct sock *sk);
long unix_sendmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, bool nonblock);
long unix_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, bool nonblock);
int unix_shutdown(struct sock *sk, int how);
/* The socket file's ->poll (Linux's unix_poll for SOCK_STREAM,
 * unix_dgram_poll for SOCK_DGRAM and SOCK_SEQPACKET). */
struct file;
struct poll_table_struct;
unsigned int unix_poll(struct file *file, struct sock *sk, struct poll_table_struct *wait);
void sock_put(struct sock *sk);

#endif
