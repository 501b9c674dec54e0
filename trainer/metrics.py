"""Run output: OUT/metrics.jsonl, a progress bar, OUT/curves.png.

metrics.jsonl has one JSON line per training step (`"split": "train"`) and one per evaluation
of the held-out split (`"split": "eval"`, at `step` = the steps trained so far).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import TracebackType
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

METRICS_FILE = "metrics.jsonl"
CURVES_FILE = "curves.png"


class Reporter:
    """Appends metrics (a resumed run continues the same file) and drives the progress bar."""

    def __init__(self, out_dir: Path, total_steps: int, start_step: int, progress: bool) -> None:
        self.path = out_dir / METRICS_FILE
        self.file = self.path.open("a")
        self.progress = Progress(
            TextColumn("[bold]grpo"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TextColumn("{task.description}"), disable=not progress)
        self.task = self.progress.add_task("", total=total_steps, completed=start_step)

    def __enter__(self) -> Reporter:
        self.progress.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.progress.stop()
        self.file.close()

    def log(self, stats: dict[str, Any]) -> None:
        self.file.write(json.dumps(stats) + "\n")
        self.file.flush()
        if stats["split"] == "eval":
            figures = ", ".join(f"{key} {stats[key]:.3f}" for key in stats
                                if (key.startswith("pass@") or key.endswith("accuracy")
                                    or key == "reward_mean") and stats[key] is not None)
            self.progress.console.print(f"eval at step {stats['step']}: {figures}")
            return
        reward = "-" if stats["reward_mean"] is None else f"{stats['reward_mean']:.3f}"
        self.progress.update(self.task, advance=1, description=(
            f"reward {reward} acc {stats['accuracy']:.3f} v{stats['policy_version']} "
            f"staleness {stats['staleness_max']}/{stats['max_staleness']} "
            f"{stats['step_s']:.2f}s/step"))


def read_metrics(out_dir: Path, split: str = "train") -> list[dict[str, Any]]:
    """The records of one split (a line without `split` is a training step's, as runs from
    before evaluation wrote them)."""
    path = out_dir / METRICS_FILE
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [row for row in rows if row.get("split", "train") == split]


def plot_curves(out_dir: Path) -> Path:
    """Reward and accuracy, KL, seconds per stage, and the held-out figures, against the step."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, evals = read_metrics(out_dir), read_metrics(out_dir, "eval")

    def series(records: list[dict[str, Any]], key: str) -> list[float]:
        return [float("nan") if r.get(key) is None else r[key] for r in records]

    steps = [r["step"] for r in rows]
    figure, (reward_ax, kl_ax, time_ax, eval_ax) = plt.subplots(1, 4, figsize=(20, 4))
    reward_ax.plot(steps, series(rows, "reward_mean"), label="reward mean")
    reward_ax.plot(steps, series(rows, "accuracy"), label="accuracy", alpha=0.7)
    reward_ax.plot(steps, series(rows, "zero_signal_frac"), label="zero-signal groups",
                   alpha=0.5, linestyle=":")
    reward_ax.set(title="reward (training prompts)", xlabel="step")
    reward_ax.legend()
    kl_ax.plot(steps, series(rows, "kl"), color="tab:red", marker=".", label="policy || reference")
    kl_ax.plot(steps, series(rows, "mismatch_kl"), color="tab:purple",
               label="sampler || trainer (mismatch)")
    kl_ax.set(title="KL", xlabel="step")
    kl_ax.legend()
    for key in ("rollout_s", "reward_s", "train_s", "sync_s", "step_s"):
        time_ax.plot(steps, series(rows, key), label=key.removesuffix("_s"),
                     linestyle="--" if key == "step_s" else "-")
    time_ax.set(title="seconds per step (stages overlap)", xlabel="step")
    time_ax.legend()
    eval_steps = [r["step"] for r in evals]
    keys = sorted({k for r in evals for k in r if k.startswith("pass@")},
                  key=lambda k: int(k.removeprefix("pass@")))
    for key in ["greedy_accuracy", *keys, "reward_mean"]:
        if any(r.get(key) is not None for r in evals):
            eval_ax.plot(eval_steps, series(evals, key), marker="o", label=key)
    eval_ax.set(title="held-out split", xlabel="step")
    if evals:
        eval_ax.legend()
    figure.tight_layout()
    path = out_dir / CURVES_FILE
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
