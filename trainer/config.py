"""Run configuration: plain nested dataclasses, loaded from YAML, overridden with `key=value`.

Every knob of a run lives here with its default, so this file doubles as the reference for
what can be configured. `load_config("run.yaml", ["algo.lr=1e-5", "pipeline.max_staleness=2"])`.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml


@dataclass
class ModelConfig:
    path: str = ""  # HF hub name or local directory; `tiny` builds one locally instead
    tiny: bool = False  # build the tiny char-level Llama of trainer/tiny.py (demo, tests)
    tiny_hidden: int = 128
    tiny_layers: int = 2
    tiny_warmup_steps: int = 0  # supervised warm-up of the tiny model (see tiny.format_warmup)
    tiny_warmup_correct: float = 0.0  # fraction of warm-up targets that are the right answer
    # Compute dtype (autocast) of the learner and dtype of the engine's copy; the trained
    # weights and the optimizer state are fp32 whatever this says (trainer/learner.py).
    dtype: Literal["float32", "bfloat16"] = "float32"
    device: str = "auto"  # the trainer's device; auto: cuda when available, else cpu
    gradient_checkpointing: bool = False


@dataclass
class DataConfig:
    source: str = "synthetic"  # "synthetic" or a JSONL path (prompt + answer | tests)
    synthetic_max_operand: int = 9  # synthetic task: a+b with 0 <= a, b <= this
    synthetic_min_operand: int = 0
    synthetic_op: Literal["+", "*"] = "+"  # a+b=, or a*b= (the tools demo: code computes it)
    chat_template: bool = True  # wrap prompts in the tokenizer's chat template if it has one
    system_prompt: str = ""
    prompt_suffix: str = ""  # appended to every prompt (e.g. an answer-format instruction)
    seed: int = 0  # shuffling order of the dataset, epoch by epoch


@dataclass
class RolloutConfig:
    engine: Literal["hf", "vllm", "vllm_server"] = "hf"
    samples_per_prompt: int = 8  # the GRPO group size
    max_new_tokens: int = 16
    temperature: float = 1.0
    top_p: float = 1.0  # keep 1.0: the trainer recomputes log-probs without nucleus truncation
    chunk_prompts: int = 4  # prompts per generate call; rewards are requested per finished group
    device: str = ""  # hf engine; empty: the trainer's device (model.device)
    gpu_memory_utilization: float = 0.3  # vllm in-process: its fixed share (weights + KV cache)
    max_model_len: int = 2048  # vllm
    server_urls: list[str] = field(default_factory=list)  # vllm_server: running `vllm serve`s
    weight_sync_port: int = 29500  # vllm_server: NCCL rendezvous, one port per server from here
    weight_sync_host: str = "127.0.0.1"


@dataclass
class AlgoConfig:
    loss: Literal["grpo", "dr_grpo", "dapo"] = "grpo"
    clip_low: float = 0.2
    clip_high: float | None = None  # None: 0.28 for dapo (clip-higher), else clip_low
    kl_coef: float = 0.0  # beta of the KL penalty to the frozen reference (algorithm.py)
    # Keep a frozen reference to report (and penalise) KL. None: only when kl_coef > 0; true
    # with kl_coef 0 reports KL every kl_log_every steps (the reference's forward costs ~1/3
    # of the policy's forward and backward on the steps it runs)
    reference: bool | None = None
    kl_log_every: int = 1
    is_cap: float = 2.0  # C of the off-policy correction (algorithm.py)
    # truncate: w = min(ratio, C) per token; mask: tokens whose ratio is outside [1/C, C] are
    # dropped; sequence: one weight per sample, min(geometric mean of its ratios, C)
    is_mode: Literal["truncate", "mask", "sequence"] = "truncate"
    overlong: Literal["mask", "penalty", "none"] = "mask"
    overlong_buffer: int = 4  # penalty ramps from 0 to -overlong_penalty over these last tokens
    overlong_penalty: float = 1.0
    lr: float = 1e-6  # peak learning rate
    warmup_steps: int = 0  # linear warm-up from lr / warmup_steps to lr over these steps
    lr_schedule: Literal["constant", "cosine", "linear"] = "constant"  # after the warm-up
    min_lr_ratio: float = 0.0  # cosine/linear decay ends at lr * this (at pipeline.steps)
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    minibatches: int = 1  # optimizer steps per batch (> 1 makes the PPO clip bite)
    # Sequences per forward/backward (gradient accumulation). Activations grow with it: at 64,
    # a 0.5B model's 1.5k-token sequences would keep over 100 GB without gradient
    # checkpointing (by arithmetic on the shapes; no GPU run has measured it)
    micro_batch_size: int = 8
    logprob_chunk_tokens: int = 1024  # completion tokens per [chunk, vocab] fp32 softmax


@dataclass
class PipelineConfig:
    steps: int = 100
    prompts_per_step: int = 8
    max_staleness: int = 1  # k: never train on samples from a policy more than k versions old
    # Colocated synchronous mode (k = 0, hf or vllm engine): the engine sleeps while the learner
    # trains (vLLM frees its weights and KV cache) and wakes with the new weights. Off: the
    # engine keeps its fixed share of the device and rollout overlaps training (k >= 1).
    colocate: bool = False
    # Dynamic sampling (DAPO): a step draws more prompts until prompts_per_step of its groups
    # carry signal (rewards not all equal), generating at most dynamic_sampling_cap times
    # prompts_per_step groups; zero_signal_frac is logged either way (trainer/pipeline.py)
    dynamic_sampling: bool = False
    dynamic_sampling_cap: float = 3.0
    # A step whose samples the verifier failed (infra_error, masked) at this share or more
    # raises an alarm; masked_fail_steps such steps in a row stop the run (0: never stop)
    masked_alarm_share: float = 0.5
    masked_fail_steps: int = 3


@dataclass
class EvalConfig:
    every: int = 0  # evaluate the held-out split every this many steps, at the start and end
    source: str = ""  # JSONL of evaluation prompts; empty: `holdout` records of data.source
    holdout: int = 0  # records of data.source held out of training for evaluation
    max_prompts: int = 0  # evaluate the first this many prompts of the split; 0: all
    samples: int = 8  # sampled completions per prompt (pass@k for k <= samples)
    pass_k: list[int] = field(default_factory=lambda: [1, 8])
    temperature: float | None = None  # of the sampled completions; None: rollout.temperature
    greedy: bool = True  # also one greedy completion per prompt: greedy accuracy
    max_new_tokens: int | None = None  # None: rollout.max_new_tokens


@dataclass
class ToolsConfig:
    """Tool-integrated rollouts (trainer/tool_rollout.py): generation stops where the policy
    closes a code block, the block runs in the trajectory's session of the verifier service,
    its output is appended between output_open and output_close, and generation goes on."""

    enabled: bool = False
    max_calls: int = 4  # code blocks run per trajectory; later ones are left as plain text
    code_open: str = "```python"  # a block is the text between the last code_open ...
    code_close: str = "```"  # ... and this, the stop string that ends a generation round
    output_open: str = "\n```output\n"
    output_close: str = "\n```\n"
    # Output (stdout, a final expression's value, a traceback) beyond this many characters is
    # cut in the middle, with a marker saying how many were cut
    max_output_chars: int = 1024
    timeout_s: float = 10.0  # each run's wall limit (the service caps it at its own maximum)
    memory_mb: int = 512  # the session interpreter's memory
    # true: one session per trajectory (variables, imports and files carry over between its
    # blocks); false: each block runs alone through /run_code (its standard output only)
    stateful: bool = True
    # A session is deleted when its trajectory ends (or fails, or is cancelled); the service
    # ends one idle this long anyway (a trainer killed outright)
    session_ttl_s: float = 300.0


@dataclass
class VerifierConfig:
    url: str | None = None  # None: start `verifier serve` embedded on a free port
    workers: int = 2  # embedded server's worker processes
    startup_timeout_s: float = 60.0


@dataclass
class Config:
    model: ModelConfig = field(default_factory=ModelConfig)
    data: DataConfig = field(default_factory=DataConfig)
    rollout: RolloutConfig = field(default_factory=RolloutConfig)
    algo: AlgoConfig = field(default_factory=AlgoConfig)
    pipeline: PipelineConfig = field(default_factory=PipelineConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    tools: ToolsConfig = field(default_factory=ToolsConfig)
    verifier: VerifierConfig = field(default_factory=VerifierConfig)
    out_dir: str = "runs/grpo"
    seed: int = 0
    save_every: int = 50  # checkpoint every this many steps (and at the end); 0: only at the end
    resume: bool = True  # continue from out_dir/checkpoint when it exists
    progress: bool = True  # rich progress bar


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> Config:
    """Defaults, then the YAML file, then `section.key=value` overrides (YAML-parsed values)."""
    raw: dict[str, Any] = {}
    if path is not None:
        loaded = yaml.safe_load(Path(path).read_text())
        if loaded is not None and not isinstance(loaded, dict):
            raise ValueError(f"{path}: expected a mapping at the top level")
        raw = loaded or {}
    for override in overrides or []:
        key, sep, value = override.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"override {override!r} is not of the form key=value")
        node = raw
        *parents, leaf = key.strip().split(".")
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"override {override!r}: {part!r} is not a section")
        node[leaf] = yaml.safe_load(value)
    return _resolve(_build(Config, raw, prefix=""))


def _resolve(config: Config) -> Config:
    """Cross-field checks, and the devices `auto`/empty stand for."""
    if config.pipeline.colocate and config.pipeline.max_staleness != 0:
        raise ValueError("pipeline.colocate needs pipeline.max_staleness 0: the engine sleeps "
                         "while the learner trains, so rollout cannot overlap training")
    if config.pipeline.colocate and config.rollout.engine == "vllm_server":
        raise ValueError("pipeline.colocate needs rollout.engine hf or vllm (servers run on "
                         "their own devices)")
    if config.algo.warmup_steps < 0 or not 0 <= config.algo.min_lr_ratio <= 1:
        raise ValueError("algo.warmup_steps must be >= 0 and algo.min_lr_ratio in [0, 1]")
    if config.algo.logprob_chunk_tokens < 1:
        raise ValueError("algo.logprob_chunk_tokens must be >= 1")
    if config.algo.is_cap < 1:
        raise ValueError("algo.is_cap must be >= 1 (it bounds the importance ratio)")
    if config.algo.reference is None:
        config.algo.reference = config.algo.kl_coef > 0
    if config.algo.kl_coef > 0 and not config.algo.reference:
        raise ValueError("algo.kl_coef > 0 needs algo.reference (the KL is to the reference)")
    if config.algo.kl_log_every < 1 or config.algo.micro_batch_size < 1:
        raise ValueError("algo.kl_log_every and algo.micro_batch_size must be >= 1")
    if config.pipeline.dynamic_sampling_cap < 1:
        raise ValueError("pipeline.dynamic_sampling_cap must be >= 1 (x prompts_per_step)")
    evaluation = config.eval
    if evaluation.every < 0 or evaluation.holdout < 0 or evaluation.samples < 1:
        raise ValueError("eval.every and eval.holdout must be >= 0, eval.samples >= 1")
    if any(not 1 <= k <= evaluation.samples for k in evaluation.pass_k):
        raise ValueError(f"eval.pass_k: every k must be in [1, eval.samples = "
                         f"{evaluation.samples}]")
    if evaluation.every and not (evaluation.source or evaluation.holdout):
        raise ValueError("eval.every needs an evaluation split: eval.source or eval.holdout")
    tools = config.tools
    if tools.enabled and not (tools.code_open and tools.code_close):
        raise ValueError("tools.code_open and tools.code_close must not be empty")
    if tools.max_calls < 1 or tools.max_output_chars < 16:
        raise ValueError("tools.max_calls must be >= 1 and tools.max_output_chars >= 16")
    if not 0 < tools.timeout_s <= 60 or not 16 <= tools.memory_mb <= 8192:
        raise ValueError("tools.timeout_s must be in (0, 60] and tools.memory_mb in "
                         "[16, 8192] (a session's limits)")
    if tools.session_ttl_s <= 0:
        raise ValueError("tools.session_ttl_s must be > 0")
    data = config.data
    if not 0 <= data.synthetic_min_operand <= data.synthetic_max_operand:
        raise ValueError("data.synthetic_min_operand must be in [0, synthetic_max_operand]")
    if config.model.device == "auto":
        import torch

        config.model.device = "cuda" if torch.cuda.is_available() else "cpu"
    if not config.rollout.device:
        config.rollout.device = config.model.device
    return config


def config_to_dict(config: Config) -> dict[str, Any]:
    return dataclasses.asdict(config)


def _build(cls: type, raw: dict[str, Any], prefix: str) -> Any:
    hints = typing.get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ValueError(f"unknown config key '{prefix}{unknown[0]}'; known: {sorted(known)}")
    values = {}
    for name, value in raw.items():
        hint = hints[name]
        if dataclasses.is_dataclass(hint):
            if not isinstance(value, dict):
                raise ValueError(f"config section {prefix}{name} must be a mapping")
            values[name] = _build(hint, value, prefix=f"{prefix}{name}.")
        else:
            values[name] = _coerce(value, hint, f"{prefix}{name}")
    return cls(**values)


def _coerce(value: Any, hint: Any, key: str) -> Any:
    """Check (and gently convert: '1e-5' -> float) a value against its field's type."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        return _coerce(value, next(a for a in args if a is not type(None)), key)
    if origin is Literal:
        if value not in args:
            raise ValueError(f"{key} must be one of {list(args)}, got {value!r}")
        return value
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"{key} must be a list, got {value!r}")
        return [_coerce(v, args[0], key) for v in value]
    try:
        if hint is bool:
            if not isinstance(value, bool):
                raise TypeError
            return value
        if hint is int:
            if isinstance(value, bool) or float(value) != int(float(value)):
                raise TypeError
            return int(float(value))
        if hint is float:
            if isinstance(value, bool):
                raise TypeError
            return float(value)
        if hint is str:
            if not isinstance(value, str | int | float) or isinstance(value, bool):
                raise TypeError
            return str(value)
    except (TypeError, ValueError):
        raise ValueError(f"{key} must be of type {hint.__name__}, got {value!r}") from None
    raise ValueError(f"{key}: unsupported config type {hint}")
