#!/bin/bash
# SPDX-License-Identifier: MIT
# A file-size limit (RLIMIT_FSIZE) reached while recording: the program
# runs on with the same output and exit status, one message says why
# recording stopped, and the trace reads up to the cut.
. "$(dirname "$0")/../capture/lib.sh"

args="-n 3000 -e 50 -s 64"
ref=$(LD_PRELOAD="${LD_PRELOAD:-} $top/build/release/lib/tessera-shim.so" "$bin/capture_scene" $args)
t=$work/limit.tsr
set +e
# flush records every 20 ms so the cut trace holds some of them
out=$(TESSERA_CAPTURE_FLUSH_MS=20 "$tessera" capture --shim -o "$t" -- "$bin/capture_scene" $args -l 150 2>"$work/err")
rc=$?
set -e
cat "$work/err"
[ $rc = 0 ] || fail "exit status $rc under the limit"
[ "$out" = "$ref" ] || fail "output differs under the limit: $out"
[ "$(grep -c 'recording stopped' "$work/err")" = 1 ] || fail "want one 'recording stopped' message"
size=$(stat -c %s "$t")
[ "$size" -le $((150 * 1024)) ] || fail "trace larger than the limit"
info=$("$tessera" info "$t")
echo "$info" | grep -E 'format|submissions|size'
n=$(info_field "$t" submissions:)
[ "$n" -gt 0 ] && [ "$n" -lt 3000 ] || fail "$n submissions in the cut trace"
"$tessera" dump --no-streams "$t" >/dev/null || fail "the cut trace does not dump"
# every submission in the cut trace is whole: the dump shows each one
[ "$("$tessera" dump --no-streams --no-disasm "$t" | grep -c '^submit ')" = "$n" ] || fail "dump count"
echo "capture_limits: ok"
