/* Credentials and capabilities, held beside Linux's:
 *   - the ids: getuid/geteuid/getgid/getegid, getresuid/getresgid, and
 *     /proc/self/status's Uid and Gid lines say the same;
 *   - capget (125): the version probe (version 0 with NULL data: 0 and the
 *     preferred version 3 written back; with data: EINVAL), versions 1
 *     (the low 32 capabilities only) and 3, the sets equal to
 *     /proc/self/status's CapInh/CapPrm/CapEff; a negative pid EINVAL, a
 *     reaped child's ESRCH, a bad data pointer EFAULT;
 *   - capset (126): another process's pid EPERM; a permitted set that grows,
 *     an effective set outside the permitted one, an inheritable set
 *     outside inheritable|permitted (without CAP_SETPCAP) or outside the
 *     bounding set: EPERM; what it sets shows in /proc/self/status;
 *   - prctl: PR_CAPBSET_READ (as CapBnd says; EINVAL past the last
 *     capability), PR_CAPBSET_DROP (EPERM without CAP_SETPCAP),
 *     PR_CAP_AMBIENT (RAISE needs permitted and inheritable: EPERM; IS_SET,
 *     LOWER, CLEAR_ALL; EINVAL for a bad capability);
 *   - fork keeps the sets; execve as uid 0 gives back the bounding set as
 *     permitted and effective (Linux's cap_bprm_creds_from_file for root),
 *     unless no_new_privs: then nothing is gained;
 *   - what the capabilities guard: CAP_IPC_LOCK (mlock past RLIMIT_MEMLOCK
 *     ENOMEM, MAP_LOCKED past it EAGAIN, RLIMIT_MEMLOCK 0 EPERM),
 *     CAP_SYS_RESOURCE (raising a hard limit: EPERM), CAP_SYS_NICE
 *     (mbind and move_pages with MPOL_MF_MOVE_ALL: EPERM), CAP_SYS_ADMIN
 *     (pagemap's PFN: 0 without it).
 * Every change runs in a forked child, so the program keeps its sets. What
 * is expected is derived from the sets the program starts with (the host
 * may run it without some capabilities: those parts are skipped). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define CAP_V1 0x19980330u
#define CAP_V3 0x20080522u
#define CAP_SETPCAP 8
#define CAP_IPC_LOCK 14
#define CAP_SYS_ADMIN 21
#define CAP_SYS_NICE 23
#define CAP_SYS_RESOURCE 24
#ifndef PR_CAPBSET_READ
#define PR_CAPBSET_READ 23
#define PR_CAPBSET_DROP 24
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_IS_SET 1
#define PR_CAP_AMBIENT_RAISE 2
#define PR_CAP_AMBIENT_LOWER 3
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#define MPOL_BIND 2
#define MPOL_MF_MOVE_ALL (1 << 2)

struct cap_header {
	uint32_t version;
	int pid;
};
struct cap_data {
	uint32_t effective, permitted, inheritable;
};
struct caps {
	uint64_t eff, prm, inh;
};

static long capget_(struct cap_header *h, struct cap_data *d) { return syscall(SYS_capget, h, d); }
static long capset_(struct cap_header *h, const struct cap_data *d) { return syscall(SYS_capset, h, d); }

static uint64_t bit(int cap) { return 1ull << cap; }

/* A /proc/self/status hex field (CapEff...), ~0 when absent. */
static uint64_t status_hex(const char *field)
{
	char buf[8192], key[32];
	if (read_file("/proc/self/status", buf, sizeof(buf)) <= 0)
		return ~0ull;
	snprintf(key, sizeof(key), "\n%s:", field);
	const char *p = strstr(buf, key);
	return p ? strtoull(p + strlen(key), NULL, 16) : ~0ull;
}

/* The Uid or Gid line's four ids. */
static bool status_ids(const char *field, unsigned ids[4])
{
	char buf[8192], key[32];
	if (read_file("/proc/self/status", buf, sizeof(buf)) <= 0)
		return false;
	snprintf(key, sizeof(key), "\n%s:", field);
	const char *p = strstr(buf, key);
	return p && sscanf(p + strlen(key), "%u %u %u %u", &ids[0], &ids[1], &ids[2], &ids[3]) == 4;
}

static bool get_caps(struct caps *c)
{
	struct cap_header h = { CAP_V3, 0 };
	struct cap_data d[2];
	if (capget_(&h, d))
		return false;
	c->eff = d[0].effective | (uint64_t)d[1].effective << 32;
	c->prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	c->inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return true;
}

static long set_caps(const struct caps *c)
{
	struct cap_header h = { CAP_V3, 0 };
	struct cap_data d[2] = {
		{ (uint32_t)c->eff, (uint32_t)c->prm, (uint32_t)c->inh },
		{ (uint32_t)(c->eff >> 32), (uint32_t)(c->prm >> 32), (uint32_t)(c->inh >> 32) },
	};
	return capset_(&h, d);
}

static void ids(void)
{
	unsigned r, e, s, u[4], g[4];
	CHECK(status_ids("Uid", u) && status_ids("Gid", g));
	CHECK(syscall(SYS_getresuid, &r, &e, &s) == 0);
	CHECK(r == u[0] && e == u[1] && s == u[2]);
	CHECK_CMP(getuid(), ==, u[0]);
	CHECK_CMP(geteuid(), ==, u[1]);
	CHECK(syscall(SYS_getresgid, &r, &e, &s) == 0);
	CHECK(r == g[0] && e == g[1] && s == g[2]);
	CHECK_CMP(getgid(), ==, g[0]);
	CHECK_CMP(getegid(), ==, g[1]);
	CHECK_ERRNO(syscall(SYS_getresuid, &r, (void *)8, &s), EFAULT);
}

static void capget_versions(const struct caps *start)
{
	/* The probe: NULL data, an unknown version. */
	struct cap_header h = { 0, 0 };
	CHECK(capget_(&h, NULL) == 0);
	CHECKF(h.version == CAP_V3, "the probe writes back version 3 (%#x)", h.version);
	h.version = 0x12345678;
	struct cap_data d[2];
	CHECK_ERRNO(capget_(&h, d), EINVAL);
	CHECK(h.version == CAP_V3);
	/* Version 3: as /proc/self/status says. */
	CHECK_CMP(start->eff, ==, status_hex("CapEff"));
	CHECK_CMP(start->prm, ==, status_hex("CapPrm"));
	CHECK_CMP(start->inh, ==, status_hex("CapInh"));
	/* Version 1: one triple, the low words. */
	memset(d, 0xa5, sizeof(d));
	h.version = CAP_V1;
	h.pid = getpid();
	CHECK(capget_(&h, d) == 0);
	CHECK(d[0].effective == (uint32_t)start->eff && d[0].permitted == (uint32_t)start->prm);
	CHECK(d[1].effective == 0xa5a5a5a5u);
	h.version = CAP_V3;
	h.pid = -1;
	CHECK_ERRNO(capget_(&h, d), EINVAL);
	h.pid = 0;
	CHECK_ERRNO(capget_(&h, (struct cap_data *)8), EFAULT);
	CHECK_ERRNO(capget_((struct cap_header *)8, d), EFAULT);
	/* A child's, while it lives; ESRCH once it is reaped. */
	pid_t pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	h.pid = pid;
	CHECK(capget_(&h, d) == 0 && d[0].permitted == (uint32_t)start->prm);
	struct cap_data none[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	CHECK_ERRNO(capset_(&h, none), EPERM); /* only the caller's own */
	kill(pid, SIGKILL);
	CHECK_CMP(wait_status_of(pid), ==, 100 + SIGKILL);
	CHECK_ERRNO(capget_(&h, d), ESRCH);
}

/* In a child: the capset rules. */
static void capset_rules(struct caps c)
{
	struct caps now;
	/* Drop one from the effective set only, then take it back: allowed. */
	struct caps drop = c;
	drop.eff &= ~bit(CAP_SYS_NICE);
	CHECK(set_caps(&drop) == 0);
	CHECK_CMP(status_hex("CapEff"), ==, drop.eff);
	CHECK(set_caps(&c) == 0);
	/* Effective outside permitted. */
	drop = c;
	drop.prm &= ~bit(CAP_SYS_NICE);
	CHECK_ERRNO(set_caps(&drop), EPERM);
	/* Out of the permitted set for good. */
	drop.eff &= ~bit(CAP_SYS_NICE);
	CHECK(set_caps(&drop) == 0);
	CHECK(get_caps(&now) && now.prm == drop.prm && now.eff == drop.eff);
	CHECK_CMP(status_hex("CapPrm"), ==, drop.prm);
	CHECK_ERRNO(set_caps(&c), EPERM); /* the permitted set may not grow */
	/* The inheritable set: with CAP_SETPCAP anything in the bounding
	 * set; without it, only what is permitted or inheritable already. */
	struct caps inh = drop;
	inh.inh = bit(CAP_SYS_NICE);
	if (drop.eff & bit(CAP_SETPCAP)) {
		CHECK(set_caps(&inh) == 0);
		inh.inh = 0;
		CHECK(set_caps(&inh) == 0);
		inh.inh = bit(CAP_SYS_NICE);
	}
	inh.eff &= ~bit(CAP_SETPCAP);
	CHECK(set_caps(&(struct caps){ inh.eff, inh.prm, 0 }) == 0);
	CHECK_ERRNO(set_caps(&inh), EPERM);
	/* A bad pointer: EFAULT, nothing changed. */
	struct cap_header h = { CAP_V3, 0 };
	CHECK_ERRNO(capset_(&h, (struct cap_data *)8), EFAULT);
	h.version = 1;
	CHECK_ERRNO(capset_(&h, NULL), EINVAL);
	CHECK(h.version == CAP_V3);
	/* Everything dropped. */
	CHECK(set_caps(&(struct caps){ 0, 0, 0 }) == 0);
	CHECK_CMP(status_hex("CapEff"), ==, 0);
	CHECK_CMP(status_hex("CapPrm"), ==, 0);
}

/* In a child: the bounding and ambient sets through prctl. */
static void bset_and_ambient(struct caps c)
{
	uint64_t bnd = status_hex("CapBnd");
	int last = 63;
	while (last > 0 && !(bnd >> last & 1))
		last--;
	for (int cap = 0; cap <= last; cap++)
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) != (int)(bnd >> cap & 1))
			CHECKF(false, "PR_CAPBSET_READ(%d) is CapBnd's bit", cap);
	CHECK_ERRNO(prctl(PR_CAPBSET_READ, 64, 0, 0, 0), EINVAL);
	CHECK_ERRNO(prctl(PR_CAPBSET_READ, -1L, 0, 0, 0), EINVAL);
	/* Ambient: nothing set; raising needs permitted and inheritable. */
	CHECK_CMP(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_SYS_NICE, 0, 0), ==, 0);
	CHECK_ERRNO(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SYS_NICE, 0, 0), EPERM);
	CHECK_ERRNO(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 64, 0, 0), EINVAL);
	CHECK_ERRNO(prctl(PR_CAP_AMBIENT, 9, CAP_SYS_NICE, 0, 0), EINVAL);
	CHECK_ERRNO(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 1, 0, 0), EINVAL);
	struct caps inh = c;
	inh.inh |= bit(CAP_SYS_NICE);
	CHECK(set_caps(&inh) == 0);
	CHECK(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SYS_NICE, 0, 0) == 0);
	CHECK_CMP(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_SYS_NICE, 0, 0), ==, 1);
	CHECK_CMP(status_hex("CapAmb"), ==, bit(CAP_SYS_NICE));
	CHECK(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_SYS_NICE, 0, 0) == 0);
	CHECK_CMP(status_hex("CapAmb"), ==, 0);
	CHECK(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SYS_NICE, 0, 0) == 0);
	CHECK(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == 0);
	CHECK_CMP(status_hex("CapAmb"), ==, 0);
	/* A capability leaving the inheritable set leaves the ambient one. */
	CHECK(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_SYS_NICE, 0, 0) == 0);
	CHECK(set_caps(&c) == 0);
	CHECK_CMP(status_hex("CapAmb"), ==, 0);
	/* The bounding set loses one; without CAP_SETPCAP no more. */
	CHECK(prctl(PR_CAPBSET_DROP, CAP_SYS_NICE, 0, 0, 0) == 0);
	CHECK_CMP(prctl(PR_CAPBSET_READ, CAP_SYS_NICE, 0, 0, 0), ==, 0);
	CHECK_CMP(status_hex("CapBnd"), ==, bnd & ~bit(CAP_SYS_NICE));
	CHECK_ERRNO(prctl(PR_CAPBSET_DROP, 64, 0, 0, 0), EINVAL);
	struct caps nopcap = c;
	nopcap.eff &= ~bit(CAP_SETPCAP);
	CHECK(set_caps(&nopcap) == 0);
	CHECK_ERRNO(prctl(PR_CAPBSET_DROP, CAP_SYS_RESOURCE, 0, 0, 0), EPERM);
	CHECK_ERRNO(prctl(PR_CAPBSET_DROP, 64, 0, 0, 0), EPERM); /* the capability is checked first */
}

/* The program again, printing its sets into a memfd (mmlab has no
 * pipes): the child drops CAP_SYS_NICE from its permitted set first, and
 * sets no_new_privs if how says "nnp". */
static int exec_report(const char *how, struct caps *out)
{
	/* Its own file, by the path /proc/self/exe names (mmlab's
	 * /proc/self/exe is a symbolic link only). */
	char self[512];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int fd = (int)syscall(SYS_memfd_create, "caps", 0);
	if (fd < 0 || len <= 0)
		return -1;
	self[len] = 0;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd, 1);
		if (!strcmp(how, "nnp"))
			prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		struct caps c;
		get_caps(&c);
		c.eff &= ~bit(CAP_SYS_NICE);
		c.prm &= ~bit(CAP_SYS_NICE);
		set_caps(&c);
		char *argv[] = { "capabilities", "--report", NULL };
		execv(self, argv);
		_exit(127);
	}
	int st = wait_status_of(pid);
	char buf[256] = { 0 };
	long n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	unsigned long long e, p, i;
	if (st != 0 || n <= 0 || sscanf(buf, "%llx %llx %llx", &e, &p, &i) != 3) {
		note("the exec (%s) gave status %d and %ld bytes: %s", how, st, n, errno_name(errno));
		return -1;
	}
	*out = (struct caps){ e, p, i };
	return 0;
}

static void exec_recomputes(const struct caps *start)
{
	uint64_t bnd = status_hex("CapBnd");
	struct caps after;
	/* As uid 0: the bounding set (and the inheritable set) permitted
	 * and effective again. */
	CHECK(exec_report("plain", &after) == 0);
	CHECK_CMP(after.prm, ==, bnd | start->inh);
	CHECK_CMP(after.eff, ==, after.prm);
	/* Under no_new_privs nothing comes back. */
	CHECK(exec_report("nnp", &after) == 0);
	CHECK_CMP(after.prm, ==, (bnd | start->inh) & start->prm & ~bit(CAP_SYS_NICE));
	CHECK_CMP(after.eff, ==, after.prm);
}

/* The PFN field of p's /proc/self/pagemap entry (the file opened now);
 * ~0 when it cannot be read. */
static uint64_t pagemap_pfn(const void *p)
{
	uint64_t e = ~0ull;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return e;
	long page = sysconf(_SC_PAGESIZE);
	if (pread(fd, &e, sizeof(e), (off_t)((uintptr_t)p / (uintptr_t)page * sizeof(e))) != sizeof(e))
		e = ~0ull;
	close(fd);
	return e == ~0ull ? e : e & ((1ull << 55) - 1);
}

/* In a child: what CAP_IPC_LOCK, CAP_SYS_RESOURCE, CAP_SYS_NICE and
 * CAP_SYS_ADMIN guard. */
static void guarded(struct caps c)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct rlimit lim = { 16 * page, 16 * page };
	CHECK(setrlimit(RLIMIT_MEMLOCK, &lim) == 0);
	char *p = mmap(NULL, 64 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	/* With CAP_IPC_LOCK the limit does not apply. */
	CHECK(mlock(p, 32 * page) == 0);
	CHECK(munlock(p, 32 * page) == 0);
	/* pagemap's PFN: shown with CAP_SYS_ADMIN (to whoever opened the
	 * file, on Linux; to the reader, on mmlab: both are this process). */
	p[0] = 1;
	CHECK(pagemap_pfn(p) != 0);
	struct caps drop = c;
	drop.eff &= ~(bit(CAP_IPC_LOCK) | bit(CAP_SYS_RESOURCE) | bit(CAP_SYS_NICE) | bit(CAP_SYS_ADMIN));
	CHECK(set_caps(&drop) == 0);
	CHECK_CMP(pagemap_pfn(p), ==, 0);
	CHECK_ERRNO(mlock(p, 32 * page), ENOMEM);
	CHECK(mlock(p, 8 * page) == 0);
	/* What is locked already counts once. */
	CHECK(mlock(p, 16 * page) == 0);
	CHECK_ERRNO(mlock(p + 16 * page, page), ENOMEM);
	CHECK_ERRNO(mmap(NULL, 4 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0), EAGAIN);
	CHECK(munlock(p, 16 * page) == 0);
	void *l = mmap(NULL, 4 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
	CHECK(l != MAP_FAILED);
	CHECK_CMP(status_kb("VmLck"), ==, 4 * (long)page / 1024);
	munmap(l, 4 * page);
	CHECK_ERRNO(mlockall(MCL_CURRENT), ENOMEM); /* the whole mm is past 64 KiB */
	/* A raised hard limit needs CAP_SYS_RESOURCE; lowering is fine. */
	lim.rlim_max = 32 * page;
	CHECK_ERRNO(setrlimit(RLIMIT_MEMLOCK, &lim), EPERM);
	lim.rlim_cur = lim.rlim_max = 0;
	CHECK(setrlimit(RLIMIT_MEMLOCK, &lim) == 0);
	CHECK_ERRNO(mlock(p, page), EPERM);
	CHECK_ERRNO(mlockall(MCL_FUTURE), EPERM);
	/* (mmap(MAP_LOCKED) here is EPERM in Linux 6.1's and 6.12's do_mmap,
	 * and mmlab's; a 6.18 host answered ENOMEM: not checked.) */
	/* MPOL_MF_MOVE_ALL needs CAP_SYS_NICE (before any other check of the
	 * range). */
	unsigned long nodes = 1;
	CHECK_ERRNO(syscall(SYS_mbind, p, page, MPOL_BIND, &nodes, 64, MPOL_MF_MOVE_ALL), EPERM);
	void *pages[1] = { p };
	int status[1];
	CHECK_ERRNO(syscall(SYS_move_pages, 0, 1, pages, NULL, status, MPOL_MF_MOVE_ALL), EPERM);
}

/* fn's checks in a child, which fails if any of its own did. */
static void in_child(const char *what, void (*fn)(struct caps), const struct caps *c)
{
	unsigned before = checks_failed();
	pid_t pid = fork();
	if (pid == 0) {
		fn(*c);
		_exit(checks_failed() > before ? 1 : 0);
	}
	CHECKF(wait_status_of(pid) == 0, "%s: the child's checks pass", what);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--report")) {
		struct caps c;
		if (!get_caps(&c))
			return 1;
		printf("%llx %llx %llx\n", (unsigned long long)c.eff, (unsigned long long)c.prm,
		       (unsigned long long)c.inh);
		return 0;
	}
	test_begin("capabilities");
	struct caps start;
	if (!get_caps(&start))
		test_skip("capget: %s", errno_name(errno));
	ids();
	capget_versions(&start);
	uint64_t need = bit(CAP_SETPCAP) | bit(CAP_SYS_NICE);
	if ((start.eff & need) == need && start.prm == start.eff)
		in_child("capset rules", capset_rules, &start);
	else
		check_skip("capset's rules: CAP_SETPCAP and CAP_SYS_NICE not both effective (CapEff %llx)",
			   (unsigned long long)start.eff);
	if ((start.eff & need) == need && start.prm == start.eff)
		in_child("bounding and ambient sets", bset_and_ambient, &start);
	else
		check_skip("the bounding and ambient sets: CAP_SETPCAP and CAP_SYS_NICE not both effective");
	if (geteuid() == 0 && getuid() == 0 && (start.prm & bit(CAP_SYS_NICE)))
		exec_recomputes(&start);
	else
		check_skip("execve as root: not uid 0, or CAP_SYS_NICE not permitted");
	/* CAP_SYS_RESOURCE is dropped there too, had or not: a hard limit
	 * raised is EPERM either way. */
	need = bit(CAP_IPC_LOCK) | bit(CAP_SYS_NICE) | bit(CAP_SYS_ADMIN);
	if ((start.eff & need) == need)
		in_child("what the capabilities guard", guarded, &start);
	else
		check_skip("what CAP_IPC_LOCK, CAP_SYS_NICE and CAP_SYS_ADMIN guard: not all effective (CapEff %llx)",
			   (unsigned long long)start.eff);
	return test_end();
}
