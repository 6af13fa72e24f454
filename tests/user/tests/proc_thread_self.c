/* /proc/thread-self and writes to comm, held beside Linux's:
 * readlink("/proc/thread-self") is "<tgid>/task/<tid>" of the calling
 * thread, in the main thread and in another; files read through it are
 * that thread's (comm, stat's first field); /proc lists "thread-self"
 * beside "self". /proc/<pid>/comm takes a write from the process itself
 * (the first 15 bytes, raw, read back with a newline, and PR_GET_NAME
 * agrees), task/<tid>/comm renames that thread only, and prctl(PR_SET_NAME)
 * shows in comm; another process's comm is EINVAL to write. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int main_tid;

static int gettid_(void) { return (int)syscall(SYS_gettid); }

/* readlink("/proc/thread-self") is "<pid>/task/<tid>"; a file through it
 * is this thread's. */
static void check_thread_self(const char *who)
{
	char link[64] = { 0 }, want[64];
	snprintf(want, sizeof(want), "%d/task/%d", (int)getpid(), gettid_());
	long n = readlink("/proc/thread-self", link, sizeof(link) - 1);
	CHECKF(n == (long)strlen(want) && !strcmp(link, want), "%s: readlink(/proc/thread-self) \"%s\", expected \"%s\"",
	       who, link, want);
	char stat[512];
	CHECK(read_file("/proc/thread-self/stat", stat, sizeof(stat)) > 0);
	CHECKF(atoi(stat) == gettid_(), "%s: /proc/thread-self/stat starts with %d, expected %d", who, atoi(stat),
	       gettid_());
	char comm[32], name[16] = { 0 };
	CHECK(prctl(PR_GET_NAME, name, 0, 0, 0) == 0);
	CHECK(read_file("/proc/thread-self/comm", comm, sizeof(comm)) > 0);
	CHECKF(!strncmp(comm, name, strlen(name)) && comm[strlen(name)] == '\n',
	       "%s: /proc/thread-self/comm \"%.*s\", thread name \"%s\"", who, (int)strcspn(comm, "\n"), comm,
	       name);
}

static void *thread_main(void *arg)
{
	(void)arg;
	CHECK(prctl(PR_SET_NAME, "worker", 0, 0, 0) == 0);
	check_thread_self("thread");
	/* Renaming this thread through its task/<tid>/comm leaves the
	 * process's (the main thread's) name alone. */
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", gettid_());
	int fd = open(path, O_WRONLY);
	CHECK(fd >= 0);
	CHECK_CMP(write(fd, "w2", 2), ==, 2);
	close(fd);
	char name[16] = { 0 };
	CHECK(prctl(PR_GET_NAME, name, 0, 0, 0) == 0 && !strcmp(name, "w2"));
	char comm[32];
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", main_tid);
	CHECK(read_file(path, comm, sizeof(comm)) > 0 && !strcmp(comm, "renamed-main\n"));
	/* The main thread renamed from here (same thread group). */
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0);
	CHECK_CMP(write(fd, "main2", 5), ==, 5);
	close(fd);
	CHECK(read_file(path, comm, sizeof(comm)) > 0 && !strcmp(comm, "main2\n"));
	return NULL;
}

static void listed(void)
{
	DIR *d = opendir("/proc");
	CHECK(d != NULL);
	int self = 0, thread_self = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		self += !strcmp(e->d_name, "self");
		thread_self += !strcmp(e->d_name, "thread-self");
	}
	if (d)
		closedir(d);
	CHECK(self == 1 && thread_self == 1);
}

static void comm_writes(void)
{
	int fd = open("/proc/self/comm", O_WRONLY);
	CHECK(fd >= 0);
	/* 15 bytes kept of 20, and the whole count returned. */
	CHECK_CMP(write(fd, "abcdefghijklmnopqrst", 20), ==, 20);
	close(fd);
	char comm[32], name[16] = { 0 };
	CHECK(read_file("/proc/self/comm", comm, sizeof(comm)) > 0 && !strcmp(comm, "abcdefghijklmno\n"));
	CHECK(prctl(PR_GET_NAME, name, 0, 0, 0) == 0 && !strcmp(name, "abcdefghijklmno"));
	CHECK(prctl(PR_SET_NAME, "renamed-main", 0, 0, 0) == 0);
	CHECK(read_file("/proc/self/comm", comm, sizeof(comm)) > 0 && !strcmp(comm, "renamed-main\n"));

	/* Another process's comm: EINVAL, its name unchanged. */
	volatile int *done = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(done != MAP_FAILED);
	*done = 0;
	pid_t pid = fork();
	if (pid == 0) {
		while (!*done) /* until the parent is done with its comm */
			usleep(1000);
		_exit(0);
	}
	CHECK(pid > 0);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0);
	CHECK_ERRNO(write(fd, "other", 5), EINVAL);
	close(fd);
	CHECK(read_file(path, comm, sizeof(comm)) > 0 && !strcmp(comm, "renamed-main\n")); /* fork's copy */
	*done = 1;
	int status;
	CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
}

int main(void)
{
	test_begin("proc_thread_self");
	main_tid = gettid_();
	check_thread_self("main thread");
	listed();
	comm_writes();
	pthread_t t;
	CHECK(pthread_create(&t, NULL, thread_main, NULL) == 0);
	CHECK(pthread_join(t, NULL) == 0);
	char comm[32];
	CHECK(read_file("/proc/self/comm", comm, sizeof(comm)) > 0 && !strcmp(comm, "main2\n"));
	return test_end();
}
