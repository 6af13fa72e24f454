/* Open files of a process: a small table of file descriptors, the serial
 * console behind fd 1 and 2, and read-only files generated when opened
 * (procfs, sysfs: kernel/procfs.c).
 *
 * Invariants: fd n is in use iff files->fd[n] is not NULL; a struct file is
 * owned by exactly one descriptor (no dup yet), so close() frees it. The
 * console keeps a partial line per process until its newline (or exit), so
 * that output from processes on several CPUs never interleaves inside a
 * line, and each line gets the process's console prefix (the test suite's
 * "    # "). */
#ifndef KERNEL_FILE_H
#define KERNEL_FILE_H

#include "kernel/types.h"

#define NR_OPEN_DEFAULT 64

struct files_struct;

/* A process's table with fd 1 and 2 on the console (fd 0 reads as end of
 * file); prefix is put before every line the process writes (copied; may
 * be ""). NULL when memory is short. */
struct files_struct *files_alloc(const char *console_prefix);
/* Closes every descriptor, writes out a partial console line, frees. */
void files_release(struct files_struct *files);

#endif
