#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The HTML reports of tessera compare open in headless Chromium: the page
# renders (the screenshot is far from blank, checked with tessera compare
# itself against a white page) and the console shows no error. Skipped
# (exit 77, counted as skipped by scripts/run-tests; a failure with CI=true)
# where chromium is not installed (scripts/install-deps installs it).
set -u
: "${TESSERA:?}" "${TOP:?}"
d=$TOP/tests/data/compare
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "skip: chromium is not installed (scripts/install-deps installs it)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

"$TESSERA" compare images --html "$tmp/images" "$d/ref" "$d/bug" >/dev/null
"$TESSERA" compare timing --html "$tmp/timing" "$d/timing_ref.json" "$d/timing_slower.json" >/dev/null

# A white PNG of the given size, written with the Python standard library.
white_png() { # width height file
    python3 - "$@" <<'PY'
import struct, sys, zlib
w, h, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
raw = (b"\0" + b"\xff" * (3 * w)) * h
open(out, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                      + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
PY
}

for page in images timing; do
    profile=$(mktemp -d)
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
        --disable-background-networking --disable-component-update --disable-sync \
        --no-first-run --user-data-dir="$profile" --enable-logging=stderr --v=0 \
        --screenshot="$tmp/$page.png" --window-size=1200,900 \
        "file://$tmp/$page/index.html" >"$tmp/$page.log" 2>&1
    rc=$?
    rm -rf "$profile"
    if [ $rc -ne 0 ] || [ ! -s "$tmp/$page.png" ]; then
        echo "FAIL $page: chromium exit $rc, no screenshot"; cat "$tmp/$page.log"; status=1
        continue
    fi
    # Page errors reach the log as CONSOLE lines (uncaught exceptions,
    # failed resource loads); the page has no script, so there must be none.
    if grep -E 'CONSOLE|Uncaught|Failed to load resource' "$tmp/$page.log"; then
        echo "FAIL $page: errors in the browser console"; status=1
    fi
    size=$(python3 -c "import struct,sys; d=open(sys.argv[1],'rb').read(24); print(*struct.unpack('>II', d[16:24]))" "$tmp/$page.png")
    white_png $size "$tmp/white.png"
    "$TESSERA" compare images --json "$tmp/white.png" "$tmp/$page.png" >"$tmp/$page.json"
    if ! python3 -c "import json,sys; r=json.load(open(sys.argv[1])); f=r['images'][0]['diff_fraction']; print('$page: %.1f %% of the screenshot is not white' % (100 * f)); sys.exit(0 if f > 0.05 else 1)" "$tmp/$page.json"; then
        echo "FAIL $page: the screenshot is (nearly) blank"; status=1
        continue
    fi
    echo "ok   $page"
done
exit $status
