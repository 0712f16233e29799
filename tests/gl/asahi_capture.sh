#!/bin/bash
# SPDX-License-Identifier: MIT
# Milestone 6 of Mesa's asahi driver on the embedded GPU: captures of Mesa's
# own driver. es2gears runs on Mesa 25.0.7's asahi driver under
# `tessera capture`, and capture.sh's checks apply unchanged: live frames
# against llvmpipe, one trace frame per swap, the replay's back buffers
# bit-identical to the live snapshots, a ranged replay identical to the
# full one. Then `tessera dump` must decode everything Mesa emitted in a
# capture of glmark2-es2's build scene without an error, a warning, an
# instruction with unknown bits or a field value the formats do not name.
# Mesa's defaults (compressed images included).
unset ASAHI_MESA_DEBUG
export GL_TEST_DRIVER=asahi
bash "$(dirname "$0")/capture.sh"
rc=$?

. "$(dirname "$0")/lib/common.sh"
name=glmark2-es2-build
gl_prefix asahi
timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$tessera" capture -q -o "$work/$name.tsr" -- \
    "${GL_PREFIX[@]}" eglretrace --headless "$workloads/traces/$name.trace" > "$work/live.log" 2>&1
if "$tessera" dump "$work/$name.tsr" > "$work/dump.txt" 2> "$work/dump.err"; then
    bad=$(grep -E 'unknown bits|[1-9][0-9]* (errors|warnings)|: unknown 0x' "$work/dump.txt" | sort | uniq -c)
    lines=$(wc -l < "$work/dump.txt")
    echo "dump: $lines lines"
    if [ -z "$bad" ] && [ "$lines" -gt 1000 ]; then result ok asahi-dump-decodes
    else echo "$bad" | head -n 10; result FAILED asahi-dump-decodes "undecoded content in the dump"; fi
else
    tail -n 5 "$work/dump.err"
    result FAILED asahi-dump-decodes "tessera dump failed"
fi
finish
[ $rc = 0 ] && [ "$n_failed" = 0 ]
