/* The helpers every user test program uses. A program is built once (musl,
 * some also with glibc) and the same file runs on mmlab and on Linux: what
 * differs between the kernels is asked at run time (on_mmlab()).
 *
 * A test program calls test_begin(), runs CHECK*s (each prints one line:
 * "ok: ..." or "FAIL at file:line: ..."; a failure does not stop the
 * program), and ends with `return test_end();`, which prints the tally and
 * gives the exit status of the verdict protocol: 0 = all passed, 1 = a check
 * failed. test_skip() prints "SKIP: <reason>" as the last line and exits 77.
 * Faults cannot be checked here (no signals on mmlab): crash programs do
 * that. */
#ifndef MMLAB_USER_CHECK_H
#define MMLAB_USER_CHECK_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#define PAGE_4K 4096UL
#define KiB (1UL << 10)
#define MiB (1UL << 20)
#define GiB (1UL << 30)

/* Makes stdout line buffered (into a pipe too, so that the output comes in
 * the same order on both kernels and nothing is lost if the program dies)
 * and prints the program's first line. */
void test_begin(const char *name);
int test_end(void);
__attribute__((noreturn, format(printf, 1, 2))) void test_skip(const char *fmt, ...);
/* Prints a line of commentary ("# what is going on"). */
__attribute__((format(printf, 1, 2))) void note(const char *fmt, ...);

/* Records and prints one result; returns ok. */
__attribute__((format(printf, 4, 5))) bool check_report(bool ok, const char *file, int line,
							  const char *fmt, ...);
bool check_errno_report(long ret, int err, int expected, const char *call, const char *file,
			int line);
bool check_cmp_report(bool ok, long long a, long long b, const char *expr, const char *file,
		      int line);

/* CHECK(cond): cond must hold. */
#define CHECK(cond) check_report(!!(cond), __FILE__, __LINE__, "%s", #cond)
/* CHECKF(cond, fmt, ...): the same, printed as the formatted text. */
#define CHECKF(cond, ...) check_report(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
/* CHECK_CMP(a, op, b): a op b as signed 64-bit values, both printed. */
#define CHECK_CMP(a, op, b)                                                              \
	({                                                                               \
		long long _a = (long long)(a), _b = (long long)(b);                      \
		check_cmp_report(_a op _b, _a, _b, #a " " #op " " #b, __FILE__, __LINE__); \
	})
/* CHECK_ERRNO(call, E): call must fail (-1, or MAP_FAILED) with errno E. */
#define CHECK_ERRNO(call, expected)                                                      \
	({                                                                               \
		errno = 0;                                                               \
		long _r = (long)(call);                                                  \
		int _e = errno;                                                          \
		check_errno_report(_r, _e, expected, #call, __FILE__, __LINE__);         \
	})

/* errno's name ("EINVAL"), or "E?<n>". */
const char *errno_name(int err);

/* A field of /proc/self/status in kB ("VmRSS" -> 1234), -1 if absent. */
long status_kb(const char *field);
/* Resident memory in kB, exact on both kernels: /proc/self/smaps_rollup's
 * Rss where there is one (a walk of the page tables; Linux up to 6.1 keeps
 * VmRSS in per-thread caches synced every 64 faults, so it lags by up to 63
 * pages a thread: proc(5)), else VmRSS (mmlab's counters are exact). The
 * shared zero page counts in neither. */
long rss_kb(void);
/* A "Name: <n> kB" field of /proc/meminfo in kB, -1 if absent. */
long meminfo_kb(const char *field);
/* Reads a whole (small) file into buf, NUL-terminated; returns its length
 * or -1 with errno set. */
long read_file(const char *path, char *buf, size_t size);
/* The value after "<key>" on the line that starts with it, -1 if none. */
long field_after(const char *text, const char *key);
/* A field of the /proc/self/smaps block of the VMA that starts at start
 * ("Rss" -> kB), -1 if absent. */
long smaps_kb(const void *start, const char *field);
/* A /proc/vmstat counter, -1 if absent. */
long vmstat_value(const char *name);

/* The number after option name in argv ("--rounds 10"), or def. For the
 * benchmarks, which the kernel starts as "<name> --bench". */
long arg_long(int argc, char **argv, const char *name, long def);

/* Nanoseconds of CLOCK_MONOTONIC. */
long long now_ns(void);

/* Writes one byte in every page of [p, p + len): faults them in. */
void touch_pages(void *p, size_t len, unsigned char value);
/* True if every byte of [p, p + len) is value. */
bool all_bytes(const void *p, size_t len, unsigned char value);

/* True when the kernel is mmlab: uname(2)'s sysname is "mmlab" there
 * ("Linux" on Linux). For the few expectations that differ between the
 * kernels; a program says which behaviour it expects from which. */
bool on_mmlab(void);

/* Whether a read fault on never-written anonymous memory maps the shared
 * zero page (not counted in VmRSS). mmlab always does, and on_mmlab() says so
 * without probing, so the checks that rely on it stay strict there. Linux
 * usually does too, but a kernel may back such reads with new pages (seen
 * on a host Linux 6.18 of this project's machines): there the answer is
 * probed once, by reading 64 fresh pages and watching VmRSS, and noted. */
bool reads_map_zero_page(void);

#endif
