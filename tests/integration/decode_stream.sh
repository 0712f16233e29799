#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tessera decode on the checked-in memory image (built by test_decode from
# the pack helpers; TESSERA_REGEN_GOLDEN=1 rewrites it): golden text for a
# VDM and a CDM stream, exit 1 for a stream with errors, exit 2 for bad
# arguments. Shaders are not disassembled here so the golden text does not
# depend on the disassembler (test_decode checks that path).
set -u
: "${TESSERA:?}" "${TOP:?}"
data=$TOP/tests/data/decode
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

maps=(--map 0x1500000000:"$data/image_lo.bin" --map 0x1500002000:"$data/image_hi.bin")

check vdm 0 "$TESSERA" decode "${maps[@]}" --usc-base 0x1500000000 \
    --vdm 0x1500000000 --no-disasm && golden vdm "$data/cli_vdm.txt"
check cdm 0 "$TESSERA" decode "${maps[@]}" --usc-base 0x1500000000 \
    --cdm=0x1500002000 --no-disasm && golden cdm "$data/cli_cdm.txt"

# -o writes the same text to a file.
check output-file 0 "$TESSERA" decode "${maps[@]}" --usc-base 0x1500000000 \
    --cdm 0x1500002000 --no-disasm -o "$tmp/file.txt" &&
    { diff -q "$tmp/file.txt" "$data/cli_cdm.txt" >/dev/null ||
      { echo "FAIL output-file: -o text differs"; status=1; }; }

# Without the low image the shader code is unmapped: decoded, exit 1.
check cdm-missing-shader 1 "$TESSERA" decode --map 0x1500002000:"$data/image_hi.bin" \
    --usc-base 0x1500000000 --cdm 0x1500002000 &&
    { grep -q '^ *XXX: shader code at 0x1500001000 is unmapped' "$tmp/out" ||
      { echo "FAIL cdm-missing-shader: no XXX line"; status=1; }; }

# Bad arguments: exit 2 with a message on stderr.
bad() { # name args...
    local name=$1
    shift
    check "$name" 2 "$TESSERA" decode "$@" &&
        { grep -q '^tessera decode: ' "$tmp/err" ||
          { echo "FAIL $name: no error message"; status=1; }; }
}
bad no-stream "${maps[@]}"
bad no-map --vdm 0x1500000000
bad missing-file --map 0x1000:"$tmp/nonexistent.bin" --vdm 0x1000
bad bad-number --map 0x1500000000:"$data/image_lo.bin" --vdm 0x15zz
bad bad-map --map "$data/image_lo.bin" --vdm 0x1500000000
bad unmapped-start "${maps[@]}" --vdm 0x9000
bad both-streams "${maps[@]}" --vdm 0x1500000000 --cdm 0x1500002000
bad overlap --map 0x1000:"$data/image_lo.bin" --map 0x1800:"$data/image_hi.bin" --vdm 0x1000
bad unknown-option "${maps[@]}" --vdm 0x1500000000 --frobnicate
bad negative "${maps[@]}" --vdm -5

check help 0 "$TESSERA" decode --help &&
    { grep -q -- '--map ADDR:FILE' "$tmp/out" || { echo "FAIL help"; status=1; }; }

# Regenerating is not checking: the golden comparisons did not happen.
if [ $status -eq 0 ] && [ -n "${TESSERA_REGEN_GOLDEN:-}" ]; then
    echo "skip: TESSERA_REGEN_GOLDEN is set: golden files rewritten, not compared"
    exit 77
fi
exit $status
