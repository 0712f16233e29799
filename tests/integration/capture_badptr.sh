#!/bin/bash
# SPDX-License-Identifier: MIT
# The layer reads a SUBMIT's argument, command buffer and syncs and a
# VM_BIND's ops from the program's pointers (capture/cap_crash.c,
# cap_copy_from_user). capture_badptr passes unreadable and unmapped
# pointers (and ones straddling the end of a readable page): each call
# fails with EFAULT as without the layer, nothing crashes, and a real
# submission after them is recorded. The copies are plain ones whose read
# fault the layer's handler answers, not process_vm_readv on ourselves
# (a system call each, ~2.3 us on the 2-core VM, ~400 a run of eglretrace
# es2gears): the statistics must show plain copies, some faulted, and none
# by process_vm_readv -- unless a sanitizer keeps SIGSEGV (san variant).
. "$(dirname "$0")/../capture/lib.sh"

[ -x "$bin/capture_badptr" ] || fail "missing $bin/capture_badptr"
for mem in wp hash; do
    t=$work/b-$mem.tsr
    TESSERA_CAPTURE_STATS=1 "$tessera" capture --shim --mem $mem -o "$t" -- "$bin/capture_badptr" \
        > "$work/out" 2> "$work/err" || fail "capture_badptr failed ($mem): $(tail -n 5 "$work/err")"
    grep -q "capture_badptr: ok" "$work/out" || fail "no ok ($mem): $(cat "$work/out")"
    [ "$(info_field "$t" submissions:)" = 1 ] || fail "not 1 submission recorded ($mem)"
    line=$(grep "program memory read:" "$work/err") || fail "no copy statistics ($mem)"
    read -r plain faulted vm <<< "$(sed -n 's/.*read: \([0-9]*\) plain copies (\([0-9]*\) faulted), \([0-9]*\) by process_vm_readv.*/\1 \2 \3/p' <<< "$line")"
    echo "$mem: $plain plain copies, $faulted faulted, $vm by process_vm_readv"
    if [ -n "${LD_PRELOAD:-}" ]; then
        echo "(sanitizer: the copy-path counts are not checked)"
    else
        [ "$vm" = 0 ] || fail "$vm copies by process_vm_readv ($mem)"
        [ "${faulted:-0}" -ge 5 ] || fail "only ${faulted:-0} faulted copies ($mem)"
    fi
done
# the replay of the recorded submission passes
"$tessera" replay "$work/b-wp.tsr" --validate --quiet > "$work/val" 2>&1 ||
    fail "replay --validate: $(tail -n 3 "$work/val")"
echo "capture_badptr: ok"
