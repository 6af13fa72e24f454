/* Shared memory objects (shared anonymous memory as unnamed files of the
 * internal tmpfs, MAP_SHARED mappings of tmpfs files) and tmpfs itself,
 * Linux's mm/shmem.c: mm/shmem.h has the rules. */
#include "mm/swap.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "fs/fs.h"
#include "kernel/printk.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/memory.h"
#include "mm/mempolicy.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/secretmem.h"
#include "mm/slab.h"
#include "mm/truncate.h"
#include "mm/util.h"
#include "mm/filemap.h"
#include "mm/shmem_swap.h"

static long shmem_pages;

void shmem_pages_add(long nr) { __atomic_add_fetch(&shmem_pages, nr, __ATOMIC_RELAXED); }

unsigned long nr_shmem_pages(void)
{
	long n = __atomic_load_n(&shmem_pages, __ATOMIC_RELAXED);
	return n < 0 ? 0 : (unsigned long)n;
}

struct shmem_object *shmem_object_alloc(struct mm_struct *mm, const char *name, unsigned long len, bool noreserve,
					int *err)
{
	long size = (long)(len >> PAGE_SHIFT);
	*err = -ENOMEM;
	/* Linux's shmem_acct_size: the whole size, unless MAP_NORESERVE. */
	if (!noreserve && security_vm_enough_memory_mm(mm, size))
		return NULL;
	/* Linux's shmem_kernel_file_setup(name, ...) on shm_mnt: an
	 * unlinked file of len bytes there, whose i_size is the end. */
	struct file *file = shmem_file_setup(name, (long)len);
	struct shmem_object *obj = IS_ERR(file) ? NULL : shmem_file_object(file);
	if (!IS_ERR(file))
		fput(file); /* the object's reference, or none */
	if (!obj) {
		if (!noreserve)
			vm_unacct_memory(size);
		*err = IS_ERR(file) ? (int)PTR_ERR(file) : -ENOMEM;
		return NULL;
	}
	obj->accounted = !noreserve;
	*err = 0;
	return obj;
}

void shmem_get(struct shmem_object *obj)
{
	if (!obj)
		return;
	__atomic_add_fetch(&obj->refcount, 1, __ATOMIC_RELAXED);
	if (obj->attach_ops)
		obj->attach_ops->open(obj);
}

void shmem_put(struct shmem_object *obj)
{
	if (!obj)
		return;
	/* The detach may destroy the segment and drop its reference: this
	 * VMA's keeps the object until the line below. */
	if (obj->attach_ops)
		obj->attach_ops->close(obj);
	if (__atomic_sub_fetch(&obj->refcount, 1, __ATOMIC_ACQ_REL))
		return;
	/* The file's last reference but a get_user_pages pin's takes its
	 * pages (shmem_evict_inode). */
	if (obj->accounted)
		vm_unacct_memory((long)obj->size);
	fput(obj->file);
	kfree(obj);
}

static struct page *shmem_file_get_page(struct address_space *mapping, struct vm_area_struct *vma,
					unsigned long address, unsigned int *ret);

/* What vma's pages are the page cache of: its object's file, or the tmpfs
 * file a MAP_PRIVATE mapping maps (vm_shm NULL). */
static struct address_space *shmem_vma_mapping(struct vm_area_struct *vma)
{
	return vma->vm_shm ? vma->vm_shm->mapping : vma->vm_file->f_mapping;
}

struct page *shmem_get_page(struct vm_area_struct *vma, unsigned long address, unsigned int *ret)
{
	struct address_space *mapping = shmem_vma_mapping(vma);
	/* Linux's vm_ops->fault: a secretmem file's is its own. */
	if (secretmem_mapping(mapping))
		return secretmem_get_page(mapping, vma, address, ret);
	return shmem_file_get_page(mapping, vma, address, ret);
}

struct page *shmem_next_present_page(struct vm_area_struct *vma, unsigned long *index, unsigned long last)
{
	return filemap_get_next_folio(shmem_vma_mapping(vma), index, last);
}

/* Pages of files and shmem objects mapped by at least one PTE (Linux's
 * NR_FILE_MAPPED: page_add_file_rmap counts a page at its first mapping,
 * page_remove_rmap uncounts it at its last). */
static long file_mapped_pages;

unsigned long nr_file_mapped_pages(void)
{
	long n = __atomic_load_n(&file_mapped_pages, __ATOMIC_RELAXED);
	return n < 0 ? 0 : (unsigned long)n;
}

/* A page's first PTE mapping (up) or its last going: counted in Mapped,
 * unless it is part of a tmpfs huge page that a PMD maps, whose pages
 * all count already (Linux 6.1's page_add_file_rmap and
 * page_remove_rmap: the folio's _nr_pages_mapped, COMPOUND_MAPPED for its
 * PMDs). */
static void file_rmap_one(struct page *page, bool up)
{
	struct page *head = compound_head(page);
	long n = 1;
	if (page_test_flag(head, PG_shmem_thp)) {
		long v = __atomic_add_fetch(shmem_thp_nr_pages_mapped_ptr(head), up ? 1 : -1, __ATOMIC_RELAXED);
		n = v < SHMEM_THP_COMPOUND_MAPPED; /* no PMD maps it: the page counts alone */
	}
	__atomic_add_fetch(&file_mapped_pages, up ? n : -n, __ATOMIC_RELAXED);
}

void shmem_file_rmap_pmd(struct page *head, bool up)
{
	long *mapped = shmem_thp_nr_pages_mapped_ptr(head);
	long v = __atomic_add_fetch(mapped, up ? SHMEM_THP_COMPOUND_MAPPED : -SHMEM_THP_COMPOUND_MAPPED,
				    __ATOMIC_RELAXED);
	/* The pages no PTE maps (Linux's nr_pmdmapped - _nr_pages_mapped). */
	long n = (long)HPAGE_PMD_NR - (v & (SHMEM_THP_COMPOUND_MAPPED - 1));
	__atomic_add_fetch(&file_mapped_pages, up ? n : -n, __ATOMIC_RELAXED);
}

void shmem_page_mapped(struct mm_struct *mm, struct page *page)
{
	if (__atomic_add_fetch(&page->_mapcount, 1, __ATOMIC_RELAXED) == 0)
		file_rmap_one(page, true);
	add_mm_rss_counter(mm, MM_SHMEMPAGES, 1);
}

void shmem_page_unmapped(struct mm_struct *mm, struct page *page)
{
	if (__atomic_sub_fetch(&page->_mapcount, 1, __ATOMIC_RELAXED) == -1)
		file_rmap_one(page, false);
	add_mm_counter(mm, MM_SHMEMPAGES, -1);
}

void shmem_rmap_moved(struct page *page, bool add)
{
	if (add) {
		get_page(page);
		if (__atomic_add_fetch(&page->_mapcount, 1, __ATOMIC_RELAXED) == 0)
			file_rmap_one(page, true);
	} else if (__atomic_sub_fetch(&page->_mapcount, 1, __ATOMIC_RELAXED) == -1) {
		file_rmap_one(page, false);
	}
}

bool shmem_page_current(struct vm_area_struct *vma, unsigned long address, struct page *page)
{
	unsigned long index = linear_page_index(vma, address);
	struct address_space *mapping = shmem_vma_mapping(vma);
	return READ_ONCE(page->mapping) == mapping && page->index == index &&
	       filemap_index_in_size(mapping->host, index);
}

/* ---- tmpfs: files whose pages are their page cache ---- */

#include "fs/char_dev.h"
#include "block/blkdev.h"
#include "fs/libfs.h"
#include "fs/mount.h"
#include "arch/x86_64/uaccess.h"
#include "lib/err.h"
#include "mm/filemap.h"
#include "mm/huge_memory.h"
#include "mm/memfd.h"
#include "fs/pipe_fs_i.h"
#include "kernel/unistd.h"

#define BOGO_DIRENT_SIZE 20 /* a directory's st_size per name, as Linux's tmpfs */

static const struct inode_operations shmem_inode_operations, shmem_dir_inode_operations,
	shmem_symlink_inode_operations, shmem_special_inode_operations;
static const struct file_operations shmem_file_operations;

/* Pages in (or out of) inode's page cache: Shmem, i_blocks, and the
 * instance's used_blocks for pages gone (a new page was charged to it
 * before it was allocated, shmem_alloc_page). A secretmem file's pages
 * are none of these (mm/secretmem.c makes them itself; Linux counts them
 * in Cached only), so its truncate at the end counts nothing here. */
static void shmem_account(struct inode *inode, long pages)
{
	if (secretmem_mapping(inode->i_mapping))
		return;
	if (pages < 0)
		shmem_inode_unacct_blocks(inode, -pages);
	__atomic_add_fetch(&shmem_pages, pages, __ATOMIC_RELAXED);
	inode->i_blocks = (unsigned long)((long)inode->i_blocks + pages * (long)(PAGE_SIZE / 512));
}

int shmem_charge(struct inode *inode, long pages)
{
	if (shmem_inode_acct_block(inode, pages))
		return -ENOSPC;
	shmem_account(inode, pages);
	return 0;
}

void shmem_uncharge(struct inode *inode, long pages)
{
	shmem_account(inode, -pages);
}

/* Linux's shmem_get_folio for a page that must be there (a write,
 * fallocate, a fault through vma): the page at index with a reference of
 * the caller's, found, or made zeroed and added: part of a huge page when
 * shmem_is_huge says so and one can be had (mm/shmem_huge.c), else a
 * small one. NULL with *err -ENOSPC (size=) or -ENOMEM. No i_rwsem
 * needed: two makers of one page settle it in the tree (-EEXIST: the
 * other's is taken). */
static struct page *shmem_get_or_alloc(struct inode *inode, struct vm_area_struct *vma, unsigned long index,
				       int *err)
{
	struct address_space *mapping = inode->i_mapping;
	for (;;) {
		/* The page, brought back from swap if it was out there
		 * (mm/shmem_swap.c). */
		struct page *page = shmem_find_folio(inode, index, err);
		if (page)
			return page;
		if (*err)
			return NULL;
		if (shmem_is_huge(vma, inode, index, false)) {
			struct page *head = shmem_alloc_huge(inode, index);
			if (head) {
				shmem_account(inode, (long)HPAGE_PMD_NR);
				/* The allocation's reference, the head's, is the caller's. */
				return head + (index & (HPAGE_PMD_NR - 1));
			}
		}
		page = shmem_alloc_page(inode, index, err);
		if (!page)
			return NULL;
		int e = __filemap_add_folio(mapping, page, index, GFP_KERNEL);
		if (!e) {
			shmem_account(inode, 1);
			/* Swap-backed, on the anon lists (Linux's
			 * shmem_add_to_page_cache and folio_add_lru). */
			folio_add_lru(page);
			return page; /* the allocation's reference is the caller's */
		}
		shmem_free_unadded(inode, page);
		if (e != -EEXIST) {
			*err = -ENOMEM;
			return NULL;
		}
	}
}

/* The pages [start, end) (end ~0ul: to the end) leave the cache and
 * every mapping, minus the huge pages across either end that cannot be
 * split (mm/shmem_huge.c: zeroed there instead); private copies of the
 * pages from unmap_from on go too when to_end (a truncate). Returns the
 * pages taken out. */
static unsigned long shmem_remove_range(struct inode *inode, unsigned long start, unsigned long end, bool to_end)
{
	unsigned long s = start, e = end;
	shmem_huge_trim_range(inode, &s, &e);
	if (to_end) {
		if (s != start) /* the unsplit page's part past the end */
			unmap_mapping_pages(inode->i_mapping, start, 0, true);
		return truncate_pagecache(inode, (long)(s << PAGE_SHIFT));
	}
	if (s >= e)
		return 0;
	return truncate_pagecache_range(inode, (long)(s << PAGE_SHIFT), (long)(e << PAGE_SHIFT) - 1);
}

/* Every page from lstart on goes (i_rwsem held for writing, or the last
 * reference gone), and the part of the page lstart is in past it is
 * zeroed, so that growing the file again shows zeros there. */
static void shmem_truncate_range(struct inode *inode, long lstart)
{
	if (lstart & (long)(PAGE_SIZE - 1)) {
		/* A page out on swap comes back to be zeroed (Linux's
		 * shmem_undo_range: shmem_get_folio of the partial page). */
		int err;
		struct page *page = shmem_find_folio(inode, (unsigned long)lstart >> PAGE_SHIFT, &err);
		if (page) {
			size_t off = (size_t)lstart & (PAGE_SIZE - 1);
			memset((char *)page_address(page) + off, 0, PAGE_SIZE - off);
			put_page(page);
		}
	}
	/* Every process mapping a page past the end loses it first
	 * (mm/truncate.h): its next touch there is SIGBUS. */
	unsigned long start = ((unsigned long)lstart + PAGE_SIZE - 1) >> PAGE_SHIFT;
	shmem_account(inode, -(long)shmem_remove_range(inode, start, ~0ul, true));
}

void shmem_evict_inode(struct inode *inode)
{
	shmem_truncate_range(inode, 0);
	shmem_swaplist_del(inode); /* its slots freed by the truncate */
	mpol_free_shared_policy(&inode->i_policy);
	shmem_free_inode(inode->i_sb);
}

struct inode *shmem_get_inode(struct super_block *sb, const struct inode *dir, umode_t mode, dev_t dev)
{
	if (shmem_reserve_inode(sb))
		return NULL; /* nr_inodes= reached: the callers' -ENOSPC */
	struct inode *inode = new_inode(sb);
	if (!inode) {
		shmem_free_inode(sb);
		return NULL;
	}
	inode_init_owner(inode, dir, mode);
	/* Linux's __shmem_get_inode: no file takes seals but a memfd made
	 * with MFD_ALLOW_SEALING (mm/memfd.c clears this one). */
	inode->i_seals = F_SEAL_SEAL;
	mpol_shared_policy_init(&inode->i_policy, NULL); /* a regular file's gets mpol= below */
	switch (mode & S_IFMT) {
	case S_IFREG:
		inode->i_op = &shmem_inode_operations;
		inode->i_fop = &shmem_file_operations;
		mpol_shared_policy_init(&inode->i_policy, shmem_get_sbmpol(sb));
		break;
	case S_IFDIR:
		inc_nlink(inode); /* "." */
		inode->i_size = 2 * BOGO_DIRENT_SIZE;
		inode->i_op = &shmem_dir_inode_operations;
		inode->i_fop = &simple_dir_operations;
		break;
	case S_IFLNK:
		inode->i_op = &shmem_symlink_inode_operations;
		break;
	default: /* Linux's init_special_inode */
		inode->i_op = &shmem_special_inode_operations;
		inode->i_rdev = dev;
		if (S_ISCHR(mode))
			inode->i_fop = &def_chr_fops;
		else if (S_ISFIFO(mode))
			inode->i_fop = &pipefifo_fops;
		else if (S_ISBLK(mode))
			inode->i_fop = &def_blk_fops;
		break;
	}
	return inode;
}

static void dir_changed(struct inode *dir, long size_delta)
{
	dir->i_size += size_delta;
	dir->i_mtime = dir->i_ctime = current_time();
}

static int shmem_mknod(struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev)
{
	struct inode *inode = shmem_get_inode(dir->i_sb, dir, mode, dev);
	if (!inode)
		return -ENOSPC; /* Linux's shmem_get_inode when it cannot make one */
	dir_changed(dir, BOGO_DIRENT_SIZE);
	d_make_persistent(dentry, inode);
	return 0;
}

static int shmem_create(struct inode *dir, struct dentry *dentry, umode_t mode, bool excl)
{
	(void)excl;
	return shmem_mknod(dir, dentry, (umode_t)(mode | S_IFREG), 0);
}

static int shmem_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	int err = shmem_mknod(dir, dentry, (umode_t)(mode | S_IFDIR), 0);
	if (!err)
		inc_nlink(dir); /* the new directory's ".." */
	return err;
}

static int shmem_symlink(struct inode *dir, struct dentry *dentry, const char *target)
{
	size_t len = strlen(target) + 1;
	if (len > PAGE_SIZE)
		return -ENAMETOOLONG;
	struct inode *inode = shmem_get_inode(dir->i_sb, dir, S_IFLNK | 0777, 0);
	if (!inode)
		return -ENOSPC;
	inode->i_link = kmalloc(len, GFP_KERNEL);
	if (!inode->i_link) {
		iput(inode);
		return -ENOMEM;
	}
	memcpy(inode->i_link, target, len);
	inode->i_size = (long)len - 1;
	dir_changed(dir, BOGO_DIRENT_SIZE);
	d_make_persistent(dentry, inode);
	return 0;
}

/* O_TMPFILE: a file with no name (i_nlink 0) that linkat may name later
 * (I_LINKABLE, set by the VFS unless O_EXCL). */
static int shmem_tmpfile(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	struct inode *inode = shmem_get_inode(dir->i_sb, dir, (umode_t)(mode | S_IFREG), 0);
	if (!inode)
		return -ENOSPC;
	clear_nlink(inode);
	d_tmpfile(dentry, inode); /* bound, never hashed */
	return 0;
}

static int shmem_link(struct dentry *old, struct inode *dir, struct dentry *dentry)
{
	/* Each extra name of a file takes an inode of nr_inodes=, as
	 * Linux's (an O_TMPFILE getting its first name does not). */
	if (old->d_inode->i_nlink && shmem_reserve_inode(dir->i_sb))
		return -ENOSPC;
	dir_changed(dir, BOGO_DIRENT_SIZE);
	old->d_inode->i_state &= ~I_LINKABLE;
	return simple_link(old, dir, dentry);
}

static int shmem_unlink(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = dentry->d_inode;
	if (inode->i_nlink > 1 && !S_ISDIR(inode->i_mode))
		shmem_free_inode(inode->i_sb);
	dir_changed(dir, -BOGO_DIRENT_SIZE);
	return simple_unlink(dir, dentry);
}

static int shmem_rmdir(struct inode *dir, struct dentry *dentry)
{
	if (!simple_empty(dentry))
		return -ENOTEMPTY;
	dir_changed(dir, -BOGO_DIRENT_SIZE);
	return simple_rmdir(dir, dentry);
}

static int shmem_rename2(struct inode *old_dir, struct dentry *old, struct inode *new_dir, struct dentry *new,
			 unsigned int flags)
{
	if (!(flags & RENAME_EXCHANGE)) {
		if (new->d_inode && d_is_dir(new) && !simple_empty(new))
			return -ENOTEMPTY;
		/* A file replaced goes as shmem_unlink would (Linux's rename). */
		if (new->d_inode && !d_is_dir(new) && new->d_inode->i_nlink > 1)
			shmem_free_inode(new->d_inode->i_sb);
		/* A name leaves old_dir; new_dir gains one unless it replaces one. */
		dir_changed(old_dir, -BOGO_DIRENT_SIZE);
		dir_changed(new_dir, new->d_inode ? 0 : BOGO_DIRENT_SIZE);
	}
	return simple_rename(old_dir, old, new_dir, new, flags);
}

/* Linux's shmem_setattr: the size under i_rwsem (pages past it go), then
 * the rest as simple_setattr. */
static int shmem_setattr(struct dentry *dentry, struct iattr *attr)
{
	struct inode *inode = dentry->d_inode;
	down_write(&inode->i_rwsem);
	if (attr->ia_valid & ATTR_SIZE) {
		/* setattr_prepare: RLIMIT_FSIZE, SIGXFSZ, before the seals. */
		int err = inode_newsize_ok(inode, attr->ia_size);
		if (err) {
			up_write(&inode->i_rwsem);
			return err;
		}
		/* Linux's shmem_setattr: the seals, after setattr_prepare. */
		if ((attr->ia_size < inode->i_size && (inode->i_seals & F_SEAL_SHRINK)) ||
		    (attr->ia_size > inode->i_size && (inode->i_seals & F_SEAL_GROW))) {
			up_write(&inode->i_rwsem);
			return -EPERM;
		}
		if (attr->ia_size != inode->i_size) {
			/* Linux's shmem_setattr: the new size first, so that a
			 * fault past it is SIGBUS before its pages go. */
			long oldsize = inode->i_size;
			WRITE_ONCE(inode->i_size, attr->ia_size);
			if (attr->ia_size < oldsize)
				shmem_truncate_range(inode, attr->ia_size);
			inode->i_mtime = attr->ia_ctime;
		}
	}
	setattr_copy(inode, attr);
	up_write(&inode->i_rwsem);
	return 0;
}

static const char *shmem_get_link(struct dentry *dentry) { return dentry->d_inode->i_link; }

static const struct inode_operations shmem_dir_inode_operations = {
	.lookup = simple_lookup, .create = shmem_create, .link = shmem_link, .unlink = shmem_unlink,
	.symlink = shmem_symlink, .mkdir = shmem_mkdir, .rmdir = shmem_rmdir, .mknod = shmem_mknod,
	.rename = shmem_rename2, .tmpfile = shmem_tmpfile, .setattr = shmem_setattr,
};
/* Linux's shmem_getattr: a file whose pages may be huge says so in
 * st_blksize (HPAGE_PMD_SIZE). */
static int shmem_getattr(const struct path *path, struct kstat *stat)
{
	struct inode *inode = path->dentry->d_inode;
	down_read(&inode->i_rwsem);
	generic_fillattr(inode, stat);
	up_read(&inode->i_rwsem);
	if (shmem_is_huge(NULL, inode, 0, false))
		stat->blksize = (long)PMD_SIZE;
	return 0;
}

static const struct inode_operations shmem_inode_operations = { .setattr = shmem_setattr, .getattr = shmem_getattr };
static const struct inode_operations shmem_symlink_inode_operations = {
	.get_link = shmem_get_link, .setattr = shmem_setattr,
};
static const struct inode_operations shmem_special_inode_operations = { .setattr = shmem_setattr };

/* Linux's shmem_file_write_iter through generic_perform_write: page by
 * page, each found in the page cache or made zeroed and added, the bytes
 * copied in; i_size grows to what was written. */
static long shmem_file_write(struct file *f, const char *src, size_t count, long *pos, bool user)
{
	struct inode *inode = f->f_inode;
	long done = 0, err = 0;
	down_write(&inode->i_rwsem);
	if (f->f_flags & O_APPEND)
		*pos = inode->i_size;
	/* Linux's generic_write_checks: an empty write checks no limit. */
	if (count && (err = generic_write_check_limits(f, *pos, &count)))
		goto out;
	while (count) {
		unsigned long index = (unsigned long)*pos >> PAGE_SHIFT;
		size_t offset = (size_t)*pos & (PAGE_SIZE - 1);
		size_t n = min((size_t)PAGE_SIZE - offset, count);
		/* Linux's shmem_write_begin, page by page: a write seal refuses
		 * every write, F_SEAL_GROW one that reaches past the end. */
		if ((inode->i_seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) ||
		    ((inode->i_seals & F_SEAL_GROW) && *pos + (long)n > inode->i_size)) {
			err = -EPERM;
			break;
		}
		int e;
		struct page *page = shmem_get_or_alloc(inode, NULL, index, &e);
		if (!page) {
			err = e;
			break;
		}
		size_t left = file_copy_in((char *)page_address(page) + offset, src + done, n, user);
		put_page(page);
		done += (long)(n - left);
		*pos += (long)(n - left);
		count -= n - left;
		if (left) {
			err = -EFAULT;
			break;
		}
	}
	if (*pos > inode->i_size)
		inode->i_size = *pos;
	if (done)
		inode->i_mtime = inode->i_ctime = current_time();
out:
	up_write(&inode->i_rwsem);
	return done ? done : err;
}

/* Zeroes bytes [from, to) of the page at index, if present. */
static void shmem_zero_part(struct address_space *mapping, unsigned long index, size_t from, size_t to)
{
	int err;
	struct page *page = shmem_find_folio(mapping->host, index, &err);
	if (page) {
		memset((char *)page_address(page) + from, 0, to - from);
		put_page(page);
	}
}

/* Linux's shmem_fallocate: a hole punched (the pages wholly inside it go,
 * the parts of the pages at its ends are zeroed), or every page of the
 * range made (zeroed) so that later writes need none, and i_size grown
 * to its end unless FALLOC_FL_KEEP_SIZE. */
static long shmem_fallocate(struct file *f, int mode, long offset, long len)
{
	struct inode *inode = f->f_inode;
	struct address_space *mapping = f->f_mapping;
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE))
		return -EOPNOTSUPP;
	long end = offset + len, err = 0;
	down_write(&inode->i_rwsem);
	/* Linux's, past a hole punched: RLIMIT_FSIZE binds the end of the
	 * range even under FALLOC_FL_KEEP_SIZE (-EFBIG and SIGXFSZ). */
	if (!(mode & FALLOC_FL_PUNCH_HOLE) && (err = inode_newsize_ok(inode, end)))
		goto out;
	if (mode & FALLOC_FL_PUNCH_HOLE) {
		if (inode->i_seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) {
			err = -EPERM;
			goto out;
		}
		unsigned long first = (unsigned long)offset >> PAGE_SHIFT, last = (unsigned long)(end - 1) >> PAGE_SHIFT;
		size_t from = (size_t)offset & (PAGE_SIZE - 1), to = (size_t)((end - 1) & (long)(PAGE_SIZE - 1)) + 1;
		/* Only a page the hole covers in part is zeroed in place (Linux's
		 * shmem_undo_range: partial_start, partial_end); a page it
		 * covers whole just goes. Zeroing a whole page first would make
		 * a process writing it through its mapping meanwhile see its
		 * word half cleared (memset is not one store per word). */
		if (first == last) {
			if (from || to != PAGE_SIZE)
				shmem_zero_part(mapping, first, from, to);
		} else {
			if (from)
				shmem_zero_part(mapping, first, from, PAGE_SIZE);
			if (to != PAGE_SIZE)
				shmem_zero_part(mapping, last, 0, to);
		}
		/* The pages wholly inside go from every shared mapping too
		 * (mm/truncate.h): read back there, the hole is zeros. */
		unsigned long whole_first = ((unsigned long)offset + PAGE_SIZE - 1) >> PAGE_SHIFT;
		shmem_account(inode, -(long)shmem_remove_range(inode, whole_first, (unsigned long)end >> PAGE_SHIFT, false));
		goto out;
	}
	/* Even with FALLOC_FL_KEEP_SIZE, as Linux's. */
	if ((inode->i_seals & F_SEAL_GROW) && end > inode->i_size) {
		err = -EPERM;
		goto out;
	}
	/* Linux's, after the seal: a range larger than the whole instance
	 * fails at once. (Linux also takes back the pages a failed fallocate
	 * made; here they stay in the file, as pages of zeros.) */
	unsigned long max_blocks = READ_ONCE(SHMEM_SB(inode->i_sb)->max_blocks);
	if (max_blocks &&
	    (((unsigned long)end + PAGE_SIZE - 1) >> PAGE_SHIFT) - ((unsigned long)offset >> PAGE_SHIFT) > max_blocks) {
		err = -ENOSPC;
		goto out;
	}
	for (unsigned long index = (unsigned long)offset >> PAGE_SHIFT; (long)(index << PAGE_SHIFT) < end; index++) {
		int e;
		struct page *page = shmem_get_or_alloc(inode, NULL, index, &e);
		if (!page) {
			err = -ENOSPC; /* Linux's shmem_fallocate when a page cannot be had */
			break;
		}
		put_page(page); /* the page cache keeps its own */
	}
	if (!err && !(mode & FALLOC_FL_KEEP_SIZE) && end > inode->i_size)
		inode->i_size = end;
	if (!err)
		inode->i_ctime = current_time();
out:
	up_write(&inode->i_rwsem);
	return err;
}

/* Linux's shmem_file_llseek: SEEK_DATA and SEEK_HOLE by the pages present
 * (a page is data even where it holds zeros), the rest as
 * generic_file_llseek. */
static long shmem_file_llseek(struct file *f, long offset, int whence)
{
	struct inode *inode = f->f_inode;
	if (whence != SEEK_DATA && whence != SEEK_HOLE)
		return generic_file_llseek(f, offset, whence);
	down_read(&inode->i_rwsem);
	long size = inode->i_size, ret;
	if (offset < 0 || offset >= size) {
		ret = -ENXIO;
	} else {
		unsigned long start = (unsigned long)offset >> PAGE_SHIFT;
		unsigned long end = ((unsigned long)size + PAGE_SIZE - 1) >> PAGE_SHIFT;
		unsigned long idx = filemap_next_index(f->f_mapping, start, end, whence == SEEK_DATA);
		ret = idx == start ? offset : (long)(idx << PAGE_SHIFT);
		if (whence == SEEK_DATA && idx >= end)
			ret = -ENXIO;
		else if (ret > size)
			ret = size;
		if (ret >= 0)
			f->f_pos = ret;
	}
	up_read(&inode->i_rwsem);
	return ret;
}

/* Linux's shmem_file_read_iter: filemap_read, each page brought back
 * from swap if it is out there. */
static long shmem_file_read(struct file *f, char *dst, size_t count, long *pos, bool user)
{
	return filemap_read_by(f, dst, count, pos, user, shmem_read_folio);
}

static const struct file_operations shmem_file_operations = {
	.read = shmem_file_read, .write = shmem_file_write, .llseek = shmem_file_llseek, .fsync = noop_fsync,
	.mmap = shmem_mmap, .get_unmapped_area = shmem_get_unmapped_area, .fallocate = shmem_fallocate,
	.splice_read = generic_file_splice_read, .splice_write = iter_file_splice_write,
};

bool shmem_file(const struct file *file) { return file->f_op == &shmem_file_operations; }

bool shmem_mapping(const struct address_space *mapping)
{
	return mapping && mapping->host && mapping->host->i_fop == &shmem_file_operations &&
	       !secretmem_mapping(mapping);
}

/* ---- tmpfs files mapped MAP_SHARED ---- */

int shmem_mmap(struct file *file, struct vm_area_struct *vma)
{
	int err = seal_check_write(file->f_inode->i_seals, vma);
	if (err)
		return err;
	if (!(vma->vm_flags & VM_SHARED))
		return 0;
	struct shmem_object *obj = shmem_file_object(file);
	if (!obj)
		return -ENOMEM;
	vma->vm_shm = obj;
	return 0;
}

struct shmem_object *shmem_file_object(struct file *file)
{
	struct shmem_object *obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return NULL;
	obj->refcount = 1;
	obj->size = (unsigned long)(file->f_inode->i_size + (long)PAGE_SIZE - 1) >> PAGE_SHIFT;
	obj->file = get_file(file);
	obj->mapping = file->f_mapping;
	return obj;
}

/* Linux's shmem_fault: the page at the fault's offset in the file's page
 * cache, made zeroed if absent (a hole gets a page as a write to it
 * would), with a reference for the caller's mapping; SIGBUS past the
 * file's end. No i_rwsem: a writer holds it while it copies from user
 * memory, which may fault (i_rwsem -> mmap_lock). */
static struct page *shmem_file_get_page(struct address_space *mapping, struct vm_area_struct *vma,
					unsigned long address, unsigned int *ret)
{
	struct inode *inode = mapping->host;
	unsigned long index = linear_page_index(vma, address);
	unsigned long end = ((unsigned long)READ_ONCE(inode->i_size) + PAGE_SIZE - 1) >> PAGE_SHIFT;
	if (index >= end) {
		*ret = VM_FAULT_SIGBUS;
		return NULL;
	}
	/* The file's shared policy at index decides where a new page goes
	 * (mpol=, or mbind on any mapping of it); without one, the task's. */
	int err;
	struct page *page = shmem_get_or_alloc(inode, vma, index, &err);
	if (!page) { /* Linux's shmem_fault: no room is SIGBUS */
		*ret = err == -ENOSPC ? VM_FAULT_SIGBUS : VM_FAULT_OOM;
		return NULL;
	}
	/* Linux's shmem_get_folio_gfp: "Perhaps the file has been truncated
	 * since we checked": a small page past the new end goes again
	 * (unless the truncate took it already). A huge page stays whole
	 * there, as Linux keeps one across i_size, until a truncate or the
	 * inode's end takes it. */
	if (!filemap_index_in_size(inode, index)) {
		if (!page_test_flag(compound_head(page), PG_shmem_thp) && filemap_remove_folio(page))
			shmem_account(inode, -1);
		put_page(page);
		*ret = VM_FAULT_SIGBUS;
		return NULL;
	}
	return page;
}
