/* getcwd(2) (Linux's fs/d_path.c): the working directory's path from the
 * process's root (d_path), or below /proc and /sys the generated path;
 * -ENOENT once the directory was removed, -ERANGE when it does not fit
 * size. Returns the length with the NUL. */
#include "fs/dcache.h"
#include "fs/fs_struct.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/slab.h"

SYSCALL_DEFINE2(getcwd, char __user *, buf, unsigned long, size)
{
	struct fs_struct *fs = current_fs();
	struct path root, pwd;
	char *gen, *page = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	get_fs_root(fs, &root);
	get_fs_pwd(fs, &pwd, &gen);
	long err = 0;
	const char *cwd;
	if (gen) {
		cwd = gen;
	} else if (d_unhashed(pwd.dentry) && pwd.dentry->d_parent != pwd.dentry) {
		err = -ENOENT;
	} else {
		cwd = d_path(&pwd, &root, page, PATH_MAX);
		if (IS_ERR(cwd))
			err = PTR_ERR(cwd);
	}
	if (!err) {
		size_t len = strlen(cwd) + 1;
		if (len > size)
			err = -ERANGE;
		else if (copy_to_user(buf, cwd, len))
			err = -EFAULT;
		else
			err = (long)len;
	}
	kfree(gen);
	kfree(page);
	path_put(&pwd);
	path_put(&root);
	return err;
}
