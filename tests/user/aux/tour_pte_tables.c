/* The memory-map tour: the 2021 "Free user PTE page table pages" workload
 * (common/pte_workload.h) over 4 GiB of a sparse mapping (2,048 chunks of
 * 2 MiB, each written and given back with MADV_DONTNEED), then a picture
 * of memory while the mapping is still there: in pte_reclaim=off the
 * emptied PTE tables stay (2,048 page-table pages, 8 MiB), in scan and
 * refcount they are gone. make tour boots once per mode. */
#include <stdio.h>
#include <sys/mman.h>

#include "check.h"
#include "pte_workload.h"
#include "tour_snapshot.h"

int main(void)
{
	struct pte_workload w = { .chunks = 2048, .pages_per_chunk = 512 };
	if (!pte_workload_run(&w)) {
		printf("tour_pte_tables: mmap failed: %s\n", errno_name(errno));
		return 1;
	}
	char mode[32], title[96];
	tour_read_line("/proc/sys/vm/pte_reclaim", mode, sizeof(mode));
	printf("tour_pte_tables: 2048 chunks written and discarded: VmPTE %ld kB, VmRSS %ld kB (pte_reclaim=%s)\n",
	       w.after.pte, w.after.rss, mode);
	snprintf(title, sizeof(title), "after the PTE-table workload, pte_reclaim=%s (VmPTE %ld kB)", mode,
		 w.after.pte);
	int ret = tour_snapshot(title);
	munmap(w.base, PTE_WORKLOAD_SIZE);
	return ret;
}
