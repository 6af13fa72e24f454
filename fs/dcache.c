/* The dentry cache (Linux's fs/dcache.c): fs/dcache.h has the rules.
 * The hash table is a fixed array of lists keyed by (parent, name hash):
 * a lookup looks at one short list instead of the whole directory. */
#include "fs/dcache.h"
#include "fs/mount.h"
#include "kernel/panic.h"
#include "lib/err.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/slab.h"

#define D_HASHBITS 8
#define D_HASHSIZE (1u << D_HASHBITS)

DEFINE_MUTEX(dcache_lock);
static struct list_head dentry_hashtable[D_HASHSIZE];
static bool hash_ready;
static long dentry_count;

long nr_dentries(void) { return __atomic_load_n(&dentry_count, __ATOMIC_RELAXED); }

unsigned int full_name_hash(const char *name, unsigned int len)
{
	unsigned int h = 2166136261u; /* FNV-1a */
	for (unsigned int i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h;
}

static struct list_head *d_hash(const struct dentry *parent, unsigned int hash)
{
	if (!hash_ready) {
		for (unsigned int i = 0; i < D_HASHSIZE; i++)
			INIT_LIST_HEAD(&dentry_hashtable[i]);
		hash_ready = true;
	}
	unsigned long h = hash ^ ((unsigned long)parent >> 4);
	return &dentry_hashtable[(h ^ (h >> D_HASHBITS)) & (D_HASHSIZE - 1)];
}

static int d_set_name(struct dentry *d, const struct qstr *name)
{
	char *s = kmalloc(name->len + 1, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	memcpy(s, name->name, name->len);
	s[name->len] = 0;
	kfree(d->d_name.name);
	d->d_name.name = s;
	d->d_name.len = name->len;
	d->d_name.hash = full_name_hash(s, name->len);
	return 0;
}

struct dentry *d_alloc(struct dentry *parent, const struct qstr *name)
{
	struct dentry *d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return NULL;
	if (d_set_name(d, name)) {
		kfree(d);
		return NULL;
	}
	d->d_count = 1;
	INIT_LIST_HEAD(&d->d_child);
	INIT_LIST_HEAD(&d->d_subdirs);
	INIT_LIST_HEAD(&d->d_hash);
	if (parent) {
		d->d_parent = dget(parent);
		d->d_sb = parent->d_sb;
	} else {
		d->d_parent = d;
	}
	__atomic_add_fetch(&dentry_count, 1, __ATOMIC_RELAXED);
	return d;
}

struct dentry *d_make_root(struct inode *root)
{
	static const struct qstr slash = { "/", 1, 0 };
	struct dentry *d = d_alloc(NULL, &slash);
	if (!d) {
		iput(root);
		return NULL;
	}
	d->d_sb = root->i_sb;
	d->d_inode = root;
	return d;
}

struct dentry *d_lookup_locked(const struct dentry *parent, const struct qstr *name)
{
	struct list_head *head = d_hash(parent, name->hash);
	for (struct list_head *p = head->next; p != head; p = p->next) {
		struct dentry *d = container_of(p, struct dentry, d_hash);
		if (d->d_parent == parent && d->d_name.hash == name->hash && d->d_name.len == name->len &&
		    !memcmp(d->d_name.name, name->name, name->len))
			return dget_locked(d);
	}
	return NULL;
}

/* Hashes a positive dentry in its parent, at the parent's next readdir
 * offset. */
static void d_rehash(struct dentry *d)
{
	struct inode *dir = d->d_parent->d_inode;
	if (dir->i_next_offset < 2)
		dir->i_next_offset = 2;
	d->d_offset = dir->i_next_offset++;
	list_add_tail(&d->d_child, &d->d_parent->d_subdirs);
	list_add(&d->d_hash, d_hash(d->d_parent, d->d_name.hash));
}

void d_add(struct dentry *dentry, struct inode *inode)
{
	dentry->d_inode = inode;
	if (inode)
		d_rehash(dentry);
}

void d_instantiate(struct dentry *dentry, struct inode *inode) { d_add(dentry, inode); }

static void __d_drop(struct dentry *d)
{
	if (d_unhashed(d))
		return;
	list_del(&d->d_hash);
	INIT_LIST_HEAD(&d->d_hash);
	list_del(&d->d_child);
	INIT_LIST_HEAD(&d->d_child);
}

void d_delete(struct dentry *dentry) { __d_drop(dentry); }

void d_tmpfile(struct dentry *dentry, struct inode *inode)
{
	char name[24];
	struct qstr q = { name, (unsigned int)snprintf(name, sizeof(name), "#%lu", inode->i_ino), 0 };
	d_set_name(dentry, &q); /* on failure the old name stays: only d_path shows it */
	dentry->d_inode = inode;
}

int d_move(struct dentry *dentry, struct dentry *new_parent, const struct qstr *name)
{
	char *old = NULL;
	if (name->len != dentry->d_name.len || memcmp(name->name, dentry->d_name.name, name->len)) {
		old = (char *)dentry->d_name.name;
		dentry->d_name.name = NULL; /* d_set_name frees nothing then */
		if (d_set_name(dentry, name)) {
			dentry->d_name.name = old;
			return -ENOMEM;
		}
	}
	kfree(old);
	__d_drop(dentry);
	if (dentry->d_parent != new_parent) {
		struct dentry *old_parent = dentry->d_parent;
		dentry->d_parent = dget_locked(new_parent);
		dput_locked(old_parent);
	}
	d_rehash(dentry);
	return 0;
}

/* Puts a dentry back in its directory's list at its offset (the list
 * stays in readdir order) and in the hash. */
static void d_insert_at_offset(struct dentry *d)
{
	struct dentry *dir = d->d_parent;
	struct list_head *pos = &dir->d_subdirs;
	for (struct list_head *p = dir->d_subdirs.next; p != &dir->d_subdirs; p = p->next)
		if (container_of(p, struct dentry, d_child)->d_offset > d->d_offset) {
			pos = p;
			break;
		}
	list_add_tail(&d->d_child, pos);
	list_add(&d->d_hash, d_hash(dir, d->d_name.hash));
}

void d_exchange(struct dentry *a, struct dentry *b)
{
	__d_drop(a);
	__d_drop(b);
	/* Each takes the other's place, name and readdir position. */
	struct dentry *pa = a->d_parent;
	struct qstr na = a->d_name;
	unsigned long oa = a->d_offset;
	a->d_parent = b->d_parent;
	a->d_name = b->d_name;
	a->d_offset = b->d_offset;
	b->d_parent = pa;
	b->d_name = na;
	b->d_offset = oa;
	d_insert_at_offset(a);
	d_insert_at_offset(b);
}

/* d_count is atomic: a holder of a reference may take another without
 * the lock (fs_struct's readers do, under their spinlock); only the drop
 * to zero, which frees, needs dcache_lock. */
struct dentry *dget_locked(struct dentry *d)
{
	__atomic_add_fetch(&d->d_count, 1, __ATOMIC_RELAXED);
	return d;
}

struct dentry *dget(struct dentry *d)
{
	if (d)
		__atomic_add_fetch(&d->d_count, 1, __ATOMIC_RELAXED);
	return d;
}

/* The last reference: the dentry goes, then its parent's reference,
 * which may be that one's last (a loop, not recursion). */
void dput_locked(struct dentry *d)
{
	while (d) {
		long left = __atomic_sub_fetch(&d->d_count, 1, __ATOMIC_ACQ_REL);
		if (left < 0)
			panic("BUG: dput of a free dentry %s", d->d_name.name);
		if (left)
			return;
		__d_drop(d);
		if (!list_empty(&d->d_subdirs))
			panic("BUG: dentry %s freed with names in it", d->d_name.name);
		struct dentry *parent = d->d_parent == d ? NULL : d->d_parent;
		if (d->d_inode)
			iput(d->d_inode);
		kfree(d->d_name.name);
		kfree(d);
		__atomic_sub_fetch(&dentry_count, 1, __ATOMIC_RELAXED);
		d = parent;
	}
}

void dput(struct dentry *d)
{
	if (!d)
		return;
	mutex_lock(&dcache_lock);
	dput_locked(d);
	mutex_unlock(&dcache_lock);
}

/* Linux's prepend_path: names from the leaf up, written backwards. */
static bool prepend(char **p, char *buf, const char *s, unsigned int len)
{
	if ((size_t)(*p - buf) < len)
		return false;
	*p -= len;
	memcpy(*p, s, len);
	return true;
}

char *d_path(const struct path *path, const struct path *root, char *buf, int buflen)
{
	char *p = buf + buflen;
	bool ok = prepend(&p, buf, "", 1);
	mutex_lock(&dcache_lock);
	if (ok && d_unhashed(path->dentry) && path->dentry->d_parent != path->dentry)
		ok = prepend(&p, buf, " (deleted)", 10);
	struct dentry *d = path->dentry;
	struct vfsmount *mnt = path->mnt;
	bool any = false;
	while (ok && !(d == root->dentry && mnt == root->mnt)) {
		if (d == d->d_parent) { /* a file system's root: the mount's place */
			if (!mnt || !mnt->mnt_mountpoint)
				break;
			d = mnt->mnt_mountpoint;
			mnt = mnt->mnt_parent;
			continue;
		}
		ok = prepend(&p, buf, d->d_name.name, d->d_name.len) && prepend(&p, buf, "/", 1);
		any = true;
		d = d->d_parent;
	}
	mutex_unlock(&dcache_lock);
	if (ok && !any)
		ok = prepend(&p, buf, "/", 1);
	return ok ? p : ERR_PTR(-ENAMETOOLONG);
}
