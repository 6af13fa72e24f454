/* A QEMU TCG plugin that counts, for every translation block the guest
 * runs, how often it ran: the guest's instruction profile, exact and
 * without sampling. Loaded by tools/tcg-profile/run (QEMU's -plugin);
 * at exit it writes one line per block, "vaddr executions instructions",
 * to the file named by its argument out=FILE, which report.py folds into
 * functions of build/kernel.elf.
 *
 * The few declarations below are QEMU's plugin API (include/qemu/
 * qemu-plugin.h, API version 1, QEMU 4.2 to 8.x); the counts are QEMU's
 * inline adds, not atomic: with one TCG thread per vCPU two vCPUs running
 * one block at once may lose a count. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct {
	const char *target_name;
	struct { int min, cur; } version;
	int system_emulation;
} qemu_info_t;
typedef void (*tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb_t)(qemu_plugin_id_t id, void *userdata);
enum { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, int op, void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb_t cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* One record per (start address, length): a block translated again (after
 * a TLB flush or a code change) counts into the same record. */
struct block {
	uint64_t vaddr;
	uint64_t n_insns;
	uint64_t count;
};

static struct block *table;
static size_t table_size = 1u << 20; /* slots; a power of two */
static size_t used;
static const char *out_path = "tb_count.out";

static struct block *lookup(uint64_t vaddr, uint64_t n)
{
	size_t mask = table_size - 1;
	size_t i = (size_t)((vaddr ^ (n << 48)) * 0x9e3779b97f4a7c15ull >> 20) & mask;
	for (;; i = (i + 1) & mask) {
		struct block *b = &table[i];
		if (!b->n_insns) {
			if (used + 1 > table_size / 2)
				return NULL; /* full enough: stop recording new blocks */
			used++;
			b->vaddr = vaddr;
			b->n_insns = n;
			return b;
		}
		if (b->vaddr == vaddr && b->n_insns == n)
			return b;
	}
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	struct block *b = lookup(qemu_plugin_tb_vaddr(tb), qemu_plugin_tb_n_insns(tb));
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->count, 1);
}

static void write_counts(qemu_plugin_id_t id, void *unused)
{
	(void)id;
	(void)unused;
	FILE *f = fopen(out_path, "w");
	if (!f) {
		perror(out_path);
		return;
	}
	for (size_t i = 0; i < table_size; i++)
		if (table[i].count)
			fprintf(f, "%llx %llu %llu\n", (unsigned long long)table[i].vaddr,
				(unsigned long long)table[i].count, (unsigned long long)table[i].n_insns);
	fclose(f);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
							       int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	table = calloc(table_size, sizeof(*table));
	if (!table)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, write_counts, NULL);
	return 0;
}
