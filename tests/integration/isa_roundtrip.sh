#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tessera asm/disasm: the all-instructions listing round trips through the
# command line, and bad input fails with exit status 2 and a message.
set -u
: "${TESSERA:?}" "${TOP:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$TESSERA" asm "$TOP/tests/data/isa/all.s" -o "$tmp/a.bin" || fail "asm all.s"
"$TESSERA" disasm "$tmp/a.bin" > "$tmp/a.s" || fail "disasm"
cmp -s "$tmp/a.s" "$TOP/tests/data/isa/all.dis" || { diff "$TOP/tests/data/isa/all.dis" "$tmp/a.s" | head; fail "listing differs from golden"; }
"$TESSERA" asm "$tmp/a.s" -o "$tmp/b.bin" || fail "re-asm"
cmp -s "$tmp/a.bin" "$tmp/b.bin" || fail "round trip bytes differ"
"$TESSERA" disasm --bytes --base 0x1000 "$tmp/a.bin" | grep -q '^1004: 620578563412 ' || fail "--bytes output"
# branch targets print as addresses (applegpu's form) from --base, and the
# listing re-assembles to the same bytes at the same --base
"$TESSERA" disasm --base 0x1500000000 "$tmp/a.bin" > "$tmp/c.s" || fail "disasm --base"
grep -q '^call             0x1500000242$' "$tmp/c.s" || fail "branch target not absolute: $(grep call "$tmp/c.s")"
"$TESSERA" asm --base 0x1500000000 "$tmp/c.s" -o "$tmp/c.bin" || fail "asm --base"
cmp -s "$tmp/a.bin" "$tmp/c.bin" || fail "round trip at --base: bytes differ"
"$TESSERA" asm --base 0x1500001000 "$tmp/c.s" -o "$tmp/d.bin" || fail "asm at another --base"
cmp -s "$tmp/a.bin" "$tmp/d.bin" && fail "absolute targets ignored --base"
"$TESSERA" disasm --help | grep -q usage || fail "disasm --help"
"$TESSERA" asm --help | grep -q usage || fail "asm --help"

expect2() { # description, command...
   local what=$1; shift
   "$@" > "$tmp/out" 2> "$tmp/err"
   local rc=$?
   [ $rc -eq 2 ] || fail "$what: exit $rc, want 2"
   [ -s "$tmp/err" ] || fail "$what: no message"
}
printf 'fadd32 r0, r1, r2\nthis is not assembly\n' > "$tmp/bad.s"
expect2 "garbage text" "$TESSERA" asm "$tmp/bad.s" -o "$tmp/x.bin"
grep -q 'bad.s:2:1:' "$tmp/err" || fail "no line:column in: $(cat "$tmp/err")"
head -c 1000 /dev/urandom > "$tmp/rand.s"
"$TESSERA" asm "$tmp/rand.s" -o "$tmp/x.bin" 2>/dev/null; rc=$?
[ $rc -eq 0 ] || [ $rc -eq 2 ] || fail "random text: exit $rc"
expect2 "missing file" "$TESSERA" asm "$tmp/nope.s"
expect2 "missing binary" "$TESSERA" disasm "$tmp/nope.bin"
printf '\x2a\xa5\x42' > "$tmp/trunc.bin"
expect2 "truncated binary" "$TESSERA" disasm "$tmp/trunc.bin"
expect2 "bad option" "$TESSERA" disasm --frobnicate "$tmp/a.bin"
expect2 "bad asm base" "$TESSERA" asm --base nope "$tmp/a.s"
head -c 4000 /dev/urandom > "$tmp/rand.bin"
"$TESSERA" disasm "$tmp/rand.bin" > /dev/null 2>&1; rc=$?
[ $rc -eq 0 ] || [ $rc -eq 2 ] || fail "random binary: exit $rc"
echo "isa_roundtrip: ok"
