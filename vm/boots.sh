# vm/boots.sh: sourced (after vm/lib.sh) by every job that boots a list of
# kernels on the host -- make bench, make check, make trace, make test --
# so that each boot is run, logged, kept and judged the same way.
#
#   boots_start TAG NOUN TOTAL   before the first boot: TOTAL boots follow
#                                (a job of one boot may go without)
#   boots_next LABEL             a progress line, with the time left
#   boot_guest INST KERNEL [VAR=VAL...] -- CMD...
#                                boot KERNEL under vm/run.sh (VAR=VAL: its
#                                settings) and run CMD in it
#   boots_failures [INST...]     after the last: FAILURES (with the failed
#                                steps of each INST given); 1 if any
#   boots_end LINK WHAT          close the run, name what failed (1), or
#                                say it is done
#
# One failure policy for every job: a lost boot or a guest that exits
# non-zero is recorded and the job goes on to its next boot; only after
# the last one does it report and exit non-zero. The caller sets BOOT_RUN,
# the run folder (empty: the boots keep their logs in BOOT_LOGS and their
# failures in BOOT_LOGS/failures.tsv, for make test's own TAP verdicts),
# and may set BOOT_LOGS (default BOOT_RUN/logs), BOOT_FAILURES (default
# BOOT_RUN/failures.tsv, or BOOT_LOGS/failures.tsv) and BOOT_STEPS=1 when
# its guests record their failed steps (below).
#
# A boot's files: BOOT_LOGS/INST/ is vm/run.sh's VM_OUT (console.log,
# boot.env, klog-errors: the kernel log's fault lines, which vm/run.sh
# also quotes) plus vm.log, the runner's own messages; the run folder gets
# env/INST.boot.env and env/KERNEL.build-stamp. A guest's failed steps
# are its own job's to record, in raw/INST/failures.tsv (vm/lib.sh
# step_failed: make bench's guests, BOOT_STEPS=1); boots_failures gathers
# them with the boots' rows. Other guests' failures are one row a boot.

boots_lab=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# where this job's boots keep their folders, and its failed boots' rows
boots_logs() { echo "${BOOT_LOGS:-${BOOT_RUN:?BOOT_RUN or BOOT_LOGS must be set}/logs}"; }
boots_file() {
	if [ -n "${BOOT_FAILURES:-}" ]; then
		echo "$BOOT_FAILURES"
	elif [ -n "${BOOT_RUN:-}" ]; then
		echo "$BOOT_RUN/failures.tsv"
	else
		echo "$(boots_logs)/failures.tsv"
	fi
}

# the whole run's failures once gathered: FAILURES in a run folder, the
# boots' rows alone without one
boots_failed() {
	if [ -n "${BOOT_RUN:-}" ]; then echo "$BOOT_RUN/FAILURES"; else boots_file; fi
}

boots_start() {
	boots_tag=$1 boots_noun=$2 boots_n=$3 boots_i=0
	boots_t0=$(host_now)
	mkdir -p "$(boots_logs)"
	rm -f "$(boots_file)"
}

# the time left: the boots so far took as long each as the next ones will
boots_next() {
	local el eta=
	boots_i=$((boots_i + 1))
	el=$(($(host_now) - boots_t0))
	[ "$boots_i" -gt 1 ] &&
		eta=", about $(fmt_secs $((el * (boots_n - boots_i + 1) / (boots_i - 1)))) left"
	echo "[$boots_tag] $boots_noun $boots_i/$boots_n: $1 ($(fmt_secs "$el") so far$eta)"
}

# The runner's stdout is the caller's (boot_guest | tee FILE works); its
# stderr goes to the terminal and to vm.log, whole before the failure row
# below reads it. Status: the runner's, which is the guest's when the boot
# itself was sound.
boot_guest() {
	local inst=$1 kernel=$2 logs out rc=0 gst why cmd= a build=${BUILD:-$boots_lab/build}
	local -a vars=()
	local -
	set -o pipefail
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	logs=$(boots_logs) || return
	out=$logs/$inst
	mkdir -p "$out"
	# an earlier boot's, in a folder used again, is not this boot's
	rm -f "$out/status" "$out/boot.env"
	{ env "${vars[@]}" KERNEL="$kernel" VM_OUT="$out" "$boots_lab/vm/run.sh" -- "$@" \
		2>&1 1>&3 3>&- | tee "$out/vm.log" >&2; } 3>&1 || rc=$?
	if [ -n "${BOOT_RUN:-}" ]; then
		cp "$out/boot.env" "$BOOT_RUN/env/$inst.boot.env" 2>/dev/null || true
		if [ -f "$build/out/$kernel/.lab-stamp" ]; then
			cp "$build/out/$kernel/.lab-stamp" "$BOOT_RUN/env/$kernel.build-stamp"
		fi
	fi
	[ "$rc" = 0 ] && return 0
	gst=$(cat "$out/status" 2>/dev/null || true)
	if [ "$rc" = "$gst" ]; then
		# the guest's command, as the lab names it
		for a in "$@"; do
			case $a in *.sh) cmd=${a#"$boots_lab"/}; break ;; esac
		done
		[ "${BOOT_STEPS:-0}" = 1 ] && [ -s "$BOOT_RUN/raw/$inst/failures.tsv" ] ||
			printf '%s\t%s\t%s\t%s\n' "$inst" guest \
				"${cmd:-$1} exit status $rc$([ "${BOOT_STEPS:-0}" = 1 ] && echo ", no failed step on record")" \
				"${out#"${BOOT_RUN:-$logs}"/}/console.log" >>"$(boots_file)"
	else
		why=$(grep -m1 '^vm: error: ' "$out/vm.log" 2>/dev/null |
			sed 's/^vm: error: //; s/; last console lines.*//' || true)
		printf '%s\t%s\t%s\t%s\n' "$inst" boot "${why:-vm/run.sh exit status $rc}" \
			"${out#"${BOOT_RUN:-$logs}"/}/console.log" >>"$(boots_file)"
	fi
	return "$rc"
}

# FAILURES: every failure of the run, boots and guest steps, one a line
# (raw/INST/failures.tsv's steps with their instance and file prefixed;
# only the INSTs given: a run folder may hold another job's raw/ too)
boots_failures() {
	local k list
	list=$(boots_file)
	if [ -n "${BOOT_RUN:-}" ]; then
		{
			if [ -f "$list" ]; then cat "$list"; fi
			for k in "$@"; do
				[ -f "$BOOT_RUN/raw/$k/failures.tsv" ] || continue
				sed "s|^|$k\t|; s|\t\([^\t]*\)\$|\traw/$k/\1|" "$BOOT_RUN/raw/$k/failures.tsv"
			done
		} >"$BOOT_RUN/FAILURES.tmp"
		if [ -s "$BOOT_RUN/FAILURES.tmp" ]; then
			mv "$BOOT_RUN/FAILURES.tmp" "$BOOT_RUN/FAILURES"
		else
			rm -f "$BOOT_RUN/FAILURES.tmp"
		fi
	fi
	[ ! -s "$(boots_failed)" ]
}

# boots_end LINK WHAT [STATUS]: mark the run complete (results/LINK) --
# a run with failures is complete too: it holds all it could measure --
# then name what failed and return 1 (also when STATUS, the job's own
# steps after the boots, is not 0), or say the run is done
boots_end() {
	local link=$1 what=$2 status=${3:-0}
	if [ -n "${BOOT_RUN:-}" ]; then
		run_close "$BOOT_RUN" "$link" || status=1
		rm -f "$BOOT_RUN/.clock"
	fi
	if [ -s "$(boots_failed)" ] || [ "$status" != 0 ]; then
		echo "[$boots_tag] error: the run has failures; the report shows what was measured: $what" >&2
		boots_list >&2
		return 1
	fi
	echo "[$boots_tag] done in $(fmt_secs $(($(host_now) - boots_t0))): $what"
}

# boots_list: what failed, one line each, after a heading (nothing if none)
boots_list() {
	local list
	list=$(boots_failed)
	[ -s "$list" ] || return 0
	echo "[${boots_tag:-boots}] failed ($(wc -l <"$list")):"
	cut -f1-3 "$list" | sed 's/\t/: /; s/\t/: /; s/^/  /'
}
