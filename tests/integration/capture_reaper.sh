#!/bin/bash
# SPDX-License-Identifier: MIT
# The reaper thread leaves completions to the program's own waits
# (capture/cap_reaper.c): capture_scene waits for each of its 200
# submissions, so every completion is recorded on the program's thread and
# the reaper wakes about once per CAP_REAP_DEFER_NS (50 ms) of the run, not
# twice per submission as when every push woke it. With pauses between
# frames it sleeps until a push; every completion is still recorded
# (es2gears under eglretrace, whose driver polls its fences only when it
# needs a batch slot, exercises the periodic poll: tests/gl/capture.sh).
. "$(dirname "$0")/../capture/lib.sh"

reaper_line() { # LOG -> "WAKES POLLS"
    sed -n "s/.*reaper [0-9.]* ms (\([0-9]*\) wake-ups, \([0-9]*\) polls).*/\1 \2/p" "$1"
}
for pause in 0 20; do
    t=$work/r$pause.tsr
    TESSERA_CAPTURE_STATS=1 "$tessera" capture --shim -o "$t" -- \
        "$bin/capture_scene" -n 200 -e 10 -r -p $pause > "$work/out" 2> "$work/err" ||
        fail "capture failed (pause $pause): $(tail -n 3 "$work/err")"
    [ "$(info_field "$t" submissions:)" = 220 ] || fail "not 220 submissions (pause $pause)"
    [ "$(info_field "$t" completions:)" = 220 ] || fail "not 220 completions (pause $pause)"
    read -r wakes polls <<< "$(reaper_line "$work/err")"
    [ -n "${wakes:-}" ] || fail "no reaper statistics: $(grep reaper "$work/err")"
    echo "pause $pause ms: reaper $wakes wake-ups, $polls polls for 220 submissions"
    # one per 50 ms of the run plus one per frame's push after an idle
    # period (20 frames), far below the 440 of a wake-up per push and a
    # fence wait
    [ "$wakes" -le 110 ] || fail "reaper woke $wakes times for 220 submissions (pause $pause)"
done
echo "capture_reaper: ok"
