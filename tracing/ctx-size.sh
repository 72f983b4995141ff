#!/bin/bash
# tracing/ctx-size.sh OUT: print sizeof(struct io_ring_ctx) of the kernel
# built in OUT (build/out/<kernel>), compiled with the exact command line
# kbuild used for io_uring.o, so that the trace report can tell which
# cache lines a function touched belong to a ring's context. Run it while
# the tree is checked out at the kernel OUT was built from
# (kernel-patches/build-kernel.sh does, right after the build).
set -euo pipefail
out=$(cd "$1" && pwd)
cmd=$(sed -n 's/^cmd_io_uring\/io_uring.o := //p' "$out/io_uring/.io_uring.o.cmd" | sed 's/ ; .*//; s/ *$//')
src=${cmd##* }
[ -f "$src" ] || { echo "ctx-size: no io_uring.c in $out's command line" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/size.c" <<'C'
#include <linux/io_uring_types.h>
int lab_io_ring_ctx_size = sizeof(struct io_ring_ctx);
C
# the same flags, minus the dependency file, the object and the source
cmd=${cmd% *}
cmd=${cmd/-Wp,-MMD,io_uring\/.io_uring.o.d/}
cmd=${cmd/ -c -o io_uring\/io_uring.o/}
(cd "$out" && eval "$cmd -S -o $tmp/size.s $tmp/size.c")
awk '/^lab_io_ring_ctx_size:/ { getline; print $2; exit }' "$tmp/size.s"
