/* The open-file side of a block device node (Linux's block/fops.c,
 * def_blk_fops, and the ioctls of block/ioctl.c): block/blkdev.h.
 *
 * Reads and writes go through one bounce page per call, a page of the
 * device at a time, each waited for (submit_bio_wait): a write of part of
 * a page reads the page first (only the sectors that exist: the device's
 * last page may be short). Linux goes through the block device's page
 * cache (and O_DIRECT around it); mmlab has no cache there, so every
 * write reaches the device before write(2) returns and fsync only flushes
 * the device's own write cache. Linux's limits are kept: a read at or past
 * the end returns 0, a write there -ENOSPC, one that crosses it is cut
 * short; the offset moves as for a file of the device's size (Linux's
 * fixed_size_llseek: beyond the end is -EINVAL). */
#include "block/blkdev.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/page_alloc.h"

/* include/uapi/linux/fs.h */
#define BLKGETSIZE 0x1260   /* _IO(0x12, 96): unsigned long, sectors */
#define BLKSSZGET 0x1268    /* _IO(0x12, 104): int, logical block size */
#define BLKPBSZGET 0x127b   /* _IO(0x12, 123): unsigned int */
#define BLKGETSIZE64 0x80081272 /* _IOR(0x12, 114, size_t): u64, bytes */

static struct block_device *file_bdev(struct file *f)
{
	return f->private_data;
}

static long bdev_size(struct block_device *bdev)
{
	return (long)(bdev_nr_sectors(bdev) << SECTOR_SHIFT);
}

static int blkdev_open(struct inode *inode, struct file *f)
{
	struct gendisk *disk = disk_find(inode->i_rdev);
	if (!disk)
		return -ENXIO;
	if (MINOR(inode->i_rdev) != (unsigned int)disk->first_minor)
		return -ENXIO; /* a partition's minor: no partitions here */
	f->private_data = &disk->part0;
	return 0;
}

/* One page of the device, [sector, sector + nr) into or out of page. */
static int bdev_rw_page(struct block_device *bdev, unsigned int op, sector_t sector,
			unsigned int nr, struct page *page)
{
	struct bio *bio = bio_alloc(bdev, 1, op, GFP_KERNEL);
	if (!bio)
		return -ENOMEM;
	bio->bi_iter.bi_sector = sector;
	bio_add_page(bio, page, nr << SECTOR_SHIFT, 0);
	int err = submit_bio_wait(bio);
	bio_put(bio);
	return err;
}

static long blkdev_rw(struct file *f, char *buf, size_t count, long *pos, bool user, bool write)
{
	struct block_device *bdev = file_bdev(f);
	long size = bdev_size(bdev);
	if (*pos < 0)
		return -EINVAL;
	if (*pos >= size)
		return write ? -ENOSPC : 0;
	if ((unsigned long)count > (unsigned long)(size - *pos))
		count = (size_t)(size - *pos);
	struct page *page = alloc_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	u8 *bounce = page_address(page);
	size_t done = 0;
	long err = 0;
	while (done < count) {
		if (done && signal_pending(current))
			break;
		long at = *pos + (long)done;
		long page_start = at & ~(long)(PAGE_SIZE - 1);
		size_t in_page = (size_t)(at - page_start);
		size_t n = min(count - done, PAGE_SIZE - in_page);
		/* The sectors of this page that exist. */
		long page_end = min(page_start + (long)PAGE_SIZE, size);
		sector_t sector = (sector_t)page_start >> SECTOR_SHIFT;
		unsigned int nr = (unsigned int)((page_end - page_start) >> SECTOR_SHIFT);
		bool whole = in_page == 0 && (long)n == page_end - page_start;
		if (!write || !whole) {
			err = bdev_rw_page(bdev, REQ_OP_READ, sector, nr, page);
			if (err)
				break;
		}
		size_t left = write ? file_copy_in(bounce + in_page, buf + done, n, user)
				    : file_copy_out(buf + done, bounce + in_page, n, user);
		if (write && left < n) {
			err = bdev_rw_page(bdev, REQ_OP_WRITE, sector, nr, page);
			if (err)
				break;
		}
		done += n - left;
		if (left) {
			err = -EFAULT;
			break;
		}
		cond_resched();
	}
	__free_page(page);
	*pos += (long)done;
	return done ? (long)done : err;
}

static long blkdev_read(struct file *f, char *dst, size_t count, long *pos, bool user)
{
	return blkdev_rw(f, dst, count, pos, user, false);
}

static long blkdev_write(struct file *f, const char *src, size_t count, long *pos, bool user)
{
	return blkdev_rw(f, (char *)src, count, pos, user, true);
}

/* Linux's blkdev_llseek: fixed_size_llseek with the device's size. */
static long blkdev_llseek(struct file *f, long offset, int whence)
{
	long size = bdev_size(file_bdev(f));
	switch (whence) {
	case SEEK_SET: break;
	case SEEK_CUR: offset += f->f_pos; break;
	case SEEK_END: offset += size; break;
	default: return -EINVAL;
	}
	if (offset < 0 || offset > size)
		return -EINVAL;
	return f->f_pos = offset;
}

static int blkdev_fsync(struct file *f, bool datasync)
{
	(void)datasync;
	int err = blkdev_issue_flush(file_bdev(f));
	return err == -EOPNOTSUPP ? 0 : err; /* as Linux's blkdev_fsync */
}

static long put_ulong(unsigned long arg, u64 val, bool wide)
{
	int err = wide ? put_user_u64(val, (void *)arg) : put_user_u32((u32)val, (void *)arg);
	return err ? -EFAULT : 0;
}

static long blkdev_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct block_device *bdev = file_bdev(f);
	switch (cmd) {
	case BLKGETSIZE64:
		return put_ulong(arg, (u64)bdev_size(bdev), true);
	case BLKGETSIZE:
		return put_ulong(arg, bdev_nr_sectors(bdev), true);
	case BLKSSZGET:
		return put_ulong(arg, bdev_logical_block_size(bdev), false);
	case BLKPBSZGET:
		return put_ulong(arg, bdev->bd_disk->queue.limits.physical_block_size, false);
	}
	return -ENOTTY;
}

const struct file_operations def_blk_fops = {
	.open = blkdev_open,
	.read = blkdev_read,
	.write = blkdev_write,
	.llseek = blkdev_llseek,
	.fsync = blkdev_fsync,
	.unlocked_ioctl = blkdev_ioctl,
	.mode = S_IFBLK | 0600,
	.blksize = PAGE_SIZE,
};
