/* Linux x86_64 system-call numbers (arch/x86/entry/syscalls/syscall_64.tbl),
 * and the uapi constants the kernel shares with user programs. */
#ifndef KERNEL_UNISTD_H
#define KERNEL_UNISTD_H

#define __NR_read 0
#define __NR_write 1
#define __NR_open 2
#define __NR_close 3
#define __NR_fstat 5
#define __NR_lseek 8
#define __NR_mmap 9
#define __NR_mprotect 10
#define __NR_munmap 11
#define __NR_brk 12
#define __NR_rt_sigaction 13
#define __NR_rt_sigprocmask 14
#define __NR_rt_sigreturn 15
#define __NR_ioctl 16
#define __NR_pread64 17
#define __NR_readv 19
#define __NR_writev 20
#define __NR_access 21
#define __NR_sched_yield 24
#define __NR_mremap 25
#define __NR_msync 26
#define __NR_mincore 27
#define __NR_madvise 28
#define __NR_pause 34
#define __NR_nanosleep 35
#define __NR_getpid 39
#define __NR_clone 56
#define __NR_fork 57
#define __NR_vfork 58
#define __NR_execve 59
#define __NR_exit 60
#define __NR_wait4 61
#define __NR_kill 62
#define __NR_uname 63
#define __NR_readlink 89
#define __NR_getrlimit 97
#define __NR_gettimeofday 96
#define __NR_getrusage 98
#define __NR_sysinfo 99
#define __NR_times 100
#define __NR_getuid 102
#define __NR_getgid 104
#define __NR_geteuid 107
#define __NR_getegid 108
#define __NR_setpgid 109
#define __NR_getppid 110
#define __NR_getpgrp 111
#define __NR_setsid 112
#define __NR_getpgid 121
#define __NR_getsid 124
#define __NR_rt_sigpending 127
#define __NR_rt_sigtimedwait 128
#define __NR_rt_sigqueueinfo 129
#define __NR_rt_sigsuspend 130
#define __NR_sigaltstack 131
#define __NR_mlock 149
#define __NR_munlock 150
#define __NR_mlockall 151
#define __NR_munlockall 152
#define __NR_prctl 157
#define __NR_arch_prctl 158
#define __NR_setrlimit 160
#define __NR_gettid 186
#define __NR_tkill 200
#define __NR_time 201
#define __NR_futex 202
#define __NR_sched_setaffinity 203
#define __NR_sched_getaffinity 204
#define __NR_remap_file_pages 216
#define __NR_set_tid_address 218
#define __NR_restart_syscall 219
#define __NR_clock_gettime 228
#define __NR_clock_getres 229
#define __NR_clock_nanosleep 230
#define __NR_exit_group 231
#define __NR_tgkill 234
#define __NR_mbind 237
#define __NR_set_mempolicy 238
#define __NR_get_mempolicy 239
#define __NR_waitid 247
#define __NR_migrate_pages 256
#define __NR_openat 257
#define __NR_newfstatat 262
#define __NR_readlinkat 267
#define __NR_faccessat 269
#define __NR_set_robust_list 273
#define __NR_get_robust_list 274
#define __NR_move_pages 279
#define __NR_rt_tgsigqueueinfo 297
#define __NR_prlimit64 302
#define __NR_getcpu 309
#define __NR_process_vm_readv 310
#define __NR_process_vm_writev 311
#define __NR_getrandom 318
#define __NR_execveat 322
#define __NR_mlock2 325
#define __NR_rseq 334
#define __NR_clone3 435
#define __NR_faccessat2 439
#define __NR_set_mempolicy_home_node 450
#define NR_syscalls 451

/* mmap/mprotect/madvise (uapi/asm-generic/mman-common.h, asm/mman.h). */
#define PROT_NONE 0x0
#define PROT_READ 0x1
#define PROT_WRITE 0x2
#define PROT_EXEC 0x4
#define PROT_GROWSDOWN 0x01000000
#define PROT_GROWSUP 0x02000000
#define MAP_SHARED 0x01
#define MAP_PRIVATE 0x02
#define MAP_SHARED_VALIDATE 0x03
#define MAP_TYPE 0x0f
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_32BIT 0x40
#define MAP_GROWSDOWN 0x0100
#define MAP_DENYWRITE 0x0800
#define MAP_EXECUTABLE 0x1000
#define MAP_LOCKED 0x2000
#define MAP_NORESERVE 0x4000
#define MAP_POPULATE 0x8000
#define MAP_NONBLOCK 0x10000
#define MAP_STACK 0x20000
#define MAP_HUGETLB 0x40000
#define MAP_HUGE_SHIFT 26 /* log2 of the hugetlb page size in flags bits 26-31 */
#define MAP_HUGE_MASK 0x3f
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#define MAP_HUGE_1GB (30 << MAP_HUGE_SHIFT)
#define MAP_SYNC 0x80000
#define MAP_FIXED_NOREPLACE 0x100000
#define MAP_FAILED ((void *)-1)
#define MCL_CURRENT 1 /* mlockall */
#define MCL_FUTURE 2
#define MCL_ONFAULT 4
#define MLOCK_ONFAULT 1 /* mlock2 */
#define MS_ASYNC 1 /* msync */
#define MS_INVALIDATE 2
#define MS_SYNC 4
#define MADV_NORMAL 0
#define MADV_RANDOM 1
#define MADV_SEQUENTIAL 2
#define MADV_WILLNEED 3
#define MADV_DONTNEED 4
#define MADV_FREE 8
#define MADV_REMOVE 9
#define MADV_DONTFORK 10
#define MADV_DOFORK 11
#define MADV_HUGEPAGE 14
#define MADV_NOHUGEPAGE 15
#define MADV_DONTDUMP 16
#define MADV_DODUMP 17
#define MADV_WIPEONFORK 18
#define MADV_KEEPONFORK 19
#define MADV_COLD 20
#define MADV_PAGEOUT 21
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#define MADV_DONTNEED_LOCKED 24

/* open flags (asm-generic/fcntl.h). */
#define O_RDONLY 00
#define O_WRONLY 01
#define O_RDWR 02
#define O_ACCMODE 03
#define O_CREAT 0100
#define O_EXCL 0200
#define O_TRUNC 01000
#define O_APPEND 02000
#define O_NONBLOCK 04000
#define O_DIRECTORY 0200000
#define O_CLOEXEC 02000000
#define O_PATH 010000000
#define __O_TMPFILE 020000000
#define O_TMPFILE (__O_TMPFILE | O_DIRECTORY)
#define AT_FDCWD (-100)

/* clock_gettime clocks. */
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID 3
#define CLOCK_MONOTONIC_RAW 4
#define CLOCK_BOOTTIME 7

struct __kernel_timespec {
	long long tv_sec;
	long long tv_nsec;
};

#endif
