"""Checkpoints: a crash mid-swap leaves a usable checkpoint; RNG states continue on resume."""

from __future__ import annotations

import random

import torch

from trainer.checkpoint import load_checkpoint, save_checkpoint
from trainer.tiny import build_char_tokenizer, build_tiny_model


def _save(out, model, tokenizer, step: int):
    optimizer = torch.optim.AdamW(model.parameters())
    return save_checkpoint(out, model, tokenizer, optimizer, {"step": step})


def test_a_crash_between_the_two_renames_resumes_from_checkpoint_old(tmp_path):
    tokenizer = build_char_tokenizer()
    model = build_tiny_model(tokenizer)
    final = _save(tmp_path, model, tokenizer, step=4)
    # The crash: the next save renamed checkpoint -> checkpoint.old, then died before
    # renaming checkpoint.tmp -> checkpoint.
    final.rename(tmp_path / "checkpoint.old")
    (tmp_path / "checkpoint.tmp").mkdir()
    checkpoint = load_checkpoint(tmp_path)
    assert checkpoint is not None and checkpoint.state["step"] == 4
    assert checkpoint.path == tmp_path / "checkpoint" and checkpoint.path.is_dir()
    assert not (tmp_path / "checkpoint.old").exists()
    assert _save(tmp_path, model, tokenizer, step=6) == tmp_path / "checkpoint"  # saves go on
    assert load_checkpoint(tmp_path).state["step"] == 6


def test_rng_states_are_saved_and_restored(tmp_path):
    tokenizer = build_char_tokenizer()
    model = build_tiny_model(tokenizer)
    random.seed(1)
    torch.manual_seed(1)
    _save(tmp_path, model, tokenizer, step=2)
    expected = (random.random(), torch.rand(3))
    random.seed(99)  # a fresh process seeds from the config again
    torch.manual_seed(99)
    load_checkpoint(tmp_path).restore_rng()
    again = (random.random(), torch.rand(3))
    assert again[0] == expected[0]
    assert torch.equal(again[1], expected[1])
