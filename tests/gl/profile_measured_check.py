#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of tests/gl/asahi_profile_measured.sh on `tessera profile --json`
documents (docs/profiling.md, "Modelled and measured").

  profile_measured_check.py none JSON
      no pass has a measured time (measured_ns, per frame and per pass, null)
  profile_measured_check.py measured JSON DUMP
      DUMP: `tessera dump --times` of the same trace. Every render pass has
      a positive measured_ns spanning vertex start to fragment end, equal to
      (end - start) * 1e9 // timestamp_hz of the two values its
      submission's completion recorded (the only two it has); within 1 % of
      the modelled time and (but for submission 0) of the frame's gpu_ns
      (the replay's stamps);
      the frame's measured_ns the sum of its passes'
"""
import json
import re
import sys


def load(path):
    with open(path) as f:
        d = json.load(f)
    assert d["schema"] == "tessera-profile/1", d["schema"]
    return d


def none(d):
    for fr in d["frames"]:
        if fr["measured_ns"] is not None or fr["measured_passes"] != 0:
            print(f"frame {fr['frame']}: measured {fr['measured_ns']}")
            return False
        for p in fr["passes"]:
            if p["measured_ns"] is not None or p["measured_span"] is not None:
                print(f"frame {fr['frame']} pass {p['index']}: measured {p['measured_ns']}")
                return False
    return len(d["frames"]) > 0


def completions(dump):
    """seq -> the timestamp values its COMPLETION recorded, in order."""
    out, seq = {}, None
    for line in open(dump):
        m = re.match(r"  seq (\d+) status", line)
        if m:
            seq = int(m.group(1))
            out[seq] = []
            continue
        m = re.match(r"  timestamp handle \d+ offset \d+ value (\d+)$", line)
        if m and seq is not None:
            out[seq].append(int(m.group(1)))
        elif not line.startswith("  "):
            seq = None
    return out


def measured(d, dump):
    meta = d["meta"]
    if meta["measured_source"] != "model" or meta["timestamp_hz"] != 24000000:
        print(f"meta: {meta['measured_source']} {meta['timestamp_hz']}")
        return False
    hz = meta["timestamp_hz"]
    comp = completions(dump)
    n = missed = 0
    for fr in d["frames"]:
        tot = 0
        for p in fr["passes"]:
            where = f"frame {fr['frame']} pass {p['index']} (submission {p['submission']})"
            if p["kind"] != "render":
                continue
            ns = p["measured_ns"]
            v = comp.get(p["submission"], [])
            # A capture that read the slots before the stamps landed (or
            # after the program refilled them) records no usable pair: the
            # profile must then say "not recorded", and it may happen once
            # (rare, under load; docs/profiling.md).
            if ns is None and (len(v) != 2 or v[1] in (0, 2**64 - 1) or v[1] < v[0]):
                print(f"{where}: not recorded (the completion recorded {v})")
                missed += 1
                if missed > 1:
                    return False
                continue
            if ns is None or ns <= 0 or p["measured_span"] != "vertex start to fragment end":
                print(f"{where}: measured {ns} {p['measured_span']}, the completion recorded {v}")
                return False
            if len(v) != 2 or ns != (v[1] - v[0]) * 10**9 // hz:
                print(f"{where}: measured {ns}, the completion recorded {v}")
                return False
            refs = [("modelled", p["modelled_ns"])]
            # the replay's first submission starts its clock at 0, which its
            # gpu_ns takes for an unwritten stamp: compare the others
            if p["submission"] > 0:
                refs.append(("replayed", fr["gpu_ns"]))
            for what, ref in refs:
                if abs(ns - ref) > ref / 100:
                    print(f"{where}: measured {ns} ns, {what} {ref} ns")
                    return False
            tot += ns
            n += 1
        if fr["measured_ns"] != tot and not (tot == 0 and missed and fr["measured_ns"] in (None, 0)):
            print(f"frame {fr['frame']}: measured {fr['measured_ns']}, its passes {tot}")
            return False
    print(f"{n} passes measured as the capture's firmware stamped them, {missed} not recorded")
    return n > 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "none":
        return 0 if none(load(sys.argv[2])) else 1
    if len(sys.argv) == 4 and sys.argv[1] == "measured":
        return 0 if measured(load(sys.argv[2]), sys.argv[3]) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
