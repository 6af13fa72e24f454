/* For the kernel's OOM tests (tests/oom_test.c): sets its own
 * oom_score_adj to argv[1], binds itself to node argv[3] with
 * set_mempolicy(MPOL_BIND) unless it is -1, then writes argv[2] MiB of
 * private anonymous memory one page at a time. With argv[4] "hold" it
 * then waits to be killed; else it prints "oom_hog: got N MiB" and exits
 * 0 (the allocation that needed the OOM killer succeeded). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MPOL_BIND 2

int main(int argc, char **argv)
{
	if (argc < 5) {
		printf("usage: oom_hog ADJ MIB NODE|-1 hold|exit\n");
		return 2;
	}
	int fd = open("/proc/self/oom_score_adj", O_WRONLY);
	if (fd < 0 || write(fd, argv[1], strlen(argv[1])) != (ssize_t)strlen(argv[1])) {
		perror("oom_score_adj");
		return 2;
	}
	close(fd);
	int node = atoi(argv[3]);
	if (node >= 0) {
		unsigned long mask = 1ul << node;
		if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, 64) != 0) {
			perror("set_mempolicy");
			return 2;
		}
	}
	long mib = atol(argv[2]);
	char *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	for (long off = 0; off < mib << 20; off += 4096)
		p[off] = 1;
	if (strcmp(argv[4], "hold") == 0)
		for (;;)
			pause();
	printf("oom_hog: got %ld MiB\n", mib);
	return 0;
}
