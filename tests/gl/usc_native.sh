#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The USC native path (docs/usc.md) changes nothing the model computes:
#   native-unit     every unit test binary that links the USC (found by its
#                   usc_native_get symbol: test_hw_usc's instruction tests,
#                   render, texture, compute, the whole model) passes with
#                   TESSERA_USC_NATIVE=0 and =2 (every shader native from
#                   its first launch) with identical output, and the =2 run
#                   of test_hw_usc really compiled native code
#   native-cache    the disk cache of compiled code: a capture of
#                   glmark2-es2-build (tessera driver) replayed with every
#                   shader native (=2) from a cold cache (compiled, stored)
#                   and from the warm one (loaded, nothing compiled) gives
#                   the interpreter's images and modelled cycles
#   native-golden   tests/gl/model_golden.sh (images and modelled cycles of
#                   the pinned traces, tessera and asahi drivers, 1 and 2
#                   worker threads) passes with TESSERA_USC_NATIVE=0 and =2
#                   (CI's own run of it covers the default, 1: hot shaders),
#                   on the traces that exercise the shader core most for
#                   their run time (glxgears and chromium add little to the
#                   ALU coverage and would double this script's time)
# Skipped when the build has no native path (built without LLVM).
. "$(dirname "$0")/lib/common.sh"

checks="native-unit native-cache native-golden"
bins=()
for t in "$top"/build/release/tests/*; do
    nm "$t" 2> /dev/null | grep -q ' usc_native_get$' && bins+=("$t")
done
if [ ${#bins[@]} -eq 0 ]; then
    for c in $checks; do check skip "$c" "no native path in this build (HAVE_LLVM=0)"; done
    finish
    exit
fi

why=""
for t in "${bins[@]}"; do
    n=$(basename "$t")
    for m in 0 2; do
        (cd "$top" && TESSERA_USC_NATIVE=$m TESSERA_USC_NATIVE_STATS=1 "$t") \
            > "$work/$n.$m.out" 2> "$work/$n.$m.err" ||
            why="$why $n failed with TESSERA_USC_NATIVE=$m;"
        # (the disk cache test's warnings name its random temporary directory)
        grep -v '^usc native' "$work/$n.$m.err" |
            sed 's|/tmp/test_hw_usc_native\.[^/]*/|TMP/|' >> "$work/$n.$m.out"
        # the process's page-fault count test_hw_render prints varies from
        # run to run (allocator, JIT memory): not model output
        sed -i 's/: [0-9]* page faults (/: N page faults (/' "$work/$n.$m.out"
    done
    cmp -s "$work/$n.0.out" "$work/$n.2.out" || why="$why $n output differs between 0 and 2;"
done
grep -q '^usc native: [1-9]' "$work/test_hw_usc.2.err" 2> /dev/null ||
    why="$why test_hw_usc compiled no native code with TESSERA_USC_NATIVE=2;"
if [ -z "$why" ]; then
    check ok native-unit
else
    check FAILED native-unit "$why"
fi

# replay_figures TSR MODE NAME: "images MD5 cycles MD5" of a replay
replay_figures() {
    local tsr=$1 mode=$2 name=$3 dir=$work/img-$3
    TESSERA_USC_NATIVE=$mode TESSERA_USC_NATIVE_STATS=1 "$tessera" replay --quiet \
        --dump-images "$dir" "$tsr" > "$work/$name.log" 2>&1 || return 1
    TESSERA_USC_NATIVE=$mode "$tessera" profile --json "$tsr" > "$work/$name.json" 2> /dev/null ||
        return 1
    echo "images $(cd "$dir" && ls | LC_ALL=C sort | xargs md5sum | md5sum | cut -c1-32)" \
        "cycles $(python3 -c 'import json, sys
print(" ".join(str(f["cycles"]) for f in json.load(open(sys.argv[1]))["frames"]))' \
        "$work/$name.json" | md5sum | cut -c1-32)"
}
why=""
gl_prefix tessera
tsr=$work/build.tsr
export TESSERA_USC_NATIVE_CACHE=$work/native-cache
if ! timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$tessera" capture -q -o "$tsr" -- \
        "${GL_PREFIX[@]}" eglretrace --headless "$workloads/traces/glmark2-es2-build.trace" \
        > "$work/cap.log" 2>&1; then
    why="capture failed: $(tail -n 3 "$work/cap.log")"
else
    rm -rf "$TESSERA_USC_NATIVE_CACHE"
    ref=$(replay_figures "$tsr" 0 interp) || why="$why interpreted replay failed;"
    cold=$(replay_figures "$tsr" 2 cold) || why="$why cold replay failed;"
    warm=$(replay_figures "$tsr" 2 warm) || why="$why warm replay failed;"
    [ "$cold" = "$ref" ] || why="$why cold cache ($cold) differs from the interpreter ($ref);"
    [ "$warm" = "$ref" ] || why="$why warm cache ($warm) differs from the interpreter ($ref);"
    grep -q '^usc native cache: 0 loaded, [1-9][0-9]* stored, 0 rejected' "$work/cold.log" ||
        why="$why the cold replay stored nothing: $(grep '^usc native cache' "$work/cold.log");"
    grep -q '^usc native cache: [1-9][0-9]* loaded, 0 stored, 0 rejected' "$work/warm.log" ||
        why="$why the warm replay loaded nothing: $(grep '^usc native cache' "$work/warm.log");"
fi
if [ -z "$why" ]; then
    check ok native-cache
else
    check FAILED native-cache "$why"
fi

why=""
for m in 0 2; do
    MODEL_GOLDEN_CASES="tessera:es2gears tessera:glmark2-es2-build tessera:glmark2-es2-texture tessera:glmark2-es2-pulsar asahi:es2gears asahi:glmark2-es2-build" \
        TESSERA_USC_NATIVE=$m "$top/tests/gl/model_golden.sh" > "$work/golden.$m.log" 2>&1 ||
        why="$why TESSERA_USC_NATIVE=$m: $(grep -v '^gl-result' "$work/golden.$m.log" | tail -n 3 | tr '\n' ' ');"
done
if [ -z "$why" ]; then
    check ok native-golden
else
    check FAILED native-golden "$why"
fi
finish
