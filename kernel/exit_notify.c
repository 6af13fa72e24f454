/* The end of a process told to its family (Linux's kernel/exit.c:
 * exit_notify, forget_original_parent, reparent_leader, find_new_reaper,
 * do_notify_parent, zap_pid_ns_processes): its children go to their new
 * parent (the nearest child subreaper, else its tree's root), their
 * parent-death signals fire, a process group it leaves orphaned with a
 * stopped process gets SIGHUP and SIGCONT, its parent gets exit_signal,
 * and the end of a tree's root kills the rest of its tree. The thread
 * ending is kernel/exit.c's.
 *
 * Locking: all of it under tasklist_lock (the process tree), with the
 * parent's sighand->siglock taken inside it to look at its SIGCHLD
 * action; nothing here sleeps under the lock (a sigqueue allocated
 * under it is GFP_ATOMIC). */
#include "kernel/process.h"
#include "kernel/pid.h"
#include "kernel/signal.h"
#include "kernel/time.h"
#include "lib/string.h"
#include "mm/slab.h"
#include "mm/util.h"

int process_wait_status(const struct signal_struct *sig)
{
	const struct process_result *r = &sig->result;
	if (r->killed)
		return r->signal | (r->core_dumped ? 0x80 : 0);
	return (r->exit_code & 0xff) << 8;
}

void process_siginfo(const struct task_struct *p, struct kernel_siginfo *info)
{
	const struct signal_struct *sig = p->signal;
	memset(info, 0, sizeof(*info));
	info->si_signo = SIGCHLD;
	info->chld.pid = p->tgid;
	info->chld.uid = 0;
	if (sig->result.killed) {
		info->si_code = sig->result.core_dumped ? CLD_DUMPED : CLD_KILLED;
		info->chld.status = sig->result.signal;
	} else {
		info->si_code = CLD_EXITED;
		info->chld.status = sig->result.exit_code & 0xff;
	}
	info->chld.utime = (long)nsec_to_clock_t(sig->utime);
	info->chld.stime = (long)nsec_to_clock_t(sig->stime);
}

/* Linux's do_notify_parent: tsk's process has ended; its parent gets
 * exit_signal (with q, a sigqueue the caller allocated, or NULL) and its
 * waits are woken. Returns true when nobody will wait for tsk: the parent
 * ignores SIGCHLD (SIG_IGN, or SA_NOCLDWAIT), so the kernel frees it.
 * Under tasklist_lock. */
static bool do_notify_parent(struct task_struct *tsk, struct sigqueue *q)
{
	struct task_struct *parent = tsk->real_parent;
	struct sighand_struct *psig = parent->sighand;
	struct kernel_siginfo info;
	int sig = tsk->exit_signal;
	bool autoreap = false;
	process_siginfo(tsk, &info);
	info.si_signo = sig;
	spin_lock(&psig->siglock);
	struct k_sigaction *ka = &psig->action[SIGCHLD - 1];
	if (sig == SIGCHLD && (ka->sa.sa_handler == SIG_IGN || (ka->sa.sa_flags & SA_NOCLDWAIT))) {
		autoreap = true;
		if (ka->sa.sa_handler == SIG_IGN)
			sig = 0;
	}
	spin_unlock(&psig->siglock);
	if (sig > 0 && sig <= _NSIG)
		send_signal_prealloc(sig, &info, parent, true, q);
	else
		kfree(q);
	wake_up_all(&parent->signal->wait_chldexit);
	return autoreap;
}

/* Linux's find_new_reaper: orphans go to the nearest ancestor that is a
 * child subreaper (PR_SET_CHILD_SUBREAPER) and has a thread left, else
 * to the root of the tree; to nobody when that is the one ending, or has
 * ended (the kernel frees them when they end). Under tasklist_lock: a
 * subreaper seen with threads runs its own exit_notify after this one,
 * and passes them on again. */
static struct task_struct *find_new_reaper(struct task_struct *father)
{
	struct task_struct *root = father->signal->child_reaper, *reaper;
	if (root == father || root->signal->tree_dead)
		return NULL;
	for (reaper = father->real_parent; reaper && reaper != root; reaper = reaper->real_parent)
		if (reaper->signal->is_child_subreaper && READ_ONCE(reaper->signal->nr_threads) > 0)
			return reaper;
	return root;
}

/* Linux's pdeath_signal, sent from forget_original_parent: child's
 * threads that asked (PR_SET_PDEATHSIG) have their signals sent to its
 * process, as from the ending thread. Under tasklist_lock: nothing may
 * sleep, so the siginfo's queue entry is an atomic allocation (none: the
 * signal goes without its siginfo). */
static void send_pdeath_signals(struct task_struct *child, struct task_struct *father)
{
	struct signal_struct *sig = child->signal;
	unsigned long sigs = 0;
	struct task_struct *t;
	spin_lock(&sig->siglock);
	list_for_each_entry(t, &sig->thread_head, thread_node)
		if (READ_ONCE(t->pdeath_signal))
			sigs |= sigmask(READ_ONCE(t->pdeath_signal));
	spin_unlock(&sig->siglock);
	for (int n = 1; n <= _NSIG; n++) {
		if (!(sigs & sigmask(n)))
			continue;
		struct kernel_siginfo info = { .si_signo = n, .si_code = SI_USER };
		info.rt.pid = father->tgid;
		send_signal_prealloc(n, &info, child, true, kmalloc(sizeof(struct sigqueue), GFP_ATOMIC));
	}
}

/* A thread that is not its process's last ends: the children it made
 * pass to the process (Linux's to another live thread of the group),
 * and their pdeath signals fire, as Linux's forget_original_parent for
 * that thread. */
void exit_thread_children(struct task_struct *tsk)
{
	struct task_struct *c;
	spin_lock(&tasklist_lock);
	list_for_each_entry(c, &tsk->group_leader->children, sibling) {
		if (c->parent_thread != tsk)
			continue;
		c->parent_thread = NULL;
		if (!c->exit_state)
			send_pdeath_signals(c, tsk);
	}
	spin_unlock(&tasklist_lock);
}

/* Linux's forget_original_parent + reparent_leader: father's children
 * become the new reaper's, with SIGCHLD as their exit signal; one that
 * has ended already is announced to its new parent, or freed. Under
 * tasklist_lock. */
static void forget_original_parent(struct task_struct *father, struct list_head *dead)
{
	struct task_struct *reaper = find_new_reaper(father), *c, *n;
	list_for_each_entry_safe(c, n, &father->children, sibling) {
		list_del(&c->sibling);
		INIT_LIST_HEAD(&c->sibling);
		c->real_parent = reaper;
		c->parent_thread = NULL;
		c->exit_signal = SIGCHLD;
		if (reaper)
			list_add_tail(&c->sibling, &reaper->children);
		kill_orphaned_pgrp(c, father);
		if (c->exit_state != EXIT_ZOMBIE) {
			send_pdeath_signals(c, father);
			continue;
		}
		/* Its notification has no sigqueue to go with: a SIGCHLD
		 * without its siginfo, as when Linux's queue cannot grow. */
		if (!reaper || do_notify_parent(c, NULL)) {
			c->exit_state = EXIT_DEAD;
			list_del(&c->sibling);
			INIT_LIST_HEAD(&c->sibling);
			list_add_tail(&c->thread_node, dead);
		}
	}
}

/* Linux's zap_pid_ns_processes: the root of a tree has ended; every other
 * process of the tree is killed (each is then freed by its parent's wait,
 * or by the kernel). */
static void zap_tree(struct task_struct *root)
{
	struct task_struct **procs;
	int n = collect_tree_processes(root, NULL, NULL, &procs);
	for (int i = 0; i < n; i++) {
		if (procs[i] != root) {
			struct kernel_siginfo info = { .si_signo = SIGKILL, .si_code = SI_KERNEL };
			send_signal(SIGKILL, &info, procs[i], true);
		}
		put_task_struct(procs[i]);
	}
	kvfree(procs);
}

/* Linux's exit_notify, by the last thread of leader's group: its children
 * go to their new parent, its parent is told. Returns whether the kernel
 * frees the process (nobody waits for it). */
bool exit_notify(struct task_struct *leader)
{
	LIST_HEAD(dead);
	struct sigqueue *q = kmalloc(sizeof(*q), GFP_KERNEL);
	struct signal_struct *sig = leader->signal;
	bool root = sig->child_reaper == leader, autoreap;
	spin_lock(&tasklist_lock);
	if (root)
		sig->tree_dead = true;
	forget_original_parent(leader, &dead);
	kill_orphaned_pgrp(leader, NULL);
	leader->exit_state = EXIT_ZOMBIE;
	if (leader->real_parent) {
		autoreap = do_notify_parent(leader, q);
	} else {
		/* The root waits for process_wait; an orphan of a tree that is
		 * being torn down for nobody. */
		autoreap = !root;
		kfree(q);
	}
	if (autoreap) {
		leader->exit_state = EXIT_DEAD;
		if (leader->real_parent) {
			list_del(&leader->sibling);
			INIT_LIST_HEAD(&leader->sibling);
		}
	}
	spin_unlock(&tasklist_lock);
	release_processes_later(&dead);
	if (root)
		zap_tree(leader);
	return autoreap;
}
