#!/bin/bash
# SPDX-License-Identifier: MIT
# `tessera minimize`'s draw pass on dispatches (the GL workloads have no
# compute): capture_scene -r submits 12 saxpy compute commands, one CDM
# launch each. With a predicate that holds while the candidate has a compute
# submission, minimize keeps 1 submission and, since the predicate also
# holds with no dispatch, rewrites its launch into a no-op: the Global Size
# packed as 0x0x0. The result verifies and replays without GPU errors; with
# --no-draws the launch keeps its size.
. "$(dirname "$0")/../capture/lib.sh"

t=$work/scene.tsr
"$tessera" capture -q --shim --mem hash -o "$t" -- "$bin/capture_scene" -n 12 -e 4 -r \
    > "$work/out" || fail "capture"
export TESSERA=$tessera
pred='"$TESSERA" dump --no-streams "$TRACE" | grep -q "command 0: compute"'
"$tessera" minimize "$t" -o "$work/min.tsr" --cmd "$pred" > "$work/min.log" 2>&1 ||
    fail "minimize: $(tail -n 2 "$work/min.log")"
grep -q "^step .*: none, 0 draws/dispatches: -> bug shows" "$work/min.log" ||
    fail "no empty-set step: $(cat "$work/min.log")"
grep -q "15 → 1 submissions; in them 0 → 0 draws, 1 → 0 dispatches" "$work/min.log" ||
    fail "reduction: $(grep submissions "$work/min.log" | tail -n 1)"
"$tessera" info --verify "$work/min.tsr" > "$work/verify" 2>&1 || fail "verify: $(tail -n 2 "$work/verify")"
# sizes: the three words after "Global size"
sizes() { "$tessera" dump --no-disasm "$1" | awk '/^  Global size$/ { n = 3; next } n { printf "%s ", $2; n-- }'; }
[ "$(sizes "$work/min.tsr")" = "0 0 0 " ] || fail "global size of the kept launch: $(sizes "$work/min.tsr")"
"$tessera" replay "$work/min.tsr" > "$work/rep" 2>&1 || fail "replay: $(tail -n 2 "$work/rep")"
grep -q "replayed 1 submissions" "$work/rep" || fail "replay summary: $(cat "$work/rep")"
! grep -qi "error\|fault" "$work/rep" || fail "replay errors: $(cat "$work/rep")"
"$tessera" minimize "$t" -o "$work/nd.tsr" --no-draws --cmd "$pred" > "$work/nd.log" 2>&1 ||
    fail "minimize --no-draws: $(tail -n 2 "$work/nd.log")"
case "$(sizes "$work/nd.tsr")" in
    "0 0 0 "|"") fail "--no-draws: global size $(sizes "$work/nd.tsr")" ;;
esac
echo "minimize_dispatch: ok ($(grep "submissions; in them" "$work/min.log"))"
