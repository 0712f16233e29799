#!/bin/bash
# SPDX-License-Identifier: MIT
# The wp strategy re-arms a mapping after a whole read without mprotect when
# none of its pages was written since it was last protected (cap_wp_arm):
# capture_scene with a frame after every submission has every object re-read
# and re-armed at each frame marker, with one CPU write (the uniform) between
# them. Every write must still be caught: the program's output is unchanged,
# all seven uniform values are in the trace, the replay validates, and the
# write-protections stay within the faults (one re-protection per fault at
# most, plus the first arming of each mapping) instead of growing with the
# objects re-read per frame. A collect skips a mapping with no page written
# since the last one and no hot page (without the page loop), and still
# catches every write.
# Both change-tracking mechanisms of wp (docs/capture.md): async userfaultfd
# write-protection (TESSERA_CAPTURE_WP_TRACK=uffd, where the kernel has it:
# the writes between two submissions are found by PAGEMAP_SCAN, no write
# fault reaches the layer, every mapping is tracked by it), mprotect/SIGSEGV
# (the default and the fallback), and both in one process
# (TESSERA_CAPTURE_WP_TRACK=mixed: every second mapping's registration is
# treated as refused, as the kernel refuses device memory, and falls back
# to mprotect).
. "$(dirname "$0")/../capture/lib.sh"

ref=$(LD_PRELOAD="${LD_PRELOAD:-} $top/build/release/lib/tessera-shim.so" \
      "$bin/capture_scene" -n 14 -e 1 -r)
for track in uffd mprotect mixed; do
t=$work/rearm-$track.tsr
out=$(TESSERA_CAPTURE_WP_TRACK=$track TESSERA_CAPTURE_STATS=1 "$tessera" capture --shim --mem wp -o "$t" -- \
      "$bin/capture_scene" -n 14 -e 1 -r 2> "$work/stats")
[ "$out" = "$ref" ] || fail "$track: output differs under capture: $out"
[ "$(info_field "$t" frames:)" = 14 ] || fail "$track: not 14 frames"
stats=$(grep ' write faults, ' "$work/stats") || fail "no wp statistics: $(cat "$work/stats")"
ustats=$(grep ' wp uffd: ' "$work/stats") || fail "no wp uffd statistics: $(cat "$work/stats")"
echo "$stats"
echo "$ustats"
read -r faults protects maps < <(echo "$stats" |
    sed -n 's/.* wp: \([0-9]*\) write faults, \([0-9]*\) write-protections, \([0-9]*\) mappings$/\1 \2 \3/p')
[ -n "$maps" ] || fail "cannot parse: $stats"
if [ $track = mprotect ]; then
    echo "$ustats" | grep -q 'unavailable (not asked for' ||
        fail "userfaultfd not forced off: $ustats"
    [ "$faults" -ge 14 ] || fail "$faults write faults for 14 uniform writes"
    [ "$protects" -le $((faults + maps)) ] ||
        fail "$protects write-protections for $faults faults and $maps mappings (re-arming clean mappings?)"
    # a mapping nothing wrote since its last collect (and without hot
    # pages) is skipped without looking at its pages; the writes are all
    # still caught (output, uniforms and validation below)
    hstats=$(grep ' wp hot pages: ' "$work/stats") || fail "no hot-page statistics: $(cat "$work/stats")"
    echo "$hstats"
    read -r collects skips < <(echo "$hstats" |
        sed -n 's/.* mapping collects: \([0-9]*\), \([0-9]*\) skipped clean$/\1 \2/p')
    [ -n "$skips" ] && [ "$skips" -ge 1 ] && [ "$skips" -lt "$collects" ] ||
        fail "clean mappings not skipped at collect: $hstats"
elif [ $track = mixed ]; then
    read -r umaps refused scans written < <(echo "$ustats" |
        sed -n 's/.* wp uffd: \([0-9]*\) mappings, \([0-9]*\) refused, \([0-9]*\) scans, \([0-9]*\) pages written$/\1 \2 \3 \4/p')
    [ -n "$written" ] || fail "mixed: no userfaultfd here? $ustats"
    [ "$umaps" -ge 1 ] && [ "$refused" -ge 1 ] && [ "$maps" = "$refused" ] ||
        fail "mixed: not both mechanisms, each refused mapping by mprotect: $stats / $ustats"
    [ $((faults + written)) -ge 14 ] || fail "mixed: $faults faults and $written pages for 14 uniform writes"
elif echo "$ustats" | grep -q unavailable; then
    echo "capture_wp_rearm: no async userfaultfd on this kernel ($ustats): the mprotect path was checked above"
    [ "$faults" -ge 14 ] || fail "$faults write faults for 14 uniform writes"
else
    read -r umaps refused scans written < <(echo "$ustats" |
        sed -n 's/.* wp uffd: \([0-9]*\) mappings, \([0-9]*\) refused, \([0-9]*\) scans, \([0-9]*\) pages written$/\1 \2 \3 \4/p')
    [ -n "$written" ] || fail "cannot parse: $ustats"
    # every mapping by userfaultfd: no write fault, no mprotect
    [ "$umaps" -ge 2 ] && [ "$refused" = 0 ] && [ "$maps" = 0 ] && [ "$faults" = 0 ] &&
        [ "$protects" = 0 ] || fail "not every mapping tracked by userfaultfd: $stats / $ustats"
    [ "$written" -ge 14 ] || fail "$written pages found written for 14 uniform writes"
fi
# a = 0.5 + (i % 7) * 0.125: 0.5 0.625 0.75 0.875 1.0 1.125 1.25
dump=$("$tessera" dump "$t")
for v in '00 00 00 3f' '00 00 20 3f' '00 00 40 3f' '00 00 60 3f' '00 00 80 3f' '00 00 90 3f' '00 00 a0 3f'; do
    echo "$dump" | grep -q "$v" || fail "$track: uniform bytes $v missing from the trace"
done
"$tessera" replay "$t" --validate > "$work/val" 2>&1 || fail "$track: validation: $(tail -n 3 "$work/val")"
grep -q "validation passed" "$work/val" || fail "$track: no validation verdict: $(cat "$work/val")"
done
echo "capture_wp_rearm: ok"
