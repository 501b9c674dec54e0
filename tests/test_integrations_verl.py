"""verl adapter: its reward-function contracts, called the way verl's reward managers call them."""

from __future__ import annotations

import asyncio
import functools
import json
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from rl_client.integrations.verl import compute_score, compute_score_async, compute_score_batch
from tests.client_proxy import ScriptedProxy
from tests.procs import run_with_verl

SQUARE = "```python\nn = int(input())\nprint(n * n)\n```"
WRONG_SQUARE = "```python\nprint(int(input()) + 1)\n```"
# verl's code datasets (PRIME/Eurus, APPS, TACO) store tests as a JSON string of inputs/outputs.
APPS_TRUTH = json.dumps({"inputs": ["3\n", "5\n"], "outputs": ["9\n", "25\n"]})


@pytest.fixture
def proxy(verifier_url: str) -> Iterator[ScriptedProxy]:
    with ScriptedProxy(verifier_url) as running:
        yield running


def test_math_sample(verifier_url: str) -> None:
    correct = compute_score(data_source="openai/gsm8k", solution_str="... so \\boxed{18}",
                            ground_truth="18", extra_info={"split": "train", "index": 0},
                            url=verifier_url)
    wrong = compute_score("lighteval/MATH", "the answer is \\boxed{\\frac{1}{3}}", "\\frac{1}{2}",
                          url=verifier_url)
    assert correct == {"score": 1.0, "acc": 1.0, "infra_error": 0.0}
    assert wrong == {"score": 0.0, "acc": 0.0, "infra_error": 0.0}


def test_code_ground_truth_shapes(verifier_url: str) -> None:
    score = functools.partial(compute_score, url=verifier_url)
    assert score("codecontests", SQUARE, APPS_TRUTH)["score"] == 1.0
    assert score("apps", WRONG_SQUARE, APPS_TRUTH)["score"] == 0.0
    # Read back from parquet, nested lists arrive as numpy arrays.
    from_parquet = {"inputs": np.array(["3\n", "5\n"], dtype=object),
                    "outputs": np.array(["9\n", "25\n"], dtype=object)}
    assert score("taco", SQUARE, from_parquet)["score"] == 1.0
    # Call-based problems carry fn_name; any data source can say it is code via extra_info.
    call_based = {"inputs": [[2, 3], [4, 5]], "outputs": [[5], [9]], "fn_name": "add"}
    assert score("my_code_set", "```python\ndef add(a, b):\n    return a + b\n```", call_based,
                 extra_info={"kind": "code", "language": "python"})["score"] == 1.0
    # A whole item as JSON works whatever the data source.
    item = json.dumps({"kind": "code", "tests": {"type": "stdio", "cases": [
        {"input": "4\n", "output": "16\n"}]}})
    assert score("anything", SQUARE, item)["acc"] == 1.0


def test_batch_is_one_request_in_order(proxy: ScriptedProxy) -> None:
    # As BatchRewardManager passes them: numpy object arrays and keyword names, with the
    # config's reward_kwargs merged in by verl's wrapper.
    data_sources = np.array(["openai/gsm8k", "apps", "openai/gsm8k", "apps"], dtype=object)
    solutions = ["\\boxed{3}", WRONG_SQUARE, "\\boxed{7}", SQUARE]
    truths = ["3", APPS_TRUTH, "8", APPS_TRUTH]
    extras = np.array([{"index": i, "rollout_reward_scores": {}} for i in range(4)],
                      dtype=object)
    scores = compute_score_batch(data_sources=data_sources, solution_strs=solutions,
                                 ground_truths=truths, extra_infos=extras, url=proxy.url)

    assert [s["score"] for s in scores] == [1.0, 0.0, 0.0, 1.0]
    assert len(proxy.script.requests_to("/v1/verify")) == 1


def test_async_variant_merges_concurrent_samples(proxy: ScriptedProxy) -> None:
    async def run() -> list[dict[str, float]]:  # as verl's reward loop: all samples at once
        return await asyncio.gather(*(
            compute_score_async(data_source="openai/gsm8k", solution_str=f"\\boxed{{{n}}}",
                                ground_truth="2", extra_info={"num_turns": None},
                                url=proxy.url, reward_router_address=None)
            for n in range(6)))

    assert [s["score"] for s in asyncio.run(run())] == [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    assert len(proxy.script.requests_to("/v1/verify")) == 1
    assert asyncio.iscoroutinefunction(compute_score_async)


def test_infra_error_is_flagged_and_scored_as_configured(proxy: ScriptedProxy) -> None:
    proxy.script.infra_error_at = {0}
    scores = compute_score_batch(["openai/gsm8k"] * 2, ["\\boxed{1}", "\\boxed{1}"], ["1", "1"],
                                 None, url=proxy.url, infra_error_score=-1.0)
    assert scores == [{"score": -1.0, "acc": 0.0, "infra_error": 1.0},
                      {"score": 1.0, "acc": 1.0, "infra_error": 0.0}]


def test_bad_batches_and_labels_fail_clearly(proxy: ScriptedProxy) -> None:
    with pytest.raises(ValueError, match="differ in length"):
        compute_score_batch(["a", "b"], ["x"], ["1"], None, url=proxy.url)
    with pytest.raises(ValueError, match="sample 1: a code sample needs tests"):
        compute_score_batch(["openai/gsm8k", "apps"], ["x", "y"], ["1", "not tests"], None,
                            url=proxy.url)
    with pytest.raises(ValueError, match="no label"):
        compute_score("openai/gsm8k", "x", None, url=proxy.url)
    assert proxy.script.seen == []


# ------------------------------------------------------------------------------ verl itself
# verl cannot share this environment (it pins transformers < 5.11), so verl's own reward
# managers run in a subprocess with a Python that has verl: VERL_PYTHON, by default the venv
# that `bash scripts/verl-venv` makes. The tests are skipped, saying why, when there is none,
# and fail instead when VERIFIER_REQUIRE_VERL is set (CI). This file is that subprocess's
# script: `python tests/test_integrations_verl.py <check> <verifier url>` prints a JSON line.

VERL_MANAGERS = ("import verl.trainer.ppo.reward, verl.workers.reward_manager.batch, "
                 "verl.experimental.reward_loop.reward_manager.naive")

# "so \boxed{4}", "\boxed{5} so so", "q \boxed{4}": right-padded responses to one prompt token
VERL_VOCAB = ["<pad>", "<unk>", "q", "so", "\\boxed{4}", "\\boxed{5}"]
VERL_RESPONSES = [[3, 4, 0], [5, 3, 3], [2, 4, 0]]
VERL_LENGTHS = [2, 3, 2]
VERL_EXPECTED = [1.0, 0.0, 1.0]


@functools.cache
def run_in_verl(check: str, url: str) -> dict[str, Any]:
    """Run one of VERL_CHECKS against the verifier at `url` with verl's Python; its report."""
    return run_with_verl(__file__, check, url, VERL_MANAGERS)


def test_real_batch_reward_manager(proxy: ScriptedProxy) -> None:
    report = run_in_verl("batch_reward_manager", proxy.url)

    for row, (n, reward) in enumerate(zip(VERL_LENGTHS, VERL_EXPECTED, strict=True)):
        assert report["reward_tensor"][row][n - 1] == reward
        assert sum(report["reward_tensor"][row]) == reward
    assert report["infra_error"] == [0.0, 0.0, 0.0]
    assert len(proxy.script.requests_to("/v1/verify")) == 1


def test_real_reward_loop_manager(proxy: ScriptedProxy) -> None:
    """verl >= 0.9's reward loop: run_single per sample, all at once, our coroutine awaited."""
    report = run_in_verl("reward_loop_manager", proxy.url)

    assert report["is_async_reward_score"] is True
    assert report["reward_scores"] == VERL_EXPECTED
    assert report["infra_error"] == [0.0, 0.0, 0.0]
    assert len(proxy.script.requests_to("/v1/verify")) == 1


# ------------------------------------------------------------- run with verl's Python (above)
def verl_batch() -> tuple[Any, Any]:
    """A tokenizer and a DataProto shaped as verl's rollout hands them to reward managers."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast
    from verl import DataProto

    core = Tokenizer(models.WordLevel({w: i for i, w in enumerate(VERL_VOCAB)},
                                      unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>",
                                        unk_token="<unk>")
    mask = torch.tensor([[1] + [1 if j < n else 0 for j in range(3)] for n in VERL_LENGTHS])
    data = DataProto.from_dict(
        tensors={"prompts": torch.full((3, 1), 2), "responses": torch.tensor(VERL_RESPONSES),
                 "attention_mask": mask},
        non_tensors={"data_source": np.array(["openai/gsm8k"] * 3, dtype=object),
                     "reward_model": np.array([{"ground_truth": "4"}] * 3, dtype=object),
                     "extra_info": np.array([{"index": i} for i in range(3)], dtype=object)})
    return tokenizer, data


def verl_reward_fn(name: str, url: str) -> Any:
    """The reward function as verl loads it from its config: by file path and name."""
    from omegaconf import OmegaConf
    from verl.trainer.ppo.reward import get_custom_reward_fn

    import rl_client.integrations.verl as adapter

    hook = {"path": adapter.__file__, "name": name, "reward_kwargs": {"url": url}}
    # verl >= 0.9 reads reward.custom_reward_function; earlier releases the top-level key.
    return get_custom_reward_fn(OmegaConf.create({"reward": {"custom_reward_function": hook},
                                                  "custom_reward_function": hook}))


def score_with_batch_reward_manager(url: str) -> dict[str, Any]:
    """verl's BatchRewardManager: the whole batch to compute_score_batch at once."""
    from verl.workers.reward_manager.batch import BatchRewardManager

    tokenizer, data = verl_batch()
    manager = BatchRewardManager(tokenizer, num_examine=0,
                                 compute_score=verl_reward_fn("compute_score_batch", url))
    out = manager(data, return_dict=True)
    return {"reward_tensor": out["reward_tensor"].tolist(),
            "infra_error": out["reward_extra_info"]["infra_error"]}


def score_with_reward_loop_manager(url: str) -> dict[str, Any]:
    """verl's reward-loop NaiveRewardManager: one run_single per sample, all concurrently."""
    from omegaconf import OmegaConf
    from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager

    tokenizer, data = verl_batch()

    async def run() -> tuple[bool, list[dict[str, Any]]]:
        manager = NaiveRewardManager(OmegaConf.create({}), tokenizer,
                                     verl_reward_fn("compute_score_async", url))
        outputs = await asyncio.gather(*(manager.run_single(data[i:i + 1]) for i in range(3)))
        return manager.is_async_reward_score, outputs

    is_async, outputs = asyncio.run(run())
    return {"is_async_reward_score": is_async,
            "reward_scores": [o["reward_score"] for o in outputs],
            "infra_error": [o["reward_extra_info"]["infra_error"] for o in outputs]}


VERL_CHECKS = {"batch_reward_manager": score_with_batch_reward_manager,
               "reward_loop_manager": score_with_reward_loop_manager}

if __name__ == "__main__":
    print(json.dumps(VERL_CHECKS[sys.argv[1]](sys.argv[2])))
