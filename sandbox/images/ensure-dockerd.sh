#!/usr/bin/env bash
# Makes sure a Docker engine answers, starting `dockerd` in the background if none does.
# Used by the test suite and CI on machines without an init system that would start it.
# Exit status: 0 the engine answers; 3 Docker is not installed; 4 dockerd did not come up.
# Environment: DOCKER_DATA_ROOT (default /var/lib/docker), DOCKERD_LOG (default
# /var/log/dockerd.log), DOCKERD_WAIT_S (default 60).
set -uo pipefail

if docker info >/dev/null 2>&1; then
    exit 0
fi
if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null; then
    echo "ensure-dockerd: docker is not installed (apt-get install docker.io docker-compose)" >&2
    exit 3
fi
if [[ "$(id -u)" != 0 ]]; then
    echo "ensure-dockerd: no engine answers and only root can start dockerd" >&2
    exit 4
fi

data_root="${DOCKER_DATA_ROOT:-/var/lib/docker}"
log="${DOCKERD_LOG:-/var/log/dockerd.log}"
mkdir -p "$data_root"
# setsid: the daemon outlives the caller (a test session), like a service would.
setsid nohup dockerd --data-root "$data_root" >>"$log" 2>&1 </dev/null &

deadline=$((SECONDS + ${DOCKERD_WAIT_S:-60}))
until docker info >/dev/null 2>&1; do
    if ((SECONDS > deadline)); then
        echo "ensure-dockerd: dockerd did not answer within ${DOCKERD_WAIT_S:-60} s; last log lines:" >&2
        tail -n 20 "$log" >&2
        exit 4
    fi
    sleep 0.5
done
echo "ensure-dockerd: started dockerd (data root $data_root, log $log)"
