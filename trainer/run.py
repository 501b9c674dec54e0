"""Assemble a run from its config, then train: `train` below reads top to bottom, and
trainer/loop.py's `train_loop` is one GRPO step, top to bottom.

    policy (fp32 master) + frozen reference  --GRPOLearner-->  GRPO updates
    engine (own weight copy)                 --Pipeline----->  scored groups, version-tagged
      (+ the verifier's sessions)            --ToolRollout-->  the policy's code run mid-rollout
    verifier (HTTP)                          --Rewarder----->  rewards as each group finishes
    held-out split                           --Evaluator---->  greedy accuracy, pass@k
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import torch
import yaml
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.utils import logging as transformers_logging

from rl_client import AsyncVerifierClient
from trainer.algorithm import loss_settings
from trainer.checkpoint import load_checkpoint, save_checkpoint
from trainer.code_tool import VerifierCodeTool
from trainer.config import Config, config_to_dict
from trainer.data import Prompt, build_prompts, synthetic_records
from trainer.evaluation import Evaluator
from trainer.hf_engine import HFEngine
from trainer.learner import GRPOLearner, has_signal
from trainer.loop import MaskedRewardWatch, train_loop
from trainer.metrics import Reporter, plot_curves
from trainer.pipeline import Pipeline
from trainer.rewards import VerifierRewarder
from trainer.tool_rollout import ToolRollout
from trainer.types import Completion, Rewarder, RolloutEngine, Sampling

BASE_MODEL_DIR = "base_model"

# Checkpoints are saved every few steps; a progress bar per save would drown the run's own.
transformers_logging.disable_progress_bar()


def train(config: Config) -> Path:
    """Run (or resume) training as configured; returns the output directory."""
    out = Path(config.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(yaml.safe_dump(config_to_dict(config), sort_keys=False))
    random.seed(config.seed)
    torch.manual_seed(config.seed)

    base_path = prepare_base_model(config, out)
    checkpoint = load_checkpoint(out) if config.resume else None
    start = checkpoint.state["step"] if checkpoint else 0
    tokenizer = AutoTokenizer.from_pretrained(base_path)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    learner = build_learner(config, base_path, checkpoint.path if checkpoint else base_path,
                            tokenizer.pad_token_id)
    if checkpoint:
        checkpoint.load_optimizer(learner.optimizer)
        checkpoint.restore_rng()
    engine = build_engine(config, base_path, tokenizer)
    if start:
        engine.load_weights(learner.model, start)  # resume: the checkpoint's weights
    save = partial(save_run, out, learner, tokenizer)

    resumed = checkpoint.state if checkpoint else {}
    try:
        with (verifier_url(config) as url,
              Reporter(out, config.pipeline.steps, start, config.progress) as reporter):
            asyncio.run(run_pipeline(config, engine, learner, tokenizer, url, start,
                                     resumed.get("data_slot"), resumed.get("stale_dropped", 0),
                                     reporter.log, save))
    finally:
        engine.close()
    plot_curves(out)
    return out


def sampling_of(config: Config) -> Sampling:
    rollout = config.rollout
    return Sampling(n=rollout.samples_per_prompt, max_new_tokens=rollout.max_new_tokens,
                    temperature=rollout.temperature, top_p=rollout.top_p)


def build_evaluator(config: Config, prompts: list[Prompt], rewarder: Rewarder) -> Evaluator:
    """The held-out split's evaluation, its sampling from the `eval` section (or rollout's)."""
    evaluation, rollout = config.eval, config.rollout
    sampling = Sampling(n=evaluation.samples,
                        max_new_tokens=evaluation.max_new_tokens or rollout.max_new_tokens,
                        temperature=(rollout.temperature if evaluation.temperature is None
                                     else evaluation.temperature), top_p=rollout.top_p)
    return Evaluator(prompts, rewarder, sampling, evaluation.pass_k, greedy=evaluation.greedy,
                     chunk_prompts=rollout.chunk_prompts, tools=config.tools.enabled)


def build_tools(config: Config, client: AsyncVerifierClient, tokenizer: Any
                ) -> ToolRollout | None:
    """Tool-integrated rollouts through the verifier's sessions, when `tools.enabled`."""
    if not config.tools.enabled:
        return None
    return ToolRollout(config.tools, VerifierCodeTool(client, config.tools), tokenizer)


async def run_pipeline(config: Config, engine: RolloutEngine, learner: GRPOLearner,
                       tokenizer: Any, url: str, start: int, data_slot: int | None,
                       stale_dropped: int, log: Callable[[dict[str, Any]], None],
                       save: Callable[[int, int, int], None]) -> None:
    """Connect the verifier, build the pipeline (and the evaluation), run the loop."""
    pipeline_config = config.pipeline
    train_prompts, eval_prompts = build_prompts(config.data, config.eval, tokenizer)
    async with AsyncVerifierClient(url) as client:
        rewarder = VerifierRewarder(client)
        pipeline = Pipeline(
            engine, rewarder, train_prompts, sampling_of(config),
            prompts_per_step=pipeline_config.prompts_per_step,
            max_staleness=pipeline_config.max_staleness,
            chunk_prompts=config.rollout.chunk_prompts, colocate=pipeline_config.colocate,
            has_signal=partial(has_signal, settings=learner.settings, algo=config.algo,
                               max_new_tokens=config.rollout.max_new_tokens),
            dynamic_sampling_cap=(pipeline_config.dynamic_sampling_cap
                                  if pipeline_config.dynamic_sampling else None),
            tools=build_tools(config, client, tokenizer))
        pipeline.stale_dropped = stale_dropped  # the run's total, across restarts
        evaluator = (build_evaluator(config, eval_prompts, rewarder)
                     if config.eval.every else None)
        await train_loop(pipeline, learner, range(start, pipeline_config.steps), log=log,
                         save=save, save_every=config.save_every, first_slot=data_slot,
                         watch=MaskedRewardWatch.of(pipeline_config), evaluator=evaluator,
                         eval_every=config.eval.every)


def save_run(out: Path, learner: GRPOLearner, tokenizer: Any, next_step: int, data_slot: int,
             stale_dropped: int) -> None:
    save_checkpoint(out, learner.model, tokenizer, learner.optimizer, {
        "step": next_step, "policy_version": next_step, "data_slot": data_slot,
        "stale_dropped": stale_dropped,
    })


def evaluate_checkpoint(config: Config, model_dir: Path) -> dict[str, Any]:
    """`grpo eval`: the held-out split scored with the weights saved in `model_dir` alone."""
    if config.rollout.engine == "vllm_server":
        raise ValueError("grpo eval runs the checkpoint in this process: rollout.engine hf or vllm")
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    _, prompts = build_prompts(config.data, config.eval, tokenizer)
    if not prompts:
        raise ValueError("no evaluation split: set eval.source (a JSONL) or eval.holdout")
    engine = build_engine(config, str(model_dir), tokenizer)
    progress = Progress(TextColumn("[bold]grpo eval"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), disable=not config.progress)
    calls = math.ceil(len(prompts) / config.rollout.chunk_prompts) * (1 + config.eval.greedy)
    task = progress.add_task("", total=calls)

    async def engine_round(contexts: list[list[int]], sampling: Sampling
                           ) -> tuple[list[list[Completion]], int]:
        return await asyncio.to_thread(engine.generate, contexts, sampling), engine.version

    async def evaluate(url: str) -> dict[str, Any]:
        async with AsyncVerifierClient(url) as client:
            tools = build_tools(config, client, tokenizer)

            async def generate(chunk: list[Prompt], sampling: Sampling
                               ) -> list[list[Completion]]:
                token_ids = [p.token_ids for p in chunk]
                out, _ = await (engine_round(token_ids, sampling) if tools is None
                                else tools.generate(token_ids, sampling, engine_round))
                progress.advance(task)
                return out

            evaluator = build_evaluator(config, prompts, VerifierRewarder(client))
            return await evaluator.evaluate(generate)

    try:
        with verifier_url(config) as url, progress:
            return asyncio.run(evaluate(url))
    finally:
        engine.close()


def build_learner(config: Config, base_path: str, weights_path: str | Path,
                  pad_token_id: int) -> GRPOLearner:
    """The policy as fp32 master weights, the reference in the compute dtype."""
    compute_dtype = getattr(torch, config.model.dtype)
    policy = AutoModelForCausalLM.from_pretrained(weights_path, dtype=torch.float32)
    if config.model.gradient_checkpointing:
        policy.gradient_checkpointing_enable()
    keep_reference = (config.algo.kl_coef > 0 if config.algo.reference is None
                      else config.algo.reference)  # None until load_config resolves it
    reference = (AutoModelForCausalLM.from_pretrained(base_path, dtype=compute_dtype)
                 if keep_reference else None)
    settings = loss_settings(config.algo.loss, config.algo.clip_low, config.algo.clip_high,
                             config.algo.is_cap, config.algo.is_mode)
    return GRPOLearner(policy, settings, config.algo, temperature=config.rollout.temperature,
                       max_new_tokens=config.rollout.max_new_tokens, pad_token_id=pad_token_id,
                       total_steps=config.pipeline.steps, reference=reference,
                       device=config.model.device, compute_dtype=compute_dtype)


def prepare_base_model(config: Config, out: Path) -> str:
    """The starting weights: a hub/local path, or (tiny) a model built once into OUT."""
    if not config.model.tiny:
        if not config.model.path:
            raise ValueError("set model.path (hub name or directory), or model.tiny: true")
        return config.model.path
    from trainer.tiny import (
        ALPHABET,
        TOOL_ALPHABET,
        build_char_tokenizer,
        build_tiny_model,
        format_warmup,
        save_model,
    )

    path = out / BASE_MODEL_DIR
    if not (path / "config.json").exists():
        tools = config.tools if config.tools.enabled else None
        tokenizer = build_char_tokenizer(ALPHABET if tools is None else TOOL_ALPHABET)
        model = build_tiny_model(tokenizer, hidden=config.model.tiny_hidden,
                                 layers=config.model.tiny_layers, seed=config.seed)
        if config.model.tiny_warmup_steps:
            format_warmup(model, tokenizer, synthetic_records(config.data),
                          steps=config.model.tiny_warmup_steps,
                          correct_fraction=config.model.tiny_warmup_correct, seed=config.seed,
                          tools=tools)
        save_model(model, tokenizer, path)
    return str(path)


def build_engine(config: Config, model_path: str, tokenizer: Any) -> RolloutEngine:
    rollout = config.rollout
    if rollout.engine == "hf":
        model = AutoModelForCausalLM.from_pretrained(model_path,
                                                     dtype=getattr(torch, config.model.dtype))
        return HFEngine(model, tokenizer, device=rollout.device)
    if rollout.engine == "vllm":
        from trainer.vllm_engine import VLLMEngine

        return VLLMEngine(model_path, dtype=config.model.dtype,
                          gpu_memory_utilization=rollout.gpu_memory_utilization,
                          max_model_len=rollout.max_model_len, seed=config.seed,
                          sleep_mode=config.pipeline.colocate)
    from trainer.vllm_engine import VLLMServerPool

    if not rollout.server_urls:
        raise ValueError("rollout.engine vllm_server needs rollout.server_urls")
    return VLLMServerPool(rollout.server_urls, model_name=model_path,
                          sync_host=rollout.weight_sync_host,
                          sync_port=rollout.weight_sync_port)


@contextlib.contextmanager
def verifier_url(config: Config) -> Iterator[str]:
    """The verifier's base URL: `verifier.url`, or a server started embedded for the run."""
    if config.verifier.url:
        yield config.verifier.url
        return
    with embedded_verifier(config.verifier.workers, config.verifier.startup_timeout_s) as url:
        yield url


@contextlib.contextmanager
def embedded_verifier(workers: int, startup_timeout_s: float = 60.0) -> Iterator[str]:
    """`verifier serve` (embedded mode) as a child process on a free loopback port; its URL.

    The server package's launcher (verifier.local) runs it in its own process group with a
    lifeline, so neither it nor its workers outlive the run, even when the run is killed. It
    is imported here only: a trainer given `verifier.url` needs the client alone.
    """
    from verifier.local import LocalServer

    with LocalServer("--workers", str(workers), "--log-level", "warning",
                     startup_timeout_s=startup_timeout_s) as server:
        yield server.url
