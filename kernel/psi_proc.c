/* /proc/pressure/: io, memory and cpu (Linux 6.1's psi_proc_init and
 * psi_show, kernel/sched/psi.c), each two lines:
 *
 *	some avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *	full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *
 * the averages in percent of wall-clock time over 10 s, 60 s and 300 s,
 * total the stall time in microseconds since boot. cpu's "full" line is
 * all zeros (undefined for the whole system, printed for the format's
 * sake, as Linux's). With psi=0 the directory is not there, as Linux
 * creates it only when PSI is enabled. */
#include "fs/proc/proc_fs.h"
#include "kernel/psi.h"
#include "lib/string.h"

/* "pressure", only while PSI is on: a family of one member. */
static bool pressure_match(const char *name, size_t len, struct task_struct *task, struct proc_node *node)
{
	(void)task;
	(void)node;
	return psi_enable && len == 8 && !memcmp(name, "pressure", 8);
}

static bool pressure_list(unsigned int i, struct task_struct *task, char *name, size_t size)
{
	(void)task;
	if (i || !psi_enable)
		return false;
	strlcpy(name, "pressure", size);
	return true;
}

static const struct proc_dir_entry proc_pressure_dir __proc_entry = {
	.parent = &proc_root_dir, .match = pressure_match, .list = pressure_list, .mode = S_IFDIR | 0555,
};

static void psi_io_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	psi_show(m, &psi_system, PSI_IO);
}

static void psi_memory_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	psi_show(m, &psi_system, PSI_MEM);
}

static void psi_cpu_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	psi_show(m, &psi_system, PSI_CPU);
}

PROC_FILE(psi_io_entry, proc_pressure_dir, "io", psi_io_show);
PROC_FILE(psi_memory_entry, proc_pressure_dir, "memory", psi_memory_show);
PROC_FILE(psi_cpu_entry, proc_pressure_dir, "cpu", psi_cpu_show);
