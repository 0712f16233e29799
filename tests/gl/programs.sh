#!/bin/bash
# SPDX-License-Identifier: MIT
# tessera's own GL test programs (tests/gl/module.mk builds them into
# build/release/bin), each checked pixel by pixel against values it computes:
#   gl_basic        draw tests (clear ... overflow, mrt, query)
#   gl_resources    texture formats, mip chains, cubes, depth/stencil,
#                   dma-buf round trip, fences
#   gl_glsl_e2e     GLSL ES cases compared with CPU values
#   gl_desktop      desktop GL 2.1 (compatibility, EGL_OPENGL_API): client-side
#                   BGRA arrays (the Minetest crash), wide index ranges,
#                   ARB_shadow, 3D textures
#   gl_present_x11  presentation of an X11 window (XGetImage)
#   gl_fork         GL across fork() and fork+exec: the child's inherited
#                   node fd fails with EIO, a new open in the child draws,
#                   an exec'd child gets the shim (render-node path only:
#                   the sw path has no node)
# Surfaceless programs run on the render-node path (`tessera run`) and the sw
# path (`tessera run --sw`); gl_basic once more on the render-node path with
# a 16 KiB TVB (TESSERA_SHIM_TVB_KB), where its overflow test must cause
# partial renders; gl_present_x11 under our own Xvfb, through both commands
# (Xvfb has no DRI3, so plain `tessera run` takes the sw path there too: it
# checks that an X11 program started the default way presents).
#
# One gl-result per program and path. A run passes when the program exits 0,
# prints at least one PASS and no FAIL line, and reports the expected
# renderer (Mesa silently falls back to another driver when one fails to
# load). Failing cases are listed in the log. A skipped case ("SKIP: CASE
# (why)": a cap or extension is off) is not a failure of the run but is
# not a pass either: it gets its own "gl-result: skip PROGRAM-PATH/CASE"
# (counted as skipped, a failure with CI=true), unless expected_skips below
# lists it: a case the driver cannot offer on that path by design, where
# the SKIP is the expected answer (as piglit.sh's expectations); such an
# expected skip that does not happen fails the run (remove the entry).
# GL_TEST_DRIVER=softpipe (or llvmpipe) runs every program once on that driver.
. "$(dirname "$0")/lib/common.sh"

bin=$top/build/release/bin
for p in gl_basic gl_resources gl_glsl_e2e gl_desktop gl_present_x11 gl_fork; do
    [ -x "$bin/$p" ] || { echo "missing $bin/$p: build the release variant first (make)"; exit 1; }
done

if [ "$driver" = tessera ] || [ "$driver" = tessera-sw ]; then
    paths="tessera tessera-sw"
else
    paths=$driver
fi
path_name() {
    case "$1" in
        tessera) echo render-node ;;
        tessera-sw) echo sw ;;
        *) echo "$1" ;;
    esac
}

# Expected skips: "PROGRAM-PATH/CASE|why" (tessera's paths only: another
# GL_TEST_DRIVER's skips all count).
expected_skips=(
    # Mesa's GL frontend answers GL_FRAMEBUFFER_UNSUPPORTED for depth and
    # stencil in two renderbuffers (optional in GLES 2), whatever the driver.
    "gl_resources-render-node/DEPTH16 + STENCIL8|separate depth and stencil renderbuffers: unsupported in Mesa"
    "gl_resources-sw/DEPTH16 + STENCIL8|separate depth and stencil renderbuffers: unsupported in Mesa"
    # The sw path has no render node: no EGL_MESA_drm_image, no dma-buf.
    "gl_resources-sw/dma-buf round trip|the sw path has no render node, so no dma-buf"
)

# check NAME DRIVER LOG RC: the verdict on one program run.
check() {
    local name=$1 drv=$2 log=$3 rc=$4 r why=() npass nskip
    r=$(sed -n 's/^\(GL_\)\{0,1\}[Rr][Ee][Nn][Dd][Ee][Rr][Ee][Rr]: *//p' "$log" | head -n1)
    npass=$(grep -c '^PASS' "$log")
    nskip=$(grep -c '^SKIP' "$log")
    echo "$name: renderer '${r:-none}', $npass passed, $nskip skipped, exit $rc"
    local line case_name case_why e skipped=()
    while IFS= read -r line; do
        case_name=${line%% (*}
        case_why=${line#"$case_name"}
        case_why=${case_why# (}
        skipped+=("$case_name")
        for e in "${expected_skips[@]}"; do
            if [ "$name/$case_name" = "${e%%|*}" ]; then
                echo "  $name: expected skip: $case_name (${e#*|})"
                continue 2
            fi
        done
        result skip "$name/${case_name// /-}" "${case_why%)}"
    done < <(sed -n 's/^SKIP: *//p' "$log")
    for e in "${expected_skips[@]}"; do
        e=${e%%|*}
        [ "${e%%/*}" = "$name" ] || continue
        printf '%s\n' "${skipped[@]}" | grep -qxF -- "${e#*/}" ||
            why+=("expected skip of '${e#*/}' did not happen (remove it from expected_skips)")
    done
    if grep -q '^FAIL:' "$log"; then
        grep '^FAIL:' "$log" | sed "s/^/  $name: /"
        why+=("failed: $(sed -n 's/^FAIL: *//p' "$log" | head -n 8 | paste -sd, - | sed 's/,/, /g')")
    fi
    [ "$rc" -eq 0 ] || why+=("exit status $rc")
    [ "$npass" -gt 0 ] || why+=("no PASS line")
    echo "$r" | grep -qiE "$(gl_renderer_pattern "$drv")" ||
        why+=("renderer '${r:-none}' is not $drv's")
    if [ ${#why[@]} -eq 0 ]; then
        result ok "$name"
    else
        tail -n 20 "$log" | sed "s/^/  | /"
        result FAILED "$name" "$(printf '%s; ' "${why[@]}" | sed 's/; $//')"
    fi
}

# run NAME DRIVER PROGRAM [ARGS...] (environment set by the caller).
run() {
    local name=$1 drv=$2 log=$work/$1.log rc=0 t0 t1
    shift 2
    t0=$(date +%s.%N)
    gl_run "$drv" timeout 600 "$@" > "$log" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    echo "$name: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
    check "$name" "$drv" "$log" "$rc"
}

for drv in $paths; do
    pn=$(path_name "$drv")
    for p in gl_basic gl_resources gl_glsl_e2e gl_desktop; do
        run "$p-$pn" "$drv" "$bin/$p"
    done
done

# fork() and fork+exec with the render node (docs/kernel.md, "fork()").
if [ "$driver" = tessera ]; then
    run gl_fork-render-node tessera "$bin/gl_fork"
fi

# Tiny TVB: the overflow test's 16k triangles do not fit, so the kernel must
# split the pass into partial renders that store and reload the tiles.
if [ "$driver" = tessera ]; then
    name=gl_basic-render-node-tvb16k
    TESSERA_SHIM_TVB_KB=16 run "$name" tessera "$bin/gl_basic"
    partial=$(sed -n 's/^ *overflow: \([0-9]*\) partial renders.*/\1/p' "$work/$name.log" | tail -n1)
    echo "$name: ${partial:-no} partial renders"
    if [ "${partial:-0}" -gt 0 ]; then result ok "$name-partial-renders"
    else result FAILED "$name-partial-renders" "the 16 KiB TVB caused no partial render"; fi
fi

# Presentation: our own X server on a free display (-displayfd picks one).
command -v Xvfb > /dev/null || { echo "missing Xvfb (scripts/install-deps)"; exit 1; }
Xvfb -displayfd 3 -screen 0 640x480x24 -nolisten tcp -nolisten unix 3> "$work/display" \
    > "$work/xvfb.log" 2>&1 &
xvfb=$!
gl_cleanup_hooks+=("kill $xvfb 2>/dev/null; wait $xvfb 2>/dev/null")
for _ in $(seq 100); do
    [ -s "$work/display" ] && break
    kill -0 $xvfb 2>/dev/null || break
    sleep 0.1
done
if [ ! -s "$work/display" ]; then
    cat "$work/xvfb.log"
    for drv in $paths; do result FAILED "gl_present_x11-$(path_name "$drv")" "Xvfb did not start"; done
else
    export DISPLAY=:$(head -n1 "$work/display")
    echo "Xvfb on $DISPLAY (pid $xvfb)"
    for drv in $paths; do
        EGL_PLATFORM=x11 run "gl_present_x11-$(path_name "$drv")" "$drv" "$bin/gl_present_x11"
    done
fi
finish
