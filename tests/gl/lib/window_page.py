#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""window_page.py IMGDIR SHOT.png SKIP OUT_SHOT.png OUT_REPLAY.png

Finds, among a `tessera replay --per-submit --dump-images IMGDIR` run, the
last colour image of the browser window that holds the page of a headless
Chromium screenshot SHOT (same width, at least its height), and writes the
page's rows of both, from row SKIP down, as two PNGs of equal size for
`tessera compare images`.

Why the window and not the screenshot's own render: Chromium's headless
--screenshot reads the page back through its compositor; the frame the GPU
drew last is the browser window (tab strip and toolbar above the page), in
GL's bottom-up row order. The toolbar's drop shadow falls on the top rows of
the page in the window and not in the screenshot, hence SKIP. Exit 1 with a
message when no window image is found.
"""
import glob
import os
import struct
import sys
import zlib


def read_png(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError(f'{path}: not a PNG')
    pos, idat = 8, b''
    while pos < len(data):
        (length,) = struct.unpack('>I', data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
            if depth != 8 or ctype not in (2, 6) or body[12]:
                raise ValueError(f'{path}: only 8-bit RGB/RGBA, not interlaced')
        elif kind == b'IDAT':
            idat += body
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev, p = [], bytearray(stride), 0
    for _ in range(h):
        kind, line = raw[p], bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif kind == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(b''.join(bytes(line[i:i + 3]) for i in range(0, stride, bpp)))
        prev = line
    return w, h, rows


def write_png(path, w, rows):
    def chunk(kind, body):
        return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))
    raw = b''.join(b'\0' + r for r in rows)
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, len(rows), 8, 2, 0, 0, 0))
                + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))


def size_of(path):
    with open(path, 'rb') as f:
        head = f.read(24)
    return struct.unpack('>II', head[16:24])


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__.split('\n')[0])
    imgdir, shot_path, skip, out_shot, out_replay = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
    sw, sh, shot = read_png(shot_path)
    windows = [p for p in sorted(glob.glob(os.path.join(imgdir, '*color0.png')))
               if size_of(p)[0] == sw and size_of(p)[1] >= sh]
    if not windows:
        sys.exit(f'no {sw}-pixel-wide window image of at least {sh} rows in {imgdir}')
    ww, wh, window = read_png(windows[-1])
    window.reverse()                       # GL rows are bottom-up
    # The page is the window's bottom sh rows (the browser UI is above it).
    page = window[wh - sh:]
    write_png(out_shot, sw, shot[skip:])
    write_png(out_replay, sw, page[skip:])
    print(f'{os.path.basename(windows[-1])}: {ww}x{wh} window, page rows {wh - sh + skip}..{wh - 1}')


if __name__ == '__main__':
    main()
