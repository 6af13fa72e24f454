/* procfs and sysfs: files in Linux's formats, generated on demand from the
 * kernel's own state, in one namespace of registered entries (Linux's
 * include/linux/proc_fs.h and sysfs's attributes, with one shape).
 *
 * Each file or directory is a struct proc_dir_entry that the code which
 * implements it registers where it is implemented, with __proc_entry
 * (a linker section, as the test suites and boot options register);
 * the common kinds through PROC_FILE and PROC_FILE_RW:
 *
 *	PROC_FILE(vmallocinfo_entry, proc_root_dir, "vmallocinfo", vmallocinfo_show);
 *
 * A directory that others put entries in is declared extern in its
 * owner's header (the shared ones below, fs/proc/root.c). An entry names
 * one file or directory, or (with .match instead of .name) a family of
 * them, such as node<N> or /proc/<pid>, whose lookup fills the node's
 * nid, hstate or task.
 *
 * Every regular file but those read at an offset is generated whole from
 * the kernel's counters at one moment, so a reader sees one consistent
 * snapshot, never a file stitched from two moments; a file read at an
 * offset (/proc/<pid>/pagemap) is read straight from the kernel's state,
 * each read at that moment (as Linux's). The open-file side is
 * fs/proc/inode.c's; the lookup and generation are fs/proc/generic.c's. */
#ifndef FS_PROC_PROC_FS_H
#define FS_PROC_PROC_FS_H

#include "fs/file.h"
#include "kernel/types.h"
#include "lib/seq_buf.h"

struct task_struct;
struct proc_dir_entry;
struct file;
struct file_operations;

/* Which filesystem a node belongs to: their open(2) rules differ (as root,
 * Linux lets a procfs file be opened for writing and fails the write; sysfs
 * refuses the open). */
enum proc_fs_kind { PROC_FS_ROOT, PROC_FS_PROC, PROC_FS_SYS };

/* A looked-up path: its entry and what the families on the way set. */
struct proc_node {
	const struct proc_dir_entry *entry;
	enum proc_fs_kind fs;
	bool per_task;            /* under /proc/<pid>: Linux has no write method there */
	bool thread;              /* under /proc/<pid>/task/<tid>: the thread's own figures */
	int nid;                  /* for /sys/devices/system/node/node<N>/ files */
	int hstate;               /* for .../hugepages/hugepages-<kB>kB/ files (mm/hugetlb.h) */
	/* For /proc/self/ and /proc/<pid>/: which process. A node a process
	 * found names it by id (by_id, pid) and holds no reference: every
	 * generation finds the task again in the reader's tree
	 * (proc_pin_task), as Linux's proc inode holds a struct pid and each
	 * read does get_proc_task, so a file open on a process that was
	 * reaped since reads as Linux's do (-ESRCH), never a freed task. A
	 * kernel thread (no tree) finds a live thread by id anywhere, as
	 * Linux's kernel threads see every pid; itself (and the fake tasks of
	 * tests) it names in task, borrowed: it is alive during its own calls.
	 * During a lookup and a generation, task and mm are the found task and
	 * its mm (get_task_mm), both referenced. */
	struct task_struct *task;
	bool by_id;
	int pid;
	struct mm_struct *mm;
	int fd;                   /* for /proc/<pid>/fd/<n> */
	int disk;                 /* for /sys/block/<disk>/ files: block/genhd.c's disk_nth */
	int pci;                  /* for /sys/bus/pci/devices/<name>/ files: pci_dev_nth */
};

struct proc_dir_entry {
	const struct proc_dir_entry *parent; /* NULL only for "/" */
	const char *name;                    /* NULL: a family, found by match */
	unsigned short mode;                 /* S_IFDIR | 0555, or S_IFREG | 0444, 0644, 0400 */
	enum proc_fs_kind fs;                /* set on /proc and /sys: the tree below is theirs */
	/* A family: whether the len bytes at name (not NUL-terminated) name a
	 * member that exists, for task; if so, it records which in node. */
	bool (*match)(const char *name, size_t len, struct task_struct *task, struct proc_node *node);
	/* A family's members for getdents: the name of the i-th into name
	 * (size bytes), false past the last. NULL: not listed. */
	bool (*list)(unsigned int i, struct task_struct *task, char *name, size_t size);
	/* A regular file's content, printed whole into m. */
	void (*show)(struct seq_buf *m, const struct proc_node *node);
	/* A /proc/<pid> file that is -ESRCH for a task without an mm (a
	 * kernel thread, a zombie), as Linux's smaps_rollup: here from the
	 * open (the snapshot), in Linux 6.1 from the read. */
	bool needs_mm;
	/* NULL for a read-only file. Otherwise the handler of one write(2):
	 * buf holds the len bytes written (NUL-terminated, len < PAGE_SIZE);
	 * it returns len, or a negative errno (Linux's proc_handler with
	 * write = 1: -EINVAL for a value it does not take, -EBUSY when the
	 * value cannot change now). Such a file is 0644. */
	long (*write)(const struct proc_node *node, const char *buf, size_t len);
	/* Set instead of show for a file read at an offset straight from the
	 * kernel's state, never generated whole (/proc/<pid>/pagemap: 8 bytes
	 * per virtual page, 256 GiB for the user half): copies up to count
	 * bytes from *pos into dst (user memory if user), moves *pos, returns
	 * the bytes copied or a negative errno. */
	long (*read)(const struct proc_node *node, char *dst, size_t count, long *pos, bool user);
	/* Set instead of show and read for a file with its own open-file
	 * methods (Linux's proc_dir_entry's proc_ops, or a pid entry's
	 * file_operations: /proc/<pid>/mem); its open, if any, runs at the
	 * open with f->node set. */
	const struct file_operations *fops;
	/* What the methods shared by many entries need of this one (Linux's
	 * pde->data): a sysctl's struct ctl_table (kernel/sysctl.h). */
	const void *data;
};

#define __proc_entry __section(".proc_entries") __aligned(8) __used

/* The common entries: a read-only file generated by show (0444), and one
 * with a write method too (0644), named name_ in the directory parent_,
 * defined as the static entry field. */
#define PROC_FILE(field, parent_, name_, show_)                                                 \
	static const struct proc_dir_entry field __proc_entry = {                              \
		.parent = &(parent_), .name = name_, .mode = S_IFREG | 0444, .show = show_,    \
	}
#define PROC_FILE_RW(field, parent_, name_, show_, write_)                                      \
	static const struct proc_dir_entry field __proc_entry = {                              \
		.parent = &(parent_), .name = name_, .mode = S_IFREG | 0644, .show = show_,    \
		.write = write_,                                                               \
	}

/* The registered entries, in link order (linker.ld). */
extern const struct proc_dir_entry __proc_entries_start[], __proc_entries_end[];

/* The directories many files go in (fs/proc/root.c). */
extern const struct proc_dir_entry root_dir;               /* / */
extern const struct proc_dir_entry proc_root_dir;          /* /proc */
extern const struct proc_dir_entry proc_sys_vm_dir;        /* /proc/sys/vm */
extern const struct proc_dir_entry proc_sys_kernel_dir;    /* /proc/sys/kernel */
extern const struct proc_dir_entry proc_sys_fs_dir;        /* /proc/sys/fs */
extern const struct proc_dir_entry sys_dir;                /* /sys */
extern const struct proc_dir_entry sys_kernel_mm_dir;      /* /sys/kernel/mm */
extern const struct proc_dir_entry sys_kernel_debug_dir;   /* /sys/kernel/debug */
extern const struct proc_dir_entry sys_devices_system_dir; /* /sys/devices/system */

static inline bool proc_node_is_dir(const struct proc_node *node)
{
	return (node->entry->mode & S_IFMT) == S_IFDIR;
}

/* A decimal number without sign or leading zero that fits an int: for
 * the families' names (node<N>, <pid>). */
bool proc_parse_id(const char *s, size_t len, int *out);
/* "node<N>" for an online node N: sets node->nid (the families of
 * /sys/devices/system/node and the weighted-interleave weights). */
bool proc_match_node(const char *s, size_t len, struct task_struct *task, struct proc_node *node);

bool proc_list_node(unsigned int i, struct task_struct *task, char *name, size_t size);

/* fs/proc/base.c: node with its task found (for reader, whose tree it is
 * looked for in) and referenced, and its mm
 * (NULL: none, or exited) into pinned: 0, or -ESRCH when the process is
 * gone (reaped). Not per task: a plain copy. proc_unpin_task drops what
 * the pin took. */
int proc_pin_task(const struct proc_node *node, struct task_struct *reader, struct proc_node *pinned);
void proc_unpin_task(struct proc_node *pinned);

/* fs/proc/fd.c: the target of /proc/<pid>/fd/<n> into buf (size bytes),
 * as d_path gives it from the reader's root; NULL if node is not such a
 * link, the descriptor was closed since, or its file has no path. */
const char *proc_fd_link(const struct proc_node *node, char *buf, size_t size);

/* getdents of the directory node is (fs/readdir.c's dir_context): ".",
 * "..", the fixed names in registration order, then each family's
 * members; position i is the i-th of these, so a listing resumes where
 * it stopped. */
struct dir_context;
int procfs_readdir(const struct proc_node *dir, struct task_struct *task, struct dir_context *ctx);

/* Resolves path, which must be absolute and normalised ("/a/b": no ".",
 * "..", empty components or trailing slash), for task (whose pid is the
 * only one /proc shows, and which "self" means). Returns 0, -ENOENT, or
 * -ENOTDIR when a component before the last is a regular file. */
int procfs_lookup(const char *path, struct task_struct *task, struct proc_node *node);

/* Generates a regular file's content into a kvmalloc'd buffer (*bufp, of
 * *lenp bytes, NUL-terminated; the caller kvfrees it). Returns 0,
 * -ENOMEM, or -EINVAL for a file read at an offset (below). */
int procfs_fill(const struct proc_node *node, char **bufp, size_t *lenp);

/* Whether the file is read at an offset straight from the kernel's state
 * instead of from a snapshot generated whole (/proc/<pid>/pagemap):
 * procfs_fill refuses such a file (-EINVAL) and procfs_read_at reads it. */
bool procfs_node_reads_at_offset(const struct proc_node *node);
/* Up to count bytes of the file from *pos into dst (user memory if user),
 * *pos moved past them: the bytes copied (0 at the end), or the file's
 * negative errno (pagemap: -EINVAL for an offset or count that is not a
 * multiple of 8, -EFAULT, -ENOMEM); -EINVAL for a file that is not read
 * at an offset. */
long procfs_read_at(const struct proc_node *node, char *dst, size_t count, long *pos, bool user);

/* fs/proc/inode.c: seq_lseek of a generated file, for an entry with
 * methods of its own that reads like one (/proc/pressure/:
 * kernel/psi_proc.c). */
long proc_snapshot_lseek(struct file *f, long offset, int whence);

/* fs/proc/inode.c: Linux's mem_lseek, the llseek of a file whose offset
 * is an address (pagemap, mem): SEEK_SET and SEEK_CUR to any offset. */
long mem_lseek(struct file *f, long offset, int whence);

/* Whether the file has a write method (a sysctl, a writable sysfs
 * attribute): its mode is 0644 instead of 0444. */
bool procfs_node_writable(const struct proc_node *node);
/* One write(2) of len bytes (a kernel buffer) to the file: len, or
 * -EIO (no write method), -EINVAL (len >= PAGE_SIZE, or a value the
 * file refuses), -ENOMEM, or the file's own errno (-EBUSY...). */
long procfs_write(const struct proc_node *node, const char *buf, size_t len);
/* Lookup and write at once, for tests and the kernel's own settings:
 * 0 or a negative errno. */
int procfs_write_path(const char *path, struct task_struct *task, const char *buf, size_t len);

/* Both at once, for tests: the content of path as task would read it.
 * Returns 0, -ENOENT, -ENOTDIR, -EISDIR (a directory) or -ENOMEM. The
 * buffer is NUL-terminated (the NUL is not counted in *lenp); kvfree it. */
int procfs_generate(const char *path, struct task_struct *task, char **bufp, size_t *lenp);

#endif
