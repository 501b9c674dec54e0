"""The learner's numerics on the tiny model: mixed precision, chunked log-probs, memory shape."""

from __future__ import annotations

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
