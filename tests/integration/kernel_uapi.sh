#!/bin/bash
# SPDX-License-Identifier: MIT
# The uAPI test program against the render-node shim, preloaded explicitly
# (the unit-test run lets it re-execute itself instead). libdrm's own view of
# the node (drmdevice) is kernel_drmdevice.sh.
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
# Every planned case ran and passed (at least the 11 there are today).
plan=$(echo "$out" | sed -n 's/^1\.\.\([0-9]*\)$/\1/p')
oks=$(echo "$out" | grep -c '^ok ' || true)
[ -n "$plan" ] && [ "$plan" -ge 11 ] && [ "$oks" = "$plan" ] ||
    { echo "kernel_uapi: plan '$plan', $oks cases ok"; exit 1; }
# (not `! grep`: set -e ignores a negated command.) On the shim every case
# runs: a skipped one ("not ok N # SKIP") fails here too.
if echo "$out" | grep -q '^not ok'; then
    echo "kernel_uapi: a test case failed or was skipped"; exit 1
fi

# A second render node number.
LD_PRELOAD="$preload" TESSERA_SHIM_NODE=130 TESSERA_UAPI_REEXEC=1 \
    CMOCKA_MESSAGE_OUTPUT=TAP "$test" | grep -q '^ok 1 - test_device'

echo "kernel_uapi: ok"
