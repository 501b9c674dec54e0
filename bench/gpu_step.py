"""The GPU check of the trainer, with no model download: Qwen2.5-0.5B's shapes, random weights.

Builds a randomly initialised Qwen2 model with Qwen2.5-0.5B's dimensions (config only: 24
layers, hidden 896, 14 heads / 2 KV heads, vocabulary 151,936, tied embeddings) and a
word-level tokenizer covering the whole vocabulary, both locally, then runs a few GRPO steps
through the trainer's own loop (`trainer.loop.train_loop`) twice, each in a fresh process:

  colocated  k = 0, the engine sleeps while the learner trains (vLLM sleep mode; the
             transformers engine parks its copy in host memory) and wakes up with the new
             weights;
  async      k = 1, the engine keeps its copy on the device and rollout overlaps training (the
             transformers engine generates on a CUDA stream of its own).

Rewards are random (seeded), so every group carries signal: this measures the machinery, not
learning. The first step of each mode (compilation, CUDA graphs, allocator warm-up) is left out
of the figures. Prints one JSON line: generation tokens/s, training tokens/s, weight-sync
seconds, peak device memory, the step-time breakdown of each mode, async/sync step time, and
the overlap: the share of the shorter of rollout and training that the step hid,
(rollout_s + train_s + sync_s - step_s) / min(rollout_s, train_s): 0 is serial, 1 is a step of
max(rollout, train) + sync.

    python bench/gpu_step.py                           # one GPU, vLLM (the `[vllm]` extra)
    PYTHONPATH=. python3 bench/gpu_step.py --engine hf --out gpu_step.json
                                                       # one GPU, torch + transformers only
    python bench/gpu_step.py --device cpu --tiny       # CPU smoke (tests/test_trainer_gpu_step.py)

The `--engine hf` run needs nothing but torch, transformers, tokenizers, PyYAML and this tree
(no vLLM, no client, no verifier, no network), so it runs on a bare GPU image; with the default
sizes its two modes take a few minutes. `--tiny` keeps the architecture and shrinks the
dimensions; vLLM's CPU build has no sleep mode, so on CPU it runs the async mode only
(`--engine vllm --modes async`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import torch

QWEN25_05B = {"hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24,
              "num_attention_heads": 14, "num_key_value_heads": 2, "vocab_size": 151936}
TINY = {"hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 2,
        "num_attention_heads": 2, "num_key_value_heads": 1, "vocab_size": 512}
MODES = {"colocated": 0, "async": 1}  # mode -> max_staleness


def build_model_dir(path: Path, dims: dict[str, int]) -> Path:
    """A random Qwen2 with these dims and a tokenizer with one token per id, saved as HF."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from trainer.tiny import build_id_tokenizer

    tokenizer = build_id_tokenizer(dims["vocab_size"])
    config = Qwen2Config(**dims, head_dim=dims["hidden_size"] // dims["num_attention_heads"],
                         max_position_embeddings=4096, rope_theta=1e6, tie_word_embeddings=True,
                         bos_token_id=0, eos_token_id=0, pad_token_id=0)
    torch.manual_seed(0)
    model = Qwen2ForCausalLM(config).to(torch.bfloat16)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


class RandomReward:
    """0/1 with probability one half, seeded: groups with signal, no verifier needed."""

    def __init__(self) -> None:
        self.rng = random.Random(0)

    async def score(self, prompt, completions):
        rewards = [float(self.rng.random() < 0.5) for _ in completions]
        return rewards, ["correct" if r else "wrong" for r in rewards]


class PeakMemory:
    """Peak device memory in use (all allocators: vLLM's own pool too), polled every 20 ms."""

    def __init__(self, device: str) -> None:
        self.cuda = device.startswith("cuda")
        self.peak = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self.done.wait(0.02):
            free, total = torch.cuda.mem_get_info()
            self.peak = max(self.peak, total - free)

    def __enter__(self) -> PeakMemory:
        if self.cuda:
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        if self.cuda:
            self.thread.join()
        else:  # CPU: the process's peak resident set (KiB on Linux)
            self.peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def run_mode(mode: str, args: argparse.Namespace) -> dict:
    """One mode in this process: build learner and engine, train args.steps steps."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from trainer.algorithm import loss_settings
    from trainer.config import AlgoConfig
    from trainer.data import Prompt
    from trainer.hf_engine import HFEngine
    from trainer.learner import GRPOLearner
    from trainer.loop import train_loop
    from trainer.pipeline import Pipeline
    from trainer.types import Sampling

    colocate, device = mode == "colocated", args.device
    compute = torch.bfloat16 if device.startswith("cuda") else torch.float32
    tokenizer = AutoTokenizer.from_pretrained(args.model_dir)
    policy = AutoModelForCausalLM.from_pretrained(args.model_dir, dtype=torch.float32)
    policy.gradient_checkpointing_enable()
    reference = AutoModelForCausalLM.from_pretrained(args.model_dir, dtype=compute)
    algo = AlgoConfig(loss="dapo", lr=1e-6, overlong="none", micro_batch_size=args.micro_batch,
                      logprob_chunk_tokens=1024)
    learner = GRPOLearner(policy, loss_settings("dapo", 0.2, None, 2.0), algo, temperature=1.0,
                          max_new_tokens=args.max_new_tokens,
                          pad_token_id=tokenizer.pad_token_id, total_steps=args.steps,
                          reference=reference, device=device, compute_dtype=compute)
    if args.engine == "vllm":
        from trainer.vllm_engine import VLLMEngine

        on_gpu = device.startswith("cuda")
        engine = VLLMEngine(args.model_dir, dtype="bfloat16" if on_gpu else "float32", seed=0,
                            gpu_memory_utilization=args.gpu_memory_utilization,
                            max_model_len=args.prompt_len + args.max_new_tokens + 16,
                            sleep_mode=colocate, enforce_eager=not on_gpu)
    else:
        engine = HFEngine(AutoModelForCausalLM.from_pretrained(args.model_dir, dtype=compute),
                          tokenizer, device=device)
    generator = random.Random(1)
    vocab = QWEN25_05B["vocab_size"] if not args.tiny else TINY["vocab_size"]
    prompts = [Prompt(text="", token_ids=[generator.randrange(1, vocab)
                                          for _ in range(args.prompt_len)], answer="0")
               for _ in range(args.steps * args.prompts)]
    pipeline = Pipeline(engine, RandomReward(), prompts,
                        Sampling(n=args.n, max_new_tokens=args.max_new_tokens),
                        prompts_per_step=args.prompts, max_staleness=MODES[mode],
                        chunk_prompts=max(1, args.prompts // 2), colocate=colocate)
    records: list[dict] = []
    with PeakMemory(device) as memory:
        asyncio.run(train_loop(pipeline, learner, range(args.steps), log=records.append))
    engine.close()
    steady = records[1:] or records
    samples = args.prompts * args.n
    # Rollout runs up to max_staleness steps ahead, so a step's window holds the generation of
    # later steps: throughput is what each window generated over its rollout time.
    generated = sum(r["generated_tokens"] for r in steady)
    trained = sum((args.prompt_len + r["completion_len"]) * samples for r in steady)
    stages = {key: statistics.mean(r[key] for r in steady)
              for key in ("step_s", "rollout_s", "reward_s", "train_s", "sync_s")}
    hidden = stages["rollout_s"] + stages["train_s"] + stages["sync_s"] - stages["step_s"]
    return {
        "mode": mode, "max_staleness": MODES[mode], "colocate": colocate,
        "generation_tokens_per_s": generated / max(sum(r["rollout_s"] for r in steady), 1e-9),
        "training_tokens_per_s": trained / max(sum(r["train_s"] for r in steady), 1e-9),
        "weight_sync_s": stages["sync_s"], "peak_memory_gb": memory.peak / 2**30,
        "overlap": hidden / max(min(stages["rollout_s"], stages["train_s"]), 1e-9),
        "steps_measured": len(steady), **stages,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--tiny", action="store_true", help="tiny dims (CPU smoke test)")
    parser.add_argument("--engine", choices=["vllm", "hf"], default=None,
                        help="default: vllm on cuda, hf on cpu")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--prompts", type=int, default=16, help="prompts per step")
    parser.add_argument("--n", type=int, default=8, help="samples per prompt")
    parser.add_argument("--prompt-len", type=int, default=128)
    parser.add_argument("--max-new-tokens", type=int, default=256)
    parser.add_argument("--micro-batch", type=int, default=16)
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.35)
    parser.add_argument("--modes", default=",".join(MODES),
                        help="comma-separated, of: " + ", ".join(MODES))
    parser.add_argument("--mode-timeout-s", type=float, default=300,
                        help="a mode's process is stopped (and the run fails) after this long")
    parser.add_argument("--out", type=Path, help="also write the JSON report to this file")
    parser.add_argument("--mode", choices=list(MODES), help=argparse.SUPPRESS)  # child process
    parser.add_argument("--model-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.engine = args.engine or ("vllm" if args.device.startswith("cuda") else "hf")
    if args.mode:
        print(json.dumps(run_mode(args.mode, args)))
        return
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or set(modes) - set(MODES):
        parser.error(f"--modes: choose from {', '.join(MODES)}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        dims = TINY if args.tiny else QWEN25_05B
        model_dir = build_model_dir(Path(tmp) / "model", dims)
        passed = sys.argv[1:]
        results = {}
        for mode in modes:  # a fresh process each: the engine's memory is really given back
            try:
                done = subprocess.run([sys.executable, __file__, *passed, "--mode", mode,
                                       "--model-dir", str(model_dir), "--engine", args.engine],
                                      capture_output=True, text=True,
                                      timeout=args.mode_timeout_s)
            except subprocess.TimeoutExpired as timeout:
                sys.exit(f"{mode} run exceeded {args.mode_timeout_s:.0f} s:\n"
                         f"{(timeout.stderr or b'')[-6000:]!r}")
            if done.returncode != 0:
                sys.exit(f"{mode} run failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}")
            results[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    report = {
        "model": "tiny qwen2" if args.tiny else "qwen2.5-0.5b shapes, random weights",
        "device": args.device, "engine": args.engine,
        "torch_device_name": (torch.cuda.get_device_name() if args.device.startswith("cuda")
                              else "cpu"),
        **{mode: {k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()}
           for mode, r in results.items()},
        "wall_s": round(time.perf_counter() - started, 1),
    }
    if len(results) == len(MODES):
        report["async_over_sync_step"] = round(results["async"]["step_s"]
                                               / results["colocated"]["step_s"], 4)
    print(json.dumps(report))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
