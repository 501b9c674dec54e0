"""Files of a work directory named by relative paths (`data/in.txt`), never reached through a
symbolic link.

Standard library only (see `__init__.py`). A request names the files it brings and the files it
wants back by paths below the work directory, and a program may leave symbolic links there (a
session's directory outlives its runs). The runner holds capabilities its programs lack, so it
must never follow one of their links out of the directory: each component is opened with
O_NOFOLLOW relative to the one before it.
"""

from __future__ import annotations

import errno
import os

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def open_beneath(directory: str, path: str, flags: int, mode: int = 0o644,
                 make_parents: bool = False) -> int:
    """Open `path` below `directory` with `flags`; its missing parent directories are made
    first with `make_parents`. OSError if a component is a link, `..`, `.` or empty."""
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise OSError(errno.EINVAL, f"not a path below the work directory: {path!r}")
    fd = os.open(directory, _DIRECTORY)
    try:
        for part in parts[:-1]:
            try:
                below = os.open(part, _DIRECTORY, dir_fd=fd)
            except FileNotFoundError:
                if not make_parents:
                    raise
                os.mkdir(part, 0o755, dir_fd=fd)
                below = os.open(part, _DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = below
        return os.open(parts[-1], flags | os.O_NOFOLLOW, mode, dir_fd=fd)
    finally:
        os.close(fd)
