/* Deliberate crashes on request (crash=<kind>), to test the panic path end
 * to end; see kernel/crash.c. */
#ifndef KERNEL_CRASH_H
#define KERNEL_CRASH_H

/* Crashes as crash= asks; returns when it is not given or names no kind. */
void crash_if_requested(void);

#endif
