#!/bin/bash
# SPDX-License-Identifier: MIT
# `tessera minimize` on a real GL program's capture (eglretrace replaying
# the es2gears apitrace trace under `tessera run`, as in trim.sh):
#   cmd:    --cmd with a script that holds while frames 40 and 70 each hold
#           a submission: 120 -> 2 submissions, the two of those frames.
#           (--no-draws: the submission pass on its own)
#   images: --image-differs against images dumped from a replay whose
#           --override-shader breaks the gears' fragment shader (swaps a
#           colour channel): the minimized trace still differs, 1 submission.
#   draws:  the issue's acceptance test. The gears share one fragment
#           shader; the override adds 4*R*B to green, which is 0 exactly for
#           the red gear (B = 0) and the green one (R = 0): only the blue
#           gear's draw turns cyan. With a --cmd predicate "the override
#           changes the replay's image", minimize must keep 1 submission and
#           1 draw (the other two rewritten to count 0), trimmed to the live
#           state: the output replays, the draw is still broken under the
#           override, and the trace is < 5 % of the input.
# Each minimized trace verifies, replays, still satisfies its predicate and
# is smaller than the input. Errors: exit 2 and a message.
. "$(dirname "$0")/lib/common.sh"

checks="cmd images draws errors"

gl_es2gears_setup
full=$work/full.tsr
gl_capture_es2gears "$full" "$work/full.log" || abort "the full capture failed"
info_field() { "$tessera" info "$1" | awk -v k="$2:" '$1 == k { print $2 }'; }
n_full=$(info_field "$full" submissions)
[ "${n_full:-0}" -ge 100 ] || abort "the full capture has ${n_full:-no} submissions"
s_full=$(stat -c %s "$full")

# minimized CHECK OUT WANT-SUBMITS: OUT verifies, replays, has WANT-SUBMITS.
minimized() {
    local c=$1 t=$2 want=$3 subs
    if ! "$tessera" info --verify "$t" > "$work/$c.verify" 2>&1; then
        check FAILED "$c" "the minimized trace does not verify: $(tail -n 2 "$work/$c.verify")"
        return 1
    fi
    subs=$(info_field "$t" submissions)
    [ "$subs" = "$want" ] || { check FAILED "$c" "$subs submissions, want $want"; return 1; }
    [ "$(stat -c %s "$t")" -lt "$s_full" ] || { check FAILED "$c" "not smaller than the input"; return 1; }
    "$tessera" replay "$t" --dump-images "$work/$c.img" --quiet > "$work/$c.replay" 2>&1 ||
        { check FAILED "$c" "the minimized trace does not replay: $(tail -n 2 "$work/$c.replay")"; return 1; }
    echo "$c: $n_full → $subs submissions, $s_full → $(stat -c %s "$t") bytes"
}

# cmd: frames 40 and 70 must keep a submission each.
cat > "$work/pred.sh" <<'PRED'
#!/bin/bash
"$TESSERA" dump --no-streams --no-disasm "$TRACE" | awk '
  /^submit / { n++ } /^frame / { if (n) has[$2] = 1; n = 0 }
  END { exit !(has[40] && has[70]) }'
PRED
chmod +x "$work/pred.sh"
export TESSERA=$tessera
if "$tessera" minimize "$full" -o "$work/cmd.tsr" --no-draws --cmd "$work/pred.sh" > "$work/cmd.log" 2>&1; then
    grep -q "^step .* -> bug gone" "$work/cmd.log" && grep -q "120 → 2 submissions" "$work/cmd.log" ||
        { tail -n 3 "$work/cmd.log"; check FAILED cmd "no steps or no reduction printed"; }
    if minimized cmd "$work/cmd.tsr" 2; then
        if ! TRACE=$work/cmd.tsr "$work/pred.sh"; then
            check FAILED cmd "the minimized trace does not satisfy the predicate"
        elif ! cmp -s "$work/cmd.img/"f0040_s*_color0.png <("$tessera" replay "$full" --dump-images "$work/full.img" --quiet >/dev/null 2>&1; cat "$work/full.img/"f0040_s*_color0.png); then
            check FAILED cmd "frame 40 of the minimized trace differs from the full replay's"
        else
            check ok cmd
        fi
    fi
else
    tail -n 3 "$work/cmd.log"
    check FAILED cmd "tessera minimize --cmd failed"
fi

# images: the gears' fragment shader with a colour channel swapped.
"$tessera" dump "$full" > "$work/dump.txt" 2>&1
fs=$(awk '$1 == "#" && $4 == "fragment" { print $2; exit }' "$work/dump.txt")
awk -v a="Shader at $fs " 'index($0, a) { on = 1; next }
     on && /^ *0x[0-9a-f]+:/ { exit } on { sub(/^ +/, ""); print }' "$work/dump.txt" > "$work/fs.s"
sed -E 's/^mov +r8, r2$/mov r8, r3/' "$work/fs.s" > "$work/bad.s"
if cmp -s "$work/fs.s" "$work/bad.s" ||
   ! "$tessera" replay "$full" --override-shader "$fs=$work/bad.s" --dump-images "$work/ref" --quiet > "$work/ref.log" 2>&1; then
    check FAILED images "cannot make the broken reference (shader $fs)"
elif "$tessera" minimize "$full" -o "$work/img.tsr" --image-differs "$work/ref" > "$work/img.log" 2>&1; then
    if minimized images "$work/img.tsr" 1; then
        differs=0
        for f in "$work/images.img"/f*_color0.png; do
            b=$(basename "$f"); ref=$(ls "$work/ref/${b:0:5}"_s*_color0.png 2>/dev/null)
            [ -n "$ref" ] && ! cmp -s "$f" "$ref" && differs=1
        done
        if [ $differs = 1 ]; then check ok images; else check FAILED images "the minimized trace's images equal the broken reference"; fi
    fi
else
    tail -n 3 "$work/img.log"
    check FAILED images "tessera minimize --image-differs failed"
fi

# draws: one draw's fragment shader broken.
awk '/^mov +r9, r3$/ { print "fmul32 r5, r2, r4"; print "fadd32 r5, r5, r5"
                       print "fadd32 r5, r5, r5"; print "fadd32 r9, r3, r5"; next } { print }' \
    "$work/fs.s" > "$work/blue.s"
cat > "$work/broken.sh" <<'PRED'
#!/bin/bash
# holds when the override changes a colour image of $TRACE's replay
d=$(mktemp -d) || exit 3
trap 'rm -rf "$d"' EXIT
"$TESSERA" replay "$TRACE" --override-shader "$FS=$BAD" --dump-images "$d/bad" --quiet > /dev/null 2>&1 || exit 1
"$TESSERA" replay "$TRACE" --dump-images "$d/ok" --quiet > /dev/null 2>&1 || exit 1
for f in "$d"/bad/*_color0.png; do
    [ -e "$f" ] || continue
    cmp -s "$f" "$d/ok/${f##*/}" || exit 0
done
exit 1
PRED
chmod +x "$work/broken.sh"
export FS=$fs BAD=$work/blue.s
# drawn: the Index counts of a trace's draws that are not 0
drawn() { "$tessera" dump --no-disasm "$1" | awk '/^  Index count$/ { getline; if ($2 != 0) print $2 }'; }
if cmp -s "$work/fs.s" "$work/blue.s"; then
    check FAILED draws "cannot make the broken shader (shader $fs)"
elif [ "$(drawn "$full" | wc -l)" != $((3 * n_full)) ]; then
    check FAILED draws "the full capture does not have 3 draws per submission: $(drawn "$full" | wc -l)"
elif "$tessera" minimize "$full" -o "$work/draws.tsr" --cmd "$work/broken.sh" > "$work/draws.log" 2>&1; then
    cat "$work/draws.log"
    s_min=$(stat -c %s "$work/draws.tsr")
    kept=$(drawn "$work/draws.tsr")
    if ! grep -q "^step .*draws/dispatches.* -> bug gone" "$work/draws.log" ||
       ! grep -q "120 → 1 submissions; in them 3 → 1 draws" "$work/draws.log" ||
       ! grep -q "trimmed to the live state" "$work/draws.log"; then
        check FAILED draws "no draw steps, reduction or trim printed"
    elif minimized draws "$work/draws.tsr" 1; then
        if [ "$(echo "$kept" | wc -w)" != 1 ]; then
            check FAILED draws "draws left with a count: $(echo $kept), want one"
        elif ! TRACE=$work/draws.tsr "$work/broken.sh"; then
            check FAILED draws "the kept draw is not broken by the override"
        elif [ $((s_min * 20)) -ge "$s_full" ]; then
            check FAILED draws "$s_min bytes, not < 5 % of $s_full"
        else
            echo "draws: $n_full → 1 submissions, 3 → 1 draws (count $kept), $s_full → $s_min bytes"
            check ok draws
        fi
    fi
else
    tail -n 3 "$work/draws.log"
    check FAILED draws "tessera minimize --cmd (broken draw) failed"
fi

errs=""
bad() {   # bad WANT-REGEX minimize-arguments...
    local re=$1 rc=0
    shift
    rm -f "$work/bad.tsr"
    "$tessera" minimize "$@" > "$work/bad.txt" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -q "$re" "$work/bad.txt" && [ ! -e "$work/bad.tsr" ] ||
        errs="$errs; '$*' exited $rc: $(head -n 1 "$work/bad.txt")"
}
o=(-o "$work/bad.tsr")
bad "does not hold on the full input" "$full" "${o[@]}" --cmd false
bad "does not hold on the full input" "$full" "${o[@]}" --faults
bad "could not be run" "$full" "${o[@]}" --cmd /nonexistent/predicate
bad "no predicate given" "$full" "${o[@]}"
bad "give one predicate" "$full" "${o[@]}" --faults --cmd true
bad "not a directory" "$full" "${o[@]}" --image-differs "$work/none"
bad "no output given" "$full" --faults
bad "is the input" "$full" -o "$full" --cmd true
bad "No such file" "$work/none.tsr" "${o[@]}" --cmd true
if [ -z "$errs" ]; then check ok errors; else check FAILED errors "${errs#; }"; fi
finish
