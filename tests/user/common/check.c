/* The test helpers of check.h: result lines and the tally, /proc readers,
 * the clock, which kernel this is. Standard headers only: it builds with
 * musl and with glibc. */
#include "check.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static const char *test_name = "test";
static unsigned passed, failed;

void test_begin(const char *name)
{
	test_name = name;
	/* Line buffering even into a pipe: musl and glibc buffer stdout fully
	 * unless it is a terminal (musl asks ioctl(TIOCGWINSZ)), and whether
	 * the console says it is one must not change the output's order, nor
	 * lose lines if the program dies. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("%s: pid %d, page size %ld\n", name, (int)getpid(), sysconf(_SC_PAGESIZE));
}

int test_end(void)
{
	printf("%s: %u checks, %u passed, %u failed\n", test_name, passed + failed, passed, failed);
	fflush(stdout);
	return failed ? 1 : 0;
}

void test_skip(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("%s: %u checks before the skip, %u failed\n", test_name, passed + failed, failed);
	printf("SKIP: %s\n", buf);
	fflush(stdout);
	exit(failed ? 1 : 77);
}

void note(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("# %s\n", buf);
}

static bool record(bool ok, const char *file, int line, const char *text)
{
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	if (ok) {
		passed++;
		printf("ok: %s\n", text);
	} else {
		failed++;
		printf("FAIL at %s:%d: %s\n", base, line, text);
	}
	return ok;
}

bool check_report(bool ok, const char *file, int line, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return record(ok, file, line, buf);
}

bool check_cmp_report(bool ok, long long a, long long b, const char *expr, const char *file,
		      int line)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s (%lld vs %lld)", expr, a, b);
	return record(ok, file, line, buf);
}

bool check_errno_report(long ret, int err, int expected, const char *call, const char *file,
			int line)
{
	char buf[512];
	bool ok = ret == -1 && err == expected;
	if (ok)
		snprintf(buf, sizeof(buf), "%s -> %s", call, errno_name(expected));
	else if (ret == -1)
		snprintf(buf, sizeof(buf), "%s -> %s, expected %s", call, errno_name(err),
			 errno_name(expected));
	else
		snprintf(buf, sizeof(buf), "%s -> %ld (%#lx), expected -1 %s", call, ret,
			 (unsigned long)ret, errno_name(expected));
	return record(ok, file, line, buf);
}

const char *errno_name(int err)
{
	static char other[16];
	static const struct {
		int err;
		const char *name;
	} names[] = {
		{ 0, "0" },           { EPERM, "EPERM" },     { ENOENT, "ENOENT" },
		{ EINTR, "EINTR" },   { EIO, "EIO" },         { EBADF, "EBADF" },
		{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" },   { EACCES, "EACCES" },
		{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" },     { EEXIST, "EEXIST" },
		{ ENODEV, "ENODEV" }, { ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" },
		{ EINVAL, "EINVAL" }, { EMFILE, "EMFILE" },   { ESPIPE, "ESPIPE" },
		{ EROFS, "EROFS" },   { ERANGE, "ERANGE" },   { ENOSYS, "ENOSYS" },
		{ EOVERFLOW, "EOVERFLOW" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ ENAMETOOLONG, "ENAMETOOLONG" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].err == err)
			return names[i].name;
	}
	snprintf(other, sizeof(other), "E?%d", err);
	return other;
}

long read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	size_t len = 0;
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			int err = errno;
			close(fd);
			errno = err;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	close(fd);
	return (long)len;
}

long field_after(const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, key, klen)) {
			char *end;
			long v = strtol(line + klen, &end, 10);
			return end == line + klen ? -1 : v;
		}
	}
	return -1;
}

long smaps_kb(const void *start, const char *field)
{
	static char smaps[1 << 20];
	if (read_file("/proc/self/smaps", smaps, sizeof(smaps)) <= 0)
		return -1;
	char head[32];
	snprintf(head, sizeof(head), "%08lx-", (unsigned long)(uintptr_t)start);
	for (char *line = smaps; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, head, strlen(head)))
			continue;
		char key[40];
		snprintf(key, sizeof(key), "\n%s:", field);
		const char *f = strstr(line, key);
		return f ? field_after(f + 1, key + 1) : -1;
	}
	return -1;
}

long vmstat_value(const char *name)
{
	static char text[1 << 16];
	if (read_file("/proc/vmstat", text, sizeof(text)) <= 0)
		return -1;
	char key[64];
	snprintf(key, sizeof(key), "\n%s ", name);
	const char *l = strstr(text, key);
	return l ? strtol(l + strlen(key), NULL, 10) : -1;
}

static long kb_field(const char *path, const char *field)
{
	char buf[8192], key[64];
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	snprintf(key, sizeof(key), "%s:", field);
	return field_after(buf, key);
}

long status_kb(const char *field)
{
	return kb_field("/proc/self/status", field);
}

long rss_kb(void)
{
	char buf[4096];
	if (read_file("/proc/self/smaps_rollup", buf, sizeof(buf)) > 0) {
		const char *line = strstr(buf, "\nRss:");
		if (line)
			return field_after(line + 1, "Rss:");
	}
	return status_kb("VmRSS");
}

long meminfo_kb(const char *field)
{
	return kb_field("/proc/meminfo", field);
}

long arg_long(int argc, char **argv, const char *name, long def)
{
	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], name))
			return strtol(argv[i + 1], NULL, 0);
	}
	return def;
}

long long now_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return -1;
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void touch_pages(void *p, size_t len, unsigned char value)
{
	volatile unsigned char *c = p;
	for (size_t off = 0; off < len; off += PAGE_4K)
		c[off] = value;
}

bool all_bytes(const void *p, size_t len, unsigned char value)
{
	const volatile unsigned char *c = p;
	for (size_t i = 0; i < len; i++) {
		if (c[i] != value)
			return false;
	}
	return true;
}

bool on_mmlab(void)
{
	static int known = -1;
	if (known < 0) {
		struct utsname u;
		known = uname(&u) == 0 && !strcmp(u.sysname, "mmlab");
	}
	return known;
}

bool reads_map_zero_page(void)
{
	if (on_mmlab())
		return true;
	static int known = -1;
	if (known >= 0)
		return known;
	const size_t len = 64 * PAGE_4K;
	volatile unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return true; /* cannot tell: expect what Linux normally does */
	long before = rss_kb();
	unsigned sum = 0;
	for (size_t off = 0; off < len; off += PAGE_4K)
		sum += p[off];
	long grew = rss_kb() - before;
	munmap((void *)p, len);
	/* 256 kB if every read got a page of its own; a few kB of noise
	 * (stdio, the stack) at most otherwise. */
	known = sum == 0 && grew < (long)(len / KiB / 2);
	if (!known)
		note("this kernel backs read faults with new pages, not the zero page "
		     "(64 reads: RSS +%ld kB): zero-page expectations adjusted", grew);
	return known;
}
