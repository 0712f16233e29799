#!/bin/bash
# SPDX-License-Identifier: MIT
# A clear after draws stays in the render pass (issue 17, docs/driver.md
# "Clears"): eglretrace -b replays es2gears on a pbuffer, which no
# eglSwapBuffers flushes, so every frame's glClear comes after the previous
# frame's draws. The driver used to end the pass there (a submission, a
# full tile store and, eight frames ahead, a wait for the GPU per frame);
# it now draws the clear into the pass as a rectangle (u_blitter).
#   clear-in-pass-passes: TESSERA_DEBUG=flush,perf shows at least 100
#     clears drawn into the pass and at most 20 passes for the 120 frames
#     (14: a pass ends at a clear once it holds 16,384 vertices, 9 frames
#     of es2gears; before the fix, 120 passes, 119 ended by a clear);
#   clear-in-pass-images: the images snapshotted without flushing in
#     between (call 2000, mid-trace, and the last swap, 4368: the frames
#     before them merged into one pass) are bit-identical to those of a run
#     that snapshots every frame (each readback ends the pass, so every
#     clear is the background program's).
. "$(dirname "$0")/lib/common.sh"

checks="clear-in-pass-passes clear-in-pass-images"
gl_es2gears_setup

log=$work/flush.log
TESSERA_DEBUG=flush,perf "${GL_PREFIX[@]}" eglretrace --headless -b "$trace" > "$log" 2>&1 ||
    { tail -n 5 "$log"; abort "eglretrace -b failed"; }
in_pass=$(grep -c 'drawn into the pass$' "$log")
passes=$(grep -c '^tessera flush: render' "$log")
if [ "$in_pass" -ge 100 ] && [ "$passes" -le 20 ]; then
    check ok clear-in-pass-passes
else
    check FAILED clear-in-pass-passes "$passes passes, $in_pass clears drawn into a pass (want <= 20 and >= 100)"
fi

mkdir -p "$work/merged" "$work/each"
"${GL_PREFIX[@]}" eglretrace --headless -s "$work/merged/" -S 2000,4368 "$trace" > "$work/merged.log" 2>&1 ||
    { tail -n 5 "$work/merged.log"; abort "eglretrace -S 2000,4368 failed"; }
"${GL_PREFIX[@]}" eglretrace --headless -s "$work/each/" -S frame,2000 "$trace" > "$work/each.log" 2>&1 ||
    { tail -n 5 "$work/each.log"; abort "eglretrace -S frame failed"; }
ok=1
for f in 0000002000.png 0000004368.png; do
    if [ ! -f "$work/merged/$f" ] || [ ! -f "$work/each/$f" ]; then
        ok=0; echo "missing snapshot $f"; continue
    fi
    "$tessera" compare images "$work/each/$f" "$work/merged/$f" > "$work/cmp.log" 2>&1 ||
        { ok=0; echo "$f:"; head -n 3 "$work/cmp.log"; }
done
if [ $ok = 1 ]; then check ok clear-in-pass-images; else check FAILED clear-in-pass-images "snapshots differ"; fi
finish
