#!/bin/bash
# SPDX-License-Identifier: MIT
# Fragment tiles must not depend on the order the model's host threads run
# them in. Mesa's asahi driver reads a 1D array texture back into a PBO with
# one render pass of 32x1 pixels per layer; each quad's second row is a
# helper row, whose image writes would land in the next layer's row of the
# PBO. The hardware predicates helpers' stores (the model did not: piglit
# getteximage-targets 1D_ARRAY failed in 5-56 % of runs with >= 2 threads,
# byte 513 reading 8 instead of 41, whenever tile 4 ran before tile 3's
# helpers on another thread). TESSERA_HW_TILE_STALL=3:100 holds layer 3's
# tile back so that, with two threads, the tiles after it run first every
# time: the test then fails deterministically without the fix. Each case
# runs RUNS times (default 3) and must pass every time.
. "$(dirname "$0")/lib/common.sh"

bin=/usr/lib/x86_64-linux-gnu/piglit/bin
runs=${RUNS:-3}
[ "$driver" = tessera ] && driver=asahi   # Mesa's asahi driver's PBO download
[ -x "$bin/getteximage-targets" ] || { result skip tile-order "missing $bin/getteximage-targets (piglit)"; finish; exit; }

# name|threads|stall|program and arguments
cases=(
    "1d-array-stalled|2|3:100|getteximage-targets 1D_ARRAY"
    "1d-array|2||getteximage-targets 1D_ARRAY"
    "2d-array-stalled|2|3:100|getteximage-targets 2D_ARRAY"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name threads stall cmd <<< "$c"
    bad=0 why=
    for i in $(seq 1 "$runs"); do
        log=$work/$name.$i.log
        # shellcheck disable=SC2086
        TESSERA_HW_THREADS=$threads TESSERA_HW_TILE_STALL=$stall PIGLIT_PLATFORM=surfaceless_egl \
            gl_run "$driver" timeout 300 "$bin"/$cmd -auto -fbo > "$log" 2>&1
        if ! grep -q '"result": "pass"' "$log"; then
            bad=$((bad + 1))
            msg=$(grep -m1 -A3 'incorrect' "$log" | tr -s ' \n' ' ')
            [ -n "$msg" ] || msg=$(tail -n 2 "$log" | tr '\n' ' ')
            why="run $i: $msg"
        fi
    done
    if [ "$bad" -eq 0 ]; then
        result ok "tile-order-$name"
    else
        result FAILED "tile-order-$name" "$bad of $runs runs failed ($why)"
    fi
done
finish
