"""Warm Python: a run that forks from the runner's interpreter, already started and loaded.

Standard library only (see `__init__.py`). Before a warm run's fork, the runner gives itself the
state the run must start from, so the fork inherits it instead of building it: the run's
environment and (once per runner) a fresh interpreter's streams and globals (`pyharness`). The
runner itself never uses either.
"""

from __future__ import annotations

import gc
import os

import pyharness

_streams_ready = False  # per runner: set up once
_environment: dict[str, str] | None = None  # the environment it last gave itself


def preload() -> None:
    """In the supervisor, once: import what runs commonly use, for every runner to inherit."""
    pyharness.preload()


def prepare(env: dict[str, str]) -> None:
    """Give this runner the state of a fresh interpreter with the run's `env`. Then freeze what
    is alive, so the run's garbage collections do not walk (and copy) the runner's memory."""
    global _streams_ready, _environment
    if env != _environment:
        os.environ.clear()
        os.environ.update(env)
        _environment = env
    if not _streams_ready:
        # Built on descriptors of the kinds a run gets (stdin a memfd, stdout and stderr pipes),
        # then fds 0-2 go back to what they were.
        saved = [os.dup(fd) for fd in (0, 1, 2)]
        stand_ins = [os.memfd_create("stdin"), *os.pipe()]
        for fd, source in ((0, stand_ins[0]), (1, stand_ins[2]), (2, stand_ins[2])):
            os.dup2(source, fd)
        try:
            pyharness.reset_interpreter()
        finally:
            for fd, source in enumerate(saved):
                os.dup2(source, fd)
                os.close(source)
            for fd in stand_ins:
                os.close(fd)
        _streams_ready = True
    gc.freeze()


def run() -> None:
    """In the forked program, its privileges dropped: run the harness here. Never returns."""
    pyharness.run_forked()
