#!/bin/bash
# SPDX-License-Identifier: MIT
# Round trip of tests/capture/capture_scene in its render mode (-r). Its
# render passes only clear and have no end-of-tile program, so they have no
# colour target and the replay rightly dumps no image; the round trip
# checks the GPU's work instead: with --validate every byte each saxpy
# submission writes in the replay equals what the capture recorded after
# it in the live run, and two replays give identical GPU times.
. "$(dirname "$0")/../capture/lib.sh"

t=$work/scene.tsr
"$tessera" capture -q --shim --mem hash -o "$t" -- "$bin/capture_scene" -n 12 -e 4 -r \
    > "$work/out" || fail "capture"
[ "$(info_field "$t" submissions:)" = 15 ] || fail "not 15 submissions"
"$tessera" replay "$t" --dump-images "$work/img" > "$work/rep" || fail "replay"
grep -q "replayed 15 submissions in 3 frames" "$work/rep" || fail "replay summary: $(cat "$work/rep")"
[ -z "$(ls -A "$work/img" 2>/dev/null)" ] || fail "images from target-less passes"

"$tessera" replay "$t" --validate > "$work/val" 2>&1 || fail "validation: $(cat "$work/val")"
grep -q "validation passed" "$work/val" || fail "no validation verdict: $(cat "$work/val")"

# Deterministic GPU times.
"$tessera" replay "$t" --loop 3 --timing "$work/t1.json" --quiet
"$tessera" replay "$t" --loop 3 --timing "$work/t2.json" --quiet
gpu() { grep -o '"gpu_ns": [0-9]*' "$1"; }
[ "$(gpu "$work/t1.json" | wc -l)" -ge 15 ] || fail "timing JSON has too few samples"
[ "$(gpu "$work/t1.json")" = "$(gpu "$work/t2.json")" ] || fail "GPU times differ"
echo "roundtrip_capture_scene: ok"
