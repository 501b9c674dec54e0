"""The learner: turns scored groups into a GRPO update of the policy.

train_step(groups):
  1. rewards -> masks and group-relative advantages (None rewards and, if configured, overlong
     samples are masked; groups with no signal are dropped and counted);
  2. split into minibatches; for each: forward the policy on prompt + completion, take the
     log-probs of the completion tokens at the sampling temperature, compute the decoupled
     TIS-corrected clipped loss (+ optional KL to the frozen reference), accumulate gradients
     over micro-batches, clip, step.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import torch

from trainer.algorithm import (
    LossSettings,
    group_advantages,
    kl_k3,
    overlong_penalty,
    policy_loss,
    token_weights,
)
from trainer.config import AlgoConfig
from trainer.pipeline import Group


@dataclass
class TrainSample:
    prompt_ids: list[int]
    completion_ids: list[int]
    behaviour_logprobs: list[float]
    advantage: float
    proximal_logprobs: list[float] | None = None  # set when a batch takes several updates


@dataclass
class PreparedBatch:
    samples: list[TrainSample]
    groups_dropped: int  # all scored rewards equal (or < 2 scored): no signal
    samples_masked: int  # reward None (infra_error) or overlong-masked


def prepare_batch(groups: list[Group], settings: LossSettings, algo: AlgoConfig,
                  max_new_tokens: int) -> PreparedBatch:
    """Rewards -> advantages, applying the overlong policy and masking unscored samples."""
    samples, dropped, masked = [], 0, 0
    for group in groups:
        rewards: list[float | None] = []
        for completion, reward in zip(group.completions, group.rewards, strict=True):
            if reward is not None and completion.truncated and algo.overlong == "mask":
                reward = None
            elif reward is not None and algo.overlong == "penalty":
                reward += overlong_penalty(len(completion.token_ids), max_new_tokens,
                                           algo.overlong_buffer, algo.overlong_penalty)
            rewards.append(reward)
        masked += sum(r is None for r in rewards)
        advantages = group_advantages(rewards, settings.scale_by_std)
        if advantages is None:
            dropped += 1
            continue
        samples += [TrainSample(group.prompt.token_ids, c.token_ids, c.logprobs, a)
                    for c, r, a in zip(group.completions, rewards, advantages, strict=True)
                    if r is not None and c.token_ids]
    return PreparedBatch(samples, dropped, masked)


class Learner:
    def __init__(self, model: Any, settings: LossSettings, algo: AlgoConfig, *,
                 temperature: float, max_new_tokens: int, pad_token_id: int,
                 reference: Any | None = None, device: str = "cpu") -> None:
        self.model = model.to(device)
        self.model.train()
        self.reference = reference.to(device).eval().requires_grad_(False) if reference else None
        self.settings, self.algo = settings, algo
        self.temperature = temperature
        self.max_new_tokens = max_new_tokens
        self.pad = pad_token_id
        self.device = device
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=algo.lr,
                                           weight_decay=algo.weight_decay)

    @classmethod
    def with_frozen_reference(cls, model: Any, **kwargs: Any) -> Learner:
        return cls(model, reference=copy.deepcopy(model), **kwargs)

    def train_step(self, groups: list[Group], step: int) -> dict[str, Any]:
        batch = prepare_batch(groups, self.settings, self.algo, self.max_new_tokens)
        totals: dict[str, float] = {}
        samples = batch.samples
        minibatches = [samples[i::self.algo.minibatches] for i in range(self.algo.minibatches)]
        if self.algo.minibatches > 1:
            self._set_proximal_logprobs(samples)
        for minibatch in filter(None, minibatches):
            self._update(minibatch, totals)
        tokens = max(totals.get("tokens", 0.0), 1.0)
        completions = [c for g in groups for c in g.completions]
        return {
            "loss": totals.get("loss", 0.0) / max(len([m for m in minibatches if m]), 1),
            "kl": totals["kl"] / tokens if self.reference is not None and samples else None,
            "entropy": totals.get("entropy", 0.0) / tokens if samples else None,
            "clip_frac": totals.get("clipped", 0.0) / tokens,
            "is_weight_mean": totals.get("is_weight", 0.0) / tokens if samples else None,
            "is_truncated_frac": totals.get("is_truncated", 0.0) / tokens,
            "is_cap": self.settings.is_cap,
            "grad_norm": totals.get("grad_norm"),
            "groups_trained": len(groups) - batch.groups_dropped,
            "groups_dropped": batch.groups_dropped,
            "samples_masked": batch.samples_masked,
            "completion_len": sum(len(c.token_ids) for c in completions) / max(len(completions), 1),
            "truncated_frac": sum(c.truncated for c in completions) / max(len(completions), 1),
            "lr": self.algo.lr,
        }

    # ------------------------------------------------------------------ internals

    def _update(self, samples: list[TrainSample], totals: dict[str, float]) -> None:
        """One optimizer step on a minibatch, accumulating over micro-batches."""
        num_tokens = sum(len(s.completion_ids) for s in samples)
        self.optimizer.zero_grad(set_to_none=True)
        size = self.algo.micro_batch_size
        for start in range(0, len(samples), size):
            micro = samples[start:start + size]
            logp, entropy, mask = self._forward(self.model, micro)
            behaviour = self._pad([s.behaviour_logprobs for s in micro], logp.shape[1], 0.0)
            logp_prox = (logp.detach() if micro[0].proximal_logprobs is None else
                         self._pad([s.proximal_logprobs for s in micro], logp.shape[1], 0.0))
            weights = token_weights(mask, self.settings.loss, len(samples), num_tokens,
                                    self.max_new_tokens)
            advantages = torch.tensor([s.advantage for s in micro], device=self.device)
            loss, stats = policy_loss(logp, logp_prox, behaviour, advantages, weights,
                                      self.settings)
            if self.reference is not None:
                with torch.no_grad():
                    logp_ref, _, _ = self._forward(self.reference, micro)
                kl = kl_k3(logp, logp_ref)
                if self.algo.kl_coef > 0:
                    loss = loss + self.algo.kl_coef * (kl * weights).sum()
                stats["kl"] = (kl.detach() * mask).sum()
            loss.backward()
            stats["entropy"] = (entropy * mask).sum()
            stats["loss"] = loss.detach()
            for key, value in stats.items():
                totals[key] = totals.get(key, 0.0) + float(value)
        norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.algo.max_grad_norm)
        totals["grad_norm"] = float(norm)
        self.optimizer.step()

    @torch.no_grad()
    def _set_proximal_logprobs(self, samples: list[TrainSample]) -> None:
        """Log-probs of the policy before this batch's updates (needed with > 1 minibatch)."""
        for start in range(0, len(samples), self.algo.micro_batch_size):
            micro = samples[start:start + self.algo.micro_batch_size]
            logp, _, _ = self._forward(self.model, micro)
            for row, sample in enumerate(micro):
                sample.proximal_logprobs = logp[row, :len(sample.completion_ids)].tolist()

    def _forward(self, model: Any, samples: list[TrainSample]
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Completion-token log-probs [B, T] (grad), entropies [B, T] (no grad), mask [B, T]."""
        sequences = [s.prompt_ids + s.completion_ids for s in samples]
        width = max(len(seq) for seq in sequences)
        input_ids = torch.tensor([seq + [self.pad] * (width - len(seq)) for seq in sequences],
                                 device=self.device)
        attention = torch.tensor([[1] * len(seq) + [0] * (width - len(seq)) for seq in sequences],
                                 device=self.device)
        logits = model(input_ids=input_ids, attention_mask=attention).logits
        # Logits at position p predict token p + 1: the completion window starts one earlier.
        completion_len = max(len(s.completion_ids) for s in samples)
        steps = torch.arange(completion_len, device=self.device)
        starts = torch.tensor([len(s.prompt_ids) - 1 for s in samples], device=self.device)
        positions = (starts[:, None] + steps[None, :]).clamp(max=width - 2)
        mask = steps[None, :] < torch.tensor([len(s.completion_ids) for s in samples],
                                             device=self.device)[:, None]
        window = logits.gather(1, positions[..., None].expand(-1, -1, logits.shape[-1]))
        logprobs_all = torch.log_softmax(window.float() / self.temperature, dim=-1)
        targets = input_ids.gather(1, positions + 1)
        logp = logprobs_all.gather(-1, targets[..., None])[..., 0]
        with torch.no_grad():
            entropy = -(logprobs_all.exp() * logprobs_all).sum(-1)
        return logp * mask, entropy * mask, mask

    def _pad(self, rows: list[list[float]], width: int, value: float) -> torch.Tensor:
        return torch.tensor([r + [value] * (width - len(r)) for r in rows], device=self.device)
