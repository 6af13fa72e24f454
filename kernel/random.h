/* Random numbers for the kernel and for getrandom(2) (kernel/random.c). */
#ifndef KERNEL_RANDOM_H
#define KERNEL_RANDOM_H

#include "kernel/types.h"

/* Fills buf with n bytes from the kernel's generator (Linux's
 * get_random_bytes): never blocks, may be called from any context that
 * can take a spinlock with interrupts off. */
void get_random_bytes(void *buf, size_t n);
/* Where the generator's seed came from: "rdseed", "rdrand" or "tsc". */
const char *random_seed_source(void);

#define GRND_NONBLOCK 0x0001
#define GRND_RANDOM 0x0002
#define GRND_INSECURE 0x0004

#endif
