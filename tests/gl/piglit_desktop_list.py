#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate the desktop GL 2.1 piglit lists of tests/gl/piglit_desktop.sh.

usage: piglit_desktop_list.py [PIGLIT_TESTS_DIR] [OUT_DIR]

Reads Debian piglit's opengl.xml.gz and shader.xml.gz (default
/usr/lib/x86_64-linux-gnu/piglit/tests) and writes OUT_DIR (default
tests/gl/piglit-desktop) /piglit_desktop_{opengl,shader}.txt, one piglit test
name a line, sorted.

Candidates (desktop GL <= 2.1, headless-runnable):
  opengl: spec@!opengl 1.0 .. 2.1, spec@glsl-1.10, spec@glsl-1.20 and
          shaders@ tests that piglit runs concurrently (so with -fbo: the
          others abort on surfaceless EGL, which has no window), not a
          GLES variant (*_gles1/2/3, -gles).
  shader: shader_runner tests of spec@glsl-1.10, spec@glsl-1.20 and shaders@
          whose api is compat or core and GLSL version at most 1.20.
The sample is deterministic: candidates ordered by the SHA-256 of their
name, the first N per profile, plus the PINNED tests (the groups issue 13
named, so each known bug class stays in the gate), minus EXCLUDED (too
slow on the model for piglit's limit). Same piglit, same list.
"""
import gzip
import hashlib
import os
import re
import sys
import xml.etree.ElementTree as ET

N = {"opengl": 170, "shader": 150}
PREFIX = re.compile(r"^(spec@!opengl (1\.[0-5]|2\.[01])@|spec@glsl-1\.[12]0@|shaders@)")
GLES = re.compile(r"(_gles[123]?|-gles[123]?)(\b|$)")
PINNED = {
    "opengl": [
        "spec@glsl-1.10@execution@varying-packing@simple float array",
        "spec@glsl-1.10@execution@varying-packing@simple vec4 array",
        # user clip planes: fixed function, gl_ClipVertex and the plane
        # transformations (eye vs clip space)
        "spec@!opengl 1.0@gl-1.0-user-clip-all-planes",
        "spec@!opengl 1.1@user-clip",
        "spec@glsl-1.10@execution@clipping@clip-plane-transformation fixed",
        "spec@glsl-1.10@execution@clipping@clip-plane-transformation pos_clipvert",
        "spec@glsl-1.10@execution@clipping@clip-plane-transformation clipvert_pos",
        # rectangle textures (the compiler refused sampler dimension RECT)
        "shaders@glsl-fs-texture2drect",
        "shaders@glsl-fs-texture2drect-proj3",
        "shaders@glsl-fs-texture2drect-proj4",
        # flat shading of clipped primitives, quads in both conventions
        "spec@!opengl 1.1@clipflat",
        # polygon mode and edge flags: triangles outlined or dotted by the
        # model's rasteriser, quads, polygons and edge flags outlined by
        # the driver
        "spec@!opengl 1.0@gl-1.0-edgeflag",
        "spec@!opengl 1.0@gl-1.0-edgeflag-const",
        "spec@!opengl 1.0@gl-1.0-edgeflag-quads",
        "spec@!opengl 1.1@polygon-mode",
        "spec@!opengl 2.0@gl-2.0-edgeflag",
        "spec@!opengl 2.0@gl-2.0-edgeflag-immediate",
    ],
    "shader": [
        "spec@glsl-1.10@execution@variable-indexing@fs-input-array-vec2-index-rd",
        "spec@glsl-1.10@execution@variable-indexing@fs-input-array-vec4-index-rd",
        "spec@glsl-1.10@execution@variable-indexing@vs-temp-array-mat4-index-rd",
        "spec@glsl-1.10@execution@variable-indexing@fs-temp-array-mat4-index-rd",
        "spec@glsl-1.10@execution@variable-indexing@vs-varying-array-mat4-index-wr",
        "spec@glsl-1.10@execution@variable-indexing@fs-varying-array-mat4-col-rd",
        # indices out of their array in a flattened select (the uniform
        # clamp; whether the unclamped read faults depends on the memory
        # layout, tessera_compiler_test checks the clamp itself), output
        # arrays written with a variable index, temp arrays written with
        # one in both stages, and large/giant arrays (issue 13)
        "spec@glsl-1.10@execution@variable-indexing@fs-input-array-float-index-rd",
        "spec@glsl-1.10@execution@variable-indexing@fs-input-array-vec3-index-rd",
        "spec@glsl-1.10@execution@variable-indexing@vs-output-array-vec4-index-wr",
        "spec@glsl-1.10@execution@variable-indexing@vs-temp-array-mat4-index-col-row-wr",
        "spec@glsl-1.20@execution@variable-indexing@fs-temp-array-mat4-index-col-row-wr",
        "spec@glsl-1.10@execution@temp-array-indexing@glsl-vs-giant-temp-array",
        "spec@glsl-1.10@execution@temp-array-indexing@glsl-fs-giant-temp-array",
        "spec@glsl-1.10@execution@glsl-vs-large-uniform-array",
        "spec@glsl-1.20@execution@fs-vec4-const-array-indirect-access-256-elements",
        # user clip planes through gl_ClipVertex and fixed function
        "spec@glsl-1.20@execution@clipping@fixed-clip-enables",
        "spec@glsl-1.20@execution@clipping@vs-clip-vertex-const-accept",
        "spec@glsl-1.20@execution@clipping@vs-clip-vertex-const-reject",
        "spec@glsl-1.20@execution@clipping@vs-clip-vertex-different-from-position",
        "spec@glsl-1.20@execution@clipping@vs-clip-vertex-enables",
        "spec@glsl-1.20@execution@clipping@vs-clip-vertex-equal-to-position",
        "spec@glsl-1.20@execution@clipping@vs-clip-vertex-homogeneity",
        "spec@glsl-1.20@execution@clipping@vs-clip-vertex-primitives",
        # shadow references outside [0, 1] clamp for fixed-point depth
        # (Z24 stored as Z32F: the shader clamps, issue 13)
        "spec@glsl-1.10@execution@samplers@glsl-fs-shadow2d-clamp-z",
    ],
}


# Candidates left out, with the reason: on the model they run past piglit's
# 120 s limit, so their status would depend on the machine's load.
EXCLUDED = {
    # a 256-texel texture uploaded in every format and size, region by
    # region; every upload is a CPU transfer with (de)twiddling
    "spec@!opengl 1.1@texsubimage": "over 120 s on the model (CPU transfers)",
    # 5000 textures of 4 MiB streamed: GEM_CREATE fails with ENOMEM after
    # a while and the test retries forever (issue 13: a render target leak
    # or the kernel's memory limit)
    "spec@!opengl 1.1@streaming-texture-leak": "ENOMEM on the model, then loops",
    # long fragment shaders: the modelled job budget ends them (GPU
    # timeout) and the test keeps redrawing
    "shaders@glsl-uniform-interstage-limits@subdivide 5": "GPU job budget",
    "shaders@glsl-uniform-interstage-limits@subdivide 5, statechanges": "GPU job budget",
}


def options(test):
    return {o.get("name"): o.get("value") for o in test if o.get("name")}


def candidate(profile, name, opts):
    if not PREFIX.match(name) or GLES.search(name) or name in EXCLUDED:
        return False
    if opts.get("run_concurrent") != "True":
        return False
    if opts.get("require_platforms"):
        return False
    if profile == "shader":
        api = (opts.get("api") or "").strip("'\"")
        try:
            ver = float(opts.get("shader_version") or "0")
        except ValueError:
            return False
        return api in ("compat", "core") and ver <= 1.2
    return True


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "/usr/lib/x86_64-linux-gnu/piglit/tests"
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "piglit-desktop")
    os.makedirs(out, exist_ok=True)
    for profile in ("opengl", "shader"):
        path = os.path.join(src, profile + ".xml.gz")
        try:
            root = ET.parse(gzip.open(path)).getroot()
        except (OSError, ET.ParseError) as e:
            sys.exit("piglit_desktop_list: cannot read %s: %s" % (path, e))
        names = set()
        all_names = set()
        for t in root:
            name = t.get("name")
            all_names.add(name)
            if candidate(profile, name, options(t)):
                names.add(name)
        for p in PINNED[profile]:
            if p not in all_names:
                sys.exit("piglit_desktop_list: pinned test not in %s: %s" % (path, p))
        ordered = sorted(names, key=lambda n: hashlib.sha256(n.encode()).hexdigest())
        chosen = set(ordered[:N[profile]]) | set(PINNED[profile])
        with open(os.path.join(out, "piglit_desktop_%s.txt" % profile), "w") as f:
            for n in sorted(chosen):
                f.write(n + "\n")
        print("%s: %d candidates, %d in the list" % (profile, len(names), len(chosen)))


if __name__ == "__main__":
    main()
