#!/bin/bash
# `tessera replay --validate` on captured traces: a trace whose memory
# disagrees with what the GPU computed is caught, at the right submission,
# object and byte.
#
# Method: the trace must stay internally consistent (every page chunk's
# checksum right), so instead of damaging bytes in the file the live
# program produces the bad page: demo_scene -c overwrites, from the CPU,
# one float the frame-0 compute submission wrote (T1's first x) before its
# next submission. The capture records that page as it then is, so the
# trace says "after submission 0 this byte was 0x34" while the GPU, in the
# replay, writes 0x9a -- exactly what a capture that recorded the wrong
# memory would look like. --mem hash: the capture reads every object at
# every submission, so the page is in the trace before submission 1.
. "$(dirname "$0")/../capture/lib.sh"
demo=$bin/demo_scene

"$tessera" capture -q --shim --mem hash -o "$work/bad.tsr" -- "$demo" -n 2 -c > "$work/out" \
    || fail "capture of the corrupted run"
off=$(sed -n 's/.*-c: changed heap offset \(0x[0-9a-f]*\).*/\1/p' "$work/out")
[ -n "$off" ] || fail "no offset printed: $(cat "$work/out")"
rc=0
"$tessera" replay "$work/bad.tsr" --validate > "$work/rep" 2> "$work/err" || rc=$?
[ $rc = 1 ] || fail "--validate exited $rc on the corrupted trace"
grep -q "validation FAILED" "$work/rep" || fail "no failure in the summary"
# -0.6f = 9a 99 19 bf (GPU), -0.475f = 34 33 f3 be (CPU): the first byte differs.
grep -q "validation: submission 0: GEM object 1 offset $off: replay wrote 0x9a, the capture recorded 0x34" \
    "$work/err" || fail "wrong report: $(cat "$work/err")"

# The same program without -c: submission 0 is not reported. (A submission
# followed by a frame marker is compared with memory the capture records
# only at the next submission -- the known gap in docs/workflows.md -- so
# the demo's render submissions, 1 and 3, may still be reported.)
"$tessera" capture -q --shim --mem hash -o "$work/good.tsr" -- "$demo" -n 2 > /dev/null \
    || fail "capture of the clean run"
rc=0
"$tessera" replay "$work/good.tsr" --validate > "$work/rep" 2> "$work/err" || rc=$?
if [ $rc != 0 ]; then
    s=$(sed -n 's/.*validation: submission \([0-9]*\):.*/\1/p' "$work/err")
    case "$s" in
        1|3) echo "known gap: $(cat "$work/err")" ;;
        *) fail "clean trace: $(cat "$work/err")" ;;
    esac
fi
echo "roundtrip_validate: ok"
