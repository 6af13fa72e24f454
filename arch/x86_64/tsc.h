/* The time-stamp counter, calibrated once against the PIT (8254), for
 * benchmarks. Under QEMU's TCG the TSC follows the host clock, so figures are
 * real time of an emulated CPU: label them as emulated. */
#ifndef ARCH_X86_64_TSC_H
#define ARCH_X86_64_TSC_H

#include "kernel/types.h"

/* Measures the TSC frequency over 50 ms of PIT channel 2; returns kHz
 * (0 if the PIT did not count). */
u64 tsc_calibrate(void);
extern u64 tsc_khz;
static inline u64 tsc_cycles_to_ns(u64 cycles) { return tsc_khz ? cycles * 1000000 / tsc_khz : 0; }

#endif
