"""sandbox/images/: pinned dependencies, the seccomp profile, and the worker's privileges.

The Docker part proves the least-privilege claims for real: bubblewrap builds a jail inside
the worker image with the shipped profile and entry point, fails under Docker's plain default,
fails again when any one of the profile's added calls is taken away, and the worker process
ends with no capability at all.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import tempfile
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.stack_helpers import (
    IMAGES,
    IMAGES_BUILD_S,
    REPO,
    builds_images,
    compose,
    require_docker,
)

PROFILE = REPO / "verifier" / "sandbox" / "seccomp-bwrap.json"
WORKER_IMAGE = "rlvr-verifier-worker:latest"
# The same jail flags the bubblewrap backend uses that need the extra calls, plus a command.
BWRAP_PROBE = ("bwrap --unshare-all --unshare-user --disable-userns --die-with-parent "
               "--new-session --hostname sandbox --ro-bind /usr /usr --symlink usr/lib /lib "
               "--symlink usr/lib64 /lib64 --symlink usr/bin /bin --proc /proc --dev /dev "
               "--tmpfs /tmp --clearenv -- /bin/sh -c 'echo jailed $(ls /proc | grep -c "
               "\"^[0-9]\")'")


def load_generator():
    spec = importlib.util.spec_from_file_location("make_seccomp_profile",
                                                  IMAGES / "make-seccomp-profile.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_lock_file_satisfies_every_runtime_dependency() -> None:
    pinned = {}
    for line in (IMAGES / "requirements.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"not an exact pin: {line}"
            pinned[name.lower().replace("_", "-")] = version
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    for raw in project["dependencies"]:
        requirement = Requirement(raw)
        name = requirement.name.lower().replace("_", "-")
        assert name in pinned, f"{name} is a dependency but not in requirements.lock"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"requirements.lock pins {name}=={pinned[name]}, pyproject wants {raw}")


def test_profile_generator_resolves_capabilities_and_adds_only_bwrap_calls() -> None:
    generator = load_generator()
    default = {"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
        {"names": ["read", "io_uring_setup"], "action": "SCMP_ACT_ALLOW", "includes": {},
         "excludes": {}},
        {"names": ["io_uring_enter"], "action": "SCMP_ACT_ALLOW", "includes": {},
         "excludes": {}},
        {"names": ["mount", "unshare"], "action": "SCMP_ACT_ALLOW",
         "includes": {"caps": ["CAP_SYS_ADMIN"]}, "excludes": {}},
        {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38, "includes": {},
         "excludes": {"caps": ["CAP_SYS_ADMIN"], "arches": ["mips64"]}},
    ]}
    before = copy.deepcopy(default)
    profile = generator.bwrap_profile(default)
    assert default == before, "the input profile must not be modified"
    rules = profile["syscalls"]
    assert [r["names"] for r in rules[:-1]] == [["read"], ["clone3"]]  # io_uring refused
    assert rules[1]["excludes"] == {"arches": ["mips64"]}  # applies whatever the capabilities
    assert sorted(rules[-1]["names"]) == sorted(generator.BWRAP_SYSCALLS)
    assert all(name in rules[-1]["comment"] for name in generator.BWRAP_SYSCALLS)


def test_shipped_profile_is_docker_default_without_capability_rules_plus_bwrap() -> None:
    profile = json.loads(PROFILE.read_text())
    assert (IMAGES / "seccomp-bwrap.json").resolve() == PROFILE
    added = profile["syscalls"][-1]
    assert sorted(added["names"]) == sorted(load_generator().BWRAP_SYSCALLS)
    assert profile["defaultAction"] == "SCMP_ACT_ERRNO"
    for rule in profile["syscalls"]:
        assert not rule.get("includes", {}).get("caps"), rule
        assert not rule.get("excludes", {}).get("caps"), rule
    allowed = {n for r in profile["syscalls"][:-1] if r["action"] == "SCMP_ACT_ALLOW"
               and not r.get("args") and not r.get("includes") for n in r["names"]}
    assert not allowed & set(added["names"]), "Docker's default already allows these"
    assert {"read", "write", "execve"} <= allowed
    every_allowed = {n for r in profile["syscalls"] if r["action"] == "SCMP_ACT_ALLOW"
                     for n in r["names"]}
    assert not every_allowed & {"io_uring_setup", "io_uring_enter", "io_uring_register"}


# --------------------------------------------------------------------------- in Docker


@pytest.fixture(scope="module")
def worker_image() -> str:
    require_docker()
    compose("images-test", "build", "worker", timeout_s=IMAGES_BUILD_S)
    return WORKER_IMAGE


def run_worker(image: str, command: str, *, profile: Path | None = PROFILE,
               privileges: str = "compose") -> subprocess.CompletedProcess[str]:
    """A container with compose.yaml's worker settings (`compose`), or as the image's own user
    with Docker's /proc masks off (`unmasked`, what `docker run` can ask for), or as the image's
    user with nothing else (`none`), running `command`."""
    argv = ["docker", "run", "--rm", "--read-only", "--tmpfs", "/tmp", "--init",
            "--security-opt", "no-new-privileges:true", "--cap-drop", "ALL"]
    if privileges == "compose":
        argv += ["--user", "0:0"] + [f"--cap-add={cap}" for cap in
                                     ("SYS_ADMIN", "SETUID", "SETGID", "SETPCAP")]
    elif privileges == "unmasked":
        argv += ["--security-opt", "systempaths=unconfined"]
    if profile is not None:
        argv += ["--security-opt", f"seccomp={profile}"]
    return subprocess.run([*argv, image, "sh", "-c", command], capture_output=True, text=True,
                          timeout=120, check=False)


@builds_images
def test_bwrap_jail_works_in_the_worker_with_the_shipped_settings(worker_image: str) -> None:
    ran = run_worker(worker_image, BWRAP_PROBE)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("jailed "), ran.stdout


@builds_images
def test_worker_ends_with_no_privilege_at_all(worker_image: str) -> None:
    ran = run_worker(worker_image, "id -u; grep -E '^(CapEff|CapBnd|CapPrm|NoNewPrivs):' "
                                   "/proc/self/status; awk '$5 ~ \"^/proc/\"' "
                                   "/proc/self/mountinfo | wc -l")
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.split("\n")
    assert lines[0] == "10001"
    status = dict(line.split(":\t") for line in lines[1:5])
    assert status == {"CapPrm": "0000000000000000", "CapEff": "0000000000000000",
                      "CapBnd": "0000000000000000", "NoNewPrivs": "1"}
    assert lines[5].strip() == "0", "Docker's masks over /proc are still mounted"


@builds_images
def test_worker_started_without_the_capabilities_says_how_to_run_it(worker_image: str) -> None:
    # As the image's own non-root user with the masks in place, bwrap cannot mount /proc; with
    # them off (no capability at all) it can.
    jailed = run_worker(worker_image, BWRAP_PROBE, privileges="none")
    assert jailed.returncode != 0 and "proc" in jailed.stderr, jailed.stderr
    unmasked = run_worker(worker_image, BWRAP_PROBE, privileges="unmasked")
    assert unmasked.returncode == 0 and unmasked.stdout.startswith("jailed "), unmasked.stderr
    as_root = subprocess.run(
        ["docker", "run", "--rm", "--user", "0:0", "--cap-drop", "ALL", worker_image, "true"],
        capture_output=True, text=True, timeout=120, check=False)
    assert as_root.returncode != 0
    assert "cap_add SYS_ADMIN" in as_root.stderr and "systempaths=unconfined" in as_root.stderr


@builds_images
def test_docker_default_filter_blocks_the_jail(worker_image: str) -> None:
    ran = run_worker(worker_image, BWRAP_PROBE, profile=None)
    assert ran.returncode != 0
    assert "jailed" not in ran.stdout


@builds_images
def test_each_added_call_is_needed(worker_image: str) -> None:
    profile = json.loads(PROFILE.read_text())
    with tempfile.TemporaryDirectory() as scratch:
        for name in profile["syscalls"][-1]["names"]:
            reduced = copy.deepcopy(profile)
            reduced["syscalls"][-1]["names"].remove(name)
            path = Path(scratch) / f"without-{name}.json"
            path.write_text(json.dumps(reduced))
            ran = run_worker(worker_image, BWRAP_PROBE, profile=path, privileges="unmasked")
            assert ran.returncode != 0, f"bwrap still works without {name}: not needed"
            assert ran.stderr.startswith("bwrap: "), (name, ran.stderr)
