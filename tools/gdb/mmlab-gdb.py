# Loads mmlab's gdb helpers (tools/gdb/mmlab/) by hand:
# `source tools/gdb/mmlab-gdb.py` in gdb. build/kernel.elf-gdb.py (made by
# tools/gdb/gdb.mk) does the same when gdb opens build/kernel.elf and trusts
# that script (add-auto-load-safe-path; make debug does it). docs/gdb.md
# lists the commands.
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
if _here not in sys.path:
    sys.path.insert(0, _here)

import mmlab  # noqa: E402

mmlab.announce()
