"""The GRPO algorithm pieces against hand-computed values; config and data loading."""

from __future__ import annotations

import json
import math

import pytest
import torch

from trainer.algorithm import (
    group_advantages,
    kl_penalty,
    loss_settings,
    mismatch_stats,
    overlong_penalty,
    policy_loss,
    token_weights,
)
from trainer.config import AlgoConfig, load_config
from trainer.data import Prompt, PromptSource, read_jsonl, synthetic_addition
from trainer.learner import prepare_batch, scheduled_lr
from trainer.rewards import reward_item
from trainer.types import Completion, Group

# ---------------------------------------------------------------------------- advantages


def test_group_advantages_normalised_by_sample_std():
    # rewards 1,0,0,0: mean 0.25, sample std sqrt(0.75 / 3) = 0.5
    adv = group_advantages([1.0, 0.0, 0.0, 0.0], scale_by_std=True)
    assert adv == pytest.approx([1.5, -0.5, -0.5, -0.5], abs=1e-5)


def test_dr_grpo_advantages_are_not_scaled():
    assert group_advantages([1.0, 0.0, 0.0, 0.0], scale_by_std=False) == pytest.approx(
        [0.75, -0.25, -0.25, -0.25])


def test_none_rewards_are_masked_not_zeroed():
    # With None treated as 0 the mean would be 1/3; masked, it is the mean of (1, 0) = 0.5.
    adv = group_advantages([1.0, None, 0.0], scale_by_std=False)
    assert adv == pytest.approx([0.5, 0.0, -0.5])


def test_groups_without_signal_are_dropped():
    assert group_advantages([1.0, 1.0, 1.0], scale_by_std=True) is None
    assert group_advantages([0.0, 0.0, None], scale_by_std=True) is None
    assert group_advantages([1.0, None, None], scale_by_std=False) is None  # one scored sample


def test_overlong_penalty_ramps_over_the_buffer():
    assert overlong_penalty(6, max_new_tokens=10, buffer=4, penalty=1.0) == 0.0
    assert overlong_penalty(8, max_new_tokens=10, buffer=4, penalty=1.0) == pytest.approx(-0.5)
    assert overlong_penalty(10, max_new_tokens=10, buffer=4, penalty=1.0) == pytest.approx(-1.0)


# ---------------------------------------------------------------------------- token weights


MASK = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 1]])  # lengths 2 and 4, 6 tokens


def test_grpo_weights_average_each_sequence_then_the_batch():
    w = token_weights(MASK, "grpo", num_sequences=2, num_tokens=6, max_new_tokens=8)
    torch.testing.assert_close(w, torch.tensor([[0.25, 0.25, 0, 0], [0.125] * 4]))


def test_dr_grpo_weights_divide_by_a_constant():
    w = token_weights(MASK, "dr_grpo", num_sequences=2, num_tokens=6, max_new_tokens=8)
    torch.testing.assert_close(w, torch.tensor([[1 / 16, 1 / 16, 0, 0], [1 / 16] * 4]))


def test_dapo_weights_are_one_token_level_mean():
    w = token_weights(MASK, "dapo", num_sequences=2, num_tokens=6, max_new_tokens=8)
    torch.testing.assert_close(w, torch.tensor([[1 / 6, 1 / 6, 0, 0], [1 / 6] * 4]))


# ---------------------------------------------------------------------------- the loss


def _loss(loss_type: str, logp, prox, behav, adv, mask, is_cap=10.0, max_new_tokens=4,
          is_mode="truncate"):
    settings = loss_settings(loss_type, clip_low=0.2, clip_high=None, is_cap=is_cap,
                             is_mode=is_mode)
    mask = torch.tensor(mask)
    weights = token_weights(mask, loss_type, len(mask), int(mask.sum()), max_new_tokens)
    logp = logp if isinstance(logp, torch.Tensor) else torch.tensor(logp)
    return policy_loss(logp, torch.tensor(prox), torch.tensor(behav), torch.tensor(adv),
                       weights, settings)


@pytest.mark.parametrize(("loss_type", "expected"), [
    # on-policy (ratio 1, w 1): loss = -sum(weights) * A, A = 2 for one 2-token sequence
    ("grpo", -2.0), ("dapo", -2.0), ("dr_grpo", -1.0),  # dr_grpo: 2 tokens / max_new 4
])
def test_on_policy_loss_per_variant(loss_type, expected):
    logp = [[-1.0, -2.0]]
    loss, stats = _loss(loss_type, logp, logp, logp, [2.0], [[1, 1]])
    assert float(loss) == pytest.approx(expected)
    assert float(stats["clipped"]) == 0 and float(stats["is_truncated"]) == 0


def test_gradient_is_minus_weight_times_advantage_on_policy():
    logp = torch.tensor([[-1.0, -2.0]], requires_grad=True)
    loss, _ = _loss("grpo", logp, [[-1.0, -2.0]], [[-1.0, -2.0]], [2.0], [[1, 1]])
    loss.backward()
    torch.testing.assert_close(logp.grad, torch.tensor([[-1.0, -1.0]]))  # -A * 1/2 per token


def test_positive_advantage_is_clipped_above_one_plus_eps():
    logp, prox = [[math.log(0.8)]], [[math.log(0.5)]]  # ratio 1.6
    loss, stats = _loss("grpo", logp, prox, prox, [1.0], [[1]])
    assert float(loss) == pytest.approx(-1.2)  # clip(1.6, 0.8, 1.2) * A
    assert float(stats["clipped"]) == 1


def test_dapo_clips_higher():
    logp, prox = [[math.log(0.8)]], [[math.log(0.5)]]
    loss, stats = _loss("dapo", logp, prox, prox, [1.0], [[1]])
    assert float(loss) == pytest.approx(-1.28)  # eps_high 0.28
    assert float(stats["clipped"]) == 1


def test_negative_advantage_clips_below_and_keeps_pessimistic_branch():
    # ratio 0.5, A = -1: min(-0.5, clip(0.5) * -1 = -0.8) = -0.8 -> clipped, loss +0.8
    loss, stats = _loss("grpo", [[math.log(0.25)]], [[math.log(0.5)]], [[math.log(0.5)]],
                        [-1.0], [[1]])
    assert float(loss) == pytest.approx(0.8)
    assert float(stats["clipped"]) == 1
    # ratio 1.6, A = -1: min(-1.6, -1.2) = -1.6 -> the unclipped branch, no clipping counted
    loss, stats = _loss("grpo", [[math.log(0.8)]], [[math.log(0.5)]], [[math.log(0.5)]],
                        [-1.0], [[1]])
    assert float(loss) == pytest.approx(1.6)
    assert float(stats["clipped"]) == 0


def test_importance_weights_are_truncated_at_the_cap():
    # behaviour 0.5 nats below the proximal policy on token 2: w = e^0.5 = 1.6487 -> capped 1.5
    logp = [[-1.0, -2.0]]
    loss, stats = _loss("dapo", logp, logp, [[-1.0, -2.5]], [2.0], [[1, 1]], is_cap=1.5)
    assert float(loss) == pytest.approx(-(1.0 * 2 + 1.5 * 2) / 2)
    assert float(stats["is_truncated"]) == 1
    assert float(stats["is_weight"]) == pytest.approx(2.5)


def test_masked_is_drops_the_tokens_whose_ratio_leaves_the_band():
    # d = prox - behav = (0, 1, -1, 0.5): ratios 1, e, 1/e, 1.65; C = 2 keeps the 1st and 4th
    logp = [[-1.0, -2.0, -3.0, -4.0]]
    behav = [[-1.0, -3.0, -2.0, -4.5]]
    loss, stats = _loss("dapo", logp, logp, behav, [2.0], [[1, 1, 1, 1]], is_cap=2.0,
                        is_mode="mask")
    kept = 1.0 + math.exp(0.5)  # weights of the kept tokens, neither truncated
    assert float(loss) == pytest.approx(-2.0 * kept / 4)  # dropped tokens stay in the mean
    assert float(stats["is_truncated"]) == 2
    assert float(stats["is_weight"]) == pytest.approx(kept)


def test_sequence_is_weighs_a_sample_by_the_geometric_mean_of_its_ratios():
    # sample 1: d = (0.2, 0.4) -> exp(0.3) on both tokens; sample 2: d = (1, 1) -> e, capped 2
    logp = [[-1.0, -2.0], [-1.0, -1.0]]
    behav = [[-1.2, -2.4], [-2.0, -2.0]]
    loss, stats = _loss("dapo", logp, logp, behav, [1.0, 1.0], [[1, 1], [1, 1]], is_cap=2.0,
                        is_mode="sequence")
    assert float(loss) == pytest.approx(-(2 * math.exp(0.3) + 2 * 2.0) / 4)
    assert float(stats["is_weight"]) == pytest.approx(2 * math.exp(0.3) + 4.0)
    assert float(stats["is_truncated"]) == 2  # the second sample's two tokens


def test_unknown_is_mode_is_rejected():
    with pytest.raises(ValueError, match="unknown is_mode"):
        loss_settings("grpo", 0.2, None, 2.0, is_mode="clip")


def test_mismatch_statistics_cover_the_counted_tokens_only():
    prox = torch.tensor([[-1.0, -2.0, -3.0]])
    behav = torch.tensor([[-1.5, -1.8, -9.0]])  # d = 0.5, -0.2 and (not counted) 6
    stats = mismatch_stats(prox, behav, torch.tensor([[True, True, False]]))
    assert float(stats["mismatch_abs"]) == pytest.approx(0.7)
    assert float(stats["mismatch_abs_max"]) == pytest.approx(0.5)
    k3 = sum(math.exp(d) - 1 - d for d in (0.5, -0.2))
    assert float(stats["mismatch_kl"]) == pytest.approx(k3)


def test_masked_tokens_contribute_nothing():
    logp = [[-1.0, -3.0]]
    loss, stats = _loss("dapo", logp, logp, [[-1.0, -9.0]], [2.0], [[1, 0]], is_cap=100.0)
    assert float(loss) == pytest.approx(-2.0)
    assert float(stats["tokens"]) == 1 and float(stats["is_truncated"]) == 0


# The KL penalty on a categorical toy: one state, 6 actions, everything enumerated exactly.
# pi_theta = softmax(theta); the samples come from mu = softmax(theta_old / T), an older policy
# at another temperature (what a k-stale engine sampling at T gives).
VOCAB, T_SAMPLE = 6, 0.7


def _toy():
    generator = torch.Generator().manual_seed(0)
    theta = torch.randn(VOCAB, generator=generator, dtype=torch.float64, requires_grad=True)
    ref = torch.randn(VOCAB, generator=generator, dtype=torch.float64)
    old = theta.detach() + 0.3 * torch.randn(VOCAB, generator=generator, dtype=torch.float64)
    return theta, torch.log_softmax(ref, -1), torch.log_softmax(old / T_SAMPLE, -1)


def _analytic_kl(theta, logp_ref):
    logp = torch.log_softmax(theta, -1)
    return (logp.exp() * (logp - logp_ref)).sum()


def test_kl_penalty_gradient_is_the_gradient_of_the_kl_it_reports():
    theta, logp_ref, logp_mu = _toy()
    logp = torch.log_softmax(theta, -1)
    loss, estimate = kl_penalty(logp, logp_ref, logp_mu, is_cap=float("inf"))
    mu = logp_mu.exp()  # the expectation over the sampling distribution, enumerated
    expected_loss, expected_estimate = (mu * loss).sum(), (mu * estimate).sum()
    (grad,) = torch.autograd.grad(expected_loss, theta)
    kl = _analytic_kl(theta, logp_ref)
    (true_grad,) = torch.autograd.grad(kl, theta)
    torch.testing.assert_close(expected_estimate, kl.detach())  # reports KL(pi_theta || pi_ref)
    torch.testing.assert_close(grad, true_grad)  # ... and its gradient is that KL's gradient
    assert not estimate.requires_grad


def test_the_k3_estimator_as_a_loss_has_another_gradient():
    """Why the loss is not the reported k3 (the estimator as it was used before, at T, no IS)."""
    theta, logp_ref, logp_mu = _toy()
    logp = torch.log_softmax(theta, -1)
    delta = logp_ref - logp
    k3 = torch.exp(delta) - delta - 1
    (grad,) = torch.autograd.grad((logp_mu.exp() * k3).sum(), theta)
    (true_grad,) = torch.autograd.grad(_analytic_kl(theta, logp_ref), theta)
    assert (grad - true_grad).abs().max() > 0.05


def test_kl_importance_weights_are_truncated_at_the_cap():
    logp, ref, behav = torch.tensor([-1.0]), torch.tensor([-1.5]), torch.tensor([-2.0])
    loss, estimate = kl_penalty(logp, ref, behav, is_cap=1.5)  # rho = e^1 -> 1.5
    assert float(loss) == pytest.approx(1.5 * 0.25 / 2)
    assert float(estimate) == pytest.approx(1.5 * (math.exp(-0.5) + 0.5 - 1))
    same = kl_penalty(logp, logp, logp, is_cap=2.0)
    assert float(same[0]) == 0.0 and float(same[1]) == 0.0


def test_learning_rate_warms_up_then_follows_the_schedule():
    algo = AlgoConfig(lr=1e-5, warmup_steps=4, lr_schedule="cosine", min_lr_ratio=0.1)
    lrs = [scheduled_lr(step, algo, total_steps=14) for step in range(14)]
    assert lrs[:4] == pytest.approx([2.5e-6, 5e-6, 7.5e-6, 1e-5])
    assert lrs[4] == pytest.approx(1e-5)
    assert lrs[9] == pytest.approx(1e-5 * (0.1 + 0.9 * 0.5))  # half way through the decay
    assert all(a >= b for a, b in zip(lrs[4:], lrs[5:], strict=False))
    assert scheduled_lr(14, algo, total_steps=14) == pytest.approx(1e-6)
    linear = AlgoConfig(lr=1e-5, lr_schedule="linear")
    assert scheduled_lr(5, linear, total_steps=10) == pytest.approx(5e-6)
    assert scheduled_lr(5, AlgoConfig(lr=1e-5), total_steps=10) == 1e-5  # constant


def test_unknown_loss_is_rejected():
    with pytest.raises(ValueError, match="unknown loss"):
        loss_settings("ppo", 0.2, None, 2.0)


# ---------------------------------------------------------------------------- batch prep


def _group(rewards, truncated=None):
    truncated = truncated or [False] * len(rewards)
    prompt = Prompt(text="1+1=", token_ids=[1, 2, 3], answer="2")
    completions = [Completion([5, 2] if not t else [5, 5, 5, 5], [-1.0] * (2 if not t else 4),
                              "x", t) for t in truncated]
    return Group(0, prompt, completions, 0, rewards, ["wrong"] * len(rewards))


def test_prepare_batch_masks_none_and_drops_flat_groups():
    settings = loss_settings("dr_grpo", 0.2, None, 2.0)
    batch = prepare_batch([_group([1.0, None, 0.0]), _group([1.0, 1.0, 1.0])], settings,
                          AlgoConfig(), max_new_tokens=4)
    assert batch.groups_dropped == 1 and batch.samples_masked == 1
    assert [s.advantage for s in batch.samples] == pytest.approx([0.5, -0.5])


def test_overlong_mask_and_penalty():
    group = _group([1.0, 1.0, 0.0], truncated=[False, True, False])
    settings = loss_settings("dr_grpo", 0.2, None, 2.0)
    masked = prepare_batch([group], settings, AlgoConfig(overlong="mask"), max_new_tokens=4)
    assert masked.samples_masked == 1 and len(masked.samples) == 2
    penalised = prepare_batch([group], settings, AlgoConfig(overlong="penalty", overlong_buffer=2),
                              max_new_tokens=4)
    # the truncated sample (4 tokens) gets 1 - 1 = 0: rewards (1, 0, 0), mean 1/3
    assert [s.advantage for s in penalised.samples] == pytest.approx([2 / 3, -1 / 3, -1 / 3])


# ---------------------------------------------------------------------------- config, data


def test_config_yaml_and_overrides(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("algo:\n  loss: dapo\n  lr: 1.0e-5\npipeline:\n  max_staleness: 2\n")
    cfg = load_config(path, ["algo.lr=3e-4", "pipeline.steps=7", "verifier.url=http://x:1"])
    assert cfg.algo.loss == "dapo" and cfg.algo.lr == pytest.approx(3e-4)
    assert cfg.pipeline.max_staleness == 2 and cfg.pipeline.steps == 7
    assert cfg.verifier.url == "http://x:1" and cfg.rollout.engine == "hf"


def test_devices_default_to_the_trainers_and_rollout_follows_it():
    cfg = load_config(None, ["model.device=cuda:1", "rollout.engine=hf"])
    assert cfg.rollout.device == "cuda:1"  # generation on the training device
    auto = load_config(None, [])
    assert auto.model.device == ("cuda" if torch.cuda.is_available() else "cpu")
    assert auto.rollout.device == auto.model.device
    assert load_config(None, ["rollout.device=cpu", "model.device=cuda"]).rollout.device == "cpu"


@pytest.mark.parametrize(("override", "message"), [
    ("algo.lrr=1", "unknown config key 'algo.lrr'"),
    ("algo.loss=ppo", "must be one of"),
    ("pipeline.steps=1.5", "must be of type int"),
    ("progress=3", "must be of type bool"),
    ("steps", "key=value"),
    ("pipeline.colocate=true", "needs pipeline.max_staleness 0"),
    ("algo.lr_schedule=step", "must be one of"),
    ("model.dtype=float16", "must be one of"),
    ("algo.is_mode=clip", "must be one of"),
    ("algo.is_cap=0.5", "is_cap must be >= 1"),
    ("algo.kl_log_every=0", "kl_log_every"),
    ("pipeline.dynamic_sampling_cap=0.5", "dynamic_sampling_cap must be >= 1"),
    ("eval.samples=0", "eval.samples"),
])
def test_bad_config_is_a_clear_error(override, message):
    with pytest.raises(ValueError, match=message):
        load_config(None, [override])


def test_jsonl_records_are_validated(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"prompt": "1+1?", "answer": 2}) + "\n\n" + json.dumps(
        {"prompt": "add", "tests": {"type": "assert", "code": "assert add(1, 2) == 3"}}) + "\n")
    assert len(read_jsonl(good)) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"prompt": "x"}) + "\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: .*exactly one of"):
        read_jsonl(bad)
    bad.write_text("{not json\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: not JSON"):
        read_jsonl(bad)


class _CharTokenizer:
    chat_template = None

    def __call__(self, text, add_special_tokens=True):
        return {"input_ids": [ord(c) for c in text]}


def test_prompt_source_is_slot_addressed_and_reshuffled_per_epoch():
    records = synthetic_addition(2)  # 9 records
    source = PromptSource(records, _CharTokenizer(), chat_template=True, seed=3)
    epoch0 = [source[s].text for s in range(9)]
    epoch1 = [source[s].text for s in range(9, 18)]
    assert sorted(epoch0) == sorted(epoch1) == sorted(r["prompt"] for r in records)
    assert epoch0 != epoch1
    again = PromptSource(records, _CharTokenizer(), chat_template=True, seed=3)
    assert again[4] == source[4]  # a resumed run sees the same prompt at the same slot
    item = reward_item(source[0], "so the answer is 3")
    answers = {r["prompt"]: r["answer"] for r in records}
    assert item.kind == "math" and item.answer == answers[source[0].text]
