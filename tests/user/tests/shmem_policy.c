/* Shared NUMA policies of shmem objects from user space: mbind on a
 * MAP_SHARED mapping (anonymous, a memfd) sets the policy of the object's
 * pages, not of the mapping: another process's mapping of the object, a
 * mapping at another offset, a MAP_PRIVATE mapping of the memfd and a
 * mapping made after the first one is gone all read it with
 * get_mempolicy(MPOL_F_ADDR) and /proc/self/numa_maps, and the object's
 * new pages are placed by it whoever makes them (a fault in a child,
 * write(2)), the home node of set_mempolicy_home_node included.
 * set_mempolicy_home_node goes by the VMA's own policy (Linux 6.1's
 * vma_policy), so a mapping that never had mbind is ENOENT even when its
 * object has a policy. MPOL_MF_STRICT with a page already on another node
 * is EIO and changes nothing. Shmem pages move with mbind's MPOL_MF_MOVE
 * and move_pages, one mapped by two processes only with
 * MPOL_MF_MOVE_ALL.
 *
 * The same file runs on mmlab, the host's Linux and Linux 6.1 in the
 * linux-ring topology; what needs two nodes with memory is skipped on a
 * machine with one. Nodes come from /sys/devices/system/node
 * (common/numa_policy.h). */
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "numa_policy.h"

#define PG PAGE_4K

/* get_mempolicy(MPOL_F_ADDR) at p: the mode (with its flags), -errno on
 * failure; the mask in *mask. */
static int policy_at(void *p, unsigned long *mask)
{
	int mode = -1;
	*mask = ~0ul;
	if (get_mempolicy(&mode, mask, MAXNODE, p, MPOL_F_ADDR))
		return -errno;
	return mode;
}

static bool policy_is(void *p, int mode, unsigned long mask)
{
	unsigned long got;
	int m = policy_at(p, &got);
	if (m == mode && got == mask)
		return true;
	printf("# at %p: mode %d mask %#lx, expected mode %d mask %#lx\n", p, m, got, mode, mask);
	return false;
}

static void *map_shared(int fd, unsigned long len, unsigned long off, int flags)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags | (fd < 0 ? MAP_ANONYMOUS : 0), fd, (off_t)off);
	return p == MAP_FAILED ? NULL : p;
}

static int make_memfd(unsigned long pages)
{
	int fd = (int)syscall(SYS_memfd_create, "shmem_policy", 0);
	if (fd >= 0 && ftruncate(fd, (off_t)(pages * PG))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A new memfd of pages pages (its descriptor in *fd) mapped MAP_SHARED
 * whole; NULL (checked) if either fails. */
static char *memfd_mapped(unsigned long pages, int *fd)
{
	*fd = make_memfd(pages);
	char *p = *fd >= 0 ? map_shared(*fd, pages * PG, 0, MAP_SHARED) : NULL;
	CHECK(p);
	return p;
}

/* Runs fn in a child process; true when it exited 0. */
static bool in_child(bool (*fn)(char *), char *arg)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(fn(arg) ? 0 : 1);
	int st;
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static unsigned long first_mem;	 /* the mask of the first node with memory */
static int first_mem_node;

/* The child's view of the anonymous object: page 1 bound (set by the
 * parent before the fork), then page 3 preferred, set here. */
static bool child_reads_and_sets(char *p)
{
	bool ok = policy_is(p, MPOL_DEFAULT, 0) && policy_is(p + PG, MPOL_BIND, first_mem) &&
		  policy_is(p + 2 * PG, MPOL_DEFAULT, 0);
	return ok && mbind(p + 3 * PG, PG, MPOL_PREFERRED, &first_mem, MAXNODE, 0) == 0;
}

static void anonymous_object(void)
{
	char *p = map_shared(-1, 4 * PG, 0, MAP_SHARED);
	CHECK(p);
	if (!p)
		return;
	CHECK_CMP(mbind(p + PG, PG, MPOL_BIND, &first_mem, MAXNODE, 0), ==, 0);
	CHECK(in_child(child_reads_and_sets, p));
	/* What the child set is the object's. */
	CHECK(policy_is(p + 3 * PG, MPOL_PREFERRED, first_mem));
	CHECK(policy_is(p + 2 * PG, MPOL_DEFAULT, 0));
	/* MPOL_DEFAULT through this mapping resets the object where this
	 * mapping's VMA had a policy of its own. (Page 3 is left out: its VMA
	 * here has none, so mbind_range passes it over unless the VMA merges
	 * with a neighbour that had one; Linux merges shared anonymous VMAs,
	 * mmlab does not.) */
	CHECK_CMP(mbind(p, 4 * PG, MPOL_DEFAULT, NULL, 0, 0), ==, 0);
	CHECK(policy_is(p + PG, MPOL_DEFAULT, 0));
	munmap(p, 4 * PG);
}

/* "<addr> <policy>" at the start of p's numa_maps line, and " N<n>=<count> "
 * in it when count is not 0. */
static bool numa_maps_has(void *p, const char *policy, int nid, int count)
{
	char line[512], want[96];
	numa_maps_line(p, line, sizeof(line));
	size_t n = (size_t)snprintf(want, sizeof(want), "%08lx %s", (unsigned long)p, policy);
	bool ok = !strncmp(line, want, n) && (line[n] == ' ' || !line[n]);
	if (ok && count) {
		snprintf(want, sizeof(want), " N%d=%d ", nid, count);
		ok = strstr(line, want) != NULL;
	}
	if (!ok)
		printf("# numa_maps: '%s', expected '%08lx %s' (N%d=%d)\n", line, (unsigned long)p, policy, nid, count);
	return ok;
}

static void memfd_policy(void)
{
	int fd = make_memfd(8);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	char *a = map_shared(fd, 8 * PG, 0, MAP_SHARED);
	CHECK(a);
	if (!a)
		return;
	int bind_static = MPOL_BIND | MPOL_F_STATIC_NODES;
	CHECK_CMP(mbind(a + 2 * PG, 3 * PG, bind_static, &first_mem, MAXNODE, 0), ==, 0);
	CHECK_CMP(munmap(a, 8 * PG), ==, 0);
	/* Mapped again, at offset 0, at offset 4 pages, and privately. */
	char *b = map_shared(fd, 8 * PG, 0, MAP_SHARED), *c = map_shared(fd, 2 * PG, 4 * PG, MAP_SHARED),
	     *d = map_shared(fd, 8 * PG, 0, MAP_PRIVATE);
	CHECK(b && c && d);
	if (!b || !c || !d)
		return;
	for (int i = 0; i < 8; i++) {
		bool bound = i >= 2 && i < 5;
		CHECKF(policy_is(b + i * PG, bound ? bind_static : MPOL_DEFAULT, bound ? first_mem : 0),
		       "page %d of a new shared mapping", i);
		CHECKF(policy_is(d + i * PG, bound ? bind_static : MPOL_DEFAULT, bound ? first_mem : 0),
		       "page %d of a private mapping", i);
	}
	CHECK(policy_is(c, bind_static, first_mem));
	CHECK(policy_is(c + PG, MPOL_DEFAULT, 0));
	/* numa_maps shows the policy at each mapping's first page, and where
	 * its pages are. */
	char pol[64];
	snprintf(pol, sizeof(pol), "bind=static:%d", first_mem_node);
	c[0] = 1; /* offset 4, bound */
	CHECK(numa_maps_has(c, pol, first_mem_node, 1));
	CHECK(numa_maps_has(b, "default", 0, 0));
	/* mbind through the private mapping sets the file's policy too. */
	CHECK_CMP(mbind(d + 5 * PG, PG, MPOL_PREFERRED, &first_mem, MAXNODE, 0), ==, 0);
	CHECK(policy_is(c + PG, MPOL_PREFERRED, first_mem));
	/* set_mempolicy_home_node goes by each VMA's own policy: b's never
	 * had one (ENOENT), c's interleave is refused (EOPNOTSUPP). */
	CHECK_ERRNO(home_node(b + 2 * PG, PG, (unsigned long)first_mem_node, 0), ENOENT);
	CHECK_CMP(mbind(c, PG, MPOL_INTERLEAVE, &first_mem, MAXNODE, 0), ==, 0);
	CHECK_ERRNO(home_node(c, PG, (unsigned long)first_mem_node, 0), EOPNOTSUPP);
	CHECK(policy_is(b + 4 * PG, MPOL_INTERLEAVE, first_mem));
	munmap(b, 8 * PG);
	munmap(c, 2 * PG);
	munmap(d, 8 * PG);
	close(fd);
}

/* Two nodes with memory, a and b (b not the one the program runs on
 * after pinning to a CPU of a, when a has CPUs). */
static int node_a = -1, node_b = -1;

static bool child_touches(char *p)
{
	for (int i = 0; i < 16; i++)
		p[i * PG] = (char)i;
	return true;
}

static void placement(void)
{
	unsigned long ma = 1ul << node_a, mb = 1ul << node_b;
	int fd;
	char *p = memfd_mapped(16, &fd);
	if (!p)
		return;
	/* Pages 0-3 bound to b: a child's faults put them there. */
	CHECK_CMP(mbind(p, 4 * PG, MPOL_BIND, &mb, MAXNODE, 0), ==, 0);
	/* Pages 4-7: every node with memory, home node b. */
	CHECK_CMP(mbind(p + 4 * PG, 4 * PG, MPOL_BIND, &has_memory, MAXNODE, 0), ==, 0);
	CHECK_CMP(home_node(p + 4 * PG, 4 * PG, (unsigned long)node_b, 0), ==, 0);
	/* Pages 8-15: interleaved over every node with memory. */
	CHECK_CMP(mbind(p + 8 * PG, 8 * PG, MPOL_INTERLEAVE, &has_memory, MAXNODE, 0), ==, 0);
	CHECK(in_child(child_touches, p));
	for (int i = 0; i < 8; i++)
		CHECKF(node_of(p + i * PG) == node_b, "page %d on node %d, expected %d", i, node_of(p + i * PG), node_b);
	int per_node[64] = { 0 }, w = __builtin_popcountl(has_memory);
	for (int i = 8; i < 16; i++) {
		int n = node_of(p + i * PG);
		if (n >= 0 && n < 64)
			per_node[n]++;
	}
	/* 8 consecutive offsets over w nodes: each has 8 / w or one more. */
	for (int n = 0; n < 64; n++)
		if (has_memory >> n & 1)
			CHECKF(per_node[n] == 8 / w || per_node[n] == 8 / w + 1, "node %d has %d interleaved pages", n,
			       per_node[n]);
	/* write(2) with nothing mapped makes page 9 of a file by its policy. */
	munmap(p, 16 * PG);
	int fd2 = make_memfd(4);
	p = fd2 >= 0 ? map_shared(fd2, 4 * PG, 0, MAP_SHARED) : NULL;
	CHECK(p);
	if (p) {
		CHECK_CMP(mbind(p, 4 * PG, MPOL_BIND, &mb, MAXNODE, 0), ==, 0);
		munmap(p, 4 * PG);
		CHECK(pwrite(fd2, "x", 1, (off_t)(2 * PG)) == 1);
		p = map_shared(fd2, 4 * PG, 0, MAP_SHARED);
		CHECK(p && node_of(p + 2 * PG) == node_b);
		/* MPOL_MF_STRICT: page 2 is on b, not in {a}: EIO, nothing set. */
		CHECK_ERRNO(mbind(p, 4 * PG, MPOL_BIND, &ma, MAXNODE, MPOL_MF_STRICT), EIO);
		CHECK(policy_is(p, MPOL_BIND, mb));
		CHECK(policy_is(p + 3 * PG, MPOL_BIND, mb));
		/* Page 3 has no page mapped here: nothing misplaced. */
		CHECK_CMP(mbind(p + 3 * PG, PG, MPOL_BIND, &ma, MAXNODE, MPOL_MF_STRICT), ==, 0);
		CHECK(policy_is(p + 3 * PG, MPOL_BIND, ma));
		munmap(p, 4 * PG);
	}
	close(fd);
	close(fd2);
}

/* The node of the page at p as move_pages reports it (no move). */
static int status_of(void *p)
{
	int st = -1000;
	return move_pages(0, 1, &p, NULL, &st, 0) ? -errno : st;
}

/* move_pages of the one page at p to node: the status, or -errno of the
 * call. */
static int move_one(void *p, int node, int flags)
{
	int st = -1000;
	return move_pages(0, 1, &p, &node, &st, flags) ? -errno : st;
}

/* Shmem pages move (Linux's migrate_pages moves shmem folios): mbind's
 * MPOL_MF_MOVE and move_pages, the data with them; one that a child maps
 * too moves only with MPOL_MF_MOVE_ALL (EACCES in its status without),
 * and the child then reads it from the new node. */
static void moving(void)
{
	unsigned long ma = 1ul << node_a, mb = 1ul << node_b;
	int fd;
	char *p = memfd_mapped(4, &fd);
	if (!p)
		return;
	CHECK_CMP(mbind(p, 4 * PG, MPOL_BIND, &ma, MAXNODE, 0), ==, 0);
	for (int i = 0; i < 4; i++)
		p[i * PG] = (char)(i + 1);
	CHECK_CMP(node_of(p), ==, node_a);
	CHECK_CMP(mbind(p, 4 * PG, MPOL_BIND, &mb, MAXNODE, MPOL_MF_MOVE | MPOL_MF_STRICT), ==, 0);
	for (int i = 0; i < 4; i++) {
		CHECKF(node_of(p + i * PG) == node_b, "page %d moved by mbind to node %d (is on %d)", i, node_b,
		       node_of(p + i * PG));
		CHECKF(p[i * PG] == (char)(i + 1), "page %d kept its data", i);
	}
	CHECK_CMP(move_one(p, node_a, 0), ==, node_a);
	CHECK_CMP(status_of(p), ==, node_a);
	CHECK_CMP(node_of(p), ==, node_a);
	CHECK(p[0] == 1);
	/* A child maps page 1 too; a word of shared memory says when it has,
	 * and when it may look again. */
	int *flag = map_shared(-1, PG, 0, MAP_SHARED);
	CHECK(flag);
	if (!flag)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		char c = p[PG]; /* maps it */
		__atomic_store_n(flag, c, __ATOMIC_RELEASE);
		while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != 100)
			sched_yield();
		_exit(p[PG] == 2 && node_of(p + PG) == node_b ? 0 : 1);
	}
	while (pid > 0 && !__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		sched_yield();
	CHECK(*flag == 2);
	CHECK_CMP(move_one(p + PG, node_a, 0), ==, -EACCES);
	CHECK_CMP(node_of(p + PG), ==, node_b);
	int st = move_one(p + PG, node_a, MPOL_MF_MOVE_ALL);
	if (st == -EPERM) {
		check_skip("MPOL_MF_MOVE_ALL needs CAP_SYS_NICE");
		/* The child expects node b: leave it there. */
	} else {
		CHECK_CMP(st, ==, node_a);
		/* Back to b for the child's check, as it was. */
		CHECK_CMP(move_one(p + PG, node_b, MPOL_MF_MOVE_ALL), ==, node_b);
	}
	__atomic_store_n(flag, 100, __ATOMIC_RELEASE);
	int ws;
	CHECK(waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	munmap(flag, PG);
	munmap(p, 4 * PG);
	close(fd);
}

int main(void)
{
	test_begin("shmem_policy");
	read_topology();
	first_mem = has_memory & -has_memory;
	first_mem_node = __builtin_ctzl(first_mem);
	/* mbind may be refused outright where a sandbox filters it. */
	char *probe = map_shared(-1, PG, 0, MAP_SHARED);
	if (!probe || (mbind(probe, PG, MPOL_DEFAULT, NULL, 0, 0) && errno == EPERM))
		test_skip("mbind is not allowed here");
	munmap(probe, PG);
	anonymous_object();
	memfd_policy();
	for (int n = 0; n < 64; n++) {
		if (!(has_memory >> n & 1))
			continue;
		if (node_a < 0)
			node_a = n;
		else if (node_b < 0)
			node_b = n;
	}
	if (node_b < 0) {
		check_skip("one node with memory: placement, home node, MPOL_MF_STRICT, moves");
	} else {
		run_on_node(node_a); /* so that node b is never the local one */
		placement();
		moving();
	}
	return test_end();
}
