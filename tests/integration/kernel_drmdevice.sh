#!/bin/bash
# SPDX-License-Identifier: MIT
# libdrm's own view of the render-node shim: drmdevice (Debian libdrm-tests)
# lists the node as a platform device of the G13G GPU. Skipped (exit 77,
# counted as skipped by scripts/run-tests; a failure with CI=true) where
# drmdevice is not installed (scripts/install-deps installs it).
set -eu
top=${TOP:-$(pwd)}
shim=$top/build/release/lib/tessera-shim.so
[ -f "$shim" ] || { echo "no $shim: build the release variant"; exit 1; }
if ! command -v drmdevice >/dev/null; then
    echo "skip: drmdevice is not installed (libdrm-tests; scripts/install-deps installs it)"
    exit 77
fi
dd=$(LD_PRELOAD="$shim" drmdevice 2>&1)
echo "$dd"
echo "$dd" | grep -q 'renderD128'
echo "$dd" | grep -qi 'platform'
echo "$dd" | grep -q 'apple,gpu-g13g'
echo "kernel_drmdevice: ok"
