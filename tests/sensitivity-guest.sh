#!/bin/bash
# Inside the guest, for tests/diff-sensitivity.sh: restrict-diff's answers
# (DIR/diff.txt, ARGS as restrict-diff takes them) and drain-order's TAP
# (DIR/drain-order.tap), judged as on patched. From tmpfs: nothing they
# do waits on the 9p share.
# Usage: sensitivity-guest.sh BINDIR DIR ARGS...
set -u
bin=$1 dir=$2
shift 2
echo "# kernel $(uname -r)"
cp "$bin/restrict-diff" "$bin/drain-order" /tmp/
/tmp/restrict-diff "$@" >"$dir/diff.txt.tmp" && mv "$dir/diff.txt.tmp" "$dir/diff.txt"
(cd /tmp && LAB_KERNEL=patched ./drain-order) >"$dir/drain-order.tap" 2>&1
exit 0
