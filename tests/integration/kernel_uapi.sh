#!/bin/bash
# The uAPI test program against the render-node shim, preloaded explicitly
# (the unit-test run lets it re-execute itself instead), plus libdrm's own
# view of the node: drmdevice (Debian libdrm-tests) when installed.
set -eu
top=${TOP:-$(pwd)}
build=${BUILD:-$top/build/release}
shim=$top/build/release/lib/tessera-shim.so
test=$build/tests/test_kernel_uapi
[ -f "$shim" ] || { echo "no $shim: build the release variant"; exit 1; }
[ -x "$test" ] || { echo "no $test"; exit 1; }

# ASan's runtime must come first in the initial library list.
preload=$shim
if ldd "$test" | grep -q libasan; then
    preload="$(gcc -print-file-name=libasan.so) $shim"
fi

out=$(LD_PRELOAD="$preload" TESSERA_UAPI_REEXEC=1 CMOCKA_MESSAGE_OUTPUT=TAP "$test")
echo "$out"
echo "$out" | grep -q '^1\.\.10$'
! echo "$out" | grep -q '^not ok'

# A second render node number.
LD_PRELOAD="$preload" TESSERA_SHIM_NODE=130 TESSERA_UAPI_REEXEC=1 \
    CMOCKA_MESSAGE_OUTPUT=TAP "$test" | grep -q '^ok 1 - test_device'

if command -v drmdevice >/dev/null; then
    dd=$(LD_PRELOAD="$shim" drmdevice 2>&1)
    echo "$dd"
    echo "$dd" | grep -q 'renderD128'
    echo "$dd" | grep -qi 'platform'
    echo "$dd" | grep -q 'apple,gpu-g13g'
else
    echo "drmdevice not installed (libdrm-tests): skipped"
fi
echo "kernel_uapi: ok"
