/* Resource usage (Linux's include/uapi/linux/resource.h and
 * kernel/sys.c's getrusage): what getrusage, times and wait4 report. */
#ifndef KERNEL_RESOURCE_H
#define KERNEL_RESOURCE_H

#include "kernel/types.h"

#define RUSAGE_SELF 0
#define RUSAGE_CHILDREN (-1)
#define RUSAGE_BOTH (-2) /* the kernel's own: self and waited-for children */
#define RUSAGE_THREAD 1

struct __kernel_old_timeval {
	long tv_sec;
	long tv_usec;
};
/* ns as seconds and microseconds (getrusage's times, gettimeofday's). */
static inline struct __kernel_old_timeval ns_to_kernel_old_timeval(u64 ns)
{
	return (struct __kernel_old_timeval){ .tv_sec = (long)(ns / 1000000000ull),
					      .tv_usec = (long)(ns % 1000000000ull / 1000) };
}

struct rusage {
	struct __kernel_old_timeval ru_utime, ru_stime;
	long ru_maxrss; /* KiB */
	long ru_ixrss, ru_idrss, ru_isrss; /* unused by Linux: 0 */
	long ru_minflt, ru_majflt;
	long ru_nswap; /* unused: 0 */
	long ru_inblock, ru_oublock; /* no block I/O here: 0 */
	long ru_msgsnd, ru_msgrcv, ru_nsignals; /* unused: 0 */
	long ru_nvcsw, ru_nivcsw;
};

struct task_struct;
/* p's usage as who (RUSAGE_*) says; p is current, or a zombie being
 * waited for (RUSAGE_BOTH). */
void getrusage(struct task_struct *p, int who, struct rusage *r);

#endif
