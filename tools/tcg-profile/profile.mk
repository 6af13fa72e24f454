# Where the guest's instructions go (tools/tcg-profile/, docs/testing.md).
# Included by the top Makefile.
#
# make profile boots one machine (TOPOLOGY, default: default) with its
# tests (FILTER, as for make test), QEMU's TCG running the plugin
# tb_count.c, which counts every translation block's executions; the
# report folds them into instructions per function of build/kernel.elf
# (TOP of them), user space as one line. TCG runs on one thread, so the
# counts are exact; the figures are instructions, not time.
TCG_PROFILE_PLUGIN := $(B)/tcg-profile/tb_count.so

$(TCG_PROFILE_PLUGIN): tools/tcg-profile/tb_count.c
	@mkdir -p $(dir $@)
	$(HOSTCC) -O2 -shared -fPIC -fvisibility=hidden -Wall -Wextra -Werror -o $@ $<

.PHONY: profile
#> profile        guest instructions per kernel function while one machine runs its tests (TOPOLOGY, FILTER, TOP)
profile:
	@tools/deps.sh test
	@$(MAKE) -j$(JOBS) --no-print-directory $(B)/kernel.iso $(RUNNER) $(TCG_PROFILE_PLUGIN)
	@rm -f $(B)/tcg-profile/counts
	@TCG_PROFILE_PLUGIN=$(abspath $(TCG_PROFILE_PLUGIN)) TCG_PROFILE_OUT=$(abspath $(B))/tcg-profile/counts \
		TCG_PROFILE_QEMU=$${QEMU:-qemu-system-x86_64} QEMU=tools/tcg-profile/qemu-with-plugin.sh \
		$(RUNNER) test $(RUNNER_ARGS) --tcg-threads single --results $(B)/tcg-profile/results --jobs 1 \
		--topology $(or $(TOPOLOGY),default) $(if $(FILTER),--filter '$(FILTER)'); rc=$$?; \
	python3 tools/tcg-profile/report.py $(B)/tcg-profile/counts $(B)/kernel.elf --top $(or $(TOP),40) && exit $$rc
