/* Job control with a terminal (Linux's drivers/tty/tty_jobctrl.c): the
 * controlling terminal of a session, its foreground process group, the
 * background groups' SIGTTIN and SIGTTOU, and the ioctls that set them.
 *
 * A terminal's session and foreground group are ids of one process tree
 * (tty->session_root; kernel/signal.h: each tree numbers its processes
 * as a pid namespace does). Invariant: tty->session != 0 exactly when
 * some process of that session has signal->tty == tty, and then
 * session_root holds a reference on that tree's root. Locking:
 * tasklist_lock (kernel/signal.h) around signal->tty of other processes
 * and the walks of a tree, ctrl_lock inside it around tty->pgrp,
 * session and session_root. */
#include "drivers/tty/tty_struct.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fs.h"
#include "kernel/cred.h"
#include "kernel/pid.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/signal.h"

struct tty_struct *get_current_tty(void)
{
	struct signal_struct *sig = current->signal;
	return sig ? READ_ONCE(sig->tty) : NULL;
}

/* The foreground group and its tree, with a reference on the root; 0
 * when there is none. */
static int tty_get_pgrp(struct tty_struct *tty, struct task_struct **root)
{
	spin_lock(&tty->ctrl_lock);
	int pgrp = tty->pgrp;
	*root = tty->session_root;
	if (*root)
		get_task_struct(*root);
	spin_unlock(&tty->ctrl_lock);
	return pgrp;
}

bool tty_signal_pgrp(struct tty_struct *tty, int sig)
{
	struct task_struct *root;
	int pgrp = tty_get_pgrp(tty, &root);
	bool sent = false;
	if (root) {
		sent = pgrp && kill_pgrp(root, pgrp, sig);
		put_task_struct(root);
	}
	return sent;
}

/* Linux's is_ignored: sig blocked by the caller or ignored by its
 * process. */
static bool is_ignored(int sig)
{
	return (current->blocked >> (sig - 1) & 1) ||
	       current->sighand->action[sig - 1].sa.sa_handler == SIG_IGN;
}

int __tty_check_change(struct tty_struct *tty, int sig)
{
	struct signal_struct *me = current->signal;
	if (!me || READ_ONCE(me->tty) != tty)
		return 0;
	spin_lock(&tty->ctrl_lock);
	int tty_pgrp = tty->pgrp;
	spin_unlock(&tty->ctrl_lock);
	int ret = 0;
	if (tty_pgrp && READ_ONCE(me->pgrp) != tty_pgrp) {
		if (is_ignored(sig)) {
			if (sig == SIGTTIN)
				ret = -EIO;
		} else if (is_current_pgrp_orphaned()) {
			ret = -EIO;
		} else {
			kill_pgrp(me->child_reaper, READ_ONCE(me->pgrp), sig);
			ret = -ERESTARTSYS;
		}
	}
	return ret;
}

int tty_check_change(struct tty_struct *tty)
{
	return __tty_check_change(tty, SIGTTOU);
}

/* Linux's __proc_set_tty: tty becomes current's controlling terminal,
 * its session current's and its foreground group current's. Under
 * tasklist_lock; returns the old root reference for the caller to drop. */
static struct task_struct *proc_set_tty_locked(struct tty_struct *tty)
{
	struct signal_struct *sig = current->signal;
	spin_lock(&tty->ctrl_lock);
	struct task_struct *old = tty->session_root;
	tty->session = sig->session;
	tty->pgrp = sig->pgrp;
	tty->session_root = sig->child_reaper;
	get_task_struct(tty->session_root);
	spin_unlock(&tty->ctrl_lock);
	WRITE_ONCE(sig->tty, tty);
	sig->tty_old_pgrp = 0;
	return old;
}

/* Linux's session_clear_tty: no process of the session has a
 * controlling terminal any more. Under tasklist_lock. */
static void session_clear_tty_locked(struct task_struct *root, int session)
{
	struct task_struct *p;
	list_for_each_entry(p, &root->signal->tree_tasks, tasks)
		if (p->signal->session == session)
			WRITE_ONCE(p->signal->tty, NULL);
}

/* tty is nobody's controlling terminal: returns the root reference for
 * the caller to drop. */
static struct task_struct *tty_clear_session(struct tty_struct *tty)
{
	spin_lock(&tty->ctrl_lock);
	struct task_struct *root = tty->session_root;
	tty->session = tty->pgrp = 0;
	tty->session_root = NULL;
	spin_unlock(&tty->ctrl_lock);
	return root;
}

void tty_open_proc_set_tty(struct file *f, struct tty_struct *tty)
{
	struct signal_struct *sig = current->signal;
	struct task_struct *old = NULL;
	if (!sig)
		return;
	spin_lock(&tasklist_lock);
	/* Linux's: a process with write access only does not get the
	 * privileges of a controlling terminal. */
	if (sig->leader && !sig->tty && !READ_ONCE(tty->session) && (f->f_mode & FMODE_READ))
		old = proc_set_tty_locked(tty);
	spin_unlock(&tasklist_lock);
	if (old)
		put_task_struct(old);
}

void proc_tty_ids(struct signal_struct *sig, unsigned int *tty_nr, int *tpgid)
{
	*tty_nr = 0;
	*tpgid = -1;
	struct tty_struct *tty = sig ? READ_ONCE(sig->tty) : NULL;
	if (!tty)
		return;
	*tpgid = READ_ONCE(tty->pgrp);
	*tty_nr = (tty->minor & 0xff) | (tty->major << 8) | ((tty->minor & ~0xffu) << 12);
}

void proc_clear_tty(struct task_struct *p)
{
	spin_lock(&tasklist_lock);
	WRITE_ONCE(p->signal->tty, NULL);
	spin_unlock(&tasklist_lock);
}

/* The hangup half of tty_vhangup that concerns sessions (Linux's
 * tty_signal_session_leader): the session's processes lose the terminal,
 * its leader gets SIGHUP and SIGCONT and remembers the foreground group;
 * with exit_session the foreground group gets SIGHUP. */
void tty_hangup_session(struct tty_struct *tty, bool exit_session)
{
	struct task_struct *root;
	spin_lock(&tty->ctrl_lock);
	int session = tty->session, pgrp = tty->pgrp;
	root = tty->session_root;
	if (root)
		get_task_struct(root);
	spin_unlock(&tty->ctrl_lock);
	if (!root)
		return;
	spin_lock(&tasklist_lock);
	struct task_struct *p, *leader = NULL;
	if (!root->signal->tree_dead) {
		list_for_each_entry(p, &root->signal->tree_tasks, tasks) {
			if (p->signal->session != session || p->exit_state)
				continue;
			if (p->signal->tty == tty)
				WRITE_ONCE(p->signal->tty, NULL);
			if (p->signal->leader) {
				p->signal->tty_old_pgrp = pgrp;
				leader = p;
			}
		}
	}
	if (leader)
		get_task_struct(leader);
	spin_unlock(&tasklist_lock);
	if (leader) {
		struct kernel_siginfo info = { .si_signo = SIGHUP, .si_code = SI_KERNEL };
		send_signal(SIGHUP, &info, leader, true);
		info.si_signo = SIGCONT;
		send_signal(SIGCONT, &info, leader, true);
		put_task_struct(leader);
	}
	if (exit_session && pgrp)
		kill_pgrp(root, pgrp, SIGHUP);
	put_task_struct(root);
	root = tty_clear_session(tty);
	if (root)
		put_task_struct(root);
}

void disassociate_ctty(bool on_exit)
{
	struct signal_struct *sig = current->signal;
	if (!sig || !sig->leader)
		return;
	struct tty_struct *tty = get_current_tty();
	if (tty) {
		if (on_exit) {
			tty_vhangup(tty, true);
		} else {
			struct task_struct *root;
			int pgrp = tty_get_pgrp(tty, &root);
			if (root) {
				if (pgrp) {
					kill_pgrp(root, pgrp, SIGHUP);
					kill_pgrp(root, pgrp, SIGCONT);
				}
				put_task_struct(root);
			}
		}
	} else if (on_exit) {
		spin_lock(&tasklist_lock);
		int old = sig->tty_old_pgrp;
		sig->tty_old_pgrp = 0;
		spin_unlock(&tasklist_lock);
		if (old) {
			kill_pgrp(sig->child_reaper, old, SIGHUP);
			kill_pgrp(sig->child_reaper, old, SIGCONT);
		}
		return;
	}
	tty = get_current_tty();
	struct task_struct *root = NULL;
	spin_lock(&tasklist_lock);
	sig->tty_old_pgrp = 0;
	if (tty)
		root = tty_clear_session(tty);
	session_clear_tty_locked(sig->child_reaper, sig->session);
	spin_unlock(&tasklist_lock);
	if (root)
		put_task_struct(root);
}

/* Linux's tiocsctty: a session leader without a terminal takes tty;
 * one that is another session's only with arg 1 and CAP_SYS_ADMIN
 * (stealing it from that session). */
static int tiocsctty(struct tty_struct *tty, struct file *f, int arg)
{
	struct signal_struct *sig = current->signal;
	struct task_struct *old = NULL;
	int ret = 0;
	spin_lock(&tasklist_lock);
	if (sig->leader && READ_ONCE(tty->session) == sig->session && tty->session_root == sig->child_reaper)
		goto unlock; /* already its controlling terminal */
	if (!sig->leader || sig->tty) {
		ret = -EPERM;
		goto unlock;
	}
	if (READ_ONCE(tty->session)) {
		if (arg == 1 && capable(CAP_SYS_ADMIN)) {
			struct task_struct *r = tty->session_root;
			if (!r->signal->tree_dead)
				session_clear_tty_locked(r, tty->session);
		} else {
			ret = -EPERM;
			goto unlock;
		}
	}
	if (!(f->f_mode & FMODE_READ) && !capable(CAP_SYS_ADMIN)) {
		ret = -EPERM;
		goto unlock;
	}
	old = proc_set_tty_locked(tty);
unlock:
	spin_unlock(&tasklist_lock);
	if (old)
		put_task_struct(old);
	return ret;
}

/* Whether some process of current's tree is in group pgrp (or, there
 * being none, has pid pgrp) and in current's session: Linux's
 * session_of_pgrp compared. -ESRCH when no such group or process. */
static int pgrp_session_check(int pgrp)
{
	struct signal_struct *me = current->signal;
	struct task_struct *p, *by_pid = NULL, *in_group = NULL;
	spin_lock(&tasklist_lock);
	list_for_each_entry(p, &me->child_reaper->signal->tree_tasks, tasks) {
		if (p->exit_state)
			continue;
		if (p->signal->pgrp == pgrp && !in_group)
			in_group = p;
		if (p->tgid == pgrp)
			by_pid = p;
	}
	p = in_group ? in_group : by_pid;
	int ret = !p ? -ESRCH : p->signal->session != me->session ? -EPERM : 0;
	spin_unlock(&tasklist_lock);
	return ret;
}

/* Linux's tiocspgrp. */
static int tiocspgrp(struct tty_struct *tty, const int *p)
{
	int ret = tty_check_change(tty);
	if (ret == -EIO)
		return -ENOTTY;
	if (ret)
		return ret;
	u32 nr;
	if (get_user_u32(&nr, p))
		return -EFAULT;
	int pgrp = (int)nr;
	if (pgrp < 0)
		return -EINVAL;
	struct signal_struct *me = current->signal;
	if (get_current_tty() != tty || READ_ONCE(tty->session) != me->session)
		return -ENOTTY;
	ret = pgrp_session_check(pgrp);
	if (ret)
		return ret;
	spin_lock(&tty->ctrl_lock);
	tty->pgrp = pgrp;
	spin_unlock(&tty->ctrl_lock);
	return 0;
}

long tty_jobctrl_ioctl(struct tty_struct *tty, struct file *f, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case TIOCNOTTY:
		if (get_current_tty() != tty)
			return -ENOTTY;
		/* Linux's no_tty. */
		if (current->signal->leader)
			disassociate_ctty(false);
		proc_clear_tty(current);
		return 0;
	case TIOCSCTTY:
		return tiocsctty(tty, f, (int)arg);
	case TIOCGPGRP:
		if (get_current_tty() != tty)
			return -ENOTTY;
		return put_user_u32((u32)READ_ONCE(tty->pgrp), (void *)arg) ? -EFAULT : 0;
	case TIOCSPGRP:
		return tiocspgrp(tty, (const int *)arg);
	case TIOCGSID: {
		if (get_current_tty() != tty)
			return -ENOTTY;
		int sid = READ_ONCE(tty->session);
		if (!sid)
			return -ENOTTY;
		return put_user_u32((u32)sid, (void *)arg) ? -EFAULT : 0;
	}
	default:
		return -ENOIOCTLCMD;
	}
}
