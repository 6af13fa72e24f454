/* hugetlbfs (Linux 6.1's fs/hugetlbfs/inode.c and the file half of
 * mm/hugetlb.c): a file system whose regular files hold huge pages of one
 * pool (mm/hugetlb.h), one instance per mount, each with its page size.
 *
 *   mount -t hugetlbfs -o pagesize=2M|1G,size=N[KMG%],min_size=N[KMG%],
 *                         nr_inodes=N[KMG],mode=0755,uid=N,gid=N none /dir
 *
 * A file's page cache (mm/filemap.h) is indexed in huge pages, as Linux
 * 6.1's (page->index is the huge-page offset); its pages are pool pages,
 * made by the first fault of any mapping that needs one. write(2) is
 * -EINVAL (Linux's hugetlbfs has no write_iter); read(2) copies from the
 * pages (holes read as zeros); ftruncate and fallocate(PUNCH_HOLE) unmap
 * the pages they take from every mapping (i_mmap) and give them back to
 * the pool; fallocate allocates and keeps them.
 *
 * Reservations (Linux's shared half of hugetlb_reserve_pages): each inode
 * has a region map of the huge-page offsets that hold a reservation or a
 * page. A MAP_SHARED mmap (not MAP_NORESERVE) adds the offsets it covers
 * that are not there yet, reserving one pool page for each
 * (resv_huge_pages); a page made at an offset in the map consumes that
 * reservation, one made elsewhere (MAP_NORESERVE) takes an unreserved page
 * and adds its offset. So the inode holds (offsets in the map) - (pages)
 * reservations, given back when truncate or a punched hole takes offsets
 * out of the map, and when the inode goes. A MAP_PRIVATE mapping of a file
 * reserves per mapping as MAP_HUGETLB does (mm/hugetlb_vma.h); its faults
 * map the file's page read-only where there is one, and copy it at the
 * first write.
 *
 * size= and min_size= make the instance's subpool (Linux's
 * hugepage_subpool): size= bounds the offsets in its files' maps
 * (reservations and pages: mmap -ENOMEM, a fault SIGBUS, fallocate
 * -ENOSPC past it); min_size= keeps that many pool pages reserved for the
 * instance from mount to umount (-ENOMEM at mount when the pool cannot).
 * mmlab counts only shared use (the region maps) against the subpool;
 * Linux counts private mappings' reservations and pages too.
 *
 * The kernel's own instances (hugetlbfs_vfsmount[], one per supported
 * size, in no mount table) hold the files of MAP_HUGETLB
 * mappings, MFD_HUGETLB memfds and SHM_HUGETLB segments
 * (hugetlb_file_setup).
 *
 * Locking: i_rwsem orders truncate, fallocate and setattr of a file; the
 * region map has its own mutex (a fault sleeps in it); the subpool and
 * the instance's inode count their spinlocks; a page is added to the page
 * cache once (-EEXIST: the other maker's is taken). */
#ifndef FS_HUGETLBFS_HUGETLBFS_H
#define FS_HUGETLBFS_HUGETLBFS_H

#include "fs/fs.h"
#include "kernel/mutex.h"
#include "kernel/spinlock.h"
#include "lib/list.h"
#include "mm/memory.h"

struct hstate;

#define HUGETLBFS_MAGIC 0x958458f6

/* Linux's struct hugepage_subpool: -1 for a limit not given. */
struct hugepage_subpool {
	spinlock_t lock;
	long max_hpages;  /* size= in huge pages */
	long used_hpages; /* offsets in the region maps of the instance's files */
	long min_hpages;  /* min_size= in huge pages */
	long rsv_hpages;  /* pool reservations the subpool holds for min_size= */
	struct hstate *hstate;
};

struct hugetlbfs_sb_info {
	long max_inodes;  /* nr_inodes=, -1: no limit */
	long free_inodes;
	spinlock_t stat_lock;
	struct hstate *hstate;
	struct hugepage_subpool *spool; /* NULL without size= and min_size= */
	umode_t mode;
	unsigned int uid, gid;
};

static inline struct hugetlbfs_sb_info *HUGETLBFS_SB(struct super_block *sb) { return sb->s_fs_info; }
static inline struct hstate *hstate_inode(struct inode *inode) { return HUGETLBFS_SB(inode->i_sb)->hstate; }

/* Whether file is a hugetlbfs file (Linux's is_file_hugepages), and its size. */
bool is_file_hugepages(const struct file *file);
static inline struct hstate *hstate_file(struct file *file) { return hstate_inode(file->f_inode); }

/* Linux's hugepage_subpool_get_pages: delta more offsets charged to spool
 * (NULL: none). Returns how many of them need a pool reservation of their
 * own (those min_size= does not cover), or -ENOMEM past size=. */
long hugepage_subpool_get_pages(struct hugepage_subpool *spool, long delta);
/* Linux's hugepage_subpool_put_pages: delta offsets uncharged; returns how
 * many pool reservations may go (those min_size= does not keep). */
long hugepage_subpool_put_pages(struct hugepage_subpool *spool, long delta);

/* Linux's hugetlbfs_get_inode: a new inode of sb (NULL when nr_inodes= is
 * reached or memory is short). */
struct inode *hugetlbfs_get_inode(struct super_block *sb, const struct inode *dir, umode_t mode, dev_t dev);
/* The instance's inode count back (an inode evicted). */
void hugetlbfs_inc_free_inodes(struct super_block *sb);

/* Linux's hugetlb_reserve_pages for a shared mapping (or a file the
 * kernel makes) of inode's huge-page offsets [from, to): the offsets not
 * yet in its region map are added, each with a reservation. 0, or -ENOMEM
 * (pool or size= short), nothing changed then. */
int hugetlbfs_reserve_pages(struct inode *inode, long from, long to);

/* The file's mutex: its pages are made, taken out and mapped by a fault
 * under it (fs/hugetlbfs/inode.c has the order of locks). */
void hugetlbfs_fault_lock(struct inode *inode);
void hugetlbfs_fault_unlock(struct inode *inode);
/* Linux's alloc_hugetlb_folio and hugetlb_add_to_page_cache for a file,
 * under its mutex, the page at huge-page offset idx missing: a pool page,
 * consuming the offset's reservation if it has one (else charged to the
 * subpool: -ENOSPC past size=), from the NUMA policy of vma at address
 * (fallocate's pseudo-VMA: the task's), cleared (the bulk hint of
 * fault_flags), in the
 * page cache with the offset in the region map. With a reference of the
 * caller's; NULL and *err -ENOSPC (no page, or size=) or -ENOMEM. */
struct page *hugetlbfs_alloc_file_page(struct inode *inode, unsigned long idx, struct vm_area_struct *vma,
				       unsigned long address, unsigned int fault_flags, int *err);

/* Linux's hugetlb_file_setup: an unlinked file of size bytes on the
 * kernel's instance of the size named by page_size_log (MAP_HUGE_* bits,
 * 0: the default size), opened O_RDWR, named name ("anon_hugepage",
 * "memfd:<name>", "SYSV%08x"). Its pages are reserved now unless
 * VM_NORESERVE is in acctflag. A HUGETLB_SHMFS_INODE (a SysV segment's)
 * reserves only here: its mappings take none (Linux's S_PRIVATE inode).
 * -ENODEV for an unknown size, -ENOENT when the size has no instance,
 * -ENOSPC, -ENOMEM. Linux refuses a HUGETLB_SHMFS_INODE (-EPERM) to a
 * user without CAP_IPC_LOCK outside vm.hugetlb_shm_group; mmlab's one
 * user is root, who may. */
enum { HUGETLB_SHMFS_INODE = 1, HUGETLB_ANONHUGE_INODE = 2 };
struct file *hugetlb_file_setup(const char *name, size_t size, unsigned long acctflag, int creat_flags,
				int page_size_log);
#define HUGETLB_ANON_FILE "anon_hugepage"

/* The kernel's instance of h (tests count its inodes), or NULL. */
struct super_block *hugetlbfs_internal_sb(const struct hstate *h);

#endif
