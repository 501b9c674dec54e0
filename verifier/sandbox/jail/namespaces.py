"""The runner's namespaces: its PID namespace (made by clone), its mounts, /proc, and what a
run may leave behind in them (processes, /tmp, /dev/shm, System V IPC), cleared for the next run
only where it did; and its network namespace: no interface up, not even loopback, and, since
a run may make Unix sockets only (seccomp.py), nothing there outlives a run's processes (no
TCP state, no counter in /proc/net/snmp), so the runner's runs share it without sharing
anything through it.

Standard library only (see `__init__.py`); used by the supervisor and its runners.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import signal

from linux import (
    CLONE_NEWIPC,
    CLONE_NEWNS,
    CLONE_NEWPID,
    MNT_DETACH,
    MS_BIND,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_RDONLY,
    MS_REMOUNT,
    SYS_CLONE,
    check,
    libc,
    libc_holding_gil,
    mount,
)

WORKDIR = "/tmp"  # a run's work directory: the runner's own tmpfs, new for each run that used it
SHM_FLAGS, SHM_OPTIONS = MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=16m,nr_inodes=256,mode=0700"
FS_IOC_GETFLAGS = 0x80086601
SHM_INFO, SEM_INFO, MSG_INFO = 14, 19, 12


def fork_in_new_pid_namespace(extra: int = 0) -> int:
    """fork() whose child is PID 1 of a new PID namespace (and of the `extra` CLONE_NEW*
    namespaces).

    unshare(CLONE_NEWPID) works once per process (and setns back to the jail's own namespace is
    refused: that namespace belongs to bubblewrap's outer user namespace), so this is clone()
    with the interpreter's own before/after-fork steps around it, as os.fork does them.
    """
    python_api = ctypes.pythonapi
    python_api.PyOS_BeforeFork()
    pid = libc_holding_gil.syscall(ctypes.c_long(SYS_CLONE),
                                   ctypes.c_ulong(CLONE_NEWPID | extra | signal.SIGCHLD),
                                   None, None, None, None)
    if pid == 0:
        python_api.PyOS_AfterFork_Child()
        return 0
    errno = ctypes.get_errno()
    python_api.PyOS_AfterFork_Parent()
    if pid < 0:
        raise OSError(errno, f"clone: {os.strerror(errno)}")
    return pid


def kill_namespace(reap: bool = True) -> None:
    """From PID 1: SIGKILL every other process of the namespace, then reap what died."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, signal.SIGKILL)
    while reap:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def mount_proc(private: bool, replace: bool = False) -> None:
    """The run's own procfs (it shows only the run's processes), or an empty one; `replace`
    unmounts the runner's previous one first (no program exists in between)."""
    if replace:
        check(libc.umount2(b"/proc", MNT_DETACH), "umount /proc")
    if private:
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    else:
        mount("tmpfs", "/proc", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
              "size=4k,nr_inodes=4,mode=0555")


# The namespaces a program of an interactive run gets to itself (see `isolate_program`).
ISOLATED = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC


def isolate_program(directory: str, proc: bool) -> None:
    """In a program forked with ISOLATED namespaces (it is PID 1 of its own), before it drops
    its privileges: `directory` becomes its /tmp, and it gets its own /proc and /dev/shm.

    The other program of its run (an interactor) keeps the runner's /tmp, /proc and /dev/shm,
    now covered in this mount namespace: this program can neither see the other's files nor
    address it (another PID namespace), and without privileges it cannot uncover them.
    """
    mount(directory, WORKDIR, None, MS_BIND)
    mount_proc(proc)
    mount("tmpfs", "/dev/shm", "tmpfs", SHM_FLAGS, SHM_OPTIONS)


class Scratch:
    """A tmpfs runs may write to (/tmp, /dev/shm), new for every run that finds it used.

    Between two runs (every process of the first already dead) it is mounted anew only if the
    run left a trace: an inode or a block in use, or any change to its root (attributes, times,
    extended attributes, inode flags). Unmounting costs an RCU grace period; looking, a few
    system calls. An untouched tmpfs (most runs: the warm Python harness writes no file) is
    indistinguishable from a new one.
    """

    def __init__(self, path: str, flags: int, options: str) -> None:
        self.path, self.flags, self.options = path, flags, options
        self._mount()

    def _mount(self) -> None:
        mount("tmpfs", self.path, "tmpfs", self.flags, self.options)
        self.size: int | None = None  # as mounted: the default size
        self.as_mounted = self._look()

    def _look(self) -> tuple:
        usage, root = os.statvfs(self.path), os.lstat(self.path)
        fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            inode_flags = fcntl.ioctl(fd, FS_IOC_GETFLAGS, bytes(8))
        except OSError:
            inode_flags = None
        finally:
            os.close(fd)
        return (usage.f_files - usage.f_ffree, usage.f_blocks - usage.f_bfree, root.st_mode,
                root.st_uid, root.st_gid, root.st_atime_ns, root.st_mtime_ns, root.st_ctime_ns,
                os.listxattr(self.path, follow_symlinks=False), inode_flags)

    def _untouched(self) -> bool:
        """Whether it looks as mounted; one a run made unreadable (`chmod 0 /tmp`: the runner
        holds no capability to read past its mode) was touched."""
        try:
            return self._look() == self.as_mounted
        except OSError:
            return False

    def limit(self, size: int) -> None:
        """Cap its size (a remount), unless it is capped at that already."""
        if size != self.size:
            mount(None, self.path, None, MS_REMOUNT | self.flags, f"size={size},{self.options}")
            self.size = size

    def renew(self) -> None:
        if not self._untouched():
            check(libc.umount2(self.path.encode(), MNT_DETACH), f"umount {self.path}")
            self._mount()


_ipc_info = (ctypes.c_int * 64)()  # large enough for shm_info, seminfo and msginfo
_IPC_QUERIES = (  # (the call with its arguments, where its count of objects in use is)
    (libc.shmctl, (0, SHM_INFO, _ipc_info), 0),  # shm_info.used_ids
    (libc.semctl, (0, 0, SEM_INFO, _ipc_info), 7),  # seminfo.semusz
    (libc.msgctl, (0, MSG_INFO, _ipc_info), 0),  # msginfo.msgpool
)


def ipc_in_use() -> bool:
    """Whether a System V IPC object exists in this IPC namespace (POSIX message queues need
    RLIMIT_MSGQUEUE, which runs do not have). A failed query counts as in use."""
    return any(call(*arguments) < 0 or _ipc_info[index]
               for call, arguments, index in _IPC_QUERIES)


def renew_scratch(scratch: list[Scratch]) -> None:
    """Once a run's processes are dead, before its reply: a new /tmp and /dev/shm wherever it
    left something. Before the reply, so what it left is no longer charged to the jail's memory
    cgroup when the worker takes the baseline of the next run (see cgroup.py)."""
    for area in scratch:
        area.renew()


def renew_ipc() -> None:
    """Between two runs of one runner, after the reply: a new IPC namespace if the run left an
    object there."""
    if ipc_in_use():
        check(libc.unshare(CLONE_NEWIPC), "unshare ipc")

