#!/bin/bash
# SPDX-License-Identifier: MIT
# Completions on a real GL program (issue 17): eglretrace replaying
# es2gears on the tessera driver, captured with TESSERA_CAPTURE_STATS.
# After each of the program's fence waits the layer records every pending
# submission that has signalled (capture/cap_reaper.c); a queue's work
# completes in order, so it asks each queue's fences oldest first and
# stops at the first busy one. It used to ask every pending submission,
# busy ones included: ~740 fence queries a run (each an ioctl, through
# the shim with its own user copies) for 120 submissions. What the
# program's wait itself proves is not asked either: the submissions that
# signal the syncobjs it waited on (and the earlier ones of their queues)
# are complete, and the later ones of those queues are left to the reaper
# (cap_reaper_after_wait): ~210 fence queries a run before, ~50 now.
# Checks:
#   - fence-queries: at most three for four submissions, at least half
#     the completions known from the program's waits, and a completion
#     recorded for every submission (`tessera info`);
#   - fence-replay: the capture passes `tessera replay --validate`.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/wp_pair.sh"

checks="fence-queries fence-replay"
gl_es2gears_setup
wp_capture new
q=$(sed -n 's/.* completions: \([0-9]*\) fence queries.*/\1/p' "$work/new.log")
known=$(sed -n "s/.* fence queries, \([0-9]*\) known from the program's waits.*/\1/p" "$work/new.log")
subs=$("$tessera" info "$work/new.tsr" | awk '$1 == "submissions:" { print $2; exit }')
comps=$("$tessera" info "$work/new.tsr" | awk '$1 == "completions:" { print $2; exit }')
echo "fence queries: ${q:-?} for ${subs:-?} submissions, ${comps:-?} completions, ${known:-?} known from waits"
if [ -z "$q" ] || [ -z "$known" ] || [ -z "$subs" ] || [ "$subs" = 0 ]; then
    check FAILED fence-queries "no statistics or no submissions: $(grep 'tessera capture' "$work/new.log" | head -n 3)"
elif [ "$q" -gt $((3 * subs / 4)) ] || [ "$known" -lt $((subs / 2)) ] || [ "$comps" != "$subs" ]; then
    check FAILED fence-queries "$q fence queries, $known known from waits, $comps completions for $subs submissions"
else
    check ok fence-queries
fi
if "$tessera" replay "$work/new.tsr" --validate --quiet > "$work/val.log" 2>&1; then
    check ok fence-replay
else
    check FAILED fence-replay "--validate: $(tail -n 3 "$work/val.log")"
fi
finish
