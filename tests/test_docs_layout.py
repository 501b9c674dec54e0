"""The layout page (docs/layout.md) is a map of the tree, held to it as the settings tables are
held to the settings models: every path it names exists, and every package of the four
top-level packages is on it, so a move or a new folder that leaves the map behind fails here."""

from __future__ import annotations

import re
from pathlib import Path

from tests.doc_blocks import REPO

PACKAGES = ("verifier", "rlvr_contract", "rl_client", "trainer")
_ENTRY = re.compile(r"^- `([^`]+)`", re.M)


def named_paths(text: str) -> list[str]:
    """The paths the map's entries name (`- \\`path\\` — what it is`), folders ending in /."""
    return _ENTRY.findall(text)


def packages(root: Path) -> set[str]:
    """Every folder of Python modules under the top-level packages, as `path/`."""
    return {f"{path.parent.relative_to(root)}/" for package in PACKAGES
            for path in (root / package).rglob("*.py") if "__pycache__" not in path.parts}


def problems(text: str, root: Path) -> list[str]:
    named = named_paths(text)
    missing = [f"names {path}, which does not exist" for path in named
               if not (root / path).exists() or path.endswith("/") != (root / path).is_dir()]
    left_out = [f"misses {folder}" for folder in sorted(packages(root) - set(named))]
    return missing + left_out


def test_the_map_is_the_tree() -> None:
    found = problems((REPO / "docs/layout.md").read_text(), REPO)
    assert not found, "docs/layout.md: " + "; ".join(found)


def test_a_stale_map_fails(tmp_path: Path) -> None:
    (tmp_path / "verifier/api").mkdir(parents=True)
    for path in ("verifier/__init__.py", "verifier/api/app.py", "verifier/cli.py"):
        (tmp_path / path).write_text("")
    for package in PACKAGES[1:]:
        (tmp_path / package).mkdir()
    names = "- `verifier/` — x\n- `verifier/cli.py` — y\n- `verifier/gone.py` — z\n"
    assert problems(names, tmp_path) == ["names verifier/gone.py, which does not exist",
                                         "misses verifier/api/"]
    assert problems(names.replace("`verifier/`", "`verifier`"), tmp_path)[0] == \
        "names verifier, which does not exist"
