# mm-ps: processes and threads (kernel/pid.c's table), and what each CPU
# runs (kernel/sched.c's run queues).
import gdb

from mmlab import utils


def state_str(state):
    c = utils.const
    if state == c("TASK_RUNNING"):
        return "R"
    for letter, name in (("S", "TASK_INTERRUPTIBLE"), ("D", "TASK_UNINTERRUPTIBLE"), ("T", "__TASK_STOPPED"),
                         ("X", "TASK_DEAD")):
        if state & c(name):
            return letter
    return "?%#x" % state


def task_line(t):
    return ("%5d %5d %-16s %-2s cpu %-2d mm %#018x %s" % (
        int(t["pid"]), int(t["tgid"]), utils.cstr(t["comm"]), state_str(int(t["__state"])),
        int(t["cpu"]), int(t["mm"]), "" if int(t["mm"]) else "kernel thread")).rstrip()


class MmPs(gdb.Command):
    """Show processes, threads and what each CPU runs: mm-ps

The user threads of the pid table (pid, tgid: the process, comm, state
R/S/D/X, the CPU, the mm), grouped by process; then for each online CPU
its current task, its idle task and the tasks queued on its run queue
(kernel threads included)."""

    def __init__(self):
        super().__init__("mm-ps", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        gdb.write("%5s %5s %-16s %-2s %-6s %s\n" % ("pid", "tgid", "comm", "st", "cpu", "mm"))
        for t in sorted(utils.all_user_tasks(), key=lambda t: (int(t["tgid"]), int(t["pid"]))):
            gdb.write(task_line(t) + "\n")
        for cpu in utils.online_cpus():
            rq = utils.per_cpu("'kernel/sched.c'::runqueues", cpu)
            curr = utils.per_cpu("current_task", cpu)
            gdb.write("cpu %d: current %s (pid %d), idle %s, %d queued, %d switches\n" % (
                cpu, utils.cstr(curr["comm"]), int(curr["pid"]), utils.cstr(rq["idle"]["comm"]),
                int(rq["nr_queued"]), int(rq["nr_switches"])))
            for t in utils.list_for_each_entry(rq["queue"], "struct task_struct", "run_list"):
                gdb.write("  queued: " + task_line(t) + "\n")


MmPs()
