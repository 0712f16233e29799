#!/bin/bash
# SPDX-License-Identifier: MIT
# sRGB render targets with GL_FRAMEBUFFER_SRGB on Mesa's asahi driver
# (issue 12; docs/texture.md, tilebuffer memory formats): piglit programs run live under
# `tessera capture` (-fbo: surfaceless has no window) and must pass;
# `tessera replay --validate` of each capture must then reproduce every
# page the GPU wrote. Before the model fix every one read back darkened
# values (0.5 as 0.2157): the end-of-tile program's image_write_block of an
# srgba8 tilebuffer through Mesa's linear PBE decoded the sRGB bytes
# instead of carrying them.
unset ASAHI_MESA_DEBUG
. "$(dirname "$0")/lib/common.sh"
bin=/usr/lib/x86_64-linux-gnu/piglit/bin
[ -d "$bin" ] || { echo "missing piglit (scripts/install-deps)"; exit 1; }
unset DISPLAY WAYLAND_DISPLAY
export PIGLIT_PLATFORM=surfaceless_egl
gl_prefix asahi

# name|program and arguments
cases=(
    "draw|framebuffer-srgb"
    "conformance|arb_framebuffer_srgb-srgb_conformance"
    "fast-clear-blend|arb_framebuffer_srgb-fast-clear-blend"
    "msaa-blit|arb_framebuffer_srgb-blit renderbuffer srgb msaa enabled clear"
    "downsample-blit|arb_framebuffer_srgb-blit renderbuffer srgb downsample enabled clear"
)
for c in "${cases[@]}"; do
    name=${c%%|*} cmd=${c#*|}
    # shellcheck disable=SC2086 # cmd is a program and its arguments
    timeout -k 10 600 "$tessera" capture -q -o "$work/$name.tsr" -- \
        "${GL_PREFIX[@]}" $bin/$cmd -auto -fbo > "$work/$name.log" 2>&1
    if grep -q '"result": "pass"' "$work/$name.log" &&
       ! grep -qE 'GPU job error|GPU fault' "$work/$name.log"; then
        result ok "srgb-targets-$name"
    else
        grep -E 'GPU job error|GPU fault|Probe|result' "$work/$name.log" | head -n 3
        result FAILED "srgb-targets-$name" "piglit $cmd did not pass live on asahi"
        continue
    fi
    if "$tessera" replay "$work/$name.tsr" --validate > "$work/$name-validate.log" 2>&1 &&
       grep -q 'validation passed' "$work/$name-validate.log"; then
        result ok "srgb-targets-$name-replay"
    else
        tail -n 3 "$work/$name-validate.log"
        result FAILED "srgb-targets-$name-replay" "replay --validate of the capture failed"
    fi
done
finish
