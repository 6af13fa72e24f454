/* Random numbers for the kernel and for getrandom(2) (drivers/char/random.c). */
#ifndef DRIVERS_CHAR_RANDOM_H
#define DRIVERS_CHAR_RANDOM_H

#include "kernel/types.h"

/* Fills buf with n bytes from the kernel's generator (Linux's
 * get_random_bytes): never blocks, may be called from any context that
 * can take a spinlock with interrupts off. */
void get_random_bytes(void *buf, size_t n);
/* Where the generator's seed came from: "rdseed", "rdrand" or "tsc". */
const char *random_seed_source(void);

/* One ChaCha20 block (20 rounds) for key, a 64-bit block counter (state
 * words 12-13) and a 64-bit nonce (words 14-15): RFC 8439's block function
 * with its 32-bit counter and 96-bit nonce packed the same way. */
void chacha20_block(const u32 key[8], u64 counter, u64 nonce, u8 out[64]);

#define GRND_NONBLOCK 0x0001
#define GRND_RANDOM 0x0002
#define GRND_INSECURE 0x0004

#endif
