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
#include "fs/fs.h"
#include "fs/proc/proc_fs.h"
#include "kernel/process.h"
#include "kernel/sched.h"
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
	char names[64][16];
	int n;
};

static bool collect(struct dir_context *ctx, const char *name, int len, long pos, unsigned long ino,
		    unsigned int type)
{
	(void)pos, (void)ino, (void)type;
	struct listing *l = container_of(ctx, struct listing, ctx);
	if (l->n < 64 && len < 16) {
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

static struct kunit_case proc_pid_cases[] = {
	KUNIT_CASE(other_processes_found_and_listed),
	KUNIT_CASE(file_read_after_reap),
	KUNIT_CASE(thread_self_and_comm_write),
	{}
};

static struct kunit_suite proc_pid_suite = {
	.name = "proc_pid",
	.test_cases = proc_pid_cases,
};
kunit_test_suite(proc_pid_suite);
