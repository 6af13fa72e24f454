/* A block device from user space, as Linux's def_blk_fops and block
 * ioctls give it: /dev/vda's size by BLKGETSIZE64 and BLKGETSIZE against
 * /sys/block/vda/size (512-byte sectors), BLKSSZGET against
 * queue/logical_block_size, fstat's st_rdev against /sys/block/vda/dev,
 * its /proc/partitions line, its PCI function in /sys/bus/pci/devices; patterns written and read back at offsets in
 * and across pages, at the end (a read there ends the file, a write there
 * is ENOSPC, one crossing it is cut short), lseek as a file of the
 * device's size (beyond it: EINVAL), fsync, an unknown ioctl (ENOTTY on
 * the virtio disk).
 *
 * The disk is overwritten, so the program touches only a disk it knows to
 * be scratch: /dev/vda when its id (/sys/block/vda/serial) is the runner's
 * "mmlab-vd0" (tests/runner/qemu.c gives it so, on mmlab and on Linux
 * alike), or the block device the environment variable MMLAB_BLOCKDEV
 * names (for a scratch device on the host; its sysfs checks are then made
 * only when /sys/block has its name). Anywhere else it skips, saying why:
 * the host's own disks are never opened. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"

#define BLKGETSIZE 0x1260
#define BLKSSZGET 0x1268
#define BLKGETSIZE64 0x80081272
#define SCRATCH_SERIAL "mmlab-vd0"

static char sysdir[128]; /* /sys/block/<name>, "" when it has none */
static bool virtio_disk;  /* the runner's virtio disk, not MMLAB_BLOCKDEV's */

static long sys_long(const char *file)
{
	char buf[64];
	if (!sysdir[0] || read_file(path_in(sysdir, file), buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

static const char *choose_device(void)
{
	const char *env = getenv("MMLAB_BLOCKDEV");
	const char *dev = env && *env ? env : "/dev/vda";
	const char *base = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	snprintf(sysdir, sizeof(sysdir), "/sys/block/%s", base);
	char serial[64] = "";
	bool has_sys = access(sysdir, F_OK) == 0;
	if (!has_sys)
		sysdir[0] = '\0';
	if (env && *env) {
		note("MMLAB_BLOCKDEV names %s: it is written over", dev);
		return dev;
	}
	if (!has_sys || access(dev, F_OK))
		test_skip("no /dev/vda (no virtio disk here); MMLAB_BLOCKDEV may name a scratch "
			  "block device");
	long n = read_file(path_in(sysdir, "serial"), serial, sizeof(serial));
	if (n > 0 && serial[n - 1] == '\n')
		serial[n - 1] = '\0';
	if (n <= 0 || strcmp(serial, SCRATCH_SERIAL))
		test_skip("/dev/vda's id is '%s', not the runner's scratch disk '%s': not touched "
			  "(MMLAB_BLOCKDEV may name a scratch block device)", n > 0 ? serial : "?",
			  SCRATCH_SERIAL);
	virtio_disk = true;
	return dev;
}

static void pattern(unsigned char *buf, size_t len, long long offset, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (unsigned char)((offset + (long long)i) * 131 + seed + ((offset + (long long)i) >> 9));
}

/* len bytes written at offset, then read back through a new descriptor. */
static void write_read(const char *dev, int fd, long long offset, size_t len, unsigned seed)
{
	static unsigned char w[3 * 4096], r[3 * 4096];
	pattern(w, len, offset, seed);
	CHECK_CMP(pwrite(fd, w, len, offset), ==, (long)len);
	int fd2 = open(dev, O_RDONLY);
	CHECK_CMP(fd2, >=, 0);
	memset(r, 0, len);
	CHECK_CMP(pread(fd2, r, len, offset), ==, (long)len);
	CHECKF(memcmp(w, r, len) == 0, "%zu bytes at %lld read back as written", len, offset);
	close(fd2);
}

static void partitions_line(const char *name, struct stat *st, long long bytes)
{
	char text[4096], want[128];
	long n = read_file("/proc/partitions", text, sizeof(text) - 1);
	CHECK_CMP(n, >, 0);
	if (n <= 0)
		return;
	text[n] = '\0';
	CHECK(strncmp(text, "major minor  #blocks  name\n\n", 28) == 0);
	snprintf(want, sizeof(want), "%4u  %7u %10lld %s\n", major(st->st_rdev), minor(st->st_rdev),
		 bytes >> 10, name);
	CHECKF(strstr(text, want) != NULL, "/proc/partitions has '%.*s'", (int)strlen(want) - 1, want);
}

/* The disk's PCI function in /sys/bus/pci/devices: a virtio block device
 * (1af4:1042), class 0x010000, as each kernel's scan read it. */
static void pci_function(void)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	CHECK(d != NULL);
	if (!d)
		return;
	unsigned found = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char dir[300], vendor[16] = "", device[16] = "", class[16] = "";
		snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", e->d_name);
		read_file(path_in(dir, "vendor"), vendor, sizeof(vendor) - 1);
		read_file(path_in(dir, "device"), device, sizeof(device) - 1);
		if (strcmp(vendor, "0x1af4\n") || strcmp(device, "0x1042\n"))
			continue;
		read_file(path_in(dir, "class"), class, sizeof(class) - 1);
		CHECKF(strcmp(class, "0x010000\n") == 0, "%s: class 0x010000", e->d_name);
		found++;
	}
	closedir(d);
	CHECKF(found == 1, "one virtio block function (1af4:1042) in /sys/bus/pci/devices (%u)", found);
}

int main(void)
{
	test_begin("blockdev");
	const char *dev = choose_device();
	int fd = open(dev, O_RDWR);
	if (fd < 0)
		test_skip("open(%s): %s", dev, errno_name(errno));
	struct stat st;
	CHECK_CMP(fstat(fd, &st), ==, 0);
	CHECK(S_ISBLK(st.st_mode));

	unsigned long long bytes = 0;
	unsigned long sectors = 0;
	int lbs = 0;
	CHECK_CMP(ioctl(fd, BLKGETSIZE64, &bytes), ==, 0);
	CHECK_CMP(ioctl(fd, BLKGETSIZE, &sectors), ==, 0);
	CHECK_CMP(ioctl(fd, BLKSSZGET, &lbs), ==, 0);
	CHECK_CMP(sectors, ==, bytes >> 9);
	CHECK_CMP(bytes % 512, ==, 0);
	CHECK_CMP(bytes, >=, 64 * 1024);
	CHECK_CMP(lbs, >=, 512);
	/* An ioctl no layer knows: blkdev_ioctl's -ENOTTY when the driver has
	 * no ioctl method (virtio_blk); a driver's own may say otherwise
	 * (loop's: EINVAL). */
	if (virtio_disk)
		CHECK_ERRNO(ioctl(fd, 0x12ff, 0), ENOTTY);
	else
		check_skip("the errno of an unknown ioctl is %s's driver's own", dev);
	note("%s: %llu bytes, %d-byte logical blocks", dev, bytes, lbs);
	if (sysdir[0]) {
		CHECK_CMP(sys_long("size"), ==, (long long)(bytes >> 9));
		CHECK_CMP(sys_long("queue/logical_block_size"), ==, lbs);
		char devno[32], want[32];
		long n = read_file(path_in(sysdir, "dev"), devno, sizeof(devno) - 1);
		CHECK_CMP(n, >, 0);
		devno[n > 0 ? n : 0] = '\0';
		snprintf(want, sizeof(want), "%u:%u\n", major(st.st_rdev), minor(st.st_rdev));
		CHECKF(strcmp(devno, want) == 0, "%s/dev is %s", sysdir, want);
		partitions_line(strrchr(sysdir, '/') + 1, &st, (long long)bytes);
		if (virtio_disk)
			pci_function();
	} else {
		check_skip("%s has no /sys/block entry: its sysfs and /proc/partitions lines", dev);
	}

	/* Patterns: a page, a page at its start, sectors not page-aligned,
	 * bytes across two pages, the last page. */
	long long mid = (long long)(bytes / 2);
	write_read(dev, fd, 0, 4096, 1);
	write_read(dev, fd, 4096, 8192, 2);
	write_read(dev, fd, 3 * 512, 1024, 3);
	write_read(dev, fd, mid + 100, 5000, 4);
	write_read(dev, fd, (long long)bytes - 4096, 4096, 5);
	CHECK_CMP(fsync(fd), ==, 0);

	/* The end: a read there is end of file, a write ENOSPC, and one that
	 * crosses it stops there; the offset moves within the device only. */
	char buf[100];
	CHECK_CMP(pread(fd, buf, sizeof(buf), (long long)bytes), ==, 0);
	CHECK_ERRNO(pwrite(fd, buf, sizeof(buf), (long long)bytes), ENOSPC);
	memset(buf, 0x5a, sizeof(buf));
	CHECK_CMP(pwrite(fd, buf, sizeof(buf), (long long)bytes - 10), ==, 10);
	CHECK_CMP(pread(fd, buf, sizeof(buf), (long long)bytes - 10), ==, 10);
	CHECK(all_bytes(buf, 10, 0x5a));
	CHECK_CMP(lseek(fd, 0, SEEK_END), ==, (long long)bytes);
	CHECK_CMP(lseek(fd, -512, SEEK_END), ==, (long long)bytes - 512);
	CHECK_ERRNO(lseek(fd, (long long)bytes + 1, SEEK_SET), EINVAL);
	CHECK_ERRNO(lseek(fd, -1, SEEK_SET), EINVAL);
	CHECK_CMP(lseek(fd, 0, SEEK_CUR), ==, (long long)bytes - 512);
	CHECK_CMP(read(fd, buf, sizeof(buf)), ==, (long)sizeof(buf));
	CHECK_CMP(lseek(fd, 0, SEEK_CUR), ==, (long long)bytes - 512 + (long long)sizeof(buf));
	CHECK_CMP(close(fd), ==, 0);
	return test_end();
}
