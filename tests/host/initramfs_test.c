/* The initramfs unpacker (fs/initramfs.c) on the host, against a fake of
 * fs/init.h's helpers that keeps a tree in memory (fake_init_fs.c):
 *  - a real archive written by Debian's cpio at build time
 *    (initramfs_fixture.sh): directories, files (one past the write
 *    chunk), three names of one file, symlinks, a device node in a second
 *    archive after the first one's zero padding; unpacked once, and again
 *    over itself; cut at every length, which must never crash or leak;
 *  - one written by tools/gen_init_cpio.c (the tool build/initramfs.cpio
 *    is made with): device nodes, a fifo, a socket, three names of a file;
 *  - archives written here, one broken thing each: bad magic, a name or
 *    data running past the end, a name without its NUL, a name size of 0,
 *    ".." in a name, a file over a directory (and the other way round),
 *    no trailer, junk or misaligned padding between archives, a crc
 *    checksum, a header that is not hex, the fake's helpers failing.
 * Each checks the summary (counts, the first error and its byte offset)
 * and the tree. */
#include "fs/initramfs.h"
#include "kernel/printk.h"
#include "tests/host/fake_init_fs.h"
#include "tests/host/ktest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char initramfs_fixture[];
extern const unsigned long initramfs_fixture_len, initramfs_fixture_first_len;
extern const unsigned char initramfs_gen_fixture[];
extern const unsigned long initramfs_gen_fixture_len;

#define S_IFMT_ 0170000
#define S_IFDIR_ 0040000
#define S_IFREG_ 0100000
#define S_IFLNK_ 0120000
#define S_IFCHR_ 0020000
#define S_IFBLK_ 0060000
#define S_IFIFO_ 0010000
#define S_IFSOCK_ 0140000

/* ---- an archive writer ---------------------------------------------- */

struct archive {
	unsigned char buf[1 << 20];
	size_t len;
};

/* One entry. namesize < 0: strlen(name) + 1 (the name and its NUL are
 * written); otherwise the header says namesize and min(namesize, strlen +
 * 1) bytes are written. filesize < 0: body_len. */
struct entry {
	const char *name;
	unsigned int mode;
	const char *body;
	size_t body_len;
	unsigned int ino, nlink, uid, gid, mtime, rmaj, rmin, check;
	long namesize, filesize;
	const char *magic;
};

static void put(struct archive *a, const void *p, size_t n)
{
	memcpy(a->buf + a->len, p, n);
	a->len += n;
}

static void pad4(struct archive *a)
{
	while (a->len & 3)
		a->buf[a->len++] = 0;
}

/* Appends e; returns its header's offset. */
static size_t add(struct archive *a, struct entry e)
{
	size_t at = a->len;
	size_t name_bytes = strlen(e.name) + 1;
	unsigned long namesize = e.namesize < 0 ? name_bytes : (unsigned long)e.namesize;
	if (e.namesize >= 0 && (size_t)e.namesize < name_bytes)
		name_bytes = (size_t)e.namesize;
	unsigned long filesize = e.filesize < 0 ? e.body_len : (unsigned long)e.filesize;
	char h[160];
	snprintf(h, sizeof(h), "%s%08X%08X%08X%08X%08X%08X%08lX%08X%08X%08X%08X%08lX%08X",
		 e.magic ? e.magic : "070701", e.ino, e.mode, e.uid, e.gid, e.nlink ? e.nlink : 1, e.mtime,
		 filesize, 0u, 0u, e.rmaj, e.rmin, namesize, e.check);
	put(a, h, 110);
	put(a, e.name, name_bytes);
	pad4(a);
	if (e.body_len)
		put(a, e.body, e.body_len);
	pad4(a);
	return at;
}

/* The defaults first, then the entry's own fields (overriding them on purpose). */
#pragma GCC diagnostic ignored "-Woverride-init"
#define ADD(a, ...) add(a, (struct entry){ .namesize = -1, .filesize = -1, __VA_ARGS__ })
#define DIR(a, n) ADD(a, .name = n, .mode = S_IFDIR_ | 0755)
#define FILE_(a, n, text) ADD(a, .name = n, .mode = S_IFREG_ | 0644, .body = text, .body_len = strlen(text))

static size_t trailer(struct archive *a) { return ADD(a, .name = "TRAILER!!!"); }

static struct archive *new_archive(void)
{
	struct archive *a = calloc(1, sizeof(*a));
	return a;
}

static struct initramfs_summary sum;

static int unpack(const struct archive *a) { return unpack_to_rootfs(a->buf, a->len, &sum); }

static bool file_is(const char *path, const char *text)
{
	const struct fake_inode *i = fake_lookup(path);
	return i && (i->mode & S_IFMT_) == S_IFREG_ && i->size == strlen(text) &&
	       !memcmp(i->data, text, i->size);
}

static unsigned int type_of(const char *path)
{
	const struct fake_inode *i = fake_lookup(path);
	return i ? i->mode & S_IFMT_ : 0;
}

#define EXPECT_MESSAGE(t, word) KTEST_EXPECT_TRUE(t, strstr(sum.message, word) != NULL)

static void setup(struct ktest *t)
{
	(void)t;
	fake_reset();
	memset(&sum, 0, sizeof(sum));
}

/* ---- the real archive ---------------------------------------------- */

static void check_fixture_tree(struct ktest *t)
{
	const struct fake_inode *hello = fake_lookup("/bin/hello");
	KTEST_ASSERT_NOT_NULL(t, hello);
	KTEST_EXPECT_EQ(t, hello->mode, S_IFREG_ | 0755);
	KTEST_EXPECT_EQ(t, hello->uid, 1000);
	KTEST_EXPECT_EQ(t, hello->gid, 100);
	KTEST_EXPECT_EQ(t, hello->mtime, 1000000000);
	KTEST_EXPECT_EQ(t, hello->nlink, 3);
	KTEST_EXPECT_TRUE(t, file_is("/bin/hello", "hello\n"));
	/* GNU cpio gives the data to the last name only: linked, not copied. */
	KTEST_EXPECT_TRUE(t, fake_lookup("/bin/hello-link") == hello);
	KTEST_EXPECT_TRUE(t, fake_lookup("/etc/hello-third") == hello);

	const struct fake_inode *hi = fake_lookup("/bin/hi");
	KTEST_ASSERT_NOT_NULL(t, hi);
	KTEST_EXPECT_EQ(t, hi->mode & S_IFMT_, S_IFLNK_);
	KTEST_EXPECT_TRUE(t, !strcmp(hi->data, "hello"));
	KTEST_EXPECT_EQ(t, hi->mtime, 1000000000);
	const struct fake_inode *pw = fake_lookup("/etc/pw");
	KTEST_ASSERT_NOT_NULL(t, pw);
	KTEST_EXPECT_TRUE(t, !strcmp(pw->data, "/etc/passwd"));
	KTEST_EXPECT_EQ(t, fake_lookup("/etc/passwd")->mode, S_IFREG_ | 0600);

	/* 40000 numbered lines: more than one 64 KiB write, in order. */
	static char big[300000];
	size_t n = 0;
	for (int i = 1; i <= 40000; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "%d\n", i);
	const struct fake_inode *b = fake_lookup("/etc/big");
	KTEST_ASSERT_NOT_NULL(t, b);
	KTEST_EXPECT_EQ(t, b->size, n);
	KTEST_EXPECT_TRUE(t, b->size == n && !memcmp(b->data, big, n));

	const struct fake_inode *null = fake_lookup("/dev/null");
	KTEST_ASSERT_NOT_NULL(t, null);
	KTEST_EXPECT_EQ(t, null->mode & S_IFMT_, S_IFCHR_);
	KTEST_EXPECT_EQ(t, null->rdev, 0x103); /* new_encode_dev(MKDEV(1, 3)) */

	KTEST_EXPECT_EQ(t, fake_lookup("/tmp")->mode, S_IFDIR_ | 01777);
	KTEST_EXPECT_EQ(t, fake_lookup("/")->mode, S_IFDIR_ | 0755); /* the "." entry */
	/* Set after their contents were made (the fake stamps FAKE_NOW on
	 * a directory whose contents change). */
	KTEST_EXPECT_EQ(t, fake_lookup("/bin")->mtime, 1000000000);
	KTEST_EXPECT_EQ(t, fake_lookup("/etc")->mtime, 1000000000);
	KTEST_EXPECT_EQ(t, fake_lookup("/")->mtime, 1000000000);
	/* /, bin, hello, hello-link, hi, etc, hello-third, pw, passwd, big,
	 * dev, null, tmp */
	KTEST_EXPECT_EQ(t, fake_count_names(), 13);
	KTEST_EXPECT_EQ(t, fake_stats.open_files, 0);
}

static void check_fixture_summary(struct ktest *t, int ret)
{
	KTEST_EXPECT_EQ(t, ret, 0);
	KTEST_EXPECT_EQ(t, sum.error, 0);
	KTEST_EXPECT_EQ(t, sum.archives, 2);
	KTEST_EXPECT_EQ(t, sum.dirs, 5); /* ., bin, dev, etc, tmp */
	KTEST_EXPECT_EQ(t, sum.files, 3);
	KTEST_EXPECT_EQ(t, sum.hard_links, 2);
	KTEST_EXPECT_EQ(t, sum.symlinks, 2);
	KTEST_EXPECT_EQ(t, sum.nodes, 1);
	KTEST_EXPECT_EQ(t, sum.skipped, 0);
	KTEST_EXPECT_EQ(t, sum.consumed, initramfs_fixture_len);
}

static void cpio_archive(struct ktest *t)
{
	check_fixture_summary(t, unpack_to_rootfs(initramfs_fixture, initramfs_fixture_len, &sum));
	check_fixture_tree(t);
	KTEST_EXPECT_EQ(t, fake_stats.largest_write, 64 * 1024);
}

static void cpio_archive_twice(struct ktest *t)
{
	unpack_to_rootfs(initramfs_fixture, initramfs_fixture_len, &sum);
	check_fixture_summary(t, unpack_to_rootfs(initramfs_fixture, initramfs_fixture_len, &sum));
	check_fixture_tree(t);
}

/* Every cut: an error unless the cut falls after a complete archive, the
 * error inside the buffer, nothing left open (ASan sees any overrun). */
static void cpio_archive_cut_everywhere(struct ktest *t)
{
	unsigned int clean = 0;
	int loglevel = console_loglevel;
	console_loglevel = 1; /* a few thousand messages, all alike */
	for (unsigned long cut = 0; cut < initramfs_fixture_len; cut += cut < 2048 ? 1 : 61) {
		fake_reset();
		int ret = unpack_to_rootfs(initramfs_fixture, cut, &sum);
		KTEST_EXPECT_EQ(t, ret, sum.error);
		KTEST_EXPECT_LE(t, sum.error_offset, cut);
		KTEST_EXPECT_EQ(t, fake_stats.open_files, 0);
		if (!ret) {
			clean++;
			KTEST_EXPECT_TRUE(t, cut == 0 || cut >= initramfs_fixture_first_len - 512);
		}
	}
	console_loglevel = loglevel;
	ktest_diag(t, "%u of the cuts ended between archives", clean);
	/* The first archive's end padding, and cut 0. */
	KTEST_EXPECT_GE(t, clean, 2);
}

/* The archive tools/gen_init_cpio.c writes (as build/initramfs.cpio is
 * made): device nodes of any number, a fifo, a socket, three names of one
 * file, modes and owners from the list, one mtime for all. */
static void gen_init_cpio_archive(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, unpack_to_rootfs(initramfs_gen_fixture, initramfs_gen_fixture_len, &sum), 0);
	KTEST_EXPECT_EQ(t, sum.archives, 1);
	KTEST_EXPECT_EQ(t, sum.dirs, 3);
	KTEST_EXPECT_EQ(t, sum.nodes, 5);
	KTEST_EXPECT_EQ(t, sum.symlinks, 1);
	KTEST_EXPECT_EQ(t, sum.files, 1);
	KTEST_EXPECT_EQ(t, sum.hard_links, 2);
	KTEST_EXPECT_EQ(t, sum.consumed % 512, 0);
	KTEST_EXPECT_EQ(t, fake_lookup("/dev/console")->mode, S_IFCHR_ | 0600);
	KTEST_EXPECT_EQ(t, fake_lookup("/dev/console")->rdev, 0x501);
	KTEST_EXPECT_EQ(t, fake_lookup("/dev/sda")->mode, S_IFBLK_ | 0660);
	KTEST_EXPECT_EQ(t, fake_lookup("/dev/sda")->gid, 6);
	KTEST_EXPECT_EQ(t, fake_lookup("/dev/sda")->rdev, 0x800);
	KTEST_EXPECT_EQ(t, fake_lookup("/dev/big")->rdev, 0x2c | 259 << 8 | 0x100 << 12);
	KTEST_EXPECT_EQ(t, type_of("/run/fifo"), S_IFIFO_);
	KTEST_EXPECT_EQ(t, type_of("/run/sock"), S_IFSOCK_);
	KTEST_EXPECT_TRUE(t, !strcmp(fake_lookup("/run/link")->data, "../dev/console"));
	const struct fake_inode *data = fake_lookup("/data");
	KTEST_ASSERT_NOT_NULL(t, data);
	KTEST_EXPECT_TRUE(t, file_is("/run/data3", "data\n"));
	KTEST_EXPECT_TRUE(t, fake_lookup("/data2") == data && fake_lookup("/run/data3") == data);
	KTEST_EXPECT_EQ(t, data->mode, S_IFREG_ | 0640);
	KTEST_EXPECT_EQ(t, data->uid, 1);
	KTEST_EXPECT_EQ(t, data->gid, 2);
	KTEST_EXPECT_EQ(t, data->mtime, 1234567890);
	KTEST_EXPECT_EQ(t, fake_lookup("/tmp")->mode, S_IFDIR_ | 01777);
	KTEST_EXPECT_EQ(t, fake_lookup("/run")->mtime, 1234567890);
}

/* ---- one broken thing each ------------------------------------------ */

static void wrong_magic(struct ktest *t)
{
	struct archive *a = new_archive();
	DIR(a, "a");
	size_t bad = ADD(a, .name = "b", .mode = S_IFDIR_ | 0755, .magic = "070703");
	DIR(a, "c");
	trailer(a);
	KTEST_EXPECT_EQ(t, unpack(a), -EINVAL);
	KTEST_EXPECT_EQ(t, sum.error_offset, bad);
	EXPECT_MESSAGE(t, "magic");
	KTEST_EXPECT_EQ(t, sum.dirs, 1);
	KTEST_EXPECT_EQ(t, type_of("/a"), S_IFDIR_); /* kept */
	KTEST_EXPECT_EQ(t, type_of("/c"), 0);
	/* The odc format has its own word. */
	a->len = 0;
	size_t odc = ADD(a, .name = "x", .mode = S_IFDIR_ | 0755, .magic = "070707");
	KTEST_EXPECT_EQ(t, unpack(a), -EINVAL);
	KTEST_EXPECT_EQ(t, sum.error_offset, odc);
	EXPECT_MESSAGE(t, "newc");
	free(a);
}

static void lengths_past_the_end(struct ktest *t)
{
	struct archive *a = new_archive();
	FILE_(a, "ok", "fine\n");
	size_t at = ADD(a, .name = "n", .mode = S_IFREG_ | 0644, .namesize = 5000);
	KTEST_EXPECT_EQ(t, unpack(a), -EINVAL);
	KTEST_EXPECT_EQ(t, sum.error_offset, at);
	EXPECT_MESSAGE(t, "name of 5000 bytes runs past the end");
	KTEST_EXPECT_TRUE(t, file_is("/ok", "fine\n"));

	a->len = 0;
	fake_reset();
	FILE_(a, "ok", "fine\n");
	at = ADD(a, .name = "big", .mode = S_IFREG_ | 0644, .body = "abc", .body_len = 3, .filesize = 1000000);
	KTEST_EXPECT_EQ(t, unpack(a), -EINVAL);
	KTEST_EXPECT_EQ(t, sum.error_offset, at);
	EXPECT_MESSAGE(t, "data of 1000000 bytes runs past the end");
	KTEST_EXPECT_EQ(t, type_of("/big"), 0); /* no partial file */
	KTEST_EXPECT_EQ(t, sum.files, 1);
	/* Half a header. */
	a->len = 0;
	FILE_(a, "ok", "fine\n");
	at = DIR(a, "d");
	a->len = at + 60;
	KTEST_EXPECT_EQ(t, unpack(a), -EINVAL);
	KTEST_EXPECT_EQ(t, sum.error_offset, at);
	EXPECT_MESSAGE(t, "truncated");
	free(a);
}

static void bad_names(struct ktest *t)
{
	struct archive *a = new_archive();
	size_t nonul = ADD(a, .name = "nonul", .mode = S_IFREG_ | 0644, .namesize = 5);
	ADD(a, .name = "", .mode = S_IFREG_ | 0644, .namesize = 0);
	FILE_(a, "../escape", "x");
	FILE_(a, "a/../../b", "x");
	DIR(a, "a");
	FILE_(a, "a/..", "x");
	FILE_(a, "./dot", "1");
	FILE_(a, "/slash", "2");
	FILE_(a, "a//./f/", "3");
	FILE_(a, "..x", "4"); /* a name, not a ".." component */
	trailer(a);
	KTEST_EXPECT_EQ(t, unpack(a), -EINVAL);
	KTEST_EXPECT_EQ(t, sum.error_offset, nonul); /* the first of them */
	EXPECT_MESSAGE(t, "NUL");
	KTEST_EXPECT_EQ(t, sum.skipped, 5);
	KTEST_EXPECT_EQ(t, sum.files, 4);
	KTEST_EXPECT_EQ(t, sum.archives, 1);
	KTEST_EXPECT_TRUE(t, file_is("/dot", "1"));
	KTEST_EXPECT_TRUE(t, file_is("/slash", "2"));
	KTEST_EXPECT_TRUE(t, file_is("/a/f", "3"));
	KTEST_EXPECT_TRUE(t, file_is("/..x", "4"));
	KTEST_EXPECT_EQ(t, type_of("/escape"), 0);
	KTEST_EXPECT_EQ(t, type_of("/b"), 0);
	KTEST_EXPECT_EQ(t, fake_count_names(), 6); /* /, dot, slash, a, a/f, ..x */
	/* The ".." one alone: its own message. */
	a->len = 0;
	fake_reset();
	FILE_(a, "../escape", "x");
	trailer(a);
	KTEST_EXPECT_EQ(t, unpack(a), -EINVAL);
	KTEST_EXPECT_EQ(t, sum.error_offset, 0);
	EXPECT_MESSAGE(t, "\"..\"");
	/* A name size of 0 alone. */
	a->len = 0;
	ADD(a, .name = "", .mode = S_IFREG_ | 0644, .namesize = 0);
	trailer(a);
	KTEST_EXPECT_EQ(t, unpack(a), -EINVAL);
	EXPECT_MESSAGE(t, "size of 0");
	free(a);
}

/* Linux's clean_path: a name already there with another type goes. */
static void replacing_other_types(struct ktest *t)
{
	struct archive *a = new_archive();
	DIR(a, "x");
	FILE_(a, "x", "now a file");    /* over an empty directory */
	FILE_(a, "w", "was a file");
	DIR(a, "w");                    /* a directory over a file */
	ADD(a, .name = "s", .mode = S_IFLNK_ | 0777, .body = "target", .body_len = 6);
	FILE_(a, "s", "not a link");    /* a file over a symlink */
	FILE_(a, "l", "file");
	ADD(a, .name = "l", .mode = S_IFLNK_ | 0777, .body = "t2", .body_len = 2); /* and back */
	DIR(a, "full");
	FILE_(a, "full/inside", "x");
	size_t at = FILE_(a, "full", "x"); /* a directory with something in it stays */
	trailer(a);
	KTEST_EXPECT_EQ(t, unpack(a), -EISDIR);
	KTEST_EXPECT_EQ(t, sum.error_offset, at);
	KTEST_EXPECT_EQ(t, sum.skipped, 1);
	KTEST_EXPECT_TRUE(t, file_is("/x", "now a file"));
	KTEST_EXPECT_EQ(t, type_of("/w"), S_IFDIR_);
	KTEST_EXPECT_TRUE(t, file_is("/s", "not a link"));
	KTEST_EXPECT_EQ(t, type_of("/l"), S_IFLNK_);
	KTEST_EXPECT_EQ(t, type_of("/full"), S_IFDIR_);
	KTEST_EXPECT_TRUE(t, file_is("/full/inside", "x"));
	free(a);
}

static void no_trailer(struct ktest *t)
{
	struct archive *a = new_archive();
	DIR(a, "d");
	FILE_(a, "d/f", "data");
	KTEST_EXPECT_EQ(t, unpack(a), -EINVAL);
	KTEST_EXPECT_EQ(t, sum.error_offset, a->len);
	EXPECT_MESSAGE(t, "TRAILER!!!");
	KTEST_EXPECT_EQ(t, sum.archives, 0);
	KTEST_EXPECT_TRUE(t, file_is("/d/f", "data"));
	free(a);
}

static void concatenated(struct ktest *t)
{
	struct archive *a = new_archive();
	DIR(a, "one");
	trailer(a);
	memset(a->buf + a->len, 0, 508); /* padding, as cpio's 512-byte blocks */
	a->len += 508;
	FILE_(a, "one/two", "2");
	trailer(a);
	DIR(a, "three"); /* right after, no padding */
	trailer(a);
	a->len += 4; /* zeros at the end */
	KTEST_EXPECT_EQ(t, unpack(a), 0);
	KTEST_EXPECT_EQ(t, sum.archives, 3);
	KTEST_EXPECT_EQ(t, sum.dirs, 2);
	KTEST_EXPECT_TRUE(t, file_is("/one/two", "2"));
	KTEST_EXPECT_EQ(t, type_of("/three"), S_IFDIR_);

	/* Junk after the first. */
	a->len = 0;
	fake_reset();
	DIR(a, "one");
	trailer(a);
	size_t junk = a->len;
	put(a, "junk", 4);
	DIR(a, "two");
	trailer(a);
	KTEST_EXPECT_EQ(t, unpack(a), -EINVAL);
	KTEST_EXPECT_EQ(t, sum.error_offset, junk);
	EXPECT_MESSAGE(t, "junk");
	KTEST_EXPECT_EQ(t, type_of("/one"), S_IFDIR_);
	KTEST_EXPECT_EQ(t, type_of("/two"), 0);

	/* A header after padding that is not a multiple of 4. */
	a->len = 0;
	DIR(a, "one");
	trailer(a);
	a->buf[a->len++] = 0;
	size_t off = a->len;
	DIR(a, "two");
	trailer(a);
	KTEST_EXPECT_EQ(t, unpack(a), -EINVAL);
	KTEST_EXPECT_EQ(t, sum.error_offset, off);
	EXPECT_MESSAGE(t, "padding");
	free(a);
}

/* The crc format's checksum: the sum of the data's bytes. */
static void crc_format(struct ktest *t)
{
	struct archive *a = new_archive();
	const char *text = "checksummed";
	unsigned int check = 0;
	for (const char *p = text; *p; p++)
		check += (unsigned char)*p;
	ADD(a, .name = "good", .mode = S_IFREG_ | 0644, .body = text, .body_len = strlen(text),
	    .magic = "070702", .check = check);
	size_t bad = ADD(a, .name = "bad", .mode = S_IFREG_ | 0644, .body = text, .body_len = strlen(text),
			 .magic = "070702", .check = check + 1);
	ADD(a, .name = "TRAILER!!!", .magic = "070702");
	KTEST_EXPECT_EQ(t, unpack(a), -EINVAL);
	KTEST_EXPECT_EQ(t, sum.error_offset, bad);
	EXPECT_MESSAGE(t, "checksum");
	KTEST_EXPECT_EQ(t, sum.files, 2);
	KTEST_EXPECT_TRUE(t, file_is("/good", text));
	KTEST_EXPECT_TRUE(t, file_is("/bad", text));
	free(a);
}

static void header_not_hex(struct ktest *t)
{
	struct archive *a = new_archive();
	DIR(a, "a");
	size_t at = DIR(a, "b");
	a->buf[at + 6 + 8 + 3] = 'g'; /* inside the mode */
	trailer(a);
	KTEST_EXPECT_EQ(t, unpack(a), -EINVAL);
	KTEST_EXPECT_EQ(t, sum.error_offset, at);
	EXPECT_MESSAGE(t, "hex");
	KTEST_EXPECT_EQ(t, sum.dirs, 1);
	free(a);
}

static void device_nodes_and_their_links(struct ktest *t)
{
	struct archive *a = new_archive();
	ADD(a, .name = "c", .mode = S_IFCHR_ | 0620, .rmaj = 5, .rmin = 1);
	ADD(a, .name = "b", .mode = S_IFBLK_ | 0660, .rmaj = 259, .rmin = 300);
	ADD(a, .name = "p", .mode = S_IFIFO_ | 0600);
	ADD(a, .name = "s", .mode = S_IFSOCK_ | 0755);
	ADD(a, .name = "z1", .mode = S_IFCHR_ | 0666, .rmaj = 1, .rmin = 5, .ino = 77, .nlink = 2);
	ADD(a, .name = "z2", .mode = S_IFCHR_ | 0666, .rmaj = 1, .rmin = 5, .ino = 77, .nlink = 2);
	ADD(a, .name = "d", .mode = S_IFDIR_ | 0755, .body = "x", .body_len = 1); /* data: skipped */
	trailer(a);
	KTEST_EXPECT_EQ(t, unpack(a), -EINVAL);
	KTEST_EXPECT_EQ(t, sum.nodes, 5);
	KTEST_EXPECT_EQ(t, sum.hard_links, 1);
	KTEST_EXPECT_EQ(t, sum.skipped, 1);
	KTEST_EXPECT_EQ(t, fake_lookup("/c")->mode, S_IFCHR_ | 0620);
	KTEST_EXPECT_EQ(t, fake_lookup("/c")->rdev, 0x501);
	/* new_encode_dev: minor's low byte, major, then minor's high bits. */
	KTEST_EXPECT_EQ(t, fake_lookup("/b")->rdev, 0x2c | 259 << 8 | 0x100 << 12);
	KTEST_EXPECT_EQ(t, type_of("/p"), S_IFIFO_);
	KTEST_EXPECT_EQ(t, type_of("/s"), S_IFSOCK_);
	KTEST_EXPECT_TRUE(t, fake_lookup("/z1") == fake_lookup("/z2"));
	KTEST_EXPECT_EQ(t, type_of("/d"), 0);
	free(a);
}

/* Hard links whose data comes with the first name (GNU cpio gives it to
 * the last, which the real archive shows): a later, empty name is linked
 * and opened without O_TRUNC, so the data stays. Another file with the
 * same ino but another type, or another device, is no link. */
static void hard_links_data_first(struct ktest *t)
{
	struct archive *a = new_archive();
	ADD(a, .name = "one", .mode = S_IFREG_ | 0644, .body = "shared", .body_len = 6, .ino = 9, .nlink = 2);
	ADD(a, .name = "two", .mode = S_IFREG_ | 0644, .ino = 9, .nlink = 2);
	ADD(a, .name = "dev", .mode = S_IFCHR_ | 0644, .ino = 9, .nlink = 2, .rmaj = 1, .rmin = 3);
	trailer(a);
	/* A new archive: the same ino is another file. */
	ADD(a, .name = "three", .mode = S_IFREG_ | 0644, .body = "own", .body_len = 3, .ino = 9, .nlink = 2);
	trailer(a);
	KTEST_EXPECT_EQ(t, unpack(a), 0);
	KTEST_EXPECT_EQ(t, sum.files, 2);
	KTEST_EXPECT_EQ(t, sum.hard_links, 1);
	KTEST_EXPECT_EQ(t, sum.nodes, 1);
	KTEST_EXPECT_TRUE(t, fake_lookup("/one") == fake_lookup("/two"));
	KTEST_EXPECT_TRUE(t, file_is("/two", "shared"));
	KTEST_EXPECT_EQ(t, fake_lookup("/one")->nlink, 2);
	KTEST_EXPECT_EQ(t, type_of("/dev"), S_IFCHR_);
	KTEST_EXPECT_TRUE(t, file_is("/three", "own"));
	free(a);
}

/* The helpers failing: reported, and the unpack goes on. */
static void helpers_failing(struct ktest *t)
{
	struct archive *a = new_archive();
	size_t at = FILE_(a, "f", "lost");
	FILE_(a, "g", "kept");
	DIR(a, "d");
	trailer(a);
	fake_fail_next("kernel_write", -ENOSPC);
	KTEST_EXPECT_EQ(t, unpack(a), -ENOSPC);
	KTEST_EXPECT_EQ(t, sum.error_offset, at + 112); /* where its data starts */
	KTEST_EXPECT_TRUE(t, file_is("/g", "kept"));
	KTEST_EXPECT_EQ(t, type_of("/d"), S_IFDIR_);
	KTEST_EXPECT_EQ(t, fake_stats.open_files, 0);

	fake_reset();
	fake_fail_next("mkdir", -ENOSPC);
	KTEST_EXPECT_EQ(t, unpack(a), -ENOSPC);
	KTEST_EXPECT_EQ(t, sum.skipped, 1);
	KTEST_EXPECT_EQ(t, sum.files, 2);
	fake_reset();
	fake_fail_next("filp_open", -EACCES);
	KTEST_EXPECT_EQ(t, unpack(a), -EACCES);
	KTEST_EXPECT_EQ(t, sum.error_offset, at);
	KTEST_EXPECT_EQ(t, sum.files, 1);
	free(a);
}

static void empty_input(struct ktest *t)
{
	static const unsigned char zeros[512];
	KTEST_EXPECT_EQ(t, unpack_to_rootfs(zeros, 0, &sum), 0);
	KTEST_EXPECT_EQ(t, sum.archives, 0);
	KTEST_EXPECT_EQ(t, unpack_to_rootfs(zeros, sizeof(zeros), &sum), 0);
	KTEST_EXPECT_EQ(t, sum.consumed, sizeof(zeros));
	KTEST_EXPECT_EQ(t, unpack_to_rootfs("x", 1, NULL), -EINVAL);
	KTEST_EXPECT_EQ(t, fake_count_names(), 1);
}

int main(void)
{
	static const struct ktest_case cases[] = {
		KTEST_CASE(cpio_archive),
		KTEST_CASE(cpio_archive_twice),
		KTEST_CASE(cpio_archive_cut_everywhere),
		KTEST_CASE(gen_init_cpio_archive),
		KTEST_CASE(wrong_magic),
		KTEST_CASE(lengths_past_the_end),
		KTEST_CASE(bad_names),
		KTEST_CASE(replacing_other_types),
		KTEST_CASE(no_trailer),
		KTEST_CASE(concatenated),
		KTEST_CASE(crc_format),
		KTEST_CASE(header_not_hex),
		KTEST_CASE(device_nodes_and_their_links),
		KTEST_CASE(hard_links_data_first),
		KTEST_CASE(helpers_failing),
		KTEST_CASE(empty_input),
	};
	int ret = ktest_run_suite("host_initramfs", cases, sizeof(cases) / sizeof(cases[0]), setup);
	fake_reset();
	return ret;
}
