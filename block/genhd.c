/* Disks (Linux's block/genhd.c): block/blkdev.h. The majors and the disks
 * are short lists under disks_lock; disks are added at boot and never
 * removed (no hot unplug), so a disk found stays valid for ever.
 *
 * What a disk shows, in Linux 6.1's formats: /proc/partitions (one line
 * per disk with capacity, the header only when a disk exists), and
 * /sys/block/<disk>/ with dev, size, ro, serial (virtio_blk's attribute)
 * and queue/ {logical_block_size, physical_block_size, hw_sector_size,
 * max_segments, rotational (writable, as Linux's)}. Linux's /sys/block/vda is a symbolic link into
 * /sys/devices/pci0000:00/...; mmlab's is the directory itself. */
#include "block/blkdev.h"
#include "fs/init.h"
#include "fs/proc/proc_fs.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "lib/string.h"
#include "mm/slab.h"

struct blk_major_name {
	struct list_head list;
	unsigned int major;
	char name[16];
};

static LIST_HEAD(major_names);
static LIST_HEAD(disks);
static DEFINE_SPINLOCK(disks_lock);

int register_blkdev(unsigned int major, const char *name)
{
	if (!major || major >= (1u << 12) || !name)
		return -EINVAL;
	struct blk_major_name *m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->major = major;
	strlcpy(m->name, name, sizeof(m->name));
	spin_lock(&disks_lock);
	bool taken = false;
	for (struct list_head *p = major_names.next; p != &major_names; p = p->next)
		taken |= container_of(p, struct blk_major_name, list)->major == major;
	if (!taken)
		list_add_tail(&m->list, &major_names);
	spin_unlock(&disks_lock);
	if (taken) {
		kfree(m);
		return -EBUSY;
	}
	return 0;
}

struct gendisk *blk_alloc_disk(void)
{
	struct gendisk *disk = kzalloc(sizeof(*disk), GFP_KERNEL);
	if (!disk)
		return NULL;
	disk->queue.limits = (struct queue_limits){
		.logical_block_size = SECTOR_SIZE, .physical_block_size = SECTOR_SIZE,
		.max_segments = 1, .max_segment_size = PAGE_SIZE,
	};
	disk->part0.bd_disk = disk;
	return disk;
}

static bool disk_holds(const struct gendisk *disk, dev_t dev)
{
	return MAJOR(dev) == (unsigned int)disk->major && MINOR(dev) >= (unsigned int)disk->first_minor &&
	       MINOR(dev) < (unsigned int)(disk->first_minor + disk->minors);
}

struct gendisk *disk_find(dev_t dev)
{
	struct gendisk *found = NULL;
	spin_lock(&disks_lock);
	for (struct list_head *p = disks.next; p != &disks && !found; p = p->next) {
		struct gendisk *disk = container_of(p, struct gendisk, list);
		if (disk_holds(disk, dev))
			found = disk;
	}
	spin_unlock(&disks_lock);
	return found;
}

struct gendisk *disk_nth(unsigned int i)
{
	struct gendisk *found = NULL;
	spin_lock(&disks_lock);
	for (struct list_head *p = disks.next; p != &disks; p = p->next)
		if (i-- == 0) {
			found = container_of(p, struct gendisk, list);
			break;
		}
	spin_unlock(&disks_lock);
	return found;
}

int add_disk(struct gendisk *disk)
{
	if (!disk->minors || !disk->fops || !disk->fops->submit_bio)
		return -EINVAL;
	disk->part0.bd_dev = MKDEV((unsigned int)disk->major, (unsigned int)disk->first_minor);
	spin_lock(&disks_lock);
	bool taken = false;
	for (struct list_head *p = disks.next; p != &disks; p = p->next) {
		struct gendisk *other = container_of(p, struct gendisk, list);
		taken |= disk_holds(other, disk->part0.bd_dev) || !strcmp(other->disk_name, disk->disk_name);
	}
	if (!taken)
		list_add_tail(&disk->list, &disks);
	spin_unlock(&disks_lock);
	if (taken)
		return -EBUSY;
	/* What devtmpfs does at device_add: the node, 0600 root:root (udev
	 * would make it 0660 group disk; mmlab has no udev). */
	char path[8 + DISK_NAME_LEN];
	snprintf(path, sizeof(path), "/dev/%s", disk->disk_name);
	int err = init_mknod(path, S_IFBLK | 0600, new_encode_dev(disk->part0.bd_dev));
	if (err && err != -EEXIST)
		pr_warn("%s: no device node %s: error %d\n", disk->disk_name, path, err);
	return 0;
}

/* /proc/partitions: Linux's show_partition. */
static void partitions_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	struct gendisk *disk;
	for (unsigned int i = 0; (disk = disk_nth(i)); i++) {
		if (i == 0)
			seq_buf_puts(m, "major minor  #blocks  name\n\n");
		if (!get_capacity(disk))
			continue;
		seq_buf_printf(m, "%4d  %7d %10llu %s\n", disk->major, disk->first_minor,
			       (unsigned long long)get_capacity(disk) >> 1, disk->disk_name);
	}
}
PROC_FILE(partitions_file, proc_root_dir, "partitions", partitions_show);

static const struct proc_dir_entry sys_block_dir __proc_entry = {
	.parent = &sys_dir, .name = "block", .mode = S_IFDIR | 0555,
};

static bool sys_block_match(const char *s, size_t len, struct task_struct *task, struct proc_node *node)
{
	(void)task;
	struct gendisk *disk;
	for (unsigned int i = 0; (disk = disk_nth(i)); i++)
		if (strlen(disk->disk_name) == len && !memcmp(disk->disk_name, s, len)) {
			node->disk = (int)i;
			return true;
		}
	return false;
}

static bool sys_block_list(unsigned int i, struct task_struct *task, char *name, size_t size)
{
	(void)task;
	struct gendisk *disk = disk_nth(i);
	if (disk)
		strlcpy(name, disk->disk_name, size);
	return disk != NULL;
}

static const struct proc_dir_entry sys_block_disk_dir __proc_entry = {
	.parent = &sys_block_dir, .match = sys_block_match, .list = sys_block_list,
	.mode = S_IFDIR | 0555,
};
static const struct proc_dir_entry sys_block_queue_dir __proc_entry = {
	.parent = &sys_block_disk_dir, .name = "queue", .mode = S_IFDIR | 0555,
};

static struct gendisk *node_disk(const struct proc_node *node)
{
	return disk_nth((unsigned int)node->disk);
}

static void disk_dev_show(struct seq_buf *m, const struct proc_node *node)
{
	struct gendisk *d = node_disk(node);
	seq_buf_printf(m, "%u:%u\n", MAJOR(d->part0.bd_dev), MINOR(d->part0.bd_dev));
}
static void disk_size_show(struct seq_buf *m, const struct proc_node *node)
{
	seq_buf_printf(m, "%llu\n", (unsigned long long)get_capacity(node_disk(node)));
}
static void disk_ro_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	seq_buf_puts(m, "0\n");
}
/* virtio_blk's serial_show: the id, or the error as Linux's read gives
 * it (here an empty line: a generated file cannot fail its read). */
static void disk_serial_show(struct seq_buf *m, const struct proc_node *node)
{
	struct gendisk *d = node_disk(node);
	char id[21] = "";
	if (d->fops->get_unique_id)
		d->fops->get_unique_id(d, id, sizeof(id));
	seq_buf_printf(m, "%s\n", id);
}
static void queue_lbs_show(struct seq_buf *m, const struct proc_node *node)
{
	seq_buf_printf(m, "%u\n", node_disk(node)->queue.limits.logical_block_size);
}
static void queue_pbs_show(struct seq_buf *m, const struct proc_node *node)
{
	seq_buf_printf(m, "%u\n", node_disk(node)->queue.limits.physical_block_size);
}
static void queue_max_segments_show(struct seq_buf *m, const struct proc_node *node)
{
	seq_buf_printf(m, "%u\n", node_disk(node)->queue.limits.max_segments);
}
/* Linux's queue_rotational: 1 unless QUEUE_FLAG_NONROT; a write takes a
 * decimal number (queue_var_store's kstrtoul), non-zero for rotational. */
static void queue_rotational_show(struct seq_buf *m, const struct proc_node *node)
{
	seq_buf_printf(m, "%d\n", !node_disk(node)->queue.nonrot);
}
static long queue_rotational_write(const struct proc_node *node, const char *buf, size_t len)
{
	size_t n = len;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == 0))
		n--;
	if (!n)
		return -EINVAL;
	unsigned long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -EINVAL;
		if (v > (~0ul - 9) / 10)
			return -ERANGE;
		v = v * 10 + (unsigned long)(buf[i] - '0');
	}
	WRITE_ONCE(node_disk(node)->queue.nonrot, v == 0);
	return (long)len;
}
PROC_FILE(disk_dev_file, sys_block_disk_dir, "dev", disk_dev_show);
PROC_FILE(disk_size_file, sys_block_disk_dir, "size", disk_size_show);
PROC_FILE(disk_ro_file, sys_block_disk_dir, "ro", disk_ro_show);
PROC_FILE(disk_serial_file, sys_block_disk_dir, "serial", disk_serial_show);
PROC_FILE(queue_lbs_file, sys_block_queue_dir, "logical_block_size", queue_lbs_show);
PROC_FILE(queue_pbs_file, sys_block_queue_dir, "physical_block_size", queue_pbs_show);
PROC_FILE(queue_hw_sector_file, sys_block_queue_dir, "hw_sector_size", queue_lbs_show);
PROC_FILE(queue_max_segments_file, sys_block_queue_dir, "max_segments", queue_max_segments_show);
PROC_FILE_RW(queue_rotational_file, sys_block_queue_dir, "rotational", queue_rotational_show,
	     queue_rotational_write);
