"""The README's two commands, as written, on a fresh Debian 12: a `debian:bookworm-slim`
container (the project's local base image) with only `python3` added, as a fresh server has.

What the container gets from this machine: the repository's files (tracked and untracked, not
ignored: what a clone plus one's edits hold) and, for the test command only, the CPU build of
torch (TORCH_WHEELS, default /opt/wheels, given to pip as find-links when it holds a torch
wheel): PyPI has none, and PyTorch's own CPU index, which scripts/test falls back to, may not be
reachable from here. Everything else comes from where a user's machine gets it: Debian's
archive and PyPI.

- The quick start (the README's first command): a service that answers /healthz and scores a
  math and a Python code item (in the bubblewrap jail).
- The test command (the README's second): its whole install path (apt prerequisites, the venv,
  CPU torch, the package with its test extras, the vLLM and verl tool venvs), then the suites
  in FRESH_DEBIAN_TESTS: the API over a real server, code in every language, verl's reward
  managers from their tool venv and the trainer on vLLM's CPU build from its own (39 tests).
  The rest of the suite in a container as well would double CI's time; it is
  `bash scripts/test` itself.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tarfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.stack_helpers import REPO, require_docker

BASE = os.environ.get("BASE_IMAGE", "debian:bookworm-slim")
FRESH = "rlvr-verifier-fresh-debian12:python3"
TORCH_WHEELS = Path(os.environ.get("TORCH_WHEELS", "/opt/wheels"))
SUBSET = os.environ.get("FRESH_DEBIAN_TESTS", "tests/test_api.py tests/test_code_languages.py "
                        "tests/test_integrations_verl.py tests/test_trainer_vllm.py")
# As close to a machine as a container gets where `--privileged` may not be granted (this
# project's CI runs in one): root may make the jail's namespaces and mount its /proc (the
# worker image's seccomp profile, no /proc masks), and has an init and a /dev/shm of a
# machine's size, which Docker's defaults lack (docs/contributing.md, "Tests in a container").
MACHINE = ["--cap-add=SYS_ADMIN",
           f"--security-opt=seccomp={REPO}/sandbox/images/seccomp-bwrap.json",
           "--security-opt=systempaths=unconfined", "--init", "--shm-size=2g"]
# pytest's last line when nothing failed, erred or was skipped (apt's own output says "failed"
# about services it cannot reload in a container, so the whole output is no guide).
PASSED = re.compile(r"^=* ?\d+ passed in [\d.]+s.*$", re.MULTILINE)
QUICK_START_S = 1200
TEST_COMMAND_S = 3600

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    shutil.which("docker") is None, reason="Docker is not installed")]


def readme_commands() -> list[str]:
    """The bash blocks of the README's quick start, in order: serve, then test."""
    text = (REPO / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = [part.split("```", 1)[0] for part in section.split("```bash\n")[1:]]
    assert len(blocks) == 2, "the quick start should have two bash blocks: serve, then test"
    return [block.strip() for block in blocks]


def docker(*args: str, timeout_s: float = 120, check: bool = True,
           stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(["docker", *args], capture_output=True, text=True, input=stdin,
                            timeout=timeout_s, check=False)
    if check:
        assert result.returncode == 0, f"docker {args[0]} failed:\n{result.stderr[-4000:]}"
    return result


def test_base_image_root_is_open_to_every_user(tmp_path: Path) -> None:
    """The base layer's `/` as it is stored (Docker's overlay storage shows a container its
    own upper folder's mode there, which hides a 0700 root that other storage does not)."""
    require_docker()
    saved = tmp_path / "base.tar"
    docker("save", "-o", str(saved), BASE, timeout_s=300)
    with tarfile.open(saved) as image:
        manifest = json.load(image.extractfile("manifest.json"))
        base_layer = image.extractfile(manifest[0]["Layers"][0])
        with tarfile.open(fileobj=base_layer) as layer:
            root = next(m for m in layer if m.name in (".", "./"))
    assert oct(root.mode & 0o777) == oct(0o755)


@pytest.fixture(scope="module")
def fresh_image() -> str:
    """The base image with only python3 installed (built once; later builds hit the cache)."""
    require_docker()
    docker("build", "-t", FRESH, "-", timeout_s=900, stdin=(
        f"FROM {BASE}\nRUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "
        "--no-install-recommends python3 && rm -rf /var/lib/apt/lists/*\n"))
    return FRESH


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The repository's files as a clone with one's edits has them, without ignored ones."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout.split("\0")
    copy = tmp_path / "rlvr-verifier"
    copy.mkdir()
    archive = tmp_path / "repo.tar"
    with tarfile.open(archive, "w") as tar:
        for name in filter(None, listed):
            if (REPO / name).exists():
                tar.add(REPO / name, arcname=name, recursive=False)
    with tarfile.open(archive) as tar:
        tar.extractall(copy, filter="tar")
    return copy


@pytest.fixture
def container() -> Iterator[str]:
    name = f"rlvr-fresh-{uuid.uuid4().hex[:8]}"
    yield name
    docker("rm", "-f", name, check=False)


def in_container(name: str, code: str, timeout_s: float = 60) -> subprocess.CompletedProcess:
    """Python code run by the container's own python3 (no venv, no installed package)."""
    return docker("exec", name, "python3", "-c", code, timeout_s=timeout_s, check=False)


HEALTHZ = """
import time, urllib.request
deadline = time.monotonic() + {wait_s}
while True:
    try:
        print(urllib.request.urlopen("http://127.0.0.1:8000/healthz", timeout=5).read().decode())
        break
    except OSError:
        assert time.monotonic() < deadline, "no answer on :8000"
        time.sleep(2)
"""

VERIFY = """
import json, urllib.request
items = [
    {"kind": "math", "id": "m", "response": "so the answer is \\\\boxed{\\\\frac{1}{2}}",
     "answer": "0.5"},
    {"kind": "code", "id": "c", "language": "python",
     "response": "```python\\nprint(sum(map(int, input().split())))\\n```",
     "tests": {"type": "stdio", "cases": [{"input": "1 2\\n", "output": "3\\n"}]}},
]
request = urllib.request.Request("http://127.0.0.1:8000/v1/verify",
                                 data=json.dumps({"items": items}).encode(),
                                 headers={"content-type": "application/json"})
print(urllib.request.urlopen(request, timeout=120).read().decode())
"""


@pytest.mark.timeout(QUICK_START_S + 300)
def test_quick_start_serves_and_scores_on_fresh_debian(fresh_image: str, checkout: Path,
                                                       container: str) -> None:
    serve, _ = readme_commands()
    docker("run", "-d", "--name", container, *MACHINE, "-v", f"{checkout}:/root/rlvr-verifier",
           "-w", "/root/rlvr-verifier", fresh_image, "bash", "-c", serve)
    up = in_container(container, HEALTHZ.format(wait_s=QUICK_START_S), QUICK_START_S + 60)
    logs = docker("logs", "--tail", "60", container, check=False)
    assert up.returncode == 0, f"{up.stderr}\n--- container log:\n{logs.stdout}{logs.stderr}"
    assert json.loads(up.stdout)["status"] == "ok"
    scored = in_container(container, VERIFY, 180)
    assert scored.returncode == 0, scored.stderr
    results = {r["id"]: r for r in json.loads(scored.stdout)["results"]}
    assert (results["m"]["status"], results["m"]["reward"]) == ("correct", 1.0), results["m"]
    assert (results["c"]["status"], results["c"]["reward"]) == ("correct", 1.0), results["c"]


@pytest.mark.timeout(TEST_COMMAND_S + 300)
@pytest.mark.skipif(os.environ.get("FRESH_DEBIAN_TEST_COMMAND") == "0",
                    reason="FRESH_DEBIAN_TEST_COMMAND=0 (it takes about 55 minutes)")
def test_test_command_installs_and_passes_on_fresh_debian(fresh_image: str, checkout: Path,
                                                         container: str) -> None:
    _, test = readme_commands()
    torch = []
    if any(TORCH_WHEELS.glob("torch-*.whl")):
        torch = ["-v", f"{TORCH_WHEELS}:/opt/torch-wheels:ro",
                 "-e", "PIP_FIND_LINKS=/opt/torch-wheels"]
    ran = docker("run", "--name", container, *MACHINE, *torch,
                 "-v", f"{checkout}:/root/rlvr-verifier", "-w", "/root/rlvr-verifier",
                 fresh_image, "bash", "-c", f"{test} -q -x -p no:cacheprovider {SUBSET}",
                 timeout_s=TEST_COMMAND_S, check=False)
    output = ran.stdout[-6000:] + ran.stderr[-6000:]
    assert ran.returncode == 0, output
    assert PASSED.search(ran.stdout), output
