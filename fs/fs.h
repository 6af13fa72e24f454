/* The VFS's objects, as Linux's include/linux/fs.h: an open file (struct
 * file) and what it can do (struct file_operations), shared by fs/ and the
 * drivers that provide files (drivers/tty/tty_io.c, fs/proc/inode.c).
 *
 * Invariants and locking are fs/file.c's (the descriptor table) and
 * fs/file_table.c's (a file's life): a file's f_count is the table's one
 * reference plus one per system call using it; f_op, f_flags, f_mode,
 * node, path and console are set before the file is installed and never
 * change; f_pos of a file with FMODE_ATOMIC_POS is moved under f_pos_lock
 * (fdget_pos); a generated file's snapshot (buf, size) is replaced and
 * copied from only under seq_lock. Order: f_pos_lock -> seq_lock ->
 * mmap_lock (a user copy may fault). */
#ifndef FS_FS_H
#define FS_FS_H

#include "fs/file.h"
#include "kernel/mutex.h"
#include "fs/proc/proc_fs.h"
#include "kernel/types.h"
#include "mm/page.h"

/* f_mode bits, Linux's values. */
#define FMODE_READ 0x1u
#define FMODE_WRITE 0x2u
#define FMODE_LSEEK 0x4u
#define FMODE_PREAD 0x8u
#define FMODE_ATOMIC_POS 0x8000u
#define FMODE_CAN_READ 0x20000u
#define FMODE_CAN_WRITE 0x40000u

#define MAX_RW_COUNT (0x7fffffffl & (long)~(PAGE_SIZE - 1))

typedef unsigned short umode_t;

struct file;
struct files_struct;
struct console_tty;

struct file_operations {
	long (*read)(struct file *f, char *dst, size_t count, long *pos, bool user);
	long (*write)(struct file *f, const char *src, size_t count, bool user);
	long (*llseek)(struct file *f, long offset, int whence);
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
	unsigned int f_flags; /* O_* given to open */
	unsigned int f_mode;  /* FMODE_* */
	long f_pos;
	struct proc_node node;        /* a generated file or directory */
	char *buf;                    /* the snapshot of a generated file (seq_lock) */
	size_t size;
	char *path;                   /* a directory's normalised path */
	struct console_tty *console;  /* the console (fd 0, 1 and 2) */
};

/* fs/file_table.c: a new file with one reference (the caller's), NULL when
 * memory is short; fput drops one, and the last frees the file. */
struct file *alloc_file(void);
void fput(struct file *f);

/* fs/file.c: the file of fd with a reference of the caller's (NULL: not
 * open); fdget_pos also takes f_pos_lock for a FMODE_ATOMIC_POS file.
 * Dropped with fdput / fdput_pos (both take NULL). */
struct file *fget(struct files_struct *files, unsigned int fd);
void fdput(struct file *f);
struct file *fdget_pos(struct files_struct *files, unsigned int fd);
void fdput_pos(struct file *f);

/* fs/read_write.c: Linux's llseek methods. */
long generic_file_llseek(struct file *f, long offset, int whence);
long no_llseek(struct file *f, long offset, int whence);

/* A user or kernel copy, as the file methods' `user` argument says: the
 * bytes not copied, as copy_to_user/copy_from_user. */
unsigned long file_copy_out(void *dst, const void *src, size_t n, bool user);
unsigned long file_copy_in(void *dst, const void *src, size_t n, bool user);

#endif
