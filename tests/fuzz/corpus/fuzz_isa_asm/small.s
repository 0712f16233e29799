fadd32 r0, r1, 0.5
stop
