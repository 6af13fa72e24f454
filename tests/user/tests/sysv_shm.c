/* System V shared memory (shmget, shmat, shmdt, shmctl) held beside
 * Linux's: the errno of each bad call in Linux's order; one segment
 * attached twice in one process (each address sees the other's writes,
 * each attach counts in nattch and in RssShmem); a read-only attach that
 * mprotect cannot make writable; fork's copies of the attaches (nattch
 * counts them, the child's writes are seen) and their end with the child;
 * IPC_STAT's struct shmid64_ds as x86_64 Linux lays it out, IPC_SET,
 * SHM_STAT, IPC_INFO against /proc/sys/kernel, SHM_INFO, SHM_LOCK; the
 * segment's line in /proc/sysvipc/shm; IPC_RMID of an attached segment
 * (key private, SHM_DEST, still attachable by id) and its end at the last
 * detach; a new segment never gets the id of one just removed.
 *
 * The calls are made with syscall(2), so both C libraries are out of the
 * way. Every segment made is removed however the program goes on (an
 * atexit handler removes what is left), so the host keeps none. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* Linux's uapi values (sys/ipc.h and sys/shm.h without a C library). */
#define IPC_PRIVATE 0
#define IPC_CREAT 01000
#define IPC_EXCL 02000
#define IPC_RMID 0
#define IPC_SET 1
#define IPC_STAT 2
#define IPC_INFO 3
#define SHM_RDONLY 010000
#define SHM_RND 020000
#define SHM_REMAP 040000
#define SHM_LOCK 11
#define SHM_UNLOCK 12
#define SHM_STAT 13
#define SHM_INFO 14
#define SHM_STAT_ANY 15
#define SHM_DEST 01000
#define SHM_LOCKED 02000

/* x86_64 Linux's struct ipc64_perm and struct shmid64_ds. */
struct ipc64_perm {
	int key;
	unsigned int uid, gid, cuid, cgid, mode;
	unsigned short seq, pad2;
	unsigned long unused1, unused2;
};
struct shmid64_ds {
	struct ipc64_perm shm_perm;
	size_t shm_segsz;
	long shm_atime, shm_dtime, shm_ctime;
	int shm_cpid, shm_lpid;
	unsigned long shm_nattch, unused4, unused5;
};
struct shminfo64 {
	unsigned long shmmax, shmmin, shmmni, shmseg, shmall, unused[4];
};
struct shm_info {
	int used_ids;
	unsigned long shm_tot, shm_rss, shm_swp, swap_attempts, swap_successes;
};
_Static_assert(sizeof(struct shmid64_ds) == 112, "shmid64_ds is 112 bytes on x86_64");
_Static_assert(__builtin_offsetof(struct shmid64_ds, shm_nattch) == 88, "shm_nattch at 88");

#define PAGE 4096ul
#define SEG (2 * PAGE)

static int made[16];
static int nmade;

static long shmget_(int key, size_t size, int flg) { return syscall(SYS_shmget, key, size, flg); }
static void *shmat_(int id, const void *addr, int flg) { return (void *)syscall(SYS_shmat, id, addr, flg); }
static long shmdt_(const void *addr) { return syscall(SYS_shmdt, addr); }
static long shmctl_(int id, int cmd, void *buf) { return syscall(SYS_shmctl, id, cmd, buf); }

/* A segment this program made: removed at exit if still there. */
static int keep(long id)
{
	if (id >= 0 && nmade < (int)(sizeof(made) / sizeof(made[0])))
		made[nmade++] = (int)id;
	return (int)id;
}

static void remove_all(void)
{
	for (int i = 0; i < nmade; i++)
		shmctl_(made[i], IPC_RMID, NULL); /* EINVAL once gone: fine */
}

static unsigned long nattch(int id)
{
	struct shmid64_ds ds;
	return shmctl_(id, IPC_STAT, &ds) ? ~0ul : ds.shm_nattch;
}

static unsigned long sysctl_value(const char *name)
{
	char path[64], buf[64];
	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	return strtoul(buf, NULL, 10);
}

/* The /proc/sysvipc/shm line of id: its columns into v (key, shmid,
 * perms (octal), size, cpid, lpid, nattch); false when absent. */
static bool proc_line(int id, unsigned long v[7])
{
	static char buf[1 << 16];
	if (read_file("/proc/sysvipc/shm", buf, sizeof(buf)) <= 0)
		return false;
	for (char *line = strchr(buf, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		long key;
		int shmid;
		unsigned perms;
		unsigned long size, cpid, lpid, att;
		if (sscanf(line + 1, "%ld %d %o %lu %lu %lu %lu", &key, &shmid, &perms, &size, &cpid, &lpid,
			   &att) == 7 &&
		    shmid == id) {
			unsigned long got[7] = { (unsigned long)key, (unsigned long)shmid, perms, size, cpid, lpid, att };
			memcpy(v, got, sizeof(got));
			return true;
		}
	}
	return false;
}

static void header(void)
{
	char buf[256];
	CHECK(read_file("/proc/sysvipc/shm", buf, sizeof(buf)) > 0);
	CHECK(strncmp(buf,
		      "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid"
		      "      atime      dtime      ctime                   rss                  swap\n",
		      170) == 0);
}

static void errors(int key)
{
	CHECK_ERRNO(shmget_(IPC_PRIVATE, 0, 0600), EINVAL); /* below SHMMIN */
	unsigned long shmmax = sysctl_value("shmmax");
	if (shmmax && shmmax < ~0ul)
		CHECK_ERRNO(shmget_(IPC_PRIVATE, shmmax + 1, 0600), EINVAL);
	CHECK_ERRNO(shmget_(key, SEG, 0600), ENOENT); /* no IPC_CREAT */
	CHECK_ERRNO(shmat_(-1, NULL, 0), EINVAL);
	CHECK_ERRNO(shmctl_(-1, IPC_STAT, NULL), EINVAL);
	CHECK_ERRNO(shmctl_(0, 99, NULL), EINVAL);
	CHECK_ERRNO(shmctl_(0, IPC_STAT | 0x100, NULL), EINVAL); /* no IPC_64 bit on x86_64 */
	CHECK_ERRNO(shmdt_((void *)(PAGE + 1)), EINVAL);
}

/* The segment of key: made, found again, its limits. */
static int make_keyed(int key)
{
	int id = keep(shmget_(key, SEG, IPC_CREAT | IPC_EXCL | 0600));
	CHECK_CMP(id, >=, 0);
	CHECK_ERRNO(shmget_(key, SEG, IPC_CREAT | IPC_EXCL | 0600), EEXIST);
	CHECK_ERRNO(shmget_(key, SEG + 1, 0600), EINVAL); /* bigger than it is */
	CHECK_CMP(shmget_(key, 0, 0), ==, id);
	CHECK_CMP(shmget_(key, PAGE, IPC_CREAT | 0600), ==, id);
	return id;
}

static void stat_fields(int id, int key)
{
	struct shmid64_ds ds;
	memset(&ds, 0xa5, sizeof(ds));
	CHECK_CMP(shmctl_(id, IPC_STAT, &ds), ==, 0);
	CHECK_CMP(ds.shm_perm.key, ==, key);
	CHECK_CMP(ds.shm_perm.mode, ==, 0600);
	CHECK_CMP(ds.shm_perm.uid, ==, geteuid());
	CHECK_CMP(ds.shm_perm.cuid, ==, geteuid());
	CHECK_CMP(ds.shm_perm.seq, ==, (unsigned)id >> 15);
	CHECK_CMP(ds.shm_segsz, ==, SEG);
	CHECK_CMP(ds.shm_cpid, ==, getpid());
	CHECK_CMP(ds.shm_lpid, ==, 0);
	CHECK_CMP(ds.shm_atime, ==, 0);
	CHECK_CMP(ds.shm_nattch, ==, 0);
	CHECK_CMP(ds.shm_ctime, >, 0);
	CHECK_CMP(ds.unused4 | ds.unused5 | ds.shm_perm.unused1 | ds.shm_perm.unused2, ==, 0);
	/* SHM_STAT takes the index and answers the id. */
	CHECK_CMP(shmctl_(id & 0x7fff, SHM_STAT, &ds), ==, id);
	/* IPC_SET: the permission bits (and uid, gid) change, the rest stays. */
	ds.shm_perm.mode = 0640 | 0100000;
	CHECK_CMP(shmctl_(id, IPC_SET, &ds), ==, 0);
	CHECK_CMP(shmctl_(id, IPC_STAT, &ds), ==, 0);
	CHECK_CMP(ds.shm_perm.mode, ==, 0640);
	CHECK_ERRNO(shmctl_(id, IPC_SET, (void *)8), EFAULT);
	CHECK_ERRNO(shmctl_(id + 0x8000, IPC_STAT, &ds), EINVAL); /* another sequence */
}

static void info(void)
{
	struct shminfo64 si;
	CHECK_CMP(shmctl_(0, IPC_INFO, &si), >=, 0);
	CHECK_CMP(si.shmmax, ==, sysctl_value("shmmax"));
	CHECK_CMP(si.shmall, ==, sysctl_value("shmall"));
	CHECK_CMP(si.shmmni, ==, sysctl_value("shmmni"));
	CHECK_CMP(si.shmseg, ==, si.shmmni);
	CHECK_CMP(si.shmmin, ==, 1);
	struct shm_info in;
	CHECK_CMP(shmctl_(0, SHM_INFO, &in), >=, 0);
	CHECK_CMP(in.used_ids, >=, 1);
	CHECK_CMP(in.shm_tot, >=, SEG / PAGE);
}

/* Two attaches of one segment in one process. */
static void twice(int id, int key, char **a, char **b)
{
	long shmem0 = status_kb("RssShmem");
	*a = shmat_(id, NULL, 0);
	*b = shmat_(id, NULL, 0);
	CHECK(*a != (char *)-1 && *b != (char *)-1 && *a != *b);
	CHECK_CMP(nattch(id), ==, 2);
	(*a)[0] = 'x';
	(*b)[PAGE] = 'y';
	CHECK_CMP((*b)[0], ==, 'x');
	CHECK_CMP((*a)[PAGE], ==, 'y');
	/* Each attach maps both pages (smaps walks the page tables): four in
	 * RssShmem, exact on mmlab; Linux up to 6.1 syncs the counters of
	 * /proc/self/status every 64 faults, so there it may lag. */
	CHECK_CMP(smaps_kb(*a, "Rss"), ==, SEG / 1024);
	CHECK_CMP(smaps_kb(*b, "Rss"), ==, SEG / 1024);
	if (on_mmlab())
		CHECK_CMP(status_kb("RssShmem") - shmem0, ==, 4 * PAGE / 1024);
	else
		CHECK_CMP(status_kb("RssShmem") - shmem0, <=, 4 * PAGE / 1024);
	struct shmid64_ds ds;
	CHECK_CMP(shmctl_(id, IPC_STAT, &ds), ==, 0);
	CHECK_CMP(ds.shm_lpid, ==, getpid());
	CHECK_CMP(ds.shm_atime, >=, ds.shm_ctime - 1);
	unsigned long v[7];
	CHECK(proc_line(id, v));
	CHECK_CMP(v[3], ==, SEG);
	CHECK_CMP(v[4], ==, getpid());
	CHECK_CMP(v[6], ==, 2);
	/* /proc/self/maps: the segment's file, its inode number the id. */
	static char maps[1 << 16];
	char start[32], name[32];
	snprintf(start, sizeof(start), "\n%lx-", (unsigned long)*b);
	snprintf(name, sizeof(name), " /SYSV%08x (deleted)\n", (unsigned)key);
	maps[0] = '\n';
	CHECK(read_file("/proc/self/maps", maps + 1, sizeof(maps) - 1) > 0);
	char *line = strstr(maps, start), *end = line ? strchr(line + 1, '\n') : NULL;
	unsigned long ino = 0;
	CHECKF(line && end && sscanf(line + 1, "%*s rw-s 00000000 %*s %lu", &ino) == 1 && ino == (unsigned long)id &&
		       !strncmp(end - strlen(name) + 1, name, strlen(name)),
	       "maps line of the attach: %.*s", line && end ? (int)(end - line - 1) : 0, line ? line + 1 : "");
	/* The bad attaches and detaches. */
	CHECK_ERRNO(shmat_(id, *a + 1, 0), EINVAL);       /* unaligned, no SHM_RND */
	CHECK_ERRNO(shmat_(id, NULL, SHM_REMAP), EINVAL); /* SHM_REMAP needs an address */
	CHECK_ERRNO(shmat_(id, *a, 0), EINVAL);           /* over a mapping */
	CHECK_ERRNO(shmat_(id, (void *)1, SHM_RND | SHM_REMAP), EINVAL); /* rounded to 0 */
	CHECK_ERRNO(shmdt_(*a + PAGE), EINVAL);           /* not where an attach starts */
	/* SHM_RND | SHM_REMAP over the first attach: replaced, still two. */
	char *c = shmat_(id, *a + 5, SHM_RND | SHM_REMAP);
	CHECK(c == *a);
	CHECK_CMP(nattch(id), ==, 2);
	CHECK_CMP(c[PAGE], ==, 'y');
	/* Read-only: never writable. */
	char *r = shmat_(id, NULL, SHM_RDONLY);
	CHECK(r != (char *)-1);
	if (r != (char *)-1) {
		CHECK_CMP(r[0], ==, 'x');
		CHECK_ERRNO(mprotect(r, SEG, PROT_READ | PROT_WRITE), EACCES);
		CHECK_CMP(nattch(id), ==, 3);
		CHECK_CMP(shmdt_(r), ==, 0);
	}
	CHECK_CMP(nattch(id), ==, 2);
}

static void across_fork(int id, char *a)
{
	pid_t pid = fork();
	if (pid == 0) {
		/* The parent's two attaches are the child's too. */
		int bad = nattch(id) != 4 || a[PAGE] != 'y';
		a[1] = 'c';
		char *d = shmat_(id, NULL, 0);
		bad |= d == (char *)-1 || nattch(id) != 5 || d[1] != 'c';
		bad |= shmdt_(d) != 0 || nattch(id) != 4;
		_exit(bad);
	}
	CHECK_CMP(pid, >, 0);
	int status = -1;
	CHECK_CMP(waitpid(pid, &status, 0), ==, pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_CMP(a[1], ==, 'c');
	CHECK_CMP(nattch(id), ==, 2); /* the child's went with it */
	struct shmid64_ds ds;
	CHECK_CMP(shmctl_(id, IPC_STAT, &ds), ==, 0);
	CHECK_CMP(ds.shm_lpid, ==, pid); /* its exit detached last */
	CHECK_CMP(ds.shm_dtime, >=, ds.shm_atime);
}

static void lock(int id)
{
	struct rlimit rl;
	getrlimit(RLIMIT_MEMLOCK, &rl);
	long r = shmctl_(id, SHM_LOCK, NULL);
	if (r && geteuid() != 0 && (errno == EPERM || errno == ENOMEM)) {
		check_skip("SHM_LOCK refused (%s) with RLIMIT_MEMLOCK %lu", errno_name(errno),
			   (unsigned long)rl.rlim_cur);
		return;
	}
	CHECK_CMP(r, ==, 0);
	struct shmid64_ds ds;
	CHECK_CMP(shmctl_(id, IPC_STAT, &ds), ==, 0);
	CHECK_CMP(ds.shm_perm.mode & SHM_LOCKED, ==, SHM_LOCKED);
	CHECK_CMP(shmctl_(id, SHM_UNLOCK, NULL), ==, 0);
	CHECK_CMP(shmctl_(id, IPC_STAT, &ds), ==, 0);
	CHECK_CMP(ds.shm_perm.mode & SHM_LOCKED, ==, 0);
}

/* IPC_RMID while attached: the id still finds it, no key does. */
static void remove_attached(int id, int key, char *a, char *b)
{
	CHECK_CMP(shmctl_(id, IPC_RMID, NULL), ==, 0);
	struct shmid64_ds ds;
	CHECK_CMP(shmctl_(id, IPC_STAT, &ds), ==, 0);
	CHECK_CMP(ds.shm_perm.key, ==, IPC_PRIVATE);
	CHECK_CMP(ds.shm_perm.mode & SHM_DEST, ==, SHM_DEST);
	CHECK_ERRNO(shmget_(key, 0, 0), ENOENT);
	unsigned long v[7];
	CHECK(proc_line(id, v) && v[0] == 0 && v[2] == (SHM_DEST | 0640));
	char *c = shmat_(id, NULL, 0);
	CHECK(c != (char *)-1);
	CHECK_CMP(nattch(id), ==, 3);
	CHECK_CMP(c[1], ==, 'c');
	CHECK_CMP(shmdt_(c), ==, 0);
	CHECK_CMP(shmdt_(a), ==, 0);
	CHECK_ERRNO(shmdt_(a), EINVAL); /* no longer attached */
	CHECK_CMP(nattch(id), ==, 1);
	CHECK_CMP(shmdt_(b), ==, 0);
	/* The last detach destroyed it. */
	CHECK_ERRNO(shmctl_(id, IPC_STAT, &ds), EINVAL);
	CHECK(!proc_line(id, v));
}

/* Mode 0400: a read-only attach is granted; a writable one only with
 * CAP_IPC_OWNER (root: mmlab's one user). SHM_STAT needs read
 * permission, SHM_STAT_ANY none. */
static void permissions(void)
{
	int id = keep(shmget_(IPC_PRIVATE, PAGE, 0400));
	CHECK_CMP(id, >=, 0);
	char *r = shmat_(id, NULL, SHM_RDONLY);
	CHECK(r != (char *)-1);
	if (r != (char *)-1)
		CHECK_CMP(shmdt_(r), ==, 0);
	if (geteuid() == 0) {
		char *w = shmat_(id, NULL, 0);
		CHECK(w != (char *)-1);
		if (w != (char *)-1)
			CHECK_CMP(shmdt_(w), ==, 0);
	} else {
		CHECK_ERRNO(shmat_(id, NULL, 0), EACCES);
	}
	struct shmid64_ds ds;
	CHECK_CMP(shmctl_(id & 0x7fff, SHM_STAT_ANY, &ds), ==, id);
	CHECK_CMP(ds.shm_perm.mode, ==, 0400);
	CHECK_CMP(shmctl_(id, IPC_RMID, NULL), ==, 0);
}

/* Removed unattached: gone at once; a new segment has another id. */
static void ids(void)
{
	int first = keep(shmget_(IPC_PRIVATE, PAGE, 0600));
	CHECK_CMP(first, >=, 0);
	CHECK_CMP(shmctl_(first, IPC_RMID, NULL), ==, 0);
	struct shmid64_ds ds;
	CHECK_ERRNO(shmctl_(first, IPC_STAT, &ds), EINVAL);
	CHECK_ERRNO(shmctl_(first, IPC_RMID, NULL), EINVAL);
	int second = keep(shmget_(IPC_PRIVATE, PAGE, 0600));
	CHECK_CMP(second, >=, 0);
	CHECK_CMP(second, !=, first);
	CHECK_ERRNO(shmat_(first, NULL, 0), EINVAL);
	CHECK_CMP(shmctl_(second, IPC_RMID, NULL), ==, 0);
}

/* The size limit follows kernel.shmmax as written (on mmlab only: the
 * host's settings are its owner's). */
/* write(2)'s result, or -1 when the file does not open. */
static long write_shmmax(const char *text, size_t len)
{
	int fd = open("/proc/sys/kernel/shmmax", O_WRONLY);
	if (fd < 0)
		return -1;
	long r = write(fd, text, len);
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

static void shmmax_sysctl(void)
{
	if (!on_mmlab()) {
		check_skip("kernel.shmmax not written on Linux (the machine's setting)");
		return;
	}
	char old[64];
	long n = read_file("/proc/sys/kernel/shmmax", old, sizeof(old));
	CHECK_CMP(n, >, 0);
	if (n <= 0 || !CHECK(write_shmmax("8192\n", 5) == 5))
		return;
	CHECK_CMP(sysctl_value("shmmax"), ==, 8192);
	CHECK_ERRNO(shmget_(IPC_PRIVATE, 8193, 0600), EINVAL);
	int id = keep(shmget_(IPC_PRIVATE, 8192, 0600));
	CHECK_CMP(id, >=, 0);
	shmctl_(id, IPC_RMID, NULL);
	CHECK_ERRNO(write_shmmax("-1\n", 3), EINVAL);
	/* kernel.shmmni takes 0 to IPCMNI (32768). */
	int fd = open("/proc/sys/kernel/shmmni", O_WRONLY);
	CHECK_CMP(fd, >=, 0);
	if (fd >= 0) {
		CHECK_ERRNO(write(fd, "32769\n", 6), EINVAL);
		close(fd);
	}
	CHECK(write_shmmax(old, (size_t)n) == n);
	CHECK_CMP(sysctl_value("shmmax"), ==, strtoul(old, NULL, 10));
}

int main(void)
{
	test_begin("sysv_shm");
	atexit(remove_all);
	int key = 0x5e5a0000 | (getpid() & 0xffff);
	if (shmget_(key, 0, 0) >= 0)
		test_skip("key %#x is taken", key);
	header();
	errors(key);
	int id = make_keyed(key);
	if (id < 0)
		return test_end();
	stat_fields(id, key);
	info();
	char *a, *b;
	twice(id, key, &a, &b);
	if (a == (char *)-1 || b == (char *)-1)
		return test_end();
	across_fork(id, a);
	lock(id);
	remove_attached(id, key, a, b);
	permissions();
	ids();
	shmmax_sysctl();
	return test_end();
}
