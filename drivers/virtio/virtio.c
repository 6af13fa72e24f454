/* The virtio bus (Linux's drivers/virtio/virtio.c): devices a transport
 * registers meet the drivers that registered, by device id; the feature
 * negotiation of virtio 1.2, 3.1.1, steps 1 to 6, happens here before the
 * driver's probe, which sets up its queues and says DRIVER_OK.
 *
 * Both lists change only at boot, from the initcalls, one at a time:
 * no lock. */
#include "drivers/virtio/virtio.h"
#include "kernel/printk.h"

static LIST_HEAD(virtio_devices);
static LIST_HEAD(virtio_drivers);

static void virtio_add_status(struct virtio_device *vdev, u8 status)
{
	vdev->config->set_status(vdev, vdev->config->get_status(vdev) | status);
}

void virtio_device_ready(struct virtio_device *vdev)
{
	virtio_add_status(vdev, VIRTIO_CONFIG_S_DRIVER_OK);
}

static bool virtio_matches(const struct virtio_driver *drv, const struct virtio_device *vdev)
{
	for (const struct virtio_device_id *id = drv->id_table; id->device; id++)
		if (id->device == vdev->id)
			return true;
	return false;
}

/* Linux's virtio_dev_probe: the features both sides know, FEATURES_OK
 * read back, then the driver's probe. */
static int virtio_dev_probe(struct virtio_device *vdev, struct virtio_driver *drv)
{
	u64 device_features = vdev->config->get_features(vdev);
	u64 driver_features = 1ull << VIRTIO_F_VERSION_1;
	for (unsigned int i = 0; i < drv->feature_table_size; i++)
		driver_features |= 1ull << drv->feature_table[i];
	virtio_add_status(vdev, VIRTIO_CONFIG_S_DRIVER);
	if (!(device_features >> VIRTIO_F_VERSION_1 & 1)) {
		pr_err("virtio%d: device offers no VIRTIO_F_VERSION_1 (a legacy-only device); "
		       "not driven\n", vdev->index);
		goto fail;
	}
	vdev->features = device_features & driver_features;
	vdev->config->finalize_features(vdev);
	virtio_add_status(vdev, VIRTIO_CONFIG_S_FEATURES_OK);
	if (!(vdev->config->get_status(vdev) & VIRTIO_CONFIG_S_FEATURES_OK)) {
		pr_err("virtio%d: device refused our features %#llx\n", vdev->index,
		       (unsigned long long)vdev->features);
		goto fail;
	}
	vdev->driver = drv;
	vdev->config_changed = drv->config_changed;
	int err = drv->probe(vdev);
	if (err) {
		vdev->driver = NULL;
		pr_err("virtio%d: %s probe failed: error %d\n", vdev->index, drv->name, err);
		vdev->config->reset(vdev);
		virtio_add_status(vdev, VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_FAILED);
		return err;
	}
	return 0;
fail:
	vdev->config->reset(vdev);
	virtio_add_status(vdev, VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_FAILED);
	return -ENODEV;
}

/* The device stays registered whatever its driver's probe does (as
 * Linux's): a failed probe leaves it reset and FAILED, logged. */
int register_virtio_device(struct virtio_device *vdev)
{
	static int next_index;
	vdev->index = next_index++;
	/* Steps 1-2: reset, then ACKNOWLEDGE: a driver may exist. */
	vdev->config->reset(vdev);
	virtio_add_status(vdev, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	list_add_tail(&vdev->list, &virtio_devices);
	for (struct list_head *p = virtio_drivers.next; p != &virtio_drivers; p = p->next) {
		struct virtio_driver *drv = container_of(p, struct virtio_driver, list);
		if (virtio_matches(drv, vdev)) {
			virtio_dev_probe(vdev, drv);
			break;
		}
	}
	return 0;
}

int register_virtio_driver(struct virtio_driver *drv)
{
	list_add_tail(&drv->list, &virtio_drivers);
	for (struct list_head *p = virtio_devices.next; p != &virtio_devices; p = p->next) {
		struct virtio_device *vdev = container_of(p, struct virtio_device, list);
		if (!vdev->driver && virtio_matches(drv, vdev))
			virtio_dev_probe(vdev, drv);
	}
	return 0;
}
