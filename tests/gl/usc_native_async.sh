#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The USC native path's background compile (docs/usc.md "Native path",
# TESSERA_USC_NATIVE_ASYNC) under real GL programs that exit while it works:
#   async-default   on by default: with the compile thread held back
#                   (TESSERA_USC_NATIVE_ASYNC_DELAY_MS, tests only) a piglit
#                   test exits before its hot shader is compiled; with
#                   TESSERA_USC_NATIVE_ASYNC=0 the same run compiles it on
#                   the launching thread
#   async-stress    piglit's varying-packing-simple, four processes at once
#                   (2 CPUs: the compile thread runs late, often while the
#                   process is in exit()), 6 rounds, each process with a
#                   cold disk cache of its own (a real compile, 10-30 ms):
#                   every process passes.  Before the fix (docs/usc.md), 20
#                   of 24 such processes crashed in LLVM (its statics
#                   destroyed under the compile) or hung at exit.
# Skipped without the native path (built without LLVM) or without piglit.
. "$(dirname "$0")/lib/common.sh"

checks="async-default async-stress"
bin=/usr/lib/x86_64-linux-gnu/piglit/bin
if ! nm "$tessera" 2> /dev/null | grep -q ' usc_native_get$'; then
    for c in $checks; do check skip "$c" "no native path in this build (HAVE_LLVM=0)"; done
    finish
    exit
fi
if [ ! -x "$bin/varying-packing-simple" ]; then
    for c in $checks; do check skip "$c" "no piglit ($bin/varying-packing-simple)"; done
    finish
    exit
fi

# piglit NAME ENV... -- ARGS: one varying-packing-simple run on the tessera
# driver, output in $work/NAME.out; returns its exit status, or 1 when it
# did not report a pass
piglit() {
    local name=$1
    shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env -u TESSERA_USC_NATIVE -u TESSERA_USC_NATIVE_ASYNC "${envs[@]}" PIGLIT_PLATFORM=surfaceless_egl \
        timeout 30 "$tessera" run -- "$bin/varying-packing-simple" "$@" -auto -fbo \
        > "$work/$name.out" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || return $rc
    grep -q '"result": "pass"' "$work/$name.out"
}

why=""
piglit held TESSERA_USC_NATIVE_CACHE="$work/held" TESSERA_USC_NATIVE_ASYNC_DELAY_MS=5000 \
    TESSERA_USC_NATIVE_STATS=1 -- float array || why="$why the held run failed ($?);"
grep -q '^usc native: [1-9]' "$work/held.out" &&
    why="$why a shader was compiled before exit although the compile thread was held back (not in the background?);"
piglit sync TESSERA_USC_NATIVE_CACHE="$work/sync" TESSERA_USC_NATIVE_ASYNC=0 \
    TESSERA_USC_NATIVE_ASYNC_DELAY_MS=5000 TESSERA_USC_NATIVE_STATS=1 -- float array ||
    why="$why the TESSERA_USC_NATIVE_ASYNC=0 run failed ($?);"
grep -q '^usc native: [1-9]' "$work/sync.out" ||
    why="$why TESSERA_USC_NATIVE_ASYNC=0 compiled nothing;"
if [ -z "$why" ]; then check ok async-default; else check FAILED async-default "$why"; fi

why=""
for round in 1 2 3 4 5 6; do
    pids=()
    names=()
    for t in float mat2 mat3x2 vec2; do
        piglit "r$round-$t" TESSERA_USC_NATIVE_CACHE="$work/cache-$round-$t" \
            TESSERA_USC_NATIVE_STATS=1 -- "$t" array &
        pids+=($!)
        names+=("r$round-$t")
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" ||
            why="$why ${names[$i]}: status $? ($(grep -v '^PIGLIT' "$work/${names[$i]}.out" | tail -n 1));"
    done
done
# The stress means something only if compiles ran: the plugin loads only
# after the shaders' work passed USC_NATIVE_HOT (deferred load), so a
# change there could leave these processes interpreting and the check
# above passing for nothing.  Most of the 24 compile (the one hot shader;
# a job still queued at exit is dropped, one under way is waited for and
# counted by the stats line).
compiled=$(grep -l '^usc native: [1-9]' "$work"/r[1-6]-*.out 2> /dev/null | wc -l)
[ "$compiled" -ge 6 ] ||
    why="$why only $compiled of 24 processes compiled a shader (the plugin was not exercised);"
echo "async-stress: $compiled of 24 processes compiled a shader"
if [ -z "$why" ]; then check ok async-stress; else check FAILED async-stress "$why"; fi
finish
