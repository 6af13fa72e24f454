/* The memory character devices (drivers/char/mem.c) and the table that
 * finds them by number (fs/char_dev.c): each device's file_operations
 * called directly through a struct file from alloc_file(), with kernel
 * buffers and with user buffers in a test mm (a part of the buffer
 * unmapped for the short read and -EFAULT), against Linux's semantics:
 * null reads end of file and swallows writes, zero reads zeros, full
 * refuses writes with -ENOSPC, random and urandom read generator bytes and
 * accept writes; seeks as Linux's null/zero/full_lseek and noop_llseek.
 * The table: the five registered at boot, nothing for other numbers
 * (chrdev_open: -ENXIO), a number taken only once. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "arch/x86_64/uaccess.h"
#include "fs/char_dev.h"
#include "fs/fs.h"
#include "kernel/unistd.h"
#include "lib/string.h"

#define UBASE 0x10000000ul

static void fput_action(void *f) { fput(f); }

/* chrdev_open on a device node of number major:minor (an inode that only
 * carries the number: what chrdev_open reads of it). */
static int open_node(struct file *f, unsigned int major, unsigned int minor)
{
	static struct inode node;
	node.i_mode = S_IFCHR | 0666;
	node.i_rdev = MKDEV(major, minor);
	return chrdev_open(&node, f);
}

/* A file opened on device 1:minor, as chrdev_open gives it. */
static struct file *open_mem(struct kunit *test, unsigned int minor)
{
	struct file *f = alloc_file();
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fput_action, f), 0);
	KUNIT_ASSERT_EQ(test, open_node(f, 1, minor), 0);
	f->f_flags = O_RDWR;
	f->f_mode = FMODE_READ | FMODE_WRITE | FMODE_CAN_READ | FMODE_CAN_WRITE | FMODE_LSEEK;
	return f;
}

static long do_read(struct file *f, void *buf, size_t n, bool user)
{
	return f->f_op->read(f, buf, n, &f->f_pos, user);
}

static long do_write(struct file *f, const void *buf, size_t n)
{
	return f->f_op->write(f, buf, n, &f->f_pos, false);
}

static bool all_bytes(const u8 *p, size_t n, u8 v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

static u8 buf[3 * PAGE_SIZE + 17];

static void registered_at_boot(struct kunit *test)
{
	static const unsigned int minors[] = { 3, 5, 7, 8, 9 };
	for (unsigned int i = 0; i < ARRAY_SIZE(minors); i++) {
		const struct file_operations *fops = chrdev_lookup(1, minors[i]);
		KUNIT_EXPECT_NOT_NULL(test, fops);
		if (fops)
			KUNIT_EXPECT_EQ(test, fops->mode, S_IFCHR | 0666);
	}
	/* Minors Linux has (mem, kmem, port, kmsg) that mmlab has not, and
	 * other majors. */
	KUNIT_EXPECT_NULL(test, chrdev_lookup(1, 1));
	KUNIT_EXPECT_NULL(test, chrdev_lookup(1, 4));
	KUNIT_EXPECT_NULL(test, chrdev_lookup(1, 11));
	KUNIT_EXPECT_NULL(test, chrdev_lookup(5, 2)); /* /dev/ptmx: no pseudo-terminals */
	KUNIT_EXPECT_NULL(test, chrdev_lookup(0, 0));
}

static void unknown_number_is_enxio(struct kunit *test)
{
	struct file *f = alloc_file();
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fput_action, f), 0);
	KUNIT_EXPECT_EQ(test, open_node(f, 1, 4), -ENXIO);
	KUNIT_EXPECT_NULL(test, f->f_op);
	KUNIT_EXPECT_EQ(test, open_node(f, 4095, MINORMASK), -ENXIO);
}

static void unregister_test_device(void *ctx)
{
	(void)ctx;
	unregister_chrdev_fops(4095, 77);
}

static void a_number_is_taken_once(struct kunit *test)
{
	static const struct file_operations fops = { .mode = S_IFCHR | 0600 };
	KUNIT_EXPECT_EQ(test, register_chrdev_fops(1, 3, &fops), -EBUSY);
	KUNIT_EXPECT_EQ(test, register_chrdev_fops(4096, 0, &fops), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_chrdev_fops(7, MINORMASK + 1, &fops), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_chrdev_fops(7, 0, NULL), -EINVAL);
	KUNIT_ASSERT_EQ(test, register_chrdev_fops(4095, 77, &fops), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_test_device, NULL), 0);
	KUNIT_EXPECT_PTR_EQ(test, chrdev_lookup(4095, 77), &fops);
	KUNIT_EXPECT_EQ(test, register_chrdev_fops(4095, 77, &fops), -EBUSY);
	unregister_chrdev_fops(4095, 77);
	KUNIT_EXPECT_NULL(test, chrdev_lookup(4095, 77));
	/* /dev/null is untouched by all this. */
	KUNIT_EXPECT_NOT_NULL(test, chrdev_lookup(1, 3));
}

static void null_reads_eof_and_swallows(struct kunit *test)
{
	struct file *f = open_mem(test, 3);
	memset(buf, 0xaa, sizeof(buf));
	KUNIT_EXPECT_EQ(test, do_read(f, buf, sizeof(buf), false), 0);
	KUNIT_EXPECT_TRUE(test, all_bytes(buf, sizeof(buf), 0xaa));
	KUNIT_EXPECT_EQ(test, do_write(f, buf, sizeof(buf)), sizeof(buf));
	KUNIT_EXPECT_EQ(test, do_write(f, buf, 0), 0);
	f->f_pos = 1234;
	KUNIT_EXPECT_EQ(test, f->f_op->llseek(f, 99, SEEK_SET), 0);
	KUNIT_EXPECT_EQ(test, f->f_pos, 0);
}

static void zero_reads_zeros(struct kunit *test)
{
	struct file *f = open_mem(test, 5);
	memset(buf, 0xaa, sizeof(buf));
	KUNIT_EXPECT_EQ(test, do_read(f, buf, sizeof(buf) - 1, false), sizeof(buf) - 1);
	KUNIT_EXPECT_TRUE(test, all_bytes(buf, sizeof(buf) - 1, 0));
	KUNIT_EXPECT_EQ(test, buf[sizeof(buf) - 1], 0xaa); /* not a byte more */
	KUNIT_EXPECT_EQ(test, do_read(f, buf, 0, false), 0);
	KUNIT_EXPECT_EQ(test, do_write(f, buf, 100), 100);
	f->f_pos = 5;
	KUNIT_EXPECT_EQ(test, f->f_op->llseek(f, 10, SEEK_CUR), 0);
}

static void full_refuses_writes(struct kunit *test)
{
	struct file *f = open_mem(test, 7);
	memset(buf, 0xaa, sizeof(buf));
	KUNIT_EXPECT_EQ(test, do_read(f, buf, 100, false), 100);
	KUNIT_EXPECT_TRUE(test, all_bytes(buf, 100, 0));
	KUNIT_EXPECT_EQ(test, do_write(f, buf, 1), -ENOSPC);
	KUNIT_EXPECT_EQ(test, do_write(f, buf, 0), -ENOSPC); /* as Linux's write_full */
	KUNIT_EXPECT_EQ(test, f->f_op->llseek(f, 7, SEEK_END), 0);
}

static void random_reads_generator_bytes(struct kunit *test)
{
	static const unsigned int minors[] = { 8, 9 };
	for (unsigned int i = 0; i < ARRAY_SIZE(minors); i++) {
		struct file *f = open_mem(test, minors[i]);
		u8 a[64], b[64], zero[64];
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		memset(zero, 0, sizeof(zero));
		KUNIT_EXPECT_EQ(test, do_read(f, a, sizeof(a), false), sizeof(a));
		KUNIT_EXPECT_EQ(test, do_read(f, b, sizeof(b), false), sizeof(b));
		KUNIT_EXPECT_NE(test, memcmp(a, b, sizeof(a)), 0);
		KUNIT_EXPECT_NE(test, memcmp(a, zero, sizeof(a)), 0);
		KUNIT_EXPECT_EQ(test, do_write(f, a, sizeof(a)), sizeof(a));
		f->f_pos = 42;
		KUNIT_EXPECT_EQ(test, f->f_op->llseek(f, 0, SEEK_SET), 42); /* noop_llseek */
	}
}

/* Reads into user memory: whole pages, and a read running into an
 * unmapped page stops there (the bytes so far), or -EFAULT at its start. */
static void user_buffers(struct kunit *test)
{
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	test_mm_map_anon(test, mm, UBASE, 2 * PAGE_SIZE);
	char *u = (char *)UBASE;
	static const unsigned int minors[] = { 5, 7, 8, 9 };
	for (unsigned int i = 0; i < ARRAY_SIZE(minors); i++) {
		struct file *f = open_mem(test, minors[i]);
		KUNIT_EXPECT_EQ(test, clear_user(u, 2 * PAGE_SIZE), 0);
		KUNIT_EXPECT_EQ(test, do_read(f, u, 2 * PAGE_SIZE, true), 2 * PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, do_read(f, u + PAGE_SIZE + 100, PAGE_SIZE, true), PAGE_SIZE - 100);
		KUNIT_EXPECT_EQ(test, do_read(f, u + 2 * PAGE_SIZE, 10, true), -EFAULT);
		u8 got[64];
		KUNIT_ASSERT_EQ(test, copy_from_user(got, u + 1000, sizeof(got)), 0);
		bool zeros = all_bytes(got, sizeof(got), 0);
		if (minors[i] == 5 || minors[i] == 7)
			KUNIT_EXPECT_TRUE(test, zeros);
		else
			KUNIT_EXPECT_FALSE(test, zeros);
	}
	/* null never touches the buffer: even an unmapped one reads as EOF. */
	struct file *f = open_mem(test, 3);
	KUNIT_EXPECT_EQ(test, do_read(f, u + 2 * PAGE_SIZE, 10, true), 0);
}

static struct kunit_case mem_devices_cases[] = {
	KUNIT_CASE(registered_at_boot),
	KUNIT_CASE(unknown_number_is_enxio),
	KUNIT_CASE(a_number_is_taken_once),
	KUNIT_CASE(null_reads_eof_and_swallows),
	KUNIT_CASE(zero_reads_zeros),
	KUNIT_CASE(full_refuses_writes),
	KUNIT_CASE(random_reads_generator_bytes),
	KUNIT_CASE(user_buffers),
	{}
};

static struct kunit_suite mem_devices_suite = { .name = "mem_devices", .test_cases = mem_devices_cases };
kunit_test_suite(mem_devices_suite);
