#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of tests/gl/profile.sh on two `tessera profile --json` documents
(schema tessera-profile/1, docs/profiling.md): BASE without and LONG with
the fragment shader made ~10x longer.

  profile_check.py sums BASE LONG       exact sums in both
  profile_check.py override BASE LONG   the long shader's effect
  profile_check.py minetest JSON FRAMES (tests/gl/asahi_profile_minetest.sh)
      exact sums; the frames FRAMES (e.g. 38-39) each with one 640x480
      render pass of many draws, most of them drawing; the top entry a
      draw of a profiled frame with a fragment shader, its cycles the
      draw's; textured draws fetch R8G8B8A8 unorm texels, nearest-filtered
      (minetest's defaults: no filtering, no mipmaps)
"""
import json
import sys


def load(path):
    with open(path) as f:
        d = json.load(f)
    assert d["schema"] == "tessera-profile/1", d["schema"]
    return d


def sums(d):
    names = d["meta"]["counters"]
    for fr in d["frames"]:
        ftot = {n: 0 for n in names}
        for p in fr["passes"]:
            ents = p["draws"] if p["kind"] == "render" else p["dispatches"]
            for n in names:
                s = p["overhead"]["counters"][n] + sum(e["counters"][n] for e in ents)
                if s != p["counters"][n]:
                    print(f"frame {fr['frame']} pass {p['index']}: {n} entries sum to {s}, "
                          f"the pass has {p['counters'][n]}")
                    return False
                ftot[n] += p["counters"][n]
            if p["cycles"] != p["counters"]["cycles"]:
                return False
            if p["kind"] == "render" and p["counters"]["partial_renders"] != p["partial_renders"]:
                print(f"frame {fr['frame']} pass {p['index']}: {p['partial_renders']} partial "
                      f"renders, the counters say {p['counters']['partial_renders']}")
                return False
            for e in ents + [p["overhead"]]:
                c = e["counters"]
                if c["cycles"] != c["vertex_cycles"] + c["fragment_cycles"] and p["kind"] == "render":
                    print("cycles != vertex + fragment")
                    return False
            # Per draw, fragment-shader work needs shaded fragments (the
            # overhead's background and end-of-tile programs have none), and
            # HSR-hidden samples are a part of the samples that passed.
            for e in ents if p["kind"] == "render" else []:
                c = e["counters"]
                if not c["fragments"] and (c["tex_fetches"] or c["fs_instructions"] or
                                           c["tb_loads"] or c["tb_stores"]):
                    print(f"frame {fr['frame']} pass {p['index']} draw {e['index']}: "
                          f"fragment-shader work without fragments: {c}")
                    return False
                tex = sum(v for n, v in c.items() if n.startswith("tex_") and n != "tex_fetches")
                fmts = sum(e["tex_formats"].values())
                if tex != c["tex_fetches"] or fmts != c["tex_fetches"]:
                    print(f"frame {fr['frame']} pass {p['index']} draw {e['index']}: "
                          f"{c['tex_fetches']} texture fetches, {tex} by filter, {fmts} by format")
                    return False
                if c["samples_hsr_hidden"] > c["samples_passed"]:
                    print(f"frame {fr['frame']} pass {p['index']} draw {e['index']}: "
                          f"more HSR-hidden samples than passed: {c}")
                    return False
        if ftot != fr["counters"] or fr["cycles"] != ftot["cycles"]:
            print(f"frame {fr['frame']}: not the sum of its passes")
            return False
    return bool(d["frames"])


def render_passes(d):
    return [(fr["frame"], p) for fr in d["frames"] for p in fr["passes"] if p["kind"] == "render"]


def override(base, long):
    b, l = render_passes(base), render_passes(long)
    if len(b) != len(l) or not b:
        print("different passes")
        return False
    for (f, pb), (_, pl) in zip(b, l):
        db, dl = pb["draws"], pl["draws"]
        if len(db) != len(dl):
            return False
        shaded = [i for i, e in enumerate(dl) if e["counters"]["fragments"]]
        most = max(shaded, key=lambda i: (dl[i]["counters"]["fragments"], -i))
        top = max(range(len(dl)), key=lambda i: (dl[i]["counters"]["cycles"], -i))
        if top != most:
            print(f"frame {f}: most expensive draw {top}, most fragments {most}")
            return False
        for i in shaded:
            cb, cl = db[i]["counters"], dl[i]["counters"]
            if cl["fs_instructions"] < 8 * cb["fs_instructions"]:
                print(f"frame {f} draw {i}: fs_instructions {cb['fs_instructions']} -> "
                      f"{cl['fs_instructions']}")
                return False
            # Fragment work grows by at least one cycle per extra instruction
            # spread over the 8 cores (what the pass span can shrink it to).
            extra = cl["fs_instructions"] - cb["fs_instructions"]
            grow = cl["fragment_cycles"] - cb["fragment_cycles"]
            if grow * 8 < extra or cl["cycles"] <= cb["cycles"]:
                print(f"frame {f} draw {i}: fragment cycles {cb['fragment_cycles']} -> "
                      f"{cl['fragment_cycles']} for {extra} more instructions")
                return False
            if cl["fragments"] != cb["fragments"] or cl["vertices"] != cb["vertices"]:
                print(f"frame {f} draw {i}: the work changed")
                return False
            print(f"frame {f} draw {i}: {cb['cycles']} -> {cl['cycles']} cycles "
                  f"({cl['cycles'] / cb['cycles']:.2f}x), fs instructions "
                  f"{cb['fs_instructions']} -> {cl['fs_instructions']}")
        # the draws take a larger share of the pass
        if pl["cycles"] <= pb["cycles"]:
            return False
    return True


def minetest(d, frames):
    if not sums(d):
        return False
    a, b = (int(x) for x in frames.split("-"))
    got = [fr["frame"] for fr in d["frames"]]
    if got != list(range(a, b + 1)):
        print(f"frames {got}, want {a}-{b}")
        return False
    for fr in d["frames"]:
        ps = fr["passes"]
        # one render pass a frame: the replay's earlier frames (replayed to
        # reach frame A) must not leak into it
        if len(ps) != 1 or ps[0]["kind"] != "render" or (ps[0]["width"], ps[0]["height"]) != (640, 480):
            print(f"frame {fr['frame']}: passes {[(p['kind'], p.get('width'), p.get('height')) for p in ps]}")
            return False
        draws = ps[0]["draws"]
        drawing = [e for e in draws if e["counters"]["fragments"]]
        if len(draws) < 100 or len(drawing) < 50:
            print(f"frame {fr['frame']}: {len(draws)} draws, {len(drawing)} with fragments")
            return False
        textured = [e for e in draws if e["counters"]["tex_fetches"]]
        if len(textured) < 20:
            print(f"frame {fr['frame']}: {len(textured)} textured draws")
            return False
        for e in textured:
            c = e["counters"]
            if c["tex_nearest"] != c["tex_fetches"] or list(e["tex_formats"]) != ["R8G8B8A8 Unorm"]:
                print(f"frame {fr['frame']} draw {e['index']}: {c['tex_fetches']} fetches, "
                      f"{c['tex_nearest']} nearest, formats {e['tex_formats']}")
                return False
    t = d["top"][0]
    fr = next(f for f in d["frames"] if f["frame"] == t["frame"])
    e = fr["passes"][t["pass"]]["draws"][t["draw"]]
    if t["fs"] == "0x0" or e["fs"] != t["fs"] or e["counters"]["cycles"] != t["cycles"]:
        print(f"top entry {t} against the draw {e['fs']} {e['counters']['cycles']}")
        return False
    if max(x["counters"]["cycles"] for f in d["frames"] for x in f["passes"][0]["draws"]) != t["cycles"]:
        print("the top entry is not the most expensive draw")
        return False
    return True


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("sums", "override", "minetest"):
        print(__doc__)
        return 2
    if sys.argv[1] == "minetest":
        return 0 if minetest(load(sys.argv[2]), sys.argv[3]) else 1
    base, long = load(sys.argv[2]), load(sys.argv[3])
    if sys.argv[1] == "sums":
        ok = sums(base) and sums(long)
    else:
        ok = override(base, long)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
