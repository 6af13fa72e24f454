/* A system-call fuzzer (hostile user space): a fixed seed,
 * 100,000 calls by default (--calls N and --seed S, or fuzz.calls=N and
 * fuzz.seed=S on mmlab's command line, read from /proc/cmdline: make fuzz),
 * each a system call from an allow-list with arguments drawn from pools
 * that hostile programs use: kernel addresses (text, direct map, vsyscall
 * page, the top of the address space), non-canonical and huge values,
 * NULL, lengths of 0, 1, a page and 2^47 and more, bad descriptors, plus
 * numbers no system call has. The kernel must refuse what it must (the
 * calls' return values are not compared: the same program runs on Linux),
 * survive, and give every page back (the user suite checks free pages after
 * each program).
 *
 * What the fuzzer never does, so that it cannot kill the runner's channel
 * or itself by design rather than by a kernel bug: no call on descriptors
 * 0-2 (the console is the runner's channel; a read of it could block), no
 * exit/kill/signal/clone/exec, no call that blocks without a timeout
 * (nanosleep, futex wait, select/poll without a zero timeout, pause), no
 * pointer into its own memory other than a sandbox region it owns (a write
 * through a pointer there can only clobber the sandbox), no MAP_FIXED,
 * munmap, mprotect, madvise or mremap outside the sandbox (but for the
 * hostile ranges of range_calls(), which every call must refuse or find
 * nothing in), no change of
 * FS/GS base, credentials, limits or scheduling class. exit_group ends it.
 * A canary outside the sandbox is checked at the end.
 *
 * Page migration needs a process with pages to move: on a machine with
 * several nodes the mix also grows and drops a ballast of written pages
 * outside the sandbox (never a pointer argument: migration only reads
 * and copies it), up to a little more than the smallest node holds, and
 * some migrate_pages calls name real nodes of the machine, so that they
 * move it between nodes, into nodes too small for it among them. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "migrate_workload.h"

#define SANDBOX_PAGES 256
#define SANDBOX_SIZE (SANDBOX_PAGES * PAGE_4K)

static uint64_t rng;
static uint64_t next_rand(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}
static uint64_t pick(uint64_t n) { return next_rand() % n; }

static unsigned char *sandbox;

/* mremap old lengths that take any sandbox address past TASK_SIZE (2^47,
 * or 2^56 with 5-level paging) or wrap. */
static const uint64_t huge_old_lens[] = {
	0x6e77e1ff8bbd37abull, /* the call a fuzzer run found (see directed_calls) */
	1ull << 57, 1ull << 63, 0xfffffffffffff000ull, 0xffffffffffffffffull,
};
static int fds[8];
static int nfds;

/* The ballast that migrate_pages moves (see the top): chunks of 1 to 8
 * MiB, each page written with its tag, ballast_pages in all and at most
 * ballast_max; only on a machine with two nodes with memory or more. Each
 * chunk lives in a slot of 8 MiB of an address range reserved at the
 * start (PROT_NONE, put back when a chunk goes): a mapping made anywhere
 * could land in a hole the mix made in the sandbox, where the mix's
 * munmap and mremap would take it away. */
#define BALLAST_CHUNKS 64
#define BALLAST_SLOT (8 * MiB)
static char *ballast_area;
static unsigned long chunk_pages[BALLAST_CHUNKS]; /* 0: the slot is free */
static unsigned long memory_nodes, ballast_max, ballast_pages, ballast_lost;

/* Argument classes. */
enum arg {
	A_NONE,  /* 0 */
	A_ADDR,  /* a pointer: sandbox, kernel, non-canonical, NULL, huge */
	A_KADDR, /* a pointer the kernel must refuse: never into user memory */
	A_LEN,   /* a length */
	A_FD,    /* a descriptor (never 0-2) */
	A_INT,   /* any integer, flags */
	A_PID,   /* 0, ourselves, or no such process */
	A_PROT,  /* mmap/mprotect protection bits */
	A_MMAPF, /* mmap flags */
	A_ADV,   /* madvise advice (no MADV_HWPOISON/SOFT_OFFLINE) */
	A_SMALL, /* 0..64 */
};

static const uint64_t kernel_addrs[] = {
	0xffffffff80000000ull, /* mmlab's kernel text (-mcmodel=kernel) */
	0xffffffff81000000ull, /* Linux's default kernel text */
	0xffff888000000000ull, /* Linux's direct map */
	0xffff800000000000ull, /* the first kernel-half address */
	0xffffffffff600000ull, /* the vsyscall page */
	0xfffffffffffff000ull, /* the last page */
	0xffffc90000000000ull, /* vmalloc */
	0x0000800000000000ull, /* just past user space (non-canonical with 4-level
				* paging; a user address with 5-level) */
	0x8000000000000000ull, /* non-canonical */
};

static uint64_t gen_kaddr(void)
{
	uint64_t a = kernel_addrs[pick(sizeof(kernel_addrs) / sizeof(kernel_addrs[0]))];
	if (pick(4) == 0)
		a += pick(~a < (1 << 20) ? ~a + 1 : 1 << 20); /* never wrapping to 0 and up */
	return a;
}

static uint64_t gen_addr(void)
{
	switch (pick(8)) {
	case 0:
	case 1:
	case 2:
		return (uint64_t)(sandbox + pick(SANDBOX_SIZE)); /* anywhere in it */
	case 3:
		return (uint64_t)(sandbox + pick(SANDBOX_PAGES) * PAGE_4K); /* a page start */
	case 4:
		return 0;
	case 5:
		/* straddling its end (a guard page follows), or the top user page */
		return pick(4) ? (uint64_t)(sandbox + SANDBOX_SIZE - pick(64)) : 0x00007ffffffff000ull;
	default:
		return gen_kaddr();
	}
}

static uint64_t gen_len(void)
{
	static const uint64_t huge[] = {
		1ull << 47, 1ull << 40, 0x7fffffffffffffffull, ~0ull, ~0ull - 4095, 0x80000000ull,
		0xffffffffull, 1ull << 32,
	};
	switch (pick(6)) {
	case 0:
		return 0;
	case 1:
		return pick(64) + 1;
	case 2:
		return (pick(16) + 1) * PAGE_4K;
	case 3:
		return pick(SANDBOX_SIZE) + 1;
	default:
		return huge[pick(sizeof(huge) / sizeof(huge[0]))];
	}
}

static uint64_t gen_int(void)
{
	switch (pick(5)) {
	case 0:
		return 0;
	case 1:
		return pick(16);
	case 2:
		return (uint64_t)-1;
	case 3:
		return 1ull << pick(64);
	default:
		return next_rand();
	}
}

static uint64_t gen(enum arg a)
{
	switch (a) {
	case A_NONE:
		return 0;
	case A_ADDR:
		return gen_addr();
	case A_KADDR:
		return pick(8) ? gen_kaddr() : pick(2) ? 0 : gen_len() | 0x8000000000000000ull;
	case A_LEN:
		return gen_len();
	case A_FD: {
		static const int64_t bad[] = { -1, 1000, 0x7fffffff, -100 /* AT_FDCWD */, 4096 };
		if (nfds && pick(3))
			return (uint64_t)fds[pick((uint64_t)nfds)];
		return (uint64_t)bad[pick(sizeof(bad) / sizeof(bad[0]))];
	}
	case A_INT:
		return gen_int();
	case A_PID: {
		const uint64_t pids[] = { 0, (uint64_t)getpid(), (uint64_t)-1, 999999, 0x7fffffff,
					  (uint64_t)-2 };
		return pids[pick(sizeof(pids) / sizeof(pids[0]))];
	}
	case A_PROT:
		return pick(8) ? pick(8) : gen_int();
	case A_MMAPF: {
		static const uint64_t bits[] = { MAP_FIXED, MAP_POPULATE, MAP_NORESERVE,
						 MAP_GROWSDOWN, MAP_LOCKED, MAP_STACK,
						 MAP_FIXED_NOREPLACE, MAP_HUGETLB, 0x80000000 };
		uint64_t f = pick(8) ? MAP_PRIVATE | MAP_ANONYMOUS : pick(16);
		for (int i = (int)pick(3); i > 0; i--)
			f |= bits[pick(sizeof(bits) / sizeof(bits[0]))];
		return f;
	}
	case A_ADV: {
		static const int64_t adv[] = { 0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 13, 14, 15,
					       16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1, 1000 };
		return (uint64_t)adv[pick(sizeof(adv) / sizeof(adv[0]))];
	}
	case A_SMALL:
		return pick(65);
	}
	return 0;
}

/* A pointer argument of a call that acts on memory ranges: only the
 * sandbox (any offset, any length) or what the kernel must refuse. */
static uint64_t gen_range_addr(void)
{
	switch (pick(4)) {
	case 0:
		return gen_kaddr();
	case 1:
		return (uint64_t)(sandbox + pick(SANDBOX_SIZE));
	default:
		return (uint64_t)(sandbox + pick(SANDBOX_PAGES) * PAGE_4K);
	}
}

/* A length for a range call: the sandbox's, or huge (refused, or stopped
 * by the kernel at the end of user space). */
static uint64_t gen_range_len(uint64_t addr)
{
	uint64_t s = (uint64_t)sandbox;
	if (addr >= s && addr < s + SANDBOX_SIZE)
		return pick(4) ? pick(s + SANDBOX_SIZE - addr) + 1 : pick(2) ? 0 : ~0ull - pick(4096);
	/* A kernel address: any length. */
	return gen_len();
}

struct call {
	long nr;
	const char *name;
	enum arg args[6];
};

/* x86_64 numbers (the same on both kernels). */
static const struct call calls[] = {
	{ 0, "read", { A_FD, A_ADDR, A_LEN } },
	{ 1, "write", { A_FD, A_ADDR, A_LEN } },
	{ 3, "close", { A_FD } },
	{ 4, "stat", { A_KADDR, A_ADDR } },
	{ 5, "fstat", { A_FD, A_ADDR } },
	{ 6, "lstat", { A_KADDR, A_ADDR } },
	{ 8, "lseek", { A_FD, A_INT, A_SMALL } },
	{ 9, "mmap", { A_ADDR, A_LEN, A_PROT, A_MMAPF, A_FD, A_INT } },
	{ 10, "mprotect", { A_ADDR, A_LEN, A_PROT } },
	{ 11, "munmap", { A_ADDR, A_LEN } },
	{ 12, "brk", { A_KADDR } },
	{ 16, "ioctl", { A_FD, A_INT, A_ADDR } },
	{ 17, "pread64", { A_FD, A_ADDR, A_LEN, A_INT } },
	{ 18, "pwrite64", { A_FD, A_ADDR, A_LEN, A_INT } },
	{ 19, "readv", { A_FD, A_ADDR, A_SMALL } },
	{ 20, "writev", { A_FD, A_ADDR, A_SMALL } },
	{ 21, "access", { A_KADDR, A_INT } },
	{ 22, "pipe", { A_KADDR } },
	{ 24, "sched_yield", { A_NONE } },
	{ 25, "mremap", { A_ADDR, A_LEN, A_LEN, A_INT, A_ADDR } },
	{ 26, "msync", { A_ADDR, A_LEN, A_INT } },
	{ 27, "mincore", { A_ADDR, A_LEN, A_ADDR } },
	{ 28, "madvise", { A_ADDR, A_LEN, A_ADV } },
	{ 32, "dup", { A_FD } },
	{ 36, "getitimer", { A_INT, A_ADDR } },
	{ 39, "getpid", { A_NONE } },
	{ 61, "wait4", { A_PID, A_ADDR, A_INT, A_ADDR } },
	{ 63, "uname", { A_ADDR } },
	{ 72, "fcntl", { A_FD, A_SMALL, A_INT } },
	{ 74, "fsync", { A_FD } },
	{ 79, "getcwd", { A_ADDR, A_LEN } },
	{ 89, "readlink", { A_KADDR, A_ADDR, A_LEN } },
	{ 96, "gettimeofday", { A_ADDR, A_ADDR } },
	{ 97, "getrlimit", { A_SMALL, A_ADDR } },
	{ 98, "getrusage", { A_INT, A_ADDR } },
	{ 99, "sysinfo", { A_ADDR } },
	{ 100, "times", { A_ADDR } },
	{ 102, "getuid", { A_NONE } },
	{ 110, "getppid", { A_NONE } },
	{ 131, "sigaltstack", { A_ADDR, A_ADDR } },
	{ 149, "mlock", { A_ADDR, A_LEN } },
	{ 150, "munlock", { A_ADDR, A_LEN } },
	{ 158, "arch_prctl", { A_INT, A_KADDR } },
	{ 186, "gettid", { A_NONE } },
	{ 201, "time", { A_ADDR } },
	{ 202, "futex", { A_ADDR, A_INT, A_INT, A_KADDR, A_ADDR, A_INT } },
	{ 203, "sched_setaffinity", { A_PID, A_LEN, A_ADDR } },
	{ 204, "sched_getaffinity", { A_PID, A_LEN, A_ADDR } },
	{ 217, "getdents64", { A_FD, A_ADDR, A_LEN } },
	{ 218, "set_tid_address", { A_KADDR } },
	{ 228, "clock_gettime", { A_SMALL, A_ADDR } },
	{ 229, "clock_getres", { A_SMALL, A_ADDR } },
	{ 237, "mbind", { A_ADDR, A_LEN, A_SMALL, A_ADDR, A_LEN, A_INT } },
	{ 238, "set_mempolicy", { A_SMALL, A_ADDR, A_LEN } },
	{ 239, "get_mempolicy", { A_ADDR, A_ADDR, A_LEN, A_ADDR, A_INT } },
	{ 256, "migrate_pages", { A_PID, A_LEN, A_ADDR, A_ADDR } },
	{ 257, "openat", { A_FD, A_KADDR, A_INT, A_INT } },
	{ 262, "newfstatat", { A_FD, A_KADDR, A_ADDR, A_INT } },
	{ 267, "readlinkat", { A_FD, A_KADDR, A_ADDR, A_LEN } },
	{ 273, "set_robust_list", { A_ADDR, A_SMALL } },
	{ 274, "get_robust_list", { A_PID, A_ADDR, A_ADDR } },
	{ 279, "move_pages", { A_PID, A_LEN, A_ADDR, A_ADDR, A_ADDR, A_INT } },
	{ 302, "prlimit64", { A_PID, A_SMALL, A_KADDR, A_ADDR } },
	{ 310, "process_vm_readv", { A_PID, A_ADDR, A_SMALL, A_ADDR, A_SMALL, A_INT } },
	{ 318, "getrandom", { A_ADDR, A_LEN, A_INT } },
	{ 325, "mlock2", { A_ADDR, A_LEN, A_SMALL } },
	{ 450, "set_mempolicy_home_node", { A_ADDR, A_LEN, A_SMALL, A_INT } },
	/* Not a system call: the ballast grows or goes (no call made). */
	{ -2, "(ballast)", { A_NONE } },
	/* Numbers no call has here: the table's bounds. */
	{ -1, "(none)", { A_INT, A_INT, A_INT, A_INT, A_INT, A_INT } },
};
#define NR_CALLS (sizeof(calls) / sizeof(calls[0]))

/* The pseudo-call "(ballast)": below ballast_max a chunk of 1 to 8 MiB
 * is added; at it, one draw in BALLAST_DROP_ONE_IN drops a chunk (checked
 * intact first: a move must keep every byte; ballast_lost counts the
 * chunks that were not), which later draws make up again, and the others
 * do nothing. The ballast is there for the migrations to move: when a
 * third of the draws dropped a chunk at any fill, the 1,450 draws of a
 * run wrote gigabytes of pages, ten times the cost of the calls
 * themselves under emulation, for the same 48 migrations. Returns 0. */
#define BALLAST_DROP_ONE_IN 16
static void ballast_drop(int i)
{
	char *p = ballast_area + (unsigned long)i * BALLAST_SLOT;
	ballast_lost += mw_first_bad(p, chunk_pages[i]) != chunk_pages[i];
	mmap(p, BALLAST_SLOT, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	ballast_pages -= chunk_pages[i];
	chunk_pages[i] = 0;
}

static long ballast_step(void)
{
	if (!ballast_max)
		return 0;
	int used = 0, slot = (int)pick(BALLAST_CHUNKS);
	for (int i = 0; i < BALLAST_CHUNKS; i++)
		used += chunk_pages[i] != 0;
	if (ballast_pages >= ballast_max || used == BALLAST_CHUNKS) {
		if (pick(BALLAST_DROP_ONE_IN))
			return 0;
		while (!chunk_pages[slot])
			slot = (slot + 1) % BALLAST_CHUNKS;
		ballast_drop(slot);
		return 0;
	}
	while (chunk_pages[slot])
		slot = (slot + 1) % BALLAST_CHUNKS;
	unsigned long add = (pick(8) + 1) * (MiB / MW_PAGE);
	if (ballast_pages + add > ballast_max)
		add = ballast_max - ballast_pages;
	char *at = ballast_area + (unsigned long)slot * BALLAST_SLOT;
	if (mw_map_at(at, add, memory_nodes)) {
		chunk_pages[slot] = add;
		ballast_pages += add;
	} else {
		mmap(at, BALLAST_SLOT, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	}
	return 0;
}

/* Node masks for migrate_pages that name real nodes (a random subset of
 * the nodes with memory, never empty). They live outside the sandbox,
 * which the mix may have unmapped or made read-only by now: migrate_pages
 * only reads them. */
static long real_migrations, real_enomem;
static bool real_migration;

static void real_node_masks(uint64_t a[6])
{
	real_migration = true;
	static unsigned long masks[2];
	for (int i = 0; i < 2; i++) {
		unsigned long m = memory_nodes & next_rand();
		masks[i] = m ? m : memory_nodes;
	}
	a[0] = pick(2) ? 0 : (uint64_t)getpid();
	a[1] = MW_MAXNODE;
	a[2] = (uint64_t)&masks[0];
	a[3] = (uint64_t)&masks[1];
}

static long raw_syscall6(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
			 uint64_t a5)
{
	long ret;
	register uint64_t r10 __asm__("r10") = a3;
	register uint64_t r8 __asm__("r8") = a4;
	register uint64_t r9 __asm__("r9") = a5;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The call in flight, for the report of a signal that kills the fuzzer
 * (a kernel that sends one where it should return an errno). */
static volatile long last_nr = -1000, last_index = -1;
static volatile uint64_t last_args[6];

static void put_hex(char *out, int *n, uint64_t v)
{
	out[(*n)++] = '0';
	out[(*n)++] = 'x';
	for (int sh = 60; sh >= 0; sh -= 4)
		out[(*n)++] = "0123456789abcdef"[(v >> sh) & 15];
}

static void fatal_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	char out[320];
	int n = 0;
	const char *head = "syscall_fuzz: fatal signal at ";
	while (*head)
		out[n++] = *head++;
	put_hex(out, &n, (uint64_t)si->si_addr);
	head = " after call #";
	while (*head)
		out[n++] = *head++;
	put_hex(out, &n, (uint64_t)last_index);
	out[n++] = ' ';
	out[n++] = 'n';
	out[n++] = 'r';
	out[n++] = ' ';
	put_hex(out, &n, (uint64_t)last_nr);
	for (int i = 0; i < 6; i++) {
		out[n++] = ' ';
		put_hex(out, &n, last_args[i]);
	}
	out[n++] = '\n';
	if (write(2, out, (size_t)n) < 0)
		_exit(1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static bool in_sandbox(uint64_t a, uint64_t len)
{
	uint64_t s = (uint64_t)sandbox;
	return a >= s && a < s + SANDBOX_SIZE && len <= s + SANDBOX_SIZE - a;
}

/* Makes one call with its arguments, fixing the few that must stay in
 * bounds. Returns the result (a negative errno or a value). */
static long one_call(const struct call *c, long *nr_out)
{
	uint64_t a[6];
	for (int i = 0; i < 6; i++)
		a[i] = gen(c->args[i]);
	long nr = c->nr;
	switch (nr) {
	case -1: {
		/* Never a number Linux gives a call (335 is uretprobe: SIGILL
		 * from outside its trampoline), nor an x32 number or one whose
		 * low 32 bits name a call (Linux reads the number as an int). */
		static const long none[] = { 400, 420, 500, 1000, 4095, -1, -2, -1000, 0x7fffffff };
		nr = none[pick(sizeof(none) / sizeof(none[0]))];
		break;
	}
	case -2:
		*nr_out = nr;
		return ballast_step();
	case 256: /* migrate_pages: now and then between real nodes */
		if (ballast_max && pick(32) == 0)
			real_node_masks(a);
		break;
	case 9: /* mmap: MAP_FIXED only into the sandbox or at what must fail */
		if (a[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
			a[0] = gen_range_addr();
			a[1] = gen_range_len(a[0]);
			/* Never MAP_HUGETLB with MAP_FIXED: Linux rounds the
			 * length up to the huge page (2 MiB, more than the
			 * whole sandbox) and replaces, or on failure (no huge
			 * pages: ENOMEM) just unmaps, what lies past the
			 * sandbox: its guard page, vvar and the vDSO. */
			if (a[3] & MAP_FIXED)
				a[3] &= ~(uint64_t)MAP_HUGETLB;
		} else if (a[1] > 16 * PAGE_4K && a[1] < (1ull << 46)) {
			a[1] = (pick(16) + 1) * PAGE_4K; /* no hundreds of MiB populated */
		}
		break;
	case 10: /* mprotect, munmap, msync, madvise, mlock, munlock, mbind,
		  * set_mempolicy_home_node, mlock2: the sandbox */
	case 11:
	case 26:
	case 28:
	case 149:
	case 150:
	case 237:
	case 450:
	case 325:
		a[0] = gen_range_addr();
		a[1] = gen_range_len(a[0]);
		break;
	case 25: /* mremap: from and to the sandbox */
		a[0] = gen_range_addr();
		a[1] = gen_range_len(a[0]);
		/* Now and then an old range that runs past the end of user
		 * space (even a 56-bit one) or wraps: every kernel must refuse
		 * it before unmapping anything (a shrink once unmapped from
		 * the sandbox to the top, the stack included). */
		if (!pick(8))
			a[1] = huge_old_lens[pick(sizeof(huge_old_lens) / sizeof(huge_old_lens[0]))];
		a[2] = pick(2) ? gen_range_len(a[0]) : gen_len();
		a[3] = pick(4); /* MREMAP_MAYMOVE, MREMAP_FIXED */
		if (a[3] & 2) {
			/* The new range replaces what is there: it must lie in
			 * the sandbox too (or be refused). */
			a[4] = gen_range_addr();
			a[2] = gen_range_len(a[4]);
		}
		break;
	case 158: /* arch_prctl: never set FS/GS to anything that works */
		a[0] = 0x1001 + pick(4); /* SET_GS, SET_FS, GET_FS, GET_GS */
		/* Never 0 or a user address, with 5-level paging too (Linux
		 * 6.1 in QEMU -cpu max runs LA57: 0x800000000000 is then a user
		 * address, which ARCH_SET_FS accepts, and the next TLS access
		 * of the C library faults). */
		do
			a[1] = gen_kaddr();
		while (a[1] < 0x0100000000000000ull);
		if (pick(8) == 0)
			a[0] = 0x1000 + pick(0x40);
		if (a[0] == 0x1001 || a[0] == 0x1002 || a[0] == 0x1003 || a[0] == 0x1004)
			break;
		/* Other codes (XCOMP queries, unknown ones), never ARCH_SET_CPUID
		 * (0x1012: CPUID faulting would kill the program) nor the shadow
		 * stack's (0x5001...). */
		a[0] = 0x1010 + pick(0x30);
		if (a[0] == 0x1012)
			a[0] = 0x1011;
		break;
	case 72: { /* fcntl: no owner or signal for I/O (SIGIO kills), no blocking lock */
		static const uint64_t cmds[] = { 0, 1, 2, 3, 4, 5, 9, 11, 1030, 1031, 1032, 1033,
						 1034, 64, 2000 };
		a[1] = cmds[pick(sizeof(cmds) / sizeof(cmds[0]))];
		if (a[1] == 4)
			a[2] &= ~(uint64_t)O_ASYNC;
		if (a[1] == 5)
			a[2] = gen_addr();
		break;
	}
	case 202: /* futex: wake only (a wait could block forever) */
		a[1] = pick(2) ? 1 /* FUTEX_WAKE */ : 129 /* FUTEX_WAKE_PRIVATE */;
		break;
	case 61: /* wait4: never wait (WNOHANG) */
		a[2] |= 1;
		break;
	case 203: /* sched_setaffinity: only ourselves or no one */
		if (a[0] != 0 && a[0] != (uint64_t)getpid())
			a[0] = 999999;
		break;
	case 302: /* prlimit64: read only */
		a[2] = pick(2) ? 0 : gen_kaddr();
		break;
	case 257: /* openat: a path pointer the kernel must refuse, read-only */
	case 262:
		a[2] &= ~(uint64_t)(O_CREAT | O_TRUNC | O_WRONLY | O_RDWR | O_TMPFILE);
		break;
	case 19: /* readv/writev: the iovec array from the sandbox holds junk */
	case 20:
		break;
	}
	*nr_out = nr;
	last_nr = nr;
	for (int i = 0; i < 6; i++)
		last_args[i] = a[i];
	long r = raw_syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (real_migration) {
		real_migration = false;
		real_migrations++;
		real_enomem += r == -ENOMEM;
	}
	/* A mapping made outside the sandbox is unmapped at once, so that the
	 * run's address space stays what the fuzzer knows. */
	if (nr == 9 && r >= 0 && !in_sandbox((uint64_t)r, a[1]))
		raw_syscall6(11, (uint64_t)r, a[1], 0, 0, 0, 0);
	return r;
}

static const char canary_pattern[] = "syscall_fuzz canary: the fuzzer's own memory is intact";

/* migrate_pages of a process larger than what a node can hold, into that
 * node (seen: minutes, every page that did not fit going through the
 * allocator's slow path, with the mmap_lock held). The node is the one
 * with the least free memory, filled by this process but for room; the
 * process then has room and a quarter more on the other nodes. As Linux,
 * the call ends with ENOMEM at the first page that does not fit, and
 * every page keeps its data. Skipped where the node is too large to fill
 * in reasonable time under emulation. */
static void migrate_into_a_full_node(void)
{
	int target, source;
	if (!mw_pick_nodes(&target, &source)) {
		check_skip("migrate_pages into a full node: fewer than two nodes with memory");
		return;
	}
	unsigned long free_t = (unsigned long)mw_node_free_kb(target) * 1024, others = memory_nodes & ~(1ul << target);
	unsigned long room = free_t < 64 * MiB ? free_t : 64 * MiB, n = (room + room / 4) / MW_PAGE;
	unsigned long fill = (free_t - room) / MW_PAGE, free_others = 0;
	for (int i = 0; i < 64; i++)
		if (others >> i & 1)
			free_others += (unsigned long)mw_node_free_kb(i) * 1024;
	if (free_t > 1536 * MiB || free_others < n * MW_PAGE + 64 * MiB) {
		check_skip("migrate_pages into a full node: node %d has %lu MiB free, the others %lu MiB", target,
			   free_t / MiB, free_others / MiB);
		return;
	}
	/* The bulk of the fill from the node's own hugetlb pool, on the
	 * test machines only (never the host's settings): its pages leave
	 * the node's free memory without being faulted in and cleared, where
	 * 4 KiB pages faulted in cleared some 950 MiB on a 1 GiB node. The
	 * last MiBs are filled with 4 KiB pages, exactly, as before; the pool
	 * is put back after. */
	long pool0 = -1;
	int lock = -1;
	char pool[96];
	snprintf(pool, sizeof(pool), "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages",
		 target);
	unsigned long bulk = (free_t - room) / (2 * MiB);
	if (bulk > 8 && (on_mmlab() || in_runner_guest())) {
		lock = setting_lock(HUGETLB_POOL "nr_hugepages");
		pool0 = file_long(pool);
		if (pool0 < 0 || !file_write_long(pool, pool0 + (long)bulk - 8))
			pool0 = -1;
		long now_free = mw_node_free_kb(target);
		if (now_free >= 0)
			fill = (unsigned long)now_free * 1024 > room ? ((unsigned long)now_free * 1024 - room) / MW_PAGE : 0;
	}
	char *f = fill ? mw_map_on(fill, 1ul << target) : NULL;
	char *p = mw_map_on(n, others);
	CHECK((!fill || f) && p);
	if (p) {
		long long t0 = now_ns();
		CHECK_ERRNO(mw_migrate_pages(others, 1ul << target), ENOMEM);
		long long t1 = now_ns();
		long on_t = mw_pages_on(p, n, target);
		note("migrate_pages of %lu MiB into node %d with %lu MiB of room: %ld MiB moved, %lld ms",
		     n * MW_PAGE / MiB, target, room / MiB, on_t * (long)MW_PAGE / (long)MiB, (t1 - t0) / 1000000);
		CHECK_CMP(on_t, <, (long)n);
		CHECK_CMP(mw_first_bad(p, n), ==, n);
		munmap(p, n * MW_PAGE);
	}
	if (f)
		munmap(f, fill * MW_PAGE);
	if (pool0 >= 0)
		CHECK(file_write_long(pool, pool0) && file_long(pool) == pool0);
	if (lock >= 0)
		setting_unlock(lock);
}

/* Calls that random runs once found wrong, made first on every run: each
 * must be refused, and the program must still have its stack after it. */
static void directed_calls(void)
{
	/* mremap shrinking a sandbox page with an old_len past TASK_SIZE
	 * (seen: -EINVAL on Linux; the stack unmapped on mmlab). */
	sandbox[PAGE_4K] = 0x5a;
	CHECK_ERRNO(syscall(SYS_mremap, sandbox + PAGE_4K, 0x6e77e1ff8bbd37abul, 0x158ful,
			    1ul /* MREMAP_MAYMOVE */, 0ul),
		    EINVAL);
	volatile char deep[16384]; /* the stack below still answers */
	deep[0] = deep[sizeof(deep) - 1] = 1;
	CHECK(deep[0] + deep[sizeof(deep) - 1] == 2);
	CHECK(sandbox[PAGE_4K] == 0x5a); /* the page kept its data */
	migrate_into_a_full_node();
}

/* The address ranges that no call taking one may act on, for
 * range_calls(): each wraps, lies at or past TASK_SIZE or in the kernel
 * half, or has a length that rounds up to 0, except the one that starts
 * on the last user page and runs a page past TASK_SIZE (past_task_size),
 * which some calls rightly apply to that page first (mprotect, madvise,
 * mlock, mbind with MPOL_DEFAULT) and which is given only to the calls
 * that refuse it whole or only read. */
struct hostile_range {
	uint64_t start, len;
	bool past_task_size;
};

/* The range calls, each made with every hostile range and random other
 * arguments: the errnos are range_checks' business; here the kernel must
 * survive, and leave the fuzzer's mappings (the sandbox and its guard
 * pages included), its stack and its canary as they were. */
static void range_calls(void)
{
	const uint64_t P = PAGE_4K, task_size = (1ull << user_va_bits()) - P;
	const uint64_t s = (uint64_t)sandbox;
	const struct hostile_range ranges[] = {
		{ 0xfffffffffffff000ull, 2 * P, false }, /* wraps to 0 */
		{ s, 0 - s + P, false },                 /* wraps from the sandbox */
		{ 0xffff800000000000ull, P, false },     /* the kernel half */
		{ 0xffff800000000000ull, 1ull << 47, false },
		{ task_size, P, false }, /* starts at TASK_SIZE */
		{ task_size, ~0ull, false },
		{ s, ~0ull, false }, /* rounds up to 0 */
		{ s + 1, ~0ull, false },
		{ task_size - P, 2 * P, true },
	};
	/* Where MREMAP_FIXED may be asked to put a range: never below
	 * TASK_SIZE (the last user page may be the stack's). */
	const uint64_t new_addrs[] = { 0xfffffffffffff000ull, 0xffff800000000000ull, task_size };
	static char maps_before[65536], maps_after[65536];
	CHECK(maps_snapshot(maps_before, sizeof(maps_before)) > 0);
	/* The random run after this one draws from the seed as it did
	 * before these calls existed. */
	const uint64_t seed = rng;
	long refused = 0, done = 0, wrong = 0;
	for (int round = 0; round < 4; round++) {
		for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
			const struct hostile_range *r = &ranges[i];
			const uint64_t a = r->start, l = r->len, p = r->past_task_size;
			uint64_t f = gen(A_MMAPF) & ~(uint64_t)MAP_HUGETLB;
			f |= pick(2) ? MAP_FIXED : MAP_FIXED_NOREPLACE;
			/* mmap and munmap refuse every one of them. */
			long m = raw_syscall6(9, a, l, gen(A_PROT), f, (uint64_t)-1, 0);
			if (m >= 0 || m < -4095) {
				note("mmap(%#lx, %#lx, flags %#lx) made a mapping", (unsigned long)a,
				     (unsigned long)l, (unsigned long)f);
				raw_syscall6(11, (uint64_t)m, l, 0, 0, 0, 0);
				wrong++;
			}
			if (raw_syscall6(11, a, l, 0, 0, 0, 0) >= 0) {
				note("munmap(%#lx, %#lx) succeeded", (unsigned long)a, (unsigned long)l);
				wrong++;
			}
			long rs[16];
			int n = 0;
			if (!p) {
				rs[n++] = raw_syscall6(10, a, l, gen(A_PROT), 0, 0, 0);
				rs[n++] = raw_syscall6(28, a, l, gen(A_ADV), 0, 0, 0);
				rs[n++] = raw_syscall6(149, a, l, 0, 0, 0, 0);
				rs[n++] = raw_syscall6(325, a, l, pick(4), 0, 0, 0);
				rs[n++] = raw_syscall6(150, a, l, 0, 0, 0, 0);
				rs[n++] = raw_syscall6(237, a, l, pick(8), s, pick(2) ? 64 : 0,
						       pick(2) ? 0 : gen_int());
				uint64_t node = 0;
				memcpy(sandbox + 64, &a, sizeof(a));
				memcpy(sandbox + 72, &node, sizeof(node));
				rs[n++] = raw_syscall6(279, 0, 1, s + 64, pick(2) ? s + 72 : 0, s + 80,
						       pick(2) ? 2 : 0);
			}
			rs[n++] = raw_syscall6(26, a, l, gen_int(), 0, 0, 0);
			rs[n++] = raw_syscall6(27, a, l, s, 0, 0, 0);
			rs[n++] = raw_syscall6(450, a, l, pick(4), pick(4) ? 0 : gen_int(), 0, 0);
			rs[n++] = raw_syscall6(239, s, 0, 0, a, 2 /* MPOL_F_ADDR */ | (pick(2) ? 1 : 0), 0);
			rs[n++] = raw_syscall6(216, a, l, pick(2), gen_int(), 0, 0);
			/* mremap: an old range of two pages from the last user
			 * page (so that it cannot grow there nor move), a new
			 * range that cannot be below TASK_SIZE. */
			uint64_t new_len = pick(2) ? ranges[pick(sizeof(ranges) / sizeof(ranges[0]))].len
						   : (pick(4) + 1) * P;
			rs[n++] = raw_syscall6(25, a, l, new_len, pick(8),
					       new_addrs[pick(sizeof(new_addrs) / sizeof(new_addrs[0]))], 0);
			/* process_vm: the hostile range as the remote side (read)
			 * and as the local side (written from). */
			struct iovec { uint64_t base, len; } io[2] = { { s + 4096, 4 * P }, { a, l } };
			memcpy(sandbox, io, sizeof(io));
			rs[n++] = raw_syscall6(310, (uint64_t)getpid(), s, 1, s + 16, 1, 0);
			rs[n++] = raw_syscall6(311, (uint64_t)getpid(), s + 16, 1, s, 1, 0);
			for (int k = 0; k < n; k++) {
				if (rs[k] < 0 && rs[k] > -4096)
					refused++;
				else
					done++;
			}
		}
	}
	note("range calls: %ld refused, %ld returned a value (a zero-length no-op, a read of the "
	     "last user page)",
	     refused, done);
	rng = seed;
	CHECK_CMP(wrong, ==, 0);
	volatile char deep[16384]; /* the stack below still answers */
	deep[0] = deep[sizeof(deep) - 1] = 1;
	CHECK(deep[0] + deep[sizeof(deep) - 1] == 2);
	CHECK(maps_snapshot(maps_after, sizeof(maps_after)) > 0 && strcmp(maps_after, maps_before) == 0);
}

int main(int argc, char **argv)
{
	test_begin("syscall_fuzz");
	/* make fuzz boots mmlab with fuzz.calls= and fuzz.seed=, which this
	 * program reads from /proc/cmdline (it has no argv there). */
	long def_calls = 100000, def_seed = 0x5eed15;
	static char cmdline[4096];
	if (read_file("/proc/cmdline", cmdline, sizeof(cmdline)) > 0) {
		const char *c = strstr(cmdline, "fuzz.calls="), *sd = strstr(cmdline, "fuzz.seed=");
		if (c && atol(c + 11) > 0)
			def_calls = atol(c + 11);
		if (sd && atol(sd + 10) > 0)
			def_seed = atol(sd + 10);
	}
	long ncalls = arg_long(argc, argv, "--calls", def_calls);
	rng = (uint64_t)arg_long(argc, argv, "--seed", def_seed);
	if (!rng)
		rng = 1;
	static char canary[sizeof(canary_pattern)];
	memcpy(canary, canary_pattern, sizeof(canary));

	/* The sandbox: the only user memory a pointer argument reaches, with an
	 * inaccessible guard page on each side (a copy that runs off its end
	 * faults there instead of reaching the program's memory). */
	unsigned char *region = mmap(NULL, SANDBOX_SIZE + 2 * PAGE_4K, PROT_NONE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(region != MAP_FAILED);
	if (region == MAP_FAILED)
		return test_end();
	sandbox = region + PAGE_4K;
	CHECK(mprotect(sandbox, SANDBOX_SIZE, PROT_READ | PROT_WRITE) == 0);
	static const char *const files[] = { "/proc/meminfo", "/proc/self/status", "/proc/self/maps",
					     "/proc/buddyinfo", "/proc/self/statm" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int fd = open(files[i], O_RDONLY);
		if (fd > 2)
			fds[nfds++] = fd;
	}
	int p[2];
	if (pipe2(p, O_NONBLOCK) == 0) {
		fds[nfds++] = p[0];
		fds[nfds++] = p[1];
	}
	memory_nodes = mw_memory_nodes();
	if (memory_nodes & (memory_nodes - 1)) {
		/* A little more than the smallest node has free, 64 MiB at most. */
		long least = -1;
		for (int n = 0; n < 64; n++) {
			long f = memory_nodes >> n & 1 ? mw_node_free_kb(n) : -1;
			if (f >= 0 && (least < 0 || f < least))
				least = f;
		}
		unsigned long cap = (unsigned long)(least + least / 8) * 1024;
		ballast_area = mmap(NULL, BALLAST_CHUNKS * BALLAST_SLOT, PROT_NONE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (ballast_area == MAP_FAILED)
			ballast_area = NULL;
		else
			ballast_max = (cap < 64 * MiB ? cap : 64 * MiB) / MW_PAGE;
	}
	directed_calls();
	range_calls();
	note("%ld calls, seed %#lx, %zu call kinds, sandbox %p + %lu KiB, %d descriptors", ncalls,
	     (unsigned long)rng, NR_CALLS, (void *)sandbox, SANDBOX_SIZE / 1024, nfds);

	long ok = 0, efault = 0, enosys = 0, other = 0;
	long long t0 = now_ns();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fatal_signal;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	/* A write to the pipe after a drawn close of its read end: EPIPE, not
	 * the SIGPIPE that would end the program by design (seen on Linux
	 * with seed 32: exit status 141 after the first lines). */
	signal(SIGPIPE, SIG_IGN);
	for (long i = 0; i < ncalls; i++) {
		long nr;
		last_index = i;
		long r = one_call(&calls[pick(NR_CALLS)], &nr);
		if (r >= 0 || r < -4095)
			ok++;
		else if (r == -EFAULT)
			efault++;
		else if (r == -ENOSYS)
			enosys++;
		else
			other++;
		/* Descriptors made by dup/pipe: keep the table small. */
		if ((nr == 32) && r > 2 && r < 1024)
			close((int)r);
	}
	long long t1 = now_ns();
	last_nr = -2000; /* the calls are over: what follows is the checks */
	note("%ld calls in %lld ms: %ld returned a value, %ld EFAULT, %ld ENOSYS, %ld other errors",
	     ncalls, (t1 - t0) / 1000000, ok, efault, enosys, other);
	CHECK_CMP(ok + efault + enosys + other, ==, ncalls);
	CHECK(efault > 0); /* kernel pointers were refused */
	CHECK(memcmp(canary, canary_pattern, sizeof(canary)) == 0);
	/* Whatever the migrations did to it, the ballast has its data. */
	for (int i = 0; ballast_area && i < BALLAST_CHUNKS; i++)
		if (chunk_pages[i])
			ballast_drop(i);
	if (ballast_area)
		munmap(ballast_area, BALLAST_CHUNKS * BALLAST_SLOT);
	if (ballast_max)
		note("%ld migrate_pages calls between real nodes (%ld ENOMEM), a ballast of up to %lu MiB",
		     real_migrations, real_enomem, ballast_max * MW_PAGE / MiB);
	CHECK_CMP(ballast_lost, ==, 0);
	/* Still a working process: a system call of each kind of result. */
	CHECK(getpid() > 0);
	char buf[64];
	CHECK(read_file("/proc/self/statm", buf, sizeof(buf)) > 0);
	CHECK_ERRNO(write(1, (void *)0xffffffff80000000ul, 8), EFAULT);
	return test_end();
}
