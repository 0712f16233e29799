# SPDX-License-Identifier: MIT
# Shared setup of the capture integration tests (tests/integration/capture_*.sh).
# Sets: top build tessera work; preloads ASan's runtime when the programs
# need it (tessera capture keeps it first); `run_capture` and helpers.
set -eu
top=${TOP:-$(pwd)}
build=${BUILD:-$top/build/release}
tessera=${TESSERA:-$build/bin/tessera}
bin=$build/bin
for f in "$top/build/release/lib/tessera-capture.so" "$top/build/release/lib/tessera-shim.so" \
         "$tessera" "$bin/capture_scene"; do
    [ -e "$f" ] || { echo "missing $f: build the release variant first"; exit 1; }
done
if ldd "$bin/capture_scene" | grep -q libasan; then
    export LD_PRELOAD="$(gcc -print-file-name=libasan.so)"
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*"; exit 1; }

# info_field FILE "submissions:" -> first number after the label
info_field() {
    "$tessera" info "$1" | awk -v k="$2" '$1 == k { print $2; exit }'
}
