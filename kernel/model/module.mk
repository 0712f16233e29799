# SPDX-License-Identifier: MIT
# asahimodel: the whole GPU model behind the asahi driver -- the device,
# its compute and render executors and the driver, created and torn down
# in the one safe order (kernel/model/asahi_model.h). A library above the
# driver so that libasahi needs the device core alone; the shim, replay
# and tools that want a complete GPU link this.
LIBS += asahimodel
asahimodel_SRCS := kernel/model/asahi_model.c
# Everything a user of the whole model links.
ASAHI_MODEL_LIBS := asahimodel asahi hwrender hwtex hwcdm hwusc agxisa hw cmdstream

# The whole model behind the driver (asahi_model): order, threads, teardown.
TESTS += test_kernel_model
test_kernel_model_SRCS := tests/unit/test_kernel_model.c
test_kernel_model_LIBS := $(ASAHI_MODEL_LIBS)
test_kernel_model_LDLIBS := -lcmocka -lm
