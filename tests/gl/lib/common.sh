# SPDX-License-Identifier: MIT
# Shared setup of tests/gl/*.sh (run by scripts/run-tests on the release build).
# Sets top, tessera, work (a temporary directory removed at exit) and the
# functions of scripts/gl-lib.sh. GL_TEST_DRIVER (default tessera) runs the
# same checks on another driver, e.g. softpipe, to validate the scripts.
#
# A script reports each of its checks with `result ok|FAILED|skip NAME [WHY]`,
# which prints the "gl-result:" line scripts/run-tests counts (a skip counts
# as skipped, a failure with CI=true; WHY goes on a line "NAME: WHY" before
# it), and exits non-zero if any failed (`finish`).
set -u
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TESSERA=${TESSERA:-$top/build/release/bin/tessera}
. "$top/scripts/gl-lib.sh"
tessera=$gl_tessera
driver=${GL_TEST_DRIVER:-tessera}
gl_check_driver "$driver" || exit 2
for f in "$tessera" "$top/build/release/lib/tessera-shim.so" "$top/build/release/lib/tessera-capture.so" \
         "$top/build/mesa/lib/libEGL.so.1"; do
    [ -e "$f" ] || { echo "missing $f: build the release variant first (make)"; exit 1; }
done
for p in eglretrace apitrace eglinfo es2_info; do
    command -v "$p" > /dev/null || { echo "missing $p (scripts/install-deps)"; exit 1; }
done
workloads=$(gl_workloads) || exit 1
work=$(mktemp -d)
# hermetic: the USC native path's disk cache (docs/usc.md) of this script only
export TESSERA_USC_NATIVE_CACHE=$work/usc-native-cache
gl_cleanup_hooks=()
gl_cleanup() {
    local h
    for h in "${gl_cleanup_hooks[@]}"; do eval "$h"; done
    rm -rf "$work"
}
trap gl_cleanup EXIT
n_failed=0

result() { # ok|FAILED|skip NAME [why]
    local st=$1 name=$2
    shift 2
    case "$st" in ok|skip) ;; *) n_failed=$((n_failed + 1)) ;; esac
    [ $# -eq 0 ] || [ "$st" = ok ] || echo "$name: $*"
    echo "gl-result: $st $name"
}
finish() {
    echo "$(basename "$0" .sh): $n_failed failed"
    [ "$n_failed" -eq 0 ]
}

# Scripts with several named results: `checks` lists them all; `check
# ok|FAILED NAME [WHY]` reports one; `abort WHY` (a setup step failed)
# reports every check not reached yet as failed and ends the script, so a
# script prints the same results on every run.
done_checks=""
check() { done_checks="$done_checks $2"; result "$@"; }
abort() {
    local c
    echo "stopped: $*"
    for c in $checks; do
        case " $done_checks " in *" $c "*) ;; *) result FAILED "$c" "not reached: $*" ;; esac
    done
    finish
    exit
}

# gl_es2gears_setup: the es2gears workload on the tessera driver, the one
# the capture layer records. Sets `trace` and GL_PREFIX; aborts when the
# driver cannot replay it (gl_require_renderer says why).
gl_es2gears_setup() {
    local r
    trace=$workloads/traces/es2gears.trace
    [ "$driver" = tessera ] || abort "the capture layer records the tessera driver only (GL_TEST_DRIVER=$driver)"
    r=$(gl_require_renderer tessera "$trace" 2>&1) || abort "$r"
    echo "renderer: $r"
    gl_prefix tessera
}

# gl_capture_es2gears OUT.tsr LOG [CAPTURE OPTIONS...]: `tessera capture`
# of eglretrace replaying es2gears headless (after gl_es2gears_setup);
# the capture's status.
gl_capture_es2gears() {
    local out=$1 log=$2
    shift 2
    timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$tessera" capture -q "$@" -o "$out" -- \
        "${GL_PREFIX[@]}" eglretrace --headless "$trace" > "$log" 2>&1
}
