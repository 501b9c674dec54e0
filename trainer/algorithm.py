"""The GRPO family as pure tensor functions: advantages, token weights, the clipped loss.

Notation, per completion token t of sample i:
  logp       log pi_theta(a_t | s_t): the policy being trained (carries gradient)
  logp_prox  the same policy before this batch's updates (detached): the "proximal" policy
  logp_behav the behaviour policy that generated the sample (the engine's log-probs, possibly
             k versions old, possibly computed by a different kernel such as vLLM's)
  d_t        logp_prox - logp_behav: the sampler/trainer mismatch, logged every step as
             mean |d|, max |d| and the token KL(behav || prox) = E_behav[exp(d) - 1 - d] (k3)

Decoupled objective (Hilton et al. 2022; AReaL), with an off-policy weight w_t:
  r_t    = exp(logp - logp_prox)                              the PPO ratio
  loss_t = -w_t * min(r_t * A_i, clip(r_t, 1 - eps_low, 1 + eps_high) * A_i)
and w_t (detached) one of three importance-sampling corrections, C = is_cap:
  truncate  w_t = min(exp(d_t), C)                            truncated IS, per token (TIS)
  mask      w_t = exp(d_t) if 1/C <= exp(d_t) <= C, else 0    masked IS: such tokens are dropped
  sequence  w_t = min(exp(mean_t' d_t'), C) for every t of i  sequence-level, geometric mean
Dropped tokens keep their place in the token weights' normaliser (they count as zero loss).
At staleness 0 with matching kernels the behaviour and proximal policies coincide, w_t = 1 and
this is the ordinary GRPO/PPO loss; otherwise w_t corrects for the k-version-old sampler while
the clip still bounds the step relative to the current policy.

The variants differ only in advantage scaling, clip range and how tokens are averaged:
  grpo     A = (r - mean) / std, mean over each sequence's tokens, then over sequences
  dr_grpo  A = r - mean (no std), token sums divided by a constant (max_new_tokens)
  dapo     A = (r - mean) / std, clip-higher (eps_high 0.28), one mean over all tokens
Writing each as a per-token weight makes micro-batched gradient accumulation exact.

KL penalty to the frozen reference, KL(pi_theta || pi_ref) of the models themselves (temperature
1), estimated on tokens sampled from the behaviour policy mu (temperature T, maybe stale):
  logp1, logp1_ref  log-probs at temperature 1 of the trained policy and of the reference
  rho_t   = min(exp(logp1 - logp_behav), is_cap)                   mu -> pi_theta, detached
                                                                   (truncated in every is_mode)
  kl_t    = rho_t * (exp(logp1_ref - logp1) - (logp1_ref - logp1) - 1)  k3, reported
  klloss_t = rho_t * (logp1 - logp1_ref)^2 / 2                     k2, added to the loss
E_mu[kl_t] = KL, and grad E_mu[klloss_t] = E_pi[(logp1 - logp1_ref) grad logp1] = grad KL, so
the penalty's gradient is the gradient of the divergence the logs report (the k3 estimator used
as a loss has a different gradient: E_pi[(1 - pi_ref/pi_theta) grad logp1], the gradient of the
other direction, KL(pi_ref || pi_theta)). The truncation at is_cap trades a little bias for
variance, as for the policy term. Loss_t += beta * klloss_t, averaged with the same token weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

LossType = str  # "grpo" | "dr_grpo" | "dapo"
DAPO_CLIP_HIGH = 0.28


IS_MODES = ("truncate", "mask", "sequence")


@dataclass(frozen=True)
class LossSettings:
    loss: LossType
    clip_low: float
    clip_high: float
    scale_by_std: bool
    is_cap: float
    is_mode: str = "truncate"  # "truncate" | "mask" | "sequence" (see above)


def loss_settings(loss: LossType, clip_low: float, clip_high: float | None,
                  is_cap: float, is_mode: str = "truncate") -> LossSettings:
    """Resolve the variant's defaults (dapo's clip-higher, dr_grpo's unscaled advantages)."""
    if loss not in ("grpo", "dr_grpo", "dapo"):
        raise ValueError(f"unknown loss {loss!r}: expected grpo, dr_grpo or dapo")
    if is_mode not in IS_MODES:
        raise ValueError(f"unknown is_mode {is_mode!r}: expected one of {IS_MODES}")
    if clip_high is None:
        clip_high = DAPO_CLIP_HIGH if loss == "dapo" else clip_low
    return LossSettings(loss, clip_low, clip_high, scale_by_std=loss != "dr_grpo",
                        is_cap=is_cap, is_mode=is_mode)


def overlong_penalty(length: int, max_new_tokens: int, buffer: int, penalty: float) -> float:
    """DAPO's soft overlong punishment: 0 up to max_new - buffer, then linearly to -penalty."""
    start = max_new_tokens - buffer
    if length <= start:
        return 0.0
    return -penalty * min(1.0, (length - start) / max(buffer, 1))


def group_advantages(rewards: list[float | None], scale_by_std: bool,
                     eps: float = 1e-6) -> list[float] | None:
    """Group-relative advantages; masked samples (reward None) get 0 and no say in the baseline.

    Returns None when the group carries no signal: fewer than two scored samples, or all scored
    rewards equal (every advantage would be zero). The std is the sample (n - 1) std.
    """
    scored = torch.tensor([r for r in rewards if r is not None], dtype=torch.float64)
    if scored.numel() < 2 or bool((scored.max() - scored.min()) < eps):
        return None
    mean, std = scored.mean(), scored.std()
    scale = (std + eps) if scale_by_std else 1.0
    return [0.0 if r is None else float((r - mean) / scale) for r in rewards]


def token_weights(mask: torch.Tensor, loss: LossType, num_sequences: int, num_tokens: int,
                  max_new_tokens: int) -> torch.Tensor:
    """Per-token weights whose weighted sum over a whole batch is the variant's mean.

    `mask` [B, T] marks completion tokens that count; `num_sequences`/`num_tokens` are totals
    over the whole (mini)batch, so micro-batches can be summed.
    """
    mask = mask.float()
    if loss == "grpo":
        lengths = mask.sum(dim=1, keepdim=True).clamp(min=1)
        return mask / (lengths * num_sequences)
    if loss == "dr_grpo":
        return mask / (max_new_tokens * num_sequences)
    if loss == "dapo":
        return mask / max(num_tokens, 1)
    raise ValueError(f"unknown loss {loss!r}")


def kl_penalty(logp1: torch.Tensor, logp1_ref: torch.Tensor, logp_behav: torch.Tensor,
               is_cap: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-token (loss, estimate) of KL(pi_theta || pi_ref) on behaviour samples (see above).

    `logp1` carries the gradient; the estimate is detached. Its mean is what `kl` reports,
    the loss's gradient is that estimate's gradient in expectation.
    """
    rho = torch.exp(logp1.detach() - logp_behav).clamp(max=is_cap)
    log_ratio = logp1 - logp1_ref
    delta = -log_ratio.detach()
    return rho * log_ratio.square() / 2, rho * (torch.exp(delta) - delta - 1)


def importance_weights(logp_prox: torch.Tensor, logp_behav: torch.Tensor,
                       counted: torch.Tensor, settings: LossSettings
                       ) -> tuple[torch.Tensor, torch.Tensor]:
    """The off-policy weights w [B, T] of `settings.is_mode`, and the counted tokens whose raw
    ratio they cut (truncated at the cap, or dropped)."""
    log_ratio = logp_prox - logp_behav
    cap = settings.is_cap
    if settings.is_mode == "sequence":
        tokens = counted.sum(dim=1, keepdim=True).clamp(min=1)
        log_ratio = ((log_ratio * counted).sum(dim=1, keepdim=True) / tokens).expand_as(counted)
    raw = torch.exp(log_ratio)
    if settings.is_mode == "mask":
        outside = (raw > cap) | (raw < 1 / cap)
        return raw.masked_fill(outside, 0.0), outside & counted
    return raw.clamp(max=cap), (raw > cap) & counted


def mismatch_stats(logp_prox: torch.Tensor, logp_behav: torch.Tensor,
                   counted: torch.Tensor) -> dict[str, torch.Tensor]:
    """How far the sampler's log-probs are from the trainer's on the counted tokens: the sum
    and max of |d| and the sum of the k3 estimate of KL(behav || prox), d = prox - behav."""
    d = (logp_prox - logp_behav).detach()
    return {"mismatch_abs": (d.abs() * counted).sum(),
            "mismatch_abs_max": (d.abs() * counted).max() if counted.any() else d.new_zeros(()),
            "mismatch_kl": ((torch.exp(d) - 1 - d) * counted).sum()}


def policy_loss(logp: torch.Tensor, logp_prox: torch.Tensor, logp_behav: torch.Tensor,
                advantages: torch.Tensor, weights: torch.Tensor,
                settings: LossSettings) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Decoupled, clipped, importance-weighted policy loss (see module docstring).

    Shapes: log-probs and weights [B, T], advantages [B]. Returns the weighted loss sum and
    sums of statistics over counted tokens (weights > 0), for the caller to average
    (`mismatch_abs_max` is a maximum).
    """
    counted = weights > 0
    is_weight, cut = importance_weights(logp_prox, logp_behav, counted, settings)
    ratio = torch.exp(logp - logp_prox)
    adv = advantages[:, None]
    unclipped = ratio * adv
    clipped = ratio.clamp(1 - settings.clip_low, 1 + settings.clip_high) * adv
    per_token = -is_weight * torch.minimum(unclipped, clipped)
    loss = (per_token * weights).sum()
    stats = {
        "tokens": counted.sum().float(),
        "clipped": ((clipped < unclipped) & counted).sum().float(),
        "is_weight": (is_weight * counted).sum().detach(),
        "is_truncated": cut.sum().float(),
        **mismatch_stats(logp_prox, logp_behav, counted),
    }
    return loss, stats
