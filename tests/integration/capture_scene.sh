#!/bin/bash
# SPDX-License-Identifier: MIT
# tessera capture of the compute + render scene program on the shim: the
# program's output is unchanged, the trace holds every submission with its
# completion and firmware jobs, and `tessera dump` shows the streams and
# the shader. Both memory strategies.
. "$(dirname "$0")/../capture/lib.sh"

ref=$(LD_PRELOAD="${LD_PRELOAD:-} $top/build/release/lib/tessera-shim.so" \
      "$bin/capture_scene" -n 40 -e 10 -r)
echo "$ref"
for mem in hash wp; do
    t=$work/scene-$mem.tsr
    out=$("$tessera" capture -q --shim --mem $mem -o "$t" -- "$bin/capture_scene" -n 40 -e 10 -r)
    [ "$out" = "$ref" ] || fail "output differs under capture ($mem): $out"
    info=$("$tessera" info "$t")
    echo "$info" | grep -E 'submissions|commands|completions|frames|fw jobs|format'
    echo "$info" | grep -q 'format:.*indexed' || fail "trace not finished ($mem)"
    [ "$(info_field "$t" submissions:)" = 44 ] || fail "not 44 submissions ($mem)"
    [ "$(info_field "$t" completions:)" = 44 ] || fail "not 44 completions ($mem)"
    [ "$(info_field "$t" frames:)" = 4 ] || fail "not 4 frames ($mem)"
    echo "$info" | grep -q 'commands:.*render 4 compute 40' || fail "command counts ($mem)"
    # every submission's jobs came through the kernel's hook: 40 + 4 * 3
    echo "$info" | grep -q 'fw jobs:  *52' || fail "firmware jobs ($mem)"
    dump=$("$tessera" dump "$t")
    [ "$(echo "$dump" | grep -c '^submit ')" = 44 ] || fail "dump submissions ($mem)"
    echo "$dump" | grep -q 'CDM stream at' || fail "no CDM stream in the dump ($mem)"
    echo "$dump" | grep -q 'VDM stream at\|VDM' || fail "no VDM stream in the dump ($mem)"
    echo "$dump" | grep -q 'fmadd32' || fail "the saxpy shader is not disassembled ($mem)"
    # shader index: the saxpy kernel, 7 instructions = 40 bytes (tests/lib/tu_dev.c's
    # saxpy_src), first used by submission 0; the render pass has no shaders
    [ "$(info_field "$t" shaders:)" = 1 ] || fail "not 1 indexed shader ($mem)"
    "$tessera" info --shaders "$t" | grep -Eq '^  0x[0-9a-f]+ +40  compute +[0-9a-f]{32} 0$' ||
        fail "shader index line ($mem)"
    [ "$(echo "$dump" | grep -c '^  uses shader 0x[0-9a-f]* compute size 40 (command 0)$')" = 40 ] ||
        fail "per-submission shader lists ($mem)"
    sva=$(echo "$dump" | sed -n 's/^#   \(0x[0-9a-f]*\) 40 compute 0 .*/\1/p')
    one=$("$tessera" dump --shader "$sva" "$t")
    echo "$one" | grep -q fmadd32 || fail "dump --shader ($mem)"
    [ "$(echo "$one" | grep -c '^    [a-z]')" = 7 ] || fail "dump --shader: not 7 instructions ($mem)"
    "$tessera" dump --shader 0x1 "$t" >/dev/null 2>&1 && fail "dump --shader of no shader ($mem)"
    # the uniform the CPU rewrote before each submission (a = 0.5 then 0.625)
    echo "$dump" | grep -q '00 00 00 3f' || fail "first uniform value missing ($mem)"
    echo "$dump" | grep -q '00 00 20 3f' || fail "second uniform value missing ($mem)"
done
echo "capture_scene: ok"
