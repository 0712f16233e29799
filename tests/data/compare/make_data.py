#!/usr/bin/env python3
"""Writes the checked-in test data of tessera compare (run from this
directory: python3 make_data.py). PNGs are encoded here with zlib so the
fixtures do not depend on the libpng code under test; timing files are
drawn from fixed-seed distributions."""
import json
import math
import random
import struct
import zlib


def png(path, w, h, rows, color=2, depth=8):
    """rows: list of bytes per scanline (already packed, no filter byte)."""
    def chunk(tag, data):
        c = struct.pack(">I", len(data)) + tag + data
        return c + struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff)
    raw = b"".join(b"\0" + r for r in rows)
    data = (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    with open(path, "wb") as f:
        f.write(data)


def scene(w, h, bug=False):
    """A small 'render': gradient sky, a disc, a checker floor. bug=True
    shifts the disc's colour in a patch, as a shader bug would."""
    rows = []
    for y in range(h):
        r = bytearray()
        for x in range(w):
            if y > h * 2 // 3:
                c = (200, 200, 210) if ((x // 8) + (y // 8)) % 2 else (90, 90, 110)
            else:
                c = (40 + y, 80 + y // 2, 200)
            if (x - w // 2) ** 2 + (y - h // 2) ** 2 < (h // 4) ** 2:
                c = (230, 160, 40)
                if bug and x > w // 2 and y < h // 2:
                    c = (230, 120, 40)
            r += bytes(c)
        rows.append(bytes(r))
    return rows


def timing(path, frames, runs, scale, noise, seed, label):
    rnd = random.Random(seed)
    doc = {
        "schema": "tessera-timing/1",
        "meta": {"tool": "tessera replay", "trace": "triangle.trace",
                 "label": label, "device": "model", "loops": runs},
        "runs": [],
    }
    for run in range(runs):
        fr = []
        for f in range(frames):
            base = 2.0e6 + 4.0e5 * math.sin(f / 3.0)
            subs = []
            for s in range(2):
                g = base / 2 * scale * (1 + rnd.gauss(0, noise))
                subs.append({"index": s, "gpu_ns": round(g),
                             "cpu_ns": round(g * 0.15 + 20000)})
            fr.append({"frame": f,
                       "gpu_ns": sum(s["gpu_ns"] for s in subs),
                       "cpu_ns": sum(s["cpu_ns"] for s in subs),
                       "submissions": subs})
        doc["runs"].append({"run": run, "frames": fr})
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    w, h = 96, 64
    png("ref/scene.png", w, h, scene(w, h))
    png("ref/sub/clear.png", 16, 16, [bytes([10, 20, 30]) * 16] * 16)
    png("same/scene.png", w, h, scene(w, h))
    png("same/sub/clear.png", 16, 16, [bytes([10, 20, 30]) * 16] * 16)
    png("bug/scene.png", w, h, scene(w, h, bug=True))
    png("bug/sub/clear.png", 16, 16, [bytes([10, 20, 30]) * 16] * 16)
    png("small.png", 8, 8, [bytes([10, 20, 30]) * 8] * 8)
    good = open("ref/sub/clear.png", "rb").read()
    with open("corrupt.png", "wb") as f:   # valid header, damaged image data
        f.write(good[:45] + bytes(b ^ 0x5a for b in good[45:60]) + good[60:])
    timing("timing_ref.json", 12, 15, 1.00, 0.01, 1, "reference")
    timing("timing_slower.json", 12, 15, 1.10, 0.01, 2, "10% slower")
    timing("timing_noise.json", 12, 15, 1.00, 0.01, 3, "same, other seed")
