/* Bios and their submission (Linux's block/bio.c and blk-core.c, the
 * bio-based path): block/blkdev.h. A bio is checked here, then given to
 * its disk's driver, which ends it with bio_endio from its completion
 * (an interrupt, usually). */
#include "block/blkdev.h"
#include "kernel/psi.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "lib/ratelimit.h"
#include "kernel/wait.h"
#include "mm/slab.h"

int blk_status_to_errno(blk_status_t status)
{
	switch (status) {
	case BLK_STS_OK: return 0;
	case BLK_STS_NOTSUPP: return -EOPNOTSUPP;
	case BLK_STS_RESOURCE: return -ENOMEM;
	default: return -EIO;
	}
}

struct bio *bio_alloc(struct block_device *bdev, unsigned short nr_vecs, unsigned int opf, gfp_t gfp)
{
	struct bio *bio = kzalloc(sizeof(*bio) + nr_vecs * sizeof(struct bio_vec), gfp);
	if (!bio)
		return NULL;
	bio->bi_bdev = bdev;
	bio->bi_opf = opf;
	bio->bi_max_vecs = nr_vecs;
	bio->bi_io_vec = bio->bi_inline_vecs;
	return bio;
}

void bio_put(struct bio *bio)
{
	kfree(bio);
}

int bio_add_page(struct bio *bio, struct page *page, unsigned int len, unsigned int offset)
{
	if (bio->bi_vcnt >= bio->bi_max_vecs || !len || offset + len > PAGE_SIZE)
		return 0;
	bio->bi_io_vec[bio->bi_vcnt++] = (struct bio_vec){ page, len, offset };
	bio->bi_iter.bi_size += len;
	return (int)len;
}

void bio_endio(struct bio *bio)
{
	struct gendisk *disk = bio->bi_bdev->bd_disk;
	__atomic_sub_fetch(&disk->inflight, 1, __ATOMIC_RELEASE);
	if (bio->bi_end_io)
		bio->bi_end_io(bio);
}

/* Linux 6.1's bio_check_eod, its message too (the first name is the
 * submitting task's). A disk of no size is not checked, as Linux's. */
static bool bio_check_eod(struct bio *bio)
{
	sector_t maxsector = bdev_nr_sectors(bio->bi_bdev);
	unsigned int nr_sectors = bio_sectors(bio);
	if (nr_sectors && maxsector &&
	    (nr_sectors > maxsector || bio->bi_iter.bi_sector > maxsector - nr_sectors)) {
		pr_info_ratelimited("%s: attempt to access beyond end of device\n"
				    "%s: rw=%u, sector=%llu, nr_sectors = %u limit=%llu\n",
				    current->comm, bio->bi_bdev->bd_disk->disk_name,
				    bio->bi_opf, (unsigned long long)bio->bi_iter.bi_sector, nr_sectors,
				    (unsigned long long)maxsector);
		return false;
	}
	return true;
}

/* What submit_bio_noacct checks before the driver sees the bio. */
static blk_status_t bio_check(struct bio *bio)
{
	struct gendisk *disk = bio->bi_bdev->bd_disk;
	const struct queue_limits *lim = &disk->queue.limits;
	switch (bio_op_of(bio->bi_opf)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		if (!bio->bi_iter.bi_size || bio->bi_iter.bi_size % lim->logical_block_size ||
		    bio->bi_vcnt > lim->max_segments)
			return BLK_STS_IOERR;
		return bio_check_eod(bio) ? BLK_STS_OK : BLK_STS_IOERR;
	case REQ_OP_FLUSH:
	case REQ_OP_DRV_IN:
		return BLK_STS_OK;
	}
	return BLK_STS_NOTSUPP;
}

void submit_bio(struct bio *bio)
{
	struct gendisk *disk = bio->bi_bdev->bd_disk;
	__atomic_add_fetch(&disk->inflight, 1, __ATOMIC_RELAXED);
	blk_status_t status = bio_check(bio);
	/* A flush to a disk that caches no writes has nothing to do: Linux's
	 * submit_bio_noacct ends it at once, successfully (QUEUE_FLAG_WC
	 * clear). */
	bool nothing_to_do = bio_op_of(bio->bi_opf) == REQ_OP_FLUSH && !disk->queue.write_cache;
	if (status != BLK_STS_OK || nothing_to_do) {
		bio->bi_status = status;
		bio_endio(bio);
		return;
	}
	disk->fops->submit_bio(bio);
}

static void submit_bio_wait_endio(struct bio *bio)
{
	complete(bio->bi_private);
}

int submit_bio_wait(struct bio *bio)
{
	struct completion done;
	init_completion(&done);
	bio->bi_private = &done;
	bio->bi_end_io = submit_bio_wait_endio;
	submit_bio(bio);
	/* An I/O wait (Linux's blk_wait_io): PSI's io pressure counts it. */
	wait_for_completion_io(&done);
	return blk_status_to_errno(bio->bi_status);
}

int blkdev_issue_flush(struct block_device *bdev)
{
	struct bio *bio = bio_alloc(bdev, 0, REQ_OP_FLUSH, GFP_KERNEL);
	if (!bio)
		return -ENOMEM;
	int err = submit_bio_wait(bio);
	bio_put(bio);
	return err;
}
