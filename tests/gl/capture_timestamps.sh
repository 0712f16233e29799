#!/bin/bash
# SPDX-License-Identifier: MIT
# The tessera driver's timestamp object under capture (issue 17): eglretrace
# replaying es2gears on the tessera driver, captured with the defaults
# (wp, keyframes every 30 frames) and TESSERA_CAPTURE_STATS=1.
#
# The firmware writes every render pass's start/end ticks into the object
# (GEM_BIND_OBJECT, USAGE_TIMESTAMPS); the driver only reads them. It used to
# bind the object READ|WRITE into its VM and to reset a pass's two slots
# from the CPU before each submission: one write fault per submission under
# wp (120 of es2gears' 246) and a MEMORY record per submission. Checks:
#   - ts-readonly: the object's VM_BIND is READ only (no shader writes it);
#   - ts-cpu-writes: after the window's first submission the trace records
#     the object only at keyframes (the CPU never writes it);
#   - ts-keyframes: each keyframe after the first (30, 60, 90) records the
#     object's first page as the firmware left it, each time another content
#     (the ticks move on) than the one before, although no VM binding lets
#     the GPU write it (the layer counts the submissions' timestamps as
#     GPU writes);
#   - ts-faults: fewer than 200 write faults (246 before; 0 by userfaultfd);
#   - ts-validate: `tessera replay --validate` of the capture passes.
. "$(dirname "$0")/lib/common.sh"

checks="ts-readonly ts-cpu-writes ts-keyframes ts-faults ts-validate"
gl_es2gears_setup
t=$work/ts.tsr
TESSERA_CAPTURE_STATS=1 timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$tessera" capture -o "$t" -- \
    "${GL_PREFIX[@]}" eglretrace --headless "$trace" > "$work/cap.log" 2>&1 ||
    abort "the captured eglretrace failed: $(tail -n 3 "$work/cap.log")"
"$tessera" dump --no-streams --no-disasm "$t" > "$work/dump" 2>&1 || abort "dump failed"

# The timestamp object's GEM handle: the one GEM_BIND_OBJECT names.
h=$(awk '/^bind_object / { b = 1; next } b && $1 == "op" && $2 == "BIND" { for (i = 3; i < NF; i++) if ($i == "handle") { print $(i + 1); exit } }' "$work/dump")
[ -n "$h" ] || abort "no GEM_BIND_OBJECT in the trace"
echo "timestamp object: GEM handle $h"

binds=$(awk -v h="$h" '/^vm_bind / { v = 1; next } /^[a-z]/ { v = 0 } v && $1 == "op" && / handle / {
        for (i = 1; i < NF; i++) if ($i == "handle" && $(i + 1) == h) print }' "$work/dump")
if [ -z "$binds" ]; then
    check FAILED ts-readonly "handle $h is never bound in a VM"
elif echo "$binds" | grep -q ' WRITE '; then
    check FAILED ts-readonly "bound writable: $binds"
else
    check ok ts-readonly
fi

# Each MEMORY record of the object: "cpu" when a submission follows it before
# a keyframe META, "key K" (with page 0's hash) when the keyframe K does;
# records before the first submission are the window's start ("start").
awk -v h="$h" '
    function flush_rec() { if (pend) { out[n++] = pend; pend = "" } }
    /^submit / { if (pend) { print (seen ? "cpu " : "start ") pend; pend = "" } seen = 1; next }
    /^meta keyframe = / { if (pend) { print "key " $4 " " pend; pend = "" } next }
    /^memory / { m = 1; next }
    /^[a-z]/ { m = 0; next }
    m && $1 == "handle" { mine = ($2 == h); next }
    m && mine && $1 == "page" && $2 == 0 { pend = $3 }
    m && mine && $1 == "page" && pend == "" { pend = "-" }
' "$work/dump" > "$work/recs"
ncpu=$(grep -c '^cpu ' "$work/recs")
if [ "$ncpu" != 0 ]; then
    check FAILED ts-cpu-writes "$ncpu records of the object at submissions (the CPU wrote it)"
else
    check ok ts-cpu-writes
fi

start=$(awk '$1 == "start" { print $2 }' "$work/recs" | tail -n1)
keys=$(awk '$1 == "key" && $2 > 0' "$work/recs")
echo "keyframe records: $(echo "$keys" | awk '{ printf "%s(%s) ", $2, substr($3, 1, 8) }')"
nframes=$("$tessera" info "$t" | awk '$1 == "frames:" { print $2 }')
want=$(( (nframes - 1) / 30 ))
got=$(echo "$keys" | awk 'NF' | wc -l)
distinct=$( { echo "${start:-none}"; echo "$keys" | awk 'NF { print $3 }'; } | sort -u | wc -l)
if [ "$got" -lt "$want" ] || [ "$got" = 0 ]; then
    check FAILED ts-keyframes "$got keyframes after the first record the object, want $want (frames: $nframes)"
elif [ "$distinct" != $((got + 1)) ]; then
    check FAILED ts-keyframes "page 0 repeats a content: start ${start:-none}, $(echo "$keys" | awk '{ printf "%s ", $3 }')"
else
    check ok ts-keyframes
fi

faults=$(sed -n 's/.* wp: \([0-9]*\) write faults,.*/\1/p' "$work/cap.log")
if [ -z "$faults" ]; then
    check FAILED ts-faults "no wp statistics: $(grep 'tessera capture' "$work/cap.log" | head -n 3)"
elif [ "$faults" -ge 200 ]; then
    check FAILED ts-faults "$faults write faults"
else
    echo "write faults: $faults"
    check ok ts-faults
fi

if "$tessera" replay "$t" --validate --quiet > "$work/val.log" 2>&1; then
    check ok ts-validate
else
    check FAILED ts-validate "$(tail -n 3 "$work/val.log")"
fi
finish
