/* Threads by hand for the thread tests: raw system calls (a negative errno
 * on failure, no libc errno: a thread made here has no libc thread of its
 * own) and clone/clone3 that start fn(arg) on a new stack. The same code
 * builds against mmlab's tests/user lib and against glibc or musl. A thread
 * made here must only make raw system calls and touch plain memory.
 *
 * Header-only (static functions), so each program that includes it builds
 * on its own. */
#ifndef MMLAB_USER_RAW_THREAD_H
#define MMLAB_USER_RAW_THREAD_H

#define NR_sched_yield 24
#define NR_nanosleep 35
#define NR_getpid 39
#define NR_clone 56
#define NR_exit 60
#define NR_getrlimit 97
#define NR_sigaltstack 131
#define NR_arch_prctl 158
#define NR_setrlimit 160
#define NR_gettid 186
#define NR_set_tid_address 218
#define NR_exit_group 231
#define NR_prlimit64 302
#define NR_clone3 435
#define NR_rt_sigaction 13
#define NR_rt_sigprocmask 14

#define T_CLONE_VM 0x00000100ul
#define T_CLONE_FS 0x00000200ul
#define T_CLONE_FILES 0x00000400ul
#define T_CLONE_SIGHAND 0x00000800ul
#define T_CLONE_VFORK 0x00004000ul
#define T_CLONE_THREAD 0x00010000ul
#define T_CLONE_SYSVSEM 0x00040000ul
#define T_CLONE_SETTLS 0x00080000ul
#define T_CLONE_PARENT_SETTID 0x00100000ul
#define T_CLONE_CHILD_CLEARTID 0x00200000ul
#define T_CLONE_CHILD_SETTID 0x01000000ul
/* What glibc's and musl's pthread_create pass. */
#define T_THREAD_FLAGS                                                                           \
	(T_CLONE_VM | T_CLONE_FS | T_CLONE_FILES | T_CLONE_SIGHAND | T_CLONE_THREAD | T_CLONE_SYSVSEM | \
	 T_CLONE_SETTLS | T_CLONE_PARENT_SETTID | T_CLONE_CHILD_CLEARTID)

static inline long raw6(long n, long a1, long a2, long a3, long a4, long a5, long a6)
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
#define raw0(n) raw6(n, 0, 0, 0, 0, 0, 0)
#define raw1(n, a) raw6(n, (long)(a), 0, 0, 0, 0, 0)
#define raw2(n, a, b) raw6(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define raw3(n, a, b, c) raw6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define raw4(n, a, b, c, d) raw6(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

/* A system call whose child (rax 0) runs fn(arg) on the stack it was given
 * and then exit(fn's value); the parent gets the call's result. fn and arg
 * ride in r12/r13, which the child inherits with every other register. */
static inline long raw_clone_call(long nr, long a1, long a2, long a3, long a4, long a5,
				  int (*fn)(void *), void *arg)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r12 __asm__("r12") = (long)fn;
	register long r13 __asm__("r13") = (long)arg;
	long ret;
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r13, %%rdi\n\t"
			 "call *%%r12\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov $60, %%eax\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r12), "r"(r13)
			 : "rcx", "r11", "memory");
	return ret;
}

/* clone(flags, stack_top, ptid, ctid, tls): stack_top 16-byte aligned. */
static inline long raw_clone(unsigned long flags, void *stack_top, int *ptid, int *ctid,
			     unsigned long tls, int (*fn)(void *), void *arg)
{
	return raw_clone_call(NR_clone, (long)flags, (long)stack_top, (long)ptid, (long)ctid,
			      (long)tls, fn, arg);
}

struct raw_clone_args {
	unsigned long long flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls,
		set_tid, set_tid_size, cgroup;
};

static inline long raw_clone3(void *args, unsigned long size, int (*fn)(void *), void *arg)
{
	return raw_clone_call(NR_clone3, (long)args, (long)size, 0, 0, 0, fn, arg);
}

static inline void raw_yield(void) { raw0(NR_sched_yield); }

/* Waits until the CLONE_CHILD_CLEARTID word *ctid is 0 (the thread has
 * exited), yielding and now and then sleeping 1 ms; returns 0, or -1 after
 * the hang guard (20000 sleeps: a count, so never shorter than 20 s). */
static inline int raw_wait_cleared(volatile int *ctid)
{
	struct {
		long sec, nsec;
	} ms = { 0, 1000000 };
	for (unsigned long i = 0, sleeps = 0; *ctid != 0; i++) {
		if (i % 64 != 63) {
			raw_yield();
			continue;
		}
		if (++sleeps > 20000)
			return -1;
		raw2(NR_nanosleep, &ms, 0);
	}
	return 0;
}

#endif
