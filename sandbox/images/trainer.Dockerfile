# The GPU image of compose.yaml's `gpu` profile: the GRPO trainer and the vLLM rollout server
# (`vllm serve`), one image for both so that their torch/CUDA builds always match, which NCCL
# weight sync between them requires. Build context: the repository root.
#   docker build -f sandbox/images/trainer.Dockerfile -t rlvr-verifier-trainer .
#
# vLLM's PyPI wheel pins torch and brings the CUDA runtime libraries as wheels, so the base is
# the same Debian image as the rest of the stack; the host provides only the NVIDIA driver
# (through the NVIDIA container toolkit). Several GB; needs no GPU to build, one to run.

FROM debian:bookworm-slim
ENV DEBIAN_FRONTEND=noninteractive \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    HF_HOME=/srv/verifier/hf-cache
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3.11 python3.11-venv python3.11-dev \
        gcc libc6-dev ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && python3.11 -m venv "$VIRTUAL_ENV" \
 && groupadd --gid 10001 verifier \
 && useradd --uid 10001 --gid verifier --home-dir /srv/verifier --create-home verifier
# vLLM first (the big, rarely changing layer); it pins its own torch and transformers.
# gcc and the Python headers are there because Triton compiles small helpers at run time.
RUN pip install vllm==0.33.0 matplotlib==3.11.2
# Then the project with its trainer extra, resolved together with vLLM's pins (vLLM pins some
# of the service's dependencies itself, so requirements.lock does not apply here).
COPY pyproject.toml README.md /tmp/src/
COPY verifier /tmp/src/verifier
COPY rlvr_contract /tmp/src/rlvr_contract
COPY rl_client /tmp/src/rl_client
COPY trainer /tmp/src/trainer
RUN pip install "/tmp/src[trainer]" vllm==0.33.0 && rm -rf /tmp/src
USER verifier
WORKDIR /srv/verifier
CMD ["grpo", "--help"]
