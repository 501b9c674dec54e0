"""Run output: one JSON line per step in OUT/metrics.jsonl, a progress bar, OUT/curves.png."""

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
        reward = "-" if stats["reward_mean"] is None else f"{stats['reward_mean']:.3f}"
        self.progress.update(self.task, advance=1, description=(
            f"reward {reward} acc {stats['accuracy']:.3f} v{stats['policy_version']} "
            f"staleness {stats['staleness_max']}/{stats['max_staleness']} "
            f"{stats['step_s']:.2f}s/step"))


def read_metrics(out_dir: Path) -> list[dict[str, Any]]:
    path = out_dir / METRICS_FILE
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def plot_curves(out_dir: Path) -> Path:
    """Reward and accuracy, KL to the reference, and seconds per stage, against the step."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_metrics(out_dir)
    steps = [r["step"] for r in rows]

    def series(key: str) -> list[float]:
        return [float("nan") if r.get(key) is None else r[key] for r in rows]

    figure, (reward_ax, kl_ax, time_ax) = plt.subplots(1, 3, figsize=(15, 4))
    reward_ax.plot(steps, series("reward_mean"), label="reward mean")
    reward_ax.plot(steps, series("accuracy"), label="accuracy", alpha=0.7)
    reward_ax.set(title="reward", xlabel="step")
    reward_ax.legend()
    kl_ax.plot(steps, series("kl"), color="tab:red")
    kl_ax.set(title="KL(policy || reference)", xlabel="step")
    for key in ("rollout_s", "reward_s", "train_s", "sync_s", "step_s"):
        time_ax.plot(steps, series(key), label=key.removesuffix("_s"),
                     linestyle="--" if key == "step_s" else "-")
    time_ax.set(title="seconds per step (stages overlap)", xlabel="step")
    time_ax.legend()
    figure.tight_layout()
    path = out_dir / CURVES_FILE
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
