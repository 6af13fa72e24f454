/* /proc/<pid>/cmdline of another process read through its memory as
 * Linux's access_remote_vm does: a page of the argument strings that is
 * not there any more (the child dropped it with MADV_DONTNEED, so the
 * next touch faults in a page of zeros) is faulted in by the reader and
 * reads as zeros; the read is not cut there. The child is this program
 * again (execve of /proc/self/exe's target) with a three-page argument,
 * so that one page holds nothing but argument bytes; it tells the parent
 * which page it dropped through a shared memfd page inherited across
 * execve. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define BIG (3 * 4096)

struct shared {
	volatile int ready, go;
	volatile long dropped; /* the dropped page's offset in the big argument, -1 if none */
};

static int child_main(char **argv)
{
	int fd = atoi(argv[2]);
	struct shared *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (sh == MAP_FAILED)
		return 2;
	char *big = argv[3];
	unsigned long page = ((unsigned long)big + 4095) & ~4095ul;
	sh->dropped = -1;
	if (page + 4096 <= (unsigned long)big + strlen(big) && !madvise((void *)page, 4096, MADV_DONTNEED))
		sh->dropped = (long)(page - (unsigned long)big);
	sh->ready = 1;
	for (int i = 0; !sh->go && i < 100000; i++) /* the parent's read, at most 100 s */
		usleep(1000);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--child"))
		return child_main(argv);
	test_begin("proc_cmdline_remote");
	static char self[256], big[BIG + 1], fdarg[16];
	long n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	CHECK(n > 0);
	for (int i = 0; i < BIG; i++)
		big[i] = (char)('a' + i % 26);
	int fd = (int)syscall(SYS_memfd_create, "shared", 0u);
	CHECK(fd >= 0 && ftruncate(fd, 4096) == 0);
	struct shared *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(sh != MAP_FAILED);
	snprintf(fdarg, sizeof(fdarg), "%d", fd);
	pid_t pid = fork();
	if (pid == 0) {
		char *args[] = { self, "--child", fdarg, big, NULL };
		execv(self, args);
		_exit(127);
	}
	CHECK(pid > 0);
	for (int i = 0; !sh->ready && i < 100000; i++)
		usleep(1000);
	CHECK(sh->ready);
	CHECKF(sh->dropped >= 0, "the child dropped a page of its argument (offset %ld)", (long)sh->dropped);

	/* What the child's cmdline must read: its arguments, NUL-separated,
	 * with the dropped page zeros. */
	static char want[BIG + 512], got[BIG + 1024];
	size_t len = 0;
	const char *args[] = { self, "--child", fdarg, big };
	size_t big_at = 0;
	for (int i = 0; i < 4; i++) {
		if (i == 3)
			big_at = len;
		memcpy(want + len, args[i], strlen(args[i]) + 1);
		len += strlen(args[i]) + 1;
	}
	if (sh->dropped >= 0)
		memset(want + big_at + sh->dropped, 0, 4096);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	int cfd = open(path, O_RDONLY);
	CHECK(cfd >= 0);
	size_t total = 0;
	long r;
	while ((r = read(cfd, got + total, sizeof(got) - total)) > 0)
		total += (size_t)r;
	close(cfd);
	CHECKF(total == len, "cmdline is %zu bytes, the arguments %zu", total, len);
	CHECK(total == len && !memcmp(got, want, len));
	sh->go = 1;
	int status = -1;
	CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	return test_end();
}
