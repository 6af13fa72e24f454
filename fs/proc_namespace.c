/* /proc/mounts, /proc/<pid>/mounts and /proc/<pid>/mountinfo (Linux's
 * fs/proc_namespace.c show_vfsmnt and show_mountinfo): one line per
 * mount in mount order, the mount point seen from the reader's root (a
 * mount outside it is left out, as Linux's seq_path_root skips it), the
 * generic options then the file system's own (super_operations'
 * show_options), with " \t\n\\" written as octal escapes (mangle).
 *
 * mountinfo: "id parent major:minor root mountpoint mount-options
 * [optional fields] - type source super-options"; mmlab has no
 * propagation, so there are no optional fields ("shared:N"...). Linux's
 * /proc/mounts is a symlink to self/mounts; here it is the same file
 * generated in place. */
#include "fs/proc/internal.h"
#include "fs/dcache.h"
#include "fs/fs_context.h"
#include "fs/fs_struct.h"
#include "fs/internal.h"
#include "fs/mount.h"
#include "kernel/pid.h"
#include "kernel/sched.h"
#include "lib/err.h"
#include "mm/slab.h"

/* Linux's mangle / seq_escape with " \t\n\\". */
static void mangle(struct seq_buf *m, const char *s)
{
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\\')
			seq_buf_printf(m, "\\%03o", (unsigned char)*s);
		else
			seq_buf_printf(m, "%c", *s);
	}
}

/* Whether the place (mnt, d) is at or below root (Linux's is_path_reachable). */
static bool reachable(const struct vfsmount *mnt, const struct dentry *d, const struct path *root)
{
	for (;;) {
		if (mnt == root->mnt) {
			for (const struct dentry *p = d; p; p = p->d_parent == p ? NULL : p->d_parent)
				if (p == root->dentry)
					return true;
			return false;
		}
		if (mnt->mnt_parent == mnt)
			return false;
		d = mnt->mnt_mountpoint;
		mnt = mnt->mnt_parent;
	}
}

/* The mount point seen from root, mangled; false when it is not below root. */
static bool show_mountpoint(struct seq_buf *m, const struct vfsmount *mnt, const struct path *root, char *buf)
{
	struct path p = mnt->mnt_parent == mnt ? (struct path){ (struct vfsmount *)mnt, mnt->mnt_root }
					       : (struct path){ mnt->mnt_parent, mnt->mnt_mountpoint };
	if (!p.dentry || !reachable(p.mnt, p.dentry, root))
		return false;
	const char *s = d_path(&p, root, buf, PATH_MAX);
	if (IS_ERR(s))
		return false;
	mangle(m, s);
	return true;
}

static void show_sb_opts(struct seq_buf *m, const struct super_block *sb)
{
	static const struct { unsigned int flag; const char *str; } fs_opts[] = {
		{ SB_SYNCHRONOUS, ",sync" }, { SB_DIRSYNC, ",dirsync" }, { SB_MANDLOCK, ",mand" },
		{ SB_LAZYTIME, ",lazytime" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(fs_opts); i++)
		if (sb->s_flags & fs_opts[i].flag)
			seq_buf_puts(m, fs_opts[i].str);
}

static void show_mnt_opts(struct seq_buf *m, const struct vfsmount *mnt)
{
	static const struct { int flag; const char *str; } mnt_opts[] = {
		{ MNT_NOSUID, ",nosuid" }, { MNT_NODEV, ",nodev" }, { MNT_NOEXEC, ",noexec" },
		{ MNT_NOATIME, ",noatime" }, { MNT_NODIRATIME, ",nodiratime" }, { MNT_RELATIME, ",relatime" },
		{ MNT_NOSYMFOLLOW, ",nosymfollow" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(mnt_opts); i++)
		if (mnt->mnt_flags & mnt_opts[i].flag)
			seq_buf_puts(m, mnt_opts[i].str);
}

static void show_fs_options(struct seq_buf *m, struct super_block *sb)
{
	if (sb->s_op && sb->s_op->show_options)
		sb->s_op->show_options(m, sb);
}

static void show_vfsmnt(struct seq_buf *m, struct vfsmount *mnt, const struct path *root, char *buf)
{
	struct super_block *sb = mnt->mnt_sb;
	struct seq_buf line = *m;
	mangle(m, mnt->mnt_devname);
	seq_buf_puts(m, " ");
	if (!show_mountpoint(m, mnt, root, buf)) {
		*m = line; /* not below the reader's root */
		return;
	}
	seq_buf_printf(m, " %s", sb->s_type);
	seq_buf_puts(m, __mnt_is_readonly(mnt) ? " ro" : " rw");
	show_sb_opts(m, sb);
	show_mnt_opts(m, mnt);
	show_fs_options(m, sb);
	seq_buf_puts(m, " 0 0\n");
}

/* The mount's root inside its file system (Linux's seq_dentry): "/" but
 * for a bind mount of a directory below the root. */
static void show_mnt_root(struct seq_buf *m, const struct vfsmount *mnt, char *buf)
{
	const struct dentry *d = mnt->mnt_root;
	if (!d || d->d_parent == d) {
		seq_buf_puts(m, "/");
		return;
	}
	char *p = buf + PATH_MAX - 1;
	*p = 0;
	mutex_lock(&dcache_lock);
	for (; d->d_parent != d && p - buf > (long)d->d_name.len + 1; d = d->d_parent) {
		p -= d->d_name.len;
		memcpy(p, d->d_name.name, d->d_name.len);
		*--p = '/';
	}
	mutex_unlock(&dcache_lock);
	mangle(m, p);
}

static void show_mountinfo(struct seq_buf *m, struct vfsmount *mnt, const struct path *root, char *buf)
{
	struct super_block *sb = mnt->mnt_sb;
	struct seq_buf line = *m;
	seq_buf_printf(m, "%d %d %u:%u ", mnt->mnt_id, mnt->mnt_parent->mnt_id, MAJOR(sb->s_dev), MINOR(sb->s_dev));
	show_mnt_root(m, mnt, buf);
	seq_buf_puts(m, " ");
	if (!show_mountpoint(m, mnt, root, buf)) {
		*m = line;
		return;
	}
	seq_buf_puts(m, mnt->mnt_flags & MNT_READONLY ? " ro" : " rw");
	show_mnt_opts(m, mnt);
	seq_buf_printf(m, " - %s ", sb->s_type);
	mangle(m, mnt->mnt_devname);
	seq_buf_puts(m, sb->s_flags & SB_RDONLY ? " ro" : " rw");
	show_sb_opts(m, sb);
	show_fs_options(m, sb);
	seq_buf_puts(m, "\n");
}

static void show_each(struct seq_buf *m, const struct proc_node *node,
		      void (*show)(struct seq_buf *, struct vfsmount *, const struct path *, char *))
{
	char *buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf)
		return;
	/* The process's root (pinned: fs/proc/base.c), with a reference
	 * (get_task_fs): a zombie's is gone, and its mounts are empty. */
	struct task_struct *task = node->task ? node->task : proc_self_task();
	struct fs_struct *fs = task->signal ? get_task_fs(task) : &init_fs;
	if (!fs) {
		kfree(buf);
		return;
	}
	struct path root;
	get_fs_root(fs, &root);
	if (fs != &init_fs)
		put_fs_struct(fs);
	mutex_lock(&mount_lock);
	for (struct list_head *p = mount_table.next; p != &mount_table; p = p->next)
		show(m, container_of(p, struct vfsmount, mnt_list), &root, buf);
	mutex_unlock(&mount_lock);
	path_put(&root);
	kfree(buf);
}

void mounts_show(struct seq_buf *m, const struct proc_node *node)
{
	show_each(m, node, show_vfsmnt);
}

void mountinfo_show(struct seq_buf *m, const struct proc_node *node)
{
	show_each(m, node, show_mountinfo);
}

PROC_FILE(proc_mounts_entry, proc_root_dir, "mounts", mounts_show);
