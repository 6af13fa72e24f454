/* For the kernel's mempolicy tests (tests/mempolicy_test.c): binds itself
 * to node argv[1] with set_mempolicy(MPOL_BIND), then writes argv[2] MiB
 * one page at a time. After each MiB it asks where its last page went
 * (get_mempolicy with MPOL_F_NODE | MPOL_F_ADDR) and prints the node, and
 * "LEFT THE MASK" if it is not the bound one. With the node full the
 * kernel must kill it ("out of memory") rather than give it a page
 * elsewhere; if it gets through, it prints "survived" and exits 0. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MPOL_BIND 2
#define MPOL_F_NODE 1
#define MPOL_F_ADDR 2

int main(int argc, char **argv)
{
	if (argc < 3) {
		printf("usage: bind_touch NODE MIB\n");
		return 2;
	}
	int node = atoi(argv[1]);
	long mib = atol(argv[2]);
	unsigned long mask = 1ul << node;
	if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, 64) != 0) {
		perror("set_mempolicy");
		return 2;
	}
	char *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	for (long m = 0; m < mib; m++) {
		for (long off = 0; off < 1l << 20; off += 4096)
			p[(m << 20) + off] = 1;
		int where = -1;
		syscall(SYS_get_mempolicy, &where, NULL, 0, p + (m << 20), MPOL_F_NODE | MPOL_F_ADDR);
		printf("bind_touch: MiB %ld on node %d%s\n", m, where, where == node ? "" : ": LEFT THE MASK");
	}
	printf("bind_touch: survived\n");
	return 0;
}
