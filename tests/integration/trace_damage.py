#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Corruption campaign over every command that reads a trace.

Run by tests/integration/trace_damage.sh. From a trace of the replay
tests' live program (replay_mktrace: it replays) and one of trace_mktest
(every record type), it makes damaged copies of each class below and runs
`tessera info`, `info --verify`, `dump`, `dump --no-streams` and `replay`
on each. Every command must exit 1 or 2 (never 0, never a signal or a
sanitizer report) with a message on stderr that names what is damaged:

  payload   a byte flipped in the payload of each chunk (first, middle,
            last byte), with the index and without it
  header    a byte flipped in the header of each chunk
  repeat    each data chunk repeated right after itself and at the end,
            with the index removed and with it left behind
  hdrcut    the file cut inside its header, at every length 0..31

and file cuts at and around every chunk boundary must never crash (a cut
is what a writer that died leaves: readable up to its last whole chunk).
Prints one line per failure and a summary; exits 1 on any failure.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

NAMES = re.compile(r"chunk|record|truncated header|empty file")
CRASH = re.compile(r"Sanitizer|runtime error|LeakSanitizer")


def chunks(data):
    """(offset, type, total length) of each whole chunk after the header."""
    out, off = [], 32
    while off + 40 <= len(data) and data[off:off + 4] == b"TSCK":
        ctype, = struct.unpack_from("<H", data, off + 4)
        stored, = struct.unpack_from("<I", data, off + 8)
        if off + 40 + stored > len(data):
            break
        out.append((off, ctype, 40 + stored))
        off += 40 + stored
    return out


def flip(data, at):
    d = bytearray(data)
    d[at] ^= 0x40
    return bytes(d)


def mutants(data):
    """Yields (name, bytes) for every damaged copy of `data`."""
    cs = chunks(data)
    data_chunks = [c for c in cs if c[1] != 3]
    data_end = data_chunks[-1][0] + data_chunks[-1][2]
    for i, (off, ctype, length) in enumerate(cs):
        for at in (off + 40, off + 40 + (length - 40) // 2, off + length - 1):
            yield "payload-c%d-at%d" % (i, at), flip(data, at)
            if ctype != 3:
                yield "payload-noindex-c%d-at%d" % (i, at), flip(data, at)[:data_end]
        for at in (off + 6, off + 9, off + 17, off + 30):
            yield "header-c%d-at%d" % (i, at), flip(data, at)
    for i, (off, ctype, length) in enumerate(data_chunks):
        copy = data[off:off + length]
        after = data[:off + length] + copy + data[off + length:]
        at_end = data[:data_end] + copy + data[data_end:]
        yield "repeat-next-c%d" % i, after[:data_end + length]
        yield "repeat-next-keepindex-c%d" % i, after
        yield "repeat-end-c%d" % i, at_end[:data_end + length]
        yield "repeat-end-keepindex-c%d" % i, at_end
    for n in range(32):
        yield "hdrcut-%d" % n, data[:n]


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stderr.decode(errors="replace")


def main():
    tessera, mktrace, mktest, decode_dir = sys.argv[1:5]
    tmp = tempfile.mkdtemp()
    failures = 0
    counts = {}
    found = {}
    try:
        rp = os.path.join(tmp, "replay.tsr")
        mt = os.path.join(tmp, "mktest.tsr")
        subprocess.run([mktrace, rp, "2"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([mktest, mt, decode_dir, "--frames", "3"], check=True,
                       stdout=subprocess.DEVNULL)
        for base, path in (("replay", rp), ("mktest", mt)):
            data = open(path, "rb").read()
            readers = [["info"], ["info", "--verify"], ["dump", "--no-disasm"],
                       ["dump", "--no-streams"]]
            if base == "replay":
                readers.append(["replay", "--quiet"])
            m = os.path.join(tmp, "m.tsr")
            for name, bad in mutants(data):
                cls = name.split("-")[0]
                with open(m, "wb") as f:
                    f.write(bad)
                for r in readers:
                    rc, err = run([tessera] + r + [m])
                    what = "%s/%s: tessera %s" % (base, name, " ".join(r))
                    counts[cls] = counts.get(cls, 0) + 1
                    if rc < 0 or rc >= 128 or CRASH.search(err):
                        print("FAIL %s: crashed (exit %d)\n%s" % (what, rc, err[-2000:]))
                        failures += 1
                    elif rc == 0:
                        print("FAIL %s: exit 0 on a damaged trace" % what)
                        failures += 1
                    elif not NAMES.search(err):
                        print("FAIL %s: exit %d, but stderr names nothing: %r" % (what, rc, err))
                        failures += 1
                    else:
                        msg = err.strip().splitlines()[-1] if err.strip() else ""
                        key = re.sub(r"[0-9]+", "N", msg.split(": ", 2)[-1])[:90]
                        found.setdefault(cls, set()).add(key)
            # Cuts at and around every chunk boundary: salvage, no crash.
            for off, _, length in chunks(data):
                for n in (off - 1, off, off + 1, off + 39, off + 40, off + length // 2):
                    if n < 32 or n > len(data):
                        continue
                    with open(m, "wb") as f:
                        f.write(data[:n])
                    for r in readers:
                        rc, err = run([tessera] + r + [m])
                        counts["cut"] = counts.get("cut", 0) + 1
                        if rc < 0 or rc >= 128 or CRASH.search(err):
                            print("FAIL %s/cut-%d: tessera %s crashed (exit %d)\n%s"
                                  % (base, n, " ".join(r), rc, err[-2000:]))
                            failures += 1
    finally:
        subprocess.run(["rm", "-rf", tmp])
    for cls in sorted(counts):
        print("%-8s %4d runs" % (cls, counts[cls]))
        for key in sorted(found.get(cls, ())):
            print("         %s" % key)
    print("trace_damage: %d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
