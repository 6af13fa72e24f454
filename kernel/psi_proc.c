/* /proc/pressure/: io, memory and cpu (Linux 6.1's psi_proc_init and
 * psi_show, kernel/sched/psi.c), each two lines:
 *
 *	some avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *	full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *
 * the averages in percent of wall-clock time over 10 s, 60 s and 300 s,
 * total the stall time in microseconds since boot. cpu's "full" line is
 * all zeros (undefined for the whole system, printed for the format's
 * sake, as Linux's). With psi=0 the directory is not there, as Linux
 * creates it only when PSI is enabled.
 *
 * The files are 0666 and take one trigger per open file
 * (kernel/psi_trigger.c): a write of "<some|full> <threshold us> <window
 * us>" makes one (a second write -EBUSY), poll() reports POLLPRI when it
 * fires, the file's release destroys it. Opening for writing needs
 * CAP_SYS_RESOURCE (Linux 5.13 to 6.4's psi_open: -EPERM). */
#include "fs/fs.h"
#include "fs/poll.h"
#include "fs/proc/proc_fs.h"
#include "kernel/cred.h"
#include "kernel/mutex.h"
#include "kernel/psi.h"
#include "lib/seq_buf.h"
#include "lib/string.h"
#include "mm/util.h"

/* "pressure", only while PSI is on: a family of one member. */
static bool pressure_match(const char *name, size_t len, struct task_struct *task, struct proc_node *node)
{
	(void)task;
	(void)node;
	return psi_enable && len == 8 && !memcmp(name, "pressure", 8);
}

static bool pressure_list(unsigned int i, struct task_struct *task, char *name, size_t size)
{
	(void)task;
	if (i || !psi_enable)
		return false;
	strlcpy(name, "pressure", size);
	return true;
}

static const struct proc_dir_entry proc_pressure_dir __proc_entry = {
	.parent = &proc_root_dir, .match = pressure_match, .list = pressure_list, .mode = S_IFDIR | 0555,
};

static enum psi_res psi_res_of(const struct file *f)
{
	return (enum psi_res)(uintptr_t)f->node.entry->data;
}

/* The two lines into a new snapshot of f (Linux's single_open with
 * psi_show): the caller holds f->seq_lock, or is the open. */
static int psi_fill(struct file *f)
{
	const size_t size = 256; /* two lines of at most 88 bytes */
	char *buf = kvmalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	struct seq_buf m = { .buffer = buf, .size = size };
	psi_show(&m, &psi_system, psi_res_of(f));
	kvfree(f->buf);
	f->buf = buf;
	f->size = m.len < size ? m.len : size;
	return 0;
}

/* Linux's psi_open: a writer must be able to raise resource use. The
 * content is a snapshot taken now, as any generated file's. */
static int psi_open(struct inode *inode, struct file *f)
{
	(void)inode;
	if ((f->f_mode & FMODE_WRITE) && !capable(CAP_SYS_RESOURCE))
		return -EPERM;
	return psi_fill(f);
}

/* seq_read: generated again by a read at offset 0, else from the
 * snapshot (fs/proc/inode.c's proc_read for these files). */
static long psi_read(struct file *f, char *dst, size_t count, long *pos, bool user)
{
	if (!count)
		return 0;
	long ret = 0;
	mutex_lock(&f->seq_lock);
	if (*pos == 0)
		ret = psi_fill(f);
	if (!ret && (unsigned long)*pos < f->size) {
		size_t n = count < f->size - (size_t)*pos ? count : f->size - (size_t)*pos;
		size_t copied = n - file_copy_out(dst, f->buf + *pos, n, user);
		if (copied) {
			*pos += (long)copied;
			ret = (long)copied;
		} else {
			ret = -EFAULT;
		}
	}
	mutex_unlock(&f->seq_lock);
	return ret;
}

/* Linux's psi_write: one trigger per open file, from the first 32 bytes
 * (the last of them made the end of the string). */
static long psi_write(struct file *f, const char *src, size_t count, long *pos, bool user)
{
	(void)pos;
	char buf[32];
	if (!count)
		return -EINVAL;
	size_t n = count < sizeof(buf) ? count : sizeof(buf);
	if (file_copy_in(buf, src, n, user))
		return -EFAULT;
	buf[n - 1] = '\0';
	mutex_lock(&f->seq_lock); /* seq->lock: one trigger per file */
	if (f->private_data) {
		mutex_unlock(&f->seq_lock);
		return -EBUSY;
	}
	int err;
	struct psi_trigger *t = psi_trigger_create(&psi_system, buf, psi_res_of(f), &err);
	if (t)
		__atomic_store_n(&f->private_data, t, __ATOMIC_RELEASE);
	mutex_unlock(&f->seq_lock);
	return t ? (long)count : err;
}

static __poll_t psi_fop_poll(struct file *f, struct poll_table_struct *pt)
{
	return psi_trigger_poll(__atomic_load_n(&f->private_data, __ATOMIC_ACQUIRE), f, pt);
}

static void psi_fop_release(struct inode *inode, struct file *f)
{
	(void)inode;
	psi_trigger_destroy(f->private_data);
	f->private_data = NULL;
}

static const struct file_operations psi_fops = {
	.open = psi_open, .read = psi_read, .write = psi_write, .llseek = proc_snapshot_lseek,
	.poll = psi_fop_poll, .release = psi_fop_release, .blksize = 1024,
};

static const struct proc_dir_entry psi_io_entry __proc_entry = {
	.parent = &proc_pressure_dir, .name = "io", .mode = S_IFREG | 0666,
	.fops = &psi_fops, .data = (const void *)(uintptr_t)PSI_IO,
};
static const struct proc_dir_entry psi_memory_entry __proc_entry = {
	.parent = &proc_pressure_dir, .name = "memory", .mode = S_IFREG | 0666,
	.fops = &psi_fops, .data = (const void *)(uintptr_t)PSI_MEM,
};
static const struct proc_dir_entry psi_cpu_entry __proc_entry = {
	.parent = &proc_pressure_dir, .name = "cpu", .mode = S_IFREG | 0666,
	.fops = &psi_fops, .data = (const void *)(uintptr_t)PSI_CPU,
};
