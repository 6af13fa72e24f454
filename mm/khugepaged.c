/* khugepaged: the kernel thread, its list of mm_slots and its sysfs files
 * (Linux 6.1's mm/khugepaged.c: khugepaged, khugepaged_do_scan,
 * khugepaged_scan_mm_slot, __khugepaged_enter, __khugepaged_exit,
 * collect_mm_slot, the khugepaged_attr files). The scan of one PMD and the
 * collapse are in mm/khugepaged_collapse.c; mm/khugepaged.h has the rules.
 *
 * Locking, as Linux's: khugepaged_mm_lock guards the list and the scan
 * cursor (khugepaged_scan); a slot holds mmgrab on its mm, so the struct
 * stays while the slot is listed. khugepaged scans an mm under its mmap
 * read lock, taken by trylock, and gives up on it once mm_users is zero
 * (hpage_collapse_test_exit); khugepaged_exit, at the last mmput, frees
 * the slot unless it is the one khugepaged is scanning, and then takes
 * and releases the mmap write lock so that exit_mmap does not start while
 * khugepaged still walks the tables. Unlike Linux, the thread is never
 * stopped: with `enabled` at never it sleeps until a write wakes it. */
#include "mm/khugepaged_internal.h"
#include "fs/proc/proc_fs.h"
#include "fs/fs_context.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "lib/string.h"
#include "kernel/wait.h"
#include "lib/list.h"
#include "mm/huge_memory.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "mm/slab.h"

unsigned int khugepaged_pages_to_scan = HPAGE_PMD_NR * 8;
unsigned int khugepaged_max_ptes_none = HPAGE_PMD_NR - 1;
unsigned int khugepaged_max_ptes_swap = HPAGE_PMD_NR / 8;
unsigned int khugepaged_max_ptes_shared = HPAGE_PMD_NR / 2;
unsigned int khugepaged_scan_sleep_millisecs = 10000;
unsigned int khugepaged_alloc_sleep_millisecs = 60000;
int khugepaged_defrag = 1;
static unsigned int khugepaged_pages_collapsed;
static unsigned int khugepaged_full_scans;
static unsigned long khugepaged_sleep_expire;

unsigned int khugepaged_full_scans_read(void) { return READ_ONCE(khugepaged_full_scans); }
unsigned int khugepaged_pages_collapsed_read(void) { return READ_ONCE(khugepaged_pages_collapsed); }

static DEFINE_SPINLOCK(khugepaged_mm_lock);
static DECLARE_WAIT_QUEUE_HEAD(khugepaged_wait);
/* Woken at each full scan, for khugepaged_wait_full_scans. */
static DECLARE_WAIT_QUEUE_HEAD(khugepaged_full_scan_wait);
/* Woken when collect_mm_slot frees a dying mm's slot (khugepaged_exit). */
static DECLARE_WAIT_QUEUE_HEAD(khugepaged_exit_wait);
static struct task_struct *khugepaged_thread;

#define MAX_PTE_MAPPED_THP 8

/* Linux's struct mm_slot (mm/mm_slot.h): the list is short here, so it is
 * searched instead of hashed. */
struct mm_slot {
	struct list_head mm_node;
	struct mm_struct *mm;
	/* Linux's khugepaged_mm_slot: addresses whose PTE tables map a
	 * collapsed shmem huge page, to be retracted at the next visit
	 * (khugepaged_add_pte_mapped_thp), under khugepaged_mm_lock. */
	int nr_pte_mapped_thp;
	unsigned long pte_mapped_thp[MAX_PTE_MAPPED_THP];
};

/* Linux's struct khugepaged_scan: the list and the cursor. */
static struct {
	struct list_head mm_head;
	struct mm_slot *mm_slot;
	unsigned long address;
	/* mmlab's: khugepaged is in the cursor's mm (the lock dropped). */
	bool busy;
} khugepaged_scan = { .mm_head = LIST_HEAD_INIT(khugepaged_scan.mm_head) };

static struct mm_slot *mm_slot_lookup(struct mm_struct *mm)
{
	struct mm_slot *slot;
	list_for_each_entry(slot, &khugepaged_scan.mm_head, mm_node)
		if (slot->mm == mm)
			return slot;
	return NULL;
}

bool khugepaged_mm_registered(struct mm_struct *mm)
{
	spin_lock(&khugepaged_mm_lock);
	bool found = mm_slot_lookup(mm) != NULL;
	spin_unlock(&khugepaged_mm_lock);
	return found;
}

/* --- eligibility and registration ------------------------------------------- */

static bool hugepage_flags_enabled(void) { return READ_ONCE(thp_enabled_mode) != THP_ENABLED_NEVER; }

/* Linux's vma_is_anonymous: no file, and not shared anonymous memory
 * (Linux's vm_file there is an unnamed tmpfs file). */
static bool vma_is_anonymous(const struct vm_area_struct *vma) { return !vma->vm_file && !vma->vm_shm; }

bool hugepage_vma_check(struct vm_area_struct *vma, unsigned long vm_flags, bool smaps, bool enforce_sysfs)
{
	if (!vma->vm_mm)
		return false;
	if ((vm_flags & VM_NOHUGEPAGE) || mm_flag_test(vma->vm_mm, MMF_DISABLE_THP))
		return false;
	/* VM_NO_KHUGEPAGED: mmlab has none of VM_SPECIAL's flags. */
	if (vm_flags & VM_HUGETLB)
		return false;
	/* transhuge_vma_suitable(vma, vm_end - HPAGE_PMD_SIZE): an aligned
	 * 2 MiB inside the VMA. */
	unsigned long first = (vma->vm_start + PMD_SIZE - 1) & PMD_MASK;
	if (first < vma->vm_start || first + PMD_SIZE > vma->vm_end)
		return false;
	/* shmem (Linux's shmem_file(vma->vm_file)): its file's offsets aligned
	 * as the addresses (the rest of transhuge_vma_suitable), then
	 * shmem_huge_enabled: shmem_enabled and huge= decide, not `enabled`,
	 * and MADV_COLLAPSE (!enforce_sysfs) forces it. */
	struct inode *inode = khugepaged_shmem_inode(vma);
	if (inode) {
		if (((vma->vm_start >> PAGE_SHIFT) - vma->vm_pgoff) & (HPAGE_PMD_NR - 1))
			return false;
		return shmem_is_huge(vma, inode, vma->vm_pgoff, !enforce_sysfs);
	}
	/* Any other file: Linux's CONFIG_READ_ONLY_THP_FOR_FS, which mmlab
	 * does not have. */
	if (!vma_is_anonymous(vma))
		return false;
	if (enforce_sysfs && (!hugepage_flags_enabled() || (!(vm_flags & VM_HUGEPAGE) &&
							     READ_ONCE(thp_enabled_mode) != THP_ENABLED_ALWAYS)))
		return false;
	if (!vma->anon_vma)
		return smaps;
	return true;
}

/* Linux's __khugepaged_enter: a slot at the tail of the list (behind the
 * cursor, to let the area settle), the mm grabbed. */
static void __khugepaged_enter(struct mm_struct *mm)
{
	if (hpage_collapse_test_exit(mm))
		return;
	if (__atomic_fetch_or(&mm->flags, 1ul << MMF_VM_HUGEPAGE, __ATOMIC_ACQ_REL) & (1ul << MMF_VM_HUGEPAGE))
		return;
	struct mm_slot *slot = kmalloc(sizeof(*slot), GFP_KERNEL);
	if (!slot) {
		mm_flag_clear(mm, MMF_VM_HUGEPAGE);
		return;
	}
	slot->mm = mm;
	slot->nr_pte_mapped_thp = 0;
	mmgrab(mm);
	spin_lock(&khugepaged_mm_lock);
	bool wakeup = list_empty(&khugepaged_scan.mm_head);
	list_add_tail(&slot->mm_node, &khugepaged_scan.mm_head);
	spin_unlock(&khugepaged_mm_lock);
	if (wakeup)
		khugepaged_wake();
}

void khugepaged_enter_vma(struct vm_area_struct *vma, unsigned long vm_flags)
{
	if (!mm_flag_test(vma->vm_mm, MMF_VM_HUGEPAGE) && hugepage_flags_enabled() &&
	    hugepage_vma_check(vma, vm_flags, false, true))
		__khugepaged_enter(vma->vm_mm);
}

void khugepaged_fork(struct mm_struct *mm, struct mm_struct *oldmm)
{
	if (mm_flag_test(oldmm, MMF_VM_HUGEPAGE)) {
		mm_flag_clear(mm, MMF_VM_HUGEPAGE); /* copied from the parent's flags, if at all */
		__khugepaged_enter(mm);
	}
}

/* The cursor leaves slot for the next one (under khugepaged_mm_lock);
 * past the last, a full scan is done. */
static void advance_cursor(struct mm_slot *slot)
{
	if (slot->mm_node.next != &khugepaged_scan.mm_head) {
		khugepaged_scan.mm_slot = list_entry(slot->mm_node.next, struct mm_slot, mm_node);
		khugepaged_scan.address = 0;
	} else {
		khugepaged_scan.mm_slot = NULL;
		__atomic_add_fetch(&khugepaged_full_scans, 1, __ATOMIC_RELEASE);
		wake_up_all(&khugepaged_full_scan_wait);
	}
}

void khugepaged_exit(struct mm_struct *mm)
{
	if (!mm_flag_test(mm, MMF_VM_HUGEPAGE))
		return;
	bool free = false;
	spin_lock(&khugepaged_mm_lock);
	struct mm_slot *slot = mm_slot_lookup(mm);
	/* Linux leaves the cursor's slot to khugepaged even between its
	 * visits; mmlab frees it here unless khugepaged is inside the mm,
	 * so that the exit gives everything back before it returns. */
	if (slot && (khugepaged_scan.mm_slot != slot || !khugepaged_scan.busy)) {
		if (khugepaged_scan.mm_slot == slot)
			advance_cursor(slot);
		list_del(&slot->mm_node);
		free = true;
	}
	spin_unlock(&khugepaged_mm_lock);
	if (free) {
		mm_flag_clear(mm, MMF_VM_HUGEPAGE);
		kfree(slot);
		mmdrop(mm);
	} else if (slot) {
		/* khugepaged is on it: it sees mm_users at zero under the mmap
		 * lock and frees the slot (collect_mm_slot); the write lock
		 * waits for it to let go of the tables, as Linux's, and then
		 * the slot's end is waited for. */
		mmap_write_lock(mm);
		mmap_write_unlock(mm);
		wait_event(khugepaged_exit_wait, !mm_flag_test(mm, MMF_VM_HUGEPAGE));
	}
}

bool khugepaged_add_pte_mapped_thp(struct mm_struct *mm, unsigned long addr)
{
	bool added = false;
	spin_lock(&khugepaged_mm_lock);
	struct mm_slot *slot = mm_slot_lookup(mm);
	if (slot && slot->nr_pte_mapped_thp < MAX_PTE_MAPPED_THP) {
		slot->pte_mapped_thp[slot->nr_pte_mapped_thp++] = addr & PMD_MASK;
		added = true;
	}
	spin_unlock(&khugepaged_mm_lock);
	return added;
}

/* Linux's khugepaged_collapse_pte_mapped_thps: the addresses left for
 * this visit, under the mmap write lock taken by trylock (else they wait
 * for a later visit). */
static void khugepaged_collapse_pte_mapped_thps(struct mm_slot *slot)
{
	struct mm_struct *mm = slot->mm;
	unsigned long addrs[MAX_PTE_MAPPED_THP];
	spin_lock(&khugepaged_mm_lock);
	int n = slot->nr_pte_mapped_thp;
	memcpy(addrs, slot->pte_mapped_thp, sizeof(addrs[0]) * (unsigned long)n);
	spin_unlock(&khugepaged_mm_lock);
	if (!n || !mmap_write_trylock(mm))
		return;
	if (!hpage_collapse_test_exit(mm))
		for (int i = 0; i < n; i++)
			collapse_pte_mapped_thp(mm, addrs[i], false);
	spin_lock(&khugepaged_mm_lock);
	slot->nr_pte_mapped_thp = 0;
	spin_unlock(&khugepaged_mm_lock);
	mmap_write_unlock(mm);
}

/* Linux's collect_mm_slot, under khugepaged_mm_lock: the slot of an mm
 * whose users are gone leaves the list. */
static void collect_mm_slot(struct mm_slot *slot)
{
	struct mm_struct *mm = slot->mm;
	if (!hpage_collapse_test_exit(mm))
		return;
	list_del(&slot->mm_node);
	kfree(slot);
	mmdrop(mm); /* the exit's mmput holds the struct until it is woken */
	mm_flag_clear(mm, MMF_VM_HUGEPAGE);
	wake_up_all(&khugepaged_exit_wait);
}

/* --- the scan ----------------------------------------------------------------- */

/* Linux's khugepaged_scan_mm_slot, entered and left with khugepaged_mm_lock
 * held: up to pages PTEs' worth of the mm under the cursor. */
static unsigned int khugepaged_scan_mm_slot(unsigned int pages, enum scan_result *result,
					    struct collapse_control *cc)
{
	struct mm_slot *slot = khugepaged_scan.mm_slot;
	if (!slot) {
		slot = list_first_entry(&khugepaged_scan.mm_head, struct mm_slot, mm_node);
		khugepaged_scan.address = 0;
		khugepaged_scan.mm_slot = slot;
	}
	khugepaged_scan.busy = true;
	spin_unlock(&khugepaged_mm_lock);
	khugepaged_collapse_pte_mapped_thps(slot);
	struct mm_struct *mm = slot->mm;
	struct vm_area_struct *vma = NULL;
	unsigned int progress = 0;
	*result = SCAN_FAIL;
	if (!mmap_read_trylock(mm))
		goto breakouterloop_mmap_lock;
	progress++;
	if (hpage_collapse_test_exit(mm))
		goto breakouterloop;
	for (vma = find_vma(mm, khugepaged_scan.address); vma; vma = vma_next(vma)) {
		cond_resched();
		if (hpage_collapse_test_exit(mm)) {
			progress++;
			break;
		}
		if (!hugepage_vma_check(vma, vma->vm_flags, false, true)) {
			progress++;
			continue;
		}
		unsigned long hstart = (vma->vm_start + PMD_SIZE - 1) & PMD_MASK;
		unsigned long hend = vma->vm_end & PMD_MASK;
		if (khugepaged_scan.address > hend) {
			progress++;
			continue;
		}
		if (khugepaged_scan.address < hstart)
			khugepaged_scan.address = hstart;
		while (khugepaged_scan.address < hend) {
			bool mmap_locked = true;
			cond_resched();
			if (hpage_collapse_test_exit(mm))
				goto breakouterloop;
			struct file *file = khugepaged_vma_file(vma);
			if (file) {
				/* shmem: the page cache's range, without the
				 * mmap lock (Linux's hpage_collapse_scan_file). */
				unsigned long pgoff = linear_page_index(vma, khugepaged_scan.address);
				mmap_read_unlock(mm);
				mmap_locked = false;
				*result = hpage_collapse_scan_file(mm, khugepaged_scan.address, file, pgoff, cc);
				fput(file);
			} else {
				*result = hpage_collapse_scan_pmd(mm, vma, khugepaged_scan.address, &mmap_locked, cc);
			}
			/* A huge page already in the cache, this mm's table still
			 * mapping its pages: retracted at the next visit, and
			 * counted as Linux counts it. */
			if (*result == SCAN_PTE_MAPPED_HUGEPAGE) {
				pmd_t *pmd;
				enum scan_result r = SCAN_FAIL;
				if (mmap_read_trylock(mm)) { /* Linux looks without it */
					r = find_pmd_or_thp_or_none(mm, khugepaged_scan.address, &pmd);
					mmap_read_unlock(mm);
				}
				if (r == SCAN_SUCCEED && khugepaged_add_pte_mapped_thp(mm, khugepaged_scan.address))
					*result = SCAN_SUCCEED;
			}
			if (*result == SCAN_SUCCEED)
				__atomic_add_fetch(&khugepaged_pages_collapsed, 1, __ATOMIC_RELAXED);
			khugepaged_scan.address += PMD_SIZE;
			progress += HPAGE_PMD_NR;
			if (!mmap_locked)
				goto breakouterloop_mmap_lock; /* the collapse dropped it */
			if (progress >= pages)
				goto breakouterloop;
		}
	}
breakouterloop:
	mmap_read_unlock(mm); /* exit_mmap may destroy the tables after this */
breakouterloop_mmap_lock:
	spin_lock(&khugepaged_mm_lock);
	/* The mm is dying, or every VMA of it was scanned: on to the next
	 * slot, the cursor never left on a slot khugepaged_exit would skip. */
	khugepaged_scan.busy = false;
	if (hpage_collapse_test_exit(mm) || !vma) {
		advance_cursor(slot);
		collect_mm_slot(slot);
	}
	return progress;
}

static bool khugepaged_has_work(void)
{
	return !list_empty(&khugepaged_scan.mm_head) && hugepage_flags_enabled();
}

/* Sleeps, interruptibly, until cond or for at most timeout ticks (0:
 * without a limit). */
#define khugepaged_sleep(cond, timeout)                                                       \
	do {                                                                                   \
		DEFINE_WAIT(__wait);                                                           \
		prepare_to_wait(&khugepaged_wait, &__wait, TASK_INTERRUPTIBLE);                \
		if (!(cond)) {                                                                 \
			if (timeout)                                                           \
				schedule_timeout(timeout);                                     \
			else                                                                   \
				schedule();                                                    \
		}                                                                              \
		finish_wait(&khugepaged_wait, &__wait);                                        \
	} while (0)

/* Linux's khugepaged_alloc_sleep: alloc_sleep_millisecs, or until a knob
 * is written (khugepaged_sleep_expire reset) or the thread stops. */
static void khugepaged_alloc_sleep(void)
{
	long t = msecs_to_jiffies(READ_ONCE(khugepaged_alloc_sleep_millisecs));
	if (!t)
		return;
	WRITE_ONCE(khugepaged_sleep_expire, jiffies + (unsigned long)t); /* a write of a knob clears it */
	khugepaged_sleep(kthread_should_stop() || !READ_ONCE(khugepaged_sleep_expire), t);
}

/* Linux's khugepaged_do_scan: pages_to_scan PTEs' worth, passing the head
 * of the list at most twice; after a failed THP allocation it sleeps
 * alloc_sleep_millisecs once, and stops at the second. */
static void khugepaged_do_scan(struct collapse_control *cc)
{
	unsigned int progress = 0, pass_through_head = 0;
	unsigned int pages = READ_ONCE(khugepaged_pages_to_scan);
	bool wait = true;
	enum scan_result result = SCAN_SUCCEED;
	for (;;) {
		cond_resched();
		if (kthread_should_stop())
			break;
		spin_lock(&khugepaged_mm_lock);
		if (!khugepaged_scan.mm_slot)
			pass_through_head++;
		if (khugepaged_has_work() && pass_through_head < 2)
			progress += khugepaged_scan_mm_slot(pages - progress, &result, cc);
		else
			progress = pages;
		spin_unlock(&khugepaged_mm_lock);
		if (progress >= pages)
			break;
		if (result == SCAN_ALLOC_HUGE_PAGE_FAIL) {
			if (!wait)
				break;
			wait = false;
			khugepaged_alloc_sleep();
		}
	}
}

/* Linux's khugepaged_wait_work: scan_sleep_millisecs between passes (or
 * until a knob is written), or, with nothing to scan, until there is. */
static void khugepaged_wait_work(void)
{
	if (khugepaged_has_work()) {
		long t = msecs_to_jiffies(READ_ONCE(khugepaged_scan_sleep_millisecs));
		if (!t)
			return;
		WRITE_ONCE(khugepaged_sleep_expire, jiffies + (unsigned long)t);
		khugepaged_sleep(kthread_should_stop() || !READ_ONCE(khugepaged_sleep_expire) ||
					 (long)(jiffies - READ_ONCE(khugepaged_sleep_expire)) >= 0,
				 t);
		return;
	}
	khugepaged_sleep(kthread_should_stop() || khugepaged_has_work(), 0);
}

static int khugepaged(void *unused)
{
	(void)unused;
	static struct collapse_control cc = { .is_khugepaged = true };
	while (!kthread_should_stop()) {
		khugepaged_do_scan(&cc);
		khugepaged_wait_work();
	}
	return 0;
}

void khugepaged_wake(void)
{
	WRITE_ONCE(khugepaged_sleep_expire, 0);
	wake_up_all(&khugepaged_wait);
}

void khugepaged_wait_full_scans(unsigned int target)
{
	wait_event(khugepaged_full_scan_wait,
		   (int)(__atomic_load_n(&khugepaged_full_scans, __ATOMIC_ACQUIRE) - target) >= 0);
}

static int khugepaged_init(void)
{
	struct task_struct *t = kthread_create(khugepaged, NULL, "khugepaged");
	if (!t) {
		pr_err("khugepaged: no thread: THPs that fell back stay small\n");
		return -ENOMEM;
	}
	khugepaged_thread = t;
	wake_up_process(t);
	return 0;
}
late_initcall(khugepaged_init);

/* --- /sys/kernel/mm/transparent_hugepage/khugepaged ---------------------------- */

static const struct proc_dir_entry khugepaged_dir __proc_entry = {
	.parent = &thp_dir, .name = "khugepaged", .mode = S_IFDIR | 0555,
};

/* Each number file, its variable and the largest value it takes (Linux's
 * stores: kstrtouint or kstrtoul, -EINVAL for anything else). */
struct khugepaged_knob {
	const char *name;
	unsigned int *value;
	unsigned int min, max;
	bool wake; /* the sleeps: a write ends the one under way */
};
static const struct khugepaged_knob knobs[] = {
	{ "max_ptes_none", &khugepaged_max_ptes_none, 0, HPAGE_PMD_NR - 1, false },
	{ "max_ptes_swap", &khugepaged_max_ptes_swap, 0, HPAGE_PMD_NR - 1, false },
	{ "max_ptes_shared", &khugepaged_max_ptes_shared, 0, HPAGE_PMD_NR - 1, false },
	{ "pages_to_scan", &khugepaged_pages_to_scan, 1, ~0u, false },
	{ "scan_sleep_millisecs", &khugepaged_scan_sleep_millisecs, 0, ~0u, true },
	{ "alloc_sleep_millisecs", &khugepaged_alloc_sleep_millisecs, 0, ~0u, true },
};

static const struct khugepaged_knob *knob_of(const struct proc_node *node)
{
	const char *name = node->entry->name;
	for (unsigned long i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (!strcmp(knobs[i].name, name))
			return &knobs[i];
	return NULL;
}

static void knob_show(struct seq_buf *m, const struct proc_node *node)
{
	const struct khugepaged_knob *k = knob_of(node);
	seq_buf_printf(m, "%u\n", k ? READ_ONCE(*k->value) : 0);
}

static long knob_write(const struct proc_node *node, const char *buf, size_t len)
{
	const struct khugepaged_knob *k = knob_of(node);
	unsigned int v;
	if (!k || kstrtouint(buf, 10, &v) || v < k->min || v > k->max)
		return -EINVAL;
	WRITE_ONCE(*k->value, v);
	if (k->wake)
		khugepaged_wake();
	return (long)len;
}

#define KHUGEPAGED_KNOB(field, name_) PROC_FILE_RW(field, khugepaged_dir, name_, knob_show, knob_write)
KHUGEPAGED_KNOB(max_ptes_none_file, "max_ptes_none");
KHUGEPAGED_KNOB(max_ptes_swap_file, "max_ptes_swap");
KHUGEPAGED_KNOB(max_ptes_shared_file, "max_ptes_shared");
KHUGEPAGED_KNOB(pages_to_scan_file, "pages_to_scan");
KHUGEPAGED_KNOB(scan_sleep_file, "scan_sleep_millisecs");
KHUGEPAGED_KNOB(alloc_sleep_file, "alloc_sleep_millisecs");

static void pages_collapsed_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	seq_buf_printf(m, "%u\n", khugepaged_pages_collapsed_read());
}
static void full_scans_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	seq_buf_printf(m, "%u\n", khugepaged_full_scans_read());
}
PROC_FILE(pages_collapsed_file, khugepaged_dir, "pages_collapsed", pages_collapsed_show);
PROC_FILE(full_scans_file, khugepaged_dir, "full_scans", full_scans_show);

/* defrag (Linux's single_hugepage_flag_show/store): 0 or 1; the
 * collapse's THP is allocated with GFP_TRANSHUGE (may reclaim) at 1,
 * GFP_TRANSHUGE_LIGHT at 0. */
static void defrag_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	seq_buf_printf(m, "%d\n", READ_ONCE(khugepaged_defrag));
}
static long defrag_write(const struct proc_node *node, const char *buf, size_t len)
{
	(void)node;
	unsigned int v;
	int err = kstrtouint(buf, 10, &v);
	if (err)
		return err == -ERANGE ? -EINVAL : err;
	if (v > 1)
		return -EINVAL;
	WRITE_ONCE(khugepaged_defrag, (int)v);
	return (long)len;
}
PROC_FILE_RW(defrag_file, khugepaged_dir, "defrag", defrag_show, defrag_write);
