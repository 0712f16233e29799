#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The USC native path is a plugin, lib/tessera-usc-native.so (docs/usc.md
# "Native path"), loaded when a shader first asks for native code:
#   plugin-linkage  the tessera command, the render-node shim and the
#                   capture layer do not link LLVM (DT_NEEDED), `tessera
#                   --version` maps no LLVM, and the plugin exports exactly
#                   one symbol, its ops table
#   plugin-shim     a capture of eglretrace replaying es2gears with
#                   TESSERA_USC_NATIVE=2: the shim found the plugin next to
#                   it (lib/) and compiled shaders, without a warning
#   plugin-replay   `tessera replay` of that capture with =2 found it from
#                   bin/ (../lib) and compiled shaders; images identical to
#                   the interpreter's (=0), which loads nothing
#   plugin-missing  with TESSERA_USC_NATIVE_LIB naming no file: one warning
#                   line, and the interpreter's images
#   plugin-wrong    with a plugin of another ABI version: one warning line,
#                   and the interpreter's images
# Skipped when the build has no native path (built without LLVM).
. "$(dirname "$0")/lib/common.sh"

checks="plugin-linkage plugin-shim plugin-replay plugin-missing plugin-wrong"
plugin=$top/build/release/lib/tessera-usc-native.so
if ! nm "$tessera" 2> /dev/null | grep -q ' usc_native_get$'; then
    for c in $checks; do check skip "$c" "no native path in this build (HAVE_LLVM=0)"; done
    finish
    exit
fi

why=""
for f in "$tessera" "$top/build/release/lib/tessera-shim.so" "$top/build/release/lib/tessera-capture.so"; do
    readelf -d "$f" | grep NEEDED | grep -q libLLVM && why="$why $(basename "$f") links LLVM;"
done
LD_DEBUG=files "$tessera" --version > /dev/null 2> "$work/ld.log" || why="$why tessera --version failed;"
grep -q libLLVM "$work/ld.log" && why="$why tessera --version loads LLVM;"
[ -f "$plugin" ] || why="$why no $plugin;"
readelf -d "$plugin" | grep NEEDED | grep -q libLLVM || why="$why the plugin does not link LLVM;"
exports=$(nm -D --defined-only "$plugin" | awk '{ print $3 }' | tr '\n' ' ')
[ "$exports" = "tessera_usc_native_ops " ] || why="$why the plugin exports '$exports';"
if [ -z "$why" ]; then check ok plugin-linkage; else check FAILED plugin-linkage "$why"; fi

gl_es2gears_setup
tsr=$work/es2gears.tsr
if ! TESSERA_USC_NATIVE=2 TESSERA_USC_NATIVE_STATS=1 gl_capture_es2gears "$tsr" "$work/cap.log"; then
    for c in plugin-shim plugin-replay plugin-missing plugin-wrong; do
        check FAILED "$c" "capture failed: $(tail -n 3 "$work/cap.log")"
    done
    finish
    exit
fi
if grep -q '^tessera: usc native' "$work/cap.log"; then
    check FAILED plugin-shim "$(grep '^tessera: usc native' "$work/cap.log" | head -n 1)"
elif ! grep -q '^usc native: [1-9]' "$work/cap.log"; then
    check FAILED plugin-shim "the shim compiled no native code"
else
    check ok plugin-shim
fi

# images NAME [ENV...]: replays the capture into $work/NAME (stderr in
# $work/NAME.err); prints the MD5 over its images
images() {
    local name=$1
    shift
    rm -rf "$work/$name"
    env "$@" "$tessera" replay --quiet --dump-images "$work/$name" "$tsr" > /dev/null 2> "$work/$name.err" ||
        { echo "replay failed: $(tail -n 2 "$work/$name.err" | tr '\n' ' ')"; return; }
    (cd "$work/$name" && ls | LC_ALL=C sort | xargs md5sum | md5sum | cut -c1-32)
}
want=$(images interp TESSERA_USC_NATIVE=0)
# (a failed replay's message never equals an MD5)
[[ $want =~ ^[0-9a-f]{32}$ ]] || want="none ($want)"
[ -s "$work/interp.err" ] && want="$want (stderr: $(head -n 1 "$work/interp.err"))"

got=$(images native TESSERA_USC_NATIVE=2 TESSERA_USC_NATIVE_STATS=1)
if [ "$got" != "$want" ]; then
    check FAILED plugin-replay "images $got, the interpreter's $want"
elif grep -q '^tessera: usc native' "$work/native.err" || ! grep -q '^usc native: [1-9]' "$work/native.err"; then
    check FAILED plugin-replay "no native code: $(head -n 1 "$work/native.err")"
else
    check ok plugin-replay
fi

# without a usable plugin: exactly one warning line (NAME PATTERN ENV...)
fallback() {
    local name=$1 pattern=$2
    shift 2
    local got n
    got=$(images "$name" TESSERA_USC_NATIVE=2 "$@")
    n=$(grep -c '^tessera: usc native' "$work/$name.err")
    if [ "$got" != "$want" ]; then
        check FAILED "$name" "images $got, the interpreter's $want"
    elif [ "$n" != 1 ] || ! grep -q "$pattern" "$work/$name.err"; then
        check FAILED "$name" "want one warning matching '$pattern', got: $(tr '\n' ' ' < "$work/$name.err")"
    else
        check ok "$name"
    fi
}
fallback plugin-missing 'cannot load the plugin.*using the interpreter' \
    TESSERA_USC_NATIVE_LIB="$work/no-such-plugin.so"
# an ops table of a later ABI: the loader must not call into it
printf 'const struct { unsigned version; } tessera_usc_native_ops = { 999 };\n' > "$work/bad.c"
if ${CC:-cc} -shared -fPIC -o "$work/bad.so" "$work/bad.c" 2> "$work/bad.log"; then
    fallback plugin-wrong 'another build (version 999, want' TESSERA_USC_NATIVE_LIB="$work/bad.so"
else
    check FAILED plugin-wrong "cannot build the test plugin: $(head -n 1 "$work/bad.log")"
fi
finish
