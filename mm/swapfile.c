/* Swap areas: swapon(2) and swapoff(2), the swap header, the slot map and
 * its counts, and /proc/swaps (Linux 6.1's mm/swapfile.c; mm/swapfile.h
 * says what an entry and a count are).
 *
 * swapon takes a block device only: mmlab's files live in tmpfs, which
 * Linux refuses too (shmem has no read_folio: -EINVAL). The checks and
 * errnos come in Linux's order: bad flags -EINVAL, no CAP_SYS_ADMIN
 * -EPERM, every type taken -EPERM, then the name (getname's errors) and
 * the open (-ENOENT ...), not a block device -EINVAL, a device that is
 * already an area -EBUSY (Linux's exclusive open), a header Linux would
 * refuse -EINVAL with Linux's line. The area's priority is the caller's
 * with SWAP_FLAG_PREFER, else one below the lowest given so far (-2 for
 * the first, as Linux). SWAP_FLAG_DISCARD is accepted and does nothing:
 * mmlab's disk has no discard, which Linux then ignores too.
 *
 * swapoff takes the area off first (no new slots from it, its slots out of
 * total_swap_pages), then brings every page still in it back (try_to_unuse,
 * mm/swap_unuse.c); when that fails the area goes back on, its priority
 * as Linux's reinsert_swap_info gives it.
 *
 * Locking: swap_lock (mm/swapfile.h); swapon_mutex serialises swapon and
 * swapoff against each other, as Linux's swapon_mutex, so that a type is
 * taken and given back by one of them at a time. */
#include "mm/swapfile.h"
#include "arch/x86_64/uaccess.h"
#include "block/blkdev.h"
#include "fs/dcache.h"
#include "fs/fs_struct.h"
#include "fs/init.h"
#include "fs/internal.h"
#include "fs/proc/proc_fs.h"
#include "kernel/cred.h"
#include "kernel/mutex.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/slab.h"
#include "mm/swap_readahead.h"
#include "mm/swap_state.h"
#include "mm/util.h"
#include "mm/vmalloc.h"
#include "mm/vmscan.h"

#define K(x) ((unsigned long)(x) << (PAGE_SHIFT - 10))

DEFINE_SPINLOCK(swap_lock);
struct swap_info_struct *swap_info[MAX_SWAPFILES];
long nr_swap_pages;
static int least_priority = -1;
static DEFINE_MUTEX(swapon_mutex);

unsigned int nr_swapfiles_on(void)
{
	unsigned int n = 0;
	spin_lock(&swap_lock);
	for (int i = 0; i < MAX_SWAPFILES; i++)
		if (swap_info[i] && (swap_info[i]->flags & SWP_WRITEOK))
			n++;
	spin_unlock(&swap_lock);
	return n;
}

void si_swapinfo(unsigned long *freeswap, unsigned long *totalswap)
{
	unsigned long to_be_unused = 0;
	spin_lock(&swap_lock);
	for (int i = 0; i < MAX_SWAPFILES; i++) {
		struct swap_info_struct *si = swap_info[i];
		if (si && (si->flags & SWP_USED) && !(si->flags & SWP_WRITEOK))
			to_be_unused += si->inuse_pages;
	}
	/* Linux's: the area being turned off has left nr_swap_pages, its
	 * slots in use are still counted in the total. */
	*freeswap = (unsigned long)nr_swap_pages;
	*totalswap = (unsigned long)total_swap_pages + to_be_unused;
	spin_unlock(&swap_lock);
}

struct swap_info_struct *swp_swap_info(swp_entry_t entry)
{
	unsigned int type = swp_type(entry);
	if (type >= MAX_SWAPFILES)
		return NULL;
	struct swap_info_struct *si = READ_ONCE(swap_info[type]);
	if (!si || !(si->flags & SWP_USED) || !si->swap_map || swp_offset(entry) >= si->max)
		return NULL;
	return si;
}

#define SWAP_SLOTS_CACHE_SIZE 64

/* The slot at offset taken (under swap_lock). */
static void take_slot_locked(struct swap_info_struct *si, unsigned long offset)
{
	si->swap_map[offset] = SWAP_HAS_CACHE;
	si->inuse_pages++;
	nr_swap_pages--;
}

/* Linux's scan_swap_map_slots for one slot, under swap_lock: the next free
 * slot of the current task's run, else the first free one from
 * cluster_next, which starts a new run of SWAP_SLOTS_CACHE_SIZE slots for
 * the task (cluster_next then past it: another's run starts after it). */
static unsigned long scan_swap_map_locked(struct swap_info_struct *si)
{
	if (si->inuse_pages == si->pages)
		return 0;
	typeof(current->swap_run) *run = &current->swap_run;
	if (run->gen == si->gen) {
		for (unsigned long o = run->next; o && o < run->end && o <= si->highest_bit; o++) {
			if (!si->swap_map[o]) {
				take_slot_locked(si, o);
				run->next = (unsigned int)o + 1;
				return o;
			}
		}
	}
	unsigned long start = si->cluster_next;
	if (start < si->lowest_bit || start > si->highest_bit)
		start = si->lowest_bit;
	unsigned long offset = start;
	do {
		if (!si->swap_map[offset]) {
			take_slot_locked(si, offset);
			unsigned long end = offset + SWAP_SLOTS_CACHE_SIZE;
			if (end > (unsigned long)si->highest_bit + 1)
				end = (unsigned long)si->highest_bit + 1;
			run->gen = si->gen;
			run->next = (unsigned int)offset + 1;
			run->end = (unsigned int)end;
			si->cluster_next = (unsigned int)end;
			return offset;
		}
		if (++offset > si->highest_bit)
			offset = si->lowest_bit;
	} while (offset != start);
	return 0;
}

swp_entry_t get_swap_page(void)
{
	swp_entry_t entry = { 0 };
	spin_lock(&swap_lock);
	if (nr_swap_pages <= 0)
		goto out;
	/* The highest priority first; among equals, the one after the last
	 * used (Linux rotates them on its plist). */
	static int last_type = -1;
	struct swap_info_struct *best = NULL;
	for (int n = 1; n <= MAX_SWAPFILES; n++) {
		struct swap_info_struct *si = swap_info[(last_type + n + MAX_SWAPFILES) % MAX_SWAPFILES];
		if (!si || !(si->flags & SWP_WRITEOK) || si->inuse_pages == si->pages)
			continue;
		if (!best || si->prio > best->prio)
			best = si;
	}
	if (best) {
		unsigned long offset = scan_swap_map_locked(best);
		if (offset) {
			entry = swp_entry((unsigned long)best->type, offset);
			last_type = best->type;
		}
	}
out:
	spin_unlock(&swap_lock);
	return entry;
}

unsigned char swap_count_of(swp_entry_t entry)
{
	spin_lock(&swap_lock);
	struct swap_info_struct *si = swp_swap_info(entry);
	unsigned char count = si ? si->swap_map[swp_offset(entry)] : 0;
	spin_unlock(&swap_lock);
	return count;
}

/* A slot's last reference and its cache flag gone: free. */
static void swap_entry_free_locked(struct swap_info_struct *si, unsigned long offset)
{
	si->swap_map[offset] = 0;
	clear_shadow_from_swap_cache((unsigned int)si->type, offset);
	si->inuse_pages--;
	if (si->flags & SWP_WRITEOK)
		nr_swap_pages++;
	if (offset < si->lowest_bit)
		si->lowest_bit = (unsigned int)offset;
	if (offset > si->highest_bit)
		si->highest_bit = (unsigned int)offset;
}

/* Linux's __swap_duplicate: usage 1 (a reference) or SWAP_HAS_CACHE. */
static int __swap_duplicate(swp_entry_t entry, unsigned char usage)
{
	int err = 0;
	spin_lock(&swap_lock);
	struct swap_info_struct *si = swp_swap_info(entry);
	if (!si) {
		err = -EINVAL;
		goto out;
	}
	unsigned long offset = swp_offset(entry);
	unsigned char *map = &si->swap_map[offset];
	unsigned char count = *map & ~SWAP_HAS_CACHE, has_cache = *map & SWAP_HAS_CACHE;
	if (count == SWAP_MAP_BAD || (!count && !has_cache)) {
		err = -ENOENT;
	} else if (usage == SWAP_HAS_CACHE) {
		err = has_cache ? -EEXIST : 0;
		if (!err)
			*map |= SWAP_HAS_CACHE;
	} else if ((count & ~COUNT_CONTINUED) < SWAP_MAP_MAX) {
		*map += 1;
	} else if ((count & ~COUNT_CONTINUED) > SWAP_MAP_MAX) {
		err = -EINVAL;
	} else if (swap_count_continued_locked(si, offset, count)) {
		*map = COUNT_CONTINUED | has_cache; /* carried: this digit 0 */
	} else {
		err = -ENOMEM; /* a continuation page is needed */
	}
out:
	spin_unlock(&swap_lock);
	return err;
}

int swap_duplicate(swp_entry_t entry)
{
	/* Linux's loop; its other errors are returned here too (Linux's
	 * swap_duplicate drops them). */
	int err;
	while ((err = __swap_duplicate(entry, 1)) == -ENOMEM)
		if (add_swap_count_continuation(entry, GFP_ATOMIC))
			return -ENOMEM;
	return err;
}

int swapcache_prepare(swp_entry_t entry)
{
	return __swap_duplicate(entry, SWAP_HAS_CACHE);
}

static void swap_put(swp_entry_t entry, unsigned char usage)
{
	spin_lock(&swap_lock);
	struct swap_info_struct *si = swp_swap_info(entry);
	if (si) {
		unsigned long offset = swp_offset(entry);
		unsigned char *map = &si->swap_map[offset];
		unsigned char count = *map & ~SWAP_HAS_CACHE, has_cache = *map & SWAP_HAS_CACHE;
		if (usage == SWAP_HAS_CACHE ? !has_cache : !count) {
			pr_err("swap_free: Unused swap offset entry %08lx\n", entry.val);
		} else {
			/* Linux's __swap_entry_free_locked: a continued count
			 * at digit 0 borrows from its continuation. */
			if (usage == SWAP_HAS_CACHE)
				has_cache = 0;
			else if (count == COUNT_CONTINUED)
				count = swap_count_continued_locked(si, offset, count)
						? SWAP_MAP_MAX | COUNT_CONTINUED
						: SWAP_MAP_MAX;
			else
				count--;
			*map = count | has_cache;
			if (!*map)
				swap_entry_free_locked(si, offset);
		}
	} else {
		pr_err("swap_free: Bad swap file entry %08lx\n", entry.val);
	}
	spin_unlock(&swap_lock);
}

void swap_free(swp_entry_t entry)
{
	swap_put(entry, 1);
}

void put_swap_folio(swp_entry_t entry)
{
	swap_put(entry, SWAP_HAS_CACHE);
}

/* Linux's read_swap_header: the usable slots (max), or 0 with Linux's
 * line for a header it would refuse. */
static unsigned long read_swap_header(struct swap_info_struct *si, union swap_header *h, unsigned long dev_pages)
{
	if (memcmp("SWAPSPACE2", h->magic.magic, 10)) {
		pr_err("Unable to find swap-space signature\n");
		return 0;
	}
	/* Linux's swap partition endianness hack: a header of the other
	 * byte order is read swapped. */
	if (__builtin_bswap32(h->info.version) == 1) {
		h->info.version = __builtin_bswap32(h->info.version);
		h->info.last_page = __builtin_bswap32(h->info.last_page);
		h->info.nr_badpages = __builtin_bswap32(h->info.nr_badpages);
		if (h->info.nr_badpages > MAX_SWAP_BADPAGES)
			return 0;
		for (u32 i = 0; i < h->info.nr_badpages; i++)
			h->info.badpages[i] = __builtin_bswap32(h->info.badpages[i]);
	}
	if (h->info.version != 1) {
		pr_warn("Unable to handle swap header version %d\n", (int)h->info.version);
		return 0;
	}
	si->lowest_bit = 1;
	si->cluster_next = 1;
	/* The most slots an x86_64 swap PTE can name: 50 bits of offset
	 * (Linux's generic_max_swapfile_size), less the all-ones offset,
	 * which type 0 would encode as a none PTE (Linux's L1TF limit keeps
	 * it far lower still); beyond any disk here. */
	unsigned long maxpages = (1ul << 50) - 1, last_page = h->info.last_page;
	if (!last_page) {
		pr_warn("Empty swap-file\n");
		return 0;
	}
	if (maxpages > last_page) {
		maxpages = last_page + 1;
		if ((unsigned int)maxpages == 0)
			maxpages = 0xffffffffu;
	}
	si->highest_bit = (unsigned int)(maxpages - 1);
	if (dev_pages && maxpages > dev_pages) {
		pr_warn("Swap area shorter than signature indicates\n");
		return 0;
	}
	if (h->info.nr_badpages > MAX_SWAP_BADPAGES)
		return 0;
	return maxpages;
}

/* Linux's setup_swap_map: the header and the bad pages never used. */
static int setup_swap_map(struct swap_info_struct *si, const union swap_header *h, unsigned char *map,
			  unsigned long maxpages)
{
	map[0] = SWAP_MAP_BAD;
	for (u32 i = 0; i < h->info.nr_badpages; i++) {
		u32 page_nr = h->info.badpages[i];
		if (page_nr == 0 || page_nr > h->info.last_page)
			return -EINVAL;
		if (page_nr < maxpages && map[page_nr] != SWAP_MAP_BAD) {
			map[page_nr] = SWAP_MAP_BAD;
			si->pages--;
		}
	}
	if (!si->pages) {
		pr_warn("Empty swap-file\n");
		return -EINVAL;
	}
	return 0;
}

/* Linux's alloc_swap_info: the first free type, or -EPERM when all
 * MAX_SWAPFILES are taken. Under swapon_mutex. */
static struct swap_info_struct *alloc_swap_info(void)
{
	struct swap_info_struct *si = kzalloc(sizeof(*si), GFP_KERNEL);
	if (!si)
		return ERR_PTR(-ENOMEM);
	spin_lock(&swap_lock);
	int type = 0;
	while (type < MAX_SWAPFILES && swap_info[type])
		type++;
	if (type == MAX_SWAPFILES) {
		spin_unlock(&swap_lock);
		kfree(si);
		return ERR_PTR(-EPERM);
	}
	static unsigned int swapon_gen;
	si->type = (signed char)type;
	si->gen = ++swapon_gen ? swapon_gen : ++swapon_gen; /* never 0 */
	si->flags = SWP_USED;
	swap_info[type] = si;
	spin_unlock(&swap_lock);
	return si;
}

static void free_swap_info(struct swap_info_struct *si)
{
	spin_lock(&swap_lock);
	swap_info[si->type] = NULL;
	spin_unlock(&swap_lock);
	kfree(si);
}

/* Whether another area has bdev (Linux's exclusive open of the device
 * gives -EBUSY). */
static bool bdev_is_swap(const struct block_device *bdev, const struct swap_info_struct *self)
{
	bool busy = false;
	spin_lock(&swap_lock);
	for (int i = 0; i < MAX_SWAPFILES; i++)
		if (swap_info[i] && swap_info[i] != self && swap_info[i]->bdev == bdev)
			busy = true;
	spin_unlock(&swap_lock);
	return busy;
}

/* The area goes on: its slots counted (Linux's enable_swap_info). */
static void enable_swap_info_locked(struct swap_info_struct *si, int prio)
{
	si->prio = (signed short)(prio >= 0 ? prio : --least_priority);
	si->flags |= SWP_WRITEOK;
	nr_swap_pages += si->pages - si->inuse_pages;
	total_swap_pages += si->pages;
}

static long do_swapon(const char *name, int swap_flags)
{
	struct swap_info_struct *si = alloc_swap_info();
	if (IS_ERR(si))
		return PTR_ERR(si);
	unsigned char *swap_map = NULL;
	union swap_header *h = NULL;
	struct file *file = filp_open(name, O_RDWR | O_LARGEFILE, 0);
	long err;
	if (IS_ERR(file)) {
		err = PTR_ERR(file);
		file = NULL;
		goto bad;
	}
	/* Linux's claim_swapfile and the read_folio check: a block device,
	 * or nothing mmlab can swap to. */
	err = -EINVAL;
	if (!S_ISBLK(file->f_inode->i_mode))
		goto bad;
	si->bdev = file->private_data;
	si->flags |= SWP_BLKDEV;
	err = -EBUSY;
	if (bdev_is_swap(si->bdev, si))
		goto bad;
	err = -ENOMEM;
	if (!(h = kmalloc(sizeof(*h), GFP_KERNEL)))
		goto bad;
	long long pos = 0;
	long n = kernel_read(file, h, sizeof(*h), &pos);
	if (n != (long)sizeof(*h)) {
		err = n < 0 ? n : -EINVAL;
		goto bad;
	}
	unsigned long dev_pages = (unsigned long)(bdev_nr_sectors(si->bdev) << SECTOR_SHIFT) >> PAGE_SHIFT;
	unsigned long maxpages = read_swap_header(si, h, dev_pages);
	err = -EINVAL;
	if (!maxpages)
		goto bad;
	si->max = (unsigned int)maxpages;
	si->pages = si->max - 1;
	err = -ENOMEM;
	if (!(swap_map = vzalloc(maxpages)))
		goto bad;
	err = setup_swap_map(si, h, swap_map, maxpages);
	if (err)
		goto bad;
	err = alloc_swap_count_heads(si);
	if (err)
		goto bad;
	err = init_swap_address_space((unsigned int)si->type, maxpages);
	if (err)
		goto bad;
	si->swap_file = file;
	swap_readahead_area_on(si);
	spin_lock(&swap_lock);
	si->swap_map = swap_map;
	enable_swap_info_locked(si, swap_flags & SWAP_FLAG_PREFER
					    ? (swap_flags & SWAP_FLAG_PRIO_MASK) >> SWAP_FLAG_PRIO_SHIFT
					    : -1);
	spin_unlock(&swap_lock);
	/* Linux's line: one extent across the device; no flags (a virtio
	 * disk is rotational to Linux, and has no discard). */
	pr_info("Adding %luk swap on %s.  Priority:%d extents:%d across:%luk %s%s%s%s\n", K(si->pages), name,
		si->prio, 1, K(si->pages), "", "", "", "");
	kfree(h);
	return 0;
bad:
	free_swap_count_continuations(si);
	vfree(swap_map);
	kfree(h);
	if (file)
		filp_close(file);
	free_swap_info(si);
	return err;
}

long ksys_swapon(const char *name, int swap_flags)
{
	mutex_lock(&swapon_mutex);
	long err = do_swapon(name, swap_flags);
	mutex_unlock(&swapon_mutex);
	return err;
}

/* The part of both calls before their work: the capability, the name
 * (getname's errors), then on (swapon with flags) or off. */
static long swap_syscall(const char __user *specialfile, int swap_flags, bool on)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	char *name;
	long err = getname(specialfile, false, &name);
	if (err)
		return err;
	err = on ? ksys_swapon(name, swap_flags) : ksys_swapoff(name);
	kfree(name);
	return err;
}

SYSCALL_DEFINE2(swapon, const char __user *, specialfile, int, swap_flags)
{
	if (swap_flags & ~SWAP_FLAGS_VALID)
		return -EINVAL; /* before the capability, as Linux */
	return swap_syscall(specialfile, swap_flags, true);
}

/* The area on, again, after a failed swapoff (Linux's reinsert_swap_info):
 * its priority as it was. */
static void reinsert_swap_info(struct swap_info_struct *si)
{
	spin_lock(&swap_lock);
	enable_swap_info_locked(si, si->prio);
	spin_unlock(&swap_lock);
}

static long do_swapoff(const char *name)
{
	struct file *victim = filp_open(name, O_RDWR | O_LARGEFILE, 0);
	if (IS_ERR(victim))
		return PTR_ERR(victim);
	struct swap_info_struct *si = NULL;
	long err = -EINVAL;
	spin_lock(&swap_lock);
	if (S_ISBLK(victim->f_inode->i_mode))
		for (int i = 0; i < MAX_SWAPFILES; i++)
			if (swap_info[i] && (swap_info[i]->flags & SWP_WRITEOK) &&
			    swap_info[i]->bdev == victim->private_data)
				si = swap_info[i];
	spin_unlock(&swap_lock);
	if (!si)
		goto out;
	/* Linux's check that memory can take the area's pages back. */
	err = -ENOMEM;
	if (security_vm_enough_memory_mm(current->mm, si->pages))
		goto out;
	vm_unacct_memory(si->pages);
	spin_lock(&swap_lock);
	/* Areas given a priority after this one move up (Linux's: the
	 * automatic priorities stay dense). */
	if (si->prio < 0) {
		for (int i = 0; i < MAX_SWAPFILES; i++)
			if (swap_info[i] && (swap_info[i]->flags & SWP_WRITEOK) && swap_info[i]->prio < si->prio)
				swap_info[i]->prio++;
		least_priority++;
	}
	nr_swap_pages -= si->pages - si->inuse_pages;
	total_swap_pages -= si->pages;
	si->flags &= ~SWP_WRITEOK;
	spin_unlock(&swap_lock);
	err = try_to_unuse(si->type);
	if (err) {
		vm_acct_memory(si->pages);
		reinsert_swap_info(si);
		goto out;
	}
	swap_readahead_area_off(si);
	spin_lock(&swap_lock);
	unsigned char *map = si->swap_map;
	si->swap_map = NULL;
	si->flags = 0;
	swap_info[si->type] = NULL;
	spin_unlock(&swap_lock);
	exit_swap_address_space((unsigned int)si->type);
	free_swap_count_continuations(si);
	vfree(map);
	filp_close(si->swap_file);
	kfree(si);
	err = 0;
out:
	filp_close(victim);
	return err;
}

long ksys_swapoff(const char *name)
{
	mutex_lock(&swapon_mutex);
	long err = do_swapoff(name);
	mutex_unlock(&swapon_mutex);
	return err;
}

SYSCALL_DEFINE1(swapoff, const char __user *, specialfile)
{
	return swap_syscall(specialfile, 0, false);
}

/* /proc/swaps: Linux's swap_show, in swap_info order (Linux's is the
 * order of swapon). */
static void swaps_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	seq_buf_puts(m, "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
	char *buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf)
		return;
	mutex_lock(&swapon_mutex);
	for (int i = 0; i < MAX_SWAPFILES; i++) {
		struct swap_info_struct *si = swap_info[i];
		if (!si || !(si->flags & SWP_WRITEOK))
			continue;
		struct path root;
		get_fs_root(current_fs(), &root);
		char *p = d_path(&si->swap_file->f_path, &root, buf, PATH_MAX);
		path_put(&root);
		if (IS_ERR(p))
			p = "?";
		int len = (int)strlen(p);
		unsigned long bytes = K(si->pages), inuse = K(READ_ONCE(si->inuse_pages));
		seq_buf_printf(m, "%s%*s%s\t%lu\t%s%lu\t%s%d\n", p, len < 40 ? 40 - len : 1, " ",
			       S_ISBLK(si->swap_file->f_inode->i_mode) ? "partition" : "file\t", bytes,
			       bytes < 10000000 ? "\t" : "", inuse, inuse < 10000000 ? "\t" : "", si->prio);
	}
	mutex_unlock(&swapon_mutex);
	kfree(buf);
}
PROC_FILE(swaps_file, proc_root_dir, "swaps", swaps_show);
