"""A Python solution compiled by the worker, for the jail's interpreter to load instead.

Every test of a Python solution runs in a fresh fork of the jail's warm interpreter, and
compiling the solution there cost each run most of its start: the compiler's allocations fault
in and copy page after page of the memory the fork shares (about half a millisecond for a
HumanEval solution, more than the fork itself). The worker compiles the source once per
submission instead, with the flags and file name the jail would use, and the run loads that
code object (marshal data, built here from the same text, read before any of the solution's
code runs: nothing of the solution's can reach it first).

It is done only where it is exactly what the jail would do: the jail's interpreter reads this
bytecode (its magic number, which the supervisor announces, is this interpreter's), the source
compiles without a warning (which the run would have printed on its stderr) and is small
(a huge source's compile time counts against its own time limit, in the jail). Otherwise the
run compiles the source itself, and a compile error is reported there, as always.
"""

from __future__ import annotations
import __future__

import base64
import marshal
import warnings
from importlib.util import MAGIC_NUMBER

SOLUTION_PATH = "/tmp/solution.py"  # the jail's contestant.SOLUTION_PATH and SOLUTION_FLAGS
SOLUTION_FLAGS = __future__.annotations.compiler_flag
MAX_SOURCE_CHARS = 64 * 1024
_MAGIC = MAGIC_NUMBER.hex()


def jail_bytecode(code: str, jail_magic: str | None) -> str | None:
    """The solution compiled for a jail whose interpreter's bytecode magic is `jail_magic`,
    as base64 marshal data; None when the jail should compile it itself (see the module doc)."""
    if jail_magic != _MAGIC or len(code) > MAX_SOURCE_CHARS:
        return None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            compiled = compile(code, SOLUTION_PATH, "exec", flags=SOLUTION_FLAGS,
                               dont_inherit=True, optimize=0)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return None
    if caught:
        return None
    return base64.b64encode(marshal.dumps(compiled)).decode()
