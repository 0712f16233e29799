#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate C pack/unpack/print code from a tessera format XML file.

    python3 agx_gen_pack.py FORMATS.xml --header OUT.h --source OUT.c
                            [--vectors OUT_vectors.h --table NAME]
                            [--include PATH]

The header holds one struct per <struct> with static inline pack/unpack
(hot paths: the GPU model unpacks every block it executes); the source holds
print, validate and enum-name functions. The optional vectors header holds
test vectors computed here, independently of the C code: for every struct and
every view, field values that differ from the defaults and the bytes they must
pack to, plus overflow and unknown-bit cases. The schema is documented in
docs/formats.md. Python 3 standard library only.
"""

import argparse
import os
import re
import struct as pystruct
import sys
import xml.etree.ElementTree as ET

TYPES_BUILTIN = ("uint", "int", "bool", "hex", "float", "address", "lod")


class FormatError(Exception):
    pass


def ident(name):
    """'Start (halfs)' -> 'start_halfs'; leading digits get an underscore."""
    s = re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower()
    if not s:
        raise FormatError("name %r has no identifier characters" % name)
    if s[0].isdigit():
        s = "_" + s
    return s


def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def mask(bits):
    return (1 << bits) - 1


class Enum:
    def __init__(self, node):
        self.name = node.get("name")
        self.c = "agx_" + ident(self.name)
        self.values = []
        seen = set()
        for v in node.findall("value"):
            vname = v.get("name")
            val = int(v.get("value"), 0)
            if vname in seen:
                raise FormatError("enum %s: duplicate value name %s" % (self.name, vname))
            seen.add(vname)
            cname = (self.c + "_" + ident(vname).lstrip("_")).upper()
            self.values.append((vname, val, cname))
        if not self.values:
            raise FormatError("enum %s has no values" % self.name)
        # lengths="true": every value tags one struct (a const field of this
        # enum); emit <enum>_length(value) -> that struct's size.
        self.lengths = node.get("lengths") == "true"
        self.length_of = {}

    def lookup(self, name):
        for vname, val, cname in self.values:
            if vname.lower() == name.lower():
                return val, cname
        raise FormatError("enum %s has no value %r" % (self.name, name))

    def by_value(self, val):
        for vname, v, cname in self.values:
            if v == val:
                return cname
        return None


class Modifier:
    def __init__(self, text, where):
        self.kind = None
        self.n = 0
        if not text:
            return
        m = re.fullmatch(r"\s*(minus|shr|groups)\((\d+)\)\s*|\s*(log2)\s*", text)
        if not m:
            raise FormatError("%s: bad modifier %r" % (where, text))
        if m.group(3):
            self.kind = "log2"
        else:
            self.kind = m.group(1)
            self.n = int(m.group(2))
            if self.kind == "groups" and self.n == 0:
                raise FormatError("%s: groups(0)" % where)

    def __str__(self):
        if self.kind is None:
            return ""
        return "log2" if self.kind == "log2" else "%s(%d)" % (self.kind, self.n)


class Field:
    def __init__(self, node, st, formats):
        self.name = node.get("name")
        where = "%s.%s" % (st.name, self.name)
        self.where = where
        self.c = ident(self.name)
        at = node.get("at")
        if at is None or node.get("width") is None:
            raise FormatError("%s: needs at= and width=" % where)
        if ":" in at:
            word, bit = at.split(":")
            self.start = int(word, 0) * 32 + int(bit, 0)
        else:
            self.start = int(at, 0)
        self.width = int(node.get("width"), 0)
        self.end = self.start + self.width - 1
        self.type = node.get("type")
        self.mod = Modifier(node.get("mod"), where)
        self.view = node.get("view")
        self.enum = None
        if self.type not in TYPES_BUILTIN:
            if self.type not in formats.enums:
                raise FormatError("%s: unknown type %r" % (where, self.type))
            self.enum = formats.enums[self.type]
        if self.width < 1 or self.width > 64:
            raise FormatError("%s: width %d out of 1..64" % (where, self.width))
        if self.end >= st.size * 8:
            raise FormatError("%s: bits %d..%d outside %d-byte struct" %
                              (where, self.start, self.end, st.size))
        if self.mod.kind and self.type not in ("uint", "hex", "address"):
            raise FormatError("%s: modifiers apply to uint/hex/address only" % where)
        if self.type == "float" and self.width != 32:
            raise FormatError("%s: float fields are 32 bits" % where)
        if self.type == "lod" and self.width > 16:
            raise FormatError("%s: lod fields are at most 16 bits" % where)
        if self.type == "bool" and self.width != 1:
            raise FormatError("%s: bool fields are 1 bit" % where)
        if self.mod.kind == "log2" and self.width > 6:
            raise FormatError("%s: log2 fields are at most 6 bits" % where)
        self.const = None
        if node.get("const") is not None:
            self.const = self.parse_value(node.get("const"))
            if node.get("default") is not None:
                raise FormatError("%s: const and default together" % where)
        self.default = self.parse_value(node.get("default")) if node.get("default") is not None else None
        self.ctype, self.bits64 = self.c_type()
        if self.const is not None:
            self.const_enc = self.encode(self.const)
        self.default_enc = self.encode(self.default if self.default is not None else self.zero())

    # Logical (C-side) value helpers -------------------------------------

    def zero(self):
        if self.type in ("float", "lod"):
            return 0.0
        if self.type == "bool":
            return False
        if self.enum:
            return 0
        return 0

    def parse_value(self, text):
        t = self.type
        if self.enum:
            # Value names win over numbers: enum "Provoking Vertex" names its
            # values "0".."2" with encodings 1..3.
            try:
                return self.enum.lookup(text)[0]
            except FormatError:
                return int(text, 0)
        if t == "bool":
            if text.lower() in ("true", "1"):
                return True
            if text.lower() in ("false", "0"):
                return False
            raise FormatError("%s: bad bool %r" % (self.where, text))
        if t in ("float", "lod"):
            return float(text)
        return int(text, 0)

    def logical_bits(self):
        w, m = self.width, self.mod
        if self.type == "address":
            return 64
        if m.kind == "minus":
            return max(w, (mask(w) + m.n).bit_length())
        if m.kind == "shr":
            return w + m.n
        if m.kind == "groups":
            return ((1 << w) * m.n).bit_length()
        if m.kind == "log2":
            return mask(w) + 1
        return w

    def c_type(self):
        t = self.type
        if self.enum:
            return "enum " + self.enum.c, False
        if t == "bool":
            return "bool", False
        if t in ("float", "lod"):
            return "float", False
        if t == "int":
            return ("int64_t", True) if self.width > 32 else ("int32_t", False)
        if self.logical_bits() > 32:
            return "uint64_t", True
        return "uint32_t", False

    def c_max(self):
        if self.ctype == "uint32_t":
            return mask(32)
        if self.ctype == "uint64_t":
            return mask(64)
        if self.enum:
            return mask(32)
        return None

    def encode(self, v):
        """Python model of the C pack for one field; raises on misfit."""
        w, m, t = self.width, self.mod, self.type
        if t == "bool":
            e = 1 if v else 0
        elif t == "float":
            e = pystruct.unpack("<I", pystruct.pack("<f", v))[0]
        elif t == "lod":
            hi = mask(w) / 64.0
            f = 0.0 if not (v > 0) else min(v, hi)
            e = int(f * 64.0 + 0.5)
        elif t == "int":
            lo, hi = -(1 << (w - 1)), mask(w - 1)
            if v < lo or v > hi:
                raise FormatError("%s: %d out of range" % (self.where, v))
            e = v & mask(w)
        else:
            v = int(v)
            if m.kind == "minus":
                if v < m.n:
                    raise FormatError("%s: %d below minus(%d)" % (self.where, v, m.n))
                e = v - m.n
            elif m.kind == "shr":
                if v & mask(m.n):
                    raise FormatError("%s: %#x loses bits to shr(%d)" % (self.where, v, m.n))
                e = v >> m.n
            elif m.kind == "groups":
                e = 1 if v == 0 else (v + m.n - 1) // m.n
                if e == (1 << w):
                    e = 0
            elif m.kind == "log2":
                if v <= 0 or v & (v - 1):
                    raise FormatError("%s: %d not a power of two" % (self.where, v))
                e = v.bit_length() - 1
            else:
                e = v
        if e < 0 or e > mask(w):
            raise FormatError("%s: value %r does not fit %d bits" % (self.where, v, w))
        return e

    def decode(self, e):
        w, m, t = self.width, self.mod, self.type
        if t == "bool":
            return e != 0
        if t == "float":
            return pystruct.unpack("<f", pystruct.pack("<I", e))[0]
        if t == "lod":
            return e / 64.0
        if t == "int":
            return e - (1 << w) if e >> (w - 1) else e
        if m.kind == "minus":
            return e + m.n
        if m.kind == "shr":
            return e << m.n
        if m.kind == "groups":
            return ((1 << w) if e == 0 else e) * m.n
        if m.kind == "log2":
            return 1 << e
        return e

    def c_literal(self, v):
        if self.enum:
            cname = self.enum.by_value(v)
            return cname if cname else "(%s)%#x" % (self.ctype, v)
        if self.type == "bool":
            return "true" if v else "false"
        if self.type in ("float", "lod"):
            r = repr(float(v))
            if r in ("inf", "-inf", "nan"):
                raise FormatError("%s: non-finite literal" % self.where)
            return r + "f"
        if self.type == "int":
            return "%d" % v if v >= -(1 << 31) else "INT64_C(%d)" % v
        return "%#xu" % v if v <= mask(32) else "UINT64_C(%#x)" % v

    def pieces(self):
        """(word, bit_in_word, nbits, shift_in_value) covering the field."""
        out = []
        bit = self.start
        while bit <= self.end:
            word, lo = divmod(bit, 32)
            n = min(32 - lo, self.end - bit + 1)
            out.append((word, lo, n, bit - self.start))
            bit += n
        return out

    def word_masks(self, nwords, value=None):
        masks = [0] * nwords
        vals = [0] * nwords
        for word, lo, n, sh in self.pieces():
            masks[word] |= mask(n) << lo
            if value is not None:
                vals[word] |= ((value >> sh) & mask(n)) << lo
        return masks, vals


class Struct:
    def __init__(self, node, formats):
        self.name = node.get("name")
        self.c = "agx_" + ident(self.name)
        self.C = self.c.upper()
        size = node.get("size")
        if size is None:
            raise FormatError("struct %s: needs size=" % self.name)
        self.size = int(size, 0)
        self.nwords = (self.size + 3) // 4
        self.fields = [Field(f, self, formats) for f in node.findall("field")]
        names = set()
        for f in self.fields:
            if f.c in names:
                raise FormatError("%s: duplicate field %s" % (self.name, f.name))
            names.add(f.c)
        # Overlap is allowed only between different views.
        for i, a in enumerate(self.fields):
            for b in self.fields[i + 1:]:
                if a.start <= b.end and b.start <= a.end:
                    if a.view is None or b.view is None or a.view == b.view:
                        raise FormatError("%s: fields %s and %s overlap" %
                                          (self.name, a.name, b.name))
        for f in self.fields:
            if f.view and f.default_enc != 0:
                raise FormatError("%s: view field defaults must encode to 0" % f.where)
        self.members = [f for f in self.fields if f.const is None]
        self.views = sorted({f.view for f in self.fields if f.view})
        self.known = [0] * self.nwords
        self.const_mask = [0] * self.nwords
        self.const_val = [0] * self.nwords
        for f in self.fields:
            m, v = f.word_masks(self.nwords, f.const_enc if f.const is not None else None)
            for i in range(self.nwords):
                self.known[i] |= m[i]
                if f.const is not None:
                    self.const_mask[i] |= m[i]
                    self.const_val[i] |= v[i]
        # Bits past the end of a 2- or 6-byte struct are not "unknown".
        self.valid = [mask(32)] * self.nwords
        if self.size % 4:
            self.valid[-1] = mask(8 * (self.size % 4))

    def pack_words(self, values):
        """Python pack: values maps field c-name -> logical value."""
        w = list(self.const_val)
        for f in self.members:
            v = values.get(f.c, f.default if f.default is not None else f.zero())
            m, vals = f.word_masks(self.nwords, f.encode(v))
            for i in range(self.nwords):
                w[i] |= vals[i]
        return w

    def to_bytes(self, words):
        b = b"".join(pystruct.pack("<I", x) for x in words)
        return b[: self.size]


class Formats:
    def __init__(self, path):
        root = ET.parse(path).getroot()
        if root.tag != "formats":
            raise FormatError("%s: root element must be <formats>" % path)
        self.enums = {}
        self.enum_list = []
        self.structs = []
        for node in root:
            if node.tag == "enum":
                e = Enum(node)
                if e.name in self.enums:
                    raise FormatError("duplicate enum %s" % e.name)
                self.enums[e.name] = e
                self.enum_list.append(e)
            elif node.tag == "struct":
                s = Struct(node, self)
                if any(x.c == s.c for x in self.structs):
                    raise FormatError("duplicate struct %s" % s.name)
                self.structs.append(s)
            else:
                raise FormatError("unexpected element <%s>" % node.tag)
        for e in self.enum_list:
            if e.lengths:
                self.tag_lengths(e)

    def tag_lengths(self, e):
        """The struct each value of a lengths="true" enum tags: exactly one."""
        for s in self.structs:
            for f in s.fields:
                if f.enum is e and f.const is not None:
                    cname = e.by_value(f.const)
                    if cname in e.length_of:
                        raise FormatError("enum %s: %s tags both %s and %s" %
                                          (e.name, cname, e.length_of[cname].name, s.name))
                    e.length_of[cname] = s
        for vname, val, cname in e.values:
            if cname not in e.length_of:
                raise FormatError("enum %s: no struct is tagged %s" % (e.name, vname))


# ---------------------------------------------------------------- header

def emit_header(fm, out, guard, src_name):
    o = out.append
    o("/* Generated by cmdstream/agx_gen_pack.py from %s. Do not edit. */" % src_name)
    o("#ifndef %s" % guard)
    o("#define %s" % guard)
    o("")
    o('#include "cmdstream/agx_pack_support.h"')
    o("")
    for e in fm.enum_list:
        o("enum %s {" % e.c)
        for vname, val, cname in e.values:
            o("   %s = %#x," % (cname, val))
        o("};")
        o("const char *%s_as_str(enum %s value);" % (e.c, e.c))
        o("")
    for s in fm.structs:
        emit_struct_decls(s, o)
    for e in fm.enum_list:
        if e.lengths:
            emit_lengths(e, o)
    o("#endif")


def emit_lengths(e, o):
    o("/* Bytes of the struct each %s value tags; 0 for a value the enum does" % e.name)
    o(" * not define (the hardware's stream cannot be followed past it). */")
    o("static inline unsigned")
    o("%s_length(uint32_t value)" % e.c)
    o("{")
    o("   switch (value) {")
    for vname, val, cname in e.values:
        o("   case %s: return %s_LENGTH;" % (cname, e.length_of[cname].C))
    o("   default: return 0;")
    o("   }")
    o("}")
    o("")


def emit_struct_decls(s, o):
    C, c = s.C, s.c
    o("/* %s: %d bytes */" % (s.name, s.size))
    o("#define %s_LENGTH %d" % (C, s.size))
    o("struct %s_packed { uint8_t opaque[%d]; };" % (c, s.size))
    o("struct %s {" % c)
    for f in s.members:
        note = "bits %d..%d" % (f.start, f.end)
        if f.mod.kind:
            note += ", " + str(f.mod)
        if f.view:
            note += ", view " + f.view
        o("   %s %s; /* %s */" % (f.ctype, f.c, note))
    if not s.members:
        o("   uint8_t reserved_; /* no variable fields */")
    o("};")
    inits = []
    for f in s.members:
        if f.default is not None and f.default != f.zero():
            inits.append(".%s = %s" % (f.c, f.c_literal(f.default)))
    o("#define %s_HEADER %s" % (C, ", ".join(inits) if inits else "0"))
    o("#define %s_T struct %s" % (C, c))
    for fn in ("pack", "pack_checked", "unpack", "print", "validate", "dump"):
        o("#define %s_%s %s_%s" % (C, fn, c, fn))
    o("")
    emit_pack(s, o)
    emit_unpack(s, o)
    o("void %s_print(FILE *fp, const struct %s *v, int indent);" % (c, c))
    o("bool %s_validate(FILE *fp, const void *src, int indent);" % c)
    o("bool %s_dump(FILE *fp, const void *src, int indent);" % c)
    o("")


def emit_pack(s, o):
    c = s.c
    o("static inline bool")
    o("%s_pack_checked(void *restrict dst, const struct %s *restrict v," % (c, c))
    o("   %sstruct agx_pack_error *err)" % (" " * len(c)))
    o("{")
    o("   uint32_t w[%d] = { %s };" % (s.nwords, ", ".join("%#xu" % x for x in s.const_val)))
    if s.members:
        o("   uint64_t e;")
    o("")
    sn = cstr(s.name)
    for f in s.members:
        fn = cstr(f.name)
        val = "v->" + f.c
        t, m = f.type, f.mod
        if t == "bool":
            o("   e = %s ? 1u : 0u;" % val)
        elif t == "float":
            o("   e = tessera_fui(%s);" % val)
        elif t == "lod":
            o("   e = agx_pack_lod(%s, %d);" % (val, f.width))
        elif t == "int":
            lo, hi = -(1 << (f.width - 1)), mask(f.width - 1)
            if f.width < (64 if f.bits64 else 32):
                o("   if (%s < %s || %s > %s)" % (val, f.c_literal(lo), val, f.c_literal(hi)))
                o("      return agx_pack_err_srange(err, %s, %s, %s, %d);" % (sn, fn, val, f.width))
            o("   e = (uint64_t)%s & %#xull;" % (val, mask(f.width)))
        elif f.enum:
            o("   e = (uint32_t)%s;" % val)
        elif m.kind == "minus":
            o("   if (%s < %du)" % (val, m.n))
            o("      return agx_pack_err_below(err, %s, %s, %s, %d);" % (sn, fn, val, m.n))
            o("   e = (uint64_t)%s - %du;" % (val, m.n))
        elif m.kind == "shr":
            o("   if (%s & %#xull)" % (val, mask(m.n)))
            o("      return agx_pack_err_align(err, %s, %s, %s, %d);" % (sn, fn, val, m.n))
            o("   e = (uint64_t)%s >> %d;" % (val, m.n))
        elif m.kind == "groups":
            # Zero groups cannot be encoded: round up to one. The all-ones+1
            # count encodes as 0 ("all").
            o("   e = %s == 0 ? 1u : ((uint64_t)%s + %du) / %du;" % (val, val, m.n - 1, m.n))
            o("   if (e > %#xull)" % (1 << f.width))
            o("      return agx_pack_err_range(err, %s, %s, %s, %d, %s);" %
              (sn, fn, val, f.width, cstr(str(m))))
            o("   if (e == %#xull)" % (1 << f.width))
            o("      e = 0;")
        elif m.kind == "log2":
            o("   if (%s == 0 || (%s & (%s - 1)))" % (val, val, val))
            o("      return agx_pack_err_pow2(err, %s, %s, %s);" % (sn, fn, val))
            o("   e = agx_pack_log2(%s);" % val)
        else:
            o("   e = %s;" % val)
        if f.width < 64 and t not in ("bool", "float", "lod", "int") and m.kind != "groups":
            if f.c_max() > mask(f.width):
                o("   if (e > %#xull)" % mask(f.width))
                o("      return agx_pack_err_range(err, %s, %s, %s, %d, %s);" %
                  (sn, fn, "(uint64_t)" + val, f.width, cstr(str(m))))
        for word, lo, n, sh in f.pieces():
            expr = "e" if sh == 0 else "(e >> %d)" % sh
            if n < 32 or sh:
                expr = "(%s & %#xu)" % (expr, mask(n))
            o("   w[%d] |= (uint32_t)%s << %d;" % (word, expr, lo) if lo else
              "   w[%d] |= (uint32_t)%s;" % (word, expr))
        o("")
    if not s.members:
        o("   (void)v;")
    o("   (void)err;")
    o("   memcpy(dst, w, %d);" % s.size)
    o("   return true;")
    o("}")
    o("")
    o("/* Packs or, if a value does not fit, aborts naming the field (in every")
    o(" * build type: a bad descriptor must never reach the GPU silently). */")
    o("static inline void")
    o("%s_pack(void *restrict dst, const struct %s *restrict v)" % (c, c))
    o("{")
    o("   struct agx_pack_error err;")
    o("   if (!%s_pack_checked(dst, v, &err))" % c)
    o("      agx_pack_abort(&err);")
    o("}")
    o("")


def emit_unpack(s, o):
    c = s.c
    o("/* Returns false if bits no field covers are set or a constant field")
    o(" * holds another value; every field is still filled in. */")
    o("static inline bool")
    o("%s_unpack(const void *restrict src, struct %s *restrict v)" % (c, c))
    o("{")
    o("   uint32_t w[%d] = { 0 };" % s.nwords)
    o("   memcpy(w, src, %d);" % s.size)
    if s.members:
        o("   uint64_t e;")
    if not s.members:
        o("   v->reserved_ = 0;")
    for f in s.members:
        parts = []
        for word, lo, n, sh in f.pieces():
            p = "(uint64_t)(w[%d] >> %d)" % (word, lo) if lo else "(uint64_t)w[%d]" % word
            if n < 32 - lo or (n < 32 and lo == 0):
                p = "(%s & %#xu)" % (p, mask(n))
            if sh:
                p = "(%s << %d)" % (p, sh)
            parts.append(p)
        o("   e = %s;" % " | ".join(parts))
        t, m, val = f.type, f.mod, "v->" + f.c
        if t == "bool":
            o("   %s = e != 0;" % val)
        elif t == "float":
            o("   %s = tessera_uif((uint32_t)e);" % val)
        elif t == "lod":
            o("   %s = (float)e / 64.0f;" % val)
        elif t == "int":
            sign = 1 << (f.width - 1)
            o("   %s = (%s)((int64_t)(e ^ %#xull) - (int64_t)%#xull);" % (val, f.ctype, sign, sign))
        elif f.enum:
            o("   %s = (%s)e;" % (val, f.ctype))
        elif m.kind == "minus":
            o("   %s = (%s)(e + %du);" % (val, f.ctype, m.n))
        elif m.kind == "shr":
            o("   %s = (%s)(e << %d);" % (val, f.ctype, m.n))
        elif m.kind == "groups":
            o("   %s = (%s)((e ? e : %#xull) * %du);" % (val, f.ctype, 1 << f.width, m.n))
        elif m.kind == "log2":
            o("   %s = (%s)(UINT64_C(1) << e);" % (val, f.ctype))
        else:
            o("   %s = (%s)e;" % (val, f.ctype))
    checks = []
    for i in range(s.nwords):
        unk = s.valid[i] & ~s.known[i]
        if unk:
            checks.append("(w[%d] & %#xu)" % (i, unk))
    for i in range(s.nwords):
        if s.const_mask[i]:
            checks.append("((w[%d] & %#xu) ^ %#xu)" % (i, s.const_mask[i], s.const_val[i]))
    o("   return (%s) == 0;" % (" | ".join(checks) if checks else "0"))
    o("}")
    o("")


# ---------------------------------------------------------------- source

def print_line(f, o):
    label = f.name + (" (%s)" % f.view if f.view else "")
    lab = cstr(label)
    val = "v->" + f.c
    t = f.type
    if t == "bool":
        o('   fprintf(fp, "%%*s%%s: %%s\\n", indent, "", %s, %s ? "true" : "false");' % (lab, val))
    elif t in ("float", "lod"):
        o('   fprintf(fp, "%%*s%%s: %%f\\n", indent, "", %s, (double)%s);' % (lab, val))
    elif f.enum:
        o('   agx_print_enum(fp, indent, %s, %s_as_str(%s), (uint32_t)%s);' % (lab, f.enum.c, val, val))
    elif t == "int":
        o('   fprintf(fp, "%%*s%%s: %%" PRId64 "\\n", indent, "", %s, (int64_t)%s);' % (lab, val))
    elif t in ("hex", "address"):
        o('   fprintf(fp, "%%*s%%s: 0x%%" PRIx64 "\\n", indent, "", %s, (uint64_t)%s);' % (lab, val))
    else:
        o('   fprintf(fp, "%%*s%%s: %%" PRIu64 "\\n", indent, "", %s, (uint64_t)%s);' % (lab, val))


def emit_source(fm, out, header_include, src_name):
    o = out.append
    o("/* Generated by cmdstream/agx_gen_pack.py from %s. Do not edit. */" % src_name)
    o('#include "%s"' % header_include)
    o("")
    for e in fm.enum_list:
        o("const char *")
        o("%s_as_str(enum %s value)" % (e.c, e.c))
        o("{")
        o("   switch ((uint32_t)value) {")
        for vname, val, cname in e.values:
            o("   case %#x: return %s;" % (val, cstr(vname)))
        o("   default: return NULL;")
        o("   }")
        o("}")
        o("")
    for s in fm.structs:
        c = s.c
        o("void")
        o("%s_print(FILE *fp, const struct %s *v, int indent)" % (c, c))
        o("{")
        if not s.members:
            o("   (void)fp; (void)v; (void)indent;")
        for f in s.members:
            print_line(f, o)
        o("}")
        o("")
        unk = [s.valid[i] & ~s.known[i] for i in range(s.nwords)]
        o("bool")
        o("%s_validate(FILE *fp, const void *src, int indent)" % c)
        o("{")
        o("   static const uint32_t unknown[%d] = { %s };" %
          (s.nwords, ", ".join("%#xu" % x for x in unk)))
        o("   uint32_t w[%d] = { 0 };" % s.nwords)
        o("   bool ok;")
        o("   memcpy(w, src, %d);" % s.size)
        o("   ok = agx_report_unknown_bits(fp, indent, %s, w, unknown, %d);" % (cstr(s.name), s.nwords))
        for f in s.fields:
            if f.const is None:
                continue
            parts = []
            for word, lo, n, sh in f.pieces():
                p = "(uint64_t)((w[%d] >> %d) & %#xu)" % (word, lo, mask(n))
                parts.append("(%s << %d)" % (p, sh) if sh else p)
            o("   ok &= agx_report_const(fp, indent, %s, %s, %s, %#xull);" %
              (cstr(s.name), cstr(f.name), " | ".join(parts), f.const_enc))
        o("   return ok;")
        o("}")
        o("")
        o("bool")
        o("%s_dump(FILE *fp, const void *src, int indent)" % c)
        o("{")
        o("   struct %s v;" % c)
        o("   bool ok = %s_unpack(src, &v);" % c)
        o("   %s_print(fp, &v, indent);" % c)
        o("   if (!ok)")
        o("      %s_validate(fp, src, indent);" % c)
        o("   return ok;")
        o("}")
        o("")


# ---------------------------------------------------------------- vectors

GOLDEN = 0x9E3779B97F4A7C15


def test_value(f, idx):
    """A logical value for f that is not its default and round-trips."""
    w = f.width
    if f.type == "bool":
        return not bool(f.default)
    if f.type == "float":
        return 1.5 + idx
    if f.enum:
        cands = [val for vname, val, cname in f.enum.values
                 if val != f.default_enc and val <= mask(w)]
        nonzero = [v for v in cands if v] or cands
        if nonzero:
            return nonzero[(len(nonzero) - 1 - idx) % len(nonzero)]
        raise FormatError("%s: no non-default enum value" % f.where)
    cmax = f.c_max()
    for k in range(1, 64):
        e = ((GOLDEN * (idx * 7 + k)) >> (k % 17)) & mask(w)
        if f.type == "lod":
            e &= mask(w)
        if e == f.default_enc:
            continue
        if f.mod.kind == "log2" and e > 31:
            e &= 31
            if e == f.default_enc:
                continue
        v = f.decode(e)
        if f.type not in ("lod", "int") and cmax is not None and v > cmax:
            continue
        if f.encode(v) != e:
            continue
        return v
    raise FormatError("%s: no test value found" % f.where)


def overflow_value(f):
    """(value literal, expected reason) that pack must reject, or None."""
    m, w = f.mod, f.width
    cmax = f.c_max()
    if f.type in ("bool", "float", "lod"):
        return None
    if f.type == "int":
        limit = 64 if f.bits64 else 32
        if w >= limit:
            return None
        return f.c_literal(mask(w - 1) + 1), "range"
    if f.enum:
        if w >= 32:
            return None
        return "(%s)%#x" % (f.ctype, mask(w) + 1), "range"
    if m.kind == "minus" and m.n > 0:
        return f.c_literal(m.n - 1), "below"
    if m.kind == "shr" and m.n > 0:
        return f.c_literal((1 << m.n) + 1), "align"
    if m.kind == "log2":
        return f.c_literal(3), "pow2"
    if m.kind == "groups":
        v = (1 << w) * m.n + 1
        return (f.c_literal(v), "range") if v <= cmax else None
    v = mask(w) + 1
    if v > cmax:
        return None
    return f.c_literal(v), "range"


def bytes_literal(b):
    return "{ " + ", ".join("0x%02x" % x for x in b) + " }"


def emit_vectors(fm, out, header_include, table, src_name):
    o = out.append
    o("/* Generated by cmdstream/agx_gen_pack.py from %s. Do not edit.")
    o(" * Test vectors computed by the generator's own Python model of the")
    o(" * encoding: they check the C code, not the other way round. */" )
    out[-3] = out[-3] % src_name
    o('#include <string.h>')
    o('#include "%s"' % header_include)
    o("")
    o("#ifndef AGX_PACK_VECTOR_TYPES")
    o("#define AGX_PACK_VECTOR_TYPES")
    o("struct agx_pack_vector {")
    o("   const char *name;")
    o("   unsigned length;")
    o("   const uint8_t *expected;")
    o("   /* Fills the struct with the vector's values and packs (checked). */")
    o("   bool (*pack)(void *dst, struct agx_pack_error *err);")
    o("   /* Unpacks, compares with the values; NULL or the failing field. */")
    o("   const char *(*roundtrip)(const void *src);")
    o("};")
    o("struct agx_pack_overflow_vector {")
    o("   const char *struct_name, *field_name, *reason;")
    o("   bool (*pack)(struct agx_pack_error *err);")
    o("};")
    o("struct agx_pack_unknown_vector {")
    o("   const char *name;")
    o("   const char *expect; /* text validate must print */")
    o("   unsigned length;")
    o("   const uint8_t *bytes;")
    o("   bool (*unpack)(const void *src);")
    o("   bool (*validate)(FILE *fp, const void *src, int indent);")
    o("};")
    o("#endif")
    o("")
    vec_rows, ovf_rows, unk_rows = [], [], []
    for s in fm.structs:
        views = s.views or [None]
        for vi, view in enumerate(views):
            active = [f for f in s.members if f.view is None or f.view == view]
            values = {}
            for idx, f in enumerate(active):
                values[f.c] = test_value(f, idx)
            words = s.pack_words(values)
            b = s.to_bytes(words)
            tag = "%s_v%d" % (s.c, vi)
            o("static const uint8_t %s_%s_expected[%d] = %s;" % (table, tag, s.size, bytes_literal(b)))
            o("static void")
            o("%s_%s_fill(struct %s *v)" % (table, tag, s.c))
            o("{")
            o("   *v = (struct %s){ %s_HEADER };" % (s.c, s.C))
            for f in active:
                o("   v->%s = %s;" % (f.c, f.c_literal(values[f.c])))
            o("}")
            o("static bool")
            o("%s_%s_pack(void *dst, struct agx_pack_error *err)" % (table, tag))
            o("{")
            o("   struct %s v;" % s.c)
            o("   %s_%s_fill(&v);" % (table, tag))
            o("   return %s_pack_checked(dst, &v, err);" % s.c)
            o("}")
            o("static const char *")
            o("%s_%s_roundtrip(const void *src)" % (table, tag))
            o("{")
            o("   struct %s want, got;" % s.c)
            o("   %s_%s_fill(&want);" % (table, tag))
            o("   memset(&got, 0xa5, sizeof(got));")
            o("   if (!%s_unpack(src, &got))" % s.c)
            o('      return "(unpack reported unknown bits)";')
            for f in active:
                if f.type in ("float", "lod"):
                    o("   if (memcmp(&want.%s, &got.%s, sizeof(float)))" % (f.c, f.c))
                else:
                    o("   if (want.%s != got.%s)" % (f.c, f.c))
                o("      return %s;" % cstr(f.name))
            # Any valid encoding must survive unpack + pack unchanged, views
            # included (each view re-encodes the shared bits identically).
            o("   {")
            o("      uint8_t again[%d];" % s.size)
            o("      struct agx_pack_error err;")
            o("      if (!%s_pack_checked(again, &got, &err))" % s.c)
            o('         return "(repack failed)";')
            o("      if (memcmp(again, src, %d))" % s.size)
            o('         return "(repack differs)";')
            o("   }")
            if not active:
                o("   (void)want;")
            o("   return NULL;")
            o("}")
            label = s.name + (" [%s]" % view if view else "")
            vec_rows.append("   { %s, %d, %s_%s_expected, %s_%s_pack, %s_%s_roundtrip }," %
                            (cstr(label), s.size, table, tag, table, tag, table, tag))
        for f in s.members:
            ov = overflow_value(f)
            if ov is None:
                continue
            lit, reason = ov
            fn = "%s_%s_%s_overflow" % (table, s.c, f.c)
            o("static bool")
            o("%s(struct agx_pack_error *err)" % fn)
            o("{")
            o("   struct %s v = { %s_HEADER };" % (s.c, s.C))
            o("   uint8_t buf[%d];" % s.size)
            o("   v.%s = %s;" % (f.c, lit))
            o("   return %s_pack_checked(buf, &v, err);" % s.c)
            o("}")
            ovf_rows.append("   { %s, %s, %s, %s }," % (cstr(s.name), cstr(f.name), cstr(reason), fn))
        # Unknown bits and wrong constants, starting from the default bytes.
        base = s.pack_words({})
        fn_unpack = "%s_%s_unpack_any" % (table, s.c)
        need_unpack = False
        for i in range(s.nwords):
            unk = s.valid[i] & ~s.known[i]
            if unk:
                bit = (unk & -unk)
                w = list(base)
                w[i] |= bit
                name = "%s_%s_unknown" % (table, s.c)
                o("static const uint8_t %s[%d] = %s;" % (name, s.size, bytes_literal(s.to_bytes(w))))
                unk_rows.append("   { %s, \"unknown bits\", %d, %s, %s, %s_validate }," %
                                (cstr(s.name), s.size, name, fn_unpack, s.c))
                need_unpack = True
                break
        for f in s.fields:
            if f.const is None:
                continue
            w = list(base)
            word, lo, n, sh = f.pieces()[0]
            w[word] ^= 1 << lo
            name = "%s_%s_%s_badconst" % (table, s.c, f.c)
            o("static const uint8_t %s[%d] = %s;" % (name, s.size, bytes_literal(s.to_bytes(w))))
            unk_rows.append("   { %s, %s, %d, %s, %s, %s_validate }," %
                            (cstr(s.name), cstr(f.name), s.size, name, fn_unpack, s.c))
            need_unpack = True
        if need_unpack:
            o("static bool")
            o("%s(const void *src)" % fn_unpack)
            o("{")
            o("   struct %s v;" % s.c)
            o("   return %s_unpack(src, &v);" % s.c)
            o("}")
        o("")
    o("static const struct agx_pack_vector %s_vectors[] = {" % table)
    out.extend(vec_rows)
    o("};")
    o("static const struct agx_pack_overflow_vector %s_overflow_vectors[] = {" % table)
    out.extend(ovf_rows)
    o("};")
    o("static const struct agx_pack_unknown_vector %s_unknown_vectors[] = {" % table)
    out.extend(unk_rows)
    o("};")


def write(path, lines):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as fp:
        fp.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("xml")
    ap.add_argument("--header", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--include", help="how the source includes the header "
                    "(default: cmdstream/<header basename>)")
    ap.add_argument("--vectors")
    ap.add_argument("--table", default="agx_pack")
    args = ap.parse_args()
    try:
        fm = Formats(args.xml)
    except (FormatError, ET.ParseError, ValueError) as e:
        sys.stderr.write("%s: error: %s\n" % (args.xml, e))
        return 1
    include = args.include or "cmdstream/" + os.path.basename(args.header)
    src_name = os.path.basename(args.xml)
    guard = re.sub(r"[^A-Z0-9]", "_", include.upper())
    out = []
    emit_header(fm, out, guard, src_name)
    write(args.header, out)
    out = []
    emit_source(fm, out, include, src_name)
    write(args.source, out)
    if args.vectors:
        out = []
        try:
            emit_vectors(fm, out, include, args.table, src_name)
        except FormatError as e:
            sys.stderr.write("%s: error: %s\n" % (args.xml, e))
            return 1
        write(args.vectors, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
