/* A minimal block layer (Linux's include/linux/blkdev.h, blk_types.h,
 * bio.h): disks (struct gendisk) and their whole-disk block device, the
 * bio that carries one I/O to a disk's driver, and the numbers that name
 * them (major 254, 16 minors per disk, as Linux 6.1's virtio_blk gets its
 * dynamic major "virtblk" in a QEMU machine with nothing else registered).
 *
 * What mmlab leaves out, so a reader holding this beside Linux knows:
 * no request queue, scheduler, plugging, merging or splitting (a bio goes
 * straight to the driver's submit_bio, Linux's bio-based path; a bio with
 * more segments than the disk takes is failed, not split); no partitions
 * (the disk is its only block device: no partition table is read); no
 * page cache on the block device (fs/block_dev's reads and writes go
 * through a bounce page: block/fops.c). */
#ifndef BLOCK_BLKDEV_H
#define BLOCK_BLKDEV_H

#include "fs/fs.h"
#include "kernel/types.h"
#include "lib/list.h"

typedef u64 sector_t;
#define SECTOR_SHIFT 9
#define SECTOR_SIZE (1u << SECTOR_SHIFT)

/* blk_status_t: Linux's values, and blk_status_to_errno's errnos. */
typedef u8 blk_status_t;
#define BLK_STS_OK 0
#define BLK_STS_NOTSUPP 1   /* -EOPNOTSUPP */
#define BLK_STS_RESOURCE 9  /* -ENOMEM */
#define BLK_STS_IOERR 10    /* -EIO */
int blk_status_to_errno(blk_status_t status);

/* The operations (enum req_op, Linux's numbers). */
enum req_op {
	REQ_OP_READ = 0,
	REQ_OP_WRITE = 1,
	REQ_OP_FLUSH = 2,   /* no data: make the device's writes durable */
	REQ_OP_DRV_IN = 34, /* a driver's own request (virtio-blk's GET_ID) */
};
#define REQ_OP_MASK 0xff
static inline enum req_op bio_op_of(unsigned int opf) { return (enum req_op)(opf & REQ_OP_MASK); }
static inline bool op_is_write(unsigned int opf) { return opf & 1; }

struct page;
struct bio;
typedef void bio_end_io_t(struct bio *bio);

struct bio_vec {
	struct page *bv_page;
	unsigned int bv_len;
	unsigned int bv_offset;
};

struct bvec_iter {
	sector_t bi_sector; /* where the I/O starts, in 512-byte sectors */
	unsigned int bi_size; /* bytes */
};

struct block_device;

/* One I/O: an operation on bi_iter.bi_size bytes from sector bi_sector, in
 * the pages of bi_io_vec. bi_end_io runs once it is over (bi_status set),
 * possibly in interrupt context: it may not sleep. */
struct bio {
	struct block_device *bi_bdev;
	unsigned int bi_opf;
	blk_status_t bi_status;
	struct bvec_iter bi_iter;
	bio_end_io_t *bi_end_io;
	void *bi_private;
	unsigned short bi_vcnt;
	unsigned short bi_max_vecs;
	struct bio_vec *bi_io_vec;
	struct bio_vec bi_inline_vecs[];
};

/* A bio with room for nr_vecs pages (kmalloc'd with gfp; NULL: no memory),
 * given back with bio_put. */
struct bio *bio_alloc(struct block_device *bdev, unsigned short nr_vecs, unsigned int opf, gfp_t gfp);
void bio_put(struct bio *bio);
/* Adds len bytes of page at offset: len, or 0 when the bio is full. */
int bio_add_page(struct bio *bio, struct page *page, unsigned int len, unsigned int offset);
static inline unsigned int bio_sectors(const struct bio *bio) { return bio->bi_iter.bi_size >> SECTOR_SHIFT; }

/* Hands bio to its disk's driver (Linux's submit_bio_noacct checks first):
 * a bio beyond the disk's end, of a size that is not a whole number of
 * logical blocks, with more segments than the disk takes or of an
 * operation the disk does not do ends at once (bio_endio) with
 * BLK_STS_IOERR (a flush to a disk without a write cache: BLK_STS_OK, as
 * Linux drops it), with a line in the log for the first two. Sleeps while
 * the device's queue is full. Never from interrupt context. */
void submit_bio(struct bio *bio);
/* submit_bio and wait for it: 0 or the errno of its status. */
int submit_bio_wait(struct bio *bio);
void bio_endio(struct bio *bio);
/* A flush of the disk's write cache, waited for: 0 or -errno. */
int blkdev_issue_flush(struct block_device *bdev);

struct queue_limits {
	unsigned int logical_block_size;
	unsigned int physical_block_size;
	unsigned int max_segments;  /* data segments in one bio */
	unsigned int max_segment_size;
};
struct request_queue {
	struct queue_limits limits;
	bool write_cache; /* the device caches writes: REQ_OP_FLUSH means something */
	/* Linux's QUEUE_FLAG_NONROT: no seek cost. Clear (rotational) unless
	 * the driver or /sys/block/<disk>/queue/rotational says so; Linux
	 * 6.1's virtio_blk leaves it clear, and so does mmlab's. swapon reads
	 * it (nr_rotate_swap: mm/swap_readahead.c). */
	bool nonrot;
};

struct gendisk;
struct block_device_operations {
	void (*submit_bio)(struct bio *bio);
	/* The device's id string for /sys/block/<disk>/serial (virtio-blk's
	 * GET_ID): 0 or -errno. NULL: no such file content (-EOPNOTSUPP). */
	int (*get_unique_id)(struct gendisk *disk, char *id, size_t size);
};

struct block_device {
	dev_t bd_dev;
	struct gendisk *bd_disk;
};

#define DISK_NAME_LEN 32
struct gendisk {
	int major;
	int first_minor;
	int minors;
	char disk_name[DISK_NAME_LEN];
	const struct block_device_operations *fops;
	void *private_data;
	struct request_queue queue;
	sector_t capacity;         /* 512-byte sectors, as Linux's get_capacity */
	struct block_device part0; /* the whole disk */
	struct list_head list;     /* on the list of disks, in add_disk order */
	long inflight;             /* bios handed to the driver and not ended (atomic) */
};

static inline sector_t get_capacity(const struct gendisk *disk) { return disk->capacity; }
static inline sector_t bdev_nr_sectors(const struct block_device *bdev) { return bdev->bd_disk->capacity; }
static inline bool bdev_nonrot(const struct block_device *bdev) { return READ_ONCE(bdev->bd_disk->queue.nonrot); }
static inline unsigned int bdev_logical_block_size(const struct block_device *bdev)
{
	return bdev->bd_disk->queue.limits.logical_block_size;
}

/* Linux's register_blkdev with a fixed major: 0, -EBUSY, -EINVAL. */
int register_blkdev(unsigned int major, const char *name);
/* A disk with no driver state yet (zeroed, limits 512-byte blocks). */
struct gendisk *blk_alloc_disk(void);
/* Makes the disk visible: /dev/<name> (as devtmpfs makes it: block device
 * node, mode 0600, root), /sys/block/<name>, /proc/partitions. 0 or
 * -errno (-EBUSY: its numbers are taken). */
int add_disk(struct gendisk *disk);
/* The disk whose numbers hold dev (any of its minors), or NULL. */
struct gendisk *disk_find(dev_t dev);
/* The i-th disk added (0 first), or NULL: for tests and /sys/block. */
struct gendisk *disk_nth(unsigned int i);

extern const struct file_operations def_blk_fops;

#endif
