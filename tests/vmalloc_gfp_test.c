/* GFP flags and the scope API through vmalloc and kvmalloc (Michal
 * Hocko's series), under real memory pressure, with fault injection.
 *
 * Reclaim needs something to reclaim, and mmlab has no file system or
 * block layer, so two stand-ins hold pages that can be given back: a "file
 * cache" whose shrinker needs __GFP_FS (and the file system's lock) and a
 * "block cache" whose shrinker needs __GFP_IO. Each shrinker checks the
 * context it was entered from and records a violation if it lacks the
 * flag it declared, or if the file cache is entered by the task that holds
 * the file system's lock (the deadlock GFP_NOFS exists to prevent): any
 * violation fails the case.
 *
 * Pressure: the caches take a node's pages down to its min watermark
 * (GFP_NOWAIT | __GFP_THISNODE until it fails); the allocations under test
 * ask for that node only (__GFP_THISNODE), so they must reclaim. On a
 * one-node machine the vmalloc area's own page tables and slab objects come
 * from that node too, and the scope governs them as well. */
#include "arch/x86_64/irqflags.h"
#include "arch/x86_64/traps.h"
#include "kernel/printk.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "kernel/sched_mm.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/fail_page_alloc.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/util.h"
#include "mm/vmalloc.h"
#include "tests/kunit.h"
#include "tests/test_pages.h"

/* ---- the stand-in caches -------------------------------------------- */

struct standin_cache {
	const char *name;
	struct shrinker shrinker;
	struct list_head pages;
	unsigned long nr;
	unsigned long scans;      /* scan_objects calls that freed */
	unsigned long violations; /* entered from a context it must not be */
};

/* The file system's lock, as held by "file system code" (a test case). */
static struct task_struct *fs_lock_owner;

static struct standin_cache *cache_of(struct shrinker *s) { return container_of(s, struct standin_cache, shrinker); }

static unsigned long cache_count(struct shrinker *s, struct shrink_control *sc)
{
	(void)sc;
	/* The case counts direct reclaim's calls: kswapd's are not its. */
	if (current_is_kswapd())
		return 0;
	return READ_ONCE(cache_of(s)->nr);
}

#define SHRINK_BATCH 128 /* Linux's */

static unsigned long cache_scan(struct shrinker *s, struct shrink_control *sc)
{
	struct standin_cache *c = cache_of(s);
	if ((sc->gfp_mask & s->gfp_needs) != s->gfp_needs) {
		pr_err("%s shrinker entered with gfp %#x, without %#x it needs\n", c->name, sc->gfp_mask,
		       s->gfp_needs);
		c->violations++;
		return SHRINK_STOP;
	}
	if ((s->gfp_needs & __GFP_FS) && READ_ONCE(fs_lock_owner) == current) {
		pr_err("%s shrinker entered by the task holding the file system's lock: deadlock\n", c->name);
		c->violations++;
		return SHRINK_STOP;
	}
	unsigned long freed = 0;
	while (freed < SHRINK_BATCH && freed < sc->nr_to_scan && !list_empty(&c->pages)) {
		struct page *p = list_first_entry(&c->pages, struct page, lru);
		list_del(&p->lru);
		c->nr--;
		__free_page(p);
		freed++;
	}
	if (freed)
		c->scans++;
	return freed;
}

static struct standin_cache file_cache = {
	.name = "file cache",
	.shrinker = { .count_objects = cache_count, .scan_objects = cache_scan, .gfp_needs = __GFP_FS | __GFP_IO },
};
static struct standin_cache block_cache = {
	.name = "block cache",
	.shrinker = { .count_objects = cache_count, .scan_objects = cache_scan, .gfp_needs = __GFP_IO },
};

static void cache_drop(struct standin_cache *c)
{
	while (!list_empty(&c->pages)) {
		struct page *p = list_first_entry(&c->pages, struct page, lru);
		list_del(&p->lru);
		c->nr--;
		__free_page(p);
	}
}

static void caches_stop(void *unused)
{
	(void)unused;
	unregister_shrinker(&file_cache.shrinker);
	unregister_shrinker(&block_cache.shrinker);
	cache_drop(&file_cache);
	cache_drop(&block_cache);
	WRITE_ONCE(fs_lock_owner, NULL);
}

/* Registers the shrinkers (when reclaimable) and fills node nid to its
 * min watermark, the pages alternating between the two caches. */
static unsigned long caches_fill(struct kunit *test, int nid, bool reclaimable, gfp_t fill_gfp)
{
	file_cache.scans = file_cache.violations = 0;
	block_cache.scans = block_cache.violations = 0;
	INIT_LIST_HEAD(&file_cache.pages);
	INIT_LIST_HEAD(&block_cache.pages);
	file_cache.nr = block_cache.nr = 0;
	if (reclaimable) {
		register_shrinker(&file_cache.shrinker);
		register_shrinker(&block_cache.shrinker);
	} else {
		/* Unregistering an unregistered shrinker is list_del of a
		 * self-linked node: harmless. */
		INIT_LIST_HEAD(&file_cache.shrinker.list);
		INIT_LIST_HEAD(&block_cache.shrinker.list);
	}
	kunit_add_action(test, caches_stop, NULL);
	file_cache.shrinker.nr_skipped = block_cache.shrinker.nr_skipped = 0;
	unsigned long n = 0;
	for (bool drained = false;;) {
		struct page *p = alloc_pages_node(nid, fill_gfp | __GFP_THISNODE | __GFP_NOWARN | __GFP_UNTOUCHED, 0);
		if (!p) {
			/* Pages on other CPUs' lists would let a later request
			 * through without reclaim: take those too. */
			if (drained)
				break;
			drain_all_pages();
			drained = true;
			continue;
		}
		drained = false;
		struct standin_cache *c = n & 1 ? &block_cache : &file_cache;
		list_add(&p->lru, &c->pages);
		c->nr++;
		n++;
	}
	return n;
}

static void expect_no_violations(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, file_cache.violations, 0);
	KUNIT_EXPECT_EQ(test, block_cache.violations, 0);
}

/* The node of the CPU the case runs on, if it has memory to fill. */
static int pressure_node(struct kunit *test)
{
	int nid = numa_node_id();
	if (!node_data[nid] || !node_data[nid]->managed_pages)
		kunit_skip(test, "this CPU's node %d has no memory", nid);
	vm_unmap_aliases();
	/* A reserved block would be given back under the pressure and serve
	 * what the cases mean to be served by reclaim or by waiting. */
	drop_highatomic_reserve(nid);
	return nid;
}

#define PRESSURE_SIZE (256 * 1024ul) /* 64 pages: above what kmalloc's NORETRY try can reclaim for */

/* ---- the pressure cases ---------------------------------------------- */

/* "File system code" holding its lock asks kvmalloc(GFP_NOFS): it must get
 * its memory from the block cache and never enter the file cache. */
static void kvmalloc_nofs_reclaims_only_the_block_cache(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	int nid = pressure_node(test);
	unsigned long filled = caches_fill(test, nid, true, GFP_NOWAIT);
	kunit_info(test, "node %d filled with %lu cache pages, %lu free, %lu in highatomic blocks", nid, filled,
		   node_free_pages(nid), node_data[nid]->nr_reserved_highatomic);
	WRITE_ONCE(fs_lock_owner, current);
	void *p = kvmalloc_node(PRESSURE_SIZE, GFP_NOFS | __GFP_THISNODE, nid);
	WRITE_ONCE(fs_lock_owner, NULL);
	KUNIT_EXPECT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, is_vmalloc_addr(p));
	KUNIT_EXPECT_GT(test, block_cache.scans, 0);
	KUNIT_EXPECT_EQ(test, file_cache.scans, 0);
	KUNIT_EXPECT_GT(test, file_cache.shrinker.nr_skipped, 0);
	expect_no_violations(test);
	kvfree(p);
	kunit_release_action(test, caches_stop, NULL);
	vm_unmap_aliases();
	kunit_expect_resources_back(test, &before);
}

/* GFP_NOIO may enter neither cache: nothing can be reclaimed for it, so
 * on a full node it fails, cleanly. */
static void kvmalloc_noio_enters_neither_cache(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	int nid = pressure_node(test);
	caches_fill(test, nid, true, GFP_NOWAIT);
	unsigned long skipped = block_cache.shrinker.nr_skipped;
	WRITE_ONCE(fs_lock_owner, current);
	void *p = kvmalloc_node(PRESSURE_SIZE, GFP_NOIO | __GFP_THISNODE | __GFP_NOWARN, nid);
	WRITE_ONCE(fs_lock_owner, NULL);
	KUNIT_EXPECT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, block_cache.scans, 0);
	KUNIT_EXPECT_EQ(test, file_cache.scans, 0);
	KUNIT_EXPECT_GT(test, block_cache.shrinker.nr_skipped, skipped);
	expect_no_violations(test);
	kvfree(p);
	kunit_release_action(test, caches_stop, NULL);
	vm_unmap_aliases();
	kunit_expect_resources_back(test, &before);
}

/* GFP_KERNEL (no lock held) may enter both. */
static void kvmalloc_kernel_may_reclaim_both(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	int nid = pressure_node(test);
	caches_fill(test, nid, true, GFP_NOWAIT);
	void *p = kvmalloc_node(PRESSURE_SIZE, GFP_KERNEL | __GFP_THISNODE, nid);
	KUNIT_EXPECT_NOT_NULL(test, p);
	KUNIT_EXPECT_GT(test, block_cache.scans, 0);
	KUNIT_EXPECT_GT(test, file_cache.scans, 0);
	expect_no_violations(test);
	kvfree(p);
	kunit_release_action(test, caches_stop, NULL);
	vm_unmap_aliases();
	kunit_expect_resources_back(test, &before);
}

/* A GFP_KERNEL call inside memalloc_nofs_save behaves as GFP_NOFS. */
static void kernel_call_in_nofs_scope_reclaims_as_nofs(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	int nid = pressure_node(test);
	caches_fill(test, nid, true, GFP_NOWAIT);
	WRITE_ONCE(fs_lock_owner, current);
	unsigned int flags = memalloc_nofs_save();
	void *p = kvmalloc_node(PRESSURE_SIZE, GFP_KERNEL | __GFP_THISNODE, nid);
	memalloc_nofs_restore(flags);
	WRITE_ONCE(fs_lock_owner, NULL);
	KUNIT_EXPECT_NOT_NULL(test, p);
	KUNIT_EXPECT_GT(test, block_cache.scans, 0);
	KUNIT_EXPECT_EQ(test, file_cache.scans, 0);
	expect_no_violations(test);
	kvfree(p);
	kunit_release_action(test, caches_stop, NULL);
	vm_unmap_aliases();
	kunit_expect_resources_back(test, &before);
}

/* What ceph_kvmalloc did until "mm: allow !GFP_KERNEL allocations for
 * kvmalloc" (Michal Hocko, Linux 5.17, a421ef303008) dropped it (net/ceph/ceph_common.c,
 * 2019-2021): kvmalloc only took GFP_KERNEL, so a NOFS/NOIO caller ran it
 * inside the matching scope. */
static void *ceph_kvmalloc_node(size_t size, gfp_t flags, int nid)
{
	void *p;
	if ((flags & (__GFP_IO | __GFP_FS)) == (__GFP_IO | __GFP_FS)) {
		p = kvmalloc_node(size, flags, nid);
	} else if ((flags & (__GFP_IO | __GFP_FS)) == __GFP_IO) {
		unsigned int nofs_flag = memalloc_nofs_save();
		p = kvmalloc_node(size, GFP_KERNEL | (flags & __GFP_THISNODE), nid);
		memalloc_nofs_restore(nofs_flag);
	} else {
		unsigned int noio_flag = memalloc_noio_save();
		p = kvmalloc_node(size, GFP_KERNEL | (flags & __GFP_THISNODE), nid);
		memalloc_noio_restore(noio_flag);
	}
	return p;
}

struct pressure_result {
	bool got;
	bool vmalloced;
	unsigned long file_scans, block_scans, violations;
};

/* Takes back what the node got since the last fill (the last test's
 * allocation, what its reclaim freed): the node is at its watermark again
 * without refilling it all. */
static void caches_top_up(int nid)
{
	for (bool drained = false;;) {
		struct page *p = alloc_pages_node(nid, GFP_NOWAIT | __GFP_THISNODE | __GFP_NOWARN | __GFP_UNTOUCHED, 0);
		if (!p) {
			if (drained)
				return;
			drain_all_pages();
			drained = true;
			continue;
		}
		drained = false;
		list_add(&p->lru, &block_cache.pages); /* either cache: both are large */
		block_cache.nr++;
	}
}

static struct pressure_result run_pressure(int nid, gfp_t gfp, bool ceph)
{
	struct pressure_result r;
	caches_top_up(nid);
	unsigned long file0 = file_cache.scans, block0 = block_cache.scans;
	unsigned long v0 = file_cache.violations + block_cache.violations;
	WRITE_ONCE(fs_lock_owner, (gfp & __GFP_FS) ? NULL : current);
	gfp |= __GFP_THISNODE | __GFP_NOWARN;
	void *p = ceph ? ceph_kvmalloc_node(PRESSURE_SIZE, gfp, nid) : kvmalloc_node(PRESSURE_SIZE, gfp, nid);
	WRITE_ONCE(fs_lock_owner, NULL);
	r.got = p != NULL;
	r.vmalloced = is_vmalloc_addr(p);
	r.file_scans = file_cache.scans - file0;
	r.block_scans = block_cache.scans - block0;
	r.violations = file_cache.violations + block_cache.violations - v0;
	kvfree(p);
	return r;
}

/* The 2021 workaround and plain kvmalloc, side by side, under the same
 * pressure (one fill, topped up before each call): the same outcome for
 * each context. */
static void ceph_kvmalloc_and_kvmalloc_agree(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	int nid = pressure_node(test);
	static const gfp_t contexts[] = { GFP_KERNEL, GFP_NOFS, GFP_NOIO };
	static const char *const names[] = { "GFP_KERNEL", "GFP_NOFS", "GFP_NOIO" };
	caches_fill(test, nid, true, GFP_NOWAIT);
	for (unsigned i = 0; i < 3; i++) {
		struct pressure_result a = run_pressure(nid, contexts[i], true);
		struct pressure_result b = run_pressure(nid, contexts[i], false);
		kunit_info(test, "%-10s ceph_kvmalloc: %s, file %lu, block %lu; kvmalloc: %s, file %lu, block %lu",
			   names[i], a.got ? "ok" : "NULL", a.file_scans, a.block_scans, b.got ? "ok" : "NULL",
			   b.file_scans, b.block_scans);
		KUNIT_EXPECT_EQ(test, a.got, b.got);
		KUNIT_EXPECT_EQ(test, a.vmalloced, b.vmalloced);
		KUNIT_EXPECT_EQ(test, a.file_scans > 0, b.file_scans > 0);
		KUNIT_EXPECT_EQ(test, a.block_scans > 0, b.block_scans > 0);
		KUNIT_EXPECT_EQ(test, a.violations, 0);
		KUNIT_EXPECT_EQ(test, b.violations, 0);
		KUNIT_EXPECT_EQ(test, a.got, i != 2); /* NOIO can reclaim nothing here */
		/* What each context may reclaim (as the separate cases check). */
		KUNIT_EXPECT_EQ(test, b.file_scans > 0, i == 0);
		KUNIT_EXPECT_EQ(test, b.block_scans > 0, i != 2);
	}
	kunit_release_action(test, caches_stop, NULL);
	vm_unmap_aliases();
	kunit_expect_resources_back(test, &before);
}

/* __GFP_NOFAIL with nothing reclaimable waits until another thread frees. */
static int freer_thread(void *data)
{
	unsigned long *start = data;
	/* Free only once the allocation is seen retrying: the case cannot
	 * pass without the wait it tests. */
	while (__atomic_load_n(&nofail_retries, __ATOMIC_RELAXED) == *start && !kthread_should_stop())
		schedule_timeout_uninterruptible(1);
	cache_drop(&block_cache);
	cache_drop(&file_cache);
	return 0;
}

static void nofail_succeeds_once_another_thread_frees(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	int nid = pressure_node(test);
	static unsigned long start;
	start = __atomic_load_n(&nofail_retries, __ATOMIC_RELAXED);
	/* Made before the node is full: its stack needs memory too. */
	struct task_struct *t = kthread_create_on_cpu(freer_thread, &start, smp_processor_id(), "freer");
	KUNIT_ASSERT_NOT_NULL(test, t);
	/* No shrinker: nothing to reclaim; and GFP_ATOMIC fills deeper into
	 * the reserve than the half of it __GFP_NOFAIL may take. */
	caches_fill(test, nid, false, GFP_ATOMIC);
	wake_up_process(t);
	void *p = kvmalloc_node(PRESSURE_SIZE, GFP_KERNEL | __GFP_NOFAIL | __GFP_THISNODE, nid);
	KUNIT_EXPECT_NOT_NULL(test, p);
	KUNIT_EXPECT_GT(test, __atomic_load_n(&nofail_retries, __ATOMIC_RELAXED), start);
	kthread_stop(t);
	kvfree(p);
	kunit_release_action(test, caches_stop, NULL);
	vm_unmap_aliases();
	kunit_expect_resources_back(test, &before);
}

/* ---- the scope API --------------------------------------------------- */

static void scopes_nest_and_restore(struct kunit *test)
{
	unsigned int before = current->flags & (PF_MEMALLOC | PF_MEMALLOC_NOFS | PF_MEMALLOC_NOIO);
	KUNIT_ASSERT_EQ(test, before, 0);
	KUNIT_EXPECT_EQ(test, current_gfp_context(GFP_KERNEL), GFP_KERNEL);
	unsigned int a = memalloc_nofs_save();
	KUNIT_EXPECT_EQ(test, current_gfp_context(GFP_KERNEL), GFP_NOFS);
	unsigned int b = memalloc_nofs_save(); /* nested: the same scope again */
	unsigned int c = memalloc_noio_save();
	KUNIT_EXPECT_EQ(test, current_gfp_context(GFP_KERNEL), GFP_NOIO);
	KUNIT_EXPECT_EQ(test, current_gfp_context(GFP_KERNEL | __GFP_NOFAIL), GFP_NOIO | __GFP_NOFAIL);
	memalloc_noio_restore(c);
	KUNIT_EXPECT_EQ(test, current_gfp_context(GFP_KERNEL), GFP_NOFS);
	memalloc_nofs_restore(b); /* the inner restore does not end the outer scope */
	KUNIT_EXPECT_EQ(test, current_gfp_context(GFP_KERNEL), GFP_NOFS);
	memalloc_nofs_restore(a);
	KUNIT_EXPECT_EQ(test, current_gfp_context(GFP_KERNEL), GFP_KERNEL);
	/* NOIO outside, NOFS inside: still NOIO. */
	a = memalloc_noio_save();
	b = memalloc_nofs_save();
	KUNIT_EXPECT_EQ(test, current_gfp_context(GFP_KERNEL), GFP_NOIO);
	memalloc_nofs_restore(b);
	memalloc_noio_restore(a);
	/* The vmalloc scope for each gfp (Linux 7.0's memalloc_apply_gfp_scope). */
	a = memalloc_apply_gfp_scope(GFP_NOFS);
	KUNIT_EXPECT_EQ(test, current->flags & PF_MEMALLOC_NOFS, PF_MEMALLOC_NOFS);
	memalloc_restore_scope(a);
	a = memalloc_apply_gfp_scope(GFP_NOIO);
	KUNIT_EXPECT_EQ(test, current->flags & PF_MEMALLOC_NOIO, PF_MEMALLOC_NOIO);
	memalloc_restore_scope(a);
	a = memalloc_apply_gfp_scope(GFP_NOWAIT);
	KUNIT_EXPECT_EQ(test, current->flags & PF_MEMALLOC, PF_MEMALLOC);
	memalloc_restore_scope(a);
	KUNIT_EXPECT_EQ(test, memalloc_apply_gfp_scope(GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, current->flags & (PF_MEMALLOC | PF_MEMALLOC_NOFS | PF_MEMALLOC_NOIO), 0);
}

/* ---- fault injection (also used to make kmalloc's try fail) ---- */

static struct fault_attr saved_attr;

static void injection_off(void *unused)
{
	(void)unused;
	fault_attr_arm(false);
	fail_page_alloc = saved_attr;
}

static void injection_on(struct kunit *test, unsigned long interval, unsigned long probability, long times,
			 unsigned int min_order)
{
	saved_attr = fail_page_alloc;
	fail_page_alloc.interval = interval;
	fail_page_alloc.probability = probability;
	fail_page_alloc.times = times;
	fail_page_alloc.space = 0;
	fail_page_alloc.count = 0;
	fail_page_alloc.failures = 0;
	fail_page_alloc.ignore_gfp_reclaim = false;
	fail_page_alloc.min_order = min_order;
	fail_page_alloc.only_task = current;
	kunit_add_action(test, injection_off, NULL);
	fault_attr_arm(true);
}

/* ---- kvmalloc without pressure --------------------------------------- */

/* A kvmalloc user inside the kernel: procfs's buffers (Linux's
 * seq_buf_alloc). With every allocation above order 0 failing, a file of
 * more than a page still reads whole, from a vmalloc'ed buffer; before,
 * the kmalloc of its second size failed and the read said -ENOMEM. */
static void procfs_buffers_fall_back_to_vmalloc(struct kunit *test)
{
	enum { N = 100 };
	static void *areas[N];
	struct kunit_resources before;
	vm_unmap_aliases();
	kunit_resources_take(&before);
	/* Enough areas that /proc/vmallocinfo is several pages long. */
	for (int i = 0; i < N; i++) {
		areas[i] = vmalloc(PAGE_SIZE);
		KUNIT_ASSERT_NOT_NULL(test, areas[i]);
	}
	char *buf = NULL;
	size_t len = 0;
	injection_on(test, 1, 100, -1, 1);
	int err = procfs_generate("/proc/vmallocinfo", current, &buf, &len);
	unsigned long failures = fail_page_alloc.failures;
	kunit_release_action(test, injection_off, NULL);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_GT(test, failures, 0);
	KUNIT_EXPECT_GT(test, len, 2 * PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, buf && is_vmalloc_addr(buf));
	/* Whole: every area of ours is listed. */
	unsigned found = 0;
	for (int i = 0; buf && i < N; i++) {
		char start[32];
		snprintf(start, sizeof(start), "%#lx-", (unsigned long)areas[i]);
		found += strstr(buf, start) != NULL;
	}
	KUNIT_EXPECT_EQ(test, found, N);
	kvfree(buf);
	for (int i = 0; i < N; i++)
		vfree(areas[i]);
	vm_unmap_aliases();
	kunit_expect_resources_back(test, &before);
}

static void kvmalloc_flag_handling(struct kunit *test)
{
	struct kunit_resources before;
	vm_unmap_aliases();
	kunit_resources_take(&before);
	/* A page or less: kmalloc only. */
	void *p = kvmalloc(100, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, p);
	KUNIT_EXPECT_FALSE(test, is_vmalloc_addr(p));
	kvfree(p);
	/* With every allocation above order 0 failing (injection, this task
	 * only), kmalloc's try fails and kvmalloc falls back to vmalloc: for
	 * GFP_NOFS and GFP_NOIO too since Linux 5.17 (a421ef303008). */
	size_t big = 1ul << 20;
	injection_on(test, 1, 100, -1, 1);
	static const gfp_t flags[] = { GFP_KERNEL, GFP_NOFS, GFP_NOIO, GFP_KERNEL | __GFP_RETRY_MAYFAIL };
	for (unsigned i = 0; i < 4; i++) {
		p = kvmalloc(big, flags[i]);
		KUNIT_EXPECT_NOT_NULL(test, p);
		KUNIT_EXPECT_TRUE(test, is_vmalloc_addr(p));
		kvfree(p);
	}
	/* Non-blocking: vmalloc takes it now (Linux 7.0), without huge pages. */
	unsigned long irqflags;
	local_irq_save(irqflags);
	p = kvmalloc(big, GFP_NOWAIT | __GFP_NOWARN);
	local_irq_restore(irqflags);
	if (p) {
		KUNIT_EXPECT_TRUE(test, is_vmalloc_addr(p));
		KUNIT_EXPECT_EQ(test, find_vm_area(p)->page_order, 0);
	}
	kvfree(p);
	kunit_release_action(test, injection_off, NULL);
	/* Sizes Linux refuses. */
	KUNIT_EXPECT_NULL(test, kvmalloc(KVMALLOC_MAX_SIZE + 1, GFP_KERNEL | __GFP_NOWARN));
	KUNIT_EXPECT_NULL(test, kvmalloc(~(size_t)0, GFP_KERNEL | __GFP_NOWARN));
	KUNIT_EXPECT_NULL(test, kvmalloc_array(~(size_t)0 / 2, 3, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, kvcalloc((size_t)1 << 33, (size_t)1 << 32, GFP_KERNEL));
	/* kvcalloc zeroes, on both paths. */
	for (size_t n = 16; n <= (size_t)1 << 20; n <<= 8) {
		unsigned long *z = kvcalloc(n, sizeof(long), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, z);
		unsigned long nonzero = 0;
		for (size_t i = 0; i < n; i++)
			nonzero += z[i] != 0;
		KUNIT_EXPECT_EQ(test, nonzero, 0);
		kvfree(z);
	}
	kvfree(NULL);
	vm_unmap_aliases();
	kunit_expect_resources_back(test, &before);
}

static void kvrealloc_keeps_contents_across_allocators(struct kunit *test)
{
	struct kunit_resources before;
	vm_unmap_aliases();
	kunit_resources_take(&before);
	unsigned char *p = kvmalloc(200, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (int i = 0; i < 200; i++)
		p[i] = (unsigned char)i;
	size_t big = 1ul << 20;
	injection_on(test, 1, 100, -1, 1); /* no order > 0: kmalloc's try fails */
	unsigned char *q = kvrealloc(p, big, GFP_KERNEL | __GFP_ZERO);
	kunit_release_action(test, injection_off, NULL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_TRUE(test, is_vmalloc_addr(q));
	unsigned long wrong = 0;
	for (int i = 0; i < 200; i++)
		wrong += q[i] != (unsigned char)i;
	for (size_t i = 4096; i < big; i += 4096)
		wrong += q[i] != 0;
	KUNIT_EXPECT_EQ(test, wrong, 0);
	/* Shrinking fits in place. */
	KUNIT_EXPECT_PTR_EQ(test, kvrealloc(q, 300, GFP_KERNEL), q);
	q = kvrealloc(q, 0, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, q, ZERO_SIZE_PTR);
	vm_unmap_aliases();
	kunit_expect_resources_back(test, &before);
}

/* vmalloc with flags it does not take, and from atomic context. */
static void vmalloc_gfp_edges(struct kunit *test)
{
	struct kunit_resources before;
	vm_unmap_aliases();
	kunit_resources_take(&before);
	/* A zone modifier: warned about, dropped, allocated. */
	void *p = __vmalloc(3 * PAGE_SIZE, GFP_KERNEL | __GFP_DMA32);
	KUNIT_EXPECT_NOT_NULL(test, p);
	vfree(p);
	/* GFP_ATOMIC with interrupts off, as an interrupt handler: works, never sleeps. */
	unsigned long flags;
	local_irq_save(flags);
	this_cpu_write(irq_depth, this_cpu_read(irq_depth) + 1);
	p = __vmalloc(3 * PAGE_SIZE, GFP_ATOMIC);
	void *q = __vmalloc(3 * PAGE_SIZE, GFP_KERNEL); /* would sleep: refused */
	this_cpu_write(irq_depth, this_cpu_read(irq_depth) - 1);
	local_irq_restore(flags);
	KUNIT_EXPECT_NOT_NULL(test, p);
	KUNIT_EXPECT_NULL(test, q);
	vfree(p);
	/* GFP_NOFS and GFP_NOIO vmalloc without pressure simply work. */
	p = __vmalloc(64 * PAGE_SIZE, GFP_NOFS);
	q = __vmalloc(64 * PAGE_SIZE, GFP_NOIO | __GFP_ZERO);
	KUNIT_EXPECT_NOT_NULL(test, p);
	KUNIT_EXPECT_NOT_NULL(test, q);
	vfree(p);
	vfree(q);
	/* The scope does not leak out of vmalloc. */
	KUNIT_EXPECT_EQ(test, current->flags & (PF_MEMALLOC | PF_MEMALLOC_NOFS | PF_MEMALLOC_NOIO), 0);
	vm_unmap_aliases();
	kunit_expect_resources_back(test, &before);
}

static void fail_page_alloc_parses_linux_order(struct kunit *test)
{
	struct fault_attr a = { 0 };
	KUNIT_EXPECT_EQ(test, setup_fault_attr(&a, "10,50,4096,-1"), 0);
	KUNIT_EXPECT_EQ(test, a.interval, 10);
	KUNIT_EXPECT_EQ(test, a.probability, 50);
	KUNIT_EXPECT_EQ(test, a.space, 4096);
	KUNIT_EXPECT_EQ(test, a.times, -1);
	KUNIT_EXPECT_EQ(test, setup_fault_attr(&a, "1,100,0,5"), 0);
	KUNIT_EXPECT_EQ(test, a.times, 5);
	KUNIT_EXPECT_EQ(test, setup_fault_attr(&a, "1,101,0,5"), -EINVAL);
	KUNIT_EXPECT_EQ(test, setup_fault_attr(&a, "1,100,0"), -EINVAL);
	KUNIT_EXPECT_EQ(test, setup_fault_attr(&a, "1,100,0,5,"), -EINVAL);
	KUNIT_EXPECT_EQ(test, setup_fault_attr(&a, "x"), -EINVAL);
}

/* Every page allocation fails: vmalloc and kvmalloc give NULL and leave
 * nothing behind; __GFP_NOFAIL still succeeds. */
static void injected_failures_leave_nothing_behind(struct kunit *test)
{
	struct kunit_resources before;
	vm_unmap_aliases();
	kunit_resources_take(&before);
	struct vmalloc_stats a, b;
	vmalloc_get_stats(&a);
	injection_on(test, 1, 100, -1, 0);
	KUNIT_EXPECT_NULL(test, vmalloc(16 * PAGE_SIZE));
	KUNIT_EXPECT_NULL(test, vzalloc(PMD_SIZE));
	KUNIT_EXPECT_NULL(test, vmalloc_huge(2 * PMD_SIZE, GFP_KERNEL | __GFP_NOWARN));
	KUNIT_EXPECT_NULL(test, kvmalloc(1ul << 20, GFP_NOFS | __GFP_NOWARN));
	KUNIT_EXPECT_GT(test, fail_page_alloc.failures, 3);
	void *p = __vmalloc(16 * PAGE_SIZE, GFP_KERNEL | __GFP_NOFAIL);
	void *q = kvmalloc(64 * PAGE_SIZE, GFP_NOFS | __GFP_NOFAIL);
	KUNIT_EXPECT_NOT_NULL(test, p);
	KUNIT_EXPECT_NOT_NULL(test, q);
	kunit_release_action(test, injection_off, NULL);
	vfree(p);
	kvfree(q);
	vm_unmap_aliases();
	vmalloc_get_stats(&b);
	KUNIT_EXPECT_EQ(test, b.busy_areas, a.busy_areas);
	KUNIT_EXPECT_EQ(test, b.lazy_areas, 0);
	kunit_expect_resources_back(test, &before);
}

/* Failures every few allocations, at every stage of vmalloc (page array,
 * pages, page tables, nodes): each call succeeds whole or fails whole. */
static void sparse_injection_fails_cleanly_at_every_stage(struct kunit *test)
{
	struct kunit_resources before;
	vm_unmap_aliases();
	kunit_resources_take(&before);
	unsigned long ok = 0, failed = 0;
	for (unsigned long interval = 2; interval <= 9; interval++) {
		injection_on(test, interval, 100, -1, 0);
		for (unsigned long pages = 1; pages <= 40; pages += 3) {
			char *p = vmalloc(pages * PAGE_SIZE);
			if (p) {
				ok++;
				p[0] = 1;
				p[pages * PAGE_SIZE - 1] = 1;
				KUNIT_EXPECT_EQ(test, find_vm_area(p)->nr_pages, pages);
			} else {
				failed++;
			}
			vfree(p);
		}
		kunit_release_action(test, injection_off, NULL);
	}
	kunit_info(test, "%lu vmallocs succeeded, %lu failed under injection", ok, failed);
	KUNIT_EXPECT_GT(test, ok, 0);
	KUNIT_EXPECT_GT(test, failed, 0);
	vm_unmap_aliases();
	kunit_expect_resources_back(test, &before);
}

static struct kunit_case vmalloc_gfp_cases[] = {
	KUNIT_CASE(scopes_nest_and_restore),
	KUNIT_CASE(kvmalloc_flag_handling),
	KUNIT_CASE(procfs_buffers_fall_back_to_vmalloc),
	KUNIT_CASE(kvrealloc_keeps_contents_across_allocators),
	KUNIT_CASE(vmalloc_gfp_edges),
	KUNIT_CASE(kvmalloc_nofs_reclaims_only_the_block_cache),
	KUNIT_CASE(kvmalloc_noio_enters_neither_cache),
	KUNIT_CASE(kvmalloc_kernel_may_reclaim_both),
	KUNIT_CASE(kernel_call_in_nofs_scope_reclaims_as_nofs),
	KUNIT_CASE(ceph_kvmalloc_and_kvmalloc_agree),
	KUNIT_CASE(nofail_succeeds_once_another_thread_frees),
	KUNIT_CASE(fail_page_alloc_parses_linux_order),
	KUNIT_CASE(injected_failures_leave_nothing_behind),
	KUNIT_CASE(sparse_injection_fails_cleanly_at_every_stage),
	{}
};
static struct kunit_suite vmalloc_gfp_suite = { .name = "vmalloc_gfp", .test_cases = vmalloc_gfp_cases };
kunit_test_suite(vmalloc_gfp_suite);
