#!/bin/bash
# SPDX-License-Identifier: MIT
# No completion of Mesa's asahi driver waits for the kernel's guard timeout.
# The event thread polls the model's interrupt with a timeout that only
# guards against a lost interrupt (100 ms); a completion whose interrupt
# was cleared by someone who did not handle it waited for it: Mesa's asahi
# records glxgears' 120 frames as one render pass, which grows the TVB,
# and the Grow TVB ack's device-control wait took the interrupt of the
# pass's completion (kernel/asahi_fw.c, asahi_fw_devctrl; eglretrace
# 0.29 s instead of 0.15 s about one run in two on a quiet machine).
# Here the guard is ten minutes (TESSERA_SHIM_IRQ_GUARD_MS), so a lost
# interrupt hangs the replay, which must instead end within 60 s: glxgears
# and es2gears (one result each, 5 replays: the race is timing-dependent,
# and the unit test test_kernel's test_device_control_keeps_events
# reproduces it deterministically).
. "$(dirname "$0")/lib/common.sh"
traces="glxgears es2gears"
checks=""
for t in $traces; do checks="$checks asahi-irq-$t"; done
[ -e "$top/build/mesa-asahi/lib/libEGL.so.1" ] || abort "missing build/mesa-asahi (make)"
gl_prefix asahi
for t in $traces; do
    why=""
    for i in 1 2 3 4 5; do
        TESSERA_SHIM_IRQ_GUARD_MS=600000 timeout -k 5 60 "${GL_PREFIX[@]}" \
            eglretrace --headless -b "$workloads/traces/$t.trace" > "$work/$t.$i.log" 2>&1
        rc=$?
        secs=$(sed -n 's/^Rendered [0-9]* frames in \([0-9.]*\) secs.*/\1/p' "$work/$t.$i.log")
        echo "$t replay $i: exit $rc, ${secs:-no} s"
        if [ $rc = 124 ] || [ $rc = 137 ]; then
            why="replay $i hung (a completion waited for the event thread's guard)"
            break
        elif [ $rc != 0 ] || [ -z "$secs" ]; then
            why="replay $i failed (exit $rc): $(tail -n 3 "$work/$t.$i.log")"
            break
        fi
    done
    if [ -z "$why" ]; then check ok "asahi-irq-$t"; else check FAILED "asahi-irq-$t" "$why"; fi
done
finish
