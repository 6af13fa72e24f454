# make report: every result the project claims, measured again on this
# machine by the benchmark targets themselves (tools/report/run.sh runs
# them one after the other, with a progress line each), then drawn and
# tabled into docs/results/ by tools/report/plot.py (python3 and Debian's
# matplotlib). Included from the top-level Makefile.
#
#   make report          measure everything (an hour or more), then draw
#   make report-plots    draw again from what build/bench/ holds, measuring nothing
#   make report-check    the drawing checked on a small fixed input (make test runs it)
#
# REPORT_OUT=dir writes the figures elsewhere; REPORT_STEPS='compare fork'
# measures only those steps (their keys are in tools/report/run.sh).
REPORT_OUT ?= docs/results
REPORT_STEPS ?=
REPORT_FIXTURE := tools/report/fixture
# Debian's python3, whose dist-packages hold python3-matplotlib: a python3
# earlier on PATH (a pyenv or a virtualenv) would not see it.
REPORT_PYTHON ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
.PHONY: report report-plots report-check
#> report         every benchmark again on this machine, then its figures and tables in docs/results/
report:
	@tools/deps.sh test report
	@$(MAKE) --no-print-directory $(RUNNER)
	@tools/report/run.sh "$(MAKE)" $(B) $(REPORT_STEPS)

#> report-plots   docs/results/ drawn again from build/bench/, nothing measured
report-plots:
	@tools/deps.sh report
	@$(REPORT_PYTHON) tools/report/plot.py --bench $(B)/bench --out $(REPORT_OUT)

#> report-check   the report's drawing checked on a small fixed input (seconds)
report-check: $(B)/host/report-check
	@$(B)/host/report-check

# make test runs it as a host program: KTAP out, exit status 0 only when
# every figure and table was written as it should be.
$(B)/host/report-check: tools/report/check.py tools/report/plot.py tools/report/report.mk
	@mkdir -p $(dir $@)
	$(say) GEN $@
	$(Q)printf '#!/bin/sh\nexec $(REPORT_PYTHON) %s %s %s\n' '$(abspath tools/report/check.py)' \
		'$(abspath $(REPORT_FIXTURE))' '$(abspath $(B))/report-check' > $@ && chmod +x $@
HOST_TESTS += $(B)/host/report-check
