"""What `remem bench` runs (remem's command parses the options and loads the configuration,
then calls ``run_dataset`` or ``run_suite_command``): one dataset's table, or every dataset of
the development suite in one table.

Progress goes to stderr: a bar on a terminal; otherwise (a CI log, a pipe) one line as each
dataset starts and finishes and a summary line, so a run of many minutes is never silent.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from remem import Config
from remem_bench import DATA_DIR
from remem_bench.benchmark import Variant, run_benchmark
from remem_bench.suite import load_no_answer, missing_files, run_suite, suite_datasets

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True, highlight=False)

CHANNELS = {"hybrid": ("vector", "lexical"), "vector": ("vector",), "lexical": ("lexical",)}
BENCH_METRICS = ("recall@5", "recall@10", "hit@10", "session_recall@10", "mrr")
BENCH_JSON_KEYS = (
    "dataset",
    "n_queries",
    "overall",
    "by_category",
    "latency_ms",
    "ingest_per_s",
    "channels",
    "embed_model",
    "k",
)


class BenchUsageError(Exception):
    """Bad input or missing data: ``remem bench`` prints the message as its one-line error and
    exits with ``code`` (2 bad input, 1 data not found)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def default_shared_dir() -> Path:
    """$REMEM_BENCH_DIR, else the shared benchmark folder beside the current checkout."""
    env = os.environ.get("REMEM_BENCH_DIR")
    return Path(env) if env else Path.cwd().parent / "shared" / "bench"


def emit_json(data: Any) -> None:
    out.print_json(json.dumps(data, ensure_ascii=False, default=str), ensure_ascii=False)


def _bar(quiet: bool) -> Progress:
    """A progress bar on stderr, shown only on a terminal and never with --json."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=quiet or not err.is_terminal,
    )


def run_dataset(
    dataset_dir: Path,
    *,
    config: Config,
    k: int,
    channels: str,
    limit_conversations: int | None,
    limit_queries: int | None,
    as_json: bool,
) -> None:
    """`remem bench DATASET_DIR`: one dataset through one channel set, as a table or JSON."""
    if channels not in CHANNELS:
        raise BenchUsageError(f"invalid --channels {channels!r}; use hybrid, vector or lexical")
    if k < 1:
        raise BenchUsageError(f"invalid --k {k}; use a positive number")
    if not dataset_dir.is_dir():
        raise BenchUsageError(
            f"{str(dataset_dir)!r} is not a folder; give a folder with corpus.jsonl and "
            "queries.jsonl"
        )
    with _bar(as_json) as bar:
        # conversations are ingested one by one before their queries: two bars, both moving
        tasks = {"ingest": bar.add_task("ingesting", total=None)}
        tasks["query"] = bar.add_task("queries", total=None)

        def progress(stage: str, done: int, total: int) -> None:
            bar.update(tasks[stage], completed=done, total=total)

        result = run_benchmark(
            dataset_dir,
            config=config,
            k=k,
            variants=[Variant(channels, CHANNELS[channels])],
            limit_conversations=limit_conversations,
            limit_queries=limit_queries,
            progress=progress,
        )
    res = result["variants"][channels]
    if as_json:
        emit_json({key: res[key] for key in BENCH_JSON_KEYS})
    else:
        _print_bench(res, channels)


def _print_bench(res: dict[str, Any], channels: str) -> None:
    table = Table(title=f"{res['dataset']} ({res['n_queries']} queries, {channels})")
    table.add_column("category")
    table.add_column("n", justify="right")
    for m in BENCH_METRICS:
        table.add_column(m, justify="right")
    rows = [("overall", res["overall"], res["n_queries"])]
    rows += [(c, v, v["n"]) for c, v in res["by_category"].items()]
    for name, v, n in rows:
        table.add_row(name, str(n), *(f"{v[m]:.3f}" for m in BENCH_METRICS))
    out.print(table)
    lat = res["latency_ms"]
    out.print(
        f"search p50 {lat['search_p50']} ms, p95 {lat['search_p95']} ms; with query embedding "
        f"p50 {lat['search_embed_p50']} ms, p95 {lat['search_embed_p95']} ms; "
        f"ingest {res['ingest_per_s']} messages/s",
        markup=False,
    )


def run_suite_command(
    *,
    config: Config,
    channels: list[str],
    quick: bool,
    shared_dir: Path | None,
    data_dir: Path | None,
    cache_dir: Path,
    as_json: bool,
    allow_missing: bool = False,
) -> None:
    """`remem bench --suite`: every dataset found, refused when one is missing unless
    ``allow_missing`` (a partial suite's macro average is not the suite's)."""
    bad = [c for c in channels if c not in CHANNELS]
    if bad:
        raise BenchUsageError(
            f"invalid --channels {bad[0]!r}; use hybrid, vector or lexical (comma-separated)"
        )
    shared_dir = shared_dir or default_shared_dir()
    data_dir = data_dir or DATA_DIR
    datasets = suite_datasets(shared_dir, data_dir, quick=quick)
    if not datasets:
        raise BenchUsageError(
            f"no suite dataset found under {str(shared_dir)!r} (locomo, longmemeval_oracle) or "
            f"{str(data_dir)!r} (the sets written here); pass --shared-dir / --data-dir"
        )
    missing = missing_files(shared_dir, data_dir, quick=quick)
    if missing:
        listed = ", ".join(f"{name} ({str(path)!r} not found)" for name, path in missing.items())
        if not allow_missing:
            raise BenchUsageError(
                f"suite datasets missing: {listed}; pass --shared-dir / --data-dir to where "
                "they are, or --allow-missing to score the others only",
                1,
            )
        err.print(f"warning: left out of this run: {listed}", markup=False)
    no_answer_file = data_dir / "no_answer" / "queries.jsonl"
    no_answer = load_no_answer(no_answer_file) if no_answer_file.is_file() else []
    with _suite_progress(as_json, [d.name for d in datasets]) as (progress, dataset_done):
        result = run_suite(
            datasets,
            no_answer=no_answer,
            config=config,
            cache_dir=cache_dir,
            variants=[Variant(c, CHANNELS[c]) for c in channels],
            progress=progress,
            on_dataset=dataset_done,
        )
    if as_json:
        emit_json(result)
    else:
        print_suite(result)


SuiteCallbacks = tuple[
    Callable[[str, int, int], None], Callable[[str, dict[str, dict[str, Any]], float], None]
]


@contextmanager
def _suite_progress(as_json: bool, names: list[str]) -> Iterator[SuiteCallbacks]:
    """The run's progress: a bar on a terminal, else lines on stderr (also with --json: stdout
    holds only the JSON)."""
    lines = not err.is_terminal
    started: set[str] = set()
    begin = time.perf_counter()
    if lines:
        err.print(f"suite: {len(names)} datasets ({', '.join(names)})", markup=False)
    with _bar(as_json) as bar:
        task = bar.add_task("suite", total=None)

        def progress(name: str, done: int, total: int) -> None:
            if lines and name not in started:
                started.add(name)
                err.print(f"{name}: {total} questions to ask", markup=False)
            bar.update(task, description=name, completed=done, total=total)

        def dataset_done(name: str, summaries: dict[str, dict[str, Any]], seconds: float) -> None:
            if lines:
                figures = "; ".join(
                    f"{variant} r@10 {_fmt(s['overall'].get('recall@10'))} "
                    f"MRR {_fmt(s['overall'].get('mrr'))}"
                    for variant, s in summaries.items()
                )
                err.print(f"{name}: done in {seconds:.0f} s ({figures})", markup=False)

        yield progress, dataset_done
    if lines:
        elapsed = time.perf_counter() - begin
        err.print(f"suite: {len(names)} datasets in {elapsed:.0f} s", markup=False)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def print_suite(result: dict[str, Any]) -> None:
    """One overview table (dataset x variant) and one per-category table per dataset."""
    table = Table(title=f"remem suite ({result['embed_model']})")
    for col in ("dataset", "variant", "n", "r@5", "r@10", "MRR", "false hit (unans.)"):
        table.add_column(col, justify="left" if col in ("dataset", "variant") else "right")
    table.add_column("false hit (no-answer)", justify="right")
    table.add_column("p50 / p95 ms", justify="right")
    held_out = set(result.get("held_out", ()))
    for vname, v in result["variants"].items():
        for dname, d in v["datasets"].items():
            o = d["overall"]
            table.add_row(
                f"{dname} (held out)" if dname in held_out else dname,
                vname,
                str(d["n_answerable"]),
                _fmt(o.get("recall@5")),
                _fmt(o.get("recall@10")),
                _fmt(o.get("mrr")),
                f"{_fmt(d['unanswerable']['false_hit_rate'])} ({d['unanswerable']['n']})",
                f"{_fmt(d['no_answer']['false_hit_rate'])} ({d['no_answer']['n']})",
                f"{d['latency_ms']['p50']:.1f} / {d['latency_ms']['p95']:.1f}",
            )
        m = v["macro"]
        table.add_row(
            "macro" if not held_out else "macro (tuned sets)",
            vname,
            "",
            _fmt(m["recall@5"]),
            _fmt(m["recall@10"]),
            _fmt(m["mrr"]),
        )
    out.print(table)
    for vname, v in result["variants"].items():
        for dname, d in v["datasets"].items():
            cats = Table(title=f"{dname}, {vname}: per category")
            for col in ("category", "n", "r@5", "r@10", "MRR"):
                cats.add_column(col, justify="left" if col == "category" else "right")
            for cname, c in d["by_category"].items():
                cats.add_row(
                    cname, str(c["n"]), _fmt(c["recall@5"]), _fmt(c["recall@10"]), _fmt(c["mrr"])
                )
            out.print(cats)
