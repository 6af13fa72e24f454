/* The per-task procfs files, /proc/self|<pid>/{status,stat,statm,maps,smaps,
 * smaps_rollup,numa_maps,pagemap}
 * (fs/proc/array.c: status, stat, statm; fs/proc/task_pagemap.c:
 * pagemap; fs/proc/task_mmu.c: the rest), which fs/proc/base.c registers
 * under /proc/<pid>.
 * Each prints the task of the node it is given (node->task). */
#ifndef FS_PROC_INTERNAL_H
#define FS_PROC_INTERNAL_H

#include "fs/proc/proc_fs.h"
#include "lib/string.h"

/* /proc/<pid> (fs/proc/base.c), for the directories below it. */
extern const struct proc_dir_entry pid_dir;
/* /proc/<pid>/task/<tid> (fs/proc/base.c). */
extern const struct proc_dir_entry tid_dir;

void status_show(struct seq_buf *m, const struct proc_node *node);
void statm_show(struct seq_buf *m, const struct proc_node *node);
void stat_show(struct seq_buf *m, const struct proc_node *node);
void maps_show(struct seq_buf *m, const struct proc_node *node);
/* fs/proc_namespace.c: /proc/<pid>/mounts (and /proc/mounts) and mountinfo. */
void mounts_show(struct seq_buf *m, const struct proc_node *node);
void mountinfo_show(struct seq_buf *m, const struct proc_node *node);
/* /proc/<pid>/smaps and smaps_rollup: the figures of a walk of the page
 * tables (mm/pagewalk.h), per VMA and summed. */
void smaps_show(struct seq_buf *m, const struct proc_node *node);
void numa_maps_show(struct seq_buf *m, const struct proc_node *node);
void smaps_rollup_show(struct seq_buf *m, const struct proc_node *node);
/* /proc/<pid>/pagemap, read at an offset (procfs_read_at): Linux's
 * pagemap_read (fs/proc/task_pagemap.c). */
long pagemap_read(const struct proc_node *node, char *dst, size_t count, long *pos, bool user);

#endif
