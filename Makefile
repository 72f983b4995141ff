# uring-restrict-lab: what do io_uring's ring restrictions cost?
# `make help` lists the targets. Settings a user may change:

# KERNEL: the kernel of make vm and make kernel (baseline, patched, upstream,
# or any other branch of build/linux)
KERNEL  ?= patched
# KERNELS: the kernels make test, make kernels and make bench use
KERNELS ?= baseline patched upstream
# DEBUG=1: make test also builds and tests patched-debug and upstream-debug,
# the same kernels with the sanitizers of kernel-patches/debug.config (KASAN,
# UBSAN, lockdep, kmemleak). Off by default for now: a fresh clone's cold
# sanitizer build and its two boots add about 40 minutes (README, "Sanitizer
# kernels"), more than CI's 90 have room for
DEBUG   ?= 0
DEBUG_KERNELS := $(if $(filter 1,$(DEBUG)),$(addsuffix -debug,$(filter patched upstream,$(KERNELS))))
# ACCEL: auto probes KVM with a short boot and falls back to TCG; kvm; tcg
ACCEL   ?= auto
# ICOUNT=1: TCG with -icount shift=0,sleep=off (instructions, not time);
# empty: off for make test and make vm, on for make bench when TCG is used
ICOUNT  ?=
# QUICK=1: make bench runs a short matrix (11 cells, 3 repetitions, 3 fio jobs)
QUICK   ?= 0
# BOOTS: make bench's boots per kernel, interleaved across kernels; empty:
# 1 under icount, and in wall-clock mode (KVM, or ICOUNT=0) the default of
# bench/run.sh, from the README's power analysis
BOOTS   ?=
# RUN: the results folder make plots and make report work on
RUN     ?= results/latest
# TIMEOUT: hard limit in seconds for one guest boot (empty: 600, and 3600
# for make bench, whose boots also end after IDLE_TIMEOUT seconds, 300,
# without console output)
TIMEOUT ?=
IDLE_TIMEOUT ?=
# JOBS: parallel compile jobs
JOBS    ?= $(shell echo $$(($$(nproc) + 1)))

BUILD   := $(CURDIR)/build
export BUILD ACCEL ICOUNT TIMEOUT IDLE_TIMEOUT JOBS QUICK BOOTS

# Inside a lab guest (make vm), make bench measures the running kernel.
IN_GUEST := $(shell grep -qs 'lab\.out=' /proc/cmdline && echo 1)

# What the lab needs from Debian, by job.
DEPS_BUILD := linux-source-6.1 linux-config-6.1 build-essential flex bison bc libelf-dev \
	libssl-dev ccache git cpio kmod python3 python3-ply python3-git perl
DEPS_RUN   := qemu-system-x86 liburing-dev fio gnuplot-nox
DEPS_TOOLS := bpftrace linux-perf llvm

CFLAGS  ?= -O2 -g -Wall -Wextra

BENCH_BIN := $(BUILD)/bench/ringbench $(BUILD)/bench/uring-restrict.so

.PHONY: help deps deps-tools tree kernels debug-kernels kernel vm test test-bin fuzz \
	check-patches check check-reference bench bench-bin plugin trace plots report clean distclean

help:
	@echo 'uring-restrict-lab targets:'
	@echo '  make bench          build kernels and benchmarks, run the matrix in each kernel,'
	@echo '                      write results/<time>-<accel>/ with REPORT.md (QUICK=1: short;'
	@echo '                      ICOUNT=0 or KVM: wall-clock mode, BOOTS interleaved boots per kernel)'
	@echo '  make bench-bin      build ringbench and the uring-restrict wrapper'
	@echo '  make check          regression gate: baseline and patched under TCG icount, fails when'
	@echo '                      a cell passes bench/gate/thresholds or leaves bench/gate/reference.csv'
	@echo '  make check-reference  rewrite bench/gate/reference.csv from a gate run'
	@echo '  make trace          boot each kernel under TCG icount with the insn-count QEMU'
	@echo '                      plugin, run bpftrace and perf in it: results/<time>-tcg-icount-trace/'
	@echo '                      with per-function attribution and REPORT.md'
	@echo '  make plugin         build the insn-count QEMU plugin (tracing/insn-count.c)'
	@echo '  make plots          draw RUN'"'"'s pictures (PNG, SVG) from its raw data'
	@echo '  make report         rewrite RUN'"'"'s CSV tables, pictures and REPORT.md'
	@echo '  make test           build kernels and tests, run the tests in each kernel'
	@echo '                      (DIFF_SEED=N DIFF_POLICIES=N: another differential stream;'
	@echo '                      DEBUG=1: also the sanitizer kernels)'
	@echo '  make fuzz           the differential test, long: a million SQEs on patched and upstream'
	@echo '                      (FUZZ_SEED=N FUZZ_SQES=N); a difference is printed and minimised'
	@echo '  make kernels        build baseline, patched and upstream kernels'
	@echo '  make debug-kernels  build patched-debug and upstream-debug (sanitizers)'
	@echo '  make kernel         build one kernel (KERNEL=...)'
	@echo '  make vm             interactive shell in a guest running KERNEL'
	@echo '  make check-patches  checkpatch.pl --strict on every patch'
	@echo '  make tree           extract the Debian tree and apply the series'
	@echo '  make deps           install the Debian packages the lab needs'
	@echo '  make clean          remove kernel builds (keeps tree and ccache)'
	@echo '  make distclean      remove the whole build folder'
	@echo 'settings: KERNEL=$(KERNEL) KERNELS="$(KERNELS)" DEBUG=$(DEBUG) ACCEL=$(ACCEL) ICOUNT=$(ICOUNT) QUICK=$(QUICK) BOOTS=$(or $(BOOTS),auto)'
	@echo '          RUN=$(RUN) TIMEOUT=$(or $(TIMEOUT),600 (bench: 3600)) IDLE_TIMEOUT=$(or $(IDLE_TIMEOUT),off (bench: 300)) JOBS=$(JOBS)'
	@echo '  make bench also takes REPS FIO_REPS FIO=0 CELLS="nop deny" FIO_JOBS="nullb-qd1-reg"'
	@echo '          OPS_SCALE (ops per run x N; wall-clock default 20) SMP (guest CPUs; TCG wall-clock: 1)'
	@echo '          STEP_LIMIT FIO_LIMIT (seconds per guest step; see README "When something fails")'

# Install only what is missing; apt's lists are refreshed once, if needed.
deps:
	@missing=$$(for p in $(DEPS_BUILD) $(DEPS_RUN); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "[deps] installing:" $$missing; \
		apt-get update -q >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing >/dev/null; \
	fi

deps-tools: deps
	@missing=$$(for p in $(DEPS_TOOLS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "[deps] installing:" $$missing; \
		apt-get update -q >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing >/dev/null; \
	fi

tree: deps
	@kernel-patches/prepare-tree.sh

kernels: deps
	@kernel-patches/build-kernel.sh $(KERNELS)

kernel: deps
	@kernel-patches/build-kernel.sh $(KERNEL)

check-patches: tree
	@tests/check-patches.sh

test-bin: $(BUILD)/tests/restrictions $(BUILD)/tests/restrict-diff $(BUILD)/tests/restrict-stress \
	$(BUILD)/tests/restrict-bypass $(BUILD)/tests/drain-repro $(BUILD)/tests/drain-order \
	$(BUILD)/tests/bpf-filter

# The io_uring uapi headers as the patched branch has them (the filter ABI
# that 6.1 lacks), for the tests and tools that use it: taken from the
# tree, never copied into the lab.
UAPI := $(BUILD)/uapi
$(UAPI)/linux/io_uring/bpf_filter.h: $(wildcard kernel-patches/restrictions/*.patch) | deps
	@kernel-patches/prepare-tree.sh
	@rm -rf $(UAPI) && mkdir -p $(UAPI)
	@git -C $(BUILD)/linux archive patched include/uapi/linux/io_uring.h \
		include/uapi/linux/io_uring | tar -x -C $(UAPI) --strip-components=2
	@test -f $@

# the kernel tree's kselftest harness runs the stress tests
HARNESS := $(BUILD)/linux/tools/testing/selftests/kselftest_harness.h
$(HARNESS): | deps
	@kernel-patches/prepare-tree.sh

$(BUILD)/tests/restrict-stress: tests/restrict-stress.c tests/uring-test.h $(HARNESS) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wno-unused-parameter -I$(dir $(HARNESS)) -o $@ $< -l:liburing.a -lpthread

$(BUILD)/tests/restrict-bypass: tests/restrict-bypass.c tests/uring-test.h $(HARNESS) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wno-unused-parameter -I$(dir $(HARNESS)) -o $@ $< -l:liburing.a

$(BUILD)/tests/restrict-diff: tests/restrict-diff.c tests/uring-test.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -l:liburing.a

$(BUILD)/tests/drain-repro: tests/drain-repro.c tests/drain-replay.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -luring

$(BUILD)/tests/drain-order: tests/drain-order.c tests/drain-replay.h tests/uring-test.h $(HARNESS) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wno-unused-parameter -I$(dir $(HARNESS)) -o $@ $< -l:liburing.a

$(BUILD)/tests/bpf-filter: tests/bpf-filter.c tests/uring-test.h $(HARNESS) \
	$(UAPI)/linux/io_uring/bpf_filter.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wno-unused-parameter -I$(UAPI) -I$(dir $(HARNESS)) -o $@ $< -l:liburing.a

$(BUILD)/tests/restrictions: tests/restrictions.c tests/uring-test.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -luring

vm: kernel
	@KERNEL=$(KERNEL) vm/run.sh -i

test: kernels debug-kernels test-bin bench-bin plugin deps-tools
	@tests/run.sh $(KERNELS) $(DEBUG_KERNELS)

fuzz: kernels test-bin
	@tests/fuzz.sh

debug-kernels: kernels
	@$(if $(DEBUG_KERNELS),kernel-patches/build-kernel.sh $(DEBUG_KERNELS),true)

bench-bin: $(BENCH_BIN)

$(BUILD)/bench/ringbench: bench/ringbench.c tracing/lab-marker.h \
	$(UAPI)/linux/io_uring/bpf_filter.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(UAPI) -o $@ $< -luring

$(BUILD)/bench/uring-restrict.so: bench/uring-restrict.c | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $< -ldl

# QEMU loads the plugin into itself: no guest libraries, only the host's.
PLUGIN := $(BUILD)/tracing/insn-count.so
CACHE_PROBE := $(BUILD)/tracing/cache-probe
plugin: $(PLUGIN) $(CACHE_PROBE)

# the known access patterns the plugin's cache model is checked against
$(CACHE_PROBE): tracing/cache-probe.c tracing/lab-marker.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

$(PLUGIN): tracing/insn-count.c tracing/qemu-plugin-7.2.h tracing/lab-marker.h | deps
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -fPIC -shared -fvisibility=hidden -o $@ $<

# The gate needs only the two kernels it compares.
check: deps bench-bin plugin
	@kernel-patches/build-kernel.sh baseline patched
	@bench/gate/run.sh

check-reference: deps bench-bin plugin
	@kernel-patches/build-kernel.sh baseline patched
	@WRITE_REFERENCE=1 bench/gate/run.sh

trace: kernels bench-bin plugin deps-tools
	@KERNELS="$(KERNELS)" tracing/run.sh

ifeq ($(IN_GUEST),1)
bench: bench-bin
	@bench/run.sh
else
bench: kernels bench-bin
	@KERNELS="$(KERNELS)" bench/run.sh
endif

# A run folder holds make bench's data, make trace's, or both.
plots:
	@[ -d "$(RUN)/raw" ] || { echo "plots: $(RUN) is not a run folder" >&2; exit 1; }
	@if ls $(RUN)/raw/*/micro.jsonl >/dev/null 2>&1; then python3 bench/summarize_bench.py $(RUN); fi
	@if ls $(RUN)/raw/*/insn-count.txt >/dev/null 2>&1; then python3 tracing/attribute.py $(RUN); fi
	@if [ -f $(RUN)/trace/attribution.csv ]; then python3 tracing/summarize_trace.py $(RUN); fi
	@plots/draw.sh $(RUN)

report: plots
	@python3 bench/report.py $(RUN) && echo "[report] $(RUN)/REPORT.md"

clean:
	rm -rf $(BUILD)/out $(BUILD)/bzImage-* $(BUILD)/tests $(BUILD)/vm

distclean:
	rm -rf $(BUILD)
