# SPDX-License-Identifier: MIT
# Shared by scripts/gl-trace-check, scripts/demo, bench/gl_replay and
# tests/gl/*.sh: where the GL workloads are, how to run a GL program on each
# driver, and which renderer a replay really got. Source it with `top` set to
# the checkout (TESSERA may name the tessera binary).
#
# Drivers:
#   tessera     the tessera Gallium driver on the render node of the shim
#               (`tessera run`: EGL finds the node, kernel driver "asahi")
#   tessera-sw  the same driver through the software winsys (`tessera run --sw`)
#   asahi       Mesa's own asahi driver (Mesa 25.0.7 ported to the upstream
#               uAPI, build/mesa-asahi) on the same render node
#               (`tessera run --driver asahi`)
#   softpipe    Mesa's reference rasterizer from our own Mesa build
#               (`tessera run --driver softpipe`)
#   llvmpipe    the system's Mesa (Debian's libEGL/libGLESv2), no tessera run
#
# Why the renderer is checked: when a hardware driver fails to create its
# screen, Mesa's eglInitialize silently retries with software rendering, so a
# replay "on tessera" can run on softpipe and pass. gl_renderer asks the
# replay itself (eglretrace --dump-state right after the first MakeCurrent).

gl_tessera=${TESSERA:-$top/build/release/bin/tessera}
gl_drivers="tessera tessera-sw asahi softpipe llvmpipe"

# The shared workloads folder: $TESSERA_WORKLOADS, else ../shared/workloads
# beside the checkout. Prints it, or an error and returns 1.
gl_workloads() {
    local w=${TESSERA_WORKLOADS:-}
    if [ -z "$w" ]; then
        w=$(cd "$top/.." && pwd)/shared/workloads
    fi
    if [ ! -d "$w/traces" ] || [ ! -d "$w/reference" ]; then
        echo "GL workloads not found at $w (set TESSERA_WORKLOADS to the folder holding traces/ and reference/)" >&2
        return 1
    fi
    echo "$w"
}

gl_check_driver() {
    case " $gl_drivers " in
        *" $1 "*) return 0 ;;
    esac
    echo "unknown driver '$1' (one of: $gl_drivers)" >&2
    return 1
}

# gl_prefix DRIVER: sets the array GL_PREFIX to the command prefix that runs
# a program on DRIVER, headless EGL (WAFFLE_PLATFORM for apitrace, EGL_PLATFORM
# for the mesa-utils programs; callers may set either). Settings inherited
# from the caller that would pick another driver are dropped. Every element
# execs the next, so the program keeps the pid the prefix started with
# (`tessera capture -- "${GL_PREFIX[@]}" PROG` records PROG as its root).
gl_prefix() {
    local unset=(-u LIBGL_ALWAYS_SOFTWARE -u GALLIUM_DRIVER -u MESA_LOADER_DRIVER_OVERRIDE)
    local set=(WAFFLE_PLATFORM=${WAFFLE_PLATFORM:-surfaceless_egl}
               EGL_PLATFORM=${EGL_PLATFORM:-surfaceless})
    case "$1" in
        tessera)    GL_PREFIX=(env "${unset[@]}" "${set[@]}" "$gl_tessera" run --) ;;
        tessera-sw) GL_PREFIX=(env "${unset[@]}" "${set[@]}" "$gl_tessera" run --sw --) ;;
        asahi)      GL_PREFIX=(env "${unset[@]}" "${set[@]}" "$gl_tessera" run --driver asahi --) ;;
        softpipe)   GL_PREFIX=(env "${unset[@]}" "${set[@]}" "$gl_tessera" run --driver softpipe --) ;;
        llvmpipe)   GL_PREFIX=(env "${unset[@]}" -u LD_LIBRARY_PATH -u LIBGL_DRIVERS_PATH "${set[@]}"
                               LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=llvmpipe) ;;
        *) gl_check_driver "$1"; return 2 ;;
    esac
}

# gl_run DRIVER PROGRAM [ARGS...]: runs PROGRAM on DRIVER (see gl_prefix).
gl_run() {
    local GL_PREFIX
    gl_prefix "$1" || return 2
    shift
    "${GL_PREFIX[@]}" "$@"
}

# gl_swap_calls TRACEFILE: the call numbers of the trace's SwapBuffers calls,
# one a line, in order: line F+1 is the call that ends frame F, the name
# eglretrace -s gives frame F's snapshot.
gl_swap_calls() {
    apitrace dump "$1" 2>/dev/null | sed -nE 's/^([0-9]+) (egl|glX)SwapBuffers\(.*/\1/p'
}

# The renderer string a driver must report (extended regexp, case-insensitive).
gl_renderer_pattern() {
    case "$1" in
        tessera|tessera-sw) echo 'tessera' ;;
        # Mesa's asahi names the GPU: "Apple M1 (G13G A0)"
        asahi) echo '^Apple M[0-9]' ;;
        softpipe) echo 'softpipe' ;;
        llvmpipe) echo 'llvmpipe' ;;
    esac
}

# gl_renderer DRIVER TRACEFILE: prints the GL_RENDERER of the context the
# replay of TRACEFILE gets on DRIVER (state dumped at the trace's first draw
# call, else at the call after the first eglMakeCurrent/glXMakeCurrent with a
# context), or nothing if none. (At the first draw a program is bound; a
# state dump before it makes Mesa build its fixed-function vertex program,
# which Mesa 25.0.7's asahi compiler crashes on: docs/driver.md.)
gl_renderer() {
    local driver=$1 trace=$2 call
    call=$(apitrace dump --calls=0-20000 "$trace" 2>/dev/null |
           grep -m1 -E '^[0-9]+ gl(Multi)?Draw' | cut -d' ' -f1)
    if [ -z "$call" ]; then
        call=$(apitrace dump --calls=0-20000 "$trace" 2>/dev/null |
               grep -m1 -E '^[0-9]+ (egl|glX)MakeCurrent\(.*(ctx) = 0x' | cut -d' ' -f1)
        [ -n "$call" ] || return 0
        call=$((call + 1))
    fi
    gl_run "$driver" eglretrace --headless -D "$call" "$trace" 2>/dev/null |
        sed -n 's/^ *"GL_RENDERER": "\(.*\)",\{0,1\}$/\1/p' | head -n1
}

# gl_require_renderer DRIVER TRACEFILE: 0 if the replay's renderer is
# DRIVER's, else a message on stderr naming what it got.
gl_require_renderer() {
    local r
    r=$(gl_renderer "$1" "$2")
    if [ -z "$r" ]; then
        echo "no GL context on $1: eglretrace could not create one (run it by hand: the driver did not load?)" >&2
        return 1
    fi
    if ! echo "$r" | grep -qiE "$(gl_renderer_pattern "$1")"; then
        echo "the replay's renderer is '$r', not $1's (Mesa fell back to another driver: $1 failed to load)" >&2
        return 1
    fi
    echo "$r"
}

# gl_context_request TRACEFILE: the context the trace's first context creation
# asks for, one line "API MAJOR MINOR PROFILE": API "es" or "gl"; MAJOR.MINOR
# 0.0 when the call names no version (glXCreateContext, glXCreateNewContext:
# any legacy GL); PROFILE "core" or "compat" (GL), "-" (ES). Nothing if the
# trace creates no context.
gl_context_request() {
    apitrace dump "$1" 2>/dev/null |
        grep -m1 -E '^[0-9]+ (egl|glX)Create(New)?Context(AttribsARB)?\(' |
        awk '{
            api = $2 ~ /^egl/ ? "es" : "gl"; maj = 0; mnr = 0; prof = api == "es" ? "-" : "compat"
            if (match($0, /(EGL_CONTEXT_MAJOR_VERSION|EGL_CONTEXT_CLIENT_VERSION|GLX_CONTEXT_MAJOR_VERSION_ARB), [0-9]+/)) {
                n = split(substr($0, RSTART, RLENGTH), a, ", "); maj = a[n] }
            if (match($0, /(EGL_CONTEXT_MINOR_VERSION|GLX_CONTEXT_MINOR_VERSION_ARB), [0-9]+/)) {
                n = split(substr($0, RSTART, RLENGTH), a, ", "); mnr = a[n] }
            if ($0 ~ /CONTEXT_CORE_PROFILE_BIT/) prof = "core"
            if (api == "es" && maj == 0) maj = 1
            print api, maj, mnr, prof
        }'
}

# gl_version_override API MAJOR MINOR PROFILE: the Mesa environment that makes
# a driver offer that context version (MESA_GL_VERSION_OVERRIDE and
# MESA_GLSL_VERSION_OVERRIDE, or MESA_GLES_VERSION_OVERRIDE), as VAR=VALUE
# words; nothing for a context with no version.
gl_version_override() {
    local api=$1 maj=$2 mnr=$3 prof=$4 glsl
    [ "$maj" != 0 ] || return 0
    if [ "$api" = es ]; then
        echo "MESA_GLES_VERSION_OVERRIDE=$maj.$mnr"
        return 0
    fi
    case "$maj.$mnr" in
        2.0) glsl=110 ;; 2.1) glsl=120 ;; 3.0) glsl=130 ;; 3.1) glsl=140 ;; 3.2) glsl=150 ;;
        *) glsl=$maj${mnr}0 ;;
    esac
    # Mesa reads X.Y as core for 3.2 and later; COMPAT asks for the compatibility profile
    if [ "$prof" = compat ] && [ "$maj$mnr" -ge 32 ]; then
        echo "MESA_GL_VERSION_OVERRIDE=$maj.${mnr}COMPAT MESA_GLSL_VERSION_OVERRIDE=$glsl"
    else
        echo "MESA_GL_VERSION_OVERRIDE=$maj.$mnr MESA_GLSL_VERSION_OVERRIDE=$glsl"
    fi
}

# Reference snapshots of a trace: "frame call file" per line, in call order,
# stable frames only (frames.tsv marks unstable ones).
gl_ref_frames() { # WORKLOADS NAME
    local ref=$1/reference/$2
    local f call frame
    for f in "$ref"/llvmpipe/*.png; do
        [ -e "$f" ] || continue
        call=$(basename "$f" .png)
        call=$((10#$call))
        frame=$(awk -F'\t' -v c="$call" 'NR > 1 && $2 == c { print $1 " " $6; exit }' "$ref/frames.tsv" 2>/dev/null)
        [ -n "$frame" ] || frame="? yes"
        case "$frame" in
            *" no") continue ;;
        esac
        echo "${frame%% *}" "$call" "$f"
    done
}

# gl_png_size FILE: "WxH" from the PNG header (IHDR: bytes 16..23, big-endian).
gl_png_size() {
    od -An -tu1 -j16 -N8 "$1" 2>/dev/null |
        awk 'NF == 8 { printf "%dx%d\n", (($1 * 256 + $2) * 256 + $3) * 256 + $4, (($5 * 256 + $6) * 256 + $7) * 256 + $8 }'
}

# gl_pair_frames SWAPS LIVE REPLAY OUT: pairs eglretrace's snapshots of a live
# run (LIVE/<call>.png, one per swap call listed in the file SWAPS, as
# gl_swap_calls prints them) with `tessera replay --dump-images REPLAY` of
# its capture: for frame F, the colour target of the snapshot's size that was
# written last in frame F (REPLAY/fFFFF_sSSSSS_colorN*.png, highest S), i.e.
# the back buffer eglretrace read. Makes OUT/live/frameFFFF.png and
# OUT/replay/frameFFFF.png (symbolic links) for `tessera compare images
# OUT/live OUT/replay`. Frames whose live snapshot is absent are skipped.
# Prints one line per frame without a match and returns the number of them.
gl_pair_frames() {
    local swaps=$1 live=$2 replay=$3 out=$4 f=0 missing=0 call snap size best img
    mkdir -p "$out/live" "$out/replay"
    while read -r call; do
        snap=$live/$(printf '%010d' "$call").png
        if [ -f "$snap" ]; then
            size=$(gl_png_size "$snap")
            best=""
            for img in "$replay"/$(printf 'f%04d' "$f")_s*_color*.png; do
                [ -e "$img" ] || continue
                [ "$(gl_png_size "$img")" = "$size" ] && best=$img   # sorted by S: the last wins
            done
            if [ -n "$best" ]; then
                ln -sf "$(cd "$(dirname "$snap")" && pwd)/$(basename "$snap")" "$out/live/$(printf 'frame%04d' "$f").png"
                ln -sf "$(cd "$(dirname "$best")" && pwd)/$(basename "$best")" "$out/replay/$(printf 'frame%04d' "$f").png"
            else
                echo "frame $f (call $call): no ${size} colour target in the replay's dump"
                missing=$((missing + 1))
            fi
        fi
        f=$((f + 1))
    done < "$swaps"
    return $((missing > 255 ? 255 : missing))
}
