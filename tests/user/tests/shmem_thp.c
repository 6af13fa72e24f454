/* Huge pages of a tmpfs mounted huge=always, as the kernel reports them:
 * huge=deny and huge=force refused (EINVAL: shmem_enabled's words alone),
 * huge=always shown in /proc/self/mounts, st_blksize 2 MiB, a shared
 * mapping's first touch of an aligned 2 MiB making a huge page
 * (thp_file_alloc, ShmemHugePages up by 2 MiB, the bytes the same through
 * read(2)), a hole of one page punched inside it splitting it
 * (ShmemHugePages down again, the hole zeros, every other byte kept; a
 * kernel other than mmlab may keep the page whole with the hole zeroed,
 * as Linux does when the split fails), and
 * the instance unmounted. The huge page is mapped with a PMD where the
 * mapping is 2 MiB aligned (ShmemPmdMapped in /proc/meminfo and smaps,
 * FilePmdMapped 0: tmpfs pages are shmem). shmem_enabled "deny" allows no huge
 * page: then those parts are skipped, as when no 2 MiB block is free
 * (thp_file_fallback). Without the right to mount (EPERM) that part is
 * skipped; without THP, the program.
 *
 * Shared anonymous memory (MAP_SHARED | MAP_ANONYMOUS) lives on the
 * kernel's internal tmpfs, whose huge= is shmem_enabled's (Linux's
 * shm_mnt): at a 2 MiB-aligned address its first touch is a huge page
 * mapped by a PMD exactly when shmem_enabled says always, within_size or
 * force, or advise and the mapping asked (MADV_HUGEPAGE): smaps'
 * THPeligible and ShmemPmdMapped say so, AnonHugePages stays 0 (a shmem
 * page is no anonymous THP). Where the kernel may use smaller shmem
 * folios (Linux 6.11+'s hugepages-<N>kB/shmem_enabled), only the 2 MiB
 * figures are checked. The setting in force is asked, never assumed; on
 * mmlab, a machine of the test's own, the program also sets advise and
 * always and puts the setting back, so that the huge case runs there
 * whatever the boot left (Linux's own is left alone). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#define HPAGE (2ul << 20)
#define PG 4096ul

static char dir[64];
static bool mounted;

static void cleanup(void) { mount_dir_release(dir, &mounted); }

/* A 2 MiB-aligned address with len bytes free after it. */
static void *aligned_hole(size_t len)
{
	char *p = mmap(NULL, len + HPAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	char *a = (char *)(((uintptr_t)p + HPAGE - 1) & ~(HPAGE - 1));
	munmap(p, len + HPAGE);
	return a;
}

/* A shared anonymous 2 MiB at an aligned address, madvised or not,
 * touched once: a huge page mapped by a PMD exactly when enabled says. */
static void check_shared_anon(const char *enabled)
{
	bool small_sizes = shmem_small_sizes(enabled);
	bool always = !strcmp(enabled, "always") || !strcmp(enabled, "within_size") || !strcmp(enabled, "force");
	for (int madvised = 0; madvised < 2; madvised++) {
		bool expect = always || (madvised && !strcmp(enabled, "advise"));
		char *want = aligned_hole(HPAGE);
		char *p = want ? mmap(want, HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
			       : MAP_FAILED;
		if (!CHECK(p != MAP_FAILED && p == want))
			return;
		if (madvised)
			CHECK_CMP(madvise(p, HPAGE, MADV_HUGEPAGE), ==, 0);
		note("shared anonymous, shmem_enabled %s%s: %s", enabled, madvised ? ", MADV_HUGEPAGE" : "",
		     expect ? "huge" : "4 KiB pages");
		if (expect || !small_sizes)
			CHECK_CMP(smaps_kb(p, "THPeligible"), ==, expect ? 1 : 0);
		long alloc0 = vmstat_value("thp_file_alloc"), fallback0 = vmstat_value("thp_file_fallback");
		p[100] = 1;
		if (expect && vmstat_value("thp_file_alloc") == alloc0 && vmstat_value("thp_file_fallback") > fallback0) {
			check_skip("no free 2 MiB block (thp_file_fallback): 4 KiB pages");
		} else {
			CHECK_CMP(smaps_kb(p, "ShmemPmdMapped"), ==, expect ? 2048 : 0);
			CHECK_CMP(smaps_kb(p, "AnonHugePages"), ==, 0);
			if (expect || !small_sizes)
				CHECK_CMP(smaps_kb(p, "Rss"), ==, expect ? 2048 : (long)PG / 1024);
		}
		CHECK(p[100] == 1 && p[HPAGE - 1] == 0);
		CHECK_CMP(munmap(p, HPAGE), ==, 0);
	}
}

static bool deny_mode; /* shmem_enabled is deny */

static void check_huge_page(int fd)
{
	bool deny = deny_mode;
	struct stat st;
	CHECK_CMP(fstat(fd, &st), ==, 0);
	/* Linux's shmem_getattr: HPAGE_PMD_SIZE when the file may be huge. */
	CHECK_CMP(st.st_blksize, ==, deny ? (long)PG : (long)HPAGE);
	char *want = aligned_hole(2 * HPAGE);
	if (!CHECK(want != NULL))
		return;
	char *p = mmap(want, 2 * HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	if (!CHECK(p == want))
		return;
	/* Linux's hugepage_vma_check: huge= (or shmem_enabled) says yes. */
	CHECK_CMP(smaps_kb(p, "THPeligible"), ==, deny ? 0 : 1);
	long huge0 = meminfo_kb("ShmemHugePages"), pmd0 = meminfo_kb("ShmemPmdMapped");
	long alloc0 = vmstat_value("thp_file_alloc"), fallback0 = vmstat_value("thp_file_fallback");
	CHECK(huge0 >= 0 && pmd0 >= 0 && alloc0 >= 0 && fallback0 >= 0);
	for (size_t off = 0; off < HPAGE; off += PG)
		memset(p + off, (int)(off / PG) & 0xff, PG);
	long allocs = vmstat_value("thp_file_alloc") - alloc0;
	if (deny) {
		CHECK_CMP(allocs, ==, 0);
		check_skip("shmem_enabled is deny: no huge page to look at");
	} else if (allocs == 0 && vmstat_value("thp_file_fallback") > fallback0) {
		check_skip("no free 2 MiB block (thp_file_fallback): 4 KiB pages");
	} else {
		CHECK_CMP(allocs, >=, 1);
		CHECK_CMP(meminfo_kb("ShmemHugePages") - huge0, >=, 2048);
		CHECK_CMP(smaps_kb(p, "ShmemPmdMapped"), ==, 2048);
		CHECK_CMP(smaps_kb(p, "FilePmdMapped"), ==, 0);
		CHECK_CMP(meminfo_kb("ShmemPmdMapped") - pmd0, >=, 2048);
		/* pagemap: present, not swapped, a file page (PM_FILE). */
		int pm = open("/proc/self/pagemap", O_RDONLY);
		uint64_t e = 0;
		if (CHECK(pm >= 0)) {
			CHECK_CMP(pread(pm, &e, sizeof(e), (off_t)((uintptr_t)(p + 7 * PG) / PG * 8)), ==, 8);
			CHECK_CMP(e >> 61 & 7, ==, 5); /* bits 63 (present) and 61 (file) */
			close(pm);
		}
		long huge1 = meminfo_kb("ShmemHugePages");
		/* One page punched inside: split, the rest kept. Linux splits
		 * when it can; when the split fails (another reference to the
		 * page, say) it keeps the huge page and zeroes the hole
		 * (truncate_inode_partial_folio), and the bytes below check
		 * the zeros either way. mmlab, whose pages the test owns,
		 * must split; another kernel may keep it (Linux 6.18 did, on
		 * a Debian host). */
		CHECK_CMP(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 100 * PG, PG), ==, 0);
		long huge2 = meminfo_kb("ShmemHugePages");
		if (huge2 > huge1 - 2048 && !on_mmlab())
			check_skip("the hole punched was zeroed in the huge page, not split off (ShmemHugePages %ld kB "
				   "before, %ld after): Linux's way when the split fails",
				   huge1, huge2);
		else
			CHECK_CMP(huge2, <=, huge1 - 2048);
		CHECK_CMP(smaps_kb(p, "ShmemPmdMapped"), ==, 0);
	}
	/* The bytes, whatever the pages are: the hole zeros if punched. */
	bool punched = !deny && allocs >= 1;
	CHECK(all_bytes(p + 100 * PG, PG, punched ? 0 : 100));
	CHECK(all_bytes(p + 99 * PG, PG, 99));
	CHECK(all_bytes(p + 511 * PG, PG, 511 & 0xff));
	unsigned char page[PG];
	CHECK_CMP(pread(fd, page, PG, 101 * PG), ==, (long)PG);
	CHECK(all_bytes(page, PG, 101));
	CHECK_CMP(munmap(p, 2 * HPAGE), ==, 0);
}

int main(void)
{
	test_begin("shmem_thp");
	const char *enabled = shmem_enabled_mode();
	if (!enabled)
		test_skip("no /sys/kernel/mm/transparent_hugepage/shmem_enabled: no THP here");
	bool deny = !strcmp(enabled, "deny");
	check_shared_anon(enabled);
	if (on_mmlab()) {
		char was[32];
		snprintf(was, sizeof(was), "%s", enabled);
		static const char *const words[] = { "advise", "always" };
		for (unsigned i = 0; i < 2; i++)
			if (CHECK(shmem_enabled_set(words[i])))
				check_shared_anon(words[i]);
		CHECK(shmem_enabled_set(was));
	}
	snprintf(dir, sizeof(dir), "/tmp/shmem_thp_XXXXXX");
	if (!mkdtemp(dir))
		test_skip("mkdtemp: %s", strerror(errno));
	atexit(cleanup);
	/* shmem_enabled's own words are no mount option (Linux's "Bad value"). */
	CHECK_ERRNO(mount("shmem_thp", dir, "tmpfs", 0, "huge=deny"), EINVAL);
	CHECK_ERRNO(mount("shmem_thp", dir, "tmpfs", 0, "huge=force"), EINVAL);
	CHECK_ERRNO(mount("shmem_thp", dir, "tmpfs", 0, "huge=sometimes"), EINVAL);
	if (mount_tmpfs_or_skip("shmem_thp", dir, "huge=always,size=8m", cleanup))
		return test_end();
	mounted = true;
	char mounts[16384];
	if (CHECK(read_file("/proc/self/mounts", mounts, sizeof(mounts)) > 0)) {
		char *line = strstr(mounts, dir);
		CHECK(line != NULL);
		if (line) {
			char *end = strchr(line, '\n');
			if (end)
				*end = 0;
			CHECK(strstr(line, ",huge=always") != NULL);
		}
	}
	deny_mode = deny;
	mount_dir_file_run(dir, &mounted, (long)(2 * HPAGE), check_huge_page);
	return test_end();
}
