/* tests/test_file.h: a test case's tmpfs file. */
#include "tests/test_file.h"
#include "tests/test_mm.h"
#include "fs/fs.h"
#include "fs/init.h"
#include "kernel/time.h"
#include "lib/err.h"
#include "mm/filemap.h"
#include "mm/page_alloc.h"
#include "mm/mmap.h"
#include "mm/slab.h"

struct test_file {
	struct file *f;
	const char *path;
};

static void close_and_unlink(void *arg)
{
	struct test_file *tf = arg;
	filp_close(tf->f);
	init_unlink(tf->path);
	kfree(tf);
}

struct file *test_file_make(struct kunit *test, const char *path)
{
	init_unlink(path); /* a failed earlier run's */
	struct test_file *tf = kmalloc(sizeof(*tf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tf);
	struct file *f = filp_open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (IS_ERR(f))
		kfree(tf);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	tf->f = f;
	tf->path = path;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, close_and_unlink, tf), 0);
	return f;
}

void test_file_fill(struct kunit *test, struct file *f, unsigned long npages)
{
	u64 *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	long long pos = 0;
	for (unsigned long i = 0; i < npages; i++) {
		for (unsigned w = 0; w < PAGE_SIZE / 8; w++)
			buf[w] = test_file_word(i, w);
		if (kernel_write(f, buf, PAGE_SIZE, &pos) != PAGE_SIZE)
			break;
	}
	kfree(buf);
	KUNIT_ASSERT_EQ(test, pos, (long long)(npages * PAGE_SIZE));
}

int test_file_set_size(struct file *f, long size)
{
	struct iattr attr = { .ia_valid = ATTR_SIZE | ATTR_MTIME, .ia_size = size };
	attr.ia_mtime = current_time();
	return notify_change(f->f_path.dentry, &attr);
}

struct file *test_file_mapped(struct kunit *test, const char *path, struct mm_struct **mm, unsigned long base,
			      unsigned long npages, unsigned long flags)
{
	const struct pte_reclaim_mode_param *m = test->param_value;
	if (m)
		KUNIT_ASSERT_EQ(test, test_pte_reclaim_mode(test, m->mode), 0);
	struct file *f = test_file_make(test, path);
	*mm = test_mm_create(test, 0);
	test_file_fill(test, f, npages);
	KUNIT_ASSERT_EQ(test, do_mmap_file(*mm, f, base, npages * PAGE_SIZE, PROT_READ | PROT_WRITE,
					   flags | MAP_FIXED, 0),
			base);
	return f;
}

struct page *test_cache_page(struct address_space *mapping, unsigned long index)
{
	struct page *page = filemap_get_folio(mapping, index);
	if (page)
		put_page(page);
	return page;
}
