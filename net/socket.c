/* The socket system calls and a socket's file (Linux's net/socket.c):
 * socket, socketpair, sendto, recvfrom, sendmsg, recvmsg, shutdown,
 * getsockopt, bind and connect, and read/write/close of the descriptor.
 * The only family is AF_UNIX (net/unix/af_unix.c); every other is
 * -EAFNOSUPPORT (Linux has AF_INET and more).
 *
 * A socket's file holds its struct sock (private_data) and an inode of
 * the internal sockfs (S_IFSOCK, its number the one /proc/<pid>/fd shows
 * as "socket:[ino]"). It has no file offset: lseek, pread and pwrite are
 * -ESPIPE, as Linux's.
 *
 * mmlab's differences: no unix socket names (bind and connect are
 * -EOPNOTSUPP after Linux's checks of the address, a datagram sent to a
 * name -ECONNREFUSED, as Linux's for a name no socket has), no ancillary
 * data (a sendmsg with msg_controllen is -EINVAL: SCM_RIGHTS and
 * SCM_CREDENTIALS are not passed), and readv/writev go segment by segment
 * through read/write, so a datagram socket takes one message per segment. */
#include "net/sock.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/internal.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/slab.h"

#define SOCKFS_MAGIC 0x534F434B
#define UIO_MAXIOV 1024
#define UNIX_ADDR_MAX 110 /* sizeof(struct sockaddr_un) */

static struct super_block sockfs_sb = {
	.s_magic = SOCKFS_MAGIC, .s_type = "sockfs", .s_next_ino = 1, .s_blocksize = PAGE_SIZE,
};

static const struct file_operations socket_file_ops;

/* Linux's sock_from_file. */
static struct sock *sock_from_file(struct file *f)
{
	return f->f_op == &socket_file_ops ? f->private_data : NULL;
}

static long sock_read(struct file *f, char *dst, size_t count, long *pos, bool user)
{
	(void)pos;
	if (!count)
		return 0;
	struct kvec_iter v = { dst, count };
	struct msghdr msg = { .iov = &v, .nr_segs = 1, .user = user };
	return unix_recvmsg(f->private_data, &msg, count, 0, f->f_flags & O_NONBLOCK);
}

static long sock_write(struct file *f, const char *src, size_t count, long *pos, bool user)
{
	(void)pos;
	struct kvec_iter v = { (char *)src, count };
	struct msghdr msg = { .iov = &v, .nr_segs = 1, .user = user };
	return unix_sendmsg(f->private_data, &msg, count, 0, f->f_flags & O_NONBLOCK);
}

/* Linux's sock_close. */
static void sock_close(struct inode *inode, struct file *f)
{
	if (f->private_data)
		unix_release(f->private_data);
	iput(inode);
}

/* Linux's sock_poll: the protocol's. */
static __poll_t sock_poll(struct file *f, struct poll_table_struct *wait)
{
	return unix_poll(f, f->private_data, wait);
}

static const struct file_operations socket_file_ops = {
	.read = sock_read, .write = sock_write, .llseek = no_llseek, .release = sock_close, .poll = sock_poll,
	.mode = S_IFSOCK | 0777, .blksize = PAGE_SIZE,
};

/* Linux's sock_alloc_file: the file of sk, with the O_NONBLOCK of flags;
 * NULL when memory is short (sk is then the caller's still). */
static struct file *sock_alloc_file(struct sock *sk, int flags)
{
	struct inode *inode = new_inode(&sockfs_sb);
	struct file *f = inode ? alloc_file() : NULL;
	if (!f) {
		iput(inode);
		return NULL;
	}
	inode->i_mode = S_IFSOCK | 0777;
	sk->ino = inode->i_ino;
	f->f_op = &socket_file_ops;
	f->f_inode = inode;
	f->private_data = sk;
	f->f_flags = O_RDWR | (unsigned int)(flags & SOCK_NONBLOCK);
	f->f_mode = FMODE_READ | FMODE_WRITE | FMODE_CAN_READ | FMODE_CAN_WRITE;
	return f;
}

/* Linux's __sock_create and unix_create, in their order: the family, the
 * type, the protocol, then the kind of unix socket. */
static long sock_create(int family, int type, int protocol, struct sock **skp)
{
	if (family < 0 || family >= AF_MAX)
		return -EAFNOSUPPORT;
	if (type < 0 || type >= SOCK_MAX)
		return -EINVAL;
	if (family != AF_UNIX)
		return -EAFNOSUPPORT; /* mmlab has no other family */
	if (protocol && protocol != AF_UNIX)
		return -EPROTONOSUPPORT;
	if (type == SOCK_RAW)
		type = SOCK_DGRAM; /* Linux's unix_create takes it as one */
	if (type != SOCK_STREAM && type != SOCK_DGRAM && type != SOCK_SEQPACKET)
		return -ESOCKTNOSUPPORT;
	*skp = unix_create(type);
	return *skp ? 0 : -ENOMEM;
}

/* The socket's file in fd (reserved), close-on-exec as flags say. */
static void sock_install(struct files_struct *files, int fd, struct file *f, int flags)
{
	set_close_on_exec(files, fd, flags & SOCK_CLOEXEC);
	fd_install(files, fd, f);
}

SYSCALL_DEFINE3(socket, int, family, int, type, int, protocol)
{
	int flags = type & ~SOCK_TYPE_MASK;
	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	struct sock *sk;
	long err = sock_create(family, type & SOCK_TYPE_MASK, protocol, &sk);
	if (err)
		return err;
	struct files_struct *files = current->files;
	int fd = alloc_fd(files);
	struct file *f = fd >= 0 ? sock_alloc_file(sk, flags) : NULL;
	if (!f) {
		if (fd >= 0)
			put_unused_fd(files, fd);
		unix_release(sk);
		return fd < 0 ? fd : -ENOMEM;
	}
	sock_install(files, fd, f, flags);
	return fd;
}

/* Linux's __sys_socketpair: the descriptors are reserved and written to
 * the user's array before the sockets are made. */
SYSCALL_DEFINE4(socketpair, int, family, int, type, int, protocol, int __user *, usockvec)
{
	int flags = type & ~SOCK_TYPE_MASK;
	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	struct files_struct *files = current->files;
	int fd1 = alloc_fd(files);
	if (fd1 < 0)
		return fd1;
	int fd2 = alloc_fd(files);
	long err = fd2;
	if (fd2 < 0)
		goto out_fd1;
	err = -EFAULT;
	if (put_user_u32((u32)fd1, &usockvec[0]) || put_user_u32((u32)fd2, &usockvec[1]))
		goto out_fd2;
	struct sock *a, *b = NULL;
	err = sock_create(family, type & SOCK_TYPE_MASK, protocol, &a);
	if (err)
		goto out_fd2;
	err = sock_create(family, type & SOCK_TYPE_MASK, protocol, &b);
	if (err)
		goto out_a;
	unix_socketpair(a, b);
	struct file *fa = sock_alloc_file(a, flags);
	struct file *fb = fa ? sock_alloc_file(b, flags) : NULL;
	if (!fb) {
		if (fa)
			fput(fa); /* releases a */
		else
			unix_release(a);
		unix_release(b);
		err = -ENOMEM;
		goto out_fd2;
	}
	sock_install(files, fd1, fa, flags);
	sock_install(files, fd2, fb, flags);
	return 0;
out_a:
	unix_release(a);
out_fd2:
	put_unused_fd(files, fd2);
out_fd1:
	put_unused_fd(files, fd1);
	return err;
}

/* Linux's sockfd_lookup: the socket of fd, its file held (fput it);
 * -EBADF, -ENOTSOCK. */
static struct sock *sockfd_lookup(int fd, struct file **fp, long *err)
{
	struct file *f = fd < 0 ? NULL : fget(current->files, (unsigned int)fd);
	*fp = f;
	*err = -EBADF;
	if (!f)
		return NULL;
	struct sock *sk = sock_from_file(f);
	if (!sk) {
		*err = -ENOTSOCK;
		fput(f);
		*fp = NULL;
	}
	return sk;
}

/* Linux's unix_validate_addr after move_addr_to_kernel: the length, the
 * bytes, and the family. */
static long unix_check_addr(const void __user *addr, int addrlen)
{
	if (addrlen < 0 || addrlen > 128) /* sizeof(struct sockaddr_storage) */
		return -EINVAL;
	char kaddr[128];
	if (addrlen && copy_from_user(kaddr, addr, (size_t)addrlen))
		return -EFAULT;
	if (addrlen <= 2 || addrlen > UNIX_ADDR_MAX || *(unsigned short *)kaddr != AF_UNIX)
		return -EINVAL;
	return 0;
}

/* The send of every form (sock_sendmsg): a stream given an address is
 * -EISCONN (-EOPNOTSUPP unconnected), a seqpacket ignores it, a datagram
 * finds no socket by that name (see the top of the file). */
static long sock_sendmsg(struct file *f, struct sock *sk, struct msghdr *msg, size_t len, int flags,
			 const void __user *addr, int addrlen)
{
	if (addr && addrlen) {
		if (sk->type == SOCK_STREAM)
			return flags & MSG_OOB ? -EOPNOTSUPP : sk->connected ? -EISCONN : -EOPNOTSUPP;
		if (sk->type == SOCK_DGRAM) {
			long err = unix_check_addr(addr, addrlen);
			return err ? err : -ECONNREFUSED;
		}
	}
	return unix_sendmsg(sk, msg, len, flags, f->f_flags & O_NONBLOCK);
}

/* Linux's move_addr_to_user for an unnamed peer (socketpair's): the
 * length becomes 0, after the checks of the one given. */
static long put_no_addr(int __user *ulen)
{
	u32 len;
	if (get_user_u32(&len, ulen))
		return -EFAULT;
	if ((int)len < 0)
		return -EINVAL;
	return put_user_u32(0, ulen) ? -EFAULT : 0;
}

/* __sys_sendto and __sys_recvfrom: the buffer checked (import_single_range:
 * cut to MAX_RW_COUNT, -EFAULT outside user space) before the descriptor;
 * a receive with addr writes the peer's name length (0). */
static long sock_single(int fd, void __user *buf, size_t len, unsigned int flags, bool send, void __user *addr,
			int addr_len, int __user *uaddr_len)
{
	if (len > (size_t)MAX_RW_COUNT)
		len = MAX_RW_COUNT;
	if (!access_ok(buf, len))
		return -EFAULT;
	struct file *f;
	long err;
	struct sock *sk = sockfd_lookup(fd, &f, &err);
	if (!sk)
		return err;
	struct kvec_iter v = { buf, len };
	struct msghdr msg = { .iov = &v, .nr_segs = 1, .user = true };
	if (send) {
		err = sock_sendmsg(f, sk, &msg, len, (int)flags, addr, addr_len);
	} else {
		err = unix_recvmsg(sk, &msg, len, (int)flags, f->f_flags & O_NONBLOCK);
		if (err >= 0 && addr) {
			long err2 = put_no_addr(uaddr_len);
			if (err2 < 0)
				err = err2;
		}
	}
	fput(f);
	return err;
}

SYSCALL_DEFINE6(sendto, int, fd, void __user *, buff, size_t, len, unsigned int, flags,
		void __user *, addr, int, addr_len)
{
	return sock_single(fd, buff, len, flags, true, addr, addr_len, NULL);
}

SYSCALL_DEFINE6(recvfrom, int, fd, void __user *, ubuf, size_t, size, unsigned int, flags,
		void __user *, addr, int __user *, addr_len)
{
	return sock_single(fd, ubuf, size, flags, false, addr, 0, addr_len);
}

/* struct user_msghdr (include/linux/socket.h). */
struct user_msghdr {
	void __user *msg_name;
	int msg_namelen;
	struct kvec_iter __user *msg_iov; /* struct iovec's layout */
	size_t msg_iovlen;
	void __user *msg_control;
	size_t msg_controllen;
	unsigned int msg_flags;
};

/* Linux's ___sys_sendmsg/___sys_recvmsg: the header and its vector copied
 * in and checked (-EFAULT, -EMSGSIZE for more than UIO_MAXIOV segments,
 * -EINVAL for a negative length, -EFAULT for a segment outside user
 * space). */
static long import_msghdr(const struct user_msghdr __user *umsg, struct user_msghdr *m, struct kvec_iter **iov,
			  size_t *total)
{
	*iov = NULL;
	if (copy_from_user(m, umsg, sizeof(*m)))
		return -EFAULT;
	if (m->msg_iovlen > UIO_MAXIOV)
		return -EMSGSIZE;
	if (!m->msg_iovlen) {
		*total = 0;
		return 0;
	}
	struct kvec_iter *v = kcalloc(m->msg_iovlen, sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	*iov = v;
	if (copy_from_user(v, m->msg_iov, m->msg_iovlen * sizeof(*v)))
		return -EFAULT;
	size_t sum = 0;
	for (size_t i = 0; i < m->msg_iovlen; i++) {
		if ((long)v[i].len < 0)
			return -EINVAL;
		if (!access_ok(v[i].base, v[i].len))
			return -EFAULT;
		if (v[i].len > (size_t)MAX_RW_COUNT - sum)
			v[i].len = (size_t)MAX_RW_COUNT - sum;
		sum += v[i].len;
	}
	*total = sum;
	return 0;
}

/* ___sys_sendmsg and ___sys_recvmsg: the descriptor, then the header and
 * its vector; a receive writes back the results (no name, no control
 * data, the flags). */
static long sock_msg(int fd, struct user_msghdr __user *umsg, unsigned int flags, bool send)
{
	struct file *f;
	long err;
	struct sock *sk = sockfd_lookup(fd, &f, &err);
	if (!sk)
		return err;
	struct user_msghdr m = { 0 };
	struct kvec_iter *iov;
	size_t total;
	err = import_msghdr(umsg, &m, &iov, &total);
	if (!err && send && m.msg_controllen)
		err = -EINVAL; /* no ancillary data: see the top of the file */
	struct msghdr msg = { .iov = iov, .nr_segs = m.msg_iovlen, .user = true };
	if (!err && send) {
		err = sock_sendmsg(f, sk, &msg, total, (int)flags, m.msg_name, m.msg_namelen);
	} else if (!err) {
		err = unix_recvmsg(sk, &msg, total, (int)(flags & ~MSG_CMSG_CLOEXEC), f->f_flags & O_NONBLOCK);
		if (err >= 0 && ((m.msg_name && put_no_addr(&umsg->msg_namelen)) ||
				 put_user_u64(0, &umsg->msg_controllen) ||
				 put_user_u32(msg.msg_flags, &umsg->msg_flags)))
			err = -EFAULT;
	}
	kfree(iov);
	fput(f);
	return err;
}

SYSCALL_DEFINE3(sendmsg, int, fd, struct user_msghdr __user *, umsg, unsigned int, flags)
{
	return sock_msg(fd, umsg, flags, true);
}

SYSCALL_DEFINE3(recvmsg, int, fd, struct user_msghdr __user *, umsg, unsigned int, flags)
{
	return sock_msg(fd, umsg, flags, false);
}

SYSCALL_DEFINE2(shutdown, int, fd, int, how)
{
	struct file *f;
	long err;
	struct sock *sk = sockfd_lookup(fd, &f, &err);
	if (!sk)
		return err;
	err = unix_shutdown(sk, how);
	fput(f);
	return err;
}

/* Linux's sock_getsockopt for what a unix socket answers: SO_TYPE,
 * SO_ERROR (taken: it is cleared), SO_SNDBUF, SO_RCVBUF, SO_DOMAIN,
 * SO_PROTOCOL; any other option -ENOPROTOOPT, any other level
 * -EOPNOTSUPP (unix sockets have no getsockopt of their own). The value
 * is an int, cut to the length given. */
SYSCALL_DEFINE5(getsockopt, int, fd, int, level, int, optname, char __user *, optval, int __user *, optlen)
{
	struct file *f;
	long err;
	struct sock *sk = sockfd_lookup(fd, &f, &err);
	if (!sk)
		return err;
	u32 len;
	int v = 0;
	err = 0;
	if (level != SOL_SOCKET)
		err = -EOPNOTSUPP;
	else if (get_user_u32(&len, optlen))
		err = -EFAULT;
	else if ((int)len < 0)
		err = -EINVAL;
	else if (optname == SO_TYPE)
		v = sk->type;
	else if (optname == SO_ERROR) {
		spin_lock(&sk->lock);
		v = sk->sk_err;
		sk->sk_err = 0;
		spin_unlock(&sk->lock);
	} else if (optname == SO_SNDBUF)
		v = sk->sk_sndbuf;
	else if (optname == SO_RCVBUF)
		v = sk->sk_rcvbuf;
	else if (optname == SO_DOMAIN)
		v = AF_UNIX;
	else if (optname == SO_PROTOCOL)
		v = 0;
	else
		err = -ENOPROTOOPT;
	if (!err) {
		if (len > sizeof(v))
			len = sizeof(v);
		if (copy_to_user(optval, &v, len) || put_user_u32(len, optlen))
			err = -EFAULT;
	}
	fput(f);
	return err;
}

/* bind and connect: the descriptor and the address checked as Linux's
 * unix_bind/unix_stream_connect do first; then mmlab, which has no unix
 * socket names, refuses (-EOPNOTSUPP). */
static long unix_named(int fd, const void __user *addr, int addrlen)
{
	struct file *f;
	long err;
	struct sock *sk = sockfd_lookup(fd, &f, &err);
	if (!sk)
		return err;
	err = unix_check_addr(addr, addrlen);
	fput(f);
	return err ? err : -EOPNOTSUPP;
}

SYSCALL_DEFINE3(bind, int, fd, const void __user *, umyaddr, int, addrlen)
{
	return unix_named(fd, umyaddr, addrlen);
}

SYSCALL_DEFINE3(connect, int, fd, const void __user *, uservaddr, int, addrlen)
{
	return unix_named(fd, uservaddr, addrlen);
}
