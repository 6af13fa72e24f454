/* hugetlbfs files and directories (the inode half of Linux 6.1's
 * fs/hugetlbfs/inode.c, with the shared-reservation half of
 * mm/hugetlb.c: the region map, hugetlb_reserve_pages and
 * hugetlb_unreserve_pages for a file): fs/hugetlbfs/hugetlbfs.h has the
 * rules.
 *
 * Each regular file has a struct hugetlbfs_inode_info (inode->i_private):
 * its region map, and the mutex under which its pages are made, taken
 * out of the page cache and mapped by a fault (Linux's
 * hugetlb_fault_mutex_table hashed by mapping and index; mmlab has one
 * per file, so the faults of new pages of one file clear one at a time).
 * A fault holds it from its size check until its entry is written, so a
 * truncate (i_size first, then the pages under the mutex, then every
 * mapping unmapped again) never leaves a page mapped past the end. Lock
 * order: i_rwsem, then the mm's fault mutex, then this mutex, then the
 * page-table lock; unmap_mapping_pages (i_mmap_rwsem, the mm's fault
 * mutex) is never called under it.
 *
 * Symlinks are -EINVAL, as Linux's (hugetlbfs_symlink's page_symlink
 * cannot write the target). */
#include "fs/hugetlbfs/hugetlbfs.h"
#include "fs/hugetlbfs/internal.h"
#include "fs/char_dev.h"
#include "fs/libfs.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "lib/string.h"
#include "mm/clear_page.h"
#include "mm/filemap.h"
#include "mm/huge_memory.h"
#include "mm/hugetlb.h"
#include "mm/hugetlb_vma.h"
#include "mm/memfd.h"
#include "mm/mempolicy.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/slab.h"
#include "mm/truncate.h"

/* Linux's struct file_region: huge-page offsets [from, to) in the map. */
struct file_region {
	struct list_head link;
	long from, to;
};

struct hugetlbfs_inode_info {
	struct mutex lock;
	struct list_head regions; /* sorted, disjoint, never adjacent */
	bool shm;                 /* a SysV segment's (Linux's S_PRIVATE) */
};

static struct hugetlbfs_inode_info *HUGETLBFS_I(struct inode *inode) { return inode->i_private; }
static struct hugepage_subpool *subpool_inode(struct inode *inode) { return HUGETLBFS_SB(inode->i_sb)->spool; }

/* ---- the region map (info->lock held) ---- */

/* Offsets of [f, t) in the map. */
static long region_count(struct hugetlbfs_inode_info *info, long f, long t)
{
	long n = 0;
	struct file_region *rg;
	list_for_each_entry(rg, &info->regions, link) {
		if (rg->from >= t)
			break;
		long lo = rg->from > f ? rg->from : f, hi = rg->to < t ? rg->to : t;
		if (hi > lo)
			n += hi - lo;
	}
	return n;
}

/* [f, t) joins the map: the regions it meets or touches merge into one;
 * *spare (a free file_region) is used when none does, and set to NULL. */
static void region_add(struct hugetlbfs_inode_info *info, long f, long t, struct file_region **spare)
{
	struct file_region *rg, *tmp, *into = NULL;
	struct list_head *before = &info->regions;
	list_for_each_entry_safe(rg, tmp, &info->regions, link) {
		if (rg->to < f) {
			before = &rg->link;
			continue;
		}
		if (rg->from > t)
			break;
		if (!into) {
			into = rg;
		} else {
			if (rg->to > into->to)
				into->to = rg->to;
			list_del(&rg->link);
			kfree(rg);
			continue;
		}
		if (rg->from < f)
			f = rg->from;
		if (rg->to > t)
			t = rg->to;
	}
	if (!into) {
		into = *spare;
		*spare = NULL;
		into->to = t;
		list_add(&into->link, before);
	}
	into->from = f;
	if (t > into->to)
		into->to = t;
}

/* [f, t) leaves the map; *spare (may be NULL) for a region cut in two.
 * The offsets that left, or -ENOMEM (nothing changed) when a region must
 * be cut and there is no spare. */
static long region_del(struct hugetlbfs_inode_info *info, long f, long t, struct file_region **spare)
{
	long del = 0;
	struct file_region *rg, *tmp;
	list_for_each_entry_safe(rg, tmp, &info->regions, link) {
		if (rg->to <= f)
			continue;
		if (rg->from >= t)
			break;
		if (rg->from < f && rg->to > t) { /* cut in two */
			if (!*spare)
				return -ENOMEM;
			struct file_region *nrg = *spare;
			*spare = NULL;
			nrg->from = t;
			nrg->to = rg->to;
			list_add(&nrg->link, &rg->link);
			rg->to = f;
			return del + t - f;
		}
		if (rg->from >= f && rg->to <= t) {
			del += rg->to - rg->from;
			list_del(&rg->link);
			kfree(rg);
		} else if (rg->from < f) {
			del += rg->to - f;
			rg->to = f;
		} else {
			del += t - rg->from;
			rg->from = t;
		}
	}
	return del;
}

/* ---- reservations ---- */

/* Offsets leave the subpool's count: chg of them, of which held still
 * hold a pool reservation each (the others have pages, or hold none);
 * the pool's reservations follow what the subpool keeps for min_size=
 * (Linux's hugetlb_unreserve_pages and the restore of free_huge_folio,
 * as one step). */
static void hugetlbfs_uncharge(struct inode *inode, long chg, long held)
{
	struct hstate *h = hstate_inode(inode);
	struct hugepage_subpool *spool = subpool_inode(inode);
	long keep = chg - hugepage_subpool_put_pages(spool, chg); /* now the subpool's */
	long delta = keep - held;
	if (delta < 0) {
		hugetlb_acct_memory(h, delta);
	} else if (delta > 0 && hugetlb_acct_memory(h, delta)) {
		/* Pages still pinned (get_user_pages) are not back in the
		 * pool yet: the subpool keeps fewer than min_size=. */
		spin_lock(&spool->lock);
		spool->rsv_hpages -= delta;
		spin_unlock(&spool->lock);
	}
}

int hugetlbfs_reserve_pages(struct inode *inode, long from, long to)
{
	struct hugetlbfs_inode_info *info = HUGETLBFS_I(inode);
	struct hstate *h = hstate_inode(inode);
	if (from > to)
		return -EINVAL;
	struct file_region *spare = kmalloc(sizeof(*spare), GFP_KERNEL);
	if (!spare)
		return -ENOMEM;
	int err = 0;
	mutex_lock(&info->lock);
	long chg = (to - from) - region_count(info, from, to);
	long gbl = hugepage_subpool_get_pages(subpool_inode(inode), chg);
	if (gbl < 0) {
		err = -ENOMEM;
	} else if (hugetlb_acct_memory(h, gbl)) {
		hugetlbfs_uncharge(inode, chg, chg - gbl);
		err = -ENOMEM;
	} else if (chg) {
		region_add(info, from, to, &spare);
	}
	mutex_unlock(&info->lock);
	kfree(spare);
	return err;
}

/* Linux's remove_inode_hugepages and hugetlb_unreserve_pages: the pages
 * at offsets [start, end) leave the page cache (back to the pool unless
 * pinned), and the offsets the map. info->lock held. -ENOMEM (nothing
 * done) when a region must be cut and no memory is left for it. */
static int remove_inode_hugepages(struct inode *inode, long start, long end)
{
	struct hugetlbfs_inode_info *info = HUGETLBFS_I(inode);
	struct address_space *mapping = inode->i_mapping;
	struct file_region *spare = kmalloc(sizeof(*spare), GFP_KERNEL);
	struct file_region *none = NULL;
	long chg = region_del(info, start, end, spare ? &spare : &none);
	kfree(spare);
	if (chg < 0)
		return (int)chg;
	long freed = 0;
	for (unsigned long idx = (unsigned long)start;; idx++) {
		idx = filemap_next_index(mapping, idx, (unsigned long)end, true);
		if (idx >= (unsigned long)end)
			break;
		struct page *page = filemap_get_folio(mapping, idx);
		if (!page)
			continue;
		if (filemap_remove_folio(page)) {
			freed++;
			inode->i_blocks -= pages_per_huge_page(hstate_inode(inode)) * (PAGE_SIZE / 512);
		}
		put_page(page);
	}
	hugetlbfs_uncharge(inode, chg, chg - freed);
	return 0;
}

/* Linux's hugetlb_vmdelete_list, then remove_inode_hugepages: every
 * mapping of the range loses it, private copies too (Linux's hugetlbfs
 * zaps them on truncate and hole punch alike); the second unmap takes
 * what a fault mapped while the pages went. i_rwsem held. */
static int hugetlbfs_remove_range(struct inode *inode, long start, long end)
{
	unsigned order = hstate_inode(inode)->order;
	unsigned long pgoff = (unsigned long)start << order, nr = end == HUGETLBFS_END ? 0 : (unsigned long)(end - start) << order;
	unmap_mapping_pages(inode->i_mapping, pgoff, nr, true);
	mutex_lock(&HUGETLBFS_I(inode)->lock);
	int err = remove_inode_hugepages(inode, start, end);
	mutex_unlock(&HUGETLBFS_I(inode)->lock);
	unmap_mapping_pages(inode->i_mapping, pgoff, nr, true);
	return err;
}

/* ---- pages ---- */

void hugetlbfs_fault_lock(struct inode *inode) { mutex_lock(&HUGETLBFS_I(inode)->lock); }
void hugetlbfs_fault_unlock(struct inode *inode) { mutex_unlock(&HUGETLBFS_I(inode)->lock); }

struct page *hugetlbfs_alloc_file_page(struct inode *inode, unsigned long idx, struct vm_area_struct *vma,
				       unsigned long address, unsigned int fault_flags, int *err)
{
	struct hugetlbfs_inode_info *info = HUGETLBFS_I(inode);
	struct hstate *h = hstate_inode(inode);
	struct file_region *spare = kmalloc(sizeof(*spare), GFP_KERNEL);
	if (!spare) {
		*err = -ENOMEM;
		return NULL;
	}
	/* An offset in the map holds a reservation (it has no page); one
	 * outside is charged to the subpool, and takes one of min_size='s
	 * reservations if the subpool has one left (gbl 0). */
	bool in_map = region_count(info, (long)idx, (long)idx + 1);
	long gbl = in_map ? 0 : hugepage_subpool_get_pages(subpool_inode(inode), 1);
	if (gbl < 0) {
		kfree(spare);
		*err = -ENOSPC;
		return NULL;
	}
	bool reserved = in_map || !gbl, consumed = reserved;
	nodemask_t mask;
	bool have_mask = false, many = false;
	int nid = huge_node(vma, address, h->order, &mask, &have_mask, &many);
	struct page *page = alloc_hugetlb_folio(h, nid, have_mask ? &mask : NULL, many, &consumed);
	if (!page) {
		if (!in_map)
			hugetlbfs_uncharge(inode, 1, 1 - gbl);
		kfree(spare);
		*err = -ENOSPC; /* Linux's alloc_hugetlb_folio */
		return NULL;
	}
	if (reserved && !consumed)
		hugetlb_acct_memory(h, -1); /* a surplus page came: its reservation is not needed */
	struct incoherent_page cleared =
		clear_huge_page(page, h->order, address, fault_flags & FAULT_FLAG_UNCACHED ? CLEAR_HUGE_BULK : 0,
				clear_page_uncached_threshold());
	page = clear_page_uncached_make_coherent(cleared);
	/* Nobody else adds pages to this file: info->lock is held. */
	if (__filemap_add_folio(inode->i_mapping, page, idx, GFP_KERNEL)) {
		free_huge_folio(page, consumed); /* its reservation back with it */
		if (!in_map)
			hugetlbfs_uncharge(inode, 1, 1 - gbl);
		kfree(spare);
		*err = -ENOMEM;
		return NULL;
	}
	if (!in_map)
		region_add(info, (long)idx, (long)idx + 1, &spare);
	kfree(spare);
	inode->i_blocks += pages_per_huge_page(h) * (PAGE_SIZE / 512);
	return page; /* the allocation's reference is the caller's */
}

/* ---- inodes and directories ---- */

static const struct inode_operations hugetlbfs_inode_operations, hugetlbfs_dir_inode_operations;
static const struct file_operations hugetlbfs_file_operations;

bool is_file_hugepages(const struct file *file) { return file->f_op == &hugetlbfs_file_operations; }

bool hugetlbfs_init_inode(struct inode *inode, umode_t mode, dev_t dev)
{
	inode->i_atime = inode->i_mtime = inode->i_ctime = current_time();
	/* Linux's: no file takes seals but a memfd made with
	 * MFD_ALLOW_SEALING (mm/memfd.c clears this one). */
	inode->i_seals = F_SEAL_SEAL;
	if (S_ISDIR(mode)) {
		inode->i_op = &hugetlbfs_dir_inode_operations;
		inode->i_fop = &simple_dir_operations;
		inc_nlink(inode); /* "." */
		return true;
	}
	if (!S_ISREG(mode) && !S_ISLNK(mode)) { /* Linux's init_special_inode */
		inode->i_op = &hugetlbfs_inode_operations;
		inode->i_rdev = dev;
		if (S_ISCHR(mode))
			inode->i_fop = &def_chr_fops;
		return true;
	}
	struct hugetlbfs_inode_info *info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return false;
	mutex_init(&info->lock);
	INIT_LIST_HEAD(&info->regions);
	inode->i_private = info;
	inode->i_op = &hugetlbfs_inode_operations;
	inode->i_fop = &hugetlbfs_file_operations;
	return true;
}

void hugetlbfs_set_shm_inode(struct inode *inode) { HUGETLBFS_I(inode)->shm = true; }

/* Linux's hugetlbfs_evict_inode: every page and reservation back. */
void hugetlbfs_evict_inode(struct inode *inode)
{
	struct hugetlbfs_inode_info *info = HUGETLBFS_I(inode);
	if (info) {
		mutex_lock(&info->lock);
		remove_inode_hugepages(inode, 0, HUGETLBFS_END); /* no cut: no -ENOMEM */
		mutex_unlock(&info->lock);
		kfree(info);
		inode->i_private = NULL;
	}
	hugetlbfs_inc_free_inodes(inode->i_sb);
}

/* Linux's hugetlbfs_mknod: regular files, directories and, through
 * mknod(2), device nodes, FIFOs and sockets. */
static int hugetlbfs_mknod(struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev)
{
	struct inode *inode = hugetlbfs_get_inode(dir->i_sb, dir, mode, dev);
	if (!inode)
		return -ENOSPC;
	dir->i_mtime = dir->i_ctime = current_time();
	d_make_persistent(dentry, inode);
	return 0;
}

static int hugetlbfs_create(struct inode *dir, struct dentry *dentry, umode_t mode, bool excl)
{
	(void)excl;
	return hugetlbfs_mknod(dir, dentry, (umode_t)(mode | S_IFREG), 0);
}

static int hugetlbfs_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	int err = hugetlbfs_mknod(dir, dentry, (umode_t)(mode | S_IFDIR), 0);
	if (!err)
		inc_nlink(dir);
	return err;
}

/* Linux's hugetlbfs_symlink: an inode (-ENOSPC past nr_inodes=), then
 * page_symlink, which writes the target through the page cache, whose
 * write_begin hugetlbfs refuses: -EINVAL, and the inode goes. The
 * directory's times change all the same, as Linux's. */
static int hugetlbfs_symlink(struct inode *dir, struct dentry *dentry, const char *target)
{
	(void)dentry, (void)target;
	struct inode *inode = hugetlbfs_get_inode(dir->i_sb, dir, S_IFLNK | 0777, 0);
	int err = inode ? -EINVAL : -ENOSPC;
	if (inode)
		iput(inode);
	dir->i_mtime = dir->i_ctime = current_time();
	return err;
}

static int hugetlbfs_tmpfile(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	struct inode *inode = hugetlbfs_get_inode(dir->i_sb, dir, (umode_t)(mode | S_IFREG), 0);
	if (!inode)
		return -ENOSPC;
	clear_nlink(inode);
	d_tmpfile(dentry, inode);
	return 0;
}

/* Linux's hugetlbfs_setattr: a new size must be a whole number of huge
 * pages (-EINVAL), and the seals are checked (-EPERM); a smaller one
 * unmaps and frees what lies past it (hugetlb_vmtruncate). */
static int hugetlbfs_setattr(struct dentry *dentry, struct iattr *attr)
{
	struct inode *inode = dentry->d_inode;
	int err = 0;
	down_write(&inode->i_rwsem);
	if (attr->ia_valid & ATTR_SIZE) {
		struct hstate *h = hstate_inode(inode);
		long oldsize = inode->i_size, newsize = attr->ia_size;
		if (newsize < 0 || ((unsigned long)newsize & ~huge_page_mask(h))) {
			err = -EINVAL;
			goto out;
		}
		if ((newsize < oldsize && (inode->i_seals & F_SEAL_SHRINK)) ||
		    (newsize > oldsize && (inode->i_seals & F_SEAL_GROW))) {
			err = -EPERM;
			goto out;
		}
		WRITE_ONCE(inode->i_size, newsize);
		if (newsize < oldsize)
			err = hugetlbfs_remove_range(inode, (long)((unsigned long)newsize >> (PAGE_SHIFT + h->order)), HUGETLBFS_END);
		inode->i_mtime = attr->ia_ctime;
	}
	setattr_copy(inode, attr);
out:
	up_write(&inode->i_rwsem);
	return err;
}

static const struct inode_operations hugetlbfs_dir_inode_operations = {
	.lookup = simple_lookup, .create = hugetlbfs_create, .link = simple_link, .unlink = simple_unlink,
	.mkdir = hugetlbfs_mkdir, .rmdir = simple_rmdir, .rename = simple_rename, .tmpfile = hugetlbfs_tmpfile,
	.symlink = hugetlbfs_symlink, .mknod = hugetlbfs_mknod, .setattr = hugetlbfs_setattr,
};
static const struct inode_operations hugetlbfs_inode_operations = { .setattr = hugetlbfs_setattr };

/* ---- the file ---- */

/* Linux's hugetlbfs_read_iter: huge page by huge page up to i_size, a
 * hole read as zeros. */
static long hugetlbfs_read(struct file *f, char *dst, size_t count, long *pos, bool user)
{
	struct inode *inode = f->f_inode;
	struct hstate *h = hstate_inode(inode);
	unsigned long hsize = huge_page_size(h);
	size_t done = 0;
	while (done < count) {
		long size = READ_ONCE(inode->i_size);
		if (*pos >= size)
			break;
		unsigned long idx = (unsigned long)*pos >> (PAGE_SHIFT + h->order);
		unsigned long off = (unsigned long)*pos & (hsize - 1);
		size_t n = hsize - off;
		if (n > count - done)
			n = count - done;
		if ((long)n > size - *pos)
			n = (size_t)(size - *pos);
		struct page *page = filemap_get_folio(f->f_mapping, idx);
		unsigned long left = 0;
		/* 4 KiB at a time: a huge page is contiguous in the direct
		 * map, the zero page is one 4 KiB page. */
		for (size_t c = 0; c < n && !left;) {
			size_t step = PAGE_SIZE - ((off + c) & (PAGE_SIZE - 1));
			if (step > n - c)
				step = n - c;
			const char *src = page ? (const char *)page_address(page) + off + c
					       : (const char *)page_address(zero_page) + ((off + c) & (PAGE_SIZE - 1));
			left = file_copy_out(dst + done + c, src, step, user);
			c += step - left;
			if (left)
				n = c;
		}
		if (page)
			put_page(page);
		done += n;
		*pos += (long)n;
		if (left) {
			if (!done)
				return -EFAULT;
			break;
		}
		cond_resched();
	}
	return (long)done;
}

/* Linux's hugetlbfs_fallocate: PUNCH_HOLE takes the huge pages wholly
 * inside the range (the partial ones at its ends are zeroed, as Linux's
 * hugetlbfs_zero_partial_page); else every huge page the range meets is
 * made (cleared) and kept, consuming the file's reservations where it has
 * them, and i_size grows to the range's end unless KEEP_SIZE. */
static long hugetlbfs_fallocate(struct file *f, int mode, long offset, long len)
{
	struct inode *inode = f->f_inode;
	struct hstate *h = hstate_inode(inode);
	unsigned shift = PAGE_SHIFT + h->order;
	long hsize = (long)huge_page_size(h), end = offset + len;
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE))
		return -EOPNOTSUPP;
	long err = 0;
	down_write(&inode->i_rwsem);
	if (mode & FALLOC_FL_PUNCH_HOLE) {
		if (inode->i_seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) {
			err = -EPERM;
			goto out;
		}
		long hole_start = (offset + hsize - 1) & -hsize, hole_end = end & -hsize;
		for (long part = offset & -hsize; part < end; part += hsize) {
			if (part >= hole_start && part < hole_end)
				continue; /* wholly inside: goes below */
			struct page *page = filemap_get_folio(f->f_mapping, (unsigned long)part >> shift);
			if (!page)
				continue;
			long from = offset > part ? offset - part : 0, to = end < part + hsize ? end - part : hsize;
			memset((char *)page_address(page) + from, 0, (size_t)(to - from));
			put_page(page);
		}
		if (hole_end > hole_start)
			err = hugetlbfs_remove_range(inode, hole_start >> shift, hole_end >> shift);
		goto out;
	}
	if ((inode->i_seals & F_SEAL_GROW) && end > inode->i_size) {
		err = -EPERM;
		goto out;
	}
	/* Linux's pseudo_vma: no policy of its own (hugetlb has no shared
	 * ones), so the task's places each page, interleaved by its offset. */
	struct vm_area_struct pseudo = { .vm_end = ~0ul, .vm_flags = VM_HUGETLB | VM_SHARED | VM_MAYSHARE,
					 .vm_mm = current->mm, .vm_file = f };
	for (long idx = offset >> shift; idx < (end + hsize - 1) >> shift; idx++) {
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		hugetlbfs_fault_lock(inode);
		struct page *page = filemap_get_folio(f->f_mapping, (unsigned long)idx);
		int e = 0;
		if (!page)
			page = hugetlbfs_alloc_file_page(inode, (unsigned long)idx, &pseudo, (unsigned long)idx << shift, 0, &e);
		hugetlbfs_fault_unlock(inode);
		if (!page) {
			err = e;
			break;
		}
		put_page(page); /* the page cache keeps its own */
	}
	if (!err && !(mode & FALLOC_FL_KEEP_SIZE) && end > inode->i_size)
		WRITE_ONCE(inode->i_size, end);
	if (!err)
		inode->i_ctime = current_time();
out:
	up_write(&inode->i_rwsem);
	return err;
}

/* Linux 6.1's hugetlbfs_file_mmap, after mmap made the VMA (mm/mmap.c
 * has rounded the length and aligned the address to the page size): the
 * seals (seal_check_future_write), then an offset past what a loff_t
 * holds or not a whole number of huge pages, or an end that overflows
 * (-EINVAL); a shared mapping reserves the file's offsets it covers (not
 * a SysV segment's: reserved at shmget), a private one its own pages
 * (mm/hugetlb_vma.c), unless VM_NORESERVE (-ENOMEM when the pool or
 * size= is short); a writable mapping grows i_size to its end. */
static int hugetlbfs_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct inode *inode = file->f_inode;
	struct hstate *h = hstate_inode(inode);
	int err = seal_check_write(inode->i_seals, vma);
	if (err)
		return err;
	if (vma->vm_pgoff >> (63 - PAGE_SHIFT)) /* Linux's PGOFF_LOFFT_MAX */
		return -EINVAL;
	if (vma->vm_pgoff & ((1ul << h->order) - 1))
		return -EINVAL;
	unsigned long vma_len = vma->vm_end - vma->vm_start;
	long len = (long)(vma_len + (vma->vm_pgoff << PAGE_SHIFT));
	if (len < 0 || (unsigned long)len < vma_len)
		return -EINVAL;
	down_write(&inode->i_rwsem);
	if (vma->vm_flags & VM_SHARED) {
		if (!(vma->vm_flags & VM_NORESERVE) && !HUGETLBFS_I(inode)->shm)
			err = hugetlbfs_reserve_pages(inode, (long)(vma->vm_pgoff >> h->order), len >> (PAGE_SHIFT + h->order));
	} else {
		err = hugetlb_vma_reserve_private(vma, h);
	}
	if (!err && (vma->vm_flags & VM_WRITE) && inode->i_size < len)
		WRITE_ONCE(inode->i_size, len);
	up_write(&inode->i_rwsem);
	return err;
}

static const struct file_operations hugetlbfs_file_operations = {
	.read = hugetlbfs_read, .mmap = hugetlbfs_file_mmap, .fsync = noop_fsync, .llseek = generic_file_llseek,
	.fallocate = hugetlbfs_fallocate,
};
