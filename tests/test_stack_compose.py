"""compose.yaml for real: valid against the Compose specification, its service commands wired
together as local processes (no engine needed), and the whole stack built and run in Docker:
two workers, a mixed batch through the api container, a worker container killed mid-job."""

from __future__ import annotations

import importlib.resources
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import jsonschema
import pytest
import yaml

from tests.procs import Proc, RedisServer, free_port, http_ok, wait_until
from tests.stack_helpers import (
    COMPOSE_FILE,
    IMAGES_BUILD_S,
    builds_images,
    compose,
    compose_command,
    require_docker,
)

PROFILES = ([], ["--profile", "monitoring"], ["--profile", "gpu"],
            ["--profile", "monitoring", "--profile", "gpu"])
OPTIONAL_SERVICES = {"flower": "monitoring", "prometheus": "monitoring", "vllm": "gpu",
                     "trainer": "gpu"}


def interpolate(text: str, env: dict[str, str]) -> str:
    """Compose's `${NAME}` / `${NAME:-default}` substitution (all compose.yaml uses)."""
    return re.sub(r"\$\{(\w+)(?::-([^}]*))?\}",
                  lambda m: env.get(m[1]) or (m[2] or ""), text)


def compose_config(env: dict[str, str] | None = None) -> dict:
    return yaml.safe_load(interpolate(COMPOSE_FILE.read_text(), env or {}))


def test_compose_file_matches_the_compose_specification() -> None:
    # The specification's schema, as check-jsonschema ships it (vendored from compose-spec).
    schema_file = (importlib.resources.files("check_jsonschema.builtin_schemas.vendor")
                   / "compose-spec.json")
    schema = json.loads(schema_file.read_text())
    validator = jsonschema.validators.validator_for(schema)(
        schema, format_checker=jsonschema.FormatChecker())
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
              for e in validator.iter_errors(yaml.safe_load(COMPOSE_FILE.read_text()))]
    assert not errors, errors
    # The checker is live: a service with an unknown key is rejected.
    broken = yaml.safe_load(COMPOSE_FILE.read_text())
    broken["services"]["api"]["replicaz"] = 2
    assert not validator.is_valid(broken)


@pytest.mark.parametrize("profiles", PROFILES, ids=lambda p: "+".join(p[1::2]) or "default")
def test_installed_compose_accepts_every_profile(profiles: list[str]) -> None:
    if compose_command() is None:
        pytest.skip("neither `docker compose` nor `docker-compose` is installed")
    resolved = yaml.safe_load(compose("config-check", *profiles, "config").stdout)["services"]
    # Compose v2 lists the enabled services only, 1.29 all of them with their profiles.
    assert {"redis", "api", "worker"} <= set(resolved)
    for name, profile in OPTIONAL_SERVICES.items():
        if profile in profiles:
            assert resolved[name]["profiles"] == [profile]
        else:
            assert name not in resolved or resolved[name]["profiles"] == [profile]
    assert resolved["api"]["depends_on"]["redis"]["condition"] == "service_healthy"


def test_published_port_is_overridable() -> None:
    ports = compose_config({"VERIFIER_PORT": "18123"})["services"]["proxy"]["ports"]
    assert ports == ["18123:8000"]
    services = compose_config({})["services"]
    assert services["proxy"]["ports"] == ["8000:8000"]
    assert "ports" not in services["api"]  # replicas sit behind the proxy


def test_gpu_profile_wires_the_trainer_to_the_vllm_server_and_the_api() -> None:
    """No GPU here: check that the trainer's command is a valid run config pointing at the
    services of this file (the GPU run itself is the trainer's own test)."""
    from trainer.config import load_config

    services = compose_config({})["services"]
    command = services["trainer"]["command"]
    assert command[:3] == ["grpo", "train", "--config"]
    overrides = [command[i + 1] for i, part in enumerate(command) if part == "--set"]
    config = load_config(COMPOSE_FILE.parent / command[3], overrides)
    vllm = services["vllm"]["command"]
    assert config.rollout.engine == "vllm_server"
    assert config.rollout.server_urls == [f"http://vllm:{vllm[vllm.index('--port') + 1]}"]
    assert config.rollout.weight_sync_host == services["trainer"]["hostname"]
    assert config.verifier.url == "http://api:8000"
    assert config.model.path == vllm[2]
    assert services["vllm"]["environment"]["VLLM_SERVER_DEV_MODE"] == "1"


def local_argv(command: list[str], replacements: dict[str, str]) -> list[str]:
    """A service's command with compose's host names swapped for loopback addresses."""
    argv = [replacements.get(part, part) for part in command]
    assert argv[0] == "verifier", argv
    return [sys.executable, "-m", "verifier", *argv[1:]]


def test_service_commands_wire_together_as_local_processes(tmp_path: Path) -> None:
    services = compose_config({})["services"]
    redis = RedisServer(tmp_path).start()
    port = free_port()
    swap = {"redis://redis:6379/0": redis.url, "0.0.0.0": "127.0.0.1", "8000": str(port)}
    procs: list[Proc] = []
    try:
        health = services["redis"]["healthcheck"]["test"]
        assert health[0] == "CMD"
        pong = subprocess.run([health[1], "-p", str(redis.port), *health[2:]], capture_output=True,
                              text=True, timeout=10, check=False)
        assert pong.stdout.strip() == "PONG"
        for name in ("worker", "worker", "api"):
            service = services[name]
            env = {k: "" if v is None else str(v)  # `KEY: ${KEY:-}` is an empty value
                   for k, v in (service.get("environment") or {}).items()}
            procs.append(Proc(local_argv(service["command"], swap),
                              tmp_path / f"{name}-{len(procs)}.log", env=env).start())
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: http_ok(f"{url}/healthz") and all(
            "ready." in p.output() for p in procs[:2]), 90, "api and both workers")
        assert httpx.get(f"{url}/v1/info", timeout=60).json()["mode"] == "distributed"
        items = mixed_batch()
        reply = httpx.post(f"{url}/v1/verify", json={"items": [i for i, _ in items]},
                           timeout=300)
        assert reply.status_code == 200, reply.text
        assert [r["status"] for r in reply.json()["results"]] == [v for _, v in items]
        assert sum("Task verifier.process_chunk" in p.output() for p in procs[:2]) >= 1
    finally:
        for proc in procs:
            proc.stop()
        redis.stop()


def code_item(language: str, code: str, stdin: str, stdout: str) -> dict:
    return {"kind": "code", "language": language, "response": f"```{language}\n{code}\n```",
            "tests": {"type": "stdio", "cases": [{"input": stdin, "output": stdout}]}}


def mixed_batch() -> list[tuple[dict, str]]:
    """Math and code in every language, each with the verdict it must get."""
    return [
        ({"kind": "math", "response": "so \\boxed{\\frac{1}{2}}", "answer": "0.5"}, "correct"),
        ({"kind": "math", "response": "the answer is \\boxed{3}", "answer": "4"}, "wrong"),
        (code_item("python", "print(sum(map(int, input().split())))", "2 3\n", "5\n"),
         "correct"),
        (code_item("python", "print(1 // int(input()))", "0\n", "1\n"), "runtime_error"),
        (code_item("python", "print(int(input()) +", "1\n", "2\n"), "compile_error"),
        (code_item("c", '#include <stdio.h>\nint main(){int a,b;scanf("%d %d",&a,&b);'
                        'printf("%d\\n",a*b);}', "6 7\n", "42\n"), "correct"),
        (code_item("cpp", "#include <iostream>\nint main(){int a;std::cin>>a;"
                          "std::cout<<a+1<<std::endl;}", "41\n", "42\n"), "correct"),
        (code_item("java", "public class Main { public static void main(String[] a) {"
                           " System.out.println(new java.util.Scanner(System.in).nextInt() * 2);"
                           " } }", "21\n", "42\n"), "correct"),
        (code_item("javascript", "const s = require('fs').readFileSync(0, 'utf8');"
                                 "console.log(Number(s) - 1)", "43\n", "42\n"), "correct"),
        (code_item("rust", "fn main() { let mut s = String::new(); std::io::stdin()"
                           ".read_line(&mut s).unwrap(); println!(\"{}\", "
                           "s.trim().parse::<i64>().unwrap() * 3); }", "14\n", "42\n"),
         "correct"),
        (code_item("bash", "read x; echo $((x + 1))", "1\n", "3\n"), "wrong"),
        (code_item("c", "int main( { return 0; }", "", ""), "compile_error"),
    ]


# --------------------------------------------------------------------------- in Docker

# The broker's visibility timeout stays at its default (900 s): a killed worker container's
# chunks must come back through the workers' heartbeats.
OVERRIDE = """
services:
  api:
    environment:
      VERIFIER_CODE_CHUNK_SIZE: "1"
  worker:
    command: ["verifier", "worker", "--broker", "redis://redis:6379/0", "--concurrency", "1"]
"""


@dataclass
class DockerStack:
    url: str
    project: str
    files: tuple[Path, ...]
    env: dict[str, str]

    def compose(self, *args: str, **kwargs) -> subprocess.CompletedProcess[str]:
        return compose(self.project, *args, files=self.files, env=self.env, **kwargs)


@pytest.fixture(scope="module")
def docker_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DockerStack]:
    """The stack built and `up` with two API replicas behind the proxy and two workers (the
    monitoring profile joins later)."""
    require_docker()
    if compose_command() is None:
        pytest.skip("Docker runs here but no Compose is installed")
    override = tmp_path_factory.mktemp("compose") / "test-override.yaml"
    override.write_text(OVERRIDE)
    port = free_port()
    stack = DockerStack(url=f"http://127.0.0.1:{port}", project=f"rlvrstack{os.getpid()}",
                        files=(COMPOSE_FILE, override),
                        env={"VERIFIER_PORT": str(port), "FLOWER_PORT": str(free_port()),
                             "PROMETHEUS_PORT": str(free_port())})
    stack.compose("build", timeout_s=IMAGES_BUILD_S)
    try:
        stack.compose("up", "-d", "--scale", "api=2", "--scale", "worker=2")
        wait_until(lambda: http_ok(f"{stack.url}/healthz"), 120, "the api container")
        yield stack
    finally:
        stack.compose("--profile", "monitoring", "down", "-v", "-t", "5", check=False)


def containers(stack: DockerStack, service: str) -> list[str]:
    ids = stack.compose("ps", "-q", service).stdout.split()
    assert len(ids) == 2, ids
    return ids


def worker_containers(stack: DockerStack) -> list[str]:
    return containers(stack, "worker")


def container_log(container: str) -> str:
    return subprocess.run(["docker", "logs", container], capture_output=True, text=True,
                          check=False).stderr


@builds_images
def test_stack_in_docker_scores_a_mixed_batch(docker_stack: DockerStack) -> None:
    url = docker_stack.url
    info = httpx.get(f"{url}/v1/info", timeout=120).json()  # first call imports reasoning-gym
    assert info["mode"] == "distributed"
    items = mixed_batch()
    reply = httpx.post(f"{url}/v1/verify", json={"items": [i for i, _ in items]}, timeout=600)
    assert reply.status_code == 200, reply.text
    assert [r["status"] for r in reply.json()["results"]] == [v for _, v in items]
    # Both worker containers took chunks (chunk size 1, one slot each).
    assert all("Task verifier.process_chunk" in container_log(c)
               for c in worker_containers(docker_stack))


@builds_images
def test_killing_a_worker_container_mid_job_loses_nothing(docker_stack: DockerStack) -> None:
    url = docker_stack.url
    code = "import time\ntime.sleep(3)\nprint({tag})"
    items = [code_item("python", code.format(tag=tag), "", f"{tag}\n") | {
        "limits": {"time_s": 10}} for tag in range(6)]
    job = httpx.post(f"{url}/v1/jobs", json={"items": items}).json()["job_id"]
    workers = worker_containers(docker_stack)

    def busy(container: str) -> bool:
        log = container_log(container)
        return log.count("] received") > log.count("] succeeded")

    wait_until(lambda: all(busy(c) for c in workers), 60, "both workers inside a chunk")
    subprocess.run(["docker", "kill", workers[0]], check=True, capture_output=True)
    killed_at = time.monotonic()
    # The goal: the job finishes within 60 s of the kill (the visibility timeout is 900 s).
    while (state := httpx.get(f"{url}/v1/jobs/{job}").json())["status"] not in ("done",
                                                                                 "failed"):
        assert time.monotonic() < killed_at + 60, state
        time.sleep(0.5)
    print(f"job done {time.monotonic() - killed_at:.1f} s after the worker container's kill")
    assert [r["status"] for r in state["results"]] == ["correct"] * 6
    api_logs = "".join(container_log(c) for c in containers(docker_stack, "api"))
    assert "vanished holding chunk" in api_logs


def test_api_replicas_behind_the_proxy_answer_for_each_others_jobs(docker_stack: DockerStack
                                                                   ) -> None:
    """Jobs submitted through the one port land on both replicas, and every poll of a job
    (round robin, so on both) answers for it."""
    url = docker_stack.url
    replicas = containers(docker_stack, "api")
    jobs = [httpx.post(f"{url}/v1/jobs", json={"items": [{
        "kind": "math", "response": f"\\boxed{{{n}}}", "answer": str(n)}]}).json()["job_id"]
        for n in range(4)]
    for job in jobs:
        for _ in range(4):
            state = httpx.get(f"{url}/v1/jobs/{job}", timeout=30)
            assert state.status_code == 200, state.text
        with httpx.stream("GET", f"{url}/v1/jobs/{job}/stream", timeout=60) as reply:
            assert [json.loads(line)["status"] for line in reply.iter_lines() if line] == \
                ["correct"]
    # Each replica created some of the jobs and answered polls of the others'.
    for replica in replicas:
        log = subprocess.run(["docker", "logs", replica], capture_output=True, text=True,
                             check=False)
        served = log.stdout + log.stderr
        assert '"POST /v1/jobs HTTP/1.1" 202' in served
        assert sum(f"GET /v1/jobs/{job} HTTP/1.1\" 200" in served for job in jobs) == 4


@builds_images
def test_monitoring_profile_serves_flower_and_scrapes_the_api(docker_stack: DockerStack
                                                             ) -> None:
    docker_stack.compose("--profile", "monitoring", "up", "-d", "flower", "prometheus",
                         timeout_s=900)
    flower = f"http://127.0.0.1:{docker_stack.env['FLOWER_PORT']}"
    prometheus = f"http://127.0.0.1:{docker_stack.env['PROMETHEUS_PORT']}"
    wait_until(lambda: http_ok(f"{flower}/workers"), 120, "Flower")

    def query(expression: str) -> float | None:
        try:
            reply = httpx.get(f"{prometheus}/api/v1/query", params={"query": expression},
                              timeout=2)
            result = reply.json()["data"]["result"]
        except (httpx.HTTPError, ValueError, KeyError):
            return None
        return float(result[0]["value"][1]) if result else None

    wait_until(lambda: query('up{job="verifier-api"}') == 1, 120,
               "Prometheus scraping the api's /metrics")
    httpx.post(f"{docker_stack.url}/v1/verify", timeout=60, json={"items": [
        {"kind": "math", "response": "\\boxed{1}", "answer": "1"}]}).raise_for_status()
    wait_until(lambda: (query("sum(verifier_items_total)") or 0) > 0, 60,
               "the scored item in Prometheus")
