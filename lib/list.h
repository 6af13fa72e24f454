/* Circular doubly linked lists, as Linux's <linux/list.h>. */
#ifndef LIB_LIST_H
#define LIB_LIST_H

#include "kernel/types.h"

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *l) { l->next = l->prev = l; }
static inline bool list_empty(const struct list_head *l) { return l->next == l; }
static inline bool list_is_singular(const struct list_head *l) { return !list_empty(l) && l->next == l->prev; }

static inline void __list_add(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}
static inline void list_add(struct list_head *n, struct list_head *head) { __list_add(n, head, head->next); }
static inline void list_add_tail(struct list_head *n, struct list_head *head) { __list_add(n, head->prev, head); }
static inline void list_del(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	e->next = e->prev = NULL;
}
/* Linux's __list_del_entry: unlinks e and leaves its links as they were,
 * for a caller that overwrites them or never reads them again (two stores
 * fewer than list_del). */
static inline void __list_del_entry(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
}
static inline void list_move(struct list_head *e, struct list_head *head)
{
	list_del(e);
	list_add(e, head);
}

/* Moves every entry of list to the front of head; list is left empty. */
static inline void list_splice_init(struct list_head *list, struct list_head *head)
{
	if (list_empty(list))
		return;
	struct list_head *first = list->next, *last = list->prev, *at = head->next;
	first->prev = head;
	head->next = first;
	last->next = at;
	at->prev = last;
	INIT_LIST_HEAD(list);
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_first_entry_or_null(head, type, member) \
	(list_empty(head) ? NULL : list_first_entry(head, type, member))
#define list_for_each(pos, head) for (pos = (head)->next; pos != (head); pos = pos->next)
#define list_for_each_safe(pos, n, head) for (pos = (head)->next, n = pos->next; pos != (head); pos = n, n = pos->next)
#define list_for_each_entry(pos, head, member)                                     \
	for (pos = list_entry((head)->next, __typeof__(*pos), member); &pos->member != (head); \
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_safe(pos, n, head, member)                             \
	for (pos = list_entry((head)->next, __typeof__(*pos), member),             \
	    n = list_entry(pos->member.next, __typeof__(*pos), member);            \
	     &pos->member != (head); pos = n, n = list_entry(n->member.next, __typeof__(*n), member))
#define list_for_each_entry_reverse(pos, head, member)                             \
	for (pos = list_entry((head)->prev, __typeof__(*pos), member); &pos->member != (head); \
	     pos = list_entry(pos->member.prev, __typeof__(*pos), member))
#define list_for_each_entry_safe_reverse(pos, n, head, member)                     \
	for (pos = list_entry((head)->prev, __typeof__(*pos), member),             \
	    n = list_entry(pos->member.prev, __typeof__(*pos), member);            \
	     &pos->member != (head); pos = n, n = list_entry(n->member.prev, __typeof__(*n), member))

#endif
