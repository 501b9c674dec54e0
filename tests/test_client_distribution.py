"""The client installs alone: `client/` builds the `rlvr-client` wheel, which pulls pydantic,
httpx and tenacity and nothing of the server, and `rl_client` with every adapter imports in a
fresh venv (no system site packages) where celery, fastapi, math-verify, torch, trl and verl are
absent. The venv installs from pip's configured index, like a user's `pip install ./client`."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLIENT_NEEDS = {"pydantic", "httpx", "tenacity"}
ABSENT = ["verifier", "trainer", "celery", "fastapi", "uvicorn", "redis", "math_verify",
          "sympy", "pydantic_settings", "torch", "trl", "verl", "openrlhf", "packaging"]
ADAPTERS = ["rl_client", "rlvr_contract.schemas", "rlvr_contract.item_kinds",
            "rlvr_contract.client_settings",
            "rl_client.integrations.trl", "rl_client.integrations.verl",
            "rl_client.integrations.openrlhf", "rlvr_contract.routing"]

# Run inside the venv: what is installed, what imports, what does not, and a client at work.
PROBE = """
import importlib, importlib.metadata as md, importlib.util, json, re, sys
imported = [importlib.import_module(name).__name__ for name in sys.argv[1].split(",")]
present = [name for name in sys.argv[2].split(",") if importlib.util.find_spec(name)]
from rl_client import VerifierClient
from rlvr_contract.labels import build_item
from rlvr_contract.openrlhf import openrlhf_items
client = VerifierClient("http://127.0.0.1:9")
items = openrlhf_items(["Q A: \\\\boxed{4}"], ["Q A:"],
                       ['{"dataset": "gsm8k", "ground_truth": "4"}'])
requires = {dist.metadata["Name"].lower(): [re.split(r"[ ;<>=!~\\[(]", r)[0].lower()
            for r in dist.requires or [] if "extra ==" not in r]
            for dist in md.distributions()}
print(json.dumps({"imported": imported, "present": present, "requires": requires,
                  "item": items[0].kind,
                  "code": build_item("x", {"inputs": ["1"], "outputs": ["1"]}).kind,
                  "where": [importlib.util.find_spec("rl_client").origin]}))
"""


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(requires: dict[str, list[str]], roots: set[str]) -> set[str]:
    """The distributions `roots` pull in, themselves included (names normalised)."""
    norm = {normal(name): deps for name, deps in requires.items()}
    seen: set[str] = set()
    todo = [normal(root) for root in roots]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(normal(dep) for dep in norm.get(name, []))
    return seen


def test_the_client_installs_and_imports_without_the_server(tmp_path: Path) -> None:
    # Build from a copy of the folders the build reads, so the checkout stays clean.
    source = tmp_path / "source"
    shutil.copytree(ROOT / "client", source / "client",
                    ignore=shutil.ignore_patterns("build", "*.egg-info"))
    for package in ("rlvr_contract", "rl_client"):
        shutil.copytree(ROOT / package, source / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    # The build needs setuptools: this environment's where it has one (quicker), else pip's own.
    isolation = [] if importlib.util.find_spec("setuptools") is None else ["--no-build-isolation"]
    subprocess.run([*pip, "wheel", "--no-deps", *isolation, "-q", "-w", tmp_path / "wheels",
                    source / "client"], check=True, env=environment, capture_output=True,
                   timeout=300)
    [wheel] = (tmp_path / "wheels").glob("rlvr_client-*.whl")

    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(tmp_path / "venv")
    python = str(tmp_path / "venv" / "bin" / "python")
    installing = subprocess.run([python, "-m", "pip", "install", "-q",
                                 "--disable-pip-version-check", str(wheel)],
                                env=environment, capture_output=True, text=True, timeout=600)
    assert installing.returncode == 0, installing.stderr[-3000:]
    probe = subprocess.run([python, "-c", PROBE, ",".join(ADAPTERS), ",".join(ABSENT)],
                           capture_output=True, text=True, env=environment, cwd=tmp_path,
                           timeout=120)
    assert probe.returncode == 0, probe.stderr[-3000:]
    seen = json.loads(probe.stdout)

    assert seen["imported"] == ADAPTERS
    assert seen["present"] == [], f"importable in the client's venv: {seen['present']}"
    assert seen["where"][0].startswith(str(tmp_path / "venv"))
    assert (seen["item"], seen["code"]) == ("math", "code")
    requires = seen["requires"]
    assert sorted(requires["rlvr-client"]) == sorted(CLIENT_NEEDS)
    installed = {normal(name) for name in requires} - {"pip", "setuptools", "wheel"}
    extra = installed - closure(requires, {"rlvr-client"})
    assert not extra, f"installed beyond what the client pulls: {extra}"
    assert {"pydantic", "httpx", "tenacity", "rlvr-client"} <= installed
