/* /proc/<pid>/mem (Linux's fs/proc/base.c mem_open, mem_rw, mem_lseek):
 * the process's memory as a file whose offset is the user address. A read
 * or write goes through access_remote_vm with FOLL_FORCE, as a debugger's
 * would: it reaches a read-only mapping, and a write to a read-only
 * private mapping gives the process an anonymous copy of the page whose
 * PTE stays read-only (mm/gup.c can_follow_write_pte; docs/fork_and_cow.md
 * "FOLL_FORCE"). A write to a read-only shared mapping is refused: the
 * file or shared memory behind it never sees it.
 *
 * Who may open it: Linux asks ptrace_may_access(PTRACE_MODE_ATTACH), which
 * root (mmlab's one user) always passes, but for which Yama's default
 * ptrace_scope of 1 allows only the process itself and its descendants;
 * mmlab allows exactly those (a thread of the same process, or a process
 * whose chain of parents reaches the opener's), and anything else is
 * -EACCES, as mm_access's refusal.
 *
 * Lifetime: as Linux's, the file holds the address space the process had
 * at the open (mmgrab: the struct, not the memory); once the process has
 * exited or exec'd another program that address space is gone
 * (mmget_not_zero fails) and reads and writes return 0. A process with no
 * address space at the open (a zombie, a kernel thread) opens a file that
 * reads nothing. */
#include "fs/internal.h"
#include "fs/proc/internal.h"
#include "kernel/pid.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "mm/gup.h"
#include "mm/mm_types.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/page_alloc.h"

/* Whether target's process is the caller's or one of its descendants
 * (Yama's ptrace_scope 1 rule, task_is_descendant). */
static bool mem_access_allowed(struct task_struct *target)
{
	struct task_struct *self = current->group_leader;
	if (!target->signal || !current->signal)
		return target == current;
	if (target->signal == current->signal)
		return true;
	bool found = false;
	spin_lock(&tasklist_lock);
	for (struct task_struct *p = target->group_leader; p; p = p->real_parent ? p->real_parent->group_leader : NULL)
		if (p == self) {
			found = true;
			break;
		}
	spin_unlock(&tasklist_lock);
	return found;
}

/* Linux's mem_open (proc_mem_open, mm_access). */
static int mem_open(struct inode *inode, struct file *f)
{
	(void)inode;
	struct proc_node pinned;
	if (proc_pin_task(&f->node, proc_self_task(), &pinned))
		return -ESRCH;
	int err = 0;
	/* mm_access asks ptrace_may_access only of a task with an mm: a
	 * kernel thread's or a zombie's opens, and reads nothing. */
	if (pinned.mm && !mem_access_allowed(pinned.task))
		err = -EACCES;
	else if (pinned.mm) {
		mmgrab(pinned.mm);
		f->private_data = pinned.mm;
	}
	proc_unpin_task(&pinned);
	return err;
}

static void mem_release(struct inode *inode, struct file *f)
{
	(void)inode;
	if (f->private_data)
		mmdrop(f->private_data);
}

/* Linux's mem_rw: a page at a time through a kernel buffer; the bytes
 * moved, or -EIO when not even the first could be (an address with no
 * mapping, or without the access even FOLL_FORCE gives), -EFAULT when the
 * caller's buffer faults before anything moved, 0 once the address space
 * is gone. */
static long mem_rw(struct file *f, char *ubuf, size_t count, long *ppos, bool user, bool write)
{
	struct mm_struct *mm = f->private_data;
	if (!mm || !count)
		return 0;
	struct page *buf_page = alloc_page(GFP_KERNEL);
	if (!buf_page)
		return -ENOMEM;
	char *page = page_address(buf_page);
	long copied = 0;
	unsigned long addr = (unsigned long)*ppos;
	unsigned int flags = FOLL_FORCE | (write ? FOLL_WRITE : 0);
	if (!mmget_not_zero(mm))
		goto free;
	while (count > 0) {
		size_t this_len = min(PAGE_SIZE, count);
		if (write && file_copy_in(page, ubuf, this_len, user)) {
			copied = -EFAULT;
			break;
		}
		this_len = (size_t)access_remote_vm(mm, addr, page, (int)this_len, flags);
		if (!this_len) {
			if (!copied)
				copied = -EIO;
			break;
		}
		if (!write && file_copy_out(ubuf, page, this_len, user)) {
			copied = -EFAULT;
			break;
		}
		ubuf += this_len;
		addr += this_len;
		copied += (long)this_len;
		count -= this_len;
	}
	*ppos = (long)addr;
	mmput(mm);
free:
	__free_page(buf_page);
	return copied;
}

static long mem_read(struct file *f, char *dst, size_t count, long *pos, bool user)
{
	return mem_rw(f, dst, count, pos, user, false);
}

static long mem_write(struct file *f, const char *src, size_t count, long *pos, bool user)
{
	return mem_rw(f, (char *)src, count, pos, user, true);
}

static const struct file_operations proc_mem_operations = {
	.open = mem_open, .read = mem_read, .write = mem_write, .llseek = mem_lseek,
	.release = mem_release, .blksize = 1024,
};

/* S_IRUSR | S_IWUSR, as Linux's REG("mem", S_IRUSR|S_IWUSR, ...), for the
 * process and for each of its threads. */
static const struct proc_dir_entry pid_mem __proc_entry = {
	.parent = &pid_dir, .name = "mem", .mode = S_IFREG | 0600, .fops = &proc_mem_operations,
};
static const struct proc_dir_entry tid_mem __proc_entry = {
	.parent = &tid_dir, .name = "mem", .mode = S_IFREG | 0600, .fops = &proc_mem_operations,
};
