"""How much of a step the async pipeline hides with a real engine and a real learner (CPU).

The transformers engine and the GRPO learner on the tiny Llama of trainer/tiny.py, on the
synthetic `a+b=` task, run through the trainer's own loop (`trainer.run.train_loop`) twice
from the same weights: k = 0 (generate, score, train, sync in turn) and k = 1 (rollout of step
s+1 overlaps training of step s). Rewards are exact-match in process, so the verifier's CPU use
does not blur the comparison (its overlap is shown by the real runs). On a CPU the engine and
the learner share the same cores, so the gain is bounded by how much of each stage is not
compute-bound; on a GPU with a separate engine device it approaches bench/pipeline_overlap.py's.
With `--threads 1` each stage gets one core of its own while they overlap (k = 1) and the
serial run uses one at a time. The two are measured in alternation (`--repeats` times each;
medians), so a change in the machine's load hits both. Prints one JSON line: steady-state
step seconds for both, their ratio, and the stage seconds.

    python bench/trainer_overlap.py [--steps 10] [--repeats 2] [--prompts 8] [--hidden 256]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics

import torch

from trainer.algorithm import loss_settings
from trainer.config import AlgoConfig
from trainer.data import Prompt, PromptSource, synthetic_addition
from trainer.hf_engine import HFEngine
from trainer.learner import GRPOLearner
from trainer.loop import train_loop
from trainer.pipeline import Pipeline
from trainer.tiny import build_char_tokenizer, build_tiny_model
from trainer.types import Completion, Sampling

WARMUP_STEPS = 2  # the first steps fill the pipeline


class ExactMatch:
    """Reward 1 for the exact answer: instant, so rollout and training are what overlap."""

    async def score(self, prompt: Prompt, completions: list[Completion]) -> tuple[list, list]:
        rewards = [float(c.text.strip() == prompt.answer) for c in completions]
        return rewards, ["correct" if r else "wrong" for r in rewards]


def measure(k: int, args: argparse.Namespace) -> dict:
    tokenizer = build_char_tokenizer()
    model = build_tiny_model(tokenizer, hidden=args.hidden, layers=args.layers, seed=0)
    engine = HFEngine(build_tiny_model(tokenizer, hidden=args.hidden, layers=args.layers,
                                       seed=0), tokenizer)
    algo = AlgoConfig(loss="dapo", lr=1e-4, overlong="none", reference=True,
                      micro_batch_size=64, minibatches=args.minibatches)
    learner = GRPOLearner(model, loss_settings("dapo", 0.2, None, 2.0), algo, temperature=1.0,
                          max_new_tokens=args.max_new_tokens,
                          pad_token_id=tokenizer.pad_token_id, total_steps=args.steps,
                          reference=build_tiny_model(tokenizer, hidden=args.hidden,
                                                     layers=args.layers, seed=0))
    prompts = PromptSource(synthetic_addition(9), tokenizer, chat_template=False)
    pipeline = Pipeline(engine, ExactMatch(), prompts,
                        Sampling(n=args.n, max_new_tokens=args.max_new_tokens),
                        prompts_per_step=args.prompts, max_staleness=k,
                        chunk_prompts=max(1, args.prompts // 4))
    records: list[dict] = []
    torch.manual_seed(0)
    asyncio.run(train_loop(pipeline, learner, range(args.steps), log=records.append))
    steady = records[WARMUP_STEPS:]
    return {key: statistics.mean(r[key] for r in steady)
            for key in ("step_s", "rollout_s", "train_s", "sync_s")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=2, help="alternating runs of each k")
    parser.add_argument("--prompts", type=int, default=8, help="prompts per step")
    parser.add_argument("--n", type=int, default=8, help="samples per prompt")
    parser.add_argument("--max-new-tokens", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--minibatches", type=int, default=4,
                        help="optimizer steps per batch: gives training a real rollout's weight")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch threads (1: each stage gets a core of its own when they "
                             "overlap, as an engine and a learner on their own devices do)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    runs: dict[int, list[dict]] = {0: [], 1: []}
    for _ in range(args.repeats):
        for k in (0, 1):
            runs[k].append(measure(k, args))
    sync, overlapped = ({key: statistics.median(r[key] for r in runs[k]) for key in runs[k][0]}
                        for k in (0, 1))
    print(json.dumps({
        "sync_step_s": round(sync["step_s"], 4), "async_step_s": round(overlapped["step_s"], 4),
        "ratio": round(overlapped["step_s"] / sync["step_s"], 4),
        "sync_stages_s": {k: round(v, 4) for k, v in sync.items() if k != "step_s"},
        "async_stages_s": {k: round(v, 4) for k, v in overlapped.items() if k != "step_s"},
        "repeats": args.repeats, "torch_threads": torch.get_num_threads(),
    }))


if __name__ == "__main__":
    main()
