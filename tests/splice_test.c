/* sendfile and copy_file_range (fs/splice.c) where a user program cannot
 * look: a tmpfs file sent to the console arrives as the process's line
 * (the console's splice_write, under its write lock), and so does a sysfs
 * attribute (kernfs's splice_read); the inputs Linux 6.1 refuses are
 * refused here (a /proc/<pid> file has no splice_read: -EINVAL, but a
 * count of 0 returns 0 first, as splice_direct_to_actor's regular file
 * check passes; a directory, the console: -EINVAL); copy_file_range
 * between a /proc file and a tmpfs one is -EXDEV. Every case runs the
 * system calls on a test mm (tests/test_mm.h) with a file table of its
 * own, and the suite's free_pages_restored checks that the bounce page
 * and the files come back. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "kernel/printk.h"
#include "kernel/syscall.h"
#include "lib/string.h"
#include "mm/page.h"

#define UBASE 0x40000000ul

static char capture_buf[4096];

static long sys6(unsigned long nr, unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3,
		 unsigned long a4, unsigned long a5)
{
	const unsigned long args[6] = { a0, a1, a2, a3, a4, a5 };
	return do_syscall_64(nr, args);
}

/* A path or bytes at UBASE + off in the case's memory. */
static unsigned long put(struct kunit *test, unsigned long off, const void *src, size_t n)
{
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)(UBASE + off), src, n), 0);
	return UBASE + off;
}

/* A memfd holding text, its position at the start. */
static long memfd_with(struct kunit *test, const char *text)
{
	long fd = sys6(__NR_memfd_create, put(test, 0, "splice", 7), 0, 0, 0, 0, 0);
	KUNIT_ASSERT_GE(test, fd, 3);
	size_t n = strlen(text);
	KUNIT_ASSERT_EQ(test, sys6(__NR_write, (unsigned long)fd, put(test, PAGE_SIZE, text, n), n, 0, 0, 0), (long)n);
	KUNIT_ASSERT_EQ(test, sys6(__NR_lseek, (unsigned long)fd, 0, SEEK_SET, 0, 0, 0), 0);
	return fd;
}

static void sendfile_to_console(struct kunit *test)
{
	test_mm_enter_space(test, UBASE, 4);
	long fd = memfd_with(test, "xxsent through the console\nyy");
	long off = 2;
	unsigned long uoff = put(test, 2 * PAGE_SIZE, &off, sizeof(off));
	struct printk_capture cap;
	printk_capture_begin(&cap, capture_buf, sizeof(capture_buf));
	long ret = sys6(__NR_sendfile, 1, (unsigned long)fd, uoff, 25, 0, 0);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, ret, 25);
	KUNIT_EXPECT_NOT_NULL(test, strstr(capture_buf, "sent through the console\n"));
	KUNIT_EXPECT_EQ(test, copy_from_user(&off, (void *)uoff, sizeof(off)), 0);
	KUNIT_EXPECT_EQ(test, off, 27);
	/* The input's own position did not move. */
	KUNIT_EXPECT_EQ(test, sys6(__NR_lseek, (unsigned long)fd, 0, SEEK_CUR, 0, 0, 0), 0);

	/* A sysfs attribute: what it reads, whole. */
	long online = sys6(__NR_open, put(test, 0, "/sys/devices/system/node/online", 32), O_RDONLY, 0, 0, 0, 0);
	KUNIT_ASSERT_GE(test, online, 3);
	char want[64] = { 0 };
	long n = sys6(__NR_read, (unsigned long)online, UBASE + PAGE_SIZE, sizeof(want) - 1, 0, 0, 0);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(want, (void *)(UBASE + PAGE_SIZE), (size_t)n), 0);
	printk_capture_begin(&cap, capture_buf, sizeof(capture_buf));
	ret = sys6(__NR_sendfile, 1, (unsigned long)online, 0, 4096, 0, 0);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, ret, 0); /* its position is at the end */
	off = 0;
	uoff = put(test, 2 * PAGE_SIZE, &off, sizeof(off));
	printk_capture_begin(&cap, capture_buf, sizeof(capture_buf));
	ret = sys6(__NR_sendfile, 1, (unsigned long)online, uoff, 4096, 0, 0);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, ret, n);
	KUNIT_EXPECT_NOT_NULL(test, strstr(capture_buf, want));
}

static void refused_inputs(struct kunit *test)
{
	test_mm_enter_space(test, UBASE, 4);
	long out = memfd_with(test, "");
	long proc = sys6(__NR_open, put(test, 0, "/proc/self/status", 18), O_RDONLY, 0, 0, 0, 0);
	KUNIT_ASSERT_GE(test, proc, 3);
	KUNIT_EXPECT_EQ(test, sys6(__NR_sendfile, (unsigned long)out, (unsigned long)proc, 0, 100, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys6(__NR_sendfile, (unsigned long)out, (unsigned long)proc, 0, 0, 0, 0), 0);
	long dir = sys6(__NR_open, put(test, 0, "/proc/self", 11), O_RDONLY, 0, 0, 0, 0);
	KUNIT_ASSERT_GE(test, dir, 3);
	KUNIT_EXPECT_EQ(test, sys6(__NR_sendfile, (unsigned long)out, (unsigned long)dir, 0, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys6(__NR_sendfile, (unsigned long)out, 0, 0, 10, 0, 0), -EINVAL); /* the console */
	KUNIT_EXPECT_EQ(test, sys6(__NR_copy_file_range, (unsigned long)proc, 0, (unsigned long)out, 0, 10, 0),
			-EXDEV);
	KUNIT_EXPECT_EQ(test, sys6(__NR_copy_file_range, (unsigned long)dir, 0, (unsigned long)out, 0, 10, 0),
			-EISDIR);
	/* Nothing reached the output. */
	KUNIT_EXPECT_EQ(test, sys6(__NR_lseek, (unsigned long)out, 0, SEEK_END, 0, 0, 0), 0);
}

static struct kunit_case splice_cases[] = {
	KUNIT_CASE(sendfile_to_console),
	KUNIT_CASE(refused_inputs),
	{}
};

static struct kunit_suite splice_suite = {
	.name = "splice",
	.test_cases = splice_cases,
};
kunit_test_suite(splice_suite);
