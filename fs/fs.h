/* The VFS's objects, as Linux's include/linux/fs.h: a file system
 * instance (struct super_block), a file's identity and contents (struct
 * inode, its pages in struct address_space), an open file (struct file)
 * and the methods of each (super_operations, inode_operations,
 * file_operations); names in directories are fs/dcache.h's dentries.
 *
 * Invariants and locking: a file's f_count is the table's one reference
 * plus one per system call using it (fs/file_table.c); f_op, f_flags
 * (but O_APPEND and O_NONBLOCK, set by fcntl under f_lock), f_mode,
 * f_path, node, path and console are set before the file is installed;
 * f_pos of a file with FMODE_ATOMIC_POS is moved under f_pos_lock
 * (fdget_pos). An inode's i_count is atomic (a dentry and each open file
 * hold one: the last iput frees it, pages and all); i_size and the page
 * cache change under i_rwsem held for writing (write, truncate), and are
 * read under it held for reading; its names (i_nlink, the dentries) change
 * under the dcache lock (fs/dcache.c). A generated file's snapshot (buf,
 * size) is replaced and copied from only under seq_lock. Order:
 * dcache lock -> i_rwsem -> f_pos_lock -> seq_lock -> mmap_lock (a user
 * copy may fault). */
#ifndef FS_FS_H
#define FS_FS_H

#include "fs/file.h"
#include "kernel/mutex.h"
#include "kernel/rwsem.h"
#include "kernel/spinlock.h"
#include "fs/proc/proc_fs.h"
#include "kernel/types.h"
#include "lib/list.h"
#include "lib/rbtree.h"
#include "lib/xarray.h"
#include "mm/page.h"
#include "mm/shared_policy.h"

/* f_mode bits, Linux's values. */
#define FMODE_READ 0x1u
#define FMODE_WRITE 0x2u
#define FMODE_LSEEK 0x4u
#define FMODE_PREAD 0x8u
#define FMODE_ATOMIC_POS 0x8000u
#define FMODE_WRITER 0x10000u /* holds write access to its mount (mnt_get_write_access) */
#define FMODE_CAN_READ 0x20000u
#define FMODE_CAN_WRITE 0x40000u

#define MAX_RW_COUNT (0x7fffffffl & (long)~(PAGE_SIZE - 1))

typedef unsigned short umode_t;
typedef unsigned int dev_t; /* in the kernel: MAJOR << 20 | MINOR (Linux's kdev_t.h) */

#define MINORBITS 20
#define MINORMASK ((1u << MINORBITS) - 1)
#define MAJOR(dev) ((unsigned int)((dev) >> MINORBITS))
#define MINOR(dev) ((unsigned int)((dev) & MINORMASK))
#define MKDEV(ma, mi) (((ma) << MINORBITS) | (mi))

/* The user's encoding of a device number (stat's st_rdev, mknod's dev):
 * Linux's new_encode_dev / new_decode_dev. */
static inline unsigned int new_encode_dev(dev_t dev)
{
	unsigned int major = MAJOR(dev), minor = MINOR(dev);
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
}
static inline dev_t new_decode_dev(unsigned int dev)
{
	unsigned int major = (dev & 0xfff00) >> 8, minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
	return MKDEV(major, minor);
}

struct file;
struct files_struct;
struct console_tty;
struct dentry;
struct inode;
struct super_block;
struct vfsmount;
struct kstat;
struct iattr;
struct dir_context;
struct mm_struct;
struct kstatfs;
struct vm_area_struct;
struct seq_buf;
struct file_system_type;
struct mempolicy;
struct poll_table_struct;
struct pipe_inode_info;

/* Linux's __poll_t: a set of EPOLL* events (fs/poll.h). */
typedef unsigned int __poll_t;

/* Linux's struct path: a place in the tree of mounts. */
struct path {
	struct vfsmount *mnt;
	struct dentry *dentry;
};

struct timespec64 {
	long long tv_sec;
	long tv_nsec;
};

/* A file's pages (Linux's struct address_space): page offset -> page, in
 * index order, an xarray as Linux's (lib/xarray.h; its xa_lock is the
 * page cache's lock, mm/filemap.h).
 * A MAP_SHARED mapping's fault finds its page here by index
 * (filemap_get_folio, mm/shmem.c); the VMAs that map the file are in
 * i_mmap (mm/interval_tree.h), so that truncate can unmap what it cuts
 * off (unmap_mapping_range, mm/truncate.h).
 *
 * i_mmap_writable (Linux's, beside where i_mmap sits in Linux): the number
 * of VMAs that map the file VM_SHARED | VM_MAYWRITE (each holds one, from
 * mmap or the copy it was made as, fork, split or mremap, until it is
 * freed: mm/vma.c), or, below 0, the number of holders who deny such
 * mappings (F_SEAL_WRITE on a memfd, mm/memfd.c). Atomic. */
struct address_space_operations;

struct address_space {
	struct inode *host;
	/* What the file system does with its pages beyond the page cache's
	 * own handling (Linux's a_ops); NULL: nothing (tmpfs). */
	const struct address_space_operations *a_ops;
	struct xarray i_pages; /* its xa_lock guards it and nrpages */
	unsigned long nrpages;
	int i_mmap_writable;
	/* The VMAs mapping it, by page offset (Linux's i_mmap, an interval
	 * tree), and their lock. */
	struct rb_root i_mmap;
	struct rw_semaphore i_mmap_rwsem;
};

/* Linux's address_space_operations, the two mmlab's page cache asks
 * for: free_folio is called as a page leaves the cache, before the
 * cache's reference on it is dropped (secretmem gives the page back its
 * direct-map entry there); migrate_folio, when set, decides a migration of
 * one of its pages instead of filemap_migrate_folio (secretmem refuses:
 * -EBUSY). */
struct address_space_operations {
	void (*free_folio)(struct page *page);
	int (*migrate_folio)(struct address_space *mapping, struct page *new, struct page *old);
};

/* The page cache's marks on i_pages (Linux's include/linux/fs.h): a
 * dirty page, one under writeback, and one a data-integrity sync must
 * write (tag_pages_for_writeback). Nothing sets them yet: tmpfs and
 * hugetlbfs dirty pages as Linux's do, with noop_dirty_folio, and no file
 * system here has writeback (docs/page_cache.md). */
#define PAGECACHE_TAG_DIRTY XA_MARK_0
#define PAGECACHE_TAG_WRITEBACK XA_MARK_1
#define PAGECACHE_TAG_TOWRITE XA_MARK_2

/* Linux's mapping_map_writable: one more shared writable mapping, unless
 * writable mappings are denied (-EPERM). */
static inline int mapping_map_writable(struct address_space *mapping)
{
	int c = __atomic_load_n(&mapping->i_mmap_writable, __ATOMIC_RELAXED);
	do {
		if (c < 0)
			return -EPERM;
	} while (!__atomic_compare_exchange_n(&mapping->i_mmap_writable, &c, c + 1, false, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return 0;
}
static inline void mapping_unmap_writable(struct address_space *mapping)
{
	__atomic_sub_fetch(&mapping->i_mmap_writable, 1, __ATOMIC_ACQ_REL);
}
/* Linux's mapping_deny_writable: no shared writable mapping may be made
 * from now on, unless one exists (-EBUSY); mapping_allow_writable undoes
 * it. */
static inline int mapping_deny_writable(struct address_space *mapping)
{
	int c = __atomic_load_n(&mapping->i_mmap_writable, __ATOMIC_RELAXED);
	do {
		if (c > 0)
			return -EBUSY;
	} while (!__atomic_compare_exchange_n(&mapping->i_mmap_writable, &c, c - 1, false, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return 0;
}
static inline void mapping_allow_writable(struct address_space *mapping)
{
	__atomic_add_fetch(&mapping->i_mmap_writable, 1, __ATOMIC_ACQ_REL);
}

struct inode_operations {
	/* The dentry's name in dir: fill it (d_add, positive or negative);
	 * 0 or an errno (-ENAMETOOLONG). */
	int (*lookup)(struct inode *dir, struct dentry *dentry);
	int (*create)(struct inode *dir, struct dentry *dentry, umode_t mode, bool excl);
	int (*link)(struct dentry *old, struct inode *dir, struct dentry *dentry);
	int (*unlink)(struct inode *dir, struct dentry *dentry);
	int (*symlink)(struct inode *dir, struct dentry *dentry, const char *target);
	int (*mkdir)(struct inode *dir, struct dentry *dentry, umode_t mode);
	int (*rmdir)(struct inode *dir, struct dentry *dentry);
	int (*mknod)(struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev);
	int (*rename)(struct inode *old_dir, struct dentry *old, struct inode *new_dir, struct dentry *new,
		      unsigned int flags);
	/* O_TMPFILE: a new inode with no name, bound to the unhashed dentry
	 * (d_tmpfile). */
	int (*tmpfile)(struct inode *dir, struct dentry *dentry, umode_t mode);
	const char *(*get_link)(struct dentry *dentry);
	int (*setattr)(struct dentry *dentry, struct iattr *attr);
	int (*getattr)(const struct path *path, struct kstat *stat);
};

struct super_operations {
	struct inode *(*alloc_inode)(struct super_block *sb);
	void (*free_inode)(struct inode *inode);
	/* The last reference to an inode went: its pages and private data go. */
	void (*evict_inode)(struct inode *inode);
	int (*statfs)(struct dentry *dentry, struct kstatfs *buf);
	/* /proc/mounts's options after the generic ones (",size=1024k"). */
	void (*show_options)(struct seq_buf *m, struct super_block *sb);
};

struct super_block {
	unsigned long s_magic;                 /* statfs's f_type (TMPFS_MAGIC) */
	dev_t s_dev;                           /* stat's st_dev */
	const char *s_type;                    /* "tmpfs", "proc", "sysfs" */
	const struct super_operations *s_op;
	struct dentry *s_root;
	unsigned long s_blocksize;
	unsigned long s_next_ino;              /* the next inode number (atomic) */
	long s_inodes;                         /* inodes alive (atomic) */
	/* A file system whose files the kernel generates (procfs, sysfs):
	 * its names are walked by fs/proc/generic.c from this path. */
	const char *s_generated_root;
	const struct file_system_type *s_fs_type; /* its type (fs/fs_context.h) */
	unsigned int s_flags;                  /* SB_RDONLY, SB_SYNCHRONOUS... (fs/fs_context.h) */
	int s_active;                          /* mounts of it (fs/namespace.c's mount_lock) */
	void *s_fs_info;                       /* the file system's (tmpfs: struct shmem_sb_info) */
};

struct inode {
	umode_t i_mode;
	unsigned int i_nlink;
	unsigned int i_uid, i_gid;
	dev_t i_rdev;
	unsigned long i_ino;
	long i_size;
	unsigned long i_blocks;                /* 512-byte blocks of its pages */
	struct timespec64 i_atime, i_mtime, i_ctime;
	long i_count;                          /* references (atomic) */
	unsigned int i_state;                  /* I_LINKABLE: an O_TMPFILE that may get a name */
	/* A shmem file's F_SEAL_* (mm/memfd.c; under i_rwsem). Linux keeps
	 * them in shmem_inode_info; mmlab's inodes have no per-file-system
	 * part, and only shmem_get_inode sets them. */
	unsigned int i_seals;
	struct super_block *i_sb;
	const struct inode_operations *i_op;
	const struct file_operations *i_fop;
	struct rw_semaphore i_rwsem;
	struct address_space i_data;
	struct address_space *i_mapping;       /* &i_data */
	char *i_link;                          /* a symlink's target */
	unsigned long i_next_offset;           /* a directory: the readdir offset of its next name */
	struct shared_policy i_policy;         /* tmpfs: where its pages go, by offset (Linux's shmem_inode_info.policy) */
	/* tmpfs: the file's pages out on swap, each a swap entry in i_pages
	 * (Linux's shmem_inode_info.swapped; under the xarray's lock), and
	 * its link on mm/shmem_swap.c's list of such files while it has any
	 * (Linux's shmem_swaplist; next NULL: on none). */
	unsigned long i_swapped;
	struct list_head i_swaplist;
	void *i_private;                       /* the file system's (hugetlbfs: its regular files' region maps) */
	/* A pipe's, or a FIFO's while it is open (fs/pipe_fs_i.h; under
	 * fs/pipe.c's pipe_inode_lock). */
	struct pipe_inode_info *i_pipe;
};

#define I_LINKABLE 1u

/* The tests of a mode and its set-id bits (the types are fs/file.h's). */
#define S_ISUID 04000
#define S_ISGID 02000
#define S_ISVTX 01000
#define S_IALLUGO 07777
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)
#define S_ISCHR(m) (((m) & S_IFMT) == S_IFCHR)
#define S_ISBLK(m) (((m) & S_IFMT) == S_IFBLK)
#define S_ISFIFO(m) (((m) & S_IFMT) == S_IFIFO)
#define S_ISSOCK(m) (((m) & S_IFMT) == S_IFSOCK)

/* What stat reports (Linux's struct kstat, filled by vfs_getattr). */
struct kstat {
	unsigned int mode, nlink, uid, gid;
	dev_t dev, rdev;
	unsigned long ino, blocks;
	long size, blksize;
	struct timespec64 atime, mtime, ctime, btime;
};

/* statfs (Linux's struct kstatfs). */
struct kstatfs {
	long f_type, f_bsize;
	unsigned long f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	long f_namelen, f_frsize, f_flags;
};

/* fallocate's modes (Linux's uapi falloc.h). */
#define FALLOC_FL_KEEP_SIZE 0x01
#define FALLOC_FL_PUNCH_HOLE 0x02
#define FALLOC_FL_NO_HIDE_STALE 0x04
#define FALLOC_FL_COLLAPSE_RANGE 0x08
#define FALLOC_FL_ZERO_RANGE 0x10
#define FALLOC_FL_INSERT_RANGE 0x20
#define FALLOC_FL_UNSHARE_RANGE 0x40

/* A change of attributes (Linux's struct iattr, ATTR_* bits). */
#define ATTR_MODE 1u
#define ATTR_UID 2u
#define ATTR_GID 4u
#define ATTR_SIZE 8u
#define ATTR_ATIME 16u
#define ATTR_MTIME 32u
#define ATTR_CTIME 64u
struct iattr {
	unsigned int ia_valid;
	umode_t ia_mode;
	unsigned int ia_uid, ia_gid;
	long ia_size;
	struct timespec64 ia_atime, ia_mtime, ia_ctime;
};

/* getdents64's walk of a directory (Linux's struct dir_context): actor is
 * called for each entry from ctx->pos on, and returns false when the
 * caller's buffer is full (the entry is then given again next time). */
struct dir_context {
	bool (*actor)(struct dir_context *ctx, const char *name, int len, long pos, unsigned long ino,
		      unsigned int type);
	long pos;
};
/* d_type values (Linux's DT_*). */
#define DT_UNKNOWN 0
#define DT_FIFO 1
#define DT_CHR 2
#define DT_DIR 4
#define DT_BLK 6
#define DT_REG 8
#define DT_LNK 10
#define DT_SOCK 12
static inline unsigned int fs_umode_to_dtype(umode_t mode) { return (mode & S_IFMT) >> 12; }

struct file_operations {
	/* Open of an inode's file (a character device's driver, chrdev_open):
	 * may replace f->f_op. 0 or an errno. */
	int (*open)(struct inode *inode, struct file *f);
	long (*read)(struct file *f, char *dst, size_t count, long *pos, bool user);
	long (*write)(struct file *f, const char *src, size_t count, long *pos, bool user);
	long (*llseek)(struct file *f, long offset, int whence);
	/* getdents64: the entries from ctx->pos on (Linux's iterate_shared). */
	int (*iterate_shared)(struct file *f, struct dir_context *ctx);
	int (*fsync)(struct file *f, bool datasync);
	/* fallocate(2) of [offset, offset + len) with mode's FALLOC_FL_*
	 * (vfs_fallocate has checked them); NULL: -EOPNOTSUPP. */
	long (*fallocate)(struct file *f, int mode, long offset, long len);
	/* mmap of the file: vma (made, vm_file set) gets what its faults
	 * need (tmpfs: a shared mapping's object, mm/shmem.h). NULL: the
	 * file cannot be mapped (-ENODEV). */
	int (*mmap)(struct file *f, struct vm_area_struct *vma);
	/* Where a new mapping of len bytes at page offset pgoff goes
	 * (Linux's get_unmapped_area method: tmpfs aligns a mapping that
	 * may get huge pages, /dev/zero's shared mappings go as shared
	 * anonymous memory's); NULL: the mm's own search (mm/mmap.h). mmlab
	 * passes the mm, which exec's loader maps into before it is
	 * current's; Linux's method takes current->mm. */
	unsigned long (*get_unmapped_area)(struct mm_struct *mm, struct file *f, unsigned long addr,
					   unsigned long len, unsigned long pgoff, unsigned long flags);
	/* The last fput: what open set up goes. */
	void (*release)(struct inode *inode, struct file *f);
	/* sendfile and copy_file_range's two halves (Linux's splice_read and
	 * splice_write, without the pipe between them: fs/splice.c moves the
	 * bytes through a kernel buffer). splice_read fills buf (kernel
	 * memory) from *ppos on; splice_write writes buf out at *ppos. Each
	 * moves *ppos and returns the bytes moved or an errno. NULL: the file
	 * cannot be that end of a splice (-EINVAL). */
	long (*splice_read)(struct file *in, long *ppos, char *buf, size_t len);
	long (*splice_write)(struct file *out, const char *buf, size_t len, long *ppos);
	/* poll, ppoll, select and pselect6 (fs/poll.h): the EPOLL* events
	 * ready now, after poll_wait() on each queue whose wakeup may change
	 * them. NULL: always readable and writable (DEFAULT_POLLMASK). */
	__poll_t (*poll)(struct file *f, struct poll_table_struct *pt);
	/* ioctl(2) on the file; NULL: -ENOTTY, as Linux's vfs_ioctl */
	long (*unlocked_ioctl)(struct file *f, unsigned int cmd, unsigned long arg);
	umode_t mode;      /* st_mode for fstat (procfs: the entry's own) */
	long size;         /* st_size, and the end for SEEK_END */
	long blksize;      /* st_blksize */
};

struct file {
	long f_count; /* references (atomic): the table's, and each system call's */
	struct mutex f_pos_lock; /* f_pos, for FMODE_ATOMIC_POS (fdget_pos) */
	struct mutex seq_lock;   /* seq_file's m->lock: buf and size */
	const struct file_operations *f_op;
	struct path f_path;           /* a file of a mounted file system (else NULL, NULL) */
	struct inode *f_inode;        /* f_path's inode, as at open */
	struct address_space *f_mapping; /* f_inode's pages */
	void *private_data;           /* the file system's or driver's */
	unsigned int f_flags; /* O_* given to open */
	unsigned int f_mode;  /* FMODE_* */
	long f_pos;
	struct proc_node node;        /* a generated file or directory */
	char *buf;                    /* the snapshot of a generated file (seq_lock) */
	size_t size;
	char *path;                   /* a directory's normalised path */
	struct console_tty *console;  /* the console (fd 0, 1 and 2) */
	/* A FIFO reader opened O_NONBLOCK with no writer: the pipe's
	 * w_counter then, so that ->poll holds back POLLHUP until a writer
	 * has come (Linux's use of f_version in fifo_open). */
	unsigned long f_version;
};

/* fs/file_table.c: a new file with one reference (the caller's), NULL when
 * memory is short; fput drops one, and the last frees the file. */
struct file *alloc_file(void);
void fput(struct file *f);
/* Linux's alloc_file_pseudo: a file opened with flags on inode (the
 * caller's reference, which the file takes, or drops on failure), under a
 * dentry named name in mnt's root that is never hashed, so that no path
 * reaches it and d_path shows "/<name> (deleted)"; or an ERR_PTR. */
struct file *alloc_file_pseudo(struct inode *inode, struct vfsmount *mnt, const char *name, int flags);
/* One more reference to a file its caller holds one of (Linux's get_file). */
static inline struct file *get_file(struct file *f)
{
	__atomic_add_fetch(&f->f_count, 1, __ATOMIC_RELAXED);
	return f;
}

/* fs/file.c: the file of fd with a reference of the caller's (NULL: not
 * open); fdget_pos also takes f_pos_lock for a FMODE_ATOMIC_POS file.
 * Dropped with fdput / fdput_pos (both take NULL). */
struct file *fget(struct files_struct *files, unsigned int fd);
void fdput(struct file *f);
struct file *fdget_pos(struct files_struct *files, unsigned int fd);
void fdput_pos(struct file *f);

/* fs/read_write.c: Linux's llseek methods (generic_file_llseek ends at
 * i_size for a file with an inode, else at f_op->size). */
long generic_file_llseek(struct file *f, long offset, int whence);
long generic_file_llseek_size(struct file *f, long offset, int whence, long eof);
long no_llseek(struct file *f, long offset, int whence);

/* A user or kernel copy, as the file methods' `user` argument says: the
 * bytes not copied, as copy_to_user/copy_from_user. */
unsigned long file_copy_out(void *dst, const void *src, size_t n, bool user);
unsigned long file_copy_in(void *dst, const void *src, size_t n, bool user);

/* fs/inode.c (Linux's names): an inode of sb with one reference, its
 * number the next of sb's; iget takes another; the last iput evicts it
 * (its pages go) and frees it. */
struct inode *new_inode(struct super_block *sb);
void ihold(struct inode *inode);
void iput(struct inode *inode);
/* Linux's inode_init_owner for mmlab's one user (root). */
void inode_init_owner(struct inode *inode, const struct inode *dir, umode_t mode);
/* Now, for the times (CLOCK_REALTIME). */
struct timespec64 current_time(void);
void inc_nlink(struct inode *inode);
void drop_nlink(struct inode *inode);
void clear_nlink(struct inode *inode);
void set_nlink(struct inode *inode, unsigned int n);
/* Linux's vfs_getattr / generic_fillattr. */
void generic_fillattr(struct inode *inode, struct kstat *stat);
int vfs_getattr(const struct path *path, struct kstat *stat);
/* fallocate(2) on an open file, its checks in Linux's order (fs/open.c);
 * madvise(MADV_REMOVE) punches its hole through it, as Linux's. */
long vfs_fallocate(struct file *f, int mode, long offset, long len);
/* Linux's setattr_copy: mode, owner and times from attr (not the size). */
void setattr_copy(struct inode *inode, const struct iattr *attr);
/* The largest file offset (Linux's MAX_LFS_FILESIZE, every file
 * system's s_maxbytes here). */
#define MAX_LFS_FILESIZE 0x7fffffffffffffffl
/* Linux's inode_newsize_ok (fs/attr.c): whether inode may take the size
 * offset: -EINVAL if negative; growing past the caller's RLIMIT_FSIZE is
 * -EFBIG with SIGXFSZ sent to the caller, past MAX_LFS_FILESIZE -EFBIG. */
int inode_newsize_ok(const struct inode *inode, long offset);
/* Linux's generic_write_check_limits (mm/filemap.c): a write of *count
 * bytes at pos cut to the caller's RLIMIT_FSIZE (none of it fits: -EFBIG
 * and SIGXFSZ) and to MAX_LFS_FILESIZE (-EFBIG); 0 when *count (maybe
 * shortened) may be written. */
int generic_write_check_limits(struct file *f, long pos, size_t *count);
/* Linux's rw_verify_area (fs/read_write.c): -EINVAL for a count negative
 * as ssize_t, a negative position, or a range whose end passes the
 * largest offset; else 0. */
int rw_verify_area(long pos, size_t count);
/* The splice methods of the files that have them (fs/splice.c): Linux's
 * generic_file_splice_read (the file's read into a kernel buffer) and
 * iter_file_splice_write (its write from one). */
long generic_file_splice_read(struct file *in, long *ppos, char *buf, size_t len);
long iter_file_splice_write(struct file *out, const char *buf, size_t len, long *ppos);
/* Linux's notify_change with setattr_prepare's checks: 0 or an errno. */
int notify_change(struct dentry *dentry, struct iattr *attr);

/* fs/readdir.c: getdents64 on an open file into dirent (user memory if
 * user): bytes filled, or -ENOTDIR, -EFAULT, -EINVAL, -ENOMEM. */
long files_getdents64(struct file *f, void *dirent, size_t count, bool user);

/* Linux's open of a struct path: a new file (one reference) with the
 * inode's methods, or an ERR_PTR. */
struct file *dentry_open(const struct path *path, int flags);

#endif
