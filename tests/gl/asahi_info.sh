#!/bin/bash
# SPDX-License-Identifier: MIT
# Milestone 1 of Mesa's asahi driver on the embedded GPU: the screen opens on
# the shim's render node (our kernel driver and GPU model behind it) and
# reports Mesa's asahi renderer with GLES 3.x and desktop GL >= 3.3 contexts.
# Oracles we did not write: mesa-utils' eglinfo, waffle's wflinfo and
# apitrace's eglretrace, each asked what it got. A silent fallback to
# software rendering (llvmpipe) fails every check: the renderer must be
# Mesa's name for the GPU ("Apple M1 (G13G A0)") and the EGL driver "asahi".
. "$(dirname "$0")/lib/common.sh"

if [ ! -e "$top/build/mesa-asahi/lib/libEGL.so.1" ]; then
    echo "missing build/mesa-asahi: build the release variant first (make)"
    exit 1
fi
command -v wflinfo > /dev/null || { echo "missing wflinfo (scripts/install-deps)"; exit 1; }
pat=$(gl_renderer_pattern asahi)

# eglinfo on the surfaceless platform: which EGL driver it loads.
EGL_PLATFORM=surfaceless gl_run asahi timeout 300 eglinfo > "$work/eglinfo.txt" 2>&1
n=$(awk '/^Surfaceless platform:/ { s = 1; next } /platform:$/ { s = 0 }
         s && /^EGL driver name:/ { print $4; exit }' "$work/eglinfo.txt")
echo "eglinfo: EGL driver name: ${n:-none}"
if [ "$n" = asahi ]; then result ok eglinfo-driver
else grep -iE 'error|fail|warn' "$work/eglinfo.txt" | head -n 5; result FAILED eglinfo-driver "want asahi"; fi

# version_at_least "X.Y" MAJOR MINOR
version_at_least() {
    local v=$1 maj min
    maj=${v%%.*} min=${v#*.}
    min=${min%%[!0-9]*}
    [ -n "$maj" ] && [ -n "$min" ] || return 1
    [ "$maj" -gt "$2" ] || { [ "$maj" -eq "$2" ] && [ "$min" -ge "$3" ]; }
}

# wflinfo (waffle, piglit's context layer) asking for exactly these contexts:
# the renderer must be asahi's and the version at least the one asked for.
check_wflinfo() { # NAME MAJOR MINOR ARGS...
    local name=$1 maj=$2 min=$3 r v num
    shift 3
    gl_run asahi timeout 300 wflinfo --platform surfaceless_egl "$@" > "$work/$name.txt" 2>&1
    r=$(sed -n 's/^OpenGL renderer string: *//p' "$work/$name.txt")
    v=$(sed -n 's/^OpenGL version string: *//p' "$work/$name.txt")
    num=$(echo "$v" | grep -oE '[0-9]+\.[0-9]+' | head -n1)
    echo "$name: renderer '${r:-none}', version '${v:-none}'"
    if echo "$r" | grep -qE "$pat" && version_at_least "$num" "$maj" "$min"; then result ok "$name"
    else tail -n 5 "$work/$name.txt"; result FAILED "$name" "want a $pat renderer, version >= $maj.$min"; fi
}
check_wflinfo wflinfo-gles3 3 0 --api gles3
check_wflinfo wflinfo-gl33-core 3 3 --api gl --profile core --version 3.3

# What a replay gets: eglretrace's context for a real trace (es2tri).
if r=$(gl_require_renderer asahi "$workloads/traces/es2tri.trace" 2> "$work/renderer.err"); then
    echo "eglretrace: GL_RENDERER: $r"
    result ok eglretrace-renderer
else
    result FAILED eglretrace-renderer "$(cat "$work/renderer.err")"
fi
# X11 without DRI3 (our own Xvfb): GLX and EGL/x11 take Mesa's drisw path,
# which must give the asahi screen of our patch (agx_sw.c), not llvmpipe.
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
if [ -s "$work/display" ]; then
    for prog in glxinfo es2_info; do
        flag=-B
        [ $prog = es2_info ] && flag=
        DISPLAY=:$(head -n1 "$work/display") EGL_PLATFORM=x11 gl_run asahi $prog $flag > "$work/$prog-x11.txt" 2>&1
        if grep -qE '(renderer string|GL_RENDERER): +Apple M[0-9]' "$work/$prog-x11.txt"; then
            result ok "$prog-x11"
        else
            grep -E 'renderer string|GL_RENDERER|rror' "$work/$prog-x11.txt" | head -n 3
            result FAILED "$prog-x11" "want Apple M* on Xvfb (drisw + GALLIUM_DRIVER=asahi)"
        fi
    done
else
    cat "$work/xvfb.log"
    result FAILED glxinfo-x11 "Xvfb did not start"
fi
finish
