# The host-side test runner (tests/runner/README.md): mmlab-runner, which
# boots the matrix and judges it, and its self-test. Included by the top
# Makefile.

# The judge's part (KTAP parser, boot judge, kunit_tool reader) is shared
# with the runner's self-test.
RUNNER_JUDGE_SRCS := tests/runner/ktap.c tests/runner/judge.c tests/runner/kunit_tool.c \
	tests/runner/xalloc.c
RUNNER_SRCS := tests/runner/runner.c tests/runner/options.c tests/runner/qemu.c \
	tests/runner/jobs.c tests/runner/topology.c tests/runner/report.c tests/runner/hostile.c \
	tests/runner/session.c $(RUNNER_JUDGE_SRCS)
RUNNER := $(B)/host/mmlab-runner
HOST_TESTS := $(B)/host/runner-selftest

$(RUNNER): $(RUNNER_SRCS) $(wildcard tests/runner/*.h)
	@mkdir -p $(dir $@)
	$(say) HOSTCC $@
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -o $@ $(RUNNER_SRCS)


# The self-test also reads .topo files and builds QEMU command lines.
RUNNER_SELFTEST_SRCS := tests/runner/selftest.c $(RUNNER_JUDGE_SRCS) tests/runner/topology.c \
	tests/runner/hostile.c tests/runner/qemu.c tests/runner/jobs.c tests/runner/options.c \
	tests/runner/session.c tests/runner/session_selftest.c
$(B)/host/runner-selftest: $(RUNNER_SELFTEST_SRCS) $(wildcard tests/runner/*.h) $(SANITIZE_STAMP)
	@mkdir -p $(dir $@)
	$(say) HOSTCC $@
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(SANITIZE) -o $@ $(RUNNER_SELFTEST_SRCS)

# The README's build lines name every source (a reader builds the runner
# by hand from them): checked on each build of the runner.
RUNNER_DOC := tests/runner/README.md
$(B)/host/runner-doc.ok: $(RUNNER_DOC) tests/runner/runner.mk
	@mkdir -p $(dir $@)
	@for f in $(RUNNER_SRCS); do grep -q -- '-o build/host/mmlab-runner .*'"$$f" $(RUNNER_DOC) || \
		{ echo "error: $(RUNNER_DOC)'s mmlab-runner build line misses $$f"; exit 1; }; done
	@for f in $(RUNNER_SELFTEST_SRCS); do grep -q -- '-o build/host/runner-selftest .*'"$$f" $(RUNNER_DOC) || \
		{ echo "error: $(RUNNER_DOC)'s runner-selftest build line misses $$f"; exit 1; }; done
	@touch $@
$(RUNNER) $(B)/host/runner-selftest: | $(B)/host/runner-doc.ok
