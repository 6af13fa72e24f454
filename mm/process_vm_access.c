/* process_vm_readv(2) (310) and process_vm_writev(2) (311): copying between
 * the caller's buffers (the local iovec) and a process's memory (the remote
 * iovec) through references on the remote pages, as Linux's
 * mm/process_vm_access.c (6.x: process_vm_rw, process_vm_rw_core,
 * process_vm_rw_single_vec, process_vm_rw_pages).
 *
 * Linux's order of checks, kept: flags != 0 is EINVAL; the local iovec is
 * imported (more than UIO_MAXIOV entries EINVAL, the count taken as
 * unsigned int as import_iovec's nr_segs; unreadable array EFAULT; a length
 * negative as ssize_t EINVAL; a segment outside user space EFAULT; the total
 * capped at MAX_RW_COUNT); an empty local total returns 0 at once; then the
 * remote iovec (more than UIO_MAXIOV EINVAL, unreadable EFAULT, negative
 * length EINVAL; no access_ok: those addresses are the other process's);
 * an empty remote total returns 0 before the pid is looked at; then the pid
 * (ESRCH when no task has it or it has no mm) and the permission (EPERM).
 * Remote segments are done in order, a page at a time through the local
 * segments; the first failure ends the call, and if some bytes were moved
 * the call returns their number instead of the error (a partial transfer:
 * a remote page that cannot be had, a segment that runs past TASK_SIZE,
 * or a local buffer that faults).
 *
 * Whose memory: only the caller's own process (any thread id of it; the
 * task's mm is the caller's). Another process's pid is EPERM: Linux asks
 * ptrace_may_access(PTRACE_MODE_ATTACH_REALCREDS) and answers EPERM when it
 * is refused (mm_access's EACCES mapped to EPERM); mmlab has no credentials
 * and no way to reach another mm's pages safely from here (its mm could
 * be exiting), so it refuses every other process, as Linux refuses a
 * process the caller may not ptrace. A pid no user task has is ESRCH, as a
 * task without an mm (Linux's mm_access returning NULL).
 *
 * The remote pages are taken with get_user_pages_fast (mm/gup.c): Linux
 * takes the locked path here (pin_user_pages_remote under mmap_read_lock,
 * since the mm is in general another process's); mmlab takes the lockless
 * one, which is allowed because the mm is the caller's own (current->mm),
 * and is done on purpose: it makes process_vm_readv the user-visible
 * exercise of the RCU-deferred free of page tables that the lockless walk
 * relies on. No lock is held while copying (the local buffer may fault). */
#include "arch/x86_64/uaccess.h"
#include "kernel/pid.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "mm/gup.h"
#include "mm/mm_types.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

#define UIO_FASTIOV 8
#define UIO_MAXIOV 1024
#define MAX_RW_COUNT (0x7fffffffl & (long)~(PAGE_SIZE - 1))
/* Linux's PVM_MAX_KMALLOC_PAGES / sizeof(struct page *): the page array
 * of one round of get_user_pages. */
#define PVM_MAX_KMALLOC_PAGES (PAGE_SIZE * 2)
#define PVM_MAX_PP_ARRAY_COUNT 16

struct iovec {
	void __user *iov_base;
	size_t iov_len;
};

/* Linux's iov_iter over user iovecs, reduced to what is needed here: where
 * the next byte goes and how many remain. */
struct iov_iter {
	struct iovec *iov;
	unsigned long nr_segs;
	unsigned long seg;
	size_t off;   /* into iov[seg] */
	size_t count; /* bytes left in all */
};

/* Linux's iovec_from_user: the array copied in, lengths checked; an
 * allocated array is returned in *out (the caller frees it unless it is
 * fast). */
static long iovec_from_user(const struct iovec __user *uvec, unsigned long nr_segs,
			    struct iovec *fast, struct iovec **out)
{
	*out = fast;
	if (!nr_segs)
		return 0;
	if (nr_segs > UIO_MAXIOV)
		return -EINVAL;
	struct iovec *iov = fast;
	if (nr_segs > UIO_FASTIOV) {
		iov = kcalloc(nr_segs, sizeof(*iov), GFP_KERNEL);
		if (!iov)
			return -ENOMEM;
	}
	*out = iov;
	if (copy_from_user(iov, uvec, nr_segs * sizeof(*iov)))
		return -EFAULT;
	for (unsigned long i = 0; i < nr_segs; i++)
		if ((long)iov[i].iov_len < 0)
			return -EINVAL;
	return 0;
}

/* Linux's __import_iovec for the local side: every segment in user space,
 * the total capped at MAX_RW_COUNT. Returns the total or an errno. */
static long import_iovec(const struct iovec __user *uvec, unsigned int nr_segs, struct iovec *fast,
			 struct iovec **out, struct iov_iter *iter)
{
	long ret = iovec_from_user(uvec, nr_segs, fast, out);
	if (ret)
		return ret;
	size_t total = 0;
	for (unsigned int i = 0; i < nr_segs; i++) {
		struct iovec *v = &(*out)[i];
		if (!access_ok(v->iov_base, v->iov_len))
			return -EFAULT;
		if (v->iov_len > (size_t)MAX_RW_COUNT - total)
			v->iov_len = (size_t)MAX_RW_COUNT - total;
		total += v->iov_len;
	}
	*iter = (struct iov_iter){ .iov = *out, .nr_segs = nr_segs, .count = total };
	return (long)total;
}

/* Copies up to len bytes between kaddr and the iterator's user buffers
 * (to them when !vm_write: a read of the remote process); returns the
 * bytes moved, fewer when a local buffer faulted. Linux's
 * copy_page_to_iter/copy_page_from_iter. */
static size_t copy_page_iter(void *kaddr, size_t len, struct iov_iter *it, bool vm_write)
{
	size_t done = 0;
	while (done < len && it->count) {
		struct iovec *v = &it->iov[it->seg];
		size_t n = v->iov_len - it->off;
		if (!n) {
			it->seg++;
			it->off = 0;
			continue;
		}
		if (n > len - done)
			n = len - done;
		void __user *u = (char __user *)v->iov_base + it->off;
		unsigned long left = vm_write ? copy_from_user((char *)kaddr + done, u, n)
					      : copy_to_user(u, (char *)kaddr + done, n);
		size_t moved = n - left;
		done += moved;
		it->off += moved;
		it->count -= moved;
		if (left)
			break;
	}
	return done;
}

/* Linux's process_vm_rw_pages. */
static int process_vm_rw_pages(struct page **pages, unsigned long offset, size_t len,
			       struct iov_iter *iter, bool vm_write)
{
	while (len && iter->count) {
		struct page *page = *pages++;
		size_t copy = PAGE_SIZE - offset;
		if (copy > len)
			copy = len;
		size_t copied = copy_page_iter((char *)page_address(page) + offset, copy, iter, vm_write);
		len -= copied;
		if (copied < copy && iter->count)
			return -EFAULT;
		offset = 0;
	}
	return 0;
}

/* Linux's process_vm_rw_single_vec: one remote segment, in rounds of at
 * most max_pages pages. */
static int process_vm_rw_single_vec(unsigned long addr, unsigned long len, struct iov_iter *iter,
				    struct page **process_pages, unsigned long max_pages,
				    bool vm_write)
{
	unsigned long pa = addr & PAGE_MASK;
	unsigned long start_offset = addr - pa;
	int rc = 0;
	if (!len)
		return 0;
	unsigned long nr_pages = (addr + len - 1) / PAGE_SIZE - addr / PAGE_SIZE + 1;
	while (!rc && nr_pages && iter->count) {
		unsigned long want = nr_pages < max_pages ? nr_pages : max_pages;
		/* Linux's pin_user_pages_remote takes the pages one by one and
		 * stops at the first that no VMA covers: a segment that runs
		 * past TASK_SIZE moves the bytes of its pages below it, and
		 * the call returns them. get_user_pages_fast refuses a range
		 * whose end passes TASK_SIZE whole (as Linux's lockless walk
		 * does), so it is asked for the pages below only. */
		if (pa >= TASK_SIZE)
			return -EFAULT;
		if (want > (TASK_SIZE - pa) >> PAGE_SHIFT)
			want = (TASK_SIZE - pa) >> PAGE_SHIFT;
		/* Lockless first (mm/gup.c), the locked walk for the rest:
		 * see the top of the file for why not the locked one alone. */
		long pinned = get_user_pages_fast(pa, want, vm_write ? FOLL_WRITE : 0, process_pages);
		if (pinned <= 0)
			return -EFAULT;
		size_t bytes = (unsigned long)pinned * PAGE_SIZE - start_offset;
		if (bytes > len)
			bytes = len;
		rc = process_vm_rw_pages(process_pages, start_offset, bytes, iter, vm_write);
		len -= bytes;
		start_offset = 0;
		nr_pages -= (unsigned long)pinned;
		pa += (unsigned long)pinned * PAGE_SIZE;
		/* Linux's unpin_user_pages_dirty_lock: mmlab's anonymous pages
		 * have no dirty state to set beyond their PTE's. */
		while (pinned)
			put_page(process_pages[--pinned]);
	}
	return rc;
}

/* Linux's process_vm_rw_core. */
static long process_vm_rw_core(int pid, struct iov_iter *iter, const struct iovec *rvec,
			       unsigned long riovcnt, bool vm_write)
{
	struct page *pp_stack[PVM_MAX_PP_ARRAY_COUNT];
	struct page **process_pages = pp_stack;
	unsigned long nr_pages = 0;
	size_t total_len = iter->count;
	long rc = 0;
	unsigned long max_pages = PVM_MAX_PP_ARRAY_COUNT;

	/* The page array for the longest remote segment. */
	for (unsigned long i = 0; i < riovcnt; i++) {
		size_t iov_len = rvec[i].iov_len;
		if (iov_len > 0) {
			unsigned long base = (unsigned long)rvec[i].iov_base;
			unsigned long n = (base + iov_len) / PAGE_SIZE - base / PAGE_SIZE + 1;
			if (n > nr_pages)
				nr_pages = n;
		}
	}
	if (!nr_pages)
		return 0;
	if (nr_pages > PVM_MAX_PP_ARRAY_COUNT) {
		size_t size = sizeof(struct page *) * nr_pages;
		if (size > PVM_MAX_KMALLOC_PAGES)
			size = PVM_MAX_KMALLOC_PAGES;
		process_pages = kmalloc(size, GFP_KERNEL);
		if (!process_pages)
			return -ENOMEM;
		max_pages = size / sizeof(struct page *);
	}

	/* Linux's find_get_task_by_vpid + mm_access (see the top). */
	struct task_struct *task = find_get_task_by_vpid(pid);
	if (!task) {
		rc = -ESRCH;
		goto free_proc_pages;
	}
	if (!task->mm || !task->signal) /* a kernel thread has none for mm_access, even using one */
		rc = -ESRCH;
	else if (task->mm != current->mm)
		rc = -EPERM;
	put_task_struct(task);
	if (rc)
		goto free_proc_pages;

	for (unsigned long i = 0; i < riovcnt && iter->count && !rc; i++)
		rc = process_vm_rw_single_vec((unsigned long)rvec[i].iov_base, rvec[i].iov_len, iter,
					      process_pages, max_pages, vm_write);
	/* Bytes moved, if any, rather than the error. */
	total_len -= iter->count;
	if (total_len)
		rc = (long)total_len;

free_proc_pages:
	if (process_pages != pp_stack)
		kfree(process_pages);
	return rc;
}

/* Linux's process_vm_rw. */
static long process_vm_rw(int pid, const struct iovec __user *lvec, unsigned long liovcnt,
			  const struct iovec __user *rvec, unsigned long riovcnt, unsigned long flags,
			  bool vm_write)
{
	struct iovec iovstack_l[UIO_FASTIOV], iovstack_r[UIO_FASTIOV];
	struct iovec *iov_l = iovstack_l, *iov_r = iovstack_r;
	struct iov_iter iter = { 0 };
	long rc;

	if (flags != 0)
		return -EINVAL;
	rc = import_iovec(lvec, (unsigned int)liovcnt, iovstack_l, &iov_l, &iter);
	if (rc <= 0)
		goto free_iov_l;
	rc = iovec_from_user(rvec, riovcnt, iovstack_r, &iov_r);
	if (rc)
		goto free_iov_r;
	rc = process_vm_rw_core(pid, &iter, iov_r, riovcnt, vm_write);
free_iov_r:
	if (iov_r != iovstack_r)
		kfree(iov_r);
free_iov_l:
	if (iov_l != iovstack_l)
		kfree(iov_l);
	return rc;
}

SYSCALL_DEFINE6(process_vm_readv, int, pid, const struct iovec __user *, lvec, unsigned long,
		liovcnt, const struct iovec __user *, rvec, unsigned long, riovcnt, unsigned long, flags)
{
	return process_vm_rw(pid, lvec, liovcnt, rvec, riovcnt, flags, false);
}

SYSCALL_DEFINE6(process_vm_writev, int, pid, const struct iovec __user *, lvec, unsigned long,
		liovcnt, const struct iovec __user *, rvec, unsigned long, riovcnt, unsigned long, flags)
{
	return process_vm_rw(pid, lvec, liovcnt, rvec, riovcnt, flags, true);
}
