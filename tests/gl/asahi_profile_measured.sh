#!/bin/bash
# SPDX-License-Identifier: MIT
# `tessera profile`'s measured per-pass times (docs/profiling.md, "Modelled
# and measured") on real GL captures: eglretrace replays the es2gears
# apitrace trace on Mesa's asahi driver under `tessera capture`, twice:
# as is (a release Mesa asks the firmware for no timestamps: `tessera
# dump` shows every ts_* handle 0) and with ASAHI_MESA_DEBUG=sync (Mesa's
# "feedback": each render command's ts_vtx.start and ts_frag.end), then
# the tessera driver's capture (it stamps every pass).
# Checks (tests/gl/profile_measured_check.py reads the JSON):
#   measured-not-recorded  the plain asahi capture: every pass's
#                          measured_ns null, the text says "not recorded"
#   measured-asahi         the feedback capture: meta.measured_source
#                          "model", timestamp_hz 24 MHz; every render pass
#                          measured, positive, span "vertex start to
#                          fragment end", exactly (end - start) * 1e9 / hz
#                          of the values its submission's COMPLETION
#                          recorded (`tessera dump --times`), i.e. what the
#                          model's firmware stamped during the capture; within
#                          1 % of the modelled time and of the replay's own
#                          stamps (gpu_ns); the text shows them; the HTML
#                          page embeds them
#   measured-tessera       the same on the tessera driver's capture
export GL_TEST_DRIVER=asahi
. "$(dirname "$0")/lib/common.sh"

checks="measured-not-recorded measured-asahi measured-tessera"
[ -e "$top/build/mesa-asahi/lib/libEGL.so.1" ] ||
    abort "missing build/mesa-asahi: build the release variant first (make)"
trace=$workloads/traces/es2gears.trace
frames=0-9
cap() { # OUT DRIVER [ENV...]
    local out=$1 drv=$2 GL_PREFIX
    shift 2
    gl_prefix "$drv"
    env -u ASAHI_MESA_DEBUG "$@" timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$tessera" capture -q \
        -o "$out" -- "${GL_PREFIX[@]}" eglretrace --headless "$trace" > "$work/live.log" 2>&1 ||
        { tail -n 5 "$work/live.log"; abort "the captured eglretrace ($drv $*) failed"; }
}
chk() { python3 "$top/tests/gl/profile_measured_check.py" "$@"; }

# as is: no timestamps asked for
cap "$work/plain.tsr" asahi
"$tessera" profile "$work/plain.tsr" --frames $frames --json > "$work/plain.json" 2> "$work/plain.err" ||
    abort "profile failed: $(cat "$work/plain.err")"
"$tessera" profile "$work/plain.tsr" --frames $frames > "$work/plain.txt" 2>&1 || abort "text profile failed"
ok=1
chk none "$work/plain.json" || ok=0
grep -q '^    measured: not recorded' "$work/plain.txt" || { echo "text: no 'not recorded'"; ok=0; }
if [ $ok = 1 ]; then check ok measured-not-recorded; else check FAILED measured-not-recorded; fi

# measured: the capture's timestamps against `tessera dump --times`
measured() { # NAME TRACE
    local name=$1 t=$2 ok=1
    "$tessera" profile "$t" --frames $frames --json --html "$work/$name-html" > "$work/$name.json" \
        2> "$work/$name.err" || { cat "$work/$name.err"; ok=0; }
    "$tessera" profile "$t" --frames $frames > "$work/$name.txt" 2>&1 || ok=0
    "$tessera" dump --times "$t" > "$work/$name.dump" 2>&1 || ok=0
    chk measured "$work/$name.json" "$work/$name.dump" || ok=0
    grep -Eq '^    measured: [0-9.]+ us \(vertex start to fragment end\)' "$work/$name.txt" ||
        { echo "$name: no measured time in the text"; ok=0; }
    grep -q "stamped by the model's firmware" "$work/$name.txt" || { echo "$name: source not named"; ok=0; }
    grep -q '"measured_ns": [1-9]' "$work/$name-html/index.html" || { echo "$name: not in the page"; ok=0; }
    if [ $ok = 1 ]; then check ok "measured-$name"; else check FAILED "measured-$name"; fi
}
cap "$work/sync.tsr" asahi ASAHI_MESA_DEBUG=sync
measured asahi "$work/sync.tsr"
cap "$work/tessera.tsr" tessera
measured tessera "$work/tessera.tsr"
finish
