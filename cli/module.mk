# The tessera command: thin front ends over the component libraries.
PROGS += tessera
tessera_SRCS := $(wildcard cli/*.c)
tessera_LIBS := cmdstream agxisa
