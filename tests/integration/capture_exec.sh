#!/bin/bash
# SPDX-License-Identifier: MIT
# `tessera capture` runs the program in its own place (exec, no fork and
# no process waiting: docs/capture.md, "Options"): the program has the
# launcher's pid and is the root process, its exit status or the signal
# that ended it is the launcher's, and the root's layer reports at its
# exit what `tessera capture` reported after it: the trace and its size,
# the child traces, or that nothing was written; -q reports nothing.
. "$(dirname "$0")/../capture/lib.sh"

# same_pid STATUS LAUNCHER...: runs the launcher command in the background;
# its program (ending in the script `report_pid N`) must exit with STATUS,
# as the launcher, and run as the launcher's pid (a fork gives it a new
# one), which must also be its TESSERA_CAPTURE_ROOT_PID.
report_pid='echo "$$ $TESSERA_CAPTURE_ROOT_PID" > "$0"; exit $1'
same_pid() {
    local want=$1 lpid rc ppid root
    shift
    set +e
    "$@" &
    lpid=$!
    wait $lpid
    rc=$?
    set -e
    [ "$rc" = "$want" ] || fail "exit status $rc, want the program's $want: $*"
    read -r ppid root < "$work/pid"
    [ "$ppid" = "$lpid" ] || fail "the program runs as pid $ppid, the launcher was $lpid (forked): $*"
    [ "$root" = "$lpid" ] || fail "TESSERA_CAPTURE_ROOT_PID $root, want $lpid: $*"
}

# the program's pid is the launcher's
same_pid 5 "$tessera" capture -q -o "$work/none.tsr" -- sh -c "$report_pid" "$work/pid" 5

# a signal that ends the program ends the launcher (128+N in the shell)
set +e
"$tessera" capture -q -o "$work/none.tsr" -- sh -c 'kill -9 $$' 2> /dev/null
rc=$?
set -e
[ "$rc" = 137 ] || fail "exit status $rc after SIGKILL, want 137"

# a program that cannot be run: status 127 and a message, as before
set +e
msg=$("$tessera" capture -o "$work/none.tsr" -- /nonexistent/program 2>&1)
rc=$?
set -e
[ "$rc" = 127 ] || fail "exit status $rc for a missing program, want 127"
echo "$msg" | grep -q 'cannot run /nonexistent/program: No such file' || fail "message: $msg"

# the report, now the root layer's: a trace and its size, child traces
t=$work/scene.tsr
err=$("$tessera" capture --shim -o "$t" -- "$bin/capture_scene" -n 8 -e 4 2>&1 > /dev/null)
echo "$err"
size=$(stat -c %s "$t")
echo "$err" | grep -qx "tessera capture: wrote $t ($size bytes)" ||
    fail "no report of $t ($size bytes): $err"
err=$("$tessera" capture --shim -o "$work/fork.tsr" -- "$bin/capture_fork" -c 2 -n 3 2>&1 > /dev/null)
echo "$err"
echo "$err" | grep -q "tessera capture: wrote $work/fork.tsr ([0-9]* bytes) and 2 child traces" ||
    fail "no report of 2 child traces: $err"
err=$("$tessera" capture -o "$work/none.tsr" -- true 2>&1)
echo "$err" | grep -qx "tessera capture: $work/none.tsr was not written (no GPU use by the root process)" ||
    fail "no report of the unwritten trace: $err"
# -q: nothing
err=$("$tessera" capture -q --shim -o "$t" -- "$bin/capture_scene" -n 8 -e 4 2>&1 > /dev/null)
[ -z "$err" ] || fail "-q printed: $err"

# `tessera capture -- tessera run -- PROG`: run's code runs in the launcher
# (no second start of tessera), with the environment the exec'd tessera run
# had: compared with a run reached through sh, which execs it.
vars='^(LD_|TESSERA_|LIBGL|GALLIUM|GBM|VK_|MESA_)'
env_of() { grep -E "$vars" | sed 's/^TESSERA_CAPTURE_ROOT_PID=.*/ROOT_PID/' | sort; }
direct=$("$tessera" capture -q -o "$work/none.tsr" -- "$tessera" run -- env | env_of)
via_sh=$("$tessera" capture -q -o "$work/none.tsr" -- sh -c 'exec "$0" run -- env' "$tessera" | env_of)
[ -n "$direct" ] && [ "$direct" = "$via_sh" ] ||
    fail "environment differs: $(diff <(echo "$direct") <(echo "$via_sh"))"
same_pid 6 "$tessera" capture -q -o "$work/none.tsr" -- "$tessera" run --no-shim -- \
    sh -c "$report_pid" "$work/pid" 6
if command -v strace > /dev/null; then
    strace -f -qq -e trace=execve -o "$work/execs" \
        "$tessera" capture -q -o "$work/none.tsr" -- "$tessera" run --no-shim -- true
    n=$(grep -c 'execve(.* = 0$' "$work/execs")
    [ "$n" = 2 ] || fail "$n execs for capture -- tessera run -- true, want 2: $(cat "$work/execs")"
else
    echo "no strace: the count of execs is not checked"
fi
# run fails before its exec: its message, its status, and the root's report
set +e
err=$("$tessera" capture -o "$work/none.tsr" -- "$tessera" run --driver bogus -- true 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || fail "exit status $rc for tessera run --driver bogus, want 2"
echo "$err" | grep -q "^tessera run: unknown driver" || fail "no message from run: $err"
echo "$err" | grep -qx "tessera capture: $work/none.tsr was not written (no GPU use by the root process)" ||
    fail "no report after run failed: $err"
echo "capture_exec: ok"
