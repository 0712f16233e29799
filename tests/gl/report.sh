#!/bin/bash
# SPDX-License-Identifier: MIT
# `tessera report` on a real GL program's capture (eglretrace replaying the
# es2gears apitrace trace on the tessera driver, captured as in trim.sh):
#   tessera report -o DIR T.tsr
# Checks:
#   report-page     DIR/index.html exists and holds `tessera info`'s lines
#                   (device, program, frames) and the replay command
#   report-frames   one thumbnail per trace frame, each a PNG inside DIR
#                   that exists, plus a GPU time per frame
#   report-shaders  every indexed shader's disassembly (`tessera dump
#                   --shader VA`, HTML-escaped) is on the page
#   report-offline  the page references nothing outside DIR, and loads in
#                   headless Chromium without console errors (skipped
#                   without chromium)
#   report-errors   missing, damaged and cut-off traces and an unwritable
#                   DIR exit non-zero with a "tessera report:" message
. "$(dirname "$0")/lib/common.sh"

checks="report-page report-frames report-shaders report-offline report-errors"

name=es2gears
gl_es2gears_setup
t=$work/$name.tsr
gl_capture_es2gears "$t" "$work/capture.log" || abort "the capture failed"

out=$work/report
"$tessera" report -o "$out" "$t" > "$work/report.log" 2>&1 ||
    abort "tessera report failed: $(tail -n 3 "$work/report.log")"
cat "$work/report.log"
page=$out/index.html
"$tessera" info "$t" > "$work/info.txt"
frames=$(awk '$1 == "frames:" { print $2 }' "$work/info.txt")

# report-page: the info lines and the replay command
errs=""
for k in device program frames submissions shaders; do
    line=$(grep -m1 "^$k:" "$work/info.txt" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')
    grep -qF -- "$line" "$page" || errs="$errs; no '$k:' line"
done
grep -qF "tessera replay $(basename "$t")" "$page" || grep -qF "tessera replay $t" "$page" ||
    errs="$errs; no replay command"
if [ -s "$page" ] && [ -z "$errs" ]; then check ok report-page; else check FAILED report-page "${errs#; }"; fi

# report-frames: frame i has a figure with an existing PNG and a GPU time
if python3 - "$out" "$frames" <<'PY'; then check ok report-frames; else check FAILED report-frames; fi
import os, re, sys
out, n = sys.argv[1], int(sys.argv[2])
html = open(os.path.join(out, "index.html")).read()
figs = re.findall(r'<figure id="frame(\d+)"><figcaption>frame \d+( &middot; GPU [0-9.]+ ms)?'
                  r'</figcaption>(?:<a href="([^"]+)">)?', html)
bad = []
if [int(f[0]) for f in figs] != list(range(n)):
    bad.append("%d frame figures, want frames 0-%d" % (len(figs), n - 1))
for fid, gpu, img in figs:
    if not gpu:
        bad.append("frame %s: no GPU time" % fid)
    if not img or not img.endswith(".png") or not os.path.isfile(os.path.join(out, img)):
        bad.append("frame %s: thumbnail %r missing" % (fid, img))
    elif open(os.path.join(out, img), "rb").read(8) != b"\x89PNG\r\n\x1a\n":
        bad.append("frame %s: %s is not a PNG" % (fid, img))
print("%d frames, %d with an existing thumbnail" % (len(figs), len(figs) - len(bad)))
for b in bad[:5]:
    print(b)
sys.exit(1 if bad or n < 100 else 0)
PY

# report-shaders: each shader's disassembly from tessera dump, on the page
n_sh=0 errs=""
for va in $("$tessera" info --shaders "$t" | awk '/^  0x/ { print $1 }'); do
    n_sh=$((n_sh + 1))
    "$tessera" dump --shader "$va" "$t" > "$work/sh.txt" 2>&1 || { errs="$errs; dump --shader $va failed"; continue; }
    python3 - "$page" "$work/sh.txt" <<'PY' || errs="$errs; shader $va: disassembly not on the page"
import html, sys
page = open(sys.argv[1]).read()
text = open(sys.argv[2]).read()
sys.exit(0 if len(text.splitlines()) > 2 and html.escape(text, quote=True) in page else 1)
PY
done
echo "$n_sh shaders"
if [ "$n_sh" -gt 0 ] && [ -z "$errs" ]; then check ok report-shaders
else check FAILED report-shaders "${errs#; }${errs:-no shaders}"; fi

# report-offline: no reference leaves DIR; Chromium loads it without errors
errs=$(python3 - "$out" <<'PY'
import os, re, sys
out = sys.argv[1]
html = open(os.path.join(out, "index.html")).read()
for ref in re.findall(r'(?:src|href)="([^"]*)"', html):
    if ref.startswith("#") or ref.startswith("data:"):
        continue
    p = os.path.normpath(os.path.join(out, ref))
    if ":" in ref or ref.startswith("/") or not p.startswith(os.path.normpath(out) + "/") \
            or not os.path.exists(p):
        print("reference outside DIR or missing: " + ref)
        break
if re.search(r"<script|<link|@import|url\(http", html):
    print("script or external resource in the page")
PY
)
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$errs" ] && [ -n "$browser" ]; then
    profile=$(mktemp -d)
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
        --disable-background-networking --disable-component-update --disable-sync \
        --no-first-run --user-data-dir="$profile" --enable-logging=stderr --v=0 \
        --screenshot="$work/shot.png" --window-size=1200,900 \
        "file://$page" > "$work/chromium.log" 2>&1 || errs="chromium exit $?"
    rm -rf "$profile"
    [ -s "$work/shot.png" ] || errs="${errs:-no screenshot}"
    if grep -E 'CONSOLE|Uncaught|Failed to load resource' "$work/chromium.log"; then
        errs="errors in the browser console"
    fi
fi
if [ -n "$errs" ]; then check FAILED report-offline "$errs"
elif [ -z "$browser" ]; then check skip report-offline "chromium is not installed (scripts/install-deps)"
else check ok report-offline; fi

# report-errors: bad input exits non-zero with a message, never a crash
errs=""
expect_fail() { # WHAT ARGS...
    local what=$1 rc
    shift
    "$tessera" report "$@" > "$work/err.out" 2> "$work/err.txt"; rc=$?
    if [ $rc -eq 0 ] || [ $rc -gt 2 ] || ! grep -q '^tessera report: ' "$work/err.txt"; then
        errs="$errs; $what: exit $rc, '$(head -c 200 "$work/err.txt")'"
    fi
}
expect_fail "missing trace" -o "$work/r1" "$work/nope.tsr"
cp "$t" "$work/bad.tsr"
sz=$(stat -c %s "$t")
printf '\377\377\377\377\377\377\377\377' | dd of="$work/bad.tsr" bs=1 seek=$((sz / 2)) conv=notrunc 2> /dev/null
expect_fail "damaged trace" -o "$work/r2" "$work/bad.tsr"
head -c 20 "$t" > "$work/cut.tsr"
expect_fail "cut-off header" -o "$work/r3" "$work/cut.tsr"
: > "$work/afile"
expect_fail "unwritable DIR" -o "$work/afile/sub" "$t"
expect_fail "no -o" "$t"
expect_fail "two traces" -o "$work/r4" "$t" "$t"
if [ -z "$errs" ]; then check ok report-errors; else check FAILED report-errors "${errs#; }"; fi
finish
