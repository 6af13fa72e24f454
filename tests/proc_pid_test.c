/* /proc/<pid> of processes other than the reader (fs/proc/base.c): two
 * spinners (tests/user/aux/spin.c), each the root of a tree of its own,
 * are found by id, listed, and invisible to each other (another tree is
 * another pid namespace); a kernel thread finds either. A file looked up
 * while a process ran and read after it was reaped gives Linux's answers
 * (-ESRCH; pagemap nothing), reads no freed task or mm, and holds nothing:
 * the reap is not delayed, and every page, slab object, task_struct and
 * pid-table entry comes back. */
#include "tests/kunit.h"
#include "fs/programs.h"
#include "tests/test_cpu.h"
#include "tests/test_process.h"
#include "tests/test_proc.h"
#include "fs/fs.h"
#include "fs/fs_context.h"
#include "fs/proc/proc_fs.h"
#include "kernel/pid.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/mmu_context.h"
#include "mm/slab.h"
#include "mm/util.h"

#define SPIN_FLAG_ADDR 0x200000000ul /* the spinner's flag page: 1 in its loop, 2 to stop */
#define GUARD_ROUNDS 2000            /* ticks: only to turn a hang into a failure */

struct spinner {
	struct task_struct *p;
	struct mm_struct *mm;
};

/* A spinner in its loop (its flag reads 1), or a failed assertion. */
static void spinner_start(struct kunit *test, struct spinner *s)
{
	if (!find_user_program("spin"))
		kunit_skip(test, "no spin program");
	static char addr[24];
	snprintf(addr, sizeof(addr), "%#lx", SPIN_FLAG_ADDR);
	const char *const argv[] = { "spin", addr, NULL };
	struct process_spawn_args args = { .name = "spin", .path = "/bin/spin", .argv = argv,
					   .cpu = test_other_cpu_or_this(), .want_mm = true };
	int err = 0;
	s->p = process_spawn(&args, &err);
	KUNIT_ASSERT_NOT_NULL(test, s->p);
	s->mm = process_started_mm(s->p);
	int flag = -1;
	for (int i = 0; s->mm && i < GUARD_ROUNDS && (flag = kunit_user_flag(s->mm, SPIN_FLAG_ADDR, 0)) != 1 &&
			READ_ONCE(s->p->mm);
	     i++)
		schedule_timeout_uninterruptible(1);
	KUNIT_EXPECT_EQ(test, flag, 1);
}

static void spinner_stop(struct kunit *test, struct spinner *s)
{
	struct process_result res;
	if (s->mm)
		kunit_user_flag(s->mm, SPIN_FLAG_ADDR, 2);
	process_wait(s->p, &res);
	if (s->mm)
		mmput(s->mm);
	KUNIT_EXPECT_FALSE(test, res.killed);
	KUNIT_EXPECT_EQ(test, res.exit_code, 0);
}

/* The content of path as reader reads it, into out (NUL-terminated;
 * "" when it cannot be read): procfs_generate's errno, its length in
 * *lenp. */
static int gen_for(const char *path, struct task_struct *reader, char out[4096], size_t *lenp)
{
	char *buf = NULL;
	size_t len = 0;
	int err = procfs_generate(path, reader, &buf, &len);
	out[0] = 0;
	if (!err) {
		len = min(len, (size_t)4095);
		memcpy(out, buf, len);
		out[len] = 0;
		kvfree(buf);
	}
	if (lenp)
		*lenp = len;
	return err;
}

struct listing {
	struct dir_context ctx;
	char names[256][16]; /* the kernel threads too: a few per CPU */
	int n;
};

static bool collect(struct dir_context *ctx, const char *name, int len, long pos, unsigned long ino,
		    unsigned int type)
{
	(void)pos, (void)ino, (void)type;
	struct listing *l = container_of(ctx, struct listing, ctx);
	if (l->n < 256 && len < 16) {
		memcpy(l->names[l->n], name, (size_t)len);
		l->names[l->n][len] = 0;
		l->n++;
	}
	return true;
}

static bool listed(const struct listing *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->names[i], name))
			return true;
	return false;
}

static void other_processes_found_and_listed(struct kunit *test)
{
	struct spinner a, b;
	spinner_start(test, &a);
	spinner_start(test, &b);
	static char text[4096];
	static struct listing l;
	char path[64], want[32], id_a[16], id_b[16];
	snprintf(id_a, sizeof(id_a), "%d", a.p->tgid);
	snprintf(id_b, sizeof(id_b), "%d", b.p->tgid);

	/* A finds itself by id; B, of another tree, is not there for it. */
	snprintf(path, sizeof(path), "/proc/%d/status", a.p->tgid);
	KUNIT_EXPECT_EQ(test, gen_for(path, a.p, text, NULL), 0);
	snprintf(want, sizeof(want), "\nPid:\t%d\n", a.p->tgid);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, want));
	snprintf(path, sizeof(path), "/proc/%d/status", b.p->tgid);
	KUNIT_EXPECT_EQ(test, gen_for(path, a.p, text, NULL), -ENOENT);

	/* A's /proc: self and A, not B. */
	struct proc_node dir;
	KUNIT_ASSERT_EQ(test, procfs_lookup("/proc", a.p, &dir), 0);
	memset(&l, 0, sizeof(l));
	l.ctx.actor = collect;
	KUNIT_EXPECT_EQ(test, procfs_readdir(&dir, a.p, &l.ctx), 0);
	KUNIT_EXPECT_TRUE(test, listed(&l, "self"));
	KUNIT_EXPECT_TRUE(test, listed(&l, id_a));
	KUNIT_EXPECT_FALSE(test, listed(&l, id_b));

	/* A kernel thread finds B: its maps has B's flag page, its cmdline
	 * B's arguments, NUL-separated. */
	snprintf(path, sizeof(path), "/proc/%d/maps", b.p->tgid);
	KUNIT_EXPECT_EQ(test, gen_for(path, current, text, NULL), 0);
	snprintf(want, sizeof(want), "%08lx-%08lx rw-p ", SPIN_FLAG_ADDR, SPIN_FLAG_ADDR + PAGE_SIZE);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, want));
	size_t len;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", b.p->tgid);
	KUNIT_EXPECT_EQ(test, gen_for(path, current, text, &len), 0);
	char args[32];
	int n = snprintf(args, sizeof(args), "spin%c%#lx", 0, SPIN_FLAG_ADDR);
	KUNIT_EXPECT_EQ(test, len, (size_t)n + 1);
	KUNIT_EXPECT_TRUE(test, len == (size_t)n + 1 && !memcmp(text, args, len));
	snprintf(path, sizeof(path), "/proc/%d/comm", b.p->tgid);
	KUNIT_EXPECT_EQ(test, gen_for(path, current, text, NULL), 0);
	KUNIT_EXPECT_STREQ(test, text, "spin\n");

	spinner_stop(test, &a);
	spinner_stop(test, &b);
}

/* Nodes looked up while the spinner runs, read after it was reaped. */
static void file_read_after_reap(struct kunit *test)
{
	struct process_counts before;
	process_counts_take(&before);
	struct spinner a;
	spinner_start(test, &a);
	char path[64];
	struct proc_node status, maps, pagemap;
	snprintf(path, sizeof(path), "/proc/%d/status", a.p->tgid);
	KUNIT_ASSERT_EQ(test, procfs_lookup(path, current, &status), 0);
	snprintf(path, sizeof(path), "/proc/%d/maps", a.p->tgid);
	KUNIT_ASSERT_EQ(test, procfs_lookup(path, current, &maps), 0);
	snprintf(path, sizeof(path), "/proc/%d/pagemap", a.p->tgid);
	KUNIT_ASSERT_EQ(test, procfs_lookup(path, current, &pagemap), 0);
	char *buf;
	size_t len;
	KUNIT_EXPECT_EQ(test, procfs_fill(&status, &buf, &len), 0);
	kvfree(buf);
	u64 entry = 0;
	long pos = (long)(SPIN_FLAG_ADDR >> PAGE_SHIFT) * 8;
	KUNIT_EXPECT_EQ(test, procfs_read_at(&pagemap, (char *)&entry, 8, &pos, false), 8l);
	KUNIT_EXPECT_TRUE(test, entry >> 63); /* the flag page is present */

	int pid = a.p->tgid;
	spinner_stop(test, &a); /* not held up: the nodes hold nothing */
	KUNIT_EXPECT_EQ(test, procfs_fill(&status, &buf, &len), -ESRCH);
	KUNIT_EXPECT_EQ(test, procfs_fill(&maps, &buf, &len), -ESRCH);
	pos = 0;
	KUNIT_EXPECT_EQ(test, procfs_read_at(&pagemap, (char *)&entry, 8, &pos, false), 0l);
	snprintf(path, sizeof(path), "/proc/%d", pid);
	struct proc_node gone;
	KUNIT_EXPECT_EQ(test, procfs_lookup(path, current, &gone), -ENOENT);
	expect_process_counts_back(test, &before);
}

/* /proc/thread-self of a kernel thread (the reader here) is its own
 * /proc/<pid>/task/<pid>; its comm takes a write from the thread itself
 * (Linux's same_thread_group), while a spinner's refuses it (-EINVAL)
 * and keeps its name. */
static void thread_self_and_comm_write(struct kunit *test)
{
	char *buf, want[24];
	size_t len;
	KUNIT_ASSERT_EQ(test, procfs_generate("/proc/thread-self/stat", current, &buf, &len), 0);
	snprintf(want, sizeof(want), "%d (", current->pid);
	KUNIT_EXPECT_EQ(test, strncmp(buf, want, strlen(want)), 0);
	kvfree(buf);
	char old[TASK_COMM_LEN];
	memcpy(old, current->comm, sizeof(old));
	KUNIT_EXPECT_EQ(test, procfs_write_path("/proc/thread-self/comm", current, "kunit-renamed-too-long", 22), 0);
	KUNIT_EXPECT_STREQ(test, current->comm, "kunit-renamed-t"); /* TASK_COMM_LEN - 1 bytes */
	__set_task_comm(current, old);

	struct process_counts before;
	process_counts_take(&before);
	struct spinner a;
	spinner_start(test, &a);
	char path[32];
	snprintf(path, sizeof(path), "/proc/%d/comm", a.p->tgid);
	KUNIT_EXPECT_EQ(test, procfs_write_path(path, current, "other", 5), -EINVAL);
	KUNIT_EXPECT_STREQ(test, a.p->comm, "spin");
	spinner_stop(test, &a);
	expect_process_counts_back(test, &before);
}

/* ---- kernel threads: ids, /proc/<pid>, signals ---- */

/* A kernel thread that sleeps (TASK_INTERRUPTIBLE: "S") until stopped,
 * and ends with 42. */
static int sleeper_fn(void *unused)
{
	(void)unused;
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 42;
}

/* A kernel thread that ends at once. */
static int quick_fn(void *unused)
{
	(void)unused;
	return 7;
}

/* The kernel thread's own answer for path (the reader: a process, whose
 * tree the kernel threads belong to as well); expects 0 from the read. */
static const char *kread(struct kunit *test, struct task_struct *reader, const char *fmt, int id)
{
	static char text[4096], path[64];
	snprintf(path, sizeof(path), fmt, id);
	int err = gen_for(path, reader, text, NULL);
	if (err)
		kunit_fail(test, false, __FILE__, __LINE__, "%s: error %d", path, err);
	return text;
}

/* The decimal number s starts with (0 if none). */
static unsigned long dec(const char *s)
{
	unsigned long v = 0;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (unsigned long)(*s++ - '0');
	return v;
}

/* The number after label in a status text, or -1. */
static long status_field(const char *text, const char *label)
{
	const char *p = strstr(text, label);
	return p ? (long)dec(p + strlen(label)) : -1;
}

/* A kernel thread as a process of its tree sees it: listed in /proc, its
 * status, stat, statm and the memory files as Linux's for a task without
 * an mm; init (1) and kthreadd (2) with parent 0, the thread kthreadd's
 * child. */
static void kthread_in_proc(struct kunit *test)
{
	struct spinner a;
	spinner_start(test, &a);
	struct task_struct *k = kthread_create(sleeper_fn, NULL, "kt_proc");
	KUNIT_ASSERT_NOT_NULL(test, k);
	wake_up_process(k);
	while (READ_ONCE(k->__state) != TASK_INTERRUPTIBLE) /* until it sleeps */
		schedule_timeout_uninterruptible(1);
	int id = k->pid;
	KUNIT_EXPECT_GT(test, id, KTHREADD_PID);
	char want[64];

	const char *t = kread(test, a.p, "/proc/%d/status", id);
	KUNIT_EXPECT_TRUE(test, !strncmp(t, "Name:\tkt_proc\n", 14));
	KUNIT_EXPECT_NOT_NULL(test, strstr(t, "\nState:\tS (sleeping)\n"));
	snprintf(want, sizeof(want), "\nTgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t2\n", id, id);
	KUNIT_EXPECT_NOT_NULL(test, strstr(t, want));
	snprintf(want, sizeof(want), "\nNStgid:\t%d\nNSpid:\t%d\nNSpgid:\t0\nNSsid:\t0\n", id, id);
	KUNIT_EXPECT_NOT_NULL(test, strstr(t, want));
	KUNIT_EXPECT_NOT_NULL(test, strstr(t, "\nKthread:\t1\n"));
	KUNIT_EXPECT_NULL(test, strstr(t, "VmRSS:")); /* no mm */
	KUNIT_EXPECT_NOT_NULL(test, strstr(t, "\nSigIgn:\tffffffffffffffff\n"));
	KUNIT_EXPECT_EQ(test, status_field(t, "\nThreads:\t"), 1);

	/* stat: pid (comm) S ppid pgrp session tty tpgid flags ... */
	t = kread(test, a.p, "/proc/%d/stat", id);
	snprintf(want, sizeof(want), "%d (kt_proc) S 2 0 0 0 -1 ", id);
	KUNIT_EXPECT_TRUE(test, !strncmp(t, want, strlen(want)));
	unsigned long flags = strlen(t) > strlen(want) ? dec(t + strlen(want)) : 0;
	KUNIT_EXPECT_TRUE(test, flags & PF_KTHREAD);
	/* Field 38, the exit signal: SIGCHLD, as kthreadd's children's. */
	const char *f = t;
	for (int i = 1; i < 38 && f; i++)
		f = strchr(f + 1, ' ');
	KUNIT_EXPECT_TRUE(test, f && dec(f + 1) == SIGCHLD);
	KUNIT_EXPECT_STREQ(test, kread(test, a.p, "/proc/%d/statm", id), "0 0 0 0 0 0 0\n");
	KUNIT_EXPECT_STREQ(test, kread(test, a.p, "/proc/%d/comm", id), "kt_proc\n");
	static const char *const empty[] = { "cmdline", "environ", "maps", "smaps", "numa_maps" };
	for (unsigned int i = 0; i < ARRAY_SIZE(empty); i++) {
		char fmt[48];
		snprintf(fmt, sizeof(fmt), "/proc/%%d/%s", empty[i]);
		KUNIT_EXPECT_STREQ(test, kread(test, a.p, fmt, id), "");
	}
	/* smaps_rollup needs an mm: -ESRCH, as Linux's. */
	char path[64];
	static char text[4096];
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", id);
	KUNIT_EXPECT_EQ(test, gen_for(path, a.p, text, NULL), -ESRCH);
	/* task/ has the thread itself, with the same status. */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", id, id);
	KUNIT_EXPECT_EQ(test, gen_for(path, a.p, text, NULL), 0);
	KUNIT_EXPECT_TRUE(test, !strncmp(text, "Name:\tkt_proc\n", 14));

	/* The spinner's /proc lists it, kthreadd and init beside itself. */
	struct proc_node dir;
	static struct listing l;
	KUNIT_ASSERT_EQ(test, procfs_lookup("/proc", a.p, &dir), 0);
	memset(&l, 0, sizeof(l));
	l.ctx.actor = collect;
	KUNIT_EXPECT_EQ(test, procfs_readdir(&dir, a.p, &l.ctx), 0);
	char name[16];
	snprintf(name, sizeof(name), "%d", id);
	KUNIT_EXPECT_TRUE(test, listed(&l, name));
	KUNIT_EXPECT_TRUE(test, listed(&l, "1"));
	KUNIT_EXPECT_TRUE(test, listed(&l, "2"));
	snprintf(name, sizeof(name), "%d", a.p->tgid);
	KUNIT_EXPECT_TRUE(test, listed(&l, name));
	/* In increasing order after "self" and "thread-self". */
	bool increasing = true;
	unsigned long prev = 0;
	for (int i = 0; i < l.n; i++) {
		if (l.names[i][0] < '0' || l.names[i][0] > '9')
			continue; /* the fixed files, self, thread-self */
		increasing &= dec(l.names[i]) > prev;
		prev = dec(l.names[i]);
	}
	KUNIT_EXPECT_TRUE(test, increasing);

	t = kread(test, a.p, "/proc/%d/stat", KTHREADD_PID);
	KUNIT_EXPECT_TRUE(test, !strncmp(t, "2 (kthreadd) S 0 0 0 0 -1 ", 26));
	t = kread(test, a.p, "/proc/%d/status", INIT_PID);
	KUNIT_EXPECT_TRUE(test, !strncmp(t, "Name:\tinit\n", 11));
	KUNIT_EXPECT_NOT_NULL(test, strstr(t, "\nPid:\t1\nPPid:\t0\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(t, "\nKthread:\t1\n"));

	KUNIT_EXPECT_EQ(test, kthread_stop(k), 42);
	spinner_stop(test, &a);
}

/* Signals to a kernel thread are dropped, SIGKILL and SIGSTOP too: the
 * send succeeds, the thread sleeps on and ends when stopped. */
static void kthread_ignores_signals(struct kunit *test)
{
	struct task_struct *k = kthread_create(sleeper_fn, NULL, "kt_sig");
	KUNIT_ASSERT_NOT_NULL(test, k);
	wake_up_process(k);
	static const int sigs[] = { SIGKILL, SIGSTOP, SIGTERM, SIGINT, SIGCONT, SIGUSR1 };
	for (unsigned int i = 0; i < ARRAY_SIZE(sigs); i++) {
		struct kernel_siginfo info = { .si_signo = sigs[i], .si_code = SI_USER };
		KUNIT_EXPECT_EQ(test, send_signal(sigs[i], &info, k, true), 0);
		KUNIT_EXPECT_EQ(test, send_sig(sigs[i], k), 0);
	}
	schedule_timeout_uninterruptible(2);
	KUNIT_EXPECT_NE(test, (long)READ_ONCE(k->__state), (long)TASK_DEAD);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(k->__state) & __TASK_STOPPED);
	KUNIT_EXPECT_EQ(test, kthread_stop(k), 42);
}

#define PID_MAX_PATH "/proc/sys/kernel/pid_max"

/* pid_max as /proc/sys/kernel/pid_max reads, or -1. */
static int read_pid_max(struct kunit *test)
{
	char *text = test_proc_read(test, PID_MAX_PATH);
	unsigned int v;
	int err = text ? kstrtouint(text, 10, &v) : -EINVAL;
	test_proc_free(test, text);
	return err ? -1 : (int)v;
}

static long write_pid_max(int v)
{
	char text[16];
	int len = snprintf(text, sizeof(text), "%d\n", v);
	int err = procfs_write_path(PID_MAX_PATH, current, text, (size_t)len);
	return err ? err : len;
}

static void restore_pid_max(void *v)
{
	write_pid_max((int)(long)v);
}

/* /proc/sys/kernel/pid_max takes Linux's bounds: from RESERVED_PIDS + 1
 * (301) to the id space's size (32768 here), -EINVAL outside, and reads
 * back what was written. */
static void pid_max_takes_its_bounds(struct kunit *test)
{
	int saved = read_pid_max(test);
	KUNIT_ASSERT_EQ(test, saved, 32768);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_pid_max, (void *)(long)saved), 0);
	KUNIT_EXPECT_EQ(test, write_pid_max(300), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, write_pid_max(32769), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, read_pid_max(test), saved);
	KUNIT_EXPECT_EQ(test, write_pid_max(301), 4l);
	KUNIT_EXPECT_EQ(test, read_pid_max(test), 301);
	KUNIT_EXPECT_EQ(test, write_pid_max(32768), 6l);
	KUNIT_EXPECT_EQ(test, read_pid_max(test), 32768);
}

/* Every kernel thread's id is freed when it is reaped: the table and the
 * allocator's count come back, the id is found no more; and the ids are
 * handed out cyclically, so one comes back once the others below pid_max
 * were used (Linux's idr_alloc_cyclic, wrapping to RESERVED_PIDS). */
static void kthread_pids_freed_and_reused(struct kunit *test)
{
	unsigned long table = nr_pids(), held = nr_pids_allocated(), kthreads = nr_kthreads();
	struct task_struct *k = kthread_create(quick_fn, NULL, "kt_quick");
	KUNIT_ASSERT_NOT_NULL(test, k);
	int first = k->pid;
	KUNIT_EXPECT_TRUE(test, pid_in_use(first));
	KUNIT_EXPECT_EQ(test, nr_pids(), table + 1);
	KUNIT_EXPECT_EQ(test, nr_pids_allocated(), held + 1);
	struct task_struct *found = find_get_kthread(first);
	KUNIT_EXPECT_PTR_EQ(test, found, k);
	if (found)
		put_task_struct(found);
	wake_up_process(k);
	KUNIT_EXPECT_EQ(test, kthread_join(k), 7);
	KUNIT_EXPECT_FALSE(test, pid_in_use(first));
	KUNIT_EXPECT_NULL(test, find_get_task_by_vpid(first));
	KUNIT_EXPECT_EQ(test, nr_pids(), table);
	KUNIT_EXPECT_EQ(test, nr_pids_allocated(), held);

	/* Around the id space until an id at or above RESERVED_PIDS (300)
	 * comes back: once, after the wrap, which goes to 300, not below.
	 * pid_max is lowered to 200 ids past this one for the walk: with its
	 * 32,768 it is the same walk, a hundred times longer. */
	int saved_max = read_pid_max(test);
	KUNIT_ASSERT_GT(test, saved_max, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_pid_max, (void *)(long)saved_max), 0);
	int max = (first > 300 ? first : 300) + 200;
	if (max > saved_max)
		max = saved_max;
	KUNIT_ASSERT_GT(test, write_pid_max(max), 0l);
	int rounds = 0, id = 0, prev = first, mark = first >= 300 ? first : 0, wraps = 0, after_wrap = 0, above = 0;
	for (; rounds < 2 * max; rounds++) {
		k = kthread_create(quick_fn, NULL, "kt_quick");
		if (!k)
			break;
		id = k->pid;
		above += id >= max;
		wake_up_process(k);
		kthread_join(k);
		if (id < prev) {
			wraps++;
			after_wrap = id;
		}
		prev = id;
		if (id == mark)
			break;
		if (!mark && id >= 300)
			mark = id;
	}
	KUNIT_EXPECT_EQ(test, id, mark);
	KUNIT_EXPECT_EQ(test, wraps, 1);
	KUNIT_EXPECT_GE(test, after_wrap, 300);
	KUNIT_EXPECT_EQ(test, above, 0);
	KUNIT_EXPECT_EQ(test, nr_pids(), table);
	KUNIT_EXPECT_EQ(test, nr_pids_allocated(), held);
	KUNIT_EXPECT_EQ(test, nr_kthreads(), kthreads);
}

static struct kunit_case proc_pid_cases[] = {
	KUNIT_CASE(other_processes_found_and_listed),
	KUNIT_CASE(file_read_after_reap),
	KUNIT_CASE(thread_self_and_comm_write),
	KUNIT_CASE(kthread_in_proc),
	KUNIT_CASE(kthread_ignores_signals),
	KUNIT_CASE(pid_max_takes_its_bounds),
	KUNIT_CASE(kthread_pids_freed_and_reused),
	{}
};

static struct kunit_suite proc_pid_suite = {
	.name = "proc_pid",
	.test_cases = proc_pid_cases,
};
kunit_test_suite(proc_pid_suite);
