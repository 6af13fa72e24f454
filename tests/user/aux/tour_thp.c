/* The memory-map tour: 64 MiB of anonymous memory asked for as
 * transparent huge pages (MADV_HUGEPAGE, the mapping 2 MiB aligned) and
 * written, then a picture of memory while it is held: 32 THPs, each an
 * order-9 block of one owner. */
#include <stdio.h>
#include <sys/mman.h>

#include "check.h"
#include "tour_snapshot.h"

#define TOUR_THP_SIZE (64 * MiB)

int main(void)
{
	size_t len = TOUR_THP_SIZE + 2 * MiB;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("tour_thp: mmap failed: %s\n", errno_name(errno));
		return 1;
	}
	char *a = (char *)(((unsigned long)p + 2 * MiB - 1) & ~(2 * MiB - 1));
	if (madvise(a, TOUR_THP_SIZE, MADV_HUGEPAGE))
		printf("tour_thp: MADV_HUGEPAGE: %s\n", errno_name(errno));
	for (size_t off = 0; off < TOUR_THP_SIZE; off += 4096)
		a[off] = 1;
	long thp = meminfo_kb("AnonHugePages");
	printf("tour_thp: 64 MiB written: AnonHugePages %ld kB, VmRSS %ld kB\n", thp, status_kb("VmRSS"));
	char title[96];
	snprintf(title, sizeof(title), "with 64 MiB of THPs held (AnonHugePages %ld kB)", thp);
	int ret = tour_snapshot(title);
	munmap(p, len);
	return ret;
}
