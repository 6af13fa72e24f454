/* Signal frames, as Linux's x86_64 builds them (arch/x86/kernel/signal.c,
 * signal_64.c, fpu/signal.c), and rt_sigreturn 15.
 *
 * A handler runs on a struct rt_sigframe built below the interrupted
 * stack pointer less the 128-byte red zone, or at the top of the alternate
 * stack (SA_ONSTACK): the FPU/XSAVE image first, 64-byte aligned, then the
 * frame, aligned so that the handler starts as after a call (rsp + 8 a
 * multiple of 16): pretcode (sa_restorer, which calls rt_sigreturn), the
 * ucontext (uc_mcontext: struct sigcontext with the interrupted registers
 * and a pointer to the FPU image; uc_sigmask: the mask to restore) and the
 * siginfo. The handler gets rdi = signal, rsi = &info, rdx = &uc, rax = 0,
 * DF, RF and TF clear and fresh FPU registers.
 *
 * rt_sigreturn takes everything back from the frame at rsp - 8. The frame
 * is the user's to write, so it is checked as Linux's restore_sigcontext
 * and fpu__restore_sig check it, plus what this kernel's way back to user
 * mode needs: CS and SS must be the 64-bit user selectors (Linux would
 * also take the 32-bit ones; mmlab runs no 32-bit code) and RIP canonical
 * (Linux's IRET faults on the others and sends SIGSEGV, the outcome here
 * too). Any frame it cannot use sends SIGSEGV (Linux's signal_fault).
 *
 * An interrupted system call: -ERESTARTSYS, -ERESTARTNOINTR,
 * -ERESTARTNOHAND and -ERESTART_RESTARTBLOCK become -EINTR or a restart
 * (rax = the call's number again, rip back over the 2-byte syscall), by
 * Linux's rules (handle_signal, arch_do_signal_or_restart). */
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/syscall.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "lib/string.h"

/* The user ABI (arch/x86/include/uapi/asm/sigcontext.h, ucontext.h,
 * arch/x86/include/asm/sigframe.h). */
struct sigcontext_64 {
	u64 r8, r9, r10, r11, r12, r13, r14, r15;
	u64 di, si, bp, bx, dx, ax, cx, sp, ip, flags;
	u16 cs, gs, fs, ss;
	u64 err, trapno, oldmask, cr2;
	u64 fpstate; /* zero when no FPU context */
	u64 reserved1[8];
};

struct ucontext_64 {
	unsigned long uc_flags;
	u64 uc_link;
	stack_t uc_stack;
	struct sigcontext_64 uc_mcontext;
	sigset_t uc_sigmask; /* mask last for extensibility */
};

#define SI_MAX_SIZE 128

struct rt_sigframe {
	u64 pretcode;
	struct ucontext_64 uc;
	u8 info[SI_MAX_SIZE]; /* siginfo_t */
};

/* Linux's numbers: the offsets a C library and a debugger rely on. */
_Static_assert(sizeof(stack_t) == 24, "stack_t");
_Static_assert(sizeof(struct sigcontext_64) == 256, "struct sigcontext");
_Static_assert(offsetof(struct sigcontext_64, di) == 64 && offsetof(struct sigcontext_64, ip) == 128 &&
		       offsetof(struct sigcontext_64, flags) == 136 && offsetof(struct sigcontext_64, cs) == 144 &&
		       offsetof(struct sigcontext_64, err) == 152 && offsetof(struct sigcontext_64, cr2) == 176 &&
		       offsetof(struct sigcontext_64, fpstate) == 184,
	       "struct sigcontext");
_Static_assert(offsetof(struct ucontext_64, uc_stack) == 16 && offsetof(struct ucontext_64, uc_mcontext) == 40 &&
		       offsetof(struct ucontext_64, uc_sigmask) == 296 && sizeof(struct ucontext_64) == 304,
	       "struct ucontext");
_Static_assert(offsetof(struct rt_sigframe, uc) == 8 && offsetof(struct rt_sigframe, info) == 312 &&
		       sizeof(struct rt_sigframe) == 440,
	       "struct rt_sigframe");
_Static_assert(sizeof(struct kernel_siginfo) == 48 && offsetof(struct kernel_siginfo, fault.addr) == 16 &&
		       offsetof(struct kernel_siginfo, rt.value) == 24,
	       "struct kernel_siginfo");

/* uc_flags (arch/x86/include/uapi/asm/ucontext.h). */
#define UC_FP_XSTATE 0x1
#define UC_SIGCONTEXT_SS 0x2
#define UC_STRICT_RESTORE_SS 0x4

#define X86_EFLAGS_CF 0x00000001ul
#define X86_EFLAGS_PF 0x00000004ul
#define X86_EFLAGS_AF 0x00000010ul
#define X86_EFLAGS_ZF 0x00000040ul
#define X86_EFLAGS_SF 0x00000080ul
#define X86_EFLAGS_TF 0x00000100ul
#define X86_EFLAGS_DF 0x00000400ul
#define X86_EFLAGS_OF 0x00000800ul
#define X86_EFLAGS_RF 0x00010000ul
#define X86_EFLAGS_AC 0x00040000ul
/* The flags a frame may change (Linux's FIX_EFLAGS). */
#define FIX_EFLAGS (X86_EFLAGS_AC | X86_EFLAGS_OF | X86_EFLAGS_DF | X86_EFLAGS_TF | X86_EFLAGS_SF | \
		    X86_EFLAGS_ZF | X86_EFLAGS_AF | X86_EFLAGS_PF | X86_EFLAGS_CF | X86_EFLAGS_RF)


static bool canonical(u64 a) { return (u64)((s64)(a << 16) >> 16) == a; }

/* Linux's frame_uc_flags for a 64-bit task. */
static unsigned long frame_uc_flags(void)
{
	return (fpu_xfeatures ? UC_FP_XSTATE : 0) | UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
}

/* Linux's get_sigframe for a 64-bit frame: where the frame goes (the FPU
 * image is written here, at *fpstate); (void *)-1 when the alternate
 * stack would overflow or the image cannot be written. */
static unsigned long get_sigframe(const struct ksignal *ksig, const struct pt_regs *regs, unsigned long *fpstate)
{
	struct task_struct *t = current;
	bool nested_altstack = on_sig_stack(regs->rsp), entering_altstack = false;
	unsigned long sp = regs->rsp - 128; /* the red zone */
	if ((ksig->ka.sa.sa_flags & SA_ONSTACK) && sas_ss_flags(sp) == 0) {
		sp = t->sas_ss_sp + t->sas_ss_size;
		entering_altstack = true;
	}
	/* fpu__alloc_mathframe */
	sp = (sp - fpu_sigframe_size()) & ~63ul;
	*fpstate = sp;
	/* align_sigframe: as if the handler had been called. */
	sp = ((sp - sizeof(struct rt_sigframe)) & ~15ul) - 8;
	/* On the alternate stack and about to overflow it: an address that
	 * always faults, so the delivery fails with SIGSEGV. */
	if ((nested_altstack || entering_altstack) &&
	    !(sp > t->sas_ss_sp && sp - t->sas_ss_sp <= t->sas_ss_size))
		return (unsigned long)-1;
	if (!copy_fpstate_to_sigframe((void *)*fpstate))
		return (unsigned long)-1;
	return sp;
}

/* Linux's copy_siginfo_to_user: the kernel's 48 bytes, then zeros. */
static void siginfo_to_frame(u8 *dst, const struct kernel_siginfo *info)
{
	memset(dst, 0, SI_MAX_SIZE);
	memcpy(dst, info, sizeof(*info));
}

/* Linux's x64_setup_rt_frame: 0, or -EFAULT when no frame can be made. */
static int setup_rt_frame(struct ksignal *ksig, struct pt_regs *regs)
{
	struct task_struct *t = current;
	/* Linux's sigmask_to_save: rt_sigsuspend's mask is the one its
	 * caller had. */
	sigset_t set = { { t->restore_sigmask ? t->saved_sigmask : t->blocked } };
	unsigned long fp;
	/* x86-64 should always use SA_RESTORER (Linux's words). */
	if (!(ksig->ka.sa.sa_flags & SA_RESTORER))
		return -EFAULT;
	unsigned long frame_addr = get_sigframe(ksig, regs, &fp);
	struct rt_sigframe __user *frame = (void *)frame_addr;
	if (!access_ok(frame, sizeof(*frame)))
		return -EFAULT;

	struct rt_sigframe f;
	memset(&f, 0, offsetof(struct rt_sigframe, info));
	f.pretcode = ksig->ka.sa.sa_restorer;
	f.uc.uc_flags = frame_uc_flags();
	f.uc.uc_link = 0;
	/* unsafe_save_altstack: the stack as set, flags as stored. */
	f.uc.uc_stack.ss_sp = t->sas_ss_sp;
	f.uc.uc_stack.ss_flags = (int)t->sas_ss_flags;
	f.uc.uc_stack.ss_size = t->sas_ss_size;
	struct sigcontext_64 *sc = &f.uc.uc_mcontext;
	sc->di = regs->rdi, sc->si = regs->rsi, sc->bp = regs->rbp, sc->sp = regs->rsp;
	sc->bx = regs->rbx, sc->dx = regs->rdx, sc->cx = regs->rcx, sc->ax = regs->rax;
	sc->r8 = regs->r8, sc->r9 = regs->r9, sc->r10 = regs->r10, sc->r11 = regs->r11;
	sc->r12 = regs->r12, sc->r13 = regs->r13, sc->r14 = regs->r14, sc->r15 = regs->r15;
	sc->trapno = t->thread.trap_nr;
	sc->err = t->thread.error_code;
	sc->ip = regs->rip;
	sc->flags = regs->rflags;
	sc->cs = (u16)regs->cs;
	sc->gs = sc->fs = 0;
	sc->ss = (u16)regs->ss;
	sc->fpstate = fp;
	sc->oldmask = set.sig[0];
	sc->cr2 = t->thread.cr2;
	f.uc.uc_sigmask = set;
	if (copy_to_user(frame, &f, offsetof(struct rt_sigframe, info)))
		return -EFAULT;
	if (ksig->ka.sa.sa_flags & SA_SIGINFO) {
		siginfo_to_frame(f.info, &ksig->info);
		if (copy_to_user(frame->info, f.info, sizeof(f.info)))
			return -EFAULT;
	}
	/* SS_AUTODISARM: off the alternate stack until sigreturn puts it
	 * back from uc_stack (Linux's sas_ss_reset). */
	if (t->sas_ss_flags & SS_AUTODISARM) {
		t->sas_ss_sp = t->sas_ss_size = 0;
		t->sas_ss_flags = SS_DISABLE;
	}

	regs->rdi = (u64)ksig->sig;
	regs->rax = 0; /* in case the handler was declared without a prototype */
	regs->rsi = (u64)(unsigned long)&frame->info;
	regs->rdx = (u64)(unsigned long)&frame->uc;
	regs->rip = ksig->ka.sa.sa_handler;
	regs->rsp = frame_addr;
	regs->cs = __USER_CS;
	regs->ss = __USER_DS;
	return 0;
}

/* Whether regs is a system call's frame still to return (Linux's
 * syscall_get_nr != -1: rt_sigreturn sets the number to -1). */
static bool in_syscall(const struct pt_regs *regs)
{
	return regs->vector == SYSCALL_VECTOR_MARK && (long)regs->error_code != -1;
}

static void handle_signal(struct ksignal *ksig, struct pt_regs *regs)
{
	if (in_syscall(regs)) {
		switch ((long)regs->rax) {
		case -ERESTART_RESTARTBLOCK:
		case -ERESTARTNOHAND:
			regs->rax = (u64)-EINTR;
			break;
		case -ERESTARTSYS:
			if (!(ksig->ka.sa.sa_flags & SA_RESTART)) {
				regs->rax = (u64)-EINTR;
				break;
			}
			/* fall through */
		case -ERESTARTNOINTR:
			regs->rax = regs->error_code;
			regs->rip -= 2;
			break;
		}
	}
	bool failed = setup_rt_frame(ksig, regs) < 0;
	if (!failed) {
		/* The ABI's function entry: DF clear; RF and TF clear so the
		 * handler is not single-stepped by the interrupted code's TF. */
		regs->rflags &= ~(X86_EFLAGS_DF | X86_EFLAGS_RF | X86_EFLAGS_TF);
		fpu__clear_user_states();
	}
	signal_setup_done(failed, ksig);
}

void arch_do_signal_or_restart(void)
{
	struct pt_regs *regs = task_pt_regs(current);
	struct ksignal ksig;
	bool handled = get_signal(&ksig);
	if (handled) {
		handle_signal(&ksig, regs);
	} else if (in_syscall(regs)) {
		/* No handler ran: restart (Linux's "Restart the system call -
		 * no handlers present"). */
		switch ((long)regs->rax) {
		case -ERESTARTNOHAND:
		case -ERESTARTSYS:
		case -ERESTARTNOINTR:
			regs->rax = regs->error_code;
			regs->rip -= 2;
			break;
		case -ERESTART_RESTARTBLOCK:
			regs->rax = __NR_restart_syscall;
			regs->rip -= 2;
			break;
		}
	}
	/* No handler ran: rt_sigsuspend's caller gets its mask back. */
	if (!handled)
		restore_saved_sigmask();
	/* A handler at a non-canonical address: Linux's IRET would fault
	 * there (kernel mode) and send SIGSEGV as for a user #GP; this
	 * kernel's way out must never try. */
	if (!canonical(regs->rip)) {
		regs->rip = 0; /* what the SIGSEGV frame shows, and where it leads */
		force_sig(SIGSEGV, "return to a non-canonical address");
	}
}

bool syscall_needs_restart_work(const struct pt_regs *regs)
{
	long rax = (long)regs->rax;
	return in_syscall(regs) && rax >= -ERESTART_RESTARTBLOCK && rax <= -ERESTARTSYS;
}

/* Linux's restore_sigcontext (with the checks named at the top). */
static bool restore_sigcontext(struct pt_regs *regs, const struct sigcontext_64 __user *usc, unsigned long uc_flags)
{
	struct sigcontext_64 sc;
	restart_block_reset(current); /* a pending restart_syscall returns -EINTR */
	if (copy_from_user(&sc, usc, offsetof(struct sigcontext_64, reserved1)))
		return false;
	u64 cs = sc.cs | 3, ss = sc.ss | 3;
	if (!(uc_flags & UC_STRICT_RESTORE_SS))
		ss = __USER_DS; /* force_valid_ss: the only valid 64-bit one here */
	if (cs != __USER_CS || ss != __USER_DS || !canonical(sc.ip))
		return false;
	regs->rbx = sc.bx, regs->rcx = sc.cx, regs->rdx = sc.dx, regs->rsi = sc.si, regs->rdi = sc.di;
	regs->rbp = sc.bp, regs->rax = sc.ax, regs->rsp = sc.sp, regs->rip = sc.ip;
	regs->r8 = sc.r8, regs->r9 = sc.r9, regs->r10 = sc.r10, regs->r11 = sc.r11;
	regs->r12 = sc.r12, regs->r13 = sc.r13, regs->r14 = sc.r14, regs->r15 = sc.r15;
	regs->cs = cs;
	regs->ss = ss;
	regs->rflags = (regs->rflags & ~FIX_EFLAGS) | (sc.flags & FIX_EFLAGS);
	regs->error_code = (u64)-1; /* no system call to restart */
	return fpu__restore_sig((void *)(unsigned long)sc.fpstate);
}

/* Linux's restore_altstack: only a fault reading it fails the frame. */
static bool restore_altstack(const stack_t __user *uss)
{
	stack_t new;
	if (copy_from_user(&new, uss, sizeof(new)))
		return false;
	(void)do_sigaltstack(&new, NULL, task_pt_regs(current)->rsp);
	return true;
}

SYSCALL_DEFINE0(rt_sigreturn)
{
	struct pt_regs *regs = task_pt_regs(current);
	struct rt_sigframe __user *frame = (void *)(unsigned long)(regs->rsp - sizeof(long));
	sigset_t set;
	unsigned long uc_flags;
	if (!current->sighand)
		return -ENOSYS; /* a kernel thread (a test): no frame to return from */
	if (copy_from_user(&set, &frame->uc.uc_sigmask, sizeof(set)) ||
	    copy_from_user(&uc_flags, &frame->uc.uc_flags, sizeof(uc_flags)))
		goto badframe;
	set_current_blocked(&set);
	if (!restore_sigcontext(regs, &frame->uc.uc_mcontext, uc_flags))
		goto badframe;
	if (!restore_altstack(&frame->uc.uc_stack))
		goto badframe;
	return (long)regs->rax;
badframe:
	/* Linux's signal_fault: SIGSEGV, for a handler if there is one (the
	 * registers as far as they were restored). */
	regs->error_code = (u64)-1;
	force_sig(SIGSEGV, "bad frame in rt_sigreturn");
	return 0;
}
