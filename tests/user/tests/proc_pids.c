/* /proc/<pid> of other processes: two forked children are found in
 * getdents64 of /proc (in increasing order, "self" beside them), their
 * cmdline, environ, comm, status, stat, maps, exe, fd/ and fdinfo/ are
 * theirs (not the reader's); a child that has ended but is not reaped is
 * a zombie ("State: Z (zombie)", empty maps and cmdline, smaps_rollup
 * ESRCH, no exe nor cwd, still listed); once reaped its /proc entry is gone (ENOENT), and files
 * opened on it before read -ESRCH, as Linux's (status, maps). A thread's
 * id is found but not listed; /proc/self/task lists it, with its own stat
 * and comm. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define CHILD_FD 42
#define CHILD_PAGES 7

/* Shared with the children: each says it is ready (and where its own
 * mapping is), and waits until told to end. */
struct shared {
	volatile int ready[2];
	volatile unsigned long map[2];
	volatile int go[2];
	volatile int getfl[2]; /* fcntl(CHILD_FD, F_GETFL) in the child */
};

static struct shared *sh;
static char text[65536], other[65536];

static void nap(void)
{
	struct timespec ts = { 0, 1000000 };
	nanosleep(&ts, NULL);
}

static void child(int i)
{
	/* Its own: a mapping of CHILD_PAGES pages and descriptor CHILD_FD. */
	char *p = mmap(NULL, CHILD_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(10);
	p[0] = 1;
	int fd = open("/", O_RDONLY | O_DIRECTORY);
	if (fd < 0 || dup2(fd, CHILD_FD) != CHILD_FD)
		_exit(11);
	sh->getfl[i] = fcntl(CHILD_FD, F_GETFL);
	sh->map[i] = (unsigned long)p;
	__atomic_store_n(&sh->ready[i], 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&sh->go[i], __ATOMIC_ACQUIRE))
		nap();
	_exit(3 + i);
}

/* The numeric names of /proc, in the order getdents64 gives them; whether
 * "self" was among them. */
static int list_pids(int *pids, int max, bool *self)
{
	int fd = open("/proc", O_RDONLY | O_DIRECTORY);
	if (!CHECK(fd >= 0))
		return 0;
	int n = 0;
	*self = false;
	char buf[4096];
	long got;
	while ((got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			if (!strcmp(d->d_name, "self"))
				*self = true;
			else if (d->d_name[0] >= '1' && d->d_name[0] <= '9' && n < max)
				pids[n++] = atoi(d->d_name);
			off += d->d_reclen;
		}
	}
	CHECK(got == 0);
	close(fd);
	return n;
}

static bool listed(const int *pids, int n, int pid)
{
	for (int i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

static long read_pid_file(int pid, const char *name, char *buf, size_t size)
{
	char path[128];
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	return read_file(path, buf, size);
}

/* A whole file with its NULs (cmdline): the bytes read, or -errno. */
static long read_raw(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	long total = 0, got;
	while ((got = read(fd, buf + total, size - (size_t)total)) > 0)
		total += got;
	close(fd);
	return got < 0 ? -errno : total;
}

static void check_listing(const pid_t *kids)
{
	int pids[1024];
	bool self;
	int n = list_pids(pids, 1024, &self);
	CHECK(self);
	CHECK(listed(pids, n, getpid()));
	CHECK(listed(pids, n, kids[0]));
	CHECK(listed(pids, n, kids[1]));
	bool increasing = true;
	for (int i = 1; i < n; i++)
		increasing = increasing && pids[i - 1] < pids[i];
	CHECKF(increasing, "the %d pids of /proc come in increasing order", n);
}

static void check_child_files(pid_t kid, int i)
{
	char path[64];
	/* cmdline: a fork's is its parent's (the same argument strings). */
	long mine = read_raw("/proc/self/cmdline", text, sizeof(text));
	long its = read_raw((snprintf(path, sizeof(path), "/proc/%d/cmdline", kid), path), other, sizeof(other));
	CHECK_CMP(mine, >, 0);
	CHECK_CMP(its, ==, mine);
	CHECK(its == mine && !memcmp(text, other, (size_t)mine));
	CHECK(mine > 0 && text[mine - 1] == 0);

	/* environ: a fork's is its parent's too. */
	mine = read_raw("/proc/self/environ", text, sizeof(text));
	its = read_raw((snprintf(path, sizeof(path), "/proc/%d/environ", kid), path), other, sizeof(other));
	CHECK_CMP(mine, >=, 0);
	CHECK_CMP(its, ==, mine);
	CHECK(its == mine && !memcmp(text, other, (size_t)(mine > 0 ? mine : 0)));

	/* comm: the parent's name, inherited. */
	char comm[64], kcomm[64];
	CHECK(read_file("/proc/self/comm", comm, sizeof(comm)) > 0);
	CHECK(read_pid_file(kid, "comm", kcomm, sizeof(kcomm)) > 0);
	CHECK(!strcmp(comm, kcomm));

	/* status: its own ids, its parent us, not a zombie. */
	CHECK(read_pid_file(kid, "status", text, sizeof(text)) > 0);
	CHECK_CMP(field_after(text, "Pid:"), ==, kid);
	CHECK_CMP(field_after(text, "Tgid:"), ==, kid);
	CHECK_CMP(field_after(text, "PPid:"), ==, getpid());
	CHECK(strstr(text, "\nState:\tZ") == NULL);
	CHECK(strstr(text, "\nVmRSS:") != NULL);

	/* stat: "pid (comm) state ppid ...". */
	CHECK(read_pid_file(kid, "stat", text, sizeof(text)) > 0);
	char want[96];
	int len = snprintf(want, sizeof(want), "%d (%.*s) ", kid, (int)strcspn(comm, "\n"), comm);
	CHECKF(!strncmp(text, want, (size_t)len), "stat starts with \"%s\"", want);
	char *rp = strrchr(text, ')');
	char state = 0;
	int ppid = 0;
	CHECK(rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2);
	CHECK(state != 'Z');
	CHECK_CMP(ppid, ==, getpid());

	/* maps: the child's own mapping (not ours: we never made it). */
	CHECK(read_pid_file(kid, "maps", text, sizeof(text)) > 0);
	snprintf(want, sizeof(want), "%lx-%lx rw-p ", sh->map[i], sh->map[i] + CHILD_PAGES * 4096);
	CHECKF(strstr(text, want) != NULL, "its maps has \"%s\"", want);

	/* exe: the same program; fd/<CHILD_FD>: its descriptor, which we lack. */
	char exe[256], kexe[256];
	long a = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	snprintf(path, sizeof(path), "/proc/%d/exe", kid);
	long b = readlink(path, kexe, sizeof(kexe) - 1);
	CHECK(a > 0 && a == b && !memcmp(exe, kexe, (size_t)a));
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", kid, CHILD_FD);
	char target[64];
	long t = readlink(path, target, sizeof(target) - 1);
	CHECK(t == 1 && target[0] == '/');
	snprintf(path, sizeof(path), "/proc/self/fd/%d", CHILD_FD);
	CHECK_ERRNO(readlink(path, target, sizeof(target)), ENOENT);

	/* fdinfo: the child's descriptor on "/" (its flags as F_GETFL gave
	 * them, no O_CLOEXEC after dup2) on the mount and inode of ours. */
	int mine_fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat root;
	CHECK(mine_fd >= 0 && fstat(mine_fd, &root) == 0);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", mine_fd);
	CHECK(read_file(path, other, sizeof(other)) > 0);
	char name[32];
	snprintf(name, sizeof(name), "fdinfo/%d", CHILD_FD);
	CHECK(read_pid_file(kid, name, text, sizeof(text)) > 0);
	CHECK_CMP(field_after(text, "pos:"), ==, 0);
	char *fl = strstr(text, "\nflags:\t");
	CHECK(fl && strtol(fl + 8, NULL, 8) == sh->getfl[i]);
	fl = strstr(other, "\nflags:\t");
	CHECK(fl && (strtol(fl + 8, NULL, 8) & O_CLOEXEC));
	CHECK_CMP(field_after(text, "mnt_id:"), ==, field_after(other, "mnt_id:"));
	CHECK_CMP(field_after(text, "ino:"), ==, (long)root.st_ino);
	close(mine_fd);
}

static volatile int thread_tid, thread_done;

static void *thread_fn(void *arg)
{
	(void)arg;
	__atomic_store_n(&thread_tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&thread_done, __ATOMIC_ACQUIRE))
		nap();
	return NULL;
}

/* A thread's id: found by lookup (its own Pid, the process's Tgid), not
 * listed in /proc; listed in /proc/<pid>/task with its own files. */
static void check_thread(void)
{
	pthread_t th;
	if (!CHECK(pthread_create(&th, NULL, thread_fn, NULL) == 0))
		return;
	int tid;
	while (!(tid = __atomic_load_n(&thread_tid, __ATOMIC_ACQUIRE)))
		nap();
	CHECK(tid != getpid());
	char path[64];
	struct stat sb;
	snprintf(path, sizeof(path), "/proc/%d", tid);
	CHECK(stat(path, &sb) == 0 && S_ISDIR(sb.st_mode));
	CHECK(read_pid_file(tid, "status", text, sizeof(text)) > 0);
	CHECK_CMP(field_after(text, "Pid:"), ==, tid);
	CHECK_CMP(field_after(text, "Tgid:"), ==, getpid());
	int pids[1024];
	bool self;
	int n = list_pids(pids, 1024, &self);
	CHECK(listed(pids, n, getpid()));
	CHECKF(!listed(pids, n, tid), "thread %d is not listed in /proc", tid);

	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY);
	bool saw_leader = false, saw_thread = false;
	char buf[4096];
	long got;
	while (fd >= 0 && (got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < got; off += ((struct dirent64 *)(buf + off))->d_reclen) {
			int id = atoi(((struct dirent64 *)(buf + off))->d_name);
			saw_leader |= id == getpid();
			saw_thread |= id == tid;
		}
	if (fd >= 0)
		close(fd);
	CHECK(fd >= 0 && saw_leader && saw_thread);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	CHECK(read_file(path, text, sizeof(text)) > 0);
	CHECK_CMP(atoi(text), ==, tid);
	char comm[64], tcomm[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
	CHECK(read_file("/proc/self/comm", comm, sizeof(comm)) > 0 && read_file(path, tcomm, sizeof(tcomm)) > 0);
	CHECK(!strcmp(comm, tcomm));

	__atomic_store_n(&thread_done, 1, __ATOMIC_RELEASE);
	CHECK(pthread_join(th, NULL) == 0);
	/* The join returns when the thread's exit clears its tid word,
	 * before Linux releases it (exit_mm, then exit_notify): its entry
	 * goes soon after. The bound is only a hang guard. */
	snprintf(path, sizeof(path), "/proc/self/task/%d", tid);
	for (int i = 0; i < 10000 && stat(path, &sb) == 0; i++)
		nap();
	CHECK_ERRNO(stat(path, &sb), ENOENT);
}

int main(void)
{
	test_begin("proc_pids");
	sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(sh != MAP_FAILED))
		return test_end();
	pid_t kids[2];
	for (int i = 0; i < 2; i++) {
		kids[i] = fork();
		if (kids[i] == 0)
			child(i);
		if (!CHECK(kids[i] > 0))
			return test_end();
	}
	for (int i = 0; i < 2; i++)
		while (!__atomic_load_n(&sh->ready[i], __ATOMIC_ACQUIRE))
			nap();

	check_listing(kids);
	for (int i = 0; i < 2; i++)
		check_child_files(kids[i], i);
	check_thread();

	/* Files opened on the second child before it ends and is reaped. */
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", kids[1]);
	int status_fd = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "/proc/%d/maps", kids[1]);
	int maps_fd = open(path, O_RDONLY);
	CHECK(status_fd >= 0 && maps_fd >= 0);

	/* The first child ends: a zombie until reaped. */
	__atomic_store_n(&sh->go[0], 1, __ATOMIC_RELEASE);
	siginfo_t si;
	CHECK(waitid(P_PID, (id_t)kids[0], &si, WEXITED | WNOWAIT) == 0);
	CHECK(read_pid_file(kids[0], "status", text, sizeof(text)) > 0);
	CHECKF(strstr(text, "\nState:\tZ (zombie)\n") != NULL, "a zombie's status says State: Z (zombie)");
	CHECK(strstr(text, "\nVmRSS:") == NULL); /* no mm: no task_mem() */
	CHECK(read_pid_file(kids[0], "stat", text, sizeof(text)) > 0);
	char *rp = strrchr(text, ')');
	CHECK(rp && rp[1] == ' ' && rp[2] == 'Z');
	snprintf(path, sizeof(path), "/proc/%d/maps", kids[0]);
	CHECK_CMP(read_raw(path, text, sizeof(text)), ==, 0);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", kids[0]);
	CHECK_CMP(read_raw(path, text, sizeof(text)), ==, 0);
	/* No mm: ESRCH (Linux 6.1's read, later Linux's and mmlab's open). */
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", kids[0]);
	CHECK_CMP(read_raw(path, text, sizeof(text)), ==, -ESRCH);
	char link[256];
	snprintf(path, sizeof(path), "/proc/%d/exe", kids[0]);
	CHECK_ERRNO(readlink(path, link, sizeof(link)), ENOENT);
	snprintf(path, sizeof(path), "/proc/%d/cwd", kids[0]);
	CHECK_ERRNO(readlink(path, link, sizeof(link)), ENOENT);
	check_listing(kids); /* still listed */

	/* Reaped: gone from /proc. */
	int st;
	CHECK(waitpid(kids[0], &st, 0) == kids[0] && WIFEXITED(st) && WEXITSTATUS(st) == 3);
	snprintf(path, sizeof(path), "/proc/%d", kids[0]);
	struct stat sb;
	CHECK_ERRNO(stat(path, &sb), ENOENT);
	snprintf(path, sizeof(path), "/proc/%d/status", kids[0]);
	CHECK_ERRNO(open(path, O_RDONLY), ENOENT);

	/* The second ends and is reaped while its files are open. */
	__atomic_store_n(&sh->go[1], 1, __ATOMIC_RELEASE);
	CHECK(waitpid(kids[1], &st, 0) == kids[1] && WIFEXITED(st) && WEXITSTATUS(st) == 4);
	CHECK_ERRNO(pread(status_fd, text, sizeof(text), 0), ESRCH);
	CHECK_ERRNO(pread(maps_fd, text, sizeof(text), 0), ESRCH);
	close(status_fd);
	close(maps_fd);
	int pids[1024];
	bool self;
	int n = list_pids(pids, 1024, &self);
	CHECK(!listed(pids, n, kids[0]) && !listed(pids, n, kids[1]));
	return test_end();
}
