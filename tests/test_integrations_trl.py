"""TRL adapter: the reward-function contract, and a real GRPOTrainer rewarded by the verifier."""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rl_client.integrations.trl import completion_text, make_reward_func
from tests.client_proxy import ScriptedProxy

datasets = pytest.importorskip("datasets")
pytest.importorskip("trl")

ANSWERS = ["4", "5"]
CODE_TESTS = {"type": "stdio", "cases": [{"input": "2 3\n", "output": "5\n"}]}
GOOD_CODE = "Here:\n```python\na, b = map(int, input().split())\nprint(a + b)\n```"
BAD_CODE = "```python\nprint(0)\n```"


@pytest.fixture
def proxy(verifier_url: str) -> Iterator[ScriptedProxy]:
    with ScriptedProxy(verifier_url) as running:
        yield running


def score(reward_func: Any, prompts: list[Any], completions: list[Any], **columns: Any) -> Any:
    if asyncio.iscoroutinefunction(reward_func.func):
        return asyncio.run(reward_func(prompts=prompts, completions=completions, **columns))
    return reward_func(prompts=prompts, completions=completions, **columns)


@pytest.mark.parametrize("asynchronous", [True, False])
def test_plain_and_conversational_math(asynchronous: bool, proxy: ScriptedProxy) -> None:
    reward_func = make_reward_func(proxy.url, asynchronous=asynchronous)
    assert asyncio.iscoroutinefunction(reward_func.func) is asynchronous
    plain = ["so \\boxed{4}", "so \\boxed{7}"]
    chat = [[{"role": "assistant", "content": "I think \\boxed{4}"}],
            [{"role": "assistant", "content": [{"type": "text", "text": "\\boxed{3}"}]}]]
    columns = {"answer": ["4", "4"], "trainer_state": object()}

    assert score(reward_func, ["q", "q"], plain, **columns) == [1.0, 0.0]
    assert score(reward_func, [[], []], chat, **columns) == [1.0, 0.0]
    sent = [item["response"] for s in proxy.script.requests_to("/v1/verify")
            for item in s.body["items"]]
    assert sent == ["so \\boxed{4}", "so \\boxed{7}", "I think \\boxed{4}", "\\boxed{3}"]


def test_code_columns_json_labels_and_infra_errors(proxy: ScriptedProxy) -> None:
    reward_func = make_reward_func(proxy.url)
    logged: dict[str, Any] = {}
    proxy.script.infra_error_at = {3}
    rewards = score(
        reward_func, ["p"] * 4,
        [GOOD_CODE, BAD_CODE, "\\boxed{9}", "\\boxed{1}"],
        kind=["code", "code", "math", "math"],
        tests=[CODE_TESTS, '{"inputs": ["2 3\\n"], "outputs": ["5\\n"]}', None, None],
        language=["python", "python", None, None],
        answer=[None, None, '{"kind": "math", "answer": "9"}', "1"],
        log_extra=lambda column, values: logged.__setitem__(column, values),
        log_metric=lambda name, value: logged.__setitem__(name, value))

    assert rewards == [1.0, 0.0, 1.0, None]
    assert logged["verifier_status"][:3] == ["correct", "wrong", "correct"]
    assert logged["verifier_status"][3] == "infra_error"
    assert logged["verifier/infra_error_rate"] == 0.25
    [request] = proxy.script.requests_to("/v1/verify")
    assert request.body["items"][1]["tests"]["type"] == "stdio"  # APPS shape converted


def test_bad_rows_fail_clearly(proxy: ScriptedProxy) -> None:
    reward_func = make_reward_func(proxy.url, asynchronous=False)
    with pytest.raises(ValueError, match="`answer` column"):
        reward_func(prompts=["p"], completions=["x"], solution=["4"])
    with pytest.raises(ValueError, match="sample 1: no label"):
        reward_func(prompts=["p", "p"], completions=["x", "y"], answer=["4", None])
    with pytest.raises(TypeError, match="completion"):
        completion_text(42)
    assert proxy.script.seen == []


def test_answer_column_can_be_renamed(proxy: ScriptedProxy) -> None:
    reward_func = make_reward_func(proxy.url, answer_column="solution", asynchronous=False)
    assert reward_func(prompts=["p"], completions=["\\boxed{2}"], solution=["2"]) == [1.0]


# --------------------------------------------------------------------------- real GRPOTrainer

BOXED = re.compile(r"\\boxed\{(\d)\}")
VOCAB = ["<pad>", "<eos>", "<unk>", "\\boxed{4}", "\\boxed{5}", "so", "hmm", "ok",
         "what", "is", "two", "plus", "three", "one"]


def tiny_model_and_tokenizer() -> tuple[Any, Any]:
    """A 1-layer Qwen2 and a word-level tokenizer built here: no hub access at all."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    core = Tokenizer(models.WordLevel({w: i for i, w in enumerate(VOCAB)}, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>",
                                        eos_token="<eos>", unk_token="<unk>")
    config = Qwen2Config(vocab_size=len(VOCAB), hidden_size=16, intermediate_size=32,
                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
                         max_position_embeddings=64, pad_token_id=0, eos_token_id=1,
                         bos_token_id=None, tie_word_embeddings=True)
    return Qwen2ForCausalLM(config), tokenizer


def test_grpo_trainer_is_rewarded_by_the_verifier(proxy: ScriptedProxy, tmp_path: Path) -> None:
    import torch
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    torch.manual_seed(0)
    model, tokenizer = tiny_model_and_tokenizer()
    dataset = datasets.Dataset.from_dict({
        "prompt": ["what is two plus two", "what is three plus two"],
        "answer": ANSWERS,
    })
    step_logs: list[dict[str, float]] = []

    class KeepLogs(TrainerCallback):
        def on_log(self, args: Any, state: Any, control: Any, logs: Any = None,
                   **kwargs: Any) -> None:
            step_logs.append(dict(logs or {}))

    proxy.script.infra_error_at = {1}  # one sample per step: TRL must mask it, not zero it
    trainer = GRPOTrainer(
        model=model, processing_class=tokenizer, reward_funcs=make_reward_func(proxy.url),
        train_dataset=dataset, callbacks=[KeepLogs()],
        args=GRPOConfig(output_dir=str(tmp_path), per_device_train_batch_size=4,
                        num_generations=4, max_completion_length=6, max_steps=2,
                        learning_rate=1e-3, logging_steps=1, report_to=[], use_cpu=True,
                        bf16=False, save_strategy="no", seed=0, shuffle_dataset=False,
                        temperature=1.0))
    trainer.train()

    requests = proxy.script.requests_to("/v1/verify")
    assert len(requests) == 2  # one verify call per generation batch, one per step
    rewarded = [entry for entry in step_logs if "reward" in entry]
    assert len(rewarded) == 2
    for request, entry in zip(requests, rewarded, strict=True):
        items = request.body["items"]
        assert len(items) == 4 and {item["answer"] for item in items} <= set(ANSWERS)
        verdicts = [result["reward"] for result in request.reply["results"]]
        for index, (item, verdict) in enumerate(zip(items, verdicts, strict=True)):
            assert set(item["response"].split()) <= set(VOCAB)  # text the policy generated
            boxed = BOXED.findall(item["response"])
            if index == 1:
                assert verdict is None  # the infra_error
            elif len(boxed) == 1:  # one answer: its verdict is unambiguous
                assert verdict == (1.0 if boxed[0] == item["answer"] else 0.0)
            elif not boxed:
                assert verdict == 0.0
            else:  # several boxed answers: the checker's policy decides, but it decides
                assert verdict in (0.0, 1.0)
        scored = [v for v in verdicts if v is not None]
        assert entry["reward"] == pytest.approx(sum(scored) / len(scored))
        assert math.isfinite(entry["loss"])
