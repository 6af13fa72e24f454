/* The mount table (Linux's fs/namespace.c), made once at boot: tmpfs as
 * "/", procfs on /proc and sysfs on /sys (fs/mount.h has the rules). */
#include "fs/mount.h"
#include "fs/dcache.h"
#include "fs/fs_struct.h"
#include "fs/init.h"
#include "fs/namei.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "mm/shmem.h"
#include "lib/string.h"
#include "mm/slab.h"

struct path init_root;
static LIST_HEAD(mount_table);

struct vfsmount *mntget(struct vfsmount *mnt)
{
	if (mnt)
		__atomic_add_fetch(&mnt->mnt_count, 1, __ATOMIC_RELAXED);
	return mnt;
}

void mntput(struct vfsmount *mnt)
{
	if (mnt)
		__atomic_sub_fetch(&mnt->mnt_count, 1, __ATOMIC_RELAXED);
}

void path_get(const struct path *path)
{
	mntget(path->mnt);
	dget(path->dentry);
}

void path_put(const struct path *path)
{
	dput(path->dentry);
	mntput(path->mnt);
}

struct vfsmount *lookup_mnt(const struct path *path)
{
	struct list_head *p;
	for (p = mount_table.next; p != &mount_table; p = p->next) {
		struct vfsmount *m = container_of(p, struct vfsmount, mnt_list);
		if (m->mnt_mountpoint == path->dentry && m->mnt_parent == path->mnt)
			return m;
	}
	return NULL;
}

struct vfsmount *generated_mount(const char *path)
{
	for (struct list_head *p = mount_table.next; p != &mount_table; p = p->next) {
		struct vfsmount *m = container_of(p, struct vfsmount, mnt_list);
		const char *root = m->mnt_sb->s_generated_root;
		size_t n = root ? strlen(root) : 0;
		if (root && !strncmp(path, root, n) && (path[n] == '/' || !path[n]))
			return m;
	}
	return NULL;
}

static struct vfsmount *add_mount(struct super_block *sb, struct dentry *root, const char *devname)
{
	struct vfsmount *m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		panic("mount: no memory for %s", devname);
	m->mnt_sb = sb;
	m->mnt_root = root;
	m->mnt_devname = devname;
	m->mnt_parent = m;
	m->mnt_count = 1;
	list_add_tail(&m->mnt_list, &mount_table);
	return m;
}

/* A generated file system on the directory at path (which must exist). */
static void mount_generated(const char *path, const char *type, unsigned long magic)
{
	struct super_block *sb = alloc_super(type, NULL, magic);
	struct path mp;
	if (!sb || kern_path(path, 0, &mp))
		panic("mount: cannot mount %s on %s", type, path);
	sb->s_generated_root = path;
	struct vfsmount *m = add_mount(sb, NULL, type);
	m->mnt_parent = mp.mnt;
	m->mnt_mountpoint = mp.dentry; /* the mount keeps the reference */
	mutex_lock(&dcache_lock);
	mp.dentry->d_flags |= DCACHE_MOUNTED;
	mutex_unlock(&dcache_lock);
}

void init_mount_tree(void)
{
	struct super_block *sb = shmem_fill_super();
	if (!sb)
		panic("mount: no memory for the root tmpfs");
	init_root.mnt = add_mount(sb, sb->s_root, "rootfs");
	init_root.dentry = sb->s_root;
	init_fs_root(&init_root);
	static const struct { const char *name; umode_t mode; } dirs[] = {
		{ "/proc", 0555 }, { "/sys", 0555 }, { "/bin", 0755 }, { "/tmp", 01777 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int err = init_mkdir(dirs[i].name, dirs[i].mode);
		if (err)
			panic("mount: mkdir %s: %d", dirs[i].name, err);
	}
	/* init_mkdir takes the umask off, as Linux's: /tmp gets its mode back. */
	init_chmod("/tmp", 01777);
}

void mount_proc_and_sysfs(void)
{
	mount_generated("/proc", "proc", PROC_SUPER_MAGIC);
	mount_generated("/sys", "sysfs", SYSFS_MAGIC);
	pr_info("vfs: tmpfs mounted as /, procfs on /proc, sysfs on /sys\n");
}
