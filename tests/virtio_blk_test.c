/* The PCI scan, the virtio-blk driver and the block layer (drivers/pci/,
 * drivers/virtio/, drivers/block/virtio_blk.c, block/), on the machine's
 * first virtio disk: patterns written through bios across the disk and
 * read back, more bios in flight than the queue holds (the submitter
 * waits), bios from every CPU at once, a bio beyond the end refused
 * (-EIO, as Linux's bio_check_eod) and, handed to the driver around that
 * check, by the device (its IOERR status: -EIO), a flush, the device's id, and what
 * the disk shows (/dev/vda, /sys/block, /proc/partitions) against the
 * kernel's own gendisk. The PCI checks hold the scanned struct pci_dev
 * against fresh configuration reads through both access methods.
 *
 * A machine without a disk skips the disk's cases, saying what the PCI
 * scan found. The disk is a scratch image (tests/topologies/disk.topo):
 * its content is overwritten. */
#include "tests/kunit.h"
#include "tests/test_cpu.h"
#include "block/blkdev.h"
#include "drivers/pci/pci.h"
#include "fs/namei.h"
#include "fs/proc/proc_fs.h"
#include "kernel/wait.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/util.h"

#define PCI_VENDOR_ID_REDHAT_QUMRANET 0x1af4
#define SECTORS_PER_PAGE (PAGE_SIZE >> SECTOR_SHIFT)

static struct gendisk *test_disk(struct kunit *test)
{
	struct gendisk *disk = disk_nth(0);
	if (!disk) {
		unsigned n = 0;
		for (struct pci_dev *d = pci_get_device(PCI_VENDOR_ID_REDHAT_QUMRANET, PCI_ANY_ID, NULL); d;
		     d = pci_get_device(PCI_VENDOR_ID_REDHAT_QUMRANET, PCI_ANY_ID, d))
			n++;
		kunit_skip(test, "no block device: the PCI scan found %u virtio function(s) and no "
			   "disk was added", n);
	}
	return disk;
}

/* The PCI function of the disk: a virtio block device, modern (1042) or
 * transitional (1001 with subsystem 2). */
static struct pci_dev *disk_pci_dev(void)
{
	for (struct pci_dev *d = pci_get_device(PCI_VENDOR_ID_REDHAT_QUMRANET, PCI_ANY_ID, NULL); d;
	     d = pci_get_device(PCI_VENDOR_ID_REDHAT_QUMRANET, PCI_ANY_ID, d))
		if (d->device == 0x1042 || (d->device == 0x1001 && d->subsystem_device == 2))
			return d;
	return NULL;
}

static void free_page_action(void *page) { __free_page(page); }

static struct page *test_page(struct kunit *test)
{
	struct page *page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, free_page_action, page), 0);
	return page;
}

/* The page of the pattern for sector (and seed): no two sectors alike. */
static void fill_pattern(struct page *page, sector_t sector, u64 seed)
{
	u64 *w = page_address(page);
	for (unsigned i = 0; i < PAGE_SIZE / 8; i++)
		w[i] = (sector + i / (SECTOR_SIZE / 8)) * 0x9e3779b97f4a7c15ull + seed + i;
}

static bool pattern_ok(struct page *page, sector_t sector, u64 seed)
{
	const u64 *w = page_address(page);
	for (unsigned i = 0; i < PAGE_SIZE / 8; i++)
		if (w[i] != (sector + i / (SECTOR_SIZE / 8)) * 0x9e3779b97f4a7c15ull + seed + i)
			return false;
	return true;
}

/* One bio of the pages given, waited for: its errno. */
static int rw_pages(struct gendisk *disk, unsigned op, sector_t sector, struct page **pages,
		    unsigned n, unsigned len)
{
	struct bio *bio = bio_alloc(&disk->part0, (unsigned short)n, op, GFP_KERNEL);
	if (!bio)
		return -ENOMEM;
	bio->bi_iter.bi_sector = sector;
	for (unsigned i = 0; i < n; i++)
		bio_add_page(bio, pages[i], len, 0);
	int err = submit_bio_wait(bio);
	bio_put(bio);
	return err;
}

static void expect_file(struct kunit *test, const char *path, const char *want)
{
	char *text;
	size_t len;
	KUNIT_ASSERT_EQ(test, procfs_generate(path, current, &text, &len), 0);
	KUNIT_EXPECT_STREQ(test, text, want);
	kvfree(text);
}

static void pci_scan_matches_config_space(struct kunit *test)
{
	unsigned checked = 0;
	for (struct pci_dev *d = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, NULL); d;
	     d = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, d)) {
		u32 id_ports, id_now, class_now;
		KUNIT_EXPECT_EQ(test, pci_conf1_read(d->bus, d->devfn, PCI_VENDOR_ID, 4, &id_ports), 0);
		KUNIT_EXPECT_EQ(test, pci_bus_read_config(d->bus, d->devfn, PCI_VENDOR_ID, 4, &id_now), 0);
		pci_bus_read_config(d->bus, d->devfn, PCI_CLASS_REVISION, 4, &class_now);
		KUNIT_EXPECT_EQ(test, id_ports, id_now);
		KUNIT_EXPECT_EQ(test, id_now, (u32)d->vendor | (u32)d->device << 16);
		KUNIT_EXPECT_EQ(test, class_now >> 8, d->class);
		/* Every capability the scan recorded is where the list says. */
		u8 b;
		if (d->msix_cap) {
			pci_read_config_byte(d, d->msix_cap, &b);
			KUNIT_EXPECT_EQ(test, b, PCI_CAP_ID_MSIX);
		}
		if (d->msi_cap) {
			pci_read_config_byte(d, d->msi_cap, &b);
			KUNIT_EXPECT_EQ(test, b, PCI_CAP_ID_MSI);
		}
		/* Each BAR: a power-of-two size, its address aligned to it. */
		for (int bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
			u64 len = pci_resource_len(d, bar);
			if (!len)
				continue;
			KUNIT_EXPECT_EQ(test, len & (len - 1), 0ull);
			KUNIT_EXPECT_EQ(test, pci_resource_start(d, bar) & (len - 1), 0ull);
		}
		/* /sys/bus/pci/devices/<name>/ shows the same ids. */
		char name[13], path[64], want[16];
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", pci_name(d, name));
		snprintf(want, sizeof(want), "0x%04x\n", id_now & 0xffff);
		expect_file(test, path, want);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/class", name);
		snprintf(want, sizeof(want), "0x%06x\n", class_now >> 8);
		expect_file(test, path, want);
		checked++;
	}
	/* 00:00.0 is the host bridge: the scan cannot have found nothing. */
	KUNIT_EXPECT_GT(test, checked, 0u);
	kunit_info(test, "%u PCI functions, configuration through %s", checked, pci_config_method());
}

static void pci_virtio_function(struct kunit *test)
{
	test_disk(test);
	struct pci_dev *d = disk_pci_dev();
	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_EXPECT_EQ(test, d->class, 0x010000u); /* mass storage, SCSI: virtio-blk's */
	u64 mem = 0;
	for (int bar = 0; bar < PCI_STD_NUM_BARS; bar++)
		if (d->resource[bar].flags & IORESOURCE_MEM)
			mem += pci_resource_len(d, bar);
	KUNIT_EXPECT_GT(test, mem, 0ull);
	/* The four structures of a modern device, as vendor capabilities. */
	bool types[6] = { false };
	for (u8 pos = pci_find_capability(d, PCI_CAP_ID_VNDR); pos;
	     pos = pci_find_next_capability(d, pos, PCI_CAP_ID_VNDR)) {
		u8 type;
		pci_read_config_byte(d, pos + 3, &type);
		if (type < ARRAY_SIZE(types))
			types[type] = true;
	}
	for (int type = 1; type <= 4; type++)
		KUNIT_EXPECT_TRUE(test, types[type]);
	/* Memory decoding and bus mastering on; MSI-X in use where the
	 * function has it (config and queue vectors). */
	u16 cmd;
	pci_read_config_word(d, PCI_COMMAND, &cmd);
	KUNIT_EXPECT_TRUE(test, cmd & PCI_COMMAND_MEMORY);
	KUNIT_EXPECT_TRUE(test, cmd & PCI_COMMAND_MASTER);
	if (d->msix_cap) {
		u16 ctrl;
		pci_read_config_word(d, d->msix_cap + PCI_MSIX_FLAGS, &ctrl);
		KUNIT_EXPECT_TRUE(test, ctrl & PCI_MSIX_FLAGS_ENABLE);
		KUNIT_EXPECT_EQ(test, d->msix_nvec, 2u);
	}
}

static void write_read_across_disk(struct kunit *test)
{
	struct gendisk *disk = test_disk(test);
	sector_t cap = get_capacity(disk);
	KUNIT_ASSERT_GE(test, cap, (sector_t)(8 * SECTORS_PER_PAGE));
	struct page *w = test_page(test), *r = test_page(test);
	/* The first page, the last whole page, and pages between. */
	sector_t last = (cap / SECTORS_PER_PAGE - 1) * SECTORS_PER_PAGE;
	sector_t where[] = { 0, SECTORS_PER_PAGE, last / 3 & ~7ull, last / 2 & ~7ull, last };
	for (unsigned i = 0; i < ARRAY_SIZE(where); i++) {
		fill_pattern(w, where[i], 1);
		KUNIT_EXPECT_EQ(test, rw_pages(disk, REQ_OP_WRITE, where[i], &w, 1, PAGE_SIZE), 0);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(where); i++) {
		memset(page_address(r), 0, PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, rw_pages(disk, REQ_OP_READ, where[i], &r, 1, PAGE_SIZE), 0);
		KUNIT_EXPECT_TRUE(test, pattern_ok(r, where[i], 1));
	}
	/* One bio of several pages (several data descriptors), read back
	 * sector by sector at an odd offset. */
	struct page *pages[4];
	for (unsigned i = 0; i < 4; i++) {
		pages[i] = test_page(test);
		fill_pattern(pages[i], 64 + i * SECTORS_PER_PAGE, 2);
	}
	KUNIT_EXPECT_EQ(test, rw_pages(disk, REQ_OP_WRITE, 64, pages, 4, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, rw_pages(disk, REQ_OP_READ, 64 + 3, &r, 1, SECTOR_SIZE), 0);
	fill_pattern(w, 64, 2);
	KUNIT_EXPECT_MEMEQ(test, page_address(r), (u8 *)page_address(w) + 3 * SECTOR_SIZE, SECTOR_SIZE);
}

static void inflight_done(struct bio *bio)
{
	complete(bio->bi_private);
}

struct inflight {
	struct wait_queue_head wait;
	unsigned long done, errors;
};

static void inflight_end_io(struct bio *bio)
{
	struct inflight *in = bio->bi_private;
	if (bio->bi_status)
		__atomic_add_fetch(&in->errors, 1, __ATOMIC_RELAXED);
	bio_put(bio);
	__atomic_add_fetch(&in->done, 1, __ATOMIC_RELEASE);
	wake_up_all(&in->wait);
}

/* 256 one-page writes submitted without waiting: far more than a queue
 * of at most 256 descriptors holds at three each, so submit_bio sleeps
 * until completions make room. Then each page read back. */
#define INFLIGHT 256
static struct page *inflight_pages[INFLIGHT];

static void free_inflight_pages(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < INFLIGHT; i++)
		if (inflight_pages[i])
			__free_page(inflight_pages[i]), inflight_pages[i] = NULL;
}

static void many_in_flight(struct kunit *test)
{
	struct gendisk *disk = test_disk(test);
	KUNIT_ASSERT_GE(test, get_capacity(disk), (sector_t)(INFLIGHT * SECTORS_PER_PAGE));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, free_inflight_pages, NULL), 0);
	for (unsigned i = 0; i < INFLIGHT; i++) {
		inflight_pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, inflight_pages[i]);
		fill_pattern(inflight_pages[i], i * SECTORS_PER_PAGE, 3);
	}
	static struct inflight in;
	init_waitqueue_head(&in.wait);
	in.done = in.errors = 0;
	for (unsigned i = 0; i < INFLIGHT; i++) {
		struct bio *bio = bio_alloc(&disk->part0, 1, REQ_OP_WRITE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, bio);
		bio->bi_iter.bi_sector = i * SECTORS_PER_PAGE;
		bio_add_page(bio, inflight_pages[i], PAGE_SIZE, 0);
		bio->bi_end_io = inflight_end_io;
		bio->bi_private = &in;
		submit_bio(bio);
	}
	wait_event(in.wait, __atomic_load_n(&in.done, __ATOMIC_ACQUIRE) == INFLIGHT);
	KUNIT_EXPECT_EQ(test, in.errors, 0ul);
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&disk->inflight, __ATOMIC_ACQUIRE), 0l);
	struct page *r = test_page(test);
	unsigned bad = 0;
	for (unsigned i = 0; i < INFLIGHT; i++) {
		KUNIT_EXPECT_EQ(test, rw_pages(disk, REQ_OP_READ, i * SECTORS_PER_PAGE, &r, 1, PAGE_SIZE), 0);
		bad += !pattern_ok(r, i * SECTORS_PER_PAGE, 3);
	}
	KUNIT_EXPECT_EQ(test, bad, 0u);
}

/* Every CPU writes and reads back its own pages, at once. */
#define PER_CPU_ROUNDS 16
static struct gendisk *crew_disk;

static int crew_rw(struct test_worker *w)
{
	struct page *p = alloc_page(GFP_KERNEL);
	if (!p)
		return 1;
	int errors = 0;
	for (unsigned round = 0; round < PER_CPU_ROUNDS; round++) {
		sector_t s = (sector_t)(w->id * PER_CPU_ROUNDS + round) * SECTORS_PER_PAGE + 2048;
		fill_pattern(p, s, 4 + w->id);
		errors += rw_pages(crew_disk, REQ_OP_WRITE, s, &p, 1, PAGE_SIZE) != 0;
		memset(page_address(p), 0, PAGE_SIZE);
		errors += rw_pages(crew_disk, REQ_OP_READ, s, &p, 1, PAGE_SIZE) != 0;
		errors += !pattern_ok(p, s, 4 + w->id);
		test_crew_progress(w);
	}
	__free_page(p);
	return errors != 0;
}

static void every_cpu_at_once(struct kunit *test)
{
	crew_disk = test_disk(test);
	KUNIT_ASSERT_GE(test, get_capacity(crew_disk),
			(sector_t)(2048 + TEST_CREW_MAX * PER_CPU_ROUNDS * SECTORS_PER_PAGE));
	static struct test_crew crew;
	KUNIT_EXPECT_EQ(test, test_on_each_cpu(test, &crew, crew_rw, NULL, 0), 0ul);
}

static void beyond_the_end(struct kunit *test)
{
	struct gendisk *disk = test_disk(test);
	sector_t cap = get_capacity(disk);
	struct page *p = test_page(test);
	fill_pattern(p, 0, 5);
	/* The last sector is there; one page ending past it, or starting at
	 * the end, is not (Linux's bio_check_eod: -EIO). */
	KUNIT_EXPECT_EQ(test, rw_pages(disk, REQ_OP_WRITE, cap - 1, &p, 1, SECTOR_SIZE), 0);
	KUNIT_EXPECT_EQ(test, rw_pages(disk, REQ_OP_WRITE, cap - 7, &p, 1, PAGE_SIZE), -EIO);
	KUNIT_EXPECT_EQ(test, rw_pages(disk, REQ_OP_READ, cap, &p, 1, SECTOR_SIZE), -EIO);
	KUNIT_EXPECT_EQ(test, rw_pages(disk, REQ_OP_READ, ~0ull - 3, &p, 1, PAGE_SIZE), -EIO);
	/* Not a whole logical block. */
	KUNIT_EXPECT_EQ(test, rw_pages(disk, REQ_OP_READ, 0, &p, 1, 100), -EIO);
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&disk->inflight, __ATOMIC_ACQUIRE), 0l);
}

/* The device's own error: a bio past the end handed to the driver itself,
 * around submit_bio's check, is refused by the device (QEMU's
 * virtio_blk_sect_range_ok: VIRTIO_BLK_S_IOERR), and the driver ends it
 * with BLK_STS_IOERR, -EIO (Linux's virtblk_result). */
static void device_error_is_eio(struct kunit *test)
{
	struct gendisk *disk = test_disk(test);
	struct page *p = test_page(test);
	struct bio *bio = bio_alloc(&disk->part0, 1, REQ_OP_READ, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bio);
	bio->bi_iter.bi_sector = get_capacity(disk);
	bio_add_page(bio, p, PAGE_SIZE, 0);
	struct completion done;
	init_completion(&done);
	bio->bi_private = &done;
	bio->bi_end_io = inflight_done;
	__atomic_add_fetch(&disk->inflight, 1, __ATOMIC_RELAXED); /* what submit_bio counts */
	disk->fops->submit_bio(bio);
	wait_for_completion(&done);
	KUNIT_EXPECT_EQ(test, bio->bi_status, BLK_STS_IOERR);
	KUNIT_EXPECT_EQ(test, blk_status_to_errno(bio->bi_status), -EIO);
	bio_put(bio);
	/* The queue goes on: the next read is served. */
	KUNIT_EXPECT_EQ(test, rw_pages(disk, REQ_OP_READ, 0, &p, 1, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&disk->inflight, __ATOMIC_ACQUIRE), 0l);
}

static void flush_and_id(struct kunit *test)
{
	struct gendisk *disk = test_disk(test);
	KUNIT_EXPECT_EQ(test, blkdev_issue_flush(&disk->part0), 0);
	char id[21];
	KUNIT_ASSERT_NOT_NULL(test, disk->fops->get_unique_id);
	KUNIT_EXPECT_EQ(test, disk->fops->get_unique_id(disk, id, sizeof(id)), 0);
	KUNIT_EXPECT_LE(test, strlen(id), 20ul);
	/* /sys/block/<disk>/serial shows the same id. */
	char path[64], *text;
	size_t len;
	snprintf(path, sizeof(path), "/sys/block/%s/serial", disk->disk_name);
	KUNIT_ASSERT_EQ(test, procfs_generate(path, current, &text, &len), 0);
	KUNIT_EXPECT_EQ(test, len, strlen(id) + 1);
	KUNIT_EXPECT_EQ(test, strncmp(text, id, strlen(id)), 0);
	kvfree(text);
	kunit_info(test, "%s: id '%s'", disk->disk_name, id);
}

static void what_the_disk_shows(struct kunit *test)
{
	struct gendisk *disk = test_disk(test);
	char path[96], want[128];
	snprintf(path, sizeof(path), "/sys/block/%s/size", disk->disk_name);
	snprintf(want, sizeof(want), "%llu\n", (unsigned long long)get_capacity(disk));
	expect_file(test, path, want);
	snprintf(path, sizeof(path), "/sys/block/%s/dev", disk->disk_name);
	snprintf(want, sizeof(want), "%d:%d\n", disk->major, disk->first_minor);
	expect_file(test, path, want);
	snprintf(path, sizeof(path), "/sys/block/%s/queue/logical_block_size", disk->disk_name);
	snprintf(want, sizeof(want), "%u\n", bdev_logical_block_size(&disk->part0));
	expect_file(test, path, want);
	/* /proc/partitions: the header, then this disk's line in Linux's
	 * "%4d  %7d %10llu %s" (1 KiB blocks). */
	char *text;
	size_t len;
	KUNIT_ASSERT_EQ(test, procfs_generate("/proc/partitions", current, &text, &len), 0);
	snprintf(want, sizeof(want), "%4d  %7d %10llu %s\n", disk->major, disk->first_minor,
		 (unsigned long long)get_capacity(disk) >> 1, disk->disk_name);
	KUNIT_EXPECT_EQ(test, strncmp(text, "major minor  #blocks  name\n\n", 28), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, want));
	kvfree(text);
	/* The node devtmpfs would make. */
	struct path p;
	snprintf(path, sizeof(path), "/dev/%s", disk->disk_name);
	KUNIT_ASSERT_EQ(test, kern_path(path, 0, &p), 0);
	struct inode *inode = p.dentry->d_inode;
	KUNIT_EXPECT_TRUE(test, S_ISBLK(inode->i_mode));
	KUNIT_EXPECT_EQ(test, inode->i_rdev, disk->part0.bd_dev);
	KUNIT_EXPECT_PTR_EQ(test, disk_find(inode->i_rdev), disk);
	path_put(&p);
}

static struct kunit_case virtio_blk_cases[] = {
	KUNIT_CASE(pci_scan_matches_config_space),
	KUNIT_CASE(pci_virtio_function),
	KUNIT_CASE(write_read_across_disk),
	KUNIT_CASE(many_in_flight),
	KUNIT_CASE(every_cpu_at_once),
	KUNIT_CASE(beyond_the_end),
	KUNIT_CASE(device_error_is_eio),
	KUNIT_CASE(flush_and_id),
	KUNIT_CASE(what_the_disk_shows),
	{}
};

static struct kunit_suite virtio_blk_suite = {
	.name = "virtio_blk",
	.test_cases = virtio_blk_cases,
};
kunit_test_suite(virtio_blk_suite);
