#!/bin/bash
# SPDX-License-Identifier: MIT
# Piglit conformance gate: the GLES subsets of Debian's piglit `opengl` and
# `shader` profiles (piglit/piglit_gles_{opengl,shader}.txt in the shared
# workloads folder, see its README.md) on the tessera driver, headless
# (`piglit run -p surfaceless_egl`, through `tessera run --`).
#
# Every test's status is compared with tests/gl/piglit-expected.txt, which
# lists the tests that are not expected to pass (GLES 3 / extensions the
# driver does not expose, surfaceless limits, known tessera bugs), each with
# the reason. A test not listed there must pass. One gl-result per profile:
# ok only when every status matches. Regressions and unexpected passes (the
# expectations file must then be updated) are both listed in the log, with
# the test's last output lines for regressions.
#
# The renderer is checked first with wflinfo (piglit's own fast-skip probe
# tool): Mesa falls back to software rendering silently when a driver fails
# to load, and piglit would then "pass" on softpipe.
# GL_TEST_DRIVER=tessera-sw runs the same gate on the sw path; other drivers
# run too, but the expectations are tessera's.
# PIGLIT_TEST_TIMEOUT (default 120) is piglit's per-test limit in seconds.
# PIGLIT_PROFILES (default "opengl shader") selects the profiles; PIGLIT_OUT=DIR
# keeps the piglit results folders there (DIR/results-PROFILE); PIGLIT_EXPECTED
# names another expectations file. Other gates reuse this machinery with
# their own lists (tests/gl/piglit_desktop.sh): PIGLIT_LISTS=DIR and
# PIGLIT_LIST_PREFIX (default piglit_gles_) name the lists DIR/PREFIXPROFILE.txt,
# PIGLIT_WFL_API (default gles2) the context wflinfo checks the renderer
# with, PIGLIT_GATE (default piglit) the results' names GATE-PROFILE.
. "$(dirname "$0")/lib/common.sh"

expected=${PIGLIT_EXPECTED:-$top/tests/gl/piglit-expected.txt}
lists=${PIGLIT_LISTS:-$workloads/piglit}
prefix=${PIGLIT_LIST_PREFIX:-piglit_gles_}
wfl_api=${PIGLIT_WFL_API:-gles2}
gate=${PIGLIT_GATE:-piglit}
profiles=${PIGLIT_PROFILES:-opengl shader}
# piglit's per-test limit (s): a hung test is a "timeout", which must be
# expected like any other status
test_timeout=${PIGLIT_TEST_TIMEOUT:-120}
for p in piglit wflinfo python3; do
    command -v "$p" > /dev/null || { echo "missing $p (scripts/install-deps: piglit waffle-utils)"; exit 1; }
done
[ -f "$expected" ] || { echo "missing $expected"; exit 1; }
for prof in $profiles; do
    [ -f "$lists/$prefix$prof.txt" ] || { echo "missing $lists/$prefix$prof.txt"; exit 1; }
done
# piglit's surfaceless platform must not find an X server.
unset DISPLAY WAYLAND_DISPLAY

# The renderer piglit's tests get: one context of the gate's API through waffle.
gl_run "$driver" timeout 120 wflinfo -p surfaceless_egl -a "$wfl_api" > "$work/wflinfo.txt" 2>&1
renderer=$(sed -n 's/^OpenGL renderer string: *//p' "$work/wflinfo.txt")
echo "$gate: renderer '${renderer:-none}' ($(sed -n 's/^OpenGL version string: *//p' "$work/wflinfo.txt"))"
if ! echo "$renderer" | grep -qiE "$(gl_renderer_pattern "$driver")"; then
    sed 's/^/  | /' "$work/wflinfo.txt"
    for prof in $profiles; do
        result FAILED "$gate-$prof" "the renderer is '${renderer:-none}', not $driver's (Mesa fell back?)"
    done
    finish
    exit
fi

# statuses DIR: "STATUS<TAB>TEST" for every test of a piglit results folder.
statuses() {
    python3 - "$1" <<'EOF'
import bz2, gzip, json, lzma, os, sys
d = sys.argv[1]
for name, opener in (("results.json.bz2", bz2.open), ("results.json.gz", gzip.open),
                     ("results.json.xz", lzma.open), ("results.json", open)):
    path = os.path.join(d, name)
    if os.path.exists(path):
        with opener(path, "rt") as f:
            tests = json.load(f)["tests"]
        for t in sorted(tests):
            print("%s\t%s" % (tests[t]["result"], t))
        sys.exit(0)
sys.exit("no results.json* in " + d)
EOF
}

# output DIR TEST: the last lines of a test's stdout and stderr.
output() {
    python3 - "$1" "$2" <<'EOF'
import bz2, gzip, json, lzma, os, sys
for name, opener in (("results.json.bz2", bz2.open), ("results.json.gz", gzip.open),
                     ("results.json.xz", lzma.open), ("results.json", open)):
    path = os.path.join(sys.argv[1], name)
    if os.path.exists(path):
        break
with opener(path, "rt") as f:
    t = json.load(f)["tests"][sys.argv[2]]
text = (t.get("out", "") + t.get("err", "")).strip().splitlines()
print("\n".join(text[-6:]) if text else "(no output, exit status %s)" % t.get("returncode"))
EOF
}

t_all=$(date +%s.%N)
for prof in $profiles; do
    out=${PIGLIT_OUT:-$work}/results-$prof rc=0
    t0=$(date +%s.%N)
    gl_run "$driver" timeout 900 piglit run -p surfaceless_egl -j 2 --timeout "$test_timeout" -l dummy -o \
        --test-list "$lists/$prefix$prof.txt" "$prof" "$out" > "$work/piglit-$prof.log" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    if ! statuses "$out" > "$work/status-$prof.tsv" 2> "$work/status-$prof.err"; then
        tail -n 20 "$work/piglit-$prof.log" | sed 's/^/  | /'
        result FAILED "$gate-$prof" "piglit run exited $rc without results ($(cat "$work/status-$prof.err"))"
        continue
    fi
    # Expected statuses of this profile: "STATUS<TAB>TEST".
    awk -v p="$prof" '!/^[ \t]*(#|$)/ && $2 == p {
            s = $1; sub(/^[ \t]*[^ \t]+[ \t]+[^ \t]+[ \t]+/, ""); sub(/[ \t]+$/, ""); print s "\t" $0 }' \
        "$expected" > "$work/expected-$prof.tsv"
    # Every test of the list: its status and the expected one (pass unless listed).
    awk -F'\t' -v list="$lists/$prefix$prof.txt" '
        FILENAME == ARGV[1] { want[$2] = $1; next }
        { got[$2] = $1 }
        END {
            while ((getline t < list) > 0) {
                if (t == "") continue
                listed[t] = 1
                printf "%s\t%s\t%s\n", (t in got) ? got[t] : "missing", (t in want) ? want[t] : "pass", t
            }
            for (t in got) if (!(t in listed)) printf "%s\t%s\t%s\n", got[t], (t in want) ? want[t] : "pass", t
            for (t in want) if (!(t in got) && !(t in listed)) printf "not-in-list\t%s\t%s\n", want[t], t
        }' "$work/expected-$prof.tsv" "$work/status-$prof.tsv" > "$work/compare.tmp" ||
        { result FAILED "$gate-$prof" "comparing the statuses failed"; continue; }
    sort -t$'\t' -k3 "$work/compare.tmp" > "$work/compare-$prof.tsv"
    counts=$(awk -F'\t' '{ n[$1]++ } END { printf "%d pass, %d fail, %d crash, %d skip", n["pass"], n["fail"], n["crash"], n["skip"]
                                           for (s in n) if (s != "pass" && s != "fail" && s != "crash" && s != "skip") printf ", %d %s", n[s], s }' \
             "$work/status-$prof.tsv")
    total=$(wc -l < "$work/status-$prof.tsv")
    echo "$gate-$prof: $total tests in $secs s (piglit exit $rc): $counts"
    nmis=0
    while IFS=$'\t' read -r got exp t; do
        [ "$got" = "$exp" ] && continue
        # "flake": a known intermittent result (a race still to be fixed,
        # named by its cause line); pass and fail are both accepted and
        # shown, a crash or a missing result still fails the gate
        if [ "$exp" = flake ] && { [ "$got" = pass ] || [ "$got" = fail ]; }; then
            echo "  $gate-$prof: known flake, $got this run: $t"
            continue
        fi
        nmis=$((nmis + 1))
        if [ "$got" = pass ]; then
            echo "  $gate-$prof: UNEXPECTED PASS (expected $exp, update ${expected#$top/}): $t"
        elif [ "$got" = not-in-list ]; then
            echo "  $gate-$prof: STALE expectation ($exp) for a test not in the list: $t"
        else
            echo "  $gate-$prof: REGRESSION $got (expected $exp): $t"
            [ "$got" = missing ] || output "$out" "$t" | sed 's/^/    | /'
        fi
    done < "$work/compare-$prof.tsv"
    if [ "$nmis" -eq 0 ]; then
        result ok "$gate-$prof"
    else
        result FAILED "$gate-$prof" "$nmis tests differ from ${expected#$top/}"
    fi
done
echo "$gate: total $(awk -v a="$t_all" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
finish
