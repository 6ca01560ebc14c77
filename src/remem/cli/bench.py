"""`remem bench`: score retrieval on one benchmark dataset (../shared/bench format), or the
whole development suite (``cli/suite.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from remem.cli.common import (
    JsonOption,
    emit_json,
    fail,
    load_config,
    new_table,
    out,
    progress_bar,
)

app = typer.Typer()

BENCH_CHANNELS = {"hybrid": ("vector", "lexical"), "vector": ("vector",), "lexical": ("lexical",)}
SUITE_HELP = "LoCoMo, LongMemEval oracle, zh_groupchat, no-answer; zh_validation held out"
DATA_DIR_HELP = "--suite: folder with zh_groupchat/, zh_validation/ and no_answer/"
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


@app.command()
def bench(
    dataset_dir: Annotated[
        Path | None, typer.Argument(help="folder with corpus.jsonl, queries.jsonl")
    ] = None,
    k: Annotated[int, typer.Option("--k", "-k", help="hits per query (>= 10 is scored)")] = 10,
    channels: Annotated[
        str, typer.Option(help="hybrid, vector or lexical (--suite: comma-separated)")
    ] = "hybrid",
    limit_conversations: Annotated[
        int | None, typer.Option(help="only the first N conversations")
    ] = None,
    limit_queries: Annotated[int | None, typer.Option(help="only the first N queries")] = None,
    suite: Annotated[bool, typer.Option("--suite", help=SUITE_HELP)] = False,
    quick: Annotated[bool, typer.Option("--quick", help="--suite without LongMemEval")] = False,
    shared_dir: Annotated[
        Path | None,
        typer.Option(
            help="--suite: folder with locomo/ and longmemeval_oracle/ "
            "(default $REMEM_BENCH_DIR or ../shared/bench)"
        ),
    ] = None,
    data_dir: Annotated[Path, typer.Option(help=DATA_DIR_HELP)] = Path("bench/data"),
    cache_dir: Annotated[
        Path, typer.Option(help="--suite: ingested stores are kept here between runs")
    ] = Path(".remem-bench-cache"),
    as_json: JsonOption = False,
) -> None:
    """Score retrieval on a benchmark dataset or the whole suite.

    A dataset is a folder holding corpus.jsonl (the turns) and queries.jsonl (the questions).
    """
    if suite:
        from remem.cli.suite import default_shared_dir, run_suite_command

        run_suite_command(
            channels=channels.split(","),
            quick=quick,
            shared_dir=shared_dir or default_shared_dir(),
            data_dir=data_dir,
            cache_dir=cache_dir,
            as_json=as_json,
        )
        return
    if dataset_dir is None:
        fail("give DATASET_DIR (a folder with corpus.jsonl and queries.jsonl) or --suite")
    from remem.benchmark import Variant, run_benchmark

    if channels not in BENCH_CHANNELS:
        fail(f"invalid --channels {channels!r}; use hybrid, vector or lexical")
    if k < 1:
        fail(f"invalid --k {k}; use a positive number")
    if not dataset_dir.is_dir():
        fail(
            f"{str(dataset_dir)!r} is not a folder; give a folder with corpus.jsonl and "
            "queries.jsonl"
        )
    # searches for minutes: background builds pay off; the datasets' times are UTC
    config = load_config(long_lived=True, **{"calendar.timezone": "UTC"})
    with progress_bar("{task.description}", quiet=as_json) as bar:
        # conversations are ingested one by one before their queries: two bars, both moving
        tasks = {"ingest": bar.add_task("ingesting", total=None)}
        tasks["query"] = bar.add_task("queries", total=None)

        def progress(stage: str, done: int, total: int) -> None:
            bar.update(tasks[stage], completed=done, total=total)

        result = run_benchmark(
            dataset_dir,
            config=config,
            k=k,
            variants=[Variant(channels, BENCH_CHANNELS[channels])],
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
    table = new_table(title=f"{res['dataset']} ({res['n_queries']} queries, {channels})")
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
