/* What execve gathers before the point of no return (Linux's struct
 * linux_binprm, include/linux/binfmts.h, as much as mmlab's exec needs),
 * shared by fs/exec.c and the #! loader, fs/binfmt_script.c.
 *
 * The argument and environment strings are kept one after another, each
 * NUL-terminated, argv's first: the order they take on the new stack, low
 * addresses first. The buffer grows as strings come (doubling), up to the
 * limit Linux's bprm_stack_limits sets for strings and pointers together. */
#ifndef FS_BINPRM_H
#define FS_BINPRM_H

#include "kernel/types.h"

/* Linux's MAX_ARG_STRLEN: one string, its NUL included (32 pages). */
#define MAX_ARG_STRLEN (32ul * 4096)
/* Linux's ARG_MAX: the least room strings and pointers always get. */
#define ARG_MAX (32ul * 4096)
/* Linux's BINPRM_BUF_SIZE: the bytes of the file the #! line is read from. */
#define BINPRM_BUF_SIZE 256

struct linux_binprm {
	int argc, envc;
	char *strings;       /* argv's strings, then envp's (kvmalloc'd) */
	size_t used, size;   /* bytes in use, bytes allocated */
	unsigned long limit; /* strings + (argc + envc) pointers may take this much */
	/* The file the next loader reads: the program's path, then each #!
	 * line's interpreter (Linux's bprm->interp). PATH_MAX bytes. */
	char *interp;
	/* The path of the file the loader read last, from the process's root,
	 * symbolic links resolved (Linux's d_path of bprm->file): what
	 * /proc/<pid>/exe shows, the interpreter's for a script; "" if it
	 * has none there. PATH_MAX bytes. */
	char *exe;
};

/* Room for the strings (Linux's bprm_stack_limits, for the caller's
 * RLIMIT_STACK), the interpreter and exe paths: 0 or -ENOMEM; bprm_free
 * after, whatever it returned. */
int bprm_init(struct linux_binprm *bprm);
void bprm_free(struct linux_binprm *bprm);
/* Linux's count + copy_strings: the user's NULL-terminated array of
 * strings after those bprm holds, counted in *count; 0, -EFAULT or
 * -E2BIG (a string of MAX_ARG_STRLEN bytes or more, or past the limit). */
int copy_user_strings(struct linux_binprm *bprm, const char __user *const __user *uarr, int *count);
/* Linux's copy_string_kernel, at the end of the strings. */
int copy_kernel_string(struct linux_binprm *bprm, const char *s, int *count);
/* The pointer arrays create_elf_tables takes: argv's argc + 1 then envp's
 * envc + 1, into the strings (kvfree the result); NULL without memory. */
char **bprm_pointers(struct linux_binprm *bprm);
/* Linux's copy_string_kernel at the front of argv (argc + 1): 0, -E2BIG
 * past MAX_ARG_STRLEN or the limit, -ENOMEM. */
int bprm_prepend_arg(struct linux_binprm *bprm, const char *s);
/* Linux's remove_arg_zero: argv[0] dropped (argc - 1). */
void bprm_remove_arg_zero(struct linux_binprm *bprm);

/* Linux's load_script (fs/binfmt_script.c): if the file's first bytes
 * (buf, len of them) are a #! line, argv becomes { interpreter, [its
 * argument,] bprm->interp (the script's path), argv[1]... } and
 * bprm->interp the interpreter's path, for the caller to open next; 0,
 * -ENOEXEC (no #!, no interpreter name, a name the 256 bytes cut short),
 * -ENAMETOOLONG, -E2BIG or -ENOMEM. */
int load_script(struct linux_binprm *bprm, const char *buf, size_t len);

#endif
