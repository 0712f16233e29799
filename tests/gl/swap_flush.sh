#!/bin/bash
# SPDX-License-Identifier: MIT
# bench-swap-flush.so (bench/swap_flush.c), the flush-only preload behind
# bench/gl_capture_overhead's live+flush baseline, shares the capture
# layer's eglSwapBuffers/dlsym interposition (capture/cap_interpose.h):
# it must see eglretrace's swaps (waffle looks eglSwapBuffers up with dlsym
# on its libEGL handle) and flush before each, and do nothing else.
# eglretrace --headless replaying es2gears (120 swaps) on the tessera
# driver, counting the SUBMIT ioctls the shim logs (TESSERA_SHIM_DEBUG):
# live, the driver merges frames into few render passes (a clear after
# draws stays in the pass: fewer submissions than frames); with the preload
# every frame is a submission of its own, as under `tessera capture`
# (swap-flush-submits), and the program runs to its end
# (swap-flush-program).
. "$(dirname "$0")/lib/common.sh"
checks="swap-flush-program swap-flush-submits"
gl_es2gears_setup
lib=$top/build/release/lib/bench-swap-flush.so
[ -f "$lib" ] || abort "$lib not built (make)"
# DRM_ASAHI_SUBMIT: DRM_COMMAND_BASE (0x40) + 10 (include/drm-uapi/asahi_drm.h)
submits() { grep -c "nr 0x4a -> 0" "$1"; }
TESSERA_SHIM_DEBUG=1 "${GL_PREFIX[@]}" eglretrace --headless "$trace" > "$work/live.txt" 2>&1 ||
    abort "live run failed: $(tail -n 3 "$work/live.txt")"
TESSERA_SHIM_DEBUG=1 LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}" "${GL_PREFIX[@]}" \
    eglretrace --headless "$trace" > "$work/flush.txt" 2>&1
rc=$?
frames=$(sed -n 's/^Rendered \([0-9]*\) frames.*/\1/p' "$work/flush.txt")
if [ $rc = 0 ] && [ "${frames:-0}" -ge 100 ]; then
    check ok swap-flush-program
else
    check FAILED swap-flush-program "exit $rc, ${frames:-no} frames: $(tail -n 3 "$work/flush.txt")"
fi
live=$(submits "$work/live.txt")
flush=$(submits "$work/flush.txt")
echo "SUBMITs: live $live, with bench-swap-flush.so $flush, frames ${frames:-?}"
if [ "${frames:-0}" -ge 100 ] && [ "$flush" -ge "$frames" ] && [ "$live" -lt "$flush" ]; then
    check ok swap-flush-submits
else
    check FAILED swap-flush-submits "live $live, with the preload $flush submissions for ${frames:-?} frames"
fi
finish
