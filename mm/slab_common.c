/* Slab caches as a whole (see slab.h for the interface; the slabs and
 * objects themselves are in slab.c): creating, destroying and shrinking
 * caches, the list of caches, boot (kmem_cache_init), the reports of
 * refused frees, and the statistics (/proc/slabinfo, objects and pages in
 * use).
 *
 * Invariants: every cache is on slab_caches from its creation until its
 * struct is freed; a boot cache (static storage) is never destroyed; a
 * cache destroyed while it has live objects stays on the list, marked
 * dead, with its slabs kept (kfree of those objects still works), and its
 * struct is freed by the first shrink that finds it empty.
 *
 * Shrinking and destroying a cache first have every CPU give its slabs
 * of it back to the node lists (flush_all: mm/slab.c's frozen slabs), so
 * that its empty slabs can go and its object count is exact.
 *
 * Locking: slab_caches_lock protects the list of caches and each cache's
 * dead flag, and is taken before any cache node's list_lock. */
#include "mm/slab.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/ksyms.h"
#include "kernel/smp.h"
#include "mm/slab_internal.h"

static LIST_HEAD(slab_caches);
static DEFINE_SPINLOCK(slab_caches_lock);
static bool slab_ready;
unsigned long slab_bad_free_reports;

/* The cache of struct kmem_cache, for kmem_cache_create(). */
static struct kmem_cache kmem_cache_boot;

/* ---- the list of caches ---- */

static void add_cache(struct kmem_cache *s)
{
	unsigned long flags;
	spin_lock_irqsave(&slab_caches_lock, flags);
	list_add_tail(&s->list, &slab_caches);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* ---- reports ---- */

/* "function+0xoffset" for a return address, or the bare address. */
static const char *caller_name(void *caller, char *buf, size_t size)
{
	const char *sym = NULL;
	u64 offset = 0, len;
	sym = ksym_lookup((u64)(uintptr_t)caller, &offset, &len);
	if (sym)
		snprintf(buf, size, "%s+%#lx", sym, (unsigned long)offset);
	else
		snprintf(buf, size, "%p", caller);
	return buf;
}

void report_bad_free(const char *func, const void *obj, const char *cache, const char *reason,
		     void *caller)
{
	char name[96];
	slab_bad_free_reports++;
	pr_err("BUG: %s: %s: %p (cache %s), caller %s; ignored\n", func, reason, obj, cache,
	       caller_name(caller, name, sizeof(name)));
}

/* ---- creating, shrinking and destroying caches ---- */

static bool is_power_of_2(unsigned long x) { return x && !(x & (x - 1)); }

unsigned long cache_objects_in_use(struct kmem_cache *s)
{
	unsigned long total = 0, cpu_free = 0, flags;
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		struct kmem_cache_node *n = &s->node[nid];
		spin_lock_irqsave(&n->list_lock, flags);
		total += n->nr_inuse;
		spin_unlock_irqrestore(&n->list_lock, flags);
	}
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		cpu_free += READ_ONCE(s->cpu_slab[cpu].slab.nr_free) +
			    READ_ONCE(s->cpu_slab[cpu].free_slab.nr_free);
	/* A CPU may be between its slab's count and its own. */
	return total > cpu_free ? total - cpu_free : 0;
}

/* Slabs frozen for a CPU (mm/slab.c): its CPU slab and its free slab. */
static unsigned long nr_cpu_slabs(struct kmem_cache *s)
{
	unsigned long nr = 0;
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		nr += (READ_ONCE(s->cpu_slab[cpu].slab.page) != NULL) +
		      (READ_ONCE(s->cpu_slab[cpu].free_slab.page) != NULL);
	return nr;
}

static void flush_cpu_slabs(void *info)
{
	struct kmem_cache *s = info;
	unsigned long flags;

	if (s) {
		flush_cpu_slab(s);
		return;
	}
	spin_lock_irqsave(&slab_caches_lock, flags);
	list_for_each_entry(s, &slab_caches, list)
		flush_cpu_slab(s);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* Every CPU gives its slab of s (of every cache, for NULL) back to the
 * node lists (SLUB's flush_all), so that empty slabs can go. A caller
 * with interrupts off cannot wait for the other CPUs: only its own CPU
 * does it then (as drain_all_pages). */
static void flush_all(struct kmem_cache *s)
{
	if (irqs_disabled()) {
		flush_cpu_slabs(s);
		return;
	}
	on_each_cpu(flush_cpu_slabs, s, true);
}

/* A destroyed cache whose last object has been freed: its struct goes,
 * once no CPU has a slab of it either. */
static bool finish_dead_cache(struct kmem_cache *s)
{
	if (!s->dead || cache_objects_in_use(s) || nr_cpu_slabs(s))
		return false;
	__kmem_cache_shrink(s);
	list_del(&s->list);
	kmem_cache_free(&kmem_cache_boot, s);
	return true;
}

void kmem_cache_shrink(struct kmem_cache *s)
{
	unsigned long flags;
	if (!s)
		return;
	flush_all(s);
	spin_lock_irqsave(&slab_caches_lock, flags);
	if (!finish_dead_cache(s))
		__kmem_cache_shrink(s);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

void kmem_cache_shrink_all(void)
{
	struct kmem_cache *s, *next;
	unsigned long flags;

	flush_all(NULL);
	spin_lock_irqsave(&slab_caches_lock, flags);
	/* Dead caches first: their structs free slots in kmem_cache, whose
	 * slab may then be empty and go in the second pass. */
	list_for_each_entry_safe(s, next, &slab_caches, list)
		finish_dead_cache(s);
	list_for_each_entry(s, &slab_caches, list)
		__kmem_cache_shrink(s);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align,
				     unsigned long flags, void (*ctor)(void *))
{
	struct kmem_cache *s;

	if (!slab_is_available()) {
		pr_err("kmem_cache_create: %s: called before kmem_cache_init\n", name);
		return NULL;
	}
	if (!size || size > KMALLOC_MAX_CACHE_SIZE || (align && !is_power_of_2(align)) ||
	    align > PAGE_SIZE) {
		pr_err("kmem_cache_create: %s: bad size %u or align %u\n", name, size, align);
		return NULL;
	}
	s = kmem_cache_alloc(&kmem_cache_boot, GFP_KERNEL);
	if (!s)
		return NULL;
	kmem_cache_setup(s, name, size, align, flags, ctor);
	if (!calculate_order(s)) {
		pr_err("kmem_cache_create: %s: objects of %u bytes do not fit a slab\n", name,
		       s->size);
		kmem_cache_free(&kmem_cache_boot, s);
		return NULL;
	}
	add_cache(s);
	return s;
}

void kmem_cache_destroy(struct kmem_cache *s)
{
	void *caller = __builtin_return_address(0);
	unsigned long flags, live;

	if (!s)
		return;
	if (s->boot) {
		pr_err("BUG: kmem_cache_destroy: %s is a boot cache, not destroyed\n", s->name);
		return;
	}
	flush_all(s);
	spin_lock_irqsave(&slab_caches_lock, flags);
	s->dead = true;
	live = cache_objects_in_use(s);
	if (!finish_dead_cache(s)) {
		/* Freeing live objects would hand out memory someone still
		 * uses: leak the slabs (and the cache, which their pages point
		 * to) instead. kfree of the objects still works. With none
		 * live, what kept it is a CPU's slab flush_all could not reach
		 * (a caller with interrupts off): the next shrink_all ends it. */
		__kmem_cache_shrink(s);
		char name[96];
		if (live)
			pr_err("BUG: kmem_cache_destroy: %s: slab cache still has %lu objects in use, "
			       "called from %s; its memory is kept\n",
			       s->name, live, caller_name(caller, name, sizeof(name)));
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* ---- set-up and statistics ---- */

void create_boot_cache(struct kmem_cache *s, const char *name, unsigned int size)
{
	kmem_cache_setup(s, name, size, 0, 0, NULL);
	s->boot = true;
	BUG_ON(!calculate_order(s));
	add_cache(s);
}

void kmem_cache_init(void)
{
	/* Called once at boot; host tests that boot the allocator again get
	 * fresh caches (the old ones described memory that is gone). */
	INIT_LIST_HEAD(&slab_caches);
	slab_pages = 0;
	create_boot_cache(&kmem_cache_boot, "kmem_cache", sizeof(struct kmem_cache));
	create_kmalloc_caches();
	slab_ready = true;
}

bool slab_is_available(void) { return slab_ready; }

unsigned long nr_slab_pages(void) { return __atomic_load_n(&slab_pages, __ATOMIC_RELAXED); }

unsigned long slab_objects_in_use(void)
{
	struct kmem_cache *s;
	unsigned long total = 0, flags;

	spin_lock_irqsave(&slab_caches_lock, flags);
	list_for_each_entry(s, &slab_caches, list)
		total += cache_objects_in_use(s);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return total;
}

void show_slabinfo(void)
{
	struct kmem_cache *s;
	unsigned long flags;

	printk(KERN_INFO "slabinfo: %-17s %7s %17s %10s %12s  %5s\n", "name", "objsize",
	       "active/total objs", "objperslab", "pagesperslab", "slabs (partial/full/empty/cpu)");
	spin_lock_irqsave(&slab_caches_lock, flags);
	list_for_each_entry(s, &slab_caches, list) {
		unsigned long partial = 0, full = 0, empty = 0, nflags;
		for (int nid = 0; nid < MAX_NUMNODES; nid++) {
			struct kmem_cache_node *n = &s->node[nid];
			spin_lock_irqsave(&n->list_lock, nflags);
			partial += n->nr_partial;
			full += n->nr_full;
			empty += n->nr_empty;
			spin_unlock_irqrestore(&n->list_lock, nflags);
		}
		unsigned long cpu = nr_cpu_slabs(s);
		unsigned long slabs = partial + full + empty + cpu;
		printk(KERN_INFO "slabinfo: %-17s %7u %8lu/%-8lu %10u %12u  %5lu (%lu/%lu/%lu/%lu)%s\n",
		       s->name, s->object_size, cache_objects_in_use(s), slabs * s->objects,
		       s->objects, 1u << s->order, slabs, partial, full, empty, cpu,
		       s->dead ? " destroyed, leaked" : "");
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}
