; Never terminates: the watchdog and the cycle budget must stop it.
top:
jmp_exec_any     pc+top
stop
