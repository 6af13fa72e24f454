/* Pressure stall information, /proc/pressure/ (Linux 6.1's
 * kernel/sched/psi.c, psi_show):
 *   - io, memory and cpu each hold exactly two lines,
 *     "some avg10=A.BB avg60=A.BB avg300=A.BB total=N" and the same with
 *     "full", averages at most 100.00, cpu's "full" line all zeros (a
 *     whole system is never fully stalled on CPU);
 *   - FULL time is part of SOME time (full total <= some total), and
 *     totals never go down between two reads;
 *   - triggers (with CAP_SYS_RESOURCE): Linux 6.1's checks of
 *     "<some|full> <threshold us> <window us>" (EINVAL), one trigger per
 *     open file (EBUSY); on Linux 6.1 and mmlab a window under 500 ms is
 *     refused (6.4 lifted it); on mmlab, as v6.1, opening for writing
 *     without CAP_SYS_RESOURCE is EPERM (Linux 6.5 lifted it, and
 *     Debian's 6.1.y has that change: there it is only reported);
 *   - on the swap machines (the runner's scratch swap disk): a child
 *     writes MemAvailable and 32 MiB more of anonymous memory, which
 *     reclaim must push through swap, then reads the first part back
 *     (swap-ins): memory's and io's "some" totals grew, and a trigger on
 *     memory "some 1 500000" (any stall) reported POLLPRI.
 * Totals and averages depend on timing, so only their format and growth
 * are checked, never a value. On a Linux without PSI (psi=0, or
 * CONFIG_PSI_DEFAULT_DISABLED without psi=1) the files are not there:
 * skipped. On the host no swap is turned on (swap_disk.h): only the
 * format is checked there. */
#include <poll.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <strings.h>

#include "swap_disk.h"

#define PAGE 4096ul
#define CAP_SYS_RESOURCE 24

struct pressure {
	unsigned long avg[2][3];   /* hundredths of a percent */
	unsigned long long total[2]; /* microseconds */
};

/* One line "<kind> avg10=I.FF avg60=I.FF avg300=I.FF total=N\n" at *p,
 * strictly: each number digits only, two after the point. */
static bool parse_line(const char **p, const char *kind, unsigned long avg[3], unsigned long long *total)
{
	static const char *keys[3] = { " avg10=", " avg60=", " avg300=" };
	const char *s = *p;
	size_t k = strlen(kind);
	if (strncmp(s, kind, k))
		return false;
	s += k;
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(keys[i]);
		if (strncmp(s, keys[i], n))
			return false;
		s += n;
		if (*s < '0' || *s > '9')
			return false;
		unsigned long whole = 0;
		while (*s >= '0' && *s <= '9')
			whole = whole * 10 + (unsigned long)(*s++ - '0');
		if (s[0] != '.' || s[1] < '0' || s[1] > '9' || s[2] < '0' || s[2] > '9')
			return false;
		avg[i] = whole * 100 + (unsigned long)(s[1] - '0') * 10 + (unsigned long)(s[2] - '0');
		s += 3;
	}
	if (strncmp(s, " total=", 7))
		return false;
	s += 7;
	if (*s < '0' || *s > '9')
		return false;
	unsigned long long t = 0;
	while (*s >= '0' && *s <= '9')
		t = t * 10 + (unsigned long long)(*s++ - '0');
	if (*s != '\n')
		return false;
	*total = t;
	*p = s + 1;
	return true;
}

/* /proc/pressure/<res> parsed into out: 0, -errno when unreadable, or
 * -EINVAL (reported) when the format is not Linux's. */
static int read_pressure(const char *res, struct pressure *out, bool quiet)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/pressure/%s", res);
	long n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	const char *p = buf;
	bool ok = parse_line(&p, "some", out->avg[0], &out->total[0]) &&
		  parse_line(&p, "full", out->avg[1], &out->total[1]) && *p == '\0';
	if (!ok || !quiet)
		CHECKF(ok, "%s: two lines in Linux's format:\n%s", path, buf);
	return ok ? 0 : -EINVAL;
}

static void check_formats(void)
{
	static const char *res[3] = { "io", "memory", "cpu" };
	struct pressure a[3], b[3];
	for (int r = 0; r < 3; r++) {
		if (read_pressure(res[r], &a[r], false))
			return;
		bool bounded = true;
		for (int f = 0; f < 2; f++)
			for (int w = 0; w < 3; w++)
				bounded &= a[r].avg[f][w] <= 10000;
		CHECKF(bounded, "%s: every average is at most 100.00", res[r]);
	}
	/* Linux prints cpu's full line for the format's sake: zeros at the
	 * system level (kernel/sched/psi.c, psi_show). */
	bool zero = !a[2].total[1];
	for (int w = 0; w < 3; w++)
		zero &= !a[2].avg[1][w];
	CHECKF(zero, "cpu: the full line is all zeros for the whole system");
	for (int r = 0; r < 2; r++)
		CHECKF(a[r].total[1] <= a[r].total[0], "%s: full total %llu us <= some total %llu us", res[r],
		       a[r].total[1], a[r].total[0]);
	for (int r = 0; r < 3; r++) {
		if (read_pressure(res[r], &b[r], true))
			return;
		CHECKF(b[r].total[0] >= a[r].total[0] && b[r].total[1] >= a[r].total[1],
		       "%s: totals do not go down between two reads (some %llu -> %llu, full %llu -> %llu)", res[r],
		       a[r].total[0], b[r].total[0], a[r].total[1], b[r].total[1]);
	}
}

/* Linux 6.1 (or mmlab, which follows it): the trigger rules that Linux
 * 6.5's unprivileged triggers changed. */
static bool trigger_rules_of_6_1(void)
{
	struct utsname u;
	return on_mmlab() || (uname(&u) == 0 && !strncmp(u.release, "6.1.", 4));
}

/* With its NUL, as Linux's documentation writes a trigger: psi_write
 * makes the last byte it takes the end of the string. */
static long write_str(int fd, const char *s) { return write(fd, s, strlen(s) + 1); }

static void check_triggers(void)
{
	if (!has_cap(CAP_SYS_RESOURCE)) {
		check_skip("no CAP_SYS_RESOURCE: triggers need it on Linux 6.1");
		return;
	}
	int fd = open("/proc/pressure/memory", O_RDWR);
	if (!CHECKF(fd >= 0, "open /proc/pressure/memory for writing: %s", errno_name(errno)))
		return;
	static const char *bad[] = { "some", "some 0 1000000", "some 1000001 1000000", "middle 1 1000000",
				     "full 1 10000001" };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		long r = write_str(fd, bad[i]);
		CHECKF(r == -1 && errno == EINVAL, "trigger \"%s\": EINVAL (%ld, %s)", bad[i], r, errno_name(errno));
	}
	if (trigger_rules_of_6_1()) {
		errno = 0;
		long r = write_str(fd, "some 1000 400000");
		CHECKF(r == -1 && errno == EINVAL, "a window of 400 ms: EINVAL on Linux 6.1 (%ld, %s)", r,
		       errno_name(errno));
	}
	long r = write_str(fd, "some 150000 1000000");
	CHECKF(r == 20, "trigger \"some 150000 1000000\" taken (%ld, %s)", r, errno_name(errno));
	errno = 0;
	r = write_str(fd, "full 150000 1000000");
	CHECKF(r == -1 && errno == EBUSY, "a second trigger on the same file: EBUSY (%ld, %s)", r, errno_name(errno));
	char buf[256];
	r = read(fd, buf, sizeof(buf));
	CHECKF(r > 0 && !strncmp(buf, "some avg10=", 11), "the file still reads as before (%ld bytes)", r);
	close(fd);
	/* v6.1 refuses to open a file for writing without CAP_SYS_RESOURCE
	 * (psi_open); Linux 6.5 allowed unprivileged triggers (windows in
	 * multiples of 2 s), and Debian's 6.1.y kernel has that too: only
	 * mmlab, which follows v6.1, is held to the EPERM. */
	if (!trigger_rules_of_6_1())
		return;
	pid_t pid = fork();
	if (pid == 0) {
		if (!drop_cap(CAP_SYS_RESOURCE))
			_exit(77);
		errno = 0;
		int w = open("/proc/pressure/memory", O_WRONLY);
		int e = errno;
		long wr = w >= 0 ? write_str(w, "some 150000 2000000") : -2;
		int we = errno;
		int ro = open("/proc/pressure/memory", O_RDONLY);
		note("without CAP_SYS_RESOURCE: open for writing %d (%s), a write %ld (%s), open for reading %d", w,
		     errno_name(e), wr, errno_name(we), ro);
		_exit(w == -1 && e == EPERM && ro >= 0 ? 0 : 1);
	}
	int st = wait_status_of(pid);
	if (st == 77)
		check_skip("could not drop CAP_SYS_RESOURCE");
	else if (on_mmlab())
		CHECKF(st == 0, "without CAP_SYS_RESOURCE: open for writing EPERM, for reading allowed (status %d)", st);
	else /* Debian's 6.1.y has 6.5's unprivileged triggers (see above) */
		note("Linux without CAP_SYS_RESOURCE: %s", st == 0 ? "EPERM, as v6.1" : "allowed, as Linux 6.5");
}

/* Whether this machine has the runner's swap disk (swap_disk.h's test,
 * without skipping the whole program when it has not). */
static bool have_swap_disk(void)
{
	char serial[64] = "";
	unsigned char page[4096];
	long n = read_file("/sys/block/vda/serial", serial, sizeof(serial));
	if (n > 0 && serial[n - 1] == '\n')
		serial[--n] = '\0';
	if (n <= 0 || strcmp(serial, "mmlab-vd0"))
		return false;
	int fd = open(SWAP_DISK, O_RDONLY);
	if (fd < 0)
		return false;
	bool ok = pread(fd, page, sizeof(page), 0) == (ssize_t)sizeof(page) &&
		  !memcmp(page + 4096 - 10, "SWAPSPACE2", 10);
	close(fd);
	return ok;
}

/* Pushes memory through swap: MemAvailable + 32 MiB written page by page,
 * then the first 32 MiB read back. */
static int child(void)
{
	struct pressure mem0, io0, mem1, io1;
	if (read_pressure("memory", &mem0, true) || read_pressure("io", &io0, true))
		return 1;
	/* Any stall at all (1 us) within half a second fires it. */
	int trig = open("/proc/pressure/memory", O_RDWR);
	bool armed = trig >= 0 && write_str(trig, "some 1 500000") > 0;
	CHECKF(armed, "a trigger \"some 1 500000\" on memory: %s", errno_name(errno));
	long avail_kb = meminfo_kb("MemAvailable"), swapfree_kb = meminfo_kb("SwapFree");
	size_t pages = (size_t)avail_kb / 4 + (32ul << 20) / PAGE, back = (32ul << 20) / PAGE;
	note("MemAvailable %ld kB, SwapFree %ld kB: writing %zu pages (%zu MiB)", avail_kb, swapfree_kb, pages,
	     pages >> 8);
	if (swapfree_kb < 2 * 32 * 1024)
		test_skip("SwapFree %ld kB cannot take 32 MiB with a margin", swapfree_kb);
	unsigned char *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				-1, 0);
	if (!CHECKF(p != MAP_FAILED, "mmap of %zu pages: %s", pages, errno_name(errno)))
		return test_end();
	long out0 = vmstat_value("pswpout"), in0 = vmstat_value("pswpin");
	for (size_t i = 0; i < pages; i++)
		p[i * PAGE] = (unsigned char)i;
	/* Which pages are swap entries now (pagemap's PM_SWAP), the first
	 * ones and all: reading one of the first back is a swap-in, counted
	 * in pswpin unless its page is still in the swap cache (written
	 * out, not yet reclaimed: Linux 6.1 on a loaded host read all of
	 * them from there once). */
	static uint64_t e[(32ul << 20) / PAGE];
	size_t swapped = 0, swapped_all = 0;
	for (size_t at = 0; at < pages; at += back) {
		size_t n = pages - at < back ? pages - at : back;
		if (!pagemap_read(p + at * PAGE, n, e))
			break;
		for (size_t i = 0; i < n; i++) {
			swapped_all += !!(e[i] & PM_SWAP);
			if (!at)
				swapped += !!(e[i] & PM_SWAP);
		}
	}
	size_t bad = 0;
	for (size_t i = 0; i < back; i++)
		bad += p[i * PAGE] != (unsigned char)i;
	CHECKF(bad == 0, "the first %zu pages read back whole (%zu bad)", back, bad);
	long out = vmstat_value("pswpout") - out0, in = vmstat_value("pswpin") - in0;
	/* mmlab's LRU takes the oldest pages first, so the first ones went
	 * out. Linux 6.1 may take others: on linux-swap it once counted
	 * 10,179 pages swapped out and none of the first 8,192 as swap
	 * entries, none read back, so there any of the pages will do. */
	CHECKF(out > 0 && (in > 0 || swapped > 0 || (!on_mmlab() && swapped_all > 0)),
	       "the memory went through swap (pswpout +%ld, pswpin +%ld, %zu of the first pages swap entries, "
	       "%zu of all)",
	       out, in, swapped, swapped_all);
	if (read_pressure("memory", &mem1, true) || read_pressure("io", &io1, true))
		return 1;
	CHECKF(mem1.total[0] > mem0.total[0], "memory some total grew while reclaim pushed pages out: %llu -> %llu us",
	       mem0.total[0], mem1.total[0]);
	CHECKF(io1.total[0] > io0.total[0], "io some total grew with the swap reads and writes: %llu -> %llu us",
	       io0.total[0], io1.total[0]);
	CHECKF(mem1.total[1] >= mem0.total[1], "memory full total did not go down: %llu -> %llu us", mem0.total[1],
	       mem1.total[1]);
	if (armed) {
		/* The event was raised during the push; the timeout only turns
		 * a trigger that never fires into a failure. */
		struct pollfd pfd = { .fd = trig, .events = POLLPRI };
		int n = poll(&pfd, 1, 10000);
		CHECKF(n == 1 && (pfd.revents & POLLPRI), "the trigger reported POLLPRI (poll %d, revents %#x)", n,
		       pfd.revents);
	}
	if (trig >= 0)
		close(trig);
	note("memory: some avg10=%lu.%02lu total +%llu us, full total +%llu us; io some total +%llu us",
	     mem1.avg[0][0] / 100, mem1.avg[0][0] % 100, mem1.total[0] - mem0.total[0], mem1.total[1] - mem0.total[1],
	     io1.total[0] - io0.total[0]);
	munmap(p, pages * PAGE);
	return test_end();
}

/* Whether the command line turns PSI off ("psi=" with a false value,
 * Linux's kstrtobool). */
static bool booted_without_psi(void)
{
	static char cmdline[4096];
	if (read_file("/proc/cmdline", cmdline, sizeof(cmdline)) <= 0)
		return false;
	bool off = false;
	for (char *w = strtok(cmdline, " \n"); w; w = strtok(NULL, " \n"))
		if (!strncmp(w, "psi=", 4))
			off = strchr("0nNfF", w[4]) || !strncasecmp(w + 4, "off", 3);
	return off;
}

int main(void)
{
	test_begin("psi");
	if (access("/proc/pressure/memory", F_OK)) {
		int err = errno;
		if (booted_without_psi())
			test_skip("booted with PSI off (psi= on the command line): no /proc/pressure");
		if (on_mmlab())
			CHECKF(false, "/proc/pressure/memory: %s", errno_name(err));
		else
			test_skip("no /proc/pressure/memory (%s): this Linux runs without PSI (psi=0, or "
				  "CONFIG_PSI_DEFAULT_DISABLED without psi=1)",
				  errno_name(err));
		return test_end();
	}
	check_formats();
	check_triggers();

	if (!have_swap_disk()) {
		check_skip("no runner's swap disk: pushing memory through swap is checked on the swap machines only "
			   "(elsewhere the pressure depends on what else the machine does)");
		return test_end();
	}
	if (!has_cap(CAP_SYS_ADMIN)) {
		check_skip("no CAP_SYS_ADMIN: swapon needs it");
		return test_end();
	}
	if (proc_swaps_count() != 0) {
		check_skip("a swap area is on already: this program turns its own on and off");
		return test_end();
	}
	if (!CHECKF(sys_swapon(SWAP_DISK, 0) == 0, "swapon %s: %s", SWAP_DISK, errno_name(errno)))
		return test_end();
	pid_t pid = fork();
	if (pid == 0)
		_exit(child());
	int st = wait_status_of(pid);
	CHECKF(st == 0 || st == 77, "the checks in the child passed (status %d)", st);
	CHECKF(sys_swapoff(SWAP_DISK) == 0, "swapoff after the child's exit freed its entries: %s", errno_name(errno));
	return test_end();
}
