#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The GPU model's output pinned: for a few shared workload traces on the
# tessera driver and on Mesa's asahi driver, a capture of eglretrace is
# replayed on the model with 1 and with 2 worker threads, and
#   images   the MD5 of every replayed image (in name order), and
#   cycles   the modelled GPU cycles of every frame (tessera profile --json)
# must equal tests/gl/model-golden.txt. A speed change to the model (issue
# 17) must leave both bit-identical at any thread count; a fidelity change
# that alters them on purpose regenerates the file with
#   tests/gl/model_golden.sh --update
# and says why in its commit. Captures differ between runs only in buffer
# addresses, which neither figure includes. The traces cover what the
# model's fast paths must not change: opaque 2D/3D (es2gears, build,
# texture), blended overdraw and tilebuffer loads (pulsar), legacy GL with
# many small draws (glxgears), and Mesa's asahi driver's own shaders, down
# to texture-heavy GL 4.5 compositing (chromium).
# A case ending in ":final" pins only each frame's last colour image: Mesa's
# asahi driver splits chromium's first frame into a different number of
# submissions from one live run to the next (whether a buffer is still busy
# on the GPU decides it), so the per-submission images of two captures
# differ in number and order while every frame's result is the same.
. "$(dirname "$0")/lib/common.sh"

golden=$top/tests/gl/model-golden.txt
update=false
[ "${1:-}" = --update ] && update=true
# driver:trace
# MODEL_GOLDEN_CASES picks a subset (tests/gl/usc_native.sh)
cases=${MODEL_GOLDEN_CASES:-"tessera:es2gears tessera:glmark2-es2-build tessera:glmark2-es2-texture tessera:glmark2-es2-pulsar tessera:glxgears asahi:es2gears asahi:glmark2-es2-build asahi:chromium-compose-glx:final"}
checks=""
for c in $cases; do c=${c%:final}; checks="$checks golden-${c%%:*}-${c#*:}"; done

# (--update rewrites the whole file from the cases run)
$update && [ -n "${MODEL_GOLDEN_CASES:-}" ] && abort "--update regenerates every case: unset MODEL_GOLDEN_CASES"
[ -f "$golden" ] || $update || abort "missing $golden (tests/gl/model_golden.sh --update)"

# figures TRACE.tsr THREADS [final] -> "images MD5 cycles MD5 TOTAL" on stdout
figures() {
    local tsr=$1 threads=$2 which=${3:-all}
    local dir=$work/img-$threads
    rm -rf "$dir"
    TESSERA_HW_THREADS=$threads "$tessera" replay --quiet --dump-images "$dir" "$tsr" > "$work/replay.log" 2>&1 ||
        { echo "replay failed: $(tail -n 3 "$work/replay.log")" >&2; return 1; }
    TESSERA_HW_THREADS=$threads "$tessera" profile --json "$tsr" > "$work/prof.json" 2> "$work/prof.log" ||
        { echo "profile failed: $(tail -n 3 "$work/prof.log")" >&2; return 1; }
    local img cyc
    if [ "$which" = final ]; then
        # fFFFF_sSSSSS_color0.png: the last submission's colour image of each frame
        img=$(cd "$dir" && ls | LC_ALL=C sort | awk -F_ '$3 == "color0.png" { last[$1] = $0 }
                END { for (f in last) print last[f] }' | LC_ALL=C sort | xargs md5sum |
              awk '{ print $1 }' | md5sum | cut -c1-32)
    else
        img=$(cd "$dir" && ls | LC_ALL=C sort | xargs md5sum | md5sum | cut -c1-32)
    fi
    cyc=$(python3 -c '
import json, sys, hashlib
d = json.load(open(sys.argv[1]))
c = [f["cycles"] for f in d["frames"]]
print(hashlib.md5(" ".join(map(str, c)).encode()).hexdigest(), sum(c), len(c))' "$work/prof.json")
    echo "images $img cycles $cyc"
}

new=$work/golden.txt
: > "$new"
for c in $cases; do
    which=all
    case $c in *:final) which=final c=${c%:final} ;; esac
    drv=${c%%:*} name=${c#*:} check_name=golden-${c%%:*}-${c#*:}
    gl_prefix "$drv"
    tsr=$work/$drv-$name.tsr
    if ! timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$tessera" capture -q -o "$tsr" -- \
            "${GL_PREFIX[@]}" eglretrace --headless "$workloads/traces/$name.trace" > "$work/cap.log" 2>&1; then
        check FAILED "$check_name" "capture failed: $(tail -n 3 "$work/cap.log")"
        continue
    fi
    one=$(figures "$tsr" 1 $which) || { check FAILED "$check_name" "1 thread: $one"; continue; }
    two=$(figures "$tsr" 2 $which) || { check FAILED "$check_name" "2 threads: $two"; continue; }
    echo "$drv $name $one" >> "$new"
    if [ "$one" != "$two" ]; then
        check FAILED "$check_name" "1 thread ($one) and 2 threads ($two) differ"
        continue
    fi
    $update && { check ok "$check_name"; continue; }
    want=$(awk -v d="$drv" -v n="$name" '$1 == d && $2 == n { $1 = ""; $2 = ""; sub(/^  /, ""); print }' "$golden")
    if [ "$want" = "$one" ]; then
        check ok "$check_name"
    else
        check FAILED "$check_name" "model output changed: got '$one', tests/gl/model-golden.txt has '${want:-nothing}'"
    fi
done
if $update; then
    { sed -n '/^#/p' "$golden" 2>/dev/null; cat "$new"; } > "$work/g" && cp "$work/g" "$golden"
    echo "wrote $golden"
fi
finish
