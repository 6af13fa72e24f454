/* The file system types mount(2) knows (Linux's fs/filesystems.c):
 * tmpfs (mm/shmem_super.c), and here procfs and sysfs, whose files the
 * kernel generates (fs/proc/). /proc/filesystems lists them as Linux
 * does, "nodev" before each (none needs a block device).
 *
 * procfs: each mount is an instance of its own (Linux's proc_get_tree
 * since 5.8); its options (hidepid=, gid=, subset=) are not taken here:
 * mmlab has one user and shows every process, so each is -EINVAL as an
 * unknown option. sysfs: every mount is the one instance (Linux's
 * kernfs keyed by the network namespace), with no options. */
#include "fs/fs_context.h"
#include "fs/mount.h"
#include "fs/proc/proc_fs.h"
#include "lib/string.h"
#include "mm/slab.h"

extern const struct file_system_type shmem_fs_type, hugetlbfs_fs_type;
static const struct file_system_type proc_fs_type, sysfs_fs_type;

/* In Linux's registration order (sysfs at boot, then tmpfs, then proc). */
static const struct file_system_type *const filesystems[] = { &sysfs_fs_type, &shmem_fs_type, &proc_fs_type,
								     &hugetlbfs_fs_type };

const struct file_system_type *get_fs_type(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(filesystems); i++)
		if (!strcmp(filesystems[i]->name, name))
			return filesystems[i];
	return NULL;
}

static void filesystems_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	for (size_t i = 0; i < ARRAY_SIZE(filesystems); i++)
		seq_buf_printf(m, "nodev\t%s\n", filesystems[i]->name);
}
PROC_FILE(filesystems_entry, proc_root_dir, "filesystems", filesystems_show);

/* ---- procfs and sysfs instances ---- */

static struct super_block *sysfs_sb;

static int generated_get_tree(struct fs_context *fc)
{
	if (fc->fs_type == &sysfs_fs_type && sysfs_sb) {
		mutex_lock(&mount_lock);
		sysfs_sb->s_active++;
		mutex_unlock(&mount_lock);
		fc->sb = sysfs_sb;
		return 0;
	}
	bool proc = fc->fs_type == &proc_fs_type;
	struct super_block *sb = alloc_super(fc->fs_type, NULL, proc ? PROC_SUPER_MAGIC : SYSFS_MAGIC);
	if (!sb)
		return -ENOMEM;
	sb->s_generated_root = proc ? "/proc" : "/sys";
	sb->s_flags = fc->sb_flags & MS_RMT_MASK;
	if (!proc)
		sysfs_sb = sb;
	fc->sb = sb;
	return 0;
}

static int generated_reconfigure(struct fs_context *fc)
{
	(void)fc;
	return 0;
}

static const struct fs_context_operations generated_context_ops = {
	.get_tree = generated_get_tree, .reconfigure = generated_reconfigure,
};

static int generated_init_fs_context(struct fs_context *fc)
{
	fc->ops = &generated_context_ops;
	return 0;
}

static void generated_kill_sb(struct super_block *sb)
{
	if (sb == sysfs_sb)
		sysfs_sb = NULL;
	free_super(sb);
}

static const struct file_system_type proc_fs_type = {
	.name = "proc", .init_fs_context = generated_init_fs_context, .kill_sb = generated_kill_sb,
};
static const struct file_system_type sysfs_fs_type = {
	.name = "sysfs", .init_fs_context = generated_init_fs_context, .kill_sb = generated_kill_sb,
};
