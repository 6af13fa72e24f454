#include "kernel/ksyms.h"
#include "lib/string.h"

/* Defined by the generated build/ksyms.c: sorted by address. */
extern const struct ksym ksym_table[];
extern const u32 ksym_table_count;
extern const char ksym_names[];

const char *ksym_lookup(u64 addr, u64 *offset, u64 *size)
{
	u32 lo = 0, hi = ksym_table_count;

	/* Last symbol whose address is <= addr. */
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		if (ksym_table[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct ksym *s = &ksym_table[lo - 1];
	u64 sz = s->size;
	if (sz == 0 && lo < ksym_table_count)
		sz = ksym_table[lo].addr - s->addr;
	if (addr - s->addr >= sz)
		return NULL;
	*offset = addr - s->addr;
	*size = sz;
	return &ksym_names[s->name_offset];
}

u64 ksym_address(const char *name)
{
	for (u32 i = 0; i < ksym_table_count; i++)
		if (!strcmp(&ksym_names[ksym_table[i].name_offset], name))
			return ksym_table[i].addr;
	return 0;
}

size_t ksym_count(void)
{
	return ksym_table_count;
}
