/* PSI triggers (Linux 6.1's psi_trigger_create, psi_trigger_destroy,
 * psi_trigger_poll, psi_poll_work, update_triggers and window_update in
 * kernel/sched/psi.c): a process writes "some 150000 1000000" to an open
 * /proc/pressure/ file and poll()s it; POLLPRI comes when the state's
 * stall time grew by the threshold (150 ms) within a window (1 s), at
 * most once per window.
 *
 * While a group has triggers, a task change into a watched state
 * schedules the poll (psi_schedule_poll_work); the poll folds the per-CPU
 * buckets with an aggregator of its own (PSI_POLL) every tenth of the
 * shortest window, for ten windows after the last change it saw
 * (polling_until). Linux runs the poll in a thread, psimon, woken by a
 * timer; mmlab runs it from the boot CPU's tick, so trigger_lock is a
 * spinlock taken with interrupts off.
 *
 * Lifetime: a trigger is on group->triggers from its creation to
 * psi_trigger_destroy, which takes it off under trigger_lock (after that
 * the poll cannot reach it) and wakes its pollers; the file holding it is
 * released only once no system call uses it, so nobody polls it then. */
#include "fs/poll.h"
#include "kernel/psi.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "mm/slab.h"
#include "lib/string.h"

#define WINDOW_MIN_US 500000    /* Linux 6.1's: 500 ms */
#define WINDOW_MAX_US 10000000  /* 10 s */
#define UPDATES_PER_WINDOW 10

static inline u64 nsecs_to_jiffies(u64 ns) { return ns / TICK_NSEC; }

static void window_reset(struct psi_window *win, u64 now, u64 value, u64 prev_growth)
{
	win->start_time = now;
	win->start_value = value;
	win->prev_growth = prev_growth;
}

/* Linux's window_update: the growth over the last window, the part of the
 * window before its start interpolated from the previous window's growth
 * (stall time only grows, and nearly linearly over a short window). */
static u64 window_update(struct psi_window *win, u64 now, u64 value)
{
	u64 elapsed = now - win->start_time;
	u64 growth = value - win->start_value;
	if (elapsed > win->size) {
		window_reset(win, now, value, growth);
	} else {
		u64 remaining = win->size - elapsed;
		growth += win->prev_growth * remaining / win->size;
	}
	return growth;
}

static void init_triggers(struct psi_group *group, u64 now)
{
	struct psi_trigger *t;
	list_for_each_entry(t, &group->triggers, node)
		window_reset(&t->win, now, group->total[PSI_POLL][t->state], 0);
	memcpy(group->polling_total, group->total[PSI_POLL], sizeof(group->polling_total));
	group->polling_next_update = now + group->poll_min_period;
}

/* Linux 6.1's update_triggers: for each trigger whose state had new stall
 * time, the window's growth against the threshold; an event at most once
 * per window, a breach inside the rate limit kept pending. */
static u64 update_triggers(struct psi_group *group, u64 now)
{
	struct psi_trigger *t;
	bool update_total = false;
	u64 *total = group->total[PSI_POLL];

	list_for_each_entry(t, &group->triggers, node) {
		bool new_stall = group->polling_total[t->state] != total[t->state];
		if (!new_stall && !t->pending_event)
			continue;
		if (new_stall) {
			update_total = true;
			u64 growth = window_update(&t->win, now, total[t->state]);
			if (!t->pending_event) {
				if (growth < t->threshold)
					continue;
				t->pending_event = true;
			}
		}
		if (now < t->last_event_time + t->win.size)
			continue;
		int idle = 0;
		if (__atomic_compare_exchange_n(&t->event, &idle, 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			wake_up_interruptible_poll(&t->event_wait, EPOLLPRI);
		t->last_event_time = now;
		t->pending_event = false;
	}
	if (update_total)
		memcpy(group->polling_total, total, sizeof(group->polling_total));
	return now + group->poll_min_period;
}

void psi_schedule_poll_work(struct psi_group *group, u64 delay, bool force)
{
	/* The exchange is a full barrier (see psi_poll_work). */
	if (__atomic_exchange_n(&group->poll_scheduled, 1, __ATOMIC_SEQ_CST) && !force)
		return;
	if (READ_ONCE(group->poll_states))
		WRITE_ONCE(group->poll_work_due, jiffies + (delay ? delay : 1));
	else
		__atomic_store_n(&group->poll_scheduled, 0, __ATOMIC_SEQ_CST);
}

/* Linux's psi_poll_work, under trigger_lock. */
static void psi_poll_work(struct psi_group *group)
{
	bool force_reschedule = false;
	u32 changed_states;
	u64 now = psi_group_clock(group);

	if (now > group->polling_until) {
		/* About to start, or to stop unless a change was seen: a task
		 * change from now on schedules the poll again (the exchange in
		 * psi_schedule_poll_work against this store and the loads of
		 * the states below). */
		__atomic_store_n(&group->poll_scheduled, 0, __ATOMIC_SEQ_CST);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	} else {
		force_reschedule = true; /* the polling window is not over */
	}

	psi_collect_percpu_times(group, PSI_POLL, &changed_states);
	if (changed_states & group->poll_states) {
		if (now > group->polling_until)
			init_triggers(group, now);
		/* Active for ten windows after the last change it saw. */
		group->polling_until = now + group->poll_min_period * UPDATES_PER_WINDOW;
	}
	if (now > group->polling_until) {
		group->polling_next_update = ~0ull;
		return;
	}
	if (now >= group->polling_next_update)
		group->polling_next_update = update_triggers(group, now);
	psi_schedule_poll_work(group, nsecs_to_jiffies(group->polling_next_update - now) + 1, force_reschedule);
}

void psi_poll_tick(struct psi_group *group)
{
	u64 due = READ_ONCE(group->poll_work_due);
	if (!due || jiffies < due)
		return;
	spin_lock(&group->trigger_lock); /* interrupts are off in the tick */
	WRITE_ONCE(group->poll_work_due, 0);
	if (group->poll_states)
		psi_poll_work(group);
	spin_unlock(&group->trigger_lock);
}

/* "<word> <u32> <u32>": Linux's sscanf(buf, "some %u %u", ...) == 2, for
 * decimal digits (what follows the second number is ignored, as there). */
static bool parse_trigger(const char *buf, const char *word, u32 *a, u32 *b)
{
	size_t n = strlen(word);
	if (strncmp(buf, word, n))
		return false;
	const char *p = buf + n;
	u32 *out[2] = { a, b };
	for (int i = 0; i < 2; i++) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p < '0' || *p > '9')
			return false;
		u64 v = 0;
		while (*p >= '0' && *p <= '9') {
			v = v * 10 + (u64)(*p++ - '0');
			if (v > 0xffffffffull)
				return false;
		}
		*out[i] = (u32)v;
	}
	return true;
}

struct psi_trigger *psi_trigger_create(struct psi_group *group, const char *buf, enum psi_res res, int *err)
{
	u32 threshold_us, window_us;
	enum psi_states state;

	*err = -EINVAL;
	if (parse_trigger(buf, "some", &threshold_us, &window_us))
		state = (enum psi_states)(PSI_IO_SOME + res * 2);
	else if (parse_trigger(buf, "full", &threshold_us, &window_us))
		state = (enum psi_states)(PSI_IO_FULL + res * 2);
	else
		return NULL;
	if (state >= PSI_NONIDLE)
		return NULL;
	if (window_us < WINDOW_MIN_US || window_us > WINDOW_MAX_US)
		return NULL;
	if (threshold_us == 0 || threshold_us > window_us)
		return NULL;

	struct psi_trigger *t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		*err = -ENOMEM;
		return NULL;
	}
	t->group = group;
	t->state = state;
	t->threshold = (u64)threshold_us * 1000;
	t->win.size = (u64)window_us * 1000;
	init_waitqueue_head(&t->event_wait);

	unsigned long flags;
	spin_lock_irqsave(&group->trigger_lock, flags);
	window_reset(&t->win, psi_group_clock(group), group->total[PSI_POLL][t->state], 0);
	list_add(&t->node, &group->triggers);
	u64 period = t->win.size / UPDATES_PER_WINDOW;
	if (period < group->poll_min_period)
		group->poll_min_period = period;
	group->nr_triggers[t->state]++;
	group->poll_states |= 1u << t->state;
	spin_unlock_irqrestore(&group->trigger_lock, flags);
	*err = 0;
	return t;
}

void psi_trigger_destroy(struct psi_trigger *t)
{
	if (!t)
		return;
	struct psi_group *group = t->group;
	/* Pollers see EPOLLERR from now on (the file's trigger is gone). */
	wake_up_interruptible(&t->event_wait);
	unsigned long flags;
	spin_lock_irqsave(&group->trigger_lock, flags);
	list_del(&t->node);
	if (!--group->nr_triggers[t->state])
		group->poll_states &= ~(1u << t->state);
	u64 period = ~0u;
	struct psi_trigger *tmp;
	list_for_each_entry(tmp, &group->triggers, node)
		if (tmp->win.size / UPDATES_PER_WINDOW < period)
			period = tmp->win.size / UPDATES_PER_WINDOW;
	group->poll_min_period = period;
	if (!group->poll_states) {
		/* The last one: no more polling (Linux stops psimon). */
		group->polling_until = 0;
		group->polling_next_update = ~0ull;
		WRITE_ONCE(group->poll_work_due, 0);
		__atomic_store_n(&group->poll_scheduled, 0, __ATOMIC_SEQ_CST);
	}
	spin_unlock_irqrestore(&group->trigger_lock, flags);
	kfree(t);
}

unsigned int psi_trigger_poll(struct psi_trigger *t, struct file *file, struct poll_table_struct *wait)
{
	unsigned int ret = DEFAULT_POLLMASK;
	if (!t)
		return DEFAULT_POLLMASK | EPOLLERR | EPOLLPRI;
	poll_wait(file, &t->event_wait, wait);
	int fired = 1;
	if (__atomic_compare_exchange_n(&t->event, &fired, 0, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		ret |= EPOLLPRI;
	return ret;
}
