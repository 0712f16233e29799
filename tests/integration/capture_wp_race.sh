#!/bin/bash
# SPDX-License-Identifier: MIT
# The wp strategy's mprotect mechanism with a thread writing mapped memory
# while another submits (capture_wprace; cap_wp.c, "Ordering"): every write
# must be in the trace by the first submission the program orders after
# it, so the replay validates (--gpu-memory full records each frame's
# results for it to compare).
#  - lost: the write fault handler racing with a collect on the submitting
#    thread must not leave a page writable and unmarked (its later writes
#    would never be recorded);
#  - late: a write by the submitting thread landing on a page another
#    thread's fault just made writable must be recorded before that
#    submission (collect waits for the fault handler to mark the page).
# TESSERA_CAPTURE_TEST_WP_FAULT_DELAY_US holds the handler between its two
# steps, as a preempted thread would, which makes both races likely; a run
# without it stresses the same races at full speed.
. "$(dirname "$0")/../capture/lib.sh"

run() {   # MODE DELAY ARGS...
    local mode=$1 delay=$2
    shift 2
    local t=$work/wprace-$mode-$delay.tsr
    out=$(TESSERA_CAPTURE_TEST_WP_FAULT_DELAY_US=$delay TESSERA_CAPTURE_WP_TRACK=mprotect \
          TESSERA_CAPTURE_STATS=1 "$tessera" capture --shim --mem wp --gpu-memory full -o "$t" -- \
          "$bin/capture_wprace" -m "$mode" "$@" 2> "$work/stats") ||
        fail "$mode $delay: program failed: $out $(tail -n 3 "$work/stats")"
    [ "$out" = "capture_wprace: y as expected" ] || fail "$mode $delay: $out"
    grep -E 'sweeps| wp: ' "$work/stats" || true
    faults=$(sed -n 's/.* wp: \([0-9]*\) write faults, .*/\1/p' "$work/stats")
    waits=$(sed -n 's/.* wp: \([0-9]*\) waits for a fault handler.*/\1/p' "$work/stats")
    [ -n "$faults" ] && [ "$faults" -ge 8 ] || fail "$mode $delay: too few write faults: $(cat "$work/stats")"
    [ -n "$waits" ] || fail "$mode $delay: no fault-handler waits counted: $(cat "$work/stats")"
    "$tessera" replay "$t" --validate > "$work/val" 2>&1 ||
        fail "$mode $delay: a write was not recorded in time: $(grep -m1 validation "$work/val")"
    grep -q "validation passed" "$work/val" || fail "$mode $delay: no validation verdict: $(cat "$work/val")"
}

run lost 500 -n 150 -p 64
run lost 0 -n 150 -p 64
run late 500 -n 150 -p 4
# the delayed handlers make the submitting thread's collects wait
[ "$waits" -ge 1 ] || fail "late: no collect waited for a fault handler"
run late 0 -n 150 -p 4
echo "capture_wp_race: ok"
