/* A tmpfs file for a test case (tests/filemap_test.c,
 * tests/filemap_private_test.c): made empty, closed and unlinked by a
 * deferred action when the case ends; filled with a pattern that tells
 * each word's page and place; mapped into a test mm (tests/test_mm.h). */
#ifndef TESTS_TEST_FILE_H
#define TESTS_TEST_FILE_H

#include "tests/kunit.h"

struct file;
struct mm_struct;

/* A new empty file at path (one a failed earlier run left is removed
 * first), closed and unlinked when the case ends. Made before the case's
 * mm, so that the mm's leak check counts the open file, and emptied
 * before the mm goes (its action runs first), so that its pages are back
 * by then. ASSERTs that it opens. */
struct file *test_file_make(struct kunit *test, const char *path);
/* npages pages written from offset 0, the 64-bit word w of page i holding
 * i << 16 | w (test_file_word). ASSERTs that every byte went. */
void test_file_fill(struct kunit *test, struct file *f, unsigned long npages);
static inline u64 test_file_word(unsigned long page, unsigned long word) { return page << 16 | word; }
/* The page at index of mapping's page cache (a file's, or a shared
 * anonymous object's file's), the lookup's reference dropped (the cache
 * keeps it while the case looks), or NULL. */
struct address_space;
struct page *test_cache_page(struct address_space *mapping, unsigned long index);
/* The file's size set as truncate(2) sets it: 0 or a negative errno. */
int test_file_set_size(struct file *f, long size);
/* The common start of a case: the case's pte_reclaim mode (a
 * parameterized case's test->param_value, if any), a file at path, an mm
 * (not current), npages of the file written and mapped read-write at
 * base with flags (MAP_SHARED or MAP_PRIVATE; MAP_FIXED added). */
struct file *test_file_mapped(struct kunit *test, const char *path, struct mm_struct **mm, unsigned long base,
			      unsigned long npages, unsigned long flags);

#endif
