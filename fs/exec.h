/* A new program's stack (fs/exec.c): the stack VMA and what a
 * static Linux program finds on it at _start. */
#ifndef FS_EXEC_H
#define FS_EXEC_H

#include "fs/binfmt_elf.h"

struct mm_struct;

/* Linux's setup_arg_pages: the stack VMA of stack_size bytes below
 * STACK_TOP (growing down; the caller derives the size from RLIMIT_STACK),
 * executable only when PT_GNU_STACK asks for it. mm must be the current
 * one. 0 or a negative errno. */
int setup_arg_pages(struct mm_struct *mm, const struct elf_image_info *elf, unsigned long stack_size);
/* Linux's create_elf_tables with the strings exec copies first: from the
 * returned *sp up, argc, argv[] and NULL, envp[] and NULL, the
 * auxiliary vector (AT_MINSIGSTKSZ, AT_HWCAP, AT_PAGESZ, AT_CLKTCK,
 * AT_PHDR, AT_PHENT, AT_PHNUM, AT_BASE, AT_FLAGS, AT_ENTRY, AT_UID,
 * AT_EUID, AT_GID, AT_EGID, AT_SECURE, AT_RANDOM, AT_HWCAP2, AT_EXECFN,
 * AT_PLATFORM, AT_NULL: Linux's order); above them AT_RANDOM's 16 bytes,
 * "x86_64", the argument and environment strings and the file name at the
 * top (filename, or "/<program>" when NULL). No AT_SYSINFO_EHDR: mmlab has no vDSO. Records the file name for
 * readlink("/proc/self/exe"). 0, -E2BIG (more than BINPRM_MAX_ARGS
 * arguments) or -EFAULT. */
int create_elf_tables(const struct elf_image_info *elf, int argc, char *const argv[], int envc,
		      char *const envp[], const char *filename, unsigned long *sp_out);
/* Linux's kernel_execve: the calling task (one that has a process: a
 * signal_struct, files and fs) replaces its program with the one at path,
 * looked up from its root and working directory, with kernel strings for
 * argv and envp (NULL-terminated; NULL for none). 0: the task's user
 * registers (task_pt_regs) start the new program, which the caller enters
 * (ret_from_fork_user); else a negative errno from before the point of no
 * return (-ENOENT, -EACCES, -ENOEXEC, -E2BIG, -ENOMEM...); a failure after
 * it kills the process with SIGSEGV, as execve's does. */
int kernel_execve(const char *path, const char *const *argv, const char *const *envp);
/* Whether path names a file execve could open as a program (looked up from
 * the caller's root): 0, or -ENOENT, -EACCES... as execve would say. */
int program_file_check(const char *path);
/* The auxv's AT_HWCAP and AT_HWCAP2 (tests compare). */
unsigned long elf_hwcap(void);
unsigned long elf_hwcap2(void);

#define HWCAP2_RING3MWAIT (1ul << 0)
#define HWCAP2_FSGSBASE (1ul << 1)

#endif
