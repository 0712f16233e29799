#!/bin/bash
# SPDX-License-Identifier: MIT
# The include edges between components that docs/build.md promises: the
# front ends and the other tools reach the capture library through its
# public header alone -- cli/ may include capture/capture.h and nothing
# else of capture/; replay/, compare/, trace/ and uapi/ include nothing of
# capture/; nothing shipped includes the test library (tests/lib).
# Run once by scripts/run-tests.
set -u
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 1

bad=0 n=0
check() { # dir pattern why
    local dir=$1 pat=$2 why=$3 hits
    n=$((n + 1))
    hits=$(grep -rnE --include='*.c' --include='*.h' "$pat" "$dir" 2>/dev/null)
    if [ -n "$hits" ]; then
        printf '%s\n' "$hits" | sed "s|\$|   ($why)|"
        bad=$((bad + $(printf '%s\n' "$hits" | wc -l)))
    fi
}
check cli '#include "capture/(cap_[^"]*|[^"]*priv[^"]*)"' "cli/ uses capture/capture.h only"
for d in replay compare trace uapi; do
    check "$d" '#include "capture/' "$d/ does not depend on capture/"
done
for d in cli capture replay compare trace uapi hw kernel cmdstream; do
    check "$d" '#include "tests/' "shipped code does not include tests/"
done
echo "include_graph: $n rules, $bad problems"
[ $bad -eq 0 ]
