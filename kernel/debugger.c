/* The debugger's stop point (kernel/debugger.h) and the facts printed
 * before it: the kernel's own view of what the gdb helpers (tools/gdb/)
 * read from memory, so that tools/gdb/gdb-check can compare the two.
 *
 * Invariant: from the machine-wide facts (free lists, slabs, vmalloc,
 * RCU) until debugger_stop() returns, no CPU runs anything else: the
 * others spin in an IPI handler with interrupts off (Linux's kgdb rounds
 * them up the same way) and this one has interrupts off and calls nothing
 * that sleeps or reschedules, so the facts are the state gdb sees. The
 * process's own facts (VMAs, pages, walks) come before, with interrupts
 * on (a page walk may reschedule), and hold because only the process
 * changes them and it is here.
 *
 * Locking: the caller is a process in a system call holding nothing; the
 * mmap_lock of its mm is taken for reading (the facts walk its VMAs and
 * page tables) before the other CPUs are held, so no held CPU can own it. */
#include "kernel/debugger.h"
#include "fs/proc/proc_fs.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/string.h"
#include "mm/rmap.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/page_alloc.h"
#include "mm/pagewalk.h"
#include "mm/pgtable.h"
#include "mm/slab.h"
#include "mm/vmalloc.h"

static bool debugger_facts;
kernel_param_flag("debugger_facts", debugger_facts,
		  "sysrq g prints what the gdb check compares before it stops (tools/gdb/)");

/* gdb breaks here. noinline and the empty asm keep the call and the
 * function whatever the optimiser thinks of an empty body. */
__attribute__((noinline)) void debugger_stop(const char *reason)
{
	__asm__ volatile("" : : "r"(reason) : "memory");
}

/* ---- holding the other CPUs ---- */

static unsigned long cpus_held;
static bool release_cpus;

static void hold_this_cpu(void *info)
{
	(void)info;
	__atomic_add_fetch(&cpus_held, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&release_cpus, __ATOMIC_ACQUIRE))
		__asm__ volatile("pause" ::: "memory");
	__atomic_sub_fetch(&cpus_held, 1, __ATOMIC_ACQ_REL);
}

/* ---- the facts ---- */

static void print_page(const char *what, unsigned long va, const struct page *page)
{
	pr_info("debugger: page %s va=%#lx pfn=%#lx flags=%#lx refcount=%d mapcount=%d node=%d "
		"private=%lu\n",
		what, va, page_to_pfn(page), page->flags & PAGE_FLAGS_MASK, page_ref_count(page),
		page->_mapcount + 1, page_to_nid(page), page->private);
}

/* The entries a walk of va in mm passes, as the kernel reads them through
 * mm/pgtable.h's accessors (the PTE through pte_offset_map, which says
 * whether the PMD holds a PTE table); a huge PUD (a 1 GiB hugetlb page)
 * or PMD ends the walk. The caller holds the mmap_lock and every CPU, so
 * no table goes away meanwhile. */
static bool pte_table_printed;

static void print_walk(struct mm_struct *mm, unsigned long va)
{
	pgd_t *pgd = pgd_offset(mm, va);
	unsigned long pgdv = pgd_val(pgdp_get(pgd)), pudv = 0, pmdv = 0, ptev = 0;
	int table_refcount = -1;
	if (!pgd_none(pgdp_get(pgd))) {
		pud_t *pud = pud_offset(pgd, va);
		pudv = pud_val(pudp_get(pud));
		if (pudv && !(pudv & _PAGE_PSE)) {
			pmd_t *pmd = pmd_offset(pud, va);
			pmdv = pmd_val(pmdp_get(pmd));
			pte_t *pte = pte_offset_map(pmd, va);
			if (pte) {
				struct page *table = pfn_to_page(pmd_pfn(pmdp_get(pmd)));
				table_refcount = table->pt_refcount;
				ptev = pte_val(ptep_get(pte));
				pte_unmap(pte);
				if (!pte_table_printed) {
					print_page("pgtable", (unsigned long)page_address(table), table);
					pte_table_printed = true;
				}
			}
		}
	}
	pr_info("debugger: walk va=%#lx pgd=%#lx pud=%#lx pmd=%#lx pte=%#lx pte_table_refcount=%d\n",
		va, pgdv, pudv, pmdv, ptev, table_refcount);
}

/* The first mapped page of each VMA of the current mm. */
struct first_page {
	unsigned long va;
	struct page *page;
	const char *what;
};

static int first_pte(pte_t pte, unsigned long addr, struct mm_walk *walk)
{
	struct first_page *f = walk->private;
	if (f->page || !pte_present(pte) || !pfn_valid(pte_pfn(pte)))
		return 0;
	f->va = addr;
	f->page = pfn_to_page(pte_pfn(pte));
	/* A shared mapping's page is in its file's page cache; a private
	 * one's is anonymous or the zero page. */
	f->what = page_in_page_cache(f->page) ? "pagecache" : "user";
	return 1;
}

static int first_huge_pmd(pmd_t pmd, unsigned long addr, unsigned long next, struct mm_walk *walk)
{
	(void)next;
	struct first_page *f = walk->private;
	if (f->page || !pmd_present(pmd))
		return 0;
	f->va = addr;
	f->page = pfn_to_page(pmd_pfn(pmd));
	f->what = "thp";
	return 1;
}

static int first_hugetlb(pte_t pte, unsigned long hmask, unsigned long addr, unsigned long next,
			 struct mm_walk *walk)
{
	(void)hmask;
	(void)next;
	struct first_page *f = walk->private;
	if (f->page || !pte_present(pte))
		return 0;
	f->va = addr;
	f->page = pfn_to_page(pte_pfn(pte));
	f->what = "hugetlb";
	return 1;
}

static const struct mm_walk_ops first_page_ops = {
	.pte_entry = first_pte,
	.huge_pmd_entry = first_huge_pmd,
	.hugetlb_entry = first_hugetlb,
};

static char facts_buf[32768];

/* A /proc file of the current task, generated into a static buffer (no
 * allocation while the facts are printed), one line of the log each. */
static void print_proc_file(const char *path, const char *label)
{
	struct proc_node node, pinned;
	if (procfs_lookup(path, current, &node) || !node.entry->show || proc_pin_task(&node, current, &pinned))
		return;
	struct seq_buf m = { .buffer = facts_buf, .size = sizeof(facts_buf) - 1 };
	node.entry->show(&m, &pinned); /* the task and its mm, held for the show */
	proc_unpin_task(&pinned);
	size_t len = m.len < m.size ? m.len : m.size;
	facts_buf[len] = 0;
	for (char *line = facts_buf, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		else
			*nl = 0;
		pr_info("debugger: %s %s\n", label, line);
	}
}

/* What only the current process changes: its VMAs, its pages and page
 * tables (it is single-threaded, or its other threads wait on the
 * mmap_lock the caller holds). Printed before the CPUs are held, since
 * the page walks may reschedule (cond_resched) and that must not happen
 * once the machine is meant to stand still. */
static void print_mm_facts(struct mm_struct *mm)
{
	pr_info("debugger: facts begin (pid %d comm %s)\n", current->pid, current->comm);
	print_proc_file("/proc/self/maps", "maps");
	print_proc_file("/proc/self/numa_maps", "numa_maps");
	struct vm_area_struct *vma;
	for_each_vma(mm, vma) {
		struct first_page f = { 0 };
		walk_page_vma(vma, &first_page_ops, &f);
		if (!f.page)
			continue;
		print_page(f.what, f.va, f.page);
		print_walk(mm, f.va);
	}
}

/* What any CPU may change, printed with every CPU held: nothing below
 * may sleep or reschedule. */
static void print_machine_facts(struct mm_struct *mm)
{
	unsigned int cpu;
	pr_info("debugger: stop cpu=%u pid=%d comm=%s\n", smp_processor_id(), current->pid,
		current->comm);
	show_buddyinfo();
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = NODE_DATA(nid);
		if (!pgdat)
			continue;
		for_each_online_cpu(cpu) {
			struct per_cpu_pages *pcp = &pgdat->pcp[cpu];
			pr_info("debugger: pcp node=%d cpu=%u count=%d high=%d batch=%d\n", nid, cpu,
				pcp->count, pcp->high, pcp->batch);
		}
	}
	show_slabinfo();
	print_proc_file("/proc/vmallocinfo", "vmallocinfo");
	print_proc_file("/proc/pagetypeinfo", "pagetypeinfo");
	rcu_print_stats();
	pr_info("debugger: task pid=%d tgid=%d comm=%s cpu=%u mm=%p\n", current->pid, current->tgid,
		current->comm, current->cpu, current->mm);

	/* Kernel pages of every kind the helpers name. */
	print_page("slab", (unsigned long)mm, virt_to_page(mm));
	if (is_vmalloc_addr(current->stack))
		print_page("vmalloc", (unsigned long)current->stack, vmalloc_to_page(current->stack));
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = NODE_DATA(nid);
		if (!pgdat || !pgdat->nr_free)
			continue;
		for (int o = MAX_PAGE_ORDER; o >= 0; o--) {
			struct list_head *list = &pgdat->free_area[o].free_list[MIGRATE_MOVABLE];
			if (list_empty(list))
				continue;
			struct page *p = list_first_entry(list, struct page, lru);
			print_page("buddy", (unsigned long)page_address(p), p);
			break;
		}
		struct per_cpu_pages *pcp = &pgdat->pcp[smp_processor_id()];
		for (int i = 0; i < NR_LOWORDER_PCP_LISTS; i++) {
			if (list_empty(&pcp->lists[i]))
				continue;
			struct page *p = list_first_entry(&pcp->lists[i], struct page, lru);
			print_page("pcp", (unsigned long)page_address(p), p);
			break;
		}
		break;
	}
	pr_info("debugger: facts end\n");
}

void debugger_enter(const char *reason)
{
	struct mm_struct *mm = current->mm;
	unsigned long flags;

	if (mm)
		mmap_read_lock(mm);
	pr_info("debugger: stopping (%s): break on debugger_stop to look\n", reason);
	if (debugger_facts && mm)
		print_mm_facts(mm);
	/* This CPU first (so the task cannot move to a CPU about to be held),
	 * then the others: nothing runs until gdb lets go. The IPIs are sent
	 * without waiting for them, which is allowed with interrupts off. */
	local_irq_save(flags);
	__atomic_store_n(&release_cpus, false, __ATOMIC_RELEASE);
	struct cpumask others = cpu_online_mask;
	others.bits &= ~(1ull << smp_processor_id());
	unsigned long want = 0;
	for (u64 m = others.bits; m; m &= m - 1)
		want++;
	smp_call_function_many(&others, hold_this_cpu, NULL, false);
	while (__atomic_load_n(&cpus_held, __ATOMIC_ACQUIRE) < want)
		__asm__ volatile("pause" ::: "memory");

	if (debugger_facts && mm)
		print_machine_facts(mm);
	debugger_stop(reason);

	__atomic_store_n(&release_cpus, true, __ATOMIC_RELEASE);
	while (__atomic_load_n(&cpus_held, __ATOMIC_ACQUIRE))
		__asm__ volatile("pause" ::: "memory");
	local_irq_restore(flags);
	if (mm)
		mmap_read_unlock(mm);
}
