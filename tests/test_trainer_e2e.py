"""End to end with real parts: a tiny Llama, the transformers engine, a real verifier server."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import psutil
import pytest
import torch
import yaml
from typer.testing import CliRunner

from rl_client import AsyncVerifierClient
from trainer.algorithm import loss_settings
from trainer.cli import app
from trainer.config import AlgoConfig
from trainer.data import Prompt
from trainer.hf_engine import HFEngine
from trainer.learner import GRPOLearner
from trainer.logprobs import pack
from trainer.metrics import read_metrics
from trainer.rewards import VerifierRewarder
from trainer.run import embedded_verifier
from trainer.tiny import build_char_tokenizer, build_tiny_model
from trainer.types import Completion, Group, Sampling

REPO = Path(__file__).resolve().parents[1]
REQUIRED_METRICS = {
    "step", "policy_version", "reward_mean", "accuracy", "kl", "entropy", "clip_frac",
    "is_weight_mean", "is_truncated_frac", "is_cap", "staleness_max", "max_staleness",
    "staleness_hist", "stale_dropped", "groups_dropped", "reward_masked", "rollout_s",
    "reward_s", "train_s", "sync_s", "rollout_idle", "train_idle", "tokens_per_s",
}


@pytest.fixture(scope="module")
def tiny():
    tokenizer = build_char_tokenizer()
    return tokenizer, build_tiny_model(tokenizer, seed=1)


def test_engine_logprobs_match_the_learner_and_updates_follow_the_advantage(tiny):
    tokenizer, model = tiny
    engine = HFEngine(build_tiny_model(tokenizer, seed=1), tokenizer)
    prompt = Prompt(text="2+2=", token_ids=tokenizer("2+2=")["input_ids"], answer="4")
    [completions] = engine.generate([prompt.token_ids], Sampling(n=4, max_new_tokens=5,
                                                                 temperature=0.7))
    assert len(completions) == 4
    assert all(len(c.token_ids) == len(c.logprobs) and c.logprobs for c in completions)

    algo = AlgoConfig(lr=1e-2, loss="grpo", overlong="none", reference=False)
    learner = GRPOLearner(model, loss_settings("grpo", 0.2, None, 2.0), algo, temperature=0.7,
                          max_new_tokens=5, pad_token_id=tokenizer.pad_token_id, total_steps=1)
    batch = pack([(prompt.token_ids, c.token_ids) for c in completions], tokenizer.pad_token_id,
                 "cpu")
    mask = batch.mask
    with torch.no_grad():
        logp = learner.logprobs(learner.model, batch, 0.7).logp
    behaviour = torch.tensor([c.logprobs + [0.0] * (mask.shape[1] - len(c.logprobs))
                              for c in completions])
    torch.testing.assert_close(logp * mask, behaviour * mask, atol=1e-4, rtol=1e-4)

    rewards = [1.0, 0.0, 0.0, 0.0]
    group = Group(0, prompt, completions, 0, rewards, ["correct"] + ["wrong"] * 3)
    stats = learner.train_step([group], step=0)
    assert stats["is_weight_mean"] == pytest.approx(1.0, abs=1e-3)
    assert stats["mismatch_abs_max"] < 1e-4  # the engine reports the learner's distribution
    assert stats["groups_trained"] == 1 and stats["kl"] is None
    with torch.no_grad():
        after = learner.logprobs(learner.model, batch, 0.7).logp
    gained = ((after - logp) * mask).sum(dim=1)
    assert gained[0] > 0 > gained[1:].max()  # rewarded sample up, the others down

    engine.load_weights(learner.model, version=1)
    assert engine.version == 1
    for ours, theirs in zip(engine.model.parameters(), learner.model.parameters(), strict=True):
        assert torch.equal(ours, theirs)


def test_rewards_come_from_the_verifier(verifier_url):
    prompt = Prompt(text="2+2=", token_ids=[1], answer="4")
    completions = [_completion("4"), _completion("5"), _completion("")]

    async def score():
        async with AsyncVerifierClient(verifier_url) as client:
            return await VerifierRewarder(client).score(prompt, completions)

    rewards, statuses = asyncio.run(score())
    assert rewards == [1.0, 0.0, 0.0]
    assert statuses[0] == "correct" and statuses[1] == "wrong"


def _completion(text: str):
    return Completion([1], [-1.0], text, truncated=False)


def test_embedded_verifier_leaves_no_process_behind():
    with embedded_verifier(workers=1) as url:
        assert httpx.get(f"{url}/healthz").json()["status"] == "ok"
        httpx.post(f"{url}/v1/verify", json={"items": [
            {"kind": "math", "response": "4", "answer": "4"}]}, timeout=30).raise_for_status()
        # this server's processes only (the session's own server may start some meanwhile)
        port = url.rsplit(":", 1)[1]
        server = next(p for p in psutil.Process().children() if port in p.cmdline())
        started = [server, *server.children(recursive=True)]
    gone, alive = psutil.wait_procs(started, timeout=10)
    assert not alive


STARTER = """
import sys, time
from trainer.run import embedded_verifier
with embedded_verifier(workers=1) as url:
    print(url, flush=True)
    time.sleep(600)
"""


def test_embedded_verifier_ends_when_its_starter_is_killed():
    """SIGKILL (or the OOM killer) gives the starter no chance to stop the server: the server
    and its workers must notice on their own."""
    starter = subprocess.Popen([sys.executable, "-c", STARTER], stdout=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        url = starter.stdout.readline().strip()
        assert httpx.get(f"{url}/healthz").json()["status"] == "ok"
        orphans = psutil.Process(starter.pid).children(recursive=True)
        assert orphans
    finally:
        starter.kill()
        starter.wait()
    gone, alive = psutil.wait_procs(orphans, timeout=60)
    assert not alive, [p.cmdline() for p in alive]


def test_train_then_resume_through_the_cli(tmp_path, verifier_url):
    out = tmp_path / "run"
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({
        "model": {"tiny": True, "tiny_warmup_steps": 10},
        "data": {"source": "synthetic", "synthetic_max_operand": 3},
        "rollout": {"samples_per_prompt": 4, "max_new_tokens": 3, "chunk_prompts": 2},
        "algo": {"loss": "dapo", "lr": 1e-3, "minibatches": 2, "kl_coef": 0.01},
        "pipeline": {"steps": 4, "prompts_per_step": 4, "max_staleness": 1},
        "verifier": {"url": verifier_url},
        "out_dir": str(out), "save_every": 2, "progress": False,
    }))
    runner = CliRunner()
    children_before = set(psutil.Process().children())
    result = runner.invoke(app, ["train", "--config", str(config)])
    assert result.exit_code == 0, result.output
    rows = _metrics(out)
    assert [r["step"] for r in rows] == [0, 1, 2, 3]
    assert set(rows[0]) >= REQUIRED_METRICS
    assert all(r["staleness_max"] <= 1 and r["stale_dropped"] == 0 for r in rows)
    assert any(r["reward_mean"] is not None for r in rows)
    assert (out / "curves.png").stat().st_size > 10_000
    state = json.loads((out / "checkpoint" / "trainer_state.json").read_text())
    assert state["step"] == 4 and state["data_slot"] == 16 and state["policy_version"] == 4
    assert _weights_differ(out / "base_model", out / "checkpoint")

    result = runner.invoke(app, ["train", "--config", str(config), "--set", "pipeline.steps=6"])
    assert result.exit_code == 0, result.output
    rows = _metrics(out)
    assert [r["step"] for r in rows] == [0, 1, 2, 3, 4, 5]
    assert [r["policy_version"] for r in rows[4:]] == [5, 6]
    state = json.loads((out / "checkpoint" / "trainer_state.json").read_text())
    assert state["step"] == 6 and state["data_slot"] == 24
    assert set(psutil.Process().children()) <= children_before  # nothing of ours left


EVAL_FIGURES = {"prompts", "pass@1", "pass@4", "reward_mean", "response_len", "greedy_accuracy",
                "greedy_reward_mean", "greedy_response_len", "by_kind", "infra_error", "eval_s"}


def test_held_out_evaluation_while_training_and_of_a_checkpoint_alone(tmp_path, verifier_url):
    """Dynamic sampling and evaluation every 2 steps through `grpo train`, then `grpo eval`
    of the checkpoint with nothing but its directory."""
    out = tmp_path / "run"
    config = tmp_path / "eval.yaml"
    config.write_text(yaml.safe_dump({
        "model": {"tiny": True, "tiny_warmup_steps": 30, "tiny_warmup_correct": 0.5},
        "data": {"source": "synthetic", "synthetic_max_operand": 3},
        "rollout": {"samples_per_prompt": 4, "max_new_tokens": 3, "chunk_prompts": 2},
        "algo": {"loss": "dapo", "lr": 1e-3},
        "pipeline": {"steps": 4, "prompts_per_step": 2, "max_staleness": 1,
                     "dynamic_sampling": True, "dynamic_sampling_cap": 2.0},
        "eval": {"every": 2, "holdout": 4, "samples": 4, "pass_k": [1, 4]},
        "verifier": {"url": verifier_url},
        "out_dir": str(out), "progress": False,
    }))
    runner = CliRunner()
    result = runner.invoke(app, ["train", "--config", str(config)])
    assert result.exit_code == 0, result.output
    evals = read_metrics(out, "eval")
    assert [r["step"] for r in evals] == [0, 2, 4]
    assert all(set(r) >= EVAL_FIGURES and r["prompts"] == 4 for r in evals)
    assert set(evals[0]["by_kind"]) == {"math"}
    trained = read_metrics(out)
    assert [r["step"] for r in trained] == [0, 1, 2, 3]
    assert all(2 <= r["groups_generated"] <= 4 and 0 <= r["zero_signal_frac"] <= 1
               for r in trained)
    state = json.loads((out / "checkpoint" / "trainer_state.json").read_text())
    assert state["data_slot"] == sum(r["groups_generated"] for r in trained)

    result = runner.invoke(app, ["eval", "--checkpoint", str(out / "checkpoint"),
                                 "--set", "eval.samples=2", "--set", "eval.pass_k=[1, 2]"])
    assert result.exit_code == 0, result.output
    figures = json.loads((out / "checkpoint" / "eval.json").read_text())
    assert figures["prompts"] == 4 and {"pass@1", "pass@2", "greedy_accuracy"} <= set(figures)
    assert "pass@1" in result.output and "greedy_accuracy" in result.output


def test_cli_rejects_a_bad_override(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("model:\n  tiny: true\n")
    result = CliRunner().invoke(app, ["train", "--config", str(config), "--set", "algo.nope=1"])
    assert result.exit_code != 0
    assert "unknown config key 'algo.nope'" in result.output


def _metrics(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]


def _weights_differ(a: Path, b: Path) -> bool:
    from safetensors.torch import load_file

    first, second = load_file(a / "model.safetensors"), load_file(b / "model.safetensors")
    return any(not torch.equal(first[k], second[k]) for k in first)
