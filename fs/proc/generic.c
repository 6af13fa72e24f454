/* The namespace of procfs and sysfs (Linux's fs/proc/generic.c and
 * kernfs's lookup, with one shape): every entry is registered in the
 * .proc_entries section by the file that implements it (see
 * fs/proc/proc_fs.h), and a path is looked up one component at a time
 * among the entries whose parent is the directory reached so far: the
 * fixed names first, then the families (node<N>, <pid>, ...). The entries
 * are a few dozen, so a linear scan per component costs less than building
 * an index would. Then the generation of a file's snapshot and its write. */
#include "fs/proc/proc_fs.h"
#include "fs/fs.h"
#include "fs/internal.h"
#include "kernel/pid.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/numa.h"
#include "mm/page.h"
#include "mm/slab.h"
#include "mm/util.h"

bool proc_parse_id(const char *s, size_t len, int *out)
{
	u64 v;
	if (!len || (s[0] == '0' && len > 1) || s[0] < '0' || s[0] > '9' || parse_u64(s, len, &v) ||
	    v > 0x7fffffff)
		return false;
	*out = (int)v;
	return true;
}

bool proc_match_node(const char *s, size_t len, struct task_struct *task, struct proc_node *node)
{
	(void)task;
	int id;
	if (len <= 4 || memcmp(s, "node", 4) || !proc_parse_id(s + 4, len - 4, &id) ||
	    (unsigned)id >= num_online_nodes())
		return false;
	node->nid = id;
	return true;
}

bool proc_list_node(unsigned int i, struct task_struct *task, char *name, size_t size)
{
	(void)task;
	if (i >= num_online_nodes())
		return false;
	snprintf(name, size, "node%u", i);
	return true;
}

static bool name_is(const char *s, size_t len, const char *name)
{
	return strlen(name) == len && !memcmp(s, name, len);
}

/* One step down from directory dir: the child named by the len bytes at
 * s, recorded in node; -ENOENT if there is none. */
static int lookup_one(const struct proc_dir_entry *dir, const char *s, size_t len,
		      struct task_struct *task, struct proc_node *node)
{
	const struct proc_dir_entry *e;
	for (e = __proc_entries_start; e < __proc_entries_end; e++)
		if (e->parent == dir && e->name && name_is(s, len, e->name))
			goto found;
	/* Below /proc/<pid>, the families are the process's (fd/). */
	struct task_struct *t = node->task ? node->task : task;
	for (e = __proc_entries_start; e < __proc_entries_end; e++)
		if (e->parent == dir && !e->name && e->match(s, len, t, node))
			goto found;
	return -ENOENT;
found:
	node->entry = e;
	if (e->fs != PROC_FS_ROOT)
		node->fs = e->fs;
	return 0;
}

/* The end of a lookup: the reference /proc/<pid>'s match took for the
 * families below it goes; the node keeps the process's id (proc_fs.h). */
static int lookup_done(struct proc_node *node, int err)
{
	if (node->by_id && node->task) {
		put_task_struct(node->task);
		node->task = NULL;
	}
	return err;
}

/* /proc/thread-self: Linux's link to <tgid>/task/<tid> of the calling
 * thread (proc_thread_self_get_link), walked as those three steps: like
 * mmlab's /proc/self, a directory here, whose readlink gives the target
 * (fs/stat.c). task is the reader's process, which "self" names (a
 * kernel thread: itself, with no id of its own to look up by). */
static int lookup_thread_self(struct task_struct *task, struct proc_node *node)
{
	int tid = current == task || current->group_leader == task ? current->pid : task->pid;
	char name[3][16];
	snprintf(name[0], sizeof(name[0]), "self");
	snprintf(name[1], sizeof(name[1]), "task");
	snprintf(name[2], sizeof(name[2]), "%d", tid);
	for (int i = 0; i < 3; i++) {
		int err = lookup_one(node->entry, name[i], strlen(name[i]), task, node);
		if (err)
			return err;
	}
	return 0;
}

int procfs_lookup(const char *path, struct task_struct *task, struct proc_node *node)
{
	memset(node, 0, sizeof(*node));
	node->entry = &root_dir;
	node->fs = PROC_FS_ROOT;
	node->nid = NUMA_NO_NODE;
	if (path[0] != '/')
		return -ENOENT;
	const char *s = path + 1;
	while (*s) {
		const char *end = strchr(s, '/');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		if (!proc_node_is_dir(node)) /* a file has no children */
			return lookup_done(node, -ENOTDIR);
		int err = node->entry == &proc_root_dir && name_is(s, len, "thread-self")
				  ? lookup_thread_self(task, node)
				  : lookup_one(node->entry, s, len, task, node);
		if (err)
			return lookup_done(node, err);
		s += len;
		if (*s == '/')
			s++;
	}
	return lookup_done(node, 0);
}

/* A made-up inode number for a generated name (getdents's d_ino: some
 * libcs skip entries whose d_ino is 0). */
static unsigned long generated_ino(const struct proc_dir_entry *e, unsigned int member)
{
	return (((unsigned long)e >> 3) & 0xffffff) * 64 + member + 2;
}

static int readdir_pinned(const struct proc_node *dir, struct task_struct *task, struct dir_context *ctx);

int procfs_readdir(const struct proc_node *dir, struct task_struct *task, struct dir_context *ctx)
{
	struct proc_node pinned;
	int err = proc_pin_task(dir, task, &pinned);
	if (err)
		return -ENOENT; /* Linux's proc_readdir of a dead task's directory */
	err = readdir_pinned(&pinned, task, ctx);
	proc_unpin_task(&pinned);
	return err;
}

/* The families below /proc/<pid> list the process's members (fd/), the
 * others the reader's (the processes of its tree). */
static int readdir_pinned(const struct proc_node *dir, struct task_struct *task, struct dir_context *ctx)
{
	const struct proc_dir_entry *d = dir->entry, *e;
	if (dir->per_task)
		task = dir->task;
	if (ctx->pos == 0) {
		if (!ctx->actor(ctx, ".", 1, 0, generated_ino(d, 0), DT_DIR))
			return 0;
		ctx->pos = 1;
	}
	if (ctx->pos == 1) {
		if (!ctx->actor(ctx, "..", 2, 1, generated_ino(d->parent ? d->parent : d, 0), DT_DIR))
			return 0;
		ctx->pos = 2;
	}
	long i = 2;
	char name[64];
	for (e = __proc_entries_start; e < __proc_entries_end; e++) {
		if (e->parent != d || !e->name)
			continue;
		if (i++ < ctx->pos)
			continue;
		if (!ctx->actor(ctx, e->name, (int)strlen(e->name), i - 1, generated_ino(e, 0),
				fs_umode_to_dtype(e->mode)))
			return 0;
		ctx->pos = i;
	}
	for (e = __proc_entries_start; e < __proc_entries_end; e++) {
		if (e->parent != d || e->name || !e->list)
			continue;
		for (unsigned int m = 0; e->list(m, task, name, sizeof(name)); m++) {
			if (i++ < ctx->pos)
				continue;
			if (!ctx->actor(ctx, name, (int)strlen(name), i - 1, generated_ino(e, m + 1),
					fs_umode_to_dtype(e->mode)))
				return 0;
			ctx->pos = i;
		}
	}
	return 0;
}

/* Linux's seq_file starts with a page and doubles until the output fits;
 * we stop at 1 MiB (about 20,000 lines of maps) and say -ENOMEM. The
 * buffer comes from kvmalloc, as Linux's seq_buf_alloc: a large file needs
 * no physically contiguous block (1 MiB would be an order-8 one), and
 * kvmalloc still tries kmalloc first. */
#define PROCFS_MAX_SIZE (1u << 20)

static int fill_pinned(const struct proc_node *node, char **bufp, size_t *lenp);

static int fill_for(const struct proc_node *node, struct task_struct *reader, char **bufp, size_t *lenp)
{
	if (!node->entry->show)
		return -EINVAL; /* read at an offset only (procfs_read_at) */
	struct proc_node pinned;
	int err = proc_pin_task(node, reader, &pinned);
	if (err) /* reaped: Linux's get_proc_task fails, -ESRCH */
		return err;
	err = node->entry->needs_mm && pinned.per_task && !pinned.mm ? -ESRCH : fill_pinned(&pinned, bufp, lenp);
	proc_unpin_task(&pinned);
	return err;
}

int procfs_fill(const struct proc_node *node, char **bufp, size_t *lenp)
{
	return fill_for(node, proc_self_task(), bufp, lenp);
}

static int fill_pinned(const struct proc_node *node, char **bufp, size_t *lenp)
{
	for (size_t size = PAGE_SIZE; size <= PROCFS_MAX_SIZE; size *= 2) {
		struct seq_buf m = { kvmalloc(size, GFP_KERNEL), size - 1, 0 };
		if (!m.buffer)
			return -ENOMEM;
		node->entry->show(&m, node);
		if (!seq_buf_has_overflowed(&m)) {
			m.buffer[m.len] = 0;
			*bufp = m.buffer;
			*lenp = m.len;
			return 0;
		}
		kvfree(m.buffer);
	}
	return -ENOMEM;
}

bool procfs_node_reads_at_offset(const struct proc_node *node)
{
	return node->entry->read != NULL;
}

long procfs_read_at(const struct proc_node *node, char *dst, size_t count, long *pos, bool user)
{
	if (!procfs_node_reads_at_offset(node))
		return -EINVAL;
	struct proc_node pinned;
	/* pagemap, the one such file of /proc/<pid>: Linux's holds the mm
	 * from the open and reads nothing once it is gone (mmget_not_zero). */
	if (proc_pin_task(node, proc_self_task(), &pinned))
		return 0;
	long ret = node->entry->read(&pinned, dst, count, pos, user);
	proc_unpin_task(&pinned);
	return ret;
}

bool procfs_node_writable(const struct proc_node *node)
{
	return node->entry->write != NULL;
}

long procfs_write(const struct proc_node *node, const char *buf, size_t len)
{
	if (!procfs_node_writable(node))
		return -EIO;
	if (len >= PAGE_SIZE)
		return -EINVAL;
	char *copy = kmalloc(len + 1, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	copy[len] = 0;
	long ret = node->entry->write(node, copy, len);
	kfree(copy);
	return ret;
}

/* The regular file at path: 0, a lookup's errno, or -EISDIR. */
static int lookup_file(const char *path, struct task_struct *task, struct proc_node *node)
{
	int err = procfs_lookup(path, task, node);
	if (err)
		return err;
	return proc_node_is_dir(node) ? -EISDIR : 0;
}

int procfs_write_path(const char *path, struct task_struct *task, const char *buf, size_t len)
{
	struct proc_node node;
	int err = lookup_file(path, task, &node);
	if (err)
		return err;
	long ret = procfs_write(&node, buf, len);
	return ret < 0 ? (int)ret : 0;
}

int procfs_generate(const char *path, struct task_struct *task, char **bufp, size_t *lenp)
{
	struct proc_node node;
	int err = lookup_file(path, task, &node);
	return err ? err : fill_for(&node, task, bufp, lenp);
}
