#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates the AGX instruction tables from agx_isa.xml.

usage: agx_isa_gen.py agx_isa.xml out.h out.c

The XML names every instruction's constant bits, fields (each a list of
possibly non-contiguous bit ranges, low bits first) and operands (a kind
implemented once in C plus the fields it reads). <template> elements are
parameterised fragments expanded here, so a layout shared by a family of
instructions is written once; {param} is replaced textually and integer
attributes may be sums such as "{off}+6".
"""
import re
import sys
import xml.etree.ElementTree as ET

MAX_BYTES = 12
ROLES = ['value', 'type', 'mod', 'sx', 'dep', 'dep2']
KINDS = ['alu_dst', 'r0l', 'alu_src', 'cmpsel_src', 'bits_lsb', 'imm', 'binary',
         'enum', 'lsl', 'bitmask', 'branch', 'mem_index', 'mem_base', 'mem_reg',
         'tg_base', 'tg_index', 'sreg', 'reg32', 'var_reg', 'cf', 'cf_plain',
         'iter_sample', 'r16_or_imm', 'zs', 'sample_ureg', 'texture', 'sampler',
         'coords', 'lod', 'cmp_off', 'pbe_src', 'reg16', 'atomic_src',
         'atomic_dst']
# Operand forms an enum value may select (<value form="...">): several
# encodings sharing one name (lod_min = 2 with a uniform, 6 with a
# register) are told apart by the form of the operand they govern.
FORMS = ['', 'zero', 'imm', 'uniform16', 'gpr16', 'grad', 'grad_min']


def die(msg):
    sys.stderr.write('agx_isa_gen: %s\n' % msg)
    sys.exit(1)


def ival(text, what):
    """Integer attribute: a sum/difference of decimal, hex or binary terms."""
    text = text.replace(' ', '')
    if not re.fullmatch(r'[-+]?(0x[0-9a-fA-F]+|0b[01]+|\d+)([-+](0x[0-9a-fA-F]+|0b[01]+|\d+))*', text):
        die('bad integer %r in %s' % (text, what))
    total = 0
    for sign, term in re.findall(r'([-+]?)(0x[0-9a-fA-F]+|0b[01]+|\d+)', text):
        v = int(term, 0)
        total += -v if sign == '-' else v
    return total


def subst(elem, params):
    """Deep copy of elem with {param} replaced in every attribute."""
    def rep(s):
        def one(m):
            if m.group(1) not in params:
                die('undefined template parameter {%s}' % m.group(1))
            return params[m.group(1)]
        return re.sub(r'\{(\w+)\}', one, s)
    new = ET.Element(elem.tag, {k: rep(v) for k, v in elem.attrib.items()})
    for child in elem:
        new.append(subst(child, params))
    return new


def expand(children, templates, depth=0):
    """Flattens <use template=.../> references into their bodies."""
    if depth > 8:
        die('template recursion too deep')
    out = []
    for c in children:
        if c.tag == 'use':
            t = templates.get(c.get('template'))
            if t is None:
                die('unknown template %r' % c.get('template'))
            params = dict(t['defaults'])
            params.update({k: v for k, v in c.attrib.items() if k != 'template'})
            body = [subst(x, params) for x in t['body']]
            out.extend(expand(body, templates, depth + 1))
        else:
            out.append(c)
    return out


class Instr:
    def __init__(self, elem, templates, enums):
        self.name = elem.get('name')
        self.id = elem.get('id', self.name).upper()
        if not re.fullmatch(r'[A-Z0-9_]+', self.id):
            die('%s: instruction needs an id="" usable as a C name' % self.name)
        self.short = ival(elem.get('size'), self.name)
        self.long = ival(elem.get('long', elem.get('size')), self.name)
        self.lbit = ival(elem.get('lbit', '15'), self.name)
        if self.short % 2 or self.long % 2 or not 2 <= self.short <= self.long <= MAX_BYTES:
            die('%s: bad sizes' % self.name)
        self.mask = 0
        self.bits = 0
        self.fields = []      # (name, [(start, size)])
        self.field_mask = 0
        self.operands = []
        self.aliases = []
        self.suffix = None
        body = expand(list(elem), templates)
        for c in body:
            if c.tag == 'const':
                self.add_const(ival(c.get('at'), self.name), ival(c.get('n'), self.name),
                               ival(c.get('value'), self.name))
        for c in body:
            if c.tag == 'field':
                parts = []
                if c.get('at') is not None:
                    parts.append((ival(c.get('at'), self.name), ival(c.get('n'), self.name)))
                for b in c.findall('bits'):
                    parts.append((ival(b.get('at'), self.name), ival(b.get('n'), self.name)))
                self.add_field(c.get('name'), parts)
        for c in body:
            if c.tag == 'operand':
                self.add_operand(c, enums)
            elif c.tag == 'suffix':
                self.suffix = (self.field_index(c.get('field')), c.get('text'))
            elif c.tag == 'alias':
                self.add_alias(c)
            elif c.tag not in ('const', 'field'):
                die('%s: unknown element <%s>' % (self.name, c.tag))
        if self.short != self.long:
            if self.lbit >= self.short * 8:
                die('%s: length bit outside the short form' % self.name)
            bit = 1 << self.lbit
            if (self.mask | self.field_mask) & bit:
                die('%s: length bit collides' % self.name)

    def add_const(self, start, size, value):
        m = ((1 << size) - 1) << start
        if value >> size:
            die('%s: constant %#x wider than %d bits' % (self.name, value, size))
        if self.mask & m:
            die('%s: constant at bit %d overlaps' % (self.name, start))
        if start + size > self.long * 8:
            die('%s: constant beyond instruction' % self.name)
        self.mask |= m
        self.bits |= value << start

    def add_field(self, name, parts):
        if not parts or len(parts) > 4:
            die('%s.%s: 1-4 bit ranges' % (self.name, name))
        if any(f[0] == name for f in self.fields):
            die('%s: duplicate field %s' % (self.name, name))
        width = 0
        for start, size in parts:
            m = ((1 << size) - 1) << start
            # A constant may pin some bits of a field (mov_imm pins the size
            # bit of its destination); two fields may not share bits.
            if self.field_mask & m:
                die('%s.%s: bits %d..%d overlap' % (self.name, name, start, start + size - 1))
            if start + size > self.long * 8:
                die('%s.%s: beyond instruction' % (self.name, name))
            self.field_mask |= m
            width += size
        if width > 32:
            die('%s.%s: wider than 32 bits' % (self.name, name))
        self.fields.append((name, parts))

    def field_index(self, name):
        for i, f in enumerate(self.fields):
            if f[0] == name:
                return i
        die('%s: no field %r' % (self.name, name))

    def add_operand(self, c, enums):
        kind = c.get('kind')
        if kind not in KINDS:
            die('%s: unknown operand kind %r' % (self.name, kind))
        op = {'kind': kind, 'name': c.get('name', c.get('value', ''))}
        for r in ROLES:
            op[r] = self.field_index(c.get(r)) if c.get(r) else -1
        if op['value'] < 0:
            die('%s: operand without value field' % self.name)
        op['max'] = ival(c.get('max', '32'), self.name)
        op['asm_max'] = ival(c.get('asm_max') or str(op['max']), self.name)
        op['float'] = c.get('float', '0') == '1'
        op['param'] = ival(c.get('param', '0'), self.name)
        op['enum'] = -1
        if kind == 'enum' or c.get('enum'):
            e = c.get('enum')
            if e not in enums:
                die('%s: unknown enum %r' % (self.name, e))
            op['enum'] = list(enums).index(e)
        self.operands.append(op)
        if len(self.operands) > 16:
            die('%s: too many operands' % self.name)

    def add_alias(self, c):
        conds = []
        for term in c.get('when').split():
            f, v = term.split('=')
            conds.append((self.field_index(f), ival(v, self.name)))
        hide = 0
        for h in c.get('hide', '').split():
            for i, o in enumerate(self.operands):
                if o['name'] == h:
                    hide |= 1 << i
                    break
            else:
                die('%s: alias hides unknown operand %r' % (self.name, h))
        if len(conds) > 8:
            die('%s: too many alias conditions' % self.name)
        self.aliases.append((c.get('name'), conds, hide))


def cstr(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def byte_list(v):
    return '{ ' + ', '.join('0x%02x' % ((v >> (8 * i)) & 0xff) for i in range(MAX_BYTES)) + ' }'


def main():
    if len(sys.argv) != 4:
        die('usage: agx_isa_gen.py agx_isa.xml out.h out.c')
    root = ET.parse(sys.argv[1]).getroot()
    templates = {}
    for t in root.findall('template'):
        defaults = {k: v for k, v in t.attrib.items() if k != 'name'}
        templates[t.get('name')] = {'defaults': defaults, 'body': list(t)}
    enums = {}
    for e in root.findall('enum'):
        vals = []
        for v in e.findall('value'):
            form = v.get('form', '')
            if form not in FORMS:
                die('enum %s: unknown form %r' % (e.get('name'), form))
            vals.append((ival(v.get('value'), e.get('name')), v.get('name'), form))
        # a name shared by several values must be told apart by form
        for _, name, form in vals:
            same = [f for _, n, f in vals if n == name and name]
            if len(same) > 1 and (not form or same.count(form) > 1):
                die('enum %s: %r names several values without distinct forms'
                    % (e.get('name'), name))
        enums[e.get('name')] = vals
    instrs = [Instr(i, templates, enums) for i in root.findall('instr')]
    ids = [i.id for i in instrs]
    if len(set(ids)) != len(ids):
        die('duplicate instruction ids')

    h = []
    h.append('/* Generated by agx_isa_gen.py from agx_isa.xml; do not edit. */')
    h.append('#ifndef AGX_ISA_GENERATED_H')
    h.append('#define AGX_ISA_GENERATED_H')
    h.append('')
    h.append('enum agx_isa_opcode {')
    for i in instrs:
        h.append('   AGX_OP_%s,' % i.id)
    h.append('   AGX_NUM_OPCODES')
    h.append('};')
    h.append('')
    h.append('enum agx_isa_kind {')
    for k in KINDS:
        h.append('   AGX_KIND_%s,' % k.upper())
    h.append('};')
    h.append('')
    h.append('enum agx_isa_form {')
    for f in FORMS:
        h.append('   AGX_FORM_%s,' % (f.upper() or 'ANY'))
    h.append('};')
    h.append('')
    # Names are stored inline (char arrays sized here) and sub-tables are
    # indices into flat arrays, so the tables hold no pointers: with
    # pointers every entry needs a load-time relocation in a PIE or shared
    # object, which dirtied ~14 pages (~2000 relocations) in every process
    # that loads the library (the tessera command, the capture layer).
    def size(strs):
        return max([len(x.encode()) for x in strs] + [0]) + 1
    h.append('#define AGX_ISA_ENUM_NAME_SIZE %d' % size(enums.keys()))
    h.append('#define AGX_ISA_VALUE_NAME_SIZE %d' % size(
        s for vals in enums.values() for _, s, _ in vals))
    h.append('#define AGX_ISA_FIELD_NAME_SIZE %d' % size(
        name for i in instrs for name, _ in i.fields))
    h.append('#define AGX_ISA_OPERAND_NAME_SIZE %d' % size(
        o['name'] for i in instrs for o in i.operands))
    h.append('#define AGX_ISA_ALIAS_NAME_SIZE %d' % size(
        a[0] for i in instrs for a in i.aliases))
    h.append('#define AGX_ISA_OP_NAME_SIZE %d' % size(i.name for i in instrs))
    h.append('#define AGX_ISA_SUFFIX_SIZE %d' % size(
        i.suffix[1] for i in instrs if i.suffix))
    h.append('')
    h.append('#endif')

    c = []
    c.append('/* Generated by agx_isa_gen.py from agx_isa.xml; do not edit. */')
    c.append('#include "cmdstream/isa/agx_isa_tables.h"')
    c.append('')
    c.append('const struct agx_isa_enum_value agx_isa_enum_values[] = {')
    for v, s, f in (x for vals in enums.values() for x in vals):
        c.append('   { %d, %s, AGX_FORM_%s },' % (v, cstr(s), f.upper() or 'ANY'))
    c.append('};')
    c.append('const struct agx_isa_enum agx_isa_enums[] = {')
    at = 0
    for name, vals in enums.items():
        c.append('   { %s, %d, %d },' % (cstr(name), at, len(vals)))
        at += len(vals)
    c.append('};')
    c.append('')
    c.append('const struct agx_isa_field_desc agx_isa_fields[] = {')
    for i in instrs:
        for name, parts in i.fields:
            starts = ', '.join(str(p[0]) for p in parts)
            sizes = ', '.join(str(p[1]) for p in parts)
            c.append('   { %s, %d, { %s }, { %s } },' % (cstr(name), len(parts), starts, sizes))
    c.append('};')
    c.append('const struct agx_isa_operand_desc agx_isa_operands[] = {')
    for i in instrs:
        for o in i.operands:
            c.append('   { AGX_KIND_%s, %s, { %s }, %d, %d, %d, %d, %d },' % (
                o['kind'].upper(), cstr(o['name']), ', '.join(str(o[r]) for r in ROLES),
                o['max'], o['asm_max'], int(o['float']), o['param'], o['enum']))
    c.append('};')
    c.append('const struct agx_isa_alias_desc agx_isa_aliases[] = {')
    for i in instrs:
        for name, conds, hide in i.aliases:
            c.append('   { %s, %d, { %s }, { %s }, 0x%x },' % (
                cstr(name), len(conds), ', '.join(str(x[0]) for x in conds) or '0',
                ', '.join(str(x[1]) for x in conds) or '0', hide))
    c.append('};')
    c.append('')
    c.append('const struct agx_isa_op_desc agx_isa_ops[AGX_NUM_OPCODES] = {')
    fat = oat = aat = 0
    for i in instrs:
        sfield, stext = i.suffix if i.suffix else (-1, '')
        c.append('   [AGX_OP_%s] = {' % i.id)
        c.append('      .name = %s, .short_size = %d, .long_size = %d, .lbit = %d,' % (
            cstr(i.name), i.short, i.long, i.lbit))
        c.append('      .mask = %s,' % byte_list(i.mask))
        c.append('      .bits = %s,' % byte_list(i.bits))
        c.append('      .field_bits = %s,' % byte_list(i.field_mask))
        c.append('      .fields_at = %d, .num_fields = %d,' % (fat, len(i.fields)))
        c.append('      .operands_at = %d, .num_operands = %d,' % (oat, len(i.operands)))
        c.append('      .aliases_at = %d, .num_aliases = %d,' % (aat, len(i.aliases)))
        c.append('      .suffix_field = %d, .suffix = %s,' % (sfield, cstr(stext)))
        c.append('   },')
        fat += len(i.fields)
        oat += len(i.operands)
        aat += len(i.aliases)
    if max(fat, oat, aat, sum(len(v) for v in enums.values())) > 0xffff:
        die('tables too large for 16-bit indices (agx_isa_tables.h)')
    c.append('};')
    c.append('')
    with open(sys.argv[2], 'w') as f:
        f.write('\n'.join(h) + '\n')
    with open(sys.argv[3], 'w') as f:
        f.write('\n'.join(c) + '\n')


if __name__ == '__main__':
    main()
