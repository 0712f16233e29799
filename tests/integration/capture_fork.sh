#!/bin/bash
# SPDX-License-Identifier: MIT
# A forking program: the root process writes NAME.tsr, each child that uses
# the render node writes NAME.<pid>.tsr; tessera info lists them.
. "$(dirname "$0")/../capture/lib.sh"

ref=$(LD_PRELOAD="${LD_PRELOAD:-} $top/build/release/lib/tessera-shim.so" "$bin/capture_fork" -c 2 -n 6)
t=$work/fork.tsr
out=$("$tessera" capture -q --shim -o "$t" -- "$bin/capture_fork" -c 2 -n 6)
[ "$out" = "$ref" ] || fail "output differs under capture: $out"
ls "$work"
kids=$(ls "$work" | grep -cE '^fork\.[0-9]+\.tsr$' || true)
[ "$kids" = 2 ] || fail "$kids child traces, want 2"
[ "$(info_field "$t" submissions:)" = 12 ] || fail "root trace: not 12 submissions"
for k in "$work"/fork.[0-9]*.tsr; do
    [ "$(info_field "$k" submissions:)" = 6 ] || fail "$k: not 6 submissions"
    pid=$(basename "$k" .tsr); pid=${pid#fork.}
    "$tessera" info "$k" | grep -q "pid $pid" || fail "$k is not pid $pid's trace"
done
[ "$("$tessera" info "$t" | grep -c 'child trace:')" = 2 ] || fail "tessera info does not list 2 child traces"
echo "capture_fork: ok"
