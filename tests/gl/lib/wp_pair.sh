# SPDX-License-Identifier: MIT
# A capture feature's A/B on a real GL program, for the write-protection
# scripts (capture_hot_first.sh, capture_hot_idle.sh, capture_ahead.sh):
# the same eglretrace of $trace captured with the defaults ($work/new.tsr)
# and with the feature switched off by a test setting ($work/old.tsr), then
# both replayed.  Sourced after lib/common.sh and the trace's set-up
# (`trace`, GL_PREFIX).

# wp_capture OUT [ENV...]: $work/OUT.tsr, statistics in $work/OUT.log;
# aborts when the captured eglretrace fails.
wp_capture() {
    local out=$1
    shift
    env TESSERA_CAPTURE_STATS=1 "$@" timeout -k 10 "${GL_TRACE_TIMEOUT:-600}" "$tessera" capture \
        -o "$work/$out.tsr" -- "${GL_PREFIX[@]}" eglretrace --headless "$trace" > "$work/$out.log" 2>&1 ||
        abort "the captured eglretrace failed: $(tail -n 3 "$work/$out.log")"
}

# wp_pair_capture ENV...: both captures, the second (old) with ENV, the
# test setting that switches the feature off.
wp_pair_capture() {
    wp_capture new
    wp_capture old "$@"
}

# wp_faults LOG: the write faults a capture's statistics report.
wp_faults() { sed -n 's/.* wp: \([0-9]*\) write faults,.*/\1/p' "$1"; }

# wp_uffd_only LOG: whether every mapping was tracked by userfaultfd
# (TESSERA_CAPTURE_WP_TRACK=uffd: no faults to count).
wp_uffd_only() { grep -q ' wp uffd: [0-9]* mappings, 0 refused' "$1"; }

# wp_pair_replay_check NAME: check NAME passes when both captures replay
# to the same images, bit for bit, and the default one passes
# `tessera replay --validate`.
wp_pair_replay_check() {
    local name=$1 n
    "$tessera" replay "$work/new.tsr" --dump-images "$work/rn" --quiet > "$work/rn.log" 2>&1 ||
        abort "replay failed: $(tail -n 3 "$work/rn.log")"
    "$tessera" replay "$work/old.tsr" --dump-images "$work/ro" --quiet > "$work/ro.log" 2>&1 ||
        abort "replay failed: $(tail -n 3 "$work/ro.log")"
    n=$(ls "$work/rn" | grep -c '\.png$')
    if [ "$n" = 0 ] || ! diff -r -q "$work/rn" "$work/ro" > "$work/diff.log" 2>&1; then
        check FAILED "$name" "$n images; $(head -n 3 "$work/diff.log")"
    elif ! "$tessera" replay "$work/new.tsr" --validate --quiet > "$work/val.log" 2>&1; then
        check FAILED "$name" "--validate: $(tail -n 3 "$work/val.log")"
    else
        echo "$n replayed images identical"
        check ok "$name"
    fi
}
