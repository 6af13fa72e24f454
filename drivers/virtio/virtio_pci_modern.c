/* The virtio 1.x PCI transport (Linux's drivers/virtio/virtio_pci_modern.c
 * and virtio_pci_modern_dev.c, with the MSI-X setup of virtio_pci_common.c):
 * a PCI function of vendor 0x1af4, ids 0x1000-0x107f, whose registers are
 * found through vendor-specific capabilities (virtio 1.2, 4.1.4):
 *
 *   COMMON  features, status, and per queue (queue_select): its size, ring
 *           addresses, MSI-X vector, notify offset and enable
 *   NOTIFY  where a queue is kicked: base + queue_notify_off * multiplier
 *   ISR     read-to-clear interrupt cause (INTx only: unused with MSI-X)
 *   DEVICE  the device type's configuration (virtio-blk's capacity...)
 *
 * Interrupts: MSI-X, entry 0 for configuration changes and entry 1 for
 * the queue (Linux's vp_find_vqs_msix with one vector per queue). Without
 * MSI-X (or if the device refuses a vector) the queues are polled by the
 * driver (vdev->polled, logged): Linux would fall back to INTx through the
 * I/O APIC, which mmlab does not drive. */
#include "drivers/pci/pci.h"
#include "drivers/virtio/virtio.h"
#include "arch/x86_64/io.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "mm/slab.h"

#define PCI_VENDOR_ID_REDHAT_QUMRANET 0x1af4

#define VIRTIO_PCI_CAP_COMMON_CFG 1
#define VIRTIO_PCI_CAP_NOTIFY_CFG 2
#define VIRTIO_PCI_CAP_ISR_CFG 3
#define VIRTIO_PCI_CAP_DEVICE_CFG 4
#define VIRTIO_PCI_CAP_PCI_CFG 5
#define VIRTIO_MSI_NO_VECTOR 0xffff
#define VIRTIO_PCI_MAX_QUEUES 4
/* mmlab's choice: a queue never longer than this (QEMU offers 256), so
 * that its rings fit one page. */
#define VIRTIO_PCI_QUEUE_MAX 128

/* struct virtio_pci_cap's fields (virtio 1.2, 4.1.4), by offset. */
#define VIRTIO_PCI_CAP_CFG_TYPE 3
#define VIRTIO_PCI_CAP_BAR 4
#define VIRTIO_PCI_CAP_OFFSET 8
#define VIRTIO_PCI_CAP_LENGTH 12
#define VIRTIO_PCI_NOTIFY_CAP_MULT 16

struct virtio_pci_common_cfg {
	u32 device_feature_select;
	u32 device_feature;
	u32 guest_feature_select;
	u32 guest_feature;
	u16 msix_config;
	u16 num_queues;
	u8 device_status;
	u8 config_generation;
	u16 queue_select;
	u16 queue_size;
	u16 queue_msix_vector;
	u16 queue_enable;
	u16 queue_notify_off;
	u32 queue_desc_lo, queue_desc_hi;
	u32 queue_avail_lo, queue_avail_hi;
	u32 queue_used_lo, queue_used_hi;
} __packed;

struct virtio_pci_device {
	struct virtio_device vdev;
	struct pci_dev *pci_dev;
	struct virtio_pci_common_cfg *common;
	u8 *isr;
	u8 *device;
	u32 device_len;
	u8 *notify_base;
	u32 notify_len;
	u32 notify_offset_multiplier;
	struct virtqueue *vqs[VIRTIO_PCI_MAX_QUEUES];
	unsigned int nvqs;
	bool msix;
};

#define to_vp_device(v) container_of(v, struct virtio_pci_device, vdev)
#define vp_read(field) _Generic((field), u8: readb, u16: readw, u32: readl)(&(field))
#define vp_write(v, field) _Generic((field), u8: writeb, u16: writew, u32: writel)((v), &(field))

static u8 vp_get_status(struct virtio_device *vdev)
{
	return vp_read(to_vp_device(vdev)->common->device_status);
}

static void vp_set_status(struct virtio_device *vdev, u8 status)
{
	vp_write(status, to_vp_device(vdev)->common->device_status);
}

/* Linux's vp_modern_set_status(0) and the wait for the device's reset. */
static void vp_reset(struct virtio_device *vdev)
{
	vp_set_status(vdev, 0);
	while (vp_get_status(vdev))
		__asm__ volatile("pause");
}

static u64 vp_get_features(struct virtio_device *vdev)
{
	struct virtio_pci_common_cfg *c = to_vp_device(vdev)->common;
	vp_write(0u, c->device_feature_select);
	u64 f = vp_read(c->device_feature);
	vp_write(1u, c->device_feature_select);
	return f | (u64)vp_read(c->device_feature) << 32;
}

static void vp_finalize_features(struct virtio_device *vdev)
{
	struct virtio_pci_common_cfg *c = to_vp_device(vdev)->common;
	vp_write(0u, c->guest_feature_select);
	vp_write((u32)vdev->features, c->guest_feature);
	vp_write(1u, c->guest_feature_select);
	vp_write((u32)(vdev->features >> 32), c->guest_feature);
}

/* Linux's vp_get with virtio_cread's generation loop: a field read again
 * if the device changed its configuration meanwhile. */
static void vp_get(struct virtio_device *vdev, unsigned int offset, void *buf, unsigned int len)
{
	struct virtio_pci_device *vp = to_vp_device(vdev);
	if (offset + len > vp->device_len || offset + len < offset) {
		pr_warn("virtio%d: config read at %u+%u beyond its %u bytes\n", vdev->index, offset,
			len, vp->device_len);
		return;
	}
	u8 *p = vp->device + offset, *out = buf, gen;
	do {
		gen = vp_read(vp->common->config_generation);
		if (len == 2)
			*(u16 *)buf = readw(p);
		else if (len == 4)
			*(u32 *)buf = readl(p);
		else if (len == 8)
			*(u64 *)buf = readl(p) | (u64)readl(p + 4) << 32;
		else
			for (unsigned int i = 0; i < len; i++)
				out[i] = readb(p + i);
	} while (gen != vp_read(vp->common->config_generation));
}

static irqreturn_t vp_config_interrupt(int irq, void *opaque)
{
	struct virtio_device *vdev = opaque;
	(void)irq;
	if (vdev->config_changed)
		vdev->config_changed(vdev);
	return IRQ_HANDLED;
}

static irqreturn_t vp_vring_interrupt(int irq, void *opaque)
{
	(void)irq;
	vring_interrupt(opaque);
	return IRQ_HANDLED;
}

static void vp_del_vqs(struct virtio_device *vdev)
{
	struct virtio_pci_device *vp = to_vp_device(vdev);
	struct pci_dev *pdev = vp->pci_dev;
	for (unsigned int i = 0; i < vp->nvqs; i++) {
		vp_write((u16)i, vp->common->queue_select);
		vp_write((u16)VIRTIO_MSI_NO_VECTOR, vp->common->queue_msix_vector);
		if (vp->msix)
			free_irq((unsigned int)pci_irq_vector(pdev, 1 + i), vp->vqs[i]);
		vring_del_virtqueue(vp->vqs[i]);
		vp->vqs[i] = NULL;
	}
	vp->nvqs = 0;
	if (vp->msix) {
		vp_write((u16)VIRTIO_MSI_NO_VECTOR, vp->common->msix_config);
		free_irq((unsigned int)pci_irq_vector(pdev, 0), vdev);
		pci_free_irq_vectors(pdev);
		vp->msix = false;
	}
}

/* MSI-X entries 0 (configuration) and 1.. (one per queue), or none. */
static bool vp_request_msix(struct virtio_pci_device *vp, unsigned int nvqs)
{
	struct pci_dev *pdev = vp->pci_dev;
	int n = pci_alloc_irq_vectors(pdev, 1 + nvqs, 1 + nvqs, PCI_IRQ_MSIX);
	if (n < 0)
		return false;
	if (request_irq((unsigned int)pci_irq_vector(pdev, 0), vp_config_interrupt, 0, "virtio-config",
			&vp->vdev)) {
		pci_free_irq_vectors(pdev);
		return false;
	}
	vp_write((u16)0, vp->common->msix_config);
	if (vp_read(vp->common->msix_config) == VIRTIO_MSI_NO_VECTOR) {
		free_irq((unsigned int)pci_irq_vector(pdev, 0), &vp->vdev);
		pci_free_irq_vectors(pdev);
		return false;
	}
	vp->msix = true;
	return true;
}

static int vp_setup_vq(struct virtio_pci_device *vp, unsigned int i, vq_callback_t *callback)
{
	struct virtio_pci_common_cfg *c = vp->common;
	vp_write((u16)i, c->queue_select);
	u16 size = vp_read(c->queue_size);
	if (!size || vp_read(c->queue_enable))
		return -ENOENT;
	unsigned int num = VIRTIO_PCI_QUEUE_MAX;
	while (num > size)
		num >>= 1;
	struct virtqueue *vq = vring_create_virtqueue(i, num, &vp->vdev, callback);
	if (!vq)
		return -ENOMEM;
	u64 off = (u64)vp_read(c->queue_notify_off) * vp->notify_offset_multiplier;
	if (off + 2 > vp->notify_len) {
		pr_err("virtio%d: queue %u's notify offset %#llx is beyond the %u-byte area\n",
		       vp->vdev.index, i, (unsigned long long)off, vp->notify_len);
		vring_del_virtqueue(vq);
		return -EINVAL;
	}
	vq->notify_addr = vp->notify_base + off;
	vp_write((u16)num, c->queue_size);
	u64 desc = virtqueue_get_desc_addr(vq), avail = virtqueue_get_avail_addr(vq),
	    used = virtqueue_get_used_addr(vq);
	vp_write((u32)desc, c->queue_desc_lo);
	vp_write((u32)(desc >> 32), c->queue_desc_hi);
	vp_write((u32)avail, c->queue_avail_lo);
	vp_write((u32)(avail >> 32), c->queue_avail_hi);
	vp_write((u32)used, c->queue_used_lo);
	vp_write((u32)(used >> 32), c->queue_used_hi);
	if (vp->msix) {
		unsigned int irq = (unsigned int)pci_irq_vector(vp->pci_dev, 1 + i);
		vp_write((u16)(1 + i), c->queue_msix_vector);
		if (vp_read(c->queue_msix_vector) == VIRTIO_MSI_NO_VECTOR ||
		    request_irq(irq, vp_vring_interrupt, 0, "virtio-queue", vq)) {
			vring_del_virtqueue(vq);
			return -EBUSY;
		}
	}
	vp->vqs[i] = vq;
	vp->nvqs = i + 1;
	vp_write((u16)1, c->queue_enable);
	return 0;
}

static int vp_find_vqs(struct virtio_device *vdev, unsigned int nvqs, struct virtqueue *vqs[],
		       vq_callback_t *callbacks[])
{
	struct virtio_pci_device *vp = to_vp_device(vdev);
	if (!nvqs || nvqs > VIRTIO_PCI_MAX_QUEUES || nvqs > vp_read(vp->common->num_queues))
		return -ENOENT;
	bool msix = vp_request_msix(vp, nvqs);
	for (int attempt = 0; attempt < 2; attempt++) {
		int err = 0;
		for (unsigned int i = 0; i < nvqs && !err; i++)
			err = vp_setup_vq(vp, i, callbacks[i]);
		if (!err)
			break;
		vp_del_vqs(vdev);
		if (err != -EBUSY || !msix)
			return err;
		msix = false; /* the device refused a vector: poll instead */
	}
	vdev->polled = !vp->msix;
	if (vdev->polled)
		pr_warn("virtio%d: no MSI-X vector for its queues; they are polled\n", vdev->index);
	for (unsigned int i = 0; i < nvqs; i++)
		vqs[i] = vp->vqs[i];
	return 0;
}

static const struct virtio_config_ops virtio_pci_config_ops = {
	.get = vp_get,
	.get_status = vp_get_status,
	.set_status = vp_set_status,
	.reset = vp_reset,
	.get_features = vp_get_features,
	.finalize_features = vp_finalize_features,
	.find_vqs = vp_find_vqs,
	.del_vqs = vp_del_vqs,
};

/* Linux's virtio_pci_find_capability: the first capability of cfg_type
 * whose BAR is a memory BAR; its mapping of at least minlen bytes. */
static void *vp_map_capability(struct pci_dev *dev, u8 cfg_type, u32 minlen, u32 *len_out, u8 *cap_out)
{
	for (u8 pos = pci_find_capability(dev, PCI_CAP_ID_VNDR); pos;
	     pos = pci_find_next_capability(dev, pos, PCI_CAP_ID_VNDR)) {
		u8 type, bar;
		u32 offset, length;
		pci_read_config_byte(dev, pos + VIRTIO_PCI_CAP_CFG_TYPE, &type);
		pci_read_config_byte(dev, pos + VIRTIO_PCI_CAP_BAR, &bar);
		if (type != cfg_type || bar >= PCI_STD_NUM_BARS ||
		    (dev->resource[bar].flags & (IORESOURCE_MEM | IORESOURCE_UNSET)) != IORESOURCE_MEM)
			continue;
		pci_read_config_dword(dev, pos + VIRTIO_PCI_CAP_OFFSET, &offset);
		pci_read_config_dword(dev, pos + VIRTIO_PCI_CAP_LENGTH, &length);
		if (length < minlen || (u64)offset + length > pci_resource_len(dev, bar)) {
			char n[13];
			pr_warn("virtio-pci %s: capability type %u: %u bytes at %#x do not fit BAR %u\n",
				pci_name(dev, n), type, length, offset, bar);
			return NULL;
		}
		if (len_out)
			*len_out = length;
		if (cap_out)
			*cap_out = pos;
		return ioremap(pci_resource_start(dev, bar) + offset, length);
	}
	return NULL;
}

static int virtio_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	(void)id;
	char n[13];
	if (pdev->device < 0x1000 || pdev->device > 0x107f)
		return -ENODEV;
	if (pci_enable_device_mem(pdev))
		return -ENODEV;
	struct virtio_pci_device *vp = kzalloc(sizeof(*vp), GFP_KERNEL);
	if (!vp)
		return -ENOMEM;
	vp->pci_dev = pdev;
	u8 notify_cap = 0;
	vp->common = vp_map_capability(pdev, VIRTIO_PCI_CAP_COMMON_CFG,
				       sizeof(struct virtio_pci_common_cfg), NULL, NULL);
	vp->isr = vp_map_capability(pdev, VIRTIO_PCI_CAP_ISR_CFG, 1, NULL, NULL);
	vp->notify_base = vp_map_capability(pdev, VIRTIO_PCI_CAP_NOTIFY_CFG, 2, &vp->notify_len,
					    &notify_cap);
	vp->device = vp_map_capability(pdev, VIRTIO_PCI_CAP_DEVICE_CFG, 0, &vp->device_len, NULL);
	if (!vp->common || !vp->isr || !vp->notify_base) {
		pr_warn("virtio-pci %s: no modern (virtio 1.x) capabilities; not driven "
			"(mmlab has no legacy transport)\n", pci_name(pdev, n));
		goto fail;
	}
	pci_read_config_dword(pdev, notify_cap + VIRTIO_PCI_NOTIFY_CAP_MULT,
			      &vp->notify_offset_multiplier);
	pci_set_master(pdev);
	vp->vdev.id = pdev->device >= 0x1040 ? pdev->device - 0x1040u : pdev->subsystem_device;
	vp->vdev.config = &virtio_pci_config_ops;
	pdev->driver_data = vp;
	return register_virtio_device(&vp->vdev);
fail:
	void *maps[] = { vp->common, vp->isr, vp->notify_base, vp->device };
	for (unsigned int i = 0; i < ARRAY_SIZE(maps); i++)
		if (maps[i])
			iounmap(maps[i]);
	kfree(vp);
	return -ENODEV;
}

static const struct pci_device_id virtio_pci_id_table[] = {
	{ PCI_VENDOR_ID_REDHAT_QUMRANET, PCI_ANY_ID },
	{ 0, 0 },
};

static struct pci_driver virtio_pci_driver = {
	.name = "virtio-pci",
	.id_table = virtio_pci_id_table,
	.probe = virtio_pci_probe,
};

static int virtio_pci_init(void)
{
	return pci_register_driver(&virtio_pci_driver);
}
late_initcall(virtio_pci_init);
