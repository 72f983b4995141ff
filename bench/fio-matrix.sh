#!/bin/bash
# bench/fio-matrix.sh KERNEL OUT: run every fio-jobs/*.fio on the running
# kernel, as fio runs it and restricted by bench/uring-restrict with the
# policy named in the job file, FIO_REPS times, interleaved. fio's JSON is
# kept raw as OUT/fio/JOB.RING.REP.json; fio's stderr in OUT/fio.log.
# A restricted run counts only if the wrapper reported the ring
# restricted and fio saw no error: a denied I/O must not pass as a fast one.
# Environment: FIO_REPS (3), QUICK=1 (null_blk QD 32 and SQPOLL jobs, 1 rep).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
lab=$(cd "$here/.." && pwd)
kernel=$1
out=$2
quick=${QUICK:-0}
jobs=()
for f in "$lab"/fio-jobs/*.fio; do
	name=$(basename "$f" .fio)
	if [ "$quick" = 1 ]; then
		case $name in nullb-qd32-reg|nullb-qd32-reg-sqpoll) ;; *) continue ;; esac
	fi
	jobs+=("$name")
done
if [ "$quick" = 1 ]; then reps=${FIO_REPS:-1}; else reps=${FIO_REPS:-3}; fi
mkdir -p "$out/fio"
: >"$out/fio.log"
# fio from tmpfs; its libraries come from the (page-cached) 9p root
cp "$(command -v fio)" /tmp/fio || exit 1
lib=${BUILD:-$lab/build}/bench/uring-restrict.so
cp "$lib" /tmp/uring-restrict.so || exit 1

n=${#jobs[@]}
total=$((reps * n * 2))
done=0 failed=0 absent=0
for rep in $(seq 1 "$reps"); do
	for i in $(seq 0 $((n - 1))); do
		job=${jobs[$(((i + rep) % n))]}
		file=$lab/fio-jobs/$job.fio
		policy=$(sed -n 's/^; policy: //p' "$file")
		rings="unrestricted restricted"
		[ $((rep % 2)) = 0 ] && rings="restricted unrestricted"
		for ring in $rings; do
			done=$((done + 1))
			if [ "$ring" = restricted ] && [ "$absent" = 1 ]; then
				progress "$kernel fio" "$done" "$total"
				continue
			fi
			json=$out/fio/$job.$ring.$rep.json
			err=/tmp/fio.err
			if [ "$ring" = restricted ]; then
				URING_RESTRICT_LIB=/tmp/uring-restrict.so "$lab/bench/uring-restrict" -v -p "$policy" -- \
					/tmp/fio --output-format=json --eta=never --output="$json.tmp" "$file" 2>"$err"
			else
				/tmp/fio --output-format=json --eta=never --output="$json.tmp" "$file" 2>"$err"
			fi
			rc=$?
			{ echo "== $job $ring rep $rep: exit $rc"; cat "$err"; } >>"$out/fio.log"
			if [ "$ring" = restricted ] && grep -q 'has no IORING_SETUP_R_DISABLED' "$err"; then
				absent=1
				rm -f "$json.tmp"
				echo "[bench] $kernel: no ring restrictions: restricted fio runs absent"
			elif [ "$rc" != 0 ] || { [ "$ring" = restricted ] && ! grep -q 'restricted (' "$err"; }; then
				failed=$((failed + 1))
				echo "[bench] $kernel: fio $job ($ring) failed, exit $rc: $(grep -v 'restricted (' "$err" | head -2 | tr '\n' ' ')"
				rm -f "$json.tmp"
			else
				mv "$json.tmp" "$json"
			fi
			progress "$kernel fio" "$done" "$total"
		done
	done
done
[ "$failed" = 0 ]
