#!/usr/bin/env bash
# Builds the runner images of the Docker jail backend (verifier/sandbox/docker_backend.py):
# rlvr-verifier-runner-<group>:${RUNNER_TAG:-latest} for each language group below.
# Usage: build-runners.sh [GROUP...]   (default: all groups)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tag="${RUNNER_TAG:-latest}"

declare -A packages=(
    [python]=""
    [bash]=""
    [c]="gcc g++ libc6-dev libboost-dev libssl-dev"
    [java]="openjdk-17-jdk-headless"
    [javascript]="nodejs"
    [rust]="rustc"
)

groups=("$@")
[[ ${#groups[@]} -gt 0 ]] || groups=(python bash c java javascript rust)
for group in "${groups[@]}"; do
    [[ -v "packages[$group]" ]] || { echo "build-runners: unknown group $group" >&2; exit 2; }
    docker build --quiet -f "$here/runner.Dockerfile" --build-arg "PACKAGES=${packages[$group]}" \
        -t "rlvr-verifier-runner-$group:$tag" "$here" >/dev/null
    echo "build-runners: rlvr-verifier-runner-$group:$tag"
done
