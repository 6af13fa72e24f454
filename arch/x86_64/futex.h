/* Atomic operations on a user word for futexes (Linux's
 * arch/x86/include/asm/futex.h): compare-and-exchange and the FUTEX_OP_*
 * read-modify-write operations of FUTEX_WAKE_OP, each one locked
 * instruction (or a compare-and-exchange loop) listed in the exception
 * table, so a fault ends it with -EFAULT instead of an oops.
 *
 * "In atomic" means as Linux's: the caller holds a futex bucket lock with
 * interrupts off, and mmlab's page-fault handler refuses to resolve a
 * user-copy fault with interrupts off (Linux's pagefault_disable()), so a
 * page that is not present gives -EFAULT at once; the caller then drops
 * its locks, faults the page in (futex_fault_in_user_writeable) and
 * retries. */
#ifndef ARCH_X86_64_FUTEX_H
#define ARCH_X86_64_FUTEX_H

#include "arch/x86_64/asm.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/futex.h" /* FUTEX_OP_* */
#include "kernel/types.h"

/* The instruction at label 1 may fault: the fixup sets ret to -EFAULT and
 * resumes after it. */
#define __futex_extable(ret)                                                       \
	".pushsection .text.fixup, \"ax\"\n"                                       \
	"3:	movl %[efault], %[" #ret "]\n"                                     \
	"	jmp 2b\n"                                                           \
	".popsection\n"                                                            \
	_ASM_EXTABLE(1b, 3b)

/* *uval = the value found; it was replaced by newval if it was oldval.
 * 0 or -EFAULT (Linux's futex_atomic_cmpxchg_inatomic). */
static inline int futex_atomic_cmpxchg_inatomic(u32 *uval, u32 *uaddr, u32 oldval, u32 newval)
{
	if (!access_ok(uaddr, sizeof(u32)))
		return -EFAULT;
	int ret = 0;
	stac();
	__asm__ volatile("1:	lock cmpxchgl %[new], %[mem]\n"
			 "2:\n" __futex_extable(ret)
			 : [ret] "+r"(ret), "+a"(oldval), [mem] "+m"(*uaddr)
			 : [new] "r"(newval), [efault] "i"(-EFAULT)
			 : "memory");
	clac();
	*uval = oldval;
	return ret;
}

/* *val = *uaddr; 0 or -EFAULT. */
static inline int futex_load_inatomic(u32 *val, const u32 *uaddr)
{
	if (!access_ok(uaddr, sizeof(u32)))
		return -EFAULT;
	int ret = 0;
	u32 v = 0;
	stac();
	__asm__ volatile("1:	movl %[mem], %[v]\n"
			 "2:\n" __futex_extable(ret)
			 : [ret] "+r"(ret), [v] "+r"(v)
			 : [mem] "m"(*uaddr), [efault] "i"(-EFAULT)
			 : "memory");
	clac();
	*val = v;
	return ret;
}

/* Applies op with oparg to *uaddr atomically and gives the old value in
 * *oval: 0, -EFAULT, or -ENOSYS for an unknown op (memory untouched).
 * Linux's arch_futex_atomic_op_inuser: SET is xchg, ADD is lock xadd, the
 * bitwise ones a compare-and-exchange loop. */
static inline int arch_futex_atomic_op_inuser(int op, u32 oparg, int *oval, u32 *uaddr)
{
	if (!access_ok(uaddr, sizeof(u32)))
		return -EFAULT;
	int ret = 0;
	u32 v = oparg;
	switch (op) {
	case FUTEX_OP_SET:
	case FUTEX_OP_ADD:
		stac();
		if (op == FUTEX_OP_SET)
			__asm__ volatile("1:	xchgl %[v], %[mem]\n"
					 "2:\n" __futex_extable(ret)
					 : [ret] "+r"(ret), [v] "+r"(v), [mem] "+m"(*uaddr)
					 : [efault] "i"(-EFAULT)
					 : "memory");
		else
			__asm__ volatile("1:	lock xaddl %[v], %[mem]\n"
					 "2:\n" __futex_extable(ret)
					 : [ret] "+r"(ret), [v] "+r"(v), [mem] "+m"(*uaddr)
					 : [efault] "i"(-EFAULT)
					 : "memory");
		clac();
		if (!ret)
			*oval = (int)v;
		return ret;
	case FUTEX_OP_OR:
	case FUTEX_OP_ANDN:
	case FUTEX_OP_XOR:
		break;
	default:
		return -ENOSYS;
	}
	u32 old, cur, new;
	ret = futex_load_inatomic(&old, uaddr);
	while (!ret) {
		new = op == FUTEX_OP_OR ? old | oparg : op == FUTEX_OP_ANDN ? old & ~oparg : old ^ oparg;
		ret = futex_atomic_cmpxchg_inatomic(&cur, uaddr, old, new);
		if (!ret && cur == old) {
			*oval = (int)old;
			return 0;
		}
		old = cur;
	}
	return ret;
}

/* Faults *uaddr in for writing without changing it (a locked "or" of 0):
 * run with interrupts on, so the page-fault handler may allocate or break
 * copy-on-write. 0, or -EFAULT if the address may not be written. The
 * equivalent of Linux's fixup_user_fault(FAULT_FLAG_WRITE). */
static inline int futex_touch_user_writeable(u32 *uaddr)
{
	if (!access_ok(uaddr, sizeof(u32)))
		return -EFAULT;
	int ret = 0;
	stac();
	__asm__ volatile("1:	lock orl $0, %[mem]\n"
			 "2:\n" __futex_extable(ret)
			 : [ret] "+r"(ret), [mem] "+m"(*uaddr)
			 : [efault] "i"(-EFAULT)
			 : "memory");
	clac();
	return ret;
}

#endif
