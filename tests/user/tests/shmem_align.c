/* Where shared memory is placed and how its huge pages are mapped, as
 * Linux 6.1's shmem_get_unmapped_area and filemap_map_pmd do.
 *
 * Placement: a mapping of 4 MiB that may get huge pages (the internal
 * mount's huge=, shmem_enabled's value, not never or deny; a tmpfs file's
 * own huge=) is placed without the program aligning it at an address
 * congruent to its file offset modulo 2 MiB: shared anonymous memory,
 * /dev/zero shared mappings, a System V segment and memfd at offset 0 on
 * a 2 MiB boundary, a memfd at offset 4 KiB 4 KiB past one; mremap moves
 * one by the same rule. Its first
 * touch of each 2 MiB then maps a huge page by a PMD (ShmemPmdMapped)
 * under always, none under never. A hint that is free is taken as it
 * is. Private anonymous memory keeps its own placement (mmlab aligns
 * 2 MiB multiples as Linux 6.7+ does; Linux 6.1 does not: asked only
 * of mmlab).
 *
 * Private mappings of a huge tmpfs file (huge=always): a read maps the
 * file's huge page by a PMD, read-only (ShmemPmdMapped, FilePmdMapped 0:
 * tmpfs pages are shmem; no Anonymous); a write splits that PMD and
 * copies one page (Anonymous 4 kB, the file unchanged); an mprotect
 * round trip does not make the PMD writable; a child after fork reads
 * the copy and the file.
 *
 * shmem_enabled is asked, never assumed: on Linux the setting in force is
 * used as it is; on mmlab, a machine of the test's own, the program sets
 * always and never in turn and puts the setting back. Where the kernel
 * may use shmem folios smaller than 2 MiB the 2 MiB figures alone are
 * checked; where no 2 MiB block is free (thp_file_fallback) the huge
 * checks are skipped. */
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define HPAGE (2ul << 20)
#define PG 4096ul
#define LEN (2 * HPAGE)

/* The kinds of shared anonymous memory and memfd, mapped LEN bytes at no
 * address the program chose. */
enum kind { SHARED_ANON, DEV_ZERO, SYSV, MEMFD, MEMFD_OFFSET, NR_KINDS };
static const char *const kind_name[NR_KINDS] = { "MAP_SHARED|MAP_ANONYMOUS", "/dev/zero shared", "System V segment",
						 "memfd", "memfd at offset 4 KiB" };

struct mapping {
	char *p;
	int fd, shmid;
	unsigned long offset; /* the file offset of p */
};

static bool map_kind(enum kind k, struct mapping *m)
{
	m->p = MAP_FAILED;
	m->fd = m->shmid = -1;
	m->offset = k == MEMFD_OFFSET ? PG : 0;
	switch (k) {
	case SHARED_ANON:
		m->p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		break;
	case DEV_ZERO:
		m->fd = open("/dev/zero", O_RDWR);
		if (m->fd >= 0)
			m->p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
		break;
	case SYSV:
		m->shmid = shmget(IPC_PRIVATE, LEN, 0600);
		if (m->shmid >= 0) {
			void *s = shmat(m->shmid, NULL, 0);
			m->p = s == (void *)-1 ? MAP_FAILED : s;
		}
		break;
	case MEMFD:
	case MEMFD_OFFSET:
		m->fd = (int)syscall(SYS_memfd_create, "shmem_align", 0u);
		if (m->fd >= 0 && ftruncate(m->fd, (off_t)(LEN + m->offset)) == 0)
			m->p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, (off_t)m->offset);
		break;
	default:
		break;
	}
	return CHECKF(m->p != MAP_FAILED, "%s mapped%s%s", kind_name[k], m->p == MAP_FAILED ? ": " : "",
		      m->p == MAP_FAILED ? strerror(errno) : "");
}

static void unmap_kind(enum kind k, struct mapping *m)
{
	if (m->p != MAP_FAILED)
		CHECK_CMP(k == SYSV ? shmdt(m->p) : munmap(m->p, LEN), ==, 0);
	if (m->shmid >= 0)
		CHECK_CMP(shmctl(m->shmid, IPC_RMID, NULL), ==, 0);
	if (m->fd >= 0)
		close(m->fd);
}

/* mremap of a mapping that cannot grow where it is: the new place goes
 * by the same rule, with the mapping's file offset (Linux's
 * vrm_set_new_addr passes vm_file and vm_pgoff, and MAP_SHARED). */
static void check_mremap(enum kind k, struct mapping *m, bool may_huge)
{
	char *wall = mmap(m->p + LEN, PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	char *q = mremap(m->p, LEN, LEN + HPAGE, MREMAP_MAYMOVE);
	if (CHECKF(q != MAP_FAILED, "%s moved by mremap%s%s", kind_name[k], q == MAP_FAILED ? ": " : "",
		   q == MAP_FAILED ? strerror(errno) : "")) {
		note("%s moved to %p", kind_name[k], (void *)q);
		CHECK(q != m->p && q[0] == 1);
		if (may_huge)
			CHECKF(((uintptr_t)q & (HPAGE - 1)) == m->offset, "%s moved to %p", kind_name[k], (void *)q);
		/* The caller unmaps LEN at m->p: what is left of the move. */
		CHECK_CMP(munmap(q + LEN, HPAGE), ==, 0);
		m->p = q;
	}
	if (wall != MAP_FAILED)
		CHECK_CMP(munmap(wall, PG), ==, 0);
}

/* Every kind under shmem_enabled word: placed aligned when huge pages may
 * come, PMD-mapped after a touch of each 2 MiB when they come at once. */
static void check_kinds(const char *word)
{
	bool may_huge = strcmp(word, "never") && strcmp(word, "deny");
	bool huge_now = !strcmp(word, "always") || !strcmp(word, "within_size") || !strcmp(word, "force");
	for (enum kind k = 0; k < NR_KINDS; k++) {
		struct mapping m;
		if (!map_kind(k, &m)) {
			unmap_kind(k, &m);
			continue;
		}
		unsigned long residue = (uintptr_t)m.p & (HPAGE - 1);
		note("%s, shmem_enabled %s: at %p", kind_name[k], word, (void *)m.p);
		if (may_huge)
			CHECKF(residue == m.offset, "%s: %#lx past 2 MiB, its offset %#lx", kind_name[k], residue, m.offset);
		long alloc0 = vmstat_value("thp_file_alloc"), fallback0 = vmstat_value("thp_file_fallback");
		for (unsigned long off = 0; off < LEN; off += HPAGE / 2)
			m.p[off] = 1;
		/* The huge pages that fit whole: two at offset 0, one at 4 KiB. */
		long want = huge_now ? (m.offset ? 2048 : 4096) : 0;
		if (huge_now && vmstat_value("thp_file_fallback") > fallback0 &&
		    vmstat_value("thp_file_alloc") - alloc0 < (m.offset ? 1 : 2))
			check_skip("no free 2 MiB block (thp_file_fallback): 4 KiB pages");
		else
			CHECKF(smaps_kb(m.p, "ShmemPmdMapped") == want, "%s: ShmemPmdMapped %ld kB, want %ld",
			       kind_name[k], smaps_kb(m.p, "ShmemPmdMapped"), want);
		CHECK_CMP(smaps_kb(m.p, "AnonHugePages"), ==, 0);
		if (k == SHARED_ANON || k == MEMFD_OFFSET)
			check_mremap(k, &m, may_huge);
		unmap_kind(k, &m);
	}
	/* A hint that is free is taken as it is, aligned or not. */
	char *hole = mmap(NULL, LEN + HPAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (CHECK(hole != MAP_FAILED)) {
		CHECK_CMP(munmap(hole, LEN + HPAGE), ==, 0);
		char *hint = (char *)(((uintptr_t)hole + HPAGE - 1) & ~(HPAGE - 1)) + PG;
		char *q = mmap(hint, LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		CHECKF(q == hint, "hint %p taken: %p", (void *)hint, (void *)q);
		if (q != MAP_FAILED)
			CHECK_CMP(munmap(q, LEN), ==, 0);
	}
}

static char dir[64];
static bool mounted;
static void cleanup(void) { mount_dir_release(dir, &mounted); }

static void check_file_bytes(int fd, unsigned long off, unsigned char want)
{
	unsigned char c = 0xee;
	CHECK_CMP(pread(fd, &c, 1, (off_t)off), ==, 1);
	CHECKF(c == want, "the file's byte at %#lx is %u, want %u", off, c, want);
}

/* A private mapping of a huge tmpfs file: PMD-mapped reads, a write that
 * splits and copies one page. */
static void check_private(int fd)
{
	/* The file's pages: huge pages made by a shared mapping's touches. */
	long alloc0 = vmstat_value("thp_file_alloc"), fallback0 = vmstat_value("thp_file_fallback");
	char *s = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK(s != MAP_FAILED))
		return;
	CHECKF(((uintptr_t)s & (HPAGE - 1)) == 0, "huge=always file placed at %p", (void *)s);
	for (unsigned long off = 0; off < LEN; off += PG)
		s[off] = (char)(off / PG + 1);
	CHECK_CMP(munmap(s, LEN), ==, 0);
	if (vmstat_value("thp_file_alloc") - alloc0 < 2) {
		if (vmstat_value("thp_file_fallback") > fallback0)
			check_skip("no free 2 MiB block (thp_file_fallback): no huge page to map");
		else
			CHECKF(false, "two huge pages made (thp_file_alloc up by %ld)", vmstat_value("thp_file_alloc") - alloc0);
		return;
	}
	char *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (!CHECK(p != MAP_FAILED))
		return;
	CHECKF(((uintptr_t)p & (HPAGE - 1)) == 0, "private mapping placed at %p", (void *)p);
	long pmd0 = meminfo_kb("ShmemPmdMapped");
	CHECK(p[0] == 1 && p[HPAGE] == (char)(HPAGE / PG + 1));
	CHECK_CMP(smaps_kb(p, "ShmemPmdMapped"), ==, 4096);
	CHECK_CMP(smaps_kb(p, "FilePmdMapped"), ==, 0);
	CHECK_CMP(smaps_kb(p, "Anonymous"), ==, 0);
	CHECK_CMP(smaps_kb(p, "Rss"), ==, 4096);
	CHECK_CMP(meminfo_kb("ShmemPmdMapped") - pmd0, >=, 4096);
	/* A write: the first 2 MiB's PMD goes, one page is copied. */
	p[5] = 'x';
	CHECK(p[5] == 'x' && p[0] == 1);
	check_file_bytes(fd, 5, 0);
	CHECK_CMP(smaps_kb(p, "ShmemPmdMapped"), ==, 2048);
	CHECK_CMP(smaps_kb(p, "Anonymous"), ==, 4);
	/* The rest of that 2 MiB reads the file again, by PTEs. */
	CHECK(p[7 * PG] == 8 && p[HPAGE - PG] == (char)(HPAGE / PG));
	CHECK_CMP(smaps_kb(p, "ShmemPmdMapped"), ==, 2048);
	/* mprotect round trip: the second PMD stays read-only. */
	CHECK_CMP(mprotect(p, LEN, PROT_READ), ==, 0);
	CHECK_CMP(mprotect(p, LEN, PROT_READ | PROT_WRITE), ==, 0);
	p[HPAGE + 9] = 'y';
	check_file_bytes(fd, HPAGE + 9, 0);
	CHECK_CMP(smaps_kb(p, "ShmemPmdMapped"), ==, 0);
	CHECK_CMP(smaps_kb(p, "Anonymous"), ==, 8);
	/* Read again: the second 2 MiB is mapped by PTEs now (a table is
	 * there), the first copy kept. */
	CHECK(p[HPAGE + PG] == (char)(HPAGE / PG + 2) && p[5] == 'x' && p[HPAGE + 9] == 'y');
	/* A child sees the copies and the file. */
	pid_t pid = fork();
	if (pid == 0)
		_exit(p[5] == 'x' && p[HPAGE + 9] == 'y' && p[3 * PG] == 4 && p[HPAGE + 3 * PG] == (char)(HPAGE / PG + 4)
			      ? 0
			      : 1);
	int status = -1;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_CMP(munmap(p, LEN), ==, 0);

	/* Read-only from the start: a fresh private mapping maps both huge
	 * pages by PMDs again, a read leaves the file's pages shared. */
	p = mmap(NULL, LEN, PROT_READ, MAP_PRIVATE, fd, 0);
	if (CHECK(p != MAP_FAILED)) {
		CHECK(p[HPAGE - 1] == 0 && p[LEN - PG] == (char)(LEN / PG));
		CHECK_CMP(smaps_kb(p, "ShmemPmdMapped"), ==, 4096);
		CHECK_CMP(munmap(p, LEN), ==, 0);
	}
}

int main(void)
{
	test_begin("shmem_align");
	const char *word = shmem_enabled_mode();
	if (!word)
		test_skip("no transparent_hugepage/shmem_enabled: no THP here");
	char was[32];
	snprintf(was, sizeof(was), "%s", word);
	bool small_sizes = shmem_small_sizes(was);
	if (on_mmlab()) {
		static const char *const words[] = { "always", "never" };
		for (unsigned i = 0; i < 2; i++)
			if (CHECK(shmem_enabled_set(words[i])))
				check_kinds(words[i]);
		CHECK(shmem_enabled_set(was));
		/* Private anonymous memory: mmlab's placement, unchanged. */
		char *a = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (CHECK(a != MAP_FAILED)) {
			CHECKF(((uintptr_t)a & (HPAGE - 1)) == 0, "private anonymous 4 MiB at %p", (void *)a);
			CHECK_CMP(munmap(a, LEN), ==, 0);
		}
	} else if (!strcmp(was, "deny") || !strcmp(was, "never") || !small_sizes) {
		/* (never and deny map no PMD, whatever smaller folios come) */
		check_kinds(was);
	} else {
		check_skip("shmem may use folios below 2 MiB here: what a touch makes is not 2 MiB's or 4 KiB's");
	}

	snprintf(dir, sizeof(dir), "/tmp/shmem_align_XXXXXX");
	if (!mkdtemp(dir))
		test_skip("mkdtemp: %s", strerror(errno));
	atexit(cleanup);
	if (!strcmp(was, "deny")) {
		check_skip("shmem_enabled is deny: no huge tmpfs page");
		return test_end();
	}
	if (mount_tmpfs_or_skip("shmem_align", dir, "huge=always,size=16m", cleanup))
		return test_end();
	mounted = true;
	mount_dir_file_run(dir, &mounted, (long)LEN, check_private);
	return test_end();
}
