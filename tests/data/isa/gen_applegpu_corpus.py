#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates tests/data/isa/applegpu_corpus.txt: random AGX G13 encodings
disassembled by applegpu (github.com/dougallj/applegpu), an independent
decoder used as the oracle by tests/unit/test_isa_corpus.c.

applegpu's sources are not part of tessera; pass the directory holding a
checkout of it (applegpu.py).  The corpus in the tree was made from commit
4c5bae61086b8067231120c98b4756d7696d399c (recorded in its header; from a
directory that is not a git checkout set APPLEGPU_COMMIT).  The corpus is generated once and committed;
re-run only to widen it, with the same seed to keep existing lines stable.

    python3 tests/data/isa/gen_applegpu_corpus.py /path/to/applegpu \
        > tests/data/isa/applegpu_corpus.txt

For every instruction descriptor of applegpu (in its decode order) the
script draws random bit strings, forces the descriptor's constant bits,
clears the bits no field of that descriptor covers (tessera prints such
instructions as raw .word lines, so they would compare nothing), and keeps
the encoding only if applegpu's own disassembler (first match in
instruction_descriptors, as disassemble.py does) picks that descriptor.
The text is applegpu's disassembly with `pc` set, so branch targets print
in its absolute form (0x..., 0x-... when negative).

Output: '#' comment lines, then one line per encoding:
    <pc hex>\t<bytes hex>\t<applegpu descriptor name>\t<applegpu text>
Python 3 standard library only (plus applegpu itself).
"""
import contextlib
import io
import os
import random
import subprocess
import sys

PER_DESCRIPTOR = 48
SEED = 13
# pc values of the encodings: 0 (applegpu's disassemble.py default, where
# backward branches print as 0x-...), a page and a 40-bit GPU address.
PCS = (0, 0x10000, 0x15_0000_0000)


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: gen_applegpu_corpus.py APPLEGPU_DIR')
    src = sys.argv[1]
    sys.path.insert(0, src)
    import applegpu  # noqa: E402  (from the directory given)

    try:
        commit = subprocess.run(['git', '-C', src, 'rev-parse', 'HEAD'],
                                capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = os.environ.get('APPLEGPU_COMMIT', 'unknown')

    rng = random.Random(SEED)
    descs = applegpu.instruction_descriptors
    out = sys.stdout
    out.write('# Random AGX G13 encodings disassembled by applegpu.\n')
    out.write('# generator: tests/data/isa/gen_applegpu_corpus.py '
              '(seed %d, %d per descriptor)\n' % (SEED, PER_DESCRIPTOR))
    out.write('# applegpu commit: %s\n' % commit)
    out.write('# The text column is output of applegpu\'s disassembler '
              '(BSD-3-Clause, Copyright (c) 2021 Dougall Johnson);\n'
              '# no applegpu code is in tessera.\n')
    out.write('# pc<TAB>bytes<TAB>applegpu descriptor<TAB>applegpu text\n')
    for di, o in enumerate(descs):
        maxlen = o.sizes[1]
        kept = 0
        tries = 0
        seen = set()
        while kept < PER_DESCRIPTOR and tries < PER_DESCRIPTOR * 200:
            tries += 1
            n = rng.getrandbits(maxlen * 8)
            n = (n & ~o.mask) | o.bits
            if not o.matches(n):
                continue
            n &= ~o.decode_remainder(n)
            first = next((d for d in descs if d.matches(n)), None)
            if first is not o:
                continue
            length = o.decode_size(n)
            n &= (1 << (8 * length)) - 1
            if n in seen:
                continue
            pc = PCS[kept % len(PCS)]
            sink = io.StringIO()
            try:
                with contextlib.redirect_stdout(sink):
                    text = str(o.disassemble(n, pc=pc))
            except Exception:  # applegpu asserts on some undefined encodings
                continue
            if sink.getvalue():  # applegpu printed "TODO: ..." for it
                continue
            seen.add(n)
            kept += 1
            out.write('%x\t%s\t%s\t%s\n' % (pc, n.to_bytes(length, 'little').hex(),
                                            o.name, text.rstrip()))


if __name__ == '__main__':
    main()
