"""The judged-Python harness, run inside the jail: the entry of every Python run (pyharness), the
warm interpreter runs fork from (warm_python, interpreter), the judge and the contestant of an
assert run and the pipe between them (judge, contestant, judge_contestant, values), and a
session's notebook interpreter (notebook).

Standard library only: these files are shipped into the jail flat, beside the mechanism's
(`../jail/`), and import each other by bare name (see `jail/__init__.py`).
"""
