# vm/lib.sh: sourced by every job's scripts, on the host and in the guest:
# the run's clock, progress lines, the run folder (host_env, run_open,
# run_close) and the guest's steps (run_step, klog_step). vm/boots.sh
# boots kernels with it; bench/lib.sh adds ringbench's helpers.

# The lab's Python (uringlab/) for every script that sources this, also
# when run without make.
_lab=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case ":${PYTHONPATH:-}:" in
*":$_lab:"*) ;;
*) export PYTHONPATH=$_lab${PYTHONPATH:+:$PYTHONPATH} ;;
esac
unset _lab

# The kernels a job boots when KERNELS does not say: the Makefile's default.
LAB_KERNELS="baseline patched upstream"

# host_now: seconds since the epoch by the host's clock. Under -icount the
# guest's own clock runs on instructions and jumps through idle time, so it
# cannot predict wall time; a file created on the 9p share gets its mtime
# from the host. Outside a lab guest this is just date.
host_now() {
	local f=${BENCH_CLOCK_FILE:-}
	if [ -n "$f" ] && rm -f "$f" 2>/dev/null && : >"$f" 2>/dev/null; then
		stat -c %Y "$f"
	else
		date +%s
	fi
}

fmt_secs() {
	local s=$1
	if [ "$s" -ge 60 ]; then
		printf '%dm%02ds' $((s / 60)) $((s % 60))
	else
		printf '%ds' "$s"
	fi
}

# progress WHAT DONE TOTAL: one line, at most every 10 s and at the end,
# with the time left extrapolated from the time so far (host clock).
progress() {
	local what=$1 done=$2 total=$3 now elapsed left
	now=$(host_now)
	: "${progress_t0:=$now}"
	if [ "$done" -lt "$total" ] && [ $((now - ${progress_last:-0})) -lt 10 ]; then
		return
	fi
	progress_last=$now
	elapsed=$((now - progress_t0))
	if [ "$done" -gt 0 ]; then
		left=$(( elapsed * (total - done) / done ))
		echo "[${PROGRESS_TAG:-bench}] $what: $done/$total, $(fmt_secs "$elapsed") so far, about $(fmt_secs "$left") left"
	else
		echo "[${PROGRESS_TAG:-bench}] $what: 0/$total"
	fi
}

# write_atomic FILE: stdin to FILE, visible only once complete
write_atomic() {
	cat >"$1.tmp.$$" && mv -f "$1.tmp.$$" "$1"
}

# source_hashes: the hashes of what a kernel is built from, as host.env
# records them; tests/check-reference.sh compares a committed reference's
# with the tree's through the same lines
source_hashes() {
	local lab d
	lab=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	for d in baseline restrictions; do
		echo "series_$d=$(cat "$lab/kernel-patches/$d/series" "$lab/kernel-patches/$d/"*.patch |
			sha1sum | cut -c1-12)"
	done
	echo "lab_config=$(sha1sum "$lab/kernel-patches/lab.config" | cut -c1-12)"
}

# host_env ACCEL KERNELS SETTINGS-FILE: what produced a run's figures, as
# KEY=VALUE lines for RUN/env/host.env (read by the reports and plots)
host_env() {
	local lab
	lab=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "accel=$1"
	echo "icount=$([ "$1" = tcg-icount ] && echo 'shift=0,sleep=off' || echo no)"
	echo "metric=$([ "$1" = tcg-icount ] && echo 'guest instructions per op (icount: 1 virtual ns = 1 instruction)' || echo 'ns per op')"
	echo "kernels=$2"
	echo "qemu=$(qemu-system-x86_64 --version 2>/dev/null | sed -n '1s/^QEMU emulator version //p')"
	echo "host_kernel=$(uname -r)"
	echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "host_cpus=$(nproc)"
	echo "lab_commit=$(git -C "$lab" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$lab" diff --quiet HEAD 2>/dev/null || echo -dirty)"
	source_hashes
	echo "tree=$(dpkg-query -W -f='${Package} ${Version}' linux-source-6.1 2>/dev/null || echo unknown)"
	echo "fio=$(fio --version 2>/dev/null || echo missing)"
	echo "liburing=$(dpkg-query -W -f='${Version}' liburing-dev 2>/dev/null || echo unknown)"
	echo "settings=$(tr '\n' ' ' <"$3")"
}

# run_open DIR: a run folder's skeleton (env/ logs/ raw/), without the
# COMPLETE of an earlier run in it; prints the folder's absolute path
run_open() {
	mkdir -p "$1/env" "$1/logs" "$1/raw" || return
	rm -f "$1/COMPLETE" "$1/FAILURES" "$1/failures.tsv"
	(cd "$1" && pwd)
}

# run_close RUN LINK: mark RUN complete (always last; uringlab.runfolder,
# as the Python tools see it) and point results/LINK at it
run_close() {
	local lab
	lab=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	python3 -m uringlab.runfolder complete "$1" || return
	# results/LINK only for runs in results/: a link elsewhere would dangle
	if [ "$(cd "$1/.." && pwd)" = "$(cd "$lab/results" && pwd)" ]; then
		ln -sfn "$(basename "$1")" "$lab/results/$2" 2>/dev/null || true
	fi
}

# run_step NAME LIMIT CMD...: CMD under a time limit of LIMIT seconds of
# the host's clock, with the caller's redirections. Not a guest timer:
# under -icount an idle guest's clock jumps to its next timer, so a guest
# timer fires in host milliseconds while the guest waits on the 9p share.
# The step is announced on the second serial port to the host's
# vm/step-watchdog.py; vm/step-daemon.sh in the guest carries out its
# SIGTERM, then SIGKILL, of CMD's process group, or has this shell stop
# waiting for a CMD stuck in the kernel (a D-state I/O), which is left
# behind so the boot goes on with the next step. Nothing here arms a
# timer, and the announcement is on the wire before CMD starts.
# Status: CMD's own; 124 when it ran out of time and was killed; 125 when
# it could not be killed either. Without the port (a guest not booted by
# vm/run.sh) CMD runs without a limit.
# BENCH_HANG (from bench.env; tests/bench-hang.sh) names steps that hang
# the first time they run in a boot: NAME spins (killable), stuck:NAME
# waits on a FIFO while the watchdog's signals go to a decoy, as they go
# past a task in D state; KERNEL/NAME for one kernel only.
run_step() {
	local name=$1 limit=$2 pid ann rc mark hang=
	shift 2
	case " ${BENCH_HANG:-} " in
	*" $name "*|*" ${BENCH_KERNEL:-}/$name "*) hang=spin ;;
	*" stuck:$name "*|*" ${BENCH_KERNEL:-}/stuck:$name "*) hang=stuck ;;
	esac
	if [ -n "$hang" ] && [ ! -e "/tmp/lab-hung.${name//\//_}" ]; then
		: >"/tmp/lab-hung.${name//\//_}"
		case $hang in
		spin) set -- sh -c 'while :; do :; done' ;;
		stuck) mkfifo "/tmp/lab-stuck.$$" 2>/dev/null
			set -- sh -c "read -r x </tmp/lab-stuck.$$" ;;
		esac
	else
		hang=
	fi
	if [ ! -c "${LAB_STEP_PORT:-}" ]; then
		"$@"
		return
	fi
	# the watchdog's abandon order: stop waiting (wait returns > 128)
	trap : USR1
	if [ "$hang" = stuck ]; then
		setsid sleep 1000000 </dev/null >/dev/null 2>&1 &
		ann=$!
		echo "start $ann $$ $limit $name" >"$LAB_STEP_PORT"
		setsid "$@" &
		pid=$!
	else
		( echo "start $BASHPID $$ $limit $name" >"$LAB_STEP_PORT"
		  exec setsid "$@" ) &
		pid=$!
		ann=$pid
	fi
	wait "$pid"
	rc=$?
	echo "end $ann" >"$LAB_STEP_PORT"
	mark=$(cat "/tmp/lab-step.$ann" 2>/dev/null)
	rm -f "/tmp/lab-step.$ann"
	case $mark in
	abandon) return 125 ;;
	# a step that ended on its own as the order came keeps its status
	term|kill) [ "$rc" -gt 128 ] && return 124 ;;
	esac
	return "$rc"
}

# step_failed OUT STEP REASON LOG: record a failed step of this kernel's
# run in OUT/failures.tsv (the report lists them, make bench names them)
step_failed() {
	printf '%s\t%s\t%s\n' "$2" "$3" "$4" >>"$1/failures.tsv"
}

# why_failed RC LIMIT: a failed step's status in words
why_failed() {
	case $1 in
	124) echo "hung: killed after its ${2}s limit (host time)" ;;
	125) echo "hung: could not be killed after its ${2}s limit (host time; stuck in the kernel), left behind" ;;
	*) echo "exit status $1" ;;
	esac
}

# klog_step OUT STEP: the kernel log lines that appeared since the last
# call and name a fault (vm/klog-patterns), recorded in OUT/klog.tsv
# against STEP; says so on stdout
klog_step() {
	local out=$1 step=$2 lab now seen hits
	lab=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	# the checker from tmpfs: between timed runs, nothing waits on 9p
	if [ ! -x /tmp/klog/klog-check.sh ]; then
		mkdir -p /tmp/klog && cp "$lab/vm/klog-check.sh" "$lab/vm/klog-patterns" /tmp/klog/
	fi
	dmesg >/tmp/klog.now 2>/dev/null || return 0
	now=$(wc -l </tmp/klog.now)
	# the lines already seen, by every script of this boot
	seen=$(cat /tmp/klog.seen 2>/dev/null || echo 0)
	hits=$(tail -n +$((seen + 1)) /tmp/klog.now | /tmp/klog/klog-check.sh /dev/stdin)
	echo "$now" >/tmp/klog.seen
	[ -n "$hits" ] || return 0
	printf '%s\n' "$hits" | sed "s/^/$step\t/" >>"$out/klog.tsv"
	echo "[bench] warning: kernel log after $step: $(head -1 <<<"$hits")"
}
