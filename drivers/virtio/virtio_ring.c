/* The split virtqueue (Linux's drivers/virtio/virtio_ring.c, split ring
 * only, without indirect descriptors or the event index): virtio/virtio.h.
 *
 *   desc[num]   the descriptors: buffer address, length, flags, next
 *   avail       flags, idx, ring[num]: heads the driver offers, written by
 *               the driver only; idx counts them (mod 2^16)
 *   used        flags, idx, ring[num] of {head, bytes written}: written by
 *               the device only
 *
 * The free descriptors form a chain of their own through next, from
 * free_head. Ordering (x86, coherent DMA): the descriptors and the ring
 * entry are written before avail->idx (compiler barrier: stores are not
 * reordered with stores); avail->idx is written before used->flags is read
 * to decide on the kick (full barrier: a load may pass an earlier store);
 * used->idx is read before the used entries (compiler barrier: loads are
 * not reordered with loads). Linux's virtio_wmb/virtio_mb/virtio_rmb, with
 * weak_barriers, are the same on x86. */
#include "drivers/virtio/virtio.h"
#include "arch/x86_64/io.h"
#include "lib/getorder.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

#define virtio_mb() __asm__ volatile("lock; addl $0,-4(%%rsp)" ::: "memory", "cc")

void sg_init_one(struct scatterlist *sg, const void *buf, unsigned int len)
{
	sg->dma_address = __pa(buf);
	sg->length = len;
}

void sg_set_page(struct scatterlist *sg, struct page *page, unsigned int len, unsigned int offset)
{
	sg->dma_address = page_to_phys(page) + offset;
	sg->length = len;
}

static size_t vring_used_offset(unsigned int num)
{
	size_t avail_end = sizeof(struct vring_desc) * num + sizeof(struct vring_avail) +
			   sizeof(u16) * (num + 1); /* + used_event */
	return ALIGN_UP(avail_end, 4);
}

static size_t vring_size(unsigned int num)
{
	return vring_used_offset(num) + sizeof(struct vring_used) +
	       sizeof(struct vring_used_elem) * num + sizeof(u16); /* + avail_event */
}

struct virtqueue *vring_create_virtqueue(unsigned int index, unsigned int num,
					 struct virtio_device *vdev, vq_callback_t *callback)
{
	if (!num || (num & (num - 1)) || num > 32768)
		return NULL;
	struct virtqueue *vq = kzalloc(sizeof(*vq), GFP_KERNEL);
	if (!vq)
		return NULL;
	vq->data = kcalloc(num, sizeof(void *), GFP_KERNEL);
	vq->order = get_order(vring_size(num));
	vq->pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, vq->order);
	if (!vq->data || !vq->pages) {
		if (vq->pages)
			__free_pages(vq->pages, vq->order);
		kfree(vq->data);
		kfree(vq);
		return NULL;
	}
	u8 *ring = page_address(vq->pages);
	vq->desc = (struct vring_desc *)ring;
	vq->avail = (struct vring_avail *)(ring + sizeof(struct vring_desc) * num);
	vq->used = (struct vring_used *)(ring + vring_used_offset(num));
	vq->vdev = vdev;
	vq->index = index;
	vq->num = num;
	vq->num_free = num;
	vq->callback = callback;
	for (unsigned int i = 0; i + 1 < num; i++)
		vq->desc[i].next = (u16)(i + 1);
	vq->free_head = 0;
	return vq;
}

void vring_del_virtqueue(struct virtqueue *vq)
{
	if (!vq)
		return;
	__free_pages(vq->pages, vq->order);
	kfree(vq->data);
	kfree(vq);
}

u64 virtqueue_get_desc_addr(const struct virtqueue *vq) { return __pa(vq->desc); }
u64 virtqueue_get_avail_addr(const struct virtqueue *vq) { return __pa(vq->avail); }
u64 virtqueue_get_used_addr(const struct virtqueue *vq) { return __pa(vq->used); }

int virtqueue_add_sgs(struct virtqueue *vq, struct scatterlist *sgs[], unsigned int out_sgs,
		      unsigned int in_sgs, void *data)
{
	unsigned int total = out_sgs + in_sgs;
	if (!total || total > vq->num || !data)
		return -EINVAL;
	if (total > vq->num_free)
		return -ENOSPC;
	u16 head = vq->free_head, i = head;
	for (unsigned int n = 0; n < total; n++) {
		struct vring_desc *d = &vq->desc[i];
		d->addr = sgs[n]->dma_address;
		d->len = sgs[n]->length;
		d->flags = (u16)((n >= out_sgs ? VRING_DESC_F_WRITE : 0) |
				 (n + 1 < total ? VRING_DESC_F_NEXT : 0));
		i = d->next;
	}
	vq->free_head = i;
	vq->num_free -= total;
	vq->data[head] = data;
	vq->avail->ring[vq->avail_idx_shadow & (vq->num - 1)] = head;
	barrier(); /* virtio_wmb: the chain and its entry before the index */
	vq->avail_idx_shadow++;
	writew(vq->avail_idx_shadow, &vq->avail->idx);
	return 0;
}

bool virtqueue_kick_prepare(struct virtqueue *vq)
{
	virtio_mb(); /* the new avail->idx before the device's flags are read */
	return !(readw(&vq->used->flags) & VRING_USED_F_NO_NOTIFY);
}

void virtqueue_notify(struct virtqueue *vq)
{
	writew((u16)vq->index, vq->notify_addr);
}

bool virtqueue_more_used(const struct virtqueue *vq)
{
	return readw(&vq->used->idx) != vq->last_used_idx;
}

void *virtqueue_get_buf(struct virtqueue *vq, unsigned int *len)
{
	if (!virtqueue_more_used(vq))
		return NULL;
	barrier(); /* virtio_rmb: the index before the entry it covers */
	struct vring_used_elem *e = &vq->used->ring[vq->last_used_idx & (vq->num - 1)];
	u32 head = e->id;
	if (len)
		*len = e->len;
	if (head >= vq->num || !vq->data[head])
		return NULL; /* a device bug: Linux's BAD_RING; nothing is freed */
	vq->last_used_idx++;
	void *data = vq->data[head];
	vq->data[head] = NULL;
	/* Linux's detach_buf_split: the chain goes back on the free list. */
	unsigned int n = 1;
	u16 i = (u16)head;
	while (vq->desc[i].flags & VRING_DESC_F_NEXT) {
		i = vq->desc[i].next;
		n++;
	}
	vq->desc[i].next = vq->free_head;
	vq->free_head = (u16)head;
	vq->num_free += n;
	return data;
}

void vring_interrupt(struct virtqueue *vq)
{
	if (virtqueue_more_used(vq) && vq->callback)
		vq->callback(vq);
}
