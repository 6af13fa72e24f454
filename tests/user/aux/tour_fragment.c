/* The memory-map tour: fragmenting free memory. 64 MiB of 4 KiB pages
 * (MADV_NOHUGEPAGE) are written, then every other page is given back
 * (MADV_DONTNEED): free memory is as large as the half given back, but
 * in single pages between pages still held, so no order above 0 can be
 * made of it (/proc/buddyinfo's order-0 column grows, the picture shows
 * the stripes). The picture is taken while the other half is held. */
#include <stdio.h>
#include <sys/mman.h>

#include "check.h"
#include "tour_snapshot.h"

#define TOUR_FRAGMENT_SIZE (64 * MiB)

int main(void)
{
	char *p = mmap(NULL, TOUR_FRAGMENT_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("tour_fragment: mmap failed: %s\n", errno_name(errno));
		return 1;
	}
	madvise(p, TOUR_FRAGMENT_SIZE, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < TOUR_FRAGMENT_SIZE; off += 4096)
		p[off] = 1;
	int errors = 0;
	for (size_t off = 0; off < TOUR_FRAGMENT_SIZE; off += 2 * 4096)
		errors += madvise(p + off, 4096, MADV_DONTNEED) != 0;
	printf("tour_fragment: 64 MiB written, every other page given back (%d errors): VmRSS %ld kB\n", errors,
	       status_kb("VmRSS"));
	int ret = tour_snapshot("with every other page of 64 MiB given back (fragmented)");
	munmap(p, TOUR_FRAGMENT_SIZE);
	return ret || errors;
}
