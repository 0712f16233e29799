#!/bin/bash
# SPDX-License-Identifier: MIT
# Milestone 5 of Mesa's asahi driver on the embedded GPU: Debian's Chromium,
# live, renders a WebGL 2 page with a GPU renderer — ANGLE on EGL over Mesa's
# asahi driver, through the shim's render node, our kernel driver and the
# model — under `tessera capture`, and the capture replays to the same image.
#
# Chromium runs headless (Ozone's headless platform: EGL surfaceless, no X
# server; --in-process-gpu keeps the GPU in the captured process) on
# tests/gl/webgl/static.html, a page that draws one WebGL frame and stops.
# Checks:
#   chromium-gpu-renderer   WebGL's unmasked renderer is "ANGLE (Mesa, Apple
#                           M…" (not SwiftShader, not llvmpipe)
#   chromium-vs-llvmpipe    the live screenshot matches the same page on the
#                           system's Mesa llvmpipe (>= 99.9 % of pixels within
#                           2 LSB: text antialiasing and filtering round
#                           differently)
#   chromium-replay-image   `tessera replay --per-submit --dump-images` of the
#                           capture: the browser window the GPU drew last holds
#                           the live screenshot's page, bit-identical (below
#                           the toolbar's shadow; tests/gl/lib/window_page.py)
#   chromium-replay-validate `tessera replay --validate`: every page the GPU
#                           wrote in the replay equals what the live GPU wrote
#                           (headless Chromium never swaps: the capture ends a
#                           frame at every submission, --frame-on submit, so
#                           the layer records each submission's GPU results)
#   chromium-dump-decodes   `tessera dump` decodes every stream with no
#                           unknown field or instruction bits
# Sync files (SYNCOBJ sync-file export/import, SYNC_IOC_MERGE) carry
# Chromium's fences between its contexts here; a failed export shows as
# "export failed" from Mesa and fails the first check.
. "$(dirname "$0")/lib/common.sh"
command -v chromium > /dev/null || { echo "missing chromium (scripts/install-deps)"; exit 1; }
[ -e "$top/build/mesa-asahi/lib/libEGL.so.1" ] ||
    { echo "missing build/mesa-asahi: build the release variant first (make)"; exit 1; }

page="file://$top/tests/gl/webgl/static.html"
chromium_run() { # OUT_PNG LOG [prefix...]
    local png=$1 log=$2
    shift 2
    rm -rf "$work/profile"
    timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$@" chromium --headless --no-sandbox \
        --disable-gpu-sandbox --use-gl=angle --use-angle=gl-egl --enable-gpu \
        --ignore-gpu-blocklist --in-process-gpu --enable-logging=stderr \
        --disable-background-networking --disable-component-update --no-first-run \
        --user-data-dir="$work/profile" --window-size=400,320 --virtual-time-budget=5000 \
        --screenshot="$png" "$page" > "$log" 2>&1
}

# the reference: the same page on the system's llvmpipe (no tessera at all)
chromium_run "$work/llvmpipe.png" "$work/llvmpipe.log" env -u LD_PRELOAD -u LD_LIBRARY_PATH \
    -u LIBGL_DRIVERS_PATH GALLIUM_DRIVER=llvmpipe
grep -q 'WEBGL-INFO ANGLE (Mesa.*llvmpipe' "$work/llvmpipe.log" ||
    { grep -E 'WEBGL|ERROR' "$work/llvmpipe.log" | head -n 5; echo "the llvmpipe reference run did not get a WebGL context"; exit 1; }

# live, on Mesa's asahi on the model, under capture
chromium_run "$work/asahi.png" "$work/asahi.log" \
    "$tessera" capture --frame-on submit -q -o "$work/chromium.tsr" -- "$tessera" run --driver asahi --
rc=$?
info=$(grep -o 'WEBGL-INFO [^"]*' "$work/asahi.log")
echo "asahi: ${info:-no WEBGL-INFO line} (exit $rc)"
if [ $rc = 0 ] && grep -q 'WEBGL-INFO ANGLE (Mesa, Apple M[0-9]' "$work/asahi.log" &&
   grep -q WEBGL-DONE "$work/asahi.log" && ! grep -qE 'export failed|GPU job error' "$work/asahi.log"; then
    result ok chromium-gpu-renderer
else
    grep -E 'export failed|GPU job error|ERROR' "$work/asahi.log" | grep -v dbus | head -n 5
    result FAILED chromium-gpu-renderer "Chromium did not render WebGL on Mesa's asahi (see above)"
fi

if [ -s "$work/asahi.png" ] &&
   "$tessera" compare images --tolerance 2 --max-diff-fraction 0.001 "$work/llvmpipe.png" "$work/asahi.png"; then
    result ok chromium-vs-llvmpipe
else
    result FAILED chromium-vs-llvmpipe "the live page differs from llvmpipe's"
fi

if "$tessera" replay "$work/chromium.tsr" --per-submit --dump-images "$work/img" --quiet > "$work/replay.log" 2>&1 &&
   python3 "$top/tests/gl/lib/window_page.py" "$work/img" "$work/asahi.png" 8 "$work/live-page.png" "$work/replay-page.png" &&
   "$tessera" compare images "$work/live-page.png" "$work/replay-page.png"; then
    result ok chromium-replay-image
else
    tail -n 3 "$work/replay.log"
    result FAILED chromium-replay-image "the replayed window does not hold the live page"
fi

if "$tessera" replay "$work/chromium.tsr" --validate > "$work/validate.log" 2>&1 &&
   grep -q 'validation passed' "$work/validate.log"; then
    tail -n 1 "$work/validate.log"
    result ok chromium-replay-validate
else
    tail -n 3 "$work/validate.log"
    result FAILED chromium-replay-validate "the replay differs from the live run"
fi

if "$tessera" dump "$work/chromium.tsr" > "$work/dump.txt" 2> "$work/dump.err"; then
    bad=$(grep -E 'unknown bits|[1-9][0-9]* (errors|warnings)|: unknown 0x' "$work/dump.txt" | sort | uniq -c)
    if [ -z "$bad" ]; then result ok chromium-dump-decodes
    else echo "$bad" | head -n 10; result FAILED chromium-dump-decodes "undecoded content in the dump"; fi
else
    tail -n 5 "$work/dump.err"
    result FAILED chromium-dump-decodes "tessera dump failed"
fi
finish
