/* System calls: Linux's x86_64 ABI (number in rax, arguments in rdi, rsi,
 * rdx, r10, r8, r9, result in rax, negative errno on failure).
 *
 * Each system call is defined where its subsystem lives, with Linux's macro
 * shape, and registers itself in the .syscalls linker section:
 *
 *   SYSCALL_DEFINE3(write, unsigned int, fd, const char __user *, buf, size_t, count)
 *   {
 *           ...
 *   }
 *
 * syscall_init() builds the table from the section; numbers nobody
 * defined return -ENOSYS. The number comes from __NR_<name> in
 * kernel/unistd.h. */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H

#include "kernel/types.h"
#include "kernel/unistd.h"


typedef long (*syscall_fn_t)(const unsigned long args[6]);

struct syscall_entry {
	unsigned long nr;
	const char *name;
	syscall_fn_t fn;
};

#define __SYSCALL_ENTRY(name)                                                                      \
	static const struct syscall_entry __syscall_entry_##name __used                           \
		__section(".syscalls") __aligned(8) = { __NR_##name, #name, __se_sys_##name }

#define SYSCALL_DEFINE0(name)                                                                      \
	static long __do_sys_##name(void);                                                         \
	static long __se_sys_##name(const unsigned long args[6])                                   \
	{                                                                                          \
		(void)args;                                                                        \
		return __do_sys_##name();                                                          \
	}                                                                                          \
	__SYSCALL_ENTRY(name);                                                                     \
	static long __do_sys_##name(void)
#define SYSCALL_DEFINE1(name, t1, a1)                                                              \
	static long __do_sys_##name(t1 a1);                                                        \
	static long __se_sys_##name(const unsigned long args[6])                                   \
	{                                                                                          \
		return __do_sys_##name((t1)args[0]);                                               \
	}                                                                                          \
	__SYSCALL_ENTRY(name);                                                                     \
	static long __do_sys_##name(t1 a1)
#define SYSCALL_DEFINE2(name, t1, a1, t2, a2)                                                      \
	static long __do_sys_##name(t1 a1, t2 a2);                                                 \
	static long __se_sys_##name(const unsigned long args[6])                                   \
	{                                                                                          \
		return __do_sys_##name((t1)args[0], (t2)args[1]);                                  \
	}                                                                                          \
	__SYSCALL_ENTRY(name);                                                                     \
	static long __do_sys_##name(t1 a1, t2 a2)
#define SYSCALL_DEFINE3(name, t1, a1, t2, a2, t3, a3)                                              \
	static long __do_sys_##name(t1 a1, t2 a2, t3 a3);                                          \
	static long __se_sys_##name(const unsigned long args[6])                                   \
	{                                                                                          \
		return __do_sys_##name((t1)args[0], (t2)args[1], (t3)args[2]);                     \
	}                                                                                          \
	__SYSCALL_ENTRY(name);                                                                     \
	static long __do_sys_##name(t1 a1, t2 a2, t3 a3)
#define SYSCALL_DEFINE4(name, t1, a1, t2, a2, t3, a3, t4, a4)                                      \
	static long __do_sys_##name(t1 a1, t2 a2, t3 a3, t4 a4);                                   \
	static long __se_sys_##name(const unsigned long args[6])                                   \
	{                                                                                          \
		return __do_sys_##name((t1)args[0], (t2)args[1], (t3)args[2], (t4)args[3]);        \
	}                                                                                          \
	__SYSCALL_ENTRY(name);                                                                     \
	static long __do_sys_##name(t1 a1, t2 a2, t3 a3, t4 a4)
#define SYSCALL_DEFINE5(name, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5)                              \
	static long __do_sys_##name(t1 a1, t2 a2, t3 a3, t4 a4, t5 a5);                            \
	static long __se_sys_##name(const unsigned long args[6])                                   \
	{                                                                                          \
		return __do_sys_##name((t1)args[0], (t2)args[1], (t3)args[2], (t4)args[3],         \
				       (t5)args[4]);                                               \
	}                                                                                          \
	__SYSCALL_ENTRY(name);                                                                     \
	static long __do_sys_##name(t1 a1, t2 a2, t3 a3, t4 a4, t5 a5)
#define SYSCALL_DEFINE6(name, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6)                      \
	static long __do_sys_##name(t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6);                     \
	static long __se_sys_##name(const unsigned long args[6])                                   \
	{                                                                                          \
		return __do_sys_##name((t1)args[0], (t2)args[1], (t3)args[2], (t4)args[3],         \
				       (t5)args[4], (t6)args[5]);                                  \
	}                                                                                          \
	__SYSCALL_ENTRY(name);                                                                     \
	static long __do_sys_##name(t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6)

/* Builds the table; reports a number defined twice (a bug) and panics. */
void syscall_init(void);
/* Dispatches one call (the entry code calls it with rax, of which only the
 * low 32 bits are the number, as Linux's); counts calls per number. */
long do_syscall_64(unsigned long rax, const unsigned long args[6]);
/* The name of a defined system call, or NULL. */
const char *syscall_name(unsigned long nr);

#endif
