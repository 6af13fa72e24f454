/* Raw system calls for the library's own wrappers: inline `syscall`
 * instructions with Linux's register convention, returning the kernel's
 * value (a negative errno on failure), and the glibc-style conversion of
 * that value into -1 + errno. Internal to tests/user/lib. */
#ifndef MMLAB_USER_LIB_SYSCALL_H
#define MMLAB_USER_LIB_SYSCALL_H

#include <errno.h>
#include <sys/syscall.h>

/* The page size the kernel gave in AT_PAGESZ (start.c), for getpagesize
 * and sysconf. */
extern unsigned long __mmlab_page_size;

static inline long raw_syscall6(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#define raw_syscall0(n) raw_syscall6(n, 0, 0, 0, 0, 0, 0)
#define raw_syscall1(n, a) raw_syscall6(n, (long)(a), 0, 0, 0, 0, 0)
#define raw_syscall2(n, a, b) raw_syscall6(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define raw_syscall3(n, a, b, c) raw_syscall6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define raw_syscall4(n, a, b, c, d) raw_syscall6(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

/* Results in [-4095, -1] are errors, as in Linux's IS_ERR_VALUE. */
static inline long syscall_result(long ret)
{
	if ((unsigned long)ret >= -4095UL) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

#endif
