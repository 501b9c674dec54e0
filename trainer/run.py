"""Assemble a run from its config: model, engine, data, verifier, pipeline; then train.

    policy + frozen reference  --Learner-->  GRPO updates
    engine (own weight copy)   --Pipeline--> samples tagged with their policy version
    verifier (HTTP)            --Rewarder--> rewards as each group finishes
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Iterator
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
from trainer.engine import HFEngine, RolloutEngine, Sampling
from trainer.learner import Learner
from trainer.metrics import Reporter, plot_curves
from trainer.pipeline import Pipeline
from trainer.rewards import VerifierRewarder, embedded_verifier

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

    dtype = getattr(torch, config.model.dtype)
    tokenizer = AutoTokenizer.from_pretrained(base_path)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    policy = AutoModelForCausalLM.from_pretrained(checkpoint.path if checkpoint else base_path,
                                                  dtype=dtype)
    if config.model.gradient_checkpointing:
        policy.gradient_checkpointing_enable()
    keep_reference = config.algo.reference or config.algo.kl_coef > 0
    reference = (AutoModelForCausalLM.from_pretrained(base_path, dtype=dtype)
                 if keep_reference else None)
    settings = loss_settings(config.algo.loss, config.algo.clip_low, config.algo.clip_high,
                             config.algo.is_cap)
    learner = Learner(policy, settings, config.algo, temperature=config.rollout.temperature,
                      max_new_tokens=config.rollout.max_new_tokens,
                      pad_token_id=tokenizer.pad_token_id, reference=reference,
                      device=config.model.device)
    if checkpoint:
        checkpoint.load_optimizer(learner.optimizer)

    engine = build_engine(config, base_path, tokenizer)
    if start:
        engine.load_weights(learner.model, start)  # resume: the checkpoint's weights
    prompts = build_prompt_source(config.data, tokenizer)
    sampling = Sampling(n=config.rollout.samples_per_prompt,
                        max_new_tokens=config.rollout.max_new_tokens,
                        temperature=config.rollout.temperature, top_p=config.rollout.top_p)
    counters = {"stale_dropped": checkpoint.state["stale_dropped"] if checkpoint else 0}

    def save(next_step: int) -> None:
        save_checkpoint(out, learner.model, tokenizer, learner.optimizer, {
            "step": next_step, "policy_version": next_step,
            "data_slot": next_step * config.pipeline.prompts_per_step,
            "prompts_per_step": config.pipeline.prompts_per_step, **counters,
        })

    async def run_pipeline(url: str, reporter: Reporter) -> None:
        def on_step(stats: dict[str, Any]) -> None:
            counters["stale_dropped"] += stats["stale_dropped"]
            reporter.log(stats)
            done = stats["step"] + 1
            if config.save_every and done % config.save_every == 0 and done < config.pipeline.steps:
                save(done)

        async with AsyncVerifierClient(url) as client:
            pipeline = Pipeline(engine, learner, VerifierRewarder(client), prompts, sampling,
                                prompts_per_step=config.pipeline.prompts_per_step,
                                max_staleness=config.pipeline.max_staleness,
                                chunk_prompts=config.rollout.chunk_prompts, on_step=on_step)
            await pipeline.run(start, config.pipeline.steps)

    try:
        with (verifier_url(config) as url,
              Reporter(out, config.pipeline.steps, start, config.progress) as reporter):
            asyncio.run(run_pipeline(url, reporter))
    finally:
        engine.close()
    save(config.pipeline.steps)
    plot_curves(out)
    return out


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
                          max_model_len=rollout.max_model_len, seed=config.seed)
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
