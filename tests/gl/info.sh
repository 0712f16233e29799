#!/bin/bash
# SPDX-License-Identifier: MIT
# Which driver GL programs get, on every path `tessera run` offers:
#   render-node path (tessera run):   eglinfo's surfaceless display is driven
#       by the DRI driver of the shim's node (kernel driver "asahi"), and a GLES
#       context (eglretrace, state dumped after MakeCurrent) reports the
#       tessera renderer;
#   sw path (tessera run --sw):       eglinfo's surfaceless display is swrast,
#       and the GLES context reports the tessera renderer (GALLIUM_DRIVER);
#   X11 under our own Xvfb (no DRI3, so the sw path): es2_info (EGL on X11)
#       and glxinfo (GLX) report the tessera renderer.
# Mesa falls back to software rendering when a driver fails to load, so each
# check looks at the renderer string, not only at success.
# GL_TEST_DRIVER=softpipe runs the same checks with softpipe on every path.
. "$(dirname "$0")/lib/common.sh"

if [ "$driver" = tessera ] || [ "$driver" = tessera-sw ]; then
    rn=tessera sw=tessera-sw rn_dri='asahi|tessera'
else
    rn=$driver sw=$driver rn_dri='swrast|kms_swrast'
fi
pat=$(gl_renderer_pattern "$sw")
tri=$workloads/traces/es2tri.trace

# egl_driver_name DRIVER: "EGL driver name" of eglinfo's surfaceless display.
egl_driver_name() {
    EGL_PLATFORM=surfaceless gl_run "$1" timeout 120 eglinfo > "$work/eglinfo-$1.txt" 2>&1
    awk '/^Surfaceless platform:/ { s = 1; next } /platform:$/ { s = 0 }
         s && /^EGL driver name:/ { print $4; exit }' "$work/eglinfo-$1.txt"
}

check_eglinfo() { # NAME DRIVER EXPECTED-ERE
    local n
    n=$(egl_driver_name "$2")
    echo "$1: eglinfo (surfaceless) driver name: ${n:-none}"
    if echo "$n" | grep -qxE "$3"; then result ok "$1"
    else
        grep -iE 'warning|error|fail' "$work/eglinfo-$2.txt" | head -n 5
        result FAILED "$1" "surfaceless EGL driver is '${n:-none}', want $3"
    fi
}

check_renderer() { # NAME DRIVER
    local r
    if r=$(gl_require_renderer "$2" "$tri" 2> "$work/renderer.err"); then
        echo "$1: GL_RENDERER: $r"
        result ok "$1"
    else
        result FAILED "$1" "$(cat "$work/renderer.err")"
    fi
}

check_eglinfo eglinfo-render-node "$rn" "$rn_dri"
check_renderer renderer-render-node "$rn"
check_eglinfo eglinfo-sw "$sw" 'swrast|kms_swrast'
check_renderer renderer-sw "$sw"

# Our own X server on a free display (-displayfd picks one and reports it).
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
    result FAILED es2_info-x11 "Xvfb did not start"
    result FAILED glxinfo-x11 "Xvfb did not start"
else
    export DISPLAY=:$(head -n1 "$work/display")
    echo "Xvfb on $DISPLAY (pid $xvfb)"
    EGL_PLATFORM=x11 gl_run "$sw" timeout 120 es2_info > "$work/es2_info.txt" 2>&1
    r=$(sed -n 's/^GL_RENDERER: *//p' "$work/es2_info.txt")
    echo "es2_info-x11: GL_RENDERER: ${r:-none}"
    if [ -n "$r" ] && echo "$r" | grep -qiE "$pat"; then result ok es2_info-x11
    else tail -n 5 "$work/es2_info.txt"; result FAILED es2_info-x11 "renderer '${r:-none}', want $pat"; fi

    gl_run "$sw" timeout 120 glxinfo -B > "$work/glxinfo.txt" 2>&1
    r=$(sed -n 's/^OpenGL renderer string: *//p' "$work/glxinfo.txt")
    echo "glxinfo-x11: OpenGL renderer string: ${r:-none}"
    if [ -n "$r" ] && echo "$r" | grep -qiE "$pat"; then result ok glxinfo-x11
    else tail -n 5 "$work/glxinfo.txt"; result FAILED glxinfo-x11 "renderer '${r:-none}', want $pat"; fi
fi
finish
