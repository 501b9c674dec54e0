"""The docs' Docker blocks (`<!-- example: docker -->`) run as printed, from the repository's
root, with the stack tests: each must bring up a stack that answers and scores an item, which
is then taken down. Compose reads the project name and the published ports from the
environment (COMPOSE_PROJECT_NAME, VERIFIER_PORT, ...), so the blocks run unchanged beside
any other stack on the machine. The commands are Debian 12's `docker-compose` (1.29), which
the docs install; scripts/test installs it too."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

from tests.doc_blocks import REPO, Block, answers, examples, scores_an_item
from tests.stack_helpers import builds_images, require_docker
from verifier.local import free_port

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    shutil.which("docker") is None or shutil.which("docker-compose") is None,
    reason="Docker or docker-compose is not installed")]

UP_S = 600


@builds_images
@pytest.mark.parametrize("block", [b for b in examples() if b.marker == "docker"],
                         ids=lambda block: block.name)
def test_the_docker_example_brings_up_a_stack_that_scores(block: Block) -> None:
    require_docker()
    port = free_port()
    env = {**os.environ, "COMPOSE_PROJECT_NAME": f"rlvrdocs{os.getpid()}",
           "VERIFIER_PORT": str(port), "FLOWER_PORT": str(free_port()),
           "PROMETHEUS_PORT": str(free_port())}
    url = f"http://127.0.0.1:{port}"
    try:
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.code], cwd=REPO,
                              env=env, capture_output=True, text=True, timeout=3600, check=False)
        assert done.returncode == 0, f"{block.name}:\n{done.stderr[-4000:]}"
        deadline = time.monotonic() + UP_S
        while not answers(url):
            assert time.monotonic() < deadline, f"{block.name}: the stack never answered"
            time.sleep(2)
        assert scores_an_item(url, UP_S)
    finally:
        subprocess.run(["docker-compose", "--profile", "monitoring", "down", "-v", "-t", "5"],
                       cwd=REPO, env=env, capture_output=True, timeout=300, check=False)
