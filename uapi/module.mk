# SPDX-License-Identifier: MIT
# uapi: helpers over the Asahi uAPI (include/drm-uapi/asahi_drm.h) shared by
# trace/, capture/, replay/ and cli/: the one SUBMIT command-buffer walker
# and the one VM mapping list (library uapi, below trace/), and the shader
# index of a submission (library uapishaders, above trace/: its records are
# trace stages and hashes).

LIBS += uapi
uapi_SRCS := uapi/uapi_cmdbuf.c uapi/uapi_vm_map.c

LIBS += uapishaders
uapishaders_SRCS := uapi/uapi_shaders.c

TESTS += test_uapi_cmdbuf
test_uapi_cmdbuf_SRCS := tests/unit/test_uapi_cmdbuf.c
test_uapi_cmdbuf_LIBS := uapi
test_uapi_cmdbuf_LDLIBS := -lcmocka

TESTS += test_uapi_vm_map
test_uapi_vm_map_SRCS := tests/unit/test_uapi_vm_map.c
test_uapi_vm_map_LIBS := uapi
test_uapi_vm_map_LDLIBS := -lcmocka

FUZZERS += fuzz_uapi
fuzz_uapi_SRCS := tests/fuzz/fuzz_uapi.c
fuzz_uapi_LIBS := uapi

TESTS += test_uapi_shaders
test_uapi_shaders_SRCS := tests/unit/test_uapi_shaders.c
test_uapi_shaders_LIBS := uapishaders uapi trace cmdstream agxisa
test_uapi_shaders_LDLIBS := -lcmocka $(TRACE_LDLIBS)
