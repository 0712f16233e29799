#!/bin/bash
# SPDX-License-Identifier: MIT
# Frame and submission ranges, the signal trigger and the trigger file. A
# trace that starts mid-run holds the whole state first, so it stands alone.
. "$(dirname "$0")/../capture/lib.sh"

scene="$bin/capture_scene"
# frames 2-3 of 6 (10 submissions each): submissions 20..39
t=$work/frames.tsr
"$tessera" capture -q --shim --frames 2-3 -o "$t" -- "$scene" -n 60 -e 10 >/dev/null
[ "$(info_field "$t" submissions:)" = 20 ] || fail "frames 2-3: not 20 submissions"
d=$("$tessera" dump --no-streams --no-disasm "$t")
# the state comes before the first submission: objects, VM, binds, queue, memory
first=$(echo "$d" | grep -n '^submit 0' | cut -d: -f1)
for rec in gem_create vm_create vm_bind queue_create bind_object memory; do
    at=$(echo "$d" | grep -n "^$rec" | head -1 | cut -d: -f1)
    [ -n "$at" ] && [ "$at" -lt "$first" ] || fail "frames 2-3: no $rec before the first submission"
done
echo "$d" | grep -q 'capture stopped' || fail "no end-of-range marker"

t=$work/submits.tsr
"$tessera" capture -q --shim --submits 5-14 -o "$t" -- "$scene" -n 60 -e 10 >/dev/null
[ "$(info_field "$t" submissions:)" = 10 ] || fail "submits 5-14: not 10 submissions"

# --frame-every: frame markers without the program's help
t=$work/every.tsr
"$tessera" capture -q --shim --frame-every 4 -o "$t" -- "$scene" -n 20 -e 1000 >/dev/null
[ "$(info_field "$t" frames:)" = 5 ] || fail "--frame-every 4: not 5 frames"

# signal trigger: off at start; the default signal RTMIN+7 (to tessera,
# forwarded) turns it on, a second one off again
t=$work/signal.tsr
"$tessera" capture -q --shim --start-off -o "$t" -- "$scene" -n 40 -e 1 -p 25 >/dev/null &
pid=$!
sleep 0.3; kill -s RTMIN+7 $pid; sleep 0.3; kill -s RTMIN+7 $pid
wait $pid || fail "the program failed under the signal trigger"
n=$(info_field "$t" submissions:)
echo "signal window: $n submissions"
[ "$n" -gt 0 ] && [ "$n" -lt 40 ] || fail "signal trigger: $n submissions"
"$tessera" info "$t" | grep -q 'signal=RTMIN+7' || fail "the default signal is not RTMIN+7"

# the signal is configurable: TESSERA_CAPTURE_SIGNAL (what --signal sets)
t=$work/signal2.tsr
TESSERA_CAPTURE_SIGNAL=USR2 "$tessera" capture -q --shim --start-off -o "$t" -- \
    "$scene" -n 40 -e 1 -p 25 >/dev/null &
pid=$!
sleep 0.3; kill -USR2 $pid; sleep 0.3; kill -USR2 $pid
wait $pid || fail "the program failed under the USR2 trigger"
n=$(info_field "$t" submissions:)
[ "$n" -gt 0 ] && [ "$n" -lt 40 ] || fail "USR2 trigger: $n submissions"

# trigger file: appears -> on (and is removed)
t=$work/file.tsr
trig=$work/go
"$tessera" capture -q --shim --start-off --trigger-file "$trig" -o "$t" -- "$scene" -n 40 -e 1 -p 20 >/dev/null &
pid=$!
sleep 0.3; touch "$trig"
wait $pid || fail "the program failed under the file trigger"
[ ! -e "$trig" ] || fail "the trigger file was not consumed"
n=$(info_field "$t" submissions:)
echo "file trigger: $n submissions"
[ "$n" -gt 0 ] && [ "$n" -lt 40 ] || fail "file trigger: $n submissions"
# Bad values fail the command (exit 2, a message, the program not run),
# whether given as options or exported as the layer's variables.
bad() {   # bad MESSAGE-REGEX [env VAR=VALUE] tessera-capture-args...
    local want=$1 rc=0
    shift
    "$@" -o "$work/bad.tsr" -- touch "$work/ran" > "$work/out" 2>&1 || rc=$?
    [ $rc = 2 ] || fail "'$*' exited $rc, want 2"
    grep -q "$want" "$work/out" || { cat "$work/out"; fail "'$*': no message '$want'"; }
    [ ! -e "$work/ran" ] || fail "'$*' ran the program"
}
bad "bad --frame-every: -1" "$tessera" capture --frame-every -1
bad "bad --frame-every: 0" "$tessera" capture --frame-every 0
bad "bad TESSERA_CAPTURE_FRAME_EVERY: '-1'" env TESSERA_CAPTURE_FRAME_EVERY=-1 "$tessera" capture
bad "bad trigger signal: 'KILL'" env TESSERA_CAPTURE_SIGNAL=KILL "$tessera" capture
bad "bad signal: RTMIN+99" "$tessera" capture --signal RTMIN+99
bad "bad frame range" "$tessera" capture --frames 5-2
echo "capture_ranges: ok"
