#!/bin/bash
# SPDX-License-Identifier: MIT
# `tessera profile` on a game's frame: eglretrace replays the shared
# minetest-seed7 apitrace trace (Minetest 5.6.1, 40 frames, 640x480; the
# world is drawn from about frame 20) on Mesa's asahi driver under
# `tessera capture`, and the capture's last two frames are profiled on the
# model (docs/profiling.md, "Walkthrough: minetest").
# Checks (tests/gl/profile_check.py minetest reads the JSON):
#   minetest-profile-frames  frames 38-39 are profiled, each exactly one
#                        640x480 render pass of >= 100 draws (nothing of the
#                        frames replayed only to reach frame 38 leaks in),
#                        and frame 39 profiled alone equals frame 39 of the
#                        pair
#   minetest-profile-sums    per pass, draws + overhead == the pass for every
#                        counter; per draw, cycles == vertex + fragment and
#                        the texture fetches by filter and by format add up
#                        to tex_fetches
#   minetest-profile-top     the most expensive entry is a draw with a
#                        fragment shader and the draw's cycles; the text
#                        report names it first
#   minetest-profile-tex     every textured draw fetches R8G8B8A8 unorm texels,
#                        nearest-filtered without mipmaps (the workload's
#                        minetest.conf: no filtering, no mipmapping)
#   minetest-profile-partial frame 30 profiled on its own (the replay starts at
#                        the keyframe there; its first frame drawing the world
#                        fills the TVB heap once, later ones do not): the
#                        pass has 1 partial render, and the counter names the
#                        one draw that triggered it, a draw that binned
#                        primitives
#   minetest-profile-deterministic  JSON identical with 1 and 4 model threads
#   minetest-profile-html    --html: the page runs in headless Chromium without
#                        a script error and shows the JSON's numbers for both
#                        frames (tests/gl/profile_html_check.py); skipped
#                        without chromium
export GL_TEST_DRIVER=asahi
. "$(dirname "$0")/lib/common.sh"

checks="minetest-profile-frames minetest-profile-sums minetest-profile-top minetest-profile-tex
        minetest-profile-partial minetest-profile-deterministic minetest-profile-html"
[ -e "$top/build/mesa-asahi/lib/libEGL.so.1" ] ||
    abort "missing build/mesa-asahi: build the release variant first (make)"
t=$work/mt.tsr
gl_prefix asahi
timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$tessera" capture -q -o "$t" -- \
    "${GL_PREFIX[@]}" eglretrace --headless "$workloads/traces/minetest-seed7.trace" \
    > "$work/live.log" 2>&1 || { tail -n 5 "$work/live.log"; abort "the captured eglretrace failed"; }
frames=38-39
prof() { "$tessera" profile "$t" "$@"; }
prof --frames $frames --json > "$work/p.json" 2> "$work/p.err" || abort "profile failed: $(cat "$work/p.err")"
prof --frames $frames --top 5 > "$work/p.txt" 2>&1 || abort "text profile failed"
sed -n '/most expensive/,$p' "$work/p.txt"

pc() { python3 "$top/tests/gl/profile_check.py" "$@"; }
ok=1
prof --frames 39 --json > "$work/p39.json" 2>&1 || ok=0
python3 -c 'import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
sys.exit(a["frames"][-1] != b["frames"][0])' "$work/p.json" "$work/p39.json" ||
    { echo "frame 39 alone differs from frame 39 after 38"; ok=0; }
pc minetest "$work/p.json" $frames || ok=0
if [ $ok = 1 ]; then check ok minetest-profile-frames; else check FAILED minetest-profile-frames; fi

if pc sums "$work/p.json" "$work/p39.json"; then check ok minetest-profile-sums
else check FAILED minetest-profile-sums; fi

ok=1
first=$(python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["top"][0]
print("frame %(frame)d pass %(pass)d draw %(draw)d: %(cycles)d cycles" % t)' "$work/p.json")
grep -q "^ *1\. $first " "$work/p.txt" || { echo "the text does not name '$first' first"; ok=0; }
# (profile_check.py minetest checked the top entry against its draw)
[ $ok = 1 ] && pc minetest "$work/p.json" $frames > /dev/null || ok=0
if [ $ok = 1 ]; then check ok minetest-profile-top; else check FAILED minetest-profile-top; fi

# The filter and format half of `minetest` again, reported on its own: the
# per-draw texture counters of a real game's frame.
ntex=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(e["counters"]["tex_nearest"] for f in d["frames"] for p in f["passes"] for e in p["draws"]))' "$work/p.json")
echo "nearest-filtered texture fetches in frames $frames: $ntex"
if [ "${ntex:-0}" -gt 100000 ] && pc minetest "$work/p.json" $frames > /dev/null; then
    check ok minetest-profile-tex
else
    check FAILED minetest-profile-tex
fi

ok=1
prof --frames 30 --json > "$work/p30.json" 2>&1 || ok=0
pc sums "$work/p30.json" "$work/p30.json" || ok=0
python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))["frames"][0]["passes"][0]
d = [e for e in p["draws"] if e["counters"]["partial_renders"]]
print("frame 30: %d partial render(s); triggered by draws %s" % (p["partial_renders"], [e["index"] for e in d]))
sys.exit(not (p["partial_renders"] == 1 and len(d) == 1 and d[0]["counters"]["prims_binned"] > 0))' \
    "$work/p30.json" || ok=0
if [ $ok = 1 ]; then check ok minetest-profile-partial; else check FAILED minetest-profile-partial; fi

ok=1
TESSERA_HW_THREADS=1 prof --frames $frames --json > "$work/t1.json" 2>&1 || ok=0
TESSERA_HW_THREADS=4 prof --frames $frames --json > "$work/t4.json" 2>&1 || ok=0
for f in t1 t4; do cmp -s "$work/p.json" "$work/$f.json" || { echo "$f.json differs"; ok=0; }; done
if [ $ok = 1 ]; then check ok minetest-profile-deterministic; else check FAILED minetest-profile-deterministic; fi

ok=1
prof --frames $frames --json --html "$work/html" > "$work/html.json" 2> "$work/html.err" ||
    { cat "$work/html.err"; ok=0; }
cmp -s "$work/p.json" "$work/html.json" || { echo "--html changed the JSON"; ok=0; }
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    if [ $ok = 1 ]; then check skip minetest-profile-html "chromium is not installed (scripts/install-deps installs it)"
    else check FAILED minetest-profile-html; fi
else
    for i in 0 1; do
        bp=$(mktemp -d)
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
            --disable-background-networking --disable-component-update --disable-sync \
            --no-first-run --user-data-dir="$bp" --enable-logging=stderr --v=0 \
            --dump-dom "file://$work/html/index.html#frame=$i" > "$work/dom$i.html" \
            2> "$work/chrome$i.log" || { echo "chromium failed"; ok=0; }
        rm -rf "$bp"
        if grep -E 'CONSOLE|Uncaught|Failed to load resource' "$work/chrome$i.log"; then
            echo "errors in the browser console (frame $i)"; ok=0
        fi
        python3 "$top/tests/gl/profile_html_check.py" "$work/p.json" "$work/dom$i.html" $i ||
            { echo "the page (frame $i) does not show the JSON"; ok=0; }
    done
    if [ $ok = 1 ]; then check ok minetest-profile-html; else check FAILED minetest-profile-html; fi
fi
finish
