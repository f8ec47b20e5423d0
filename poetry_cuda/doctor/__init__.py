"""`doctor`: check the host, the locks, the installed environment and the system
libraries against each other, and say how to fix each problem.

Gathering (`facts.gather`) and `--deep` (`checkup.deep_checks`) are the only I/O; every check
is a pure function from those facts to `Finding`s (`findings`), run in order by `checkup`,
and all findings are collected before anything is printed.
"""
