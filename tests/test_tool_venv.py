"""scripts/tool-venv: a tool's venv (vLLM's CPU build, verl) sees the packages of the
environment it is made from, also when that environment is itself a venv (the case
`--system-site-packages` misses: it shares only the base interpreter's), and what the tool
installs itself comes first.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def site_packages(venv: Path) -> Path:
    relative = Path(sysconfig.get_path("purelib")).relative_to(sys.prefix)
    return venv / relative


def run(python: Path, code: str) -> str:
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_tool_venv_sees_the_main_venv_under_its_own(tmp_path: Path) -> None:
    main = tmp_path / "main"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(main)], check=True)
    # Packages only the main venv has, one of which (editable-install style) is reached
    # through a .pth file of its own, and one the tool will shadow.
    (site_packages(main) / "only_in_main.py").write_text("WHERE = 'main'\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "editable_pkg.py").write_text("WHERE = 'editable'\n")
    (site_packages(main) / "editable.pth").write_text(f"{tmp_path / 'src'}\n")
    (site_packages(main) / "shadowed.py").write_text("WHERE = 'main'\n")

    tool = tmp_path / "tool"
    env = {**os.environ, "PATH": f"{main / 'bin'}:{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    subprocess.run(["bash", str(REPO / "scripts" / "tool-venv"), str(tool)], env=env,
                   check=True, capture_output=True, text=True)
    (site_packages(tool) / "shadowed.py").write_text("WHERE = 'tool'\n")

    python = tool / "bin" / "python"
    assert run(python, "import only_in_main, editable_pkg, shadowed; print("
                       "only_in_main.WHERE, editable_pkg.WHERE, shadowed.WHERE)") == (
        "main editable tool")
    # Made again (scripts/test on a later run): the link is renewed, not doubled.
    subprocess.run(["bash", str(REPO / "scripts" / "tool-venv"), str(tool)], env=env,
                   check=True, capture_output=True, text=True)
    assert run(python, "import sys; print(sum(p.endswith('main/lib') or 'main/lib/' in p"
                       " for p in sys.path))") == "1"
