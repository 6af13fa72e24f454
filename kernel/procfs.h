/* procfs and sysfs files in Linux's formats, generated on demand
 * into a buffer (the open-file side is kernel/file.c; the generators are
 * kernel/procfs.c and, for /proc/<pid>, fs/proc/array.c and fs/proc/task_mmu.c).
 *
 * The namespace is fixed: "/", "/proc" (meminfo, buddyinfo, self and the
 * caller's own pid, each with status, statm, maps, smaps, smaps_rollup and
 * pagemap), "/sys/devices/system/node" (online, possible, has_cpu,
 * has_memory, and node<N>/ with numastat, meminfo, distance and cpulist
 * for every online node, memoryless ones included),
 * "/sys/devices/system/cpu" (online, possible, present: drivers/base/cpu.c),
 * "/proc/sys/vm" (the vm sysctls, readable and, as root, writable). Every
 * file but pagemap is generated whole from the kernel's own counters at
 * one moment, so a reader sees one consistent snapshot, never a file
 * stitched from two moments; pagemap is read at an offset, each read a
 * walk of the page tables at that moment (as Linux's). */
#ifndef KERNEL_PROCFS_H
#define KERNEL_PROCFS_H

#include "kernel/types.h"

struct task_struct;
struct proc_entry;

/* Which filesystem a node belongs to: their open(2) rules differ (as root,
 * Linux lets a procfs file be opened for writing and fails the write; sysfs
 * refuses the open). */
enum proc_fs_kind { PROC_FS_ROOT, PROC_FS_PROC, PROC_FS_SYS };

/* A looked-up path. */
struct proc_node {
	const struct proc_entry *entry; /* NULL for a directory */
	enum proc_fs_kind fs;
	bool per_task;            /* under /proc/<pid>: Linux has no write method there */
	int nid;                  /* for /sys/devices/system/node/node<N>/ files */
	int hstate;               /* for .../hugepages/hugepages-<kB>kB/ files (mm/hugetlb.h) */
	struct task_struct *task; /* for /proc/self/ and /proc/<pid>/ */
};

static inline bool proc_node_is_dir(const struct proc_node *node) { return !node->entry; }

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
 * instead of from a snapshot generated whole (/proc/<pid>/pagemap, whose
 * 8 bytes per virtual page make it 256 GiB long and sparse): procfs_fill
 * refuses such a file (-EINVAL) and procfs_read_at reads it. */
bool procfs_node_reads_at_offset(const struct proc_node *node);
/* Up to count bytes of the file from *pos into dst (user memory if user),
 * *pos moved past them: the bytes copied (0 at the end), or the file's
 * negative errno (pagemap: -EINVAL for an offset or count that is not a
 * multiple of 8, -EFAULT, -ENOMEM); -EINVAL for a file that is not read
 * at an offset. */
long procfs_read_at(const struct proc_node *node, char *dst, size_t count, long *pos, bool user);

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

/* ---- for the generators (procfs.c, fs/proc/array.c, fs/proc/task_mmu.c) ---- */

/* Linux's seq_buf: a bounded buffer that remembers it overflowed. A
 * generator prints into it and procfs_fill() retries with a larger one
 * when it overflowed, so a file is always generated whole. */
struct seq_buf {
	char *buffer;
	size_t size;
	size_t len; /* > size once something did not fit */
};

static inline bool seq_buf_has_overflowed(const struct seq_buf *s) { return s->len > s->size; }
void __printf(2, 3) seq_buf_printf(struct seq_buf *s, const char *fmt, ...);
static inline void seq_buf_puts(struct seq_buf *s, const char *str) { seq_buf_printf(s, "%s", str); }

/* A set of small integers as Linux's "%*pbl" ("0-3,8"), then a newline. */
void print_list(struct seq_buf *m, const bool *set, int n);
/* A bitmap of nr_bits as Linux's "%*pb" (hex, 32-bit chunks, commas). */
void print_mask(struct seq_buf *m, u64 bits, unsigned nr_bits);
/* The node exists and has present memory. */
bool node_has_memory(int nid);

#endif
