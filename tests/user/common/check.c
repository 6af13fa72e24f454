/* The test helpers of check.h: result lines and the tally, /proc readers,
 * the clock, which kernel this is and how it is set up. Standard headers
 * only: it builds with musl and with glibc. */
#include "check.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static const char *test_name = "test";
static unsigned passed, failed, skipped;

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
	if (skipped)
		printf("%s: %u checks, %u passed, %u failed, %u skipped\n", test_name, passed + failed,
		       passed, failed, skipped);
	else
		printf("%s: %u checks, %u passed, %u failed\n", test_name, passed + failed, passed, failed);
	fflush(stdout);
	return failed ? 1 : 0;
}

unsigned checks_failed(void) { return failed; }

int wait_status_of(pid_t pid)
{
	int status = -1;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
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

void check_skip(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	skipped++;
	printf("skip: %s\n", buf);
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
		{ 0, "0" },           { EPERM, "EPERM" },     { ENOENT, "ENOENT" },     { ESRCH, "ESRCH" },
		{ EINTR, "EINTR" },   { EIO, "EIO" },         { EBADF, "EBADF" },
		{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" },   { EACCES, "EACCES" },
		{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" },     { EEXIST, "EEXIST" },
		{ ENODEV, "ENODEV" }, { ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" },
		{ EINVAL, "EINVAL" }, { EMFILE, "EMFILE" },   { ESPIPE, "ESPIPE" },
		{ EROFS, "EROFS" },   { ERANGE, "ERANGE" },   { ENOSYS, "ENOSYS" },
		{ EOVERFLOW, "EOVERFLOW" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ ENAMETOOLONG, "ENAMETOOLONG" }, { ENXIO, "ENXIO" }, { ENOTTY, "ENOTTY" },
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

bool write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	if (fd < 0)
		return false;
	bool ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok;
}

bool pagemap_read(const void *p, size_t n, uint64_t *e)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return false;
	ssize_t want = (ssize_t)(n * sizeof(*e));
	bool ok = pread(fd, e, (size_t)want, (off_t)((uintptr_t)p / 4096 * sizeof(*e))) == want;
	close(fd);
	return ok;
}

long maps_snapshot(char *buf, size_t size)
{
	long len = read_file("/proc/self/maps", buf, size);
	if (len < 0)
		return -1;
	char *stack = strstr(buf, " [stack]\n");
	if (!stack)
		return len;
	char *line = stack;
	while (line > buf && line[-1] != '\n')
		line--;
	char *dash = strchr(line, '-');
	if (!dash || dash > stack)
		return len;
	memmove(line, dash, (size_t)(buf + len + 1 - dash));
	return len - (dash - line);
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

long threads_settled(long n, int max_ms)
{
	long threads = -1;
	for (int ms = 0; ms <= max_ms; ms++) {
		threads = kb_field("/proc/self/status", "Threads");
		if (threads == n || threads < 0)
			break;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	return threads;
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

const char *path_in(const char *dir, const char *name)
{
	static char buf[4][512];
	static int i;
	char *b = buf[i++ & 3];
	snprintf(b, sizeof(buf[0]), "%s/%s", dir, name);
	return b;
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

bool in_runner_guest(void)
{
	char exe[64];
	ssize_t n = readlink("/proc/1/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	return getppid() == 1 && !strcmp(exe, "/init");
}

long file_long(const char *path)
{
	char buf[64];
	return read_file(path, buf, sizeof(buf)) > 0 ? strtol(buf, NULL, 10) : -1;
}

bool file_write_long(const char *path, long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%ld\n", v);
	return write_file(path, buf);
}

struct cap_header {
	uint32_t version;
	int pid;
};
struct cap_data {
	uint32_t effective, permitted, inheritable;
};
#define CAP_V3 0x20080522

bool has_cap(int cap)
{
	struct cap_header h = { CAP_V3, 0 };
	struct cap_data d[2];
	if (syscall(SYS_capget, &h, d))
		return false;
	return (cap < 32 ? d[0].effective >> cap : d[1].effective >> (cap - 32)) & 1;
}

bool drop_cap(int cap)
{
	struct cap_header h = { CAP_V3, 0 };
	struct cap_data d[2];
	if (syscall(SYS_capget, &h, d))
		return false;
	d[cap / 32].effective &= ~(1u << (cap % 32));
	return syscall(SYS_capset, &h, d) == 0;
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

int overcommit_mode(void)
{
	char buf[16];
	if (read_file("/proc/sys/vm/overcommit_memory", buf, sizeof(buf)) <= 0)
		return -1;
	return atoi(buf);
}

const char *noreserve_refusal(size_t len, bool *certain)
{
	static char why[256];
	const char *reason = NULL;
	bool sure = false;
	struct rlimit as;
	long vmsize_kb = status_kb("VmSize");
	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY && vmsize_kb >= 0 &&
	    (unsigned long long)vmsize_kb * KiB + len > (unsigned long long)as.rlim_cur) {
		snprintf(why, sizeof(why), "RLIMIT_AS is %llu kB: VmSize %ld kB + %zu kB is over it",
			 (unsigned long long)as.rlim_cur >> 10, vmsize_kb, len >> 10);
		reason = why;
		sure = true;
	} else if (overcommit_mode() == 2) {
		long limit_kb = meminfo_kb("CommitLimit"), committed_kb = meminfo_kb("Committed_AS");
		sure = limit_kb >= 0 && len / KiB > (size_t)limit_kb;
		snprintf(why, sizeof(why),
			 "vm.overcommit_memory is 2 (MAP_NORESERVE charged all the same): %zu MiB against CommitLimit "
			 "%ld MiB, Committed_AS %ld MiB",
			 len >> 20, limit_kb >> 10, committed_kb >> 10);
		reason = why;
	}
	if (certain)
		*certain = sure;
	return reason;
}

void *map_noreserve(size_t len, const char *what)
{
	bool certain;
	const char *limit = noreserve_refusal(len, &certain);
	errno = 0;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	int err = errno;
	if (limit && (certain || p == MAP_FAILED)) {
		bool refused = p == MAP_FAILED && err == ENOMEM;
		CHECKF(refused, "%s is refused with ENOMEM%s%s", what, refused ? "" : ", not ",
		       refused ? "" : p == MAP_FAILED ? errno_name(err) : "made");
		if (p != MAP_FAILED)
			munmap(p, len);
		check_skip("%s: %s", what, limit);
		return NULL;
	}
	if (!CHECKF(p != MAP_FAILED, "%s is made%s%s", what, p == MAP_FAILED ? ": " : "",
		    p == MAP_FAILED ? errno_name(err) : ""))
		return NULL;
	return p;
}

bool mlock_allowed(size_t len, char *why, size_t size)
{
	char status[4096];
	if (read_file("/proc/self/status", status, sizeof(status)) > 0) {
		const char *cap = strstr(status, "\nCapEff:");
		if (cap && strtoull(cap + 8, NULL, 16) >> 14 & 1) /* CAP_IPC_LOCK */
			return true;
	}
	struct rlimit lim;
	long locked_kb = status_kb("VmLck");
	if (getrlimit(RLIMIT_MEMLOCK, &lim))
		lim.rlim_cur = 0;
	if (lim.rlim_cur == RLIM_INFINITY ||
	    (locked_kb >= 0 && (unsigned long long)locked_kb * KiB + len <= (unsigned long long)lim.rlim_cur))
		return true;
	snprintf(why, size, "no CAP_IPC_LOCK, and RLIMIT_MEMLOCK is %llu kB: VmLck %ld kB + %zu kB is over it",
		 (unsigned long long)lim.rlim_cur >> 10, locked_kb, len >> 10);
	return false;
}

/* The bracketed word of a THP mode file ("always [madvise] never"). */
static bool bracketed(const char *path, char *word, size_t size)
{
	char buf[256];
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	const char *open = strchr(buf, '['), *close = open ? strchr(open, ']') : NULL;
	if (!close || (size_t)(close - open - 1) >= size)
		return false;
	snprintf(word, size, "%.*s", (int)(close - open - 1), open + 1);
	return true;
}

const char *thp_pmd_mode(void)
{
	static char mode[32];
	char pmd[32];
	if (!bracketed("/sys/kernel/mm/transparent_hugepage/enabled", mode, sizeof(mode)))
		return NULL;
	if (bracketed("/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled", pmd, sizeof(pmd)) &&
	    strcmp(pmd, "inherit"))
		snprintf(mode, sizeof(mode), "%s", pmd);
	return mode;
}

bool thp_small_sizes(void)
{
	static int known = -1;
	if (known >= 0)
		return known;
	known = 0;
	char top[32], mode[32], path[96];
	if (on_mmlab() || !bracketed("/sys/kernel/mm/transparent_hugepage/enabled", top, sizeof(top)))
		return known;
	for (unsigned kb = 8; kb < 2048; kb *= 2) {
		snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/hugepages-%ukB/enabled", kb);
		if (bracketed(path, mode, sizeof(mode)) &&
		    (!strcmp(mode, "always") || (!strcmp(mode, "inherit") && !strcmp(top, "always")))) {
			note("multi-size THP: %u kB pages are \"%s\" (top-level \"%s\"): 4 KiB pages asked for "
			     "where pages are counted", kb, mode, top);
			known = 1;
			break;
		}
	}
	return known;
}

#define SHMEM_ENABLED "/sys/kernel/mm/transparent_hugepage/shmem_enabled"

const char *shmem_enabled_mode(void)
{
	static char mode[32];
	return bracketed(SHMEM_ENABLED, mode, sizeof(mode)) ? mode : NULL;
}

void *map_aligned_2m(size_t len, int flags, int fd)
{
	char *p = mmap(NULL, len + 2 * MiB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	char *a = (char *)(((uintptr_t)p + 2 * MiB - 1) & ~(uintptr_t)(2 * MiB - 1));
	munmap(p, len + 2 * MiB);
	char *m = mmap(a, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED, fd, 0);
	return m == MAP_FAILED ? NULL : m;
}

bool shmem_enabled_set(const char *word) { return write_file(SHMEM_ENABLED, word); }

bool shmem_small_sizes(const char *top)
{
	char path[96], mode[32];
	bool top_huge = strcmp(top, "never") && strcmp(top, "deny");
	for (unsigned kb = 8; kb < 2048; kb *= 2) {
		snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/hugepages-%ukB/shmem_enabled", kb);
		if (bracketed(path, mode, sizeof(mode)) && strcmp(mode, "never") && (strcmp(mode, "inherit") || top_huge)) {
			note("shmem %u kB folios are \"%s\" (shmem_enabled \"%s\")", kb, mode, top);
			return true;
		}
	}
	return false;
}

void small_pages(void *p, size_t len)
{
	if (thp_small_sizes())
		madvise(p, len, MADV_NOHUGEPAGE);
}

int setting_lock(const char *path)
{
	if (on_mmlab())
		return -1;
	int fd = open(path, O_RDONLY);
	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

void setting_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* the lock goes with the last descriptor */
}

/* Counts the CPUs of a list file ("0-3,8\n") and finds the highest;
 * false if it cannot be read or parsed. */
static bool cpu_list(const char *path, long *count, long *highest)
{
	char buf[1024];
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	*count = 0;
	*highest = -1;
	for (char *s = buf; *s && *s != '\n';) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s || a < 0)
			return false;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return false;
			s = end;
		}
		*count += b - a + 1;
		*highest = b > *highest ? b : *highest;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return false;
	}
	return *count > 0;
}

long cpus_online(void)
{
	long count, highest;
	if (cpu_list("/sys/devices/system/cpu/online", &count, &highest))
		return count;
	return sysconf(_SC_NPROCESSORS_ONLN);
}

long cpu_ids(void)
{
	long count, highest;
	if (cpu_list("/sys/devices/system/cpu/possible", &count, &highest))
		return highest + 1;
	return sysconf(_SC_NPROCESSORS_CONF);
}

int user_va_bits(void)
{
	if (on_mmlab())
		return 47;
	static int bits;
	if (!bits) {
		/* A hint above 47 bits: a 5-level kernel maps there, a 4-level
		 * one cannot and places the mapping below. */
		void *p = mmap((void *)(1ul << 52), PAGE_4K, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		bits = p != MAP_FAILED && (uintptr_t)p >= 1ul << 47 ? 56 : 47;
		if (p != MAP_FAILED)
			munmap(p, PAGE_4K);
	}
	return bits;
}

bool nproc_room(long n)
{
	struct rlimit nproc;
	if (getrlimit(RLIMIT_NPROC, &nproc) != 0 || nproc.rlim_cur == RLIM_INFINITY ||
	    nproc.rlim_cur >= (rlim_t)n + 64)
		return true;
	check_skip("RLIMIT_NPROC %lu leaves no room for %ld children", (unsigned long)nproc.rlim_cur, n);
	return false;
}

long hugetlb_pool(const char *file)
{
	char path[128];
	snprintf(path, sizeof(path), HUGETLB_POOL "%s", file);
	return file_long(path);
}

bool hugetlb_pool_set(long n)
{
	return file_write_long(HUGETLB_POOL "nr_hugepages", n) && hugetlb_pool("nr_hugepages") == n;
}

long hugetlb_pool_grow(long by, long *resv0)
{
	/* The mappings made without a size, and /proc/meminfo's counts, are
	 * of the default size, which a Linux booted with
	 * default_hugepagesz=1G has changed. */
	long default_kb = meminfo_kb("Hugepagesize");
	if (!on_mmlab() && default_kb != 2048)
		test_skip("the default huge page size is %ld kB, not 2048 (default_hugepagesz)", default_kb);
	/* The pool is the machine's: held for this program alone among the
	 * suite's (setting_lock()) from its first read to its last write;
	 * the lock goes when the program exits. */
	setting_lock(HUGETLB_POOL "nr_hugepages");
	long nr0 = hugetlb_pool("nr_hugepages");
	*resv0 = hugetlb_pool("resv_hugepages");
	if (nr0 < 0)
		test_skip("no 2 MiB hugetlb pool (%s)", HUGETLB_POOL);
	if (*resv0 || hugetlb_pool("surplus_hugepages"))
		test_skip("another user holds reservations or surplus pages");
	/* Surplus pages beyond the pool (nr_overcommit_hugepages) would make
	 * the mappings that the pool cannot cover succeed. */
	long overcommit = hugetlb_pool("nr_overcommit_hugepages");
	if (!on_mmlab() && overcommit > 0)
		test_skip("nr_overcommit_hugepages is %ld: the pool may grow past its size", overcommit);
	if (!hugetlb_pool_set(nr0 + by)) {
		hugetlb_pool_set(nr0);
		test_skip("the pool could not grow by %ld pages (root? free 2 MiB blocks?)", by);
	}
	return nr0;
}

#define TMPFS_MAGIC 0x01021994

const char *tmpfs_dir(bool *tmpfs)
{
	static const char *const dirs[] = { "/dev/shm", "/tmp" };
	for (unsigned i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		struct statfs s;
		if (statfs(dirs[i], &s) == 0 && s.f_type == TMPFS_MAGIC) {
			*tmpfs = true;
			return dirs[i];
		}
	}
	*tmpfs = false;
	return "/tmp";
}

static sigjmp_buf sigbus_env;
volatile int sigbus_code;
void *volatile sigbus_addr;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	sigbus_code = si->si_code;
	sigbus_addr = si->si_addr;
	siglongjmp(sigbus_env, 1);
}

bool sigbus_catch(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, NULL) == 0;
}

bool read_byte(const volatile char *p, char *v)
{
	sigbus_code = 0;
	sigbus_addr = NULL;
	if (sigsetjmp(sigbus_env, 1))
		return false;
	*v = *p;
	return true;
}

bool sigbus_at(const volatile char *p)
{
	char v;
	return !read_byte(p, &v) && sigbus_code == BUS_ADRERR && sigbus_addr == (void *)p;
}

bool numa_maps_line(const void *start, char *out, size_t size)
{
	static char text[1 << 20];
	out[0] = 0;
	if (read_file("/proc/self/numa_maps", text, sizeof(text)) <= 0)
		return false;
	char head[32];
	snprintf(head, sizeof(head), "%08lx ", (unsigned long)(uintptr_t)start);
	for (char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, head, strlen(head)))
			continue;
		char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		if (n >= size)
			n = size - 1;
		memcpy(out, line, n);
		out[n] = 0;
		return true;
	}
	return false;
}

int mount_tmpfs_or_skip(const char *source, const char *dir, const char *opts, void (*undo)(void))
{
	if (!mount(source, dir, "tmpfs", 0, opts))
		return 0;
	int e = errno;
	undo();
	if (e == EPERM)
		test_skip("mount: EPERM (no right to mount here)");
	CHECKF(false, "mount tmpfs %s: %s", opts, errno_name(e));
	return -1;
}

void mount_dir_release(char *dir, bool *mounted)
{
	if (*mounted && umount2(dir, MNT_DETACH) == 0)
		*mounted = false;
	if (dir[0] && !*mounted)
		rmdir(dir);
	dir[0] = 0;
}

void mount_dir_file_run(char *dir, bool *mounted, long size, void (*run)(int fd))
{
	int fd = open(path_in(dir, "f"), O_RDWR | O_CREAT | O_EXCL, 0600);
	if (CHECK(fd >= 0)) {
		CHECK_CMP(ftruncate(fd, (off_t)size), ==, 0);
		run(fd);
		CHECK_CMP(close(fd), ==, 0);
	}
	CHECK_CMP(unlink(path_in(dir, "f")), ==, 0);
	CHECK_CMP(umount2(dir, 0), ==, 0);
	*mounted = false;
	mount_dir_release(dir, mounted);
}
