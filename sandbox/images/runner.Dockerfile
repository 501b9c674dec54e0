# Runner images of the Docker jail backend (VERIFIER_SANDBOX=docker), one per language group:
# Python 3 and bubblewrap (the jail's supervisor and its namespaces) plus that group's toolchain.
# build-runners.sh builds them all; by hand:
#   docker build -f sandbox/images/runner.Dockerfile --build-arg PACKAGES="gcc g++ libc6-dev libboost-dev libssl-dev" \
#       -t rlvr-verifier-runner-c sandbox/images
# The sandbox code itself is not baked in: the backend hands it to each container when it
# starts it, so a runner image never has to be rebuilt when the worker's code changes.
# Versions are pinned by the Debian release (bookworm).

FROM debian:bookworm-slim
ARG PACKAGES=""
COPY java-se-runtime.sh /usr/local/bin/java-se-runtime
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        python3 bubblewrap $PACKAGES \
 && rm -rf /var/lib/apt/lists/* \
 && if command -v javac >/dev/null; then java-se-runtime; fi \
 && groupadd --gid 10001 runner \
 && useradd --uid 10001 --gid runner --no-create-home --home-dir /nonexistent runner
USER runner
WORKDIR /tmp
