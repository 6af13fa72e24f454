/* Mounts (fs/namespace.c, fs/namespace_syscalls.c, mm/shmem_super.c):
 * tmpfs's options parsed, shown as Linux's shmem_show_options prints them
 * and refused with -EINVAL; size= and nr_inodes= enforced (-ENOSPC) and
 * reported by statfs; mpol= placing each page of a file; umount giving
 * back every page, inode, dentry and slab object, lazily too; a busy
 * mount refused; ".." out of a mount's root, bind mounts, procfs and
 * sysfs mounted elsewhere. Each case mounts under /tmp/mount_test, and a
 * deferred action detaches whatever it left mounted and removes its
 * directories however it ends. */
#include "tests/kunit.h"
#include "fs/dcache.h"
#include "fs/fs_context.h"
#include "fs/init.h"
#include "fs/mount.h"
#include "fs/namei.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/seq_buf.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/filemap.h"
#include "mm/mempolicy.h"
#include "mm/page_alloc.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "mm/slab.h"
#include "mm/util.h"

#define DIR "/tmp/mount_test"

/* An expectation that says which of a table's entries failed. */
#define EXPECT_TRUE_MSG(test, cond, ...)                                                   \
	do {                                                                               \
		if (!(cond))                                                               \
			kunit_fail(test, false, __FILE__, __LINE__, __VA_ARGS__);          \
	} while (0)

/* What a case made: directories (removed newest first) and mount points
 * (detached first, newest first). */
struct scratch {
	int dirs, mounts;
	char dir[8][64], mnt[8][64];
};

static void scratch_release(void *arg)
{
	struct scratch *s = arg;
	while (s->mounts > 0)
		do_umount_path(s->mnt[--s->mounts], MNT_DETACH);
	while (s->dirs > 0)
		init_rmdir(s->dir[--s->dirs]);
	kfree(s);
}

static struct scratch *scratch_begin(struct kunit *test)
{
	struct scratch *s = kzalloc(sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, scratch_release, s), 0);
	KUNIT_ASSERT_EQ(test, init_mkdir(DIR, 0755), 0);
	strlcpy(s->dir[s->dirs++], DIR, sizeof(s->dir[0]));
	return s;
}

static void scratch_mkdir(struct kunit *test, struct scratch *s, const char *path)
{
	KUNIT_ASSERT_EQ(test, init_mkdir(path, 0755), 0);
	strlcpy(s->dir[s->dirs++], path, sizeof(s->dir[0]));
}

/* mount(2) on kernel strings (data is copied: parsing cuts it up). */
static int mount_opts(const char *source, const char *where, const char *type, unsigned long flags,
		      const char *data)
{
	char buf[256];
	if (data)
		strlcpy(buf, data, sizeof(buf));
	return do_mount(source, where, type, flags, data ? buf : NULL);
}

/* A tmpfs with opts at where, which the case's action detaches. */
static void mount_tmpfs(struct kunit *test, struct scratch *s, const char *where, const char *opts)
{
	KUNIT_ASSERT_EQ(test, mount_opts("test", where, "tmpfs", 0, opts), 0);
	strlcpy(s->mnt[s->mounts++], where, sizeof(s->mnt[0]));
}

static void umount_tmpfs(struct kunit *test, struct scratch *s, const char *where)
{
	KUNIT_ASSERT_EQ(test, do_umount_path(where, 0), 0);
	s->mounts--;
}

/* The mount a path is in (the case's mount keeps it), and its super block. */
static struct vfsmount *mnt_at(struct kunit *test, const char *where)
{
	struct path p;
	KUNIT_ASSERT_EQ(test, kern_path(where, LOOKUP_FOLLOW, &p), 0);
	struct vfsmount *m = p.mnt;
	path_put(&p);
	return m;
}

static struct super_block *sb_at(struct kunit *test, const char *where) { return mnt_at(test, where)->mnt_sb; }

static void show_options(struct super_block *sb, char *buf, size_t size)
{
	struct seq_buf m = { buf, size - 1, 0 };
	sb->s_op->show_options(&m, sb);
	buf[m.len < size ? m.len : size - 1] = 0;
}

static void options_parsed_and_refused(struct kunit *test)
{
	struct scratch *s = scratch_begin(test);
	scratch_mkdir(test, s, DIR "/a");
	mount_tmpfs(test, s, DIR "/a", "size=1m,nr_inodes=8,mode=0700,uid=5,gid=6,huge=never,mpol=local");
	struct super_block *sb = sb_at(test, DIR "/a");
	struct shmem_sb_info *sbinfo = SHMEM_SB(sb);
	KUNIT_EXPECT_STREQ(test, sb->s_type, "tmpfs");
	KUNIT_EXPECT_EQ(test, sbinfo->max_blocks, 256ul);
	KUNIT_EXPECT_EQ(test, sbinfo->max_inodes, 8ul);
	KUNIT_EXPECT_EQ(test, sbinfo->free_inodes, 7ul); /* the root's */
	KUNIT_EXPECT_EQ(test, sb->s_root->d_inode->i_mode, S_IFDIR | 0700);
	KUNIT_EXPECT_EQ(test, sb->s_root->d_inode->i_uid, 5u);
	KUNIT_EXPECT_EQ(test, sb->s_root->d_inode->i_gid, 6u);
	char buf[160];
	show_options(sb, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, ",size=1024k,nr_inodes=8,mode=700,uid=5,gid=6,inode64,mpol=local");
	/* A remount: limits and mpol change, mode and uid are taken and ignored. */
	KUNIT_EXPECT_EQ(test, mount_opts(NULL, DIR "/a", NULL, MS_REMOUNT, "size=2m,mode=0755,mpol=default"), 0);
	show_options(sb, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, ",size=2048k,nr_inodes=8,mode=700,uid=5,gid=6,inode64,mpol=local");
	umount_tmpfs(test, s, DIR "/a");

	/* The sizes, in bytes (rounded up to pages), percents of RAM and pages. */
	static const struct { const char *opts; unsigned long long percent, bytes, blocks; } sizes[] = {
		{ "size=3000", 0, 3000, 0 }, { "size=2G", 0, 2ull << 30, 0 }, { "size=50%", 50, 0, 0 },
		{ "nr_blocks=0x10", 0, 0, 16 }, { "nr_blocks=1k", 0, 0, 1024 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		mount_tmpfs(test, s, DIR "/a", sizes[i].opts);
		unsigned long long bytes = sizes[i].percent ? (sizes[i].percent << PAGE_SHIFT) * totalram_pages() / 100
							    : sizes[i].bytes;
		unsigned long long want = sizes[i].blocks ? sizes[i].blocks : (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
		KUNIT_EXPECT_EQ(test, SHMEM_SB(sb_at(test, DIR "/a"))->max_blocks, want);
		umount_tmpfs(test, s, DIR "/a");
	}
	/* Without options: half of RAM in pages and in inodes, not shown. */
	mount_tmpfs(test, s, DIR "/a", NULL);
	sb = sb_at(test, DIR "/a");
	KUNIT_EXPECT_EQ(test, SHMEM_SB(sb)->max_blocks, totalram_pages() / 2);
	show_options(sb, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, ",inode64");
	umount_tmpfs(test, s, DIR "/a");

	static const char *const refused[] = {
		"size=1q", "size", "size=", "nr_blocks=1k1", "nr_inodes=3x", "mode=8", "mode", "uid=-1",
		"uid=4294967295", "gid=x", "huge=deny", "huge=force", "huge=sometimes", "mpol=bind", "mpol=prefer:0,1",
		"mpol=bind:99", "mpol=local:0", "mpol=interleave=fast", "mpol=often", "nosuid", "bind",
		"frobnicate=1", "=1", "inode32", "inode64=1",
	};
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		int err = mount_opts("test", DIR "/a", "tmpfs", 0, refused[i]);
		EXPECT_TRUE_MSG(test, err == -EINVAL, "option %s: %d", refused[i], err);
		if (!err)
			do_umount_path(DIR "/a", MNT_DETACH);
	}
	KUNIT_EXPECT_EQ(test, mount_opts("test", DIR "/a", "no_such_fs", 0, NULL), -ENODEV);
	KUNIT_EXPECT_EQ(test, mount_opts("test", DIR "/a", NULL, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, mount_opts("test", DIR "/missing", "tmpfs", 0, NULL), -ENOENT);

	/* A limit cannot be put on an instance made without one, nor set
	 * below what is in use. */
	mount_tmpfs(test, s, DIR "/a", "size=0,nr_inodes=0");
	KUNIT_EXPECT_EQ(test, mount_opts(NULL, DIR "/a", NULL, MS_REMOUNT, "size=1m"), -EINVAL);
	KUNIT_EXPECT_EQ(test, mount_opts(NULL, DIR "/a", NULL, MS_REMOUNT, "nr_inodes=10"), -EINVAL);
	umount_tmpfs(test, s, DIR "/a");
	mount_tmpfs(test, s, DIR "/a", "nr_inodes=4");
	KUNIT_EXPECT_EQ(test, init_mkdir(DIR "/a/d", 0755), 0);
	KUNIT_EXPECT_EQ(test, mount_opts(NULL, DIR "/a", NULL, MS_REMOUNT, "nr_inodes=1"), -EINVAL);
	KUNIT_EXPECT_EQ(test, mount_opts(NULL, DIR "/a", NULL, MS_REMOUNT, "nr_inodes=2"), 0);
	KUNIT_EXPECT_EQ(test, SHMEM_SB(sb_at(test, DIR "/a"))->free_inodes, 0ul);
	umount_tmpfs(test, s, DIR "/a");
}

static long file_write(struct file *f, size_t len, long long *pos)
{
	char *buf = kzalloc(len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	memset(buf, 0x3c, len);
	long n = kernel_write(f, buf, len, pos);
	kfree(buf);
	return n;
}

static void enospc_at_size_and_nr_inodes(struct kunit *test)
{
	struct scratch *s = scratch_begin(test);
	scratch_mkdir(test, s, DIR "/a");
	mount_tmpfs(test, s, DIR "/a", "size=8k,nr_inodes=3");
	struct file *f = filp_open(DIR "/a/f", O_CREAT | O_WRONLY, 0600);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	long long pos = 0;
	KUNIT_EXPECT_EQ(test, file_write(f, 3 * PAGE_SIZE, &pos), (long)(2 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, file_write(f, 1, &pos), -ENOSPC);
	struct kstatfs st;
	KUNIT_EXPECT_EQ(test, vfs_statfs(&f->f_path, &st), 0);
	KUNIT_EXPECT_EQ(test, st.f_type, (long)TMPFS_MAGIC);
	KUNIT_EXPECT_EQ(test, st.f_blocks, 2ul);
	KUNIT_EXPECT_EQ(test, st.f_bfree, 0ul);
	KUNIT_EXPECT_EQ(test, st.f_files, 3ul);
	KUNIT_EXPECT_EQ(test, st.f_ffree, 1ul);
	/* Overwriting a page it has needs none. */
	pos = 0;
	KUNIT_EXPECT_EQ(test, file_write(f, PAGE_SIZE, &pos), (long)PAGE_SIZE);
	filp_close(f);
	/* Inodes: the root, f, then one more; a link takes one too. */
	KUNIT_EXPECT_EQ(test, init_mkdir(DIR "/a/d", 0755), 0);
	KUNIT_EXPECT_EQ(test, init_mkdir(DIR "/a/e", 0755), -ENOSPC);
	f = filp_open(DIR "/a/g", O_CREAT | O_WRONLY, 0600);
	KUNIT_EXPECT_EQ(test, IS_ERR(f) ? PTR_ERR(f) : 0, -ENOSPC);
	if (!IS_ERR(f))
		filp_close(f);
	KUNIT_EXPECT_EQ(test, init_rmdir(DIR "/a/d"), 0);
	KUNIT_EXPECT_EQ(test, init_link(DIR "/a/f", DIR "/a/f2"), 0);
	KUNIT_EXPECT_EQ(test, init_link(DIR "/a/f", DIR "/a/f3"), -ENOSPC);
	KUNIT_EXPECT_EQ(test, init_unlink(DIR "/a/f2"), 0);
	KUNIT_EXPECT_EQ(test, SHMEM_SB(sb_at(test, DIR "/a"))->free_inodes, 1ul);
	/* Pages and inodes come back to the instance with the file. */
	KUNIT_EXPECT_EQ(test, init_unlink(DIR "/a/f"), 0);
	struct shmem_sb_info *sbinfo = SHMEM_SB(sb_at(test, DIR "/a"));
	KUNIT_EXPECT_EQ(test, sbinfo->used_blocks, 0l);
	KUNIT_EXPECT_EQ(test, sbinfo->free_inodes, 2ul);
	umount_tmpfs(test, s, DIR "/a");
}

/* The nodes of the pages of path's first n pages, into nids. */
static void page_nodes(struct kunit *test, const char *path, int n, int *nids)
{
	struct file *f = filp_open(path, O_CREAT | O_WRONLY, 0600);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	long long pos = 0;
	KUNIT_EXPECT_EQ(test, file_write(f, (size_t)n * PAGE_SIZE, &pos), (long)n * (long)PAGE_SIZE);
	for (int i = 0; i < n; i++) {
		struct page *page = filemap_get_folio(f->f_mapping, (unsigned long)i);
		nids[i] = page ? page_to_nid(page) : -1;
		if (page)
			put_page(page);
	}
	filp_close(f);
}

static void mpol_places_pages(struct kunit *test)
{
	nodemask_t memory = node_states_memory();
	if (nodes_weight(memory) < 2)
		kunit_skip(test, "one node with memory: no other node a policy could place a page on");
	int first = first_node(memory), last = first;
	for (int n = first; n < MAX_NUMNODES; n++)
		if (node_isset(n, memory))
			last = n;
	/* The node the test runs on is first; bind to another. */
	struct scratch *s = scratch_begin(test);
	scratch_mkdir(test, s, DIR "/a");
	char opts[64], want[64], buf[160];
	snprintf(opts, sizeof(opts), "mpol=bind:%d", last);
	mount_tmpfs(test, s, DIR "/a", opts);
	show_options(sb_at(test, DIR "/a"), buf, sizeof(buf));
	snprintf(want, sizeof(want), ",inode64,mpol=bind:%d", last);
	KUNIT_EXPECT_STREQ(test, buf, want);
	int nids[8];
	page_nodes(test, DIR "/a/f", 8, nids);
	for (int i = 0; i < 8; i++)
		EXPECT_TRUE_MSG(test, nids[i] == last, "page %d on node %d", i, nids[i]);
	KUNIT_EXPECT_EQ(test, init_unlink(DIR "/a/f"), 0);
	/* Interleaved: each next page on the other node. */
	snprintf(opts, sizeof(opts), "mpol=interleave:%d,%d", first, last);
	KUNIT_EXPECT_EQ(test, mount_opts(NULL, DIR "/a", NULL, MS_REMOUNT, opts), 0);
	page_nodes(test, DIR "/a/g", 8, nids);
	for (int i = 0; i < 8; i++) {
		EXPECT_TRUE_MSG(test, nids[i] == first || nids[i] == last, "page %d on node %d", i, nids[i]);
		if (i)
			EXPECT_TRUE_MSG(test, nids[i] != nids[i - 1], "pages %d and %d both on node %d", i - 1, i, nids[i]);
	}
	umount_tmpfs(test, s, DIR "/a");
}

struct counts {
	struct kunit_resources res;
	long dentries;
	unsigned long shmem_pages, file_pages;
};

static void counts_take(struct counts *c)
{
	kunit_resources_take(&c->res);
	c->dentries = nr_dentries();
	c->shmem_pages = nr_shmem_pages();
	c->file_pages = nr_file_pages();
}

static void expect_counts_back(struct kunit *test, const struct counts *before)
{
	KUNIT_EXPECT_EQ(test, nr_dentries(), before->dentries);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), before->shmem_pages);
	KUNIT_EXPECT_EQ(test, nr_file_pages(), before->file_pages);
	kunit_expect_resources_back(test, &before->res);
}

static void fill_tree(struct kunit *test, const char *root)
{
	char path[128];
	static const char *const dirs[] = { "x", "x/y", "x/y/z", "w" };
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		KUNIT_ASSERT_EQ(test, init_mkdir(path, 0755), 0);
	}
	static const char *const files[] = { "f", "x/f", "x/y/z/f", "w/f" };
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		struct file *f = filp_open(path, O_CREAT | O_WRONLY, 0600);
		KUNIT_ASSERT_FALSE(test, IS_ERR(f));
		long long pos = (long long)i * 3 * PAGE_SIZE;
		KUNIT_EXPECT_EQ(test, file_write(f, 5 * PAGE_SIZE, &pos), (long)(5 * PAGE_SIZE));
		filp_close(f);
	}
	char target[128];
	snprintf(target, sizeof(target), "%s/x/f", root);
	snprintf(path, sizeof(path), "%s/w/link", root);
	KUNIT_EXPECT_EQ(test, init_link(target, path), 0);
	snprintf(path, sizeof(path), "%s/x/y/sym", root);
	KUNIT_EXPECT_EQ(test, init_symlink("../f", path), 0);
}

static void umount_gives_everything_back(struct kunit *test)
{
	struct scratch *s = scratch_begin(test);
	scratch_mkdir(test, s, DIR "/a");
	struct counts before;
	counts_take(&before);
	mount_tmpfs(test, s, DIR "/a", "size=4m");
	fill_tree(test, DIR "/a");
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), before.shmem_pages + 20);
	umount_tmpfs(test, s, DIR "/a");
	expect_counts_back(test, &before);

	/* MNT_DETACH with a file open: out of the tree at once, the file
	 * still read and written, everything back at its close. */
	mount_tmpfs(test, s, DIR "/a", NULL);
	fill_tree(test, DIR "/a");
	struct file *f = filp_open(DIR "/a/x/f", O_RDWR, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/a", 0), -EBUSY);
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/a", MNT_DETACH), 0);
	s->mounts--;
	struct path p;
	KUNIT_EXPECT_EQ(test, kern_path(DIR "/a/x", 0, &p), -ENOENT); /* the directory under it again */
	long long pos = 3 * PAGE_SIZE;
	char c = 0;
	KUNIT_EXPECT_EQ(test, kernel_read(f, &c, 1, &pos), 1l);
	KUNIT_EXPECT_EQ(test, c, 0x3c);
	KUNIT_EXPECT_GT(test, nr_shmem_pages(), before.shmem_pages);
	filp_close(f);
	expect_counts_back(test, &before);
}

static void busy_mount_refused(struct kunit *test)
{
	struct scratch *s = scratch_begin(test);
	scratch_mkdir(test, s, DIR "/a");
	mount_tmpfs(test, s, DIR "/a", NULL);
	KUNIT_ASSERT_EQ(test, init_mkdir(DIR "/a/b", 0755), 0);
	struct file *f = filp_open(DIR "/a/file", O_CREAT | O_WRONLY, 0600);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/a", 0), -EBUSY);
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/a", MNT_FORCE), -EBUSY); /* no umount_begin */
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/a", MNT_EXPIRE), -EBUSY);
	/* Nor read-only, the mount or its super block, under a writer. */
	KUNIT_EXPECT_EQ(test, mount_opts(NULL, DIR "/a", NULL, MS_REMOUNT | MS_RDONLY, NULL), -EBUSY);
	KUNIT_EXPECT_EQ(test, mount_opts(NULL, DIR "/a", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL), -EBUSY);
	filp_close(f);
	KUNIT_EXPECT_EQ(test, mount_opts(NULL, DIR "/a", NULL, MS_REMOUNT | MS_RDONLY, NULL), 0);
	KUNIT_EXPECT_TRUE(test, __mnt_is_readonly(mnt_at(test, DIR "/a")));
	f = filp_open(DIR "/a/file", O_WRONLY, 0);
	KUNIT_EXPECT_EQ(test, IS_ERR(f) ? PTR_ERR(f) : 0, -EROFS);
	if (!IS_ERR(f))
		filp_close(f);
	f = filp_open(DIR "/a/file", O_RDONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	filp_close(f);
	KUNIT_EXPECT_EQ(test, mount_opts(NULL, DIR "/a", NULL, MS_REMOUNT, NULL), 0);
	/* Not a mount point, the root, bad flags, missing. */
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/a/b", 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, do_umount_path("/", 0), -EBUSY);
	KUNIT_EXPECT_EQ(test, do_umount_path("/", MNT_DETACH), -EINVAL);
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/a", 0x100), -EINVAL);
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/a", MNT_EXPIRE | MNT_DETACH), -EINVAL);
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/a/missing", 0), -ENOENT);
	/* A mount on it holds it; its mount point cannot go. */
	mount_tmpfs(test, s, DIR "/a/b", "size=64k");
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/a", 0), -EBUSY);
	KUNIT_EXPECT_EQ(test, init_rmdir(DIR "/a/b"), -EBUSY);
	umount_tmpfs(test, s, DIR "/a/b");
	/* MNT_EXPIRE: marked by the first call, unmounted by the second. */
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/a", MNT_EXPIRE), -EAGAIN);
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/a", MNT_EXPIRE), 0);
	s->mounts--;
}

static void dotdot_bind_and_generated(struct kunit *test)
{
	struct scratch *s = scratch_begin(test);
	scratch_mkdir(test, s, DIR "/a");
	scratch_mkdir(test, s, DIR "/b");
	scratch_mkdir(test, s, DIR "/p");
	mount_tmpfs(test, s, DIR "/a", "mode=0755");
	struct path top, up;
	KUNIT_ASSERT_EQ(test, kern_path(DIR, 0, &top), 0);
	KUNIT_ASSERT_EQ(test, kern_path(DIR "/a/..", 0, &up), 0);
	KUNIT_EXPECT_TRUE(test, path_equal(&top, &up)); /* ".." from a mount's root: its parent mount */
	path_put(&up);
	path_put(&top);
	/* A bind mount of a directory shows its files, and its root in mountinfo. */
	KUNIT_ASSERT_EQ(test, init_mkdir(DIR "/a/x", 0755), 0);
	KUNIT_ASSERT_EQ(test, mount_opts(DIR "/a/x", DIR "/b", NULL, MS_BIND, NULL), 0);
	strlcpy(s->mnt[s->mounts++], DIR "/b", sizeof(s->mnt[0]));
	struct file *f = filp_open(DIR "/b/f", O_CREAT | O_WRONLY, 0600);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	filp_close(f);
	KUNIT_ASSERT_EQ(test, kern_path(DIR "/a/x/f", 0, &up), 0);
	path_put(&up);
	KUNIT_EXPECT_PTR_EQ(test, sb_at(test, DIR "/a"), sb_at(test, DIR "/b"));
	char *text;
	size_t len;
	KUNIT_ASSERT_EQ(test, procfs_generate("/proc/self/mountinfo", current, &text, &len), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, " /x " DIR "/b rw,relatime - tmpfs test rw,mode=755,inode64\n"));
	kvfree(text);
	/* One directory seen through both mounts, a mount on it through each:
	 * taking one away leaves the other. */
	KUNIT_ASSERT_EQ(test, init_mkdir(DIR "/a/x/sub", 0755), 0);
	mount_tmpfs(test, s, DIR "/a/x/sub", "size=4k");
	mount_tmpfs(test, s, DIR "/b/sub", "size=8k");
	struct super_block *lower = sb_at(test, DIR "/a"), *second = sb_at(test, DIR "/b/sub");
	KUNIT_EXPECT_PTR_NE(test, second, lower);
	KUNIT_EXPECT_EQ(test, SHMEM_SB(sb_at(test, DIR "/a/x/sub"))->max_blocks, 1ul);
	KUNIT_ASSERT_EQ(test, do_umount_path(DIR "/a/x/sub", 0), 0);
	strlcpy(s->mnt[s->mounts - 2], s->mnt[s->mounts - 1], sizeof(s->mnt[0]));
	s->mounts--;
	KUNIT_EXPECT_PTR_EQ(test, sb_at(test, DIR "/b/sub"), second);
	KUNIT_EXPECT_PTR_EQ(test, sb_at(test, DIR "/a/x/sub"), lower);
	umount_tmpfs(test, s, DIR "/b/sub");
	KUNIT_EXPECT_PTR_EQ(test, sb_at(test, DIR "/b/sub"), lower);
	KUNIT_EXPECT_EQ(test, init_rmdir(DIR "/a/x/sub"), 0);
	/* MS_REC: the mounts below the source come along, at their places. */
	scratch_mkdir(test, s, DIR "/c");
	KUNIT_ASSERT_EQ(test, init_mkdir(DIR "/a/x/m", 0755), 0);
	mount_tmpfs(test, s, DIR "/a/x/m", "size=12k");
	KUNIT_ASSERT_EQ(test, mount_opts(DIR "/a", DIR "/c", NULL, MS_BIND | MS_REC, NULL), 0);
	strlcpy(s->mnt[s->mounts++], DIR "/c", sizeof(s->mnt[0]));
	KUNIT_EXPECT_PTR_EQ(test, sb_at(test, DIR "/c/x/m"), sb_at(test, DIR "/a/x/m"));
	KUNIT_EXPECT_PTR_EQ(test, sb_at(test, DIR "/b/m"), lower); /* the plain bind: the directory */
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/c", 0), -EBUSY); /* its copy of the inner mount */
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/c", MNT_DETACH), 0);
	s->mounts--;
	umount_tmpfs(test, s, DIR "/a/x/m");
	KUNIT_EXPECT_EQ(test, init_rmdir(DIR "/a/x/m"), 0);
	KUNIT_EXPECT_EQ(test, mount_opts(NULL, DIR "/b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL), 0);
	KUNIT_EXPECT_EQ(test, init_unlink(DIR "/b/f"), -EROFS);
	KUNIT_EXPECT_EQ(test, init_unlink(DIR "/a/x/f"), 0); /* the other mount is writable */
	umount_tmpfs(test, s, DIR "/b");
	umount_tmpfs(test, s, DIR "/a");
	/* procfs elsewhere, and sysfs's one instance twice on /sys: -EBUSY. */
	KUNIT_ASSERT_EQ(test, mount_opts("proc", DIR "/p", "proc", 0, NULL), 0);
	strlcpy(s->mnt[s->mounts++], DIR "/p", sizeof(s->mnt[0]));
	struct nameidata nd;
	KUNIT_ASSERT_EQ(test, path_lookupat(&nd, NULL, AT_FDCWD, DIR "/p/meminfo", 0), 0);
	KUNIT_EXPECT_TRUE(test, nd_is_generated(&nd));
	path_lookup_done(&nd);
	KUNIT_ASSERT_EQ(test, kern_path(DIR "/p/..", 0, &up), 0);
	KUNIT_ASSERT_EQ(test, kern_path(DIR, 0, &top), 0);
	KUNIT_EXPECT_TRUE(test, path_equal(&top, &up));
	path_put(&up);
	path_put(&top);
	KUNIT_EXPECT_EQ(test, mount_opts("proc", DIR "/p", "proc", 0, "hidepid=2"), -EINVAL);
	/* A file open in it keeps it: -EBUSY, and fstatfs knows it as proc. */
	struct file *pf = filp_open(DIR "/p/meminfo", O_RDONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pf));
	KUNIT_EXPECT_EQ(test, do_umount_path(DIR "/p", 0), -EBUSY);
	struct nameidata pnd;
	if (path_lookupat(&pnd, NULL, AT_FDCWD, DIR "/p", 0) == 0) {
		KUNIT_EXPECT_PTR_EQ(test, pf->f_path.mnt, pnd.generated_mnt);
		path_lookup_done(&pnd);
	} else {
		EXPECT_TRUE_MSG(test, false, "no %s", DIR "/p");
	}
	filp_close(pf);
	umount_tmpfs(test, s, DIR "/p");
	KUNIT_EXPECT_EQ(test, mount_opts("sysfs", "/sys", "sysfs", 0, NULL), -EBUSY);
	KUNIT_ASSERT_EQ(test, procfs_generate("/proc/filesystems", current, &text, &len), 0);
	KUNIT_EXPECT_STREQ(test, text, "nodev\tsysfs\nnodev\ttmpfs\nnodev\tproc\nnodev\thugetlbfs\n");
	kvfree(text);
}

static struct kunit_case mount_cases[] = {
	KUNIT_CASE(options_parsed_and_refused),
	KUNIT_CASE(enospc_at_size_and_nr_inodes),
	KUNIT_CASE(mpol_places_pages),
	KUNIT_CASE(umount_gives_everything_back),
	KUNIT_CASE(busy_mount_refused),
	KUNIT_CASE(dotdot_bind_and_generated),
	{},
};

static struct kunit_suite mount_suite = {
	.name = "mount",
	.test_cases = mount_cases,
};
kunit_test_suite(mount_suite);
