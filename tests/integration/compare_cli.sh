#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tessera compare on the checked-in fixtures (tests/data/compare, made by
# make_data.py): exit statuses 0/1/2, the messages for a missing file, a
# size mismatch and a corrupt PNG, the JSON reports (read back with
# python3), diff pictures and the timing verdicts.
set -u
: "${TESSERA:?}" "${TOP:?}"
d=$TOP/tests/data/compare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

check() { # name expected-status command...
    local name=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL $name: exit $got, expected $want"; cat "$tmp/out" "$tmp/err"; status=1
        return 1
    fi
    echo "ok   $name"
}

expect() { # name file pattern
    if ! grep -q -- "$3" "$2"; then
        echo "FAIL $1: '$3' not in output:"; cat "$2"; status=1
    fi
}

json() { # name python-expression over the parsed document r
    if ! python3 -c "import json,sys; r=json.load(open('$tmp/out')); sys.exit(0 if ($2) else 1)"; then
        echo "FAIL $1: JSON check failed: $2"; cat "$tmp/out"; status=1
    fi
}

check same-dirs 0 "$TESSERA" compare images "$d/ref" "$d/same"
expect same-dirs "$tmp/out" "2 images: 2 passed, 0 failed, 0 errors"

check bug-dirs 1 "$TESSERA" compare images --diff-dir "$tmp/diff" "$d/ref" "$d/bug"
expect bug-dirs "$tmp/out" "FAIL  scene.png"
expect bug-dirs "$tmp/out" "in (49,17)-(63,31)"
[ -s "$tmp/diff/scene.diff.png" ] || { echo "FAIL bug-dirs: no diff picture"; status=1; }

check bug-json 1 "$TESSERA" compare images --json "$d/ref" "$d/bug"
json bug-json "r['status'] == 1 and r['images'][0]['name'] == 'scene.png' and r['images'][0]['diff_pixels'] == 183 and r['images'][0]['bbox'] == [49, 17, 63, 31] and r['images'][1]['psnr'] is None and r['images'][1]['ssim'] == 1"

# Thresholds that accept the bug: a tolerance above the 40-step change,
# or a fraction above its 2.98 %; a PSNR floor below its 36.1 dB.
check tolerance 0 "$TESSERA" compare images --tolerance 40 "$d/ref" "$d/bug"
check fraction 0 "$TESSERA" compare images --max-diff-fraction 0.03 "$d/ref" "$d/bug"
check fraction-low 1 "$TESSERA" compare images --max-diff-fraction 0.02 "$d/ref" "$d/bug"
check psnr 0 "$TESSERA" compare images --max-diff-fraction 1 --min-psnr 36 "$d/ref" "$d/bug"
check psnr-high 1 "$TESSERA" compare images --max-diff-fraction 1 --min-psnr 37 "$d/ref" "$d/bug"
expect psnr-high "$tmp/out" "PSNR 36.12 dB below the minimum 37.00 dB"
check ssim-high 1 "$TESSERA" compare images --max-diff-fraction 1 --min-ssim 0.99 "$d/ref" "$d/bug"

check missing 2 "$TESSERA" compare images "$d/ref/scene.png" "$d/nothere.png"
expect missing "$tmp/err" "cannot open '.*nothere.png': No such file or directory"
check size 1 "$TESSERA" compare images "$d/ref/scene.png" "$d/small.png"
expect size "$tmp/out" "size mismatch: reference is 96x64, actual is 8x8"
check corrupt 2 "$TESSERA" compare images "$d/ref/sub/clear.png" "$d/corrupt.png"
expect corrupt "$tmp/err" "corrupt.png': corrupt or unsupported PNG"
check file-vs-dir 2 "$TESSERA" compare images "$d/ref/scene.png" "$d/ref"
check bad-option 2 "$TESSERA" compare images --tolerance x "$d/ref" "$d/same"
check bad-mode 2 "$TESSERA" compare pictures "$d/ref" "$d/same"
check help 0 "$TESSERA" compare --help

check timing-slower 1 "$TESSERA" compare timing "$d/timing_ref.json" "$d/timing_slower.json"
expect timing-slower "$tmp/out" "verdict: slower"
check timing-faster 0 "$TESSERA" compare timing "$d/timing_slower.json" "$d/timing_ref.json"
expect timing-faster "$tmp/out" "verdict: faster"
check timing-same 0 "$TESSERA" compare timing "$d/timing_ref.json" "$d/timing_noise.json"
expect timing-same "$tmp/out" "verdict: no significant change"
check timing-json 1 "$TESSERA" compare timing --json --cpu "$d/timing_ref.json" "$d/timing_slower.json"
json timing-json "r['verdict'] == 'slower' and r['metric'] == 'cpu_ns' and len(r['frames']) == 12 and r['total']['runs_a'] == 15 and r['total']['ci'][0] > 1"
# A large minimum effect turns the 10 % change into no verdict.
check timing-effect 0 "$TESSERA" compare timing --min-effect 0.2 "$d/timing_ref.json" "$d/timing_slower.json"
check timing-bad 2 "$TESSERA" compare timing "$d/timing_ref.json" "$d/ref/scene.png"
expect timing-bad "$tmp/err" "invalid JSON at line 1"

exit $status
