# User-space test and benchmark programs (tests/user/): every program is
# built ONCE, with `musl-gcc -static` (Debian's musl-tools), and that same
# file is what the ISO carries (a multiboot2 module, run as an mmlab process)
# and what the host runner runs on the host's Linux. A program that must
# tell the kernels apart asks uname(2) at run time (on_mmlab() in
# common/check.h). Some programs are also built with glibc (gcc -static,
# gcc -static-pie) from the same source, as programs of their own.
# Included from the top-level Makefile, which defines B, HOSTCC, Q and say.
#
#   USER_TEST_NAMES, USER_CRASH_NAMES, USER_BENCH_NAMES, USER_DEMO_NAMES,
#   USER_AUX_NAMES   the programs, by kind (tests/user/<kind>/<name>.c);
#                    after this file, each list also holds the glibc
#                    builds of its programs (<name>_glibc, <name>_glibc_pie)
#   USER_GLIBC_NAMES      programs also built with gcc -static (glibc),
#                         as <name>_glibc, a program of the same kind
#   USER_GLIBC_PIE_NAMES  programs also built with gcc -static-pie, as
#                         <name>_glibc_pie
#   USER_ELFS        $(B)/user/<name>.elf, every build (musl and glibc)
#   USER_HOST_TESTS  $(B)/host/user-linux-runner (runs the test and crash
#                    programs of $(B)/user on the host, prints KTAP suite
#                    "user_linux"; for the runner's --host)
#   make user-programs       builds USER_ELFS
#   make bench-user-linux    runs the bench programs on the host with
#                            --bench, figures in $(B)/bench/user-linux.txt

USER_DIR := tests/user

# Programs: tests/user/tests/<name>.c (exit 0 pass, 77 skip, else fail),
# tests/user/crash/<name>.c (must be killed by a fault),
# tests/user/bench/<name>.c (run with --bench; "bench: what: value unit"),
# tests/user/demo/<name>.c (run at boot by `make run`),
# tests/user/aux/<name>.c (started by in-kernel tests: tests/process_test.c; gdb_target
# by the gdb check, tools/gdb/gdb-check).
USER_TEST_NAMES := hello exec_script memfd blockdev swap_area swap_pageout swap_working_set swap_swapoff swap_readahead swap_oom swap_collapse swap_thp swap_fork_many swap_shmem paging_policy psi memfd_secret capabilities oom_score_adj oom mmap_basic munmap_partial mprotect_split madvise_advice brk_sbrk \
	efault procfs syscall_misc pte_table_growth threads_mm pthread_sync pthread_join100 avx2 tls \
	threads affinity futex_basic \
	arch_prctl getrandom tty_stat tty_jobctl readlink_self iov_errors auxv avx_state gsbase_kernel_half \
	process_vm mremap_basic mincore pagemap smaps overcommit_guess syscall_fuzz mempolicy shmem_policy migrate_full migrate_shared thp madv_collapse khugepaged_restore hugetlb hugetlbfs \
	vm_create mlock getrusage msync sysinfo range_checks signals access wait_status process_tree fork_basic sigwait execve fork_smaps fork_cow \
	prctl job_control rlimit_nproc tmpfs_files path_errors fd_dup cwd mmap_file sysv_shm mounts truncate_sigbus mmap_private_file proc_pids proc_kthreads proc_stat sendfile rlimit_fsize proc_thread_self proc_cmdline_remote proc_self_mem socketpair poll pipe shmem_thp shmem_fault_around shmem_maps_names shmem_align
# The shell's (docs/shell.md): Debian's BusyBox applets, reboot(2).
USER_TEST_NAMES += busybox_applets reboot
USER_CRASH_NAMES := null_write readonly_write nx_exec unmapped_write thread_fault \
	kmem_access_read kmem_access_write kmem_access_exec kmem_access_hlt kmem_access_cr3 \
	sigsegv_blocked raise_sigsegv sigreturn_bad_cs sigreturn_bad_fpstate sigreturn_xsave_reserved
USER_BENCH_NAMES := multi_fault mmap_munmap pte_table_growth_full pte_multi_fault mempolicy_fault migrate_cost fork_cost khugepaged_share compaction_frag swap_cost
USER_DEMO_NAMES := mm_tour swap_tour
USER_AUX_NAMES := exit_with spin tty_fg thread_group gs_spin bind_touch oom_hog gdb_target process_family \
	tour_pte_tables tour_thp tour_fragment

# The glibc builds: a name listed here (a program of any kind above) gets a
# program of its own, of the same kind, from the same source: glibc's
# start-up and wrappers (clock_nanosleep for nanosleep, its malloc on brk,
# ...) on mmlab.
USER_GLIBC_NAMES := hello mmap_basic syscall_misc null_write pthread_sync tls thread_fault signals fork_basic
USER_GLIBC_PIE_NAMES := hello

USER_KINDS := TEST CRASH BENCH DEMO AUX
USER_SRC_NAMES := $(foreach k,$(USER_KINDS),$(USER_$(k)_NAMES))

# A program's source is found by looking in each kind's folder; a name must
# be in exactly one of them (else which one is built would be an accident).
USER_KIND_DIRS := tests crash bench demo aux
user_srcs = $(wildcard $(patsubst %,$(USER_DIR)/%/$(1).c,$(USER_KIND_DIRS)))
user_src = $(firstword $(call user_srcs,$(1)))
$(foreach n,$(USER_SRC_NAMES),$(if $(call user_src,$(n)),,\
	$(error tests/user: no $(n).c in any of $(USER_KIND_DIRS)))$(if $(word 2,$(call user_srcs,$(n))),\
	$(error tests/user: $(n).c is in more than one folder: $(call user_srcs,$(n))))$(if \
	$(filter %_glibc %_glibc_pie,$(n)),$(error tests/user: $(n): the _glibc and _glibc_pie endings are the glibc builds' names)))
$(foreach n,$(USER_GLIBC_NAMES) $(USER_GLIBC_PIE_NAMES),$(if $(filter $(n),$(USER_SRC_NAMES)),,\
	$(error tests/user: USER_GLIBC(_PIE)_NAMES: $(n) is not a program of any kind)))

# Each kind's list gains the glibc builds of its programs (same kind, same
# verdicts), so that the ISO's module lines and the host runner see them.
$(foreach k,$(USER_KINDS),$(eval USER_$(k)_NAMES := $(USER_$(k)_NAMES) \
	$(patsubst %,%_glibc,$(filter $(USER_GLIBC_NAMES),$(USER_$(k)_NAMES))) \
	$(patsubst %,%_glibc_pie,$(filter $(USER_GLIBC_PIE_NAMES),$(USER_$(k)_NAMES)))))
USER_NAMES := $(foreach k,$(USER_KINDS),$(USER_$(k)_NAMES))

USER_ELFS := $(patsubst %,$(B)/user/%.elf,$(USER_NAMES))
USER_HOST_TESTS := $(B)/host/user-linux-runner

# One set of flags for every build; each C library adds how it links.
# musl: static, non-PIE at ld's default 0x400000 (static-PIE is a glibc
# build of its own). glibc: gcc -static (non-PIE), gcc -static-pie.
USER_MUSL_CC ?= musl-gcc
USER_GLIBC_CC ?= $(HOSTCC)
USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wmissing-prototypes -Wmissing-declarations \
	-D_GNU_SOURCE -ffunction-sections -fdata-sections -I$(USER_DIR)/common -MMD -MP
USER_LDFLAGS := -Wl,--gc-sections -Wl,-z,max-page-size=0x1000 -Wl,-z,noexecstack -Wl,--build-id=none
USER_OBJ := $(B)/user/obj

# Said plainly when musl-gcc is missing (only when something needs it: the
# top-level make that runs tools/deps.sh reads this file before musl is
# there).
.PHONY: user-have-musl
#> user-have-musl  check that musl-gcc is there (installs nothing)
user-have-musl:
	@command -v $(USER_MUSL_CC) >/dev/null 2>&1 || { echo "tests/user: no $(USER_MUSL_CC): \
	install Debian's musl-tools (make deps, or tools/deps.sh build)" >&2; exit 1; }

# $(USER_OBJ)/<libc>/<kind folder>/<name>.o; <libc> is musl, glibc or glibc-pie.
$(USER_OBJ)/musl/%.o: $(USER_DIR)/%.c | user-have-musl
	@mkdir -p $(dir $@)
	$(say) CC-MUSL $<
	$(Q)$(USER_MUSL_CC) $(USER_CFLAGS) -fno-pie -c $< -o $@
$(USER_OBJ)/glibc/%.o: $(USER_DIR)/%.c
	@mkdir -p $(dir $@)
	$(say) CC-GLIBC $<
	$(Q)$(USER_GLIBC_CC) $(USER_CFLAGS) -fno-pie -c $< -o $@
$(USER_OBJ)/glibc-pie/%.o: $(USER_DIR)/%.c
	@mkdir -p $(dir $@)
	$(say) CC-GLIBC $<
	$(Q)$(USER_GLIBC_CC) $(USER_CFLAGS) -fPIE -c $< -o $@

# user_objs(libc, name): the program's object and the test helpers'.
user_objs = $(USER_OBJ)/$(1)/$(patsubst $(USER_DIR)/%.c,%.o,$(call user_src,$(2))) \
	$(USER_OBJ)/$(1)/common/check.o

# user_link(target name, source name, libc, compiler, link flags)
define user_link
$(B)/user/$(1).elf: $(call user_objs,$(3),$(2))
	$$(say) LD-USER $$@
	$$(Q)$(4) $(5) $$(USER_LDFLAGS) -o $$@ $$^
endef
$(foreach n,$(USER_SRC_NAMES),$(eval $(call user_link,$(n),$(n),musl,$$(USER_MUSL_CC),-static -no-pie)))
$(foreach n,$(USER_GLIBC_NAMES),$(eval $(call user_link,$(n)_glibc,$(n),glibc,$$(USER_GLIBC_CC),-static -no-pie)))
$(foreach n,$(USER_GLIBC_PIE_NAMES),$(eval $(call user_link,$(n)_glibc_pie,$(n),glibc-pie,$$(USER_GLIBC_CC),-static-pie)))

# The runner finds the programs in ../user next to itself.
$(USER_HOST_TESTS): $(USER_DIR)/linux_runner.c $(USER_DIR)/program_run.c $(USER_DIR)/program_run.h \
		$(USER_ELFS)
	@mkdir -p $(dir $@)
	$(say) HOSTCC $@
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -D_GNU_SOURCE \
		-DUSER_TEST_NAMES='"$(USER_TEST_NAMES)"' -DUSER_CRASH_NAMES='"$(USER_CRASH_NAMES)"' \
		-o $@ $(USER_DIR)/linux_runner.c $(USER_DIR)/program_run.c

.PHONY: user-programs bench-user-linux
#> user-programs  the static user programs (tests/user/), for mmlab and Linux alike
user-programs: $(USER_ELFS)

#> bench-user-linux  the user benchmark programs on the host's Linux, natively
bench-user-linux: $(patsubst %,$(B)/user/%.elf,$(USER_BENCH_NAMES))
	@mkdir -p $(B)/bench
	@for p in $(USER_BENCH_NAMES); do \
		echo "== $$p (host Linux, native)"; \
		$(B)/user/$$p.elf --bench || echo "bench: $$p: FAILED (exit $$?)"; \
	done 2>&1 | tee $(B)/bench/user-linux.txt

-include $(wildcard $(USER_OBJ)/*/*/*.d)
