#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""png_colours.py PNG [STEP]: prints the number of distinct RGB colours of
an 8-bit RGB or RGBA PNG (every STEP-th pixel of each row; default 1).
A "does this frame show the scene" check for tests/gl/*.sh."""
import struct
import sys
import zlib


def colours(path, step=1):
    d = open(path, 'rb').read()
    p, raw = 8, b''
    while p < len(d):
        n, = struct.unpack('>I', d[p:p + 4])
        t = d[p + 4:p + 8]
        if t == b'IHDR':
            w, h, _, ct = struct.unpack('>IIBB', d[p + 8:p + 18])
        if t == b'IDAT':
            raw += d[p + 8:p + 8 + n]
        p += 12 + n
    bpp = {2: 3, 6: 4}[ct]
    raw = zlib.decompress(raw)
    st = w * bpp
    seen, prev, q = set(), bytearray(st), 0
    for _ in range(h):
        f = raw[q]
        line = bytearray(raw[q + 1:q + 1 + st])
        q += 1 + st
        for x in range(st):   # undo the row filter
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, st, bpp * step):
            seen.add(bytes(line[x:x + 3]))
        prev = line
    return len(seen)


if __name__ == '__main__':
    print(colours(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1))
