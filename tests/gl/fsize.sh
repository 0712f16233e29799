#!/bin/bash
# SPDX-License-Identifier: MIT
# A real GL program under a file-size limit (ulimit -f 2048: 2 MiB):
# eglretrace replaying es2gears on the tessera driver, render-node path.
#   fsize-run      `tessera run` alone: the program runs to its end (it died
#                  of SIGXFSZ when the shim's GPU memory was a 4 GiB memfd)
#                  and its snapshots meet the llvmpipe reference.
#   fsize-capture  under `tessera capture --gpu-memory full` too (the render
#                  targets at every frame: the default keyframes trace is
#                  only ~0.5 MB): the trace (~6 MB whole) hits
#                  the limit; the program still runs to its end with the
#                  same snapshots, one line says recording stopped (File too
#                  large), the trace stays under the limit, `tessera info`
#                  reads it (some frames, not all) and it replays.
. "$(dirname "$0")/lib/common.sh"

name=es2gears
trace=$workloads/traces/$name.trace
limit_kb=2048
if [ "$driver" != tessera ]; then
    result skip fsize-run "the shim's memory is only used on the tessera render-node path"
    result skip fsize-capture "idem"
    finish; exit
fi
r=$(gl_require_renderer tessera "$trace" 2>&1) || { result FAILED fsize-run "$r"; result FAILED fsize-capture "$r"; finish; exit; }
n_swaps=$(gl_swap_calls "$trace" | wc -l)
gl_prefix tessera

# fsize-run
mkdir -p "$work/run"
(ulimit -f $limit_kb; exec timeout -k 10 600 "${GL_PREFIX[@]}" \
    eglretrace --headless --snapshot-alpha -s "$work/run/" "$trace") > "$work/run.log" 2>&1
rc=$?
grep -v '^Wrote ' "$work/run.log" | tail -n 3
n=$(ls "$work/run" | grep -c '\.png$')
if [ $rc != 0 ]; then
    result FAILED fsize-run "eglretrace exited $rc under ulimit -f $limit_kb (153: SIGXFSZ)"
elif [ "$n" != "$n_swaps" ]; then
    result FAILED fsize-run "$n snapshots, want $n_swaps"
elif ! "$top/scripts/gl-trace-check" "$name" --snapshots "$work/run" > "$work/run-check.log" 2>&1; then
    tail -n 3 "$work/run-check.log"
    result FAILED fsize-run "snapshots differ from the llvmpipe reference"
else
    result ok fsize-run
fi

# fsize-capture (records reach the file every 20 ms, so the cut trace
# holds whole frames)
t=$work/$name.tsr
mkdir -p "$work/cap"
(ulimit -f $limit_kb; TESSERA_CAPTURE_FLUSH_MS=20 exec timeout -k 10 600 "$tessera" capture --gpu-memory full -o "$t" -- \
    "${GL_PREFIX[@]}" eglretrace --headless --snapshot-alpha -s "$work/cap/" "$trace") > "$work/cap.log" 2>&1
rc=$?
grep -v '^Wrote ' "$work/cap.log" | tail -n 4
n=$(ls "$work/cap" | grep -c '\.png$')
stops=$(grep -c 'File too large; recording stopped' "$work/cap.log")
size=$(stat -c %s "$t" 2>/dev/null || echo 0)
"$tessera" info "$t" > "$work/info.txt" 2>&1
info_rc=$?
grep -E '^(format|frames|submissions|size):' "$work/info.txt"
frames=$(awk '$1 == "frames:" { print $2; exit }' "$work/info.txt")
why=""
if [ $rc != 0 ]; then why="the captured eglretrace exited $rc"
elif [ "$n" != "$n_swaps" ]; then why="$n snapshots, want $n_swaps"
elif [ "$stops" != 1 ]; then why="$stops 'recording stopped' messages, want 1"
elif [ "$size" -gt $((limit_kb * 1024)) ] || [ "$size" -eq 0 ]; then why="trace of $size bytes"
elif [ $info_rc != 0 ]; then why="tessera info failed on the cut trace"
elif [ "${frames:-0}" -lt 1 ] || [ "$frames" -ge "$n_swaps" ]; then why="${frames:-no} frames in the cut trace"
elif ! "$top/scripts/gl-trace-check" "$name" --snapshots "$work/cap" > "$work/cap-check.log" 2>&1; then
    why="snapshots under capture differ from the llvmpipe reference"
elif ! "$tessera" replay "$t" --quiet > "$work/replay.log" 2>&1; then
    tail -n 3 "$work/replay.log"; why="the cut trace does not replay"
fi
if [ -z "$why" ]; then result ok fsize-capture; else result FAILED fsize-capture "$why"; fi
finish
