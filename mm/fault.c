/* The page-fault handler for user addresses (Linux's do_user_addr_fault):
 * find the VMA, check the access against its flags, let handle_mm_fault()
 * resolve it. A fault the process may not take sends it SIGSEGV (from user
 * mode: SEGV_MAPERR with no VMA, SEGV_ACCERR for an access the VMA does not
 * allow, as Linux's bad_area/bad_area_access_error; SIGBUS BUS_ADRERR when
 * the memory behind the VMA cannot be had, do_sigbus), which kills it
 * unless it has a handler, or resumes at the exception-table fixup (a
 * kernel copy to or from user memory, which then returns -EFAULT, never a
 * signal).
 * Locking: mm->mmap_lock for reading from the VMA lookup to the end of
 * handle_mm_fault(), dropped before a process is killed. */
#include "arch/x86_64/traps.h"
#include "kernel/printk.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"

/* Linux's access_error(): a write needs VM_WRITE; a read of a present page
 * that faulted (protection) is an error; any other access needs some
 * access right. */
static const char *access_error(unsigned long error_code, const struct vm_area_struct *vma)
{
	if (error_code & X86_PF_WRITE)
		return vma->vm_flags & VM_WRITE ? NULL : "write to a mapping without PROT_WRITE";
	if (error_code & X86_PF_INSTR && error_code & X86_PF_PROT)
		return "instruction fetch from a mapping without PROT_EXEC";
	if (error_code & X86_PF_PROT)
		return "protection fault";
	if (!(vma->vm_flags & VM_ACCESS_FLAGS))
		return "access to a PROT_NONE mapping";
	return NULL;
}

bool handle_page_fault(struct pt_regs *regs, u64 cr2)
{
	bool user = regs->cs & 3;
	struct mm_struct *mm = current->mm;
	const char *why;
	int code = SEGV_MAPERR;

	if (cr2 >= TASK_SIZE) {
		/* Linux's do_kern_addr_fault -> bad_area_nosemaphore. */
		if (user) {
			user_fault_signal(regs, cr2, "access to a kernel address", SIGSEGV, SEGV_MAPERR, cr2);
			return true;
		}
		return false;
	}
	/* The kernel touches user memory only inside the uaccess functions;
	 * anything else (or a fault with no process) is a kernel bug. */
	if (!user && (!mm || !search_exception_table(regs->rip)))
		return false;
	/* A user copy with interrupts off cannot wait for memory or for
	 * TLB-flush IPIs (Linux's faulthandler_disabled): the copy fails,
	 * silently as in Linux, since callers do this on purpose (the futex
	 * accesses under a bucket lock fault the page in and retry). */
	if (!user && !(regs->rflags & (1ul << 9)))
		return false;
	if (regs->error_code & X86_PF_RSVD) {
		/* Linux's pgtable_bad: the kernel's own page tables are wrong. */
		if (user)
			user_fault_kill(regs, cr2, "reserved bit set in a page-table entry", SIGKILL);
		return false;
	}
	/* Faults may allocate (and so sleep): interrupts back on as they were. */
	if (regs->rflags & (1ul << 9))
		__asm__ volatile("sti" ::: "memory");

	/* Linux's lock_mm_and_find_vma: the VMA found stays what it is (and
	 * the page tables below it stay) while the read lock is held; faults
	 * of other threads run beside this one. A kernel fault here is a user
	 * copy with a fixup (checked above), so waiting is safe: no caller of
	 * copy_*_user holds this mm's mmap_lock (Linux's rule too). */
	if (!mmap_read_trylock(mm))
		mmap_read_lock(mm);
	struct vm_area_struct *vma = find_vma(mm, cr2);
	if (!vma || vma->vm_start > cr2) {
		why = "no mapping at this address";
		goto bad_unlock;
	}
	why = access_error(regs->error_code, vma);
	if (why) {
		code = SEGV_ACCERR;
		goto bad_unlock;
	}
	unsigned int flags = user ? FAULT_FLAG_USER : 0;
	if (regs->error_code & X86_PF_WRITE)
		flags |= FAULT_FLAG_WRITE;
	if (regs->error_code & X86_PF_INSTR)
		flags |= FAULT_FLAG_INSTRUCTION;
	vm_fault_t ret = handle_mm_fault(vma, cr2, flags);
	mmap_read_unlock(mm);
	if (!(ret & VM_FAULT_ERROR))
		return true;
	if (!user)
		return false;
	/* Linux's pagefault_out_of_memory: the OOM killer's SIGKILL. */
	if (ret & VM_FAULT_OOM)
		user_fault_kill(regs, cr2, "out of memory", SIGKILL);
	/* Linux's do_sigbus: a fault the memory could not answer (no hugetlb
	 * page in the pool) is SIGBUS. */
	if (ret & VM_FAULT_SIGBUS)
		user_fault_signal(regs, cr2, "no page there: past the end of a file, or none in the hugetlb pool (SIGBUS)", SIGBUS, BUS_ADRERR, cr2);
	else
		user_fault_signal(regs, cr2, "bad access", SIGSEGV, SEGV_MAPERR, cr2); /* bad_area_nosemaphore */
	return true;
bad_unlock:
	mmap_read_unlock(mm);
	if (user) {
		user_fault_signal(regs, cr2, why, SIGSEGV, code, cr2);
		return true;
	}
	return false; /* the kernel copy's fixup returns -EFAULT */
}
