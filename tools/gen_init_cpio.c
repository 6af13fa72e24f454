/* gen_init_cpio: writes a newc cpio archive (magic 070701) from a
 * description list, as Linux's usr/gen_init_cpio does, so that the
 * initramfs (build/initramfs.cpio) can hold device nodes and files owned by
 * root without the build running as root (GNU cpio archives only what
 * exists on disk, and mknod needs root).
 *
 * usage: gen_init_cpio [-t MTIME] LIST > OUT.cpio      (LIST "-": stdin)
 *
 * One entry a line; '#' starts a comment; fields are separated by blanks;
 * MODE is octal, the rest decimal; a leading '/' of a NAME is dropped:
 *   dir   NAME MODE UID GID
 *   file  NAME LOCATION MODE UID GID [LINK...]   LOCATION: a host file;
 *         each LINK is another name of the same file (a hard link)
 *   slink NAME TARGET MODE UID GID
 *   nod   NAME MODE UID GID c|b MAJOR MINOR
 *   pipe  NAME MODE UID GID
 *   sock  NAME MODE UID GID
 * Every entry gets the same mtime (-t, default 0: the archive depends only
 * on its inputs) and its own inode number; the names of one file share
 * one, with nlink set and the data on the last name, as GNU cpio writes
 * them (Linux's unpacker links the earlier names to the first). A name
 * with a ".." component, a malformed line or a missing file stops the
 * tool with the line's number (exit 1; the make rule then keeps no
 * archive). The archive ends
 * with TRAILER!!! and zero padding to a 512-byte block, as cpio's. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned long offset;   /* bytes written */
static unsigned int next_ino = 721; /* Linux's tool starts there too */
static unsigned int mtime;
static const char *list_name;
static unsigned int line_no;

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "gen_init_cpio: %s:%u: ", list_name, line_no);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void out(const void *p, size_t n)
{
	if (fwrite(p, 1, n, stdout) != n) {
		perror("gen_init_cpio: write");
		exit(1);
	}
	offset += n;
}

static void pad(unsigned long to)
{
	static const char zeros[512];
	while (offset % to)
		out(zeros, to - offset % to > sizeof(zeros) ? sizeof(zeros) : to - offset % to);
}

struct header {
	unsigned int ino, mode, uid, gid, nlink;
	unsigned long size;
	unsigned int rdev_major, rdev_minor;
};

static void entry(const char *name, const struct header *h, const void *data)
{
	while (*name == '/')
		name++;
	char hdr[160];
	snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", h->ino,
		 h->mode, h->uid, h->gid, h->nlink, mtime, (unsigned int)h->size, 0u, 0u, h->rdev_major,
		 h->rdev_minor, (unsigned int)strlen(name) + 1, 0u);
	out(hdr, 110);
	out(name, strlen(name) + 1);
	pad(4);
	if (h->size)
		out(data, h->size);
	pad(4);
}

/* A name the unpacker will accept: no ".." component, not empty. */
static void check_name(const char *name)
{
	const char *p = name;
	while (*p == '/')
		p++;
	if (!*p)
		die("empty name");
	for (;;) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.')
			die("name with a \"..\" component: %s", name);
		if (!end)
			break;
		p = end + 1;
	}
}

static unsigned int number(const char *s, int base, const char *what)
{
	char *end;
	errno = 0;
	unsigned long v = s ? strtoul(s, &end, base) : 0;
	if (!s || !*s || *end || errno || v > 0xffffffffu)
		die("%s: not a number: %s", what, s ? s : "(missing)");
	return (unsigned int)v;
}

#define MAX_FIELDS 64

static void *read_file(const char *path, unsigned long *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die("%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode))
		die("%s: not a regular file", path);
	if ((unsigned long long)st.st_size > 0xffffffffu)
		die("%s: more than newc's 4 GiB", path);
	void *data = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!data || fread(data, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		die("%s: cannot read", path);
	fclose(f);
	*size = (unsigned long)st.st_size;
	return data;
}

static void do_line(char **f, int n)
{
	const char *type = f[0];
	struct header h = { .ino = next_ino++, .nlink = 1 };
	if (!strcmp(type, "dir") || !strcmp(type, "pipe") || !strcmp(type, "sock")) {
		if (n != 5)
			die("%s NAME MODE UID GID", type);
		unsigned int kind = type[0] == 'd' ? S_IFDIR : type[0] == 'p' ? S_IFIFO : S_IFSOCK;
		check_name(f[1]);
		h.mode = kind | (number(f[2], 8, "mode") & 07777);
		h.uid = number(f[3], 10, "uid");
		h.gid = number(f[4], 10, "gid");
		h.nlink = kind == S_IFDIR ? 2 : 1;
		entry(f[1], &h, NULL);
	} else if (!strcmp(type, "nod")) {
		if (n != 8 || (strcmp(f[5], "c") && strcmp(f[5], "b")))
			die("nod NAME MODE UID GID c|b MAJOR MINOR");
		check_name(f[1]);
		h.mode = (f[5][0] == 'c' ? S_IFCHR : S_IFBLK) | (number(f[2], 8, "mode") & 07777);
		h.uid = number(f[3], 10, "uid");
		h.gid = number(f[4], 10, "gid");
		h.rdev_major = number(f[6], 10, "major");
		h.rdev_minor = number(f[7], 10, "minor");
		entry(f[1], &h, NULL);
	} else if (!strcmp(type, "slink")) {
		if (n != 6)
			die("slink NAME TARGET MODE UID GID");
		check_name(f[1]);
		h.mode = S_IFLNK | (number(f[3], 8, "mode") & 07777);
		h.uid = number(f[4], 10, "uid");
		h.gid = number(f[5], 10, "gid");
		h.size = strlen(f[2]);
		entry(f[1], &h, f[2]);
	} else if (!strcmp(type, "file")) {
		if (n < 6)
			die("file NAME LOCATION MODE UID GID [LINK...]");
		for (int i = 1; i < n; i = i == 1 ? 6 : i + 1)
			check_name(f[i]);
		h.mode = S_IFREG | (number(f[3], 8, "mode") & 07777);
		h.uid = number(f[4], 10, "uid");
		h.gid = number(f[5], 10, "gid");
		h.nlink = (unsigned int)(1 + n - 6);
		unsigned long size;
		void *data = read_file(f[2], &size);
		for (int i = 1; i < n; i = i == 1 ? 6 : i + 1) {
			h.size = i == (n == 6 ? 1 : n - 1) ? size : 0; /* the data on the last name */
			entry(f[i], &h, data);
		}
		free(data);
	} else {
		die("unknown entry type '%s' (dir, file, slink, nod, pipe, sock)", type);
	}
}

int main(int argc, char **argv)
{
	int arg = 1;
	if (arg + 1 < argc && !strcmp(argv[arg], "-t")) {
		list_name = "-t";
		mtime = number(argv[arg + 1], 10, "mtime");
		arg += 2;
	}
	if (arg + 1 != argc) {
		fprintf(stderr, "usage: gen_init_cpio [-t MTIME] LIST > OUT.cpio\n");
		return 2;
	}
	list_name = argv[arg];
	FILE *list = strcmp(list_name, "-") ? fopen(list_name, "r") : stdin;
	if (!list) {
		fprintf(stderr, "gen_init_cpio: %s: %s\n", list_name, strerror(errno));
		return 1;
	}
	char line[8192];
	while (fgets(line, sizeof(line), list)) {
		line_no++;
		if (!strchr(line, '\n') && !feof(list))
			die("line longer than %zu bytes", sizeof(line) - 1);
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *f[MAX_FIELDS];
		int n = 0;
		for (char *tok = strtok(line, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
			if (n == MAX_FIELDS)
				die("more than %d fields", MAX_FIELDS);
			f[n++] = tok;
		}
		if (n)
			do_line(f, n);
	}
	struct header trailer = { .nlink = 1 };
	entry("TRAILER!!!", &trailer, NULL);
	pad(512);
	if (fflush(stdout)) {
		perror("gen_init_cpio: write");
		return 1;
	}
	return 0;
}
