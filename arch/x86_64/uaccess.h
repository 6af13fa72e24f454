/* Reading memory that may not be mapped, without oopsing: the load is listed
 * in the exception table, and a fault there resumes at a fixup that returns
 * -EFAULT. User-memory copies (system calls) build on the same mechanism. */
#ifndef ARCH_X86_64_UACCESS_H
#define ARCH_X86_64_UACCESS_H

#include "arch/x86_64/asm.h"
#include "kernel/types.h"

/* *val = *(u64 *)addr; returns 0, or -EFAULT if the load faulted. */
static inline int get_kernel_nofault_u64(u64 *val, const void *addr)
{
	int err = 0;
	u64 v = 0;
	__asm__ volatile("1:	movq (%[addr]), %[v]\n"
			 "2:\n"
			 ".pushsection .text.fixup, \"ax\"\n"
			 "3:	movl %[efault], %[err]\n"
			 "	jmp 2b\n"
			 ".popsection\n"
			 _ASM_EXTABLE(1b, 3b)
			 : [v] "+r"(v), [err] "+r"(err)
			 : [addr] "r"(addr), [efault] "i"(-EFAULT)
			 : "memory");
	*val = v;
	return err;
}

/* User memory. Every copy checks that the whole range lies below the user
 * limit (access_ok) and goes through the exception table, so a bad user
 * pointer ends the copy early instead of oopsing; a fault on an address the
 * process may touch is first resolved by the page-fault handler (demand
 * paging), which is why these may sleep. With SMAP the kernel can reach
 * user pages only between stac and clac, which these do.
 *
 * copy_from_user/copy_to_user/clear_user return the number of bytes NOT
 * copied (0 on success), as Linux; strncpy_from_user returns the string's
 * length, or -EFAULT, or count when no terminator was found in count bytes. */
#define USER_ADDR_LIMIT 0x00007ffffffff000ul /* TASK_SIZE */

static inline bool access_ok(const void *addr, unsigned long size)
{
	unsigned long a = (unsigned long)addr;
	return size <= USER_ADDR_LIMIT && a <= USER_ADDR_LIMIT - size;
}

unsigned long copy_from_user(void *to, const void *from, unsigned long n);
unsigned long copy_to_user(void *to, const void *from, unsigned long n);
unsigned long clear_user(void *to, unsigned long n);
long strncpy_from_user(char *dst, const char *src, long count);
/* One word each way, 64 or 32 bits, as one access that another
 * CPU sees whole or not at all: 0 or -EFAULT. */
int get_user_u64(u64 *val, const void *uaddr);
int put_user_u64(u64 val, void *uaddr);
int get_user_u32(u32 *val, const void *uaddr);
int put_user_u32(u32 val, void *uaddr);

/* Whether SMAP is on (set at boot): stac/clac are only issued then. */
extern bool smap_enabled;
static inline void stac(void)
{
	if (smap_enabled)
		__asm__ volatile("stac" ::: "memory");
}
static inline void clac(void)
{
	if (smap_enabled)
		__asm__ volatile("clac" ::: "memory");
}

#endif
