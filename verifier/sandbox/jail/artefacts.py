"""The jail's cache of compiled artefacts: stored by compile runs, copied into the runs that use
them, and kept within bounds by the supervisor.

Standard library only (see `__init__.py`). The artefacts live under the jail's own /tmp, which
every runner hides under a fresh /tmp of its own; a runner opens the cache directory before
that, and looks artefacts up on disk, so a runner prepared before an artefact was stored still
finds it. The supervisor keeps the index (which entries, their sizes, their order of use) from
the runners' notes and removes what falls out of it.
"""

from __future__ import annotations

import os
import stat

from lru import LRU
from namespaces import WORKDIR

ARTEFACTS = "/tmp/.artefacts"
CACHE_MAX_BYTES = 512 * 1024 * 1024
CACHE_MAX_ENTRIES = 256
STORE_MAX_BYTES = CACHE_MAX_BYTES // 4  # one compile run's artefacts
MAX_DEPTH = 32  # directories nested in them


def artefact_index() -> LRU[str, int]:
    """The supervisor's index: artefact key -> bytes, least recently used dropped (and removed
    from disk) beyond CACHE_MAX_ENTRIES entries or CACHE_MAX_BYTES in all."""
    os.makedirs(ARTEFACTS, mode=0o700, exist_ok=True)
    return LRU(CACHE_MAX_ENTRIES, max_weight=CACHE_MAX_BYTES, weigh=int,
               evicted=lambda key, _: _remove_tree(os.path.join(ARTEFACTS, key)))


def _remove_tree(path: str) -> None:
    for root, dirs, files in os.walk(path, topdown=False):
        for name in files:
            os.unlink(os.path.join(root, name))
        for name in dirs:
            os.rmdir(os.path.join(root, name))
    if os.path.isdir(path):
        os.rmdir(path)


def _remove_at(name: str, dir_fd: int) -> None:
    """Remove the tree `name` below the directory `dir_fd`, if there is one."""
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    for _, dirs, files, root_fd in os.fwalk(name, topdown=False, dir_fd=dir_fd):
        for entry in files:
            os.unlink(entry, dir_fd=root_fd)
        for entry in dirs:
            os.rmdir(entry, dir_fd=root_fd)
    os.rmdir(name, dir_fd=dir_fd)


class UnusableArtefacts(OSError):
    """A compile step that succeeded left outputs that cannot be kept: none where the language
    puts its program (a Java source without a class, a Haskell module other than Main), a link
    or a device there, or more than the cache's share for one artefact (a huge static array).
    The program's doing, never the sandbox's."""


def cached(cache_fd: int, key: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(key, dir_fd=cache_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _copy_entry(name: str, src_fd: int, dst_fd: int, budget: list[int], depth: int = 0) -> bool:
    """Copy one regular file or directory (recursively) between two directory fds, within the
    byte budget. Returns False, copying nothing, for anything else (links,
    devices...) and for nothing at all. What the source holds is the program's doing (a Template
    Haskell splice or a preprocessor can write, chmod and nest what it likes): one it cannot
    read or nested too deep is UnusableArtefacts, never a failure of ours."""
    try:
        info = os.stat(name, dir_fd=src_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    except PermissionError as exc:  # in a directory it can list but not search (chmod 600)
        raise UnusableArtefacts(f"the build left {name!r}, which cannot be read "
                                f"({exc.strerror})") from None
    if depth > MAX_DEPTH:
        raise UnusableArtefacts(f"the build left directories nested deeper than {MAX_DEPTH}")
    if stat.S_ISDIR(info.st_mode):
        sub_src = _open_source(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, src_fd)
        try:
            try:
                entries = os.listdir(sub_src)
            except OSError as exc:
                raise UnusableArtefacts(f"the build left {name!r}, which cannot be read "
                                        f"({exc.strerror})") from None
            os.mkdir(name, 0o755, dir_fd=dst_fd)
            sub_dst = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=dst_fd)
            try:
                for entry in entries:
                    _copy_entry(entry, sub_src, sub_dst, budget, depth + 1)
            finally:
                os.close(sub_dst)
        finally:
            os.close(sub_src)
        return True
    if not stat.S_ISREG(info.st_mode):
        return False
    budget[0] -= info.st_size
    if budget[0] < 0:
        raise UnusableArtefacts(f"the compiled program is larger than the artefact cache allows "
                                f"({STORE_MAX_BYTES >> 20} MiB)")
    src = _open_source(name, os.O_RDONLY | os.O_NOFOLLOW, src_fd)
    try:
        dst = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, info.st_mode & 0o755,
                      dir_fd=dst_fd)
        try:
            while os.sendfile(dst, src, None, 1 << 24):
                pass
        finally:
            os.close(dst)
    finally:
        os.close(src)
    return True


def _open_source(name: str, flags: int, src_fd: int | None = None) -> int:
    """An entry of the copy's source (below `src_fd`, or the work directory itself), opened;
    one the program made unreadable (chmod 000) is UnusableArtefacts."""
    try:
        return os.open(name, flags, dir_fd=src_fd)
    except OSError as exc:
        raise UnusableArtefacts(f"the build left {name!r}, which cannot be read "
                                f"({exc.strerror})") from None


def place_artefact(spec: dict, cache_fd: int, directory: str = WORKDIR) -> None:
    """Copy the compiled artefact the run names into its work directory."""
    artefact_fd = os.open(spec["artefact"], os.O_RDONLY | os.O_DIRECTORY, dir_fd=cache_fd)
    try:
        work_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            budget = [spec["limits"]["tmpfs_bytes"]]
            for name in os.listdir(artefact_fd):
                _copy_entry(name, artefact_fd, work_fd, budget)
        finally:
            os.close(work_fd)
    finally:
        os.close(artefact_fd)


def store_artefacts(spec: dict, cache_fd: int) -> int:
    """Copy the compile run's outputs into the cache (atomically, by rename). Returns bytes."""
    store = spec["store"]
    temporary = store["key"] + ".partial"
    work_fd = _open_source(WORKDIR, os.O_RDONLY | os.O_DIRECTORY)  # a build can chmod 0 it
    try:
        _remove_at(temporary, cache_fd)  # what a store that failed half-way left
        os.mkdir(temporary, 0o700, dir_fd=cache_fd)
        budget = [STORE_MAX_BYTES]
        tmp_fd = os.open(temporary, os.O_RDONLY | os.O_DIRECTORY, dir_fd=cache_fd)
        try:
            for path in store["paths"]:
                if not _copy_entry(path, work_fd, tmp_fd, budget):
                    raise UnusableArtefacts(f"the build produced no {path} (or not a regular "
                                            "file or directory)")
        except BaseException:
            _remove_at(temporary, cache_fd)  # a failed store keeps no space in the cache
            raise
        finally:
            os.close(tmp_fd)
    finally:
        os.close(work_fd)
    os.rename(temporary, store["key"], src_dir_fd=cache_fd, dst_dir_fd=cache_fd)
    return STORE_MAX_BYTES - budget[0]
