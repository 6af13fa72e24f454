/* sched_yield(2). */
#ifndef _SCHED_H
#define _SCHED_H

int sched_yield(void);

#endif
