/* The in-kernel benchmarks' shared pieces. "bench" on the command line runs
 * them after the boot report (tests/bench_mm.c's late initcall): the page
 * allocator, then the SMP figures (bench_smp.c), then the user benchmark
 * programs (user_test.c). Boot CPU only, one at a time: no locking. */
#ifndef TESTS_BENCH_H
#define TESTS_BENCH_H

#include "kernel/types.h"

/* The median of v[0..n-1] (n > 0), sorting v in place; the one every
 * in-kernel figure uses (bench_mm.c). */
u64 bench_median(u64 *v, unsigned n);

/* vmalloc+vfree costs and lazy vs eager flushes (vmalloc_bench.c). */
void run_vmalloc_benchmarks(void);
/* IPI round trip, spinlock costs, RCU grace period (bench_smp.c). */
void run_smp_benchmarks(void);
/* Each "bench" boot module as a process with --bench (user_test.c). */
void run_user_benchmarks(void);

#endif
