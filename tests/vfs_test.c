/* The VFS and tmpfs (fs/namei.c, fs/dcache.c, mm/shmem.c, mm/filemap.c):
 * the path walk's answers (a symlink loop and the 40-link limit are
 * -ELOOP, ".." stays at the root, a name of 255 bytes is made and one of
 * 256 is -ENAMETOOLONG, a trailing slash on a file is -ENOTDIR), a file's
 * pages in its page cache (written, read back, holes, truncated, and all
 * of them back when it goes, unlinked while open or not), and getdents64
 * on tmpfs and /proc, and a device node opening its driver. Each case works in its own directory under /tmp,
 * which a deferred action empties and removes however the case ends; and
 * each checks that every inode, dentry and page cache page it made came
 * back (the suite's free_pages_restored checks the pages and slab
 * objects). */
#include "tests/kunit.h"
#include "fs/char_dev.h"
#include "fs/dcache.h"
#include "fs/fdtable.h"
#include "fs/init.h"
#include "fs/internal.h"
#include "fs/mount.h"
#include "fs/namei.h"
#include "kernel/sched.h"
#include "tests/test_cpu.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/filemap.h"
#include "mm/page_alloc.h"
#include "mm/shmem.h"
#include "mm/slab.h"

#define DIR "/tmp/vfs_test"

/* What a case made, removed newest first by the deferred action. */
struct made {
	int n;
	struct {
		char path[300];
		bool dir;
	} names[56];
};

static void remove_made(void *arg)
{
	struct made *m = arg;
	while (m->n > 0) {
		m->n--;
		if (m->names[m->n].dir)
			init_rmdir(m->names[m->n].path);
		else
			init_unlink(m->names[m->n].path);
	}
	kfree(m);
}

struct counts {
	long inodes, dentries;
	unsigned long file_pages, shmem_pages;
};

static void counts_now(struct counts *c)
{
	c->inodes = __atomic_load_n(&init_root.dentry->d_sb->s_inodes, __ATOMIC_RELAXED);
	c->dentries = nr_dentries();
	c->file_pages = nr_file_pages();
	c->shmem_pages = nr_shmem_pages();
}

static struct made *setup(struct kunit *test, struct counts *before)
{
	counts_now(before);
	struct made *m = kzalloc(sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, remove_made, m), 0);
	KUNIT_ASSERT_EQ(test, init_mkdir(DIR, 0755), 0);
	strlcpy(m->names[0].path, DIR, sizeof(m->names[0].path));
	m->names[0].dir = true;
	m->n = 1;
	return m;
}

/* Records path (relative to DIR) as made; returns its full path. */
static const char *note_made(struct made *m, const char *name, bool dir)
{
	if (m->n == (int)ARRAY_SIZE(m->names))
		return NULL;
	snprintf(m->names[m->n].path, sizeof(m->names[0].path), DIR "/%s", name);
	m->names[m->n].dir = dir;
	return m->names[m->n++].path;
}

static void expect_counts_back(struct kunit *test, struct made *m, const struct counts *before)
{
	while (m->n > 0) {
		m->n--;
		int err = m->names[m->n].dir ? init_rmdir(m->names[m->n].path) : init_unlink(m->names[m->n].path);
		KUNIT_EXPECT_EQ(test, err, 0);
	}
	struct counts after;
	counts_now(&after);
	KUNIT_EXPECT_EQ(test, after.inodes, before->inodes);
	KUNIT_EXPECT_EQ(test, after.dentries, before->dentries);
	KUNIT_EXPECT_EQ(test, after.file_pages, before->file_pages);
	KUNIT_EXPECT_EQ(test, after.shmem_pages, before->shmem_pages);
}

static int lookup(const char *path, unsigned int flags)
{
	struct path p;
	int err = kern_path(path, flags, &p);
	if (!err)
		path_put(&p);
	return err;
}

static void symlink_loops(struct kunit *test)
{
	struct counts before;
	struct made *m = setup(test, &before);
	KUNIT_ASSERT_EQ(test, init_symlink("b", note_made(m, "a", false)), 0);
	KUNIT_ASSERT_EQ(test, init_symlink("a", note_made(m, "b", false)), 0);
	KUNIT_EXPECT_EQ(test, lookup(DIR "/a", LOOKUP_FOLLOW), -ELOOP);
	KUNIT_EXPECT_EQ(test, lookup(DIR "/a/x", 0), -ELOOP);
	KUNIT_EXPECT_EQ(test, lookup(DIR "/a", 0), 0); /* the link itself */
	KUNIT_EXPECT_EQ(test, lookup(DIR "/a/", 0), -ELOOP); /* a slash follows it */
	/* l0 -> dir, l<i> -> l<i-1>: l39 takes 40 links, l40 41. */
	char name[16], target[16];
	KUNIT_ASSERT_EQ(test, init_symlink(".", note_made(m, "l0", false)), 0);
	for (int i = 1; i <= 40; i++) {
		snprintf(name, sizeof(name), "l%d", i);
		snprintf(target, sizeof(target), "l%d", i - 1);
		KUNIT_ASSERT_EQ(test, init_symlink(target, note_made(m, name, false)), 0);
	}
	KUNIT_EXPECT_EQ(test, lookup(DIR "/l39", LOOKUP_FOLLOW | LOOKUP_DIRECTORY), 0);
	KUNIT_EXPECT_EQ(test, lookup(DIR "/l40", LOOKUP_FOLLOW), -ELOOP);
	/* The limit is on the whole lookup, not on one chain. */
	KUNIT_EXPECT_EQ(test, lookup(DIR "/l19/l19", LOOKUP_FOLLOW), 0);      /* 20 + 20 */
	KUNIT_EXPECT_EQ(test, lookup(DIR "/l19/l20", LOOKUP_FOLLOW), -ELOOP); /* 20 + 21 */
	/* An absolute target starts again at the root. */
	KUNIT_ASSERT_EQ(test, init_symlink("/tmp", note_made(m, "abs", false)), 0);
	struct path p, tmp;
	KUNIT_ASSERT_EQ(test, kern_path(DIR "/abs/vfs_test/abs/", 0, &p), 0);
	KUNIT_ASSERT_EQ(test, kern_path("/tmp", 0, &tmp), 0);
	KUNIT_EXPECT_PTR_EQ(test, p.dentry, tmp.dentry);
	path_put(&p);
	path_put(&tmp);
	expect_counts_back(test, m, &before);
}

static void dotdot_at_root(struct kunit *test)
{
	struct path p;
	static const char *const roots[] = { "/..", "/../..", "/tmp/../..", "/proc/..", "/proc/self/../../..",
					     "/sys/devices/../..", "/./tmp/./../." };
	for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
		int err = kern_path(roots[i], LOOKUP_FOLLOW, &p);
		if (err) {
			kunit_fail(test, false, __FILE__, __LINE__, "%s: %d", roots[i], err);
			continue;
		}
		if (p.dentry != init_root.dentry || p.mnt != init_root.mnt)
			kunit_fail(test, false, __FILE__, __LINE__, "%s is not the root", roots[i]);
		path_put(&p);
	}
	/* Inside /proc the walk is procfs's: a generated file is no path. */
	KUNIT_EXPECT_EQ(test, kern_path("/proc/meminfo", 0, &p), -EXDEV);
	KUNIT_EXPECT_EQ(test, kern_path("/proc/missing", 0, &p), -ENOENT);
}

static void name_lengths(struct kunit *test)
{
	struct counts before;
	struct made *m = setup(test, &before);
	char name[NAME_MAX + 2];
	memset(name, 'n', NAME_MAX);
	name[NAME_MAX] = 0;
	KUNIT_EXPECT_EQ(test, init_mkdir(note_made(m, name, true), 0755), 0);
	name[NAME_MAX] = 'n';
	name[NAME_MAX + 1] = 0;
	char *path = kmalloc(PATH_MAX + 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, path);
	snprintf(path, PATH_MAX, DIR "/%s", name);
	KUNIT_EXPECT_EQ(test, init_mkdir(path, 0755), -ENAMETOOLONG);
	KUNIT_EXPECT_EQ(test, lookup(path, 0), -ENAMETOOLONG);
	struct file *f = filp_open(path, O_CREAT | O_WRONLY, 0644);
	KUNIT_EXPECT_EQ(test, PTR_ERR(f), -ENAMETOOLONG);
	/* Below /proc a long name is just not there. */
	snprintf(path, PATH_MAX, "/proc/%s", name);
	KUNIT_EXPECT_EQ(test, lookup(path, 0), -ENOENT);
	/* A path of PATH_MAX bytes and more is the system call's to refuse
	 * (getname); one of PATH_MAX - 1 walks. */
	memset(path, '/', PATH_MAX + 1);
	memcpy(path + PATH_MAX - 1 - 4, "/tmp", 5);
	KUNIT_EXPECT_EQ(test, lookup(path, 0), 0);
	struct files_struct *files = files_alloc("");
	KUNIT_ASSERT_NOT_NULL(test, files);
	KUNIT_EXPECT_GE(test, files_open(files, AT_FDCWD, path, O_RDONLY, 0), 0);
	memset(path, '/', PATH_MAX + 1);
	memcpy(path + PATH_MAX - 4, "/tmp", 5);
	KUNIT_EXPECT_EQ(test, files_open(files, AT_FDCWD, path, O_RDONLY, 0), -ENAMETOOLONG);
	files_release(files);
	kfree(path);
	expect_counts_back(test, m, &before);
}

static void trailing_slash(struct kunit *test)
{
	struct counts before;
	struct made *m = setup(test, &before);
	struct file *f = filp_open(note_made(m, "f", false), O_CREAT | O_WRONLY, 0644);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	filp_close(f);
	KUNIT_EXPECT_EQ(test, lookup(DIR "/f/", 0), -ENOTDIR);
	KUNIT_EXPECT_EQ(test, lookup(DIR "/f/.", 0), -ENOTDIR);
	KUNIT_EXPECT_EQ(test, lookup(DIR "/f/..", 0), -ENOTDIR);
	KUNIT_EXPECT_EQ(test, PTR_ERR(filp_open(DIR "/f/", O_RDONLY, 0)), -ENOTDIR);
	KUNIT_EXPECT_EQ(test, init_unlink(DIR "/f/"), -ENOTDIR);
	KUNIT_EXPECT_EQ(test, init_mkdir(note_made(m, "d/", true), 0755), 0);
	KUNIT_EXPECT_EQ(test, lookup(DIR "/d/", 0), 0);
	KUNIT_EXPECT_EQ(test, lookup(DIR "//d//.//", 0), 0);
	KUNIT_EXPECT_EQ(test, init_symlink("f", note_made(m, "lf", false)), 0);
	KUNIT_EXPECT_EQ(test, lookup(DIR "/lf/", 0), -ENOTDIR);
	KUNIT_EXPECT_EQ(test, init_mknod(DIR "/n/", S_IFCHR | 0644, 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, init_mknod(DIR "/n", S_IFREG | 0644, 0), -EINVAL); /* Linux's init_mknod */
	KUNIT_EXPECT_EQ(test, lookup("/proc/meminfo/", 0), -ENOTDIR);
	expect_counts_back(test, m, &before);
}

static bool all_bytes(const char *p, char c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != c)
			return false;
	return true;
}

static void pages_of_a_file(struct kunit *test)
{
	struct counts before;
	struct made *m = setup(test, &before);
	struct file *f = filp_open(note_made(m, "data", false), O_CREAT | O_RDWR, 0600);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	struct address_space *mapping = f->f_mapping;
	char *buf = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, 'a', 3 * PAGE_SIZE);
	long long pos = 100;
	KUNIT_EXPECT_EQ(test, kernel_write(f, buf, 2 * PAGE_SIZE, &pos), (long)(2 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, pos, (long long)(2 * PAGE_SIZE + 100));
	KUNIT_EXPECT_EQ(test, mapping->nrpages, 3ul); /* pages 0, 1 and 2 */
	KUNIT_EXPECT_EQ(test, nr_file_pages(), before.file_pages + 3);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), before.shmem_pages + 3);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_size, (long)(2 * PAGE_SIZE + 100));
	/* A write far out leaves a hole: no page for it, zeros to a read. */
	pos = 100 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, kernel_write(f, "z", 1, &pos), 1);
	KUNIT_EXPECT_EQ(test, mapping->nrpages, 4ul);
	memset(buf, 'x', 3 * PAGE_SIZE);
	pos = 0;
	KUNIT_EXPECT_EQ(test, kernel_read(f, buf, 3 * PAGE_SIZE, &pos), (long)(3 * PAGE_SIZE));
	KUNIT_EXPECT_TRUE(test, all_bytes(buf, 0, 100));
	KUNIT_EXPECT_TRUE(test, all_bytes(buf + 100, 'a', 2 * PAGE_SIZE));
	KUNIT_EXPECT_TRUE(test, all_bytes(buf + 2 * PAGE_SIZE + 100, 0, PAGE_SIZE - 100));
	struct page *page = filemap_get_folio(mapping, 50);
	KUNIT_EXPECT_NULL(test, page);
	if (page) /* a failure here must not leak the reference too */
		put_page(page);
	page = filemap_get_folio(mapping, 100);
	KUNIT_EXPECT_NOT_NULL(test, page);
	if (page) {
		KUNIT_EXPECT_EQ(test, *(char *)page_address(page), 'z');
		KUNIT_EXPECT_PTR_EQ(test, page->mapping, (void *)mapping);
		put_page(page);
	}
	KUNIT_EXPECT_EQ(test, filemap_next_index(mapping, 3, 101, true), 100ul);
	KUNIT_EXPECT_EQ(test, filemap_next_index(mapping, 0, 101, false), 3ul);
	/* Truncate: the pages past the new end go, the cut page's tail is
	 * zeroed (growing again shows zeros). */
	struct iattr attr = { .ia_valid = ATTR_SIZE, .ia_size = PAGE_SIZE + 10 };
	KUNIT_EXPECT_EQ(test, notify_change(f->f_path.dentry, &attr), 0);
	KUNIT_EXPECT_EQ(test, mapping->nrpages, 2ul);
	KUNIT_EXPECT_EQ(test, nr_file_pages(), before.file_pages + 2);
	attr.ia_size = 2 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, notify_change(f->f_path.dentry, &attr), 0);
	pos = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, kernel_read(f, buf, 2 * PAGE_SIZE, &pos), (long)PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, all_bytes(buf, 'a', 10));
	KUNIT_EXPECT_TRUE(test, all_bytes(buf + 10, 0, PAGE_SIZE - 10));
	KUNIT_EXPECT_EQ(test, kernel_read(f, buf, 1, &pos), 0); /* the end */
	kfree(buf);
	filp_close(f);
	expect_counts_back(test, m, &before);
}

static void unlink_while_open(struct kunit *test)
{
	struct counts before;
	struct made *m = setup(test, &before);
	struct file *f = filp_open(DIR "/gone", O_CREAT | O_RDWR, 0600);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	long long pos = 0;
	KUNIT_EXPECT_EQ(test, kernel_write(f, "still here", 10, &pos), 10);
	KUNIT_EXPECT_EQ(test, init_unlink(DIR "/gone"), 0);
	KUNIT_EXPECT_EQ(test, lookup(DIR "/gone", 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_nlink, 0u);
	struct counts open;
	counts_now(&open);
	KUNIT_EXPECT_EQ(test, open.inodes, before.inodes + 2); /* DIR's, and the file's until the close */
	KUNIT_EXPECT_EQ(test, open.file_pages, before.file_pages + 1);
	char got[11] = { 0 };
	pos = 0;
	KUNIT_EXPECT_EQ(test, kernel_read(f, got, 10, &pos), 10);
	KUNIT_EXPECT_STREQ(test, got, "still here");
	/* The same with a hard link left: the inode stays with its name. */
	struct file *g = filp_open(note_made(m, "h1", false), O_CREAT | O_WRONLY, 0600);
	KUNIT_ASSERT_FALSE(test, IS_ERR(g));
	KUNIT_EXPECT_EQ(test, init_link(DIR "/h1", note_made(m, "h2", false)), 0);
	KUNIT_EXPECT_EQ(test, g->f_inode->i_nlink, 2u);
	filp_close(g);
	/* O_TMPFILE: no name at all; linkable unless O_EXCL. */
	struct file *t = filp_open(DIR, O_TMPFILE | O_RDWR, 0600);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_EXPECT_EQ(test, t->f_inode->i_nlink, 0u);
	pos = 0;
	KUNIT_EXPECT_EQ(test, kernel_write(t, "t", 1, &pos), 1);
	filp_close(t);
	filp_close(f); /* the last reference: inode and page go */
	expect_counts_back(test, m, &before);
}

struct names_seen {
	struct dir_context ctx;
	char names[512];
	int calls_room; /* entries this call still takes */
	int dots;
};

static bool collect(struct dir_context *ctx, const char *name, int len, long pos, unsigned long ino,
		    unsigned int type)
{
	struct names_seen *s = container_of(ctx, struct names_seen, ctx);
	(void)pos, (void)ino;
	if (!s->calls_room)
		return false;
	s->calls_room--;
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.')) {
		s->dots++;
		return true;
	}
	size_t at = strlen(s->names);
	snprintf(s->names + at, sizeof(s->names) - at, "%s%.*s%s", at ? "," : "", len, name,
		 type == DT_DIR ? "/" : type == DT_LNK ? "@" : "");
	return true;
}

static void getdents(struct kunit *test)
{
	struct counts before;
	struct made *m = setup(test, &before);
	KUNIT_ASSERT_EQ(test, init_mkdir(note_made(m, "sub", true), 0755), 0);
	struct file *f = filp_open(note_made(m, "reg", false), O_CREAT | O_WRONLY, 0644);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	filp_close(f);
	KUNIT_ASSERT_EQ(test, init_symlink("reg", note_made(m, "lnk", false)), 0);
	KUNIT_ASSERT_EQ(test, init_mknod(note_made(m, "dev", false), S_IFCHR | 0600, new_encode_dev(MKDEV(240u, 7u))), 0);
	/* Two entries per call: the offsets carry the listing on. */
	struct file *d = filp_open(DIR, O_RDONLY | O_DIRECTORY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(d));
	struct names_seen seen = { .ctx = { .actor = collect } };
	int calls = 0;
	do {
		seen.calls_room = 2;
		seen.ctx.pos = d->f_pos;
		KUNIT_EXPECT_EQ(test, d->f_op->iterate_shared(d, &seen.ctx), 0);
		d->f_pos = seen.ctx.pos;
		calls++;
	} while (seen.calls_room == 0 && calls < 10);
	KUNIT_EXPECT_EQ(test, seen.dots, 2);
	KUNIT_EXPECT_STREQ(test, seen.names, "sub/,reg,lnk@,dev");
	KUNIT_EXPECT_EQ(test, calls, 4);
	/* A name removed and one added between calls: the rest goes on. */
	d->f_pos = 0;
	memset(&seen, 0, sizeof(seen));
	seen.ctx.actor = collect;
	seen.calls_room = 3; /* ".", "..", "sub" */
	d->f_op->iterate_shared(d, &seen.ctx);
	KUNIT_EXPECT_EQ(test, init_unlink(DIR "/reg"), 0);
	KUNIT_ASSERT_EQ(test, init_mkdir(note_made(m, "late", true), 0755), 0);
	seen.calls_room = 10;
	d->f_op->iterate_shared(d, &seen.ctx);
	KUNIT_EXPECT_STREQ(test, seen.names, "sub/,lnk@,dev,late/");
	filp_close(d);
	struct path p;
	KUNIT_ASSERT_EQ(test, kern_path(DIR "/dev", 0, &p), 0);
	KUNIT_EXPECT_EQ(test, p.dentry->d_inode->i_rdev, MKDEV(240u, 7u)); /* a number no driver has */
	path_put(&p);
	KUNIT_EXPECT_EQ(test, PTR_ERR(filp_open(DIR "/dev", O_RDONLY, 0)), -ENXIO); /* no driver */
	/* m's list still names reg: put the file back for the cleanup. */
	f = filp_open(DIR "/reg", O_CREAT | O_WRONLY, 0644);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	filp_close(f);
	/* /proc lists its fixed names and the families' members. */
	d = filp_open("/proc", O_RDONLY | O_DIRECTORY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(d));
	memset(&seen, 0, sizeof(seen));
	seen.ctx.actor = collect;
	seen.calls_room = 1000;
	KUNIT_EXPECT_EQ(test, d->f_op->iterate_shared(d, &seen.ctx), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(seen.names, "meminfo"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(seen.names, "self/"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(seen.names, "sys/"));
	filp_close(d);
	expect_counts_back(test, m, &before);
}

/* A driver's methods for a device number: what opening its node gives. */
static long test_dev_read(struct file *f, char *dst, size_t count, long *pos, bool user)
{
	(void)f, (void)pos;
	return count && !file_copy_out(dst, "D", 1, user) ? 1 : 0;
}
static int test_dev_opens;
static int test_dev_open(struct inode *inode, struct file *f)
{
	(void)inode, (void)f;
	test_dev_opens++;
	return 0;
}
static const struct file_operations test_dev_fops = {
	.open = test_dev_open, .read = test_dev_read, .llseek = no_llseek,
};

static void unregister_test_dev(void *unused)
{
	(void)unused;
	unregister_chrdev_fops(241, 1);
}

static void char_device_opens_its_driver(struct kunit *test)
{
	struct counts before;
	struct made *m = setup(test, &before);
	KUNIT_ASSERT_EQ(test, init_mknod(note_made(m, "dev", false), S_IFCHR | 0600, new_encode_dev(MKDEV(241u, 1u))), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(filp_open(DIR "/dev", O_RDONLY, 0)), -ENXIO);
	KUNIT_ASSERT_EQ(test, register_chrdev_fops(241, 1, &test_dev_fops), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_test_dev, NULL), 0);
	KUNIT_EXPECT_EQ(test, register_chrdev_fops(241, 1, &test_dev_fops), -EBUSY);
	int opens = test_dev_opens;
	struct file *f = filp_open(DIR "/dev", O_RDONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, test_dev_opens, opens + 1);
	KUNIT_EXPECT_PTR_EQ(test, f->f_op, &test_dev_fops);
	char c = 0;
	long long pos = 0;
	KUNIT_EXPECT_EQ(test, kernel_read(f, &c, 1, &pos), 1);
	KUNIT_EXPECT_EQ(test, c, 'D');
	filp_close(f);
	expect_counts_back(test, m, &before);
}

/* Every CPU changes the one directory at once: files made, written,
 * linked, renamed over one another's, opened and read by name, unlinked;
 * directories made and removed; the directory listed meanwhile. What must
 * hold: every call gives 0 or the errno its race allows, every read sees
 * one whole file (64 bytes of one worker's letter), and once all is
 * removed every inode, dentry and page is back. */
#define CHURN_ROUNDS 50

static int churn_worker(struct test_worker *w)
{
	char mine[64], link[64], sub[64], buf[64];
	snprintf(mine, sizeof(mine), DIR "/w%u", w->id);
	snprintf(link, sizeof(link), DIR "/l%u", w->id);
	snprintf(sub, sizeof(sub), DIR "/d%u", w->id);
	char letter = (char)('a' + w->id % 26);
	memset(buf, letter, sizeof(buf));
	int bad = 0;
	for (int i = 0; i < CHURN_ROUNDS && !test_crew_should_stop(w); i++) {
		struct file *f = filp_open(mine, O_CREAT | O_EXCL | O_RDWR, 0644);
		if (IS_ERR(f))
			return 1;
		long long pos = 0;
		bad |= kernel_write(f, buf, sizeof(buf), &pos) != (long)sizeof(buf);
		filp_close(f);
		bad |= init_link(mine, link) != 0;
		bad |= do_renameat2(AT_FDCWD, mine, AT_FDCWD, DIR "/shared", 0) != 0;
		f = filp_open(DIR "/shared", O_RDONLY, 0);
		if (!IS_ERR(f)) { /* another worker's file may have replaced ours */
			char got[65];
			pos = 0;
			long n = kernel_read(f, got, sizeof(got), &pos);
			bad |= n != 64;
			for (long j = 1; j < n; j++)
				bad |= got[j] != got[0];
			filp_close(f);
		} else {
			bad |= PTR_ERR(f) != -ENOENT;
		}
		bad |= init_unlink(link) != 0;
		bad |= init_mkdir(sub, 0755) != 0;
		int e = init_symlink("..", DIR "/d_tmp"); /* one name for all: the first makes it */
		bad |= e != 0 && e != -EEXIST;
		bad |= init_rmdir(sub) != 0;
		test_crew_progress(w);
	}
	return bad;
}

static int list_worker(struct test_worker *w)
{
	int bad = 0;
	while (!test_crew_should_stop(w)) {
		struct file *d = filp_open(DIR, O_RDONLY | O_DIRECTORY, 0);
		if (IS_ERR(d))
			return 1;
		char buf[512];
		long n;
		while ((n = files_getdents64(d, buf, sizeof(buf), false)) > 0)
			;
		bad |= n != 0;
		filp_close(d);
		test_crew_progress(w);
		cond_resched();
	}
	return bad;
}

static struct test_crew churn_crew, list_crew;

static void namespace_changes_on_every_cpu(struct kunit *test)
{
	struct counts before;
	struct made *m = setup(test, &before);
	test_crew_start(test, &list_crew, list_worker, NULL, 1, 0);
	test_crew_start(test, &churn_crew, churn_worker, NULL, 0, 0);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &churn_crew), 0ul);
	test_crew_stop(&list_crew);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &list_crew), 0ul);
	/* What is left: the last file renamed to "shared", and d_tmp. */
	KUNIT_EXPECT_EQ(test, lookup(note_made(m, "shared", false), 0), 0);
	KUNIT_EXPECT_EQ(test, lookup(DIR "/d_tmp", 0), 0);
	note_made(m, "d_tmp", false);
	expect_counts_back(test, m, &before);
}

static struct kunit_case vfs_cases[] = {
	KUNIT_CASE(symlink_loops),
	KUNIT_CASE(dotdot_at_root),
	KUNIT_CASE(name_lengths),
	KUNIT_CASE(trailing_slash),
	KUNIT_CASE(pages_of_a_file),
	KUNIT_CASE(unlink_while_open),
	KUNIT_CASE(getdents),
	KUNIT_CASE(char_device_opens_its_driver),
	KUNIT_CASE(namespace_changes_on_every_cpu),
	{},
};

static struct kunit_suite vfs_suite = {
	.name = "vfs",
	.test_cases = vfs_cases,
};
kunit_test_suite(vfs_suite);
