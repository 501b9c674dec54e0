"""The learner's numerics on the tiny model: mixed precision, chunked log-probs, memory shape."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from trainer.algorithm import loss_settings
from trainer.config import load_config
from trainer.data import Prompt
from trainer.learner import GRPOLearner
from trainer.logprobs import completion_logprobs, pack
from trainer.run import build_learner
from trainer.tiny import build_char_tokenizer, build_tiny_model, save_model
from trainer.types import Completion, Group

REPO = Path(__file__).resolve().parents[1]
TOKENIZER = build_char_tokenizer()
PAD = TOKENIZER.pad_token_id


def _group(completion_lengths: list[int], seed: int = 0) -> Group:
    """One prompt, completions of the given lengths, rewards alternating 1/0 (signal)."""
    generator = torch.Generator().manual_seed(seed)
    prompt = Prompt(text="12+7=", token_ids=TOKENIZER("12+7=")["input_ids"], answer="19")
    completions = []
    for length in completion_lengths:
        ids = torch.randint(3, len(TOKENIZER), (length,), generator=generator).tolist()
        completions.append(Completion(ids, [-2.0] * length, "x", truncated=False))
    rewards = [float(i % 2) for i in range(len(completions))]
    return Group(0, prompt, completions, 0, rewards, ["wrong"] * len(completions))


def _learner(model, *, lr: float, compute_dtype=torch.float32, chunk: int = 1024,
             reference=None) -> GRPOLearner:
    cfg = load_config(None, [f"algo.lr={lr}", "algo.overlong=none",
                             f"algo.logprob_chunk_tokens={chunk}", "algo.max_grad_norm=1e9"])
    return GRPOLearner(model, loss_settings("grpo", 0.2, None, 1e9), cfg.algo, temperature=1.0,
                       max_new_tokens=8, pad_token_id=PAD, total_steps=1, reference=reference,
                       compute_dtype=compute_dtype)


def test_a_bf16_run_at_lr_1e6_moves_every_weight_with_a_gradient():
    """bf16 parameters stepped directly would round almost every update of 1e-6 away."""
    model = build_tiny_model(TOKENIZER, seed=0).to(torch.bfloat16)  # as a bf16 checkpoint loads
    learner = _learner(model, lr=1e-6, compute_dtype=torch.bfloat16)
    params = list(learner.model.parameters())
    before = [p.detach().clone() for p in params]
    grads: list[torch.Tensor] = []
    learner.optimizer.register_step_pre_hook(
        lambda *_: grads.extend(p.grad.detach().clone() for p in params))
    learner.train_step([_group([5, 3, 6, 4])], step=0)
    moved, with_gradient = 0, 0
    for old, param, grad in zip(before, params, grads, strict=True):
        has_gradient = grad.abs() > 1e-6  # AdamW's first step: lr * g / (|g| + eps)
        change = (param.detach() - old)[has_gradient].abs()
        with_gradient += int(has_gradient.sum())
        moved += int(((change > 0.5e-6) & (change < 2e-6)).sum())
    assert with_gradient > 10_000
    assert moved / with_gradient > 0.99, f"only {moved} of {with_gradient} weights moved by ~lr"


def test_the_run_keeps_fp32_master_weights_and_a_compute_dtype_reference(tmp_path):
    path = save_model(build_tiny_model(TOKENIZER, seed=0), TOKENIZER, tmp_path / "m")
    cfg = load_config(None, ["model.dtype=bfloat16", "model.device=cpu", "algo.reference=true"])
    learner = build_learner(cfg, str(path), str(path), PAD)
    assert {p.dtype for p in learner.model.parameters()} == {torch.float32}
    assert {p.dtype for p in learner.reference.parameters()} == {torch.bfloat16}
    learner.train_step([_group([4, 4, 2])], step=0)
    states = [s for s in learner.optimizer.state.values()]
    assert states and all(s["exp_avg"].dtype == torch.float32 for s in states)


def _naive(model, batch, temperature: float):
    """The full [B, W, V] fp32 log-softmax, as the learner computed it before."""
    logits = model(input_ids=batch.input_ids, attention_mask=batch.attention_mask).logits
    full = torch.log_softmax(logits[batch.rows, batch.positions] / temperature, -1)
    unit = torch.log_softmax(logits[batch.rows, batch.positions], -1)
    logp = full.gather(-1, batch.targets[:, None])[:, 0]
    logp_unit = unit.gather(-1, batch.targets[:, None])[:, 0]
    entropy = -(full.exp() * full).sum(-1)

    def scatter(v):
        return torch.zeros(batch.mask.shape, dtype=v.dtype).index_put((batch.rows, batch.cols), v)

    return scatter(logp), scatter(logp_unit), scatter(entropy)


@pytest.mark.parametrize("chunk", [1, 3, 1000])
def test_chunked_logprobs_equal_the_naive_computation_values_and_gradients(chunk):
    group = _group([5, 1, 7, 3], seed=2)
    prompts = [[1, 5, 6], group.prompt.token_ids, [1, 9], [1, 4, 8, 4, 8]]  # ragged prompts
    batch = pack(list(zip(prompts, [c.token_ids for c in group.completions], strict=True)),
                 PAD, "cpu")
    model = build_tiny_model(TOKENIZER, seed=3).double()
    weights = torch.randn(batch.mask.shape, dtype=torch.float64) * batch.mask
    grads = []
    for compute in ("chunked", "naive"):
        model.zero_grad()
        if compute == "chunked":
            out = completion_logprobs(model, batch, 0.7, unit_temperature=True,
                                      chunk_tokens=chunk)
            logp, logp_unit, entropy = out.logp, out.logp_unit, out.entropy
        else:
            logp, logp_unit, entropy = _naive(model, batch, 0.7)
        ((logp * weights).sum() + (logp_unit * weights.flip(0)).sum()).backward()
        grads.append(([t.detach() for t in (logp, logp_unit, entropy)],
                      [p.grad.clone() for p in model.parameters()]))
    (values, param_grads), (naive_values, naive_grads) = grads
    for ours, theirs in zip(values, naive_values, strict=True):
        torch.testing.assert_close(ours, theirs * batch.mask)
    for ours, theirs in zip(param_grads, naive_grads, strict=True):
        torch.testing.assert_close(ours, theirs)


class LargestVocabTensor(TorchDispatchMode):
    """The most elements of any fp32 tensor with a vocabulary-wide last dimension.

    The head's weight, seen transposed ([hidden, V]) by the matmuls, is not activation memory.
    """

    def __init__(self, vocab: int, hidden: int) -> None:
        super().__init__()
        self.vocab, self.weight_shape, self.largest = vocab, (hidden, vocab), 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for tensor in out if isinstance(out, tuple | list) else [out]:
            if (isinstance(tensor, torch.Tensor) and tensor.dtype == torch.float32
                    and tensor.dim() > 1 and tensor.shape[-1] == self.vocab
                    and tuple(tensor.shape) != self.weight_shape):
                self.largest = max(self.largest, tensor.numel())
        return out


def test_a_train_step_never_builds_batch_by_length_by_vocab_fp32_logits():
    vocab, chunk = len(TOKENIZER), 4
    groups = [_group([5, 5, 4, 5, 3, 5, 5, 2], seed=1)]
    tokens = sum(len(c.token_ids) for c in groups[0].completions)
    learner = _learner(build_tiny_model(TOKENIZER, seed=0), lr=1e-3, chunk=chunk,
                       reference=build_tiny_model(TOKENIZER, seed=0))
    with LargestVocabTensor(vocab, learner.model.config.hidden_size) as watch:
        learner.train_step(groups, step=0)
    assert watch.largest > 0  # the watch sees the chunks' logits
    assert watch.largest <= chunk * vocab < tokens * vocab


def _caches_built(model, run) -> list[str]:
    """Names of the KV-cache objects the model's decoder returned while `run()` ran."""
    from transformers.cache_utils import Cache

    built: list[str] = []

    def watch(module, args, output):
        built.extend(type(v).__name__ for v in output.values() if isinstance(v, Cache))

    handle = model.get_decoder().register_forward_hook(watch)
    try:
        run()
    finally:
        handle.remove()
    return built


def test_log_prob_forwards_build_no_kv_cache():
    """Nothing is decoded after a log-prob forward: a cache would be built (and its memory
    taken) for nothing, in every pass of the policy, the proximal policy and the reference."""
    policy, reference = build_tiny_model(TOKENIZER, seed=0), build_tiny_model(TOKENIZER, seed=0)
    learner = _learner(policy, lr=1e-3, reference=reference)
    learner.algo.minibatches = 2  # a proximal pass too
    group = _group([5, 3, 6, 4])
    assert _caches_built(learner.model, lambda: learner.train_step([group], step=0)) == []
    assert _caches_built(learner.reference, lambda: learner.train_step([group], step=1)) == []


def test_the_reference_is_kept_only_when_the_kl_penalty_needs_it(tmp_path):
    path = save_model(build_tiny_model(TOKENIZER, seed=0), TOKENIZER, tmp_path / "m")
    default = load_config(None, ["model.device=cpu"])
    assert build_learner(default, str(path), str(path), PAD).reference is None
    penalised = load_config(None, ["model.device=cpu", "algo.kl_coef=0.05"])
    assert build_learner(penalised, str(path), str(path), PAD).reference is not None
    with pytest.raises(ValueError, match="kl_coef > 0 needs algo.reference"):
        load_config(None, ["algo.kl_coef=0.05", "algo.reference=false"])
    with pytest.raises(ValueError, match="needs a reference model"):
        GRPOLearner(build_tiny_model(TOKENIZER), loss_settings("grpo", 0.2, None, 2.0),
                    penalised.algo, temperature=1.0, max_new_tokens=8, pad_token_id=PAD,
                    total_steps=1)


def test_with_kl_coef_0_the_reference_runs_only_on_the_steps_kl_is_logged():
    reference = build_tiny_model(TOKENIZER, seed=0)
    learner = _learner(build_tiny_model(TOKENIZER, seed=0), lr=1e-3, reference=reference)
    learner.algo.kl_log_every = 3
    forwards: list[int] = []
    reference.get_decoder().register_forward_hook(lambda *_: forwards.append(step))
    logged = []
    for step in range(5):
        logged.append(learner.train_step([_group([5, 3, 6, 4], seed=step)], step=step)["kl"])
    assert sorted(set(forwards)) == [0, 3]
    assert [kl is not None for kl in logged] == [True, False, False, True, False]
    learner.algo.kl_coef = 0.1  # a penalty needs the reference on every step
    learner.train_step([_group([5, 3])], step=4)
    assert forwards[-1] == 4


def _dropout_models() -> dict[str, object]:
    """Tiny models of three architectures, each with dropout in another form: a float that
    attention passes to functional dropout (Llama), floats in the layers' own code (OPT), and
    nn.Dropout modules (GPT-2)."""
    from transformers import GPT2Config, GPT2LMHeadModel, OPTConfig, OPTForCausalLM

    vocab = len(TOKENIZER)
    llama = build_tiny_model(TOKENIZER, seed=0)
    llama.config.attention_dropout = 0.5
    for layer in llama.model.layers:
        layer.self_attn.attention_dropout = 0.5  # as from_pretrained builds it from the config
    torch.manual_seed(0)
    opt = OPTForCausalLM(OPTConfig(
        vocab_size=vocab, hidden_size=64, ffn_dim=128, num_hidden_layers=2, num_attention_heads=1,
        word_embed_proj_dim=64, max_position_embeddings=64, dropout=0.5, attention_dropout=0.5,
        activation_dropout=0.5, pad_token_id=PAD))
    gpt2 = GPT2LMHeadModel(GPT2Config(
        vocab_size=vocab, n_embd=64, n_layer=2, n_head=1, n_positions=64, resid_pdrop=0.5,
        embd_pdrop=0.5, attn_pdrop=0.5, bos_token_id=1, eos_token_id=2))
    return {"llama": llama, "opt": opt, "gpt2": gpt2}


@pytest.mark.parametrize("architecture", ["llama", "opt", "gpt2"])
def test_the_learner_trains_without_dropout(architecture):
    """The policy gradient needs the log-probs of the policy that sampled (no dropout there):
    the learner's log-probs, with gradient, are the model's own, every time."""
    model = _dropout_models()[architecture]
    group = _group([5, 3, 6, 4])
    batch = pack([(group.prompt.token_ids, c.token_ids) for c in group.completions], PAD, "cpu")
    with torch.no_grad():
        expected = completion_logprobs(model.eval(), batch, 1.0).logp
    learner = _learner(model, lr=1e-3)
    for _ in range(2):
        logp = learner.logprobs(learner.model, batch, 1.0).logp
        torch.testing.assert_close(logp, expected)
    learner.train_step([group], step=0)  # and a whole step runs


def test_real_model_configs_fit_a_gpu(tmp_path):
    """micro_batch_size 64 with gradient checkpointing off is an out-of-memory default for any
    real model: the defaults and the GPU configs keep activations small."""
    assert load_config(None, []).algo.micro_batch_size <= 8
    for name in ("gpu_qwen_math.yaml", "gpu_vllm_servers.yaml"):
        cfg = load_config(REPO / "configs" / name, [])
        assert cfg.model.gradient_checkpointing, name
        assert cfg.algo.micro_batch_size <= 8, name
    path = save_model(build_tiny_model(TOKENIZER, seed=0), TOKENIZER, tmp_path / "m")
    cfg = load_config(None, ["model.device=cpu", "model.gradient_checkpointing=true"])
    learner = build_learner(cfg, str(path), str(path), PAD)
    layers = learner.model.model.layers
    assert all(layer.gradient_checkpointing and layer.training for layer in layers)


@pytest.mark.parametrize("is_mode", ["truncate", "mask", "sequence"])
def test_each_step_reports_the_sampler_trainer_mismatch(is_mode):
    """mean and max |logp_behav - logp_prox| and their token KL, over the trained tokens; the
    step trains in every importance-sampling mode."""
    group = _group([5, 3, 6, 4])  # behaviour log-probs -2.0: another sampler than the model
    learner = _learner(build_tiny_model(TOKENIZER, seed=0), lr=1e-3)
    learner.settings = loss_settings("grpo", 0.2, None, 4.0, is_mode)  # d is about -1
    batch = pack([(group.prompt.token_ids, c.token_ids) for c in group.completions], PAD, "cpu")
    with torch.no_grad():
        prox = learner.logprobs(learner.model, batch, 1.0).logp[batch.mask]
    d = prox + 2.0
    stats = learner.train_step([group], step=0)
    assert stats["is_mode"] == is_mode
    assert stats["mismatch_abs_mean"] == pytest.approx(float(d.abs().mean()), rel=1e-5)
    assert stats["mismatch_abs_max"] == pytest.approx(float(d.abs().max()), rel=1e-5)
    assert stats["mismatch_kl"] == pytest.approx(float((d.exp() - 1 - d).mean()), rel=1e-5)
    assert stats["grad_norm"] > 0


def _tool_group(seed: int = 0) -> tuple[Group, list[list[int]]]:
    """A tool rollout's group: each completion is sampled tokens, a tool's output (loss mask 0,
    log-probs that no sampler could report: +3.0), sampled tokens again. The sampled tokens'
    behaviour log-probs are the model's own at T = 1, so a correct learner sees no mismatch."""
    generator = torch.Generator().manual_seed(seed)
    prompt = Prompt(text="12*7=", token_ids=TOKENIZER("12*7=")["input_ids"], answer="84")
    model = build_tiny_model(TOKENIZER, seed=0)
    completions, masks = [], []
    for policy_before, tool, policy_after in [(3, 4, 2), (5, 2, 1), (2, 6, 4), (4, 3, 3)]:
        mask = [1] * policy_before + [0] * tool + [1] * policy_after
        ids = torch.randint(3, len(TOKENIZER), (len(mask),), generator=generator).tolist()
        batch = pack([(prompt.token_ids, ids)], PAD, "cpu")
        with torch.no_grad():
            logp = completion_logprobs(model, batch, 1.0).logp[0].tolist()
        logprobs = [lp if m else 3.0 for lp, m in zip(logp, mask, strict=True)]
        completions.append(Completion(ids, logprobs, "x", truncated=False, loss_mask=mask))
        masks.append(mask)
    rewards = [1.0, 0.0, 1.0, 0.0]
    return Group(0, prompt, completions, 0, rewards, ["correct", "wrong"] * 2), masks


def test_tool_output_tokens_are_context_never_trained_on():
    """The update is the gradient of the DAPO loss over sampled tokens only, normalised by
    their count; the KL to the reference, the entropy and the importance-weight and mismatch
    statistics are over those tokens too (the tool tokens' impossible log-probs would show)."""
    group, masks = _tool_group()
    cfg = load_config(None, ["algo.lr=1e-3", "algo.overlong=none", "algo.max_grad_norm=1e9",
                             "algo.kl_coef=0.1"])
    reference = build_tiny_model(TOKENIZER, seed=5)
    learner = GRPOLearner(build_tiny_model(TOKENIZER, seed=0), loss_settings("dapo", 0.2, None,
                                                                              2.0), cfg.algo,
                          temperature=1.0, max_new_tokens=16, pad_token_id=PAD, total_steps=1,
                          reference=reference)
    params = list(learner.model.parameters())
    grads: list[torch.Tensor] = []
    learner.optimizer.register_step_pre_hook(
        lambda *_: grads.extend(p.grad.detach().clone() for p in params))
    expected = build_tiny_model(TOKENIZER, seed=0)  # the same weights, by hand
    stats = learner.train_step([group], step=0)

    # by hand: full logits, log-softmax at the sampled tokens, the mask applied
    ids = [group.prompt.token_ids + c.token_ids for c in group.completions]
    start = len(group.prompt.token_ids)
    rewards = torch.tensor(group.rewards)
    advantages = ((rewards - rewards.mean()) / (rewards.std() + 1e-6)).tolist()
    terms, kls, entropies = [], [], []
    for row, mask, advantage in zip(ids, masks, advantages, strict=True):
        inputs = torch.tensor([row])
        logp_all = torch.log_softmax(expected(input_ids=inputs).logits[0].float(), -1)
        with torch.no_grad():
            ref_all = torch.log_softmax(reference(input_ids=inputs).logits[0].float(), -1)
        for j, kept in enumerate(mask):
            if kept:
                position, token = start + j - 1, row[start + j]
                logp, logp_ref = logp_all[position, token], ref_all[position, token]
                terms.append(-advantage * torch.exp(logp - logp.detach())
                             + 0.1 * (logp - logp_ref) ** 2 / 2)
                delta = float(logp_ref - logp.detach())
                kls.append(math.exp(delta) - delta - 1)
                row_logp = logp_all[position].detach()
                entropies.append(float(-(row_logp.exp() * row_logp).sum()))
    torch.stack(terms).mean().backward()
    for ours, theirs in zip(grads, expected.parameters(), strict=True):
        torch.testing.assert_close(ours, theirs.grad, atol=1e-6, rtol=1e-4)
    assert stats["mismatch_abs_max"] < 1e-4 and stats["is_truncated_frac"] == 0
    assert stats["is_weight_mean"] == pytest.approx(1.0, abs=1e-4)
    assert stats["kl"] == pytest.approx(sum(kls) / len(kls), rel=1e-4)
    assert stats["entropy"] == pytest.approx(sum(entropies) / len(entropies), rel=1e-4)
    assert stats["samples_trained"] == 4


def test_packing_predicts_only_the_tokens_a_loss_mask_keeps():
    batch = pack([([1, 5], [7, 8, 9, 10]), ([1], [4, 6])], PAD, "cpu", [[1, 0, 0, 1], None])
    assert batch.mask.tolist() == [[True, False, False, True], [True, True, False, False]]
    assert batch.targets.tolist() == [7, 10, 4, 6]
    assert batch.positions.tolist() == [1, 4, 0, 1]
