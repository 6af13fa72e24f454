/* The mount table (Linux's fs/namespace.c): mounts made, looked up,
 * counted, put in place and taken away. fs/mount.h has the rules;
 * mount(2) and umount2(2) are fs/namespace_syscalls.c. */
#include "fs/mount.h"
#include "fs/dcache.h"
#include "fs/fs_context.h"
#include "fs/fs_struct.h"
#include "fs/init.h"
#include "fs/namei.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/slab.h"

struct path init_root;
DEFINE_MUTEX(mount_lock);
LIST_HEAD(mount_table);

/* Mount ids: the lowest free one (Linux's mnt_id_ida; its own internal
 * mounts take the first ids there, mmlab has none, so "/" is 1). */
#define MAX_MNT_ID 4096
#define BITS_PER_LONG (8 * (int)sizeof(long))
static unsigned long mnt_id_bitmap[MAX_MNT_ID / BITS_PER_LONG];

static int mnt_alloc_id(void)
{
	for (int id = 1; id < MAX_MNT_ID; id++) {
		unsigned long bit = 1ul << (id % BITS_PER_LONG);
		if (!(mnt_id_bitmap[id / BITS_PER_LONG] & bit)) {
			mnt_id_bitmap[id / BITS_PER_LONG] |= bit;
			return id;
		}
	}
	return -ENOMEM;
}

static void mnt_free_id(int id)
{
	mnt_id_bitmap[id / BITS_PER_LONG] &= ~(1ul << (id % BITS_PER_LONG));
}

struct vfsmount *mntget(struct vfsmount *mnt)
{
	if (mnt)
		__atomic_add_fetch(&mnt->mnt_count, 1, __ATOMIC_RELAXED);
	return mnt;
}

/* The last reference to a mount out of the table: its root and its
 * super block go (Linux's cleanup_mnt). */
static void cleanup_mnt(struct vfsmount *mnt)
{
	dput(mnt->mnt_root);
	deactivate_super(mnt->mnt_sb);
	mutex_lock(&mount_lock);
	mnt_free_id(mnt->mnt_id);
	mutex_unlock(&mount_lock);
	kfree(mnt->mnt_devname);
	kfree(mnt);
}

void mntput(struct vfsmount *mnt)
{
	if (!mnt)
		return;
	long left = __atomic_sub_fetch(&mnt->mnt_count, 1, __ATOMIC_ACQ_REL);
	if (left < 0)
		panic("BUG: mntput of a free mount %d", mnt->mnt_id);
	/* A mount in the table keeps the table's reference: only a detached
	 * one reaches zero. */
	if (!left)
		cleanup_mnt(mnt);
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

static struct vfsmount *lookup_mnt_locked(const struct path *path)
{
	struct vfsmount *found = NULL;
	for (struct list_head *p = mount_table.next; p != &mount_table; p = p->next) {
		struct vfsmount *m = container_of(p, struct vfsmount, mnt_list);
		if (m->mnt_mountpoint == path->dentry && m->mnt_parent == path->mnt)
			found = m; /* the newest, should two have been stacked there */
	}
	return found;
}

struct vfsmount *lookup_mnt(const struct path *path)
{
	mutex_lock(&mount_lock);
	struct vfsmount *m = mntget(lookup_mnt_locked(path));
	mutex_unlock(&mount_lock);
	return m;
}

bool d_mountpoint(const struct dentry *dentry)
{
	return dentry && (__atomic_load_n(&dentry->d_flags, __ATOMIC_RELAXED) & DCACHE_MOUNTED);
}

struct vfsmount *generated_mount(const char *path)
{
	struct vfsmount *found = NULL;
	mutex_lock(&mount_lock);
	for (struct list_head *p = mount_table.next; p != &mount_table && !found; p = p->next) {
		struct vfsmount *m = container_of(p, struct vfsmount, mnt_list);
		const char *root = m->mnt_sb->s_generated_root;
		size_t n = root ? strlen(root) : 0;
		if (root && !strncmp(path, root, n) && (path[n] == '/' || !path[n]))
			found = m;
	}
	mutex_unlock(&mount_lock);
	return found;
}

struct vfsmount *file_generated_mount(const struct file *f)
{
	if (f->f_path.mnt)
		return f->f_path.mnt;
	return f->path ? generated_mount(f->path) : NULL;
}

bool __mnt_is_readonly(const struct vfsmount *mnt)
{
	return (mnt->mnt_flags & MNT_READONLY) || (mnt->mnt_sb->s_flags & SB_RDONLY);
}

int mnt_want_write(const struct vfsmount *mnt)
{
	return mnt && __mnt_is_readonly(mnt) ? -EROFS : 0;
}

int mnt_get_write_access(struct vfsmount *mnt)
{
	int err = 0;
	mutex_lock(&mount_lock);
	if (__mnt_is_readonly(mnt))
		err = -EROFS;
	else
		mnt->mnt_writers++;
	mutex_unlock(&mount_lock);
	return err;
}

void mnt_put_write_access(struct vfsmount *mnt)
{
	/* A drop needs no lock: it can only let a later check pass. */
	__atomic_sub_fetch(&mnt->mnt_writers, 1, __ATOMIC_RELEASE);
}

bool mnt_writers_locked(const struct super_block *sb, const struct vfsmount *mnt)
{
	if (!sb)
		return __atomic_load_n(&mnt->mnt_writers, __ATOMIC_ACQUIRE) > 0;
	for (struct list_head *p = mount_table.next; p != &mount_table; p = p->next) {
		struct vfsmount *m = container_of(p, struct vfsmount, mnt_list);
		if (m->mnt_sb == sb && __atomic_load_n(&m->mnt_writers, __ATOMIC_ACQUIRE) > 0)
			return true;
	}
	return false;
}

/* ---- making, placing and removing mounts ---- */

struct vfsmount *vfs_create_mount(struct super_block *sb, struct dentry *root, const char *devname, int mnt_flags)
{
	struct vfsmount *m = kzalloc(sizeof(*m), GFP_KERNEL);
	size_t len = strlen(devname) + 1;
	char *name = kmalloc(len, GFP_KERNEL);
	if (!m || !name) {
		kfree(m);
		kfree(name);
		return ERR_PTR(-ENOMEM);
	}
	memcpy(name, devname, len);
	mutex_lock(&mount_lock);
	int id = mnt_alloc_id();
	mutex_unlock(&mount_lock);
	if (id < 0) {
		kfree(m);
		kfree(name);
		return ERR_PTR(id);
	}
	m->mnt_id = id;
	m->mnt_sb = sb;
	m->mnt_root = dget(root);
	m->mnt_devname = name;
	m->mnt_parent = m;
	m->mnt_flags = mnt_flags;
	m->mnt_count = 1; /* the caller's, which becomes the table's */
	INIT_LIST_HEAD(&m->mnt_list);
	return m;
}

/* Linux's graft_tree/attach_recursive_mnt: mnt (with the caller's
 * reference, which the table keeps) goes on mp, a directory over a
 * directory or a file over a file. */
int graft_tree(struct vfsmount *mnt, const struct path *mp)
{
	bool dir = mnt->mnt_root ? d_is_dir(mnt->mnt_root) : true;
	if (mp->dentry && d_is_dir(mp->dentry) != dir)
		return -ENOTDIR;
	mutex_lock(&mount_lock);
	mnt->mnt_parent = mntget(mp->mnt); /* a child holds its parent */
	mnt->mnt_mountpoint = dget(mp->dentry);
	mnt->mnt_attached = true;
	list_add_tail(&mnt->mnt_list, &mount_table);
	mutex_lock(&dcache_lock);
	mp->dentry->d_flags |= DCACHE_MOUNTED;
	mutex_unlock(&dcache_lock);
	mutex_unlock(&mount_lock);
	return 0;
}

static bool is_descendant(const struct vfsmount *m, const struct vfsmount *top)
{
	for (; m->mnt_parent != m; m = m->mnt_parent)
		if (m == top)
			return true;
	return m == top;
}

/* Linux's umount_tree: mnt and (lazy) every mount below it leave the
 * table; each drops its mount point, its parent and the table's
 * reference, which frees it unless someone still holds it. mount_lock
 * held; the references are dropped after, by drop_umounted. */
static void umount_tree_locked(struct vfsmount *mnt, struct list_head *gone)
{
	struct list_head *p = mount_table.next;
	while (p != &mount_table) {
		struct vfsmount *m = container_of(p, struct vfsmount, mnt_list);
		p = p->next;
		if (!is_descendant(m, mnt))
			continue;
		list_del(&m->mnt_list);
		list_add_tail(&m->mnt_list, gone);
		m->mnt_attached = false;
	}
	/* A dentry stays marked while a mount stands on it in any mount of
	 * its file system (a bind mount shows it in two places). */
	for (p = gone->next; p != gone; p = p->next) {
		struct dentry *mp = container_of(p, struct vfsmount, mnt_list)->mnt_mountpoint;
		bool still = false;
		for (struct list_head *q = mount_table.next; q != &mount_table && !still; q = q->next)
			still = container_of(q, struct vfsmount, mnt_list)->mnt_mountpoint == mp;
		if (!still) {
			mutex_lock(&dcache_lock);
			mp->d_flags &= ~DCACHE_MOUNTED;
			mutex_unlock(&dcache_lock);
		}
	}
}

static void drop_umounted(struct list_head *gone)
{
	while (!list_empty(gone)) {
		struct vfsmount *m = container_of(gone->next, struct vfsmount, mnt_list);
		list_del(&m->mnt_list);
		INIT_LIST_HEAD(&m->mnt_list);
		struct path mp = { m->mnt_parent, m->mnt_mountpoint };
		mutex_lock(&mount_lock);
		m->mnt_parent = m;
		m->mnt_mountpoint = NULL;
		mutex_unlock(&mount_lock);
		path_put(&mp);
		mntput(m); /* the table's */
	}
}

int umount_mnt(struct vfsmount *mnt, bool lazy, long refs)
{
	LIST_HEAD(gone);
	mutex_lock(&mount_lock);
	if (!lazy && __atomic_load_n(&mnt->mnt_count, __ATOMIC_ACQUIRE) > refs) {
		mutex_unlock(&mount_lock); /* Linux's propagate_mount_busy */
		return -EBUSY;
	}
	if (mnt->mnt_attached)
		umount_tree_locked(mnt, &gone);
	mutex_unlock(&mount_lock);
	drop_umounted(&gone);
	return 0;
}

struct vfsmount *clone_mnt(struct vfsmount *old, struct dentry *root)
{
	struct vfsmount *m = vfs_create_mount(old->mnt_sb, root, old->mnt_devname, old->mnt_flags);
	if (!IS_ERR(m)) {
		mutex_lock(&mount_lock);
		old->mnt_sb->s_active++;
		mutex_unlock(&mount_lock);
	}
	return m;
}

/* Whether d is ancestor or below it (dcache_lock taken). */
static bool dentry_below(const struct dentry *d, const struct dentry *ancestor)
{
	bool below = false;
	mutex_lock(&dcache_lock);
	for (;;) {
		if (d == ancestor) {
			below = true;
			break;
		}
		if (d->d_parent == d)
			break;
		d = d->d_parent;
	}
	mutex_unlock(&dcache_lock);
	return below;
}

int copy_submounts(struct vfsmount *from, struct dentry *root, struct vfsmount *top)
{
	/* The mounts below from, oldest first (a parent before its
	 * children), each held while it is copied. */
	mutex_lock(&mount_lock);
	int n = 0;
	for (struct list_head *p = mount_table.next; p != &mount_table; p = p->next) {
		struct vfsmount *m = container_of(p, struct vfsmount, mnt_list);
		n += m != from && is_descendant(m, from);
	}
	struct vfsmount **src = kmalloc(sizeof(*src) * (size_t)(3 * n + 2), GFP_KERNEL);
	if (!src) {
		mutex_unlock(&mount_lock);
		return -ENOMEM;
	}
	struct vfsmount **dst = src + n + 1, **below = dst + n + 1;
	int nb = 0;
	for (struct list_head *p = mount_table.next; p != &mount_table && nb < n; p = p->next) {
		struct vfsmount *m = container_of(p, struct vfsmount, mnt_list);
		if (m != from && is_descendant(m, from))
			below[nb++] = mntget(m);
	}
	mutex_unlock(&mount_lock);
	/* src[i] was copied as dst[i]. */
	int copied = 1, err = 0;
	src[0] = from;
	dst[0] = top;
	for (int k = 0; k < nb; k++) {
		struct vfsmount *m = below[k], *parent = m->mnt_parent;
		int i = 0;
		while (i < copied && src[i] != parent)
			i++;
		if (!err && i < copied && (i || dentry_below(m->mnt_mountpoint, root))) {
			struct vfsmount *c = clone_mnt(m, m->mnt_root);
			struct path mp = { dst[i], m->mnt_mountpoint };
			if (IS_ERR(c))
				err = (int)PTR_ERR(c);
			else if ((err = graft_tree(c, &mp)))
				mntput(c);
			else
				dst[copied] = c;
			if (!err)
				src[copied++] = m;
		}
		mntput(m);
	}
	kfree(src);
	return err;
}

/* Linux's vfs_kern_mount and do_new_mount_fc: a new instance of type
 * (sb_flags, the data string parsed as the type does) as a mount not
 * yet in the table. */
struct vfsmount *vfs_kern_mount(const struct file_system_type *type, unsigned int sb_flags, int mnt_flags,
				const char *devname, char *data)
{
	struct fs_context fc;
	int err = fs_context_for_mount(&fc, type, sb_flags);
	if (!err)
		err = parse_monolithic_mount_data(&fc, data);
	if (!err)
		err = fc.ops->get_tree(&fc);
	struct super_block *sb = fc.sb;
	put_fs_context(&fc);
	if (err)
		return ERR_PTR(err);
	struct vfsmount *m = vfs_create_mount(sb, sb->s_root, devname, mnt_flags);
	if (IS_ERR(m))
		deactivate_super(sb);
	return m;
}

/* ---- the boot's mounts ---- */

static void kern_mount_at(const char *path, const char *type, const char *devname)
{
	struct path mp;
	if (kern_path(path, 0, &mp))
		panic("mount: no %s for %s", path, type);
	struct vfsmount *m = vfs_kern_mount(get_fs_type(type), 0, MNT_RELATIME, devname, NULL);
	if (IS_ERR(m) || graft_tree(m, &mp))
		panic("mount: cannot mount %s on %s", type, path);
	path_put(&mp);
}

void init_mount_tree(void)
{
	/* Linux's rootfs is a tmpfs mounted with the default options. */
	struct vfsmount *m = vfs_kern_mount(get_fs_type("tmpfs"), 0, MNT_RELATIME, "rootfs", NULL);
	if (IS_ERR(m))
		panic("mount: no memory for the root tmpfs");
	mutex_lock(&mount_lock);
	m->mnt_attached = true;
	list_add_tail(&m->mnt_list, &mount_table);
	mutex_unlock(&mount_lock);
	init_root.mnt = m;
	init_root.dentry = m->mnt_root;
	init_fs_root(&init_root);
	static const struct { const char *name; umode_t mode; } dirs[] = {
		{ "/proc", 0555 }, { "/sys", 0555 }, { "/bin", 0755 }, { "/tmp", 01777 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int err = init_mkdir(dirs[i].name, dirs[i].mode);
		if (err)
			panic("mount: mkdir %s: %d", dirs[i].name, err);
	}
	/* init_mkdir takes the umask off, as Linux's: /tmp gets its mode back.
	 * The root keeps 0755 (tmpfs's own default is 01777), as an
	 * initramfs's "." entry sets it on Linux. */
	init_chmod("/tmp", 01777);
	init_chmod("/", 0755);
}

void mount_proc_and_sysfs(void)
{
	kern_mount_at("/proc", "proc", "proc");
	kern_mount_at("/sys", "sysfs", "sysfs");
	pr_info("vfs: tmpfs mounted as /, procfs on /proc, sysfs on /sys\n");
}
