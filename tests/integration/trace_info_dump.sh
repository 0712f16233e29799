#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tessera info / dump on a small trace written by trace_mktest (every record
# type; a compute submission whose CDM stream is the tests/data/decode
# image): golden dump text, info fields, --frame/--submit selection, a
# trace without index and a truncated one, and bad input (missing file,
# garbage, bad options) -> exit 2 with a message, never a crash.
set -u
: "${TESSERA:?}" "${TOP:?}"
mktest=$(dirname "$TESSERA")/trace_mktest
data=$TOP/tests/data/trace
img=$TOP/tests/data/decode
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

check() { # name expected-status command...
    local name=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL $name: exit $got, expected $want"; cat "$tmp/err"; status=1
        return 1
    fi
    echo "ok   $name"
}

golden() { # name golden-file
    if [ -n "${TESSERA_REGEN_GOLDEN:-}" ]; then
        cp "$tmp/out" "$2"
    elif ! diff -u "$2" "$tmp/out"; then
        echo "FAIL $1: output differs from $2"; status=1
    fi
}

has() { # name pattern (in $tmp/out or $tmp/err)
    if ! grep -q -- "$2" "$tmp/out" "$tmp/err"; then
        echo "FAIL $1: no '$2' in the output"; status=1
    fi
}

if [ ! -x "$mktest" ]; then
    echo "FAIL trace_mktest not built at $mktest"; exit 1
fi
check mktest 0 "$mktest" "$tmp/t.tsr" "$img" --frames 3 || exit 1

check dump 0 "$TESSERA" dump --no-disasm "$tmp/t.tsr" && golden dump "$data/mktest.dump"
# Same work, same text: a second capture dumps identically.
check mktest2 0 "$mktest" "$tmp/t2.tsr" "$img" --frames 3
check dump-stable 0 "$TESSERA" dump --no-disasm "$tmp/t2.tsr" && golden dump-stable "$data/mktest.dump"

check info 0 "$TESSERA" info --verify "$tmp/t.tsr"
has info-frames "^frames: *3$"
has info-subs "^submissions: *3 (0 failed)"
has info-cmds "compute 3"
has info-pages "^pages: *3 unique"
has info-verify "^verify: *0 problem"
check info-json 0 "$TESSERA" info --json "$tmp/t.tsr"
has json-frames '"frames": 3, "submissions": 3'
if ! python3 -m json.tool "$tmp/out" >/dev/null; then
    echo "FAIL info-json: not valid JSON"; status=1
fi

# Child traces beside the parent.
cp "$tmp/t.tsr" "$tmp/t.4321.tsr"
check info-child 0 "$TESSERA" info "$tmp/t.tsr"
has info-child "child trace: .*t.4321.tsr"

check frame1 0 "$TESSERA" dump --no-disasm --frame 1 "$tmp/t.tsr"
has frame1-submit "^submit 1 file 0"
if grep -q "^submit [02] " "$tmp/out"; then echo "FAIL frame1: other frames dumped"; status=1; fi
has frame1-end "^frame 1 kind 1 present"
check submit2 0 "$TESSERA" dump --no-disasm --submit 2 "$tmp/t.tsr"
has submit2 "^submit 2 file 0"
has submit2-cdm "CDM stream at 0x1500002000"
check frame-range 2 "$TESSERA" dump --frame 9 "$tmp/t.tsr"
has frame-range "no frame 9"

# A writer that died: no index, same records.
check mktest-noindex 0 "$mktest" "$tmp/n.tsr" "$img" --frames 3 --no-index
check dump-noindex 0 "$TESSERA" dump --no-disasm "$tmp/n.tsr" && golden dump-noindex "$data/mktest.dump"
check info-noindex 1 "$TESSERA" info --verify "$tmp/n.tsr"
has info-noindex "no index"

# Truncated mid-chunk: readable up to the last whole chunk, exit 1 for dump.
size=$(stat -c %s "$tmp/n.tsr")
head -c $((size - 7)) "$tmp/n.tsr" >"$tmp/cut.tsr"
check dump-truncated 1 "$TESSERA" dump --no-disasm "$tmp/cut.tsr"
has dump-truncated "truncated"
check info-truncated 0 "$TESSERA" info "$tmp/cut.tsr"
has info-truncated "TRUNCATED"

# Bad input.
check missing 2 "$TESSERA" info "$tmp/nope.tsr"
has missing "No such file"
head -c 5000 /dev/urandom >"$tmp/garbage.tsr"
check garbage-info 2 "$TESSERA" info "$tmp/garbage.tsr"
has garbage-info "not a tessera trace"
check garbage-dump 2 "$TESSERA" dump "$tmp/garbage.tsr"
check empty 2 "$TESSERA" dump /dev/null
check dir 2 "$TESSERA" info "$tmp"
check no-file 2 "$TESSERA" dump
check bad-option 2 "$TESSERA" info --bogus "$tmp/t.tsr"
check bad-number 2 "$TESSERA" dump --frame x "$tmp/t.tsr"
check both 2 "$TESSERA" dump --frame 0 --submit 0 "$tmp/t.tsr"
check help 0 "$TESSERA" dump --help
# Regenerating is not checking: the golden comparisons did not happen.
if [ $status -eq 0 ] && [ -n "${TESSERA_REGEN_GOLDEN:-}" ]; then
    echo "skip: TESSERA_REGEN_GOLDEN is set: golden files rewritten, not compared"
    exit 77
fi
exit $status
