/* A swap area turned on and off, as Linux 6.1's swapon(2) and swapoff(2):
 *   - the errors in Linux's order: unknown flags EINVAL (before the
 *     capability check), no CAP_SYS_ADMIN EPERM, an empty name and a
 *     missing file ENOENT, a directory EISDIR (the open), a regular tmpfs
 *     file EINVAL (nothing to swap to: shmem has no read_folio), a device
 *     already on EBUSY, swapoff of what is not an area EINVAL;
 *   - headers Linux refuses with EINVAL: no SWAPSPACE2 magic, version 2,
 *     last_page 0, last_page beyond the device, a bad page 0; a header
 *     with one bad page gives an area one page smaller;
 *   - the area on: its /proc/swaps line in Linux's exact format (the
 *     name padded to 40, "partition", size and used in KiB with a tab
 *     more below 10000000, the priority), the size the header's last_page
 *     pages (the header page not counted), SwapTotal and SwapFree of
 *     /proc/meminfo grown by it; the priority the caller's with
 *     SWAP_FLAG_PREFER, else one below the lowest automatic one (-2 for
 *     the first, and again after it went off); SWAP_FLAG_DISCARD taken;
 *   - swapoff: the line gone, SwapTotal back.
 * Runs only on the runner's swap disk (common/swap_disk.h): on mmlab's
 * swap machine and Linux 6.1's linux-swap; elsewhere, the host included,
 * it skips. The disk's header is put back as mkswap wrote it. */
#include <sys/stat.h>
#include <sys/wait.h>

#include "swap_disk.h"

static unsigned char orig[4096];
static unsigned long area_pages; /* usable pages of mkswap's area */

static void expect_line(const char *what, unsigned long kb, int prio)
{
	char line[256], want[256];
	snprintf(want, sizeof(want), "%s%*s%s\t%lu\t%s%lu\t%s%d", SWAP_DISK, 40 - (int)strlen(SWAP_DISK), " ",
		 "partition", kb, kb < 10000000 ? "\t" : "", 0ul, "\t", prio);
	bool found = proc_swaps_line(SWAP_DISK, line, sizeof(line));
	CHECKF(found, "%s: /proc/swaps lists %s", what, SWAP_DISK);
	if (found) {
		/* "Used" may have grown meanwhile on a machine under pressure:
		 * compare the line with it replaced by what the area uses. */
		unsigned long size, used;
		int p;
		char type[32];
		if (sscanf(line + strlen(SWAP_DISK), "%31s %lu %lu %d", type, &size, &used, &p) == 4 && used)
			snprintf(want, sizeof(want), "%s%*s%s\t%lu\t%s%lu\t%s%d", SWAP_DISK,
				 40 - (int)strlen(SWAP_DISK), " ", "partition", kb, kb < 10000000 ? "\t" : "", used,
				 used < 10000000 ? "\t" : "", prio);
		CHECKF(!strcmp(line, want), "%s: the line is Linux's: '%s' (expected '%s')", what, line, want);
	}
}

/* swapon with a header changed by edit, expecting err (0: on, then off). */
static void header_case(const char *what, void (*edit)(struct swap_header_info *, unsigned char *), int err)
{
	unsigned char page[4096];
	memcpy(page, orig, sizeof(page));
	edit((struct swap_header_info *)page, page);
	if (!CHECKF(swap_disk_write_header(page) == 0, "%s: header written", what))
		return;
	long r = sys_swapon(SWAP_DISK, 0);
	if (err)
		CHECKF(r == -1 && errno == err, "swapon with %s: %s (expected %s)", what, r ? errno_name(errno) : "on",
		       errno_name(err));
	else if (CHECKF(r == 0, "swapon with %s: %s", what, r ? errno_name(errno) : "on")) {
		struct swap_header_info *h = (struct swap_header_info *)page;
		expect_line(what, (unsigned long)(h->last_page - h->nr_badpages) * 4, -2);
		CHECKF(sys_swapoff(SWAP_DISK) == 0, "%s: swapoff", what);
	}
	CHECKF(swap_disk_write_header(orig) == 0, "%s: mkswap's header back", what);
}

static void no_magic(struct swap_header_info *h, unsigned char *page) { (void)h; memcpy(page + 4086, "SWAPSPACE1", 10); }
static void version_2(struct swap_header_info *h, unsigned char *page) { (void)page; h->version = 2; }
static void last_page_0(struct swap_header_info *h, unsigned char *page) { (void)page; h->last_page = 0; }
static void beyond_the_end(struct swap_header_info *h, unsigned char *page) { (void)page; h->last_page += 16; }
static void bad_page_0(struct swap_header_info *h, unsigned char *page)
{
	(void)page;
	h->nr_badpages = 1;
	h->badpages[0] = 0;
}
static void bad_page_1(struct swap_header_info *h, unsigned char *page)
{
	(void)page;
	h->nr_badpages = 1;
	h->badpages[0] = 1;
}

/* Without CAP_SYS_ADMIN (a child that drops it): EPERM for both calls,
 * but unknown flags are EINVAL first. */
static void without_cap(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (!drop_cap(CAP_SYS_ADMIN))
			_exit(2);
		bool ok = sys_swapon(SWAP_DISK, 0x80000) == -1 && errno == EINVAL;
		ok &= sys_swapon(SWAP_DISK, 0) == -1 && errno == EPERM;
		ok &= sys_swapoff(SWAP_DISK) == -1 && errno == EPERM;
		_exit(ok ? 0 : 1);
	}
	int st = wait_status_of(pid);
	CHECKF(st == 0, "without CAP_SYS_ADMIN: bad flags EINVAL, swapon and swapoff EPERM (child status %d)", st);
}

int main(void)
{
	test_begin("swap_area");
	swap_disk_or_skip(orig);
	if (!has_cap(CAP_SYS_ADMIN))
		test_skip("no CAP_SYS_ADMIN: swapon needs it");
	const struct swap_header_info *h = (const void *)orig;
	CHECKF(h->version == 1, "mkswap's header: version %u", h->version);
	area_pages = h->last_page - h->nr_badpages;
	char sizebuf[64];
	long sectors = read_file("/sys/block/vda/size", sizebuf, sizeof(sizebuf)) > 0 ? strtol(sizebuf, NULL, 10) : -1;
	CHECKF(sectors > 0 && h->last_page == (unsigned long)sectors / 8 - 1,
	      "last_page %u is the disk's last page (%ld sectors)", h->last_page, sectors);
	if (proc_swaps_count() != 0)
		test_skip("another swap area is on (/proc/swaps): the priorities checked here are a first area's");
	long total0 = meminfo_kb("SwapTotal"), free0 = meminfo_kb("SwapFree");

	CHECK_ERRNO(sys_swapon(SWAP_DISK, 0x80000), EINVAL);
	CHECK_ERRNO(sys_swapon("", 0), ENOENT);
	CHECK_ERRNO(sys_swapon("/no/such/swap", 0), ENOENT);
	CHECK_ERRNO(sys_swapon("/", 0), EISDIR);
	bool tmpfs;
	const char *dir = tmpfs_dir(&tmpfs);
	char file[256];
	snprintf(file, sizeof(file), "%s/swap_area.%d", dir, getpid());
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (CHECKF(fd >= 0, "a file in %s", dir)) {
		CHECKF(pwrite(fd, orig, sizeof(orig), 0) == (ssize_t)sizeof(orig) && !ftruncate(fd, 1 << 20),
		      "mkswap's header copied into it");
		close(fd);
		if (tmpfs)
			CHECK_ERRNO(sys_swapon(file, 0), EINVAL);
		else
			check_skip("%s is not tmpfs: its swapon would be the file system's", dir);
		CHECK_ERRNO(sys_swapoff(file), EINVAL);
		unlink(file);
	}
	CHECK_ERRNO(sys_swapoff(SWAP_DISK), EINVAL);
	CHECK_ERRNO(sys_swapoff("/no/such/swap"), ENOENT);
	without_cap();

	CHECKF(sys_swapon(SWAP_DISK, SWAP_FLAG_PREFER | 7) == 0, "swapon with priority 7: %s", errno_name(errno));
	expect_line("priority 7", area_pages * 4, 7);
	CHECK_CMP(meminfo_kb("SwapTotal"), ==, total0 + (long)area_pages * 4);
	long free1 = meminfo_kb("SwapFree");
	CHECKF(free1 <= free0 + (long)area_pages * 4 && free1 > free0 + (long)area_pages * 2,
	      "SwapFree %ld kB grew by the area (%lu kB, little of it used)", free1, area_pages * 4);
	CHECK_ERRNO(sys_swapon(SWAP_DISK, 0), EBUSY);
	CHECKF(sys_swapoff(SWAP_DISK) == 0, "swapoff: %s", errno_name(errno));
	char line[256];
	CHECKF(!proc_swaps_line(SWAP_DISK, line, sizeof(line)), "swapoff: the /proc/swaps line gone");
	CHECK_CMP(meminfo_kb("SwapTotal"), ==, total0);

	CHECKF(sys_swapon(SWAP_DISK, 0) == 0, "swapon without a priority: %s", errno_name(errno));
	expect_line("the first automatic priority", area_pages * 4, -2);
	CHECKF(sys_swapoff(SWAP_DISK) == 0, "swapoff");
	CHECKF(sys_swapon(SWAP_DISK, SWAP_FLAG_DISCARD) == 0, "swapon with SWAP_FLAG_DISCARD: %s", errno_name(errno));
	expect_line("SWAP_FLAG_DISCARD, -2 again after the first went off", area_pages * 4, -2);
	CHECKF(sys_swapoff(SWAP_DISK) == 0, "swapoff");

	header_case("no SWAPSPACE2 magic", no_magic, EINVAL);
	header_case("header version 2", version_2, EINVAL);
	header_case("last_page 0", last_page_0, EINVAL);
	header_case("last_page beyond the device", beyond_the_end, EINVAL);
	header_case("bad page 0", bad_page_0, EINVAL);
	header_case("bad page 1", bad_page_1, 0);
	CHECK_CMP(meminfo_kb("SwapTotal"), ==, total0);
	return test_end();
}
