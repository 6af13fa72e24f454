/* The multiprocessor machinery on every topology (1 to 8 CPUs): CPUs come up
 * on the node the SRAT gives them, cross-CPU calls reach each CPU and come
 * back, a spinlock keeps a shared counter exact under contention from all
 * CPUs, the spinlock debug mode catches misuse, and the tick runs
 * everywhere (the TLB shootdown of kernel mappings is tested by the
 * kernel_map suite). Waits are bounded only as hang guards, and a guard
 * measures a lack of progress, not elapsed time: under TCG on a loaded host
 * each spinlock hand-off may wait for the host to schedule the next vCPU, so
 * a correct run can take far longer than the guard, but it never stands
 * still that long. No outcome depends on timing. */
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/traps.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/string.h"
#include "kernel/time.h"
#include "mm/numa.h"
#include "tests/expect.h"
#include "tests/kunit.h"

#define HANG_GUARD_NS KUNIT_HANG_GUARD_NS
#define HANG_GUARD_TICKS (HANG_GUARD_NS / (1000000000ull / HZ))

static bool wait_until(volatile unsigned long *v, unsigned long target)
{
	return kunit_wait_while_progressing(v, target, NULL);
}

struct where {
	unsigned cpu;
	u32 apic_id;
	int nid;
};

static void record_where(void *arg)
{
	struct where *w = arg;
	w->cpu = smp_processor_id();
	w->apic_id = lapic_id();
	w->nid = numa_node_id();
}

static void every_cpu_is_up_on_its_node(struct kunit *test)
{
	/* Every CPU of the MADT came up, except those that never answered (a
	 * table listing APIC ids no CPU has): each was reported at boot
	 * and left out of cpu_present_mask, and a topology that knows how many
	 * CPUs the machine really has says so with expect.cpus. */
	unsigned present = 0;
	for (unsigned cpu = 0; cpu < numa_topology.nr_cpus; cpu++) {
		present += cpu_present(cpu);
		if (!cpu_present(cpu))
			kunit_info(test, "CPU %u (APIC id %u) of the MADT did not start", cpu,
				   numa_topology.cpus[cpu].apic_id);
	}
	KUNIT_EXPECT_EQ(test, num_online_cpus(), present);
	if (expect_cpus > 0) {
		KUNIT_EXPECT_EQ(test, num_online_cpus(), (unsigned)expect_cpus);
		/* The accepted CPUs the machine lacks are the ones that never
		 * answered (all of them in the one wait; the boot said how
		 * many). */
		KUNIT_EXPECT_EQ(test, smp_aps_never_answered, nr_cpu_ids - (unsigned)expect_cpus);
	}
	KUNIT_EXPECT_TRUE(test, cpu_present(smp_processor_id()));
	/* An AP that started late must never run as the next CPU started (on
	 * its stack and run queue: the RIP-0 panic this once caused). */
	KUNIT_EXPECT_EQ(test, ap_identity_mismatches, 0);
	KUNIT_EXPECT_EQ(test, smp_trampoline_slots_open(), 0);
	for (unsigned cpu = 0; cpu < numa_topology.nr_cpus; cpu++) {
		if (!cpu_present(cpu))
			continue;
		KUNIT_EXPECT_TRUE(test, cpu_online(cpu));
		struct where w = { ~0u, ~0u, -2 };
		KUNIT_ASSERT_EQ(test, smp_call_function_single(cpu, record_where, &w, true), 0);
		KUNIT_EXPECT_EQ(test, w.cpu, cpu);
		KUNIT_EXPECT_EQ(test, w.apic_id, numa_topology.cpus[cpu].apic_id);
		KUNIT_EXPECT_EQ(test, w.nid, numa_topology.cpus[cpu].nid);
	}
	KUNIT_EXPECT_EQ(test, smp_call_function_single(NR_CPUS - 1 < numa_topology.nr_cpus ? 0 : NR_CPUS - 1,
						       record_where, &(struct where){ 0 }, true),
			NR_CPUS - 1 < numa_topology.nr_cpus ? 0 : -ENXIO);
}

static unsigned long hits[NR_CPUS];
static volatile unsigned long arrived;

static void count_hit(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&hits[smp_processor_id()], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&arrived, 1, __ATOMIC_RELEASE);
}

static void calls_reach_every_cpu_and_return(struct kunit *test)
{
	unsigned n = num_online_cpus(), cpu;
	memset(hits, 0, sizeof(hits));
	arrived = 0;
	on_each_cpu(count_hit, NULL, true);
	KUNIT_EXPECT_EQ(test, arrived, n);
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_EQ(test, hits[cpu], 1);

	/* Without waiting: the calls still all happen, exactly once each. */
	arrived = 0;
	struct cpumask all = cpu_online_mask;
	for (int round = 0; round < 100; round++)
		smp_call_function_many(&all, count_hit, NULL, false);
	KUNIT_EXPECT_TRUE(test, wait_until(&arrived, 100ul * (n - 1)));
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_EQ(test, hits[cpu], cpu == smp_processor_id() ? 1 : 101);
}

/* All CPUs increment one counter under one lock K times each. */
/* Every hand-off may wait for the host to schedule the next vCPU (TCG runs
 * vCPUs as host threads, more of them than cores): keep the hand-offs few. */
#define STRESS_TOTAL 4000
static DEFINE_SPINLOCK(stress_lock);
static unsigned long stress_counter;
static volatile unsigned long stress_done;

static unsigned stress_k;
/* The way the stress takes the lock: spin_lock, or one of the two ways to
 * wait, whatever the boot chose. */
static void (*stress_lock_fn)(spinlock_t *);

static void stress(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < stress_k; i++) {
		if (stress_lock_fn)
			stress_lock_fn(&stress_lock);
		else
			spin_lock(&stress_lock);
		unsigned long v = stress_counter; /* a non-atomic read-modify-write */
		barrier();
		stress_counter = v + 1;
		if (stress_lock_fn)
			arch_spin_unlock(&stress_lock);
		else
			spin_unlock(&stress_lock);
	}
	__atomic_fetch_add(&stress_done, 1, __ATOMIC_RELEASE);
}

static void run_stress(struct kunit *test, void (*lock_fn)(spinlock_t *), unsigned total)
{
	unsigned n = num_online_cpus();
	unsigned long bugs = spinlock_bugs;
	stress_lock_fn = lock_fn;
	stress_k = total / n;
	stress_counter = 0;
	stress_done = 0;
	struct cpumask all = cpu_online_mask;
	smp_call_function_many(&all, stress, NULL, false);
	stress(NULL);
	/* Every increment is progress. Asserting here on a guard that fired
	 * while the others still spun with interrupts off would also fail the
	 * cases after this one (their ticks stopped): so only a hang ends it. */
	KUNIT_ASSERT_TRUE(test, kunit_wait_while_progressing(&stress_done, n, &stress_counter));
	KUNIT_EXPECT_EQ(test, stress_counter, (unsigned long)n * stress_k);
	KUNIT_EXPECT_EQ(test, spinlock_bugs, bugs);
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&stress_lock));
}

static void spinlock_keeps_a_shared_counter_exact(struct kunit *test)
{
	run_stress(test, NULL, STRESS_TOTAL);
}

/* Both ways to wait exclude each other's holders whatever the boot chose:
 * the ticket lock and the test-and-set lock (Linux's virt_spin_lock), each
 * contended from every CPU. */
static void both_ways_to_wait_keep_a_shared_counter_exact(struct kunit *test)
{
	/* Under a hypervisor every ticket hand-off may wait for the host to
	 * run the next waiter's vCPU (why the boot chose test-and-set): an
	 * eighth of the hand-offs there still has every CPU contend. */
	run_stress(test, ticket_spin_lock, virt_spin_lock_key ? STRESS_TOTAL / 8 : STRESS_TOTAL);
	run_stress(test, virt_spin_lock, STRESS_TOTAL);
}

/* The test-and-set lock is the ticket lock's trylock: (next, owner) from
 * (t, t) to (t + 1, t), next wrapping within its half without carrying
 * into owner; a held lock is never taken, and unlock frees it. */
static void trylock_takes_only_a_free_lock(struct kunit *test)
{
	DEFINE_SPINLOCK(l);
	KUNIT_EXPECT_TRUE(test, spin_trylock(&l));
	KUNIT_EXPECT_TRUE(test, spin_is_locked(&l));
	KUNIT_EXPECT_FALSE(test, spin_trylock(&l));
	spin_unlock(&l);
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&l));

	l.next = l.owner = 0xffff; /* the tickets about to wrap */
	KUNIT_EXPECT_TRUE(test, arch_spin_trylock(&l));
	KUNIT_EXPECT_EQ(test, l.next, 0);
	KUNIT_EXPECT_EQ(test, l.owner, 0xffff);
	KUNIT_EXPECT_FALSE(test, arch_spin_trylock(&l));
	arch_spin_unlock(&l);
	KUNIT_EXPECT_EQ(test, l.owner, 0);
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&l));
	/* A ticket taken after a test-and-set hold waits its turn the same way. */
	ticket_spin_lock(&l);
	KUNIT_EXPECT_EQ(test, l.next, 1);
	KUNIT_EXPECT_FALSE(test, arch_spin_trylock(&l));
	arch_spin_unlock(&l);
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&l));
}

/* The boot chose as Linux does: test-and-set where CPUID's hypervisor bit is
 * set, tickets on bare metal, unless spinlock= said otherwise. */
static void the_way_to_wait_follows_the_hypervisor_bit(struct kunit *test)
{
	const char *opt = spinlock_option();
	bool hypervisor = boot_cpu_has(X86_FEATURE_HYPERVISOR);
	kunit_info(test, "CPUID hypervisor bit %s, spinlock=%s: %s", hypervisor ? "set" : "clear", opt,
		   virt_spin_lock_key ? "test-and-set" : "ticket");
	if (!strcmp(opt, "ticket"))
		KUNIT_EXPECT_FALSE(test, virt_spin_lock_key);
	else if (!strcmp(opt, "tas"))
		KUNIT_EXPECT_TRUE(test, virt_spin_lock_key);
	else
		KUNIT_EXPECT_EQ(test, virt_spin_lock_key, hypervisor);
}

static char log[1024];

static void spinlock_debug_catches_misuse(struct kunit *test)
{
	if (!spinlock_debug)
		kunit_skip(test, "booted with spinlock_debug=off");
	DEFINE_SPINLOCK(l);
	struct printk_capture cap;
	unsigned long bugs = spinlock_bugs;

	printk_capture_begin(&cap, log, sizeof(log));
	spin_lock(&l);
	spin_lock(&l); /* recursion: would deadlock */
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, spinlock_bugs, bugs + 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "BUG: spinlock recursion"));
	spin_unlock(&l); /* matches the skipped recursive lock */
	KUNIT_EXPECT_TRUE(test, spin_is_locked(&l));
	spin_unlock(&l);
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&l));

	printk_capture_begin(&cap, log, sizeof(log));
	spin_unlock(&l); /* not held */
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, spinlock_bugs, bugs + 2);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "unlock of a lock this CPU does not hold"));
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&l));

	/* The lock still works, and a correct use reports nothing. */
	spin_lock(&l);
	spin_unlock(&l);
	KUNIT_EXPECT_EQ(test, spinlock_bugs, bugs + 2);
}

static void the_tick_runs_on_every_cpu(struct kunit *test)
{
	unsigned long before[NR_CPUS];
	unsigned cpu;
	for_each_online_cpu(cpu)
		before[cpu] = ticks_on_cpu(cpu);
	/* The guard is counted in this CPU's own ticks (guest time that this
	 * CPU saw pass), restarted for each CPU: a CPU that stays silent while
	 * this one ticks HANG_GUARD_TICKS times has a stopped tick. This CPU's
	 * own tick cannot time itself: a stopped one would never end the wait,
	 * so its guard is the clock's. */
	unsigned me = smp_processor_id();
	for_each_online_cpu(cpu) {
		unsigned long mine = ticks_on_cpu(me);
		u64 deadline = ktime_get_ns() + HANG_GUARD_NS;
		while (ticks_on_cpu(cpu) == before[cpu] &&
		       (cpu == me ? ktime_get_ns() < deadline : ticks_on_cpu(me) - mine < HANG_GUARD_TICKS))
			cpu_relax();
		KUNIT_EXPECT_GT(test, ticks_on_cpu(cpu), before[cpu]);
	}
}

/* An IPI to an APIC id the xAPIC cannot name (an x2APIC MADT entry's id of
 * 255 or more) must reach no CPU: sent as is, xAPIC keeps its low 8 bits,
 * which here are another CPU's id (a STARTUP would restart that CPU). */
/* Above CALL_FUNCTION_VECTOR (0xfb): pending together, the test's IPI is
 * taken first, which test_ipis_after_round_trips relies on. */
#define TEST_IPI_VECTOR 0xfe
static unsigned long test_ipis[NR_CPUS];

static void count_test_ipi(struct pt_regs *regs)
{
	(void)regs;
	apic_eoi();
	__atomic_fetch_add(&test_ipis[smp_processor_id()], 1, __ATOMIC_RELAXED);
}

static void nothing(void *arg) { (void)arg; }

/* The IPI was sent before the calls': once two calls came back, the CPU
 * has taken it. It was pending before the first call's interrupt ended
 * (the call's handler returns its csd before its iret), and the second
 * call's interrupt, of lower priority, is taken only after it. (With the
 * test's vector below the call's, both calls could be taken first: seen
 * on a loaded host.) */
static unsigned long test_ipis_after_round_trips(unsigned cpu)
{
	smp_call_function_single(cpu, nothing, NULL, true);
	smp_call_function_single(cpu, nothing, NULL, true);
	return __atomic_load_n(&test_ipis[cpu], __ATOMIC_RELAXED);
}

static void ipis_to_an_apic_id_the_mode_cannot_name_are_refused(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, apic_id_valid(cpu_physical_id(smp_processor_id())));
	KUNIT_EXPECT_FALSE(test, apic_id_valid(0xffffffffu));
	/* A CPU the firmware did not describe has no APIC id an IPI could
	 * reach (it had 0, usually the boot CPU's). */
	KUNIT_EXPECT_FALSE(test, apic_id_valid(cpu_physical_id(nr_cpu_ids)));
	KUNIT_EXPECT_FALSE(test, apic_id_valid(cpu_physical_id(NR_CPUS)));
	if (x2apic_enabled())
		kunit_skip(test, "x2APIC mode names every APIC id");
	KUNIT_EXPECT_FALSE(test, apic_id_valid(0xff));
	KUNIT_EXPECT_FALSE(test, apic_id_valid(0x100));
	unsigned me = smp_processor_id(), other = NR_CPUS, cpu;
	for_each_online_cpu(cpu)
		if (cpu != me && other == NR_CPUS)
			other = cpu;
	if (other == NR_CPUS)
		kunit_skip(test, "one CPU only");
	u32 id = cpu_physical_id(other);
	memset(test_ipis, 0, sizeof(test_ipis));
	register_interrupt_handler(TEST_IPI_VECTOR, count_test_ipi);

	/* The way there works: the CPU's own id reaches it. */
	apic_send_ipi(id, TEST_IPI_VECTOR);
	KUNIT_EXPECT_EQ(test, test_ipis_after_round_trips(other), 1);

	struct printk_capture cap;
	unsigned long refused = apic_unreachable_ipis;
	printk_capture_begin(&cap, log, sizeof(log));
	apic_send_ipi(id + 0x100, TEST_IPI_VECTOR);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, test_ipis_after_round_trips(other), 1);
	KUNIT_EXPECT_EQ(test, apic_unreachable_ipis, refused + 1);
	register_interrupt_handler(TEST_IPI_VECTOR, NULL);
}

struct clock_read {
	u64 ns;
};

static void read_clock(void *arg) { ((struct clock_read *)arg)->ns = ktime_get_ns(); }

static void the_clock_is_monotonic_across_cpus(struct kunit *test)
{
	u64 last = ktime_get_ns(), a;
	for (int i = 0; i < 1000; i++) {
		a = ktime_get_ns();
		KUNIT_ASSERT_GE(test, a, last);
		last = a;
	}
	unsigned cpu;
	for_each_online_cpu(cpu) {
		struct clock_read r;
		u64 before = ktime_get_ns();
		smp_call_function_single(cpu, read_clock, &r, true);
		KUNIT_EXPECT_GE(test, r.ns, before);
		KUNIT_EXPECT_GE(test, ktime_get_ns(), r.ns);
	}
}

static struct kunit_case smp_cases[] = {
	KUNIT_CASE(every_cpu_is_up_on_its_node),
	KUNIT_CASE(calls_reach_every_cpu_and_return),
	KUNIT_CASE(spinlock_keeps_a_shared_counter_exact),
	KUNIT_CASE(both_ways_to_wait_keep_a_shared_counter_exact),
	KUNIT_CASE(trylock_takes_only_a_free_lock),
	KUNIT_CASE(the_way_to_wait_follows_the_hypervisor_bit),
	KUNIT_CASE(spinlock_debug_catches_misuse),
	KUNIT_CASE(the_tick_runs_on_every_cpu),
	KUNIT_CASE(the_clock_is_monotonic_across_cpus),
	KUNIT_CASE(ipis_to_an_apic_id_the_mode_cannot_name_are_refused),
	{}
};
static struct kunit_suite smp_suite = { .name = "smp", .test_cases = smp_cases };
kunit_test_suite(smp_suite);
