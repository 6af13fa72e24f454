# Included by the top Makefile.
# The longer run of the system-call fuzzer (tests/user/tests/syscall_fuzz.c;
# make test runs it with 100,000 calls and one seed): FUZZ_CALLS calls for
# each of FUZZ_SEEDS, natively on the host's Linux, then on mmlab (topology
# TOPOLOGY, default "default"; the program reads fuzz.calls= and fuzz.seed=
# from /proc/cmdline). Each mmlab boot is judged as make test judges it:
# the kernel survives, the program passes, every page comes back. Results in
# build/fuzz-results/seed-N/ (the host run's output: host-seed-N.txt).
FUZZ_CALLS ?= 2000000
FUZZ_SEEDS ?= 1 2 3
.PHONY: fuzz
#> fuzz           the system-call fuzzer, FUZZ_CALLS calls per seed of FUZZ_SEEDS, on the host's Linux and mmlab
fuzz:
	@tools/deps.sh test
	@$(MAKE) --no-print-directory $(B)/kernel.iso $(RUNNER)
	@rc=0; for s in $(FUZZ_SEEDS); do \
		echo "== host Linux: $(FUZZ_CALLS) calls, seed $$s"; \
		mkdir -p $(B)/fuzz-results; \
		$(B)/user/syscall_fuzz.elf --calls $(FUZZ_CALLS) --seed $$s > $(B)/fuzz-results/host-seed-$$s.txt; \
		st=$$?; grep -v '^ok: ' $(B)/fuzz-results/host-seed-$$s.txt; \
		[ $$st -eq 0 ] || { echo "host Linux: the fuzzer exited with status $$st"; rc=1; }; \
		echo "== mmlab ($(or $(TOPOLOGY),default)): $(FUZZ_CALLS) calls, seed $$s"; \
		$(RUNNER) test $(RUNNER_ARGS) --results $(B)/fuzz-results/seed-$$s --jobs 1 \
			--topology $(or $(TOPOLOGY),default) --filter 'user.syscall_fuzz' \
			--cmdline "fuzz.calls=$(FUZZ_CALLS) fuzz.seed=$$s" || rc=1; \
		grep -a 'calls in' $(B)/fuzz-results/seed-$$s/$(or $(TOPOLOGY),default).log; \
	done; exit $$rc

