#!/bin/bash
# SPDX-License-Identifier: MIT
# interpolateAtOffset / interpolateAtSample on Mesa's asahi driver (issue
# 12; docs/rendering.md "Coefficient registers"): piglit programs run live
# under `tessera capture` (-fbo: surfaceless has no window) and must pass;
# `tessera replay --validate` of each capture must then reproduce every
# page the GPU wrote. Before the model fixes:
#   at-offset*          wrong from x = 32 on: ldcf returned planes with C at
#                       the window origin, Mesa evaluates them from the
#                       corner of the pixel's 32x32 bin
#   at-sample-*         every sample interpolated at sample 0: iter's sample
#                       index in a register was taken as the register's
#                       number, and sr14 (samples_log2) read 0
unset ASAHI_MESA_DEBUG
. "$(dirname "$0")/lib/common.sh"
bin=/usr/lib/x86_64-linux-gnu/piglit/bin
[ -d "$bin" ] || { echo "missing piglit (scripts/install-deps)"; exit 1; }
unset DISPLAY WAYLAND_DISPLAY
export PIGLIT_PLATFORM=surfaceless_egl
gl_prefix asahi

# name|program and arguments
cases=(
    "at-offset|arb_gpu_shader5-interpolateAtOffset"
    "at-offset-nonconst|arb_gpu_shader5-interpolateAtOffset-nonconst"
    "at-sample-different|arb_gpu_shader5-interpolateAtSample-different"
    "at-sample-different-uniform|arb_gpu_shader5-interpolateAtSample-different uniform"
    "at-sample-position|arb_sample_shading-interpolate-at-sample-position 4"
)
for c in "${cases[@]}"; do
    name=${c%%|*} cmd=${c#*|}
    # shellcheck disable=SC2086 # cmd is a program and its arguments
    timeout -k 10 600 "$tessera" capture -q -o "$work/$name.tsr" -- \
        "${GL_PREFIX[@]}" $bin/$cmd -auto -fbo > "$work/$name.log" 2>&1
    if grep -q '"result": "pass"' "$work/$name.log" &&
       ! grep -qE 'GPU job error|GPU fault' "$work/$name.log"; then
        result ok "interpolation-$name"
    else
        grep -E 'GPU job error|GPU fault|Probe|result' "$work/$name.log" | head -n 3
        result FAILED "interpolation-$name" "piglit $cmd did not pass live on asahi"
        continue
    fi
    if "$tessera" replay "$work/$name.tsr" --validate > "$work/$name-validate.log" 2>&1 &&
       grep -q 'validation passed' "$work/$name-validate.log"; then
        result ok "interpolation-$name-replay"
    else
        tail -n 3 "$work/$name-validate.log"
        result FAILED "interpolation-$name-replay" "replay --validate of the capture failed"
    fi
done
finish
