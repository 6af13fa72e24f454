/* The open-file layer (fs/): the descriptor table (lowest fd
 * first, EMFILE, EBADF, open's errnos, reads and seeks of generated files,
 * the snapshot freed on close), the console's line buffer
 * (drivers/tty/console_line.c: lines never interleaved across CPUs), and the
 * file system calls together with the small ones of kernel/sys.c, run
 * through do_syscall_64() on a test mm. The contents of the generated
 * files are tests/procfs_test.c's.
 *
 * The system calls run with pointers into an mm the case builds and makes
 * current (copies demand-page it), and into unmapped addresses for
 * -EFAULT. What a case makes or switches to is given back by a deferred
 * action (kunit_add_action), newest first, however the case ends: an early
 * assertion leaks nothing (free_pages_restored checks) and never leaves the
 * runner's thread on a case's mm or file table. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "tests/test_cpu.h"
#include "arch/x86_64/uaccess.h"
#include "drivers/tty/console_line.h"
#include "fs/file.h"
#include "kernel/printk.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "kernel/syscall.h"
#include "kernel/time.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/slab.h"
#include "mm/util.h"
#include "mm/vmalloc.h"

static void files_release_action(void *files) { files_release(files); }
static void kfree_action(void *p) { kfree(p); }
static void capture_end_action(void *cap) { printk_capture_end(cap); }

/* ---- the file table ---- */

static struct files_struct *new_files(struct kunit *test, const char *prefix)
{
	struct files_struct *f = files_alloc(prefix);
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, files_release_action, f), 0);
	return f;
}

static void fd_lowest_first(struct kunit *test)
{
	struct files_struct *f = new_files(test, "");
	KUNIT_EXPECT_EQ(test, files_count(f), 3);
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, "/proc/meminfo", O_RDONLY, 0), 3);
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, "/proc/buddyinfo", O_RDONLY, 0), 4);
	KUNIT_EXPECT_EQ(test, files_close(f, 3), 0);
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, "proc/buddyinfo", O_RDONLY, 0), 3);
	KUNIT_EXPECT_EQ(test, files_close(f, 1), 0);
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, "/sys/devices/system/node/online", O_RDONLY, 0), 1);
	int fd;
	while ((fd = files_open(f, AT_FDCWD, "/proc/self/statm", O_RDONLY, 0)) >= 0)
		;
	KUNIT_EXPECT_EQ(test, fd, -EMFILE);
	KUNIT_EXPECT_EQ(test, files_count(f), NR_OPEN_DEFAULT);
	/* A full table is reported before the lookup, as in Linux. */
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, "/nothing", O_RDONLY, 0), -EMFILE);
	KUNIT_EXPECT_EQ(test, files_close(f, 40), 0);
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, "/proc/meminfo", O_RDONLY, 0), 40);
}

static void bad_descriptors(struct kunit *test)
{
	struct files_struct *f = new_files(test, "");
	char c;
	KUNIT_EXPECT_EQ(test, files_read(f, 7, &c, 1), -EBADF);
	KUNIT_EXPECT_EQ(test, files_read(f, 1000, &c, 1), -EBADF);
	KUNIT_EXPECT_EQ(test, files_write(f, 7, &c, 1), -EBADF);
	KUNIT_EXPECT_EQ(test, files_close(f, 7), -EBADF);
	KUNIT_EXPECT_EQ(test, files_close(f, -1u), -EBADF);
	KUNIT_EXPECT_EQ(test, files_lseek(f, 7, 0, SEEK_SET), -EBADF);
	KUNIT_EXPECT_EQ(test, files_write(f, 0, "x", 1), -EBADF); /* stdin is read-only */
	KUNIT_EXPECT_EQ(test, files_read(f, 1, &c, 1), -EBADF);   /* stdout is write-only */
	KUNIT_EXPECT_EQ(test, files_read(f, 0, &c, 1), 0);        /* end of file */
	KUNIT_EXPECT_EQ(test, files_lseek(f, 1, 0, SEEK_SET), -ESPIPE);
	KUNIT_EXPECT_EQ(test, files_pread(f, 0, &c, 1, 0), -ESPIPE);
	int fd = files_open(f, AT_FDCWD, "/proc/meminfo", O_RDONLY, 0);
	KUNIT_EXPECT_EQ(test, files_write(f, fd, "x", 1), -EBADF);
	KUNIT_EXPECT_EQ(test, files_close(f, fd), 0);
	KUNIT_EXPECT_EQ(test, files_close(f, fd), -EBADF);
	KUNIT_EXPECT_EQ(test, files_read(f, fd, &c, 1), -EBADF);
}

static void open_errors(struct kunit *test)
{
	static char long_path[PATH_MAX + 1];
	static const struct { const char *path; int flags; int result; } cases[] = {
		{ "", O_RDONLY, -ENOENT }, { "/nothing", O_RDONLY, -ENOENT },
		{ "/nothing/meminfo", O_CREAT, -ENOENT }, { "/proc/new", O_CREAT | O_WRONLY, -ENOENT },
		{ "/proc/self/new", O_CREAT, -ENOENT }, { "/proc/meminfo/new", O_CREAT, -ENOTDIR },
		{ "/sys/devices/system/node/new", O_CREAT, -EACCES },
		{ "/sys/devices/system/node/online", 3, 3 }, /* access mode 3: neither */
		{ "/proc", O_RDONLY | O_TMPFILE, -EINVAL }, { "/proc", O_RDWR | O_TMPFILE, -EOPNOTSUPP },
		{ "/proc/meminfo", O_CREAT | O_EXCL, -EEXIST }, { "/proc", O_DIRECTORY | O_CREAT, -EINVAL },
		{ "/proc/meminfo", O_DIRECTORY, -ENOTDIR }, { "/proc/meminfo/", O_RDONLY, -ENOTDIR },
		{ "/proc/meminfo/.", O_RDONLY, -ENOTDIR }, { "/proc/meminfo/x", O_RDONLY, -ENOTDIR },
		{ "/proc", O_WRONLY, -EISDIR }, { "/proc", O_CREAT, -EISDIR },
		{ "/sys/devices/system/node/online", O_WRONLY, -EACCES },
		{ "/sys/devices/system/node/node0/numastat", O_RDWR, -EACCES },
		{ "/proc/meminfo", O_WRONLY, 3 }, { "/proc/./../proc//meminfo", O_RDONLY, 3 },
		{ "/..", O_RDONLY | O_DIRECTORY, 3 }, { "/proc/self/", O_RDONLY, 3 },
	};
	struct files_struct *f = new_files(test, "");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int r = files_open(f, AT_FDCWD, cases[i].path, cases[i].flags, 0);
		if (r != cases[i].result)
			kunit_fail(test, false, __FILE__, __LINE__, "open(\"%s\", %#x): %d, expected %d",
				   cases[i].path, cases[i].flags, r, cases[i].result);
		if (r >= 0)
			files_close(f, (unsigned)r);
	}
	memset(long_path, 'a', PATH_MAX);
	long_path[0] = '/';
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, long_path, O_RDONLY, 0), -ENAMETOOLONG);
	long_path[NAME_MAX + 2] = 0; /* one component of NAME_MAX + 1 */
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, long_path, O_RDONLY, 0), -ENAMETOOLONG);
	long_path[NAME_MAX + 1] = 0;
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, long_path, O_RDONLY, 0), -ENOENT);
	/* Below /proc a long name is just not found, as procfs's lookup. */
	memcpy(long_path, "/proc/", 6);
	memset(long_path + 6, 'a', NAME_MAX + 1); /* one component of NAME_MAX + 1 */
	long_path[6 + NAME_MAX + 1] = 0;
	KUNIT_EXPECT_EQ(test, files_open(f, AT_FDCWD, long_path, O_RDONLY, 0), -ENOENT);

	/* Writes to /proc files: -EIO at the top, -EINVAL under /proc/<pid>. */
	int fd = files_open(f, AT_FDCWD, "/proc/meminfo", O_WRONLY, 0);
	KUNIT_EXPECT_EQ(test, files_write(f, fd, "1", 1), -EIO);
	char c;
	KUNIT_EXPECT_EQ(test, files_read(f, fd, &c, 1), -EBADF);
	fd = files_open(f, AT_FDCWD, "/proc/self/status", O_RDWR, 0);
	KUNIT_EXPECT_EQ(test, files_write(f, fd, "1", 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, files_read(f, fd, &c, 1), 1);
	KUNIT_EXPECT_EQ(test, c, 'N');
	/* Directories: readable descriptors, read -EISDIR, base of openat. */
	int dir = files_open(f, AT_FDCWD, "/sys/devices/system/node", O_RDONLY | O_DIRECTORY, 0);
	KUNIT_ASSERT_GE(test, dir, 0);
	KUNIT_EXPECT_EQ(test, files_read(f, dir, &c, 1), -EISDIR);
	KUNIT_EXPECT_GE(test, fd = files_open(f, dir, "node0/../node0/numastat", O_RDONLY, 0), 0);
	KUNIT_EXPECT_EQ(test, files_read(f, fd, &c, 1), 1);
	KUNIT_EXPECT_EQ(test, files_open(f, fd, "x", O_RDONLY, 0), -ENOTDIR);
	KUNIT_EXPECT_EQ(test, files_open(f, 60, "x", O_RDONLY, 0), -EBADF);
	KUNIT_EXPECT_EQ(test, files_open(f, -5, "x", O_RDONLY, 0), -EBADF);
	KUNIT_EXPECT_GE(test, files_open(f, 60, "/proc/meminfo", O_RDONLY, 0), 0); /* dirfd unused */
}

static void read_and_seek(struct kunit *test)
{
	struct files_struct *f = new_files(test, "");
	/* What the file holds, generated straight (the procfs suite tests the
	 * generators; here only the reads and seeks over it matter). */
	char want[64], *text;
	size_t len;
	KUNIT_ASSERT_EQ(test, procfs_generate("/sys/devices/system/node/node0/distance", current, &text, &len), 0);
	strlcpy(want, text, sizeof(want));
	kvfree(text);
	KUNIT_ASSERT_LT(test, len, sizeof(want));
	char got[64] = { 0 };
	int fd = files_open(f, AT_FDCWD, "/sys/devices/system/node/node0/distance", O_RDONLY, 0);
	KUNIT_ASSERT_GE(test, fd, 0);
	for (size_t i = 0; i < len; i++)
		KUNIT_ASSERT_EQ(test, files_read(f, fd, got + i, 1), 1);
	KUNIT_EXPECT_STREQ(test, got, want);
	KUNIT_EXPECT_EQ(test, files_read(f, fd, got, sizeof(got)), 0);
	KUNIT_EXPECT_EQ(test, files_pread(f, fd, got, sizeof(got), 1), len - 1); /* short read */
	KUNIT_EXPECT_EQ(test, files_pread(f, fd, got, 1, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, 0, SEEK_CUR), len); /* pread moved nothing */
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, 0, SEEK_END), PAGE_SIZE); /* a sysfs attribute's size */
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, 0, SEEK_DATA), 0);
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, 0, SEEK_HOLE), PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, PAGE_SIZE, SEEK_DATA), -ENXIO);
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, 1, SEEK_SET), 1);
	KUNIT_EXPECT_EQ(test, files_read(f, fd, got, 1), 1);
	KUNIT_EXPECT_EQ(test, got[0], want[1]);
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, -3, SEEK_CUR), -EINVAL);
	KUNIT_EXPECT_EQ(test, files_lseek(f, fd, 0, 5), -EINVAL);
	int proc = files_open(f, AT_FDCWD, "/proc/buddyinfo", O_RDONLY, 0);
	KUNIT_EXPECT_EQ(test, files_lseek(f, proc, 0, SEEK_END), -EINVAL); /* seq_lseek */
	KUNIT_EXPECT_EQ(test, files_lseek(f, proc, 5, SEEK_SET), 5);
	KUNIT_EXPECT_EQ(test, files_lseek(f, proc, 2, SEEK_CUR), 7);
	KUNIT_EXPECT_EQ(test, files_lseek(f, proc, -8, SEEK_CUR), -EINVAL);
	KUNIT_EXPECT_EQ(test, files_lseek(f, proc, 1 << 20, SEEK_SET), 1 << 20);
	KUNIT_EXPECT_EQ(test, files_read(f, proc, got, 1), 0); /* past the end */
	/* rw_verify_area: an end past the largest offset is -EINVAL. */
	KUNIT_EXPECT_EQ(test, files_lseek(f, proc, __LONG_MAX__, SEEK_SET), __LONG_MAX__);
	KUNIT_EXPECT_EQ(test, files_read(f, proc, got, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, files_pread(f, proc, got, 16, __LONG_MAX__ - 15), -EINVAL);
	KUNIT_EXPECT_EQ(test, files_pread(f, proc, got, 15, __LONG_MAX__ - 15), 0);
}

static void close_frees_snapshot(struct kunit *test)
{
	struct files_struct *f = new_files(test, "");
	unsigned long before = slab_objects_in_use();
	int fd = files_open(f, AT_FDCWD, "/proc/self/status", O_RDONLY, 0);
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_EXPECT_EQ(test, slab_objects_in_use(), before + 2); /* the file and its snapshot */
	char c;
	for (int i = 0; i < 10; i++) /* each read at 0 replaces the snapshot */
		KUNIT_EXPECT_EQ(test, files_pread(f, fd, &c, 1, 0), 1);
	KUNIT_EXPECT_EQ(test, slab_objects_in_use(), before + 2);
	KUNIT_EXPECT_EQ(test, files_close(f, fd), 0);
	KUNIT_EXPECT_EQ(test, slab_objects_in_use(), before);
}

/* ---- the console ---- */

static char capture_buf[16384];

static void console_lines(struct kunit *test)
{
	struct printk_capture cap;
	char longline[1000];
	memset(longline, 'x', sizeof(longline));
	struct files_struct *f = new_files(test, "[p] ");
	printk_capture_begin(&cap, capture_buf, sizeof(capture_buf));
	files_write(f, 1, "hello", 5);
	bool early = cap.len != 0; /* nothing before the newline */
	files_write(f, 2, " wor\0ld\n", 8);
	files_write(f, 1, "a\n\n", 2 + 1);
	/* A carriage return would start a line of the program's own on the
	 * KTAP channel: shown as '?', as other control characters but tab. */
	files_write(f, 1, "50%\r    ok 1 fake\x1b\tx\n", 21);
	files_write(f, 1, "b", 1);
	files_write(f, 1, longline, sizeof(longline));
	kunit_release_action(test, files_release_action, f);
	printk_capture_end(&cap);
	KUNIT_EXPECT_FALSE(test, early);
	KUNIT_EXPECT_NOT_NULL(test, strstr(capture_buf, "[p] hello world\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(capture_buf, "[p] a\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(capture_buf, "[p] \n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(capture_buf, "[p] 50%?    ok 1 fake?\tx\n"));
	KUNIT_EXPECT_NULL(test, strchr(capture_buf, '\r'));
	/* "b" + 1000 x: pieces of 384, the rest written out by release. */
	const char *l = strstr(capture_buf, "[p] bxxx");
	KUNIT_ASSERT_NOT_NULL(test, l);
	size_t pieces[3];
	for (int i = 0; i < 3; i++) {
		l = strstr(l, "[p] ");
		KUNIT_ASSERT_NOT_NULL(test, l);
		l += 4;
		pieces[i] = (size_t)(strchr(l, '\n') - l);
	}
	KUNIT_EXPECT_EQ(test, pieces[0], 384);
	KUNIT_EXPECT_EQ(test, pieces[1], 384);
	KUNIT_EXPECT_EQ(test, pieces[2], 1001 - 768);
}

struct writer {
	struct files_struct *files;
	char c;
};

/* 40 lines of 60 copies of c, a byte per write. */
static int writer_fn(struct test_worker *wk)
{
	struct writer *w = (struct writer *)wk->crew->ctx + wk->id;
	for (int line = 0; line < 40; line++) {
		for (int i = 0; i < 60; i++)
			files_write(w->files, 1, &w->c, 1);
		files_write(w->files, 1, "\n", 1);
		cond_resched();
	}
	return 0;
}

static void console_never_interleaves(struct kunit *test)
{
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU");
	static struct printk_capture cap;
	static struct test_crew c;
	static struct writer w[2];
	w[0] = (struct writer){ new_files(test, "<A>"), 'a' };
	w[1] = (struct writer){ new_files(test, "<B>"), 'b' };
	/* Two other CPUs, or the only other one and this one. */
	unsigned cpus[NR_CPUS];
	if (test_online_cpus(cpus, true) < 2)
		cpus[1] = smp_processor_id();
	printk_capture_begin(&cap, capture_buf, sizeof(capture_buf));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, capture_end_action, &cap), 0);
	test_crew_start_on(test, &c, writer_fn, w, cpus, 2, 2);
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	kunit_release_action(test, capture_end_action, &cap);
	int lines = 0;
	for (const char *l = capture_buf; (l = strchr(l, '<')) != NULL; lines++) {
		char c = l[1] == 'A' ? 'a' : 'b';
		const char *end = strchr(l, '\n');
		KUNIT_ASSERT_NOT_NULL(test, end);
		bool pure = end - l == 63;
		for (const char *p = l + 3; p < end; p++)
			pure &= *p == c;
		KUNIT_EXPECT_TRUE(test, pure);
		l = end;
	}
	KUNIT_EXPECT_EQ(test, lines, 80);
}

/* ---- one table shared by threads on every online CPU (CLONE_FILES) ----
 *
 * Each case runs a crew with a worker on every online CPU (the case's
 * included: it sleeps meanwhile) on one files_struct. The workers meet at
 * the crew's barriers, never at times. A worker counts what it saw wrong;
 * the case checks the counts after the crew finished, and that the table
 * and the slab are back where they started. */

/* Slab objects in use once the workers' stacks are purged: a dead thread's
 * stack waits on vmalloc's lazy purge list with its vmap_area (a slab
 * object) until the next purge. */
static unsigned long slab_objects_settled(void)
{
	vm_unmap_aliases();
	return slab_objects_in_use();
}

struct shared_run {
	struct files_struct *files;
	int fd;
	unsigned int done;      /* worker 0 is through: the others stop */
	unsigned long bad;      /* failures seen by any worker */
	unsigned long ebadf;    /* reads that found the fd closed */
	unsigned long whole;    /* reads that got a whole snapshot */
	long round_bytes;       /* read_shared_pos: bytes read in this round */
	char ref_first[16];     /* the first bytes every snapshot starts with */
	unsigned int ref_lines; /* lines of a snapshot */
	struct mm_struct *mm;   /* shared_console_writev: the workers' user memory */
};

static void bad(struct shared_run *run)
{
	__atomic_add_fetch(&run->bad, 1, __ATOMIC_RELAXED);
}

/* Runs fn on every online CPU, a crew with run as its context; returns
 * how many workers ran. */
static unsigned int run_on_every_cpu(struct kunit *test, struct shared_run *run,
				     int (*fn)(struct test_worker *w))
{
	static struct test_crew c;
	KUNIT_EXPECT_EQ(test, test_on_each_cpu(test, &c, fn, run, 0), 0);
	return c.n;
}

/* Whether buf[0, n) is one whole /proc/meminfo: the first bytes and the
 * line count of the reference, a ':' in every line, nothing but printable
 * bytes and newlines. */
static bool meminfo_whole(const struct shared_run *run, const char *buf, long n)
{
	if (n <= 0 || buf[n - 1] != '\n' || memcmp(buf, run->ref_first, sizeof(run->ref_first)))
		return false;
	unsigned int lines = 0;
	bool colon = false;
	for (long i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			if (!colon)
				return false;
			colon = false;
			lines++;
		} else if (buf[i] < 0x20 || buf[i] > 0x7e) {
			return false;
		}
		colon |= buf[i] == ':';
	}
	return lines == run->ref_lines;
}

static void shared_setup(struct kunit *test, struct shared_run *run)
{
	memset(run, 0, sizeof(*run));
	run->files = new_files(test, "");
	run->fd = files_open(run->files, AT_FDCWD, "/proc/meminfo", O_RDONLY, 0);
	KUNIT_ASSERT_EQ(test, run->fd, 3);
	static char ref[4096];
	long n = files_pread(run->files, run->fd, ref, sizeof(ref), 0);
	KUNIT_ASSERT_GT(test, n, (long)sizeof(run->ref_first));
	KUNIT_ASSERT_LT(test, n, (long)sizeof(ref)); /* the whole file fits */
	memcpy(run->ref_first, ref, sizeof(run->ref_first));
	for (long i = 0; i < n; i++)
		run->ref_lines += ref[i] == '\n';
}

#define PREAD_ROUNDS 200

/* pread of one proc fd by every CPU at once: a pread at 0 regenerates the
 * snapshot (seq_file), others copy from it at other offsets; each whole
 * pread is one whole snapshot, and a part never holds freed bytes. */
static int pread_worker(struct test_worker *w)
{
	struct shared_run *run = w->crew->ctx;
	char *buf = kmalloc(4096, GFP_KERNEL); /* freed below: the slab count comes back */
	test_crew_barrier(w);
	for (int i = 0; buf && i < PREAD_ROUNDS; i++) {
		long n = files_pread(run->files, (unsigned int)run->fd, buf, 4096, 0);
		if (!meminfo_whole(run, buf, n))
			bad(run);
		/* A piece from the middle: printable bytes of some snapshot. */
		n = files_pread(run->files, (unsigned int)run->fd, buf, 64, 100 + w->id);
		if (n != 64)
			bad(run);
		for (long j = 0; j < n; j++)
			if (buf[j] != '\n' && (buf[j] < 0x20 || buf[j] > 0x7e))
				bad(run);
		test_crew_progress(w);
		cond_resched();
	}
	if (!buf)
		bad(run);
	kfree(buf);
	return 0;
}

static void shared_pread_snapshots(struct kunit *test)
{
	static struct shared_run run;
	unsigned long slab_before = slab_objects_settled();
	shared_setup(test, &run);
	KUNIT_ASSERT_GT(test, run_on_every_cpu(test, &run, pread_worker), 0);
	KUNIT_EXPECT_EQ(test, run.bad, 0);
	KUNIT_EXPECT_EQ(test, files_close(run.files, (unsigned int)run.fd), 0);
	KUNIT_EXPECT_EQ(test, files_count(run.files), 3);
	kunit_release_action(test, files_release_action, run.files);
	KUNIT_EXPECT_EQ(test, slab_objects_settled(), slab_before);
}

#define SHARED_POS_ROUNDS 12

/* read(2) on one fd shares f_pos: in each round (after worker 0 seeks to
 * 0) the workers read 16 bytes at a time until end of file, and the bytes
 * they got together are exactly the snapshot, once: as many as f_pos moved
 * (two reads at one position would count bytes twice). */
static int shared_pos_worker(struct test_worker *w)
{
	struct shared_run *run = w->crew->ctx;
	unsigned int fd = (unsigned int)run->fd;
	char buf[16];
	for (int round = 0; round < SHARED_POS_ROUNDS; round++) {
		if (w->id == 0) {
			__atomic_store_n(&run->round_bytes, 0, __ATOMIC_RELAXED);
			if (files_lseek(run->files, fd, 0, SEEK_SET) != 0)
				bad(run);
		}
		test_crew_barrier(w);
		long n;
		while ((n = files_read(run->files, fd, buf, sizeof(buf))) > 0)
			__atomic_add_fetch(&run->round_bytes, n, __ATOMIC_RELAXED);
		if (n < 0)
			bad(run);
		test_crew_barrier(w);
		if (w->id == 0) {
			long end = files_lseek(run->files, fd, 0, SEEK_CUR);
			if (end <= 0 || __atomic_load_n(&run->round_bytes, __ATOMIC_RELAXED) != end)
				bad(run);
		}
		test_crew_barrier(w);
	}
	return 0;
}

static void shared_read_pos(struct kunit *test)
{
	static struct shared_run run;
	unsigned long slab_before = slab_objects_settled();
	shared_setup(test, &run);
	KUNIT_ASSERT_GT(test, run_on_every_cpu(test, &run, shared_pos_worker), 0);
	KUNIT_EXPECT_EQ(test, run.bad, 0);
	KUNIT_EXPECT_EQ(test, files_close(run.files, (unsigned int)run.fd), 0);
	kunit_release_action(test, files_release_action, run.files);
	KUNIT_EXPECT_EQ(test, slab_objects_settled(), slab_before);
}

#define CLOSE_ROUNDS 150

/* Worker 0 opens /proc/meminfo (always fd 3, the lowest free) and closes
 * it, over and over; the others read fd 3 meanwhile, by pread and by
 * read: each gets -EBADF or whole bytes of a snapshot, never freed memory
 * (page_poison in the small topology), and everything opened is freed. */
static int close_race_worker(struct test_worker *w)
{
	struct shared_run *run = w->crew->ctx;
	test_crew_barrier(w);
	if (w->id == 0) {
		for (int i = 0; i < CLOSE_ROUNDS; i++) {
			if (files_open(run->files, AT_FDCWD, "/proc/meminfo", O_RDONLY, 0) != 3)
				bad(run);
			test_crew_progress(w);
			cond_resched();
			if (files_close(run->files, 3) != 0)
				bad(run);
		}
		__atomic_store_n(&run->done, 1, __ATOMIC_RELEASE); /* done: readers stop */
		return 0;
	}
	char *buf = kmalloc(4096, GFP_KERNEL);
	if (!buf)
		bad(run);
	for (unsigned int i = 0; buf && !__atomic_load_n(&run->done, __ATOMIC_ACQUIRE); i++) {
		long n = i % 2 ? files_pread(run->files, 3, buf, 4096, 0)
			       : files_read(run->files, 3, buf, 4096);
		if (n == -EBADF) {
			__atomic_add_fetch(&run->ebadf, 1, __ATOMIC_RELAXED);
		} else if (n > 0 && (i % 2 == 0 || meminfo_whole(run, buf, n))) {
			/* read() may start mid-file (f_pos moved by an
			 * earlier read of this open): printable bytes then. */
			for (long j = 0; j < n; j++)
				if (buf[j] != '\n' && (buf[j] < 0x20 || buf[j] > 0x7e))
					bad(run);
			__atomic_add_fetch(&run->whole, 1, __ATOMIC_RELAXED);
		} else if (n != 0 || i % 2) { /* read at end of file gives 0 */
			bad(run);
		}
		test_crew_progress(w);
		cond_resched();
	}
	kfree(buf);
	return 0;
}

static void shared_close_races_read(struct kunit *test)
{
	static struct shared_run run;
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU");
	unsigned long slab_before = slab_objects_settled();
	shared_setup(test, &run);
	KUNIT_ASSERT_EQ(test, files_close(run.files, 3), 0);
	KUNIT_ASSERT_GT(test, run_on_every_cpu(test, &run, close_race_worker), 0);
	KUNIT_EXPECT_EQ(test, run.bad, 0);
	kunit_info(test, "reads: %lu found fd 3 closed, %lu got data", run.ebadf, run.whole);
	KUNIT_EXPECT_EQ(test, files_count(run.files), 3);
	KUNIT_EXPECT_FALSE(test, files_fd_is_open(run.files, 3));
	kunit_release_action(test, files_release_action, run.files);
	KUNIT_EXPECT_EQ(test, slab_objects_settled(), slab_before);
}

#define DIRFD_ROUNDS 300

/* Worker 0 opens the directory /proc and closes it, over and over (it gets
 * fd 3 unless a reader holds 3 for a moment); the others open "meminfo"
 * relative to fd 3 meanwhile, read what they opened and close it: each
 * open walks from the directory's path while the directory may be closed
 * (the walk holds a reference), and gives a new fd, -EBADF (fd 3 closed)
 * or -ENOTDIR (fd 3 is another reader's meminfo). Everything is freed. */
static int dirfd_worker(struct test_worker *w)
{
	struct shared_run *run = w->crew->ctx;
	test_crew_barrier(w);
	if (w->id == 0) {
		for (int i = 0; i < DIRFD_ROUNDS; i++) {
			int fd = files_open(run->files, AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY, 0);
			if (fd < 3)
				bad(run);
			test_crew_progress(w);
			cond_resched();
			if (fd >= 0 && files_close(run->files, (unsigned int)fd) != 0)
				bad(run);
		}
		__atomic_store_n(&run->done, 1, __ATOMIC_RELEASE);
		return 0;
	}
	char *buf = kmalloc(4096, GFP_KERNEL);
	if (!buf)
		bad(run);
	for (unsigned int i = 0; buf && !__atomic_load_n(&run->done, __ATOMIC_ACQUIRE); i++) {
		int fd = files_open(run->files, 3, "meminfo", O_RDONLY, 0);
		if (fd >= 0) {
			if (!meminfo_whole(run, buf, files_read(run->files, (unsigned int)fd, buf, 4096)))
				bad(run);
			if (files_close(run->files, (unsigned int)fd) != 0)
				bad(run);
			__atomic_add_fetch(&run->whole, 1, __ATOMIC_RELAXED);
		} else if (fd == -EBADF || fd == -ENOTDIR) {
			__atomic_add_fetch(&run->ebadf, 1, __ATOMIC_RELAXED);
		} else {
			bad(run);
		}
		test_crew_progress(w);
		cond_resched();
	}
	kfree(buf);
	return 0;
}

static void shared_openat_races_close(struct kunit *test)
{
	static struct shared_run run;
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU");
	unsigned long slab_before = slab_objects_settled();
	shared_setup(test, &run); /* the reference meminfo, then fd 3 closed */
	KUNIT_ASSERT_EQ(test, files_close(run.files, 3), 0);
	KUNIT_ASSERT_GT(test, run_on_every_cpu(test, &run, dirfd_worker), 0);
	KUNIT_EXPECT_EQ(test, run.bad, 0);
	kunit_info(test, "openat: %lu opened, %lu found no directory at fd 3", run.whole, run.ebadf);
	KUNIT_EXPECT_EQ(test, files_count(run.files), 3);
	kunit_release_action(test, files_release_action, run.files);
	KUNIT_EXPECT_EQ(test, slab_objects_settled(), slab_before);
}

#define EXE_READS 200 /* per reader */
#define EXE_LEN 60     /* of the 63 bytes kept */

/* Worker 0 sets the program's name again and again, alternately EXE_LEN
 * a's and b's after a '/', until the others have done EXE_READS readlinks
 * of /proc/self/exe each: each gets one whole name, never a mix. */
static int exe_worker(struct test_worker *w)
{
	struct shared_run *run = w->crew->ctx;
	char names[2][EXE_LEN + 2];
	for (int i = 0; i < 2; i++) {
		names[i][0] = '/';
		memset(names[i] + 1, 'a' + i, EXE_LEN);
		names[i][EXE_LEN + 1] = 0;
	}
	test_crew_barrier(w);
	if (w->id == 0) {
		unsigned long want = EXE_READS * (w->crew->n - 1);
		for (int i = 0; __atomic_load_n(&run->whole, __ATOMIC_RELAXED) < want; i++) {
			files_set_exe_path(run->files, names[i % 2]);
			if (i % 64 == 0) {
				test_crew_progress(w);
				cond_resched();
			}
		}
		__atomic_store_n(&run->done, 1, __ATOMIC_RELEASE);
		return 0;
	}
	char got[EXE_LEN + 8];
	for (unsigned int i = 0; !__atomic_load_n(&run->done, __ATOMIC_ACQUIRE); i++) {
		long n = files_readlinkat(run->files, AT_FDCWD, "/proc/self/exe", got, sizeof(got), false);
		if (n != EXE_LEN + 1 || got[0] != '/')
			bad(run);
		for (long j = 2; j < n; j++)
			if (got[j] != got[1])
				bad(run);
		__atomic_add_fetch(&run->whole, 1, __ATOMIC_RELAXED);
		if (i % 64 == 0) {
			test_crew_progress(w);
			cond_resched();
		}
	}
	return 0;
}

static void shared_exe_path(struct kunit *test)
{
	static struct shared_run run;
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU");
	memset(&run, 0, sizeof(run));
	run.files = new_files(test, "");
	char first[EXE_LEN + 2];
	first[0] = '/';
	memset(first + 1, 'a', EXE_LEN);
	first[EXE_LEN + 1] = 0;
	files_set_exe_path(run.files, first);
	KUNIT_ASSERT_GT(test, run_on_every_cpu(test, &run, exe_worker), 0);
	KUNIT_EXPECT_EQ(test, run.bad, 0);
	kunit_info(test, "%lu readlinks", run.whole);
}

#define CONSOLE_LINES 60
#define CONSOLE_WIDTH 300 /* more than console_write's 128-byte chunk */

/* Every worker writes lines of CONSOLE_WIDTH copies of its letter to fd 1
 * of the one table, each line in one write() (which console_write copies
 * in several chunks, rescheduling between them), and two lines in one
 * write now and then: every line comes out whole, and all of them. */
static int console_worker(struct test_worker *w)
{
	struct shared_run *run = w->crew->ctx;
	static char lines[NR_CPUS][2 * (CONSOLE_WIDTH + 1)];
	char *l = lines[w->id];
	char c = (char)('a' + w->id % 26);
	memset(l, c, sizeof(lines[0]));
	l[CONSOLE_WIDTH] = '\n';
	l[2 * CONSOLE_WIDTH + 1] = '\n';
	test_crew_barrier(w);
	for (int i = 0; i < CONSOLE_LINES; i += 1 + (i % 3 == 0)) {
		size_t len = i % 3 == 0 ? 2 * (CONSOLE_WIDTH + 1) : CONSOLE_WIDTH + 1;
		if (files_write(run->files, 1, l, len) != (long)len)
			bad(run);
	}
	return 0;
}

/* Runs worker on every CPU with run's table writing CONSOLE_LINES lines of
 * CONSOLE_WIDTH copies of its letter each, and checks that every line came
 * out whole, and all of them. */
static void console_case(struct kunit *test, struct shared_run *run, int (*worker)(struct test_worker *w))
{
	struct printk_capture cap;
	/* Room for every line and the case's other messages. */
	size_t size = num_online_cpus() * CONSOLE_LINES * (CONSOLE_WIDTH + 8) + 4096;
	char *shared_capture = kmalloc(size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, shared_capture);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kfree_action, shared_capture), 0);
	printk_capture_begin(&cap, shared_capture, size);
	unsigned int n = run_on_every_cpu(test, run, worker);
	printk_capture_end(&cap);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_LT(test, cap.len, size - 1); /* nothing cut */
	KUNIT_EXPECT_EQ(test, run->bad, 0);
	unsigned int lines = 0, per[26] = { 0 }, want[26] = { 0 };
	for (unsigned int i = 0; i < n; i++)
		want[i % 26] += CONSOLE_LINES;
	for (const char *l = shared_capture; (l = strstr(l, "<T>")) != NULL; lines++) {
		const char *end = strchr(l, '\n');
		KUNIT_ASSERT_NOT_NULL(test, end);
		l += 3;
		bool pure = end - l == CONSOLE_WIDTH && *l >= 'a' && *l < 'a' + 26;
		for (const char *p = l; pure && p < end; p++)
			pure = *p == *l;
		KUNIT_EXPECT_TRUE(test, pure);
		if (pure)
			per[*l - 'a']++;
		l = end;
	}
	KUNIT_EXPECT_EQ(test, lines, n * CONSOLE_LINES);
	for (unsigned int i = 0; i < 26; i++)
		KUNIT_EXPECT_EQ(test, per[i], want[i]);
	/* The last line kept (cut to its 127 bytes) is one whole line too. */
	const char *last = files_last_console_line(run->files);
	KUNIT_EXPECT_EQ(test, strlen(last), CONSOLE_LAST_LINE_MAX - 1);
	for (const char *p = last; *p; p++)
		KUNIT_EXPECT_EQ(test, *p, last[0]);
}

static void shared_console_lines(struct kunit *test)
{
	static struct shared_run run;
	memset(&run, 0, sizeof(run));
	run.files = new_files(test, "<T>");
	console_case(test, &run, console_worker);
}

/* ---- the system calls, on an mm of the case's own ---- */

#define UBASE 0x0000300000000000ul

/* A new mm with 16 pages at UBASE and a new file table, current until the
 * case ends (tests/test_mm.h). */
static void enter_space(struct kunit *test)
{
	test_mm_enter_space(test, UBASE, 16);
}

static long sys(unsigned long nr, unsigned long a0, unsigned long a1, unsigned long a2)
{
	const unsigned long args[6] = { a0, a1, a2, 0, 0, 0 };
	return do_syscall_64(nr, args);
}

#define UNMAPPED 0x1000ul /* below mmap_min_addr: never mapped */

static void file_syscalls(struct kunit *test)
{
	enter_space(test);
	char *path = (char *)UBASE, *buf = (char *)(UBASE + PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, copy_to_user(path, "/proc/meminfo", 14), 0);
	long fd = sys(__NR_open, UBASE, O_RDONLY, 0);
	KUNIT_ASSERT_EQ(test, fd, 3);
	KUNIT_EXPECT_EQ(test, sys(__NR_read, fd, UBASE + PAGE_SIZE, 9), 9);
	char got[10] = { 0 };
	KUNIT_EXPECT_EQ(test, copy_from_user(got, buf, 9), 0);
	KUNIT_EXPECT_STREQ(test, got, "MemTotal:");
	KUNIT_EXPECT_EQ(test, sys(__NR_read, fd, UNMAPPED, 9), -EFAULT);
	KUNIT_EXPECT_EQ(test, sys(__NR_read, fd, 0xffff888000000000ul, 9), -EFAULT); /* kernel */
	KUNIT_EXPECT_EQ(test, sys(__NR_write, 1, UNMAPPED, 3), -EFAULT);
	KUNIT_EXPECT_EQ(test, sys(__NR_open, UNMAPPED, O_RDONLY, 0), -EFAULT);
	/* A path with no NUL within PATH_MAX bytes. */
	KUNIT_EXPECT_EQ(test, clear_user(buf, PATH_MAX), 0);
	char a[256];
	memset(a, 'a', sizeof(a));
	for (unsigned long off = 0; off < PATH_MAX; off += sizeof(a))
		KUNIT_ASSERT_EQ(test, copy_to_user(buf + off, a, sizeof(a)), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_open, (unsigned long)buf, O_RDONLY, 0), -ENAMETOOLONG);
	const unsigned long at[6] = { (unsigned long)AT_FDCWD, UBASE, O_RDONLY, 0, 0, 0 };
	KUNIT_EXPECT_EQ(test, do_syscall_64(__NR_openat, at), 4);
	KUNIT_EXPECT_EQ(test, sys(__NR_lseek, fd, 3, SEEK_SET), 3);
	KUNIT_EXPECT_EQ(test, sys(__NR_close, fd, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_close, fd, 0, 0), -EBADF);
	const unsigned long pr[6] = { 4, UBASE + PAGE_SIZE, 3, 0, 0, 0 };
	KUNIT_EXPECT_EQ(test, do_syscall_64(__NR_pread64, pr), 3);
	KUNIT_EXPECT_EQ(test, sys(__NR_fstat, 4, UBASE + 2 * PAGE_SIZE, 0), 0);
	unsigned int mode;
	KUNIT_EXPECT_EQ(test, copy_from_user(&mode, (char *)UBASE + 2 * PAGE_SIZE + 24, 4), 0);
	KUNIT_EXPECT_EQ(test, mode, 0100444);
	KUNIT_EXPECT_EQ(test, sys(__NR_fstat, 4, UNMAPPED, 0), -EFAULT);
}

static void small_syscalls(struct kunit *test)
{
	enter_space(test);
	struct __kernel_timespec ts, *uts = (void *)UBASE;
	int own = current->pid; /* the runner's id (a kernel thread's), restored below */
	current->pid = 77;
	long pid = sys(__NR_getpid, 0, 0, 0), tid = sys(__NR_gettid, 0, 0, 0);
	current->pid = own;
	KUNIT_EXPECT_EQ(test, pid, 77);
	KUNIT_EXPECT_EQ(test, tid, 77);
	KUNIT_EXPECT_EQ(test, sys(__NR_sched_yield, 0, 0, 0), 0);
	u64 before = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, sys(__NR_clock_gettime, CLOCK_MONOTONIC, UBASE, 0), 0);
	KUNIT_EXPECT_EQ(test, copy_from_user(&ts, uts, sizeof(ts)), 0);
	u64 t = (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
	KUNIT_EXPECT_TRUE(test, t >= before && t <= ktime_get_ns());
	KUNIT_EXPECT_LT(test, ts.tv_nsec, 1000000000);
	KUNIT_EXPECT_EQ(test, sys(__NR_clock_gettime, CLOCK_BOOTTIME, UBASE, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_clock_gettime, CLOCK_REALTIME, UBASE, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_clock_gettime, 99, UBASE, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_clock_gettime, CLOCK_MONOTONIC, UNMAPPED, 0), -EFAULT);

	/* nanosleep: 25 ms is at least 25 ms (3 ticks), rem untouched. */
	struct __kernel_timespec req = { 0, 25000000 }, rem = { 7, 7 };
	KUNIT_ASSERT_EQ(test, copy_to_user(uts, &req, sizeof(req)), 0);
	KUNIT_ASSERT_EQ(test, copy_to_user(uts + 1, &rem, sizeof(rem)), 0);
	before = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, sys(__NR_nanosleep, UBASE, UBASE + sizeof(ts), 0), 0);
	KUNIT_EXPECT_GE(test, ktime_get_ns() - before, 25000000);
	KUNIT_EXPECT_EQ(test, copy_from_user(&rem, uts + 1, sizeof(rem)), 0);
	KUNIT_EXPECT_EQ(test, rem.tv_sec + rem.tv_nsec, 14);
	KUNIT_EXPECT_EQ(test, sys(__NR_nanosleep, UNMAPPED, 0, 0), -EFAULT);
	static const struct __kernel_timespec bad[] = { { 0, 1000000000 }, { 0, -1 }, { -1, 0 } };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_ASSERT_EQ(test, copy_to_user(uts, &bad[i], sizeof(bad[i])), 0);
		KUNIT_EXPECT_EQ(test, sys(__NR_nanosleep, UBASE, 0, 0), -EINVAL);
	}

	char u[6 * 65];
	KUNIT_EXPECT_EQ(test, sys(__NR_uname, UBASE, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, copy_from_user(u, uts, sizeof(u)), 0);
	KUNIT_EXPECT_STREQ(test, u, "mmlab");
	KUNIT_EXPECT_STREQ(test, u + 4 * 65, "x86_64");
	KUNIT_EXPECT_EQ(test, sys(__NR_uname, UNMAPPED, 0, 0), -EFAULT);
}

/* writev(2) to the console by a kernel thread on every CPU, all on one mm
 * (kthread_use_mm) and one table: each line is one writev of three
 * segments (as a libc's printf sends its buffer and the rest), and the
 * segments of one call stay together (tty_write_lock over the whole
 * call), so every line is whole. */
static int writev_worker(struct test_worker *w)
{
	struct shared_run *run = w->crew->ctx;
	struct files_struct *own = current->files;
	unsigned long page = UBASE + w->id * PAGE_SIZE;
	unsigned long iov[3][2];
	char text[CONSOLE_WIDTH + 1];
	memset(text, 'a' + (int)(w->id % 26), CONSOLE_WIDTH);
	text[CONSOLE_WIDTH] = '\n';
	for (int i = 0; i < 3; i++) {
		iov[i][0] = page + 64 + (unsigned long)i * (CONSOLE_WIDTH / 3);
		iov[i][1] = CONSOLE_WIDTH / 3 + (i == 2);
	}
	kthread_use_mm(run->mm);
	current->files = run->files;
	if (copy_to_user((void __user *)page, iov, sizeof(iov)) ||
	    copy_to_user((void __user *)(page + 64), text, sizeof(text)))
		bad(run);
	test_crew_barrier(w);
	for (int i = 0; i < CONSOLE_LINES; i++)
		if (sys(__NR_writev, 1, page, 3) != CONSOLE_WIDTH + 1)
			bad(run);
	current->files = own;
	kthread_unuse_mm(run->mm);
	return 0;
}

static void shared_console_writev(struct kunit *test)
{
	static struct shared_run run;
	memset(&run, 0, sizeof(run));
	run.mm = test_mm_create(test, 0);
	test_mm_map_anon(test, run.mm, UBASE, num_online_cpus() * PAGE_SIZE);
	run.files = new_files(test, "<T>");
	console_case(test, &run, writev_worker);
}

static struct kunit_case file_cases[] = {
	KUNIT_CASE(fd_lowest_first),
	KUNIT_CASE(bad_descriptors),
	KUNIT_CASE(open_errors),
	KUNIT_CASE(read_and_seek),
	KUNIT_CASE(close_frees_snapshot),
	KUNIT_CASE(console_lines),
	KUNIT_CASE(console_never_interleaves),
	KUNIT_CASE(shared_pread_snapshots),
	KUNIT_CASE(shared_read_pos),
	KUNIT_CASE(shared_close_races_read),
	KUNIT_CASE(shared_openat_races_close),
	KUNIT_CASE(shared_exe_path),
	KUNIT_CASE(shared_console_lines),
	KUNIT_CASE(shared_console_writev),
	KUNIT_CASE(file_syscalls),
	KUNIT_CASE(small_syscalls),
	{},
};

static struct kunit_suite file_suite = {
	.name = "file",
	.test_cases = file_cases,
};
kunit_test_suite(file_suite);
