/* The argument and environment strings execve gathers before the point
 * of no return (Linux's copy_strings, copy_string_kernel, remove_arg_zero
 * and bprm_stack_limits, fs/exec.c): one buffer of NUL-terminated
 * strings, grown by doubling, under Linux's limits (fs/binprm.h). */
#include "fs/binprm.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "lib/string.h"
#include "mm/mm_types.h"
#include "mm/slab.h"
#include "mm/util.h"

/* The strings' room (Linux's bprm_stack_limits): a quarter of the stack
 * limit, at most three quarters of _STK_LIM (8 MiB), at least ARG_MAX;
 * and, since mmlab's stack VMA is made whole at exec and never grows, at
 * most half of it. */
static unsigned long bprm_stack_limit(void)
{
	unsigned long rlim = current->signal->rlim[RLIMIT_STACK].rlim_cur;
	unsigned long limit = min(USER_STACK_SIZE / 4 * 3, rlim / 4);
	limit = max(limit, ARG_MAX);
	return min(limit, stack_vma_size(current->signal) / 2);
}

int bprm_init(struct linux_binprm *bprm)
{
	memset(bprm, 0, sizeof(*bprm));
	bprm->limit = bprm_stack_limit();
	bprm->size = PAGE_SIZE;
	bprm->strings = kvmalloc(bprm->size, GFP_KERNEL);
	bprm->interp = kmalloc(PATH_MAX, GFP_KERNEL);
	bprm->exe = kmalloc(PATH_MAX, GFP_KERNEL);
	if (bprm->exe)
		bprm->exe[0] = '\0';
	return bprm->strings && bprm->interp && bprm->exe ? 0 : -ENOMEM;
}

void bprm_free(struct linux_binprm *bprm)
{
	kvfree(bprm->strings);
	kfree(bprm->interp);
	kfree(bprm->exe);
}

/* Room for at least need bytes of strings: the buffer doubled until it
 * holds them; -E2BIG when strings and pointers would pass the limit. */
static int bprm_reserve(struct linux_binprm *bprm, size_t need)
{
	unsigned long pointers = ((unsigned long)bprm->argc + bprm->envc + 1) * sizeof(void *);
	if (need + pointers > bprm->limit)
		return -E2BIG;
	if (need <= bprm->size)
		return 0;
	size_t size = bprm->size;
	while (size < need)
		size *= 2;
	char *grown = kvrealloc(bprm->strings, size, GFP_KERNEL);
	if (!grown)
		return -ENOMEM;
	bprm->strings = grown;
	bprm->size = size;
	return 0;
}

int copy_user_strings(struct linux_binprm *bprm, const char __user *const __user *uarr, int *count)
{
	for (int i = 0; uarr; i++) {
		const char __user *ustr;
		if (copy_from_user(&ustr, &uarr[i], sizeof(ustr)))
			return -EFAULT;
		if (!ustr)
			break;
		for (;;) {
			size_t room = min(bprm->size - bprm->used, MAX_ARG_STRLEN);
			long len = strncpy_from_user(bprm->strings + bprm->used, (const char *)ustr, (long)room);
			if (len < 0)
				return -EFAULT;
			if ((size_t)len < room) {
				bprm->used += (size_t)len + 1;
				break;
			}
			if (room == MAX_ARG_STRLEN)
				return -E2BIG;
			int err = bprm_reserve(bprm, bprm->used + room + 1);
			if (err)
				return err;
		}
		(*count)++; /* the limit keeps it far below Linux's MAX_ARG_STRINGS */
	}
	return bprm_reserve(bprm, bprm->used);
}

int copy_kernel_string(struct linux_binprm *bprm, const char *s, int *count)
{
	size_t len = strlen(s) + 1;
	if (len > MAX_ARG_STRLEN)
		return -E2BIG;
	int err = bprm_reserve(bprm, bprm->used + len);
	if (err)
		return err;
	memcpy(bprm->strings + bprm->used, s, len);
	bprm->used += len;
	(*count)++;
	return 0;
}

int bprm_prepend_arg(struct linux_binprm *bprm, const char *s)
{
	size_t len = strlen(s) + 1;
	if (len > MAX_ARG_STRLEN)
		return -E2BIG;
	bprm->argc++; /* its pointer counts in the limit */
	int err = bprm_reserve(bprm, bprm->used + len);
	if (err) {
		bprm->argc--;
		return err;
	}
	memmove(bprm->strings + len, bprm->strings, bprm->used);
	memcpy(bprm->strings, s, len);
	bprm->used += len;
	return 0;
}

void bprm_remove_arg_zero(struct linux_binprm *bprm)
{
	if (!bprm->argc)
		return;
	size_t len = strlen(bprm->strings) + 1;
	memmove(bprm->strings, bprm->strings + len, bprm->used - len);
	bprm->used -= len;
	bprm->argc--;
}

char **bprm_pointers(struct linux_binprm *bprm)
{
	char **v = kvmalloc_array((size_t)bprm->argc + bprm->envc + 2, sizeof(char *), GFP_KERNEL);
	if (!v)
		return NULL;
	char *p = bprm->strings;
	int k = 0;
	for (int i = 0; i < bprm->argc; i++, p += strlen(p) + 1)
		v[k++] = p;
	v[k++] = NULL;
	for (int i = 0; i < bprm->envc; i++, p += strlen(p) + 1)
		v[k++] = p;
	v[k] = NULL;
	return v;
}
