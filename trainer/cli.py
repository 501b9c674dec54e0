"""The `grpo` command: `grpo train --config FILE [--set key=value ...]`, `grpo eval --checkpoint
DIR` and `grpo demo`."""

from __future__ import annotations

import importlib
import json
import signal
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from trainer.config import load_config

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Compact asynchronous GRPO trainer rewarded by the verifier service.")

# The trainer's own dependencies (the `trainer` extra), which the service's install leaves out,
# and how to install them with torch's CPU build: PyPI carries only the multi-GB CUDA builds.
# The docs give the same command (tests/test_trainer_cli_install.py holds them together).
TRAINER_PACKAGES = ("torch", "transformers", "tokenizers", "safetensors", "matplotlib")
TRAINER_INSTALL = ('-m pip install --extra-index-url https://download.pytorch.org/whl/cpu '
                   '"torch==2.13.0+cpu" -e ".[trainer]"')

# The demo: a tiny char-level Llama learns `a+b=` (answers checked by the verifier's math
# checker) through the async pipeline with staleness bound 1, in a few minutes on 2 CPU cores.
# Its base model gets a short supervised warm-up (60 steps) so that, like a pretrained model,
# it knows the format and is right now and then (~0.2); RL takes it from there.
DEMO_SETTINGS = {
    "model": {"tiny": True, "tiny_hidden": 128, "tiny_layers": 2, "tiny_warmup_steps": 60,
              "tiny_warmup_correct": 1.0},
    "data": {"source": "synthetic", "synthetic_max_operand": 9},
    "rollout": {"engine": "hf", "samples_per_prompt": 8, "max_new_tokens": 4,
                "temperature": 1.0, "chunk_prompts": 4},
    "algo": {"loss": "dapo", "lr": 3e-4, "is_cap": 2.0, "overlong": "mask",
             "micro_batch_size": 128},
    "pipeline": {"steps": 600, "prompts_per_step": 16, "max_staleness": 1},
    "eval": {"every": 100, "holdout": 20, "samples": 8, "pass_k": [1, 8]},
    "verifier": {"workers": 2},
    "save_every": 100,
}


# `grpo demo --tools`: tool-integrated rollouts end to end. Products of two-digit numbers (four
# digits each) that the tiny model cannot compute but can copy into a code block; the block
# runs in a session of the verifier's sandbox, its output is appended, the model copies it as
# its answer. The warm-up shows it the tool on 70% of its targets and random guesses on the
# rest, so RL has tool use to reinforce. What it shows is the mechanics (turns, masks,
# versions, the tool's metrics); the tiny model's copying is far from perfect.
DEMO_TOOL_SETTINGS = {
    **DEMO_SETTINGS,
    "model": {**DEMO_SETTINGS["model"], "tiny_warmup_steps": 300, "tiny_warmup_correct": 0.7},
    "data": {"source": "synthetic", "synthetic_op": "*", "synthetic_min_operand": 32,
             "synthetic_max_operand": 99},
    "rollout": {**DEMO_SETTINGS["rollout"], "max_new_tokens": 48, "chunk_prompts": 2},
    "tools": {"enabled": True, "max_calls": 2, "code_open": "<code>", "code_close": "</code>",
              "output_open": "<output>", "output_close": "</output>", "max_output_chars": 64,
              "timeout_s": 5.0},
    "pipeline": {"steps": 30, "prompts_per_step": 4, "max_staleness": 1},
    "eval": {"every": 15, "holdout": 16, "samples": 4, "pass_k": [1, 4]},
    "save_every": 15,
}


def _exit_cleanly_on_sigterm() -> None:
    """SIGTERM becomes SystemExit, so the embedded verifier and engines are shut down."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def _run_module() -> ModuleType:
    """trainer.run, or an exit naming the install command when the trainer's dependencies are
    missing (a bare ModuleNotFoundError says what, not how)."""
    try:
        return importlib.import_module("trainer.run")
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in TRAINER_PACKAGES:
            raise
        Console(stderr=True).print(
            f"error: the trainer needs {exc.name}, which is not installed here. "
            "Install the trainer's dependencies, with torch's CPU build (enough for `grpo "
            "demo`; on a GPU machine, install its CUDA build of torch first), from the "
            f"repository's root:\n  {sys.executable} {TRAINER_INSTALL}",
            markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None


def _overrides(settings: dict, prefix: str = "") -> list[str]:
    """`key=value` overrides, each value written as JSON (which YAML reads as such: "*" and
    "<code>" stay strings)."""
    out = []
    for key, value in settings.items():
        if isinstance(value, dict):
            out += _overrides(value, f"{prefix}{key}.")
        else:
            out.append(f"{prefix}{key}={json.dumps(value)}")
    return out


@app.command()
def train(
    config: Annotated[Path, typer.Option("--config", "-c", exists=True, dir_okay=False,
                                         help="YAML run config (see configs/).")],
    overrides: Annotated[list[str] | None, typer.Option(
        "--set", help="Override a config key, e.g. --set algo.lr=1e-5 (repeatable).")] = None,
) -> None:
    """Train with GRPO as configured."""
    run_training = _run_module().train
    _exit_cleanly_on_sigterm()
    try:
        cfg = load_config(config, overrides or [])
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None
    out = run_training(cfg)
    typer.echo(f"metrics: {out / 'metrics.jsonl'}\ncurves: {out / 'curves.png'}")


@app.command("eval")
def evaluate(
    checkpoint: Annotated[Path, typer.Option(
        "--checkpoint", exists=True, file_okay=False,
        help="A saved model directory: a run's checkpoint/ (or base_model/, or any HF model).")],
    config: Annotated[Path | None, typer.Option(
        "--config", "-c", exists=True, dir_okay=False,
        help="Run config; default: the config.yaml of the run the checkpoint belongs to.")] = None,
    overrides: Annotated[list[str] | None, typer.Option(
        "--set", help="Override a config key, e.g. --set eval.samples=16 (repeatable).")] = None,
    verifier_url: Annotated[str | None, typer.Option(
        help="Use this verifier service instead of starting one embedded.")] = None,
    out: Annotated[Path | None, typer.Option(
        help="Write the figures here as JSON; default: CHECKPOINT/eval.json.")] = None,
) -> None:
    """Score a checkpoint on the held-out split: greedy accuracy, pass@k, reward by kind."""
    evaluate_checkpoint = _run_module().evaluate_checkpoint
    _exit_cleanly_on_sigterm()
    beside = checkpoint.parent / "config.yaml"  # what `grpo train` wrote for the run
    run_config = config or (beside if beside.exists() else None)
    settings = (overrides or []) + ([f"verifier.url={verifier_url}"] if verifier_url else [])
    try:
        cfg = load_config(run_config, settings)
        figures = evaluate_checkpoint(cfg, checkpoint)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None
    out = out or checkpoint / "eval.json"
    out.write_text(json.dumps(figures, indent=2) + "\n")
    table = Table(title=f"grpo eval: {checkpoint} ({figures['prompts']} prompts)")
    kinds = list(figures["by_kind"])
    for column in ("figure", "all", *kinds):
        table.add_column(column, justify="right")
    for key, value in figures.items():
        if key not in ("prompts", "by_kind"):
            table.add_row(key, _cell(value), *(_cell(figures["by_kind"][k].get(key, ""))
                                               for k in kinds))
    Console().print(table)
    typer.echo(f"figures: {out}")


def _cell(value: float | int | str | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


@app.command()
def demo(
    out: Annotated[Path, typer.Option(help="Output directory.")] = Path("runs/demo"),
    verifier_url: Annotated[str | None, typer.Option(
        help="Use this verifier service instead of starting one embedded.")] = None,
    overrides: Annotated[list[str] | None, typer.Option(
        "--set", help="Override a demo setting, e.g. --set pipeline.steps=50.")] = None,
    tools: Annotated[bool, typer.Option(
        "--tools", help="Tool-integrated rollouts: the model's code runs in the verifier's "
                        "sandbox mid-generation (products of two-digit numbers).")] = False,
) -> None:
    """Train a tiny locally built model on a synthetic math task, rewarded by the verifier."""
    run_training = _run_module().train
    from trainer.metrics import read_metrics

    _exit_cleanly_on_sigterm()
    settings = (_overrides(DEMO_TOOL_SETTINGS if tools else DEMO_SETTINGS)
                + [f"out_dir={out}", "resume=false"])
    if verifier_url:
        settings.append(f"verifier.url={verifier_url}")
    cfg = load_config(None, settings + (overrides or []))
    if (out / "metrics.jsonl").exists():
        (out / "metrics.jsonl").unlink()  # a demo always starts fresh
    started = time.perf_counter()
    run_training(cfg)
    wall = time.perf_counter() - started
    rows = read_metrics(out)
    figures = {"reward": [r["reward_mean"] or 0.0 for r in rows]}
    if tools:
        figures["tool calls/sample"] = [r["tool_calls_per_sample"] for r in rows]
    table = Table(title="grpo demo" + (" --tools" if tools else ""))
    for column in ("figure", "first 10 steps", "last 10 steps", "rise"):
        table.add_column(column, justify="right")
    for name, values in figures.items():
        first, last = sum(values[:10]) / 10, sum(values[-10:]) / 10
        table.add_row(name, f"{first:.3f}", f"{last:.3f}", f"{last - first:+.3f}")
    Console().print(table)
    summary = f"{len(rows)} steps in {wall:.0f} s"
    if tools:
        summary += (f"; tool calls {sum(r['tool_calls'] for r in rows)}, failed "
                    f"{sum(r['tool_errors'] for r in rows)}")
    typer.echo(summary)
    typer.echo(f"metrics: {out / 'metrics.jsonl'}\ncurves: {out / 'curves.png'}")


if __name__ == "__main__":
    app()
