/* Linux x86_64 system-call numbers (arch/x86/entry/syscalls/syscall_64.tbl),
 * for syscall(2). Those mmlab implements come first; the rest are listed
 * because tests call them to see -ENOSYS or compare with Linux. */
#ifndef _SYS_SYSCALL_H
#define _SYS_SYSCALL_H

#define SYS_read 0
#define SYS_write 1
#define SYS_open 2
#define SYS_close 3
#define SYS_lseek 8
#define SYS_mmap 9
#define SYS_mprotect 10
#define SYS_munmap 11
#define SYS_brk 12
#define SYS_pread64 17
#define SYS_sched_yield 24
#define SYS_madvise 28
#define SYS_nanosleep 35
#define SYS_getpid 39
#define SYS_exit 60
#define SYS_uname 63
#define SYS_gettid 186
#define SYS_clock_gettime 228
#define SYS_exit_group 231
#define SYS_openat 257

/* Not (yet) in mmlab. */
#define SYS_fstat 5
#define SYS_mremap 25
#define SYS_mbind 237
#define SYS_set_mempolicy 238
#define SYS_get_mempolicy 239
#define SYS_move_pages 279
#define SYS_set_mempolicy_home_node 450

#endif
