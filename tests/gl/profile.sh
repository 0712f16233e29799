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
#   compare-profile      `tessera compare profile` of the base and long
#                        profiles (JSON files) names a big gear as the top
#                        regression, its delta exactly the profiles'
#                        difference and at least the extra instructions'
#                        issue cycles, verdict slower, exit 1; swapped: the
#                        same draw as the top improvement, faster, exit 0; the
#                        trace against itself under --override-shader-b gives
#                        the JSON files' report (tests/gl/compare_profile_check.py)
#   compare-profile-same the trace against itself, and base.json against the
#                        trace: every delta 0, "no change", exit 0
#   compare-profile-errors  missing file, non-trace, malformed JSON, profiles
#                        of different frames, --override-shader-b with a JSON B:
#                        exit 2 with a message
#   compare-profile-html --html DIR: a self-contained page naming the verdict
#                        and the top regression
. "$(dirname "$0")/lib/common.sh"

checks="profile-sums profile-override profile-deterministic profile-errors profile-html
        compare-profile compare-profile-same compare-profile-errors compare-profile-html"

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

# tessera compare profile
cmpchk() { python3 "$top/tests/gl/compare_profile_check.py" "$@"; }
cmpp() { "$tessera" compare profile "$@"; }
ok=1
cmpp "$work/base.json" "$work/long.json" --json > "$work/c_up.json" 2> "$work/c_up.err"; rc=$?
[ $rc = 1 ] || { echo "slower: exit $rc, want 1"; cat "$work/c_up.err"; ok=0; }
cmpchk override "$work/c_up.json" "$work/base.json" "$work/long.json" || ok=0
cmpp "$work/long.json" "$work/base.json" --json > "$work/c_down.json" 2> "$work/c_down.err"; rc=$?
[ $rc = 0 ] || { echo "faster: exit $rc, want 0"; cat "$work/c_down.err"; ok=0; }
cmpchk reverse "$work/c_down.json" "$work/base.json" "$work/long.json" || ok=0
cmpp "$t" "$t" --frames $frames --override-shader-b "$fs=$work/long.s" --json > "$work/c_tt.json" \
    2> "$work/c_tt.err"; rc=$?
[ $rc = 1 ] || { echo "traces: exit $rc, want 1"; cat "$work/c_tt.err"; ok=0; }
python3 -c 'import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b): d.pop("a"), d.pop("b")
sys.exit(a != b)' "$work/c_tt.json" "$work/c_up.json" || { echo "traces and JSON files disagree"; ok=0; }
cmpp "$work/base.json" "$work/long.json" --top 3 > "$work/c_up.txt" 2>&1
sed -n '/largest regressions/,$p' "$work/c_up.txt"
grep -q '^verdict: slower$' "$work/c_up.txt" || { echo "text: no slower verdict"; ok=0; }
if [ $ok = 1 ]; then check ok compare-profile; else check FAILED compare-profile; fi

ok=1
cmpp "$t" "$t" --frames $frames --json > "$work/c_same.json" 2> "$work/c_same.err" ||
    { echo "self-compare: exit $?"; cat "$work/c_same.err"; ok=0; }
cmpchk same "$work/c_same.json" || ok=0
cmpp "$work/base.json" "$t" --frames $frames --json > "$work/c_mixed.json" 2> "$work/c_mixed.err" ||
    { echo "JSON vs trace: exit $?"; cat "$work/c_mixed.err"; ok=0; }
cmpchk same "$work/c_mixed.json" || ok=0
cmpp "$t" "$t" --frames $frames > "$work/c_same.txt" 2>&1 || ok=0
grep -q '^verdict: no change$' "$work/c_same.txt" || { echo "text: no 'no change' verdict"; ok=0; }
if [ $ok = 1 ]; then check ok compare-profile-same; else check FAILED compare-profile-same; fi

ok=1
experr() { # MESSAGE ARGS...: exit 2 with MESSAGE on stderr
    local want=$1 rc
    shift
    cmpp "$@" > /dev/null 2> "$work/ce"; rc=$?
    [ $rc = 2 ] && grep -q -- "$want" "$work/ce" || { echo "compare profile $*: exit $rc: $(cat "$work/ce")"; ok=0; }
}
experr "cannot open" "$work/none.tsr" "$work/base.json"
experr "neither a trace" "$work/base.json" "$work/file"
experr "cannot open" "$t" "$work/none.json"
echo '{"schema": "tessera-profile/1", "frames": [' > "$work/bad.json"
experr "malformed JSON" "$work/bad.json" "$work/base.json"
echo '{"schema": "tessera-timing/1", "runs": []}' > "$work/timing.json"
experr "tessera-profile/1" "$work/timing.json" "$work/base.json"
"$tessera" profile "$t" --frames 3-4 --json > "$work/f34.json" 2>/dev/null
experr "frames differ" "$work/base.json" "$work/f34.json"
experr "frames differ" "$t" "$work/base.json" --frames 2-5
experr "needs B to be a trace" "$t" "$work/base.json" --override-shader-b "$fs=$work/long.s"
experr "neither a trace" "$work/base.json" "$work/garbage.tsr"
head -c 5000 "$t" > "$work/trunc.tsr"
experr "no frames to compare" "$work/trunc.tsr" "$work/trunc.tsr"
experr "reference and an actual" "$work/base.json"
if [ $ok = 1 ]; then check ok compare-profile-errors; else check FAILED compare-profile-errors; fi

ok=1
cmpp "$work/base.json" "$work/long.json" --html "$work/chtml" > /dev/null 2> "$work/ch.err"
[ $? = 1 ] || { cat "$work/ch.err"; ok=0; }
page=$work/chtml/index.html
sed 's,http://www.w3.org/2000/svg,,g' "$page" | grep -Eq '(src|href)=|https?://|@import|url\(|<script' &&
    { echo "the compare page references other resources or runs script"; ok=0; }
grep -q '>slower</span>' "$page" || { echo "no verdict on the page"; ok=0; }
label=$(python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["regressions"][0]
print("frame %(frame)d pass %(pass)d draw %(draw)d (vs %(vs)s, fs %(fs)s)" % t)' "$work/c_up.json")
[ -n "$label" ] && grep -qF "$label" "$page" || { echo "the page does not name the top regression '$label'"; ok=0; }
if [ $ok = 1 ]; then check ok compare-profile-html; else check FAILED compare-profile-html; fi
finish
