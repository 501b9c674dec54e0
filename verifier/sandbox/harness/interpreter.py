"""What makes a forked interpreter look like `python3 solution.py` to the solution.

Its argv, path, `exit`/`quit` and standard streams, and how it ends: the exit status python
derives from SystemExit, and the shutdown steps it takes. Standard library only.
"""

from __future__ import annotations

import builtins
import io
import os
import sys
import traceback

_SANDBOX = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # /opt/verifier


def reset_interpreter() -> None:
    """Give this process a fresh interpreter's argv, path, `exit`/`quit`, and new standard
    streams on fds 0-2.

    The warm path does this once in the process it forks runs from (which never uses these
    streams itself), so a run does not pay for it; the streams must then be built while fds
    0-2 are of the kinds a run gets (stdin a memfd, stdout and stderr pipes), because the I/O
    stack records whether its file is seekable when it is built.
    """
    sys.argv = ["solution.py"]
    sys.path[:] = [p for p in sys.path if p and not p.startswith(_SANDBOX)]
    streams = []
    for fd, template, mode in ((0, sys.__stdin__, "rb"), (1, sys.__stdout__, "wb"),
                               (2, sys.__stderr__, "wb")):
        raw = io.FileIO(fd, mode, closefd=False)
        buffered = io.BufferedReader(raw) if mode == "rb" else io.BufferedWriter(raw)
        streams.append(io.TextIOWrapper(buffered, encoding=template.encoding,
                                        errors=template.errors,
                                        line_buffering=template.line_buffering))
    sys.stdin, sys.stdout, sys.stderr = streams
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams
    import _sitebuiltins  # what `site` would add; the interpreter runs with -S

    builtins.exit = _sitebuiltins.Quitter("exit", "Ctrl-D (i.e. EOF)")
    builtins.quit = _sitebuiltins.Quitter("quit", "Ctrl-D (i.e. EOF)")
    sys.excepthook = traceback.print_exception  # quotes source lines from linecache


def system_exit_status(exc: SystemExit) -> int:
    """The exit status the interpreter derives from SystemExit."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def flush_streams(status: int = 0) -> int:
    """Flush stdout and stderr as the interpreter does at exit; a failed stdout flush turns a
    clean exit into status 120."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            if stream is sys.stdout and status == 0:
                status = 120
    return status


def finalize(status: int) -> int:
    """Interpreter shutdown as Py_FinalizeEx does it: join threads, run atexit, flush."""
    threading = sys.modules.get("threading")
    if threading is not None:
        threading._shutdown()
    import atexit

    atexit._run_exitfuncs()
    return flush_streams(status)
