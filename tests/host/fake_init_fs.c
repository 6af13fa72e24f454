/* The fake of fs/init.h's helpers (see fake_init_fs.h): a dentry tree over
 * reference-counted inodes, in host memory. */
#include "tests/host/fake_init_fs.h"
#include "mm/slab.h"

#include <stdlib.h>
#include <string.h>

/* Linux's errno values the kernel's header does not name. */
#define ENOTEMPTY 39
#define ELOOP 40

#define FAKE_S_IFMT 0170000
#define FAKE_S_IFDIR 0040000
#define FAKE_S_IFREG 0100000
#define FAKE_S_IFLNK 0120000
#define FAKE_O_CREAT 0100
#define FAKE_O_TRUNC 01000

struct fake_dentry {
	char name[256];
	struct fake_inode *inode;
	struct fake_dentry *parent, *children, *next;
};

struct fake_file {
	struct fake_inode *inode;
};

struct fake_stats fake_stats;
static struct fake_dentry *root;
static unsigned int next_ino;
static char fail_helper[32];
static int fail_err;

static bool fail(const char *helper, int *err)
{
	if (!fail_helper[0] || strcmp(fail_helper, helper))
		return false;
	fail_helper[0] = 0;
	*err = fail_err;
	return true;
}

void fake_fail_next(const char *helper, int err)
{
	strncpy(fail_helper, helper, sizeof(fail_helper) - 1);
	fail_err = err;
}

static bool is_dir(const struct fake_inode *i) { return (i->mode & FAKE_S_IFMT) == FAKE_S_IFDIR; }

static struct fake_inode *new_inode(unsigned int mode)
{
	struct fake_inode *i = calloc(1, sizeof(*i));
	i->ino = ++next_ino;
	i->mode = mode;
	i->mtime = FAKE_NOW;
	return i;
}

static void put_inode(struct fake_inode *i)
{
	if (--i->nlink)
		return;
	free(i->data);
	free(i);
}

static void free_tree(struct fake_dentry *d)
{
	while (d->children) {
		struct fake_dentry *c = d->children;
		d->children = c->next;
		free_tree(c);
	}
	put_inode(d->inode);
	free(d);
}

void fake_reset(void)
{
	if (root)
		free_tree(root);
	root = calloc(1, sizeof(*root));
	root->inode = new_inode(FAKE_S_IFDIR | 0755);
	root->inode->nlink = 1;
	memset(&fake_stats, 0, sizeof(fake_stats));
	fail_helper[0] = 0;
}

static struct fake_dentry *child(struct fake_dentry *dir, const char *name, size_t n)
{
	for (struct fake_dentry *c = dir->children; c; c = c->next)
		if (strlen(c->name) == n && !memcmp(c->name, name, n))
			return c;
	return NULL;
}

/* Walks path to its last component: 0 with *dirp the parent and *last the
 * last name (*found its dentry or NULL), or -ENOENT / -ENOTDIR on the way.
 * "/" itself: *dirp = NULL, *found = root. */
static int walk(const char *path, struct fake_dentry **dirp, const char **last, size_t *lastn,
		struct fake_dentry **found)
{
	struct fake_dentry *dir = root;
	const char *p = path;
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p) {
			*dirp = NULL;
			*found = dir;
			return dir == root ? 0 : -ENOENT;
		}
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *rest = p + n;
		while (*rest == '/')
			rest++;
		struct fake_dentry *c = child(dir, p, n);
		if (!*rest) {
			*dirp = dir;
			*last = p;
			*lastn = n;
			*found = c;
			return 0;
		}
		if (!c)
			return -ENOENT;
		if (!is_dir(c->inode))
			return (c->inode->mode & FAKE_S_IFMT) == FAKE_S_IFLNK ? -ELOOP : -ENOTDIR;
		dir = c;
		p = rest;
	}
}

const struct fake_inode *fake_lookup(const char *path)
{
	struct fake_dentry *dir, *found;
	const char *last;
	size_t n;
	if (walk(path, &dir, &last, &n, &found) || !found)
		return NULL;
	return found->inode;
}

static unsigned int count(const struct fake_dentry *d)
{
	unsigned int n = 1;
	for (const struct fake_dentry *c = d->children; c; c = c->next)
		n += count(c);
	return n;
}

unsigned int fake_count_names(void) { return count(root); }

/* A new name for inode in dir: 0, -EEXIST, or the walk's error. */
static int add_name(const char *path, struct fake_inode *inode)
{
	struct fake_dentry *dir, *found;
	const char *last;
	size_t n;
	int err = walk(path, &dir, &last, &n, &found);
	if (err)
		return err;
	if (found)
		return -EEXIST;
	if (!is_dir(dir->inode))
		return -ENOTDIR;
	if (n > 255)
		return -ENAMETOOLONG;
	struct fake_dentry *d = calloc(1, sizeof(*d));
	memcpy(d->name, last, n);
	d->inode = inode;
	inode->nlink++;
	d->parent = dir;
	d->next = dir->children;
	dir->children = d;
	dir->inode->mtime = FAKE_NOW;
	return 0;
}

static int make(const char *path, unsigned int mode, const char *helper)
{
	int err;
	if (fail(helper, &err))
		return err;
	struct fake_inode *i = new_inode(mode);
	i->nlink = 1; /* the creator's until add_name takes its own */
	err = add_name(path, i);
	put_inode(i);
	return err;
}

int init_mkdir(const char *pathname, umode_t mode)
{
	return make(pathname, FAKE_S_IFDIR | (mode & 07777), "mkdir");
}

int init_mknod(const char *filename, umode_t mode, unsigned int dev)
{
	int err;
	if (fail("mknod", &err))
		return err;
	struct fake_inode *i = new_inode(mode);
	i->nlink = 1;
	i->rdev = dev;
	err = add_name(filename, i);
	put_inode(i);
	return err;
}

int init_symlink(const char *oldname, const char *newname)
{
	int err;
	if (fail("symlink", &err))
		return err;
	if (!*oldname)
		return -ENOENT;
	struct fake_inode *i = new_inode(FAKE_S_IFLNK | 0777);
	i->nlink = 1;
	i->data = strdup(oldname);
	i->size = strlen(oldname);
	err = add_name(newname, i);
	put_inode(i);
	return err;
}

int init_link(const char *oldname, const char *newname)
{
	int err;
	if (fail("link", &err))
		return err;
	struct fake_inode *i = (struct fake_inode *)fake_lookup(oldname);
	if (!i)
		return -ENOENT;
	if (is_dir(i))
		return -EPERM;
	return add_name(newname, i);
}

static void remove_name(struct fake_dentry *d)
{
	struct fake_dentry **p = &d->parent->children;
	while (*p != d)
		p = &(*p)->next;
	*p = d->next;
	d->parent->inode->mtime = FAKE_NOW;
	put_inode(d->inode);
	free(d);
}

/* The prologue of a helper that acts on an existing name: the injected
 * failure of op, then the name's entry (-ENOENT when missing). */
static int existing_name(const char *op, const char *path, struct fake_dentry **found)
{
	struct fake_dentry *dir;
	const char *last;
	size_t n;
	int err;
	if (fail(op, &err))
		return err;
	err = walk(path, &dir, &last, &n, found);
	if (err)
		return err;
	return *found ? 0 : -ENOENT;
}

/* The same for a helper that changes the inode a path names. */
static int existing_inode(const char *op, const char *path, struct fake_inode **inode)
{
	int err;
	if (fail(op, &err))
		return err;
	*inode = (struct fake_inode *)fake_lookup(path);
	return *inode ? 0 : -ENOENT;
}

int init_unlink(const char *pathname)
{
	struct fake_dentry *found;
	int err = existing_name("unlink", pathname, &found);
	if (err)
		return err;
	if (is_dir(found->inode))
		return -EISDIR;
	remove_name(found);
	return 0;
}

int init_rmdir(const char *pathname)
{
	struct fake_dentry *found;
	int err = existing_name("rmdir", pathname, &found);
	if (err)
		return err;
	if (found == root)
		return -EBUSY;
	if (!is_dir(found->inode))
		return -ENOTDIR;
	if (found->children)
		return -ENOTEMPTY;
	remove_name(found);
	return 0;
}

int init_chown(const char *filename, unsigned int user, unsigned int group, int flags)
{
	(void)flags; /* symlinks are never followed here */
	struct fake_inode *i;
	int err = existing_inode("chown", filename, &i);
	if (err)
		return err;
	i->uid = user;
	i->gid = group;
	return 0;
}

int init_chmod(const char *filename, umode_t mode)
{
	struct fake_inode *i;
	int err = existing_inode("chmod", filename, &i);
	if (err)
		return err;
	i->mode = (i->mode & FAKE_S_IFMT) | (mode & 07777);
	return 0;
}

int init_utimes(const char *filename, long long mtime_seconds)
{
	struct fake_inode *i;
	int err = existing_inode("utimes", filename, &i);
	if (err)
		return err;
	i->mtime = mtime_seconds;
	return 0;
}

struct file *filp_open(const char *filename, int flags, umode_t mode)
{
	int err;
	if (fail("filp_open", &err))
		return ERR_PTR(err);
	struct fake_inode *i = (struct fake_inode *)fake_lookup(filename);
	if (!i) {
		if (!(flags & FAKE_O_CREAT))
			return ERR_PTR(-ENOENT);
		err = make(filename, FAKE_S_IFREG | (mode & 07777), "create");
		if (err)
			return ERR_PTR(err);
		i = (struct fake_inode *)fake_lookup(filename);
	} else if (is_dir(i)) {
		return ERR_PTR(-EISDIR);
	} else if ((i->mode & FAKE_S_IFMT) == FAKE_S_IFLNK) {
		return ERR_PTR(-ELOOP);
	} else if (flags & FAKE_O_TRUNC) {
		free(i->data);
		i->data = NULL;
		i->size = 0;
	}
	struct fake_file *f = calloc(1, sizeof(*f));
	f->inode = i;
	i->nlink++; /* the open file's reference */
	fake_stats.open_files++;
	return (struct file *)f;
}

long kernel_write(struct file *file, const void *buf, size_t count, long long *pos)
{
	struct fake_file *f = (struct fake_file *)file;
	struct fake_inode *i = f->inode;
	int err;
	fake_stats.writes++;
	if (count > fake_stats.largest_write)
		fake_stats.largest_write = count;
	if (fail("kernel_write", &err))
		return err;
	size_t end = (size_t)*pos + count;
	if (end > i->size) {
		i->data = realloc(i->data, end);
		memset(i->data + i->size, 0, end - i->size);
		i->size = end;
	}
	memcpy(i->data + *pos, buf, count);
	*pos += (long long)count;
	return (long)count;
}

int filp_close(struct file *file)
{
	struct fake_file *f = (struct fake_file *)file;
	put_inode(f->inode);
	free(f);
	fake_stats.open_files--;
	return 0;
}

/* kmalloc and kfree on the host's malloc (the unpacker's link table and
 * deferred directory times). */
void *kmalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return malloc(size);
}

void *kzalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(1, size);
}

void kfree(const void *obj) { free((void *)obj); }
