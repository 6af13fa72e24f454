# mm-rcu: RCU's state (kernel/rcu.c): the grace-period sequence and every
# CPU's callback lists.
import gdb

from mmlab import utils


def cblist_len(l):
    return int(l["len"])


class MmRcu(gdb.Command):
    """Show RCU's state and pending callbacks: mm-rcu [-v]

The grace-period sequence (gp_seq: even idle, odd a grace period running),
grace periods completed, the furthest sequence a callback waits for, the
CPUs yet to report a quiescent state, callbacks queued since boot; per
online CPU its read-side nesting, the lengths of its done, wait and next
lists, the sequence its wait list waits for, and callbacks invoked. Ends
with the pending callbacks (queued - invoked) and the total in the lists.
-v lists each pending callback's function."""

    def __init__(self):
        super().__init__("mm-rcu", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        verbose = "-v" in gdb.string_to_argv(arg)
        st = utils.symbol("'kernel/rcu.c'::rcu_state")
        gp_seq = int(st["gp_seq"])
        gdb.write("gp_seq %d (%s), %d grace periods completed, gp_seq_needed %d, qsmask %#x, "
                  "%d callbacks queued\n" % (gp_seq, "grace period running" if gp_seq & 1 else "idle",
                                             gp_seq // 2, int(st["gp_seq_needed"]), int(st["qsmask"]),
                                             int(st["cbs_queued"])))
        invoked = in_lists = 0
        for cpu in utils.online_cpus():
            rdp = utils.per_cpu("'kernel/rcu.c'::rcu_data", cpu)
            nesting = int(utils.per_cpu("rcu_read_lock_nesting", cpu))
            lens = [cblist_len(rdp[n]) for n in ("done", "wait", "next")]
            invoked += int(rdp["cbs_invoked"])
            in_lists += sum(lens)
            gdb.write("cpu %d: read-side nesting %d, done %d wait %d (for gp_seq %d) next %d, "
                      "invoked %d\n" % (cpu, nesting, lens[0], lens[1], int(rdp["wait_snap"]), lens[2],
                                        int(rdp["cbs_invoked"])))
            if verbose:
                for n in ("done", "wait", "next"):
                    h = rdp[n]["head"]
                    while int(h):
                        gdb.write("  %s %#x %s\n" % (n, int(h), utils.symbol_name(int(h["func"]))))
                        h = h["next"]
        gdb.write("%d callbacks pending (queued - invoked), %d in the lists\n" % (
            int(st["cbs_queued"]) - invoked, in_lists))


MmRcu()
