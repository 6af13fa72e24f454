/* The helpers every user test program uses. A program is built once (musl,
 * some also with glibc) and the same file runs on mmlab and on Linux: what
 * differs between the kernels is asked at run time (on_mmlab()).
 *
 * A test program calls test_begin(), runs CHECK*s (each prints one line:
 * "ok: ..." or "FAIL at file:line: ..."; a failure does not stop the
 * program), and ends with `return test_end();`, which prints the tally and
 * gives the exit status of the verdict protocol: 0 = all passed, 1 = a check
 * failed. test_skip() prints "SKIP: <reason>" as the last line and exits 77.
 * check_skip() passes over one part that this machine's settings make
 * meaningless, with a "skip: <reason>" line; the program goes on, and its
 * tally counts the skips.
 * A fault a program expects is caught with a SIGSEGV or SIGBUS handler
 * that leaves with siglongjmp (signals, truncate_sigbus); what must kill
 * a process is a crash program, or a child its parent waits for.
 *
 * Expectations never assume how the host's Linux is set up: where a result
 * depends on a setting (vm.overcommit_memory, RLIMIT_AS, the THP mode, the
 * CPUs a program may run on, ...), the program asks the kernel with the
 * probes at the end of this file and expects accordingly, or skips that
 * part with check_skip() and says why. */
#ifndef MMLAB_USER_CHECK_H
#define MMLAB_USER_CHECK_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PAGE_4K 4096UL
#define KiB (1UL << 10)
#define MiB (1UL << 20)
#define GiB (1UL << 30)

/* Makes stdout line buffered (into a pipe too, so that the output comes in
 * the same order on both kernels and nothing is lost if the program dies)
 * and prints the program's first line. */
void test_begin(const char *name);
int test_end(void);
/* The checks failed so far in this process (a forked child starts with
 * its parent's count): a child exits 1 if the count grew in it, for its
 * parent to check. */
unsigned checks_failed(void);
/* Waits for the child pid: its exit code, 100 + the signal that killed
 * it, or -1 when the wait fails. */
int wait_status_of(pid_t pid);
__attribute__((noreturn, format(printf, 1, 2))) void test_skip(const char *fmt, ...);
/* Prints "skip: <reason>" (one part not checked here, and why) and counts
 * it; the program goes on. */
__attribute__((format(printf, 1, 2))) void check_skip(const char *fmt, ...);
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

/* "dir/name" in one of four buffers used in turn, so that a call may
 * take up to four such paths (each cut at 511 bytes). */
const char *path_in(const char *dir, const char *name);

/* errno's name ("EINVAL"), or "E?<n>". */
const char *errno_name(int err);

/* mount(2) of a tmpfs named source at dir with options opts: 0 when
 * mounted. Otherwise undo() runs first; without the right to mount
 * (EPERM) the program is skipped (test_skip), and another error is a
 * failed check and -1 (the caller ends with test_end()). */
int mount_tmpfs_or_skip(const char *source, const char *dir, const char *opts, void (*undo)(void));
/* The end of a program's own mount directory: the mount at dir detached
 * (lazily) when *mounted, then dir removed unless the mount stays; dir
 * emptied, so that a second call (atexit after the last) does nothing. */
void mount_dir_release(char *dir, bool *mounted);
/* A new file "f" of size bytes in the mount at dir, handed to run, then
 * closed and unlinked, and the mount unmounted (checked) and released. */
void mount_dir_file_run(char *dir, bool *mounted, long size, void (*run)(int fd));

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
/* Writes s to the file at path (a sysfs or procfs knob) in one write:
 * whether the file took all of it. */
bool write_file(const char *path, const char *s);
/* The /proc/self/pagemap entries of the n 4 KiB pages from p's page into
 * e: whether all n were read. Their bits, as Linux's fs/proc/task_mmu.c
 * names them (the PFN is 0 without CAP_SYS_ADMIN). */
bool pagemap_read(const void *p, size_t n, uint64_t *e);
#define PM_PFN_MASK ((1ull << 55) - 1)
#define PM_SOFT_DIRTY (1ull << 55)
#define PM_EXCLUSIVE (1ull << 56)
#define PM_FILE (1ull << 61)
#define PM_SWAP (1ull << 62)
#define PM_PRESENT (1ull << 63)
/* The value after "<key>" on the line that starts with it, -1 if none. */
long field_after(const char *text, const char *key);
/* /proc/self/maps into buf (NUL-terminated), with the start address of
 * the [stack] line left out: Linux moves it down as the stack grows, which
 * is no change a program made. Two reads compare equal (strcmp) when no
 * mapping was made, unmapped, split, merged or given other permissions in
 * between. Returns the length or -1. */
long maps_snapshot(char *buf, size_t size);
/* A field of the /proc/self/smaps block of the VMA that starts at start
 * ("Rss" -> kB), -1 if absent. */
long smaps_kb(const void *start, const char *field);
/* The directory for a test's file: the first tmpfs of /dev/shm and /tmp
 * (*tmpfs true), else /tmp whatever it is (*tmpfs false). */
const char *tmpfs_dir(bool *tmpfs);
/* SIGBUS caught for read_byte and sigbus_at (a handler that leaves with
 * siglongjmp); whether sigaction took it. */
bool sigbus_catch(void);
/* Reads the byte at p: true with *v when it could, false after a SIGBUS
 * (its si_code and si_addr in sigbus_code and sigbus_addr). */
bool read_byte(const volatile char *p, char *v);
extern volatile int sigbus_code;
extern void *volatile sigbus_addr;
/* Whether a touch at p is SIGBUS with Linux's si_code (BUS_ADRERR) and
 * si_addr p. */
bool sigbus_at(const volatile char *p);
/* The /proc/self/numa_maps line of the VMA that starts at start, without
 * its newline, into out (cut to size - 1 bytes); false (out empty) when
 * there is none or the file cannot be read (a kernel without NUMA). */
bool numa_maps_line(const void *start, char *out, size_t size);
/* A /proc/vmstat counter, -1 if absent. */
long vmstat_value(const char *name);

/* The number after option name in argv ("--rounds 10"), or def. For the
 * benchmarks, which the kernel starts as "<name> --bench". */
long arg_long(int argc, char **argv, const char *name, long def);

/* Nanoseconds of CLOCK_MONOTONIC. */
long long now_ns(void);
/* The Threads: count of /proc/self/status once it reads n, looked at
 * every millisecond for at most max_ms (a hang guard, not a time limit
 * on the kernel), else the last count read; -1 without the field. A
 * joined thread may still be counted for a moment: pthread_join returns
 * once the kernel has cleared the thread's tid word
 * (CLONE_CHILD_CLEARTID), which both kernels do before the thread leaves
 * its group (Linux: exit_mm before exit_notify). */
long threads_settled(long n, int max_ms);

/* Writes one byte in every page of [p, p + len): faults them in. */
void touch_pages(void *p, size_t len, unsigned char value);
/* True if every byte of [p, p + len) is value. */
bool all_bytes(const void *p, size_t len, unsigned char value);

/* True when the kernel is mmlab: uname(2)'s sysname is "mmlab" there
 * ("Linux" on Linux). For the few expectations that differ between the
 * kernels; a program says which behaviour it expects from which. */
bool on_mmlab(void);
/* True when this program runs on the runner's Linux guest (its /init
 * started it), never on a host: for what may change the machine's own
 * settings or fill its memory. */
bool in_runner_guest(void);
/* The number a file starts with (a sysctl, a sysfs count), or -1 when
 * it cannot be read; and writing one there ("v\n"), true if it took. */
long file_long(const char *path);
bool file_write_long(const char *path, long v);

/* Whether capability cap is in this process's effective set, and its
 * removal from it (capget/capset version 3; false when they fail). */
bool has_cap(int cap);
bool drop_cap(int cap);

/* Whether a read fault on never-written anonymous memory maps the shared
 * zero page (not counted in VmRSS). mmlab always does, and on_mmlab() says so
 * without probing, so the checks that rely on it stay strict there. Linux
 * usually does too, but a kernel may back such reads with new pages (seen
 * on a host Linux 6.18 of this project's machines): there the answer is
 * probed once, by reading 64 fresh pages and watching VmRSS, and noted. */
bool reads_map_zero_page(void);

/* The probes below read what this kernel is set to do, so that a program
 * expects that rather than one host's configuration. On mmlab they read
 * mmlab's own files, whose values at boot are the ones the programs were
 * written against (overcommit mode 0, no RLIMIT_AS, 47-bit addresses, ...),
 * so what is checked there does not change. */

/* vm.overcommit_memory (/proc/sys/vm/overcommit_memory): 0 the heuristic,
 * 1 always, 2 never (strict accounting against CommitLimit); -1 if the
 * file cannot be read. */
int overcommit_mode(void);

/* Why this kernel may refuse (ENOMEM) a private writable anonymous
 * mapping of len bytes made with MAP_NORESERVE, or NULL when none of its
 * settings stands in the way. Two can: RLIMIT_AS below VmSize + len (a
 * refusal for certain), and vm.overcommit_memory = 2, which charges such a
 * mapping all the same (mmap honours MAP_NORESERVE only in modes 0 and 1):
 * refused for certain when len alone is over CommitLimit, else depending
 * on Committed_AS, which every process on the machine moves. *certain
 * (may be NULL) says which. The reason is a static string. */
const char *noreserve_refusal(size_t len, bool *certain);
/* Makes such a mapping (MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
 * read-write) and judges the outcome by noreserve_refusal(), asked before:
 * the mapping, or NULL when there is none to go on with: a refusal the
 * settings explain (checked to be ENOMEM, the part skipped with their
 * reason) or a failure. what names it in the lines printed. */
void *map_noreserve(size_t len, const char *what);

/* Whether this process may lock len more bytes: CAP_IPC_LOCK in CapEff
 * (root's, unless dropped), or RLIMIT_MEMLOCK above what is locked (VmLck) plus len.
 * If not, why, in why. */
bool mlock_allowed(size_t len, char *why, size_t size);

/* The THP mode in force for 2 MiB anonymous pages: "always", "madvise" or
 * "never". Linux 6.8 and later let hugepages-2048kB/enabled override the
 * top-level transparent_hugepage/enabled ("inherit" defers to it); NULL
 * where the kernel has no THP (no /sys/kernel/mm/transparent_hugepage). */
const char *thp_pmd_mode(void);

/* len bytes mapped readable and writable on a 2 MiB boundary (a padded
 * search, then MAP_FIXED there), with flags from fd at offset 0 (fd -1
 * with MAP_ANONYMOUS); NULL if either mmap fails. */
void *map_aligned_2m(size_t len, int flags, int fd);

/* Whether an anonymous fault in a mapping of less than 2 MiB may map
 * several 4 KiB pages at once: Linux 6.8's multi-size THP, where a size
 * below 2048 kB (hugepages-<size>kB/enabled) is "always", or "inherit"
 * with the top-level mode "always" (sizes set to "madvise" only apply to
 * MADV_HUGEPAGE ranges). Never on mmlab, which has 2 MiB THP only. */
bool thp_small_sizes(void);
/* For checks that count pages one fault at a time: asks for 4 KiB pages
 * in [p, p + len) (MADV_NOHUGEPAGE, which turns off every THP size) where
 * thp_small_sizes() says faults may otherwise map more; nothing elsewhere,
 * so that mmlab runs the program as it always has. */
void small_pages(void *p, size_t len);

/* The word in force in transparent_hugepage/shmem_enabled ("never",
 * "always", "within_size", "advise", "deny", "force"; a static buffer),
 * NULL where the kernel has no THP. shmem_enabled_set writes one (only
 * mmlab's programs do: a machine of the test's own); false if it could
 * not. */
const char *shmem_enabled_mode(void);
bool shmem_enabled_set(const char *word);
/* Whether shmem may use folios between 4 KiB and 2 MiB (Linux 6.11+'s
 * hugepages-<N>kB/shmem_enabled not never, or inherit of a top-level
 * word top that allows huge pages; noted): then what a touch makes is not
 * the 2 MiB page's or the 4 KiB page's alone. */
bool shmem_small_sizes(const char *top);

/* Serialises the programs that change a machine-wide setting and put it
 * back (hugetlb and vm_create grow a hugetlb pool, mempolicy writes the
 * weighted-interleave weights) across every run on this machine: two host
 * suites at once (several checkouts, CI jobs on one host) would otherwise
 * see each other's values as the machine's, and one of them would put back
 * a value that is not the one it found. An exclusive flock(2) on the
 * setting's own file, waited for and held until setting_unlock() (or the
 * program's exit); on mmlab, which runs one program at a time, nothing.
 * Returns the descriptor to unlock with, or -1. */
int setting_lock(const char *path);
void setting_unlock(int fd);

/* The 2 MiB hugetlb pool (sysfs): one of its counts (nr_hugepages,
 * free_hugepages, resv_hugepages, surplus_hugepages,
 * nr_overcommit_hugepages), -1 without the file; and setting its size
 * (root), true if it took. Hold setting_lock(HUGETLB_POOL "nr_hugepages")
 * around a change, and put the size back. */
#define HUGETLB_POOL "/sys/kernel/mm/hugepages/hugepages-2048kB/"
long hugetlb_pool(const char *file);
bool hugetlb_pool_set(long n);
/* A program's start with the pool: the default size must be 2 MiB on
 * Linux, the pool free of other users' reservations, surplus pages and
 * nr_overcommit_hugepages (on Linux); then it is locked (setting_lock)
 * and grown by `by` pages. Each failure ends the program as a skip with
 * its reason. Returns the size it had (put it back with hugetlb_pool_set),
 * its reserved pages in *resv0. */
long hugetlb_pool_grow(long by, long *resv0);

/* CPUs: how many are online (/sys/devices/system/cpu/online), and the
 * number of CPU ids (the highest possible CPU + 1: Linux's nr_cpu_ids).
 * Not sysconf(): musl answers both _SC_NPROCESSORS_ONLN and _CONF with
 * the CPUs of the affinity mask, which a host (taskset, a container) may
 * have narrowed; sysconf's figure only where the files cannot be read. */
long cpus_online(void);
long cpu_ids(void);

/* The width of user addresses: 47 with 4-level paging (mmlab, most
 * hosts), 56 where Linux runs with 5-level paging (LA57). Probed on Linux
 * by a hint above 47 bits, which such a kernel honours and a 4-level one
 * cannot. */
int user_va_bits(void);
/* Whether RLIMIT_NPROC leaves room for n more processes (and some to
 * spare); if not, says so with check_skip and returns false. */
bool nproc_room(long n);

#endif
