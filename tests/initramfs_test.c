/* The initramfs unpacker (fs/initramfs.c) on the real VFS: a newc archive
 * made here, in memory, unpacked into the tmpfs root under /tmp, and read
 * back through the path walk: a directory, a file's bytes, a symlink, a
 * character device node with its number (which opens its driver), a hard
 * link sharing the file's inode, modes and an mtime. Then archives that
 * break: one cut inside a file's data (what came before stays, the error
 * names the offset of the entry it cut), a name with a ".." component
 * (refused, the rest unpacked). The host test (tests/host/initramfs_test.c)
 * holds the unpacker to the hostile cases one by one against a fake of the
 * helpers; this suite shows the same code making real files. Each case
 * removes what it unpacked and checks that every inode, dentry and page
 * cache page came back.
 *
 * Then the programs' manifest (fs/programs.h): every line of the
 * /etc/mmlab/programs this boot found is in the registry with its kind and
 * arguments, every program the registry knows is a file in /bin, and
 * manifest lines that are wrong are refused, each with its reason logged,
 * the registry unchanged; program modules a user added beside the
 * archive (the user-module topology) are in /bin and the registry. */
#include "tests/kunit.h"
#include "drivers/firmware/multiboot2.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/init.h"
#include "fs/initramfs.h"
#include "fs/mount.h"
#include "fs/namei.h"
#include "fs/exec.h"
#include "fs/programs.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "kernel/printk.h"
#include "mm/filemap.h"
#include "mm/shmem.h"
#include "mm/slab.h"

#define DIR "/tmp/initramfs_test"
#define ARCHIVE_MAX 4096

struct archive {
	char buf[ARCHIVE_MAX];
	unsigned long len;
};

/* One newc entry (Linux's usr/gen_init_cpio format): the 110-byte header
 * in hex, the name with its NUL, padding to 4, the data, padding to 4. */
static void add_entry(struct archive *a, const char *name, unsigned int mode, unsigned int ino,
		      unsigned int nlink, unsigned int mtime, const void *data, unsigned int size,
		      unsigned int rmaj, unsigned int rmin)
{
	unsigned int namesize = (unsigned int)strlen(name) + 1;
	int n = snprintf(a->buf + a->len, ARCHIVE_MAX - a->len,
			 "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", ino, mode, 0u, 0u,
			 nlink, mtime, size, 0u, 0u, rmaj, rmin, namesize, 0u);
	a->len += (unsigned long)n;
	memcpy(a->buf + a->len, name, namesize);
	a->len += namesize;
	while (a->len & 3)
		a->buf[a->len++] = 0;
	if (size)
		memcpy(a->buf + a->len, data, size);
	a->len += size;
	while (a->len & 3)
		a->buf[a->len++] = 0;
}

static void add_trailer(struct archive *a)
{
	add_entry(a, "TRAILER!!!", 0, 0, 1, 0, NULL, 0, 0, 0);
}

struct counts {
	long inodes, dentries;
	unsigned long file_pages;
};

static void counts_now(struct counts *c)
{
	c->inodes = __atomic_load_n(&init_root.dentry->d_sb->s_inodes, __ATOMIC_RELAXED);
	c->dentries = nr_dentries();
	c->file_pages = nr_file_pages();
}

/* Everything a case may have unpacked, removed however it ends (the
 * names that do not exist give an error, ignored). */
static void remove_unpacked(void *unused)
{
	(void)unused;
	static const char *const files[] = { DIR "/d/file", DIR "/d/link", DIR "/d/hard",
					     DIR "/d/null", DIR "/d/after", DIR "/escaped" };
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		init_unlink(files[i]);
	init_rmdir(DIR "/d");
	init_rmdir(DIR);
}

static void expect_counts_back(struct kunit *test, const struct counts *before)
{
	remove_unpacked(NULL);
	struct counts after;
	counts_now(&after);
	KUNIT_EXPECT_EQ(test, after.inodes, before->inodes);
	KUNIT_EXPECT_EQ(test, after.dentries, before->dentries);
	KUNIT_EXPECT_EQ(test, after.file_pages, before->file_pages);
}

static int stat_path(const char *path, unsigned int flags, struct kstat *st)
{
	struct path p;
	int err = kern_path(path, flags, &p);
	if (err)
		return err;
	err = vfs_getattr(&p, st);
	path_put(&p);
	return err;
}

static const char file_data[] = "the page cache holds this file\n";

/* An archive that begins with DIR and DIR/d (d of mode d_mode). */
static void start_archive(struct archive *a, unsigned int d_mode)
{
	memset(a, 0, sizeof(*a));
	add_entry(a, DIR, S_IFDIR | 0755, 1, 2, 0, NULL, 0, 0, 0);
	add_entry(a, DIR "/d", S_IFDIR | d_mode, 2, 2, 0, NULL, 0, 0, 0);
}

static void unpacks_every_kind(struct kunit *test)
{
	struct counts before;
	counts_now(&before);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, remove_unpacked, NULL), 0);
	static struct archive a;
	start_archive(&a, 0700);
	/* The file and its second name: the data comes with the last one, as
	 * cpio writes hard links. */
	add_entry(&a, DIR "/d/file", S_IFREG | 0640, 3, 2, 1000000000, NULL, 0, 0, 0);
	add_entry(&a, DIR "/d/hard", S_IFREG | 0640, 3, 2, 1000000000, file_data,
		  (unsigned int)strlen(file_data), 0, 0);
	add_entry(&a, DIR "/d/link", S_IFLNK | 0777, 4, 1, 0, "file", 4, 0, 0);
	add_entry(&a, DIR "/d/null", S_IFCHR | 0666, 5, 1, 0, NULL, 0, 1, 3);
	add_trailer(&a);

	struct initramfs_summary sum;
	KUNIT_EXPECT_EQ(test, unpack_to_rootfs(a.buf, a.len, &sum), 0);
	KUNIT_EXPECT_EQ(test, sum.dirs, 2u);
	KUNIT_EXPECT_EQ(test, sum.files, 1u);
	KUNIT_EXPECT_EQ(test, sum.hard_links, 1u);
	KUNIT_EXPECT_EQ(test, sum.symlinks, 1u);
	KUNIT_EXPECT_EQ(test, sum.nodes, 1u);
	KUNIT_EXPECT_EQ(test, sum.skipped, 0u);
	KUNIT_EXPECT_EQ(test, sum.archives, 1u);
	KUNIT_EXPECT_EQ(test, sum.consumed, a.len);

	struct kstat st, st2;
	KUNIT_ASSERT_EQ(test, stat_path(DIR "/d", 0, &st), 0);
	KUNIT_EXPECT_EQ(test, st.mode, (unsigned)(S_IFDIR | 0700));
	KUNIT_ASSERT_EQ(test, stat_path(DIR "/d/file", 0, &st), 0);
	KUNIT_EXPECT_EQ(test, st.mode, (unsigned)(S_IFREG | 0640));
	KUNIT_EXPECT_EQ(test, st.size, (long)strlen(file_data));
	KUNIT_EXPECT_EQ(test, st.nlink, 2u);
	/* The archive's time, not the symlink's to it (mtime 0), which
	 * init_utimes once stamped through the link. */
	KUNIT_EXPECT_EQ(test, st.mtime.tv_sec, 1000000000ll);
	KUNIT_ASSERT_EQ(test, stat_path(DIR "/d/hard", 0, &st2), 0);
	KUNIT_EXPECT_EQ(test, st2.ino, st.ino);
	/* The symlink followed is the file; not followed, a link. */
	KUNIT_ASSERT_EQ(test, stat_path(DIR "/d/link", LOOKUP_FOLLOW, &st2), 0);
	KUNIT_EXPECT_EQ(test, st2.ino, st.ino);
	KUNIT_ASSERT_EQ(test, stat_path(DIR "/d/link", 0, &st2), 0);
	KUNIT_EXPECT_EQ(test, st2.mode & S_IFMT, (unsigned)S_IFLNK);
	KUNIT_ASSERT_EQ(test, stat_path(DIR "/d/null", 0, &st), 0);
	KUNIT_EXPECT_EQ(test, st.mode, (unsigned)(S_IFCHR | 0666));
	KUNIT_EXPECT_EQ(test, st.rdev, (dev_t)MKDEV(1, 3));

	/* The bytes, through the link and the page cache. */
	char buf[64] = "";
	struct file *f = filp_open(DIR "/d/link", O_RDONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	long long pos = 0;
	KUNIT_EXPECT_EQ(test, kernel_read(f, buf, sizeof(buf) - 1, &pos), (long)strlen(file_data));
	KUNIT_EXPECT_STREQ(test, buf, file_data);
	filp_close(f);
	/* The node opens /dev/null's driver: a write is swallowed whole. */
	f = filp_open(DIR "/d/null", O_WRONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	pos = 0;
	KUNIT_EXPECT_EQ(test, kernel_write(f, "gone", 4, &pos), 4l);
	filp_close(f);

	expect_counts_back(test, &before);
}

static void broken_archives_keep_what_came_first(struct kunit *test)
{
	struct counts before;
	counts_now(&before);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, remove_unpacked, NULL), 0);
	static struct archive a;
	start_archive(&a, 0755);
	/* A name that climbs out: refused, and the next entry unpacked. */
	add_entry(&a, DIR "/d/../../escaped", S_IFREG | 0644, 3, 1, 0, "x", 1, 0, 0);
	add_entry(&a, DIR "/d/after", S_IFREG | 0644, 4, 1, 0, "y", 1, 0, 0);
	add_entry(&a, DIR "/d/file", S_IFREG | 0644, 5, 1, 0, file_data,
		  (unsigned int)strlen(file_data), 0, 0);
	add_trailer(&a);

	struct initramfs_summary sum;
	KUNIT_EXPECT_LT(test, unpack_to_rootfs(a.buf, a.len, &sum), 0);
	KUNIT_EXPECT_EQ(test, sum.skipped, 1u);
	KUNIT_EXPECT_EQ(test, stat_path(DIR "/escaped", 0, &(struct kstat){ 0 }), -ENOENT);
	KUNIT_EXPECT_EQ(test, stat_path(DIR "/d/after", 0, &(struct kstat){ 0 }), 0);
	KUNIT_EXPECT_EQ(test, stat_path(DIR "/d/file", 0, &(struct kstat){ 0 }), 0);
	remove_unpacked(NULL);

	/* An archive cut in the middle of its last file's data (that
	 * entry's header and name take 140 bytes): the entries before it
	 * stay, and the error lies between that entry's header and the cut. */
	static struct archive b;
	start_archive(&b, 0755);
	add_entry(&b, DIR "/d/after", S_IFREG | 0644, 4, 1, 0, "y", 1, 0, 0);
	unsigned long cut_entry = b.len;
	add_entry(&b, DIR "/d/file", S_IFREG | 0644, 5, 1, 0, file_data,
		  (unsigned int)strlen(file_data), 0, 0);
	add_trailer(&b);
	_Static_assert(110 + sizeof(DIR "/d/file") == 137, "the header and name, padded, take 140");
	unsigned long cut = cut_entry + 140 + 6;
	KUNIT_EXPECT_LT(test, unpack_to_rootfs(b.buf, cut, &sum), 0);
	KUNIT_EXPECT_GE(test, sum.error_offset, cut_entry);
	KUNIT_EXPECT_LE(test, sum.error_offset, cut);
	KUNIT_EXPECT_EQ(test, sum.archives, 0u);
	KUNIT_EXPECT_EQ(test, stat_path(DIR "/d/after", 0, &(struct kstat){ 0 }), 0);

	expect_counts_back(test, &before);
}

/* What this boot's manifest says is what the registry holds, and each
 * program the registry holds (the manifest's and any module's) is an
 * executable file in /bin. */
static void the_manifest_made_the_registry(struct kunit *test)
{
	struct file *f = filp_open(PROGRAM_MANIFEST, O_RDONLY, 0);
	if (IS_ERR(f))
		kunit_skip(test, "no %s on this ISO (%ld)", PROGRAM_MANIFEST, PTR_ERR(f));
	char *text = kmalloc(PAGE_SIZE * 4, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, text);
	long long pos = 0;
	long n = kernel_read(f, text, PAGE_SIZE * 4 - 1, &pos);
	filp_close(f);
	KUNIT_ASSERT_GE(test, n, 0);
	KUNIT_ASSERT_LT(test, n, (long)(PAGE_SIZE * 4 - 1)); /* read whole */
	text[n] = 0;
	unsigned int lines = 0;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (program_line_is_blank(line))
			continue;
		struct user_program p;
		const char *reason;
		KUNIT_EXPECT_EQ(test, parse_program_line(line, &p, &reason), 0);
		const struct user_program *known = find_user_program(p.name);
		KUNIT_EXPECT_NOT_NULL(test, known);
		if (known) {
			KUNIT_EXPECT_STREQ(test, known->kind, p.kind);
			KUNIT_EXPECT_STREQ(test, known->args, p.args);
		}
		lines++;
	}
	kfree(text);
	KUNIT_EXPECT_GT(test, lines, 0);
	KUNIT_EXPECT_GE(test, nr_user_programs(), lines);
	for (unsigned int i = 0; i < nr_user_programs(); i++) {
		char path[64];
		snprintf(path, sizeof(path), "/bin/%s", user_program(i)->name);
		int err = program_file_check(path);
		if (err)
			kunit_info(test, "%s: %d", path, err);
		KUNIT_EXPECT_EQ(test, err, 0);
	}
}

/* Lines a manifest must not get past: each refused with its reason in the
 * log, nothing added; a name the registry knows keeps its entry. */
static void bad_manifest_lines_are_refused(struct kunit *test)
{
	static const char text[] = "# a comment, then a blank line\n\n"
				   "game hello\n"
				   "test\n"
				   "test ../etc/passwd\n"
				   "test ..\n"
				   "crash a/b\n"
				   "aux a_name_longer_than_the_thirty_nine_bytes_a_name_may_have\n"
				   "verylongkindname x\n";
	static const char *const reasons[] = {
		"(unknown kind", "(no name)", "(a name is one path component", "(name too long)",
		"(kind too long)",
	};
	unsigned int before = nr_user_programs(), refused = 99;
	static char log[2048];
	struct printk_capture cap;
	printk_capture_begin(&cap, log, sizeof(log));
	unsigned int added = register_program_manifest(text, sizeof(text) - 1, &refused);
	/* A NUL inside a line, and one longer than a line may be. */
	static char odd[300];
	memset(odd, 'x', sizeof(odd) - 1);
	memcpy(odd, "test a\0b\ntest ", 16);
	unsigned int odd_refused = 99;
	added += register_program_manifest(odd, sizeof(odd) - 1, &odd_refused);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, added, 0);
	KUNIT_EXPECT_EQ(test, refused, 7);
	KUNIT_EXPECT_EQ(test, odd_refused, 2);
	KUNIT_EXPECT_EQ(test, nr_user_programs(), before);
	for (unsigned int i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		KUNIT_EXPECT_NOT_NULL(test, strstr(log, reasons[i]));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "(a NUL byte)"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "(longer than 255 bytes)"));
	/* A name already known, with another kind: ignored, said, kept. */
	if (before) {
		const struct user_program *first = user_program(0);
		char line[80];
		snprintf(line, sizeof(line), "%s %s", strcmp(first->kind, "aux") ? "aux" : "test", first->name);
		char kind[sizeof(first->kind)];
		strlcpy(kind, first->kind, sizeof(kind));
		printk_capture_begin(&cap, log, sizeof(log));
		KUNIT_EXPECT_EQ(test, register_user_program(line, "test"), -EEXIST);
		printk_capture_end(&cap);
		KUNIT_EXPECT_NOT_NULL(test, strstr(log, "line ignored"));
		KUNIT_EXPECT_STREQ(test, user_program(0)->kind, kind);
		KUNIT_EXPECT_EQ(test, nr_user_programs(), before);
	}
}

/* Program modules a user added beside the archive (the user-module
 * topology's ISO): each one whose line parses is a program the registry
 * knows, in /bin, its module freed; one that does not parse keeps its
 * module and is not a program. */
static void program_modules_are_known(struct kunit *test)
{
	unsigned int seen = 0;
	for (unsigned int i = 0; i < boot_info.nr_modules; i++) {
		const struct boot_module *m = &boot_info.modules[i];
		if (!m->cmdline || !strcmp(m->cmdline, "initramfs"))
			continue;
		struct user_program p;
		const char *reason;
		seen++;
		if (parse_program_line(m->cmdline, &p, &reason)) {
			kunit_info(test, "module %u (%s): refused, %s", i, m->cmdline, reason);
			KUNIT_EXPECT_FALSE(test, m->freed);
			continue;
		}
		char path[64];
		snprintf(path, sizeof(path), "/bin/%s", p.name);
		KUNIT_EXPECT_NOT_NULL(test, find_user_program(p.name));
		KUNIT_EXPECT_EQ(test, program_file_check(path), 0);
		KUNIT_EXPECT_TRUE(test, m->freed);
	}
	if (!seen)
		kunit_skip(test, "no program module beside the initramfs on this ISO");
}

static struct kunit_case initramfs_cases[] = {
	KUNIT_CASE(unpacks_every_kind),
	KUNIT_CASE(broken_archives_keep_what_came_first),
	KUNIT_CASE(the_manifest_made_the_registry),
	KUNIT_CASE(bad_manifest_lines_are_refused),
	KUNIT_CASE(program_modules_are_known),
	{},
};

static struct kunit_suite initramfs_suite = {
	.name = "initramfs",
	.test_cases = initramfs_cases,
};
kunit_test_suite(initramfs_suite);
