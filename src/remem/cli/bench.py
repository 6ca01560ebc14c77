"""`remem bench`: score retrieval on one benchmark dataset (../shared/bench format), or the
whole development suite. The work is done by the benchmark package (remem-bench, kept beside
remem in the repository and not shipped with it); this command only parses the options, loads
the configuration and hands both over, importing the package when it runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from remem.cli.common import JsonOption, fail, load_config

app = typer.Typer()

SUITE_HELP = "LoCoMo, LongMemEval oracle, zh_groupchat, no-answer; zh_validation held out"
DATA_DIR_HELP = (
    "--suite: folder with zh_groupchat/, zh_validation/ and no_answer/ "
    "(default: the benchmark package's data)"
)
NOT_INSTALLED = (
    "remem bench needs the benchmark package (remem-bench), which is not installed: from a "
    "checkout of remem, run `pip install -e benchmarks`"
)


def bench_package() -> Any:
    """The benchmark package's command module, or a one-line error saying how to install it."""
    try:
        from remem_bench import cli
    except ImportError as exc:
        if exc.name is not None and not exc.name.startswith("remem_bench"):
            raise  # the package is there but something it needs is not: show that
        fail(NOT_INSTALLED, 1)
    return cli


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
    data_dir: Annotated[Path | None, typer.Option(help=DATA_DIR_HELP)] = None,
    cache_dir: Annotated[
        Path, typer.Option(help="--suite: ingested stores are kept here between runs")
    ] = Path(".remem-bench-cache"),
    allow_missing: Annotated[
        bool,
        typer.Option(
            "--allow-missing", help="--suite: score the datasets found when some are missing"
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Score retrieval on a benchmark dataset or the whole suite.

    A dataset is a folder holding corpus.jsonl (the turns) and queries.jsonl (the questions).
    """
    if not suite and dataset_dir is None:
        fail("give DATASET_DIR (a folder with corpus.jsonl and queries.jsonl) or --suite")
    cli = bench_package()
    # searches for minutes: background builds pay off; the datasets' times are UTC, and so
    # are their questions'
    config = load_config(long_lived=True, **{"calendar.timezone": "UTC"})
    try:
        if suite:
            cli.run_suite_command(
                config=config,
                channels=channels.split(","),
                quick=quick,
                shared_dir=shared_dir,
                data_dir=data_dir,
                cache_dir=cache_dir,
                as_json=as_json,
                allow_missing=allow_missing,
            )
        else:
            assert dataset_dir is not None  # checked above
            cli.run_dataset(
                dataset_dir,
                config=config,
                k=k,
                channels=channels,
                limit_conversations=limit_conversations,
                limit_queries=limit_queries,
                as_json=as_json,
            )
    except cli.BenchUsageError as exc:
        fail(str(exc), exc.code)
