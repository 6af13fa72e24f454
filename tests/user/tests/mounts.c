/* mount(2) and umount2(2) of a tmpfs, as Linux 6.1 does them: a tmpfs
 * with size=1m,nr_inodes=8,mode=0700 on a fresh directory under /tmp,
 * its limits enforced (writes and inode creation fail with ENOSPC) and
 * reported by statfs, its line in /proc/self/mountinfo and
 * /proc/self/mounts with those options, a remount that changes them, a
 * read-only remount, umount refused while a file is open in it (EBUSY)
 * and on a directory that is not a mount point (EINVAL), and options and
 * types refused. The tmpfs is always unmounted again (an atexit handler
 * too), and the directory removed. Without the right to mount (EPERM)
 * the program is skipped. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "check.h"

#define TMPFS_MAGIC_ 0x01021994
#define ST_VALID_ 0x0020
#define ST_RDONLY_ 0x0001

static char dir[64];
static bool mounted;

#define at(name) path_in(dir, name)

static void cleanup(void) { mount_dir_release(dir, &mounted); }

/* The line of mountinfo (or mounts) whose mount point (field) is dir,
 * into line; false when there is none. */
static bool find_line(const char *file, int field, char *line, size_t size)
{
	static char buf[1 << 16];
	long n = read_file(file, buf, sizeof(buf));
	if (n <= 0)
		return false;
	for (char *p = buf; *p;) {
		char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char copy[1024];
		if (len < sizeof(copy)) {
			memcpy(copy, p, len);
			copy[len] = 0;
			char *save, *tok = strtok_r(copy, " ", &save);
			for (int i = 1; tok && i < field; i++)
				tok = strtok_r(NULL, " ", &save);
			if (tok && !strcmp(tok, dir) && len < size) {
				memcpy(line, p, len);
				line[len] = 0;
				return true;
			}
		}
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

/* Whether the comma-separated list opts holds option. */
static bool has_opt(const char *opts, const char *option)
{
	size_t n = strlen(option);
	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, option, n) && (p[n] == ',' || p[n] == 0 || p[n] == ' '))
			return true;
	return false;
}

static void check_mountinfo(void)
{
	char line[1024], root[256], mp[256], mopts[256], type[64], source[64], sopts[256];
	unsigned int id, parent, major, minor;
	if (!CHECKF(find_line("/proc/self/mountinfo", 5, line, sizeof(line)), "mountinfo has %s", dir))
		return;
	note("%s", line);
	int n = sscanf(line, "%u %u %u:%u %255s %255s %255s", &id, &parent, &major, &minor, root, mp, mopts);
	CHECK_CMP(n, ==, 7);
	const char *dash = strstr(line, " - ");
	CHECK(dash != NULL);
	if (!dash)
		return;
	CHECK_CMP(sscanf(dash, " - %63s %63s %255s", type, source, sopts), ==, 3);
	CHECK_CMP(major, ==, 0); /* an unnamed device */
	CHECK(id != parent);
	CHECK(!strcmp(root, "/"));
	CHECK(!strncmp(mopts, "rw", 2));
	CHECK(has_opt(mopts, "relatime"));
	CHECK(!strcmp(type, "tmpfs"));
	CHECK(!strcmp(source, "mnt_test"));
	CHECKF(!strncmp(sopts, "rw,", 3) && has_opt(sopts, "size=1024k") && has_opt(sopts, "nr_inodes=8") &&
		       has_opt(sopts, "mode=700"),
	       "super options %s", sopts);
	/* /proc/self/mounts: "source mountpoint type options 0 0". */
	if (CHECK(find_line("/proc/self/mounts", 2, line, sizeof(line)))) {
		char fields[4][256];
		CHECK_CMP(sscanf(line, "%255s %255s %255s %255s", fields[0], fields[1], fields[2], fields[3]), ==, 4);
		CHECK(!strcmp(fields[0], "mnt_test") && !strcmp(fields[2], "tmpfs"));
		CHECKF(!strncmp(fields[3], "rw,", 3) && has_opt(fields[3], "relatime") &&
			       has_opt(fields[3], "size=1024k") && has_opt(fields[3], "nr_inodes=8"),
		       "options %s", fields[3]);
		size_t len = strlen(line);
		CHECK(len > 4 && !strcmp(line + len - 4, " 0 0"));
	}
}

static void check_limits(void)
{
	struct statfs sf;
	CHECK_CMP(statfs(dir, &sf), ==, 0);
	CHECK_CMP(sf.f_type, ==, TMPFS_MAGIC_);
	CHECK_CMP(sf.f_bsize, ==, 4096);
	CHECK_CMP(sf.f_blocks, ==, 256); /* 1 MiB of pages */
	CHECK_CMP(sf.f_bfree, ==, 256);
	CHECK_CMP(sf.f_files, ==, 8);
	CHECK_CMP(sf.f_ffree, ==, 7); /* the root directory is one */
	CHECK(sf.f_flags & ST_VALID_);
	struct stat st;
	CHECK_CMP(stat(dir, &st), ==, 0);
	CHECK_CMP(st.st_mode, ==, S_IFDIR | 0700);

	/* Writes stop at 1 MiB: ENOSPC. */
	int fd = open(at("big"), O_CREAT | O_WRONLY, 0600);
	CHECK(fd >= 0);
	static char chunk[64 << 10];
	memset(chunk, 0x5a, sizeof(chunk));
	long total = 0, r;
	while ((r = write(fd, chunk, sizeof(chunk))) > 0)
		total += r;
	CHECK_CMP(r, ==, -1);
	CHECK_CMP(errno, ==, ENOSPC);
	CHECK_CMP(total, ==, 1 << 20);
	CHECK_CMP(fstatfs(fd, &sf), ==, 0);
	CHECK_CMP(sf.f_bfree, ==, 0);
	CHECK_CMP(sf.f_ffree, ==, 6);
	/* Another file's fallocate finds no room either. */
	int fd2 = open(at("fa"), O_CREAT | O_RDWR, 0600);
	CHECK(fd2 >= 0);
	CHECK_ERRNO(fallocate(fd2, 0, 0, 4096), ENOSPC);
	close(fd2);
	CHECK_CMP(unlink(at("fa")), ==, 0);

	/* umount refused while the file is open: EBUSY. */
	CHECK_ERRNO(umount2(dir, 0), EBUSY);
	close(fd);
	CHECK_CMP(unlink(at("big")), ==, 0);
	CHECK_CMP(statfs(dir, &sf), ==, 0);
	CHECK_CMP(sf.f_bfree, ==, 256);
	CHECK_CMP(sf.f_ffree, ==, 7);

	/* Inodes stop at 8: the root and 7 more. */
	char name[32];
	for (int i = 0; i < 7; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		int f = open(at(name), O_CREAT | O_WRONLY, 0600);
		CHECKF(f >= 0, "file %d of 7 made", i + 1);
		close(f);
	}
	CHECK_ERRNO(open(at("one_too_many"), O_CREAT | O_WRONLY, 0600), ENOSPC);
	CHECK_ERRNO(mkdir(at("dir_too_many"), 0700), ENOSPC);
	CHECK_CMP(statfs(dir, &sf), ==, 0);
	CHECK_CMP(sf.f_ffree, ==, 0);
	for (int i = 0; i < 7; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		CHECK_CMP(unlink(at(name)), ==, 0);
	}
}

static void check_remount(void)
{
	struct statfs sf;
	/* Options changed in place: the size doubles, the inodes stay. */
	CHECK_CMP(mount(NULL, dir, NULL, MS_REMOUNT, "size=2m"), ==, 0);
	CHECK_CMP(statfs(dir, &sf), ==, 0);
	CHECK_CMP(sf.f_blocks, ==, 512);
	CHECK_CMP(sf.f_files, ==, 8);
	/* Not below what is in use. */
	int fd = open(at("two_pages"), O_CREAT | O_WRONLY, 0600);
	static char two[8192];
	CHECK_CMP(write(fd, two, sizeof(two)), ==, (long)sizeof(two));
	close(fd);
	CHECK_ERRNO(mount(NULL, dir, NULL, MS_REMOUNT, "size=4k"), EINVAL);
	CHECK_ERRNO(mount(NULL, dir, NULL, MS_REMOUNT, "nr_inodes=1"), EINVAL);
	/* Not read-only while a file is open for writing (EBUSY). */
	fd = open(at("two_pages"), O_WRONLY);
	CHECK(fd >= 0);
	CHECK_ERRNO(mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, "size=2m"), EBUSY);
	CHECK_ERRNO(mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL), EBUSY);
	close(fd);
	/* Read-only: nothing made, changed or removed (EROFS); reads go on. */
	CHECK_CMP(mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, "size=2m"), ==, 0);
	CHECK_CMP(statfs(dir, &sf), ==, 0);
	CHECK(sf.f_flags & ST_RDONLY_);
	CHECK_ERRNO(open(at("new"), O_CREAT | O_WRONLY, 0600), EROFS);
	CHECK_ERRNO(open(at("two_pages"), O_WRONLY), EROFS);
	CHECK_ERRNO(mkdir(at("d"), 0700), EROFS);
	CHECK_ERRNO(unlink(at("two_pages")), EROFS);
	CHECK_ERRNO(chmod(at("two_pages"), 0644), EROFS);
	fd = open(at("two_pages"), O_RDONLY);
	CHECK(fd >= 0);
	CHECK_CMP(read(fd, two, sizeof(two)), ==, (long)sizeof(two));
	close(fd);
	char line[1024];
	if (CHECK(find_line("/proc/self/mountinfo", 5, line, sizeof(line))))
		CHECKF(strstr(line, " ro,") && strstr(line, " - tmpfs mnt_test ro,"), "%s", line);
	CHECK_CMP(mount(NULL, dir, NULL, MS_REMOUNT, "size=1m"), ==, 0);
	CHECK_CMP(unlink(at("two_pages")), ==, 0);

	/* A directory of the tmpfs is no mount point. */
	CHECK_CMP(mkdir(at("sub"), 0700), ==, 0);
	CHECK_ERRNO(umount2(at("sub"), 0), EINVAL);
	CHECK_ERRNO(mount(NULL, at("sub"), NULL, MS_REMOUNT, NULL), EINVAL);
	CHECK_CMP(rmdir(at("sub")), ==, 0);
}

static void check_refused(void)
{
	char d2[64];
	snprintf(d2, sizeof(d2), "%s", at("m2"));
	CHECK_CMP(mkdir(d2, 0700), ==, 0);
	static const char *const bad[] = {
		"size=1q", "size", "nr_inodes=1x", "mode=9", "huge=sometimes", "frobnicate=1", "nosuid", "mpol=bind",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		int r = mount("mnt_test", d2, "tmpfs", 0, bad[i]);
		CHECKF(r == -1 && errno == EINVAL, "mount -o %s: %d %s", bad[i], r, errno_name(errno));
		if (r == 0)
			umount2(d2, MNT_DETACH);
	}
	CHECK_ERRNO(mount("mnt_test", d2, "no_such_fs", 0, NULL), ENODEV);
	CHECK_ERRNO(mount("mnt_test", at("missing"), "tmpfs", 0, NULL), ENOENT);
	CHECK_ERRNO(umount2(at("missing"), 0), ENOENT);
	CHECK_ERRNO(umount2(dir, 0x100), EINVAL);
	/* A mount on a mount: the inner one first, MNT_DETACH takes it at once. */
	if (CHECK_CMP(mount("mnt_test", d2, "tmpfs", MS_NOEXEC, "size=64k"), ==, 0)) {
		struct statfs sf;
		CHECK_CMP(statfs(d2, &sf), ==, 0);
		CHECK_CMP(sf.f_blocks, ==, 16);
		CHECK(sf.f_flags & 0x0008); /* ST_NOEXEC */
		CHECK_ERRNO(umount2(dir, 0), EBUSY); /* the inner mount holds it */
		CHECK_ERRNO(rmdir(d2), EBUSY);
		CHECK_CMP(umount2(d2, MNT_DETACH), ==, 0);
	}
	CHECK_CMP(rmdir(d2), ==, 0);
}

int main(void)
{
	test_begin("mounts");
	snprintf(dir, sizeof(dir), "/tmp/mounts_XXXXXX");
	if (!mkdtemp(dir))
		test_skip("mkdtemp: %s", strerror(errno));
	atexit(cleanup);
	if (mount_tmpfs_or_skip("mnt_test", dir, "size=1m,nr_inodes=8,mode=0700", cleanup))
		return test_end();
	mounted = true;
	check_mountinfo();
	check_limits();
	check_remount();
	check_refused();
	CHECK_CMP(umount2(dir, 0), ==, 0);
	mounted = false;
	char line[1024];
	CHECK(!find_line("/proc/self/mountinfo", 5, line, sizeof(line)));
	cleanup();
	return test_end();
}
