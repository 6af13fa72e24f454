/* The initramfs unpacker (Linux's init/initramfs.c): a cpio archive the boot
 * loader left in memory becomes directories, files, symlinks and device
 * nodes of the root filesystem, through the boot-time helpers of
 * fs/init.h (init_mkdir, filp_open, kernel_write, ...), never the system
 * calls.
 *
 * The archive is the "newc" format (magic 070701) or "crc" (070702, the
 * same with a checksum of each regular file's bytes): per entry a 110-byte
 * header of thirteen 8-digit hex fields (ino, mode, uid, gid, nlink, mtime,
 * filesize, devmajor, devminor, rdevmajor, rdevminor, namesize, check),
 * the name with its NUL, padding to 4 bytes, the data (a file's bytes, a
 * symlink's target), padding to 4 bytes. The entry named TRAILER!!! ends
 * an archive; several archives may follow one another, with zero bytes
 * between them, as Linux accepts (the kernel's built-in one, then the
 * boot loader's, or archives simply concatenated).
 *
 * The walk is Linux's state machine: Reset (zero padding before a header)
 * -> Start (the header) -> GotHeader (the name checked) -> GotName (the
 * entry made) -> CopyFile (a regular file's data, written in chunks) or
 * GotSymlink -> SkipIt (on to the next 4-byte boundary) -> Reset. Linux
 * feeds it a decompressor's output piece by piece (its Collect state
 * gathers a header split between pieces); here the whole archive is in
 * memory, so a state reads straight from the buffer.
 *
 * As Linux: a name already present with another file type is removed first
 * (clean_path); a regular file or device node whose (ino, devmajor,
 * devminor) was seen earlier in the same archive with nlink >= 2 becomes a
 * hard link to the first name (maybe_link/find_link), and GNU cpio's habit
 * of giving the data to the last name of a group works because that name
 * is opened without O_TRUNC after being linked; modes, owners and mtimes
 * are applied, a directory's mtime only once everything is unpacked
 * (dir_utime: files made inside it later would change it).
 *
 * Unlike Linux, where a teaching kernel is better served by saying no:
 *  - a name is made absolute and normalised (leading "/" and "./", empty
 *    and "." components dropped) and a name with a ".." component is
 *    refused with a message, where Linux would follow it;
 *  - clean_path cannot stat (fs/init.h has no lstat), so for a
 *    non-directory entry it removes whatever non-directory is at the name
 *    (and an empty directory), where Linux keeps a regular file of the
 *    same type and truncates it in place; the file seen afterwards is the
 *    same, an outside hard link to the old one keeps the old bytes;
 *  - an entry with a malformed name (size 0, no NUL, longer than PATH_MAX),
 *    a non-directory named "/", or data on a type that has none (Linux
 *    skips the last silently) is reported and skipped, and the unpack
 *    goes on with the next entry (Linux stops at a name without its NUL);
 *    only a break in the framing (bad magic, a header that is not hex, an
 *    entry running past the end, junk between archives) ends it; a
 *    truncated or trailer-less archive keeps what it unpacked;
 *  - a crc archive's wrong checksum is reported (the file stays written),
 *    and so is a failing helper (Linux ignores most of their results);
 *  - owner and mode of a regular file are set by name (init_chown,
 *    init_chmod) where Linux uses the open file (vfs_fchown, vfs_fchmod).
 * Every problem is printed with its byte offset and the first one is kept
 * in the summary (fs/initramfs.h) for the caller and the tests.
 *
 * Concurrency: none. The unpacker runs once, at boot, on one CPU, before
 * any process; its state lives in one allocation per call. */
#include "fs/initramfs.h"
#include "fs/file.h"
#include "fs/init.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/slab.h"

#define AT_SYMLINK_NOFOLLOW_FLAG 0x100 /* Linux's AT_SYMLINK_NOFOLLOW */

#define CPIO_HEADER_SIZE 110
#define CPIO_TRAILER "TRAILER!!!"
/* A regular file's data goes to kernel_write this much at a time. */
#define COPY_CHUNK (64 * 1024)
#define LINK_HASH_SIZE 32

enum state { Start, GotHeader, GotName, CopyFile, GotSymlink, SkipIt, Reset, Done };

/* One entry's header, parsed. */
struct cpio_header {
	unsigned long ino, mode, uid, gid, nlink, mtime, body_len;
	unsigned long major, minor, rdev_major, rdev_minor, name_len, check;
	bool csum; /* the crc format: check is the sum of the data's bytes */
};

/* Linux's link hash: the first name of every (ino, major, minor, type)
 * seen with nlink >= 2 in the current archive. */
struct link_entry {
	struct link_entry *next;
	unsigned long ino, major, minor;
	unsigned int type;
	char name[];
};

/* A directory whose mtime is set at the end (dir_utime). */
struct dir_entry {
	struct dir_entry *next;
	long long mtime;
	char name[];
};

struct unpacker {
	const char *buf;
	unsigned long len;
	unsigned long pos;         /* the next byte to read */
	unsigned long this_header; /* where the current entry starts */
	unsigned long next_header; /* where the one after it starts */
	enum state state;
	struct cpio_header hdr;
	const char *name;          /* the entry's name as archived (in buf) */
	const char *body;          /* its data (in buf) */
	bool in_archive;           /* a header seen since the last trailer */
	struct link_entry *links[LINK_HASH_SIZE];
	struct dir_entry *dirs;    /* newest first: children before parents */
	struct initramfs_summary *sum;
	char path[PATH_MAX];       /* the entry's normalised absolute name */
};

static void __printf(4, 5) report(struct unpacker *u, unsigned long offset, int err, const char *fmt, ...)
{
	char msg[sizeof(u->sum->message)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_err("initramfs: offset %lu: %s\n", offset, msg);
	if (!u->sum->error) {
		u->sum->error = err;
		u->sum->error_offset = offset;
		strlcpy(u->sum->message, msg, sizeof(u->sum->message));
	}
}

/* An entry refused or failed: reported, counted, and the walk goes on. */
#define skip_entry(u, err, ...)                                      \
	do {                                                         \
		report(u, (u)->this_header, err, __VA_ARGS__);       \
		(u)->sum->skipped++;                                 \
	} while (0)

/* A helper's failure after the entry was made (owner, mode, time). */
static void check(struct unpacker *u, int ret, const char *what)
{
	if (ret < 0)
		report(u, u->this_header, ret, "%s %.48s: error %d", what, u->path, ret);
}

/* The thirteen fields after the magic; false if one is not 8 hex digits
 * (Linux's simple_strtoul would stop at the bad digit and go on). */
static bool parse_header(const char *s, struct cpio_header *h)
{
	unsigned long f[13];
	for (int i = 0; i < 13; i++) {
		unsigned long v = 0;
		for (int j = 0; j < 8; j++) {
			int d = hex_to_bin(s[6 + 8 * i + j]);
			if (d < 0)
				return false;
			v = v << 4 | (unsigned long)d;
		}
		f[i] = v;
	}
	*h = (struct cpio_header){
		.ino = f[0], .mode = f[1], .uid = f[2], .gid = f[3], .nlink = f[4], .mtime = f[5],
		.body_len = f[6], .major = f[7], .minor = f[8], .rdev_major = f[9], .rdev_minor = f[10],
		.name_len = f[11], .check = f[12], .csum = s[5] == '2',
	};
	return true;
}

/* The archived name made absolute and normalised in u->path: 0, or
 * -EINVAL for a ".." component, -ENAMETOOLONG. "" and "." name the root. */
static int normalise_name(struct unpacker *u, const char *name)
{
	size_t out = 0;
	u->path[out++] = '/';
	while (*name) {
		while (*name == '/')
			name++;
		const char *end = strchr(name, '/');
		size_t n = end ? (size_t)(end - name) : strlen(name);
		if (n == 0 || (n == 1 && name[0] == '.')) {
			name += n;
			continue;
		}
		if (n == 2 && name[0] == '.' && name[1] == '.')
			return -EINVAL;
		if (n > NAME_MAX || out + n + 2 > sizeof(u->path))
			return -ENAMETOOLONG;
		if (out > 1)
			u->path[out++] = '/';
		memcpy(u->path + out, name, n);
		out += n;
		name += n;
	}
	u->path[out] = 0;
	return 0;
}

/* Linux's clean_path: makes room at u->path for an entry of type fmode
 * (0: any type differs). Without lstat, a directory entry removes a
 * non-directory (unlink fails with -EISDIR on a directory: kept), and any
 * other entry removes what is there (rmdir takes an empty directory,
 * unlink anything else). Missing names are fine. */
static void clean_path(struct unpacker *u, unsigned int fmode)
{
	if (fmode == S_IFDIR) {
		init_unlink(u->path);
		return;
	}
	init_rmdir(u->path);
	init_unlink(u->path);
}

static unsigned int link_hash(unsigned long major, unsigned long minor, unsigned long ino)
{
	unsigned long h = ino + minor + (major << 3);
	h += h >> 5;
	return h & (LINK_HASH_SIZE - 1);
}

/* Linux's find_link: the first name archived for this entry's file, or
 * NULL after remembering this name as the first. */
static const char *find_link(struct unpacker *u)
{
	const struct cpio_header *h = &u->hdr;
	unsigned int type = h->mode & S_IFMT;
	struct link_entry **p = &u->links[link_hash(h->major, h->minor, h->ino)];
	for (; *p; p = &(*p)->next)
		if ((*p)->ino == h->ino && (*p)->major == h->major && (*p)->minor == h->minor &&
		    (*p)->type == type)
			return (*p)->name;
	size_t n = strlen(u->path) + 1;
	struct link_entry *e = kmalloc(sizeof(*e) + n, GFP_KERNEL);
	if (!e)
		return NULL; /* only a hard link less: the name becomes a file of its own */
	*e = (struct link_entry){ .next = NULL, .ino = h->ino, .major = h->major, .minor = h->minor,
				  .type = type };
	memcpy(e->name, u->path, n);
	*p = e;
	return NULL;
}

static void free_links(struct unpacker *u)
{
	for (int i = 0; i < LINK_HASH_SIZE; i++)
		while (u->links[i]) {
			struct link_entry *e = u->links[i];
			u->links[i] = e->next;
			kfree(e);
		}
}

/* Linux's maybe_link: 1 when u->path was made a hard link to an earlier
 * name, 0 when it is a file of its own, -1 when the link failed. */
static int maybe_link(struct unpacker *u)
{
	if (u->hdr.nlink < 2)
		return 0;
	const char *old = find_link(u);
	if (!old)
		return 0;
	clean_path(u, 0);
	int ret = init_link(old, u->path);
	if (ret < 0) {
		skip_entry(u, ret, "link %.40s to %.40s: error %d", u->path, old, ret);
		return -1;
	}
	u->sum->hard_links++;
	return 1;
}

static void dir_add(struct unpacker *u, long long mtime)
{
	size_t n = strlen(u->path) + 1;
	struct dir_entry *d = kmalloc(sizeof(*d) + n, GFP_KERNEL);
	if (!d) {
		init_utimes(u->path, mtime); /* now rather than never */
		return;
	}
	d->mtime = mtime;
	memcpy(d->name, u->path, n);
	d->next = u->dirs;
	u->dirs = d;
}

/* Linux's dir_utime: the directories' mtimes, deepest (newest) first. */
static void dir_utime(struct unpacker *u)
{
	while (u->dirs) {
		struct dir_entry *d = u->dirs;
		u->dirs = d->next;
		init_utimes(d->name, d->mtime);
		kfree(d);
	}
}

/* Reset: zero bytes until a header ("0" on a 4-byte boundary) or the end. */
static enum state do_reset(struct unpacker *u)
{
	while (u->pos < u->len && u->buf[u->pos] == 0)
		u->pos++;
	if (u->pos == u->len) {
		if (u->in_archive)
			report(u, u->len, -EINVAL, "archive ends without its TRAILER!!!");
		return Done;
	}
	if (u->buf[u->pos] != '0') {
		report(u, u->pos, -EINVAL, "junk where a cpio header or zero padding should be");
		return Done;
	}
	if (u->pos & 3) {
		report(u, u->pos, -EINVAL, "broken padding: header not on a 4-byte boundary");
		return Done;
	}
	return Start;
}

/* Start: the header, and the entry's extent checked against the buffer. */
static enum state do_start(struct unpacker *u)
{
	const char *h = u->buf + u->pos;
	u->this_header = u->pos;
	u->in_archive = true;
	if (u->len - u->pos < CPIO_HEADER_SIZE) {
		report(u, u->pos, -EINVAL, "truncated archive: %lu bytes where a %d-byte header should be",
		       u->len - u->pos, CPIO_HEADER_SIZE);
		return Done;
	}
	if (!memcmp(h, "070707", 6)) {
		report(u, u->pos, -EINVAL, "odc cpio (070707): use the newc format (cpio -H newc)");
		return Done;
	}
	if (memcmp(h, "070701", 6) && memcmp(h, "070702", 6)) {
		report(u, u->pos, -EINVAL, "no cpio magic (070701 or 070702)");
		return Done;
	}
	if (!parse_header(h, &u->hdr)) {
		report(u, u->pos, -EINVAL, "cpio header field is not 8 hex digits");
		return Done;
	}
	unsigned long name_end = u->pos + CPIO_HEADER_SIZE + u->hdr.name_len;
	unsigned long body = ALIGN_UP(name_end, 4);
	if (name_end > u->len) {
		report(u, u->pos, -EINVAL, "truncated archive: name of %lu bytes runs past the end",
		       u->hdr.name_len);
		return Done;
	}
	if (u->hdr.body_len && body + u->hdr.body_len > u->len) {
		report(u, u->pos, -EINVAL, "truncated archive: data of %lu bytes runs past the end",
		       u->hdr.body_len);
		return Done;
	}
	u->name = h + CPIO_HEADER_SIZE;
	u->body = u->buf + body;
	u->next_header = ALIGN_UP(body + u->hdr.body_len, 4);
	u->pos += CPIO_HEADER_SIZE;
	return GotHeader;
}

/* GotHeader: a name we can use, or the entry is skipped. */
static enum state do_header(struct unpacker *u)
{
	unsigned long n = u->hdr.name_len;
	if (n == 0) {
		skip_entry(u, -EINVAL, "entry with a name size of 0");
		return SkipIt;
	}
	if (n > PATH_MAX) {
		skip_entry(u, -ENAMETOOLONG, "name of %lu bytes, more than PATH_MAX", n);
		return SkipIt;
	}
	if (u->name[n - 1] != 0) {
		skip_entry(u, -EINVAL, "name without its NUL: %.*s", (int)min(n, 40ul), u->name);
		return SkipIt;
	}
	return GotName;
}

/* GotName: the trailer, or the entry made. */
static enum state do_name(struct unpacker *u)
{
	const struct cpio_header *h = &u->hdr;
	unsigned int type = h->mode & S_IFMT;
	umode_t perm = h->mode & 07777;
	if (!strcmp(u->name, CPIO_TRAILER)) {
		u->sum->archives++;
		u->in_archive = false;
		free_links(u);
		return SkipIt;
	}
	int ret = normalise_name(u, u->name);
	if (ret == -EINVAL) {
		skip_entry(u, ret, "name with a \"..\" component refused: %.48s", u->name);
		return SkipIt;
	}
	if (ret < 0) {
		skip_entry(u, ret, "name too long: %.48s", u->name);
		return SkipIt;
	}
	if (type != S_IFDIR && !strcmp(u->path, "/")) {
		skip_entry(u, -EEXIST, "a non-directory named as the root: %.48s", u->name);
		return SkipIt;
	}
	if (type == S_IFLNK)
		return GotSymlink;
	if (type != S_IFREG && type != S_IFDIR && type != S_IFCHR && type != S_IFBLK &&
	    type != S_IFIFO && type != S_IFSOCK) {
		skip_entry(u, -EINVAL, "%.48s: unknown file type %#o", u->path, type);
		return SkipIt;
	}
	if (type != S_IFREG && h->body_len) { /* Linux skips these too */
		skip_entry(u, -EINVAL, "%.48s: %lu bytes of data for a file type that has none", u->path,
			   h->body_len);
		return SkipIt;
	}
	clean_path(u, type);
	if (type == S_IFDIR) {
		ret = init_mkdir(u->path, perm);
		if (ret < 0 && ret != -EEXIST) {
			skip_entry(u, ret, "mkdir %.48s: error %d", u->path, ret);
			return SkipIt;
		}
		check(u, init_chown(u->path, h->uid, h->gid, 0), "chown");
		check(u, init_chmod(u->path, perm), "chmod");
		dir_add(u, (long long)h->mtime);
		u->sum->dirs++;
		return SkipIt;
	}
	if (type == S_IFREG)
		return CopyFile;
	ret = maybe_link(u);
	if (ret)
		return SkipIt;
	ret = init_mknod(u->path, (umode_t)(type | perm), new_encode_dev(MKDEV((unsigned int)h->rdev_major & 0xfffu, (unsigned int)h->rdev_minor & MINORMASK)));
	if (ret < 0) {
		skip_entry(u, ret, "mknod %.48s: error %d", u->path, ret);
		return SkipIt;
	}
	check(u, init_chown(u->path, h->uid, h->gid, 0), "chown");
	check(u, init_chmod(u->path, perm), "chmod");
	check(u, init_utimes(u->path, (long long)h->mtime), "utimes");
	u->sum->nodes++;
	return SkipIt;
}

/* CopyFile: a regular file, its data written in chunks. */
static enum state do_copy(struct unpacker *u)
{
	const struct cpio_header *h = &u->hdr;
	umode_t perm = h->mode & 07777;
	int linked = maybe_link(u);
	if (linked < 0)
		return SkipIt;
	int flags = O_WRONLY | O_CREAT | (linked ? 0 : O_TRUNC);
	struct file *f = filp_open(u->path, flags, perm);
	if (IS_ERR(f)) {
		skip_entry(u, (int)PTR_ERR(f), "open %.48s: error %ld", u->path, (long)PTR_ERR(f));
		return SkipIt;
	}
	check(u, init_chown(u->path, h->uid, h->gid, 0), "chown");
	check(u, init_chmod(u->path, perm), "chmod");
	long long pos = 0;
	u32 sum = 0;
	unsigned long done = 0;
	while (done < h->body_len) {
		size_t n = min(h->body_len - done, (unsigned long)COPY_CHUNK);
		long w = kernel_write(f, u->body + done, n, &pos);
		if (w <= 0) {
			report(u, (unsigned long)(u->body - u->buf) + done, w < 0 ? (int)w : -EIO,
			       "write %.48s: error %ld after %lu of %lu bytes", u->path, w, done, h->body_len);
			break;
		}
		/* Only the crc format has a sum to check (Linux's xwrite sums
		 * only when csum_present): newc's bytes are not read again. */
		if (h->csum)
			for (long i = 0; i < w; i++)
				sum += (unsigned char)u->body[done + i];
		done += (unsigned long)w;
		cond_resched();
	}
	filp_close(f);
	check(u, init_utimes(u->path, (long long)h->mtime), "utimes");
	if (h->csum && done == h->body_len && sum != (u32)h->check)
		report(u, u->this_header, -EINVAL, "%.48s: bad data checksum %#x, header says %#lx", u->path,
		       sum, h->check);
	if (!linked)
		u->sum->files++;
	return SkipIt;
}

/* GotSymlink: the data is the target. */
static enum state do_symlink(struct unpacker *u)
{
	const struct cpio_header *h = &u->hdr;
	if (h->body_len >= PATH_MAX) {
		skip_entry(u, -ENAMETOOLONG, "%.48s: symlink target of %lu bytes", u->path, h->body_len);
		return SkipIt;
	}
	char *target = kmalloc(h->body_len + 1, GFP_KERNEL);
	if (!target) {
		skip_entry(u, -ENOMEM, "%.48s: no memory for the symlink target", u->path);
		return SkipIt;
	}
	memcpy(target, u->body, h->body_len);
	target[h->body_len] = 0;
	clean_path(u, 0);
	int ret = init_symlink(target, u->path);
	kfree(target);
	if (ret < 0) {
		skip_entry(u, ret, "symlink %.48s: error %d", u->path, ret);
		return SkipIt;
	}
	check(u, init_chown(u->path, h->uid, h->gid, AT_SYMLINK_NOFOLLOW_FLAG), "chown");
	check(u, init_utimes(u->path, (long long)h->mtime), "utimes");
	u->sum->symlinks++;
	return SkipIt;
}

/* SkipIt: on to the next entry's boundary (the end, for an archive whose
 * last padding is missing). */
static enum state do_skip(struct unpacker *u)
{
	u->pos = min(u->next_header, u->len);
	return Reset;
}

static enum state (*const actions[])(struct unpacker *u) = {
	[Start] = do_start, [GotHeader] = do_header, [GotName] = do_name, [CopyFile] = do_copy,
	[GotSymlink] = do_symlink, [SkipIt] = do_skip, [Reset] = do_reset,
};

int unpack_to_rootfs(const void *buf, unsigned long len, struct initramfs_summary *sum)
{
	struct initramfs_summary scratch;
	if (!sum)
		sum = &scratch;
	memset(sum, 0, sizeof(*sum));
	struct unpacker *u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!u) {
		sum->error = -ENOMEM;
		strlcpy(sum->message, "no memory to unpack", sizeof(sum->message));
		return -ENOMEM;
	}
	u->buf = buf;
	u->len = len;
	u->sum = sum;
	u->state = Reset;
	while (u->state != Done)
		u->state = actions[u->state](u);
	sum->consumed = u->pos;
	free_links(u);
	dir_utime(u);
	kfree(u);
	return sum->error;
}
