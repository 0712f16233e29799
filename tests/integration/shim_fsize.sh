#!/bin/bash
# SPDX-License-Identifier: MIT
# A file-size limit (ulimit -f, RLIMIT_FSIZE) does not reach the shim's GPU
# memory: the model's arena is shared anonymous memory, not a file grown
# with ftruncate (which, for a 4 GiB memfd, raised SIGXFSZ and killed every
# program under the shim). Under a 64 KiB limit the scene program runs
# with the same output and exit status, with and without capture; GPU
# memory is still bounded by the arena (TESSERA_SHIM_MEM_MB), and running
# out of it is an error of the ioctl (ENOMEM), not a signal.
. "$(dirname "$0")/../capture/lib.sh"

shim=$top/build/release/lib/tessera-shim.so
args="-n 20 -e 5"
ref=$(LD_PRELOAD="${LD_PRELOAD:-} $shim" "$bin/capture_scene" $args)
set +e
out=$(ulimit -f 64; LD_PRELOAD="${LD_PRELOAD:-} $shim" "$bin/capture_scene" $args 2>"$work/err")
rc=$?
set -e
cat "$work/err"
[ $rc = 0 ] || fail "exit status $rc under ulimit -f 64 (153 = SIGXFSZ)"
[ "$out" = "$ref" ] || fail "output differs under ulimit -f 64: $out"

# An arena too small for what the program asks: GEM_CREATE fails with
# ENOMEM, the program reports it and exits 1, no signal.
set +e
(ulimit -f 64; TESSERA_SHIM_MEM_MB=32 LD_PRELOAD="${LD_PRELOAD:-} $shim" \
    "$bin/capture_scene" -n 1 -s 4194304 > /dev/null 2>"$work/err2")
rc=$?
set -e
cat "$work/err2"
[ $rc -lt 128 ] && [ $rc != 0 ] || fail "exit status $rc with a 32 MiB arena (want an error, no signal)"
grep -q "Cannot allocate memory\|ENOMEM" "$work/err2" || fail "no ENOMEM reported"
echo "shim_fsize: ok"
