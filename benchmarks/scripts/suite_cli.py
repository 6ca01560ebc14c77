"""What the suite's bench scripts share: their dataset options, the datasets they name, a
progress line on stderr, and reading the JSONL rows they dump.

Imported as a sibling script (``python benchmarks/scripts/x.py`` puts scripts/ first on the path).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from remem.config import Config
from remem_bench.benchmark import Variant
from remem_bench.suite import SuiteDataset, SuiteRun, suite_datasets

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "benchmarks" / "data"


def add_suite_options(ap: argparse.ArgumentParser, datasets: str = "locomo,zh_groupchat") -> None:
    """--datasets, --shared-dir (../shared/bench beside the checkout), --cache-dir and
    --limit-conversations."""
    ap.add_argument("--datasets", default=datasets)
    ap.add_argument("--shared-dir", default=str(REPO.parent / "shared" / "bench"))
    ap.add_argument("--cache-dir", default=str(REPO / ".remem-bench-cache"))
    ap.add_argument("--limit-conversations", type=int)


def chosen_datasets(args: argparse.Namespace) -> list[SuiteDataset]:
    """The suite's datasets that ``--datasets`` names and this machine has, in suite order."""
    names = args.datasets.split(",")
    found = suite_datasets(Path(args.shared_dir), DATA, quick=False)
    return [d for d in found if d.name in names]


def progress_every(seconds: float) -> Callable[[str, int, int], None]:
    """A progress callback that prints at most one line per ``seconds``."""
    started, last = time.time(), [0.0]

    def progress(name: str, done: int, total: int) -> None:
        if time.time() - last[0] > seconds:
            last[0] = time.time()
            print(f"  {name} {done}/{total}, {time.time() - started:.0f}s", file=sys.stderr)

    return progress


def read_rows(paths: list[str]) -> list[dict]:
    """Every JSON line of the files, in order."""
    rows: list[dict] = []
    for path in paths:
        with open(path) as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    return rows


def rows_and_out() -> argparse.Namespace:
    """The arguments of a script that reads dumped rows: the files, and ``--out`` for its
    JSON report."""
    ap = argparse.ArgumentParser()
    ap.add_argument("rows", nargs="+")
    ap.add_argument("--out")
    return ap.parse_args()


def watch_fusion(searcher: Any, keep: Callable[[list, list], None]) -> None:
    """Have ``searcher`` hand its two channel lists (vector, lexical) to ``keep`` before each
    fusion; wrapped once per searcher."""
    if getattr(searcher, "_watched", False):
        return
    fuse = searcher._fuse

    def watched(vector: list, lexical: list, *more: Any) -> list:
        keep(vector, lexical)
        return fuse(vector, lexical, *more)

    searcher._fuse = watched
    searcher._watched = True


def dump_rows(run_class: type[SuiteRun], args: argparse.Namespace, seconds: float = 30) -> None:
    """Every chosen dataset's questions asked once with the defaults by ``run_class`` (a
    SuiteRun taking an ``out`` file it writes JSON lines to), into ``args.out``."""
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with open(args.out, "w") as out:
        run: Any = run_class(
            [Variant("default")],
            config,
            Path(args.cache_dir),
            progress=progress_every(seconds),
            limit_conversations=args.limit_conversations,
            out=out,
        )
        for dataset in chosen_datasets(args):
            run.run(dataset, [])
