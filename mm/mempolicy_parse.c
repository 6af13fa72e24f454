/* A policy from a string (Linux's mpol_parse_str, mm/mempolicy.c), for
 * tmpfs's mpol= option: "mode[=static|relative][:nodelist]", the node
 * list as bitmap_parselist takes it ("0-2,4"; mmlab does not take its
 * ":used/group" strides), every node in it one with memory. */
#include "mm/mempolicy.h"
#include "lib/string.h"

/* "a-b,c": 0 and *nodes, or -EINVAL (-ERANGE past MAX_NUMNODES). */
static int nodelist_parse(const char *s, nodemask_t *nodes)
{
	nodes_clear(*nodes);
	while (*s) {
		int a = 0, b;
		if (*s < '0' || *s > '9')
			return -EINVAL;
		for (; *s >= '0' && *s <= '9'; s++)
			if ((a = a * 10 + (*s - '0')) >= MAX_NUMNODES)
				return -ERANGE;
		b = a;
		if (*s == '-') {
			s++;
			if (*s < '0' || *s > '9')
				return -EINVAL;
			for (b = 0; *s >= '0' && *s <= '9'; s++)
				if ((b = b * 10 + (*s - '0')) >= MAX_NUMNODES)
					return -ERANGE;
			if (b < a)
				return -EINVAL;
		}
		for (int n = a; n <= b; n++)
			node_set(n, *nodes);
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			return -EINVAL;
	}
	return 0;
}

int mpol_parse_str(char *str, struct mempolicy **mpol)
{
	char *nodelist = strchr(str, ':'), *flags = strchr(str, '=');
	nodemask_t nodes = NODE_MASK_NONE;
	struct mempolicy *new = NULL;
	int err = 1, mode;
	if (flags)
		*flags++ = 0;
	if (nodelist) {
		*nodelist++ = 0;
		nodemask_t memory = node_states_memory();
		if (nodelist_parse(nodelist, &nodes) || !nodes_subset(nodes, memory))
			goto out;
	}
	for (mode = 0; mode < MPOL_MAX && strcmp(str, policy_modes[mode]); mode++)
		;
	switch (mode) {
	case MPOL_MAX:
		goto out;
	case MPOL_PREFERRED:
		/* One node only, and not none. */
		if (nodelist) {
			const char *rest = nodelist;
			while (*rest >= '0' && *rest <= '9')
				rest++;
			if (*rest || nodes_empty(nodes))
				goto out;
		}
		break;
	case MPOL_INTERLEAVE:
	case MPOL_WEIGHTED_INTERLEAVE:
		if (!nodelist) /* every node with memory */
			nodes = node_states_memory();
		break;
	case MPOL_LOCAL:
		if (nodelist)
			goto out;
		break;
	case MPOL_DEFAULT:
		if (!nodelist)
			err = 0;
		goto out;
	case MPOL_PREFERRED_MANY:
	case MPOL_BIND:
		if (!nodelist)
			goto out;
		break;
	}
	unsigned short mode_flags = 0;
	if (flags) {
		if (!strcmp(flags, "static"))
			mode_flags = MPOL_F_STATIC_NODES;
		else if (!strcmp(flags, "relative"))
			mode_flags = MPOL_F_RELATIVE_NODES;
		else
			goto out;
	}
	int e;
	new = mpol_new((unsigned short)mode, mode_flags, &nodes, &e);
	if (e || !new)
		goto out;
	if (mode != MPOL_PREFERRED)
		new->nodes = nodes;
	else if (nodelist)
		new->nodes = nodemask_of_node(first_node(nodes));
	else
		new->mode = MPOL_LOCAL;
	new->user_nodemask = nodes;
	err = 0;
out:
	if (nodelist)
		*--nodelist = ':';
	if (flags)
		*--flags = '=';
	if (!err)
		*mpol = new;
	return err;
}
