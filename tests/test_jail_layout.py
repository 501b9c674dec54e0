"""The sandbox's two sides: what the jail gets (verifier/sandbox/jail/, harness/ and the two
shared host modules, see verifier.sandbox.backend.jail_files) imports only the standard library
and those same files, by bare name, as the jail's Python finds them flat in one directory."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from verifier.sandbox.backend import jail_files


def imported_names(path: Path) -> set[str]:
    """Top-level names of every module a file imports (relative imports named as `.x`)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or "").split(".")[0])
    return names


def test_the_jail_gets_only_standard_library_programs() -> None:
    shipped = {Path(host) for host in jail_files().values()}
    bare = {path.stem for path in shipped}
    assert {"supervisor", "runner", "pyharness", "linux", "worker_jail", "lru"} <= bare
    allowed = set(sys.stdlib_module_names) | bare | {"__future__"}
    for path in sorted(shipped):
        outside = imported_names(path) - allowed
        assert not outside, f"{path.name} imports {sorted(outside)}: the jail has only the " \
                            "standard library and its own files"
