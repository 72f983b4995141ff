#!/bin/bash
# tests/tap-whole.sh TAPFILE: 0 when the stream's verdicts are all ok and
# as many as its plan says (a stream cut short by a lost guest is not a
# pass); else 1, saying which
tap=$1
plan=$(sed -n 's/^1\.\.\([0-9]*\).*$/\1/p' "$tap" | head -1)
ok=$(grep -c '^ok ' "$tap")
bad=$(grep -c '^not ok ' "$tap")
if [ -z "$plan" ] || [ "$bad" != 0 ] || [ "$ok" != "$plan" ]; then
	echo "tap-whole: $tap: $ok ok, $bad not ok, plan ${plan:-missing}" >&2
	exit 1
fi
