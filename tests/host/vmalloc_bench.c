/* Host-native benchmark of the vmalloc area's range allocator
 * (mm/vmap_area.c, built with -O2, no sanitizers) beside the shape it
 * replaced in Linux 5.2: first fit over an address-sorted linked list of
 * free ranges, measured in the same run.
 *
 * The state is the one Linux's lib/test_vmalloc.c long_busy_list_alloc_test
 * builds: 2N one-page areas (each with its guard page) are allocated and
 * every other one freed, leaving N live areas and N two-page holes below
 * the free tail. Each timed operation allocates a three-page area (four
 * with its guard), which fits in no hole, and frees it again: the list
 * walks all N holes to reach the tail, the tree descends O(log N) nodes.
 *
 * Each figure is the median over RUNS runs of the mean time per alloc+free
 * pair, timed with CLOCK_MONOTONIC. The benchmark reports; it never fails. */
#define _GNU_SOURCE
#include "mm/vmap_area.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PG 4096ul
#define BASE 0xffffc90000000000ul
#define AREA_END (BASE + (32ul << 40))
#define RUNS 9

#define sink(p) __asm__ volatile("" ::"r"(p) : "memory")

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* ---- the tree ----------------------------------------------------------- */

static void tree_free_node(struct vmap_area *va) { free(va); }

static struct vmap_area *new_va(unsigned long s, unsigned long e)
{
	struct vmap_area *va = calloc(1, sizeof(*va));
	if (!va) {
		perror("calloc");
		exit(2);
	}
	va->va_start = s;
	va->va_end = e;
	return va;
}

static unsigned long tree_alloc(struct vmap_free_tree *t, unsigned long size)
{
	struct vmap_area *spare = NULL;
	unsigned long a = vmap_free_alloc(t, size, 1, BASE, AREA_END, &spare);
	if (a == VMAP_NEED_SPARE) {
		spare = new_va(0, 0);
		a = vmap_free_alloc(t, size, 1, BASE, AREA_END, &spare);
	}
	free(spare);
	if (t->taken) {
		free(t->taken);
		t->taken = NULL;
	}
	return a;
}

static void tree_free(struct vmap_free_tree *t, unsigned long a, unsigned long size)
{
	vmap_free_insert(t, new_va(a, a + size));
}

static void tree_destroy(struct vmap_free_tree *t)
{
	while (!list_empty(&t->head)) {
		struct vmap_area *va = list_first_entry(&t->head, struct vmap_area, list);
		rb_erase(&va->rb_node, &t->root);
		list_del(&va->list);
		free(va);
	}
}

/* ---- the linked list (the pre-5.2 shape) --------------------------------- */

struct lrange {
	unsigned long start, end;
	struct lrange *next;
};

static struct lrange *list_head_;

static unsigned long list_alloc(unsigned long size)
{
	for (struct lrange **pp = &list_head_; *pp; pp = &(*pp)->next) {
		struct lrange *r = *pp;
		if (r->end - r->start < size)
			continue;
		unsigned long a = r->start;
		r->start += size;
		if (r->start == r->end) {
			*pp = r->next;
			free(r);
		}
		return a;
	}
	return VMAP_NO_SPACE;
}

static void list_free(unsigned long a, unsigned long size)
{
	struct lrange **pp = &list_head_, *prev = NULL;
	while (*pp && (*pp)->start < a) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	struct lrange *next = *pp;
	if (prev && prev->end == a) {
		prev->end += size;
		if (next && prev->end == next->start) {
			prev->end = next->end;
			prev->next = next->next;
			free(next);
		}
		return;
	}
	if (next && a + size == next->start) {
		next->start = a;
		return;
	}
	struct lrange *r = malloc(sizeof(*r));
	if (!r) {
		perror("malloc");
		exit(2);
	}
	r->start = a;
	r->end = a + size;
	r->next = next;
	*pp = r;
}

static void list_destroy(void)
{
	while (list_head_) {
		struct lrange *r = list_head_;
		list_head_ = r->next;
		free(r);
	}
}

/* ---- the runs --------------------------------------------------------- */

/* Mean ns per alloc+free pair over iters, with n live areas. */
static double run_tree(unsigned long n, unsigned long iters)
{
	struct vmap_free_tree t;
	vmap_free_tree_init(&t, tree_free_node);
	vmap_free_insert(&t, new_va(BASE, AREA_END));
	unsigned long *at = malloc(2 * n * sizeof(*at));
	for (unsigned long i = 0; i < 2 * n; i++)
		at[i] = tree_alloc(&t, 2 * PG);
	for (unsigned long i = 2 * n; i >= 2; i -= 2)
		tree_free(&t, at[i - 2], 2 * PG);
	double t0 = now_ns();
	for (unsigned long i = 0; i < iters; i++) {
		unsigned long a = tree_alloc(&t, 4 * PG);
		sink(a);
		tree_free(&t, a, 4 * PG);
	}
	double ns = (now_ns() - t0) / (double)iters;
	free(at);
	tree_destroy(&t);
	return ns;
}

static double run_list(unsigned long n, unsigned long iters)
{
	list_free(BASE, AREA_END - BASE);
	unsigned long *at = malloc(2 * n * sizeof(*at));
	for (unsigned long i = 0; i < 2 * n; i++)
		at[i] = list_alloc(2 * PG);
	/* From the top down: each free's insertion point is the list's head. */
	for (unsigned long i = 2 * n; i >= 2; i -= 2)
		list_free(at[i - 2], 2 * PG);
	double t0 = now_ns();
	for (unsigned long i = 0; i < iters; i++) {
		unsigned long a = list_alloc(4 * PG);
		sink(a);
		list_free(a, 4 * PG);
	}
	double ns = (now_ns() - t0) / (double)iters;
	free(at);
	list_destroy();
	return ns;
}

int main(int argc, char **argv)
{
	FILE *out = stdout;
	if (argc == 3 && !strcmp(argv[1], "--text")) {
		out = fopen(argv[2], "w");
		if (!out) {
			perror(argv[2]);
			return 2;
		}
	}
	static const unsigned long sizes[] = { 10, 1000, 100000 };
	fprintf(out, "vmalloc range allocator, host-native (-O2), ns per alloc+free pair of a 3-page area\n");
	fprintf(out, "(N live one-page areas with N two-page holes below the tail; median of %d runs)\n", RUNS);
	fprintf(out, "%10s %14s %18s %8s\n", "live", "augmented tree", "linked-list first fit", "ratio");
	for (unsigned s = 0; s < 3; s++) {
		unsigned long n = sizes[s];
		double tv[RUNS], lv[RUNS];
		for (int r = 0; r < RUNS; r++) {
			tv[r] = run_tree(n, 200000);
			lv[r] = run_list(n, n >= 100000 ? 200 : n >= 1000 ? 20000 : 200000);
		}
		qsort(tv, RUNS, sizeof(double), cmp_double);
		qsort(lv, RUNS, sizeof(double), cmp_double);
		fprintf(out, "%10lu %11.1f ns %18.1f ns %7.1fx\n", n, tv[RUNS / 2], lv[RUNS / 2], lv[RUNS / 2] / tv[RUNS / 2]);
	}
	if (out != stdout) {
		fclose(out);
		FILE *f = fopen(argv[2], "r");
		char line[256];
		while (f && fgets(line, sizeof(line), f))
			fputs(line, stdout);
		if (f)
			fclose(f);
	}
	return 0;
}
