/* The swap programs' disk (swap_*): the runner's scratch virtio disk,
 * /dev/vda with the id "mmlab-vd0" (tests/runner/qemu.c), made a swap
 * area by mkswap before the boot ("disk-format = swap": the SWAPSPACE2
 * magic at the end of its first page). Anywhere else the program skips:
 * it never turns swap on on a disk it does not know to be scratch, so
 * never on the host (no MMLAB_BLOCKDEV here, unlike blockdev: swapon
 * would change the host's memory management, not only a disk). */
#ifndef USER_SWAP_DISK_H
#define USER_SWAP_DISK_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define SWAP_DISK "/dev/vda"
#define SWAP_FLAG_PREFER 0x8000
#define SWAP_FLAG_DISCARD 0x10000
#define CAP_SYS_ADMIN 21

/* Linux's union swap_header, the parts mkswap writes. */
struct swap_header_info {
	char bootbits[1024];
	uint32_t version, last_page, nr_badpages;
	unsigned char uuid[16], volume[16];
	uint32_t padding[117];
	uint32_t badpages[1];
};

static inline long sys_swapon(const char *path, int flags) { return syscall(SYS_swapon, path, flags); }
static inline long sys_swapoff(const char *path) { return syscall(SYS_swapoff, path); }

/* The disk's first page into page (4096 bytes), or a skip saying why
 * this is not the runner's swap disk. */
static inline void swap_disk_or_skip(unsigned char *page)
{
	char serial[64] = "";
	long n = read_file("/sys/block/vda/serial", serial, sizeof(serial));
	if (n > 0 && serial[n - 1] == '\n')
		serial[--n] = '\0';
	if (n <= 0 || strcmp(serial, "mmlab-vd0"))
		test_skip("no runner's scratch disk (/sys/block/vda/serial '%s', not 'mmlab-vd0'): swap is "
			  "turned on only on the swap machines' disk, never on this kernel's own",
			  n > 0 ? serial : "none");
	int fd = open(SWAP_DISK, O_RDONLY);
	if (fd < 0 || pread(fd, page, 4096, 0) != 4096)
		test_skip("%s: %s", SWAP_DISK, errno_name(errno));
	close(fd);
	if (memcmp(page + 4096 - 10, "SWAPSPACE2", 10))
		test_skip("%s has no swap header (a machine without disk-format = swap)", SWAP_DISK);
}

/* The disk's first page replaced by page, flushed: 0 or -errno. */
static inline int swap_disk_write_header(const unsigned char *page)
{
	int fd = open(SWAP_DISK, O_WRONLY);
	if (fd < 0)
		return -errno;
	int err = pwrite(fd, page, 4096, 0) == 4096 && !fsync(fd) ? 0 : -errno;
	close(fd);
	return err;
}

/* /proc/swaps' line for path into line (without the newline): true when
 * there is one. */
static inline bool proc_swaps_line(const char *path, char *line, size_t size)
{
	static char buf[8192];
	if (read_file("/proc/swaps", buf, sizeof(buf)) <= 0)
		return false;
	size_t len = strlen(path);
	for (char *l = buf; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		if (!strncmp(l, path, len) && (l[len] == ' ' || l[len] == '\t')) {
			size_t n = strcspn(l, "\n");
			snprintf(line, size, "%.*s", (int)n, l);
			return true;
		}
	}
	return false;
}

/* The number of areas /proc/swaps lists. */
static inline int proc_swaps_count(void)
{
	static char buf[8192];
	if (read_file("/proc/swaps", buf, sizeof(buf)) <= 0)
		return -1;
	int lines = 0;
	for (char *p = buf; *p; p++)
		lines += *p == '\n';
	return lines - 1; /* the header */
}

/* For a program that turns swap on and off itself: the disk's header
 * into hdr (a skip elsewhere), a skip without CAP_SYS_ADMIN or with an
 * area on already, then swapon of the disk (a failed check: false). */
static inline bool swap_on_or_skip(unsigned char *hdr)
{
	swap_disk_or_skip(hdr);
	if (!has_cap(CAP_SYS_ADMIN))
		test_skip("no CAP_SYS_ADMIN: swapon needs it");
	if (proc_swaps_count() != 0)
		test_skip("a swap area is on already: this program turns its own on and off");
	return CHECKF(sys_swapon(SWAP_DISK, 0) == 0, "swapon %s: %s", SWAP_DISK, errno_name(errno));
}

/* The end of a program that turned swap on (swap_on_or_skip) and made its
 * checks in a child, pid (who: "child", "worker"): the child's exit status
 * checked (0, or 77: it skipped, passed on), then swap turned off, which
 * the entries' going with the child's exit lets succeed. */
static inline int swap_child_end(pid_t pid, const char *who)
{
	int st = wait_status_of(pid);
	CHECKF(st == 0 || st == 77, "the checks in the %s passed (status %d)", who, st);
	CHECKF(sys_swapoff(SWAP_DISK) == 0, "swapoff after the %s's exit freed its entries: %s", who, errno_name(errno));
	if (st == 77)
		test_skip("the %s skipped (above)", who);
	return test_end();
}

/* A program that turns swap on and makes its checks in a child, fn
 * (who: "child", "worker"): swap_on_or_skip, the child, swap_child_end. */
static inline int swap_run_child(int (*fn)(void), const char *who)
{
	unsigned char hdr[4096];
	if (!swap_on_or_skip(hdr))
		return test_end();
	pid_t pid = fork();
	if (pid == 0)
		_exit(fn());
	return swap_child_end(pid, who);
}

/* Pins the calling process to the CPU it runs on now. */
static inline void pin_to_this_cpu(void)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

/* How far Linux 6.1's VmSwap may trail the page tables, in kB: a thread
 * keeps its faults' counter changes (SPLIT_RSS_COUNTING) and hands them
 * to the mm at the start of the first fault after its event count passed
 * TASK_RSS_EVENTS_THRESH (64), so up to 66 faults' worth may be pending,
 * a swapped-in page each. mmlab's counts are exact (0). */
#define LINUX_VMSWAP_LAG_KB ((64 + 2) * 4)

#endif
