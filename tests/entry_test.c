/* The paranoid entry (arch/x86_64/entry.asm: NMI, #DF, #MC) with GS bases
 * it cannot trust. Where CR4.FSGSBASE is on, user mode may `wrgsbase` any
 * canonical value, a kernel-half one too, and an NMI may land in user mode
 * or in the kernel's entry window (GS still the user's): the entry must
 * then load the per-CPU base it keeps in the IST stacks' top slot, not go
 * by the sign of the GS base, and give the interrupted code its own base
 * back.
 *
 * The cases here recreate the entry window in kernel mode: interrupts off,
 * GS set with wrgsbase to a value user mode could have chosen, an NMI to
 * this CPU, GS back. Between the two wrgsbase nothing reads per-CPU data
 * (the counters are read through absolute pointers, apic_send_nmi only
 * writes the ICR). The decoy is a kernel-half area laid out as a per-CPU
 * area: an entry that trusted the sign of its address would count the NMI
 * there; this one counts it in the CPU's own area. The last case does the
 * same in user mode, with tests/user/aux/gs_spin spinning on that base.
 * Every wait is for an event (a counter changing); its bound is only a
 * hang guard. */
#include "tests/kunit.h"
#include "tests/test_cpu.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/irqflags.h"
#include "arch/x86_64/processor.h"
#include "arch/x86_64/traps.h"
#include "drivers/firmware/multiboot2.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "fs/programs.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/sections.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "kernel/time.h"
#include "mm/kernel_map.h"
#include "mm/mmu_context.h"
#include "mm/slab.h"
#include "mm/vmalloc.h"

#define MSR_GS_BASE 0xc0000101
#define X86_CR4_FSGSBASE (1ul << 16)
#define HANG_GUARD_SPINS 200000000ul

static inline u64 read_gs_base(void)
{
	u64 v;
	__asm__ volatile("rdgsbase %0" : "=r"(v));
	return v;
}

static inline void write_gs_base(u64 v)
{
	__asm__ volatile("wrgsbase %0" ::"r"(v) : "memory");
}

static u64 kernel_gs_base_of(unsigned cpu)
{
	return (u64)(uintptr_t)&this_cpu_off + __per_cpu_offset[cpu];
}

/* Every online CPU: each of its IST stacks' top slot holds its GS base,
 * TSS.ist points just below it, and the CPU's GS base is that value. */
static u64 gs_base_seen[NR_CPUS];

static void read_gs_base_msr(void *info)
{
	(void)info;
	gs_base_seen[smp_processor_id()] = rdmsr(MSR_GS_BASE);
}

static void ist_slots_hold_each_cpus_gs_base(struct kunit *test)
{
	memset(gs_base_seen, 0, sizeof(gs_base_seen));
	on_each_cpu(read_gs_base_msr, NULL, true);
	unsigned cpu;
	for_each_online_cpu(cpu) {
		struct cpu_tables *t = per_cpu(cpu_tables, cpu);
		KUNIT_ASSERT_NOT_NULL(test, t);
		KUNIT_EXPECT_EQ(test, gs_base_seen[cpu], kernel_gs_base_of(cpu));
		for (unsigned i = 0; i < 3; i++) {
			KUNIT_EXPECT_EQ(test, ist_kernel_gs_base(t, i), kernel_gs_base_of(cpu));
			KUNIT_EXPECT_EQ(test, t->tss.ist[i],
					(u64)(uintptr_t)(t->ist_stack[i] + IST_GSBASE_SLOT));
			/* From vmalloc, every page mapped, the one below not:
			 * an overflow faults into a guard (CONFIG_VMAP_STACK's
			 * rule, here for the IST stacks too). */
			unsigned long lo = (unsigned long)t->ist_stack[i];
			int level;
			KUNIT_EXPECT_TRUE(test, is_vmalloc_addr(t->ist_stack[i]));
			for (unsigned long a = lo; a < lo + IST_STACK_SIZE; a += PAGE_SIZE)
				KUNIT_EXPECT_NOT_NULL(test, lookup_kernel_address(a, &level));
			KUNIT_EXPECT_NULL(test, lookup_kernel_address(lo - PAGE_SIZE, &level));
		}
	}
}

/* One NMI to this CPU, taken with GS base = gs (interrupts off, kernel
 * mode: the entry window). What it found is in *r. */
struct nmi_result {
	unsigned long own_before, own_after;   /* this CPU's nmi_count */
	unsigned long decoy_after;             /* the decoy area's nmi_count */
	u64 gs_after;                          /* the GS base the NMI gave back */
	u64 gs_restored;                       /* the per-CPU base, after */
};

static void nmi_with_gs_base(u64 gs, char *decoy, struct nmi_result *r)
{
	unsigned cpu = smp_processor_id();
	volatile unsigned long *own = per_cpu_ptr(&nmi_count, cpu);
	volatile unsigned long *fake =
		decoy ? (unsigned long *)(decoy + ((char *)&nmi_count - __per_cpu_start)) : NULL;
	u32 apic_id = cpu_physical_id(cpu);
	u64 kernel_base = kernel_gs_base_of(cpu);
	unsigned long flags = arch_local_irq_save();

	r->own_before = *own;
	write_gs_base(gs); /* no per-CPU data from here ... */
	apic_send_nmi(apic_id);
	for (unsigned long i = 0; i < HANG_GUARD_SPINS; i++) {
		if (*own != r->own_before || (fake && *fake))
			break;
		__builtin_ia32_pause();
	}
	r->gs_after = read_gs_base();
	write_gs_base(kernel_base); /* ... to here */
	r->gs_restored = read_gs_base();
	r->own_after = *own;
	r->decoy_after = fake ? *fake : 0;
	arch_local_irq_restore(flags);
}

/* A decoy per-CPU area in the kernel half: its first word is its own
 * offset from the template, as a real area's this_cpu_off. */
static char *decoy_area(void)
{
	size_t size = (size_t)(__per_cpu_end - __per_cpu_start);
	char *d = kmalloc(size, GFP_KERNEL);
	if (!d)
		return NULL;
	memset(d, 0, size);
	unsigned long off = (unsigned long)d - (unsigned long)__per_cpu_start;
	memcpy(d, &off, sizeof(off));
	return d;
}

static void need_fsgsbase(struct kunit *test)
{
	if (!(read_cr4() & X86_CR4_FSGSBASE))
		kunit_skip(test, "CPUID has no FSGSBASE: user mode cannot write its GS base, "
				 "the entry goes by the base's sign");
}

/* The privilege hole: GS base = a kernel-half address user mode chose
 * (here, a decoy per-CPU area). The NMI must count in this CPU's area,
 * leave the decoy alone, and give the decoy base back. */
static void nmi_with_a_kernel_half_gs_base(struct kunit *test)
{
	need_fsgsbase(test);
	struct kunit_resources before;
	kunit_resources_take(&before);
	char *decoy = decoy_area();
	KUNIT_ASSERT_NOT_NULL(test, decoy);
	struct nmi_result r;
	nmi_with_gs_base((u64)(uintptr_t)decoy, decoy, &r);
	KUNIT_EXPECT_EQ(test, r.own_after, r.own_before + 1);
	KUNIT_EXPECT_EQ(test, r.decoy_after, 0ul);
	KUNIT_EXPECT_EQ(test, r.gs_after, (u64)(uintptr_t)decoy);
	KUNIT_EXPECT_EQ(test, r.gs_restored, kernel_gs_base_of(smp_processor_id()));
	/* Nothing else in the decoy was written either. */
	size_t size = (size_t)(__per_cpu_end - __per_cpu_start);
	size_t dirty = 0;
	for (size_t i = sizeof(unsigned long); i < size; i++)
		dirty += decoy[i] != 0;
	KUNIT_EXPECT_EQ(test, dirty, (size_t)0);
	kfree(decoy);
	kunit_expect_resources_back(test, &before);
}

/* Bases a user program may set that are no per-CPU area: 0, unaligned,
 * the top of the user half, the bottom and the top of the kernel half
 * (canonical all: wrgsbase refuses the others). On every CPU, each NMI
 * counts in that CPU's own area and gives the base back. */
static const u64 weird_bases[] = {
	0,
	1,
	0x00007ffffffff001ull,
	0xffff800000000000ull,
	0xffff800000000003ull,
	0xfffffffffffffff8ull,
};
#define NR_WEIRD (sizeof(weird_bases) / sizeof(weird_bases[0]))

static struct nmi_result weird_results[NR_CPUS][NR_WEIRD];
static unsigned weird_ran_on[NR_CPUS];

static void weird_bases_on_this_cpu(void *info)
{
	(void)info;
	unsigned cpu = smp_processor_id();
	for (unsigned i = 0; i < NR_WEIRD; i++)
		nmi_with_gs_base(weird_bases[i], NULL, &weird_results[cpu][i]);
	weird_ran_on[cpu]++;
}

static void nmi_with_weird_gs_bases_on_every_cpu(struct kunit *test)
{
	need_fsgsbase(test);
	memset(weird_results, 0, sizeof(weird_results));
	memset(weird_ran_on, 0, sizeof(weird_ran_on));
	on_each_cpu(weird_bases_on_this_cpu, NULL, true);
	unsigned cpu;
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, weird_ran_on[cpu], 1u);
		for (unsigned i = 0; i < NR_WEIRD; i++) {
			const struct nmi_result *r = &weird_results[cpu][i];
			if (r->own_after != r->own_before + 1 || r->gs_after != weird_bases[i])
				kunit_info(test, "CPU %u, GS base %#lx: NMIs %lu -> %lu, base after %#lx",
					   cpu, (unsigned long)weird_bases[i], r->own_before,
					   r->own_after, (unsigned long)r->gs_after);
			KUNIT_EXPECT_EQ(test, r->own_after, r->own_before + 1);
			KUNIT_EXPECT_EQ(test, r->gs_after, weird_bases[i]);
			KUNIT_EXPECT_EQ(test, r->gs_restored, kernel_gs_base_of(cpu));
		}
		/* Its per-CPU area is still its own. */
		KUNIT_EXPECT_EQ(test, per_cpu(this_cpu_off, cpu), __per_cpu_offset[cpu]);
		KUNIT_EXPECT_EQ(test, per_cpu(cpu_number, cpu), cpu);
	}
}

/* Where CR4.FSGSBASE is off the entry goes by the sign of the GS base (no
 * user base can be negative then). Each CPU takes that path here with its
 * CR4.FSGSBASE cleared for the case's few instructions (interrupts off: no
 * user code runs meanwhile) and a user GS base of 0 in MSR_KERNEL_GS_BASE:
 * one NMI in kernel mode (the kernel's base: no swap), one in the entry
 * window after swapgs (the user's: swap and swap back). */
#define MSR_KERNEL_GS_BASE 0xc0000102

struct sign_result {
	unsigned long counts[3];  /* nmi_count: before, after the first, after the second */
	u64 gs_window, gs_after;  /* the GS base in the window (the user's) and after */
	int ran;
};
static struct sign_result sign_results[NR_CPUS];

static void wait_for_nmi(volatile unsigned long *count, unsigned long before)
{
	for (unsigned long i = 0; i < HANG_GUARD_SPINS && *count == before; i++)
		__builtin_ia32_pause();
}

static void sign_path_on_this_cpu(void *info)
{
	(void)info;
	unsigned cpu = smp_processor_id();
	struct sign_result *r = &sign_results[cpu];
	volatile unsigned long *own = per_cpu_ptr(&nmi_count, cpu);
	u32 apic_id = cpu_physical_id(cpu);
	unsigned long flags = arch_local_irq_save();
	u64 cr4 = read_cr4(), user_gs = rdmsr(MSR_KERNEL_GS_BASE);
	write_cr4(cr4 & ~X86_CR4_FSGSBASE);
	wrmsr(MSR_KERNEL_GS_BASE, 0);

	r->counts[0] = *own;
	apic_send_nmi(apic_id);
	wait_for_nmi(own, r->counts[0]);
	r->counts[1] = *own;
	__asm__ volatile("swapgs" ::: "memory"); /* no per-CPU data from here ... */
	apic_send_nmi(apic_id);
	wait_for_nmi(own, r->counts[1]);
	r->gs_window = rdmsr(MSR_GS_BASE);
	__asm__ volatile("swapgs" ::: "memory"); /* ... to here */
	r->counts[2] = *own;
	r->gs_after = rdmsr(MSR_GS_BASE);

	wrmsr(MSR_KERNEL_GS_BASE, user_gs);
	write_cr4(cr4);
	arch_local_irq_restore(flags);
	r->ran++;
}

static void nmi_goes_by_the_sign_without_fsgsbase(struct kunit *test)
{
	memset(sign_results, 0, sizeof(sign_results));
	on_each_cpu(sign_path_on_this_cpu, NULL, true);
	unsigned cpu;
	for_each_online_cpu(cpu) {
		const struct sign_result *r = &sign_results[cpu];
		KUNIT_EXPECT_EQ(test, r->ran, 1);
		KUNIT_EXPECT_EQ(test, r->counts[1], r->counts[0] + 1);
		KUNIT_EXPECT_EQ(test, r->counts[2], r->counts[1] + 1);
		KUNIT_EXPECT_EQ(test, r->gs_window, 0ul);
		KUNIT_EXPECT_EQ(test, r->gs_after, kernel_gs_base_of(cpu));
	}
	/* CR4.FSGSBASE is back where CPUID has it. */
	KUNIT_EXPECT_EQ(test, !!(read_cr4() & X86_CR4_FSGSBASE), fsgsbase_enabled());
}

/* ---- NMIs in user mode, with the user program's own GS base ---- */

#define GS_SPIN_FLAG_ADDR 0x200000000ul /* gs_spin's flag page: 1 in its loop, 2 to stop */
#define GUARD_TICKS 2000                /* 20 s of this CPU's ticks: a hang guard only */
#define MAX_NMI_TRIES 1000              /* NMIs sent until one lands in user mode */

static int gs_spin_flag(struct mm_struct *mm, int write)
{
	return kunit_user_flag(mm, GS_SPIN_FLAG_ADDR, write);
}

/* tests/user/aux/gs_spin spins in user mode with its GS base = a decoy
 * per-CPU area in the kernel half; NMIs go to its CPU until one has landed
 * in user mode (counted apart by do_trap: which instruction an NMI lands on
 * is the machine's choice, so the case waits for the event instead of
 * hoping for it). The NMIs count in that CPU's own area, the decoy stays
 * untouched, and the program finds its base unchanged when told to stop
 * (its exit status 0 says so). */
static void nmi_in_user_mode_with_a_kernel_half_gs_base(struct kunit *test)
{
	need_fsgsbase(test);
	const struct user_program *m = find_user_program("gs_spin");
	if (!m)
		kunit_skip(test, "the ISO has no program gs_spin");
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU for the spinner");
	unsigned cpu = smp_processor_id(), other = test_other_cpu();
	struct kunit_resources before;
	kunit_resources_take(&before);
	char *decoy = decoy_area();
	KUNIT_ASSERT_NOT_NULL(test, decoy);
	volatile unsigned long *fake =
		(unsigned long *)(decoy + ((char *)&nmi_count - __per_cpu_start));

	char flag_addr[24], gs[24];
	snprintf(flag_addr, sizeof(flag_addr), "%#lx", GS_SPIN_FLAG_ADDR);
	snprintf(gs, sizeof(gs), "%#lx", (unsigned long)(uintptr_t)decoy);
	const char *const argv[] = { "gs_spin", flag_addr, gs, NULL };
	struct process_spawn_args args = { .name = "gs_spin", .path = "/bin/gs_spin",
					   .argv = argv, .cpu = other, .want_mm = true };
	int err = 0;
	struct task_struct *p = process_spawn(&args, &err);
	if (!p)
		kfree(decoy);
	KUNIT_ASSERT_NOT_NULL(test, p);
	/* The mm its execve made, with a reference taken before it could
	 * exit. */
	struct mm_struct *mm = process_started_mm(p);
	if (!mm) { /* its execve failed: it has ended, or is ending */
		struct process_result gone;
		process_wait(p, &gone);
		kfree(decoy);
		kunit_info(test, "the program did not start (exit status %d)", gone.exit_code);
		KUNIT_ASSERT_NOT_NULL(test, mm);
	}

	/* In its loop, with the decoy base, once its flag reads 1. */
	int flag = -1;
	unsigned long start = ticks_on_cpu(cpu);
	while ((flag = gs_spin_flag(mm, 0)) != 1 && READ_ONCE(p->mm) &&
	       ticks_on_cpu(cpu) - start < GUARD_TICKS)
		schedule_timeout_uninterruptible(1);
	KUNIT_EXPECT_EQ(test, flag, 1);

	unsigned tries = 0, in_user = 0, lost = 0;
	while (flag == 1 && !in_user && !*fake && tries < MAX_NMI_TRIES && READ_ONCE(p->mm)) {
		unsigned target = READ_ONCE(p->cpu); /* it may move: the NMI follows */
		unsigned long n = per_cpu(nmi_count, target), u = per_cpu(nmi_user_count, target);
		tries++;
		apic_send_nmi(cpu_physical_id(target));
		start = ticks_on_cpu(cpu);
		while (READ_ONCE(per_cpu(nmi_count, target)) == n && !*fake &&
		       ticks_on_cpu(cpu) - start < GUARD_TICKS)
			cpu_relax();
		if (READ_ONCE(per_cpu(nmi_count, target)) == n)
			lost++;
		if (READ_ONCE(per_cpu(nmi_user_count, target)) != u && cpu_curr(target) == p)
			in_user++;
	}
	bool alive = READ_ONCE(p->mm) != NULL;
	kunit_info(test, "%u NMIs sent, %u lost, %u landed in the spinner's user mode", tries,
		   lost, in_user);

	KUNIT_EXPECT_EQ(test, gs_spin_flag(mm, 2), 2);
	struct process_result res;
	process_wait(p, &res);
	if (mm)
		mmput(mm);
	KUNIT_EXPECT_EQ(test, *fake, 0ul); /* an entry that went by the base's sign */
	KUNIT_EXPECT_EQ(test, lost, 0u);
	KUNIT_EXPECT_EQ(test, in_user, 1u);
	KUNIT_EXPECT_TRUE(test, alive);
	KUNIT_EXPECT_FALSE(test, res.killed);
	KUNIT_EXPECT_EQ(test, res.exit_code, 0); /* 4: its GS base changed */
	/* Every CPU's area is still its own. */
	unsigned c;
	for_each_online_cpu(c) {
		KUNIT_EXPECT_EQ(test, per_cpu(this_cpu_off, c), __per_cpu_offset[c]);
		KUNIT_EXPECT_EQ(test, per_cpu(cpu_number, c), c);
	}
	kfree(decoy);
	kunit_expect_resources_back(test, &before);
}

static struct kunit_case entry_cases[] = {
	KUNIT_CASE(ist_slots_hold_each_cpus_gs_base),
	KUNIT_CASE(nmi_with_a_kernel_half_gs_base),
	KUNIT_CASE(nmi_with_weird_gs_bases_on_every_cpu),
	KUNIT_CASE(nmi_goes_by_the_sign_without_fsgsbase),
	KUNIT_CASE(nmi_in_user_mode_with_a_kernel_half_gs_base),
	{}
};
static struct kunit_suite entry_suite = { .name = "entry", .test_cases = entry_cases };
kunit_test_suite(entry_suite);
