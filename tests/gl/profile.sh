#!/bin/bash
# SPDX-License-Identifier: MIT
# `tessera profile` on a real GL program's capture: eglretrace replays the
# es2gears apitrace trace on the tessera driver under `tessera capture`
# (as tests/gl/capture.sh does), then the trace is profiled on the model.
#
# es2gears draws its three gears with one fragment shader (the trace's
# shader index has one), so --override-shader of that shader with a copy
# carrying ~10x its instructions (the same result: the extra instructions
# write a register nothing reads) lengthens every gear's fragment work.
# Checks (tests/gl/profile_check.py reads the JSON):
#   profile-sums         per pass, draws + overhead == the pass, for every
#                        counter, exactly; frames are the sum of their passes
#   profile-override     with the long shader the most expensive draw is the
#                        gear with the most fragments, its fs_instructions
#                        grow >= 8x and its fragment time by at least the
#                        extra instructions' issue cycles; the other draws
#                        grow too, the overhead does not change
#   profile-deterministic  text and JSON identical across two runs and with
#                        TESSERA_HW_THREADS=1 and 4
#   profile-errors       a missing trace and bad options exit 2 with a message
#   profile-html         --html DIR writes a self-contained page (no network
#                        references) that headless Chromium runs without a
#                        script error; opened as index.html#frame=I the page
#                        picks frame I through its frame picker, and every
#                        bar, counter cell, timeline segment and top entry
#                        shown equals the JSON's (tests/gl/profile_html_check.py);
#                        an unusable DIR exits 2 with a message. Skipped
#                        where chromium is not installed.
. "$(dirname "$0")/lib/common.sh"

checks="profile-sums profile-override profile-deterministic profile-errors profile-html"

gl_es2gears_setup
t=$work/gears.tsr
gl_capture_es2gears "$t" "$work/live.log" || abort "the captured eglretrace failed"
frames=3-5

# The fragment shader: the trace's shader index names it.
"$tessera" dump "$t" > "$work/dump.txt" 2>&1 || abort "tessera dump failed"
fs=$(awk '$1 == "#" && $4 == "fragment" { print $2; exit }' "$work/dump.txt")
[ -n "$fs" ] || abort "no fragment shader in the shader index"
# Its disassembly, from the first render that runs it.
awk -v a="Shader at $fs " 'index($0, a) { on = 1; next }
     on && /^ *0x[0-9a-f]+:/ { exit } on { sub(/^ +/, ""); print }' "$work/dump.txt" > "$work/fs.s"
grep -q '^stop' "$work/fs.s" || abort "cannot find the disassembly of $fs"
n_orig=$(wc -l < "$work/fs.s")
# ~10x the instructions: extra moves into r15 (inside the shader's 16
# registers, read by nothing) before the original code.
{ for i in $(seq $((9 * n_orig))); do echo "mov r15, r2"; done; cat "$work/fs.s"; } > "$work/long.s"

prof() { "$tessera" profile "$t" --frames $frames "$@"; }
prof --json > "$work/base.json" 2> "$work/base.err" || abort "profile failed: $(cat "$work/base.err")"
prof --json --override-shader "$fs=$work/long.s" > "$work/long.json" 2> "$work/long.err" ||
    abort "profile with the override failed: $(cat "$work/long.err")"
prof --override-shader "$fs=$work/long.s" --top 3 > "$work/long.txt" 2>&1 || abort "text profile failed"
sed -n '/most expensive/,$p' "$work/long.txt"

if python3 "$top/tests/gl/profile_check.py" sums "$work/base.json" "$work/long.json"; then
    check ok profile-sums
else
    check FAILED profile-sums
fi
if python3 "$top/tests/gl/profile_check.py" override "$work/base.json" "$work/long.json"; then
    check ok profile-override
else
    check FAILED profile-override
fi

ok=1
prof --json > "$work/again.json" 2>&1 || ok=0
TESSERA_HW_THREADS=1 prof --json > "$work/t1.json" 2>&1 || ok=0
TESSERA_HW_THREADS=4 prof --json > "$work/t4.json" 2>&1 || ok=0
TESSERA_HW_THREADS=1 prof --override-shader "$fs=$work/long.s" --top 3 > "$work/long1.txt" 2>&1 || ok=0
for f in again t1 t4; do cmp -s "$work/base.json" "$work/$f.json" || { echo "$f.json differs"; ok=0; }; done
cmp -s "$work/long.txt" "$work/long1.txt" || { echo "text differs with 1 thread"; ok=0; }
if [ $ok = 1 ]; then check ok profile-deterministic; else check FAILED profile-deterministic; fi

ok=1
"$tessera" profile "$work/none.tsr" > /dev/null 2> "$work/e1"; [ $? = 2 ] && grep -q "cannot open" "$work/e1" || ok=0
"$tessera" profile "$t" --top x > /dev/null 2> "$work/e2"; [ $? = 2 ] && grep -q -- "--top" "$work/e2" || ok=0
"$tessera" profile "$t" --override-shader 0x1234=$work/long.s > /dev/null 2> "$work/e3"; [ $? = 2 ] &&
    grep -q "no shader at" "$work/e3" || ok=0
head -c 1000 /dev/urandom > "$work/garbage.tsr"
"$tessera" profile "$work/garbage.tsr" > /dev/null 2> "$work/e4"; [ $? = 2 ] || ok=0
if [ $ok = 1 ]; then check ok profile-errors; else cat "$work"/e[1-4]; check FAILED profile-errors; fi

# The HTML page, from the same profile as base.json (--json and --html together).
ok=1
prof --json --html "$work/html/sub" > "$work/html.json" 2> "$work/html.err" || { cat "$work/html.err"; ok=0; }
page=$work/html/sub/index.html
cmp -s "$work/base.json" "$work/html.json" || { echo "--html changed the JSON"; ok=0; }
# (the SVG namespace URI is a name, not a load)
sed 's,http://www.w3.org/2000/svg,,g' "$page" | grep -Eq '(src|href)=|https?://|@import|url\(' &&
    { echo "the page references other resources"; ok=0; }
touch "$work/file"
"$tessera" profile "$t" --html "$work/file/x" > /dev/null 2> "$work/e5"; [ $? = 2 ] &&
    grep -q "cannot create directory" "$work/e5" || { cat "$work/e5"; ok=0; }
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    if [ $ok = 1 ]; then check skip profile-html "chromium is not installed (scripts/install-deps installs it)"
    else check FAILED profile-html; fi
else
    nframes=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['frames']))" "$work/base.json")
    [ "$nframes" -ge 2 ] || { echo "want >= 2 frames to pick from, got $nframes"; ok=0; }
    for i in -1 $(seq 0 $((nframes - 1))); do
        url="file://$page"; [ $i = -1 ] || url="$url#frame=$i"
        bp=$(mktemp -d)
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
            --disable-background-networking --disable-component-update --disable-sync \
            --no-first-run --user-data-dir="$bp" --enable-logging=stderr --v=0 \
            --dump-dom "$url" > "$work/dom$i.html" 2> "$work/chrome$i.log" || { echo "chromium failed"; ok=0; }
        rm -rf "$bp"
        # uncaught exceptions and failed loads reach the log as CONSOLE lines
        if grep -E 'CONSOLE|Uncaught|Failed to load resource' "$work/chrome$i.log"; then
            echo "errors in the browser console (frame $i)"; ok=0
        fi
        python3 "$top/tests/gl/profile_html_check.py" "$work/base.json" "$work/dom$i.html" $i ||
            { echo "the page (frame $i) does not show the JSON"; ok=0; }
    done
    # the picker really switched the view: different frames' pass views differ
    if cmp -s "$work/dom0.html" "$work/dom$((nframes - 1)).html"; then echo "the picker did not switch the view"; ok=0; fi
    if [ $ok = 1 ]; then check ok profile-html; else check FAILED profile-html; fi
fi
finish
