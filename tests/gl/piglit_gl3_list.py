#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate the desktop GL 3.0-3.3 piglit lists tests/gl/piglit_gl3_opengl.txt
and tests/gl/piglit_gl3_shader.txt from Debian piglit's profiles.

Usage: piglit_gl3_list.py [PIGLIT_TESTS_DIR [OUT_DIR]]
  PIGLIT_TESTS_DIR  holds opengl.xml.gz and shader.xml.gz
                    (default /usr/lib/x86_64-linux-gnu/piglit/tests)
  OUT_DIR           where the two lists go (default: this script's folder)

Selection rule (deterministic, stdlib only; the lists are committed, so a
piglit upgrade changes them only when this script is rerun):
  1. Groups: a test belongs to group G when its name starts with "spec@G@"
     and G is one of GROUPS below: the GL 3.0-3.3 versions
     (spec@!opengl 3.x), GLSL 1.30/1.40/1.50/3.30, and the ARB/EXT/NV
     extensions that became core in GL 3.0-3.3.
  2. Desktop GL only: no GLES variant (an "api" option of gles*, a binary
     or name ending in _gles1/2/3 or -gles*).
  3. Version: shader tests whose GLSL version (shader_version) or GL
     version (api_version) is above 3.3 are dropped; opengl tests whose
     name mentions a later GL/GLSL version are not dropped (piglit skips
     what the context cannot run, which both references report too).
  4. Headless: only run_concurrent tests. piglit passes -fbo to those (and
     to every shader_runner test); a non-concurrent test on surfaceless
     EGL tries to create a window and aborts.
  5. Sample: per group and profile, the QUOTA tests (more for the GL and
     GLSL version groups) with the smallest CRC-32 of their name, after
     dropping the names matching SLOW_PATTERNS (tests that alone take
     minutes on the GPU model; measured, see the comment there).
The sizes were chosen so one run of both lists on Mesa's asahi driver over
the GPU model stays within 10 minutes on 2 cores (measured 270-330 s,
tests/gl/asahi_piglit_gl3.sh).
"""
import gzip
import os
import sys
import xml.etree.ElementTree as ET
import zlib

GROUPS = [
    # GL and GLSL versions
    "!opengl 3.0", "!opengl 3.1", "!opengl 3.2", "!opengl 3.3",
    "glsl-1.30", "glsl-1.40", "glsl-1.50", "glsl-3.30",
    # core in 3.0
    "arb_color_buffer_float", "arb_depth_buffer_float", "arb_framebuffer_object",
    "arb_framebuffer_srgb", "arb_half_float_vertex", "arb_map_buffer_range",
    "arb_texture_float", "arb_texture_rg", "arb_vertex_array_object",
    "ext_framebuffer_blit", "ext_framebuffer_multisample", "ext_packed_float",
    "ext_texture_array", "ext_texture_integer", "ext_texture_shared_exponent",
    "ext_transform_feedback", "nv_conditional_render",
    # core in 3.1
    "arb_copy_buffer", "arb_draw_instanced", "arb_texture_buffer_object",
    "arb_texture_rectangle", "arb_uniform_buffer_object", "nv_primitive_restart",
    # core in 3.2
    "arb_depth_clamp", "arb_draw_elements_base_vertex",
    "arb_fragment_coord_conventions", "arb_provoking_vertex",
    "arb_seamless_cube_map", "arb_sync", "arb_texture_multisample",
    "arb_vertex_array_bgra",
    # core in 3.3
    "arb_blend_func_extended", "arb_explicit_attrib_location", "arb_instanced_arrays",
    "arb_occlusion_query2", "arb_sampler_objects", "arb_shader_bit_encoding",
    "arb_texture_rgb10_a2ui", "arb_texture_swizzle", "arb_timer_query",
    "arb_vertex_type_2_10_10_10_rev",
]
# Tests per group: (opengl profile, shader profile). The GL and GLSL
# version groups are the milestone's subject and get more; an extension
# group gets a few (its tests mostly repeat one program over formats).
VERSION_GROUPS = GROUPS[:8]
QUOTA = {"opengl": (30, 8), "shader": (120, 12)}
# Tests that take minutes alone on the GPU model (every format / sample
# count / texture size rendered and read back): they would take most of a
# 10-minute run, and other tests of their group cover the same paths.
# Measured on asahi over the model, 2 busy cores: the fbo-depth-array tests
# and texsubimage array 93 s each, the texelFetch size sweeps ("texelfetch
# fs sampler2d 1x71-501x71": one draw per size) 150 to 300 s, gs-max-output
# more than 360 s (a timeout). tex-miplevel-selection
# draws 40-50 thousand quads in 7-12 s, and on a busy machine some of its
# vertex jobs reach the model's 10 s wall-clock job watchdog (a GPU timeout,
# so the status would depend on the load).
SLOW_PATTERNS = ("@fbo-depth-array ", "@texelfetch fs ", "@texsubimage array", "@gs-max-output",
                 "@tex-miplevel-selection ")


def version(s):
    """'3.3' -> (3, 3); None for a missing option."""
    if s is None:
        return None
    s = s.strip("'\"")
    try:
        return tuple(int(x) for x in s.split(".")[:2])
    except ValueError:
        return None


def tests(path):
    """(name, options) of every test of a piglit XML profile."""
    with gzip.open(path, "rb") as f:
        for _, el in ET.iterparse(f):
            if el.tag != "Test":
                continue
            opts = {o.get("name"): o.get("value") for o in el.findall("option")}
            yield el.get("name"), opts
            el.clear()


def is_gles(name, opts):
    api = (opts.get("api") or "").strip("'\"")
    if api.startswith("gles"):
        return True
    cmd = opts.get("command") or ""
    for tail in ("_gles1", "_gles2", "_gles3"):
        if tail + "'" in cmd or name.endswith(tail):
            return True
    last = name.split("@")[-1]
    return "-gles" in last or "_gles" in last or " gles" in last


def group_of(name):
    for g in GROUPS:
        if name.startswith("spec@" + g + "@"):
            return g
    return None


def select(path, prof):
    shader = prof == "shader"
    by_group = {}
    for name, opts in tests(path):
        g = group_of(name)
        if g is None or any(p in name for p in SLOW_PATTERNS) or is_gles(name, opts):
            continue
        if opts.get("run_concurrent", "True") != "True":
            continue
        if shader:
            sv, av = version(opts.get("shader_version")), version(opts.get("api_version"))
            if (sv and sv > (3, 3)) or (av and av > (3, 3)):
                continue
        by_group.setdefault(g, []).append(name)
    out = []
    for g in GROUPS:
        names = sorted(by_group.get(g, []), key=lambda n: (zlib.crc32(n.encode()), n))
        out += names[:QUOTA[prof][0 if g in VERSION_GROUPS else 1]]
    return sorted(out)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "/usr/lib/x86_64-linux-gnu/piglit/tests"
    dst = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__))
    for prof in ("opengl", "shader"):
        path = os.path.join(src, prof + ".xml.gz")
        if not os.path.exists(path):
            sys.exit("piglit_gl3_list.py: missing %s (apt install piglit)" % path)
        names = select(path, prof)
        with open(os.path.join(dst, "piglit_gl3_%s.txt" % prof), "w") as f:
            f.write("".join(n + "\n" for n in names))
        print("piglit_gl3_%s.txt: %d tests" % (prof, len(names)))


if __name__ == "__main__":
    main()
