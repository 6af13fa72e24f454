/* A process's descriptor table, as Linux's include/linux/fdtable.h
 * (fs/file.c has its functions and locking rules). */
#ifndef FS_FDTABLE_H
#define FS_FDTABLE_H

#include "drivers/tty/tty.h"
#include "fs/fs.h"
#include "kernel/spinlock.h"

struct files_struct {
	int count;            /* processes sharing it (CLONE_FILES), atomic */
	spinlock_t file_lock; /* fd[], open_fds, exe_path */
	unsigned long open_fds; /* bit n: fd n taken (installed, or reserved by an open) */
	unsigned long close_on_exec; /* bit n: fd n goes at execve (O_CLOEXEC) */
	struct file *fd[NR_OPEN_DEFAULT];
	struct console_tty console;
	char exe_path[64]; /* readlink("/proc/self/exe"); "" before a program runs */
};

_Static_assert(NR_OPEN_DEFAULT <= 8 * sizeof(unsigned long), "open_fds is one word");

#endif
