; Preshader of preamble_main.s: u5 = u4 * u4 (runs once per launch).
imadd            r1, u4, u4, 0
uniform_store    0, i32, x, 0, r1, 10
stop
