#!/bin/bash
# SPDX-License-Identifier: MIT
# GPU-written memory recorded only at keyframes (issue 15, "Smaller steady
# frames"; docs/capture.md "GPU-written memory"). eglretrace replays the
# es2gears trace on the tessera driver, captured twice in the same way:
#   tessera capture -o key.tsr  -- tessera run -- eglretrace --headless es2gears.trace
#   tessera capture --gpu-memory full -o full.tsr -- ...   (every frame: the old behaviour)
# Checks:
#   - sizes: the default trace's steady frames (median of the frames after
#     frame 0, raw bytes from `tessera info`) are at most a fifth of the full
#     trace's, and the file is at most a fifth as large; both printed.
#   - keyframes: key.tsr says "gpu_memory = keyframes every 30" and has a
#     keyframe META at 0, 30, 60, ... (dump; info counts them); full.tsr
#     says "gpu_memory = full".
#   - replay: every image of key.tsr's replay equals full.tsr's (tolerance 0).
#   - from-frame: `--from-frame 45` (not a keyframe: frames 30-44 run again
#     without images) gives the full replay's images of frames 45-.
#   - validate: `replay --validate` of key.tsr passes and checks pages (those
#     the GPU wrote in the frame before each keyframe).
#   - slow-gpu: a third capture with the model's firmware stalled for 4 s
#     before frame 28's first job (TESSERA_HW_STALL, hw/hw_fw_priv.h), so
#     at the keyframe marker ending frame 29 the GPU is still busy for
#     longer than the 2 s the layer used to wait before re-reading what it
#     wrote (it then recorded render targets the GPU was still drawing:
#     glmark2-es2-texture's frame 59 on a loaded machine, about one capture
#     in three). `replay --validate` passes and the keyframes are where
#     they always are.
#   - reads: the default capture (wp) reads at most 5 MiB besides the
#     keyframes' re-reads (TESSERA_CAPTURE_STATS): objects created while
#     recording are not read whole, their CPU mappings are write-protected
#     from the start (it read every new object whole, 8 MiB). With wp's
#     mprotect mechanism (the default): at most 400 write faults (each a signal and two
#     mprotect calls): pages the driver rewrites frame after frame are hot,
#     left writable and read at each submission (it took ~600). With the
#     userfaultfd mechanism (TESSERA_CAPTURE_WP_TRACK=uffd) writes never fault into the layer: no write
#     fault at all when every mapping is tracked by it (with mappings
#     refused, =mixed, the mprotect limit holds), and the pages its scans
#     found written (each a kernel-resolved fault, ~630) are printed.
#   - bad options: --gpu-memory bogus, --keyframe-every 0: exit 2, a message.
. "$(dirname "$0")/lib/common.sh"

checks="captures sizes keyframes reads replay from-frame validate slow-gpu bad-options"
checks=$(echo $checks)

gl_es2gears_setup

key=$work/key.tsr full=$work/full.tsr
TESSERA_CAPTURE_STATS=1 gl_capture_es2gears "$key" "$work/key.log" || abort "the default capture failed: $(tail -n 2 "$work/key.log")"
gl_capture_es2gears "$full" "$work/full.log" --gpu-memory full ||
    abort "the --gpu-memory full capture failed: $(tail -n 2 "$work/full.log")"
check ok captures

field() { awk -v k="$2" '$1 == k { print $'"${3:-2}"'; exit }' "$1"; }
"$tessera" info "$key" > "$work/key.info" && "$tessera" info "$full" > "$work/full.info" ||
    abort "tessera info failed"
# "frame bytes:  frame 0 N, later F frames: median M, max X (...)"
median() { sed -n 's/^frame bytes: .* median \([0-9]*\),.*/\1/p' "$1"; }
mk=$(median "$work/key.info") mf=$(median "$work/full.info")
sk=$(stat -c %s "$key") sf=$(stat -c %s "$full")
echo "steady frame (raw median): keyframes $mk bytes, full $mf bytes; files: keyframes $sk bytes, full $sf bytes"
grep -A 20 '^bytes by type' "$work/key.info" | grep -v '^frame bytes\|^time span'
if [ -z "$mk" ] || [ -z "$mf" ] || [ $((5 * mk)) -gt "$mf" ] || [ $((5 * sk)) -gt "$sf" ]; then
    check FAILED sizes "keyframes trace not a fifth of the full one"
else
    check ok sizes
fi

# "memory wp: T ms for N MiB, ..., frame re-reads: T ms for R MiB, ..."
read -r rn rr < <(sed -n 's/.*memory wp: [0-9.]* ms for \([0-9]*\) MiB,.*frame re-reads: [0-9.]* ms for \([0-9]*\) MiB.*/\1 \2/p' "$work/key.log")
grep 'tessera capture: .*\(submissions of\|CPU:\)' "$work/key.log"
if [ -z "$rr" ]; then
    check FAILED reads "no memory statistics: $(grep 'tessera capture' "$work/key.log" | head -n 3)"
elif [ $((rn - rr)) -gt 5 ]; then
    check FAILED reads "$((rn - rr)) MiB read besides the keyframes' $rr MiB"
elif ! faults=$(sed -n 's/.* wp: \([0-9]*\) write faults,.*/\1/p' "$work/key.log") || [ -z "$faults" ]; then
    check FAILED reads "no wp statistics: $(grep 'tessera capture' "$work/key.log" | head -n 4)"
elif ! ustats=$(grep ' wp uffd: ' "$work/key.log"); then
    check FAILED reads "no wp uffd statistics: $(grep 'tessera capture' "$work/key.log" | head -n 5)"
elif echo "$ustats" | grep -q unavailable; then
    echo "wp by mprotect: $faults write faults (${ustats#*wp uffd: })"
    if [ "$faults" -gt 400 ]; then
        check FAILED reads "$faults write faults (hot pages not left writable?)"
    else
        check ok reads
    fi
elif echo "$ustats" | grep -q ' mappings, 0 refused,' && [ "$faults" != 0 ]; then
    check FAILED reads "$faults write faults with every mapping tracked by userfaultfd: $ustats"
elif [ "$faults" -gt 400 ]; then
    # mappings refused (mixed): tracked by mprotect, its limit holds
    check FAILED reads "$faults write faults (hot pages not left writable?), $ustats"
else
    echo "wp by userfaultfd: ${ustats#*wp uffd: }"
    check ok reads
fi

n=$(field "$work/key.info" frames:)
want=" "
for ((f = 0; f <= n; f += 30)); do want="$want$f "; done
got=" $("$tessera" dump --no-streams --no-disasm "$key" | grep '^meta keyframe = ' | awk '{ printf "%s ", $4 }')"
if ! grep -q '^meta: *gpu_memory = keyframes every 30$' "$work/key.info"; then
    check FAILED keyframes "no 'gpu_memory = keyframes every 30' in key.tsr"
elif ! grep -q '^meta: *gpu_memory = full$' "$work/full.info"; then
    check FAILED keyframes "no 'gpu_memory = full' in full.tsr"
elif [ "$(field "$work/key.info" keyframes:)" != $(echo $want | wc -w) ]; then
    check FAILED keyframes "info says '$(grep '^keyframes:' "$work/key.info")', want $(echo $want | wc -w)"
elif [ "$got" != "$want" ]; then
    check FAILED keyframes "keyframes at$got, want$want"
else
    check ok keyframes
fi

"$tessera" replay "$full" --dump-images "$work/rf" --quiet > "$work/rf.log" 2>&1 ||
    abort "the replay of full.tsr failed: $(tail -n 2 "$work/rf.log")"
if ! "$tessera" replay "$key" --dump-images "$work/rk" --quiet > "$work/rk.log" 2>&1; then
    check FAILED replay "the replay of key.tsr failed: $(tail -n 2 "$work/rk.log")"
elif [ "$(ls "$work/rk" | wc -l)" != "$(ls "$work/rf" | wc -l)" ] || [ "$(ls "$work/rk" | wc -l)" -lt 100 ]; then
    check FAILED replay "$(ls "$work/rk" | wc -l) images, the full capture's replay $(ls "$work/rf" | wc -l)"
elif "$tessera" compare images "$work/rk" "$work/rf" > "$work/rk.cmp" 2>&1; then
    echo "replay: $(tail -n 1 "$work/rk.cmp")"
    check ok replay
else
    grep -v '^PASS' "$work/rk.cmp" | head -n 5
    check FAILED replay "key.tsr replays to other images than full.tsr"
fi

mkdir -p "$work/ref45"
if ! "$tessera" replay "$key" --from-frame 45 --dump-images "$work/r45" > "$work/r45.log" 2>&1; then
    check FAILED from-frame "replay --from-frame 45 failed: $(tail -n 2 "$work/r45.log")"
else
    for img in "$work/r45"/*.png; do ln -s "$work/rf/$(basename "$img")" "$work/ref45/"; done
    first=$(ls "$work/r45" | head -n 1)
    subs=$(sed -n 's/^replayed \([0-9]*\) submissions.*/\1/p' "$work/r45.log")
    if [ "${first:0:5}" != f0045 ] || [ "$subs" != $((n - 45)) ]; then
        check FAILED from-frame "first image $first, $subs submissions replayed (want f0045, $((n - 45)))"
    elif "$tessera" compare images "$work/r45" "$work/ref45" > "$work/r45.cmp" 2>&1; then
        echo "from-frame 45: $(tail -n 1 "$work/r45.cmp")"
        check ok from-frame
    else
        grep -v '^PASS' "$work/r45.cmp" | head -n 5
        check FAILED from-frame "frames 45- differ from the full replay's"
    fi
fi

if "$tessera" replay "$key" --validate > "$work/val.log" 2>&1 && grep -qi 'validat' "$work/val.log"; then
    grep -i 'validat' "$work/val.log" | head -n 2
    check ok validate
else
    tail -n 3 "$work/val.log"
    check FAILED validate "replay --validate of key.tsr"
fi

# es2gears: one render per frame, two jobs with a START each (vertex,
# fragment), so START 56 is frame 28's vertex job.
slow=$work/slow.tsr
if ! TESSERA_HW_STALL=56:4000 gl_capture_es2gears "$slow" "$work/slow.log"; then
    check FAILED slow-gpu "the capture failed: $(tail -n 2 "$work/slow.log")"
elif ! "$tessera" replay "$slow" --validate --quiet > "$work/slowval.log" 2>&1; then
    tail -n 3 "$work/slowval.log"
    check FAILED slow-gpu "replay --validate of the slow GPU's capture: the keyframe recorded unfinished GPU results"
elif [ " $("$tessera" dump --no-streams --no-disasm "$slow" | grep '^meta keyframe = ' | awk '{ printf "%s ", $4 }')" != "$want" ]; then
    check FAILED slow-gpu "keyframes moved"
else
    check ok slow-gpu
fi

errs=""
for a in "--gpu-memory bogus" "--keyframe-every 0" "--keyframe-every x"; do
    rc=0
    "$tessera" capture $a -o "$work/bad.tsr" -- true > "$work/bad.txt" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -q "gpu-memory\|keyframe-every" "$work/bad.txt" && [ ! -e "$work/bad.tsr" ] ||
        errs="$errs; '$a' exited $rc: $(head -n 1 "$work/bad.txt")"
done
rc=0
TESSERA_CAPTURE_KEYFRAME_EVERY=0 "$tessera" capture -o "$work/bad.tsr" -- true > "$work/bad.txt" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q KEYFRAME_EVERY "$work/bad.txt" || errs="$errs; TESSERA_CAPTURE_KEYFRAME_EVERY=0 exited $rc"
if [ -z "$errs" ]; then check ok bad-options; else check FAILED bad-options "${errs#; }"; fi

finish
