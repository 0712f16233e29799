#!/bin/bash
# SPDX-License-Identifier: MIT
# Ranged and triggered captures of a real GL program replay on their own,
# and every frame in the window is bit-identical to the same frame of a full
# capture. The program is eglretrace replaying the es2gears apitrace trace
# on the tessera driver (render-node path, `tessera run`), as in capture.sh:
#   tessera capture [RANGE/TRIGGER] -o T.tsr -- tessera run -- eglretrace --headless es2gears.trace
#   tessera replay T.tsr --dump-images DIR
#
# A trace that starts mid-run begins with a snapshot of the state its window
# uses (docs/capture.md): VMs, objects (VM-private ones after their VM),
# binds, timestamp objects, memory, queues, and a META "capture_window"
# naming the program's frame and submission where the window starts (W). Its
# frame i is then the program's frame W+i, which is frame W+i of the full
# capture too (both count the same eglSwapBuffers). Each frame of the window
# ended by a swap (not the last, cut one ended by "capture stopped") is
# compared with `tessera compare images` at tolerance 0: every render target
# the replay dumps for it (colour, depth, stencil).
#
# Cases: each range and trigger alone (--frames, --submits, --signal,
# --trigger-file), both ranges together, each range with each trigger, and
# --mem hash. The signal cases also check that the default trigger signal
# does not collide with apitrace's handlers (it catches signals 1-15, USR1
# and USR2 included), and that a program taking the trigger signal over
# (--signal USR1 here) gets a message instead of silence.
. "$(dirname "$0")/lib/common.sh"

checks="full-capture frames submits frames-submits signal trigger-file frames-signal
        frames-trigger-file submits-signal submits-trigger-file mem-hash signal-taken
        past-the-end swap-attribution"
checks=$(echo $checks)

name=es2gears
gl_es2gears_setup
tmo=${GL_TRACE_TIMEOUT:-600}

# The full capture and its replay: the reference for every window.
full=$work/full.tsr
gl_capture_es2gears "$full" "$work/full.log" || abort "the full capture failed"
"$tessera" replay "$full" --dump-images "$work/full" --quiet > "$work/full-replay.log" 2>&1 ||
    abort "the replay of the full capture failed: $(tail -n 2 "$work/full-replay.log")"
n_full=$("$tessera" info "$full" | awk '$1 == "frames:" { print $2 }')
echo "full capture: $n_full frames"
[ "${n_full:-0}" -ge 100 ] || abort "the full capture has ${n_full:-no} frames"
check ok full-capture

# compare_window CHECK TRACE MIN [W]: replays TRACE and compares each of its
# frames ended by a swap with the full capture's frame W+j, W being where the
# frame's window starts in the program (its capture_window record) and j the
# frame's number within its window. At least MIN frames must be compared; the
# first window must start at program frame W if given.
compare_window() {
    local c=$1 t=$2 min=$3 want_w=${4:-} d=$work/$1 w="" first="" start=0 n i kind img base
    local cmp=0 windows=0 subs line
    subs=$("$tessera" info "$t" 2>/dev/null | awk '$1 == "submissions:" { print $2 }')
    [ "${subs:-0}" -gt 0 ] || { check FAILED "$c" "the trace holds no submission"; return; }
    if ! "$tessera" replay "$t" --dump-images "$d/replay" --quiet > "$d/replay.log" 2>&1; then
        check FAILED "$c" "replay of the ranged trace failed: $(tail -n 2 "$d/replay.log")"
        return
    fi
    mkdir -p "$d/a" "$d/b"
    # In record order: "meta capture_window = frame W submission S" opens a
    # window; "frame N kind K label" is the FRAME record ending trace frame N.
    # Trace frame N then is program frame W + (N - the window's first frame).
    next=0
    while read -r line; do
        case "$line" in
        "meta capture_window = frame "*)
            set -- $line
            w=$5 start=$next windows=$((windows + 1))
            [ -n "$first" ] || first=$w
            continue ;;
        esac
        set -- $line
        i=$2 kind=$4 next=$(($2 + 1))
        [ "$kind" = 1 ] || continue
        [ -n "$w" ] || { check FAILED "$c" "frame $i comes before any capture_window record"; return; }
        n=$((w + i - start))
        for img in "$d/replay"/$(printf 'f%04d' "$i")_s*.png; do
            [ -e "$img" ] || continue
            base=${img##*_}      # color0.png, depth0.png, ...
            ref=$(ls "$work/full"/$(printf 'f%04d' "$n")_s*_"$base" 2>/dev/null | tail -n 1)
            if [ -z "$ref" ]; then
                check FAILED "$c" "frame $i (program frame $n): the full capture has no $base"
                return
            fi
            ln -s "$img" "$d/a/$(printf 'frame%04d' "$n")_$base"
            ln -s "$ref" "$d/b/$(printf 'frame%04d' "$n")_$base"
        done
        cmp=$((cmp + 1))
    done < <("$tessera" dump --no-streams --no-disasm "$t" | grep -E '^(frame |meta capture_window )')
    [ -z "$want_w" ] || [ "$first" = "$want_w" ] ||
        { check FAILED "$c" "the window starts at program frame $first, want $want_w"; return; }
    [ "$windows" -ge "${want_windows:-1}" ] ||
        { check FAILED "$c" "$windows capture windows, want ${want_windows:-1}"; return; }
    if [ $cmp -lt "$min" ] || [ -z "$(ls "$d/a")" ]; then
        check FAILED "$c" "$cmp frames in the window, want at least $min"
        return
    fi
    if "$tessera" compare images "$d/a" "$d/b" > "$d/cmp.txt" 2>&1; then
        echo "$c: $windows window(s), the first at program frame $first (last at $w), $subs submissions, $cmp frames bit-identical ($(ls "$d/a" | wc -l) images)"
        check ok "$c"
    else
        grep -v '^PASS' "$d/cmp.txt" | head -n 6
        check FAILED "$c" "frames of the window differ from the full capture's"
    fi
}

# capture CHECK [OPTIONS...]: a ranged capture, run to its end.
capture() {
    local c=$1
    shift
    mkdir -p "$work/$c"
    gl_capture_es2gears "$work/$c/t.tsr" "$work/$c/cap.log" "$@" ||
        { echo "$c: the capture exited $?"; tail -n 3 "$work/$c/cap.log"; }
}

# trace_has T WHAT: T (being written: records reach the file every 20 ms)
# holds at least 5 submissions (WHAT=subs) or a "capture stopped" marker.
trace_has() {
    case "$2" in
    subs) [ "$("$tessera" info "$1" 2>/dev/null | awk '$1 == "submissions:" { print $2 }')" -ge 5 ] 2>/dev/null ;;
    stop) "$tessera" dump --no-streams --no-disasm "$1" 2>/dev/null | grep -q '^frame .* kind 2' ;;
    esac
}
# wait_for PID T WHAT: until trace_has T WHAT or the capture PID has ended.
wait_for() {
    local k
    for k in $(seq 1500); do
        trace_has "$2" "$3" && return 0
        kill -0 "$1" 2>/dev/null || return 1
        sleep 0.02
    done
    return 1
}

# triggered CHECK MODE ACTION [OPTIONS...]: a capture toggled by ACTION (a
# function; $cap is the pid of `tessera capture`) while the program runs.
#   on-off: starts with recording off; ACTION as soon as the program has
#           opened the render node (its trace exists), ACTION again once
#           the trace holds 5 submissions.
#   off-on: starts recording; ACTION once the trace holds 5 submissions,
#           ACTION again once the layer has written "capture stopped" (at a
#           submission): the second window starts mid-run, after work that
#           is not in the trace.
triggered() {
    local c=$1 mode=$2 act=$3 t=$work/$1/t.tsr k start=()
    shift 3
    [ "$mode" = on-off ] && start=(--start-off)
    mkdir -p "$work/$c"
    TESSERA_CAPTURE_FLUSH_MS=20 timeout -k 10 "$tmo" "$tessera" capture -q "${start[@]}" -o "$t" "$@" \
        -- "${GL_PREFIX[@]}" eglretrace --headless "$trace" > "$work/$c/cap.log" 2>&1 &
    local tpid=$!
    cap=""
    for k in $(seq 500); do
        [ -n "$cap" ] || cap=$(pgrep -P $tpid)
        [ -n "$cap" ] && [ -e "$t" ] && break
        sleep 0.02
    done
    if [ "$mode" = on-off ]; then
        $act
        wait_for $tpid "$t" subs && $act
    else
        wait_for $tpid "$t" subs && $act && wait_for $tpid "$t" stop && $act
    fi
    wait $tpid || { echo "$c: the capture exited $?"; tail -n 3 "$work/$c/cap.log"; }
}

sig() { kill -s RTMIN+7 "$cap" 2>/dev/null; }   # the default trigger signal
# (the layer removes the file when it sees it, at a submission)
touch_trigger() {
    local k
    for k in $(seq 250); do [ -e "$work/trigger" ] || break; sleep 0.02; done
    touch "$work/trigger"
}

# ranges alone and together
capture frames --frames 10-12
compare_window frames "$work/frames/t.tsr" 3 10
capture submits --submits 30-34
compare_window submits "$work/submits/t.tsr" 3
capture frames-submits --frames 20-60 --submits 40-44
compare_window frames-submits "$work/frames-submits/t.tsr" 3
[ "$("$tessera" info "$work/frames-submits/t.tsr" | awk '$1 == "submissions:" { print $2 }')" = 5 ] ||
    echo "frames-submits: not 5 submissions"

# triggers alone: off after 5 submissions, on again after the layer stopped
# recording; two windows, the second one mid-run
want_windows=2
triggered signal off-on sig
if grep -qiE 'caught signal|installs its own handler' "$work/signal/cap.log"; then
    grep -i -m3 'signal' "$work/signal/cap.log"
    check FAILED signal "the program (apitrace) took the default trigger signal"
else
    compare_window signal "$work/signal/t.tsr" 8
fi
rm -f "$work/trigger"
triggered trigger-file off-on touch_trigger --trigger-file "$work/trigger"
compare_window trigger-file "$work/trigger-file/t.tsr" 8
want_windows=1

# each range with each trigger: the range opens the window mid-run, the
# trigger (sent before) lets it, and closes it after 5 submissions
triggered frames-signal on-off sig --frames 30-
compare_window frames-signal "$work/frames-signal/t.tsr" 3 30
triggered frames-trigger-file on-off touch_trigger --frames 30- --trigger-file "$work/trigger"
compare_window frames-trigger-file "$work/frames-trigger-file/t.tsr" 3 30
triggered submits-signal on-off sig --submits 20-
compare_window submits-signal "$work/submits-signal/t.tsr" 3
triggered submits-trigger-file on-off touch_trigger --submits 20- --trigger-file "$work/trigger"
compare_window submits-trigger-file "$work/submits-trigger-file/t.tsr" 3

# the other memory strategy reads everything at every submission
capture mem-hash --mem hash --frames 50-53
compare_window mem-hash "$work/mem-hash/t.tsr" 4

# A program that installs its own handler for the trigger signal (apitrace
# does for USR1) gets the message, not a silently dead trigger.
mkdir -p "$work/taken"
timeout -k 10 "$tmo" "$tessera" capture -o "$work/taken/t.tsr" --signal USR1 --frames 0-1 \
    -- "${GL_PREFIX[@]}" eglretrace --headless "$trace" > "$work/taken/cap.log" 2>&1
if grep -q 'installs its own handler for SIGUSR1, the trigger signal' "$work/taken/cap.log"; then
    check ok signal-taken
else
    check FAILED signal-taken "no message about the program's USR1 handler"
fi
# Frames past the end of a trace are an error (exit 2, a message), not an
# empty replay that succeeds: the ranged trace of frames 10-12 holds trace
# frames 0-3 (3: "capture stopped"); the full one 0-119.
errs=""
past() {   # past TRACE WANT-REGEX replay-options...
    local t=$1 want=$2 rc=0
    shift 2
    "$tessera" replay "$t" "$@" --quiet > "$work/past.txt" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -q "$want" "$work/past.txt" ||
        errs="$errs; '$*' exited $rc: $(head -n 1 "$work/past.txt")"
}
past "$work/frames/t.tsr" "frame 4 is past the end of .*: its frames are 0-3" --frames 4
past "$work/frames/t.tsr" "frame 60 is past the end" --frames 2-60
past "$work/frames/t.tsr" "frame 9 is past the end" --from-frame 9
past "$full" "frame 120 is past the end of .*: its frames are 0-119" --from-frame 120
"$tessera" replay "$full" --frames 118- --quiet > /dev/null 2>&1 || errs="$errs; --frames 118- failed"
if [ -z "$errs" ]; then check ok past-the-end; else check FAILED past-the-end "${errs#; }"; fi

# Frames belong to the swap that ends them, whether or not the program reads
# the image back first: eglretrace -s (glReadPixels before each swap, which
# flushes) and without -s (on a surfaceless context eglSwapBuffers flushes
# nothing; the layer flushes before it) give the same trace frames: the same
# submissions per frame and bit-identical replayed images.
sub_layout() {   # frame number of each submission, one a line
    "$tessera" dump --no-streams --no-disasm "$1" |
        awk '/^submit / { n++ } /^frame / { print $2, n + 0; n = 0 } END { print "tail", n + 0 }'
}
snap=$work/snap
timeout -k 10 "$tmo" "$tessera" capture -q -o "$snap.tsr" -- "${GL_PREFIX[@]}" \
    eglretrace --headless -s "$snap/" "$trace" > "$work/snap.log" 2>&1
sub_layout "$full" > "$work/layout-full"
sub_layout "$snap.tsr" > "$work/layout-snap"
if ! diff -q "$work/layout-full" "$work/layout-snap" > /dev/null; then
    diff "$work/layout-snap" "$work/layout-full" | head -n 6
    check FAILED swap-attribution "frames hold other submissions without -s than with -s (frame 0: $(head -n 1 "$work/layout-full" | cut -d' ' -f2) submissions)"
elif ! "$tessera" replay "$snap.tsr" --dump-images "$work/snap-replay" --quiet > /dev/null 2>&1; then
    check FAILED swap-attribution "the replay of the -s capture failed"
elif "$tessera" compare images "$work/snap-replay" "$work/full" > "$work/snap-cmp.txt" 2>&1; then
    echo "swap attribution: $(tail -n 1 "$work/snap-cmp.txt")"
    check ok swap-attribution
else
    grep -v '^PASS' "$work/snap-cmp.txt" | head -n 4
    check FAILED swap-attribution "replayed frames differ with and without -s"
fi
finish
