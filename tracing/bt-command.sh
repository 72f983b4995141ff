#!/bin/bash
# tracing/bt-command.sh DIR COMMAND...: write DIR/command.sh, which runs
# COMMAND and leaves its exit status in DIR/status (run it as bash DIR/command.sh:
# bpftrace -c runs only ELF files). bpftrace -c splits its
# command on spaces and reports its own status, not the command's: the
# script keeps the quoting and the status.
set -euo pipefail
dir=$(readlink -f "$1")
shift
{
	echo '#!/bin/bash'
	printf '%q ' "$@"
	echo
	printf 'echo $? >%q\n' "$dir/status"
} >"$dir/command.sh"
chmod +x "$dir/command.sh"
