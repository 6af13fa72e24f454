/* procfs and sysfs files read from a test case, as the current task reads
 * them (fs/proc/proc_fs.h's procfs_generate): one helper instead of a
 * reader in each suite. */
#ifndef TESTS_TEST_PROC_H
#define TESTS_TEST_PROC_H

#include "tests/kunit.h"

/* The content of path, NUL-terminated; ASSERTs that it is generated. The
 * buffer is freed when the case ends, or earlier by test_proc_free (a case
 * that checks for leaks before its end frees it first). */
char *test_proc_read(struct kunit *test, const char *path);
void test_proc_free(struct kunit *test, char *text);

#endif
