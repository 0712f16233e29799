#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of tests/gl/profile.sh on the page of `tessera profile --html`:
the DOM headless Chromium dumped after the page's script ran, against the
`tessera profile --json` document of the same profile.

  profile_html_check.py JSON DOM INDEX
      DOM is the page opened as index.html#frame=INDEX (the page picks that
      frame through its frame picker; INDEX -1: opened without a fragment,
      which shows the first frame). Checks that the script ran without
      error, that the pass view shows frame INDEX with every bar and
      counter cell equal to the JSON's, the timeline and the top list.
"""
import json
import sys
from html.parser import HTMLParser

VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "wbr", "source"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children, self.text = [], ""

    def all(self):
        yield self
        for c in self.children:
            yield from c.all()

    def find(self, pred):
        return [n for n in self.all() if pred(n)]

    def content(self):
        return self.text + "".join(c.content() for c in self.children)


class Tree(HTMLParser):
    def __init__(self):
        super().__init__()
        self.root = Node("#root", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text += data


errors = []


def expect(what, got, want):
    if str(got) != str(want):
        errors.append(f"{what}: page shows {got!r}, JSON has {want!r}")


def main():
    d = json.load(open(sys.argv[1]))
    t = Tree()
    t.feed(open(sys.argv[2]).read())
    index = int(sys.argv[3])
    root = t.root
    body = root.find(lambda n: n.tag == "body")
    if not body or body[0].attrs.get("data-ready") != "1" or "data-error" in body[0].attrs:
        print("the page's script did not finish:", body and body[0].attrs.get("data-error"))
        return False
    fi = max(index, 0)
    fr = d["frames"][fi]
    opts = root.find(lambda n: n.tag == "option")
    expect("frame picker options", [o.content() for o in opts], [str(f["frame"]) for f in d["frames"]])
    view = root.find(lambda n: n.attrs.get("id") == "view")[0]
    expect("picked frame", view.attrs.get("data-frame"), fr["frame"])
    passes = view.find(lambda n: n.tag == "div" and "pass" in n.attrs.get("class", "").split())
    expect("passes", len(passes), len(fr["passes"]))
    for pv, p in zip(passes, fr["passes"]):
        where = f"frame {fr['frame']} pass {p['index']}"
        ents = p["draws"] if p["kind"] == "render" else p["dispatches"]
        want = {str(e["index"]): e for e in ents}
        want["overhead"] = p["overhead"]
        # bars: one per entry and the overhead, sorted by cycles
        rects = pv.find(lambda n: n.tag == "rect" and "data-entry" in n.attrs)
        vals = {n.attrs["data-entry"]: n.content() for n in pv.find(lambda n: "bar-value" in n.attrs.get("class", ""))}
        expect(where + " bars", sorted(r.attrs["data-entry"] for r in rects), sorted(want))
        cyc = [int(r.attrs["data-cycles"]) for r in rects]
        if cyc != sorted(cyc, reverse=True):
            errors.append(where + ": bars not sorted by cycles")
        for r in rects:
            k = r.attrs["data-entry"]
            if k in want:
                expect(f"{where} bar {k}", r.attrs["data-cycles"], want[k]["counters"]["cycles"])
                expect(f"{where} bar label {k}", vals.get(k), want[k]["counters"]["cycles"])
        # the counter table: every cell equals the JSON's counter
        rows = pv.find(lambda n: n.tag == "tr" and "data-entry" in n.attrs)
        expect(where + " table rows", [r.attrs["data-entry"] for r in rows], [str(e["index"]) for e in ents] + ["overhead", "total"])
        ncells = 0
        for r in rows:
            k = r.attrs["data-entry"]
            c = p["counters"] if k == "total" else want.get(k, {}).get("counters", {})
            for td in r.find(lambda n: n.tag == "td" and "data-counter" in n.attrs):
                expect(f"{where} row {k} {td.attrs['data-counter']}", td.content(), c.get(td.attrs["data-counter"]))
                ncells += 1
            # render entries: their texture formats as "FORMAT n, ..."
            for td in r.find(lambda n: n.tag == "td" and n.attrs.get("data-k") == "tex_formats"):
                tf = {} if k == "total" else want.get(k, {}).get("tex_formats", {})
                expect(f"{where} row {k} texture formats", td.content(),
                       ", ".join(f"{n} {v}" for n, v in tf.items()))
        if ncells < len(rows) * 10:
            errors.append(f"{where}: only {ncells} counter cells")
    # the timeline: a bar per frame, a segment per pass
    frames = root.find(lambda n: n.tag == "g" and n.attrs.get("class") == "tl-frame")
    expect("timeline frames", [g.attrs["data-frame"] for g in frames], [str(f["frame"]) for f in d["frames"]])
    for g, f in zip(frames, d["frames"]):
        expect(f"timeline frame {f['frame']}", g.attrs["data-cycles"], f["cycles"])
        segs = [(r.attrs["data-pass"], r.attrs["data-cycles"]) for r in g.find(lambda n: n.tag == "rect")]
        expect(f"timeline frame {f['frame']} passes", segs, [(str(p["index"]), str(p["cycles"])) for p in f["passes"]])
    # the top list, with the shader addresses
    trs = root.find(lambda n: n.tag == "tr" and "data-rank" in n.attrs)
    expect("top entries", len(trs), len(d["top"]))
    for tr, e in zip(trs, d["top"]):
        cells = {td.attrs["data-k"]: td.content() for td in tr.find(lambda n: n.tag == "td")}
        ent = ("draw %d" % e["draw"]) if "draw" in e else ("dispatch %d" % e["dispatch"])
        for k, v in (("frame", e["frame"]), ("pass", e["pass"]), ("entry", ent),
                     ("cycles", e["cycles"]), ("vs", e["vs"]), ("fs", e["fs"])):
            expect(f"top {tr.attrs['data-rank']} {k}", cells.get(k), v)
    for e in errors[:20]:
        print(e)
    return not errors


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
