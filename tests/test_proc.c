/* See tests/test_proc.h. */
#include "tests/test_proc.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "mm/util.h"

static void kvfree_action(void *p) { kvfree(p); }

char *test_proc_read(struct kunit *test, const char *path)
{
	char *buf;
	size_t len;
	KUNIT_ASSERT_EQ(test, procfs_generate(path, current, &buf, &len), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kvfree_action, buf), 0);
	return buf;
}

void test_proc_free(struct kunit *test, char *text)
{
	kunit_release_action(test, kvfree_action, text);
}
