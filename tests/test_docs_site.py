"""The documentation site builds with `mkdocs build --strict`: every page in the navigation,
every link and anchor found. The `docs` extra installs MkDocs (scripts/test installs it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.doc_blocks import REPO


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install -e .[docs])")
    pytest.importorskip("material", reason="the docs extra is not installed (mkdocs-material)")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--site-dir", str(tmp_path / "site")], cwd=REPO, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    for page in ("index.html", "getting-started/index.html", "api/index.html"):
        assert (tmp_path / "site" / page).is_file(), page


def test_every_page_is_in_the_navigation() -> None:
    """mkdocs --strict only warns of a page left out of `nav` when told to; say it here."""
    import yaml

    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())

    def pages(nav: list) -> set[str]:
        found: set[str] = set()
        for entry in nav:
            for value in (entry.values() if isinstance(entry, dict) else [entry]):
                found |= pages(value) if isinstance(value, list) else {value}
        return found

    on_disk = {str(p.relative_to(REPO / "docs")) for p in (REPO / "docs").rglob("*.md")}
    assert pages(config["nav"]) == on_disk
