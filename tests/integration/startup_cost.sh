#!/bin/bash
# SPDX-License-Identifier: MIT
# What every start of the tessera command and of the preloaded layers costs
# before main(): `tessera capture -- tessera run -- PROG` starts the tessera
# binary twice and loads the capture layer into two processes (page faults
# cost ~11 us each on the reference VM, CPUID ~7 us).
#  - The ISA tables (generated from agx_isa.xml) hold no pointers: each
#    pointer is a load-time relocation that dirties its page in every
#    process (2000 relocations, 14 pages each in tessera and the layer).
#  - The GPU model asks glibc for AVX2/FMA instead of linking libgcc's
#    __cpu_indicator_init, a constructor running CPUID in every process
#    (tessera, the shim) whether it renders or not.
. "$(dirname "$0")/../capture/lib.sh"

# What ships is the release build: the sanitizer variant's instrumentation
# adds its own relocations (one per instrumented global) and ASan's CPU
# detection, so this checks the release binaries under every variant.
release_tessera=$top/build/release/bin/tessera

# The generated tables' object: relocations only for its debug sections.
obj=$top/build/release/obj/build/gen/cmdstream/isa/agx_isa_gen.o
[ -e "$obj" ] || fail "missing $obj"
bad=$(readelf -rW "$obj" | grep "^Relocation section" | grep -v "'\.rela\.debug_" || true)
[ -z "$bad" ] || fail "the ISA tables need load-time relocations: $bad"

# Budgets for the whole binaries' relative relocations (today: tessera ~400,
# the layer ~100; the tables made them 2378 and 2079).
relocs() { readelf -rW "$1" | grep -c R_X86_64_RELATIVE || true; }
layer=$top/build/release/lib/tessera-capture.so
n=$(relocs "$layer")
[ "$n" -le 400 ] || fail "tessera-capture.so has $n relative relocations (budget 400)"
n=$(relocs "$release_tessera")
[ "$n" -le 800 ] || fail "tessera has $n relative relocations (budget 800)"

# No CPUID constructor where glibc publishes the features (2.33+, x86-64).
if [ "$(uname -m)" = x86_64 ] && [ -e /usr/include/x86_64-linux-gnu/sys/platform/x86.h ] ||
   [ -e /usr/include/sys/platform/x86.h ]; then
    for f in "$release_tessera" "$top/build/release/lib/tessera-shim.so"; do
        if nm "$f" | grep -q __cpu_indicator_init; then
            fail "$f links libgcc's __cpu_indicator_init (CPUID at every start)"
        fi
    done
else
    echo "no <sys/platform/x86.h>: the compiler's CPU detection is used"
fi
echo "startup_cost: ok"
