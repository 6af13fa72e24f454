/* The memory character devices of major 1 (Linux's drivers/char/mem.c and
 * the read/write side of drivers/char/random.c): /dev/null (1:3), zero
 * (1:5), full (1:7), random (1:8) and urandom (1:9), registered with the
 * character-device table (fs/char_dev.c) at boot, so that a device node
 * of those numbers opens as them.
 *
 * Linux's semantics, for a reader to hold beside mem.c:
 *   null     reads end of file; writes are swallowed whole (count returned)
 *   zero     reads fill the buffer with zeros; writes are swallowed
 *   full     reads as zero; writes fail with -ENOSPC
 *   random,  reads give bytes of the kernel's ChaCha20 generator
 *   urandom  (drivers/char/random.c: seeded at its first use, so neither
 *            ever blocks, as Linux's once its pool is initialised); writes
 *            are accepted and counted (Linux mixes them into the input
 *            pool without crediting entropy; here they are dropped)
 * A read of zero, full or random into user memory that runs long stops
 * after a page when a signal is pending, with the bytes so far (as
 * read_iter_zero and get_random_bytes_user); every page yields the CPU
 * (cond_resched); a fault ends it with the bytes so far, or -EFAULT. Seeks: null, zero and full put the offset back to 0
 * (null_lseek, zero_lseek, full_lseek); random and urandom leave it
 * (noop_llseek). Nothing here keeps state: no locking. */
#include "drivers/char/random.h"
#include "fs/char_dev.h"
#include "fs/fs.h"
#include "kernel/init.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "kernel/unistd.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/page.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"

#define MEM_MAJOR 1

static long read_null(struct file *f, char *dst, size_t count, long *pos, bool user)
{
	(void)f, (void)dst, (void)count, (void)pos, (void)user;
	return 0;
}

static long write_null(struct file *f, const char *src, size_t count, long *pos, bool user)
{
	(void)f, (void)src, (void)pos, (void)user;
	return (long)count;
}

static long write_full(struct file *f, const char *src, size_t count, long *pos, bool user)
{
	(void)f, (void)src, (void)count, (void)pos, (void)user;
	return -ENOSPC;
}

/* null_lseek / zero_lseek / full_lseek: the offset is always 0. */
static long lseek_zero(struct file *f, long offset, int whence)
{
	(void)offset, (void)whence;
	return f->f_pos = 0;
}

/* noop_llseek: the offset stays where it is. */
static long lseek_noop(struct file *f, long offset, int whence)
{
	(void)offset, (void)whence;
	return f->f_pos;
}

/* Fills dst with fill()'s bytes, a chunk at a time; what was filled
 * before a fault or a pending signal is returned (-EFAULT: nothing). */
static long read_pages(char *dst, size_t count, bool user, void (*fill)(u8 *chunk, size_t n))
{
	u8 chunk[256];
	size_t done = 0;
	while (done < count) {
		if (done && (done % PAGE_SIZE) == 0) {
			if (signal_pending(current))
				return (long)done;
			cond_resched();
		}
		size_t n = min(count - done, sizeof(chunk));
		fill(chunk, n);
		size_t left = file_copy_out(dst + done, chunk, n, user);
		done += n - left;
		if (left)
			return done ? (long)done : -EFAULT;
	}
	return (long)done;
}

static void fill_zero(u8 *chunk, size_t n) { memset(chunk, 0, n); }

static void fill_random(u8 *chunk, size_t n)
{
	get_random_bytes(chunk, n);
}

static long read_zero(struct file *f, char *dst, size_t count, long *pos, bool user)
{
	(void)f, (void)pos;
	if (!user) {
		memset(dst, 0, count);
		return (long)count;
	}
	return read_pages(dst, count, user, fill_zero);
}

static long read_random(struct file *f, char *dst, size_t count, long *pos, bool user)
{
	(void)f, (void)pos;
	return read_pages(dst, count, user, fill_random);
}

/* Linux's mmap_zero: a shared mapping of /dev/zero is shared anonymous
 * memory (a new shmem object, mm/shmem.h, whose file maps shows as
 * "/dev/zero (deleted)"), a private one plain anonymous memory. Linux
 * keeps the device's file on a private mapping (its /proc/<pid>/maps line
 * names /dev/zero); mmlab's anonymous VMAs have no file, so a private one
 * keeps none here and shows no name. */
static int mmap_zero(struct file *f, struct vm_area_struct *vma)
{
	(void)f;
	if (vma->vm_flags & VM_SHARED)
		return shmem_zero_setup(vma);
	struct file *file = vma->vm_file;
	vma->vm_file = NULL; /* Linux's vma_set_anonymous */
	vma->vm_pgoff = vma->vm_start >> PAGE_SHIFT;
	fput(file);
	return 0;
}

/* Linux's get_unmapped_area_zero: a shared mapping will be shared
 * anonymous memory (shmem_zero_setup), placed as one, for its huge pages
 * (shmem_get_unmapped_area without the device's file); a private one as
 * private anonymous memory is (mm/mmap.h). */
static unsigned long get_unmapped_area_zero(struct mm_struct *mm, struct file *f, unsigned long addr,
					    unsigned long len, unsigned long pgoff, unsigned long flags)
{
	(void)f;
	if (flags & MAP_SHARED)
		return shmem_get_unmapped_area(mm, NULL, addr, len, pgoff, flags);
	/* Linux 6.1 takes the mm's plain search here; mmlab's anonymous
	 * search aligns 2 MiB multiples as later Linux does (mm/mmap.c). */
	return get_unmapped_area(mm, addr, len, flags);
}

/* What fstat shows: a character device that anyone may read and write. */
#define MEM_DEVICE_MODE (S_IFCHR | 0666)

/* Linux 6.1's: /dev/null takes a splice's output (splice_write_null),
 * no device here gives one its input (a character device cannot). */
static const struct file_operations null_fops = {
	.read = read_null, .write = write_null, .llseek = lseek_zero, .splice_write = iter_file_splice_write,
	.mode = MEM_DEVICE_MODE, .blksize = PAGE_SIZE,
};
static const struct file_operations zero_fops = {
	.read = read_zero, .write = write_null, .llseek = lseek_zero, .mmap = mmap_zero,
	.get_unmapped_area = get_unmapped_area_zero,
	.mode = MEM_DEVICE_MODE, .blksize = PAGE_SIZE,
};
static const struct file_operations full_fops = {
	.read = read_zero, .write = write_full, .llseek = lseek_zero,
	.mode = MEM_DEVICE_MODE, .blksize = PAGE_SIZE,
};
static const struct file_operations random_fops = {
	.read = read_random, .write = write_null, .llseek = lseek_noop,
	.mode = MEM_DEVICE_MODE, .blksize = PAGE_SIZE,
};
static const struct file_operations urandom_fops = {
	.read = read_random, .write = write_null, .llseek = lseek_noop,
	.mode = MEM_DEVICE_MODE, .blksize = PAGE_SIZE,
};

/* Linux's devlist: the minors of major 1 that exist here (2 kmem, 4 port
 * and 11 kmsg do not). */
static const struct memdev {
	const char *name;
	unsigned int minor;
	const struct file_operations *fops;
} devlist[] = {
	{ "null", 3, &null_fops },
	{ "zero", 5, &zero_fops },
	{ "full", 7, &full_fops },
	{ "random", 8, &random_fops },
	{ "urandom", 9, &urandom_fops },
};

/* Linux's chr_dev_init (an fs_initcall there; the one initcall level here
 * is late, which still comes before any device node can be opened: the
 * test run and the boot programs follow it). */
static int chr_dev_init(void)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(devlist); i++) {
		int ret = register_chrdev_fops(MEM_MAJOR, devlist[i].minor, devlist[i].fops);
		if (ret) {
			pr_err("mem: /dev/%s (%u:%u) not registered: error %d\n", devlist[i].name, MEM_MAJOR,
			       devlist[i].minor, ret);
			return ret;
		}
	}
	return 0;
}
late_initcall(chr_dev_init);
