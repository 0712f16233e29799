#!/bin/bash
# SPDX-License-Identifier: MIT
# Several threads submitting at once: every submission is recorded once,
# in the order the kernel got them, and the program's results are unchanged.
. "$(dirname "$0")/../capture/lib.sh"

ref=$(LD_PRELOAD="${LD_PRELOAD:-} $top/build/release/lib/tessera-shim.so" "$bin/capture_mt" -t 4 -n 25)
t=$work/mt.tsr
out=$("$tessera" capture -q --shim -o "$t" -- "$bin/capture_mt" -t 4 -n 25)
[ "$out" = "$ref" ] || fail "output differs under capture: $out"
"$tessera" info "$t" | grep -E 'submissions|completions|queues'
[ "$(info_field "$t" submissions:)" = 100 ] || fail "not 100 submissions"
[ "$(info_field "$t" completions:)" = 100 ] || fail "not 100 completions"
# submission numbers are 0..99, each once, in file order
seqs=$("$tessera" dump --no-streams --no-disasm "$t" | awk '/^submit /{print $2}')
[ "$seqs" = "$(seq 0 99)" ] || fail "submission numbers out of order"
# all four queues appear
q=$("$tessera" dump --no-streams --no-disasm "$t" | awk '/^  queue_id /{print $2}' | sort -u | wc -l)
[ "$q" -ge 4 ] || fail "only $q queues submitted"
echo "capture_threads: ok"
