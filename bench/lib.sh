# Sourced by the bench scripts: progress lines and the run's clock.

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
		echo "[bench] $what: $done/$total, $(fmt_secs "$elapsed") so far, about $(fmt_secs "$left") left"
	else
		echo "[bench] $what: 0/$total"
	fi
}

# write_atomic FILE: stdin to FILE, visible only once complete
write_atomic() {
	cat >"$1.tmp.$$" && mv -f "$1.tmp.$$" "$1"
}
