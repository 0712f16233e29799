#!/bin/bash
# SPDX-License-Identifier: MIT
# Replay of a real GL capture under ASan with leak detection on: eglretrace
# replays the es2gears apitrace trace on the tessera driver under
# `tessera capture` (release build), then the sanitizer build's
# `tessera replay` runs the capture on the model with
# ASAN_OPTIONS=detect_leaks=1. Teardown must free everything: the VM, its
# mappings and every GEM object still open at the end of the trace (a
# VM-private object bound in its VM once kept both alive). One result,
# replay-no-leaks; skipped when the sanitizer build is missing
# (make VARIANT=san progs; `make check` builds it).
. "$(dirname "$0")/lib/common.sh"

san=$top/build/san/bin/tessera
if [ ! -x "$san" ]; then
    result skip replay-no-leaks "no sanitizer build at $san: make VARIANT=san progs"
    finish
    exit
fi
name=es2gears
trace=$workloads/traces/$name.trace
t=$work/$name.tsr
r=$(gl_require_renderer tessera "$trace" 2>&1) || { result FAILED replay-no-leaks "$r"; finish; exit; }
gl_prefix tessera
timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$tessera" capture -q -o "$t" -- "${GL_PREFIX[@]}" \
    eglretrace --headless "$trace" > "$work/live.log" 2>&1 \
    || { tail -n 5 "$work/live.log"; result FAILED replay-no-leaks "the captured eglretrace failed"; finish; exit; }
# The whole trace: every object the program left open is freed at teardown.
rc=0
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1 \
    timeout -k 10 1200 "$san" replay --quiet "$t" > "$work/replay.log" 2>&1 || rc=$?
if [ $rc = 0 ] && ! grep -qE 'LeakSanitizer|AddressSanitizer|runtime error' "$work/replay.log"; then
    result ok replay-no-leaks
else
    grep -E 'SUMMARY|leak of|ERROR' "$work/replay.log" | head -n 20
    result FAILED replay-no-leaks "replay exited $rc under ASan/LSan"
fi
finish
