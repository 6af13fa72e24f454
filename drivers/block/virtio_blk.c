/* The virtio block device (Linux's drivers/block/virtio_blk.c, one queue):
 * each bio becomes one request on the device's virtqueue, a chain of
 *
 *   struct virtio_blk_outhdr  {type, ioprio, sector}   device reads
 *   the bio's pages                                    reads (OUT) or writes (IN)
 *   u8 status                                          device writes
 *
 * and ends (bio_endio) from the queue's interrupt, its status turned into
 * the bio's as Linux's virtblk_result: OK, UNSUPP -> BLK_STS_NOTSUPP
 * (-EOPNOTSUPP), IOERR and anything else -> BLK_STS_IOERR (-EIO).
 *
 * Requests live in an array allocated at probe (Linux's tag set: no
 * allocation on the I/O path, so a bio can be submitted where memory is
 * short, swap's case). A submitter that finds no free request or too few
 * free descriptors sleeps on vblk->wait until a completion frees some
 * (Linux's blk-mq would stop the hardware queue and requeue). Without
 * interrupts (vdev->polled) a submitter polls the queue until it is idle.
 *
 * Locking: vblk->lock (interrupts off) guards the virtqueue and the free
 * requests; bios are ended after it is dropped, so an end_io may submit
 * again. Disks are named vda, vdb, ... in probe order, major 254 (the
 * dynamic major Linux 6.1 gives "virtblk" in such a machine), 16 minors
 * each (PART_BITS 4), though no partition table is read. */
#include "block/blkdev.h"
#include "drivers/virtio/virtio.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/wait.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

#define VIRTBLK_MAJOR 254
#define PART_BITS 4

/* Feature bits and the configuration layout (uapi virtio_blk.h). */
#define VIRTIO_BLK_F_SIZE_MAX 1
#define VIRTIO_BLK_F_SEG_MAX 2
#define VIRTIO_BLK_F_BLK_SIZE 6
#define VIRTIO_BLK_F_FLUSH 9
struct virtio_blk_config {
	u64 capacity; /* 512-byte sectors */
	u32 size_max;
	u32 seg_max;
	struct { u16 cylinders; u8 heads; u8 sectors; } geometry;
	u32 blk_size;
} __packed;

#define VIRTIO_BLK_T_IN 0
#define VIRTIO_BLK_T_OUT 1
#define VIRTIO_BLK_T_FLUSH 4
#define VIRTIO_BLK_T_GET_ID 8
#define VIRTIO_BLK_S_OK 0
#define VIRTIO_BLK_S_IOERR 1
#define VIRTIO_BLK_S_UNSUPP 2
#define VIRTIO_BLK_ID_BYTES 20

struct virtio_blk_outhdr {
	u32 type;
	u32 ioprio;
	u64 sector;
};

struct virtblk_req {
	struct virtio_blk_outhdr out_hdr; /* direct-mapped: the device reads it */
	u8 status;                        /* and writes this */
	struct bio *bio;
	struct virtblk_req *next_free;
};

struct virtio_blk {
	struct virtio_device *vdev;
	struct virtqueue *vq;
	spinlock_t lock;
	struct wait_queue_head wait; /* submitters waiting for room */
	struct virtblk_req *reqs;
	struct virtblk_req *free_reqs;
	struct gendisk *disk;
};

static blk_status_t virtblk_result(u8 status)
{
	switch (status) {
	case VIRTIO_BLK_S_OK: return BLK_STS_OK;
	case VIRTIO_BLK_S_UNSUPP: return BLK_STS_NOTSUPP;
	default: return BLK_STS_IOERR;
	}
}

/* Takes the used requests off the queue and ends their bios, a batch at
 * a time with the lock dropped. Interrupt context, or a polling
 * submitter. */
static void virtblk_done(struct virtqueue *vq)
{
	struct virtio_blk *vblk = vq->vdev->priv;
	struct bio *batch[16];
	unsigned int n;
	do {
		unsigned long flags;
		n = 0;
		spin_lock_irqsave(&vblk->lock, flags);
		struct virtblk_req *req;
		while (n < ARRAY_SIZE(batch) && (req = virtqueue_get_buf(vq, NULL))) {
			req->bio->bi_status = virtblk_result(req->status);
			batch[n++] = req->bio;
			req->bio = NULL;
			req->next_free = vblk->free_reqs;
			vblk->free_reqs = req;
		}
		spin_unlock_irqrestore(&vblk->lock, flags);
		for (unsigned int i = 0; i < n; i++)
			bio_endio(batch[i]);
		if (n)
			wake_up_all(&vblk->wait);
	} while (n == ARRAY_SIZE(batch));
}

static bool virtblk_has_room(struct virtio_blk *vblk, unsigned int nsg)
{
	return __atomic_load_n(&vblk->free_reqs, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&vblk->vq->num_free, __ATOMIC_RELAXED) >= nsg;
}

static void virtblk_poll_idle(struct virtio_blk *vblk)
{
	while (__atomic_load_n(&vblk->vq->num_free, __ATOMIC_ACQUIRE) != vblk->vq->num) {
		virtblk_done(vblk->vq);
		cond_resched();
	}
}

static void virtblk_submit_bio(struct bio *bio)
{
	struct virtio_blk *vblk = bio->bi_bdev->bd_disk->private_data;
	struct virtqueue *vq = vblk->vq;
	unsigned int type;
	switch (bio_op_of(bio->bi_opf)) {
	case REQ_OP_READ: type = VIRTIO_BLK_T_IN; break;
	case REQ_OP_WRITE: type = VIRTIO_BLK_T_OUT; break;
	case REQ_OP_FLUSH: type = VIRTIO_BLK_T_FLUSH; break;
	case REQ_OP_DRV_IN: type = VIRTIO_BLK_T_GET_ID; break;
	default:
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		return;
	}
	unsigned int nsg = bio->bi_vcnt + 2;
	unsigned long flags;
	spin_lock_irqsave(&vblk->lock, flags);
	while (!vblk->free_reqs || vq->num_free < nsg) {
		spin_unlock_irqrestore(&vblk->lock, flags);
		if (vblk->vdev->polled)
			virtblk_done(vq);
		else
			wait_event(vblk->wait, virtblk_has_room(vblk, nsg));
		spin_lock_irqsave(&vblk->lock, flags);
	}
	struct virtblk_req *req = vblk->free_reqs;
	vblk->free_reqs = req->next_free;
	req->bio = bio;
	req->status = 0xff; /* overwritten by the device */
	req->out_hdr = (struct virtio_blk_outhdr){
		.type = type,
		.sector = type == VIRTIO_BLK_T_IN || type == VIRTIO_BLK_T_OUT ? bio->bi_iter.bi_sector : 0,
	};
	struct scatterlist hdr, status, data[nsg]; /* nsg - 2 used: never a zero-length array */
	struct scatterlist *sgs[nsg];
	unsigned int out = 0;
	sg_init_one(&hdr, &req->out_hdr, sizeof(req->out_hdr));
	sgs[out++] = &hdr;
	for (unsigned int i = 0; i < bio->bi_vcnt; i++) {
		const struct bio_vec *bv = &bio->bi_io_vec[i];
		sg_set_page(&data[i], bv->bv_page, bv->bv_len, bv->bv_offset);
		sgs[1 + i] = &data[i];
	}
	if (type == VIRTIO_BLK_T_OUT)
		out += bio->bi_vcnt;
	sg_init_one(&status, &req->status, sizeof(req->status));
	sgs[nsg - 1] = &status;
	int err = virtqueue_add_sgs(vq, sgs, out, nsg - out, req);
	bool kick = !err && virtqueue_kick_prepare(vq);
	if (err) { /* only -EINVAL: more segments than the queue has */
		req->bio = NULL;
		req->next_free = vblk->free_reqs;
		vblk->free_reqs = req;
	}
	spin_unlock_irqrestore(&vblk->lock, flags);
	if (err) {
		bio->bi_status = BLK_STS_IOERR;
		bio_endio(bio);
		return;
	}
	if (kick)
		virtqueue_notify(vq);
	if (vblk->vdev->polled)
		virtblk_poll_idle(vblk);
}

/* Linux's virtblk_get_id: the device's id string, NUL-padded to 20 bytes
 * (the string given as the QEMU drive's serial=). */
static int virtblk_get_id(struct gendisk *disk, char *id, size_t size)
{
	struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return -ENOMEM;
	struct bio *bio = bio_alloc(&disk->part0, 1, REQ_OP_DRV_IN, GFP_KERNEL);
	int err = -ENOMEM;
	if (bio) {
		bio_add_page(bio, page, VIRTIO_BLK_ID_BYTES, 0);
		err = submit_bio_wait(bio);
		bio_put(bio);
	}
	if (!err && size) {
		size_t n = min(size - 1, (size_t)VIRTIO_BLK_ID_BYTES);
		memcpy(id, page_address(page), n);
		id[n] = '\0';
	}
	__free_page(page);
	return err;
}

static const struct block_device_operations virtblk_fops = {
	.submit_bio = virtblk_submit_bio,
	.get_unique_id = virtblk_get_id,
};

/* Linux's string_get_size for a byte count: three significant digits in
 * units of 1000 (kB, MB...) or 1024 (KiB, MiB...), rounded: "33.6 MB". */
static void string_get_size(u64 size, bool binary, char *buf, size_t len)
{
	static const char *const units10[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };
	static const char *const units2[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	static const unsigned int rounding[] = { 500, 50, 5 };
	unsigned int divisor = binary ? 1024 : 1000, i = 0, j = 0, remainder = 0;
	while (size >= divisor) {
		remainder = (unsigned int)(size % divisor);
		size /= divisor;
		i++;
	}
	for (u64 sf_cap = size; sf_cap * 10 < 1000; sf_cap *= 10)
		j++;
	if (binary)
		remainder = remainder * 1000 >> 10;
	remainder += rounding[j];
	if (remainder >= 1000) {
		remainder -= 1000;
		size++;
	}
	char frac[8] = "";
	if (j) {
		snprintf(frac, sizeof(frac), ".%03u", remainder);
		frac[j + 1] = '\0';
	}
	snprintf(buf, len, "%llu%s %s", (unsigned long long)size, frac, (binary ? units2 : units10)[i]);
}

/* virtblk_update_capacity's line: "[vda] 65536 512-byte logical blocks
 * (33.6 MB/32.0 MiB)". */
static void virtblk_print_size(struct virtio_blk *vblk, const char *what)
{
	u64 bytes = get_capacity(vblk->disk) << SECTOR_SHIFT;
	unsigned int lbs = vblk->disk->queue.limits.logical_block_size;
	char s10[16], s2[16];
	string_get_size(bytes, false, s10, sizeof(s10));
	string_get_size(bytes, true, s2, sizeof(s2));
	pr_info("virtio_blk virtio%d: [%s] %s%llu %u-byte logical blocks (%s/%s)\n", vblk->vdev->index,
		vblk->disk->disk_name, what, (unsigned long long)(bytes / lbs), lbs, s10, s2);
}

/* A resize of the backing image (QEMU's block_resize): Linux's
 * virtblk_update_capacity, here from the configuration interrupt. */
static void virtblk_config_changed(struct virtio_device *vdev)
{
	struct virtio_blk *vblk = vdev->priv;
	if (!vblk || !vblk->disk)
		return;
	u64 capacity;
	virtio_cread(vdev, struct virtio_blk_config, capacity, &capacity);
	if (capacity == vblk->disk->capacity)
		return;
	vblk->disk->capacity = capacity;
	virtblk_print_size(vblk, "new size: ");
}

static int virtblk_probe(struct virtio_device *vdev)
{
	static int next_index;
	struct virtio_blk *vblk = kzalloc(sizeof(*vblk), GFP_KERNEL);
	if (!vblk)
		return -ENOMEM;
	spin_lock_init(&vblk->lock);
	init_waitqueue_head(&vblk->wait);
	vblk->vdev = vdev;
	vq_callback_t *callbacks[] = { virtblk_done };
	int err = vdev->config->find_vqs(vdev, 1, &vblk->vq, callbacks);
	if (err)
		goto out_free;
	vblk->reqs = kcalloc(vblk->vq->num, sizeof(*vblk->reqs), GFP_KERNEL);
	vblk->disk = blk_alloc_disk();
	err = -ENOMEM;
	if (!vblk->reqs || !vblk->disk)
		goto out_vqs;
	for (unsigned int i = 0; i < vblk->vq->num; i++) {
		vblk->reqs[i].next_free = vblk->free_reqs;
		vblk->free_reqs = &vblk->reqs[i];
	}
	struct gendisk *disk = vblk->disk;
	int index = next_index++;
	if (index >= 26 * 27) {
		err = -ENOSPC;
		goto out_vqs;
	}
	/* virtblk_name_format: vda..vdz, then vdaa.. */
	if (index < 26)
		snprintf(disk->disk_name, sizeof(disk->disk_name), "vd%c", 'a' + index);
	else
		snprintf(disk->disk_name, sizeof(disk->disk_name), "vd%c%c", 'a' + index / 26 - 1,
			 'a' + index % 26);
	disk->major = VIRTBLK_MAJOR;
	disk->first_minor = index << PART_BITS;
	disk->minors = 1 << PART_BITS;
	disk->fops = &virtblk_fops;
	disk->private_data = vblk;
	struct queue_limits *lim = &disk->queue.limits;
	u32 seg_max = 0, blk_size = 0;
	if (virtio_has_feature(vdev, VIRTIO_BLK_F_SEG_MAX))
		virtio_cread(vdev, struct virtio_blk_config, seg_max, &seg_max);
	lim->max_segments = seg_max ? seg_max : 1;
	if (lim->max_segments > vblk->vq->num - 2)
		lim->max_segments = vblk->vq->num - 2;
	if (virtio_has_feature(vdev, VIRTIO_BLK_F_BLK_SIZE)) {
		virtio_cread(vdev, struct virtio_blk_config, blk_size, &blk_size);
		if (blk_size >= SECTOR_SIZE && blk_size <= PAGE_SIZE && !(blk_size & (blk_size - 1)))
			lim->logical_block_size = lim->physical_block_size = blk_size;
		else
			pr_warn("virtio_blk virtio%d: blk_size %u ignored\n", vdev->index, blk_size);
	}
	disk->queue.write_cache = virtio_has_feature(vdev, VIRTIO_BLK_F_FLUSH);
	virtio_cread(vdev, struct virtio_blk_config, capacity, &disk->capacity);
	vdev->priv = vblk;
	virtio_device_ready(vdev);
	pr_info("virtio_blk virtio%d: 1/0/0 default/read/poll queues\n", vdev->index);
	virtblk_print_size(vblk, "");
	err = add_disk(disk);
	if (!err)
		return 0;
	vdev->priv = NULL;
	vdev->config->reset(vdev);
out_vqs:
	vdev->config->del_vqs(vdev);
	kfree(vblk->disk);
	kfree(vblk->reqs);
out_free:
	kfree(vblk);
	return err;
}

static const unsigned int virtblk_features[] = {
	VIRTIO_BLK_F_SEG_MAX, VIRTIO_BLK_F_BLK_SIZE, VIRTIO_BLK_F_FLUSH,
};
static const struct virtio_device_id virtblk_id_table[] = { { VIRTIO_ID_BLOCK }, { 0 } };

static struct virtio_driver virtio_blk_driver = {
	.name = "virtio_blk",
	.id_table = virtblk_id_table,
	.feature_table = virtblk_features,
	.feature_table_size = ARRAY_SIZE(virtblk_features),
	.probe = virtblk_probe,
	.config_changed = virtblk_config_changed,
};

static int virtio_blk_init(void)
{
	int err = register_blkdev(VIRTBLK_MAJOR, "virtblk");
	if (err)
		return err;
	return register_virtio_driver(&virtio_blk_driver);
}
late_initcall(virtio_blk_init);
