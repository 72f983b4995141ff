# uring-restrict-lab: what do io_uring's ring restrictions cost?
# `make help` lists the targets. Settings a user may change:

# KERNEL: the kernel of make vm and make kernel (baseline, patched, upstream,
# or any other branch of build/linux)
KERNEL  ?= patched
# KERNELS: the kernels make test, make kernels and make bench use
KERNELS ?= baseline patched upstream
# DEBUG=1: make test also builds and tests SANITIZE, kernels with the
# sanitizers of kernel-patches/debug.config (KASAN, UBSAN, lockdep,
# kmemleak); make test-debug tests them alone. SANITIZE: patched-debug (CI's
# per-submission set); make test-debug-full adds upstream-debug
DEBUG   ?= 0
SANITIZE ?= patched-debug
DEBUG_KERNELS := $(if $(filter 1,$(DEBUG)),$(SANITIZE))
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
# the lab's Python package, uringlab/, for every tool make runs
export PYTHONPATH := $(CURDIR)$(if $(PYTHONPATH),:$(PYTHONPATH))

# Inside a lab guest (make vm), make bench measures the running kernel.
IN_GUEST := $(shell grep -qs 'lab\.out=' /proc/cmdline && echo 1)

# What the lab needs from Debian, by job.
DEPS_BUILD := linux-source-6.1 linux-config-6.1 build-essential flex bison bc libelf-dev \
	libssl-dev ccache git cpio kmod python3 python3-ply python3-git perl
DEPS_RUN   := qemu-system-x86 liburing-dev fio gnuplot-nox
DEPS_TOOLS := bpftrace linux-perf llvm

CFLAGS  ?= -O2 -g -Wall -Wextra

BENCH_BIN := $(BUILD)/bench/ringbench $(BUILD)/bench/uring-restrict.so

.PHONY: help deps deps-build deps-tools tree kernels debug-kernels kernel vm test test-bin fuzz \
	test-debug test-debug-full test-harness diff-sensitivity kselftest-sensitivity phases \
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
	@echo '  make plots          rewrite RUN'"'"'s CSV tables and pictures (PNG, SVG) from its raw data'
	@echo '  make report         rewrite RUN'"'"'s CSV tables, pictures and REPORT.md (a bench or trace run)'
	@echo '  make test           build kernels and tests, run the tests in each kernel'
	@echo '                      (DIFF_SEED=N DIFF_POLICIES=N: another differential stream;'
	@echo '                      DEBUG=1: also the sanitizer kernel patched-debug)'
	@echo '  make test-debug     build patched-debug (KASAN, UBSAN, lockdep, kmemleak) and run the'
	@echo '                      tests in it, its 2,000-case differential against make test'"'"'s upstream'
	@echo '  make test-debug-full  patched-debug and upstream-debug, 10,000-case differential between them'
	@echo '  make test-harness   the bench harness'"'"'s self-tests: a hung step and boot, wall-clock boots'
	@echo '  make phases         the phase table of the last CI run (.ci/run: build/ci-phases.tsv)'
	@echo '  make fuzz           the differential test, long: a million SQEs on patched and upstream'
	@echo '                      (FUZZ_SEED=N FUZZ_SQES=N); a difference is printed and minimised'
	@echo '  make diff-sensitivity  build each bug of tests/planted/ into patched: the differential'
	@echo '                      must catch every one (about 26 min; MINIMISE=0: no minimising)'
	@echo '  make kselftest-sensitivity  build each bug of tests/planted-kselftest/ into patched:'
	@echo '                      the task-restrict or bpf-filter case it names must fail (2 min each)'
	@echo '  make kernels        build baseline, patched and upstream kernels'
	@echo '  make debug-kernels  build SANITIZE (patched-debug; sanitizers, from build/linux-debug)'
	@echo '  make kernel         build one kernel (KERNEL=...)'
	@echo '  make vm             interactive shell in a guest running KERNEL'
	@echo '  make check-patches  checkpatch.pl --strict on every patch'
	@echo '  make tree           extract the Debian tree and apply the series'
	@echo '  make deps           install the Debian packages the lab needs (deps-build: for kernels;'
	@echo '                      deps-tools: bpftrace, perf, llvm)'
	@echo '  make clean          remove kernel builds (keeps tree and ccache)'
	@echo '  make distclean      remove the whole build folder'
	@echo 'settings: KERNEL=$(KERNEL) KERNELS="$(KERNELS)" DEBUG=$(DEBUG) ACCEL=$(ACCEL) ICOUNT=$(ICOUNT) QUICK=$(QUICK) BOOTS=$(or $(BOOTS),auto)'
	@echo '          RUN=$(RUN) TIMEOUT=$(or $(TIMEOUT),600 (bench: 3600)) IDLE_TIMEOUT=$(or $(IDLE_TIMEOUT),off (bench: 300)) JOBS=$(JOBS)'
	@echo '  make bench also takes REPS FIO_REPS FIO=0 CELLS="nop deny" FIO_JOBS="nullb-qd1-reg"'
	@echo '          OPS_SCALE (ops per run x N; wall-clock default 20) SMP (guest CPUs; TCG wall-clock: 1)'
	@echo '          STEP_LIMIT FIO_LIMIT (seconds per guest step; see README "When something fails")'

# install PACKAGES: install only what is missing, apt's lists refreshed
# once if needed. Another apt at work (CI installs the guests' and tools'
# packages in the background while the first kernel builds) is waited for.
APT := DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 -q
define install
	@missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "[deps] installing:" $$missing; \
		$(APT) update >/dev/null && $(APT) install -y $$missing >/dev/null; \
	fi
endef

# what building a kernel needs; deps: also what the guests and the tests
# need; deps-tools: the tracing tools
deps-build:
	$(call install,$(DEPS_BUILD))

deps: deps-build
	$(call install,$(DEPS_RUN))

deps-tools: deps
	$(call install,$(DEPS_TOOLS))

tree: deps-build
	@kernel-patches/prepare-tree.sh

# baseline and upstream differ in io_uring/ alone, patched in task_struct
# too (include/linux/sched.h): built last, so that checking it out does
# not make upstream, seeded from baseline, recompile nearly everything
KERNEL_BUILD_ORDER = $(filter baseline,$(KERNELS)) $(filter upstream,$(KERNELS)) \
	$(filter-out baseline upstream,$(KERNELS))
kernels: deps-build
	@kernel-patches/build-kernel.sh $(KERNEL_BUILD_ORDER)

kernel: deps-build
	@kernel-patches/build-kernel.sh $(KERNEL)

check-patches: tree
	@tests/check-patches.sh

test-bin: $(BUILD)/tests/restrictions $(BUILD)/tests/restrict-diff $(BUILD)/tests/restrict-stress \
	$(BUILD)/tests/restrict-bypass $(BUILD)/tests/drain-repro $(BUILD)/tests/drain-order \
	$(BUILD)/tests/bpf-filter $(BUILD)/tests/task-restrict

# The io_uring uapi headers as the patched branch has them (the filter ABI
# that 6.1 lacks), for the tests and tools that use it: taken from the
# tree, never copied into the lab.
UAPI := $(BUILD)/uapi
$(UAPI)/linux/io_uring/bpf_filter.h: $(wildcard kernel-patches/restrictions/*.patch) | deps-build
	@kernel-patches/prepare-tree.sh
	@rm -rf $(UAPI) && mkdir -p $(UAPI)
	@git -C $(BUILD)/linux archive patched include/uapi/linux/io_uring.h \
		include/uapi/linux/io_uring | tar -x -C $(UAPI) --strip-components=2
	@test -f $@

# the kernel tree's kselftest harness runs the stress tests
HARNESS := $(BUILD)/linux/tools/testing/selftests/kselftest_harness.h
$(HARNESS): | deps-build
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

$(BUILD)/tests/task-restrict: tests/task-restrict.c tests/uring-test.h $(HARNESS) \
	$(UAPI)/linux/io_uring/bpf_filter.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wno-unused-parameter -I$(UAPI) -I$(dir $(HARNESS)) -o $@ $< -l:liburing.a -lpthread

$(BUILD)/tests/restrictions: tests/restrictions.c tests/uring-test.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -luring

vm: kernel deps
	@KERNEL=$(KERNEL) vm/run.sh -i

test: kernels $(if $(DEBUG_KERNELS),debug-kernels) test-bin bench-bin plugin deps-tools
	@tests/run.sh $(KERNELS) $(DEBUG_KERNELS)

# the sanitizer kernels alone, the host checks left to make test; their
# differential compares with make test's upstream answers
test-debug: debug-kernels test-bin bench-bin deps-tools
	@HOST_CHECKS=0 tests/run.sh $(SANITIZE)

test-debug-full:
	@$(MAKE) --no-print-directory test-debug SANITIZE="patched-debug upstream-debug" DIFF_DEBUG_POLICIES=10000

test-harness: kernels bench-bin
	@tests/harness.sh $(word 2,$(KERNELS)) $(word 3,$(KERNELS))

phases:
	@.ci/phase.sh table $(BUILD)/ci-phases.tsv

diff-sensitivity: kernels test-bin
	@tests/diff-sensitivity.sh

kselftest-sensitivity: kernels test-bin
	@tests/kselftest-sensitivity.sh

fuzz: kernels test-bin
	@tests/fuzz.sh

# built from a checkout of their own (build/linux-debug): with no other
# build in the main tree's way they can build while guests run (.ci/run)
debug-kernels: deps-build
	@kernel-patches/build-kernel.sh $(SANITIZE)

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

# A run folder holds make bench's data, make trace's, or both: one
# pipeline (uringlab/render.py) summarizes, draws and reports either.
plots:
	@python3 -m uringlab.render $(RUN) --until draw

report:
	@python3 -m uringlab.render $(RUN)

clean:
	rm -rf $(BUILD)/out $(BUILD)/bzImage-* $(BUILD)/tests $(BUILD)/vm

distclean:
	rm -rf $(BUILD)
