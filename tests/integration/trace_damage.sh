#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The trace corruption campaign (tests/integration/trace_damage.py): damaged
# payloads and headers of every chunk, repeated chunks, a header cut at
# every length, through info, info --verify, dump and replay; each must
# name the damage and exit non-zero, never crash.
set -u
: "${TESSERA:?}" "${TOP:?}"
bin=$(dirname "$TESSERA")
for p in replay_mktrace trace_mktest; do
    [ -x "$bin/$p" ] || { echo "FAIL $p not built at $bin/$p"; exit 1; }
done
exec python3 "$TOP/tests/integration/trace_damage.py" "$TESSERA" "$bin/replay_mktrace" \
    "$bin/trace_mktest" "$TOP/tests/data/decode"
