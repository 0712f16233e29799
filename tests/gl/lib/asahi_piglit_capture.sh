# SPDX-License-Identifier: MIT
# Sourced after lib/common.sh by the asahi_*_targets / asahi_interpolation
# checks: piglit programs run live on Mesa's asahi driver under
# `tessera capture` (-fbo: surfaceless has no window) and must pass without
# a GPU job error or fault; `tessera replay --validate` of each capture must
# then reproduce every page the GPU wrote.
#
# asahi_piglit_capture PREFIX "NAME|PROGRAM ARGS" ...
#   one check PREFIX-NAME (live) and PREFIX-NAME-replay per case.
asahi_piglit_capture() {
    local prefix=$1 bin=/usr/lib/x86_64-linux-gnu/piglit/bin c name cmd
    shift
    [ -d "$bin" ] || { echo "missing piglit (scripts/install-deps)"; exit 1; }
    unset DISPLAY WAYLAND_DISPLAY ASAHI_MESA_DEBUG
    export PIGLIT_PLATFORM=surfaceless_egl
    gl_prefix asahi
    for c in "$@"; do
        name=${c%%|*} cmd=${c#*|}
        # shellcheck disable=SC2086 # cmd is a program and its arguments
        timeout -k 10 600 "$tessera" capture -q -o "$work/$name.tsr" -- \
            "${GL_PREFIX[@]}" $bin/$cmd -auto -fbo > "$work/$name.log" 2>&1
        if grep -q '"result": "pass"' "$work/$name.log" &&
           ! grep -qE 'GPU job error|GPU fault' "$work/$name.log"; then
            result ok "$prefix-$name"
        else
            grep -E 'GPU job error|GPU fault|Probe|result' "$work/$name.log" | head -n 3
            result FAILED "$prefix-$name" "piglit $cmd did not pass live on asahi"
            continue
        fi
        if "$tessera" replay "$work/$name.tsr" --validate > "$work/$name-validate.log" 2>&1 &&
           grep -q 'validation passed' "$work/$name-validate.log"; then
            result ok "$prefix-$name-replay"
        else
            tail -n 3 "$work/$name-validate.log"
            result FAILED "$prefix-$name-replay" "replay --validate of the capture failed"
        fi
    done
}
