#!/bin/bash
# SPDX-License-Identifier: MIT
# tessera replay end to end: traces recorded by the replay tests' live
# program (replay_mktrace), replayed on the in-process model and through
# the render-node shim; images, determinism, validation, device checks,
# shader overrides, timing JSON and bad input.
set -eu
top=${TOP:-$(pwd)}
build=${BUILD:-$top/build/release}
tessera=${TESSERA:-$build/bin/tessera}
mktrace=$build/bin/replay_mktrace
[ -x "$tessera" ] || { echo "no $tessera"; exit 1; }
[ -x "$mktrace" ] || { echo "no $mktrace"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect() {   # expect STATUS command...
    local want=$1 rc=0
    shift
    "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
    if [ "$rc" != "$want" ]; then
        echo "FAIL: '$*' exited $rc, expected $want"; cat "$tmp/out" "$tmp/err"; exit 1
    fi
}

"$mktrace" "$tmp/t.tsr" 3 >"$tmp/addrs"
"$mktrace" "$tmp/bad.tsr" 1 --corrupt >/dev/null
"$mktrace" "$tmp/m2.tsr" 1 --chip 0x8112 >/dev/null

# Images at the end of each frame, named frame / submission / target.
expect 0 "$tessera" replay "$tmp/t.tsr" --dump-images "$tmp/a"
grep -q "replayed 6 submissions in 3 frames" "$tmp/out"
ls "$tmp/a" > "$tmp/names"
diff -u - "$tmp/names" <<'NAMES'
f0000_s00001_color0.png
f0001_s00003_color0.png
f0002_s00005_color0.png
NAMES
# Twice: identical files.
expect 0 "$tessera" replay "$tmp/t.tsr" --dump-images "$tmp/b" --quiet
for f in "$tmp"/a/*.png; do cmp "$f" "$tmp/b/$(basename "$f")"; done
# Frame range and per-submission dumps.
expect 0 "$tessera" replay "$tmp/t.tsr" --frames 1-1 --per-submit --dump-images "$tmp/c" --quiet
[ "$(ls "$tmp/c")" = "f0001_s00003_color0.png" ]
cmp "$tmp/a/f0001_s00003_color0.png" "$tmp/c/f0001_s00003_color0.png"
expect 0 "$tessera" replay "$tmp/t.tsr" --from-frame 2 --dump-images "$tmp/d" --quiet
[ "$(ls "$tmp/d")" = "f0002_s00005_color0.png" ]

# The same through a render node: the shim preloaded.
shim=$top/build/release/lib/tessera-shim.so
[ -f "$shim" ] || { echo "missing $shim: build the release variant (make)"; exit 1; }
preload=$shim
if ldd "$tessera" | grep -q libasan; then
    preload="$(gcc -print-file-name=libasan.so) $shim"
fi
expect 0 env LD_PRELOAD="$preload" "$tessera" replay "$tmp/t.tsr" \
    --device /dev/dri/renderD128 --dump-images "$tmp/e" --quiet
for f in "$tmp"/a/*.png; do cmp "$f" "$tmp/e/$(basename "$f")"; done
expect 2 "$tessera" replay "$tmp/t.tsr" --device /dev/null
grep -q "not a DRM device" "$tmp/err"

# Validation: clean, a corrupted page in the trace, a changed shader.
expect 0 "$tessera" replay "$tmp/t.tsr" --validate
grep -q "validation passed" "$tmp/out"
expect 1 "$tessera" replay "$tmp/bad.tsr" --validate
grep -q "validation: submission 0: GEM object 1 offset 0x" "$tmp/err"
va=$(sed -n 's/^compute_shader_va=//p' "$tmp/addrs")
cat > "$tmp/fix.s" <<'ASM'
get_sr r1, sr80
iadd r2, r1, u2
iadd r2, r2, 7
device_store 0, i32, x, r2, u0_u1, r1, unsigned, 0
stop
ASM
expect 1 "$tessera" replay "$tmp/t.tsr" --validate --override-shader "$va=$tmp/fix.s"
grep -q "replay wrote 0x07, the capture recorded 0x00" "$tmp/err"
# fix.s is one instruction longer than the original: allowed, with a warning
grep -q "warning: --override-shader: .* bytes at $va replace a .*-byte shader" "$tmp/err"
expect 2 "$tessera" replay "$tmp/t.tsr" --override-shader "$va=$tmp/nothing.s"
# Overrides are checked against the shader index (computed from the streams
# here: replay_mktrace writes no SHADER records): an unknown address is refused.
expect 2 "$tessera" replay "$tmp/t.tsr" --override-shader "$(printf '0x%x' $((va + 4)))=$tmp/fix.s"
grep -q "no shader at 0x.* in the trace's shader index" "$tmp/err"

# Device parameters.
expect 2 "$tessera" replay "$tmp/m2.tsr"
grep -q "incompatible device.*--force" "$tmp/err"
expect 0 "$tessera" replay "$tmp/m2.tsr" --force
grep -q "warning" "$tmp/err"

# Timing: warm-up + 3 runs in the compare tool's schema.
expect 0 "$tessera" replay "$tmp/t.tsr" --loop 3 --timing "$tmp/t.json" --quiet
grep -q '"schema": "tessera-timing/1"' "$tmp/t.json"
grep -q '"run": 2,' "$tmp/t.json"
expect 0 "$tessera" compare timing "$tmp/t.json" "$tmp/t.json"

# Bad input: exit 2 with a message.
expect 2 "$tessera" replay "$tmp/missing.tsr"
grep -q "tessera replay: .*missing.tsr" "$tmp/err"
head -c 3000 /dev/urandom > "$tmp/junk.tsr"
expect 2 "$tessera" replay "$tmp/junk.tsr"
grep -q "tessera replay: " "$tmp/err"
expect 2 "$tessera" replay "$tmp/t.tsr" --frames x-y
# Frames past the end of the trace (0-2): an error, not an empty success.
expect 2 "$tessera" replay "$tmp/t.tsr" --frames 5-6
grep -q "frame 5 is past the end of .*t.tsr: its frames are 0-2" "$tmp/err"
expect 2 "$tessera" replay "$tmp/t.tsr" --frames 1-9
grep -q "frame 9 is past the end" "$tmp/err"
expect 2 "$tessera" replay "$tmp/t.tsr" --from-frame 3
grep -q "frame 3 is past the end" "$tmp/err"
expect 0 "$tessera" replay "$tmp/t.tsr" --frames 2- --quiet
expect 2 "$tessera" replay "$tmp/t.tsr" --bogus
expect 2 "$tessera" replay
echo "replay_cli: all checks passed"
