/* What `make run TOPOLOGY=swap` shows after mm_tour: a process outgrows
 * memory, kswapd and direct reclaim push its pages to swap, it reads them
 * back, and once memory and swap are both spent the OOM killer takes it.
 * Each line is read from /proc/self/status, /proc/meminfo, /proc/vmstat
 * and getrusage; the kernel's own lines (the OOM report) come in between
 * on the console. The same program runs on Linux unchanged.
 *
 * It needs the swap machine's scratch disk (the runner's /dev/vda, made a
 * swap area by mkswap before the boot, common/swap_disk.h); anywhere else
 * it says so and does nothing. So that the OOM comes in seconds under
 * TCG, it turns the disk on as a small area (the disk's own header with a
 * last_page of TOUR_SWAP_MIB), and puts the header back at the end. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "swap_disk.h"

#define STEP_MIB 32l
#define TOUR_SWAP_MIB 64l

#define NR_VM 5
static long start_vm[NR_VM];
static const char *const vm_names[NR_VM] = { "pswpout", "pswpin", "pgscan_kswapd", "pgscan_direct",
					     "allocstall_normal" };

static void vm_start(void)
{
	for (int i = 0; i < NR_VM; i++)
		start_vm[i] = vmstat_value(vm_names[i]);
}

/* One line: this process's memory, the machine's, and reclaim's counters
 * since the tour began. */
static void show(const char *what)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	long vm[NR_VM];
	for (int i = 0; i < NR_VM; i++)
		vm[i] = vmstat_value(vm_names[i]) - start_vm[i];
	printf("  %-26s VmRSS %7ld kB  VmSwap %7ld kB  MemFree %6ld kB  SwapFree %6ld kB  majflt %5ld | "
	       "pswpout %6ld pswpin %6ld  scanned by kswapd %6ld, direct %6ld  stalls %4ld\n",
	       what, status_kb("VmRSS"), status_kb("VmSwap"), meminfo_kb("MemFree"), meminfo_kb("SwapFree"),
	       ru.ru_majflt, vm[0], vm[1], vm[2], vm[3], vm[4]);
	fflush(stdout);
}

/* The child: grows STEP_MIB at a time, each page written (one mapping a
 * step: the overcommit heuristic refuses one mapping larger than memory
 * and swap together, on both kernels); once past the machine's memory,
 * reads its first step back (swap-in); then grows on until the OOM
 * killer takes it. Never returns. */
static void grow(long ram_mib, long limit_mib)
{
	static char *steps[256];
	char what[64];
	bool read_back = false;
	for (long k = 0; k < 256 && (k + 1) * STEP_MIB <= limit_mib; k++) {
		char *p = mmap(NULL, STEP_MIB << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			printf("swap_tour: mmap of %ld MiB more: %s\n", STEP_MIB, errno_name(errno));
			_exit(2);
		}
		madvise(p, STEP_MIB << 20, MADV_NOHUGEPAGE); /* 4 KiB pages: what reclaim swaps one by one */
		steps[k] = p;
		for (long off = 0; off < STEP_MIB << 20; off += 4096)
			p[off] = (char)(off >> 12 ^ k);
		snprintf(what, sizeof(what), "wrote %ld MiB", (k + 1) * STEP_MIB);
		show(what);
		if (!read_back && (k + 1) * STEP_MIB > ram_mib) {
			long bad = 0;
			for (long off = 0; off < STEP_MIB << 20; off += 4096)
				bad += steps[0][off] != (char)(off >> 12);
			snprintf(what, sizeof(what), "read back the first %ld MiB", STEP_MIB);
			show(what);
			if (bad)
				printf("swap_tour: %ld pages not as written!\n", bad);
			read_back = true;
		}
	}
	printf("swap_tour: %ld MiB written and no OOM: more memory than this tour expected\n", limit_mib);
	_exit(3);
}

int main(void)
{
	static unsigned char hdr[4096], small[4096];
	char serial[64] = "";
	long n = read_file("/sys/block/vda/serial", serial, sizeof(serial));
	int fd = open(SWAP_DISK, O_RDONLY);
	if (n <= 0 || strncmp(serial, "mmlab-vd0", 9) || fd < 0 || pread(fd, hdr, sizeof(hdr), 0) != sizeof(hdr) ||
	    memcmp(hdr + 4096 - 10, "SWAPSPACE2", 10)) {
		printf("swap_tour: no swap disk here (it needs the swap machine's: make run TOPOLOGY=swap)\n");
		return 0;
	}
	close(fd);
	if (proc_swaps_count() != 0) {
		printf("swap_tour: a swap area is on already: this tour turns its own on and off\n");
		return 0;
	}
	memcpy(small, hdr, sizeof(small));
	struct swap_header_info *h = (struct swap_header_info *)small;
	h->last_page = (uint32_t)(TOUR_SWAP_MIB << 8);
	if (swap_disk_write_header(small) || sys_swapon(SWAP_DISK, 0)) {
		printf("swap_tour: swapon %s: %s\n", SWAP_DISK, errno_name(errno));
		swap_disk_write_header(hdr);
		return 1;
	}
	long ram_mib = meminfo_kb("MemTotal") >> 10;
	printf("swap_tour: %ld MiB of memory and a %ld MiB swap area on %s; a child writes %ld MiB at a time\n"
	       "until the OOM killer takes it. Each line: the child's VmRSS and VmSwap (/proc/self/status),\n"
	       "MemFree and SwapFree (/proc/meminfo), its major faults (getrusage), and /proc/vmstat's\n"
	       "counters since the start: pages written to and read from swap, pages scanned by kswapd\n"
	       "and by direct reclaim (an allocation that had to reclaim itself), allocation stalls.\n",
	       ram_mib, TOUR_SWAP_MIB, SWAP_DISK, STEP_MIB);
	vm_start();
	long kills = vmstat_value("oom_kill");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		grow(ram_mib, ram_mib + 2 * TOUR_SWAP_MIB + 4 * STEP_MIB);
	int status = 0;
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status))
		printf("swap_tour: the child was killed by signal %d (%s); oom_kill +%ld in /proc/vmstat\n",
		       WTERMSIG(status), WTERMSIG(status) == SIGKILL ? "SIGKILL: the OOM killer's" : "not the OOM killer's",
		       vmstat_value("oom_kill") - kills);
	else
		printf("swap_tour: the child exited with status %d\n", WEXITSTATUS(status));
	printf("swap_tour: SwapFree %ld kB once its memory and swap came back\n", meminfo_kb("SwapFree"));
	if (sys_swapoff(SWAP_DISK))
		printf("swap_tour: swapoff: %s\n", errno_name(errno));
	swap_disk_write_header(hdr);
	return 0;
}
