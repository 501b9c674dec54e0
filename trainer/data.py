"""Prompts: JSONL datasets or the built-in synthetic task, chat-templated and tokenized.

A record is `{"prompt": str | [chat messages], "answer": "..."}` (math, scored by the verifier's
math checker) or `{"prompt": ..., "tests": {...}, "language": "python"}` (code, scored in the
verifier's sandbox). Prompts are addressed by a global *slot* number: slot s is record
perm_e[s mod N] of epoch e = s // N, so the data position of a run is a single integer that a
checkpoint can store and a resumed run can continue from. The evaluation split is a JSONL file
of its own, or `eval.holdout` records drawn (seeded) from the training data, which training
then never sees.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Prompt:
    text: str  # what the policy sees, chat template applied
    token_ids: list[int]
    answer: str | None = None
    tests: dict[str, Any] | None = None
    language: str = "python"

    @property
    def kind(self) -> str:
        """The verifier's item kind that scores completions of this prompt."""
        return "code" if self.tests is not None else "math"


def synthetic_addition(max_operand: int) -> list[dict[str, Any]]:
    """Every `a+b=` with 0 <= a, b <= max_operand: a math task whose answers the verifier checks.

    Small enough for a tiny model to learn in minutes on a CPU, hard enough that it must learn
    (a format-only model guesses right about one time in 2 * max_operand).
    """
    return synthetic_arithmetic("+", 0, max_operand)


def synthetic_arithmetic(op: str, min_operand: int, max_operand: int) -> list[dict[str, Any]]:
    """Every `a<op>b=` with min_operand <= a, b <= max_operand. Products of two-digit numbers are
    what a tiny model cannot compute but can copy into a code block (the tools demo)."""
    compute = {"+": lambda a, b: a + b, "*": lambda a, b: a * b}[op]
    operands = range(min_operand, max_operand + 1)
    return [{"prompt": f"{a}{op}{b}=", "answer": str(compute(a, b))}
            for a in operands for b in operands]


def synthetic_records(data: Any) -> list[dict[str, Any]]:
    """The synthetic task the `data` section of the config describes."""
    return synthetic_arithmetic(data.synthetic_op, data.synthetic_min_operand,
                                data.synthetic_max_operand)


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Load and validate prompt records; a bad line is reported with its number."""
    records = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path}:{number}: not JSON ({err})") from None
            if not isinstance(record, dict) or "prompt" not in record:
                raise ValueError(f"{path}:{number}: a record needs a 'prompt'")
            if ("answer" in record) == ("tests" in record):
                raise ValueError(f"{path}:{number}: a record needs exactly one of "
                                 "'answer' (math) or 'tests' (code)")
            records.append(record)
    if not records:
        raise ValueError(f"{path}: no records")
    return records


class PromptSource:
    """Slot-addressed, epoch-shuffled, tokenized prompts."""

    def __init__(self, records: list[dict[str, Any]], tokenizer: Any, *, chat_template: bool,
                 system_prompt: str = "", prompt_suffix: str = "", seed: int = 0) -> None:
        self.records = records
        self.tokenizer = tokenizer
        self.use_template = chat_template and bool(getattr(tokenizer, "chat_template", None))
        self.system_prompt = system_prompt
        self.prompt_suffix = prompt_suffix
        self.seed = seed
        self._orders: dict[int, list[int]] = {}

    def __getitem__(self, slot: int) -> Prompt:
        epoch, offset = divmod(slot, len(self.records))
        if epoch not in self._orders:
            order = list(range(len(self.records)))
            random.Random(self.seed * 1_000_003 + epoch).shuffle(order)
            self._orders = {epoch: order}  # only the current epoch is ever needed
        return self.prompt(self.records[self._orders[epoch][offset]])

    def prompt(self, record: dict[str, Any]) -> Prompt:
        """A record rendered (chat template, system prompt, suffix) and tokenized."""
        text = self.render(record["prompt"])
        token_ids = self.tokenizer(text, add_special_tokens=not self.use_template)["input_ids"]
        answer = record.get("answer")
        return Prompt(text=text, token_ids=token_ids,
                      answer=None if answer is None else str(answer),
                      tests=record.get("tests"), language=record.get("language", "python"))

    def render(self, prompt: str | list[dict[str, str]]) -> str:
        messages = prompt if isinstance(prompt, list) else [
            {"role": "user", "content": prompt + self.prompt_suffix}]
        if not self.use_template:
            return "".join(m["content"] for m in messages)
        if self.system_prompt and messages[0].get("role") != "system":
            messages = [{"role": "system", "content": self.system_prompt}, *messages]
        return self.tokenizer.apply_chat_template(messages, tokenize=False,
                                                  add_generation_prompt=True)


def split_holdout(records: list[dict[str, Any]], count: int, seed: int
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(training records, `count` held-out records): a seeded draw, the same for every run and
    for `grpo eval` of the same config."""
    if not 0 <= count < len(records):
        raise ValueError(f"eval.holdout must be in [0, {len(records)}): the training data has "
                         f"{len(records)} records")
    chosen = set(random.Random(seed * 1_000_003 - 1).sample(range(len(records)), count))
    return ([r for i, r in enumerate(records) if i not in chosen],
            [r for i, r in enumerate(records) if i in chosen])


def build_prompts(data: Any, evaluation: Any, tokenizer: Any
                  ) -> tuple[PromptSource, list[Prompt]]:
    """From the `data` and `eval` sections of the config: the training prompts (slot-addressed)
    and the evaluation split (empty when none is configured)."""
    records = (synthetic_records(data) if data.source == "synthetic"
               else read_jsonl(data.source))
    records, held = split_holdout(records, evaluation.holdout, data.seed)
    source = PromptSource(records, tokenizer, chat_template=data.chat_template,
                          system_prompt=data.system_prompt, prompt_suffix=data.prompt_suffix,
                          seed=data.seed)
    if evaluation.source:
        held = read_jsonl(evaluation.source)
    if evaluation.max_prompts:
        held = held[:evaluation.max_prompts]
    return source, [source.prompt(r) for r in held]
