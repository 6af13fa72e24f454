/* AF_UNIX pairs from the kernel's side (net/unix/af_unix.c, kernel
 * buffers): a message counts in its sender's sk_wmem_alloc until it is
 * read, a sender stops (-EAGAIN) once that reaches sk_sndbuf, what each
 * side sees once the other closes, and that closing both with messages
 * unread gives back every slab object and page. */
#include "tests/kunit.h"
#include "lib/string.h"
#include "net/sock.h"

static long send_k(struct sock *sk, const void *buf, size_t len, int flags)
{
	struct kvec_iter v = { (void *)buf, len };
	struct msghdr msg = { .iov = &v, .nr_segs = 1 };
	return unix_sendmsg(sk, &msg, len, flags | MSG_NOSIGNAL, true);
}

static long recv_k(struct sock *sk, void *buf, size_t len, int flags, unsigned int *msg_flags)
{
	struct kvec_iter v = { buf, len };
	struct msghdr msg = { .iov = &v, .nr_segs = 1 };
	long n = unix_recvmsg(sk, &msg, len, flags, true);
	if (msg_flags)
		*msg_flags = msg.msg_flags;
	return n;
}

static void pair_of(struct kunit *test, int type, struct sock **a, struct sock **b)
{
	*a = unix_create(type);
	*b = unix_create(type);
	KUNIT_ASSERT_TRUE(test, *a && *b);
	unix_socketpair(*a, *b);
}

static long wmem(struct sock *sk) { return __atomic_load_n(&sk->sk_wmem_alloc, __ATOMIC_ACQUIRE); }

/* Messages charge their sender until read; both closed with some unread:
 * nothing is left behind. */
static void unread_messages_are_freed(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	struct sock *a, *b;
	pair_of(test, SOCK_DGRAM, &a, &b);
	KUNIT_EXPECT_EQ(test, send_k(a, "one", 3, 0), 3);
	long one = wmem(a);
	KUNIT_EXPECT_GT(test, one, 3);
	KUNIT_EXPECT_EQ(test, send_k(a, "three", 5, 0), 5);
	KUNIT_EXPECT_EQ(test, send_k(b, "back", 4, 0), 4);
	long two = wmem(a);
	KUNIT_EXPECT_GT(test, two, one);
	char buf[8];
	unsigned int flags;
	KUNIT_EXPECT_EQ(test, recv_k(b, buf, 2, 0, &flags), 2); /* cut: the rest is gone */
	KUNIT_EXPECT_TRUE(test, flags & MSG_TRUNC);
	KUNIT_EXPECT_EQ(test, wmem(a), two - one); /* read: a's charge for it went */
	KUNIT_EXPECT_EQ(test, send_k(a, "", 0, 0), 0);
	unix_release(a); /* "back" unread in a's queue */
	unix_release(b); /* "three" and the empty one unread in b's */
	kunit_expect_resources_back(test, &before);
}

/* A stream sender stops at its sk_sndbuf: the bytes in flight are at
 * least that, and at most one more piece (half the buffer) beyond. */
static void stream_sender_stops_at_sndbuf(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	struct sock *a, *b;
	pair_of(test, SOCK_STREAM, &a, &b);
	static char chunk[4096];
	memset(chunk, 'q', sizeof(chunk));
	long total = 0, n;
	while ((n = send_k(a, chunk, sizeof(chunk), MSG_DONTWAIT)) > 0)
		total += n;
	KUNIT_EXPECT_EQ(test, n, -EAGAIN);
	KUNIT_EXPECT_GE(test, wmem(a), a->sk_sndbuf);
	KUNIT_EXPECT_LE(test, wmem(a), a->sk_sndbuf + (long)sizeof(chunk) + 1024);
	KUNIT_EXPECT_LT(test, total, a->sk_sndbuf);
	long got = 0;
	bool right = true;
	while ((n = recv_k(b, chunk, sizeof(chunk), MSG_DONTWAIT, NULL)) > 0) {
		for (long i = 0; i < n; i++)
			right = right && chunk[i] == 'q';
		got += n;
	}
	KUNIT_EXPECT_EQ(test, n, -EAGAIN);
	KUNIT_EXPECT_EQ(test, got, total);
	KUNIT_EXPECT_TRUE(test, right);
	KUNIT_EXPECT_EQ(test, wmem(a), 0);
	unix_release(a);
	unix_release(b);
	kunit_expect_resources_back(test, &before);
}

/* After one side closes: a stream's survivor reads what is left, then
 * EOF, and cannot send (EPIPE); a datagram survivor's send is
 * ECONNREFUSED once, then ENOTCONN; shutdown mirrors on the peer. */
static void what_the_survivor_sees(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	struct sock *a, *b;
	char buf[8];
	pair_of(test, SOCK_STREAM, &a, &b);
	KUNIT_EXPECT_EQ(test, unix_shutdown(a, SHUT_WR), 0);
	KUNIT_EXPECT_EQ(test, b->sk_shutdown, RCV_SHUTDOWN);
	KUNIT_EXPECT_EQ(test, recv_k(b, buf, 8, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, send_k(a, "x", 1, 0), -EPIPE);
	KUNIT_EXPECT_EQ(test, send_k(b, "left", 4, 0), 4);
	KUNIT_EXPECT_EQ(test, unix_shutdown(b, 3), -EINVAL);
	unix_release(b); /* "left" is unread in a's queue: a sees it, not ECONNRESET */
	KUNIT_EXPECT_EQ(test, a->sk_shutdown, SHUTDOWN_MASK);
	KUNIT_EXPECT_EQ(test, recv_k(a, buf, 8, 0, NULL), 4);
	KUNIT_EXPECT_EQ(test, recv_k(a, buf, 8, 0, NULL), 0);
	unix_release(a);

	pair_of(test, SOCK_DGRAM, &a, &b);
	KUNIT_EXPECT_EQ(test, send_k(b, "unread", 6, 0), 6);
	unix_release(a); /* its message from b is freed with it */
	KUNIT_EXPECT_EQ(test, b->sk_shutdown, 0);
	KUNIT_EXPECT_EQ(test, recv_k(b, buf, 8, MSG_DONTWAIT, NULL), -EAGAIN);
	KUNIT_EXPECT_EQ(test, send_k(b, "x", 1, 0), -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, send_k(b, "x", 1, 0), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, wmem(b), 0);
	unix_release(b);
	kunit_expect_resources_back(test, &before);
}

static struct kunit_case af_unix_cases[] = {
	KUNIT_CASE(unread_messages_are_freed),
	KUNIT_CASE(stream_sender_stops_at_sndbuf),
	KUNIT_CASE(what_the_survivor_sees),
	{}
};

static struct kunit_suite af_unix_suite = { .name = "af_unix", .test_cases = af_unix_cases };
kunit_test_suite(af_unix_suite);
