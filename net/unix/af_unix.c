/* AF_UNIX sockets (Linux's net/unix/af_unix.c) for what mmlab has of them:
 * the pairs socketpair(2) makes, SOCK_STREAM (a byte stream), SOCK_DGRAM
 * (messages, each read whole or cut: MSG_TRUNC) and SOCK_SEQPACKET
 * (messages on a connection: EOF and EPIPE as a stream's). A socket made
 * alone by socket(2) is never connected: mmlab has no unix socket names to
 * bind or connect to (net/socket.c).
 *
 * Invariants (net/sock.h has the locking): a message on a socket's
 * sk_receive_queue counts its truesize in its sender's sk_wmem_alloc and
 * holds a reference to the sender until the reader frees it; a socket is
 * freed at its last reference (its file's, its peer's link, its messages').
 * What each side sees when the other closes, as Linux's unix_release_sock:
 * a stream's or seqpacket's survivor gets SHUTDOWN_MASK (reads drain the
 * queue and then return 0, writes are EPIPE, a stream's with SIGPIPE) and
 * ECONNRESET as a pending error if the closed side left bytes unread; a
 * datagram survivor's next send is ECONNREFUSED and unlinks it (ENOTCONN
 * after that), and its reads wait, as Linux's.
 *
 * mmlab's differences: no MSG_OOB (-EOPNOTSUPP; Debian's 6.1 has
 * CONFIG_AF_UNIX_OOB), no ancillary data (net/socket.c), and the sender's
 * room is counted with a fixed per-message overhead (SKB_OVERHEAD) where
 * Linux counts each sk_buff's real truesize, so the bytes a full buffer
 * holds are close to Linux's but not the same. */
#include "net/sock.h"
#include "arch/x86_64/uaccess.h"
#include "fs/poll.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/slab.h"
#include "mm/util.h"

/* What a message costs its sender beyond its bytes: Linux's
 * SKB_TRUESIZE overhead on x86_64 (an aligned struct sk_buff and
 * skb_shared_info). */
#define SKB_OVERHEAD 576

static void sock_hold(struct sock *sk) { __atomic_add_fetch(&sk->refcount, 1, __ATOMIC_RELAXED); }

void sock_put(struct sock *sk)
{
	if (!__atomic_sub_fetch(&sk->refcount, 1, __ATOMIC_ACQ_REL))
		kfree(sk);
}

struct sock *unix_create(int type)
{
	struct sock *sk = kzalloc(sizeof(*sk), GFP_KERNEL);
	if (!sk)
		return NULL;
	sk->refcount = 1;
	sk->type = type;
	spin_lock_init(&sk->lock);
	INIT_LIST_HEAD(&sk->sk_receive_queue);
	mutex_init(&sk->iolock);
	init_waitqueue_head(&sk->wait);
	sk->sk_sndbuf = SK_WMEM_DEFAULT;
	sk->sk_rcvbuf = SK_RMEM_DEFAULT;
	return sk;
}

/* Linux's unix_socketpair: each holds the other. */
int unix_socketpair(struct sock *a, struct sock *b)
{
	sock_hold(a);
	sock_hold(b);
	a->peer = b;
	b->peer = a;
	a->connected = b->connected = true;
	return 0;
}

/* Linux's kfree_skb with sock_wfree: the sender gets its room back. */
static void kfree_skb(struct sk_buff *skb)
{
	struct sock *sender = skb->sk;
	__atomic_sub_fetch(&sender->sk_wmem_alloc, (long)skb->truesize, __ATOMIC_ACQ_REL);
	wake_up_all(&sender->wait);
	kvfree(skb);
	sock_put(sender);
}

static bool connection_oriented(const struct sock *sk) { return sk->type != SOCK_DGRAM; }

/* Linux's unix_release_sock. */
void unix_release(struct sock *sk)
{
	LIST_HEAD(unread);
	spin_lock(&sk->lock);
	struct sock *peer = sk->peer;
	sk->peer = NULL;
	sk->dead = true;
	sk->sk_shutdown = SHUTDOWN_MASK;
	bool left_unread = !list_empty(&sk->sk_receive_queue);
	list_splice_init(&sk->sk_receive_queue, &unread);
	spin_unlock(&sk->lock);
	if (peer) {
		if (connection_oriented(sk)) {
			spin_lock(&peer->lock);
			peer->sk_shutdown = SHUTDOWN_MASK;
			if (left_unread)
				peer->sk_err = ECONNRESET;
			spin_unlock(&peer->lock);
		}
		wake_up_all(&peer->wait);
		sock_put(peer);
	}
	struct sk_buff *skb, *next;
	list_for_each_entry_safe(skb, next, &unread, list)
		kfree_skb(skb);
	sock_put(sk); /* the file's */
}

/* ---- copying between a message and its caller's buffers ---- */

/* Linux's memcpy_from_msg/memcpy_to_msg over the iov, from where the last
 * copy ended: 0, or -EFAULT (the bytes before the fault are copied). */
static int msg_copy(struct msghdr *msg, char *kbuf, size_t len, bool to_msg)
{
	while (len) {
		if (msg->seg >= msg->nr_segs)
			return -EFAULT;
		struct kvec_iter *v = &msg->iov[msg->seg];
		size_t n = min(len, v->len - msg->seg_off);
		char *ubuf = (char *)v->base + msg->seg_off;
		unsigned long left;
		if (!msg->user) {
			memcpy(to_msg ? ubuf : kbuf, to_msg ? kbuf : ubuf, n);
			left = 0;
		} else {
			left = to_msg ? copy_to_user(ubuf, kbuf, n) : copy_from_user(kbuf, ubuf, n);
		}
		if (left)
			return -EFAULT;
		kbuf += n;
		len -= n;
		msg->seg_off += n;
		if (msg->seg_off == v->len) {
			msg->seg++;
			msg->seg_off = 0;
		}
	}
	return 0;
}

/* ---- sending ---- */

static bool sender_may_go(struct sock *sk)
{
	return __atomic_load_n(&sk->sk_wmem_alloc, __ATOMIC_ACQUIRE) < READ_ONCE(sk->sk_sndbuf) ||
	       (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN) || READ_ONCE(sk->sk_err);
}

/* Linux's sock_alloc_send_pskb: a message of len bytes charged to sk, once
 * sk_wmem_alloc is below sk_sndbuf (waiting for the reader to free some,
 * interruptibly); its bytes copied from msg. An ERR_PTR: the pending
 * error, -EPIPE after SEND_SHUTDOWN, -EAGAIN, -ERESTARTSYS, -ENOMEM,
 * -EFAULT. */
static struct sk_buff *sock_alloc_send_skb(struct sock *sk, struct msghdr *msg, size_t len, bool nonblock)
{
	for (;;) {
		spin_lock(&sk->lock);
		int err = sk->sk_err;
		sk->sk_err = 0;
		bool shut = sk->sk_shutdown & SEND_SHUTDOWN;
		spin_unlock(&sk->lock);
		if (err)
			return ERR_PTR(-err);
		if (shut)
			return ERR_PTR(-EPIPE);
		if (__atomic_load_n(&sk->sk_wmem_alloc, __ATOMIC_ACQUIRE) < sk->sk_sndbuf)
			break;
		if (nonblock)
			return ERR_PTR(-EAGAIN);
		/* Linux's sock_intr_errno with no SO_SNDTIMEO: restartable. */
		if (wait_event_interruptible(sk->wait, sender_may_go(sk)))
			return ERR_PTR(-ERESTARTSYS);
	}
	struct sk_buff *skb = kvmalloc(sizeof(*skb) + len, GFP_KERNEL);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	if (msg_copy(msg, skb->data, len, false)) {
		kvfree(skb);
		return ERR_PTR(-EFAULT);
	}
	skb->len = len;
	skb->consumed = 0;
	skb->truesize = len + SKB_OVERHEAD;
	skb->sk = sk;
	sock_hold(sk);
	__atomic_add_fetch(&sk->sk_wmem_alloc, (long)skb->truesize, __ATOMIC_ACQ_REL);
	return skb;
}

/* Puts skb on peer's queue unless peer has closed or shut its reading
 * down (then false, skb still the caller's). */
static bool queue_to_peer(struct sock *peer, struct sk_buff *skb)
{
	spin_lock(&peer->lock);
	bool ok = !peer->dead && !(peer->sk_shutdown & RCV_SHUTDOWN);
	if (ok)
		list_add_tail(&skb->list, &peer->sk_receive_queue);
	spin_unlock(&peer->lock);
	if (ok)
		wake_up_all(&peer->wait);
	return ok;
}

/* The peer, with a reference, or NULL. */
static struct sock *peer_get(struct sock *sk)
{
	spin_lock(&sk->lock);
	struct sock *peer = sk->peer;
	if (peer)
		sock_hold(peer);
	spin_unlock(&sk->lock);
	return peer;
}

/* Linux's unix_stream_sendmsg: in pieces of at most half the send buffer,
 * each waiting for room; the bytes sent, or an errno when none were.
 * EPIPE (with SIGPIPE unless MSG_NOSIGNAL) once either side shut the
 * direction down or the peer closed. */
static long unix_stream_sendmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, bool nonblock)
{
	struct sock *peer = peer_get(sk);
	size_t sent = 0;
	long err = -ENOTCONN;
	if (!peer)
		return err;
	if (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN)
		goto pipe_err;
	while (sent < len) {
		size_t size = min(len - sent, (size_t)(sk->sk_sndbuf / 2 - 64));
		struct sk_buff *skb = sock_alloc_send_skb(sk, msg, size, nonblock);
		if (IS_ERR(skb)) {
			err = PTR_ERR(skb);
			if (err == -EPIPE)
				goto pipe_err;
			goto out;
		}
		if (!queue_to_peer(peer, skb)) {
			kfree_skb(skb);
			goto pipe_err;
		}
		sent += size;
	}
	goto out;
pipe_err:
	if (!sent && !(flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current);
	err = -EPIPE;
out:
	sock_put(peer);
	return sent ? (long)sent : err;
}

/* Linux's unix_dgram_sendmsg (and unix_seqpacket_sendmsg): one message,
 * whole. */
static long unix_dgram_sendmsg(struct sock *sk, struct msghdr *msg, size_t len, bool nonblock)
{
	if (sk->type == SOCK_SEQPACKET && !sk->connected)
		return -ENOTCONN;
	struct sock *peer = peer_get(sk);
	if (!peer)
		return -ENOTCONN;
	long err = -EMSGSIZE;
	if (len > (size_t)sk->sk_sndbuf - 32)
		goto out;
	struct sk_buff *skb = sock_alloc_send_skb(sk, msg, len, nonblock);
	if (IS_ERR(skb)) {
		err = PTR_ERR(skb);
		goto out;
	}
	if (queue_to_peer(peer, skb)) {
		err = (long)len;
		goto out;
	}
	kfree_skb(skb);
	err = -EPIPE;
	if (sk->type == SOCK_DGRAM && READ_ONCE(peer->dead)) {
		/* A datagram socket whose peer closed forgets it: this send
		 * is ECONNREFUSED, the next ones ENOTCONN. */
		spin_lock(&sk->lock);
		bool linked = sk->peer == peer;
		if (linked)
			sk->peer = NULL;
		spin_unlock(&sk->lock);
		if (linked)
			sock_put(peer);
		err = -ECONNREFUSED;
	}
out:
	sock_put(peer);
	return err;
}

long unix_sendmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, bool nonblock)
{
	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	nonblock |= flags & MSG_DONTWAIT;
	return sk->type == SOCK_STREAM ? unix_stream_sendmsg(sk, msg, len, flags, nonblock)
				       : unix_dgram_sendmsg(sk, msg, len, nonblock);
}

/* ---- receiving ---- */

static bool reader_may_go(struct sock *sk)
{
	return !list_empty(&sk->sk_receive_queue) || (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) ||
	       READ_ONCE(sk->sk_err);
}

/* The first message, or why there is none: -EAGAIN (nonblock),
 * -ERESTARTSYS, the pending error, or 0 at the end (RCV_SHUTDOWN). The
 * caller holds iolock: the message stays first until it takes it off. */
static long wait_for_skb(struct sock *sk, bool nonblock, struct sk_buff **skbp)
{
	for (;;) {
		spin_lock(&sk->lock);
		*skbp = list_first_entry_or_null(&sk->sk_receive_queue, struct sk_buff, list);
		int err = *skbp ? 0 : sk->sk_err;
		if (err)
			sk->sk_err = 0;
		bool eof = sk->sk_shutdown & RCV_SHUTDOWN;
		spin_unlock(&sk->lock);
		if (*skbp)
			return 1;
		if (err)
			return -err;
		if (eof)
			return 0;
		if (nonblock)
			return -EAGAIN;
		if (wait_event_interruptible(sk->wait, reader_may_go(sk)))
			return -ERESTARTSYS;
	}
}

static void unlink_skb(struct sock *sk, struct sk_buff *skb)
{
	spin_lock(&sk->lock);
	list_del(&skb->list);
	spin_unlock(&sk->lock);
	kfree_skb(skb);
}

/* Linux's unix_stream_read_generic: bytes from as many messages as there
 * are, waiting only until the first (all len of them with MSG_WAITALL);
 * 0 at EOF. */
static long unix_stream_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, bool nonblock)
{
	if (!sk->connected)
		return -EINVAL;
	size_t target = flags & MSG_WAITALL ? len : 1, copied = 0, peek_skip = 0;
	mutex_lock(&sk->iolock);
	long err = 0;
	while (copied < len) {
		struct sk_buff *skb;
		if (copied >= target && list_empty(&sk->sk_receive_queue))
			break;
		if (flags & MSG_PEEK) {
			/* Past the messages already peeked at, without waiting
			 * once something was copied. */
			spin_lock(&sk->lock);
			size_t skip = peek_skip;
			skb = NULL;
			struct sk_buff *s;
			list_for_each_entry(s, &sk->sk_receive_queue, list) {
				if (skip < s->len - s->consumed) {
					skb = s;
					break;
				}
				skip -= s->len - s->consumed;
			}
			spin_unlock(&sk->lock);
			if (!skb) {
				if (copied)
					break;
				err = wait_for_skb(sk, nonblock, &skb);
				if (err <= 0)
					break;
				continue;
			}
			size_t n = min(len - copied, skb->len - skb->consumed - skip);
			if (msg_copy(msg, skb->data + skb->consumed + skip, n, true)) {
				err = -EFAULT;
				break;
			}
			copied += n;
			peek_skip += n;
			continue;
		}
		err = wait_for_skb(sk, nonblock && !copied, &skb);
		if (err <= 0)
			break;
		size_t n = min(len - copied, skb->len - skb->consumed);
		if (msg_copy(msg, skb->data + skb->consumed, n, true)) {
			err = -EFAULT;
			break;
		}
		copied += n;
		skb->consumed += n;
		if (skb->consumed == skb->len)
			unlink_skb(sk, skb);
	}
	mutex_unlock(&sk->iolock);
	return copied ? (long)copied : err;
}

/* Linux's unix_dgram_recvmsg: one message; its bytes past len are lost
 * (MSG_TRUNC in msg_flags; the flag MSG_TRUNC returns its whole length). */
static long unix_dgram_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, bool nonblock)
{
	if (sk->type == SOCK_SEQPACKET && !sk->connected)
		return -ENOTCONN;
	mutex_lock(&sk->iolock);
	struct sk_buff *skb;
	long err = wait_for_skb(sk, nonblock, &skb);
	if (err > 0) {
		size_t n = min(len, skb->len);
		if (skb->len > len)
			msg->msg_flags |= MSG_TRUNC;
		if (msg_copy(msg, skb->data, n, true))
			err = -EFAULT;
		else
			err = (long)(flags & MSG_TRUNC ? skb->len : n);
		if (!(flags & MSG_PEEK))
			unlink_skb(sk, skb);
	}
	mutex_unlock(&sk->iolock);
	return err;
}

long unix_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, bool nonblock)
{
	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	nonblock |= flags & MSG_DONTWAIT;
	return sk->type == SOCK_STREAM ? unix_stream_recvmsg(sk, msg, len, flags, nonblock)
				       : unix_dgram_recvmsg(sk, msg, len, flags, nonblock);
}

/* Linux's unix_shutdown: how + 1 is the mask; a connection's peer gets the
 * mirror (our SEND_SHUTDOWN is its RCV_SHUTDOWN). */
int unix_shutdown(struct sock *sk, int how)
{
	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	unsigned int mode = (unsigned int)how + 1;
	spin_lock(&sk->lock);
	sk->sk_shutdown |= mode;
	struct sock *peer = sk->peer;
	if (peer)
		sock_hold(peer);
	spin_unlock(&sk->lock);
	wake_up_all(&sk->wait);
	if (peer && connection_oriented(sk)) {
		unsigned int peer_mode = (mode & RCV_SHUTDOWN ? SEND_SHUTDOWN : 0) | (mode & SEND_SHUTDOWN ? RCV_SHUTDOWN : 0);
		spin_lock(&peer->lock);
		peer->sk_shutdown |= peer_mode;
		spin_unlock(&peer->lock);
		wake_up_all(&peer->wait);
	}
	if (peer)
		sock_put(peer);
	return 0;
}

/* ---- poll ---- */

/* Linux's unix_writable: a quarter of the send buffer or less is taken. */
static bool unix_writable(struct sock *sk)
{
	return (__atomic_load_n(&sk->sk_wmem_alloc, __ATOMIC_ACQUIRE) << 2) <= READ_ONCE(sk->sk_sndbuf);
}

/* The events every type shares (the first half of Linux's unix_poll and
 * unix_dgram_poll): errors, shutdowns and queued messages. sk->wait is
 * where both readers and writers are woken (net/sock.h). */
static __poll_t unix_poll_common(struct file *file, struct sock *sk, poll_table *wait)
{
	poll_wait(file, &sk->wait, wait);
	__poll_t mask = 0;
	unsigned int shutdown = READ_ONCE(sk->sk_shutdown);
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (shutdown == SHUTDOWN_MASK)
		mask |= EPOLLHUP;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLRDHUP | EPOLLIN | EPOLLRDNORM;
	spin_lock(&sk->lock);
	if (!list_empty(&sk->sk_receive_queue))
		mask |= EPOLLIN | EPOLLRDNORM;
	spin_unlock(&sk->lock);
	/* A connection never made (Linux's TCP_CLOSE: socket(2)'s). */
	if (sk->type != SOCK_DGRAM && !sk->connected)
		mask |= EPOLLHUP;
	return mask;
}

/* Linux's unix_poll (SOCK_STREAM): writable also after the other side
 * shut down, so that a writer is not stuck (its write then fails). */
static __poll_t unix_stream_poll(struct file *file, struct sock *sk, poll_table *wait)
{
	__poll_t mask = unix_poll_common(file, sk, wait);
	if (unix_writable(sk))
		mask |= EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND;
	return mask;
}

/* Linux's unix_dgram_poll (SOCK_DGRAM and SOCK_SEQPACKET). Linux also
 * holds back EPOLLOUT while a connected datagram peer's receive queue is
 * full; mmlab's sockets are only pairs and have no receive-queue limit,
 * so only the sender's own buffer counts. */
static __poll_t unix_dgram_poll(struct file *file, struct sock *sk, poll_table *wait)
{
	__poll_t mask = unix_poll_common(file, sk, wait);
	if (!(poll_requested_events(wait) & (EPOLLWRBAND | EPOLLWRNORM | EPOLLOUT)))
		return mask;
	if (unix_writable(sk))
		mask |= EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND;
	return mask;
}

__poll_t unix_poll(struct file *file, struct sock *sk, poll_table *wait)
{
	return sk->type == SOCK_STREAM ? unix_stream_poll(file, sk, wait) : unix_dgram_poll(file, sk, wait);
}
