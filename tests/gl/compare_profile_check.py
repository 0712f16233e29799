#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of tests/gl/profile.sh on `tessera compare profile --json` reports
(schema tessera-compare-profile/1, docs/compare.md "Profiles").

  compare_profile_check.py override CMP BASE LONG   CMP = compare BASE LONG
  compare_profile_check.py reverse CMP BASE LONG    CMP = compare LONG BASE
  compare_profile_check.py same CMP                 CMP = a profile with itself
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def draws(prof):
    """(frame, pass, draw) -> the profile's draw entry."""
    out = {}
    for fr in prof["frames"]:
        for p in fr["passes"]:
            for d in p.get("draws", []):
                out[(fr["frame"], p["index"], d["index"])] = d
    return out


def fail(msg):
    print(msg)
    return False


def check_pairs(cmp, a, b):
    """Every matched draw's counters are the two profiles' values and their
    difference; nothing is unmatched (the same trace on both sides)."""
    da, db = draws(a), draws(b)
    if cmp["added"] or cmp["removed"]:
        return fail(f"unmatched draws: {cmp['added']} added, {cmp['removed']} removed")
    n = 0
    for fr in cmp["frames"]:
        for p in fr["passes"]:
            if p["status"] != "matched":
                return fail(f"frame {fr['frame']} pass {p['index']} is {p['status']}")
            for d in p["draws"]:
                if d["status"] != "matched" or d["index_a"] != d["index_b"]:
                    return fail(f"frame {fr['frame']} pass {p['index']}: draw {d} not paired in order")
                ea = da[(fr["frame"], p["index"], d["index_a"])]
                eb = db[(fr["frame"], p["index"], d["index_b"])]
                for name, c in d["counters"].items():
                    if (c["a"], c["b"], c["delta"]) != (ea["counters"][name], eb["counters"][name],
                                                      eb["counters"][name] - ea["counters"][name]):
                        return fail(f"frame {fr['frame']} draw {d['index_a']} {name}: {c}")
                n += 1
    if n != len(da) or n != len(db):
        return fail(f"{n} pairs for {len(da)} and {len(db)} draws")
    return True


def biggest(prof):
    """Per frame, the draw with the most fragments (the big gear)."""
    out = {}
    for fr in prof["frames"]:
        best = None
        for p in fr["passes"]:
            for d in p.get("draws", []):
                k = (d["counters"]["fragments"], p["index"], d["index"])
                if best is None or k[0] > best[0]:
                    best = k
        out[fr["frame"]] = best
    return out


def override(cmp, base, long_, sign):
    if not check_pairs(cmp, base if sign > 0 else long_, long_ if sign > 0 else base):
        return False
    want = "slower" if sign > 0 else "faster"
    if cmp["verdict"] != want:
        return fail(f"verdict {cmp['verdict']}, want {want}")
    top = cmp["regressions" if sign > 0 else "improvements"]
    other = cmp["improvements" if sign > 0 else "regressions"]
    if not top or other:
        return fail(f"want only {'regressions' if sign > 0 else 'improvements'}: {top} / {other}")
    t = top[0]
    big = biggest(base)
    # the top change is a big gear, and its delta is exactly the profiles' difference
    if (t["pass"], t["draw"]) != big[t["frame"]][1:]:
        return fail(f"top change {t} is not the draw with the most fragments {big[t['frame']]}")
    lb = draws(long_)[(t["frame"], t["pass"], t["draw"])]["counters"]
    bb = draws(base)[(t["frame"], t["pass"], t["draw"])]["counters"]
    want_delta = sign * (lb["cycles"] - bb["cycles"])
    if t["delta"] != want_delta or (t["delta"] > 0) != (sign > 0):
        return fail(f"top delta {t['delta']}, the profiles differ by {want_delta}")
    # magnitude: at least one cycle per extra instruction spread over the 8
    # cores (as profile_check.py asks of the profile itself)
    if 8 * abs(t["delta"]) < lb["fs_instructions"] - bb["fs_instructions"] or \
            lb["fs_instructions"] < 8 * bb["fs_instructions"]:
        return fail(f"top delta {t['delta']} too small for {bb['fs_instructions']} -> "
                    f"{lb['fs_instructions']} fs instructions")
    # every frame's biggest gear is among the top changes, ahead of the small gears
    for fr, (_, p, d) in big.items():
        ranks = [i for i, x in enumerate(top) if (x["frame"], x["pass"], x["draw"]) == (fr, p, d)]
        if not ranks or ranks[0] >= len(big):
            return fail(f"frame {fr}'s big gear is not among the first {len(big)} changes")
    return True


def same(cmp):
    if cmp["verdict"] != "no change":
        return fail(f"verdict {cmp['verdict']}")
    if cmp["regressions"] or cmp["improvements"] or cmp["added"] or cmp["removed"]:
        return fail("changes listed for identical profiles")
    n = 0
    for fr in cmp["frames"]:
        for p in fr["passes"]:
            for d in p["draws"] + [{"counters": p["overhead"]}] + [p]:
                for name, c in d["counters"].items():
                    if c["delta"] != 0 or c["a"] != c["b"]:
                        return fail(f"frame {fr['frame']} {name}: {c}")
                n += 1
            if p["verdict"] != "no change":
                return fail(f"pass verdict {p['verdict']}")
    return n > 0 or fail("nothing compared")


def main():
    mode = sys.argv[1]
    cmp = load(sys.argv[2])
    if cmp.get("schema") != "tessera-compare-profile/1":
        return fail(f"schema {cmp.get('schema')}")
    if mode == "same":
        return same(cmp)
    base, long_ = load(sys.argv[3]), load(sys.argv[4])
    return override(cmp, base, long_, 1 if mode == "override" else -1)


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
