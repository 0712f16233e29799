#!/bin/bash
# SPDX-License-Identifier: MIT
# Round trip of the demo workload (examples/demo_scene.c): capture on the
# shim -> replay on the model -> every frame's image identical, pixel for
# pixel, to what the live program read back; two replays give identical
# images and identical GPU times (timing JSON); through the shim as a render
# node the replay matches too.
. "$(dirname "$0")/../capture/lib.sh"
demo=$bin/demo_scene
[ -x "$demo" ] || fail "missing $demo"

for mem in wp hash; do
    t=$work/demo-$mem.tsr
    "$tessera" capture -q --shim --mem $mem -o "$t" -- "$demo" -n 5 -o "$work/live-$mem" \
        > "$work/out" || fail "capture ($mem)"
    grep -q "frame 0 as expected" "$work/out" || fail "live frame 0 ($mem): $(cat "$work/out")"
    [ "$(info_field "$t" frames:)" = 5 ] || fail "not 5 frames ($mem)"
    [ "$(info_field "$t" submissions:)" = 10 ] || fail "not 10 submissions ($mem)"
    "$tessera" replay "$t" --dump-images "$work/replay-$mem" --quiet || fail "replay ($mem)"
    [ "$(ls "$work/live-$mem")" = "$(ls "$work/replay-$mem")" ] || fail "image names ($mem)"
    [ "$(ls "$work/replay-$mem" | wc -l)" = 5 ] || fail "not 5 images ($mem)"
    "$tessera" compare images "$work/live-$mem" "$work/replay-$mem" > "$work/cmp" \
        || { cat "$work/cmp"; fail "replayed images differ from the live run ($mem)"; }
    grep -q "5 images: 5 passed, 0 failed" "$work/cmp" || fail "compare summary ($mem)"
done
# The animation really moves: consecutive frames differ.
! "$tessera" compare images "$work/live-wp/f0000_s00001_color0.png" \
    "$work/live-wp/f0001_s00003_color0.png" > /dev/null || fail "frames 0 and 1 are equal"

# Determinism: a second replay gives the same pixels and the same GPU times.
t=$work/demo-wp.tsr
"$tessera" replay "$t" --dump-images "$work/again" --loop 3 --timing "$work/t1.json" --quiet
"$tessera" replay "$t" --loop 3 --timing "$work/t2.json" --quiet
"$tessera" compare images "$work/replay-wp" "$work/again" > /dev/null || fail "replays differ"
gpu() { grep -o '"gpu_ns": [0-9]*' "$1"; }
[ "$(gpu "$work/t1.json" | wc -l)" -ge 10 ] || fail "timing JSON has too few samples"
gpu "$work/t1.json" | grep -qv '"gpu_ns": 0$' || fail "GPU times are all zero"
[ "$(gpu "$work/t1.json")" = "$(gpu "$work/t2.json")" ] || fail "GPU times differ between replays"
"$tessera" compare timing "$work/t1.json" "$work/t2.json" > "$work/tim" || fail "timing compare"
grep -q "verdict: no significant change" "$work/tim" || fail "timing verdict"

# The replay through the render-node shim gives the same images.
env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD }$top/build/release/lib/tessera-shim.so" \
    "$tessera" replay "$t" --device /dev/dri/renderD128 --dump-images "$work/node" --quiet \
    || fail "replay on the shim's render node"
"$tessera" compare images "$work/live-wp" "$work/node" > /dev/null || fail "node replay differs"
echo "roundtrip_demo: ok"
