#!/bin/bash
# vm/step-daemon.sh: the guest's half of the step time limits (see
# vm/step-watchdog.py): reads the host watchdog's orders from the second
# serial port and carries them out. It blocks on the port and arms no
# timer, so it costs the measured code nothing and cannot be fooled by
# the guest's clock under -icount. Each order leaves a mark in
# /tmp/lab-step.PID so the waiting run_step can say what happened.
port=${1:-/dev/ttyS1}
stty -F "$port" raw -echo 2>/dev/null || exit 1
while read -r cmd a b; do
	case $cmd in
	term) echo term >"/tmp/lab-step.$a"; kill -TERM -- "-$a" 2>/dev/null ;;
	kill) echo kill >"/tmp/lab-step.$a"; kill -KILL -- "-$a" 2>/dev/null ;;
	abandon) echo abandon >"/tmp/lab-step.$b"; kill -USR1 "$a" 2>/dev/null ;;
	esac
done <"$port"
