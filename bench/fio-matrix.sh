#!/bin/bash
# bench/fio-matrix.sh KERNEL OUT: run the fio-jobs/*.fio jobs on the running
# kernel, as fio runs them and restricted by bench/uring-restrict with the
# policy named in the job files, FIO_REPS times, interleaved.
# Jobs that share a policy run in one fio process, one after the other (fio
# runs the jobs of several job files in sequence): fio's start-up costs
# more than a job. Their order rotates each repetition. fio's JSON is kept
# raw as OUT/fio/<policy group>.<ring>.<rep>.json; fio's stderr in
# OUT/fio.log. A restricted run counts only if the wrapper restricted every
# job's ring and fio saw no error: a denied I/O must not pass as a fast one.
# Every fio process has a time limit (FIO_LIMIT, 180 s of host time; a
# group takes a few): one that hangs or fails is recorded in
# OUT/failures.tsv and the matrix goes on. Fault lines in the kernel log
# are checked after every fio process (OUT/klog.tsv).
# Environment: FIO_REPS (2), QUICK=1 (null_blk QD 32 and SQPOLL jobs and
# NVMe QD 32, 1 rep), FIO_JOBS (the jobs to run, e.g. "nullb-qd1-reg";
# default all), FIO_LIMIT.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab=$(cd "$here/.." && pwd)
kernel=$1
out=$2
quick=${QUICK:-0}
if [ "$quick" = 1 ]; then reps=${FIO_REPS:-1}; else reps=${FIO_REPS:-2}; fi

# group the jobs by policy: "; policy-group: NAME" and "; policy: ..."
declare -A group_jobs group_policy
for f in "$lab"/fio-jobs/*.fio; do
	name=$(basename "$f" .fio)
	if [ "$quick" = 1 ]; then
		case $name in nullb-qd32-reg|nullb-qd32-reg-sqpoll|nvme-qd32-reg) ;; *) continue ;; esac
	fi
	selected "$name" "${FIO_JOBS:-}" || continue
	g=$(sed -n 's/^; policy-group: //p' "$f")
	p=$(sed -n 's/^; policy: //p' "$f")
	if [ -z "$g" ] || [ -z "$p" ]; then
		echo "[bench] error: $f names no '; policy-group:' or '; policy:'" >&2
		exit 1
	fi
	if [ -n "${group_policy[$g]:-}" ] && [ "${group_policy[$g]}" != "$p" ]; then
		echo "[bench] error: $f: policy differs from the rest of group $g" >&2
		exit 1
	fi
	group_policy[$g]=$p
	group_jobs[$g]="${group_jobs[$g]:-} $name"
done
read -r -a groups <<<"$(printf '%s\n' "${!group_jobs[@]}" | sort | tr '\n' ' ')"
[ "${#groups[@]}" -gt 0 ] || exit 0
limit=${FIO_LIMIT:-180}

mkdir -p "$out/fio"
: >"$out/fio.log"
# fio from tmpfs; its libraries come from the (page-cached) 9p root
cp "$(command -v fio)" /tmp/fio || exit 1
cp "${BUILD:-$lab/build}/bench/uring-restrict.so" /tmp/uring-restrict.so || exit 1

total=$((reps * ${#groups[@]} * 2))
done=0 failed=0 absent=0
for rep in $(seq 1 "$reps"); do
	for g in "${groups[@]}"; do
		# rotate the job order by the repetition number
		read -r -a js <<<"${group_jobs[$g]}"
		files=()
		for i in $(seq 0 $((${#js[@]} - 1))); do
			files+=("$lab/fio-jobs/${js[$(((i + rep) % ${#js[@]}))]}.fio")
		done
		rings="unrestricted restricted"
		[ $((rep % 2)) = 0 ] && rings="restricted unrestricted"
		for ring in $rings; do
			done=$((done + 1))
			if [ "$ring" = restricted ] && [ "$absent" = 1 ]; then
				progress "$kernel fio" "$done" "$total"
				continue
			fi
			json=$out/fio/$g.$ring.$rep.json
			err=/tmp/fio.err
			if [ "$ring" = restricted ]; then
				run_step "fio:$g" "$limit" env URING_RESTRICT_LIB=/tmp/uring-restrict.so \
					"$lab/bench/uring-restrict" -v -p "${group_policy[$g]}" -- \
					/tmp/fio --output-format=json --eta=never --output="$json.tmp" "${files[@]}" 2>"$err"
			else
				run_step "fio:$g" "$limit" \
					/tmp/fio --output-format=json --eta=never --output="$json.tmp" "${files[@]}" 2>"$err"
			fi
			rc=$?
			{ echo "== $g ($kernel, $ring, rep $rep): ${js[*]}: exit $rc"; cat "$err"; } >>"$out/fio.log"
			nres=$(grep -c 'ring fd [0-9]* restricted' "$err")
			if [ "$ring" = restricted ] && grep -q 'cannot restrict rings' "$err"; then
				absent=1
				rm -f "$json.tmp"
				echo "[bench] $kernel: no ring restrictions: restricted fio runs absent"
			elif [ "$rc" != 0 ] || { [ "$ring" = restricted ] && [ "$nres" != "${#js[@]}" ]; }; then
				failed=$((failed + 1))
				why=$(why_failed $rc "$limit")
				[ "$rc" = 0 ] && why="$nres of ${#js[@]} rings restricted"
				step_failed "$out" "fio $g ($ring, rep $rep: ${js[*]})" "$why" fio.log
				echo "[bench] $kernel: fio group $g ($ring) failed ($why): $(grep -v 'restricted (' "$err" | head -2 | tr '\n' ' ')"
				rm -f "$json.tmp"
			else
				mv "$json.tmp" "$json"
			fi
			klog_step "$out" "fio $g ($ring, rep $rep)"
			progress "$kernel fio" "$done" "$total"
		done
	done
done
[ "$failed" = 0 ]
