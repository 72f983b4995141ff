# uring-restrict-lab: what do io_uring's ring restrictions cost?
# `make help` lists the targets. Settings a user may change:

# Settings. Every `#%` line is make help's text for a variable, and every
# `#@` line above a target is its entry, group and variables: make help
# prints them (uringlab/makehelp.py) and make test fails when a target, or
# a variable a lab script reads, has none.
#% KERNEL: the kernel of make vm and make kernel: baseline, patched, upstream, or any
#%   other branch of build/linux (default patched)
KERNEL  ?= patched
#% KERNELS: the kernels make test, kernels, bench and trace use, in order
KERNELS ?= baseline patched upstream
#% DEBUG: 1: make test also builds and tests SANITIZE
DEBUG   ?= 0
#% SANITIZE: the sanitizer kernels (kernel-patches/debug.config: KASAN, UBSAN, lockdep,
#%   kmemleak): patched-debug; make test-debug-full adds upstream-debug
SANITIZE ?= patched-debug
DEBUG_KERNELS := $(if $(filter 1,$(DEBUG)),$(SANITIZE))
#% ACCEL: auto (probe KVM with a short boot, else TCG), kvm, tcg
ACCEL   ?= auto
#% ICOUNT: 1: TCG with -icount shift=0,sleep=off (instructions, not time); 0: off;
#%   empty: on for make bench under TCG, off for make test and make vm
ICOUNT  ?=
#% QUICK: 1: make bench's short matrix (24 cells, 3 repetitions, 3 fio jobs)
#%   instead of 37 cells, 5 repetitions a ring and 9 fio jobs
QUICK   ?= 0
#% BOOTS: make bench's boots per kernel, interleaved across kernels (empty: 1 under
#%   icount; in wall-clock mode bench/run.sh's default, from the power analysis)
BOOTS   ?=
#% RUN: the run folder make report, plots and reference read (default results/latest);
#%   for make bench, trace and check: the folder to write (default a new one)
RUN     ?= results/latest
#% TIMEOUT: hard limit in seconds for one guest boot (600; make trace 1800; make bench 3600)
TIMEOUT ?=
#% IDLE_TIMEOUT: make bench ends a boot after this many seconds without console
#%   output (300)
IDLE_TIMEOUT ?=
#% JOBS: parallel compile jobs (nproc + 1)
JOBS    ?= $(shell echo $$(($$(nproc) + 1)))
#% REPS: repetitions per cell (make bench 5, QUICK 3; make check 5)
#% FIO_REPS: repetitions per fio job (2; QUICK 1)
#% FIO: 0: make bench without the fio jobs
#% CELLS: make bench's cells, a subset by name: CELLS="nop deny"
#% FIO_JOBS: fio-jobs/ to run, by name: FIO_JOBS="nullb-qd1-reg"
#% RINGS: ring counts of the many-rings cells ("1 64 1024")
#% OPS_SCALE: ops per run times N (wall-clock default 20, icount 1)
#% SMP: guest CPUs (2; 1 under icount and TCG wall-clock)
#% MEM: guest memory (2G)
#% VERBOSE: 1: make vm shows the kernel's boot messages
#% STEP_LIMIT: seconds of host time one benchmark step may take in the guest (60)
#% FIO_LIMIT: seconds of host time one fio process may take (180)
#% TRACE_REPS: make trace's repetitions per cell (3)
#% TRACE_PARTS: what make trace runs, a subset of "insn bpftrace perf"
#% CACHE: 1: the insn-count plugin's cache model (default); 0: off
#% CACHE_GEOMETRY: the cache model's geometry, e.g. "l1d=32:8,l2=1280:10"
#%   (default one Golden Cove core)
#% DIFF_SEED: the differential's random stream (1)
#% DIFF_POLICIES: the differential's cases on production kernels (10000)
#% DIFF_DEBUG_POLICIES: its cases on sanitizer kernels (2000)
#% STRESS_SECONDS: seconds per stress test (10)
#% FUZZ_SEED: make fuzz's and make fuzz-filters' random stream (default: the time)
#% FUZZ_SQES: make fuzz's SQEs (a million)
#% FILTER_DIFF_SEED: the BPF filter differential's random stream (1)
#% FILTER_DIFF_CASES: its cases (rings) on patched in make test (1000; a quarter on
#%   sanitizer kernels)
#% FILTER_FUZZ_CASES: make fuzz-filters' cases (50000)
#% MINIMISE: 0: make diff-sensitivity does not minimise what it catches
#% A: make compare's first run (before)
#% B: make compare's second run (after)
#% TOLERANCE: make compare fails when a cell moved by more than this many %
#% CMD: make record's command, run in the guest as given (the host's root and this
#%   checkout are the guest's), e.g. CMD="qemu-img bench -i io_uring -f raw /tmp/x.img"
#% GENERALISE: make record: sockets lets SOCKET's filters allow any protocol of each
#%   family and type seen
#% POLICY_PROGRAMS: make policy's programs, a subset by name: "rb-nop qemu-img"
#% FORCE: 1: make reference takes a run that is not whole (check-reference.sh says why)
#% internal: BUILD VM_OUT PLUGIN RINGBENCH BENCH_HANG WRITE_REFERENCE HOST_CHECKS
#%   GATE_PART BOOT_FAILURES BOOT_LOGS BOOT_RUN BOOT_STEPS FUNC PERF_FREQ BENCH_BOOT
#%   BENCH_CLOCK_FILE BENCH_KERNEL LAB_STEP_PORT PROGRESS_TAG PYTHONPATH TERM HANG_IDLE
#%   CHECK_REFERENCE_SELFTEST BAD_INPUTS

BUILD   := $(CURDIR)/build
export BUILD ACCEL ICOUNT TIMEOUT IDLE_TIMEOUT JOBS QUICK BOOTS
# make record's command goes to the script as it is, quotes and all
export CMD GENERALISE
# the lab's Python package, uringlab/, for every tool make runs
export PYTHONPATH := $(CURDIR)$(if $(PYTHONPATH),:$(PYTHONPATH))

# Inside a lab guest (make vm), make bench measures the running kernel.
IN_GUEST := $(shell grep -qs 'lab\.out=' /proc/cmdline && echo 1)

# What the lab needs from Debian, by job.
DEPS_BUILD := linux-source-6.1 linux-config-6.1 build-essential flex bison bc libelf-dev \
	libssl-dev ccache git cpio kmod python3 python3-ply python3-git perl
DEPS_RUN   := qemu-system-x86 liburing-dev libpcap0.8-dev fio gnuplot-nox
DEPS_TOOLS := bpftrace linux-perf llvm

CFLAGS  ?= -O2 -g -Wall -Wextra

BENCH_BIN := $(BUILD)/bench/ringbench $(BUILD)/bench/uring-restrict.so $(BUILD)/bench/uring-policy

.PHONY: help deps deps-build deps-tools tree kernels debug-kernels kernel vm test test-bin fuzz fuzz-filters \
	test-debug test-debug-full test-harness diff-sensitivity kselftest-sensitivity phases \
	check-patches check check-reference bench bench-bin plugin trace record policy plots report compare reference \
	policy-sensitivity docs check-docs clean distclean

#@ maintain help: this list
help:
	@python3 -m uringlab.makehelp Makefile
	@echo
	@echo 'now: KERNEL=$(KERNEL) KERNELS="$(KERNELS)" DEBUG=$(DEBUG) ACCEL=$(ACCEL)'
	@echo '     ICOUNT=$(ICOUNT) QUICK=$(QUICK) BOOTS=$(or $(BOOTS),auto) RUN=$(RUN) JOBS=$(JOBS)'
	@echo '     TIMEOUT=$(or $(TIMEOUT),600 (trace: 1800, bench: 3600)) IDLE_TIMEOUT=$(or $(IDLE_TIMEOUT),off (bench: 300))'

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
#@ build deps-build: install the Debian packages a kernel build needs
deps-build:
	$(call install,$(DEPS_BUILD))

#@ build deps: install the Debian packages the guests and tests need (and deps-build's)
deps: deps-build
	$(call install,$(DEPS_RUN))

#@ build deps-tools: install bpftrace, perf and llvm (and deps')
deps-tools: deps
	$(call install,$(DEPS_TOOLS))

#@ build tree: extract Debian's tree into build/linux and apply the series as branches
tree: deps-build
	@kernel-patches/prepare-tree.sh

# baseline and upstream differ in io_uring/ alone, patched in task_struct
# too (include/linux/sched.h): built last, so that checking it out does
# not make upstream, seeded from baseline, recompile nearly everything
KERNEL_BUILD_ORDER = $(filter baseline,$(KERNELS)) $(filter upstream,$(KERNELS)) \
	$(filter-out baseline upstream,$(KERNELS))
#@ build kernels: build KERNELS
#@ takes: KERNELS JOBS
kernels: deps-build
	@kernel-patches/build-kernel.sh $(KERNEL_BUILD_ORDER)

#@ build kernel: build one kernel
#@ takes: KERNEL JOBS
kernel: deps-build
	@kernel-patches/build-kernel.sh $(KERNEL)

#@ maintain check-patches: checkpatch.pl --strict on every patch of the series
check-patches: tree
	@tests/check-patches.sh

#@ build test-bin: build the tests
test-bin: $(BUILD)/tests/restrictions $(BUILD)/tests/restrict-diff $(BUILD)/tests/restrict-stress \
	$(BUILD)/tests/restrict-bypass $(BUILD)/tests/drain-repro $(BUILD)/tests/drain-order \
	$(BUILD)/tests/bpf-filter $(BUILD)/tests/task-restrict $(BUILD)/tests/bpf-fold-diff

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

# libpcap's bpf_filter() is the reference interpreter: linked statically,
# so that the guest, which runs the host's root, needs nothing of it
$(BUILD)/tests/bpf-fold-diff: tests/bpf-fold-diff.c tests/uring-test.h \
	$(UAPI)/linux/io_uring/bpf_filter.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(UAPI) -o $@ $< -l:libpcap.a -l:liburing.a

$(BUILD)/tests/task-restrict: tests/task-restrict.c tests/uring-test.h $(HARNESS) \
	$(UAPI)/linux/io_uring/bpf_filter.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wno-unused-parameter -I$(UAPI) -I$(dir $(HARNESS)) -o $@ $< -l:liburing.a -lpthread

$(BUILD)/tests/restrictions: tests/restrictions.c tests/uring-test.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -luring

#@ run vm: an interactive shell in a guest running KERNEL (the lab mounted at its own path)
#@ takes: KERNEL ACCEL ICOUNT SMP MEM VERBOSE TIMEOUT
vm: kernel deps
	@KERNEL=$(KERNEL) vm/run.sh -i

#@ run test: build the kernels and tests, run the tests in each kernel
#@ takes: KERNELS DEBUG SANITIZE DIFF_SEED DIFF_POLICIES DIFF_DEBUG_POLICIES STRESS_SECONDS FILTER_DIFF_SEED FILTER_DIFF_CASES ACCEL TIMEOUT JOBS
test: kernels $(if $(DEBUG_KERNELS),debug-kernels) test-bin bench-bin plugin deps-tools
	@tests/run.sh $(KERNELS) $(DEBUG_KERNELS)

# the sanitizer kernels alone, the host checks left to make test; their
# differential compares with make test's upstream answers
#@ run test-debug: build the sanitizer kernels and run the tests in them; their differential
#@   against make test's upstream answers
#@ takes: SANITIZE DIFF_DEBUG_POLICIES STRESS_SECONDS TIMEOUT JOBS
test-debug: debug-kernels test-bin bench-bin deps-tools
	@HOST_CHECKS=0 tests/run.sh $(SANITIZE)

#@ run test-debug-full: patched-debug and upstream-debug, 10,000 differential cases between them
#@ takes: TIMEOUT JOBS
test-debug-full:
	@$(MAKE) --no-print-directory test-debug SANITIZE="patched-debug upstream-debug" DIFF_DEBUG_POLICIES=10000

#@ maintain test-harness: the bench harness's self-tests: a hung step and boot, wall-clock boots
#@ takes: KERNELS
test-harness: kernels bench-bin
	@tests/harness.sh $(word 2,$(KERNELS)) $(word 3,$(KERNELS))

#@ inspect phases: the phase table of the last CI run (.ci/run)
phases:
	@.ci/phase.sh table $(BUILD)/ci-phases.tsv

#@ maintain diff-sensitivity: build each bug of tests/planted/ into patched: the differential must
#@   catch every one
#@ takes: DIFF_SEED DIFF_POLICIES MINIMISE
diff-sensitivity: kernels test-bin
	@tests/diff-sensitivity.sh

#@ maintain kselftest-sensitivity: build each bug of tests/planted-kselftest/ into patched: the test
#@   it names must fail
kselftest-sensitivity: kernels test-bin
	@tests/kselftest-sensitivity.sh

#@ maintain policy-sensitivity: plant each bug of tests/planted-policy/ in a copy of the
#@   lab: the policy round trip must catch every one
policy-sensitivity: kernels bench-bin deps-tools
	@tests/policy-sensitivity.sh

#@ run fuzz: the differential, long: a million SQEs on patched and upstream; a difference
#@   is printed and minimised
#@ takes: FUZZ_SEED FUZZ_SQES TIMEOUT JOBS
fuzz: kernels test-bin
	@tests/fuzz.sh

#@ run fuzz-filters: the BPF filter differential, long: FILTER_FUZZ_CASES rings on patched,
#@   every verdict against libpcap's; a mismatch is printed with its replay command
#@ takes: FUZZ_SEED FILTER_FUZZ_CASES TIMEOUT JOBS
fuzz-filters: kernels test-bin
	@tests/fuzz-filters.sh

# built from a checkout of their own (build/linux-debug): with no other
# build in the main tree's way they can build while guests run (.ci/run)
#@ build debug-kernels: build the sanitizer kernels (from build/linux-debug)
#@ takes: SANITIZE JOBS
debug-kernels: deps-build
	@kernel-patches/build-kernel.sh $(SANITIZE)

#@ build bench-bin: build ringbench, the uring-restrict wrapper and its policy compiler
bench-bin: $(BENCH_BIN)

$(BUILD)/bench/ringbench: bench/ringbench.c tracing/lab-marker.h \
	$(UAPI)/linux/io_uring/bpf_filter.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(UAPI) -o $@ $< -luring

$(BUILD)/bench/uring-restrict.so: bench/uring-restrict.c bench/uring-policy.c bench/uring-policy.h \
	$(UAPI)/linux/io_uring/bpf_filter.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(UAPI) -fPIC -shared -o $@ bench/uring-restrict.c bench/uring-policy.c -ldl

$(BUILD)/bench/uring-policy: bench/uring-policy-emit.c bench/uring-policy.c bench/uring-policy.h \
	$(UAPI)/linux/io_uring/bpf_filter.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(UAPI) -o $@ bench/uring-policy-emit.c bench/uring-policy.c

# QEMU loads the plugin into itself: no guest libraries, only the host's.
PLUGIN := $(BUILD)/tracing/insn-count.so
CACHE_PROBE := $(BUILD)/tracing/cache-probe
#@ build plugin: build the insn-count QEMU plugin and its cache probe
plugin: $(PLUGIN) $(CACHE_PROBE)

# the known access patterns the plugin's cache model is checked against
$(CACHE_PROBE): tracing/cache-probe.c tracing/lab-marker.h | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

$(PLUGIN): tracing/insn-count.c tracing/qemu-plugin-7.2.h tracing/lab-marker.h | deps
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -fPIC -shared -fvisibility=hidden -o $@ $<

# The gate needs only the two kernels it compares.
#@ run check: the regression gate: baseline and patched under TCG icount; fails when a cell
#@   passes bench/gate/thresholds or leaves bench/gate/reference.csv
#@ takes: REPS RUN TIMEOUT JOBS
check: deps bench-bin plugin
	@kernel-patches/build-kernel.sh baseline patched
	@bench/gate/run.sh

#@ maintain check-reference: rewrite bench/gate/reference.csv from a gate run
#@ takes: REPS TIMEOUT JOBS
check-reference: deps bench-bin plugin
	@kernel-patches/build-kernel.sh baseline patched
	@WRITE_REFERENCE=1 bench/gate/run.sh

#@ run trace: boot each kernel under TCG icount with the insn-count plugin, bpftrace and perf:
#@   results/<time>-tcg-icount-trace/, per-function attribution and REPORT.md
#@ takes: KERNELS ACCEL TRACE_REPS TRACE_PARTS CACHE CACHE_GEOMETRY RUN TIMEOUT JOBS
trace: kernels bench-bin plugin deps-tools
	@KERNELS="$(KERNELS)" tracing/run.sh

#@ run record: record CMD in a guest running KERNEL and make its least io_uring policy:
#@   results/<time>-record/ with policy.txt (bench/uring-restrict -f), policy.h,
#@   policy.json and SUMMARY.md
#@ takes: CMD KERNEL GENERALISE ACCEL TIMEOUT
record: kernel bench-bin deps-tools
	@KERNEL=$(KERNEL) tracing/policy-record-vm.sh

#@ run policy: record, restrict, rerun and measure every program of tests/policy-workloads.sh
#@   on each kernel with restrictions: results/<time>-<accel>-policy/REPORT.md
#@ takes: KERNELS REPS POLICY_PROGRAMS ACCEL ICOUNT RUN TIMEOUT JOBS
policy: kernels bench-bin deps-tools
	@KERNELS="$(filter-out baseline,$(KERNELS))" tracing/policy-run.sh

#@ run bench: build the kernels and benchmarks, run the matrix in each kernel: a new
#@   results/<time>-<accel>/ with REPORT.md; inside a make vm guest, the running kernel
#@ takes: KERNELS ACCEL ICOUNT QUICK BOOTS REPS FIO_REPS FIO CELLS FIO_JOBS RINGS OPS_SCALE SMP STEP_LIMIT FIO_LIMIT RUN TIMEOUT IDLE_TIMEOUT JOBS
ifeq ($(IN_GUEST),1)
bench: bench-bin
	@bench/run.sh
else
bench: kernels bench-bin
	@KERNELS="$(KERNELS)" bench/run.sh
endif

# A run folder holds make bench's data, make trace's, or both: one
# pipeline (uringlab/render.py) summarizes, draws and reports either.
#@ inspect plots: rewrite RUN's tables and pictures only
#@ takes: RUN
plots:
	@python3 -m uringlab.render $(RUN) --until draw

#@ inspect report: rewrite RUN's tables, pictures and REPORT.md from its raw data
#@ takes: RUN
report:
	@python3 -m uringlab.render $(RUN)

#@ inspect compare: two bench runs side by side, per cell, with the 95 % interval of each change
#@ takes: A B TOLERANCE
A ?= results/reference
B ?= results/latest
compare:
	@python3 -m uringlab.compare $(A) $(B) $(if $(TOLERANCE),--tolerance $(TOLERANCE))

#@ maintain reference: make RUN the committed reference (results/reference, or
#@   results/reference-trace for a trace run, results/reference-policy for a policy
#@   run): a whole run only; REPORT.md, CSV, PNG, env
#@ takes: RUN FORCE
reference:
	@python3 -m uringlab.reference $(RUN) $(if $(filter 1,$(FORCE)),--force)

# the files whose <!-- answers:begin --> blocks uringlab/answers.py writes
ANSWER_FILES := README.md docs/results.md
# the file whose <!-- verdicts:begin --> block tests/verdict-table.py writes
VERDICT_FILES := docs/tests.md
#@ maintain docs: rewrite the generated tables in README.md and docs/: the answer tables
#@   from results/reference, docs/tests.md's verdict table from tests/verdicts.tsv
docs:
	@python3 -m uringlab.answers results/reference $(ANSWER_FILES)
	@tests/verdict-table.py --docs $(VERDICT_FILES)

#@ maintain check-docs: the generated tables are what make docs would write (TAP; make test)
check-docs:
	@rc=0; python3 -m uringlab.answers results/reference --check $(ANSWER_FILES) || rc=1; \
	tests/verdict-table.py --docs --check $(VERDICT_FILES) || rc=1; exit $$rc

#@ maintain clean: remove the kernel builds (keeps the tree and ccache)
clean:
	rm -rf $(BUILD)/out $(BUILD)/bzImage-* $(BUILD)/tests $(BUILD)/vm

#@ maintain distclean: remove the whole build folder
distclean:
	rm -rf $(BUILD)
