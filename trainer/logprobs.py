"""Log-probs and entropies of the completion tokens, without a [B, T, V] logits tensor.

The naive way (`model(...).logits`, then `log_softmax(logits.float())`) builds the logits of
every position of every sequence and an fp32 copy of them: for a 151,936-token vocabulary at
8 x 768 tokens that is 3.7 GB per tensor, twice, plus what autograd keeps. Here the decoder
runs without its head; only the hidden states of the positions that predict a completion token
are kept ([N, H], N = completion tokens), and the head, the fp32 softmax and the entropy run
over chunks of `chunk_tokens` of them. Each chunk is checkpointed: backward recomputes its
logits instead of keeping them, so at most one chunk's [chunk, V] fp32 logits exist at a time.

Assumes what Llama, Qwen2, Mistral and most causal LMs do: logits = output_embeddings(final
hidden state), with no soft-capping or scaling after the head (`decoder_and_head` checks it, with
a clear error; the transformers engine samples through the same split).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch.utils.checkpoint import checkpoint


@dataclass
class PackedBatch:
    """Right-padded prompt + completion sequences, and where their trained completion tokens
    are: every completion token, or (tool rollouts) those its loss mask keeps. A tool output's
    tokens are context only: attended to, never predicted, so nothing downstream sees them."""

    input_ids: torch.Tensor  # [B, W]
    attention_mask: torch.Tensor  # [B, W]
    rows: torch.Tensor  # [N] sequence of each trained completion token
    cols: torch.Tensor  # [N] its index within the completion
    positions: torch.Tensor  # [N] the position whose logits predict it (one before it)
    targets: torch.Tensor  # [N] the token itself
    mask: torch.Tensor  # [B, Tc] trained completion tokens (Tc: the longest completion)


@dataclass
class TokenLogprobs:
    """[B, Tc] tensors, zero outside `mask`."""

    logp: torch.Tensor  # log softmax(logits / T) at the token (carries gradient)
    entropy: torch.Tensor  # of softmax(logits / T) (no gradient)
    logp_unit: torch.Tensor | None  # log softmax(logits) at the token, when asked for


def pack(sequences: list[tuple[list[int], list[int]]], pad_token_id: int,
         device: str | torch.device, loss_masks: list[list[int] | None] | None = None
         ) -> PackedBatch:
    """(prompt ids, completion ids) pairs -> one right-padded batch; `loss_masks` (one per
    sequence, None for all) chooses the completion tokens that are trained."""
    width = max(len(p) + len(c) for p, c in sequences)
    ids = [p + c + [pad_token_id] * (width - len(p) - len(c)) for p, c in sequences]
    attention = [[1] * (len(p) + len(c)) + [0] * (width - len(p) - len(c)) for p, c in sequences]
    masks = loss_masks or [None] * len(sequences)
    trained = [range(len(c)) if m is None else [j for j, keep in enumerate(m) if keep]
               for (_, c), m in zip(sequences, masks, strict=True)]
    rows = [i for i, kept in enumerate(trained) for _ in kept]
    cols = [j for kept in trained for j in kept]
    positions = [len(p) - 1 + j for (p, _), kept in zip(sequences, trained, strict=True)
                 for j in kept]
    input_ids = torch.tensor(ids, device=device)
    rows_t, cols_t = torch.tensor(rows, device=device), torch.tensor(cols, device=device)
    positions_t = torch.tensor(positions, device=device)
    mask = torch.zeros(len(sequences), max(len(c) for _, c in sequences), dtype=torch.bool,
                       device=device)
    mask[rows_t, cols_t] = True
    return PackedBatch(input_ids=input_ids, attention_mask=torch.tensor(attention, device=device),
                       rows=rows_t, cols=cols_t, positions=positions_t,
                       targets=input_ids[rows_t, positions_t + 1], mask=mask)


def decoder_and_head(model: Any) -> tuple[Any, torch.nn.Module]:
    """The model split into its decoder (hidden states) and its head (hidden -> logits).

    Both the learner and the transformers engine compute logits as head(hidden state) of the
    positions they need, never for the whole sequence; a model that transforms logits after
    its head would be computed wrongly, so it is refused.
    """
    if getattr(model.config, "final_logit_softcapping", None):
        raise ValueError("models with final_logit_softcapping are not supported: their logits "
                         "are not head(hidden state)")
    return model.get_decoder(), model.get_output_embeddings()


def completion_logprobs(model: Any, batch: PackedBatch, temperature: float, *,
                        unit_temperature: bool = False, chunk_tokens: int = 1024
                        ) -> TokenLogprobs:
    """Per-token log-probs (and entropies) of the completion tokens under `model`.

    `unit_temperature` also returns the log-probs at temperature 1, the model's own
    distribution, which the KL penalty compares with the reference's.
    """
    decoder, head = decoder_and_head(model)
    hidden = decoder(input_ids=batch.input_ids, attention_mask=batch.attention_mask,
                     use_cache=False).last_hidden_state  # no KV cache: nothing decodes after
    selected = hidden[batch.rows, batch.positions]  # [N, H]: only completion-predicting states
    pieces = [checkpoint(_chunk_stats, head, selected[i:i + chunk_tokens],
                         batch.targets[i:i + chunk_tokens], temperature, unit_temperature,
                         use_reentrant=False)
              for i in range(0, selected.shape[0], chunk_tokens)]
    logp, entropy, logp_unit = (torch.cat(parts) for parts in zip(*pieces, strict=True))
    return TokenLogprobs(logp=_scatter(logp, batch), entropy=_scatter(entropy, batch),
                         logp_unit=_scatter(logp_unit, batch) if unit_temperature else None)


def _chunk_stats(head: torch.nn.Module, hidden: torch.Tensor, targets: torch.Tensor,
                 temperature: float, unit_temperature: bool
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    logits = head(hidden)
    # [chunk, V] in fp32 (or wider): the only vocabulary-wide tensor there is
    logits = logits.to(torch.promote_types(logits.dtype, torch.float32))
    scaled = logits / temperature
    normaliser = torch.logsumexp(scaled, dim=-1)
    logp = scaled.gather(-1, targets[:, None])[:, 0] - normaliser
    with torch.no_grad():
        entropy = normaliser - (torch.softmax(scaled, dim=-1) * scaled).sum(-1)
    if unit_temperature and temperature == 1.0:
        logp_unit = logp
    elif unit_temperature:
        logp_unit = logits.gather(-1, targets[:, None])[:, 0] - torch.logsumexp(logits, dim=-1)
    else:
        logp_unit = torch.zeros_like(logp)
    return logp, entropy, logp_unit


def _scatter(values: torch.Tensor, batch: PackedBatch) -> torch.Tensor:
    """[N] per-token values -> [B, Tc], zero where there is no completion token."""
    out = torch.zeros(batch.mask.shape, dtype=values.dtype, device=values.device)
    return out.index_put((batch.rows, batch.cols), values)
