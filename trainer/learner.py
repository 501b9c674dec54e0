"""The learner: turns scored groups into a GRPO update of the policy.

train_step(groups, step):
  1. rewards -> masks and group-relative advantages (None rewards and, if configured, overlong
     samples are masked; groups with no signal are dropped and counted);
  2. the step's learning rate (warm-up, then the schedule);
  3. split into minibatches; for each: forward the policy on prompt + completion, take the
     log-probs of the completion tokens at the sampling temperature (chunked: trainer/
     logprobs.py), compute the decoupled TIS-corrected clipped loss (+ the KL penalty to the
     frozen reference), accumulate gradients over micro-batches, clip, step.

A tool rollout's completion holds tool outputs the policy did not sample: its loss mask keeps
them out of the loss, the KL, the importance weights and mismatch statistics, the entropy and
every token count (the normalisers included); they are context the policy reads, nothing more.

Mixed precision: the trained parameters, their gradients and AdamW's state are fp32 (master
weights); forward and backward run under autocast in the compute dtype (bf16 on a GPU). An
update of lr 1e-6 is below half of bf16's spacing for any weight larger than ~3e-4, so bf16
parameters stepped directly would mostly not move at all. The frozen reference needs no
master copy and is kept in the compute dtype. The engine receives the weights in its own dtype.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Any

import torch

from trainer.algorithm import (
    LossSettings,
    group_advantages,
    kl_penalty,
    overlong_penalty,
    policy_loss,
    token_weights,
)
from trainer.config import AlgoConfig
from trainer.logprobs import PackedBatch, TokenLogprobs, completion_logprobs, pack
from trainer.types import Group


@dataclass
class TrainSample:
    prompt_ids: list[int]
    completion_ids: list[int]
    behaviour_logprobs: list[float]
    advantage: float
    loss_mask: list[int] | None = None  # 0: a tool output's token (see Completion.loss_mask)
    proximal_logprobs: list[float] | None = None  # set when a batch takes several updates

    @property
    def trained_tokens(self) -> int:
        return len(self.completion_ids) if self.loss_mask is None else sum(self.loss_mask)


@dataclass
class PreparedBatch:
    samples: list[TrainSample]
    groups_dropped: int  # all scored rewards equal (or < 2 scored): no signal
    samples_masked: int  # reward None (infra_error) or overlong-masked


def trainable_rewards(group: Group, algo: AlgoConfig, max_new_tokens: int
                      ) -> list[float | None]:
    """The group's rewards as the learner uses them: the overlong policy applied, None masked."""
    rewards: list[float | None] = []
    for completion, reward in zip(group.completions, group.rewards, strict=True):
        if reward is not None and completion.truncated and algo.overlong == "mask":
            reward = None
        elif reward is not None and algo.overlong == "penalty":
            reward += overlong_penalty(len(completion.token_ids), max_new_tokens,
                                       algo.overlong_buffer, algo.overlong_penalty)
        rewards.append(reward)
    return rewards


def has_signal(group: Group, settings: LossSettings, algo: AlgoConfig,
               max_new_tokens: int) -> bool:
    """Whether the learner would train on the group (dynamic sampling's test)."""
    return group_advantages(trainable_rewards(group, algo, max_new_tokens),
                            settings.scale_by_std) is not None


def prepare_batch(groups: list[Group], settings: LossSettings, algo: AlgoConfig,
                  max_new_tokens: int) -> PreparedBatch:
    """Rewards -> advantages, applying the overlong policy and masking unscored samples."""
    samples, dropped, masked = [], 0, 0
    for group in groups:
        rewards = trainable_rewards(group, algo, max_new_tokens)
        masked += sum(r is None for r in rewards)
        advantages = group_advantages(rewards, settings.scale_by_std)
        if advantages is None:
            dropped += 1
            continue
        samples += [TrainSample(group.prompt.token_ids, c.token_ids, c.logprobs, a,
                                c.loss_mask)
                    for c, r, a in zip(group.completions, rewards, advantages, strict=True)
                    if r is not None and c.policy_tokens]
    return PreparedBatch(samples, dropped, masked)


def scheduled_lr(step: int, algo: AlgoConfig, total_steps: int) -> float:
    """Linear warm-up over `warmup_steps`, then constant, cosine or linear decay to min_lr."""
    if step < algo.warmup_steps:
        return algo.lr * (step + 1) / algo.warmup_steps
    if algo.lr_schedule == "constant":
        return algo.lr
    progress = min(1.0, (step - algo.warmup_steps) / max(1, total_steps - algo.warmup_steps))
    shape = (0.5 * (1 + math.cos(math.pi * progress)) if algo.lr_schedule == "cosine"
             else 1 - progress)
    return algo.lr * (algo.min_lr_ratio + (1 - algo.min_lr_ratio) * shape)


def disable_dropout(model: torch.nn.Module) -> None:
    """Dropout off in each form transformers models use: nn.Dropout modules, and the float
    probabilities that attention or layer code passes to functional dropout (`attention_dropout`,
    `dropout`, `resid_pdrop`, ...) whenever the module is in training mode.

    The importance weights and the PPO ratio compare the learner's log-probs with the sampler's,
    which runs without dropout; and a dropped-out policy is not the policy being trained.
    """
    for module in model.modules():
        if isinstance(module, torch.nn.modules.dropout._DropoutNd):
            module.p = 0.0
        for name, value in vars(module).items():
            if ("dropout" in name or "pdrop" in name) and isinstance(value, float):
                setattr(module, name, 0.0)


class GRPOLearner:
    def __init__(self, model: Any, settings: LossSettings, algo: AlgoConfig, *,
                 temperature: float, max_new_tokens: int, pad_token_id: int, total_steps: int,
                 reference: Any | None = None, device: str = "cpu",
                 compute_dtype: torch.dtype = torch.float32) -> None:
        if algo.kl_coef > 0 and reference is None:
            raise ValueError("algo.kl_coef > 0 needs a reference model (the KL is to it)")
        self.model = model.to(device=device, dtype=torch.float32)  # fp32 master weights
        self.model.train()  # gradient checkpointing runs in training mode only ...
        disable_dropout(self.model)  # ... but the log-probs are the sampler's policy's
        self.reference = (reference.to(device=device, dtype=compute_dtype).eval()
                          .requires_grad_(False) if reference is not None else None)
        self.settings, self.algo = settings, algo
        self.temperature = temperature
        self.max_new_tokens = max_new_tokens
        self.total_steps = total_steps
        self.pad = pad_token_id
        self.device = device
        self.autocast = dict(device_type=torch.device(device).type, dtype=compute_dtype,
                             enabled=compute_dtype != torch.float32)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=algo.lr,
                                           weight_decay=algo.weight_decay)

    def train_step(self, groups: list[Group], step: int) -> dict[str, Any]:
        batch = prepare_batch(groups, self.settings, self.algo, self.max_new_tokens)
        lr = scheduled_lr(step, self.algo, self.total_steps)
        for param_group in self.optimizer.param_groups:
            param_group["lr"] = lr
        totals: dict[str, float] = {}
        samples = batch.samples
        minibatches = [samples[i::self.algo.minibatches] for i in range(self.algo.minibatches)]
        if self.algo.minibatches > 1:
            self._set_proximal_logprobs(samples)
        # the reference's forward runs when the penalty needs it, or on the steps KL is logged
        with_reference = self.reference is not None and (
            self.algo.kl_coef > 0 or step % self.algo.kl_log_every == 0)
        for minibatch in filter(None, minibatches):
            self._update(minibatch, totals, with_reference)
        tokens = max(totals.get("tokens", 0.0), 1.0)
        completions = [c for g in groups for c in g.completions]
        return {
            "loss": totals.get("loss", 0.0) / max(len([m for m in minibatches if m]), 1),
            "kl": totals["kl"] / tokens if with_reference and samples else None,
            "entropy": totals.get("entropy", 0.0) / tokens if samples else None,
            "clip_frac": totals.get("clipped", 0.0) / tokens,
            "is_weight_mean": totals.get("is_weight", 0.0) / tokens if samples else None,
            "is_truncated_frac": totals.get("is_truncated", 0.0) / tokens,
            "is_cap": self.settings.is_cap,
            "is_mode": self.settings.is_mode,
            # sampler/trainer mismatch d = logp_prox - logp_behav on the trained tokens
            "mismatch_abs_mean": totals.get("mismatch_abs", 0.0) / tokens if samples else None,
            "mismatch_abs_max": totals.get("mismatch_abs_max") if samples else None,
            "mismatch_kl": totals.get("mismatch_kl", 0.0) / tokens if samples else None,
            "grad_norm": totals.get("grad_norm"),
            "samples_trained": len(samples),
            "groups_trained": len(groups) - batch.groups_dropped,
            "groups_dropped": batch.groups_dropped,
            "samples_masked": batch.samples_masked,
            "completion_len": sum(len(c.token_ids) for c in completions) / max(len(completions), 1),
            "truncated_frac": sum(c.truncated for c in completions) / max(len(completions), 1),
            "lr": lr,
        }

    def logprobs(self, model: Any, batch: PackedBatch, temperature: float, *,
                 unit_temperature: bool = False) -> TokenLogprobs:
        """Completion-token log-probs under `model`, in the compute dtype, fp32 softmax."""
        with torch.autocast(**self.autocast):
            return completion_logprobs(model, batch, temperature,
                                       unit_temperature=unit_temperature,
                                       chunk_tokens=self.algo.logprob_chunk_tokens)

    # ------------------------------------------------------------------ internals

    def _update(self, samples: list[TrainSample], totals: dict[str, float],
                with_reference: bool) -> None:
        """One optimizer step on a minibatch, accumulating over micro-batches."""
        num_tokens = sum(s.trained_tokens for s in samples)
        self.optimizer.zero_grad(set_to_none=True)
        size = self.algo.micro_batch_size
        for start in range(0, len(samples), size):
            micro = samples[start:start + size]
            batch = self._pack(micro)
            mask = batch.mask
            policy = self.logprobs(self.model, batch, self.temperature,
                                   unit_temperature=with_reference)
            behaviour = self._pad([s.behaviour_logprobs for s in micro], mask.shape[1])
            logp_prox = (policy.logp.detach() if micro[0].proximal_logprobs is None else
                         self._pad([s.proximal_logprobs for s in micro], mask.shape[1]))
            weights = token_weights(mask, self.settings.loss, len(samples), num_tokens,
                                    self.max_new_tokens)
            advantages = torch.tensor([s.advantage for s in micro], device=self.device)
            loss, stats = policy_loss(policy.logp, logp_prox, behaviour, advantages, weights,
                                      self.settings)
            if with_reference:
                with torch.no_grad():
                    reference = self.logprobs(self.reference, batch, 1.0)
                kl_loss, kl = kl_penalty(policy.logp_unit, reference.logp, behaviour,
                                         self.settings.is_cap)
                if self.algo.kl_coef > 0:
                    loss = loss + self.algo.kl_coef * (kl_loss * weights).sum()
                stats["kl"] = (kl * mask).sum()
            loss.backward()
            stats["entropy"] = (policy.entropy * mask).sum()
            stats["loss"] = loss.detach()
            for key, value in stats.items():
                combine = max if key == "mismatch_abs_max" else operator.add
                totals[key] = combine(totals.get(key, 0.0), float(value))
        norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.algo.max_grad_norm)
        totals["grad_norm"] = float(norm)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)  # fp32 grads: the engine may want the memory

    @torch.no_grad()
    def _set_proximal_logprobs(self, samples: list[TrainSample]) -> None:
        """Log-probs of the policy before this batch's updates (needed with > 1 minibatch)."""
        for start in range(0, len(samples), self.algo.micro_batch_size):
            micro = samples[start:start + self.algo.micro_batch_size]
            logp = self.logprobs(self.model, self._pack(micro), self.temperature).logp
            for row, sample in enumerate(micro):
                sample.proximal_logprobs = logp[row, :len(sample.completion_ids)].tolist()

    def _pack(self, samples: list[TrainSample]) -> PackedBatch:
        return pack([(s.prompt_ids, s.completion_ids) for s in samples], self.pad, self.device,
                    [s.loss_mask for s in samples])

    def _pad(self, rows: list[list[float]], width: int) -> torch.Tensor:
        return torch.tensor([r + [0.0] * (width - len(r)) for r in rows], device=self.device)
