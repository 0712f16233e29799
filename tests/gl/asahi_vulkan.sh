#!/bin/bash
# SPDX-License-Identifier: MIT
# Milestone 7 of Mesa's asahi driver on the embedded GPU: Mesa's asahi
# Vulkan driver (honeykrisp, Mesa 25.0.7 ported to the upstream uAPI) on the
# shim's render node, through `tessera run --driver asahi` (which points the
# Vulkan loader at build/mesa-asahi/lib/vulkan/asahi_icd.json alone).
#   vulkan-device: vulkaninfo (vulkan-tools, an oracle we did not write)
#     enumerates exactly one device, Mesa's name for the GPU ("Apple M1
#     (G13G A0)") from Mesa's driver "Honeykrisp": not a software device,
#     not the system's drivers (Debian's vulkaninfo predates the driver ID,
#     so the name is what it can print);
#   vulkan-render: tests/gl/vk_clear renders 3 frames (render-pass clear =
#     the driver's background program, vkCmdClearAttachments = a draw with
#     its clear shader, image copy and buffer fill = compute) and checks
#     every pixel and word;
#   vulkan-capture: the same under `tessera capture --frame-on submit`: one
#     trace frame per submission (Vulkan has no swap the layer sees), the
#     capture decodes (`tessera dump`: no unknown bits or errors), `tessera
#     replay --dump-images` replays without a warning and its image of each
#     render pass (one per program frame, in order) is identical to the
#     program's own read-back of that frame;
#   vulkan-vkcube: vkcube (vulkan-tools) presents 5 frames in an X11 window
#     on our own Xvfb (Mesa's software WSI) under `tessera capture` and
#     exits 0, and the replay's last render pass shows the textured cube:
#     many distinct colours (the clear colour alone is one; with every
#     fragment failing the D16 depth test, as before the model's fix of
#     ISP BG Obj Depth for Z16, that is all it showed).
. "$(dirname "$0")/lib/common.sh"

mesa=$top/build/mesa-asahi/lib
if [ ! -e "$mesa/libvulkan_asahi.so" ] || [ ! -e "$mesa/vulkan/asahi_icd.json" ]; then
    echo "missing $mesa/libvulkan_asahi.so or vulkan/asahi_icd.json: build the release variant first (make)"
    exit 1
fi
for p in vulkaninfo vkcube Xvfb; do
    command -v $p > /dev/null || { echo "missing $p (scripts/install-deps)"; exit 1; }
done
bin=$top/build/release/bin
[ -x "$bin/vk_clear" ] || { echo "missing $bin/vk_clear: build the release variant first (make)"; exit 1; }
gl_prefix asahi
pat=$(gl_renderer_pattern asahi)

# vulkaninfo: exactly one device, Mesa's asahi on the model.
timeout -k 10 300 "${GL_PREFIX[@]}" vulkaninfo --summary > "$work/vulkaninfo.txt" 2>&1
rc=$?
names=$(sed -n 's/^[[:space:]]*deviceName[[:space:]]*= *//p' "$work/vulkaninfo.txt")
drivers=$(sed -n 's/^[[:space:]]*driverName[[:space:]]*= *//p' "$work/vulkaninfo.txt")
echo "vulkaninfo: exit $rc, deviceName '${names:-none}', driverName '${drivers:-none}'"
if [ $rc = 0 ] && [ "$(echo "$names" | grep -c .)" = 1 ] && echo "$names" | grep -qE "$pat" &&
   [ "$drivers" = Honeykrisp ]; then
    result ok vulkan-device
else
    grep -iE 'error|fail|warn' "$work/vulkaninfo.txt" | head -n 5
    result FAILED vulkan-device "want one device named $pat from driver Honeykrisp"
fi

# vk_clear: rendering, checked by the program itself.
frames=3
mkdir -p "$work/live" "$work/live2" "$work/replay"
timeout -k 10 300 "${GL_PREFIX[@]}" "$bin/vk_clear" "$work/live" $frames > "$work/vk_clear.txt" 2>&1
rc=$?
passes=$(grep -c '^PASS' "$work/vk_clear.txt")
if [ $rc = 0 ] && [ "$passes" = $frames ] && ! grep -q '^FAIL' "$work/vk_clear.txt" &&
   grep -qE "^device: Apple M[0-9]" "$work/vk_clear.txt"; then
    result ok vulkan-render
else
    tail -n 8 "$work/vk_clear.txt"
    result FAILED vulkan-render "exit $rc, $passes of $frames frames passed"
fi

# The same under capture: one frame per submission, replayed bit-identical.
capture_check() {
    timeout -k 10 600 "$tessera" capture -q --frame-on submit -o "$work/vk.tsr" -- \
        "${GL_PREFIX[@]}" "$bin/vk_clear" "$work/live2" $frames > "$work/capture.log" 2>&1 ||
        { tail -n 8 "$work/capture.log"; echo "the captured vk_clear failed"; return 1; }
    grep -c '^PASS' "$work/capture.log" | grep -qx $frames ||
        { tail -n 8 "$work/capture.log"; echo "the captured vk_clear did not pass"; return 1; }
    local n subs
    "$tessera" info "$work/vk.tsr" > "$work/info.txt" || { echo "tessera info failed"; return 1; }
    n=$(awk '$1 == "frames:" { print $2; exit }' "$work/info.txt")
    subs=$(awk '$1 == "submissions:" { print $2; exit }' "$work/info.txt")
    [ -n "$n" ] && [ "$n" = "$subs" ] && [ "$n" -ge $frames ] ||
        { echo "$n trace frames for $subs submissions, want one per submission"; return 1; }
    "$tessera" dump "$work/vk.tsr" > "$work/dump.txt" 2> "$work/dump.err" ||
        { tail -n 3 "$work/dump.err"; echo "tessera dump failed"; return 1; }
    local bad
    bad=$(grep -E 'unknown bits|[1-9][0-9]* (errors|warnings)|: unknown 0x' "$work/dump.txt" | sort | uniq -c)
    [ -z "$bad" ] || { echo "$bad" | head -n 5; echo "undecoded content in the dump"; return 1; }
    timeout -k 10 600 "$tessera" replay "$work/vk.tsr" --dump-images "$work/replay" \
        > "$work/replay.log" 2>&1 || { tail -n 5 "$work/replay.log"; echo "replay failed"; return 1; }
    if grep -q warning "$work/replay.log"; then
        grep warning "$work/replay.log" | head -n 3; echo "replay warned"; return 1
    fi
    # One render pass per program frame (the copy and the fill are compute
    # submissions, no render targets): the i-th colour image is frame i's.
    local imgs i ok=0
    mapfile -t imgs < <(ls "$work/replay" | grep '_color0\.png$' | sort)
    [ ${#imgs[@]} = $frames ] || { echo "${#imgs[@]} replayed render passes, want $frames"; return 1; }
    for ((i = 0; i < frames; i++)); do
        "$tessera" compare images "$work/live2/frame$(printf %02d $i).png" "$work/replay/${imgs[$i]}" \
            > "$work/cmp$i.log" 2>&1 || { head -n 2 "$work/cmp$i.log"; ok=1; }
    done
    [ $ok = 0 ] || echo "replayed images differ from the program's"
    return $ok
}
if why=$(capture_check); then result ok vulkan-capture
else echo "$why" | head -n 10; result FAILED vulkan-capture "$(echo "$why" | tail -n 1)"; fi

# vkcube on our own Xvfb: presentation through Mesa's software WSI.
Xvfb -displayfd 3 -screen 0 640x480x24 -nolisten tcp -nolisten unix 3> "$work/display" \
    > "$work/xvfb.log" 2>&1 &
xvfb=$!
gl_cleanup_hooks+=("kill $xvfb 2>/dev/null; wait $xvfb 2>/dev/null")
for _ in $(seq 100); do
    [ -s "$work/display" ] && break
    kill -0 $xvfb 2>/dev/null || break
    sleep 0.1
done
# png_colours PNG: distinct RGB colours of an 8-bit RGB(A) PNG.
png_colours() { python3 "$top/tests/gl/lib/png_colours.py" "$1"; }
vkcube_check() {
    DISPLAY=:$(head -n1 "$work/display") timeout -k 10 600 "$tessera" capture -q --frame-on submit \
        -o "$work/cube.tsr" -- "${GL_PREFIX[@]}" vkcube --c 5 > "$work/vkcube.txt" 2>&1 ||
        { tail -n 5 "$work/vkcube.txt"; echo "vkcube failed"; return 1; }
    grep -qE "Selected GPU [0-9]+: Apple M[0-9]" "$work/vkcube.txt" ||
        { tail -n 5 "$work/vkcube.txt"; echo "vkcube did not select the Apple GPU"; return 1; }
    mkdir -p "$work/cube"
    timeout -k 10 600 "$tessera" replay "$work/cube.tsr" --dump-images "$work/cube" \
        > "$work/cube.log" 2>&1 || { tail -n 5 "$work/cube.log"; echo "replay failed"; return 1; }
    local img n
    img=$(ls "$work/cube/"*_color0.png 2>/dev/null | sort | tail -n 1)
    [ -n "$img" ] || { echo "no replayed render pass"; return 1; }
    n=$(png_colours "$img")
    echo "vkcube: ${n:-0} distinct colours in the last render pass ($(basename "$img"))"
    [ "${n:-0}" -ge 200 ] || { echo "${n:-0} colours: no cube"; return 1; }
}
if [ -s "$work/display" ]; then
    if why=$(vkcube_check); then echo "$why"; result ok vulkan-vkcube
    else echo "$why" | head -n 8; result FAILED vulkan-vkcube "$(echo "$why" | tail -n 1)"; fi
else
    cat "$work/xvfb.log"
    result FAILED vulkan-vkcube "Xvfb did not start"
fi
finish
