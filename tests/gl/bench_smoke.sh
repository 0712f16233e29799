#!/bin/bash
# SPDX-License-Identifier: MIT
# The GL benchmarks' scripts still run (bench/README.md; the benchmarks
# themselves are not tests: their figures depend on the machine):
#   bench-options           bad options of bench/gl_replay and
#                           bench/gl_capture_overhead: a message and exit 2,
#                           before anything runs; -h prints the header
#   bench-context-request   scripts/gl-lib.sh reads the context a trace asks
#                           for (chromium-compose-glx: GL 4.5 core;
#                           minetest-seed7: GL 3.0; es2gears: ES 2.0;
#                           glxgears: unversioned) and the override that
#                           gives it (4.5/450 for chromium, none for glxgears)
#   bench-gl-replay         `bench/gl_replay -r 1 -t es2tri -d "tessera
#                           softpipe"`: exit 0, a time for both drivers, the
#                           ratio and its geometric mean over 1 of 1 traces;
#                           chromium-compose-glx on tessera (no GL 4.5 core
#                           context): "n/a" with the reason, exit 0
#   bench-capture-overhead  `bench/gl_capture_overhead -r 2 -t es2tri -m wp`:
#                           exit 0, live, live+flush and capture rows, a
#                           paired overhead against both baselines with a
#                           verdict
# About 30 s.
. "$(dirname "$0")/lib/common.sh"
checks="bench-options bench-context-request bench-gl-replay bench-capture-overhead"
if [ "$driver" != tessera ]; then
    for c in $checks; do result skip "$c" "the benchmarks measure the tessera driver"; done
    finish; exit
fi

# bench-options
why=""
for args in "-r 0" "-d bogus" "-t nosuch" "-T x" "extra"; do
    # shellcheck disable=SC2086
    "$top/bench/gl_replay" $args > "$work/o.log" 2>&1
    rc=$?
    [ $rc = 2 ] && [ -s "$work/o.log" ] || why="$why; gl_replay $args: exit $rc"
done
for args in "-r 0" "-m bogus" "-H 0" "-N x" "-t nosuch" "extra"; do
    # shellcheck disable=SC2086
    "$top/bench/gl_capture_overhead" $args > "$work/o.log" 2>&1
    rc=$?
    [ $rc = 2 ] && [ -s "$work/o.log" ] || why="$why; gl_capture_overhead $args: exit $rc"
done
"$top/bench/gl_replay" -h | grep -q -- '-a' || why="$why; gl_replay -h does not describe -a"
"$top/bench/gl_capture_overhead" -h | grep -q 'paired' || why="$why; gl_capture_overhead -h does not describe the statistic"
if [ -z "$why" ]; then check ok bench-options; else check FAILED bench-options "${why#; }"; fi

# bench-context-request
why=""
want() { # TRACE "REQUEST" "OVERRIDE"
    local r o
    r=$(gl_context_request "$workloads/traces/$1.trace")
    # shellcheck disable=SC2086
    o=$(gl_version_override $r)
    [ "$r" = "$2" ] || why="$why; $1 asks for '$r', want '$2'"
    [ "$o" = "$3" ] || why="$why; $1: override '$o', want '$3'"
}
want chromium-compose-glx "gl 4 5 core" "MESA_GL_VERSION_OVERRIDE=4.5 MESA_GLSL_VERSION_OVERRIDE=450"
want minetest-seed7 "gl 3 0 compat" "MESA_GL_VERSION_OVERRIDE=3.0 MESA_GLSL_VERSION_OVERRIDE=130"
want es2gears "es 2 0 -" "MESA_GLES_VERSION_OVERRIDE=2.0"
want glxgears "gl 0 0 compat" ""
if [ -z "$why" ]; then check ok bench-context-request; else check FAILED bench-context-request "${why#; }"; fi

# bench-gl-replay
"$top/bench/gl_replay" -r 1 -t es2tri -d "tessera softpipe" > "$work/r.log" 2> "$work/r.err"
rc=$?
sed 's/^/    /' "$work/r.log"
if [ $rc != 0 ]; then
    check FAILED bench-gl-replay "exit $rc: $(tail -n 2 "$work/r.err")"
elif ! grep -qE '^es2tri +ES 2\.0 +[0-9.]+ \([0-9.]+\) +[0-9.]+ \([0-9.]+\)' "$work/r.log"; then
    check FAILED bench-gl-replay "no times for es2tri on both drivers"
elif ! grep -qE '^geometric mean +[0-9.]+x' "$work/r.log" || ! grep -qE '^  over traces +1 of 1' "$work/r.log"; then
    check FAILED bench-gl-replay "no geometric mean over 1 of 1 traces"
else
    # a model driver without the trace's context: n/a with the reason, exit 0
    "$top/bench/gl_replay" -r 1 -t chromium-compose-glx -d tessera > "$work/n.log" 2> "$work/n.err"
    rc=$?
    sed 's/^/    /' "$work/n.log"
    if [ $rc != 0 ] || ! grep -qE '^chromium-compose-glx +GL 4\.5 core +n/a' "$work/n.log" ||
       ! grep -q '^n/a chromium-compose-glx on tessera: eglretrace gets no GL 4.5 core context' "$work/n.log"; then
        check FAILED bench-gl-replay "chromium-compose-glx on tessera: not shown as n/a with its reason (exit $rc)"
    else
        check ok bench-gl-replay
    fi
fi

# bench-capture-overhead
"$top/bench/gl_capture_overhead" -r 2 -t es2tri -m wp -b 50 > "$work/c.log" 2> "$work/c.err"
rc=$?
sed 's/^/    /' "$work/c.log"
if [ $rc != 0 ]; then
    check FAILED bench-capture-overhead "exit $rc: $(tail -n 2 "$work/c.err")"
elif ! grep -qE '^  live+ ' "$work/c.log" || ! grep -qE '^  live\+flush ' "$work/c.log" ||
     ! grep -qE '^  capture wp ' "$work/c.log"; then
    check FAILED bench-capture-overhead "a row of live, live+flush, capture wp is missing"
elif ! grep -qE '^  wp vs live\+flush: +CPU .*CPU <= 3 %: (met|not met|inconclusive)$' "$work/c.log" ||
     ! grep -qE '^  wp vs live: +CPU .*CPU <= 3 %: (met|not met|inconclusive)$' "$work/c.log"; then
    check FAILED bench-capture-overhead "no paired overhead with a verdict against both baselines"
else
    check ok bench-capture-overhead
fi
finish
