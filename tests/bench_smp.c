/* In-kernel SMP benchmarks, run after the allocator ones with "bench": IPI
 * round trip (a cross-CPU call that waits for its answer), uncontended and
 * contended spinlock cost. Under QEMU's TCG every figure is EMULATED: vCPUs
 * are host threads, more of them than host cores, so a contended lock
 * hand-off can wait for the host scheduler; the figures show orders of
 * magnitude inside the emulator, not hardware behaviour. */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/tsc.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "tests/bench.h"

#define RUNS 7

static void noop(void *arg) { (void)arg; }

static void bench_ipi(void)
{
	unsigned me = smp_processor_id(), cpu;
	for_each_online_cpu(cpu) {
		if (cpu == me)
			continue;
		u64 t[RUNS];
		const unsigned iters = 200;
		for (int r = 0; r < RUNS; r++) {
			u64 s = ktime_get_ns();
			for (unsigned i = 0; i < iters; i++)
				smp_call_function_single(cpu, noop, NULL, true);
			t[r] = (ktime_get_ns() - s) / iters;
		}
		pr_info("  IPI round trip CPU %u -> CPU %u (node %d -> %d)   %8lu ns\n", me, cpu,
			numa_node_id(), cpu_to_node(cpu), (unsigned long)bench_median(t, RUNS));
	}
}

static DEFINE_SPINLOCK(bench_lock);
static volatile unsigned long contended_done;
static unsigned long contended_iters;

static void hammer(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; i < contended_iters; i++) {
		spin_lock(&bench_lock);
		barrier();
		spin_unlock(&bench_lock);
	}
	__atomic_fetch_add(&contended_done, 1, __ATOMIC_RELEASE);
}

static void bench_locks(void)
{
	u64 t[RUNS];
	const unsigned long iters = 100000;
	for (int r = 0; r < RUNS; r++) {
		u64 s = ktime_get_ns();
		for (unsigned long i = 0; i < iters; i++) {
			spin_lock(&bench_lock);
			barrier();
			spin_unlock(&bench_lock);
		}
		t[r] = (ktime_get_ns() - s) * 1000 / iters;
	}
	u64 ps = bench_median(t, RUNS);
	pr_info("  spinlock lock+unlock, uncontended               %5lu.%01lu ns\n",
		(unsigned long)(ps / 1000), (unsigned long)(ps % 1000 / 100));

	unsigned n = num_online_cpus();
	if (n < 2) {
		pr_info("  spinlock, contended                            n/a: one CPU\n");
		return;
	}
	contended_iters = 2000 / n;
	for (int r = 0; r < RUNS; r++) {
		contended_done = 0;
		struct cpumask all = cpu_online_mask;
		u64 s = ktime_get_ns();
		smp_call_function_many(&all, hammer, NULL, false);
		hammer(NULL);
		while (__atomic_load_n(&contended_done, __ATOMIC_ACQUIRE) < n)
			cpu_relax();
		t[r] = (ktime_get_ns() - s) / (contended_iters * n);
	}
	pr_info("  spinlock, contended by %u CPUs, per acquisition %8lu ns\n", n,
		(unsigned long)bench_median(t, RUNS));
}

/* How long synchronize_rcu() takes from the caller's view: a grace period
 * needs every online CPU to pass a quiescent state (idle CPUs report on
 * their tick), so it is bounded below by the tick period. */
static void bench_grace_period(void)
{
	u64 t[RUNS];
	for (int r = 0; r < RUNS; r++) {
		u64 s = ktime_get_ns();
		synchronize_rcu();
		t[r] = ktime_get_ns() - s;
	}
	u64 us = bench_median(t, RUNS) / 1000;
	pr_info("  synchronize_rcu (grace-period latency)        %5lu.%03lu ms\n",
		(unsigned long)(us / 1000), (unsigned long)(us % 1000));
	rcu_print_stats();
}

void run_smp_benchmarks(void)
{
	pr_info("SMP (%u CPUs online):\n", num_online_cpus());
	bench_ipi();
	bench_locks();
	bench_grace_period();
}
