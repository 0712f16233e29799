# SPDX-License-Identifier: MIT
# The tessera command: thin front ends over the component libraries.
PROGS += tessera
tessera_SRCS := $(wildcard cli/*.c)
# Each component that adds a subcommand appends its library here with +=
# (libraries link as a group, so order does not matter).
tessera_LIBS += cmdstream agxisa
