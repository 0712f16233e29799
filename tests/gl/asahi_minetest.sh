#!/bin/bash
# SPDX-License-Identifier: MIT
# Milestone 5 of Mesa's asahi driver on the embedded GPU, the game: Debian's
# Minetest 5.6.1 (Irrlicht, GLX, GL compatibility profile; no version
# override) runs live on Mesa's asahi driver through the shim's node under
# `tessera capture`, in a window of our own Xvfb. Xvfb has no DRI3, so GLX
# takes Mesa's drisw path, where GALLIUM_DRIVER=asahi (set by `tessera run
# --driver asahi`) is our patch's software-winsys asahi screen: rendering on
# the node, presentation by XPutImage. The world is the shared workloads'
# (seed 7, mapgen v7, the lookdir mod turning the camera), as in
# minetest-seed7.
# Checks:
#   minetest-asahi-live      minetest ran $MT_SECS s and quit cleanly on
#                            SIGTERM; the trace holds >= 30 frames (one per
#                            glXSwapBuffers) and GPU submissions in each —
#                            a fallback to llvmpipe would submit nothing
#   minetest-replay-validate `tessera replay --validate`: every page the GPU
#                            wrote in the replay equals what the live run's
#                            GPU wrote (the capture's per-frame re-read)
#   minetest-replay-world    the replayed last frames show the game: the
#                            frame image has many distinct colours (the
#                            loading screens have few)
. "$(dirname "$0")/lib/common.sh"
mt=$(command -v minetest || echo /usr/games/minetest)
[ -x "$mt" ] || { echo "missing minetest (scripts/install-deps)"; exit 1; }
command -v Xvfb > /dev/null || { echo "missing Xvfb (scripts/install-deps)"; exit 1; }
[ -e "$top/build/mesa-asahi/lib/libGL.so.1" ] ||
    { echo "missing build/mesa-asahi: build the release variant first (make)"; exit 1; }
secs=${MT_SECS:-35}

Xvfb -displayfd 3 -screen 0 800x600x24 -nolisten tcp -nolisten unix 3> "$work/display" \
    > "$work/xvfb.log" 2>&1 &
xvfb=$!
gl_cleanup_hooks+=("kill $xvfb 2>/dev/null; wait $xvfb 2>/dev/null")
for _ in $(seq 100); do
    [ -s "$work/display" ] && break
    kill -0 $xvfb 2>/dev/null || break
    sleep 0.1
done
[ -s "$work/display" ] || { cat "$work/xvfb.log"; echo "Xvfb did not start"; exit 1; }
export DISPLAY=:$(head -n1 "$work/display")

# A fresh world and HOME, as the workloads' capture_minetest.sh makes them.
w=$work/mt
mkdir -p "$w/world/worldmods/lookdir" "$w/home"
printf 'gameid = minetest\nbackend = sqlite3\nplayer_backend = sqlite3\nauth_backend = sqlite3\ncreative_mode = true\nenable_damage = false\n' \
    > "$w/world/world.mt"
cp "$workloads/minetest/lookdir/"* "$w/world/worldmods/lookdir/"
sed -e 's/^fixed_map_seed = .*/fixed_map_seed = 7/' -e 's/^fps_max = .*/fps_max = 10/' \
    -e 's/^fps_max_unfocused = .*/fps_max_unfocused = 10/' -e 's/^capture_yaw = .*/capture_yaw = 2.4/' \
    -e 's/^capture_pitch = .*/capture_pitch = 0.25/' "$workloads/minetest/minetest.conf" > "$w/minetest.conf"

# SIGTERM after $secs: `tessera capture` forwards it; minetest quits cleanly.
HOME="$w/home" timeout -s TERM -k 60 "$secs" "$tessera" capture -q -o "$w/mt.tsr" -- \
    "$tessera" run --driver asahi -- "$mt" --config "$w/minetest.conf" --go --world "$w/world" \
    --gameid minetest --name tester --logfile "$w/minetest.log" > "$w/out.log" 2>&1
rc=$?
"$tessera" info "$w/mt.tsr" > "$w/info.txt" 2>&1
frames=$(sed -nE 's/^frames: +([0-9]+).*/\1/p' "$w/info.txt")
subs=$(sed -nE 's/^submissions: +([0-9]+).*/\1/p' "$w/info.txt")
echo "minetest: exit $rc after ${secs}s; trace: ${frames:-?} frames, ${subs:-?} submissions"
if [ $rc = 124 ] && grep -q 'Server: Shutting down' "$w/minetest.log" &&
   [ "${frames:-0}" -ge 30 ] && [ "${subs:-0}" -ge "${frames:-0}" ] &&
   ! grep -qE 'GPU job error|GPU fault|export failed' "$w/out.log"; then
    result ok minetest-asahi-live
else
    tail -n 5 "$w/out.log" "$w/minetest.log" "$w/info.txt"
    result FAILED minetest-asahi-live "minetest did not run live on Mesa's asahi"
fi

if "$tessera" replay "$w/mt.tsr" --validate > "$w/validate.log" 2>&1 &&
   grep -q 'validation passed' "$w/validate.log"; then
    tail -n 1 "$w/validate.log"
    result ok minetest-replay-validate
else
    tail -n 3 "$w/validate.log"
    result FAILED minetest-replay-validate "the replay differs from the live run"
fi

# The issue-16 walkthrough on a live capture: a profile of two late frames
# whose per-draw counters add up exactly, with a most expensive draw that
# runs a fragment shader (docs/profiling.md).
pf=$(( ${frames:-1} - 4 ))
[ $pf -ge 0 ] || pf=0
if "$tessera" profile --json --frames "$pf-$((pf + 1))" "$w/mt.tsr" > "$w/prof.json" 2> "$w/prof.log" &&
   python3 "$top/tests/gl/profile_check.py" sums "$w/prof.json" "$w/prof.json" &&
   top_draw=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); t = d["top"][0]
ok = t["fs"] != "0x0" and sum(len(p["draws"]) for f in d["frames"] for p in f["passes"]) >= 50
print("frame %(frame)s pass %(pass)s draw %(draw)s fs %(fs)s, %(cycles)s cycles" % t) if ok else sys.exit(1)' "$w/prof.json"); then
    echo "live profile, frames $pf-$((pf + 1)): top draw $top_draw"
    result ok minetest-live-profile
else
    tail -n 3 "$w/prof.log"
    result FAILED minetest-live-profile "tessera profile of the live capture"
fi

last=$(( ${frames:-1} - 3 ))
[ $last -ge 0 ] || last=0
if "$tessera" replay "$w/mt.tsr" --frames "$last-$last" --dump-images "$w/img" --quiet > "$w/img.log" 2>&1; then
    img=$(ls "$w/img/"*color0.png 2>/dev/null | tail -n 1)
    colours=$([ -n "$img" ] && python3 "$top/tests/gl/lib/png_colours.py" "$img" 4)
    echo "frame $last: ${colours:-0} distinct colours ($img)"
    if [ "${colours:-0}" -ge 500 ]; then result ok minetest-replay-world
    else result FAILED minetest-replay-world "frame $last does not look like the game"; fi
else
    tail -n 3 "$w/img.log"
    result FAILED minetest-replay-world "replay of frame $last failed"
fi
finish
