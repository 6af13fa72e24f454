/* The path walk (Linux's fs/namei.c link_path_walk, walk_component,
 * lookup_last, path_lookupat and filename_parentat): fs/namei.h has what
 * it gives. A path is walked one component at a time, each looked up in
 * the dentry cache and, when missing there, by the directory's lookup
 * method, so that an error comes from the first component that fails.
 *
 * A symlink in the middle of a path is walked where it stands: what
 * follows it waits on nd->stack while its body is walked, and the link's
 * dentry is held until the lookup ends (its body is the inode's). A
 * symlink as the last component is followed when the caller asks
 * (LOOKUP_FOLLOW) or a slash follows it. Every link followed counts, and
 * the 41st is -ELOOP, as Linux's MAXSYMLINKS.
 *
 * Below the mount points of procfs and sysfs the walk goes on in their
 * namespace (fs/proc/generic.c) on a normalised path string; ".." out of
 * their root comes back to the mount point's parent. */
#include "fs/namei.h"
#include "fs/fdtable.h"
#include "fs/fs_struct.h"
#include "fs/internal.h"
#include "fs/mount.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/slab.h"

#define GENERATED_MAX (2 * PATH_MAX)

/* The task /proc/self means: the process, i.e. its group leader (Linux's
 * proc_self_get_link gives the tgid), or a kernel thread itself. It is the
 * reader of a lookup in /proc; a node found there names its process by id
 * and holds no pointer to it (fs/proc/proc_fs.h), so a thread that opened
 * a file may exit and be freed while another thread still reads it. */
struct task_struct *proc_self_task(void)
{
	return current->group_leader ? current->group_leader : current;
}

struct dentry *lookup_one_locked(struct dentry *dir, const struct qstr *name)
{
	struct dentry *d = d_lookup_locked(dir, name);
	if (d)
		return d;
	struct inode *inode = dir->d_inode;
	if (!inode->i_op || !inode->i_op->lookup)
		return ERR_PTR(-ENOTDIR);
	if (!inode->i_nlink) /* a removed directory (Linux's IS_DEADDIR) */
		return ERR_PTR(-ENOENT);
	d = d_alloc(dir, name);
	if (!d)
		return ERR_PTR(-ENOMEM);
	int err = inode->i_op->lookup(inode, d);
	if (err) {
		dput_locked(d);
		return ERR_PTR(err);
	}
	return d;
}

/* ---- the generated files of /proc and /sys ---- */

static int enter_generated(struct nameidata *nd, struct vfsmount *mnt, const char *path)
{
	size_t len = strlen(path);
	if (len >= GENERATED_MAX)
		return -ENAMETOOLONG;
	if (!nd->generated && !(nd->generated = kmalloc(GENERATED_MAX, GFP_KERNEL)))
		return -ENOMEM;
	memcpy(nd->generated, path, len + 1);
	if (nd->generated_mnt != mnt) { /* the walk holds the mount it is in */
		mntput(nd->generated_mnt);
		nd->generated_mnt = mntget(mnt);
	}
	return procfs_lookup(nd->generated, proc_self_task(), &nd->node);
}

static void leave_generated(struct nameidata *nd)
{
	kfree(nd->generated);
	nd->generated = NULL;
	mntput(nd->generated_mnt);
	nd->generated_mnt = NULL;
}

static int follow_dotdot(struct nameidata *nd);

/* One step in a generated namespace; nd->path stays on its mount point. */
static int generated_step(struct nameidata *nd, const struct qstr *name, int type)
{
	char *g = nd->generated;
	size_t len = strlen(g);
	if (type == LAST_DOT)
		return 0;
	if (type == LAST_DOTDOT) {
		if (!strcmp(g, nd->generated_mnt->mnt_sb->s_generated_root)) {
			leave_generated(nd); /* at the mount point: its parent next */
			return follow_dotdot(nd);
		}
		while (len > 1 && g[--len] != '/')
			;
		g[len] = 0;
	} else {
		if (len + 1 + name->len >= GENERATED_MAX)
			return -ENAMETOOLONG;
		g[len] = '/';
		memcpy(g + len + 1, name->name, name->len);
		g[len + 1 + name->len] = 0;
	}
	return procfs_lookup(g, proc_self_task(), &nd->node);
}

/* ---- steps in the dentry tree ---- */

static void set_path(struct nameidata *nd, struct vfsmount *mnt, struct dentry *dentry)
{
	path_put(&nd->path);
	nd->path.mnt = mntget(mnt);
	nd->path.dentry = dentry; /* the caller's reference */
}

/* Linux's follow_mount: onto the root of what is mounted where the walk
 * stands, and of what is mounted on that, into procfs or sysfs. */
static int follow_mount(struct nameidata *nd)
{
	while (d_mountpoint(nd->path.dentry)) {
		struct vfsmount *m = lookup_mnt(&nd->path);
		if (!m)
			return 0;
		int err = 0;
		if (m->mnt_sb->s_generated_root)
			err = enter_generated(nd, m, m->mnt_sb->s_generated_root);
		else
			set_path(nd, m, dget(m->mnt_root));
		bool generated = m->mnt_sb->s_generated_root;
		mntput(m);
		if (err || generated)
			return err;
	}
	return 0;
}

/* "..": stays at the process's root; from a mount's root, first to its
 * mount point. */
static int follow_dotdot(struct nameidata *nd)
{
	for (;;) {
		if (path_equal(&nd->path, &nd->root))
			return 0;
		struct dentry *d = nd->path.dentry;
		struct vfsmount *mnt = nd->path.mnt;
		if (d == mnt->mnt_root && mnt->mnt_parent != mnt) {
			set_path(nd, mnt->mnt_parent, dget(mnt->mnt_mountpoint));
			continue;
		}
		if (d->d_parent == d)
			return 0;
		set_path(nd, mnt, dget(d->d_parent));
		return follow_mount(nd);
	}
}

/* The next component: *link is set (with a reference) when it is a
 * symlink, which the caller follows or not; otherwise the walk stands on
 * it. */
static int walk_component(struct nameidata *nd, const struct qstr *name, int type, struct path *link)
{
	link->dentry = NULL;
	if (nd->generated)
		return generated_step(nd, name, type);
	if (type == LAST_DOT)
		return 0;
	if (type == LAST_DOTDOT)
		return follow_dotdot(nd);
	mutex_lock(&dcache_lock);
	struct dentry *d = lookup_one_locked(nd->path.dentry, name);
	if (IS_ERR(d)) {
		mutex_unlock(&dcache_lock);
		return (int)PTR_ERR(d);
	}
	if (!d->d_inode) {
		dput_locked(d);
		mutex_unlock(&dcache_lock);
		return -ENOENT;
	}
	mutex_unlock(&dcache_lock);
	if (d_is_symlink(d) && !d_mountpoint(d)) {
		link->mnt = mntget(nd->path.mnt);
		link->dentry = d;
		return 0;
	}
	set_path(nd, nd->path.mnt, d);
	return follow_mount(nd);
}

static bool nd_is_dir(const struct nameidata *nd)
{
	return nd->generated ? proc_node_is_dir(&nd->node) : d_is_dir(nd->path.dentry);
}

static void nd_jump_root(struct nameidata *nd)
{
	leave_generated(nd);
	path_put(&nd->path);
	nd->path = nd->root;
	path_get(&nd->path);
}

/* A link found: its body is walked next (the link held until the end). */
static int pick_link(struct nameidata *nd, struct path *link, const char **body)
{
	if (nd->total_link_count++ >= MAXSYMLINKS) {
		path_put(link);
		return -ELOOP;
	}
	nd->held_links[nd->held++] = *link;
	struct inode *inode = link->dentry->d_inode;
	*body = inode->i_op && inode->i_op->get_link ? inode->i_op->get_link(link->dentry) : inode->i_link;
	if (!*body)
		return -EINVAL;
	if (**body == '/')
		nd_jump_root(nd);
	return 0;
}

static int component_type(const char *s, unsigned int len)
{
	if (s[0] == '.' && len == 1)
		return LAST_DOT;
	if (s[0] == '.' && s[1] == '.' && len == 2)
		return LAST_DOTDOT;
	return LAST_NORM;
}

/* Every component of name but the last, which is left in nd->last. */
static int link_path_walk(const char *name, struct nameidata *nd)
{
	nd->last_type = LAST_ROOT;
	nd->trailing_slash = false;
	for (;;) {
		while (*name == '/')
			name++;
		while (!*name && nd->depth)
			name = nd->stack[--nd->depth];
		if (!*name)
			return 0; /* only slashes: the directory itself */
		const char *end = name;
		while (*end && *end != '/')
			end++;
		struct qstr this = { name, (unsigned int)(end - name), 0 };
		this.hash = full_name_hash(this.name, this.len);
		int type = component_type(name, this.len);
		const char *after = end;
		while (*after == '/')
			after++;
		if (!*after && !nd->depth) {
			nd->last = this;
			nd->last_type = type;
			nd->trailing_slash = after != end;
			return 0;
		}
		struct path link;
		int err = walk_component(nd, &this, type, &link);
		if (err)
			return err;
		if (link.dentry) {
			const char *body;
			if ((err = pick_link(nd, &link, &body)))
				return err;
			nd->stack[nd->depth++] = after;
			name = body;
			continue;
		}
		if (!nd_is_dir(nd))
			return -ENOTDIR;
		name = after;
	}
}

static int path_init(struct nameidata *nd, struct files_struct *files, int dfd, const char *name,
		     unsigned int flags)
{
	struct fs_struct *fs = current_fs();
	memset(nd, 0, sizeof(*nd));
	nd->files = files;
	nd->flags = flags;
	get_fs_root(fs, &nd->root);
	if (*name == '/') {
		nd->path = nd->root;
		path_get(&nd->path);
		return 0;
	}
	if (dfd == AT_FDCWD) {
		char *gen;
		get_fs_pwd(fs, &nd->path, &gen);
		if (!gen)
			return 0;
		struct vfsmount *m = lookup_mnt(&nd->path);
		int err = m ? enter_generated(nd, m, gen) : -ENOENT; /* NULL: unmounted since */
		mntput(m);
		kfree(gen);
		return err;
	}
	struct file *f = dfd < 0 ? NULL : fget(files, (unsigned int)dfd);
	if (!f)
		return -EBADF;
	int err = 0;
	if (f->f_path.dentry) {
		if (!d_is_dir(f->f_path.dentry) && !(*name == 0 && (flags & LOOKUP_EMPTY)))
			err = -ENOTDIR;
		else
			nd->path = f->f_path, path_get(&nd->path);
	} else if (f->path) { /* a generated directory */
		struct vfsmount *m = file_generated_mount(f);
		/* no mount point: unmounted since */
		err = m && m->mnt_mountpoint ? enter_generated(nd, m, f->path) : -ENOENT;
		if (!err) { /* the walk stands on the mount point below it */
			nd->path.mnt = mntget(nd->generated_mnt->mnt_parent);
			nd->path.dentry = dget(nd->generated_mnt->mnt_mountpoint);
		}
	} else {
		err = -ENOTDIR;
	}
	fput(f);
	return err;
}

void path_lookup_done(struct nameidata *nd)
{
	path_put(&nd->path);
	path_put(&nd->root);
	for (int i = 0; i < nd->held; i++)
		path_put(&nd->held_links[i]);
	nd->held = 0;
	nd->path.dentry = nd->root.dentry = NULL;
	nd->path.mnt = nd->root.mnt = NULL;
	leave_generated(nd);
}

/* The last component, when it is looked up (not created): a symlink to
 * follow gives its body in *body. */
static int lookup_last(struct nameidata *nd, const char **body)
{
	*body = NULL;
	if (nd->last_type == LAST_NORM && nd->trailing_slash)
		nd->flags |= LOOKUP_FOLLOW | LOOKUP_DIRECTORY;
	if (nd->last_type == LAST_ROOT)
		return 0;
	struct path link;
	int err = walk_component(nd, &nd->last, nd->last_type, &link);
	if (err || !link.dentry)
		return err;
	if (nd->flags & LOOKUP_FOLLOW)
		return pick_link(nd, &link, body);
	set_path(nd, link.mnt, link.dentry); /* the link itself */
	mntput(link.mnt);
	return 0;
}

int path_lookupat(struct nameidata *nd, struct files_struct *files, int dfd, const char *name,
		  unsigned int flags)
{
	if (!*name && !(flags & LOOKUP_EMPTY))
		return -ENOENT;
	int err = path_init(nd, files, dfd, name, flags);
	const char *s = name, *body;
	while (!err && !(err = link_path_walk(s, nd)) && !(err = lookup_last(nd, &body)) && body)
		s = body;
	if (!err && (nd->flags & LOOKUP_DIRECTORY) && !nd_is_dir(nd))
		err = -ENOTDIR;
	if (err)
		path_lookup_done(nd);
	return err;
}

int path_parentat(struct nameidata *nd, struct files_struct *files, int dfd, const char *name,
		  unsigned int flags)
{
	if (!*name)
		return -ENOENT;
	int err = path_init(nd, files, dfd, name, flags);
	if (!err)
		err = link_path_walk(name, nd);
	if (err)
		path_lookup_done(nd);
	return err;
}

int kern_path(const char *name, unsigned int flags, struct path *path)
{
	struct nameidata nd;
	int err = path_lookupat(&nd, NULL, AT_FDCWD, name, flags);
	if (err)
		return err;
	if (nd.generated) {
		path_lookup_done(&nd);
		return -EXDEV;
	}
	*path = nd.path;
	nd.path.dentry = NULL;
	nd.path.mnt = NULL;
	path_lookup_done(&nd);
	return 0;
}

/* Linux's getname()/getname_maybe_null(): the user path into a PATH_MAX
 * kernel buffer; with empty_ok, NULL or "" give an empty name. 0 or
 * -EFAULT, -ENAMETOOLONG, -ENOENT (empty without empty_ok), -ENOMEM. */
long getname(const char __user *upath, bool empty_ok, char **out)
{
	char *name = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!name)
		return -ENOMEM;
	long ret = 0;
	if (empty_ok && !upath) {
		name[0] = 0;
	} else {
		long len = strncpy_from_user(name, upath, PATH_MAX);
		ret = len < 0 ? -EFAULT : len >= PATH_MAX ? -ENAMETOOLONG : len == 0 && !empty_ok ? -ENOENT : 0;
	}
	if (ret) {
		kfree(name);
		return ret;
	}
	*out = name;
	return 0;
}

int user_path_lookupat(struct nameidata *nd, int dfd, const char __user *upath, unsigned int flags)
{
	char *name;
	long err = getname(upath, flags & LOOKUP_EMPTY, &name);
	if (err)
		return (int)err;
	err = path_lookupat(nd, current->files, dfd, name, flags);
	kfree(name);
	return (int)err;
}
