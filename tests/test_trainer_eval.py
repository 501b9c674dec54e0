"""Evaluation on a held-out split: the pass@k estimator, the figures, the split itself."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from trainer.config import load_config
from trainer.data import Prompt, build_prompts, split_holdout, synthetic_addition
from trainer.evaluation import Evaluator, pass_at_k
from trainer.tiny import build_char_tokenizer
from trainer.types import Completion, Sampling


@pytest.mark.parametrize(("n", "correct", "k"), [(8, 0, 1), (8, 3, 1), (8, 3, 4), (8, 6, 4),
                                                   (5, 2, 5), (6, 1, 2)])
def test_pass_at_k_is_the_chance_that_some_k_subset_holds_a_correct_sample(n, correct, k):
    subsets = list(itertools.combinations([True] * correct + [False] * (n - correct), k))
    assert pass_at_k(n, correct, k) == pytest.approx(sum(map(any, subsets)) / len(subsets))


def _prompt(i: int, kind: str) -> Prompt:
    if kind == "code":
        return Prompt(text=f"p{i}", token_ids=[1, i], tests={"type": "assert", "code": "pass"})
    return Prompt(text=f"p{i}", token_ids=[1, i], answer=str(i))


class Scripted:
    """Verdicts by (prompt, text): 'c' correct, 'w' wrong, 'x' the verifier failed."""

    async def score(self, prompt, completions):
        verdicts = [c.text for c in completions]
        rewards = [1.0 if v == "c" else None if v == "x" else 0.0 for v in verdicts]
        statuses = ["correct" if v == "c" else "infra_error" if v == "x" else "wrong"
                    for v in verdicts]
        return rewards, statuses


# prompt -> the texts its 4 samples and its greedy completion get (greedy last)
SCRIPT = {1: ("ccww", "c"), 2: ("wwww", "w"), 3: ("cxww", "w"), 4: ("cccc", "x")}


async def _generate(prompts, sampling):
    texts = [SCRIPT[p.token_ids[1]][sampling.temperature == 0] for p in prompts]
    return [[Completion([5] * (j + 1), [-1.0] * (j + 1), t, truncated=False)
             for j, t in enumerate(row)] for row in texts]


def test_the_figures_of_an_evaluation():
    prompts = [_prompt(1, "math"), _prompt(2, "math"), _prompt(3, "code"), _prompt(4, "code")]
    evaluator = Evaluator(prompts, Scripted(), Sampling(n=4, max_new_tokens=4, temperature=1.0),
                          pass_k=[1, 2, 4], chunk_prompts=3)
    figures = asyncio.run(evaluator.evaluate(_generate))
    assert figures["prompts"] == 4 and figures["infra_error"] == 2
    # per prompt (scored samples, correct): (4, 2), (4, 0), (3, 1), (4, 4)
    assert figures["pass@1"] == pytest.approx((0.5 + 0 + 1 / 3 + 1) / 4)
    assert figures["pass@2"] == pytest.approx((1 - 1 / 6 + 0 + 1 - 1 / 3 + 1) / 4)
    assert figures["pass@4"] == pytest.approx((1 + 0 + 1) / 3)  # prompt 3 has < 4 scored
    assert figures["reward_mean"] == pytest.approx(7 / 15)
    assert figures["response_len"] == pytest.approx(2.5)
    assert figures["greedy_accuracy"] == pytest.approx(1 / 3)  # prompt 4's greedy: unscored
    assert figures["greedy_response_len"] == 1
    math_figures, code_figures = figures["by_kind"]["math"], figures["by_kind"]["code"]
    assert math_figures["prompts"] == code_figures["prompts"] == 2
    assert math_figures["reward_mean"] == pytest.approx(2 / 8)
    assert code_figures["reward_mean"] == pytest.approx(5 / 7)
    assert math_figures["greedy_accuracy"] == 0.5 and code_figures["greedy_accuracy"] == 0.0
    assert figures["eval_s"] >= 0


def test_pass_k_beyond_the_samples_is_refused():
    with pytest.raises(ValueError, match="pass_k"):
        Evaluator([_prompt(1, "math")], Scripted(), Sampling(n=4, max_new_tokens=4), [8])
    with pytest.raises(ValueError, match="eval.pass_k"):
        load_config(None, ["eval.samples=4", "eval.pass_k=[1, 8]"])
    with pytest.raises(ValueError, match="eval.every needs an evaluation split"):
        load_config(None, ["eval.every=5"])


def test_the_held_out_split_never_reaches_training():
    records = synthetic_addition(9)
    train, held = split_holdout(records, 20, seed=0)
    assert len(held) == 20 and len(train) == 80
    assert {r["prompt"] for r in train}.isdisjoint(r["prompt"] for r in held)
    assert split_holdout(records, 20, seed=0) == (train, held)  # the same for grpo eval
    cfg = load_config(None, ["eval.holdout=20"])
    source, prompts = build_prompts(cfg.data, cfg.eval, build_char_tokenizer())
    trained = {source[slot].text for slot in range(3 * len(source.records))}
    assert len(trained) == 80 and trained.isdisjoint(p.text for p in prompts)
    assert sorted(p.text for p in prompts) == sorted(r["prompt"] for r in held)
    with pytest.raises(ValueError, match="eval.holdout"):
        split_holdout(records, 100, seed=0)


def test_grpo_eval_without_an_evaluation_split_says_what_to_set(tmp_path):
    from typer.testing import CliRunner

    from trainer.cli import app
    from trainer.tiny import build_tiny_model, save_model

    tokenizer = build_char_tokenizer()
    model_dir = save_model(build_tiny_model(tokenizer), tokenizer, tmp_path / "model")
    result = CliRunner().invoke(app, ["eval", "--checkpoint", str(model_dir)])
    assert result.exit_code != 0
    assert "no evaluation split: set eval.source" in result.output
