/* Signal delivery, held beside Linux's: the SIGSEGV of a write to a
 * read-only page, a read of a PROT_NONE page and of an unmapped address
 * (si_code, si_addr, and the sigcontext's trapno, err and cr2); siglongjmp
 * out of the handler; a handler that returns without fixing the cause
 * faults again; the alternate stack (SA_ONSTACK); SA_RESETHAND; SA_NODEFER;
 * the mask while the handler runs (sa_mask and the signal itself) and
 * after; kill, raise, tgkill and rt_sigqueueinfo to the process itself,
 * with a handler and with SIG_IGN; a signal pending while blocked and
 * delivered as it is unblocked; real-time signals queued and standard
 * ones not; the frame's FPU image (Linux's FP_XSTATE_MAGIC1/2 and sizes)
 * and the SSE/AVX registers and MXCSR kept across a handler that clobbers
 * them; interrupted calls (nanosleep's -EINTR and time left, a futex wait
 * restarted under SA_RESTART). What kills (a default action, a forged
 * rt_sigreturn frame, a blocked SIGSEGV) is in the crash programs
 * (tests/user/crash/sig*.c). */

#include <errno.h>
#ifndef FUTEX_WAIT_PRIVATE
#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129
#endif
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "check.h"

static sigjmp_buf jump;
static volatile int got_sig, got_code, faults;
static void *volatile got_addr;
static volatile long got_trapno, got_err, got_cr2;

static void segv_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	got_sig = sig;
	got_code = si->si_code;
	got_addr = si->si_addr;
	got_trapno = uc->uc_mcontext.gregs[REG_TRAPNO];
	got_err = uc->uc_mcontext.gregs[REG_ERR];
	got_cr2 = uc->uc_mcontext.gregs[REG_CR2];
	siglongjmp(jump, 1);
}

static void install(int sig, void (*fn)(int, siginfo_t *, void *), int flags, const sigset_t *mask)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | flags;
	if (mask)
		sa.sa_mask = *mask;
	else
		sigemptyset(&sa.sa_mask);
	CHECK(sigaction(sig, &sa, NULL) == 0);
}

/* One access that must fault: what the handler saw. */
static void expect_fault(const char *what, volatile char *p, bool write, int code, long err)
{
	got_sig = 0;
	if (sigsetjmp(jump, 1) == 0) {
		if (write)
			*p = 1;
		else
			(void)*p;
		CHECKF(0, "%s: no fault", what);
		return;
	}
	CHECKF(got_sig == SIGSEGV && got_code == code && got_addr == (void *)p,
	       "%s: signal %d si_code %d si_addr %p (want SIGSEGV, %d, %p)", what, got_sig, got_code, got_addr,
	       code, (void *)p);
	CHECKF(got_trapno == 14 && got_err == err && got_cr2 == (long)p,
	       "%s: trapno %ld err %#lx cr2 %#lx (want 14, %#lx, %p)", what, got_trapno, got_err, got_cr2, err,
	       (void *)p);
	/* siglongjmp put back the mask sigsetjmp saved: SIGSEGV unblocked. */
	sigset_t cur;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	CHECKF(!sigismember(&cur, SIGSEGV), "%s: SIGSEGV unblocked after siglongjmp", what);
}

static void faults_give_sigsegv(void)
{
	install(SIGSEGV, segv_handler, 0, NULL);
	char *ro = mmap(NULL, 3 * PAGE_4K, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ro != MAP_FAILED);
	char *none = ro + PAGE_4K;
	CHECK(mprotect(none, PAGE_4K, PROT_NONE) == 0);
	char *gone = ro + 2 * PAGE_4K;
	CHECK(munmap(gone, PAGE_4K) == 0);
	/* x86's error code: 1 protection (a present page), 2 write, 4 user. */
	expect_fault("write to a read-only page", ro + 123, true, SEGV_ACCERR, 6); /* never read: not present */
	expect_fault("read of a PROT_NONE page", none + 5, false, SEGV_ACCERR, 4);
	expect_fault("write to an unmapped page", gone + 8, true, SEGV_MAPERR, 6);
	munmap(ro, 2 * PAGE_4K);
	signal(SIGSEGV, SIG_DFL);
}

/* A handler that returns without fixing the cause: the instruction runs
 * again and faults again; the second time the handler makes the page
 * writable, and the write then goes through. */
static char *retry_page;
static void retry_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	if (++faults == 2)
		mprotect(retry_page, PAGE_4K, PROT_READ | PROT_WRITE);
	got_addr = si->si_addr;
}

static void handler_return_refaults(void)
{
	retry_page = mmap(NULL, PAGE_4K, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(retry_page != MAP_FAILED);
	install(SIGSEGV, retry_handler, 0, NULL);
	faults = 0;
	*(volatile char *)(retry_page + 9) = 42;
	CHECK_CMP(faults, ==, 2);
	CHECK(got_addr == retry_page + 9);
	CHECK_CMP(retry_page[9], ==, 42);
	signal(SIGSEGV, SIG_DFL);
	munmap(retry_page, PAGE_4K);
}

static volatile int usr1_count, usr2_count;
static sigset_t mask_in_handler;
static volatile uintptr_t handler_local;

static void mask_handler(int sig, siginfo_t *si, void *uc)
{
	(void)si, (void)uc;
	volatile int here = 0;
	handler_local = (uintptr_t)&here;
	sigprocmask(SIG_BLOCK, NULL, &mask_in_handler);
	if (sig == SIGUSR1)
		usr1_count++;
	else
		usr2_count++;
}

static void masks_and_flags(void)
{
	sigset_t extra, cur;
	sigemptyset(&extra);
	sigaddset(&extra, SIGUSR2);
	install(SIGUSR1, mask_handler, 0, &extra);
	usr1_count = 0;
	CHECK(raise(SIGUSR1) == 0);
	CHECK_CMP(usr1_count, ==, 1); /* delivered before raise returned */
	CHECK(sigismember(&mask_in_handler, SIGUSR1) && sigismember(&mask_in_handler, SIGUSR2));
	sigprocmask(SIG_BLOCK, NULL, &cur);
	CHECK(!sigismember(&cur, SIGUSR1) && !sigismember(&cur, SIGUSR2));

	install(SIGUSR1, mask_handler, SA_NODEFER, NULL);
	CHECK(kill(getpid(), SIGUSR1) == 0);
	CHECK_CMP(usr1_count, ==, 2);
	CHECK(!sigismember(&mask_in_handler, SIGUSR1));

	install(SIGUSR1, mask_handler, SA_RESETHAND, NULL);
	CHECK(syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1) == 0);
	CHECK_CMP(usr1_count, ==, 3);
	struct sigaction now;
	CHECK(sigaction(SIGUSR1, NULL, &now) == 0);
	CHECK(now.sa_handler == SIG_DFL);

	/* SIG_IGN: nothing happens, nothing stays pending. */
	signal(SIGUSR2, SIG_IGN);
	CHECK(raise(SIGUSR2) == 0);
	sigset_t pend;
	CHECK(sigpending(&pend) == 0);
	CHECK(!sigismember(&pend, SIGUSR2));
	/* Default-ignored signals are dropped too. */
	CHECK(raise(SIGWINCH) == 0 && raise(SIGCHLD) == 0 && raise(SIGURG) == 0);

	/* kill's other forms. */
	CHECK(kill(getpid(), 0) == 0);
	CHECK_ERRNO(kill(getpid(), 65), EINVAL);
	CHECK_ERRNO(kill(0x7ffffff0, 0), ESRCH);
	CHECK_ERRNO(syscall(SYS_tgkill, getpid(), 0, SIGUSR1), EINVAL);
	CHECK_ERRNO(syscall(SYS_tgkill, getpid(), 0x7ffffff0, SIGUSR1), ESRCH);
	CHECK_ERRNO(syscall(SYS_tkill, -1, SIGUSR1), EINVAL);
	CHECK_ERRNO(syscall(SYS_rt_sigpending, &pend, 16), EINVAL);
}

static void pending_while_blocked(void)
{
	install(SIGUSR1, mask_handler, 0, NULL);
	usr1_count = 0;
	sigset_t set, pend, old;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	CHECK(sigprocmask(SIG_BLOCK, &set, &old) == 0);
	CHECK(kill(getpid(), SIGUSR1) == 0);
	CHECK(kill(getpid(), SIGUSR1) == 0); /* a standard signal is pending once */
	CHECK_CMP(usr1_count, ==, 0);
	CHECK(sigpending(&pend) == 0);
	CHECK(sigismember(&pend, SIGUSR1));
	CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
	CHECK_CMP(usr1_count, ==, 1); /* delivered on the way out of sigprocmask */
	CHECK(sigpending(&pend) == 0);
	CHECK(!sigismember(&pend, SIGUSR1));
}

static volatile int rt_count;
static volatile int rt_values[4];
static void rt_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	if (rt_count < 4)
		rt_values[rt_count] = si->si_value.sival_int;
	rt_count++;
	got_code = si->si_code;
	got_sig = si->si_pid;
}

static void realtime_queue(void)
{
	int sig = SIGRTMIN + 2;
	install(sig, rt_handler, 0, NULL);
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_BLOCK, &set, &old);
	rt_count = 0;
	for (int i = 0; i < 3; i++)
		CHECK(sigqueue(getpid(), sig, (union sigval){ .sival_int = 10 + i }) == 0);
	CHECK_CMP(rt_count, ==, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	CHECK_CMP(rt_count, ==, 3);
	CHECK(rt_values[0] == 10 && rt_values[1] == 11 && rt_values[2] == 12);
	CHECK_CMP(got_code, ==, SI_QUEUE);
	CHECK_CMP(got_sig, ==, getpid());
	signal(sig, SIG_DFL);
}

static void alternate_stack(void)
{
	static char altstack[64 * 1024] __attribute__((aligned(16)));
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack), .ss_flags = 0 }, old;
	CHECK(sigaltstack(&ss, &old) == 0);
	install(SIGUSR1, mask_handler, SA_ONSTACK, NULL);
	handler_local = 0;
	CHECK(raise(SIGUSR1) == 0);
	CHECKF(handler_local > (uintptr_t)altstack && handler_local < (uintptr_t)altstack + sizeof(altstack),
	       "handler's local %#lx on the alternate stack %p + %#zx", (unsigned long)handler_local,
	       (void *)altstack, sizeof(altstack));
	/* Without SA_ONSTACK it runs on the ordinary stack. */
	install(SIGUSR1, mask_handler, 0, NULL);
	CHECK(raise(SIGUSR1) == 0);
	CHECK(!(handler_local > (uintptr_t)altstack && handler_local < (uintptr_t)altstack + sizeof(altstack)));
	ss.ss_flags = SS_DISABLE;
	CHECK(sigaltstack(&ss, NULL) == 0);
}

/* The frame's FPU image, Linux's layout: fpregs 64-byte aligned; with
 * XSAVE (uc_flags' UC_FP_XSTATE) the software bytes at offset 464 (magic1,
 * extended_size, xfeatures, xstate_size) and MAGIC2 right after the
 * image. Then the registers: a pattern in xmm0-15 (and the ymm upper
 * halves with AVX) and a non-default MXCSR survive a handler that finds a
 * fresh MXCSR and clobbers them all. */
static volatile unsigned handler_mxcsr;
static volatile bool fp_layout_ok, fp_xstate;
static volatile unsigned fp_xstate_size, fp_ext_size;

static void fpu_handler(int sig, siginfo_t *si, void *ucv)
{
	(void)sig, (void)si;
	ucontext_t *uc = ucv;
	const unsigned char *fp = (const unsigned char *)uc->uc_mcontext.fpregs;
	unsigned mx;
	__asm__ volatile("stmxcsr %0" : "=m"(mx));
	handler_mxcsr = mx;
	fp_layout_ok = fp && !((uintptr_t)fp & 63);
	fp_xstate = uc->uc_flags & 1;
	if (fp_layout_ok && fp_xstate) {
		uint32_t magic1, ext, size, magic2;
		memcpy(&magic1, fp + 464, 4);
		memcpy(&ext, fp + 468, 4);
		memcpy(&size, fp + 480, 4);
		memcpy(&magic2, fp + size, 4);
		fp_xstate_size = size;
		fp_ext_size = ext;
		fp_layout_ok = magic1 == 0x46505853u && magic2 == 0x46505845u && ext == size + 4;
	}
	/* Clobber every vector register and MXCSR. */
	__asm__ volatile("pcmpeqd %%xmm0, %%xmm0\n movdqa %%xmm0, %%xmm1\n movdqa %%xmm0, %%xmm2\n"
			 "movdqa %%xmm0, %%xmm3\n movdqa %%xmm0, %%xmm4\n movdqa %%xmm0, %%xmm5\n"
			 "movdqa %%xmm0, %%xmm6\n movdqa %%xmm0, %%xmm7\n movdqa %%xmm0, %%xmm8\n"
			 "movdqa %%xmm0, %%xmm9\n movdqa %%xmm0, %%xmm10\n movdqa %%xmm0, %%xmm11\n"
			 "movdqa %%xmm0, %%xmm12\n movdqa %%xmm0, %%xmm13\n movdqa %%xmm0, %%xmm14\n"
			 "movdqa %%xmm0, %%xmm15\n" ::
				 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
				   "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
	if (fp_xstate)
		__asm__ volatile("vpcmpeqd %%ymm0, %%ymm0, %%ymm0\n vmovdqa %%ymm0, %%ymm7\n"
				 "vmovdqa %%ymm0, %%ymm15\n" ::
					 : "xmm0", "xmm7", "xmm15");
	mx = 0x1f80;
	__asm__ volatile("ldmxcsr %0" ::"m"(mx));
}

static bool avx_usable(void)
{
	unsigned a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	if (!(c >> 27 & 1) || !(c >> 28 & 1))
		return false;
	unsigned lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (lo & 6) == 6;
}

static void fpu_kept(void)
{
	install(SIGUSR1, fpu_handler, 0, NULL);
	bool avx = avx_usable();
	unsigned char in[16][32], out[16][32];
	for (int r = 0; r < 16; r++)
		for (int i = 0; i < 32; i++)
			in[r][i] = (unsigned char)(r * 37 + i * 5 + 1);
	memset(out, 0, sizeof(out));
	unsigned mx_in = 0x7f80 /* round toward zero */, mx_out = 0;
	long pid = getpid(), tid = gettid();
	long ret;
	/* Registers loaded, the signal sent and the registers stored in one
	 * asm statement, so no compiler code runs in between. */
#define XMM_ALL(op, base) \
	op " 0(%" base "), %%xmm0\n " op " 32(%" base "), %%xmm1\n " op " 64(%" base "), %%xmm2\n " \
	op " 96(%" base "), %%xmm3\n " op " 128(%" base "), %%xmm4\n " op " 160(%" base "), %%xmm5\n " \
	op " 192(%" base "), %%xmm6\n " op " 224(%" base "), %%xmm7\n " op " 256(%" base "), %%xmm8\n " \
	op " 288(%" base "), %%xmm9\n " op " 320(%" base "), %%xmm10\n " op " 352(%" base "), %%xmm11\n " \
	op " 384(%" base "), %%xmm12\n " op " 416(%" base "), %%xmm13\n " op " 448(%" base "), %%xmm14\n " \
	op " 480(%" base "), %%xmm15\n"
#define XMM_STORE(base) \
	"movdqu %%xmm0, 0(%" base ")\n movdqu %%xmm1, 32(%" base ")\n movdqu %%xmm2, 64(%" base ")\n" \
	"movdqu %%xmm3, 96(%" base ")\n movdqu %%xmm4, 128(%" base ")\n movdqu %%xmm5, 160(%" base ")\n" \
	"movdqu %%xmm6, 192(%" base ")\n movdqu %%xmm7, 224(%" base ")\n movdqu %%xmm8, 256(%" base ")\n" \
	"movdqu %%xmm9, 288(%" base ")\n movdqu %%xmm10, 320(%" base ")\n movdqu %%xmm11, 352(%" base ")\n" \
	"movdqu %%xmm12, 384(%" base ")\n movdqu %%xmm13, 416(%" base ")\n movdqu %%xmm14, 448(%" base ")\n" \
	"movdqu %%xmm15, 480(%" base ")\n"
	if (avx) {
		__asm__ volatile("vmovdqu 0(%[in]), %%ymm0\n vmovdqu 224(%[in]), %%ymm7\n vmovdqu 480(%[in]), %%ymm15\n"
				 "ldmxcsr %[mxi]\n"
				 "syscall\n"
				 "stmxcsr %[mxo]\n"
				 "vmovdqu %%ymm0, 0(%[out])\n vmovdqu %%ymm7, 224(%[out])\n vmovdqu %%ymm15, 480(%[out])\n"
				 : "=a"(ret), [mxo] "=m"(mx_out)
				 : "a"(SYS_tgkill), "D"(pid), "S"(tid), "d"(SIGUSR1), [in] "r"(in), [out] "r"(out),
				   [mxi] "m"(mx_in)
				 : "rcx", "r11", "memory", "xmm0", "xmm7", "xmm15");
		for (int r = 0; r < 16; r += 1)
			if (r == 0 || r == 7 || r == 15)
				CHECKF(!memcmp(in[r], out[r], 32), "ymm%d kept across the handler", r);
	}
	mx_out = 0;
	__asm__ volatile(XMM_ALL("movdqu", "[in]") "ldmxcsr %[mxi]\n"
						   "syscall\n"
						   "stmxcsr %[mxo]\n" XMM_STORE("[out]")
			 : "=a"(ret), [mxo] "=m"(mx_out)
			 : "a"(SYS_tgkill), "D"(pid), "S"(tid), "d"(SIGUSR1), [in] "r"(in), [out] "r"(out), [mxi] "m"(mx_in)
			 : "rcx", "r11", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
			   "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
	unsigned reset = 0x1f80;
	__asm__ volatile("ldmxcsr %0" ::"m"(reset));
	CHECK_CMP(ret, ==, 0);
	for (int r = 0; r < 16; r++)
		CHECKF(!memcmp(in[r], out[r], 16), "xmm%d kept across the handler", r);
	CHECKF(mx_out == mx_in, "MXCSR %#x after the handler (want %#x)", mx_out, mx_in);
	CHECKF(handler_mxcsr == 0x1f80, "the handler starts with MXCSR %#x (want 0x1f80)", handler_mxcsr);
	CHECK(fp_layout_ok);
	note("frame FPU image: %s, xstate_size %u, extended_size %u", fp_xstate ? "XSAVE" : "FXSAVE",
	     fp_xstate_size, fp_ext_size);
}

/* Interrupted calls: another thread signals this one while it sleeps. */
static pthread_t main_thread;
static volatile uint32_t futex_word;
static volatile int sender_phase;

static void *sender(void *arg)
{
	long mode = (long)arg;
	struct timespec t = { 0, 100 * 1000 * 1000 };
	nanosleep(&t, NULL);
	pthread_kill(main_thread, SIGUSR1);
	if (mode == 1) {
		nanosleep(&t, NULL);
		__atomic_store_n(&futex_word, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
	return NULL;
}

static void interrupted_calls(void)
{
	main_thread = pthread_self();
	pthread_t th;

	/* nanosleep: -EINTR after a handler, SA_RESTART or not, with the time
	 * left written. */
	install(SIGUSR1, mask_handler, SA_RESTART, NULL);
	usr1_count = 0;
	CHECK(pthread_create(&th, NULL, sender, (void *)0) == 0);
	struct timespec req = { 20, 0 }, rem = { 0, 0 };
	long r = syscall(SYS_nanosleep, &req, &rem);
	int err = errno;
	pthread_join(th, NULL);
	CHECKF(r == -1 && err == EINTR, "nanosleep: %ld errno %d (want EINTR)", r, err);
	CHECK_CMP(usr1_count, ==, 1);
	CHECKF(rem.tv_sec > 0 && rem.tv_sec < 20, "time left %lld s", (long long)rem.tv_sec);

	/* A futex wait without a timeout: -EINTR without SA_RESTART ... */
	install(SIGUSR1, mask_handler, 0, NULL);
	futex_word = 0;
	CHECK(pthread_create(&th, NULL, sender, (void *)0) == 0);
	r = syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	err = errno;
	pthread_join(th, NULL);
	CHECKF(r == -1 && err == EINTR, "futex wait: %ld errno %d (want EINTR)", r, err);

	/* ... restarted with it: it ends when the word is woken. */
	install(SIGUSR1, mask_handler, SA_RESTART, NULL);
	usr1_count = 0;
	futex_word = 0;
	CHECK(pthread_create(&th, NULL, sender, (void *)1) == 0);
	do {
		r = syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
		err = errno;
	} while (r == 0 && __atomic_load_n(&futex_word, __ATOMIC_SEQ_CST) == 0); /* a spurious wake */
	pthread_join(th, NULL);
	CHECKF(r == 0 || (r == -1 && err == EAGAIN), "futex wait under SA_RESTART: %ld errno %d", r, err);
	CHECK_CMP(usr1_count, ==, 1);
	signal(SIGUSR1, SIG_DFL);
}

int main(void)
{
	test_begin("signals");
	faults_give_sigsegv();
	handler_return_refaults();
	masks_and_flags();
	pending_while_blocked();
	realtime_queue();
	alternate_stack();
	fpu_kept();
	interrupted_calls();
	return test_end();
}
