/* The host slab tests' machine and leak check (see slab_harness.h). */
#include "tests/host/slab_harness.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "tests/host/shim.h"

static const struct host_mm_config ring = {
	.nr_nodes = NR_NODES,
	.node_bytes = { NODE_BYTES, NODE_BYTES, NODE_BYTES, NODE_BYTES },
};

struct mm_shadow slab_shadow;
static struct mm_snapshot boot_shape;
static unsigned long boot_objects;

void slab_harness_init_case(struct ktest *t)
{
	(void)t;
	mm_shadow_destroy(&slab_shadow);
	mm_snapshot_free(&boot_shape);
	host_mm_boot(&ring);
	kmem_cache_init();
	mm_shadow_init(&slab_shadow);
	mm_snapshot_take(&boot_shape);
	boot_objects = slab_objects_in_use();
}

void slab_harness_expect_all_returned(struct ktest *t)
{
	KTEST_EXPECT_EQ(t, slab_objects_in_use(), boot_objects);
	kmem_cache_shrink_all();
	struct mm_snapshot now;
	mm_snapshot_take(&now);
	mm_snapshot_equal(t, &boot_shape, &now);
	mm_snapshot_free(&now);
	mm_check(t, &slab_shadow, true);
}

void slab_harness_destroy(void)
{
	mm_shadow_destroy(&slab_shadow);
	mm_snapshot_free(&boot_shape);
}
