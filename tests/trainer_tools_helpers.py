"""What the tool-rollout tests share: a scripted engine (deterministic text, the stop rules of
a real engine), the tools settings of the tiny model, the service's open-session count."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from prometheus_client.parser import text_string_to_metric_families

from trainer.config import ToolsConfig
from trainer.tiny import TOOL_ALPHABET, build_char_tokenizer
from trainer.types import Completion, Sampling

TOKENIZER = build_char_tokenizer(TOOL_ALPHABET)
TAGS = {"code_open": "<code>", "code_close": "</code>", "output_open": "<output>",
        "output_close": "</output>"}
BEHAVIOUR_LOGPROB = -0.5


def tools_config(**settings: object) -> ToolsConfig:
    return ToolsConfig(**{"enabled": True, **TAGS, "timeout_s": 5.0, **settings})


def encode(text: str) -> list[int]:
    return TOKENIZER(text, add_special_tokens=False)["input_ids"]


class ScriptedEngine:
    """Writes `script(text of the context)` one character per token, as an engine would: cut
    after the first stop string, or at max_new_tokens, else ended by EOS. Every round is
    recorded with the version it ran at."""

    def __init__(self, script: Callable[[str], str], version: int = 0,
                 fail_at_round: int | None = None) -> None:
        self.script = script
        self.version = version
        self.fail_at_round = fail_at_round
        self.rounds: list[tuple[list[str], int]] = []
        self.loads: list[int] = []

    def generate(self, prompts: list[list[int]], sampling: Sampling) -> list[list[Completion]]:
        if len(self.rounds) == self.fail_at_round:
            raise RuntimeError("engine failed mid-rollout")
        contexts = [TOKENIZER.decode(p, skip_special_tokens=True) for p in prompts]
        self.rounds.append((contexts, self.version))
        return [[self._write(text, sampling) for _ in range(sampling.n)] for text in contexts]

    def _write(self, context: str, sampling: Sampling) -> Completion:
        text = self.script(context)
        ends = [(text.find(s) + len(s), s) for s in sampling.stop if s in text]
        stop = min(ends) if ends else None
        ids = encode(text[:stop[0]]) if stop else encode(text) + [TOKENIZER.eos_token_id]
        truncated = len(ids) > sampling.max_new_tokens
        if truncated:
            ids, stop = ids[:sampling.max_new_tokens], None
        return Completion(ids, [BEHAVIOUR_LOGPROB] * len(ids),
                          TOKENIZER.decode(ids, skip_special_tokens=True), truncated=truncated,
                          stop_reason=stop[1] if stop else None)

    def load_weights(self, model: object, version: int) -> None:
        self.loads.append(version)
        self.version = version

    def close(self) -> None:
        pass


def open_sessions(url: str) -> float:
    """Sessions the service created minus those deleted (its Prometheus counters)."""
    counts = {"create": 0.0, "delete": 0.0}
    for family in text_string_to_metric_families(httpx.get(f"{url}/metrics", timeout=30).text):
        for sample in family.samples:
            if (sample.name == "verifier_session_calls_total"
                    and sample.labels.get("outcome") == "ok" and sample.labels["op"] in counts):
                counts[sample.labels["op"]] += sample.value
    return counts["create"] - counts["delete"]
