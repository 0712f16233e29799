#!/bin/bash
# SPDX-License-Identifier: MIT
# wp's hot pages never on an object the GPU may write (capture/cap_wp.c): a
# hot page is left writable and read at every snapshot, so on an object
# the GPU writes a snapshot can read it half-drawn, and the replay puts
# that record over its own result. Mesa's asahi driver binds every object
# READ|WRITE as it creates it, and fills its first pages before the first
# submission after the bind; that submission's snapshot used to collect
# them while the object was not yet marked GPU-dirty, so a page written in
# a short run became hot there (es2gears on asahi: ~1,240 hot reads, 75
# of them recorded). Such an object reused as a render target later
# (Mesa's BO cache) was recorded mid-draw when the GPU ran behind:
# tests/gl/model_golden.sh's chromium-compose-glx case drew frame 0's tab
# icon from a half-drawn 256x64 mask in about one capture in ten. Checks,
# on eglretrace of es2gears captured under `tessera run --driver asahi`:
#   - hot-gpu: every object is bound writable, and no page was hot (no
#     hot read at all);
#   - hot-gpu-replay: the capture passes `tessera replay --validate`.
# With TESSERA_CAPTURE_WP_TRACK=uffd there are no hot pages at all:
# hot-gpu is skipped.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/wp_pair.sh"

checks="hot-gpu hot-gpu-replay"
trace=$workloads/traces/es2gears.trace
gl_prefix asahi
wp_capture new
"$tessera" dump --no-streams --no-disasm "$work/new.tsr" > "$work/dump.txt" 2>&1 ||
    abort "tessera dump failed: $(tail -n 3 "$work/dump.txt")"
binds=$(grep -c '^  op [0-9]*: flags 0x[0-9a-f]* READ' "$work/dump.txt")
ro=$(grep '^  op [0-9]*: flags 0x[0-9a-f]* READ' "$work/dump.txt" | grep -vc ' WRITE ')
reads=$(sed -n 's/.* wp hot pages: \([0-9]*\) reads,.*/\1/p' "$work/new.log")
echo "binds: $binds ($ro read-only); hot reads: ${reads:-none}"
if wp_uffd_only "$work/new.log"; then
    check skip hot-gpu "every mapping tracked by userfaultfd"
elif [ -z "$reads" ]; then
    check FAILED hot-gpu "no wp statistics: $(grep 'tessera capture' "$work/new.log" | head -n 3)"
elif [ "$binds" = 0 ] || [ "$ro" != 0 ]; then
    check FAILED hot-gpu "expected every object bound writable: $binds binds, $ro read-only"
elif [ "$reads" != 0 ]; then
    check FAILED hot-gpu "$reads hot reads of objects the GPU may write"
else
    check ok hot-gpu
fi
if "$tessera" replay "$work/new.tsr" --validate --quiet > "$work/val.log" 2>&1; then
    check ok hot-gpu-replay
else
    check FAILED hot-gpu-replay "--validate: $(tail -n 3 "$work/val.log")"
fi
finish
