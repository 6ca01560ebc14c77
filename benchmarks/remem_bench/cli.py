"""`remem bench --suite`: every dataset of the development suite in one table."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from remem.benchmark import Variant
from remem.benchmark_suite import load_no_answer, run_suite, suite_datasets
from remem.cli.common import emit_json, fail, load_config, new_table, out, progress_bar

SUITE_VARIANTS = {
    "hybrid": Variant("hybrid"),
    "vector": Variant("vector", ("vector",)),
    "lexical": Variant("lexical", ("lexical",)),
}


def default_shared_dir() -> Path:
    """$REMEM_BENCH_DIR, else the shared benchmark folder beside the current checkout."""
    env = os.environ.get("REMEM_BENCH_DIR")
    return Path(env) if env else Path.cwd().parent / "shared" / "bench"


def run_suite_command(
    *,
    channels: list[str],
    quick: bool,
    shared_dir: Path,
    data_dir: Path,
    cache_dir: Path,
    as_json: bool,
) -> None:
    bad = [c for c in channels if c not in SUITE_VARIANTS]
    if bad:
        fail(f"invalid --channels {bad[0]!r}; use hybrid, vector or lexical (comma-separated)")
    datasets = suite_datasets(shared_dir, data_dir, quick=quick)
    if not datasets:
        fail(
            f"no suite dataset found under {str(shared_dir)!r} (locomo, longmemeval_oracle) or "
            f"{str(data_dir)!r} (zh_groupchat, zh_validation); pass --shared-dir / --data-dir"
        )
    no_answer_file = data_dir / "no_answer" / "queries.jsonl"
    no_answer = load_no_answer(no_answer_file) if no_answer_file.is_file() else []
    with progress_bar("{task.description}", quiet=as_json) as bar:
        task = bar.add_task("suite", total=None)

        def progress(name: str, done: int, total: int) -> None:
            bar.update(task, description=name, completed=done, total=total)

        result = run_suite(
            datasets,
            no_answer=no_answer,
            # searches for minutes; the datasets' times are UTC, and so are their questions'
            config=load_config(long_lived=True, **{"calendar.timezone": "UTC"}),
            cache_dir=cache_dir,
            variants=[SUITE_VARIANTS[c] for c in channels],
            progress=progress,
        )
    if as_json:
        emit_json(result)
    else:
        print_suite(result)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def print_suite(result: dict[str, Any]) -> None:
    """One overview table (dataset x variant) and one per-category table per dataset."""
    table = new_table(title=f"remem suite ({result['embed_model']})")
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
            cats = new_table(title=f"{dname}, {vname}: per category")
            for col in ("category", "n", "r@5", "r@10", "MRR"):
                cats.add_column(col, justify="left" if col == "category" else "right")
            for cname, c in d["by_category"].items():
                cats.add_row(
                    cname, str(c["n"]), _fmt(c["recall@5"]), _fmt(c["recall@10"]), _fmt(c["mrr"])
                )
            out.print(cats)
