/* What /proc/self/maps, smaps and numa_maps show of shared memory, as
 * Linux does: every kind lives in an unlinked file of the kernel's
 * internal tmpfs (shm_mnt), and its line shows that file.
 *
 *   MAP_SHARED | MAP_ANONYMOUS      "/dev/zero (deleted)", offset 0
 *   MAP_SHARED of /dev/zero         "/dev/zero (deleted)", the offset given
 *   memfd_create("names")           "/memfd:names (deleted)", fstat's inode
 *   System V segment (shmat)        "/SYSV<key in hex> (deleted)", the
 *                                   segment's id as its inode number
 *
 * The device is the internal mount's: the memfd's st_dev (fstat), and the
 * same for every kind; each anonymous mapping has a file, and an inode
 * number, of its own. smaps' header line is the maps line; numa_maps
 * names the file (" file=/dev/zero\040(deleted)", its space escaped) where
 * the kernel has numa_maps. Private anonymous memory keeps no name, device
 * 00:00 and inode 0. The host's inode numbers and device are compared with
 * what its own calls say, never with fixed numbers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"

#define PG 4096ul
#define LEN (16 * PG)

/* The fields of one maps line (Linux's show_vma_header_prefix and name). */
struct maps_line {
	unsigned long start, end, offset, ino;
	unsigned int major, minor;
	char perms[8];
	char name[256];
	char whole[512];
};

static char maps[1 << 17];

/* The maps (or smaps: its header lines are maps lines) line of the VMA
 * that starts at p. */
static bool find_line(const char *path, const void *p, struct maps_line *out)
{
	maps[0] = '\n';
	if (read_file(path, maps + 1, sizeof(maps) - 1) <= 0)
		return false;
	char key[32];
	snprintf(key, sizeof(key), "\n%lx-", (unsigned long)p);
	char *line = strstr(maps, key);
	if (!line)
		return false;
	line++;
	char *end = strchr(line, '\n');
	size_t n = end ? (size_t)(end - line) : strlen(line);
	if (n >= sizeof(out->whole))
		n = sizeof(out->whole) - 1;
	memcpy(out->whole, line, n);
	out->whole[n] = 0;
	int used = 0;
	out->name[0] = 0;
	if (sscanf(out->whole, "%lx-%lx %7s %lx %x:%x %lu %n", &out->start, &out->end, out->perms, &out->offset,
		   &out->major, &out->minor, &out->ino, &used) < 7)
		return false;
	snprintf(out->name, sizeof(out->name), "%s", used ? out->whole + used : "");
	return true;
}

static int memfd(const char *name) { return (int)syscall(SYS_memfd_create, name, 0u); }

/* One shared mapping's line: name, offset, device, and its inode (0: any
 * non-zero one) in maps and smaps alike; numa_maps' file= name. Returns
 * its inode number. */
static unsigned long check_line(const char *what, const void *p, const char *name, unsigned long offset,
				dev_t dev, unsigned long ino)
{
	struct maps_line l, s;
	if (!CHECKF(find_line("/proc/self/maps", p, &l), "%s: a maps line at %p", what, p))
		return 0;
	note("%s: %s", what, l.whole);
	CHECKF(!strcmp(l.name, name), "%s: named \"%s\" (want \"%s\")", what, l.name, name);
	CHECKF(!strcmp(l.perms, "rw-s"), "%s: perms %s", what, l.perms);
	CHECK_CMP(l.offset, ==, offset);
	CHECKF(l.major == major(dev) && l.minor == minor(dev), "%s: device %02x:%02x, the internal mount's %02x:%02x",
	       what, l.major, l.minor, major(dev), minor(dev));
	if (ino)
		CHECK_CMP(l.ino, ==, ino);
	else
		CHECK_CMP(l.ino, !=, 0);
	if (CHECKF(find_line("/proc/self/smaps", p, &s), "%s: an smaps block", what))
		CHECKF(!strcmp(s.whole, l.whole), "%s: smaps' header is the maps line: %s", what, s.whole);
	char numa[512];
	if (numa_maps_line(p, numa, sizeof(numa))) {
		char want[300];
		snprintf(want, sizeof(want), " file=");
		size_t k = strlen(want);
		for (const char *c = name; *c && k + 5 < sizeof(want); c++)
			k += (size_t)(*c == ' ' ? snprintf(want + k, sizeof(want) - k, "\\040")
						: snprintf(want + k, sizeof(want) - k, "%c", *c));
		CHECKF(strstr(numa, want) != NULL, "%s: numa_maps \"%s\" has \"%s\"", what, numa, want);
	}
	return l.ino;
}

int main(void)
{
	test_begin("shmem_maps_names");
	/* The internal mount's device: a memfd's. */
	int mfd = memfd("names");
	if (!CHECK(mfd >= 0))
		return test_end();
	struct stat st;
	CHECK_CMP(fstat(mfd, &st), ==, 0);
	CHECK_CMP(ftruncate(mfd, (off_t)LEN), ==, 0);
	char *m = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (CHECK(m != MAP_FAILED)) {
		check_line("memfd", m, "/memfd:names (deleted)", 0, st.st_dev, (unsigned long)st.st_ino);
		CHECK_CMP(munmap(m, LEN), ==, 0);
	}
	/* An offset shows as the mapping's. */
	m = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, (off_t)(2 * PG));
	if (CHECK(m != MAP_FAILED)) {
		check_line("memfd at 8 KiB", m, "/memfd:names (deleted)", 2 * PG, st.st_dev, (unsigned long)st.st_ino);
		CHECK_CMP(munmap(m, 4 * PG), ==, 0);
	}
	close(mfd);

	/* Shared anonymous memory: offset 0 (Linux's do_mmap ignores pgoff),
	 * each mapping a file of its own. */
	char *a = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *b = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (CHECK(a != MAP_FAILED && b != MAP_FAILED)) {
		a[0] = 1;
		unsigned long ia = check_line("shared anonymous", a, "/dev/zero (deleted)", 0, st.st_dev, 0);
		unsigned long ib = check_line("another", b, "/dev/zero (deleted)", 0, st.st_dev, 0);
		CHECK_CMP(ia, !=, ib);
		/* Both halves of a split show the file, the second at its offset. */
		CHECK_CMP(mprotect(a + 4 * PG, PG, PROT_READ), ==, 0);
		check_line("shared anonymous, split", a + 5 * PG, "/dev/zero (deleted)", 5 * PG, st.st_dev, ia);
		CHECK_CMP(munmap(a, LEN), ==, 0);
		CHECK_CMP(munmap(b, LEN), ==, 0);
	}

	/* /dev/zero MAP_SHARED: shared anonymous memory too, at the offset
	 * given. */
	int z = open("/dev/zero", O_RDWR);
	if (CHECK(z >= 0)) {
		char *d = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, z, (off_t)(2 * PG));
		if (CHECK(d != MAP_FAILED)) {
			check_line("/dev/zero shared", d, "/dev/zero (deleted)", 2 * PG, st.st_dev, 0);
			CHECK_CMP(munmap(d, LEN), ==, 0);
		}
		close(z);
	}

	/* A System V segment: its key in the name, its id the inode. */
	const long key = 0x5eed0000 + (getpid() & 0xffff);
	int id = (int)syscall(SYS_shmget, key, LEN, IPC_CREAT | 0600);
	if (CHECKF(id >= 0, "shmget: %s", strerror(errno))) {
		char *s = (char *)syscall(SYS_shmat, id, NULL, 0);
		if (CHECK(s != (char *)-1)) {
			char name[64];
			snprintf(name, sizeof(name), "/SYSV%08lx (deleted)", key);
			check_line("System V segment", s, name, 0, st.st_dev, (unsigned long)id);
			CHECK_CMP(syscall(SYS_shmdt, s), ==, 0);
		}
		CHECK_CMP(syscall(SYS_shmctl, id, IPC_RMID, NULL), ==, 0);
	}
	/* IPC_PRIVATE: key 0. */
	id = (int)syscall(SYS_shmget, 0L, LEN, 0600);
	if (CHECKF(id >= 0, "shmget: %s", strerror(errno))) {
		char *s = (char *)syscall(SYS_shmat, id, NULL, 0);
		if (CHECK(s != (char *)-1)) {
			check_line("private segment", s, "/SYSV00000000 (deleted)", 0, st.st_dev, (unsigned long)id);
			CHECK_CMP(syscall(SYS_shmdt, s), ==, 0);
		}
		CHECK_CMP(syscall(SYS_shmctl, id, IPC_RMID, NULL), ==, 0);
	}

	/* Private anonymous memory: no file. */
	char *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (CHECK(p != MAP_FAILED)) {
		struct maps_line l;
		if (CHECK(find_line("/proc/self/maps", p, &l)))
			CHECKF(l.major == 0 && l.minor == 0 && l.ino == 0 && l.offset == 0 && !l.name[0],
			       "private anonymous: %s", l.whole);
		CHECK_CMP(munmap(p, LEN), ==, 0);
	}
	return test_end();
}
