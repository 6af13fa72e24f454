/* session_selftest.h - the runner self-test's suite runner_session
 * (session_selftest.c), run by selftest.c's main. */
#ifndef MMLAB_SESSION_SELFTEST_H
#define MMLAB_SESSION_SELFTEST_H

/* Prints the suite as KTAP suite number `number`; returns the failed
 * cases, *passed the passed ones. */
int run_session_suite(int number, int *passed);

#endif
