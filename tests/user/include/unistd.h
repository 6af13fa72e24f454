/* POSIX I/O and process calls as thin system-call wrappers (-1 and errno on
 * failure, like glibc), brk/sbrk, sysconf and the raw syscall(2). */
#ifndef _UNISTD_H
#define _UNISTD_H

#include <sys/types.h>

#define STDIN_FILENO 0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2

#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

/* sysconf names, glibc's values. */
#define _SC_CLK_TCK 2
#define _SC_PAGESIZE 30
#define _SC_PAGE_SIZE _SC_PAGESIZE

ssize_t read(int fd, void *buf, size_t count);
ssize_t write(int fd, const void *buf, size_t count);
ssize_t pread(int fd, void *buf, size_t count, off_t offset);
int close(int fd);
off_t lseek(int fd, off_t offset, int whence);
pid_t getpid(void);
pid_t gettid(void);
long sysconf(int name);
int getpagesize(void);
int brk(void *addr);
void *sbrk(intptr_t increment);
__attribute__((noreturn)) void _exit(int status);
long syscall(long number, ...);

#endif
