#!/bin/bash
# SPDX-License-Identifier: MIT
# Every source file of the project starts with its license: the line
# "SPDX-License-Identifier: MIT" (in the file's comment syntax) first, or
# second after a "#!" line or an XML declaration. Sources are C (.c .h .inc),
# Python, shell, make (Makefile, .mk), meson.build, XML, .pc.in templates and
# every file starting with "#!". Not checked: test inputs and golden outputs
# (tests/data, tests/fuzz/corpus), Mesa patches, documents.
# Files are those git tracks (every file outside build/ when not in a git
# checkout). Run once by scripts/run-tests.
set -u
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 1

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    list() { git ls-files -z; }
else
    list() { find . -path ./build -prune -o -path ./.git -prune -o -type f -printf '%P\0'; }
fi

is_source() { # path
    case "$1" in
        tests/data/*|tests/fuzz/corpus/*|build/*) return 1 ;;
        *.c|*.h|*.inc|*.py|*.sh|*.mk|*.xml|*.pc.in|Makefile|*/Makefile|meson.build|*/meson.build) return 0 ;;
    esac
    [ "$(head -c 2 "$1")" = '#!' ]
}

n=0 bad=0
while IFS= read -r -d '' f; do
    [ -f "$f" ] || continue
    is_source "$f" || continue
    n=$((n + 1))
    first=$(head -n 1 "$f")
    case "$first" in
        '#!'*|'<?xml'*) line=$(sed -n 2p "$f") ;;
        *) line=$first ;;
    esac
    case "$line" in
        *'SPDX-License-Identifier: MIT'*) ;;
        *) echo "$f: no 'SPDX-License-Identifier: MIT' on its first line (after a #! line or XML declaration)"
           bad=$((bad + 1)) ;;
    esac
done < <(list)

[ -f LICENSE ] || { echo "LICENSE: missing"; bad=$((bad + 1)); }
echo "spdx: $n source files, $bad problems"
[ $n -gt 0 ] && [ $bad -eq 0 ]
