#!/bin/bash
# SPDX-License-Identifier: MIT
# `tessera trim` on a real GL program's capture: the trimmed traces replay
# on their own, and every frame of the window is bit-identical to the same
# frame of the full capture's replay, image name included. The program is
# eglretrace replaying the es2gears apitrace trace on the tessera driver,
# captured as in capture_ranges.sh:
#   tessera capture -o full.tsr -- tessera run -- eglretrace --headless es2gears.trace
#   tessera trim full.tsr -o T.tsr --frames A-B | --submits A-B
#   tessera replay T.tsr --dump-images DIR
#
# A trimmed trace starts with the state as of its window's start and a META
# "capture_window = frame W submission S" (docs/workflows.md); its frame i,
# submission s, is then frame W+i, submission S+s of the full capture, so
# the replay's image fIIII_sSSSSS_KIND.png must equal the full replay's
# f(W+i)_s(S+s)_KIND.png. Every frame ended by a swap is compared (colour,
# depth and stencil targets) with `tessera compare images` at tolerance 0.
#
# Cases: a window at the start, in the middle and at the end (open range),
# a --submits window, a trim of a trimmed trace (its capture_window follows
# the input's), the sizes (one frame in the middle against frame 0, and no
# history: the state holds only live objects), and bad input.
. "$(dirname "$0")/lib/common.sh"

checks="full-capture start middle end widened submits retrim sizes errors"
checks=$(echo $checks)

gl_es2gears_setup

full=$work/full.tsr
gl_capture_es2gears "$full" "$work/full.log" || abort "the full capture failed"
"$tessera" replay "$full" --dump-images "$work/full" --quiet > "$work/full-replay.log" 2>&1 ||
    abort "the replay of the full capture failed: $(tail -n 2 "$work/full-replay.log")"
n_full=$("$tessera" info "$full" | awk '$1 == "frames:" { print $2 }')
echo "full capture: $n_full frames, $(stat -c %s "$full") bytes"
[ "${n_full:-0}" -ge 100 ] || abort "the full capture has ${n_full:-no} frames"
check ok full-capture

info_field() { "$tessera" info "$1" | awk -v k="$2:" '$1 == k { print $2 }'; }

# trimmed CHECK TRACE MIN-FRAMES WANT-W WANT-SUBMITS: TRACE verifies, holds
# WANT-SUBMITS submissions, starts at program frame WANT-W, and replays to
# the full capture's images for every frame ended by a swap (at least MIN).
trimmed() {
    local c=$1 t=$2 min=$3 want_w=$4 want_subs=$5 d=$work/$1 w s line img b f q kind
    local cmp=0 subs frames_ok=" "
    if ! "$tessera" info --verify "$t" > "$d.verify" 2>&1; then
        check FAILED "$c" "the trimmed trace does not verify: $(tail -n 2 "$d.verify")"
        return
    fi
    subs=$(info_field "$t" submissions)
    [ "$subs" = "$want_subs" ] ||
        { check FAILED "$c" "$subs submissions in the trimmed trace, want $want_subs"; return; }
    line=$("$tessera" dump --no-streams --no-disasm "$t" | grep -m1 '^meta capture_window = ')
    set -- $line
    w=${5:-} s=${7:-}
    [ "$w" = "$want_w" ] ||
        { check FAILED "$c" "capture_window says frame '${w}', want $want_w ($line)"; return; }
    mkdir -p "$d"
    if ! "$tessera" replay "$t" --dump-images "$d/replay" --quiet > "$d.replay.log" 2>&1; then
        check FAILED "$c" "replay of the trimmed trace failed: $(tail -n 2 "$d.replay.log")"
        return
    fi
    # frames ended by a swap (kind 1); a "trim end" marker (kind 2) cuts one
    while read -r _ f _ kind _; do
        [ "$kind" = 1 ] && frames_ok="$frames_ok$f "
    done < <("$tessera" dump --no-streams --no-disasm "$t" | grep '^frame ')
    mkdir -p "$d/a" "$d/b"
    for img in "$d/replay"/f*_s*_*.png; do
        [ -e "$img" ] || continue
        b=$(basename "$img")           # fFFFF_sSSSSS_KIND.png
        f=$((10#${b:1:4})) q=$((10#${b:7:5}))
        case "$frames_ok" in *" $f "*) ;; *) continue ;; esac
        ref=$(printf 'f%04d_s%05d%s' $((w + f)) $((s + q)) "${b:12}")
        if [ ! -e "$work/full/$ref" ]; then
            check FAILED "$c" "$b: the full replay has no $ref"
            return
        fi
        ln -s "$img" "$d/a/$ref"
        ln -s "$work/full/$ref" "$d/b/$ref"
    done
    cmp=$(ls "$d/a" | sed 's/_s.*//' | sort -u | wc -l)
    if [ "$cmp" -lt "$min" ]; then
        check FAILED "$c" "$cmp frames compared, want at least $min"
    elif "$tessera" compare images "$d/a" "$d/b" > "$d.cmp" 2>&1; then
        echo "$c: $(stat -c %s "$t") bytes, $subs submissions, frames $w-$((w + cmp - 1)) bit-identical ($(ls "$d/a" | wc -l) images)"
        check ok "$c"
    else
        grep -v '^PASS' "$d.cmp" | head -n 6
        check FAILED "$c" "replayed frames differ from the full capture's"
    fi
}

trim() { "$tessera" trim "$@" > "$work/trim.log" 2>&1 || { cat "$work/trim.log"; return 1; }; }

trim "$full" -o "$work/start.tsr" --frames 0-1 && trimmed start "$work/start.tsr" 2 0 2
trim "$full" -o "$work/middle.tsr" --frames 60-62 && trimmed middle "$work/middle.tsr" 3 60 3
last=$((n_full - 1))
# The capture records GPU results only at keyframes (every 30th frame,
# docs/capture.md): a window that starts elsewhere is widened back to the
# keyframe before it, so that the replay re-creates what the GPU wrote
# (frames 117- start at 90: 30 submissions).
key=$(((last - 2) / 30 * 30))
trim "$full" -o "$work/end.tsr" --frames $((last - 2))- &&
    trimmed end "$work/end.tsr" 3 $key $((last + 1 - key))
if grep -q "starts at keyframe frame $key, before frame $((last - 2))" "$work/trim.log"; then
    check ok widened
else
    check FAILED widened "trim does not say the window was widened: $(cat "$work/trim.log")"
fi
trim "$full" -o "$work/submits.tsr" --submits 30-34 && trimmed submits "$work/submits.tsr" 5 30 5
# frame 1 of middle.tsr is program frame 61, after middle.tsr's keyframe 0
# (program frame 60): capture_window follows the input's
trim "$work/middle.tsr" -o "$work/retrim.tsr" --frames 1 && trimmed retrim "$work/retrim.tsr" 2 60 2

# Sizes: one frame in the middle against frame 0 (which holds every first
# upload), both trimmed so that the same writer and zstd level apply. The
# middle one (frame 60, a keyframe) holds the state as of its start (every
# live object's memory, the render targets the GPU wrote in frame 59
# included) and the frame's records (no GPU results: the next keyframe is
# after it): it must not carry the history before it, which would make it
# tens of times larger. Issue 15 wants it at most 1.1x what frame 0 costs
# in a capture with the full record (--gpu-memory full: frame 0 then holds
# its render targets too, as every frame's state does); measured 1.10x,
# the check allows 1.25x for the run-to-run spread of the driver's objects.
# Frame 0 of the default capture holds no GPU results (its first keyframe
# is frame 30), so it is only printed.
trim "$full" -o "$work/f0.tsr" --frames 0
"$tessera" trim "$full" -o "$work/f60.tsr" --frames 60 > "$work/f60.log"
gl_capture_es2gears "$work/fullrec.tsr" "$work/fullrec.log" --gpu-memory full ||
    abort "the --gpu-memory full capture failed"
trim "$work/fullrec.tsr" -o "$work/f0full.tsr" --frames 0
s0=$(stat -c %s "$work/f0full.tsr") s0k=$(stat -c %s "$work/f0.tsr") s60=$(stat -c %s "$work/f60.tsr")
state=$(awk '/^state at the start/ { print $(NF-1) }' "$work/f60.log")
ratio=$(awk -v a="$s60" -v b="$s0" 'BEGIN { printf "%.2f", a / b }')
echo "sizes: full capture $(stat -c %s "$full") bytes ($n_full frames), with --gpu-memory full" \
     "$(stat -c %s "$work/fullrec.tsr") bytes; frame 0 trimmed $s0 bytes (--gpu-memory full)," \
     "$s0k bytes (default); frame 60 trimmed $s60 bytes = ${ratio}x frame 0 (state at its start $state bytes)"
objs=$(awk '/^state at the start/ { print $7 }' "$work/f60.log")
live=$("$tessera" info "$work/f60.tsr" | awk '$1 == "objects:" { print $2 }')
if [ -z "$state" ] || [ $((4 * s60)) -gt $((5 * s0)) ]; then
    check FAILED sizes "a one-frame trim is $s60 bytes, frame 0 $s0: over 1.25x"
elif [ "$objs" != "$live" ] || [ "$(info_field "$work/f60.tsr" submissions)" != 1 ]; then
    check FAILED sizes "the trimmed frame holds $live objects (state: $objs) and $(info_field "$work/f60.tsr" submissions) submissions"
else
    check ok sizes
fi

# Bad input: exit 2 and a message for usage errors and windows the trace
# does not have, exit 1 for damage in what the window needs; never an OUT
# left behind on failure.
errs=""
bad() {   # bad WANT-STATUS WANT-REGEX trim-arguments...
    local want=$1 re=$2 rc=0
    shift 2
    rm -f "$work/bad-out.tsr"
    "$tessera" trim "$@" > "$work/bad.txt" 2>&1 || rc=$?
    [ $rc = "$want" ] && grep -q "$re" "$work/bad.txt" && [ ! -e "$work/bad-out.tsr" ] ||
        errs="$errs; '$*' exited $rc: $(head -n 1 "$work/bad.txt")"
}
o=(-o "$work/bad-out.tsr")
bad 2 "frame $n_full is past the end of .*: its frames are 0-$last" "$full" "${o[@]}" --frames $n_full
bad 2 "frame 200 is past the end" "$full" "${o[@]}" --frames 2-200
bad 2 "submission 500 is past the end" "$full" "${o[@]}" --submits 500
bad 2 "empty window: frames 5-3" "$full" "${o[@]}" --frames 5-3
bad 2 "wants A-B" "$full" "${o[@]}" --frames 1-x
bad 2 "no window given" "$full" "${o[@]}"
bad 2 "no output given" "$full" --frames 1
bad 2 "is the input" "$full" -o "$full" --frames 1
bad 2 "No such file" "$work/none.tsr" "${o[@]}" --frames 1
# a records chunk with a flipped payload byte: its checksum fails
python3 - "$full" "$work/damaged.tsr" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off, last = 32, None
while off + 40 <= len(d):
    magic, typ, _, stored = struct.unpack_from('<IHHI', d, off)
    if magic != 0x4b435354:
        break
    if typ == 1:
        last = (off, stored)
    off += 40 + stored
d[last[0] + 40 + last[1] // 2] ^= 0xff
open(sys.argv[2], 'wb').write(d)
EOF
bad 1 "damaged: .*checksum" "$work/damaged.tsr" "${o[@]}" --frames $((last - 1))-
if [ -z "$errs" ]; then check ok errors; else check FAILED errors "${errs#; }"; fi
finish
