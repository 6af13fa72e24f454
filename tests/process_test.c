/* Tests of processes themselves (kernel/process.c, fs/binfmt_elf.c, the
 * scheduler's user side), with the helper programs of tests/user/aux:
 * exit statuses and arguments arrive, hostile ELF images are refused with
 * nothing leaked, a process that never makes a system call still lets its
 * CPU run other tasks and RCU complete grace periods (user mode is
 * preemptible) and survives an NMI (the paranoid entry), and a kill says
 * who, where and why. */
#include "tests/kunit.h"
#include "tests/test_cpu.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/syscall.h"
#include "arch/x86_64/traps.h"
#include "fs/binfmt_elf.h"
#include "drivers/firmware/multiboot2.h"
#include "kernel/printk.h"
#include "fs/programs.h"
#include "kernel/process.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "kernel/time.h"
#include "kernel/topology.h"
#include "mm/mmu_context.h"
#include "fs/fs.h"
#include "fs/init.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

static const struct user_program *need_program(struct kunit *test, const char *name)
{
	const struct user_program *m = find_user_program(name);
	if (!m)
		kunit_skip(test, "the ISO has no program %s", name);
	return m;
}

static void exit_status_and_arguments_arrive(struct kunit *test)
{
	need_program(test, "exit_with");
	const char *const argv[] = { "exit_with", "42", "two words", NULL };
	struct process_result res;
	int err = 0;
	KUNIT_ASSERT_TRUE(test, process_run("exit_with", argv, smp_processor_id(), &res, &err));
	KUNIT_EXPECT_FALSE(test, res.killed);
	KUNIT_EXPECT_EQ(test, res.exit_code, 42);
	/* Its last console line is kept for the reaper (a skip's reason). */
	KUNIT_EXPECT_STREQ(test, res.last_line, "exit_with: argc 3 [exit_with] [42] [two words]");
	/* The status is the low byte, as Linux's. */
	const char *const argv2[] = { "exit_with", "257", NULL };
	KUNIT_ASSERT_TRUE(test, process_run("exit_with", argv2, test_other_cpu_or_this(), &res, &err));
	KUNIT_EXPECT_EQ(test, res.exit_code, 1);
	KUNIT_EXPECT_EQ(test, nr_processes(), 0);
}

static void too_many_arguments_are_refused(struct kunit *test)
{
	need_program(test, "exit_with");
	const char *argv[40];
	for (int i = 0; i < 39; i++)
		argv[i] = "x";
	argv[39] = NULL;
	struct process_spawn_args args = { .name = "exit_with", .path = "/bin/exit_with", .argv = argv };
	int err = 0;
	KUNIT_EXPECT_NULL(test, process_spawn(&args, &err));
	KUNIT_EXPECT_EQ(test, err, -E2BIG);
}

/* The whole file at path (a program under /bin), kmalloc'd: NULL if it
 * cannot be read. */
static u8 *read_whole_file(const char *path, unsigned long *size)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return NULL;
	long len = (long)READ_ONCE(f->f_inode->i_size);
	u8 *buf = len > 0 ? kmalloc((size_t)len, GFP_KERNEL) : NULL;
	long long pos = 0;
	if (buf && kernel_read(f, buf, (size_t)len, &pos) != len) {
		kfree(buf);
		buf = NULL;
	}
	filp_close(f);
	*size = (unsigned long)len;
	return buf;
}

static void free_file_copy(void *buf) { kfree(buf); }

/* A damaged copy of a good image must be refused before anything is made. */
static int spawn_damaged(const u8 *good, unsigned long size, void (*damage)(u8 *image))
{
	u8 *copy = kmalloc(size, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, good, size);
	damage(copy);
	struct process_spawn_args args = { .name = "damaged", .image = copy, .image_size = size };
	int err = 0;
	struct task_struct *p = process_spawn(&args, &err);
	if (p) { /* it should not have started: reap it anyway */
		struct process_result res;
		process_wait(p, &res);
		err = 1;
	}
	kfree(copy);
	return err;
}

static Elf64_Ehdr *ehdr(u8 *image) { return (Elf64_Ehdr *)image; }
static Elf64_Phdr *first_load(u8 *image)
{
	Elf64_Phdr *ph = (Elf64_Phdr *)(image + ehdr(image)->e_phoff);
	for (int i = 0; i < ehdr(image)->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD)
			return &ph[i];
	return ph;
}
static void bad_magic(u8 *im) { im[1] = 'X'; }
static void bad_class(u8 *im) { im[4] = 1; /* ELFCLASS32 */ }
static void bad_machine(u8 *im) { ehdr(im)->e_machine = 3; /* i386 */ }
static void phdrs_outside(u8 *im) { ehdr(im)->e_phoff = 0xfffffffffffffff0ull; }
static void many_phdrs(u8 *im) { ehdr(im)->e_phnum = 0xffff; }
static void filesz_beyond_file(u8 *im) { first_load(im)->p_filesz = 0x7fffffffffffull; first_load(im)->p_memsz = 0x7fffffffffffull; }
static void filesz_over_memsz(u8 *im) { first_load(im)->p_memsz = first_load(im)->p_filesz - 1; }
static void kernel_address(u8 *im) { first_load(im)->p_vaddr = 0xffff888000000000ull; }
static void wrapping_segment(u8 *im) { first_load(im)->p_memsz = ~0ull - first_load(im)->p_vaddr + 2; }
static void null_page(u8 *im) { first_load(im)->p_vaddr = 0; first_load(im)->p_offset = 0; }
static void entry_outside(u8 *im) { ehdr(im)->e_entry = 0x1000; }
static void interp(u8 *im) { first_load(im)->p_type = PT_INTERP; }

static void hostile_images_are_refused(struct kunit *test)
{
	need_program(test, "exit_with");
	static const struct {
		void (*damage)(u8 *);
		const char *what;
	} cases[] = {
		{ bad_magic, "no ELF magic" }, { bad_class, "32-bit" }, { bad_machine, "i386" },
		{ phdrs_outside, "program headers past the end" },
		{ many_phdrs, "65535 program headers" }, { filesz_beyond_file, "segment past the file" },
		{ filesz_over_memsz, "filesz > memsz" }, { kernel_address, "kernel address" },
		{ wrapping_segment, "segment wrapping around" }, { null_page, "segment at 0" },
		{ entry_outside, "entry outside the code" }, { interp, "PT_INTERP" },
	};
	unsigned long size = 0;
	u8 *good = read_whole_file("/bin/exit_with", &size);
	KUNIT_ASSERT_NOT_NULL(test, good);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, free_file_copy, good), 0);
	struct kunit_resources before;
	kunit_resources_take(&before);
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		int err = spawn_damaged(good, size, cases[i].damage);
		if (err != -ENOEXEC)
			kunit_info(test, "image with %s: error %d, expected -ENOEXEC", cases[i].what, err);
		KUNIT_EXPECT_EQ(test, err, -ENOEXEC);
	}
	kunit_expect_resources_back(test, &before);
}

struct neighbour {
	struct task_struct *spinner;
	u64 spinner_vector, spinner_cs; /* the frame it was switched out from */
	bool spinner_alive;
	unsigned long spinner_nivcsw;   /* preemptions counted so far */
};

static int neighbour_fn(void *data)
{
	struct neighbour *n = data;
	/* We run on the spinner's CPU, so it is switched out right now; the
	 * frame at the top of its kernel stack says from where: an interrupt
	 * (the tick) taken in user mode, not a system call (the case waited
	 * for its flag, so it is past its calibrating system calls). */
	const struct pt_regs *regs =
		(const struct pt_regs *)((char *)n->spinner->stack + THREAD_SIZE) - 1;
	n->spinner_vector = regs->vector;
	n->spinner_cs = regs->cs;
	n->spinner_alive = READ_ONCE(n->spinner->mm) != NULL;
	n->spinner_nivcsw = READ_ONCE(n->spinner->nivcsw);
	return 0;
}

#define SPIN_FLAG_ADDR 0x200000000ul /* the spinner's flag page: 1 in its loop, 2 to stop */
#define GUARD_TICKS 2000             /* 20 s of this CPU's ticks: only to turn a hang into a failure */

/* The spinner's flag word (kunit_user_flag). */
static int spin_flag(struct mm_struct *mm, int write) { return kunit_user_flag(mm, SPIN_FLAG_ADDR, write); }

/* A process that never makes a system call still lets its CPU run other
 * tasks and pass RCU quiescent states, and takes an NMI in user mode. The
 * spinner spins until this case tells it to stop, so each step below sees
 * it alive whatever the host's load makes of the timing: every wait is for
 * an event (its flag, a thread's end, a grace period, an NMI count), and a
 * bound on one is only a hang guard. */
static void user_mode_is_preemptible(struct kunit *test)
{
	need_program(test, "spin");
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU for the spinner");
	unsigned cpu = test_other_cpu_or_this();
	char addr[24];
	snprintf(addr, sizeof(addr), "%#lx", SPIN_FLAG_ADDR);
	const char *const argv[] = { "spin", addr, NULL };
	struct process_spawn_args args = { .name = "spin", .path = "/bin/spin", .argv = argv, .cpu = cpu,
					   .want_mm = true };
	int err = 0;
	struct task_struct *p = process_spawn(&args, &err);
	KUNIT_ASSERT_NOT_NULL(test, p);
	/* The mm its execve made, with a reference (Linux's mmget) taken
	 * before it could exit. */
	struct mm_struct *mm = process_started_mm(p);
	if (!mm) { /* its execve failed: it has ended, or is ending */
		struct process_result gone;
		process_wait(p, &gone);
		kunit_info(test, "the program did not start (exit status %d)", gone.exit_code);
		KUNIT_ASSERT_NOT_NULL(test, mm);
	}

	/* In its loop once its flag reads 1 (it calibrates with system calls
	 * first). */
	int flag = -1;
	unsigned long start = ticks_on_cpu(smp_processor_id());
	while ((flag = spin_flag(mm, 0)) != 1 && READ_ONCE(p->mm) &&
	       ticks_on_cpu(smp_processor_id()) - start < GUARD_TICKS)
		schedule_timeout_uninterruptible(1);
	KUNIT_EXPECT_EQ(test, flag, 1);

	struct neighbour n = { .spinner = p };
	struct task_struct *k = kthread_run_on_cpu(neighbour_fn, &n, cpu, "neighbour/%u");
	KUNIT_EXPECT_NOT_NULL(test, k);
	if (k)
		kthread_join(k);
	/* A grace period needs a quiescent state from the spinner's CPU too:
	 * a tick in user mode is one. */
	synchronize_rcu();
	bool alive_after_gp = READ_ONCE(p->mm) != NULL;
	/* An NMI in user mode: its entry must find the user's GS base (from
	 * MSR_GS_BASE, or with FSGSBASE from rdgsbase: the saved CS is no
	 * proof for NMIs), put the kernel's in and the user's back after,
	 * and the spinner go on to exit normally. And one in kernel mode,
	 * here, which must not swap. */
	unsigned long nmis = per_cpu(nmi_count, cpu), my_nmis = this_cpu_read(nmi_count);
	apic_send_nmi(cpu_physical_id(cpu));
	apic_send_nmi(cpu_physical_id(smp_processor_id()));
	start = ticks_on_cpu(smp_processor_id());
	while (per_cpu(nmi_count, cpu) == nmis && ticks_on_cpu(smp_processor_id()) - start < GUARD_TICKS)
		schedule_timeout_uninterruptible(1);
	bool nmi_while_alive = READ_ONCE(p->mm) != NULL;

	/* Tell it to stop; one that has not reached its loop yet finds the 2
	 * and stops there. */
	KUNIT_EXPECT_EQ(test, spin_flag(mm, 2), 2);
	struct process_result res;
	process_wait(p, &res);
	if (mm)
		mmput(mm);
	KUNIT_EXPECT_TRUE(test, n.spinner_alive);
	KUNIT_EXPECT_GE(test, n.spinner_vector, 32);
	KUNIT_EXPECT_NE(test, n.spinner_vector, SYSCALL_VECTOR_MARK);
	KUNIT_EXPECT_EQ(test, n.spinner_cs & 3, 3);
	KUNIT_EXPECT_GE(test, n.spinner_nivcsw, 1); /* nonvoluntary_ctxt_switches */
	KUNIT_EXPECT_TRUE(test, alive_after_gp);
	KUNIT_EXPECT_EQ(test, per_cpu(nmi_count, cpu), nmis + 1);
	KUNIT_EXPECT_EQ(test, this_cpu_read(nmi_count), my_nmis + 1);
	KUNIT_EXPECT_TRUE(test, nmi_while_alive);
	KUNIT_EXPECT_FALSE(test, res.killed);
	KUNIT_EXPECT_EQ(test, res.exit_code, 0);
}

/* The window the paranoid entry exists for: kernel mode (CS says kernel)
 * with the user's GS base loaded, as in the first instruction of the
 * syscall entry. An NMI there must find the kernel's GS base without
 * trusting the saved CS (the sign of MSR_GS_BASE, or with FSGSBASE the
 * per-CPU slot on its IST stack), load it, and put the user's back;
 * one that trusted the saved CS would use GS base 0 and die. Nothing
 * between the two swapgs touches per-CPU data (apic_send_nmi writes the
 * ICR only). */
static void nmi_with_the_user_gs_in_kernel_mode(struct kunit *test)
{
	unsigned long before = this_cpu_read(nmi_count), flags;
	u32 apic_id = cpu_physical_id(smp_processor_id());
	local_irq_save(flags);
	__asm__ volatile("swapgs" ::: "memory"); /* GS = the user's (0) */
	apic_send_nmi(apic_id);
	for (volatile int i = 0; i < 100000; i++)
		__builtin_ia32_pause();
	__asm__ volatile("swapgs" ::: "memory");
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, this_cpu_read(nmi_count), before + 1);
}

static void kill_report_names_pid_address_and_reason(struct kunit *test)
{
	need_program(test, "null_write");
	static char captured[2048];
	struct printk_capture cap;
	struct process_result res;
	int err = 0;
	printk_capture_begin(&cap, captured, sizeof(captured));
	bool ran = process_run("null_write", NULL, smp_processor_id(), &res, &err);
	printk_capture_end(&cap);
	KUNIT_ASSERT_TRUE(test, ran);
	KUNIT_EXPECT_TRUE(test, res.killed);
	KUNIT_EXPECT_NOT_NULL(test, strstr(res.reason, "at address 0x0 "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(res.reason, "no mapping"));
	/* One line on the console: "mmlab: process <pid> (null_write) killed: ..." */
	const char *line = strstr(captured, "mmlab: process ");
	KUNIT_ASSERT_NOT_NULL(test, line);
	KUNIT_EXPECT_NOT_NULL(test, strstr(line, "(null_write) killed: "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(line, res.reason));
}

static struct kunit_case process_cases[] = {
	KUNIT_CASE(exit_status_and_arguments_arrive),
	KUNIT_CASE(too_many_arguments_are_refused),
	KUNIT_CASE(hostile_images_are_refused),
	KUNIT_CASE(user_mode_is_preemptible),
	KUNIT_CASE(nmi_with_the_user_gs_in_kernel_mode),
	KUNIT_CASE(kill_report_names_pid_address_and_reason),
	{}
};

static struct kunit_suite process_suite = {
	.name = "process",
	.test_cases = process_cases,
};
kunit_test_suite(process_suite);
