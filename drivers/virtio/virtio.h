/* virtio (Linux's include/linux/virtio.h, virtio_config.h, virtio_ring.h
 * and the uapi virtio_pci.h / virtio_ring.h / virtio_config.h layouts):
 * a virtio device as a transport (drivers/virtio/virtio_pci_modern.c)
 * shows it to a device driver (drivers/block/virtio_blk.c), and the split
 * virtqueue both use (drivers/virtio/virtio_ring.c).
 *
 * Only the modern (virtio 1.x) PCI transport exists: a device must offer
 * VIRTIO_F_VERSION_1, is driven little-endian, and is found by its vendor-
 * specific PCI capabilities. No indirect descriptors, no event index
 * (VIRTIO_RING_F_INDIRECT_DESC / EVENT_IDX are never negotiated): the
 * driver suppresses nothing, and kicks unless the device's used ring says
 * VRING_USED_F_NO_NOTIFY. */
#ifndef DRIVERS_VIRTIO_VIRTIO_H
#define DRIVERS_VIRTIO_VIRTIO_H

#include "kernel/types.h"
#include "lib/list.h"

/* Device status bits (virtio 1.2, 2.1). */
#define VIRTIO_CONFIG_S_ACKNOWLEDGE 1
#define VIRTIO_CONFIG_S_DRIVER 2
#define VIRTIO_CONFIG_S_DRIVER_OK 4
#define VIRTIO_CONFIG_S_FEATURES_OK 8
#define VIRTIO_CONFIG_S_NEEDS_RESET 0x40
#define VIRTIO_CONFIG_S_FAILED 0x80

#define VIRTIO_F_VERSION_1 32
#define VIRTIO_RING_F_INDIRECT_DESC 28
#define VIRTIO_RING_F_EVENT_IDX 29

#define VIRTIO_ID_BLOCK 2

/* The split ring (virtio 1.2, 2.7). */
#define VRING_DESC_F_NEXT 1
#define VRING_DESC_F_WRITE 2
#define VRING_USED_F_NO_NOTIFY 1
#define VRING_AVAIL_F_NO_INTERRUPT 1
struct vring_desc {
	u64 addr;
	u32 len;
	u16 flags;
	u16 next;
};
struct vring_avail {
	u16 flags;
	u16 idx;
	u16 ring[];
};
struct vring_used_elem {
	u32 id;  /* head of the chain the device used */
	u32 len; /* bytes it wrote */
};
struct vring_used {
	u16 flags;
	u16 idx;
	struct vring_used_elem ring[];
};

/* A buffer in the direct map, by physical address (Linux's scatterlist
 * after dma_map_sg, with no IOMMU: the device sees physical memory). */
struct scatterlist {
	u64 dma_address;
	unsigned int length;
};
/* buf must be direct-mapped memory (kmalloc, a page's address), never a
 * vmalloc'd stack. */
void sg_init_one(struct scatterlist *sg, const void *buf, unsigned int len);
struct page;
void sg_set_page(struct scatterlist *sg, struct page *page, unsigned int len, unsigned int offset);

struct virtio_device;
struct virtqueue;
typedef void vq_callback_t(struct virtqueue *vq);

/* One split virtqueue: its rings in one zeroed, physically contiguous
 * allocation; the free descriptors chained from free_head. The driver
 * serialises every call on a queue with a lock of its own (as Linux's
 * virtio drivers do); vring_interrupt may run at any time and only calls
 * the callback, which takes that lock. */
struct virtqueue {
	struct virtio_device *vdev;
	unsigned int index;
	unsigned int num;      /* entries: a power of two */
	unsigned int num_free; /* descriptors not in a chain the device holds */
	vq_callback_t *callback;
	void *priv;            /* the driver's */
	/* private to virtio_ring.c */
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	u16 free_head;
	u16 avail_idx_shadow;
	u16 last_used_idx;
	void **data;           /* each chain's token, by head */
	struct page *pages;
	unsigned int order;
	void *notify_addr;     /* where virtqueue_notify writes index */
};

/* Builds a queue of num entries (a power of two) for vdev; NULL: -ENOMEM. */
struct virtqueue *vring_create_virtqueue(unsigned int index, unsigned int num,
					 struct virtio_device *vdev, vq_callback_t *callback);
void vring_del_virtqueue(struct virtqueue *vq);
u64 virtqueue_get_desc_addr(const struct virtqueue *vq);
u64 virtqueue_get_avail_addr(const struct virtqueue *vq);
u64 virtqueue_get_used_addr(const struct virtqueue *vq);
/* Chains out_sgs device-readable then in_sgs device-writable buffers and
 * makes the chain available with token data (non-NULL). 0, -ENOSPC (too
 * few free descriptors: nothing added) or -EINVAL (no buffer, more than
 * num). */
int virtqueue_add_sgs(struct virtqueue *vq, struct scatterlist *sgs[], unsigned int out_sgs,
		      unsigned int in_sgs, void *data);
/* Whether the device wants a notification for what was added. */
bool virtqueue_kick_prepare(struct virtqueue *vq);
void virtqueue_notify(struct virtqueue *vq);
/* The token of the next chain the device used (its descriptors freed),
 * *len the bytes it wrote; NULL when none. */
void *virtqueue_get_buf(struct virtqueue *vq, unsigned int *len);
/* Whether the used ring holds chains not yet taken. */
bool virtqueue_more_used(const struct virtqueue *vq);
/* The interrupt of vq: calls its callback when it has used chains. */
void vring_interrupt(struct virtqueue *vq);

struct virtio_config_ops {
	void (*get)(struct virtio_device *vdev, unsigned int offset, void *buf, unsigned int len);
	u8 (*get_status)(struct virtio_device *vdev);
	void (*set_status)(struct virtio_device *vdev, u8 status);
	void (*reset)(struct virtio_device *vdev);
	u64 (*get_features)(struct virtio_device *vdev);
	/* Writes vdev->features to the device (before FEATURES_OK). */
	void (*finalize_features)(struct virtio_device *vdev);
	/* nvqs queues, callbacks[i] called from queue i's interrupt (or, with
	 * no interrupt, from the driver's polling: vdev->polled). 0 or -errno. */
	int (*find_vqs)(struct virtio_device *vdev, unsigned int nvqs, struct virtqueue *vqs[],
			vq_callback_t *callbacks[]);
	void (*del_vqs)(struct virtio_device *vdev);
};

struct virtio_device_id {
	u32 device;
};

struct virtio_device {
	int index;                /* virtio0, virtio1, ... */
	u32 id;                   /* VIRTIO_ID_* */
	u64 features;             /* negotiated */
	bool polled;              /* no interrupts: the driver polls its queues */
	const struct virtio_config_ops *config;
	struct virtio_driver *driver;
	void (*config_changed)(struct virtio_device *vdev);
	struct list_head list;
	void *priv;               /* the driver's */
};

struct virtio_driver {
	const char *name;
	const struct virtio_device_id *id_table; /* ends with device 0 */
	const unsigned int *feature_table;        /* the features it knows */
	unsigned int feature_table_size;
	int (*probe)(struct virtio_device *vdev);
	void (*config_changed)(struct virtio_device *vdev);
	struct list_head list;
};

/* Linux's register_virtio_driver / register_virtio_device: each binds
 * to the other side already registered (drivers/virtio/virtio.c). */
int register_virtio_driver(struct virtio_driver *drv);
/* Resets the device and, when a driver for it is registered, negotiates
 * the features (the device's, the driver's feature_table and VERSION_1)
 * and calls the driver's probe (a failure leaves the device reset and
 * FAILED, logged). The device stays registered: 0. */
int register_virtio_device(struct virtio_device *vdev);

static inline bool virtio_has_feature(const struct virtio_device *vdev, unsigned int fbit)
{
	return vdev->features >> fbit & 1;
}
/* Linux's virtio_device_ready: DRIVER_OK, the queues may now be used. */
void virtio_device_ready(struct virtio_device *vdev);

#define virtio_cread(vdev, structname, member, ptr)                                   \
	(vdev)->config->get((vdev), __builtin_offsetof(structname, member), (ptr),     \
			    sizeof(*(ptr)))

#endif
