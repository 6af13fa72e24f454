/* get_order and order_base_2 (lib/getorder.h, lib/log2.h) against the
 * loops they replaced ("the smallest order that holds n", counted up one
 * at a time), at the edges (1, a page and a byte either side of each power
 * of two, the top of unsigned long) and on every size up to 64 pages. */
#include "lib/getorder.h"
#include "tests/host/ktest.h"

static unsigned int get_order_loop(unsigned long size)
{
	unsigned int order = 0;
	while (order < 64 - PAGE_SHIFT && (PAGE_SIZE << order) < size)
		order++;
	return order;
}

static unsigned int order_base_2_loop(u64 n)
{
	unsigned int order = 0;
	while (order < 64 && (1ull << order) < n)
		order++;
	return order;
}

static void get_order_edges(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, get_order(1), 0);
	KTEST_EXPECT_EQ(t, get_order(PAGE_SIZE - 1), 0);
	KTEST_EXPECT_EQ(t, get_order(PAGE_SIZE), 0);
	KTEST_EXPECT_EQ(t, get_order(PAGE_SIZE + 1), 1);
	KTEST_EXPECT_EQ(t, get_order(2 * PAGE_SIZE), 1);
	KTEST_EXPECT_EQ(t, get_order(2 * PAGE_SIZE + 1), 2);
	KTEST_EXPECT_EQ(t, get_order(PMD_SIZE), 9);
	KTEST_EXPECT_EQ(t, get_order(PUD_SIZE), 18);
	KTEST_EXPECT_EQ(t, get_order(1ul << 63), 63 - PAGE_SHIFT);
	KTEST_EXPECT_EQ(t, get_order((1ul << 63) + 1), 64 - PAGE_SHIFT);
	KTEST_EXPECT_EQ(t, get_order(~0ul), 64 - PAGE_SHIFT);
	/* Undefined in Linux; what this one gives, so that a caller that
	 * passes 0 by mistake asks for an order no allocator has. */
	KTEST_EXPECT_EQ(t, get_order(0), 64 - PAGE_SHIFT);
}

static void get_order_as_the_loop(struct ktest *t)
{
	unsigned long bad = 0;
	for (unsigned long size = 1; size <= 64 * PAGE_SIZE; size++)
		if (get_order(size) != get_order_loop(size) && !bad++)
			ktest_diag(t, "get_order(%lu) = %u, the loop %u", size, get_order(size),
				   get_order_loop(size));
	for (unsigned int bit = 0; bit < 64; bit++)
		for (long d = -1; d <= 1; d++) {
			unsigned long size = (1ul << bit) + (unsigned long)d;
			if (size && get_order(size) != get_order_loop(size) && !bad++)
				ktest_diag(t, "get_order(%#lx) = %u, the loop %u", size, get_order(size),
					   get_order_loop(size));
		}
	KTEST_EXPECT_EQ(t, bad, 0);
}

static void order_base_2_as_the_loop(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, order_base_2(0), 0);
	KTEST_EXPECT_EQ(t, order_base_2(1), 0);
	KTEST_EXPECT_EQ(t, order_base_2(2), 1);
	KTEST_EXPECT_EQ(t, order_base_2(3), 2);
	KTEST_EXPECT_EQ(t, order_base_2(4), 2);
	KTEST_EXPECT_EQ(t, order_base_2(5), 3);
	KTEST_EXPECT_EQ(t, order_base_2(1ull << 63), 63);
	KTEST_EXPECT_EQ(t, order_base_2((1ull << 63) + 1), 64);
	KTEST_EXPECT_EQ(t, ilog2(1), 0);
	KTEST_EXPECT_EQ(t, ilog2(~0ull), 63);
	KTEST_EXPECT_EQ(t, fls64(0), 0);
	unsigned long bad = 0;
	for (u64 n = 0; n <= 4096; n++)
		if (order_base_2(n) != order_base_2_loop(n) && !bad++)
			ktest_diag(t, "order_base_2(%llu) = %u, the loop %u", (unsigned long long)n,
				   order_base_2(n), order_base_2_loop(n));
	for (unsigned int bit = 1; bit < 64; bit++)
		for (int d = -1; d <= 1; d++) {
			u64 n = (1ull << bit) + (u64)(s64)d;
			if (order_base_2(n) != order_base_2_loop(n) && !bad++)
				ktest_diag(t, "order_base_2(%#llx) = %u, the loop %u",
					   (unsigned long long)n, order_base_2(n), order_base_2_loop(n));
		}
	KTEST_EXPECT_EQ(t, bad, 0);
}

int main(void)
{
	static const struct ktest_case cases[] = {
		KTEST_CASE(get_order_edges),
		KTEST_CASE(get_order_as_the_loop),
		KTEST_CASE(order_base_2_as_the_loop),
	};
	return ktest_run_suite("host_log2", cases, sizeof(cases) / sizeof(cases[0]), NULL);
}
