/* Kernel threads in /proc, as ps and top find them: getdents64 of /proc
 * lists them beside the processes; kthreadd is 2 (parent 0) and every
 * other kernel thread its child (PPid 2). A kernel thread's files read as
 * Linux's for a task without an mm: stat has PF_KTHREAD in its flags,
 * process group and session 0, no sizes nor code bounds; status has no
 * Vm lines (and "Kthread: 1" where the kernel has the line: Linux 6.4 and
 * later, and mmlab); statm is zeros; cmdline, maps and smaps are empty
 * (ps shows the name in brackets for that); exe is no link (ENOENT);
 * task/ holds the thread itself; fd/ and fdinfo/ are empty, cwd and root
 * "/"; process_vm_readv finds no memory (ESRCH); getpgid and getsid
 * give 0; smaps_rollup is ESRCH (no mm). kthreadd ignores every
 * signal: kill of it succeeds, SIGKILL and SIGSTOP included, and it
 * sleeps on, as Linux's (ignore_signals).
 *
 * In a pid namespace of its own (a container), Linux shows no kernel
 * thread at all: the program then skips. mmlab always has them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "check.h"

#define PF_KTHREAD 0x00200000ul
#define MAX_IDS 4096

static char buf[65536];

/* The ids getdents64 of /proc lists, in its order; the count. */
static int list_proc(int *ids, int max)
{
	DIR *d = opendir("/proc");
	int n = 0;
	struct dirent *e;
	if (!d)
		return -1;
	while ((e = readdir(d)) && n < max)
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
			ids[n++] = atoi(e->d_name);
	closedir(d);
	return n;
}

/* Field nr (1-based, as proc(5) numbers them) of /proc/<id>/stat, into
 * *out; false if it could not be read. The name, field 2, may hold
 * spaces: the fields after it start after the last ')'. */
static bool stat_field(int id, int nr, unsigned long *out)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", id);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	char *p = strrchr(buf, ')');
	if (!p || nr < 3)
		return false;
	p += 2; /* field 3, the state */
	for (int i = 3; i < nr && p; i++)
		p = strchr(p, ' '), p = p ? p + 1 : NULL;
	if (!p)
		return false;
	*out = nr == 3 ? (unsigned long)(unsigned char)*p : strtoul(p, NULL, 10);
	return true;
}

static bool is_kthread(int id)
{
	unsigned long flags;
	return stat_field(id, 9, &flags) && (flags & PF_KTHREAD);
}

static long file_len(int id, const char *name)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", id, name);
	return read_file(path, buf, sizeof(buf));
}

/* The names in /proc/<id>/<dir> other than "." and "..", and the first. */
static int dir_entries(int id, const char *dir, char *first, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", id, dir);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && n++ == 0)
			snprintf(first, size, "%.31s", e->d_name);
	closedir(d);
	return n;
}

/* Checks the files of kernel thread id, whose parent is ppid. */
static void check_kthread_files(int id, long ppid)
{
	char path[64], want[64];
	unsigned long v;
	printf("kernel thread %d, parent %ld\n", id, ppid);
	CHECK(stat_field(id, 4, &v) && (long)v == ppid);
	CHECK(stat_field(id, 5, &v) && v == 0); /* process group */
	CHECK(stat_field(id, 6, &v) && v == 0); /* session */
	CHECK(stat_field(id, 23, &v) && v == 0); /* vsize */
	CHECK(stat_field(id, 24, &v) && v == 0); /* rss */
	CHECK(stat_field(id, 26, &v) && v == 0); /* startcode */
	CHECK(stat_field(id, 27, &v) && v == 0); /* endcode */
	CHECK(stat_field(id, 28, &v) && v == 0); /* startstack */

	snprintf(path, sizeof(path), "/proc/%d/status", id);
	CHECK(read_file(path, buf, sizeof(buf)) > 0);
	CHECK_CMP(field_after(buf, "PPid:"), ==, ppid);
	CHECK_CMP(field_after(buf, "Pid:"), ==, id);
	CHECK_CMP(field_after(buf, "Tgid:"), ==, id);
	CHECK_CMP(field_after(buf, "Threads:"), ==, 1);
	CHECK(!strstr(buf, "\nVmRSS:") && !strstr(buf, "\nVmSize:"));
	if (strstr(buf, "\nKthread:") || on_mmlab())
		CHECK_CMP(field_after(buf, "Kthread:"), ==, 1);
	else
		check_skip("no Kthread: line in status (Linux before 6.4)");
	char name[64] = "";
	char *l = strstr(buf, "Name:\t");
	if (l)
		sscanf(l + 6, "%63[^\n]", name);
	CHECK(name[0]);

	snprintf(path, sizeof(path), "/proc/%d/comm", id);
	snprintf(want, sizeof(want), "%s\n", name);
	CHECK(read_file(path, buf, sizeof(buf)) > 0 && !strcmp(buf, want));
	snprintf(path, sizeof(path), "/proc/%d/statm", id);
	CHECK(read_file(path, buf, sizeof(buf)) > 0 && !strcmp(buf, "0 0 0 0 0 0 0\n"));
	CHECK_CMP(file_len(id, "cmdline"), ==, 0);
	CHECK_CMP(file_len(id, "maps"), ==, 0);
	CHECK_CMP(file_len(id, "smaps"), ==, 0);
	snprintf(path, sizeof(path), "/proc/%d/exe", id);
	CHECK_ERRNO(readlink(path, buf, sizeof(buf)), ENOENT);
	char first[32] = "";
	snprintf(want, sizeof(want), "%d", id);
	CHECK_CMP(dir_entries(id, "task", first, sizeof(first)), ==, 1);
	CHECK(!strcmp(first, want));
}

int main(void)
{
	static int ids[MAX_IDS];
	test_begin("proc_kthreads");
	int n = list_proc(ids, MAX_IDS);
	CHECK_CMP(n, >, 0);
	int kthreads = 0, child = 0;
	bool kthreadd = false, increasing = true;
	for (int i = 0; i < n; i++) {
		if (i && ids[i] <= ids[i - 1])
			increasing = false;
		if (!is_kthread(ids[i]))
			continue;
		kthreads++;
		unsigned long ppid;
		if (ids[i] == 2)
			kthreadd = true;
		else if (!child && stat_field(ids[i], 4, &ppid) && ppid == 2)
			child = ids[i];
	}
	CHECK(increasing);
	printf("%d of %d listed are kernel threads\n", kthreads, n);
	if (!kthreads && !on_mmlab())
		test_skip("no kernel thread in this pid namespace");
	CHECK(kthreadd);
	CHECK(child > 2);
	if (!kthreadd || !child)
		return test_end();
	check_kthread_files(2, 0);
	check_kthread_files(child, 2);

	/* kthreadd's files: no open file, "/" as its root and working
	 * directory; no memory for process_vm_readv (ESRCH: mm_access finds
	 * none); every signal ignored. */
	char first[32];
	CHECK_CMP(dir_entries(2, "fd", first, sizeof(first)), ==, 0);
	CHECK_CMP(dir_entries(2, "fdinfo", first, sizeof(first)), ==, 0);
	long len = readlink("/proc/2/cwd", buf, sizeof(buf) - 1);
	CHECK(len == 1 && buf[0] == '/');
	len = readlink("/proc/2/root", buf, sizeof(buf) - 1);
	CHECK(len == 1 && buf[0] == '/');
	char local[8], remote_byte;
	struct iovec l_iov = { local, 1 }, r_iov = { &remote_byte, 1 };
	CHECK_ERRNO(process_vm_readv(2, &l_iov, 1, &r_iov, 1, 0), ESRCH);
	/* smaps_rollup needs an mm: ESRCH, from the read in Linux 6.1, from
	 * the open in later Linux and in mmlab. */
	int fd = open("/proc/2/smaps_rollup", O_RDONLY);
	long got = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	CHECKF(got < 0 && errno == ESRCH, "smaps_rollup: %ld, %s", got, errno_name(errno));
	if (fd >= 0)
		close(fd);
	CHECK_CMP(getpgid(2), ==, 0);
	CHECK_CMP(getsid(2), ==, 0);
	CHECK(read_file("/proc/2/status", buf, sizeof(buf)) > 0);
	CHECK(strstr(buf, "\nSigIgn:\tffffffffffffffff\n"));
	static const int sigs[] = { 0, SIGTERM, SIGKILL, SIGSTOP, SIGCONT };
	for (unsigned int i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		CHECK_CMP(kill(2, sigs[i]), ==, 0);
	usleep(10000);
	unsigned long state = 0;
	CHECK(stat_field(2, 3, &state));
	CHECKF(state == 'S' || state == 'R' || state == 'I', "kthreadd's state after the signals: %c", (int)state);
	CHECK(is_kthread(2));
	return test_end();
}
