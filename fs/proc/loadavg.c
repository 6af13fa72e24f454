/* /proc/loadavg (Linux's fs/proc/loadavg.c). */
#include "fs/proc/proc_fs.h"
#include "kernel/pid.h"
#include "kernel/sched.h"

/* Linux's loadavg_proc_show: the three averages rounded to hundredths,
 * runnable/all tasks, the last pid given. */
static void loadavg_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	unsigned long a[3];
	get_avenrun(a, FIXED_1 / 200, 0);
	seq_buf_printf(m, "%lu.%02lu %lu.%02lu %lu.%02lu %lu/%lu %d\n", LOAD_INT(a[0]), LOAD_FRAC(a[0]),
		       LOAD_INT(a[1]), LOAD_FRAC(a[1]), LOAD_INT(a[2]), LOAD_FRAC(a[2]), nr_running(), nr_kthreads(),
		       last_pid());
}

PROC_FILE(loadavg_entry, proc_root_dir, "loadavg", loadavg_show);
