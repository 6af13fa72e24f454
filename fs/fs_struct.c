/* A process's root, working directory and umask (Linux's fs/fs_struct.c):
 * fs/fs_struct.h has the rules. */
#include "fs/fs_struct.h"
#include "fs/dcache.h"
#include "fs/mount.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "mm/slab.h"

struct fs_struct init_fs = { .users = 1, .lock = __SPIN_LOCK_UNLOCKED, .umask = 022 };

struct fs_struct *current_fs(void)
{
	struct fs_struct *fs = current->fs;
	return fs ? fs : &init_fs;
}

void init_fs_root(const struct path *root)
{
	init_fs.root = init_fs.pwd = *root;
	path_get(root);
	path_get(root);
}

int current_umask(void) { return current_fs()->umask; }

void get_fs_root(struct fs_struct *fs, struct path *root)
{
	spin_lock(&fs->lock);
	*root = fs->root;
	mntget(root->mnt);
	/* A dentry reference under a spinlock: dget's dcache_lock sleeps, so
	 * the count is taken atomically here (fs holds one already). */
	__atomic_add_fetch(&root->dentry->d_count, 1, __ATOMIC_RELAXED);
	spin_unlock(&fs->lock);
}

void get_fs_pwd(struct fs_struct *fs, struct path *pwd, char **gen)
{
	char *copy = NULL;
	for (;;) {
		spin_lock(&fs->lock);
		if (!fs->pwd_generated || copy)
			break;
		spin_unlock(&fs->lock); /* no allocation under the spinlock */
		copy = kmalloc(PATH_MAX, GFP_KERNEL | __GFP_NOFAIL);
	}
	if (fs->pwd_generated)
		strlcpy(copy, fs->pwd_generated, PATH_MAX);
	else if (copy)
		copy[0] = 0;
	*pwd = fs->pwd;
	mntget(pwd->mnt);
	__atomic_add_fetch(&pwd->dentry->d_count, 1, __ATOMIC_RELAXED);
	spin_unlock(&fs->lock);
	if (copy && !copy[0]) {
		kfree(copy);
		copy = NULL;
	}
	*gen = copy;
}

void set_fs_pwd(struct fs_struct *fs, const struct path *path, char *gen)
{
	spin_lock(&fs->lock);
	struct path old = fs->pwd;
	char *old_gen = fs->pwd_generated;
	fs->pwd = *path;
	fs->pwd_generated = gen;
	spin_unlock(&fs->lock);
	kfree(old_gen);
	if (old.dentry)
		path_put(&old);
}

void set_fs_root(struct fs_struct *fs, const struct path *path)
{
	spin_lock(&fs->lock);
	struct path old = fs->root;
	fs->root = *path;
	spin_unlock(&fs->lock);
	if (old.dentry)
		path_put(&old);
}

struct fs_struct *copy_fs_struct(struct fs_struct *old)
{
	struct fs_struct *fs = kzalloc(sizeof(*fs), GFP_KERNEL);
	if (!fs)
		return NULL;
	fs->users = 1;
	spin_lock_init(&fs->lock);
	old = old ? old : current_fs();
	char *gen;
	get_fs_root(old, &fs->root);
	get_fs_pwd(old, &fs->pwd, &gen);
	fs->pwd_generated = gen;
	spin_lock(&old->lock);
	fs->umask = old->umask;
	spin_unlock(&old->lock);
	return fs;
}

void get_fs_struct(struct fs_struct *fs)
{
	__atomic_add_fetch(&fs->users, 1, __ATOMIC_RELAXED);
}

void put_fs_struct(struct fs_struct *fs)
{
	if (!fs || fs == &init_fs || __atomic_sub_fetch(&fs->users, 1, __ATOMIC_ACQ_REL))
		return;
	path_put(&fs->root);
	path_put(&fs->pwd);
	kfree(fs->pwd_generated);
	kfree(fs);
}
