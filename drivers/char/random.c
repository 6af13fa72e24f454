/* The kernel's random numbers: get_random_bytes() and getrandom(2)
 * (Linux's drivers/char/random.c, much reduced).
 *
 * One ChaCha20 generator (Linux's base_crng) with a 32-byte key. Each
 * request runs ChaCha20 blocks under the key with a fresh counter, and the
 * first 32 bytes of every request's first block become the next key (fast
 * key erasure, Linux's crng_fast_key_erasure), so earlier output cannot be
 * recomputed from a later state.
 *
 * Seeding: at the first use, the key is filled from RDSEED where CPUID has
 * it, else RDRAND, else (no hardware source) from TSC readings mixed with
 * the boot time counter; the TSC is also folded into every request's
 * nonce. QEMU's -cpu max (TCG) has RDRAND but not RDSEED, so the runner's
 * machines seed from RDRAND. A TSC-only seed is not cryptographic: it
 * keeps AT_RANDOM and getrandom() different from run to run, which is all
 * a test kernel needs. The generator counts as ready from boot (Linux
 * would block GRND_RANDOM/default reads until it has 256 bits of entropy;
 * here they never block, so GRND_NONBLOCK never gives -EAGAIN).
 *
 * Concurrency: random_lock (irqsave) protects the key and the counter. */
#include "drivers/char/random.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/signal.h"
#include "kernel/spinlock.h"
#include "lib/string.h"
#include "kernel/syscall.h"
#include "mm/page.h"

#define CHACHA_BLOCK_SIZE 64
#define CHACHA_KEY_SIZE 32

static DEFINE_SPINLOCK(random_lock);
static u32 crng_key[CHACHA_KEY_SIZE / 4];
static u64 crng_generation;
static bool crng_seeded;
static const char *seed_source = "none";

static inline u32 rol32(u32 v, int s) { return v << s | v >> (32 - s); }

#define QR(a, b, c, d)                                                   \
	do {                                                             \
		a += b; d = rol32(d ^ a, 16);                            \
		c += d; b = rol32(b ^ c, 12);                            \
		a += b; d = rol32(d ^ a, 8);                             \
		c += d; b = rol32(b ^ c, 7);                             \
	} while (0)

/* One ChaCha20 block (RFC 8439 / Linux's chacha_block_generic, 20 rounds):
 * key, a 64-bit block counter and a 64-bit nonce. */
void chacha20_block(const u32 key[8], u64 counter, u64 nonce, u8 out[CHACHA_BLOCK_SIZE])
{
	u32 s[16] = { 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574,
		      key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
		      (u32)counter, (u32)(counter >> 32), (u32)nonce, (u32)(nonce >> 32) };
	u32 x[16];
	memcpy(x, s, sizeof(x));
	for (int i = 0; i < 10; i++) {
		QR(x[0], x[4], x[8], x[12]);
		QR(x[1], x[5], x[9], x[13]);
		QR(x[2], x[6], x[10], x[14]);
		QR(x[3], x[7], x[11], x[15]);
		QR(x[0], x[5], x[10], x[15]);
		QR(x[1], x[6], x[11], x[12]);
		QR(x[2], x[7], x[8], x[13]);
		QR(x[3], x[4], x[9], x[14]);
	}
	for (int i = 0; i < 16; i++) {
		u32 v = x[i] + s[i];
		memcpy(out + 4 * i, &v, 4);
	}
}

/* RDSEED/RDRAND give up now and then (carry clear): retry a few times, as
 * Linux's rdrand_long does. */
static bool rdseed64(u64 *v)
{
	for (int i = 0; i < 10; i++) {
		bool ok;
		__asm__ volatile("rdseed %0" : "=r"(*v), "=@ccc"(ok));
		if (ok)
			return true;
	}
	return false;
}

static bool rdrand64(u64 *v)
{
	for (int i = 0; i < 10; i++) {
		bool ok;
		__asm__ volatile("rdrand %0" : "=r"(*v), "=@ccc"(ok));
		if (ok)
			return true;
	}
	return false;
}

/* Linux's crng_init with random_init's sources: the key from the best
 * source the CPU has. Called with random_lock held. */
static void crng_seed_locked(void)
{
	u64 words[CHACHA_KEY_SIZE / 8];
	bool hw = boot_cpu_has(X86_FEATURE_RDSEED) || boot_cpu_has(X86_FEATURE_RDRAND);
	seed_source = boot_cpu_has(X86_FEATURE_RDSEED) ? "rdseed" : hw ? "rdrand" : "tsc";
	for (unsigned i = 0; i < ARRAY_SIZE(words); i++) {
		u64 v = 0;
		bool ok = boot_cpu_has(X86_FEATURE_RDSEED) && rdseed64(&v);
		if (!ok && boot_cpu_has(X86_FEATURE_RDRAND))
			ok = rdrand64(&v);
		if (!ok)
			seed_source = "tsc";
		/* Always mixed in; the only input without a hardware source. */
		v ^= rdtsc() * 0x9e3779b97f4a7c15ull;
		words[i] = v;
	}
	memcpy(crng_key, words, sizeof(crng_key));
	memset(words, 0, sizeof(words));
	crng_seeded = true;
}

const char *random_seed_source(void)
{
	unsigned long flags;
	spin_lock_irqsave(&random_lock, flags);
	if (!crng_seeded)
		crng_seed_locked();
	spin_unlock_irqrestore(&random_lock, flags);
	return seed_source;
}

/* Linux's crng_make_state + crng_fast_key_erasure: one block under the
 * current key; its first 32 bytes become the new key, the other 32 are
 * output. Further blocks for the same request use the old key copy. */
static void crng_next(u32 key_out[8], u64 *nonce_out, u8 first[CHACHA_BLOCK_SIZE - CHACHA_KEY_SIZE])
{
	u8 block[CHACHA_BLOCK_SIZE];
	unsigned long flags;
	spin_lock_irqsave(&random_lock, flags);
	if (!crng_seeded)
		crng_seed_locked();
	u64 nonce = ++crng_generation ^ rdtsc();
	chacha20_block(crng_key, 0, nonce, block);
	memcpy(key_out, crng_key, CHACHA_KEY_SIZE);
	memcpy(crng_key, block, CHACHA_KEY_SIZE);
	spin_unlock_irqrestore(&random_lock, flags);
	*nonce_out = nonce;
	memcpy(first, block + CHACHA_KEY_SIZE, CHACHA_BLOCK_SIZE - CHACHA_KEY_SIZE);
	memset(block, 0, sizeof(block));
}

void get_random_bytes(void *buf, size_t n)
{
	u32 key[8];
	u64 nonce;
	u8 block[CHACHA_BLOCK_SIZE];
	u8 *out = buf;
	crng_next(key, &nonce, block);
	size_t take = min(n, (size_t)(CHACHA_BLOCK_SIZE - CHACHA_KEY_SIZE));
	memcpy(out, block, take);
	out += take;
	n -= take;
	for (u64 counter = 1; n; counter++) {
		chacha20_block(key, counter, nonce, block);
		take = min(n, (size_t)CHACHA_BLOCK_SIZE);
		memcpy(out, block, take);
		out += take;
		n -= take;
	}
	memset(key, 0, sizeof(key));
	memset(block, 0, sizeof(block));
}

/* Linux's getrandom(2) (drivers/char/random.c): flags checked first, then
 * the buffer (import_ubuf: count capped at MAX_RW_COUNT, access_ok), then
 * get_random_bytes_user: a fault after some bytes gives the count copied,
 * a fault before any gives -EFAULT; a pending signal ends a long request
 * at a page boundary. */
#define MAX_RW_COUNT (0x7fffffffl & (long)~(PAGE_SIZE - 1))
SYSCALL_DEFINE3(getrandom, char __user *, ubuf, size_t, len, unsigned int, flags)
{
	if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
		return -EINVAL;
	/* Requesting insecure and blocking randomness at the same time makes
	 * no sense (Linux's words). */
	if ((flags & (GRND_INSECURE | GRND_RANDOM)) == (GRND_INSECURE | GRND_RANDOM))
		return -EINVAL;
	if (len > (size_t)MAX_RW_COUNT)
		len = (size_t)MAX_RW_COUNT;
	if (!access_ok(ubuf, len))
		return -EFAULT;
	long copied = 0;
	bool fault = false;
	u8 chunk[256];
	while (len) {
		size_t n = min(len, sizeof(chunk));
		get_random_bytes(chunk, n);
		unsigned long left = copy_to_user(ubuf + copied, chunk, n);
		copied += (long)(n - left);
		len -= n;
		if (left) {
			fault = true;
			break;
		}
		/* Linux's get_random_bytes_user: a page at a time, a chance
		 * for the others on this CPU (and for RCU) and for a signal. */
		if (!(copied % PAGE_SIZE) && len) {
			if (signal_pending(current))
				break;
			cond_resched();
		}
	}
	memset(chunk, 0, sizeof(chunk));
	return copied || !fault ? copied : -EFAULT;
}
