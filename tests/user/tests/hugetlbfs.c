/* hugetlbfs, SHM_HUGETLB and MFD_HUGETLB as a program sees them, the same
 * on mmlab and on Linux. The program grows the 2 MiB pool by three pages
 * (as root, through sysfs; skipped when it cannot, or when the default
 * size is not 2 MiB), then:
 *   - mount -t hugetlbfs with pagesize=2M,size=4M (a part skipped where
 *     mounting is not allowed: EPERM): statfs counts huge pages (f_bsize
 *     2 MiB, f_blocks 2), /proc/mounts shows the options as Linux's
 *     hugetlbfs_show_options; it takes directories and FIFOs, not
 *     symlinks (EINVAL, as Linux's); a bad page size, a size without a digit and
 *     min_size= above size= are EINVAL; a file's size must be whole huge
 *     pages (ftruncate EINVAL), write(2) is EINVAL; mapped shared twice it
 *     reserves its pages once (HugePages_Rsvd), each page is one for both
 *     mappings (Shared_Hugetlb) and read(2) sees it; truncate gives a page
 *     back; fallocate makes one, PUNCH_HOLE gives it back; size= limits
 *     them (ENOSPC), and everything comes back at umount;
 *   - a SHM_HUGETLB segment (skipped where the user may not: EPERM) is
 *     reserved at shmget, one page for two attaches (its rss in
 *     /proc/sysvipc/shm), gone with IPC_RMID and the last shmdt;
 *   - an MFD_HUGETLB memfd takes ftruncate in huge pages, maps shared,
 *     reads back what was written, and takes seals;
 *   - MAP_SHARED|MAP_ANONYMOUS|MAP_HUGETLB is shared with a child after
 *     fork;
 * and the pool is set back to what it was. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef SHM_HUGETLB
#define SHM_HUGETLB 04000
#endif
#define MFD_ALLOW_SEALING_ 0x2u
#define MFD_HUGETLB_ 0x4u
#define F_ADD_SEALS_ 1033
#define F_GET_SEALS_ 1034
#define F_SEAL_SHRINK_ 0x2
#define HUGETLBFS_MAGIC_ 0x958458f6
#define FALLOC_FL_KEEP_SIZE_ 0x1
#define FALLOC_FL_PUNCH_HOLE_ 0x2

#define RW (PROT_READ | PROT_WRITE)
#define HPAGE (2 * MiB)

static char dir[64], file[96];
static bool mounted;
static char text[1 << 16];

static void cleanup(void)
{
	if (file[0])
		unlink(file);
	if (mounted)
		umount2(dir, MNT_DETACH);
	mounted = false;
	if (dir[0])
		rmdir(dir);
	dir[0] = 0;
}

static long rsvd(void)
{
	return hugetlb_pool("resv_hugepages");
}

static long free_pages(void)
{
	return hugetlb_pool("free_hugepages");
}

/* DIR's line in /proc/mounts, from its type on. */
static bool mounts_line(char *out, size_t size)
{
	if (read_file("/proc/mounts", text, sizeof(text)) <= 0)
		return false;
	char key[80];
	snprintf(key, sizeof(key), " %s ", dir);
	char *line = strstr(text, key);
	if (!line)
		return false;
	line += strlen(key);
	size_t n = strcspn(line, "\n");
	if (n >= size)
		n = size - 1;
	memcpy(out, line, n);
	out[n] = 0;
	return true;
}

static void hugetlbfs_mount(long free0, long resv0)
{
	snprintf(dir, sizeof(dir), "/tmp/hugetlbfs_XXXXXX");
	if (!mkdtemp(dir)) {
		dir[0] = 0;
		check_skip("mkdtemp: %s", strerror(errno));
		return;
	}
	if (mount("none", dir, "hugetlbfs", 0, "pagesize=2M,size=4M")) {
		int e = errno;
		cleanup();
		if (e == EPERM) {
			check_skip("mount hugetlbfs: EPERM (no right to mount here)");
			return;
		}
		CHECKF(false, "mount hugetlbfs: %s", errno_name(e));
		return;
	}
	mounted = true;
	/* What Linux refuses, on a second mount point (the same dir: a
	 * refused mount leaves nothing). */
	CHECK_ERRNO(mount("none", dir, "hugetlbfs", 0, "pagesize=3M"), EINVAL);
	CHECK_ERRNO(mount("none", dir, "hugetlbfs", 0, "size=M"), EINVAL);
	CHECK_ERRNO(mount("none", dir, "hugetlbfs", 0, "size=2M,min_size=4M"), EINVAL);
	struct statfs st;
	if (CHECK(statfs(dir, &st) == 0)) {
		CHECK_CMP((long)st.f_type, ==, (long)HUGETLBFS_MAGIC_);
		CHECK_CMP((long)st.f_bsize, ==, (long)HPAGE);
		CHECK_CMP((long)st.f_blocks, ==, 2);
		CHECK_CMP((long)st.f_bfree, ==, 2);
	}
	char line[256];
	if (CHECK(mounts_line(line, sizeof(line)))) {
		printf("# /proc/mounts: %s\n", line);
		CHECKF(!strncmp(line, "hugetlbfs rw,", 13) && strstr(line, ",pagesize=2M,size=4194304 0 0"),
		       "/proc/mounts: %s", line);
	}
	snprintf(file, sizeof(file), "%s/f", dir);
	int fd = open(file, O_CREAT | O_RDWR, 0600);
	if (!CHECK(fd >= 0))
		return;
	/* Directories and FIFOs on it too. */
	char sub[128], link[128], target[64];
	snprintf(sub, sizeof(sub), "%s/d", dir);
	snprintf(link, sizeof(link), "%s/l", dir);
	CHECK(mkdir(sub, 0700) == 0);
	/* A symlink is EINVAL: Linux's page_symlink writes the target
	 * through the page cache, which hugetlbfs refuses. */
	CHECK_ERRNO(symlink("f", link), EINVAL);
	CHECK_ERRNO(readlink(link, target, sizeof(target)), ENOENT);
	CHECK(mkfifo(link, 0600) == 0);
	struct stat sb;
	if (CHECK(lstat(link, &sb) == 0))
		CHECKF(S_ISFIFO(sb.st_mode), "a FIFO: mode %o", (unsigned)sb.st_mode);
	CHECK(unlink(link) == 0);
	CHECK(rmdir(sub) == 0);
	CHECK_ERRNO(ftruncate(fd, HPAGE + 1), EINVAL);
	CHECK(ftruncate(fd, 2 * HPAGE) == 0);
	CHECK_ERRNO(write(fd, "x", 1), EINVAL);
	char *a = mmap(NULL, 2 * HPAGE, RW, MAP_SHARED, fd, 0);
	char *b = mmap(NULL, 2 * HPAGE, RW, MAP_SHARED, fd, 0);
	if (CHECK(a != MAP_FAILED && b != MAP_FAILED)) {
		CHECK_CMP((long)((uintptr_t)a & (HPAGE - 1)), ==, 0);
		CHECK_CMP(rsvd(), ==, resv0 + 2); /* once for both mappings */
		if (CHECK(read_file("/proc/meminfo", text, sizeof(text)) > 0))
			CHECK_CMP(field_after(text, "HugePages_Rsvd:"), ==, resv0 + 2);
		*(unsigned long *)(a + HPAGE + 8) = 0xbeef;
		CHECK_CMP(*(unsigned long *)(b + HPAGE + 8), ==, 0xbeef);
		CHECK_CMP(rsvd(), ==, resv0 + 1);
		CHECK_CMP(free_pages(), ==, free0 - 1);
		CHECK_CMP(smaps_kb(a, "Shared_Hugetlb"), ==, 2048);
		CHECK_CMP(smaps_kb(a, "Private_Hugetlb"), ==, 0);
		CHECK_CMP(smaps_kb(a, "Rss"), ==, 0);
		char numa[512], want[128];
		CHECK(numa_maps_line(a, numa, sizeof(numa)));
		snprintf(want, sizeof(want), " file=%s/f ", dir);
		CHECKF(strstr(numa, want) && strstr(numa, " huge "), "numa_maps: %s", numa);
		unsigned long v = 0;
		CHECK_CMP(pread(fd, &v, sizeof(v), HPAGE + 8), ==, 8);
		CHECK_CMP(v, ==, 0xbeef);
		v = 1;
		CHECK_CMP(pread(fd, &v, sizeof(v), 8), ==, 8); /* a hole */
		CHECK_CMP(v, ==, 0);
		if (CHECK(statfs(dir, &st) == 0))
			CHECK_CMP((long)st.f_bfree, ==, 0); /* size= counts reservations and pages */
		/* Truncate to one page: the second goes from both mappings. */
		CHECK(ftruncate(fd, HPAGE) == 0);
		CHECK_CMP(free_pages(), ==, free0);
		CHECK_CMP(rsvd(), ==, resv0 + 1);
		CHECK_CMP(smaps_kb(a, "Shared_Hugetlb"), ==, 0);
		CHECK(munmap(a, 2 * HPAGE) == 0);
		CHECK(munmap(b, 2 * HPAGE) == 0);
	}
	/* fallocate makes the page (its offset was reserved), PUNCH_HOLE
	 * gives it back with the offset; size= stops a third. */
	CHECK(fallocate(fd, 0, 0, HPAGE) == 0);
	CHECK_CMP(free_pages(), ==, free0 - 1);
	CHECK_CMP(rsvd(), ==, resv0);
	CHECK(fallocate(fd, FALLOC_FL_KEEP_SIZE_, HPAGE, HPAGE) == 0);
	CHECK_ERRNO(fallocate(fd, FALLOC_FL_KEEP_SIZE_, 2 * HPAGE, HPAGE), ENOSPC);
	CHECK(fallocate(fd, FALLOC_FL_PUNCH_HOLE_ | FALLOC_FL_KEEP_SIZE_, 0, 2 * HPAGE) == 0);
	CHECK_CMP(free_pages(), ==, free0);
	if (CHECK(statfs(dir, &st) == 0))
		CHECK_CMP((long)st.f_bfree, ==, 2);
	close(fd);
	CHECK(unlink(file) == 0);
	file[0] = 0;
	CHECK(umount2(dir, 0) == 0);
	mounted = false;
	cleanup();
	CHECK_CMP(rsvd(), ==, resv0);
}

/* The rss column (bytes) of id's /proc/sysvipc/shm line, -1 without one. */
static long sysvipc_rss(int id)
{
	if (read_file("/proc/sysvipc/shm", text, sizeof(text)) <= 0)
		return -1;
	for (char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		long key;
		int shmid;
		unsigned perms;
		unsigned long size, rss;
		if (sscanf(line + 1, "%ld %d %o %lu %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %lu", &key, &shmid, &perms,
			   &size, &rss) == 5 &&
		    shmid == id)
			return (long)rss;
	}
	return -1;
}

static void shm_hugetlb(long free0, long resv0)
{
	int id = shmget(IPC_PRIVATE, HPAGE, IPC_CREAT | SHM_HUGETLB | 0600);
	if (id < 0 && errno == EPERM) {
		check_skip("shmget(SHM_HUGETLB): EPERM (not in vm.hugetlb_shm_group, no CAP_IPC_LOCK)");
		return;
	}
	if (!CHECK(id >= 0))
		return;
	CHECK_CMP(rsvd(), ==, resv0 + 1);
	CHECK_ERRNO(shmget(IPC_PRIVATE, HPAGE, IPC_CREAT | SHM_HUGETLB | (22 << MAP_HUGE_SHIFT) | 0600), EINVAL);
	char *a = shmat(id, NULL, 0), *b = shmat(id, NULL, 0);
	if (CHECK(a != (void *)-1 && b != (void *)-1)) {
		CHECK_CMP((long)((uintptr_t)a & (HPAGE - 1)), ==, 0);
		*(unsigned long *)(a + 64) = 0x5eed;
		CHECK_CMP(*(unsigned long *)(b + 64), ==, 0x5eed);
		CHECK_CMP(free_pages(), ==, free0 - 1);
		CHECK_CMP(rsvd(), ==, resv0);
		/* Its huge page, in bytes: so on mmlab and Linux 6.1 (and
		 * 6.12, whose nrpages counts base pages); a Linux 6.18 host was
		 * seen to show 512 times that (each base page counted as a
		 * huge page), which is that kernel's own count. */
		long rss = sysvipc_rss(id);
		if (on_mmlab())
			CHECK_CMP(rss, ==, (long)HPAGE);
		else
			CHECKF(rss == (long)HPAGE || rss == (long)HPAGE * 512, "/proc/sysvipc/shm rss %ld", rss);
		struct shmid_ds ds;
		if (CHECK(shmctl(id, IPC_STAT, &ds) == 0)) {
			CHECK_CMP((long)ds.shm_nattch, ==, 2);
			CHECK_CMP((long)ds.shm_segsz, ==, (long)HPAGE);
		}
		CHECK(shmctl(id, IPC_RMID, NULL) == 0);
		CHECK(shmdt(a) == 0);
		CHECK_CMP(free_pages(), ==, free0 - 1); /* still attached */
		CHECK(shmdt(b) == 0);
	} else {
		shmctl(id, IPC_RMID, NULL);
	}
	CHECK_CMP(free_pages(), ==, free0);
	CHECK_CMP(rsvd(), ==, resv0);
}

static void memfd_hugetlb(long free0, long resv0)
{
	int fd = (int)syscall(SYS_memfd_create, "h", MFD_HUGETLB_ | MFD_ALLOW_SEALING_);
	if (fd < 0 && errno == ENOSYS && !on_mmlab()) {
		check_skip("MFD_HUGETLB: ENOSYS (no hugetlbfs in this kernel)");
		return;
	}
	if (!CHECK(fd >= 0))
		return;
	char link[64], target[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	long n = readlink(link, target, sizeof(target) - 1);
	if (CHECK(n > 0)) {
		target[n] = 0;
		CHECKF(!strcmp(target, "/memfd:h (deleted)"), "fd's link: %s", target);
	}
	CHECK_CMP(rsvd(), ==, resv0); /* size 0: nothing to reserve */
	CHECK_ERRNO(ftruncate(fd, 4096), EINVAL);
	CHECK(ftruncate(fd, HPAGE) == 0);
	char *p = mmap(NULL, HPAGE, RW, MAP_SHARED, fd, 0);
	if (CHECK(p != MAP_FAILED)) {
		CHECK_CMP(rsvd(), ==, resv0 + 1);
		*(unsigned long *)(p + 4096) = 0xf00d;
		unsigned long v = 0;
		CHECK_CMP(pread(fd, &v, sizeof(v), 4096), ==, 8);
		CHECK_CMP(v, ==, 0xf00d);
		CHECK_CMP(free_pages(), ==, free0 - 1);
		CHECK(munmap(p, HPAGE) == 0);
	}
	CHECK_CMP(fcntl(fd, F_GET_SEALS_), ==, 0);
	CHECK(fcntl(fd, F_ADD_SEALS_, F_SEAL_SHRINK_) == 0);
	CHECK_ERRNO(ftruncate(fd, 0), EPERM);
	close(fd);
	CHECK_CMP(free_pages(), ==, free0);
	CHECK_CMP(rsvd(), ==, resv0);
}

static void map_shared_hugetlb(long free0, long resv0)
{
	char *p = mmap(NULL, HPAGE, RW, MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return;
	CHECK_CMP(rsvd(), ==, resv0 + 1);
	/* Its file, as Linux's numa_maps escapes the name. */
	char numa[512];
	CHECK(numa_maps_line(p, numa, sizeof(numa)));
	CHECKF(strstr(numa, " file=/anon_hugepage\\040(deleted) "), "numa_maps: %s", numa);
	pid_t pid = fork();
	if (pid == 0) {
		*(volatile unsigned long *)(p + 128) = 0xc0de;
		_exit(0);
	}
	int status = -1;
	if (CHECK(pid > 0) && CHECK(waitpid(pid, &status, 0) == pid))
		CHECK_CMP(status, ==, 0);
	CHECK_CMP(*(volatile unsigned long *)(p + 128), ==, 0xc0de); /* the child's write */
	CHECK_CMP(free_pages(), ==, free0 - 1);
	CHECK(munmap(p, HPAGE) == 0);
	CHECK_CMP(free_pages(), ==, free0);
	CHECK_CMP(rsvd(), ==, resv0);
}

int main(void)
{
	test_begin("hugetlbfs");
	long resv0, nr0 = hugetlb_pool_grow(3, &resv0);
	long free0 = free_pages();
	printf("# pool %ld -> %ld, %ld free, %ld reserved\n", nr0, nr0 + 3, free0, resv0);
	atexit(cleanup);
	hugetlbfs_mount(free0, resv0);
	shm_hugetlb(free0, resv0);
	memfd_hugetlb(free0, resv0);
	map_shared_hugetlb(free0, resv0);
	CHECK(hugetlb_pool_set(nr0));
	return test_end();
}
