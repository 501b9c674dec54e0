"""Assemble a run from its config, then train: `train` below reads top to bottom, and
`train_loop` is one GRPO step, top to bottom.

    policy (fp32 master) + frozen reference  --GRPOLearner-->  GRPO updates
    engine (own weight copy)                 --Pipeline----->  scored groups, version-tagged
    verifier (HTTP)                          --Rewarder----->  rewards as each group finishes
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import torch
import yaml
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.utils import logging as transformers_logging

from rl_client import AsyncVerifierClient
from trainer.algorithm import loss_settings
from trainer.checkpoint import load_checkpoint, save_checkpoint
from trainer.config import Config, config_to_dict
from trainer.data import build_prompt_source, synthetic_addition
from trainer.hf_engine import HFEngine
from trainer.learner import GRPOLearner
from trainer.metrics import Reporter, plot_curves
from trainer.pipeline import Pipeline
from trainer.rewards import VerifierRewarder, embedded_verifier
from trainer.types import Learner, RolloutEngine, Sampling

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
    if checkpoint and checkpoint.state["prompts_per_step"] != config.pipeline.prompts_per_step:
        raise ValueError("cannot resume with a different pipeline.prompts_per_step: the data "
                         f"position is step * {checkpoint.state['prompts_per_step']}")
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
    save = partial(save_run, out, learner, tokenizer, config.pipeline.prompts_per_step)

    try:
        with (verifier_url(config) as url,
              Reporter(out, config.pipeline.steps, start, config.progress) as reporter):
            asyncio.run(run_pipeline(config, engine, learner, tokenizer, url, start,
                                     checkpoint.state["stale_dropped"] if checkpoint else 0,
                                     reporter.log, save))
    finally:
        engine.close()
    plot_curves(out)
    return out


async def run_pipeline(config: Config, engine: RolloutEngine, learner: Learner, tokenizer: Any,
                       url: str, start: int, stale_dropped: int,
                       log: Callable[[dict[str, Any]], None],
                       save: Callable[[int, int], None]) -> None:
    """Connect the verifier, build the pipeline, run the loop."""
    sampling = Sampling(n=config.rollout.samples_per_prompt,
                        max_new_tokens=config.rollout.max_new_tokens,
                        temperature=config.rollout.temperature, top_p=config.rollout.top_p)
    async with AsyncVerifierClient(url) as client:
        pipeline = Pipeline(engine, VerifierRewarder(client),
                            build_prompt_source(config.data, tokenizer), sampling,
                            prompts_per_step=config.pipeline.prompts_per_step,
                            max_staleness=config.pipeline.max_staleness,
                            chunk_prompts=config.rollout.chunk_prompts,
                            colocate=config.pipeline.colocate)
        pipeline.stale_dropped = stale_dropped  # the run's total, across restarts
        await train_loop(pipeline, learner, range(start, config.pipeline.steps), log=log,
                         save=save, save_every=config.save_every)


async def train_loop(pipeline: Pipeline, learner: Learner, steps: range, *,
                     log: Callable[[dict[str, Any]], None],
                     save: Callable[[int, int], None] | None = None, save_every: int = 0) -> None:
    """The training loop. Rollout and reward run ahead inside `pipeline`, at most k versions."""
    async with pipeline.running(steps.start, steps.stop):
        started = time.perf_counter()
        for step in steps:
            # 1. the step's scored groups, those beyond the staleness bound dropped (never any)
            groups, fresh = await pipeline.batch(step)
            # 2. colocated (k = 0): the engine frees its weights and KV cache for training
            await pipeline.release_engine()
            # 3. one GRPO update (or one per minibatch) on the fresh groups
            with pipeline.clocks["train"]:
                learner_stats = await asyncio.to_thread(learner.train_step, fresh, step)
            # 4. the engine takes the new weights as version step + 1; the gate opens
            await pipeline.publish(learner.model, version=step + 1)
            # 5. metrics, and a checkpoint every save_every steps and at the end
            now = time.perf_counter()
            log(pipeline.step_stats(step, groups, fresh, now - started) | learner_stats)
            started = now
            done = step + 1
            if save and ((save_every and done % save_every == 0) or done == steps.stop):
                await asyncio.to_thread(save, done, pipeline.stale_dropped)


def save_run(out: Path, learner: GRPOLearner, tokenizer: Any, prompts_per_step: int,
             next_step: int, stale_dropped: int) -> None:
    save_checkpoint(out, learner.model, tokenizer, learner.optimizer, {
        "step": next_step, "policy_version": next_step,
        "data_slot": next_step * prompts_per_step, "prompts_per_step": prompts_per_step,
        "stale_dropped": stale_dropped,
    })


def build_learner(config: Config, base_path: str, weights_path: str | Path,
                  pad_token_id: int) -> GRPOLearner:
    """The policy as fp32 master weights, the reference in the compute dtype."""
    compute_dtype = getattr(torch, config.model.dtype)
    policy = AutoModelForCausalLM.from_pretrained(weights_path, dtype=torch.float32)
    if config.model.gradient_checkpointing:
        policy.gradient_checkpointing_enable()
    reference = (AutoModelForCausalLM.from_pretrained(base_path, dtype=compute_dtype)
                 if config.algo.reference else None)
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
    from trainer.tiny import build_char_tokenizer, build_tiny_model, format_warmup, save_model

    path = out / BASE_MODEL_DIR
    if not (path / "config.json").exists():
        tokenizer = build_char_tokenizer()
        model = build_tiny_model(tokenizer, hidden=config.model.tiny_hidden,
                                 layers=config.model.tiny_layers, seed=config.seed)
        if config.model.tiny_warmup_steps:
            format_warmup(model, tokenizer, synthetic_addition(config.data.synthetic_max_operand),
                          steps=config.model.tiny_warmup_steps,
                          correct_fraction=config.model.tiny_warmup_correct, seed=config.seed)
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
    if config.verifier.url:
        yield config.verifier.url
        return
    with embedded_verifier(config.verifier.workers, config.verifier.startup_timeout_s) as url:
        yield url
