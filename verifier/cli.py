"""The `verifier` command: serve the API, run a queue worker, or check a file locally."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from verifier.config import Settings, SettingsError, load_settings, unknown_variables
from verifier.service.logs import setup_logging

app = typer.Typer(help="Verifier-as-a-service: rewards for RL from math answers and code tests.",
                  no_args_is_help=True, pretty_exceptions_enable=False)
console = Console(stderr=True)


def _settings(**overrides: object) -> Settings:
    """The validated settings, CLI flags on top; a bad value ends the command, naming it, and
    an unknown VERIFIER_* variable is named in a warning (or ends it, when so configured)."""
    try:
        settings = load_settings(**{k: v for k, v in overrides.items() if v is not None})
    except SettingsError as exc:
        console.print(f"[red]error:[/red] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    for unknown in unknown_variables():
        console.print(f"[yellow]warning:[/yellow] unknown variable {unknown}: ignored "
                      f"(VERIFIER_UNKNOWN_VARIABLES=refuse makes this an error)",
                      highlight=False, soft_wrap=True)
    return settings


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Interface to bind (env VERIFIER_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="TCP port (env VERIFIER_PORT).")] = None,
    workers: Annotated[int | None, typer.Option(
        help="Local worker processes in embedded mode (default: the core count) "
             "(env VERIFIER_WORKERS).")] = None,
    broker: Annotated[str | None, typer.Option(
        help="Redis URL: enqueue chunks on Celery for `verifier worker` processes instead of "
             "scoring locally (env VERIFIER_BROKER_URL).")] = None,
    log_level: Annotated[str | None, typer.Option(help="debug, info, warning…")] = None,
    lifeline_fd: Annotated[int | None, typer.Option(
        hidden=True, help="Shut down when this descriptor reads EOF (verifier.local).")] = None,
) -> None:
    """Run the HTTP API (embedded mode by default; distributed with --broker)."""
    import uvicorn

    from verifier.api.app import create_app

    settings = _settings(host=host, port=port, workers=workers, broker_url=broker,
                         log_level=log_level)
    setup_logging(settings.log_level, settings.log_format)
    if lifeline_fd is not None:
        from verifier.local import watch_lifeline

        watch_lifeline(lifeline_fd, grace_s=settings.shutdown_timeout_s + 5)
    # SIGTERM: requests in flight get the shutdown grace, then are cancelled (their chunks
    # stopped) and the pool's processes end; the process exits in about that much time.
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_config=None,
                log_level=settings.log_level.lower(),
                timeout_graceful_shutdown=settings.shutdown_timeout_s)


@app.command()
def worker(
    broker: Annotated[str, typer.Option(help="Redis URL of the queue (env VERIFIER_BROKER_URL).",
                                        envvar="VERIFIER_BROKER_URL")],
    concurrency: Annotated[int | None, typer.Option(
        help="Worker processes (default: the core count).")] = None,
    log_level: Annotated[str | None, typer.Option(
        help="debug, info, warning… (env VERIFIER_LOG_LEVEL).")] = None,
) -> None:
    """Process chunks from the queue (distributed mode). Run as many as you need."""
    from verifier.executors.celery_app import run_worker

    settings = _settings(broker_url=broker, log_level=log_level)
    argv = ["worker", "--loglevel", settings.log_level.upper(), "--pool", "prefork",
            "--without-gossip", "--without-mingle"]
    if concurrency:
        argv += ["--concurrency", str(concurrency)]
    run_worker(settings, argv)


@app.command()
def check(
    items_file: Annotated[Path, typer.Argument(help="JSONL file, one item per line.",
                                               exists=True, dir_okay=False, readable=True)],
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", help="Write one result per scored line here (JSONL).")] = None,
    workers: Annotated[int | None, typer.Option(help="Local worker processes.")] = None,
) -> None:
    """Score a JSONL file locally (no server) with a progress bar and a summary table.

    Bad lines are reported with their line numbers; the other lines are still scored. Exits
    with status 1 when any line was skipped.
    """
    from rlvr_contract import strict_json
    from rlvr_contract.schemas import parse_item
    from verifier.service.verification import item_problem

    # Worker processes log at warning here: per-chunk lines would break up the progress bar.
    settings = _settings(log_level="warning", workers=workers)
    items, lines, problems = [], [], []
    with items_file.open("rb") as handle:  # a line that is not UTF-8 is that line's problem
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = parse_item(strict_json.loads(line.decode("utf-8")))
                problem = item_problem(item, settings)  # an unknown language, over budget...
                if problem:
                    problems.append(f"{items_file}:{number}: {problem}")
                    continue
                items.append(item)
                lines.append(number)
            except json.JSONDecodeError as exc:
                problems.append(f"{items_file}:{number}: not valid JSON ({exc.msg})")
            except UnicodeDecodeError as exc:
                problems.append(f"{items_file}:{number}: not UTF-8 ({exc.reason} at byte "
                                f"{exc.start})")
            except strict_json.JSONRefused as exc:  # NaN, nesting past the limit, ...
                where = ".".join(map(str, exc.path)) or "item"
                problems.append(f"{items_file}:{number}: {where}: {exc.reason}")
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"]) or "item"
                problems.append(f"{items_file}:{number}: {where}: {first['msg']}")
    for problem in problems:
        console.print(f"{problem} [red](line skipped)[/red]", highlight=False, soft_wrap=True)

    results = asyncio.run(_score_locally(settings, items)) if items else []

    if output:
        with output.open("w", encoding="utf-8") as out:
            for number, result in zip(lines, results, strict=True):
                out.write(json.dumps({"line": number, **result.model_dump(mode="json")}) + "\n")
    _print_summary(results, skipped=len(problems))
    if problems:
        raise typer.Exit(1)


async def _score_locally(settings: Settings, items: list) -> list:
    from verifier.executors.embedded import EmbeddedExecutor
    from verifier.service.cache import MemoryCache
    from verifier.service.verification import VerificationService

    executor = EmbeddedExecutor(settings)
    service = VerificationService(settings.model_copy(update={"max_backlog": len(items)}),
                                  executor,
                                  MemoryCache(settings.cache_size, settings.cache_max_bytes))
    results: list = [None] * len(items)
    columns = (TextColumn("scoring"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    try:
        with Progress(*columns, console=console) as progress:
            task = progress.add_task("scoring", total=len(items))
            for start in range(0, len(items), settings.max_items):
                batch = items[start:start + settings.max_items]
                async for index, result in service.stream(service.admit(batch)):
                    results[start + index] = result
                    progress.advance(task)
    finally:
        await executor.close()
    return results


def _print_summary(results: list, skipped: int) -> None:
    counts = Counter(r.status.value for r in results)
    title = f"{len(results)} items scored" + (f", {skipped} skipped" if skipped else "")
    table = Table(title=title)
    table.add_column("status")
    table.add_column("items", justify="right")
    table.add_column("share", justify="right")
    for status, n in counts.most_common():
        table.add_row(status, str(n), f"{n / len(results):.1%}")
    rewards = [r.reward for r in results if r.reward is not None]
    if rewards:
        table.caption = f"mean reward {sum(rewards) / len(rewards):.4f} over {len(rewards)} items"
    Console().print(table)


if __name__ == "__main__":
    app()
