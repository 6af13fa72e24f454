/* The XArray's normal API (Linux's lib/xarray.c): each call one xa_state
 * walk, readers under rcu_read_lock, writers under xa_lock (the __xa_
 * forms want it held), and a store that lacked a node retries after
 * __xas_nomem allocated one with the caller's gfp (lock dropped if it may
 * sleep). */
#include "lib/xarray.h"

void *xa_load(struct xarray *xa, unsigned long index)
{
	XA_STATE(xas, xa, index);
	void *entry;
	rcu_read_lock();
	do {
		entry = xas_load(&xas);
		if (xa_is_zero(entry))
			entry = NULL;
	} while (xas_retry(&xas, entry));
	rcu_read_unlock();
	return entry;
}

/* What a normal call returns: the old entry (a reserved slot read as
 * NULL), or the error as an entry. */
static void *xas_result(struct xa_state *xas, void *curr)
{
	if (xa_is_zero(curr))
		return NULL;
	if (xas_error(xas))
		curr = xas->xa_node;
	return curr;
}

void *__xa_erase(struct xarray *xa, unsigned long index)
{
	XA_STATE(xas, xa, index);
	return xas_result(&xas, xas_store(&xas, NULL));
}

void *xa_erase(struct xarray *xa, unsigned long index)
{
	xa_lock(xa);
	void *entry = __xa_erase(xa, index);
	xa_unlock(xa);
	return entry;
}

void *__xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	XA_STATE(xas, xa, index);
	void *curr;
	if (xa_is_advanced(entry))
		return XA_ERROR(-EINVAL);
	do {
		curr = xas_store(&xas, entry);
	} while (__xas_nomem(&xas, gfp));
	return xas_result(&xas, curr);
}

void *xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	xa_lock(xa);
	void *curr = __xa_store(xa, index, entry, gfp);
	xa_unlock(xa);
	return curr;
}

void *__xa_cmpxchg(struct xarray *xa, unsigned long index, void *old, void *entry, gfp_t gfp)
{
	XA_STATE(xas, xa, index);
	void *curr;
	if (xa_is_advanced(entry))
		return XA_ERROR(-EINVAL);
	do {
		curr = xas_load(&xas);
		if (curr == old)
			xas_store(&xas, entry);
	} while (__xas_nomem(&xas, gfp));
	return xas_result(&xas, curr);
}

void *xa_cmpxchg(struct xarray *xa, unsigned long index, void *old, void *entry, gfp_t gfp)
{
	xa_lock(xa);
	void *curr = __xa_cmpxchg(xa, index, old, entry, gfp);
	xa_unlock(xa);
	return curr;
}

int __xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	XA_STATE(xas, xa, index);
	if (xa_is_advanced(entry))
		return -EINVAL;
	/* Inserting NULL reserves the slot, as Linux's. */
	if (!entry)
		entry = XA_ZERO_ENTRY;
	do {
		if (!xas_load(&xas))
			xas_store(&xas, entry);
		else
			xas_set_err(&xas, -EBUSY);
	} while (__xas_nomem(&xas, gfp));
	return xas_error(&xas);
}

int xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	xa_lock(xa);
	int err = __xa_insert(xa, index, entry, gfp);
	xa_unlock(xa);
	return err;
}

bool xa_get_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	XA_STATE(xas, xa, index);
	bool marked = false;
	rcu_read_lock();
	void *entry = xas_load(&xas);
	if (entry && !xa_is_node(entry))
		marked = xas_get_mark(&xas, mark);
	rcu_read_unlock();
	return marked;
}

void __xa_set_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	XA_STATE(xas, xa, index);
	if (xas_load(&xas))
		xas_set_mark(&xas, mark);
}

void __xa_clear_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	XA_STATE(xas, xa, index);
	if (xas_load(&xas))
		xas_clear_mark(&xas, mark);
}

void xa_set_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	xa_lock(xa);
	__xa_set_mark(xa, index, mark);
	xa_unlock(xa);
}

void xa_clear_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	xa_lock(xa);
	__xa_clear_mark(xa, index, mark);
	xa_unlock(xa);
}

/* One step of a find: marked entries, or any present one. */
static void *xas_find_filtered(struct xa_state *xas, unsigned long max, xa_mark_t filter)
{
	if (filter <= XA_MARK_MAX)
		return xas_find_marked(xas, max, filter);
	return xas_find(xas, max);
}

void *xa_find(struct xarray *xa, unsigned long *indexp, unsigned long max, xa_mark_t filter)
{
	XA_STATE(xas, xa, *indexp);
	void *entry;
	rcu_read_lock();
	do {
		entry = xas_find_filtered(&xas, max, filter);
	} while (xas_retry(&xas, entry));
	rcu_read_unlock();
	if (entry)
		*indexp = xas.xa_index;
	return entry;
}

void *xa_find_after(struct xarray *xa, unsigned long *indexp, unsigned long max, xa_mark_t filter)
{
	XA_STATE(xas, xa, *indexp + 1);
	void *entry;
	if (xas.xa_index == 0) /* *indexp was ULONG_MAX */
		return NULL;
	rcu_read_lock();
	do {
		entry = xas_find_filtered(&xas, max, filter);
	} while (xas_valid(&xas) && xas_retry(&xas, entry));
	rcu_read_unlock();
	if (entry)
		*indexp = xas.xa_index;
	return entry;
}
