#!/bin/bash
# SPDX-License-Identifier: MIT
# `tessera decompile` on a real GL program's capture (eglretrace replaying
# the es2gears apitrace trace under `tessera run`, as in trim.sh): the
# program it writes builds with cc (-std=c11 -Wall -Wextra -Werror, libdrm
# and the uAPI header only), runs on the embedded GPU through the render
# node (`tessera run -- DIR/decompiled`), and the render targets it writes
# are the bytes `tessera replay --dump-images D --dump-raw` writes for the
# same trace, file for file:
#   frames:     dumps at each frame's end (every frame, colour, depth and
#               stencil), and each has the replay's PNG of the same name;
#   per-submit: dumps right after each submission (--per-submit on both
#               sides): the GPU's own results, before the capture's later
#               memory records of them;
#   edited:     the program with submission 60's call deleted rebuilds and
#               its frame-60 colour dump no longer matches (frame 59 still
#               does): the comparison sees what an edit changes;
#   errors:     a missing, damaged or foreign input, or no -o: exit 2 and a
#               message; an output directory that cannot be made: exit 1.
. "$(dirname "$0")/lib/common.sh"

checks="frames per-submit edited errors"

gl_es2gears_setup
full=$work/full.tsr
gl_capture_es2gears "$full" "$work/full.log" || abort "the full capture failed"
n_full=$("$tessera" info "$full" | awk '$1 == "frames:" { print $2 }')
[ "${n_full:-0}" -ge 100 ] || abort "the full capture has ${n_full:-no} frames"
echo "full capture: $n_full frames, $(stat -c %s "$full") bytes"

# build NAME [DECOMPILE OPTIONS]: decompile into $work/NAME and build it
build() {
    local d=$work/$1
    shift
    "$tessera" decompile "$full" -o "$d" "$@" > "$d.log" 2>&1 || { cat "$d.log"; return 1; }
    cat "$d.log"
    make -s -C "$d" CFLAGS="-O1 -std=c11 -Wall -Wextra -Werror" > "$d.build" 2>&1 ||
        { head -n 20 "$d.build"; return 1; }
}

# same CHECK DIR REF-DIR WANT-PNG: DIR's .raw files are REF-DIR's, byte for
# byte, and (WANT-PNG) each has a PNG of the same name in REF-DIR
same() {
    local c=$1 a=$2 b=$3 png=$4 f n=0 bad=""
    if ! diff <(cd "$a" && ls) <(cd "$b" && ls -- *.raw) > "$work/$c.names"; then
        check FAILED "$c" "the program and the replay dump different targets: $(head -n 4 "$work/$c.names" | tr '\n' ' ')"
        return
    fi
    for f in "$b"/*.raw; do
        n=$((n + 1))
        cmp -s "$f" "$a/$(basename "$f")" || bad="$bad $(basename "$f")"
        [ "$png" = 0 ] || [ -e "${f%.raw}.png" ] || bad="$bad $(basename "${f%.raw}.png")(missing)"
    done
    if [ "$n" -lt "$n_full" ]; then
        check FAILED "$c" "only $n dumps for $n_full frames"
    elif [ -n "$bad" ]; then
        check FAILED "$c" "differ:$(echo $bad | cut -d' ' -f1-6)"
    else
        echo "$c: $n render-target dumps bit-identical to the replay's"
        check ok "$c"
    fi
}

# run NAME: the built program on the embedded GPU, dumps into NAME.out
run() {
    mkdir -p "$work/$1.out"
    timeout -k 10 600 "$tessera" run -- "$work/$1/decompiled" -o "$work/$1.out" > "$work/$1.run" 2>&1 ||
        { tail -n 3 "$work/$1.run"; return 1; }
}

# frames
if build frames && run frames; then
    "$tessera" replay "$full" --dump-images "$work/ref" --dump-raw --quiet > "$work/ref.log" 2>&1 ||
        abort "the replay failed: $(tail -n 2 "$work/ref.log")"
    same frames "$work/frames.out" "$work/ref" 1
else
    check FAILED frames "the decompiled program did not build or run"
fi

# per-submit
if build persub --per-submit && run persub; then
    "$tessera" replay "$full" --dump-images "$work/refp" --dump-raw --per-submit --quiet \
        > "$work/refp.log" 2>&1 || abort "the replay failed: $(tail -n 2 "$work/refp.log")"
    same per-submit "$work/persub.out" "$work/refp" 1
else
    check FAILED per-submit "the decompiled program did not build or run"
fi

# edited: submission 60 left out
cp -r "$work/persub" "$work/edited"
rm -f "$work/edited/decompiled"
if ! grep -q '^   submit_60();$' "$work/edited/decompiled.c"; then
    check FAILED edited "frame_60 does not call submit_60()"
else
    sed -i '/^   submit_60();$/d' "$work/edited/decompiled.c"
    if make -s -C "$work/edited" > "$work/edited.build" 2>&1 && run edited; then
        f60=f0060_s00060_color0.raw f59=f0059_s00059_color0.raw
        if cmp -s "$work/edited.out/$f60" "$work/refp/$f60"; then
            check FAILED edited "frame 60 is unchanged without its submission"
        elif ! cmp -s "$work/edited.out/$f59" "$work/refp/$f59"; then
            check FAILED edited "frame 59 changed too"
        else
            check ok edited
        fi
    else
        check FAILED edited "the edited program did not build or run: $(tail -n 3 "$work/edited.build")"
    fi
fi

# errors
errs=""
bad() {   # bad WANT-STATUS WANT-REGEX decompile-arguments...
    local want=$1 re=$2 rc=0
    shift 2
    "$tessera" decompile "$@" > "$work/bad.txt" 2>&1 || rc=$?
    [ $rc = "$want" ] && grep -q "$re" "$work/bad.txt" ||
        errs="$errs; '$*' exited $rc: $(head -n 1 "$work/bad.txt")"
}
bad 2 "No such file" "$work/none.tsr" -o "$work/bad1"
bad 2 "no output directory given" "$full"
head -c 5000 /dev/urandom > "$work/foreign.tsr"
bad 2 "tessera decompile: " "$work/foreign.tsr" -o "$work/bad2"
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
bad 2 "damaged: .*checksum" "$work/damaged.tsr" -o "$work/bad3"
: > "$work/a-file"
bad 1 "cannot create" "$full" -o "$work/a-file/sub"
if [ -z "$errs" ]; then check ok errors; else check FAILED errors "${errs#; }"; fi
finish
